"""Hamming distance kernels: ``popcount(a ^ b)`` over scalars, arrays and pairs, and the
early-exit ``is_near`` (Kernighan's loop, the seed's ``isEqual``).

No ``@vectorize`` ufunc: an eagerly compiled ufunc is built when its module is imported (0.3 s
even from the cache); ``simhash_lab.hamming`` broadcasts with NumPy and counts with these."""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import kernel, twins
from .bits import popcount

__all__ = [
    "hamming_pairwise_kernel",
    "hamming_scalar_kernel",
    "hamming_scalar_serial",
    "is_near_kernel",
    "popcount_kernel",
    "popcount_kernighan",
]


@kernel
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


def _hamming_scalar_impl(fps, q, out):
    """out[i] = popcount(fps[i] ^ q); fps uint64 (n,), out uint8 (n,)."""
    for i in prange(fps.shape[0]):
        out[i] = np.uint8(popcount(fps[i] ^ q))


# one body, compiled twice (each with its own cache entry): threads for long arrays, and a serial
# twin below ``simhash_lab.hamming._PARALLEL_MIN``
hamming_scalar_kernel, hamming_scalar_serial = twins(_hamming_scalar_impl)


@kernel
def popcount_kernel(x, out):
    """out[i] = popcount(x[i]); x uint64 (n,), out uint8 (n,) (``hamming`` of broadcast arrays
    passes their XOR)."""
    for i in range(x.shape[0]):
        out[i] = np.uint8(popcount(x[i]))


@kernel(parallel=True)
def hamming_pairwise_kernel(a, b, out):
    """out[i, j] = popcount(a[i] ^ b[j]); a (n,), b (m,) uint64, out uint8 (n, m)."""
    for i in prange(a.shape[0]):
        ai = a[i]
        for j in range(b.shape[0]):
            out[i, j] = np.uint8(popcount(ai ^ b[j]))
