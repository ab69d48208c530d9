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

import itertools
import mmap
import operator
import re
import tempfile
import threading
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ._threads import run_items, run_ranges, thread_count
from ._unicode import NEUTRAL, UNSPACED, WORD, char_table, lower_table, normalise
from ._validate import check_int
from .chinese import JiebaWords, load_jieba
from .datasets import Source
from .datasets.utf8 import Utf8Texts
from .kernels import verify as V
from .kernels.dedup_steps import str_digests
from .kernels.fused import words_pass
from .kernels.strings import str_views
from .kernels.tokenize import FLAG_PYTHON_LOWER, FLAG_SURROGATE
from .presets import ALL
from .settings import DedupSettings
from .simhasher import Simhasher, utf8_batch
from .tokenize import word_shingles

__all__ = ["CHUNK_ROWS", "FirstPass", "FusedScratch", "Shingler", "recommended_hasher"]

CHUNK_ROWS = 8192  # dataset rows per chunk: read, and read again (dedup, calibration, verify)


def recommended_hasher(shingle: int = 3) -> Simhasher:
    """The Simhasher for a Jaccard threshold on word ``shingle``-grams: those same shingles as
    features, each distinct one voting once (binary weights), XXH3, 64 bits.

    On the Debian copyright files the issue measured (truth: Jaccard of word 3-shingles >= 0.8),
    the default ``Simhasher()`` (words, TF weights) reached precision 0.60 at k = 3: boilerplate
    words outvote the rest. These features are the ones the threshold speaks of.
    """
    return Simhasher(
        tokenizer=word_shingles(shingle), weights="binary", name=f"word_shingles({shingle}), binary"
    )


class Shingler:
    """Each document's set of word ``n``-shingles, as sorted distinct 64-bit hashes (CSR arrays).

    The shingles are those of :func:`simhash_lab.tokenize.word_shingles` (lowercased ``\\w+``
    words, ``n`` at a time joined by a space; a document with fewer words is one shingle), hashed
    with XXH3-64: the same sets :func:`simhash_lab.course.compare.shingle_sets` builds as str.

    >>> indptr, data = Shingler(2).sets(["a b c", "a b", ""])
    >>> np.diff(indptr).tolist()
    [2, 1, 0]
    >>> Shingler(2).jaccard(indptr, data, np.array([0, 0]), np.array([1, 2])).tolist()
    [0.5, 0.0]
    """

    def __init__(self, n: int = 3) -> None:

        self.n = check_int("shingle", n, 1, 64)
        self.tokenizer = word_shingles(self.n)

    def sets(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(indptr (n + 1,) int64, data (nnz,) uint64)``: document ``i``'s sorted distinct shingle
        hashes are ``data[indptr[i]:indptr[i + 1]]``."""
        if not texts:
            return np.zeros(1, np.int64), np.empty(0, np.uint64)
        return self._str_sets(list(texts))

    def _str_sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of a list of str, read in place: :meth:`first_pass` with the sets (one pass,
        this thread's scratch; in threads for 64 texts or more); the rare text whose lowercase
        needs Python (İ, Σ) again through :meth:`_sets`, a lone surrogate refused as there."""
        made = self.first_pass(texts, sets=True)
        return made.indptr, made.data

    def _sets(self, buf: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of a UTF-8 batch, in threads for 64 documents or more."""
        tok = self.tokenizer
        nd = offsets.shape[0] - 1
        slots = V.shingle_slots(offsets)
        scratch = np.empty(slots[-1], np.uint64)
        counts = np.zeros(nd, np.int64)

        def run(lo: int, hi: int) -> None:
            V.shingle_hashes(
                buf, offsets[lo : hi + 1], tok.pipeline, tok.n, slots[lo : hi + 1], scratch, counts[lo:hi]
            )

        run_items(nd, run, nd >= 64)
        return V.pack_sets(scratch, slots, counts)

    def word_counts(self, texts: Sequence[str]) -> np.ndarray:
        """Words per document (int64, shape ``(len(texts),)``) by the shingles' word rule: 0 for a
        document with no shingle (empty, whitespace or punctuation only)."""
        out = np.zeros(len(texts), np.int64)
        if texts:
            buf, offsets = utf8_batch(list(texts), self.tokenizer.lowercase)
            p = self.tokenizer.pipeline
            run = lambda lo, hi: V.word_counts(buf, offsets[lo : hi + 1], p, out[lo:hi])  # noqa: E731
            run_items(len(texts), run, len(texts) >= 64)
        return out

    def fingerprints_and_sets(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(fingerprints, indptr, data)``: the sets of :meth:`sets` and, from the same hashes, the
        fingerprints of :func:`recommended_hasher` (``shingle`` = this ``n``), tokenized once
        (:meth:`first_pass` with the sets)."""
        made = self.first_pass(texts, sets=True)  # the fingerprints voted in the same pass
        return made.fps, made.indptr, made.data

    def first_pass(
        self, texts: Sequence[str], key_maker: Any = None, digests: bool = False, sets: bool = False,
        by_sort: bool = False,
    ) -> FirstPass:  # fmt: skip
        """Everything the first read of a dedup run needs of texts shingled by words, in one
        compiled pass over each text (:func:`~simhash_lab.kernels.fused.words_pass`): the
        fingerprints of :meth:`fingerprints_and_sets`, each set's size, with ``key_maker`` (a
        :class:`~simhash_lab.candidates.BandKeys`: its ``bands``, ``rows``, ``probe``) the band
        keys its :meth:`~simhash_lab.candidates.BandKeys.make` makes of the sets, with
        ``digests`` the exact groups' digests of
        :func:`~simhash_lab.dedup.steps.text_digests`, and with ``sets`` the sets themselves
        (CSR, as :meth:`sets`): the same values bit for bit, without the sets unless asked.
        Distinct shingles by a hash table (``by_sort``: by a sort, as :meth:`sets` does; the
        sets are always sorted). The scratch is this thread's (:class:`FusedScratch`), reused
        from chunk to chunk. A text whose lowercase needs Python (İ, Σ) is made again as
        :meth:`sets` makes it; a lone surrogate raises ValueError, as there."""
        in_place = isinstance(texts, Utf8Texts)  # ASCII texts read where the reader left them
        if not in_place:
            texts = list(texts)
            if set(map(type, texts)) - {str}:  # str_views reads exact str objects: a subclass copied
                texts = [t if type(t) is str else str.__str__(t) for t in texts]
        tok = self.tokenizer
        nd = len(texts)
        fps = np.zeros(nd, np.uint64)
        sizes = np.zeros(nd, np.int64)
        flags = np.zeros(nd, np.int64)
        dig = np.empty((nd if digests else 0, 2), np.uint64)
        if key_maker is not None:
            bands, rows, probe = key_maker.bands, key_maker.rows, key_maker.probe
        else:
            bands, rows, probe = 0, 0, np.zeros((0, 1), np.int64)
        keys = np.empty((bands, nd), np.uint64)
        slots = np.zeros(nd + 1 if sets else 0, np.int64)
        at = np.zeros(nd if sets else 0, np.int64)
        if nd:
            ptrs, lens, kinds = texts.views() if in_place else str_views(texts)
            if sets:
                np.cumsum((lens + 1) // 2 + 1, out=slots[1:])
            out = np.empty(int(slots[-1]) if sets else 0, np.uint64)

            def run(lo: int, hi: int) -> None:
                scratch = FusedScratch.of(lens[lo:hi], kinds[lo:hi], bands * rows)
                words_pass(
                    ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], tok.pipeline, tok.n, lo, probe, bands, rows,
                    dig[lo:hi] if digests else dig, fps[lo:hi], sizes[lo:hi], flags[lo:hi], keys,
                    slots[lo : hi + 1] if sets else slots, out, at[lo:hi] if sets else at, by_sort,
                    *scratch.arrays,
                )  # fmt: skip

            run_items(nd, run, nd >= 64 and thread_count() > 1, align=V.STR_CHUNK)
        indptr = data = None
        if sets:
            if nd:
                indptr = V.compact_sets(out, at, sizes)
                del run  # the closure's reference to out
                try:
                    out.resize(int(indptr[-1]))  # refuses while anything else refers to it
                except ValueError:
                    out = out[: indptr[-1]].copy()
                data = out
            else:
                indptr, data = np.zeros(1, np.int64), np.empty(0, np.uint64)
        if flags.any():
            if (flags & FLAG_SURROGATE).any():  # raises, naming the text
                bad = np.flatnonzero(flags & FLAG_SURROGATE)
                utf8_batch([texts[i] for i in bad.tolist()] if in_place else texts, tok.lowercase)
            redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
            ind, dat = self._sets(*utf8_batch([texts[i] for i in redo], tok.lowercase))
            again = np.empty(redo.size, np.uint64)
            V.fold_sets(ind, dat, 64, again)
            fps[redo] = again
            sizes[redo] = np.diff(ind)
            if key_maker is not None:
                keys[:, redo] = key_maker.make(ind, dat, threads=False)
            if sets:
                keep = np.ones(nd, np.bool_)
                keep[redo] = False
                others = np.flatnonzero(keep)
                indptr, data = _merge_csr(nd, [(others, *_rows_csr(indptr, data, others)), (redo, ind, dat)])
        return FirstPass(
            fps, sizes, keys if key_maker is not None else None, dig if digests else None, indptr, data
        )

    def fuses(self, hasher: Simhasher) -> bool:
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
        a = np.ascontiguousarray(a, np.int64)
        b = np.ascontiguousarray(b, np.int64)
        out = np.empty(a.shape[0], np.float64)
        t = 0.0 if at_least is None else float(at_least)  # 0: every merge runs to the end
        run = lambda lo, hi: V.jaccard(indptr, data, a[lo:hi], b[lo:hi], t, out[lo:hi])  # noqa: E731
        run_items(a.shape[0], run, a.shape[0] >= 4096)
        return out


class FirstPass(NamedTuple):
    """What :meth:`Shingler.first_pass` makes of a chunk of texts (rows in order)."""

    #: uint64 (m,): the binary-weight Simhash of each set
    fps: np.ndarray
    #: int64 (m,): distinct shingles of each text (0: featureless)
    sizes: np.ndarray
    #: uint64 (bands, m): the band keys, or None (no key maker given)
    keys: np.ndarray | None
    #: uint64 (m, 2): the exact groups' digests, or None
    digests: np.ndarray | None
    #: the sets (CSR), or None (not asked for)
    indptr: np.ndarray | None
    data: np.ndarray | None


class FusedScratch:
    """One thread's scratch for :func:`~simhash_lab.kernels.fused.words_pass`: allocated on the
    thread's first chunk, grown when a longer text comes (to twice what it was, at least), then
    used again for every later chunk: no array is allocated per text or per chunk (issue 48
    measured 943,355 page faults at 1M rows, mostly fresh scratch, when each chunk had its own).
    :meth:`mine` is the calling thread's; :meth:`of` the scratch for a range of texts.

    About 70 bytes a code unit of the longest text: a thread keeps room for texts of up to
    :data:`KEEP_UNITS` units; a longer text gets scratch of its own for the call, freed after it
    (one 10 MB text would otherwise hold some 700 MB in every thread that met one)."""

    #: the longest text (code units) a thread keeps the scratch of
    KEEP_UNITS = 1 << 18

    _local = threading.local()

    def __init__(self) -> None:
        self.units = -1  # the longest text (code units) it has room for
        self.bytes = -1  # and the most bytes its tokens can take
        self.bins = -1
        self.arrays: tuple = ()

    @classmethod
    def mine(cls) -> FusedScratch:
        """The calling thread's scratch (made on its first call)."""
        s = getattr(cls._local, "scratch", None)
        if s is None:
            s = cls._local.scratch = cls()
        return s

    @classmethod
    def of(cls, lens: np.ndarray, kinds: np.ndarray, bins: int) -> FusedScratch:
        """Scratch that fits texts of ``lens`` code units of widths ``kinds`` and ``bins``
        MinHash bins: this thread's (:meth:`mine`), or for a text longer than :data:`KEEP_UNITS`
        a new one, not kept."""
        if int(lens.max(initial=0)) > cls.KEEP_UNITS:
            return cls().fit(lens, kinds, bins)
        return cls.mine().fit(lens, kinds, bins)

    def fit(self, lens: np.ndarray, kinds: np.ndarray, bins: int) -> FusedScratch:
        """Room for texts of ``lens`` code units of widths ``kinds`` and ``bins`` MinHash bins;
        returns itself."""
        units = int(lens.max(initial=0))
        nbytes = int((lens * np.minimum(kinds + 1, 4)).max(initial=0))
        if units <= self.units and nbytes <= self.bytes and bins <= self.bins:
            return self
        units = max(units, min(2 * self.units, self.KEEP_UNITS), 256)  # grown by doubling
        nbytes = max(nbytes, min(2 * self.bytes, 4 * self.KEEP_UNITS), 512)
        bins = max(bins, self.bins)
        tok_size, pos_size = nbytes, units + 1  # as str_scratch: tok's bytes, pos's flips
        most = (units + 1) // 2 + 1  # shingles of a text: at most its words
        self.arrays = (
            np.empty(tok_size + 16, np.uint8),  # tok (+ 16: the joining copy reads 16 bytes)
            np.empty(pos_size, np.int64),  # pos
            np.empty(tok_size + pos_size + 16, np.uint8),  # joined (+ 16: and writes them)
            np.empty(pos_size, np.int64),  # ws
            np.empty(3 * most, np.int64),  # order
            np.empty(most, np.uint64),  # hs
            np.empty(1 << (2 * most - 1).bit_length(), np.uint64),  # table: >= vote.table_size
            np.empty(most, np.uint64),  # tmp
            np.empty(2 * most + 1, np.int64),  # count
            np.empty(max(3 * bins, 1), np.uint64),  # sig (candidates.band_keys)
            np.empty(64, np.int64),  # acc
            np.empty(2, np.int64),  # ip
        )
        self.units, self.bytes, self.bins = units, nbytes, bins
        return self


class SetStore:
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
        """The place in the store of each of ``rows`` (each one of the store's rows): read from a
        table of every row number up to the largest when that table is no larger than a few times
        the query (a pair list against its rows: 2M places 0.1 s by binary search, 5 ms so), else
        by binary search."""
        rows = np.asarray(rows, np.int64)
        top = int(self.rows[-1]) + 1 if self.rows.size else 0
        if top and top <= 4 * rows.size:
            at = getattr(self, "_at", None)
            if at is None:
                at = self._at = np.zeros(top, np.int64)
                at[self.rows] = np.arange(self.rows.size)
            return at[rows]
        return np.searchsorted(self.rows, rows)


class ChunkSets:
    """The shingle sets of every row, as the first read made them: one CSR per chunk, never
    concatenated (that would hold them twice); :meth:`subset` packs the rows a step needs.

    At most ``MEMORY`` bytes of them are held in memory: the chunks after that go to an unnamed
    temporary file (written once, read back a chunk at a time by :meth:`subset`), so a million
    rows' sets (about 800 MB) do not count in the run's peak memory. ``nbytes`` counts them all:
    the caller drops the store above its budget and reads the rows again instead. A temporary file
    that cannot be written (a full disk) makes ``nbytes`` infinite: the same fallback."""

    MEMORY = 128 << 20

    def __init__(self) -> None:
        self.starts = [0]  # first row of each chunk
        self.chunks: list[tuple[np.ndarray, np.ndarray | None, int]] = []  # indptr, data, offset
        self.nbytes = 0
        self._held = 0
        self._file = None

    def add(self, indptr: np.ndarray, data: np.ndarray) -> None:
        self.starts.append(self.starts[-1] + indptr.shape[0] - 1)
        self.nbytes += int(data.nbytes + indptr.nbytes)
        if self._held + data.nbytes <= self.MEMORY:
            self.chunks.append((indptr, data, -1))
            self._held += int(data.nbytes)
            return

        try:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="simhash-lab-sets-")
            off = self._file.seek(0, 2)
            self._file.write(memoryview(np.ascontiguousarray(data)).cast("B"))
        except OSError:
            self.nbytes = float("inf")
            self.chunks.append((indptr, data, -1))
            return
        self.chunks.append((indptr, None, off))

    def _copy(self, c: int, starts: np.ndarray, ptr: np.ndarray, out: np.ndarray) -> None:
        """The CSR rows of chunk ``c`` that begin at ``starts`` (in its data) copied into
        ``out[ptr[i]:ptr[i + 1]]``: a spilled chunk's pages mapped while they are read, then
        unmapped (no copy of the whole chunk; the run's memory holds one chunk's pages at most per
        thread; several threads may read at once)."""
        indptr, data, off = self.chunks[c]
        if data is not None:
            V.copy_runs(data, starts, ptr, out)
            return

        size = int(indptr[-1]) * 8
        start = off - off % mmap.ALLOCATIONGRANULARITY
        with mmap.mmap(self._file.fileno(), off + size - start, access=mmap.ACCESS_READ, offset=start) as m:
            view = np.frombuffer(m, np.uint64, size // 8, off - start)
            V.copy_runs(view, starts, ptr, out)
            del view

    def subset(self, rows: np.ndarray, threads: bool = True) -> SetStore:
        """A store of the sets of ``rows`` (sorted, distinct): their sizes first, then each chunk's
        rows copied into their places in one array, the chunks on the package's threads
        (``threads``; gathering each chunk apart and joining them cost one more copy of every
        element, 0.3 s of the verification at 1M rows)."""
        rows = np.asarray(rows, np.int64)
        cuts = np.searchsorted(rows, self.starts)
        firsts, lens = [], []
        for c, (indptr, _, _) in enumerate(self.chunks):
            r = rows[cuts[c] : cuts[c + 1]] - self.starts[c]
            firsts.append(indptr[r])
            lens.append(indptr[r + 1] - indptr[r])
        ptr = np.zeros(rows.size + 1, np.int64)
        if lens:
            np.cumsum(np.concatenate(lens), out=ptr[1:])
        data = np.empty(int(ptr[-1]), np.uint64)
        if self._file is not None:
            self._file.flush()  # what the threads map is in the file

        def gather(lo: int, hi: int) -> None:
            for c in range(lo, hi):
                if cuts[c + 1] > cuts[c]:
                    self._copy(c, firsts[c], ptr[cuts[c] : cuts[c + 1] + 1], data)

        run_ranges(gather, len(self.chunks), threads=None if threads else 1, size=1)
        store = SetStore(rows)
        store.indptr, store.data = ptr, data
        return store


def gather_sets(
    source: Source, rows: np.ndarray, shingler: Shingler, bar: Any = None, have: ChunkSets | None = None
) -> SetStore:
    """The sets of ``rows``: from ``have`` (the sets of every row, kept from the first read) or read
    again from ``source``."""
    if have is not None:
        return have.subset(rows)
    store = SetStore(rows)
    for _, texts in source.select(rows, CHUNK_ROWS):
        store.add(*shingler.sets(texts))
        if bar is not None:
            bar.update(len(texts))
    store.finish()
    return store


# -- the features of a run: one rule for the fingerprints and the sets verified ---------------

_SALT = [np.uint64(((j + 1) * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF) for j in range(64)]


def _mix(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection of uint64), vectorised."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _csr(doc: np.ndarray, h: np.ndarray, nd: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR sets from (document, hash) pairs: each document's distinct hashes, sorted."""
    order = np.lexsort((h, doc))
    doc, h = doc[order], h[order]
    if h.size:
        new = np.ones(h.size, np.bool_)
        new[1:] = (doc[1:] != doc[:-1]) | (h[1:] != h[:-1])
        doc, h = doc[new], h[new]
    indptr = np.zeros(nd + 1, np.int64)
    np.cumsum(np.bincount(doc, minlength=nd), out=indptr[1:])
    return indptr, np.ascontiguousarray(h, np.uint64)


def _gram_hashes(c: np.ndarray, run: np.ndarray, n: int, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """``(run, hash)`` of every character ``n``-gram within each run: ``c`` the runs' lowercased
    code points one after another (uint64), ``run`` the run of each (sorted, ``runs`` of them);
    a gram is ``n`` consecutive code points of one run, hashed by SplitMix64 rounds (vectorised);
    a run shorter than ``n`` is one shingle of all its characters."""
    m = c.size
    counts = np.bincount(run, minlength=runs)
    out_r, out_h = [], []
    if m >= n:
        g = np.zeros(m - n + 1, np.uint64)
        for j in range(n):
            g = _mix(g ^ (c[j : m - n + 1 + j] + _SALT[j]))
        ok = run[: m - n + 1] == run[n - 1 :]
        out_r.append(run[: m - n + 1][ok])
        out_h.append(g[ok])
    short = np.flatnonzero((counts > 0) & (counts < n))
    if short.size:  # one shingle of all its characters (the rule of the tokenizers), all at once
        starts = np.zeros(runs + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        first, size = starts[short], counts[short]
        z = np.zeros(short.size, np.uint64)
        for j in range(n - 1):  # the j-th character of the runs that have one, as the grams fold them
            on = size > j
            z[on] = _mix(z[on] ^ (c[first[on] + j] + _SALT[j]))
        out_r.append(short.astype(np.int64))
        out_h.append(z)
    if not out_r:
        return np.empty(0, np.int64), np.empty(0, np.uint64)
    return np.concatenate(out_r), np.concatenate(out_h)


def _code_points(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(cp, doc)``: the texts' code points one after another (uint32) and the text of each."""
    lens = np.fromiter(map(len, texts), np.int64, len(texts))
    cp = np.frombuffer("".join(texts).encode("utf-32-le"), np.uint32)
    return cp, np.repeat(np.arange(len(texts), dtype=np.int64), lens)


def char_sets(texts: Sequence[str], n: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """CSR sets of character ``n``-grams: each text's word characters (``\\w``: whitespace and
    punctuation dropped), lowercased, ``n`` consecutive ones hashed (SplitMix64 rounds over the
    code points, vectorised); a text with fewer characters is one shingle of all of them, a text
    with none has none.

    >>> indptr, data = char_sets(["春眠不觉晓", "春眠不觉晓，处处", "ab"])
    >>> np.diff(indptr).tolist()
    [3, 5, 1]
    """
    nd = len(texts)
    if nd == 0:
        return np.zeros(1, np.int64), np.empty(0, np.uint64)
    cp, doc = _code_points(texts)
    keep = (char_table(WORD)[cp] & WORD) != 0
    doc = doc[keep]
    c = lower_table()[cp[keep]].astype(np.uint64)
    return _csr(*_gram_hashes(c, doc, n, nd), nd)


def _script_classes(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(cp, at, dw, uns)``: the texts' code points, their word characters' places, the text of
    each, and whether each is of an unspaced script once the characters of no script have taken
    the script around them (:func:`script_run_sets`, step 1)."""
    cp, doc = _code_points(texts)
    t = char_table(WORD | UNSPACED | NEUTRAL)[cp]
    at = np.flatnonzero(t & WORD)  # the word characters' places
    tw, dw = t[at], doc[at]
    m = at.size
    # each word character's script class: 1 unspaced, 2 another, 0 none (Common, Inherited)
    cls = np.where(tw & NEUTRAL, 0, np.where(tw & UNSPACED, 1, 2)).astype(np.int8)
    own = cls != 0
    idx = np.arange(m)
    if m and not own.all():
        before = np.maximum.accumulate(np.where(own, idx, -1))
        b_ok = (before >= 0) & (dw[np.maximum(before, 0)] == dw)
        after = np.minimum.accumulate(np.where(own, idx, m)[::-1])[::-1]
        a_ok = (after < m) & (dw[np.minimum(after, m - 1)] == dw)
        near = np.where(b_ok, cls[np.maximum(before, 0)], np.where(a_ok, cls[np.minimum(after, m - 1)], 2))
        cls = np.where(own, cls, near)
    return cp, at, dw, cls == 1


def _words_of(at: np.ndarray, dw: np.ndarray, uns: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(places, texts, new)``: the other-script word characters, their texts, and which begin a
    word (a longest run of them adjacent in the text)."""
    other = ~uns
    wpos, wdoc = at[other], dw[other]
    new_word = np.ones(wpos.size, np.bool_)
    new_word[1:] = (wpos[1:] != wpos[:-1] + 1) | (wdoc[1:] != wdoc[:-1])
    return wpos, wdoc, new_word


def script_run_words(texts: Sequence[str]) -> np.ndarray:
    """Words of each text counted as its shingles see them: a character of a run of an unspaced
    script is a word, and so is each word of the rest (int64).

    >>> script_run_words(["我们使用Python和NumPy", "two words"]).tolist()
    [7, 2]
    """
    nd = len(texts)
    if nd == 0:
        return np.zeros(0, np.int64)
    _, at, dw, uns = _script_classes(texts)
    _, wdoc, new_word = _words_of(at, dw, uns)
    return np.bincount(dw[uns], minlength=nd) + np.bincount(wdoc[new_word], minlength=nd)


def script_run_sets(
    texts: Sequence[str], shingler: Shingler, n: int = 3
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(runs, indptr, data)``: the shingle sets of texts holding a script written without word
    spaces, by script run (the definition of ``features="auto"``, one set a text):

    1. the word characters (``\\w``) are of an unspaced script (Han, Hiragana, Katakana, Thai, Lao,
       Khmer, Myanmar, Tibetan), of no script of their own (Unicode's Common and Inherited: digits,
       ``_``, the kana length mark ー), or of another script (Latin, Cyrillic, Hangul...); one of no
       script takes the script of the nearest word character before it that has one (at a text's
       start, after it; in a text of such characters only, another script's), as Unicode's
       script runs do (UAX #24), so that the digits of "2023年" are in the run;
    2. a *run* is a longest sequence of unspaced-script characters that no other-script word
       character interrupts (spaces and punctuation do not: they are dropped, as character n-grams
       always dropped them); each run gives its character ``n``-grams, lowercased (a run shorter
       than ``n``: one shingle of all of it);
    3. the other-script characters make the *words* (each a longest run of them in the text), the
       text's words in order give its word shingles as ``shingler`` makes them from any text
       (lowercased, ``shingler.n`` at a time joined by a space, fewer words: one shingle of all);
    4. the set is the union of both.

    So a Chinese text with a few English words keeps its character n-grams, and its words add
    their shingles: one English word no longer switches the whole text to word shingles (where
    it had none in common with its copy). A text of one unspaced script only gets the character
    n-grams :func:`char_sets` gives; a text without one, the word shingles ``shingler`` gives.
    ``runs``: how many runs each text has.

    >>> texts = ["我们使用Python和NumPy进行计算", "我们使用进行计算"]
    >>> runs, indptr, data = script_run_sets(texts, Shingler(3))
    >>> runs.tolist(), np.diff(indptr).tolist()  # 2 + 1 + 2 grams and "python numpy"; 6 grams
    ([3, 1], [6, 6])
    """
    nd = len(texts)
    if nd == 0:
        return np.zeros(0, np.int64), np.zeros(1, np.int64), np.empty(0, np.uint64)
    cp, at, dw, uns = _script_classes(texts)
    m = at.size
    first_of_doc = np.ones(m, np.bool_)
    first_of_doc[1:] = dw[1:] != dw[:-1]
    # runs: an unspaced character after a word character of another script (or a text's first)
    prev_uns = np.zeros(m, np.bool_)
    prev_uns[1:] = uns[:-1]
    starts = uns & (first_of_doc | ~prev_uns)
    run_of = np.cumsum(starts) - 1
    n_runs = int(starts.sum())
    run_doc = dw[starts]
    runs = np.bincount(run_doc, minlength=nd).astype(np.int64)
    c = lower_table()[cp[at[uns]]].astype(np.uint64)
    gr, gh = _gram_hashes(c, run_of[uns], n, n_runs)
    # words: the other-script characters, a word each longest run of them adjacent in the text
    wpos, wdoc, new_word = _words_of(at, dw, uns)
    doc_first = np.ones(wpos.size, np.bool_)
    doc_first[1:] = wdoc[1:] != wdoc[:-1]
    space = new_word & ~doc_first  # a space before each word but a text's first
    chars = cp[wpos]
    joined = np.insert(chars, np.flatnonzero(space), np.uint32(32)) if space.any() else chars
    per_doc = np.bincount(wdoc, minlength=nd) + np.bincount(wdoc[space], minlength=nd)
    cut = np.zeros(nd + 1, np.int64)
    np.cumsum(per_doc, out=cut[1:])
    whole = joined.astype(np.uint32).tobytes().decode("utf-32-le")
    words = [whole[cut[d] : cut[d + 1]] for d in range(nd)]
    wi, wd = shingler.sets(words)
    wdocs = np.repeat(np.arange(nd, dtype=np.int64), np.diff(wi))
    indptr, data = _csr(np.concatenate([run_doc[gr], wdocs]), np.concatenate([gh, wd]), nd)
    return runs, indptr, data


# the blocks of those scripts (Thai..Myanmar, Khmer, CJK and kana, compatibility ideographs,
# half-width katakana, the supplementary ideographs): a text with none of them is not one
_HIGH = re.compile("[\u0e00-\u109f\u1780-\u17ff\u2e80-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]")


def _not_ascii(texts: Sequence[str]) -> list[int]:
    """The places of the texts that are not all ASCII (found in C: no Python loop over the
    texts, which would hold the GIL that a chunk's other threads wait for)."""
    return list(itertools.compress(range(len(texts)), map(operator.not_, map(str.isascii, texts))))


def unspaced(texts: Sequence[str]) -> np.ndarray:
    """One bool per text: it holds a letter of a script written without word spaces (Han, kana,
    Thai, Lao, Khmer, Myanmar or Tibetan), so it has runs of one (:func:`script_run_sets`)."""
    out = np.zeros(len(texts), np.bool_)
    high = _HIGH.search
    odd = [i for i in _not_ascii(texts) if high(texts[i])]
    if not odd:
        return out
    sub = [texts[i] for i in odd]
    cp, doc = _code_points(sub)
    t = char_table(WORD | UNSPACED)[cp]
    hit = np.bincount(doc[(t & (WORD | UNSPACED)) == (WORD | UNSPACED)], minlength=len(sub))
    out[np.array(odd)] = hit > 0
    return out


def _rows_csr(indptr: np.ndarray, data: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR of ``rows`` of a CSR (vectorised)."""
    lens = indptr[rows + 1] - indptr[rows]
    ptr = np.zeros(rows.size + 1, np.int64)
    np.cumsum(lens, out=ptr[1:])
    return ptr, data[np.repeat(indptr[rows] - ptr[:-1], lens) + np.arange(ptr[-1])]


def _merge_csr(nd: int, parts: list) -> tuple[np.ndarray, np.ndarray]:
    """One CSR of ``nd`` rows from ``(rows, indptr, data)`` parts covering distinct rows."""
    lens = np.zeros(nd, np.int64)
    for rows, ind, _ in parts:
        lens[rows] = np.diff(ind)
    indptr = np.zeros(nd + 1, np.int64)
    np.cumsum(lens, out=indptr[1:])
    data = np.empty(indptr[-1], np.uint64)
    for rows, ind, dat in parts:
        ln = np.diff(ind)
        at = np.repeat(indptr[rows] - ind[:-1], ln) + np.arange(ind[-1])
        data[at] = dat
    return indptr, data


def text_digests(texts: list, threads: bool = True) -> np.ndarray:
    """(n, 2) uint64: a 128-bit digest of each (normalised) text, the same in every process (of
    one byte order: the code units are hashed as they lie in memory): the exact groups' digests
    (:class:`~simhash_lab.dedup.steps.ExactGroups`), here beside the shingles that the fused pass
    digests with (:meth:`Featurizer.first_pass`).

    CPython keeps a str as one array of code units of the narrowest width its characters need
    (PEP 393), so two strings are equal exactly when their widths and units are: the digest is
    XXH3-64 and XXH64 (seeded with the width) of the units, read in place by Numba
    (:func:`~simhash_lab.kernels.strings.str_views`), no UTF-8 copy. Two different texts share
    both halves with probability about 2**-128 a pair; the digests are not a defence against texts
    made to collide. ``threads``: on the package's threads (for 4096 texts or more)."""
    if set(map(type, texts)) - {str}:  # str_views reads exact str objects: a subclass's text copied
        texts = [t if type(t) is str else str.__str__(t) for t in texts]
    n = len(texts)
    out = np.empty((n, 2), np.uint64)
    if n:
        ptrs, lens, kinds = str_views(texts)

        def run(lo: int, hi: int) -> None:
            str_digests(ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], out[lo:hi])

        run_items(n, run, threads and n >= 4096)
    return out


class Featurizer:
    """The shingles of a dedup run (:class:`~simhash_lab.settings.DedupSettings`): what the
    fingerprints are made of and, the same, the sets verified by exact Jaccard.

    * words (``features="words"``, and "auto" for text with word spaces): word ``shingle``-grams
      through the Numba kernels (:class:`Shingler`), fingerprints from the same hashes;
    * characters (``"chars"``): character ``char_ngram``-grams of every text (:func:`char_sets`);
      under "auto", a text with runs of a script without word spaces gets their character
      n-grams and the word shingles of the rest, one set (:func:`script_run_sets`);
    * jieba (``"jieba"``, or ``lang="zh"`` with jieba installed): jieba's words, ``shingle`` at a
      time;
    * a hasher of one's own: its features, hashed by its hash; its fingerprints.

    Fingerprints of the built-in rules are the binary-weight Simhash of the set (each shingle
    votes once). Texts are normalised first (:func:`simhash_lab._unicode.normalise`) when
    ``normalize``.

    Where each is computed: word shingles (from ``str``) in one compiled pass a text
    (:meth:`first_pass`, :meth:`Shingler.first_pass`: the dedup's first read gets the
    fingerprints, the sets' sizes, the band keys and the exact groups' digests from it, without
    the sets; :meth:`sets` and :meth:`fingerprints_sets` get the sets from the same pass);
    the other features make the sets (:meth:`sets_of`), then fold them (``fold_sets``).
    """

    def __init__(self, settings: DedupSettings) -> None:

        s = settings
        self.settings = s
        self.normalize = s.normalize
        self.shingler = Shingler(s.shingle)
        self.hasher = None
        features = s.features
        if s.lang is not None and s.lang != "auto":
            if s.lang == "zh":
                try:
                    load_jieba()
                    features = "jieba"
                except ImportError:
                    features = "chars"
            else:
                features = "chars" if s.lang in ("ja", "th", "lo", "km", "my") else "words"
        if s.unverified:
            h = s.hasher if s.hasher is not None else "default"
            self.hasher = ALL[h] if isinstance(h, str) else h
            features = "hasher"
        elif s.hasher is not None:
            self.hasher = ALL[s.hasher] if isinstance(s.hasher, str) else s.hasher
            features = "hasher"
            if self.shingler.fuses(self.hasher):
                features = "words"
        self.features = features
        self.bits = 64 if self.hasher is None else self.hasher.bits
        if features == "jieba":
            self._jieba = JiebaWords()
            self._hash = Simhasher()  # its XXH3 for the shingles' bytes

    @property
    def name(self) -> str:
        s = self.settings
        if self.features == "hasher":
            h = self.hasher
            return h.name or repr(h)
        words = f"word {s.shingle}-shingles"
        chars = f"character {s.char_ngram}-grams"
        return {
            "words": words,
            "chars": chars,
            "auto": f"{words}, {chars} over the runs of a script without word spaces",
            "jieba": f"jieba word {s.shingle}-shingles",
        }[self.features]

    def normalise(self, texts: list) -> list:
        if not self.normalize:
            return texts

        out = list(texts)
        for i in _not_ascii(texts):  # ASCII text is as normalised already
            out[i] = normalise(out[i])
        return out

    def kinds(self, texts: list) -> np.ndarray:
        """One bool per (normalised) text: shingled by characters (``"auto"``: its runs of a
        script without word spaces, :func:`script_run_sets`)."""
        if self.features == "chars":
            return np.ones(len(texts), np.bool_)
        if self.features == "auto":
            if isinstance(texts, Utf8Texts):  # an ASCII text has no script without spaces
                out = np.zeros(len(texts), np.bool_)
                rows = texts.str_rows()
                if rows.size:
                    out[rows] = unspaced([texts.strs[i] for i in rows.tolist()])
                return out
            return unspaced(texts)
        return np.zeros(len(texts), np.bool_)

    def _jieba_sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        n = self.settings.shingle
        docs, hashes = [], []
        for d, t in enumerate(texts):
            w = self._jieba(t)
            if not w:
                continue
            sh = [" ".join(w[i : i + n]) for i in range(max(len(w) - n + 1, 1))]
            docs.append(np.full(len(sh), d, np.int64))
            hashes.append(self._hash._hash_features(sh))
        if not docs:
            return np.zeros(len(texts) + 1, np.int64), np.empty(0, np.uint64)
        return _csr(np.concatenate(docs), np.concatenate(hashes), len(texts))

    def _hasher_sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        h = self.hasher
        docs, hashes = [], []
        for d, t in enumerate(texts):
            f = h.features(t)
            if f:
                docs.append(np.full(len(f), d, np.int64))
                hashes.append(h._hash_features(f))
        if not docs:
            return np.zeros(len(texts) + 1, np.int64), np.empty(0, np.uint64)
        return _csr(np.concatenate(docs), np.concatenate(hashes), len(texts))

    def sets_of(
        self, texts: list, chars: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(chars, indptr, data)`` of normalised texts: which were shingled by characters, and
        their sets."""
        nd = len(texts)
        chars = self.kinds(texts) if chars is None else chars
        if self.features == "hasher":
            return chars, *self._hasher_sets(texts)
        if self.features == "jieba":
            return chars, *self._jieba_sets(texts)
        if not chars.any():
            return chars, *self.shingler.sets(texts)
        n = self.settings.char_ngram
        if self.features == "chars":
            return chars, *char_sets(texts, n)
        if chars.all():
            return chars, *script_run_sets(texts, self.shingler, n)[1:]
        c = np.flatnonzero(chars)
        w = np.flatnonzero(~chars)
        ci, cd = script_run_sets([texts[i] for i in c.tolist()], self.shingler, n)[1:]
        wi, wd = self.shingler.sets([texts[i] for i in w.tolist()])
        return chars, *_merge_csr(nd, [(c, ci, cd), (w, wi, wd)])

    def sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of raw texts (normalised here)."""
        return self.sets_of(self.normalise(list(texts)))[1:]

    def fingerprints_sets(self, texts: list, chars: np.ndarray | None = None):
        """``(fingerprints, chars, indptr, data)`` of normalised texts (sets None for a hasher of
        one's own, whose sets are made only for the rows that need them); ``chars``: their
        :meth:`kinds`, when known."""
        nd = len(texts)
        if self.features == "hasher":
            return self.hasher.fingerprints(texts), np.zeros(nd, np.bool_), None, None
        chars = self.kinds(texts) if chars is None else chars
        if self.features == "words" or (self.features == "auto" and not chars.any()):
            fps, ind, dat = self.shingler.fingerprints_and_sets(texts)
            return fps, chars, ind, dat
        chars, ind, dat = self.sets_of(texts, chars)
        fps = np.empty(nd, np.uint64)
        run = lambda lo, hi: V.fold_sets(ind[lo : hi + 1], dat, 64, fps[lo:hi])  # noqa: E731
        run_items(nd, run, nd >= 64)
        return fps, chars, ind, dat

    def first_pass(
        self, texts: list, key_maker: Any = None, digests: bool = False, sets: bool = False
    ) -> tuple[np.ndarray | None, FirstPass | None]:
        """``(chars, first pass)`` of normalised texts: their :meth:`kinds` and, shingled by words
        (``"words"``; ``"auto"`` when none has a script without word spaces),
        :meth:`Shingler.first_pass`: fingerprints, set sizes, band keys (``key_maker``), digests
        and, with ``sets``, the sets in one pass. Under "auto", a chunk whose texts are some with
        word spaces, some without, gets the pass for the first and the sets of
        :func:`script_run_sets` for the others (their fingerprints, keys and digests made from
        those, as :meth:`fingerprints_sets` and the steps make them): the same values, and one
        row of Chinese no longer takes its whole chunk off the pass (issue 48: 9 such rows of
        59,819 docstring paragraphs sent 4 chunks of 8 to the slower path). The pass is None for
        the other features and for a chunk of unspaced texts only, which :meth:`fingerprints_sets`
        makes (given ``chars``: not found twice); ``chars`` is None for a hasher of one's own."""
        if self.features == "hasher":
            return None, None
        chars = self.kinds(texts)
        if self.features not in ("words", "auto") or (chars.size and chars.all()):
            return chars, None
        if not chars.any():
            return chars, self.shingler.first_pass(texts, key_maker, digests, sets)
        return chars, self._mixed_pass(texts, chars, key_maker, digests, sets)

    def _mixed_pass(
        self, texts: list, chars: np.ndarray, key_maker: Any, digests: bool, sets: bool
    ) -> FirstPass:
        """:meth:`first_pass` of a chunk of texts with word spaces (the pass) and without
        (``chars``: their sets by :func:`script_run_sets`), put back in row order."""
        nd = len(texts)
        c, w = np.flatnonzero(chars), np.flatnonzero(~chars)
        wtexts = texts.take(w) if isinstance(texts, Utf8Texts) else [texts[i] for i in w.tolist()]
        words = self.shingler.first_pass(wtexts, key_maker, digests, sets)
        ctexts = [texts[i] for i in c.tolist()]  # str rows (a buffered text is ASCII: spaced)
        ci, cd = script_run_sets(ctexts, self.shingler, self.settings.char_ngram)[1:]
        fps = np.empty(nd, np.uint64)
        fps[w] = words.fps
        cfps = np.empty(c.size, np.uint64)
        V.fold_sets(ci, cd, 64, cfps)
        fps[c] = cfps
        sizes = np.empty(nd, np.int64)
        sizes[w], sizes[c] = words.sizes, np.diff(ci)
        keys = None
        if key_maker is not None:
            keys = np.empty((key_maker.bands, nd), np.uint64)
            keys[:, w], keys[:, c] = words.keys, key_maker.make(ci, cd, threads=False)
        dig = None
        if digests:
            dig = np.empty((nd, 2), np.uint64)
            dig[w], dig[c] = words.digests, text_digests(ctexts, threads=False)
        ind = dat = None
        if sets:
            ind, dat = _merge_csr(nd, [(c, ci, cd), (w, words.indptr, words.data)])
        return FirstPass(fps, sizes, keys, dig, ind, dat)

    def fingerprints(self, texts: list) -> np.ndarray:
        """Fingerprints of raw texts (normalised here)."""
        return self.fingerprints_sets(self.normalise(list(texts)))[0]

    def units(self, texts: list) -> list[tuple[list, str]]:
        """The words (or, for a text shingled by characters, the characters) of each normalised
        text, and what joins them: what the calibration's synthetic edits replace."""
        chars = self.kinds(texts) if self.features != "hasher" else np.zeros(len(texts), np.bool_)
        return [
            ([ch for ch in t if not ch.isspace()], "") if c else (t.split(), " ")
            for t, c in zip(texts, chars.tolist())
        ]
