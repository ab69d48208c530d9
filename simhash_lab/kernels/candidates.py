"""The kernels of the MinHash band candidates (:mod:`simhash_lab.candidates`).

* ``band_keys``: each row's band keys from its shingle set, by one-permutation hashing with
  optimal densification (``probe_table``: the densification's first steps, the same for every row);
* ``number_keys``: a row's number put in the low bits of its keys (one process: every row's);
* ``split_band``: one band's keys of one partition numbered and split among reducers (Dask's map);
* ``band_pairs``: the pairs of rows whose keys of a sorted band agree but for their numbers;
* ``unique_sorted``: the distinct values of a sorted array moved to its front;
* ``pair_distances``: packed pairs unpacked, with the Hamming distance of their fingerprints.

Each kernel works on a range of rows or of bands and writes only their outputs
(``simhash_lab._threads`` runs ranges in threads).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import popcount
from .hashes import PRIME64_1, PRIME64_2, mul128_fold64, xxh64_avalanche

__all__ = [
    "PROBES",
    "band_keys",
    "band_pairs",
    "number_keys",
    "pair_distances",
    "probe_table",
    "split_band",
    "unique_sorted",
]

_U64 = np.uint64
_EMPTY = _U64(0xFFFFFFFFFFFFFFFF)


@kernel(inline=True)
def _bin_of(h: np.uint64, nbins: int) -> int:
    """The bin of hash ``h`` among ``nbins``: its top 32 bits scaled (uniform for nbins < 2**32)."""
    return np.int64(((h >> _U64(32)) * _U64(nbins)) >> _U64(32))


#: Steps of each bin's densification sequence kept in a table (``probe_table``); a bin whose first
#: steps all meet empty bins (rare: a set of few shingles) computes the next ones.
PROBES = 16


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
    ``3 * bands * rows`` uint64, one per thread (the bins, the densified signature, the empty
    bins' list);
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
        # 2**-64 per shingle.) Every bin copied and the empty ones listed without a branch (a
        # third of them are empty at a set of about K shingles: a branch on it mispredicts), then
        # each empty bin's first 4 steps chosen without one (all 4 empty: 1 bin in 50), the rest
        # one at a time (100k real rows: 8.1 ns a shingle for the keys, 6.1 so).
        ne = 0
        for i in range(nbins):
            v = sig[i]
            sig[nbins + i] = v
            sig[2 * nbins + ne] = _U64(i)
            ne += v == _EMPTY
        for e in range(ne):
            i = np.int64(sig[2 * nbins + e])
            v1 = sig[probe[i, 0]]
            v2 = sig[probe[i, 1]]
            v3 = sig[probe[i, 2]]
            v4 = sig[probe[i, 3]]
            v = v1 if v1 != _EMPTY else (v2 if v2 != _EMPTY else (v3 if v3 != _EMPTY else v4))
            a = 4
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
