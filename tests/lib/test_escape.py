"""simhash_lab._escape: CSV cells a spreadsheet will not run, Markdown that shows text literally."""

from __future__ import annotations

import csv
import io

import pytest

from simhash_lab._escape import FORMULA_STARTS, csv_cell, csv_rows, markdown_text

HOSTILE = [
    "=1+1",
    "+A1+cmd",
    "-cmd",
    "@SUM(A1)",
    '\t=HYPERLINK("http://x")',
    "\r=1+1",
    "\n=1+1",
    "doc2\r=cmd|' /C calc'!A0",
    'a\nb,c"d',
    "x\r\n=2",
]


def _read_back(rows: list[list[object]], delimiter: str = ",") -> list[list[str]]:
    buf = io.StringIO(newline="")
    csv_rows(buf, rows, delimiter=delimiter)
    return list(csv.reader(io.StringIO(buf.getvalue(), newline=""), delimiter=delimiter))


@pytest.mark.parametrize("delimiter", [",", "\t"])
def test_hostile_cells_read_back_as_one_row_none_a_formula(delimiter: str) -> None:
    rows = [["id", "n"], *[[v, 1] for v in HOSTILE]]
    back = _read_back(rows, delimiter)
    assert len(back) == len(rows)  # no cell started a row of its own
    for (want, _), (got, n) in zip(rows[1:], back[1:]):
        assert n == "1"
        assert got[:1] not in FORMULA_STARTS, got
        assert got.lstrip("'") == want  # nothing lost: the prefix is the only change


def test_a_spreadsheet_splitting_on_any_line_break_outside_quotes_sees_no_formula() -> None:
    # a naive reader (some spreadsheets) ends a row at CR or LF outside quotes: every line it sees
    # must start with a cell that is not a formula
    buf = io.StringIO(newline="")
    csv_rows(buf, [["id"], *[[v] for v in HOSTILE]])
    text, lines, quoted, cur = buf.getvalue(), [], False, ""
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch in "\r\n" and not quoted:
            lines.append(cur)
            cur = ""
        else:
            cur += ch
    assert all(line[:1] not in FORMULA_STARTS for line in lines if line)


def test_numbers_are_left_as_numbers() -> None:
    assert csv_cell("-3.5") == "-3.5"
    assert csv_cell("+1e5") == "+1e5"
    assert csv_cell(-2) == -2
    assert csv_cell(None) is None


@pytest.mark.parametrize(
    "text",
    [
        "<img src=x onerror=alert(1)>",
        "[click](javascript:alert(1))",
        "![t](http://tracker/p.png)",
        "<script>alert(1)</script>",
        "id\n# HEADING",
        "**bold** _it_ `code` $x$ | a | b |",
        "https://example.com/<x>",
    ],
)
def test_markdown_text_has_no_markup_left(text: str) -> None:
    out = markdown_text(text)
    assert "\n" not in out
    assert "<" not in out and ">" not in out
    for ch in "[]()!*_`$|#":
        # every such character is preceded by a backslash
        for i, c in enumerate(out):
            if c == ch:
                assert out[i - 1] == "\\", (ch, out)


def test_markdown_text_renders_back_to_the_text() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    text = "[click](javascript:alert(1)) <b>x</b> & *y* # z"
    html = markdown_it.MarkdownIt("commonmark").render(markdown_text(text))
    assert "<a" not in html and "<b>" not in html and "<em>" not in html and "<h1>" not in html
    assert "javascript:alert(1)" in html and "&lt;b&gt;" in html


def test_markdown_text_limit_cuts_before_escaping() -> None:
    assert markdown_text("a" * 10, limit=6) == "aaa\\.\\.\\."
