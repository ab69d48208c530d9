"""Bit-level Numba kernels: the one popcount primitive and the Hamming kernels built on it.

Decorator policy for the whole package (see also ``_pipeline.py``):

* serial kernels: ``@njit(cache=True, nogil=True)``;
* parallel kernels: ``@njit(cache=True, nogil=True, parallel=True)``, written with ``prange`` over
  independent rows that each write their own ``out[i]``;
* kernels never raise user-facing errors: the Python layer validates first.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types, vectorize
from numba.extending import intrinsic

__all__ = [
    "popcount",
    "cttz",
    "popcount_kernighan",
    "hamming_scalar_kernel",
    "hamming_pairwise_kernel",
    "hamming_ufunc",
    "is_near_kernel",
    "hamming_asm",
]


def _u64_intrinsic(llvm_name: str, zero_is_poison: bool | None = None):
    """Numba intrinsic: LLVM's bit-counting ``llvm_name`` on a uint64, one instruction on x86-64
    (``llvm.ctpop``: ``popcnt``; ``llvm.cttz``: ``tzcnt``, which gives 64 for 0)."""
    i64 = ir.IntType(64)

    def count(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            if zero_is_poison is None:
                fn = builder.module.declare_intrinsic(llvm_name, [i64])
                return builder.call(fn, [args[0]])
            fn = builder.module.declare_intrinsic(llvm_name, [i64],
                                                  ir.FunctionType(i64, [i64, ir.IntType(1)]))
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), int(zero_is_poison))])

        return types.uint64(types.uint64), codegen

    count.__name__ = count.__qualname__ = f"_{llvm_name.removeprefix('llvm.')}_u64"
    return intrinsic(count)


_ctpop_u64 = _u64_intrinsic("llvm.ctpop")
_cttz_u64 = _u64_intrinsic("llvm.cttz", zero_is_poison=False)


@njit(cache=True, nogil=True, inline="always")
def popcount(x):
    """Number of set bits of a uint64 (the POPCNT primitive every Hamming kernel uses)."""
    return _ctpop_u64(np.uint64(x))


@njit(cache=True, nogil=True, inline="always")
def cttz(x):
    """Trailing zero bits of a uint64 (64 for 0)."""
    return _cttz_u64(np.uint64(x))


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def is_near_kernel(a, b, k):
    return popcount_kernighan(np.uint64(a) ^ np.uint64(b), k) <= k


@njit(cache=True, nogil=True, parallel=True)
def hamming_scalar_kernel(fps, q, out):
    """out[i] = popcount(fps[i] ^ q); fps uint64 (n,), out uint8 (n,)."""
    for i in prange(fps.shape[0]):
        out[i] = np.uint8(popcount(fps[i] ^ q))


@njit(cache=True, nogil=True, parallel=True)
def hamming_pairwise_kernel(a, b, out):
    """out[i, j] = popcount(a[i] ^ b[j]); a (n,), b (m,) uint64, out uint8 (n, m)."""
    for i in prange(a.shape[0]):
        ai = a[i]
        for j in range(b.shape[0]):
            out[i, j] = np.uint8(popcount(ai ^ b[j]))


@vectorize(["uint8(uint64, uint64)"], cache=True, nopython=True)
def hamming_ufunc(a, b):
    """A NumPy ufunc: broadcasting Hamming distance of uint64 arrays, uint8 result."""
    return np.uint8(popcount(a ^ b))


def hamming_asm() -> str:
    """The machine code of a freshly compiled scalar ``popcount(a ^ b)``, to show the ``popcnt``.

    Compiled here without the on-disk cache, since Numba cannot show the assembly of cached code.
    """

    @njit(cache=False)
    def hamming_u64(a, b):
        return popcount(a ^ b)

    hamming_u64(np.uint64(1), np.uint64(2))
    return next(iter(hamming_u64.inspect_asm().values()))
