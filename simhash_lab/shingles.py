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
from collections.abc import Sequence
from typing import Any

import numpy as np

from ._threads import run_items, run_ranges, thread_count
from ._unicode import UNSPACED, WORD, char_table, lower_table, normalise
from ._validate import check_int
from .chinese import JiebaWords, load_jieba
from .datasets import Source
from .kernels import verify as V
from .kernels.strings import str_views
from .kernels.tokenize import FLAG_PYTHON_LOWER, FLAG_SURROGATE
from .presets import ALL
from .settings import DedupSettings
from .simhasher import Simhasher, utf8_batch
from .tokenize import word_shingles

__all__ = ["CHUNK_ROWS", "Shingler", "recommended_hasher"]

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
        """CSR sets of a list of str, read in place (``kernels.verify.shingle_hashes_str``, in
        threads for 64 texts or more); the rare text whose lowercase needs Python (İ, Σ) again
        through :meth:`_sets`, a lone surrogate refused as there."""
        if set(map(type, texts)) - {str}:  # str_views reads exact str objects only
            return self._sets(*utf8_batch(texts, self.tokenizer.lowercase))
        tok = self.tokenizer
        nd = len(texts)
        ptrs, lens, kinds = str_views(texts)
        slots = np.zeros(nd + 1, np.int64)
        np.cumsum((lens + 1) // 2 + 1, out=slots[1:])
        scratch = np.empty(slots[-1], np.uint64)  # room; only about the sets' size is touched
        counts = np.zeros(nd, np.int64)
        flags = np.zeros(nd, np.int64)
        at = np.zeros(nd, np.int64)

        def run(lo: int, hi: int) -> None:
            V.shingle_hashes_str(
                ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], tok.pipeline, tok.n, slots[lo : hi + 1],
                scratch, counts[lo:hi], flags[lo:hi], at[lo:hi],
            )  # fmt: skip

        # one range on one thread: its sets are one run from the start of the scratch, which
        # becomes the CSR data as it is (shrunk in place; no copy into fresh memory)
        run_items(nd, run, nd >= 64 and thread_count() > 1, align=V.STR_CHUNK)
        indptr = V.compact_sets(scratch, at, counts)
        del run  # the closure's reference to the scratch
        try:
            scratch.resize(int(indptr[-1]))  # refuses while anything else refers to it
        except ValueError:
            scratch = scratch[: indptr[-1]].copy()
        sets = indptr, scratch
        if flags.any():
            if (flags & FLAG_SURROGATE).any():
                utf8_batch(texts, tok.lowercase)  # raises, naming the text
            redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
            ind, dat = self._sets(*utf8_batch([texts[i] for i in redo], tok.lowercase))
            keep = np.ones(nd, np.bool_)
            keep[redo] = False
            rows = np.flatnonzero(keep)
            old = sets[0]
            return _merge_csr(nd, [(rows, *_rows_csr(old, sets[1], rows)), (redo, ind, dat)])
        return sets

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
        fingerprints of :func:`recommended_hasher` (``shingle`` = this ``n``), tokenized once."""
        fps = np.empty(len(texts), np.uint64)
        if not texts:
            return fps, np.zeros(1, np.int64), np.empty(0, np.uint64)
        indptr, data = self._str_sets(list(texts))
        run = lambda lo, hi: V.fold_sets(indptr[lo : hi + 1], data, 64, fps[lo:hi])  # noqa: E731
        run_items(len(texts), run, len(texts) >= 64)
        return fps, indptr, data

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
    lens = np.fromiter(map(len, texts), np.int64, nd)
    cp = np.frombuffer("".join(texts).encode("utf-32-le"), np.uint32)
    keep = (char_table(WORD)[cp] & WORD) != 0
    doc = np.repeat(np.arange(nd, dtype=np.int64), lens)[keep]
    c = lower_table()[cp[keep]].astype(np.uint64)
    m = c.size
    counts = np.bincount(doc, minlength=nd)
    docs, hashes = [], []
    if m >= n:
        g = np.zeros(m - n + 1, np.uint64)
        for j in range(n):
            g = _mix(g ^ (c[j : m - n + 1 + j] + _SALT[j]))
        ok = doc[: m - n + 1] == doc[n - 1 :]
        docs.append(doc[: m - n + 1][ok])
        hashes.append(g[ok])
    short = np.flatnonzero((counts > 0) & (counts < n))
    if short.size:  # one shingle of all its characters (the rule of the tokenizers)
        starts = np.zeros(nd + 1, np.int64)
        np.cumsum(counts, out=starts[1:])
        for d in short.tolist():
            z = np.zeros(1, np.uint64)
            for j, x in enumerate(c[starts[d] : starts[d + 1]].tolist()):
                z = _mix(z ^ (np.array([x], np.uint64) + _SALT[j]))
            docs.append(np.array([d], np.int64))
            hashes.append(z)
    if not docs:
        return np.zeros(nd + 1, np.int64), np.empty(0, np.uint64)
    return _csr(np.concatenate(docs), np.concatenate(hashes), nd)


# the blocks of those scripts (Thai..Myanmar, Khmer, CJK and kana, compatibility ideographs,
# half-width katakana, the supplementary ideographs): a text with none of them is not one
_HIGH = re.compile("[\u0e00-\u109f\u1780-\u17ff\u2e80-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]")


def _not_ascii(texts: Sequence[str]) -> list[int]:
    """The places of the texts that are not all ASCII (found in C: no Python loop over the
    texts, which would hold the GIL that a chunk's other threads wait for)."""
    return list(itertools.compress(range(len(texts)), map(operator.not_, map(str.isascii, texts))))


def unspaced(texts: Sequence[str]) -> np.ndarray:
    """One bool per text: mostly written in a script without word spaces (at least half of its word
    characters are Han, kana, Thai, Lao, Khmer, Myanmar or Tibetan letters)."""
    out = np.zeros(len(texts), np.bool_)
    high = _HIGH.search
    odd = [i for i in _not_ascii(texts) if high(texts[i])]
    if not odd:
        return out
    sub = [texts[i] for i in odd]
    lens = np.fromiter(map(len, sub), np.int64, len(sub))
    cp = np.frombuffer("".join(sub).encode("utf-32-le"), np.uint32)
    t = char_table(WORD | UNSPACED)[cp]
    doc = np.repeat(np.arange(len(sub)), lens)
    word = np.bincount(doc, weights=(t & WORD) != 0, minlength=len(sub))
    uns = np.bincount(doc, weights=(t & UNSPACED) != 0, minlength=len(sub))
    out[np.array(odd)] = (uns > 0) & (2 * uns >= word)
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


class Featurizer:
    """The shingles of a dedup run (:class:`~simhash_lab.settings.DedupSettings`): what the
    fingerprints are made of and, the same, the sets verified by exact Jaccard.

    * words (``features="words"``, and "auto" for text with word spaces): word ``shingle``-grams
      through the Numba kernels (:class:`Shingler`), fingerprints from the same hashes;
    * characters (``"chars"``, and "auto" for a text mostly in a script without word spaces):
      character ``char_ngram``-grams (:func:`char_sets`);
    * jieba (``"jieba"``, or ``lang="zh"`` with jieba installed): jieba's words, ``shingle`` at a
      time;
    * a hasher of one's own: its features, hashed by its hash; its fingerprints.

    Fingerprints of the built-in rules are the binary-weight Simhash of the set (each shingle
    votes once). Texts are normalised first (:func:`simhash_lab._unicode.normalise`) when
    ``normalize``.
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
            "auto": f"{words} (text without word spaces: {chars})",
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
        """One bool per (normalised) text: shingled by characters."""
        if self.features == "chars":
            return np.ones(len(texts), np.bool_)
        if self.features == "auto":
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
        if chars.all():
            return chars, *char_sets(texts, self.settings.char_ngram)
        c = np.flatnonzero(chars)
        w = np.flatnonzero(~chars)
        ci, cd = char_sets([texts[i] for i in c.tolist()], self.settings.char_ngram)
        wi, wd = self.shingler.sets([texts[i] for i in w.tolist()])
        return chars, *_merge_csr(nd, [(c, ci, cd), (w, wi, wd)])

    def sets(self, texts: list) -> tuple[np.ndarray, np.ndarray]:
        """CSR sets of raw texts (normalised here)."""
        return self.sets_of(self.normalise(list(texts)))[1:]

    def fingerprints_sets(self, texts: list):
        """``(fingerprints, chars, indptr, data)`` of normalised texts (sets None for a hasher of
        one's own, whose sets are made only for the rows that need them)."""
        nd = len(texts)
        if self.features == "hasher":
            return self.hasher.fingerprints(texts), np.zeros(nd, np.bool_), None, None
        chars = self.kinds(texts)
        if self.features == "words" or (self.features == "auto" and not chars.any()):
            fps, ind, dat = self.shingler.fingerprints_and_sets(texts)
            return fps, chars, ind, dat
        chars, ind, dat = self.sets_of(texts, chars)
        fps = np.empty(nd, np.uint64)
        run = lambda lo, hi: V.fold_sets(ind[lo : hi + 1], dat, 64, fps[lo:hi])  # noqa: E731
        run_items(nd, run, nd >= 64)
        return fps, chars, ind, dat

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
