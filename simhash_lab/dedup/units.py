"""Units smaller than a document: ``unit="paragraph"`` or ``"line"`` (``--unit``), the rows every
step works on. A document is cut into its units as it is read (:func:`pieces`, the read step's
share, both executors), every step then runs on units as it runs on documents (exact groups,
fingerprint, candidates, verify, cluster: the same verified, exact definition), and the write step
puts each document back together without the units dropped (:func:`cut_text`), or drops it whole
when what is left is too short (:func:`documents`).

* a **paragraph** is a longest run of lines that are not blank (a blank line: whitespace only); its
  span, what goes when it is dropped, runs to the next paragraph (the blank lines after it too);
* a **line** is a line that is not blank; its span holds its line end.

What is compared is the unit's text without the whitespace around it. The unit kept of a group is
the first in the visiting order (``keep="first"``: the first in the corpus; the anchors are
datatrove's sentence dedup and C4's, which keep one copy of a repeated span and drop the others,
not text-dedup's suffix-array mode, which drops every copy). A document keeps what it has left
when that holds ``min_kept_words`` words or more (default 1: a document whose every unit went
elsewhere is dropped whole), words counted as the shingles count them (a character of a script
without word spaces is a word); a document that lost nothing is kept whatever its length, and one
that holds the kept copy of a unit dropped elsewhere is never dropped whole (its text would be lost).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..datasets import Source
from ..datasets.source import cut_text

__all__ = ["UNITS", "UnitInfo", "UnitsSource", "cut_text", "documents", "pieces", "split", "word_counts"]

from ..settings import UNITS

_PARAGRAPH = re.compile(r"[^\n]*\S[^\n]*(?:\n[^\n]*\S[^\n]*)*")  # lines holding a non-space, in a row
_LINE = re.compile(r"[^\n]*\S[^\n]*")


def split(text: str, unit: str) -> list[tuple[int, int, int]]:
    """The units of ``text``: ``(start, stop, end)`` each, ``text[start:stop]`` the unit (its first
    to its last non-blank line), ``text[start:end]`` what goes when it is dropped.

    >>> split("head\\n\\nbody one\\nbody two\\n\\n\\nfoot\\n", "paragraph")
    [(0, 4, 6), (6, 23, 26), (26, 30, 31)]
    >>> split("a\\n\\n  b\\n", "line")
    [(0, 1, 2), (3, 6, 7)]
    """
    if unit == "paragraph":
        found = [(m.start(), m.end()) for m in _PARAGRAPH.finditer(text)]
        return [
            (a, b, found[i + 1][0] if i + 1 < len(found) else len(text)) for i, (a, b) in enumerate(found)
        ]
    if unit == "line":
        n = len(text)
        return [
            (m.start(), m.end(), m.end() + (m.end() < n and text[m.end()] == "\n"))
            for m in _LINE.finditer(text)
        ]
    raise ValueError(f"unit must be one of {', '.join(UNITS[1:])} here, got {unit!r}")


def word_counts(texts: list[str]) -> np.ndarray:
    """Words of each text as :func:`documents` counts them: its words (``\\w`` runs), a character
    of a run of a script without word spaces counting as one (int64)."""
    from ..shingles import Shingler, script_run_words, unspaced

    out = Shingler(1).word_counts(texts) if texts else np.zeros(0, np.int64)
    odd = np.flatnonzero(unspaced(texts))
    if odd.size:  # rare: texts with Han, kana, Thai...
        out[odd] = script_run_words([texts[i] for i in odd.tolist()])
    return out


@dataclass
class UnitInfo:
    """Where a chunk's units come from: their document (numbered in the chunk, from 0), their
    place in it, their spans and words; and the chunk's documents' ids."""

    doc: np.ndarray
    index: np.ndarray
    start: np.ndarray
    end: np.ndarray
    words: np.ndarray
    docs: int
    doc_ids: list


def pieces(source: Source, rows: int, unit: str) -> Iterator[tuple[list, list, list | None, UnitInfo]]:
    """``(texts, ids, priorities, info)`` of every unit of ``source``, a chunk of ``rows``
    documents at a time: each document cut into its units (:func:`split`), each unit's text
    without the whitespace around it, its id and priority its document's."""
    for texts, ids, prio in source.chunks(rows):
        ut, ui, up = [], [], []
        doc, index, start, end = [], [], [], []
        for d, t in enumerate(texts):
            for k, (a, b, e) in enumerate(split(t, unit)):
                ut.append(t[a:b].strip())
                ui.append(ids[d])
                if prio is not None:
                    up.append(prio[d])
                doc.append(d)
                index.append(k)
                start.append(a)
                end.append(e)
        info = UnitInfo(
            np.array(doc, np.int64), np.array(index, np.int64), np.array(start, np.int64),
            np.array(end, np.int64), word_counts(ut), len(texts), list(ids),
        )  # fmt: skip
        yield ut, ui, (up if prio is not None else None), info


class UnitsSource(Source):
    """The units of a source as rows (:func:`pieces`): what the steps that read rows again read
    (the calibration's sample, the sets past their budget, the report's texts), in unit numbers.

    Parameters
    ----------
    source : Source
        The documents.
    unit : str
        ``"paragraph"`` or ``"line"``.
    """

    def __init__(self, source: Source, unit: str) -> None:
        self.source = source
        self.unit = unit
        self.format = source.format
        self.name = source.name

    def chunks(self, rows: int) -> Iterator[tuple[list, list, list | None]]:
        """See :meth:`Source.chunks`: the units of ``rows`` documents at a time."""
        for t, i, p, _ in pieces(self.source, rows, self.unit):
            yield t, i, p

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`: one pass over the documents, the wanted units picked."""
        rows = np.asarray(rows, np.int64)
        if not rows.size:
            return
        w, at = 0, 0
        got, texts = [], []
        for t, _, _, _ in pieces(self.source, 8192, self.unit):
            hi = at + len(t)
            while w < rows.size and rows[w] < hi:
                got.append(int(rows[w]))
                texts.append(t[rows[w] - at])
                w += 1
            at = hi
            if len(got) >= chunk or (w == rows.size and got):
                yield np.array(got, np.int64), texts
                got, texts = [], []
            if w == rows.size:
                return
        if got:
            yield np.array(got, np.int64), texts


def documents(
    unit_doc: np.ndarray,
    unit_words: np.ndarray,
    dropped: np.ndarray,
    kept_for: np.ndarray,
    n_docs: int,
    min_kept_words: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The documents' fates from their units': ``(keep, whole, words_left)`` per document. A
    document that lost units (``dropped``: unit rows) is dropped whole when what it has left holds
    fewer than ``min_kept_words`` words, unless it holds a unit another was dropped for
    (``kept_for``: unit rows), whose text would then be nowhere.

    >>> keep, whole, left = documents(np.array([0, 0, 1, 1, 2]), np.array([3, 5, 3, 5, 4]),
    ...                               np.array([2, 3]), np.array([0, 1]), 3, 1)
    >>> keep.tolist(), whole.tolist(), left.tolist()
    ([True, False, True], [False, True, False], [8, 0, 4])
    """
    total = np.bincount(unit_doc, weights=unit_words, minlength=n_docs).astype(np.int64)
    gone = np.bincount(unit_doc[dropped], weights=unit_words[dropped], minlength=n_docs).astype(np.int64)
    lost = np.bincount(unit_doc[dropped], minlength=n_docs) > 0
    holds = np.zeros(n_docs, np.bool_)
    holds[unit_doc[kept_for]] = True
    left = total - gone
    whole = lost & (left < min_kept_words) & ~holds
    return ~whole, whole, left
