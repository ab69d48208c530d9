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
