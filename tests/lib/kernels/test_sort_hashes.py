"""``kernels.sort.sort_hashes`` (the per-document sort of shingle hashes) against NumPy's sort."""

from __future__ import annotations

import numpy as np
import pytest

from simhash_lab.kernels.sort import sort_hashes

SIZES = (0, 1, 2, 63, 64, 65, 100, 127, 128, 129, 1000, 4095, 4096, 4097, 6000)


def _keys(kind: str, m: int, rng) -> np.ndarray:
    a = rng.integers(0, 2**64, size=m, dtype=np.uint64)
    if kind == "repeats":  # a document that repeats its sentences: equal keys side by side
        a = a[rng.integers(0, max(m // 4, 1), size=m)] if m else a
    elif kind == "one bucket":  # top bits all equal: more than 32 keys a bucket, the fallback
        a >>= np.uint64(20)
    elif kind == "equal":
        a[:] = 7
    elif kind == "descending":
        a = np.sort(a)[::-1].copy()
    return a


@pytest.mark.parametrize("kind", ["hashes", "repeats", "one bucket", "equal", "descending"])
def test_sort_hashes_sorts_like_numpy(kind):
    rng = np.random.default_rng(11)
    for m in SIZES:
        a = _keys(kind, m, rng)
        want = np.sort(a)
        # the run is the front of a longer array and the scratch is dirty: neither may leak in
        buf = np.concatenate([a, np.full(5, 3, np.uint64)])
        tmp = np.full(m + 3, 2**63 + 1, np.uint64)
        count = np.full(2 * m + 1, -5, np.int64)
        sort_hashes(buf, tmp, count, m)
        assert np.array_equal(buf[:m], want), (kind, m)
        assert np.array_equal(buf[m:], np.full(5, 3, np.uint64)), (kind, m)
