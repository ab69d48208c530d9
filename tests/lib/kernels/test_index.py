"""The kernels of the block index (simhash_lab.kernels.index) called directly: the pair chunks' plan.
The index's answers through these kernels are tested against brute force in tests/lib/index/."""

from __future__ import annotations

import numpy as np

import simhash_lab.kernels.index as kernels


def test_pair_chunks_cover_every_position_once_and_split_long_groups():
    row = np.sort(np.concatenate([np.full(5000, 7, np.uint64), np.arange(100, 3100, dtype=np.uint64)]))
    rows = np.stack([row, row[::-1].copy()])
    gm = np.array([2**64 - 1, 0], np.uint64)  # row 0: groups of equal values; row 1: one group
    ct, lo, hi, work = kernels.pair_chunks_kernel(rows, gm, 100_000)
    for w in (0, 1):
        sel = ct == w
        assert lo[sel][0] == 0 and hi[sel][-1] == rows.shape[1]
        np.testing.assert_array_equal(lo[sel][1:], hi[sel][:-1])
    n0 = 5000
    assert work.sum() == (n0 * (n0 + 1) // 2 + 3000) + (8000 * 8001 // 2)
    assert (ct == 0).sum() >= n0 * (n0 + 1) // 2 // (100_000 + n0)  # the long group is cut up
    assert work.max() <= 100_000 + 8000
