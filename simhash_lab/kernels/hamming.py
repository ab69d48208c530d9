"""Hamming distance kernels: ``popcount(a ^ b)`` over scalars, arrays and pairs, and the
early-exit ``is_near`` (Kernighan's loop, the seed's ``isEqual``).

No ``@vectorize`` ufunc: an eagerly compiled ufunc is built when its module is imported (0.3 s
even from the cache); ``simhash_lab.hamming`` broadcasts with NumPy and counts with these."""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import popcount

__all__ = [
    "hamming_scalar_kernel",
    "is_near_kernel",
    "popcount_kernel",
    "popcount_kernighan",
]


@kernel(python=False)
def popcount_kernighan(x, limit):
    """Count set bits with Kernighan's ``x &= x - 1``, stopping once the count exceeds ``limit``.

    Returns the exact popcount when it is <= ``limit``, else ``limit + 1``. This is the seed's
    ``isEqual`` loop (source 004): at most ``limit + 1`` iterations whatever the popcount.
    """
    x = np.uint64(x)
    count = 0
    while x != 0 and count <= limit:
        x &= x - np.uint64(1)
        count += 1
    return count


@kernel
def is_near_kernel(a, b, k):
    return popcount_kernighan(np.uint64(a) ^ np.uint64(b), k) <= k


@kernel
def hamming_scalar_kernel(fps, q, out):
    """out[i] = popcount(fps[i] ^ q); fps uint64 (n,), out uint8 (n,). (Long arrays: ranges of
    them in threads, from ``simhash_lab.hamming.PARALLEL_MIN``.)"""
    for i in range(fps.shape[0]):
        out[i] = np.uint8(popcount(fps[i] ^ q))


@kernel
def popcount_kernel(x, out):
    """out[i] = popcount(x[i]); x uint64 (n,), out uint8 (n,) (``hamming`` of broadcast arrays
    passes their XOR)."""
    for i in range(x.shape[0]):
        out[i] = np.uint8(popcount(x[i]))
