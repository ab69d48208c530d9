"""Text that someone else controls, made safe for the formats the project writes.

One place for every CSV/TSV cell and every piece of Markdown the project writes from content it
does not control: a dataset's ids and texts (``--duplicates``, ``--report``), a class's folder
names, exception messages and hints (the gradebook, its exports and the feedback files).

- A CSV cell a spreadsheet would run as a formula gets a leading ``'`` (OWASP's advice against
  formula injection): text starting with ``= + - @``, a tab, a carriage return or a line feed,
  unless it is a plain number. Rows end in CR LF (RFC 4180), so a cell holding a CR or a LF
  anywhere is quoted and cannot start a row of its own.
- Markdown text is one line, its HTML special characters written as entities and every other
  ASCII punctuation character backslash-escaped (CommonMark allows it before any of them), so no
  link, image, raw HTML, heading, list or emphasis can come from it.
"""

from __future__ import annotations

import csv
import html
import re
from collections.abc import Iterable
from typing import IO, Any

__all__ = ["FORMULA_STARTS", "csv_cell", "csv_rows", "markdown_text"]

#: The first characters that make a spreadsheet read a cell as a formula (or start a new cell or row).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell a spreadsheet will not run.

    Parameters
    ----------
    value : object
        A cell's value.

    Returns
    -------
    object
        ``value``, or the str ``"'" + value`` for text starting with one of :data:`FORMULA_STARTS`
        that is not a plain number.

    Examples
    --------
    >>> csv_cell("=SUM(A1)"), csv_cell("-3.5"), csv_cell(7), csv_cell("\\t=1+1")
    ("'=SUM(A1)", '-3.5', 7, "'\\t=1+1")
    """
    if isinstance(value, str) and value[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_rows(f: IO[str], rows: Iterable[Iterable[Any]], delimiter: str = ",") -> None:
    """Write ``rows`` to ``f`` as CSV (or TSV with ``delimiter="\\t"``), every cell through
    :func:`csv_cell`, rows ending in CR LF so a CR or LF inside a cell is quoted.

    Parameters
    ----------
    f : file object
        A text file opened with ``newline=""``.
    rows : iterable of iterables
        The rows, the header first when there is one.
    delimiter : str
        ``","`` or ``"\\t"``.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()
    >>> csv_rows(buf, [["id", "n"], ["doc2\\r=cmd", 3], ["@x", -1]])
    >>> buf.getvalue()
    'id,n\\r\\n"doc2\\r=cmd",3\\r\\n\\'@x,-1\\r\\n'
    """
    w = csv.writer(f, delimiter=delimiter, lineterminator="\r\n")
    for row in rows:
        w.writerow([csv_cell(v) for v in row])


_MD_PUNCT = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:\"'$=^/])")


def markdown_text(text: Any, limit: int | None = None) -> str:
    """``text`` as Markdown that shows it literally, on one line.

    Whitespace runs become one space; ``& < >`` become entities; every other ASCII punctuation
    character that Markdown or an extension reads (links, images, emphasis, code, headings,
    tables, math, autolinks) is backslash-escaped.

    Parameters
    ----------
    text : object
        The text (``str()`` of anything else).
    limit : int, optional
        At most this many characters of ``text`` (before escaping), ``...`` marking a cut.

    Returns
    -------
    str
        The escaped text.

    Examples
    --------
    >>> markdown_text("[click](javascript:alert(1)) <img src=x>\\n# H")
    '\\\\[click\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) &lt;img src\\\\=x&gt; \\\\# H'
    """
    s = " ".join(str(text).split())
    if limit is not None and len(s) > limit:
        s = s[: max(limit - 3, 0)] + "..."
    s = html.escape(s, quote=False)  # & < > first: the entities' own & and ; are not escaped again
    return _MD_PUNCT.sub(r"\\\1", s)
