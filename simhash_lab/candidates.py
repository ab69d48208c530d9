"""Candidate pairs by MinHash bands from the shingle sets, in time that follows the pairs.

Each document's set (sorted distinct 64-bit shingle hashes, the CSR arrays of ``kernels.verify``)
gets a MinHash signature of ``K = bands * rows`` values by one-permutation hashing (Li, Owen and
Zhang 2012): each hash falls in one of K bins by its top bits and each bin keeps its smallest;
bins left empty (a set of fewer than about 3 K shingles leaves some) are filled by *optimal
densification* (Shrivastava, ICML 2017): an empty bin copies the bin that a hash sequence of its
own number, the same for every document, first reaches among those not empty. Two sets then agree
on a bin with probability their Jaccard similarity J, so on all ``rows`` bins of a band with
about J**rows, and on at least one of ``bands`` bands with ``1 - (1 - J**rows)**bands``: the band
parameters are chosen for the threshold (``simhash_lab.candidates``).

A band's key is the hash of its ``rows`` values, with the document's number in its low bits:
sorting one band's keys (NumPy's sort) puts the documents that agree on the band next
to each other, in order of their numbers, and every two of a run are a candidate pair. The work is
one pass over the shingles, one sort per band and the pairs themselves, whatever Hamming distance
they are at: no table count that grows with k.

Each kernel works on a range of documents or of bands and writes only their outputs
(``simhash_lab._threads`` runs ranges in threads).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .kernels._jit import kernel
from .kernels.bits import popcount
from .kernels.hashes import PRIME64_1, PRIME64_2, mul128_fold64, xxh64_avalanche

_U64 = np.uint64
_EMPTY = _U64(0xFFFFFFFFFFFFFFFF)


@kernel(inline=True)
def _bin_of(h: np.uint64, nbins: int) -> int:
    """The bin of hash ``h`` among ``nbins``: its top 32 bits scaled (uniform for nbins < 2**32)."""
    return np.int64(((h >> _U64(32)) * _U64(nbins)) >> _U64(32))


#: Steps of each bin's densification sequence kept in a table (``probe_table``); a bin whose first
#: steps all meet empty bins (rare: a set of few shingles) computes the next ones.
_PROBES = 16


@kernel(inline=True)
def _probe(i: int, a: int, nbins: int) -> int:
    """Step ``a`` (from 1) of bin ``i``'s densification sequence: the bin it reads."""
    return _bin_of(xxh64_avalanche(((_U64(i) << _U64(32)) | _U64(a)) * PRIME64_1), nbins)


@kernel
def probe_table(nbins: int, steps: int) -> np.ndarray:
    """int64 (nbins, steps): ``[i, a]`` is step ``a + 1`` of bin i's densification sequence."""
    t = np.empty((nbins, steps), np.int64)
    for i in range(nbins):
        for a in range(steps):
            t[i, a] = _probe(i, a + 1, nbins)
    return t


@kernel
def band_keys(
    indptr: np.ndarray, data: np.ndarray, bands: int, rows: int, first: int, sig: np.ndarray,
    keys: np.ndarray, probe: np.ndarray,
) -> None:  # fmt: skip
    """``keys[j, first + d]``: the hash of the ``rows`` MinHash values of band j of CSR row d of
    ``indptr``/``data`` (d in ``range(indptr.shape[0] - 1)``), its top bit clear; a row without
    shingles gets the top bit alone (``number_keys`` keeps it apart). ``sig``: scratch of
    ``2 * bands * rows`` uint64, one per thread (the bins, then the densified signature);
    ``probe``: ``probe_table(bands * rows, steps)``, the densification's first steps."""
    nbins = bands * rows
    nb = _U64(nbins)
    steps = probe.shape[1]
    top = _U64(1) << _U64(63)
    for d in range(indptr.shape[0] - 1):
        s0 = indptr[d]
        s1 = indptr[d + 1]
        col = first + d
        if s1 == s0:
            for j in range(bands):
                keys[j, col] = top
            continue
        for i in range(nbins):
            sig[i] = _EMPTY
        for q in range(s0, s1):
            h = data[q]
            b = np.int64(((h >> _U64(32)) * nb) >> _U64(32))  # _bin_of, the bin count hoisted
            sig[b] = min(sig[b], h)
        # optimal densification: an empty bin i takes the value of the first bin not empty in the
        # sequence bin(hash(i, 1)), bin(hash(i, 2)), ..., the same for every document (its first
        # steps read from ``probe``). (A hash of all ones would read as an empty bin: probability
        # 2**-64 per shingle.)
        for i in range(nbins):
            v = sig[i]
            a = 0
            while v == _EMPTY:
                v = sig[probe[i, a]] if a < steps else sig[_probe(i, a + 1, nbins)]
                a += 1
            sig[nbins + i] = v
        for j in range(bands):
            k = PRIME64_1 + _U64(j)
            for i in range(j * rows, (j + 1) * rows):
                k = mul128_fold64(k ^ sig[nbins + i], PRIME64_2)
            keys[j, col] = xxh64_avalanche(k) & ~top


@kernel
def number_keys(keys: np.ndarray, valid: np.ndarray, docbits: int) -> None:
    """Put each document's number in the low ``docbits`` bits of its keys (a range of bands): a
    valid document with shingles keeps its hash's other bits, the others get the top bit and
    their number alone, which no other key equals."""
    low = (_U64(1) << _U64(docbits)) - _U64(1)
    top = _U64(1) << _U64(63)
    for j in range(keys.shape[0]):
        for d in range(keys.shape[1]):
            k = keys[j, d]
            if valid[d] and (k & top) == _U64(0):
                keys[j, d] = (k & ~low) | _U64(d)
            else:
                keys[j, d] = top | _U64(d)


@kernel(inline=True)
def _reducer_of(key: int, n_r: int, turn: int) -> int:
    """``split_band``'s reducer of a key: its top hash bits scaled to ``n_r`` reducers, plus the
    band's ``turn`` (below ``n_r``), mod ``n_r``."""
    r = (((key >> _U64(32)) * n_r) >> _U64(32)) + turn
    return r - n_r if r >= n_r else r


@kernel
def split_band(
    keys: np.ndarray, numbers: np.ndarray, docbits: int, band: int, out: np.ndarray, cuts: np.ndarray
) -> None:
    """One band's keys of one partition split among ``cuts.size - 1`` reducers (Dask's band
    map): each key gets its row's number in its low ``docbits`` bits (``numbers``), a key with its
    top bit set (a row without shingles) is left out, and the others go to ``out`` by reducer, in
    their order (a counting sort: stable), reducer ``r``'s from ``cuts[r]`` to ``cuts[r + 1]``.
    The reducer is the key's top hash bits scaled to the reducers (a hash already: uniform),
    turned by the band, so that equal keys of a band meet and a row's bands spread."""
    n_r = cuts.size - 1
    big = _U64(n_r)
    turn = _U64(band % n_r)
    low = (_U64(1) << _U64(docbits)) - _U64(1)
    top = _U64(1) << _U64(63)
    cuts[:] = 0
    for i in range(keys.size):
        if (keys[i] & top) == _U64(0):
            cuts[_reducer_of(keys[i], big, turn) + _U64(1)] += 1
    for r in range(n_r):
        cuts[r + 1] += cuts[r]
    at = cuts[:-1].copy()
    for i in range(keys.size):
        k = keys[i]
        if (k & top) == _U64(0):
            r = _reducer_of(k, big, turn)
            out[at[r]] = (k & ~low) | numbers[i]
            at[r] += 1


def sort_bands(keys: np.ndarray) -> None:
    """Sort each row of ``keys`` (a range of bands) in place: NumPy's sort (x86-simd-sort where
    the CPU has AVX-512, as NumPy detects it at run time), which releases the GIL."""
    for j in range(keys.shape[0]):
        keys[j].sort()


@kernel
def band_pairs(keys: np.ndarray, docbits: int, fill: bool, out: np.ndarray, start: np.ndarray) -> None:
    """The pairs of documents whose keys agree but for their numbers, in each sorted row of
    ``keys`` (a range of bands). ``fill=False``: returns how many (per band, into ``start``);
    ``fill=True``: writes each pair as ``i << 32 | j`` (i < j) into ``out`` from ``start[band]``.
    Every two documents of a run of equal keys are a pair (a run of g gives g (g - 1) / 2)."""
    low = (_U64(1) << _U64(docbits)) - _U64(1)
    top = _U64(1) << _U64(63)
    n = keys.shape[1]
    for j in range(keys.shape[0]):
        row = keys[j]
        o = start[j] if fill else 0
        c = 0
        i = 0
        while i < n:
            hi = row[i] & ~low
            e = i + 1
            while e < n and (row[e] & ~low) == hi:
                e += 1
            if e - i > 1 and (hi & top) == _U64(0):
                if fill:
                    for x in range(i, e):
                        a = (row[x] & low) << _U64(32)
                        for y in range(x + 1, e):
                            out[o + c] = a | (row[y] & low)
                            c += 1
                else:
                    c += (e - i) * (e - i - 1) // 2
            i = e
        if not fill:
            start[j] = c


@kernel
def unique_sorted(a: np.ndarray, m: int) -> int:
    """Move the distinct values of the sorted ``a[:m]`` to its front; returns their count."""
    if m == 0:
        return 0
    u = 1
    for i in range(1, m):
        if a[i] != a[u - 1]:
            a[u] = a[i]
            u += 1
    return u


@kernel
def pair_distances(pk: np.ndarray, fps: np.ndarray, out: np.ndarray) -> None:
    """``out[p] = (i, j, d)``: the packed pair ``i << 32 | j`` of ``pk[p]`` and the Hamming
    distance of their fingerprints."""
    for p in range(pk.shape[0]):
        i = np.int64(pk[p] >> _U64(32))
        j = np.int64(pk[p] & _U64(0xFFFFFFFF))
        out[p, 0] = i
        out[p, 1] = j
        out[p, 2] = np.int64(popcount(fps[i] ^ fps[j]))


# -- the Python layer ------------------------------------------------------------------------

#: Relative cost of verifying one candidate pair, against computing and sorting one band key of
#: one document (measured: about 60-100 ns a pair, 10-20 ns a key).
_VERIFY_COST = 5.0
#: The similarity of a typical pair of unrelated documents, as word 3-shingle sets: the false
#: candidates the band parameters are chosen to keep few.
_BACKGROUND = 0.05
#: The highest recall at the threshold the bands are chosen for (1 cannot be promised by bands).
_MOST_RECALL = 0.9999
#: The corpus size the band parameters are chosen for (before the rows are counted).
_REFERENCE_ROWS = 1_000_000


def collision_probability(similarity: float | np.ndarray, bands: int, rows: int) -> np.ndarray:
    """P(two sets of Jaccard ``similarity`` agree on at least one band): ``1 - (1 - s**r)**b``.

    Parameters
    ----------
    similarity : float or ndarray
        Jaccard similarities, in [0, 1].
    bands, rows : int
        The bands and the MinHash values (rows) in each.

    Returns
    -------
    ndarray of float64
        The probability for each similarity (a 0-d array for a float).
    """
    s = np.asarray(similarity, np.float64)
    return 1.0 - (1.0 - s**rows) ** bands


def band_parameters(
    threshold: float, recall: float, n: int = _REFERENCE_ROWS, max_rows: int = 16
) -> tuple[int, int]:
    """``(bands, rows)`` for a Jaccard threshold: for each number of rows r, the fewest bands b
    that find a pair at the threshold itself with probability >= ``recall`` (a pair above it more
    often); of those, the one whose cost is least for ``n`` documents (default a million: the
    choice is made before the rows are counted): ``n b`` band keys plus the pairs of unrelated
    documents (similarity ``_BACKGROUND``) it would verify for nothing.

    Parameters
    ----------
    threshold : float
        The Jaccard threshold, in (0, 1].
    recall : float
        P(a pair at the threshold is found) asked for, in (0, 1] (at most 0.9999 is promised).
    n : int
        The number of documents the cost is reckoned for.
    max_rows : int
        The most rows a band may have.

    Returns
    -------
    tuple of int
        ``(bands, rows)``.

    Raises
    ------
    ValueError
        ``threshold`` or ``recall`` outside (0, 1].

    Examples
    --------
    >>> band_parameters(0.8, 0.95), band_parameters(0.8, 0.99), band_parameters(0.8, 0.99, 10_000)
    ((10, 6), (16, 6), (9, 4))
    """
    import math

    if not 0 < threshold <= 1 or not 0 < recall <= 1:
        raise ValueError(f"threshold and recall must be in (0, 1], got {threshold}, {recall}")
    recall = min(recall, _MOST_RECALL)
    best = None
    pairs = n * (n - 1) / 2
    for r in range(1, max_rows + 1):
        p = threshold**r
        b = 1 if p >= 1 else max(1, math.ceil(math.log(1 - recall) / math.log1p(-p)))
        if b > 4096:
            break
        cost = n * b + _VERIFY_COST * pairs * float(collision_probability(_BACKGROUND, b, r))
        if best is None or cost < best[0]:
            best = (cost, b, r)
    return best[1], best[2]


class BandKeys:
    """The band keys of every row, added chunk by chunk as the shingle sets are made (the sets
    themselves need not be kept), then :meth:`pairs`.

    Parameters
    ----------
    threshold : float
        The Jaccard threshold the bands are chosen for.
    recall : float
        P(a pair at the threshold agrees on a band) asked for (:func:`band_parameters`).
    n : int
        The number of documents the band parameters are chosen for.

    Attributes
    ----------
    bands, rows : int
        The band parameters.
    n : int
        Rows added so far.

    Examples
    --------
    >>> from simhash_lab.shingles import Shingler
    >>> texts = ["the cat sat on the mat today", "the cat sat on the mat today", "a dog barked loudly"]
    >>> keys = BandKeys(0.8, 0.95)
    >>> keys.add(*Shingler(3).sets(texts))
    >>> keys.pairs(np.ones(3, bool), np.zeros(3, np.uint64)).tolist()
    [[0, 1, 0]]
    """

    def __init__(self, threshold: float, recall: float, n: int = _REFERENCE_ROWS) -> None:
        self.threshold = threshold
        self.bands, self.rows = band_parameters(threshold, recall, n)
        self.probe = probe_table(self.bands * self.rows, _PROBES)
        self.parts: list[np.ndarray] = []
        self.n = 0

    @property
    def info(self) -> dict:
        """The settings entry: method, bands, rows, P(a pair at the threshold is found)."""
        p = float(collision_probability(self.threshold, self.bands, self.rows))
        return {
            "method": "minhash bands",
            "bands": self.bands,
            "rows": self.rows,
            "at_threshold": round(p, 4),
        }

    def add(self, indptr: np.ndarray, data: np.ndarray, threads: bool = True) -> None:
        """Add the keys of the next ``indptr.shape[0] - 1`` rows, from their CSR sets
        (:meth:`make` then :meth:`extend`).

        Parameters
        ----------
        indptr : ndarray of int64, shape (m + 1,)
        data : ndarray of uint64
            Row i's sorted distinct shingle hashes are ``data[indptr[i]:indptr[i + 1]]``.
        threads : bool
            Make the keys on the package's threads (:mod:`simhash_lab._threads`).
        """
        self.extend(self.make(indptr, data, threads))

    def make(self, indptr: np.ndarray, data: np.ndarray, threads: bool = True) -> np.ndarray:
        """The keys of CSR rows (uint64, shape ``(bands, m)``), not added: a thread of a caller's
        own may make them while another adds those of the rows before (:meth:`extend`, in order)."""
        from ._threads import run_items

        m = indptr.shape[0] - 1
        keys = np.empty((self.bands, m), np.uint64)
        b, r = self.bands, self.rows

        def run(lo: int, hi: int) -> None:
            band_keys(indptr[lo : hi + 1], data, b, r, lo, np.empty(2 * b * r, np.uint64), keys, self.probe)

        run_items(m, run, threads and m >= 256)
        return keys

    def extend(self, keys: np.ndarray) -> None:
        """Add the keys :meth:`make` made, as the next rows."""
        self.parts.append(keys)
        self.n += keys.shape[1]

    def pairs(self, valid: np.ndarray, fps: np.ndarray, threads: bool = True, bar: Any = None) -> np.ndarray:
        """Every pair of ``valid`` rows that agree on at least one band: int64 (m, 3) of
        ``(i, j, d)``, ``i < j``, ``d`` the Hamming distance of their fingerprints ``fps``, sorted.
        The keys are consumed. ``bar`` (a tqdm bar, optional) counts the work in bands: each band
        sorted, its pairs counted, its pairs written (``3 * bands``), then one more for the sort of
        the pairs.

        Parameters
        ----------
        valid : ndarray of bool, shape (n,)
            The rows that may be in a pair.
        fps : ndarray of uint64, shape (n,)
            Their fingerprints (for the distances).
        threads : bool
            Sort and pair the bands on the package's threads.
        bar : tqdm bar, optional

        Returns
        -------
        ndarray of int64, shape (m, 3)

        Raises
        ------
        ValueError
            2**32 rows or more.
        """
        import threading

        from ._threads import run_ranges

        lock = threading.Lock()
        if bar is not None:
            bar.total = 3 * self.bands + 1
            bar.refresh()

        def done(count: int) -> None:  # from the threads: one at a time
            if bar is not None:
                with lock:
                    bar.update(count)

        n = self.n
        if n >= 1 << 32:
            raise ValueError(f"band candidates take fewer than 2**32 rows, got {n}")
        fps = np.ascontiguousarray(fps, np.uint64)
        valid = np.ascontiguousarray(valid, np.bool_)
        docbits = max(1, int(n - 1).bit_length())
        bands = self.bands
        parts, self.parts = self.parts, []
        self.n = 0
        workers = None if threads else 1
        # band by band: its keys gathered from the chunks' parts into one row of scratch (one per
        # thread, used again for each band: no fresh (bands, n) array, whose first touch costs
        # more than the copy), numbered, sorted, its pairs counted and written
        found: list = [None] * bands
        none = np.empty(0, np.uint64)
        local = threading.local()

        def band(a: int, b: int) -> None:
            row = getattr(local, "row", None)
            if row is None:
                row = local.row = np.empty((1, n), np.uint64)
            for j in range(a, b):
                at = 0
                for part in parts:
                    row[0, at : at + part.shape[1]] = part[j]
                    at += part.shape[1]
                number_keys(row, valid, docbits)
                sort_bands(row)
                count = np.zeros(1, np.int64)
                band_pairs(row, docbits, False, none, count)
                got = np.empty(int(count[0]), np.uint64)
                band_pairs(row, docbits, True, got, np.zeros(1, np.int64))
                found[j] = got
                done(3)

        if n:
            run_ranges(band, bands, threads=workers, size=1)
        parts = None  # the keys are consumed: freed before the pairs are sorted
        packed = np.concatenate([f for f in found if f is not None]) if n else none
        found = None
        m = unique_sorted_pairs(packed)
        done(1)
        out = np.empty((m, 3), np.int64)
        if m:
            pair_distances(packed[:m], fps, out)
        return out


def bucket_pairs(band: np.ndarray, keys: np.ndarray, docbits: int) -> np.ndarray:
    """The distinct pairs ``i << 32 | j`` (uint64, sorted) among numbered keys of several bands
    (``band[x]``: the band of ``keys[x]``; each key a band hash with the document's number in its
    low ``docbits`` bits, as :meth:`BandKeys.pairs` numbers them): the documents whose keys of one
    band agree but for their numbers. Each key of a band reaches one bucket (its value picks the
    bucket), so a bucket's pairs are exactly those :meth:`BandKeys.pairs` finds among its keys:
    the reduce step of the bands on Dask (``distributed.dedup_dataset``).

    Parameters
    ----------
    band : ndarray of int
        The band of each key.
    keys : ndarray of uint64
        The numbered keys.
    docbits : int
        The bits of each key that hold the document's number.

    Returns
    -------
    ndarray of uint64
    """
    band = np.asarray(band)
    keys = np.ascontiguousarray(keys, np.uint64)
    order = np.argsort(band, kind="stable")
    band, keys = band[order], keys[order]
    cuts = np.flatnonzero(np.diff(band)) + 1
    runs = np.split(keys, cuts) if keys.size else []
    rows = [np.ascontiguousarray(r).reshape(1, -1) for r in runs]
    counts = np.zeros(len(rows), np.int64)
    none = np.empty(0, np.uint64)
    for b, row in enumerate(rows):
        sort_bands(row)
        band_pairs(row, docbits, False, none, counts[b : b + 1])
    starts = np.zeros(len(rows), np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    packed = np.empty(int(counts.sum()), np.uint64)
    for b, row in enumerate(rows):
        band_pairs(row, docbits, True, packed, starts[b : b + 1])
    return packed[: unique_sorted_pairs(packed)]


def unique_sorted_pairs(packed: np.ndarray) -> int:
    """Sort ``packed`` in place and move its distinct values to the front.

    Parameters
    ----------
    packed : ndarray of uint64
        Packed pairs ``i << 32 | j``; sorted in place.

    Returns
    -------
    int
        The count of distinct values, now ``packed[:count]``.
    """
    m = packed.shape[0]
    if m == 0:
        return 0
    packed.sort()
    return unique_sorted(packed, m)
