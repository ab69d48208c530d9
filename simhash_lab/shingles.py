"""Shingle sets and exact Jaccard similarity: the verification step of :mod:`simhash_lab.dedup`.

:class:`Shingler` cuts documents into word n-shingles and keeps each document's set as sorted
distinct 64-bit hashes (CSR arrays, :mod:`simhash_lab.kernels.verify`); its :meth:`~Shingler.jaccard`
merges two sorted runs to count their intersection. With :func:`recommended_hasher`, the same pass
also gives the Simhash fingerprints (:meth:`Shingler.fingerprints_and_sets`), so a corpus is
tokenized once for both.

>>> indptr, data = Shingler(3).sets(["the cat sat on the mat", "the cat sat on a mat"])
>>> round(float(Shingler.jaccard(indptr, data, np.array([0]), np.array([1]))[0]), 3)
0.333
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._threads import over
from ._validate import check_int
from .datasets import Source

__all__ = ["CHUNK_ROWS", "Shingler", "recommended_hasher"]

CHUNK_ROWS = 8192  # rows read again at a time


def recommended_hasher(shingle: int = 3):
    """The Simhasher for a Jaccard threshold on word ``shingle``-grams: those same shingles as
    features, each distinct one voting once (binary weights), XXH3, 64 bits.

    On the Debian copyright files the issue measured (truth: Jaccard of word 3-shingles >= 0.8),
    the default ``Simhasher()`` (words, TF weights) reached precision 0.60 at k = 3: boilerplate
    words outvote the rest. These features are the ones the threshold speaks of.
    """
    from .simhasher import Simhasher
    from .tokenize import word_shingles

    return Simhasher(
        tokenizer=word_shingles(shingle), weights="binary", name=f"word_shingles({shingle}), binary"
    )


class Shingler:
    """Each document's set of word ``n``-shingles, as sorted distinct 64-bit hashes (CSR arrays).

    The shingles are those of :func:`simhash_lab.tokenize.word_shingles` (lowercased ``\\w+``
    words, ``n`` at a time joined by a space; a document with fewer words is one shingle), hashed
    with XXH3-64: the same sets :func:`simhash_lab.course.methods.shingle_sets` builds as str.

    >>> indptr, data = Shingler(2).sets(["a b c", "a b", ""])
    >>> np.diff(indptr).tolist()
    [2, 1, 0]
    >>> Shingler(2).jaccard(indptr, data, np.array([0, 0]), np.array([1, 2])).tolist()
    [0.5, 0.0]
    """

    def __init__(self, n: int = 3) -> None:
        from .tokenize import word_shingles

        self.n = check_int("shingle", n, 1, 64)
        self.tokenizer = word_shingles(self.n)

    def sets(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr (n + 1,) int64, data (nnz,) uint64)``: document ``i``'s sorted distinct shingle
        hashes are ``data[indptr[i]:indptr[i + 1]]``."""
        if not texts:
            return np.zeros(1, np.int64), np.empty(0, np.uint64)
        return self._str_sets(list(texts))

    def _str_sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of a list of str, read in place (``kernels.verify.shingle_hashes_str``, in
        threads for 64 texts or more); the rare text whose lowercase needs Python (İ, Σ) again
        through :meth:`_sets`, a lone surrogate refused as there."""
        from .kernels import verify as V
        from .kernels.strings import str_views
        from .kernels.tokenize import FLAG_PYTHON_LOWER, FLAG_SURROGATE
        from .simhasher import _utf8_batch

        if any(type(t) is not str for t in texts):  # str_views reads exact str objects only
            return self._sets(*_utf8_batch(texts, self.tokenizer.lowercase))
        tok = self.tokenizer
        nd = len(texts)
        ptrs, lens, kinds = str_views(texts)
        slots = np.zeros(nd + 1, np.int64)
        np.cumsum((lens + 1) // 2 + 1, out=slots[1:])
        scratch = np.empty(slots[-1], np.uint64)
        counts = np.zeros(nd, np.int64)
        flags = np.zeros(nd, np.int64)

        def run(lo: int, hi: int) -> None:
            V.shingle_hashes_str(
                ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], tok.pipeline, tok.n, slots[lo : hi + 1],
                scratch, counts[lo:hi], flags[lo:hi],
            )  # fmt: skip

        over(nd, run, nd >= 64, align=V.STR_CHUNK)
        if flags.any():
            if (flags & FLAG_SURROGATE).any():
                _utf8_batch(texts, tok.lowercase)  # raises, naming the text
            redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
            ind, dat = self._sets(*_utf8_batch([texts[i] for i in redo], tok.lowercase))
            counts[redo] = np.diff(ind)
            room = np.diff(slots)[redo]
            if (counts[redo] > room).any():  # more shingles than the room: pack them apart
                return self._splice(scratch, slots, counts, redo, ind, dat)
            for k, i in enumerate(redo.tolist()):
                scratch[slots[i] : slots[i] + counts[i]] = dat[ind[k] : ind[k + 1]]
        return V.pack_sets(scratch, slots, counts)

    @staticmethod
    def _splice(scratch, slots, counts, redo, ind, dat) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets from ``scratch`` with the rows ``redo`` replaced by the CSR ``ind``/``dat``."""
        parts = [scratch[slots[i] : slots[i] + counts[i]] for i in range(counts.size)]
        for k, i in enumerate(redo.tolist()):
            parts[i] = dat[ind[k] : ind[k + 1]]
        indptr = np.zeros(counts.size + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        return indptr, np.concatenate(parts) if parts else np.empty(0, np.uint64)

    def _sets(self, buf: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of a UTF-8 batch, in threads for 64 documents or more."""
        from .kernels import verify as V

        tok = self.tokenizer
        nd = offsets.shape[0] - 1
        slots = V.shingle_slots(offsets)
        scratch = np.empty(slots[-1], np.uint64)
        counts = np.zeros(nd, np.int64)

        def run(lo: int, hi: int) -> None:
            V.shingle_hashes(
                buf, offsets[lo : hi + 1], tok.pipeline, tok.n, slots[lo : hi + 1], scratch, counts[lo:hi]
            )

        over(nd, run, nd >= 64)
        return V.pack_sets(scratch, slots, counts)

    def word_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Words per document (int64, shape ``(len(texts),)``) by the shingles' word rule: 0 for a
        document with no shingle (empty, whitespace or punctuation only)."""
        from .kernels import verify as V
        from .simhasher import _utf8_batch

        out = np.zeros(len(texts), np.int64)
        if texts:
            buf, offsets = _utf8_batch(list(texts), self.tokenizer.lowercase)
            p = self.tokenizer.pipeline
            run = lambda lo, hi: V.word_counts(buf, offsets[lo : hi + 1], p, out[lo:hi])  # noqa: E731
            over(len(texts), run, len(texts) >= 64)
        return out

    def fingerprints_and_sets(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(fingerprints, indptr, data)``: the sets of :meth:`sets` and, from the same hashes, the
        fingerprints of :func:`recommended_hasher` (``shingle`` = this ``n``), tokenized once."""
        from .kernels import verify as V

        fps = np.empty(len(texts), np.uint64)
        if not texts:
            return fps, np.zeros(1, np.int64), np.empty(0, np.uint64)
        indptr, data = self._str_sets(list(texts))
        run = lambda lo, hi: V.fold_sets(indptr[lo : hi + 1], data, 64, fps[lo:hi])  # noqa: E731
        over(len(texts), run, len(texts) >= 64)
        return fps, indptr, data

    def fuses(self, hasher) -> bool:
        """True when ``hasher`` votes with exactly these shingles, binary weights, XXH3, 64 bits:
        then :meth:`fingerprints_and_sets` gives its fingerprints."""
        return (
            hasher.tokenizer == self.tokenizer
            and hasher.weights == "binary"
            and hasher.hash == "xxh3"
            and hasher.bits == 64
            and hasher._wmap is None
        )

    @staticmethod
    def jaccard(
        indptr: np.ndarray, data: np.ndarray, a: np.ndarray, b: np.ndarray, at_least: float | None = None
    ) -> np.ndarray:
        """Jaccard similarity (float64, shape ``a.shape``) of the sets of CSR rows ``a[p]`` and
        ``b[p]``; 0 for two empty sets.

        With ``at_least``, only the pairs whose similarity is at least that get it (exactly the
        same value); the others get -1.0, found sooner: each merge stops once the pair cannot reach
        ``at_least`` (a pair of unrelated documents after about a tenth of it at 0.8)."""
        from .kernels import verify as V

        a = np.ascontiguousarray(a, np.int64)
        b = np.ascontiguousarray(b, np.int64)
        out = np.empty(a.shape[0], np.float64)
        t = 0.0 if at_least is None else float(at_least)  # 0: every merge runs to the end
        run = lambda lo, hi: V.jaccard(indptr, data, a[lo:hi], b[lo:hi], t, out[lo:hi])  # noqa: E731
        over(a.shape[0], run, a.shape[0] >= 4096)
        return out


class _SetStore:
    """Shingle sets of chosen rows, gathered chunk by chunk: row -> CSR row."""

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows  # sorted, distinct
        self._ptr = [np.zeros(1, np.int64)]
        self._data: list[np.ndarray] = []
        self._nnz = 0

    def add(self, indptr: np.ndarray, data: np.ndarray) -> None:
        self._ptr.append(indptr[1:] + self._nnz)
        self._data.append(data)
        self._nnz += int(data.shape[0])

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        if len(self._data) == 1:  # one chunk: its arrays as they are
            self.indptr = np.concatenate(self._ptr)
            self.data = self._data[0]
        else:
            self.indptr = np.concatenate(self._ptr)
            self.data = np.concatenate(self._data) if self._data else np.empty(0, np.uint64)
        self._ptr, self._data = [], []
        return self.indptr, self.data

    def local(self, rows: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.rows, rows)


class _ChunkSets:
    """The shingle sets of every row, as the first read made them: one CSR per chunk, never
    concatenated (that would hold them twice); :meth:`subset` packs the rows a step needs."""

    def __init__(self) -> None:
        self.starts = [0]  # first row of each chunk
        self.chunks: list[tuple[np.ndarray, np.ndarray]] = []
        self.nbytes = 0

    def add(self, indptr: np.ndarray, data: np.ndarray) -> None:
        self.chunks.append((indptr, data))
        self.starts.append(self.starts[-1] + indptr.shape[0] - 1)
        self.nbytes += int(data.nbytes + indptr.nbytes)

    def subset(self, rows: np.ndarray) -> _SetStore:
        """A store of the sets of ``rows`` (sorted, distinct)."""
        store = _SetStore(rows)
        cuts = np.searchsorted(rows, self.starts)
        for c, (indptr, data) in enumerate(self.chunks):
            r = rows[cuts[c] : cuts[c + 1]] - self.starts[c]
            lens = indptr[r + 1] - indptr[r]
            ptr = np.zeros(r.size + 1, np.int64)
            np.cumsum(lens, out=ptr[1:])
            idx = np.repeat(indptr[r] - ptr[:-1], lens) + np.arange(ptr[-1])
            store.add(ptr, data[idx])
        store.finish()
        return store


def _gather_sets(source: Source, rows: np.ndarray, shingler: Shingler, bar=None, have=None) -> _SetStore:
    """The sets of ``rows``: from ``have`` (the sets of every row, kept from the first read) or read
    again from ``source``."""
    if have is not None:
        return have.subset(rows)
    store = _SetStore(rows)
    for _, texts in source.select(rows, CHUNK_ROWS):
        store.add(*shingler.sets(texts))
        if bar is not None:
            bar.update(len(texts))
    store.finish()
    return store
