"""simhash_lab._validate's shared checks (issue 28): one byte-size parser with one unit table for
every size option, and the fraction, k and budget checks every entry point shares."""

from __future__ import annotations

import argparse

import pytest

from simhash_lab._validate import BYTE_UNITS, check_budget, check_fraction, check_k, parse_byte_size
from simhash_lab.cli import main
from simhash_lab.cli._args import byte_size


@pytest.mark.parametrize(
    ("text", "want"),
    [("100", 100), ("64M", 64 << 20), ("64m", 64 << 20), ("2G", 2 << 30), ("1.5GiB", 3 << 29),
     ("512 MB", 512 << 20), ("1t", 1 << 40), (".5K", 512), ("0", 0)],
)  # fmt: skip
def test_one_unit_table(text, want):
    assert parse_byte_size("--x", text) == want
    assert byte_size("--x")(text) == want


@pytest.mark.parametrize("text", ["", "lots", "-1", "-1G", "5E", "1.2.3M", "64X", "G"])
def test_what_is_not_a_size_is_refused_naming_the_option(text):
    with pytest.raises(ValueError, match=r"^--max-bytes must be a number of bytes"):
        parse_byte_size("--max-bytes", text)
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--max-bytes must be"):
        byte_size("--max-bytes")(text)


def test_bounds_are_said_in_binary_units():
    with pytest.raises(ValueError, match=r"--memory must be at least 64 MiB, got '1M'"):
        parse_byte_size("--memory", "1M", lo=64 << 20)
    with pytest.raises(ValueError, match="below 4 EiB"):
        parse_byte_size("--memory-budget", "9000000T")
    assert set(BYTE_UNITS) == {"", "k", "m", "g", "t"}


@pytest.mark.parametrize(
    "argv",
    [
        ["dedup", "{d}", "--max-bytes", "64M", "-q"],
        ["dedup", "{d}", "--memory-budget", "2G", "-q"],
        ["dedup", "{d}", "--max-row-bytes", "1M", "-q"],
        ["fingerprint", "--max-bytes", "64M", "{f}"],
    ],
)
def test_every_size_option_takes_suffixes(tmp_path, capsys, argv):
    """``--max-bytes 64M`` was refused while ``--memory-budget 2G`` was accepted: one parser now."""
    (tmp_path / "a.txt").write_text("the quick brown fox jumps over the lazy dog")
    args = [a.format(d=tmp_path, f=tmp_path / "a.txt") for a in argv]
    assert main(args) in (0, 1)
    assert "must be" not in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--max-bytes", "--memory-budget", "--max-row-bytes"])
def test_a_bad_size_is_a_usage_error(tmp_path, capsys, option):
    with pytest.raises(SystemExit) as e:
        main(["dedup", str(tmp_path), option, "64X"])
    assert e.value.code == 2 and f"{option} must be a number of bytes" in capsys.readouterr().err


def test_grade_memory_uses_the_same_table(capsys):
    from simhash_lab.cli.grade import _size

    assert _size("2G") == 2 << 30 and _size("1.5g") == 3 << 29
    with pytest.raises(argparse.ArgumentTypeError, match="at least 64 MiB"):
        _size("1M")


@pytest.mark.parametrize(
    ("value", "err"),
    [(0, ValueError), (1.5, ValueError), (float("nan"), ValueError), (True, TypeError), ("0.8", TypeError),
     (None, TypeError)],
)  # fmt: skip
def test_check_fraction(value, err):
    assert check_fraction("jaccard", 1) == 1.0
    with pytest.raises(err, match="jaccard"):
        check_fraction("jaccard", value)


def test_check_k_and_budget():
    assert check_k(3, 64) == 3 and check_k(63, 64) == 63
    for bad, err in ((64, ValueError), (-1, ValueError), (3.0, TypeError), (True, TypeError)):
        with pytest.raises(err, match=r"\bk must be"):
            check_k(bad, 64)
    assert check_budget(0) == 0 and check_budget(None) > 0
    with pytest.raises(ValueError, match="memory_budget"):
        check_budget(-1)
