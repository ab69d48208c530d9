"""The in-place sorts of ``kernels.sort`` against NumPy's, on every size class and awkward keys."""

from __future__ import annotations

import numpy as np
import pytest

from simhash_lab.kernels.sort import heap_sort, sort_u64


def _cases():
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 3, 17, 64, 100, 1000, 5000):
        yield rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)  # hashes
        yield rng.integers(0, 5, n).astype(np.uint64)  # many repeats
        yield np.arange(n, dtype=np.uint64)[::-1].copy()  # reversed
        yield (rng.integers(0, 50, n).astype(np.uint64) << np.uint64(40)) | np.arange(n, dtype=np.uint64)


@pytest.mark.parametrize("i", range(36))
def test_heap_sort_and_sort_u64_sort_like_numpy(i):
    a = list(_cases())[i]
    want = np.sort(a)
    h = a.copy()
    heap_sort(h, 0, h.shape[0])
    assert np.array_equal(h, want)
    r = a.copy()
    sort_u64(r, np.empty(r.shape[0], np.uint64), r.shape[0])
    assert np.array_equal(r, want)
    if a.shape[0] > 4:  # a part of the array only: the rest untouched
        p = a.copy()
        heap_sort(p, 2, p.shape[0] - 1)
        assert np.array_equal(p[2:-1], np.sort(a[2:-1]))
        assert p[0] == a[0] and p[1] == a[1] and p[-1] == a[-1]


def test_sort_sorts():
    """Every path: insertion (< 64), buckets (64..4096; a bucket of > 32 keys heap-sorted: the
    "low" and "equal" keys), radix (> 4096)."""
    from simhash_lab.kernels.verify import sort_u64

    rng = np.random.default_rng(5)
    for m in (0, 1, 5, 63, 64, 65, 127, 128, 129, 2048, 2049, 4096, 4097, 5000):
        for kind in ("random", "low", "equal"):
            a = rng.integers(0, 2**64, size=m, dtype=np.uint64)
            if kind == "low":
                a = a % np.uint64(300)  # the high bytes equal: passes skipped
            elif kind == "equal":
                a[:] = 7
            want = np.sort(a)
            sort_u64(a, np.empty(m, np.uint64), m)
            assert np.array_equal(a, want)
