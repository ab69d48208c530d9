"""A chunk of texts read without a Python object per ASCII text: :class:`Utf8Texts` (issue 48,
item 3).

An ASCII text's UTF-8 bytes are exactly the code units CPython would keep for it in a ``str`` of
kind 1 (PEP 393), so the fused first read (:func:`simhash_lab.kernels.fused.words_pass`), which
reads a ``str``'s code units in place, reads those bytes where the reader left them (the JSONL
scanner's output, an Arrow string array's data) with kind 1: the same digests, fingerprints, set
sizes and band keys bit for bit, with no ``str`` made. A text that is not ASCII is held as a
``str``, made by the reader as before (NFKC and Python's lowercase special cases need one).

A reader makes one with :meth:`Utf8Texts.of_buffer` (or :meth:`Utf8Texts.of_strs`); the dedup's
first read (:func:`simhash_lab.dedup.steps.first_read`) reads it through :meth:`views`; every
other consumer sees a sequence of ``str`` (a text made on demand).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["Utf8Texts", "text_lengths"]

_NO_BYTES = np.zeros(8, np.uint8)


class Utf8Texts(Sequence):
    """Texts each either ASCII bytes in a buffer (an address and a length) or a ``str``.

    Parameters
    ----------
    ptrs : ndarray, int64, shape (n,)
        The address of each buffered text's first byte (any value for a ``str`` row).
    lens : ndarray, int64, shape (n,)
        Each buffered text's bytes (any value for a ``str`` row).
    strs : list
        ``None`` for a buffered text, else the row's ``str``.
    keep : list
        ``(object, first address, end address)`` of each object whose memory the addresses point
        into, held while a row of this chunk points into it (a slice keeps only those its rows
        point into: the rows a reader holds back for its next chunk do not hold every block read
        before them).
    inbuf : ndarray, bool, shape (n,)
        Which rows are buffered (the others: ``strs``).
    """

    __slots__ = ("inbuf", "keep", "lens", "ptrs", "strs")

    def __init__(self, ptrs: np.ndarray, lens: np.ndarray, strs: list, keep: list, inbuf: np.ndarray) -> None:
        self.ptrs, self.lens, self.strs, self.keep, self.inbuf = ptrs, lens, strs, keep, inbuf

    @classmethod
    def of_strs(cls, texts: Sequence[str]) -> Utf8Texts:
        """A chunk of ``str`` rows only (a reader's path that made them)."""
        n = len(texts)
        return cls(np.zeros(n, np.int64), np.zeros(n, np.int64), list(texts), [], np.zeros(n, np.bool_))

    @classmethod
    def of_buffer(
        cls,
        buf: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        ascii: np.ndarray,
        others: Any,
        owner: Any = None,
    ) -> Utf8Texts:
        """The texts ``buf[starts[i]:ends[i]]`` (uint8, C-contiguous), those where ``ascii`` is
        True read in place; ``others(rows)``: the ``str`` of the other rows (positions, int64), in
        their order. ``owner``: what holds ``buf``'s memory, when not ``buf`` itself."""
        n = starts.shape[0]
        if not buf.shape[0]:  # no bytes (empty texts): an address that is not null all the same
            buf, owner = _NO_BYTES, None
        base = buf.ctypes.data
        ptrs = starts.astype(np.int64) + np.int64(base)
        lens = (ends - starts).astype(np.int64)
        strs: list = [None] * n
        odd = np.flatnonzero(~ascii)
        if odd.size:
            for i, t in zip(odd.tolist(), others(odd)):
                strs[i] = t
        keep = [(buf if owner is None else owner, base, base + buf.shape[0])]
        return cls(ptrs, lens, strs, keep, ascii.astype(np.bool_))

    @classmethod
    def concat(cls, parts: Sequence[Utf8Texts]) -> Utf8Texts:
        """One chunk of ``parts``' rows, in order."""
        if len(parts) == 1:
            return parts[0]
        strs: list = []
        keep: list = []
        for p in parts:
            strs.extend(p.strs)
            keep.extend(p.keep)
        ptrs = np.concatenate([p.ptrs for p in parts]) if parts else np.empty(0, np.int64)
        lens = np.concatenate([p.lens for p in parts]) if parts else np.empty(0, np.int64)
        inbuf = np.concatenate([p.inbuf for p in parts]) if parts else np.empty(0, np.bool_)
        return cls(ptrs, lens, strs, keep, inbuf)

    def __len__(self) -> int:
        return len(self.strs)

    def _text(self, i: int) -> str:
        s = self.strs[i]
        if s is not None:
            return s
        n = int(self.lens[i])
        return ctypes.string_at(int(self.ptrs[i]), n).decode("ascii") if n else ""

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            ptrs, inbuf = self.ptrs[i], self.inbuf[i]
            keep = self.keep
            if len(keep) > 1:  # only the objects its rows point into
                at = ptrs[inbuf]
                lo, hi = (int(at.min()), int(at.max())) if at.size else (1, 0)
                keep = [k for k in keep if k[1] <= hi and lo < k[2]]
            return Utf8Texts(ptrs, self.lens[i], self.strs[i], keep, inbuf)
        return self._text(range(len(self.strs))[i])

    def __iter__(self) -> Iterator[str]:
        for i in range(len(self.strs)):
            yield self._text(i)

    def str_rows(self) -> np.ndarray:
        """The positions of the ``str`` rows (int64)."""
        return np.flatnonzero(~self.inbuf)

    def with_strs(self, rows: np.ndarray, strs: list) -> Utf8Texts:
        """The same texts, the ``str`` rows ``rows`` replaced by ``strs`` (normalised)."""
        new = list(self.strs)
        for i, t in zip(rows.tolist(), strs):
            new[i] = t
        return Utf8Texts(self.ptrs, self.lens, new, self.keep, self.inbuf)

    def take(self, rows: np.ndarray) -> Utf8Texts:
        """The texts of ``rows`` (int positions, in that order), buffered ones still where they
        are (the objects they point into held as here)."""
        rows = np.asarray(rows, np.int64)
        strs = [self.strs[i] for i in rows.tolist()]
        return Utf8Texts(self.ptrs[rows], self.lens[rows], strs, self.keep, self.inbuf[rows])

    def views(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(addresses, lengths in code units, kinds)`` as :func:`~simhash_lab.kernels.strings.
        str_views` gives them: a buffered text's bytes with kind 1, a ``str`` row's code units
        (valid while this chunk is held)."""
        from ..kernels.strings import str_views

        ptrs, lens = self.ptrs.copy(), self.lens.copy()
        kinds = np.ones(len(self.strs), np.int64)
        rows = self.str_rows()
        if rows.size:
            sub = [self.strs[i] for i in rows.tolist()]
            if set(map(type, sub)) - {str}:  # str_views reads exact str objects: a subclass copied
                sub = [t if type(t) is str else str.__str__(t) for t in sub]
                self.strs = list(self.strs)
                for i, t in zip(rows.tolist(), sub):
                    self.strs[i] = t
            ptrs[rows], lens[rows], kinds[rows] = str_views(sub)
        return ptrs, lens, kinds


def text_lengths(texts: Sequence[str]) -> np.ndarray:
    """Each text's characters (int64): a buffered ASCII text's bytes, a ``str``'s ``len``."""
    if isinstance(texts, Utf8Texts):
        out = texts.lens.copy()
        rows = texts.str_rows()
        if rows.size:
            out[rows] = np.fromiter((len(texts.strs[i]) for i in rows.tolist()), np.int64, rows.size)
        return out
    return np.fromiter(map(len, texts), np.int64, len(texts))
