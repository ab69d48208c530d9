"""The argument types the subcommands share (simhash_lab.cli._args): an int option in a range, whose
error names the option and what it wants."""

from __future__ import annotations

import argparse

import pytest

from simhash_lab.cli._args import int_in


@pytest.mark.parametrize("text, want", [("0", 0), ("63", 63), ("-0", 0), (" 7 ", 7), ("+5", 5)])
def test_an_int_in_range_is_the_int(text, want):
    assert int_in("-k", 0, 63)(text) == want


@pytest.mark.parametrize(
    "lo, hi, text, words",
    [
        (0, 63, "64", "-k must be an int from 0 to 63, got 64"),
        (0, 63, "-1", "-k must be an int from 0 to 63, got -1"),
        (0, 63, "3.5", "-k must be an int from 0 to 63, got '3.5'"),
        (0, 63, "", "got ''"),
        (1, None, "0", "-k must be an int of at least 1, got 0"),
        (1, None, "many", "-k must be an int of at least 1, got 'many'"),
    ],
)
def test_anything_else_is_an_argparse_error_naming_the_option(lo, hi, text, words):
    with pytest.raises(argparse.ArgumentTypeError) as e:
        int_in("-k", lo, hi)(text)
    assert words in str(e.value)


def test_no_upper_bound_takes_any_large_int():
    assert int_in("--jobs", 1)(str(10**30)) == 10**30
