"""Sorting uint64 keys in place: insertion sort, heap sort, and ``sort_u64`` for hashes.

Not Numba's ``np.sort``: its quicksort compiles (partition, insertion sort, the driver) for each
dtype it meets, about 1.5 s from an empty cache, for sorts that run on a few keys or rarely; a heap
sort is a dozen lines, O(m log m) in the worst case, and compiles in a fraction of that. The index
sorts its int64 query keys (never negative) as uint64 through a view, so one compiled sort serves
both.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel

__all__ = ["heap_sort", "insertion_sort", "sort_hashes", "sort_u64"]

_U64 = np.uint64


@kernel(python=False)
def heap_sort(a, s, e):
    """Sort ``a[s:e]`` in place: a binary max-heap, then the largest moved to the end, repeatedly."""
    n = e - s
    for root in range(n // 2 - 1, -1, -1):
        _sift_down(a, s, root, n)
    for end in range(n - 1, 0, -1):
        x = a[s]
        a[s] = a[s + end]
        a[s + end] = x
        _sift_down(a, s, 0, end)


@kernel(inline=True)
def _sift_down(a, s, root, n):
    """Move ``a[s + root]`` down the heap ``a[s:s + n]`` to where both its children are smaller."""
    x = a[s + root]
    i = root
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and a[s + c + 1] > a[s + c]:
            c += 1
        if a[s + c] <= x:
            break
        a[s + i] = a[s + c]
        i = c
    a[s + i] = x


@kernel(inline=True)
def insertion_sort(a, s, e):
    """Sort ``a[s:e]`` in place by insertion (a few keys: no call, no scratch)."""
    for i in range(s + 1, e):
        x = a[i]
        j = i - 1
        while j >= s and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@kernel(inline=True)
def _buckets_then_insertion(a, tmp, count, m, bits):
    """Sort ``a[:m]`` (64 <= m, hashes) with ``2**bits`` buckets on the top bits (``count``: room
    for ``2**bits + 1``): counted, scattered into ``tmp``, then copied back through one insertion
    sort of the whole run, which only moves a key past the keys of its own bucket (0.5 to 1 a
    bucket on average); a key not below the one before it (most) is stored at once, with the
    largest so far in a register, not read back from ``a``. Returns False, with ``a`` untouched,
    when a bucket holds more than 32 keys (repeated or non-hash keys): insertion would be
    quadratic there."""
    sh = _U64(64 - bits)
    nb = 1 << bits
    for b in range(nb + 1):
        count[b] = 0
    for i in range(m):
        count[np.int64(a[i] >> sh) + 1] += 1
    most = np.int64(0)
    for b in range(nb):
        most = max(most, count[b + 1])
        count[b + 1] += count[b]
    if most > 32:
        return False
    for i in range(m):
        x = a[i]
        b = np.int64(x >> sh)
        tmp[count[b]] = x
        count[b] += 1
    top = tmp[0]
    a[0] = top
    for i in range(1, m):
        x = tmp[i]
        if x >= top:
            a[i] = x
            top = x
        else:  # x goes before a[i - 1] (= top, which stays the largest)
            j = i
            while j > 0 and a[j - 1] > x:
                a[j] = a[j - 1]
                j -= 1
            a[j] = x
    return True


@kernel(python=False)
def sort_hashes(a, tmp, count, m):
    """Sort ``a[:m]`` in place, keys that are hashes (uniform over 64 bits) expected: ``tmp``
    (uint64, >= m keys) and ``count`` (int64, >= 2 m + 1 entries) are the caller's scratch, so a
    loop over many short runs (the shingles of each document) allocates nothing.

    64 to 4096 keys: buckets on the top ``floor(log2 m) + 1`` bits (0.5 to 1 key each),
    scattered, then one insertion sort over the run as it is copied back
    (``_buckets_then_insertion``; measured at 98 keys: 6.7 ns a key, 8.1 with half as many
    buckets, 9.0 without the register for the largest key, against 17.9 for ``sort_u64``); a
    bucket of more than 32 keys sends the run to ``sort_u64`` (heap-sorted buckets, O(m log m)).
    Fewer keys: insertion sort; more: ``sort_u64``'s radix sort."""
    if m < 64:
        insertion_sort(a, 0, m)
        return
    if m <= 4096:
        bits = 1
        while (2 << bits) <= 2 * m:
            bits += 1
        if _buckets_then_insertion(a, tmp, count, m, bits):
            return
    sort_u64(a, tmp, m)


@kernel(python=False)
def sort_u64(a, tmp, m):
    """Sort ``a[:m]`` in place (``tmp``: scratch of >= m keys when m >= 64).

    The keys are hashes (XXH3 of shingles), spread evenly over 64 bits, so below 4096 keys one
    bucket pass on their top bits (about 4 to 8 keys a bucket, scattered into ``tmp``) then an
    insertion sort of each bucket as it is copied back sorts them in about 13 ns a key, where
    Numba's quicksort took 35 (measured at 500 to 1500 keys, the size of most documents). A bucket
    that gets more than 32 keys (repeated shingles, or keys that are not hashes) is heap-sorted
    instead, so the worst case stays O(m log m). Above 4096 keys an LSD radix sort on
    bytes (eight passes of 256 counters, 10-11 ns a key there), skipping the passes where every key
    has the same byte; below 64, insertion sort alone."""
    if m < 64:
        insertion_sort(a, 0, m)
        return
    if m <= 4096:
        bits = 0
        while (2 << bits) <= m:
            bits += 1
        bits -= 2  # 2**bits buckets: 4 to 8 keys each
        sh = _U64(64 - bits)
        count = np.zeros(1 << bits, dtype=np.int64)
        for i in range(m):
            count[np.int64(a[i] >> sh)] += 1
        total = 0
        for b in range(1 << bits):
            c = count[b]
            count[b] = total
            total += c
        for i in range(m):
            b = np.int64(a[i] >> sh)
            tmp[count[b]] = a[i]
            count[b] += 1
        s = np.int64(0)  # bucket b is tmp[s:count[b]] now (not the literal 0: one compiled heap_sort)
        for b in range(1 << bits):
            e = count[b]
            for i in range(s, e):
                a[i] = tmp[i]
            if e - s <= 32:
                insertion_sort(a, s, e)
            else:
                heap_sort(a, s, e)
            s = e
        return
    count = np.empty(256, dtype=np.int64)
    src = a
    dst = tmp
    in_tmp = False
    for shift in range(0, 64, 8):
        sh = _U64(shift)
        count[:] = 0
        for i in range(m):
            count[np.int64((src[i] >> sh) & _U64(0xFF))] += 1
        if count[np.int64((src[0] >> sh) & _U64(0xFF))] == m:
            continue  # one bucket: this byte is the same in every key
        total = 0
        for b in range(256):
            c = count[b]
            count[b] = total
            total += c
        for i in range(m):
            b = np.int64((src[i] >> sh) & _U64(0xFF))
            dst[count[b]] = src[i]
            count[b] += 1
        src, dst = dst, src
        in_tmp = not in_tmp
    if in_tmp:
        for i in range(m):
            a[i] = src[i]
