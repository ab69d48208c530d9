"""Numba kernels behind :class:`simhash_lab.SimhashIndex`.

The index keeps ``T`` tables. Table ``t`` has a 64-bit ``mask`` (the bits of the fingerprint it
keeps exact: two fingerprints can lie within ``k`` only if some table's bits agree) and two rows of
equal length ``L``: ``tfps[t]``, the uint64 fingerprints, and ``tids[t]``, their uint32 ids.

**Buckets.** A mask is a union of runs of contiguous bits; ``_compress`` packs a fingerprint's masked
bits, highest run first, into one integer (its *key*, ordered exactly as ``fp & mask``). A row is
sorted by the ``r`` leading bits of the key (``druns[t]``: the ``(shift, width, 2**width - 1)`` runs
of the mask's ``r`` highest set bits; all-zero runs pad), with ids ascending inside each *bucket*;
``dirs[t, h]:dirs[t, h + 1]`` is bucket ``h``. ``r`` grows with the table (about ``log2(L) - 2``,
capped by the key's length), whatever the mask looks like, so a bucket holds a few entries at every
size and a table is built by one or two counting sorts (Manku et al.'s "permuted tables", without
permuting the bits: sorting by the masked bits groups the same fingerprints). A query scans its
bucket in each table and checks the rest of the key entry by entry; ``pairs()`` compares the entries
of each bucket with each other the same way.

Ids at or above ``buf_start`` are not in the tables yet (the small unsorted buffer of recent adds)
and are scanned linearly. A pair seen through several tables is reported once, by the first table
(lowest ``t``) whose mask it satisfies: ``(a ^ b) & masks[s] == 0``.

**Variable-size output without a second pass.** ``pairs_chunks_kernel`` and ``query_many_kernel``
split their work into chunks, run them in parallel, and each chunk writes into its own slice of one
output array (its capacity set by the caller) while counting everything it finds. A chunk that found
more than its capacity is run again, alone, into a slice of the exact size: only the chunks whose
output was underestimated pay twice, so the work stays linear in the output however dense it is
(the caller raises its estimate from what earlier chunks found).

Decorator policy (the package's, ``kernels._jit``): every kernel is ``@kernel``, serial. A kernel
over independent chunks or tables takes a range of them (slices of its chunk arrays, or a first row
and a step) and writes only their output slots; above ``PARALLEL_MIN_WORK`` the Python layer runs
ranges in threads (``simhash_lab._threads``). Hot loops index with unsigned integers, so that LLVM
knows no index wraps around and vectorizes them (``vpopcntq``) instead of gathering. Kernels never
raise user-facing errors: the Python layer (``simhash_lab.index``) validates everything first.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import popcount
from .sort import heap_sort, insertion_sort

__all__ = [
    "PARALLEL_MIN_WORK",
    "build_tables_kernel",
    "pair_chunks_kernel",
    "pairs_chunks_kernel",
    "query_many_kernel",
    "query_one_kernel",
    "unpack_pairs_kernel",
]

#: Below this much work (entries touched) the Python layer runs a kernel in one thread.
PARALLEL_MIN_WORK = 1 << 18

# Query results are sorted by one int64 key: distance in the high bits, id in the low 40 bits.
ID_BITS = 40
ID_MASK = (1 << ID_BITS) - 1
# Pairs travel as one uint64: the smaller id in the high 32 bits, the larger in the low 32.
_LOW32 = np.uint64(0xFFFFFFFF)


# -- keys ------------------------------------------------------------------------------------------


@kernel(inline=True)
def _compress(x, runs, t):
    """The bits of ``x`` under table ``t``'s runs, packed high to low into the low bits.

    ``runs[t, j]`` is ``(shift, width, 2**width - 1)``; padding runs are all zero and change nothing,
    so the loop has no branch (the shift by ``width`` is done in two halves: ``width`` may be 64).
    """
    key = np.uint64(0)
    for j in range(runs.shape[1]):
        w = runs[t, j, 1]
        half = w >> np.uint64(1)
        key = ((key << half) << (w - half)) | ((x >> runs[t, j, 0]) & runs[t, j, 2])
    return key


@kernel(python=False)
def _bucket_ids(row, runs, t, out):
    """``out[i] = _compress(row[i], runs, t)`` (uint32), with up to four runs held in registers."""
    if runs.shape[1] > 4:
        for i in range(row.shape[0]):
            out[i] = np.uint32(_compress(row[i], runs, t))
        return
    z = np.uint64(0)
    r = np.zeros((4, 3), np.uint64)
    for j in range(runs.shape[1]):  # a loop, not a slice assignment (whose shape check compiles for long)
        for c in range(3):
            r[j, c] = runs[t, j, c]
    s0, m0 = r[0, 0], r[0, 2]
    s1, w1, m1 = r[1, 0], r[1, 1], r[1, 2]
    s2, w2, m2 = r[2, 0], r[2, 1], r[2, 2]
    s3, w3, m3 = r[3, 0], r[3, 1], r[3, 2]
    if w1 == z:  # one run: the common case
        for i in range(row.shape[0]):
            out[i] = np.uint32((row[i] >> s0) & m0)
        return
    for i in range(row.shape[0]):
        x = row[i]
        key = (x >> s0) & m0
        key = (key << w1) | ((x >> s1) & m1)
        key = (key << w2) | ((x >> s2) & m2)
        out[i] = np.uint32((key << w3) | ((x >> s3) & m3))


@kernel(inline=True)
def _first_table(diff, masks, t):
    """True when no table before ``t`` keeps all of ``diff``'s zero bits, i.e. ``t`` reports it."""
    for s in range(t):
        if (diff & masks[s]) == 0:
            return False
    return True


# -- one query -------------------------------------------------------------------------------------


@kernel(inline=True)
def _count_near(row, fa, b0, e, k):
    """How many of ``row[b0:e]`` lie within ``k`` of ``fa`` (a branch-free, vectorized loop)."""
    c = np.uint64(0)
    for b in range(b0, e):
        c += np.uint64(popcount(fa ^ row[b]) <= k)
    return c


@kernel(python=False)
def _probe(q, k, masks, druns, dirs, tfps, tids, fps, alive, buf_start, buf_end, out, start, cap, bounds):
    """Find every live id within distance ``k`` of ``q``; write the first ``cap`` of them.

    Table ``t``'s candidates are the entries of ``q``'s bucket, checked on the whole mask. Returns the
    total count (which may exceed ``cap``: the caller then retries with more room).
    ``out[start:start + cap]`` (int64) receives ``distance << 40 | id`` per match, unsorted;
    ``bounds`` is scratch of shape (T, 2), int64.
    """
    cnt = 0
    n_tables = masks.shape[0]
    # Two passes so the tables' cache misses overlap instead of queueing one after another: the
    # directory entries of every table (and a touch of each bucket's first entry), then the scans.
    touch = np.uint64(0)
    for t in range(n_tables):
        h = np.int64(_compress(q, druns, t))
        s = np.int64(dirs[t, h])
        e = np.int64(dirs[t, h + 1])
        bounds[t, 0] = s
        bounds[t, 1] = e
        if s < e:
            touch ^= tfps[t, s]
    kk = np.uint64(k)
    for t in range(n_tables):
        mask = masks[t]
        row = tfps[t]
        for i in range(bounds[t, 0], bounds[t, 1]):
            diff = row[i] ^ q
            d = np.int64(popcount(diff))
            if d <= k and (diff & mask) == 0 and _first_table(diff, masks, t):
                ident = np.int64(tids[t, i])
                if alive[ident]:
                    if cnt < cap:
                        out[start + cnt] = (d << ID_BITS) | ident
                    cnt += 1
    if touch == np.uint64(1) and cnt < 0:  # never true: keeps the touching loads alive
        cnt = 0
    lo, hi = np.uint64(buf_start), np.uint64(buf_end)
    if lo < hi and _count_near(fps, q, lo, hi, kk):  # the buffer: a vectorized count first
        for ident in range(buf_start, buf_end):
            d = np.int64(popcount(fps[ident] ^ q))
            if d <= k and alive[ident]:
                if cnt < cap:
                    out[start + cnt] = (d << ID_BITS) | ident
                cnt += 1
    return cnt


@kernel(python=False)
def _sort_small(keys, s, e):
    """Sort ``keys[s:e]`` in place: insertion sort for the usual handful, else a heap sort (of the
    keys as uint64: they are never negative, and ``kernels.verify`` sorts uint64, so one compiled
    sort serves both; see ``kernels.sort``)."""
    if e - s > 16:
        heap_sort(keys.view(np.uint64), s, e)
    else:
        insertion_sort(keys, s, e)


@kernel
def query_one_kernel(q, k, masks, druns, dirs, tfps, tids, fps, alive, buf_start, buf_end, out):
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
    druns : array of shape (T, R, 3), uint64
        ``(shift, width, 2**width - 1)`` runs of each mask's ``r`` highest set bits, highest first
        (all-zero runs pad).
    dirs : array of shape (T, 2**r + 1), uint32
        Directory: bucket ``h`` of table ``t`` is ``tfps[t, dirs[t, h]:dirs[t, h + 1]]``.
    tfps : array of shape (T, L), uint64
        Each row sorted by its directory bits (buckets).
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
    bounds = np.empty((masks.shape[0], 2), np.int64)
    zero = np.int64(0)  # not the literal 0: the same compiled callees as query_many_kernel's
    cnt = _probe(
        np.uint64(q),
        k,
        masks,
        druns,
        dirs,
        tfps,
        tids,
        fps,
        alive,
        buf_start,
        buf_end,
        out,
        zero,
        cap,
        bounds,
    )
    if 1 < cnt <= cap:
        _sort_small(out, zero, cnt)
    return cnt


# -- many queries ----------------------------------------------------------------------------------


@kernel
def query_many_kernel(
    qs, k, masks, druns, dirs, tfps, tids, fps, alive, buf_start, buf_end, qlo, qhi, off, keys, counts
):
    """The matches of each of ``qs`` (uint64, shape (nq,)), chunk by chunk of queries (threads
    take ranges of chunks: ``qlo[a:b]``, ``qhi[a:b]``, ``off[a:b + 1]``).

    Chunk ``c`` holds queries ``qlo[c]:qhi[c]`` and writes their matches, query after query
    (each sorted by distance then id), into ``keys[off[c]:off[c + 1]]`` while room lasts; the number
    of matches of query ``i`` goes to ``counts[i]`` in every case. A chunk whose matches exceed its
    slice holds nothing useful there: the caller runs it again with room for ``sum(counts)`` of it.
    The other parameters are those of ``query_one_kernel``.
    """
    for c in range(qlo.shape[0]):
        bounds = np.empty((masks.shape[0], 2), np.int64)
        pos = off[c]
        end = off[c + 1]
        for i in range(qlo[c], qhi[c]):
            room = max(end - pos, 0)
            q = np.uint64(qs[i])
            m = _probe(
                q, k, masks, druns, dirs, tfps, tids, fps, alive, buf_start, buf_end, keys, pos, room, bounds
            )
            counts[i] = m
            if m <= room:
                if m > 1:
                    _sort_small(keys, pos, pos + m)
                pos += m
            else:
                pos = end + 1  # overflowed: count the rest only


# -- all pairs -------------------------------------------------------------------------------------


@kernel(python=False)
def _chunk_pairs(row, idrow, masks, gmask, t, k, lo, hi, out, start, cap):
    """Pairs ``(a, b)`` of table ``t`` with ``lo <= a < hi`` and ``a < b`` in ``a``'s group (equal
    ``row & gmask``), that agree on ``masks[t]``, lie within ``k`` and are reported by this table
    (see ``_first_table``).

    ``gmask`` is ``masks[t]`` for rows sorted by the whole key, or the bits of the directory for rows
    sorted only by them (a group is then a bucket, and the key is checked pair by pair). Writes the
    first ``cap`` as packed uint64 (smaller id << 32 | larger id) into ``out[start:start + cap]``;
    returns how many there are.
    """
    mask = masks[t]
    kk = np.uint64(k)
    n = np.uint64(row.shape[0])
    a = np.uint64(lo)
    hi = np.uint64(hi)
    e = a  # end of a's group, found below
    cnt = 0
    while a < hi:
        if a >= e:  # a starts a new group (or the chunk starts inside one): find its end
            key = row[a] & gmask
            e = a + np.uint64(1)
            while e < n and (row[e] & gmask) == key:
                e += np.uint64(1)
        fa = row[a]
        b0 = a + np.uint64(1)
        if b0 < e and _count_near(row, fa, b0, e, kk):
            ia = np.uint64(idrow[a])
            for b in range(b0, e):
                diff = fa ^ row[b]
                if popcount(diff) <= kk and (diff & mask) == 0 and _first_table(diff, masks, t):
                    if cnt < cap:
                        ib = np.uint64(idrow[b])
                        out[start + cnt] = (
                            (ia << np.uint64(32)) | ib if ia < ib else (ib << np.uint64(32)) | ia
                        )
                    cnt += 1
        a += np.uint64(1)
    return cnt


@kernel
def pairs_chunks_kernel(tfps, tids, masks, gmasks, t0, k, ct, lo, hi, off, out, counts):
    """Pairs of the tables ``tfps`` (global table numbers ``t0 + row``), chunk by chunk (threads
    take ranges of chunks: ``ct[a:b]``, ``lo[a:b]``, ``hi[a:b]``, ``off[a:b + 1]``, ``counts[a:b]``).

    Parameters
    ----------
    tfps : array of shape (W, L), uint64
        Row ``w`` with equal ``fp & gmasks[w]`` adjacent (sorted by it).
    tids : array of shape (W, L), uint32
    masks : array of shape (T,), uint64
        Every table's mask (the first-table rule looks at the tables before ``t0 + w``).
    gmasks : array of shape (W,), uint64
        Each row's grouping bits: its table's mask, or the directory bits (see ``_chunk_pairs``).
    t0 : int64
    k : int64
    ct, lo, hi : arrays of shape (C,), int64
        Chunk ``c`` covers positions ``a`` in ``[lo[c], hi[c])`` of row ``ct[c]``, each with its
        partners later in its group (see ``pair_chunks_kernel``).
    off : array of shape (C + 1,), int64
        Chunk ``c`` writes into ``out[off[c]:off[c + 1]]``.
    out : array, uint64
        Receives packed pairs (smaller id << 32 | larger id), unsorted.
    counts : array of shape (C,), int64
        Receives each chunk's number of pairs (more than its room: run it again with more).
    """
    for c in range(ct.shape[0]):
        w = ct[c]
        counts[c] = _chunk_pairs(
            tfps[w], tids[w], masks, gmasks[w], t0 + w, k, lo[c], hi[c], out, off[c], off[c + 1] - off[c]
        )


@kernel(python=False)
def _plan_chunks(tfps, gmasks, target, ct, lo, hi, wk, write):
    """Walk every row's groups and cut chunks of about ``target`` units; returns how many."""
    n = tfps.shape[1]
    c = 0
    for w in range(tfps.shape[0]):
        gmask = gmasks[w]
        row = tfps[w]
        start = 0
        acc = 0
        i = 0
        while i < n:
            key = row[i] & gmask
            j = i + 1
            while j < n and (row[j] & gmask) == key:
                j += 1
            size = j - i
            if acc + size * (size + 1) // 2 < target:  # the whole group fits in this chunk
                acc += size * (size + 1) // 2
            else:
                for a in range(i, j):  # position a costs its j - a - 1 comparisons, plus one
                    acc += j - a
                    if acc >= target:
                        if write:
                            ct[c], lo[c], hi[c], wk[c] = w, start, a + 1, acc
                        c += 1
                        start = a + 1
                        acc = 0
            i = j
        if start < n:
            if write:
                ct[c], lo[c], hi[c], wk[c] = w, start, n, acc
            c += 1
    return c


@kernel
def pair_chunks_kernel(tfps, gmasks, target):
    """Cut the pair work of every row of ``tfps`` into chunks of about ``target`` units.

    Position ``a`` costs ``1 + (end of its group - a - 1)`` units (one, plus its comparisons), so a
    long group is cut across several chunks and the chunks balance however the groups are spread.

    Parameters
    ----------
    tfps : array of shape (W, L), uint64
        Rows with equal ``fp & gmasks[w]`` adjacent.
    gmasks : array of shape (W,), uint64
    target : int64

    Returns
    -------
    ct, lo, hi : arrays of shape (C,), int64
        Row, first and end position of each chunk (as ``pairs_chunks_kernel`` takes them).
    work : array of shape (C,), int64
        Units of each chunk.
    """
    empty = np.empty(0, np.int64)
    c = _plan_chunks(tfps, gmasks, target, empty, empty, empty, empty, np.bool_(False))  # not literals:
    ct = np.empty(c, np.int64)
    lo = np.empty(c, np.int64)
    hi = np.empty(c, np.int64)
    wk = np.empty(c, np.int64)
    _plan_chunks(tfps, gmasks, target, ct, lo, hi, wk, np.bool_(True))  # one compiled _plan_chunks
    return ct, lo, hi, wk


@kernel
def unpack_pairs_kernel(keys, fps):
    """Packed pairs (``i << 32 | j``, uint64) to rows ``(i, j, hamming(fps[i], fps[j]))``, int64."""
    m = keys.shape[0]
    out = np.empty((m, 3), np.int64)
    for r in range(m):
        x = keys[r]
        i = x >> np.uint64(32)
        j = x & _LOW32
        out[r, 0] = i
        out[r, 1] = j
        out[r, 2] = popcount(fps[i] ^ fps[j])
    return out


# -- table maintenance -----------------------------------------------------------------------------


@kernel(python=False)
def _counting_sort(hs, shift, bits, src_f, src_i, src_h, lo, hi, dst_f, dst_i, dst_h, starts):
    """Stable counting sort of entries ``lo:hi`` by ``(hs >> shift) & (2**bits - 1)`` into the same
    positions of ``dst_*`` (``dst_h`` too unless it is empty); ``starts`` (length ``2**bits + 1``)
    receives the bucket starts."""
    size = 1 << bits
    low = np.uint32(size - 1)
    sh = np.uint32(shift)
    starts[:] = 0
    for i in range(lo, hi):
        starts[np.int64((hs[i] >> sh) & low) + 1] += 1
    starts[0] = lo
    for h in range(size):
        starts[h + 1] += starts[h]
    pos = starts[:size].copy()
    keep_h = dst_h.shape[0] > 0
    for i in range(lo, hi):
        h = np.int64((hs[i] >> sh) & low)
        p = pos[h]
        dst_f[p] = src_f[i]
        dst_i[p] = src_i[i]
        if keep_h:
            dst_h[p] = src_h[i]
        pos[h] = p + 1


@kernel(python=False)
def _build_row(fps, ids, druns, r, t, rf, ri, d, hs, th, two_pass):
    """Fill ``rf``/``ri`` with table ``t`` sorted by its ``r`` directory bits, and its directory ``d``.

    One counting sort for a small row; else (``two_pass``, and ``r > 6``) two, so that both scatter
    into few enough places (or a small enough range) to stay in cache: by the 6 highest bits into
    ``rf``/``ri``, then each of those 64 buckets, copied aside, by the rest. ``hs`` and ``th``
    (uint32, length n) are scratch. Ids stay ascending inside a bucket (the input is in ascending id
    order and both sorts are stable).
    """
    n = fps.shape[0]
    size = 1 << r
    # The literal 0s below are on purpose: _counting_sort compiled for a constant shift of 0 (and
    # start 0) sorts a row 20-25 % faster than for runtime values (measured at 1M, CPU time), worth
    # its second specialisation (the two-pass sort's first pass shifts by r2), 0.3 s of compile.
    _bucket_ids(fps, druns, t, hs)
    if r <= 6 or not two_pass:
        starts = np.empty(size + 1, np.int64)
        _counting_sort(hs, 0, r, fps, ids, hs, 0, n, rf, ri, hs[:0], starts)
        for h in range(size + 1):
            d[h] = np.uint32(starts[h])
        return
    r1 = 6
    r2 = r - r1
    s1 = np.empty((1 << r1) + 1, np.int64)
    _counting_sort(hs, r2, r1, fps, ids, hs, 0, n, rf, ri, th, s1)
    big = 0
    for g in range(1 << r1):
        big = max(big, s1[g + 1] - s1[g])
    tf = np.empty(big, np.uint64)
    ti = np.empty(big, np.uint32)
    tb = np.empty(big, np.uint32)
    s2 = np.empty((1 << r2) + 1, np.int64)
    for g in range(1 << r1):
        lo, hi = s1[g], s1[g + 1]
        m = hi - lo
        # loops, not slice assignments (whose shape check takes 1.5 s to compile), with unsigned
        # indices: as fast as the slices at 4M (signed ones were 15-20 % slower: wraparound checks)
        ulo = np.uint64(lo)
        for c in range(np.uint64(m)):
            tf[c] = rf[ulo + c]
        for c in range(np.uint64(m)):
            ti[c] = ri[ulo + c]
        for c in range(np.uint64(m)):
            tb[c] = th[ulo + c]
        _counting_sort(tb, 0, r2, tf, ti, tb, 0, m, rf[lo:hi], ri[lo:hi], tb[:0], s2)
        base = g << r2
        for h in range(1 << r2):
            d[base + h] = np.uint32(lo + s2[h])
    d[size] = np.uint32(n)


@kernel
def build_tables_kernel(fps, ids, druns, r, t0, out_f, out_i, dirs, hs, th, two_pass, first, step):
    """Build tables ``t0 + w`` for rows ``w = first, first + step, ... < W`` into ``out_f``,
    ``out_i``, ``dirs`` (``step`` threads, each with its own ``first`` and scratch, build them all).

    Parameters
    ----------
    fps : array of shape (n,), uint64
        The live fingerprints, in ascending id order.
    ids : array of shape (n,), uint32
        Their ids, ascending.
    druns : array of shape (T, R, 3), uint64
        Directory runs per table (see ``query_one_kernel``).
    r : int64
        Directory bits, 0..30.
    t0 : int64
        The first table built (all of them: 0; ``pairs()`` streams a few at a time).
    out_f : array of shape (W, n), uint64
        Receives row ``w``: table ``t0 + w``'s fingerprints sorted by its directory bits.
    out_i : array of shape (W, n), uint32
        Their ids, ascending inside each bucket.
    dirs : array of shape (W, 2**r + 1), uint32
        Receives the directories: bucket ``h`` of row ``w`` is ``[dirs[w, h], dirs[w, h + 1])``.
    hs, th : arrays of shape (n,), uint32
        Scratch for one row at a time: the rows are built round-robin by ``step`` workers, so the
        scratch (and the memory it costs) does not grow with the number of tables.
    two_pass : bool
        Sort in two counting-sort passes (large rows; ``simhash_lab.index.design.two_passes``).
    first, step : int64
        This worker's first row, and the number of workers.
    """
    for w in range(first, out_f.shape[0], step):
        _build_row(fps, ids, druns, r, t0 + w, out_f[w], out_i[w], dirs[w], hs, th, two_pass)
