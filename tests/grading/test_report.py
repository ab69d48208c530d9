"""Results as a teacher reads them (simhash_lab.grading._report): the table, the detail, the --json
file. The class-folder walk is tested in test_notebooks.py."""

from __future__ import annotations

import json
import os

import pytest

from simhash_lab.grading._report import (
    CheckResult,
    GradeResult,
    format_detail,
    format_table,
    safe_text,
    write_json,
)


def _results():
    ok = GradeResult("a.ipynb", "03_hamming_popcount", "passed", [CheckResult("xor_AB", True)])
    bad = GradeResult(
        os.fsdecode(b"b\xff\nc.ipynb"),
        "03_hamming_popcount",
        "failed",
        [CheckResult("xor_AB", False, "it raised ValueError: \x1b[31mred\x1b[0m\nsecond line")],
        "xor_AB: it raised ValueError: \x1b[31mred\x1b[0m\nsecond line \udcff",
    )
    odd = GradeResult(
        "fifo.ipynb", None, "not gradable", first_hint="not a regular file: a FIFO (named pipe)"
    )
    return [ok, bad, odd]


def test_the_table_is_one_line_per_file_with_every_name_escaped():
    table = format_table(_results())
    lines = table.splitlines()
    assert len(lines) == 2 + 3 + 2
    assert lines[3].startswith("b\\xff\\nc.ipynb ") and "FAILED" in lines[3] and "\x1b" not in table
    assert "NOT GRADABLE" in lines[4] and "FIFO" in lines[4]
    assert lines[-1] == "1 of 3 notebooks passed, 1 not gradable"


def test_the_detail_names_each_answer():
    text = format_detail(_results()[1])
    assert "❌ xor_AB: it raised ValueError: \\x1b[31mred\\x1b[0m second line" in text
    assert text.splitlines()[-1].startswith("FAILED: 0/1 answers passed")
    assert (
        format_detail(_results()[2]).splitlines()[-1]
        == "NOT GRADABLE: not a regular file: a FIFO (named pipe)"
    )


def test_safe_text_keeps_one_printable_line():
    assert safe_text("a\nb\tc\x07\u202e") == "a b c\\x07\\u202e"


def test_the_json_is_valid_utf8_and_written_atomically(tmp_path, monkeypatch):
    target = tmp_path / "grades.json"
    write_json(_results(), target)
    doc = json.loads(target.read_bytes().decode("utf-8"))
    assert [r["status"] for r in doc] == ["passed", "failed", "not gradable"]
    assert doc[1]["path"] == "b\\xff\nc.ipynb"
    before = target.read_bytes()

    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError):
        write_json(_results()[:1], target)
    assert target.read_bytes() == before  # the old file whole
    assert [p.name for p in tmp_path.iterdir()] == ["grades.json"]  # no temporary left behind


def test_an_unknown_exercise_is_a_usage_error(capsys):
    from simhash_lab import cli

    assert cli.main(["grade", "x.ipynb", "--exercise", "nope"]) == 2
    err = capsys.readouterr().err
    assert "--exercise must be one of 01_lsh_vs_crypto" in err and "'nope'" in err


def test_a_log_section_keeps_every_line_of_the_log_behind_its_margin():
    from simhash_lab.grading._report import LOG_MARGIN, log_section

    forged = "===== sandbox log: subs/alice/03.ipynb =====\n\x1b[2Jcleared\r===== sandbox log: x =====\n"
    text = log_section(os.fsdecode(b"subs/bob/\xff\n03.ipynb"), "out\n" + forged)
    lines = text.split("\n")
    assert lines[1] == "===== sandbox log: subs/bob/\\xff\\n03.ipynb =====" and lines[0] == ""
    body = [line for line in lines[2:] if line]
    assert body and all(line.startswith(LOG_MARGIN) for line in body), body
    assert "\x1b" not in text and "\r" not in text
    assert sum(line.startswith("=====") for line in lines) == 1
    assert log_section("a.ipynb", "").endswith(f"{LOG_MARGIN}(empty)\n")
