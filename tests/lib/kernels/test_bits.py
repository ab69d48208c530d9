"""simhash_lab.kernels.bits: the popcount intrinsic is one instruction."""

import numpy as np


def test_popcount_compiles_to_popcnt():
    """The kernels' popcount is one instruction on x86-64 (``cnt`` on ARM). Compiled here without
    the cache: Numba shows no assembly for cached code. (Notebook 03 shows the same listing through
    ``simhash_lab.course.internals.hamming_asm``.)"""
    import platform

    from numba import njit

    from simhash_lab.kernels.bits import popcount

    @njit(cache=False)
    def hamming_u64(a, b):
        return popcount(a ^ b)

    hamming_u64(np.uint64(1), np.uint64(2))
    asm = next(iter(hamming_u64.inspect_asm().values()))
    assert ("popcnt" if platform.machine() in ("x86_64", "AMD64") else "cnt") in asm
