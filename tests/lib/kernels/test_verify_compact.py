"""``kernels.verify.compact_sets``: the sets left with gaps in a scratch, moved down in place, are
the CSR arrays ``pack_sets`` copies out."""

from __future__ import annotations

import numpy as np

from simhash_lab.kernels.verify import compact_sets, pack_sets


def test_compact_sets_equals_pack_sets():
    rng = np.random.default_rng(2)
    for nd in (0, 1, 5, 200):
        counts = rng.integers(0, 9, nd)
        counts[::7] = 0  # empty sets among them
        gaps = rng.integers(0, 4, nd) * (rng.random(nd) < 0.5)  # ranges start further on
        at = np.zeros(nd, np.int64)
        w = 0
        for d in range(nd):
            w += int(gaps[d])
            at[d] = w
            w += int(counts[d])
        scratch = rng.integers(0, 2**64, w + 3, dtype=np.uint64)
        want_ptr, want = pack_sets(scratch, at, counts)
        ptr = compact_sets(scratch, at, counts)
        assert np.array_equal(ptr, want_ptr)
        assert np.array_equal(scratch[: ptr[-1]], want)
