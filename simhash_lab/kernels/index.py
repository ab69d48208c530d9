"""Numba kernels behind :class:`simhash_lab.SimhashIndex`.

The index keeps ``T`` tables. Table ``t`` has a 64-bit ``mask`` (the bits of the fingerprint it
keeps exact) and two rows of equal length ``L``:

* ``tfps[t]``: uint64 fingerprints sorted by ``fp & masks[t]`` (ties in ascending id order), so
  every fingerprint that agrees with a query on the masked bits sits in one contiguous run, found
  by binary search, and the candidates are verified from contiguous memory (Manku et al.'s
  "permuted tables", without physically permuting the bits: sorting by the masked value groups
  exactly the same runs);
* ``tids[t]``: uint32 ids in the same order.

Ids at or above ``buf_start`` are not in the tables yet (the small unsorted buffer of recent adds)
and are scanned linearly. A pair seen through several tables is reported once, by the first table
(lowest ``t``) whose mask it satisfies: ``(a ^ b) & masks[s] == 0``.

Decorator policy (the package's): ``@njit(cache=True, nogil=True)`` for serial kernels;
``parallel=True`` kernels are marked as such and use ``prange`` only over independent rows (queries,
tables, runs) that each write their own output slots. Each parallel kernel is written once, as
``_NAME_impl``, and compiled twice: ``NAME`` (parallel) and ``NAME_serial`` (where ``prange`` is
``range``), used below ``PARALLEL_MIN_WORK``. Kernels never raise user-facing errors: the
Python layer (``index.py``) validates everything first.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._jit import twins
from .bits import popcount

__all__ = [
    "PARALLEL_MIN_WORK",
    "query_one_kernel",
    "query_many_kernel",
    "query_many_kernel_serial",
    "pairs_table_kernel",
    "pairs_table_kernel_serial",
    "pairs_scan_kernel",
    "pairs_scan_kernel_serial",
    "merge_tables_kernel",
    "merge_tables_kernel_serial",
    "build_dirs_kernel",
    "build_tables_kernel",
    "build_tables_kernel_serial",
]

#: Below this much work (entries touched) the Python layer calls the serial twins.
PARALLEL_MIN_WORK = 1 << 18

# Results are sorted by one int64 key: distance in the high bits, id in the low 40 bits.
_ID_BITS = 40
_ID_MASK = (1 << _ID_BITS) - 1


@njit(cache=True, nogil=True, inline="always")
def _first_table(diff, masks, t):
    """True when no table before ``t`` keeps all of ``diff``'s zero bits, i.e. ``t`` reports it."""
    for s in range(t):
        if (diff & masks[s]) == 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _probe(q, k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, out, cap):
    """Find every live id within distance ``k`` of ``q``; write the first ``cap`` of them.

    Table ``t``'s candidates are the run of ``fp & masks[t] == q & masks[t]``: the directory
    narrows it to the bucket of ``r`` leading key bits, ``(q >> dshift[t]) & (2**r - 1)``, whose
    entries are ``dirs[t, h]:dirs[t, h + 1]``, then a binary search finds the run in the bucket.
    Returns the total count (which may exceed ``cap``: the caller then retries with more room).
    ``out`` (int64, length >= ``cap``) receives ``distance << 40 | id`` per match, unsorted.
    """
    cnt = 0
    n_tables = masks.shape[0]
    dmask = np.uint64(dirs.shape[1] - 2)  # 2**r - 1
    # Three passes so the tables' cache misses overlap instead of queueing one after another:
    # the directory entries of every table, then the first row entry of every bucket, then the
    # searches and scans, which now mostly hit the cache.
    bounds = np.empty((n_tables, 2), np.int64)
    for t in range(n_tables):
        h = np.int64((q >> np.uint64(dshift[t])) & dmask)
        bounds[t, 0] = dirs[t, h]
        bounds[t, 1] = dirs[t, h + 1]
    touch = np.uint64(0)
    for t in range(n_tables):
        if bounds[t, 0] < bounds[t, 1]:
            touch ^= tfps[t, bounds[t, 0]] ^ tfps[t, bounds[t, 1] - 1]
    for t in range(n_tables):
        mask = masks[t]
        key = q & mask
        row = tfps[t]
        lo = bounds[t, 0]
        hi = bounds[t, 1]
        while lo < hi:
            mid = (lo + hi) >> 1
            if (row[mid] & mask) < key:
                lo = mid + 1
            else:
                hi = mid
        i = lo
        n = row.shape[0]
        while i < n and (row[i] & mask) == key:
            diff = row[i] ^ q
            d = np.int64(popcount(diff))
            if d <= k and _first_table(diff, masks, t):
                ident = np.int64(tids[t, i])
                if alive[ident]:
                    if cnt < cap:
                        out[cnt] = (d << _ID_BITS) | ident
                    cnt += 1
            i += 1
    if touch == np.uint64(1) and cnt < 0:  # never true: keeps the touching loads alive
        cnt = 0
    for ident in range(buf_start, buf_end):
        if alive[ident]:
            d = np.int64(popcount(fps[ident] ^ q))
            if d <= k:
                if cnt < cap:
                    out[cnt] = (d << _ID_BITS) | ident
                cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _insertion_sort(keys, m):
    """Sort ``keys[:m]`` in place (the usual case: a handful of matches)."""
    for a in range(1, m):
        x = keys[a]
        b = a - 1
        while b >= 0 and keys[b] > x:
            keys[b + 1] = keys[b]
            b -= 1
        keys[b + 1] = x


@njit(cache=True, nogil=True)
def query_one_kernel(q, k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, out):
    """All live ids within Hamming distance ``k`` of one fingerprint, written into ``out``.

    Writing into a caller's buffer and returning a count avoids boxing a new array, which costs
    more than the search itself at a million fingerprints.

    Parameters
    ----------
    q : int64 or uint64
        The query fingerprint (an int64 is reinterpreted as the uint64 with the same bits).
    k : int64
        Largest distance reported.
    masks : array of shape (T,), uint64
        Bits each table keeps exact.
    dshift : array of shape (T,), int64
        Shift that brings table ``t``'s ``r`` leading key bits to the bottom.
    dirs : array of shape (T, 2**r + 1), uint32
        Directory: bucket ``h`` of table ``t`` is ``tfps[t, dirs[t, h]:dirs[t, h + 1]]``.
    tfps : array of shape (T, L), uint64
        Each row sorted by ``fp & masks[t]``.
    tids : array of shape (T, L), uint32
        Ids in the order of ``tfps``.
    fps : array of shape (>= buf_end,), uint64
        Every fingerprint by id.
    alive : array of shape (>= buf_end,), bool
        False for removed ids.
    buf_start, buf_end : int64
        Ids in ``[buf_start, buf_end)`` are scanned linearly (not in the tables).
    out : array of shape (cap,), int64
        Receives ``distance << 40 | id`` for each match, sorted (so by distance, then id).

    Returns
    -------
    int
        The number of matches ``m``. When ``m > cap`` nothing useful is in ``out``: call again
        with a buffer of at least ``m``.
    """
    cap = out.shape[0]
    cnt = _probe(np.uint64(q), k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, out, cap)
    if 1 < cnt <= cap:
        _insertion_sort(out, cnt) if cnt <= 16 else out[:cnt].sort()
    return cnt


# -- many queries --------------------------------------------------------------------------------
# Each parallel kernel has a serial twin (same helpers, ``range`` for ``prange``): for small inputs
# waking the thread pool costs more than the work, and a busy machine makes it worse.


@njit(cache=True, nogil=True)
def _query_fill(qs, i, k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, keys, indptr):
    s = indptr[i]
    e = indptr[i + 1]
    seg = keys[s:e]
    _probe(np.uint64(qs[i]), k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, seg, e - s)
    if e - s <= 16:
        _insertion_sort(seg, e - s)
    else:
        seg.sort()


@njit(cache=True, nogil=True)
def _unpack(keys):
    ids = np.empty(keys.shape[0], np.int64)
    d = np.empty(keys.shape[0], np.int64)
    for i in range(keys.shape[0]):
        ids[i] = keys[i] & _ID_MASK
        d[i] = keys[i] >> _ID_BITS
    return ids, d


def _query_many_kernel_impl(qs, k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end):
    """The matches of each of ``qs`` (uint64, shape (nq,)), in CSR form (parallel over queries).

    The other parameters are those of ``query_one_kernel``.

    Returns
    -------
    indptr : array of shape (nq + 1,), int64
        Matches of query i are ``ids[indptr[i]:indptr[i + 1]]``.
    ids, d : arrays of shape (indptr[-1],), int64
        Sorted by distance then id within each query.
    """
    nq = qs.shape[0]
    counts = np.zeros(nq + 1, np.int64)
    empty = np.empty(0, np.int64)
    for i in prange(nq):
        counts[i + 1] = _probe(
            np.uint64(qs[i]), k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, empty, 0
        )
    indptr = np.cumsum(counts)
    keys = np.empty(indptr[nq], np.int64)
    for i in prange(nq):
        _query_fill(qs, i, k, masks, dshift, dirs, tfps, tids, fps, alive, buf_start, buf_end, keys, indptr)
    ids, d = _unpack(keys)
    return indptr, ids, d


query_many_kernel, query_many_kernel_serial = twins(_query_many_kernel_impl)


# -- all pairs -------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _run_pairs(row, idrow, masks, t, k, alive, s, e, out, pos, write):
    """Pairs within distance ``k`` inside the run ``row[s:e]`` of table ``t``; returns the count."""
    cnt = 0
    for a in range(s, e - 1):
        ia = np.int64(idrow[a])
        if not alive[ia]:
            continue
        fa = row[a]
        for b in range(a + 1, e):
            diff = fa ^ row[b]
            d = np.int64(popcount(diff))
            if d <= k and _first_table(diff, masks, t):
                ib = np.int64(idrow[b])
                if alive[ib]:
                    if write:
                        r = pos + cnt
                        if ia < ib:
                            out[r, 0] = ia
                            out[r, 1] = ib
                        else:
                            out[r, 0] = ib
                            out[r, 1] = ia
                        out[r, 2] = d
                    cnt += 1
    return cnt


@njit(cache=True, nogil=True)
def _runs(row, mask):
    """Starts and ends of the runs of equal ``row & mask`` with at least two entries."""
    n = row.shape[0]
    nruns = 0
    i = 0
    while i < n:
        key = row[i] & mask
        j = i + 1
        while j < n and (row[j] & mask) == key:
            j += 1
        if j - i >= 2:
            nruns += 1
        i = j
    starts = np.empty(nruns, np.int64)
    ends = np.empty(nruns, np.int64)
    r = 0
    i = 0
    while i < n:
        key = row[i] & mask
        j = i + 1
        while j < n and (row[j] & mask) == key:
            j += 1
        if j - i >= 2:
            starts[r] = i
            ends[r] = j
            r += 1
        i = j
    return starts, ends


def _pairs_table_kernel_impl(row, idrow, masks, t, k, alive):
    """Every pair that table ``t`` reports: same masked key, distance <= ``k`` (parallel over runs).

    Parameters
    ----------
    row : array of shape (L,), uint64
        ``tfps[t]``, sorted by ``fp & masks[t]``.
    idrow : array of shape (L,), uint32
        ``tids[t]``.
    masks : array of shape (T,), uint64
    t : int64
    k : int64
    alive : array, bool

    Returns
    -------
    array of shape (m, 3), int64
        Rows (i, j, d) with i < j, unsorted. A pair is reported only by the first table that
        holds it, so concatenating the tables' outputs has no duplicates.
    """
    starts, ends = _runs(row, masks[t])
    nruns = starts.shape[0]
    counts = np.zeros(nruns + 1, np.int64)
    dummy = np.empty((0, 3), np.int64)
    for r in prange(nruns):
        counts[r + 1] = _run_pairs(row, idrow, masks, t, k, alive, starts[r], ends[r], dummy, 0, False)
    offsets = np.cumsum(counts)
    out = np.empty((offsets[nruns], 3), np.int64)
    for r in prange(nruns):
        if offsets[r + 1] > offsets[r]:  # most runs hold no pair: skip them the second time
            _run_pairs(row, idrow, masks, t, k, alive, starts[r], ends[r], out, offsets[r], True)
    return out


pairs_table_kernel, pairs_table_kernel_serial = twins(_pairs_table_kernel_impl)


@njit(cache=True, nogil=True)
def _scan_row_pairs(fps, alive, n, k, a, out, pos, write):
    cnt = 0
    fa = fps[a]
    for b in range(a + 1, n):
        if alive[b]:
            d = np.int64(popcount(fa ^ fps[b]))
            if d <= k:
                if write:
                    out[pos + cnt, 0] = a
                    out[pos + cnt, 1] = b
                    out[pos + cnt, 2] = d
                cnt += 1
    return cnt


def _pairs_scan_kernel_impl(fps, alive, n, k):
    """Every pair (i, j, d), i < j < n, both alive, d = popcount(fps[i] ^ fps[j]) <= k (parallel).

    Quadratic: for tiny indexes and large ``k``. Returns an int64 array of shape (m, 3), sorted
    by (i, j).
    """
    counts = np.zeros(n + 1, np.int64)
    dummy = np.empty((0, 3), np.int64)
    for a in prange(n):
        if alive[a]:
            counts[a + 1] = _scan_row_pairs(fps, alive, n, k, a, dummy, 0, False)
    offsets = np.cumsum(counts)
    out = np.empty((offsets[n], 3), np.int64)
    for a in prange(n):
        if offsets[a + 1] > offsets[a]:
            _scan_row_pairs(fps, alive, n, k, a, out, offsets[a], True)
    return out


pairs_scan_kernel, pairs_scan_kernel_serial = twins(_pairs_scan_kernel_impl)


# -- table maintenance -----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _merge_row(tfps, tids, bfps, bids, masks, alive, t, out_f, out_i):
    mask = masks[t]
    n_main = tfps.shape[1]
    n_buf = bfps.shape[1]
    out_len = out_f.shape[1]
    a = 0
    b = 0
    w = 0
    while a < n_main or b < n_buf:
        take_main = b >= n_buf or (a < n_main and (tfps[t, a] & mask) <= (bfps[t, b] & mask))
        if take_main:
            f = tfps[t, a]
            ident = tids[t, a]
            a += 1
        else:
            f = bfps[t, b]
            ident = bids[t, b]
            b += 1
        if alive[np.int64(ident)] and w < out_len:
            out_f[t, w] = f
            out_i[t, w] = ident
            w += 1


def _merge_tables_kernel_impl(tfps, tids, bfps, bids, masks, alive, out_len):
    """Merge sorted buffer rows into the table rows, dropping removed ids (parallel over tables).

    Parameters
    ----------
    tfps, tids : arrays of shape (T, L), uint64 / uint32
        The current tables, each row sorted by ``& masks[t]``.
    bfps, bids : arrays of shape (T, B), uint64 / uint32
        The buffer's entries, each row sorted the same way.
    masks : array of shape (T,), uint64
    alive : array, bool
    out_len : int64
        Number of live entries in a table row plus the buffer (the same for every row).

    Returns
    -------
    tfps, tids : arrays of shape (T, out_len)
        Merged rows; on equal keys table entries come first, keeping ids ascending in each run.
    """
    n_tables = masks.shape[0]
    out_f = np.empty((n_tables, out_len), np.uint64)
    out_i = np.empty((n_tables, out_len), np.uint32)
    for t in prange(n_tables):
        _merge_row(tfps, tids, bfps, bids, masks, alive, t, out_f, out_i)
    return out_f, out_i


merge_tables_kernel, merge_tables_kernel_serial = twins(_merge_tables_kernel_impl)


@njit(cache=True, nogil=True)
def build_dirs_kernel(tfps, dshift, r):
    """Bucket directory of every table (serial: one pass over memory, bandwidth-bound).

    Parameters
    ----------
    tfps : array of shape (T, L), uint64
        Rows sorted by ``fp & masks[t]``, whose ``r`` leading key bits are
        ``(fp >> dshift[t]) & (2**r - 1)`` (contiguous bits at the top of the mask).
    dshift : array of shape (T,), int64
    r : int64
        Directory bits, 0..31.

    Returns
    -------
    array of shape (T, 2**r + 1), uint32
        ``dirs[t, h]`` is the first position of bucket ``h`` in row ``t``; ``dirs[t, 2**r] = L``.
    """
    n_tables = tfps.shape[0]
    n = tfps.shape[1]
    size = 1 << r
    dmask = np.uint64(size - 1)
    dirs = np.zeros((n_tables, size + 1), np.uint32)
    for t in range(n_tables):
        sh = np.uint64(dshift[t])
        for i in range(n):
            h = np.int64((tfps[t, i] >> sh) & dmask)
            dirs[t, h + 1] += np.uint32(1)
        acc = np.uint32(0)
        for h in range(size + 1):
            acc += dirs[t, h]
            dirs[t, h] = acc
    return dirs


@njit(cache=True, nogil=True)
def _build_row(fps, ids, masks, dshift, r, t, out_f, out_i, dirs):
    """Fill table ``t``: a counting sort on the ``r`` directory bits, then each bucket sorted by
    the rest of the masked key (insertion sort when small). Ids stay ascending among equal keys."""
    n = fps.shape[0]
    size = 1 << r
    dmask = np.uint64(size - 1)
    sh = np.uint64(dshift[t])
    mask = masks[t]
    for i in range(n):
        dirs[t, np.int64((fps[i] >> sh) & dmask) + 1] += np.uint32(1)
    acc = np.uint32(0)
    for h in range(size + 1):
        acc += dirs[t, h]
        dirs[t, h] = acc
    pos = np.empty(size, np.int64)
    for h in range(size):
        pos[h] = dirs[t, h]
    for i in range(n):
        h = np.int64((fps[i] >> sh) & dmask)
        p = pos[h]
        out_f[t, p] = fps[i]
        out_i[t, p] = ids[i]
        pos[h] = p + 1
    if (mask & ~(dmask << sh)) == 0:  # the directory bits are the whole key: done
        return
    for h in range(size):
        s = np.int64(dirs[t, h])
        e = np.int64(dirs[t, h + 1])
        if e - s <= 1:
            continue
        if e - s <= 32:  # stable insertion sort on the masked key
            for a in range(s + 1, e):
                f = out_f[t, a]
                ident = out_i[t, a]
                key = f & mask
                b = a - 1
                while b >= s and (out_f[t, b] & mask) > key:
                    out_f[t, b + 1] = out_f[t, b]
                    out_i[t, b + 1] = out_i[t, b]
                    b -= 1
                out_f[t, b + 1] = f
                out_i[t, b + 1] = ident
        else:
            seg_f = out_f[t, s:e].copy()
            seg_i = out_i[t, s:e].copy()
            order = np.argsort(seg_f & mask, kind="mergesort")
            for a in range(e - s):
                out_f[t, s + a] = seg_f[order[a]]
                out_i[t, s + a] = seg_i[order[a]]


def _build_tables_kernel_impl(fps, ids, masks, dshift, r):
    """Build every table from scratch (parallel over tables).

    Parameters
    ----------
    fps : array of shape (n,), uint64
        The live fingerprints, in ascending id order.
    ids : array of shape (n,), uint32
        Their ids, ascending.
    masks : array of shape (T,), uint64
    dshift : array of shape (T,), int64
        Directory shift per table (see ``build_dirs_kernel``).
    r : int64
        Directory bits.

    Returns
    -------
    tfps : array of shape (T, n), uint64
        Row ``t`` sorted by ``fp & masks[t]``, ids ascending among equal keys.
    tids : array of shape (T, n), uint32
    dirs : array of shape (T, 2**r + 1), uint32
    """
    n_tables = masks.shape[0]
    n = fps.shape[0]
    out_f = np.empty((n_tables, n), np.uint64)
    out_i = np.empty((n_tables, n), np.uint32)
    dirs = np.zeros((n_tables, (1 << r) + 1), np.uint32)
    for t in prange(n_tables):
        _build_row(fps, ids, masks, dshift, r, t, out_f, out_i, dirs)
    return out_f, out_i, dirs


build_tables_kernel, build_tables_kernel_serial = twins(_build_tables_kernel_impl)
