"""Hamming distance: XOR, then count the ones (one ``popcnt`` instruction per 64-bit word).

>>> hamming(0b1001, 0b1010)
2
>>> a = np.array([0b100111, 0b1011101], dtype=np.uint64)
>>> hamming(a, np.array([0b101010, 0b1001001], dtype=np.uint64))
array([3, 2], dtype=uint8)
>>> is_near(0b1011101, 0b1001001, k=2)
True
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ._threads import run_items
from ._validate import as_fingerprints, check_int

__all__ = ["hamming", "is_near", "popcount"]

#: a fingerprint or fingerprints: an int in 0..2**64-1, or anything NumPy reads as such ints
Fingerprints = int | np.integer | npt.ArrayLike
#: a distance or popcount: an int for ints, a uint8 array (or NumPy scalar) for arrays
Counts = int | np.integer | npt.NDArray[np.uint8]

PARALLEL_MIN = 1 << 16  # below this, threads cost more than they save


def _kernels():
    """The Numba kernels, loaded on first use: ``import simhash_lab`` stays free of Numba."""
    from .kernels import hamming

    return hamming


def popcount(x: Fingerprints) -> Counts:
    """Number of set bits.

    Parameters
    ----------
    x : int or array_like of non-negative ints (< 2**64)

    Returns
    -------
    int for an int; for an array, a uint8 array of the same shape.
    """
    x = as_fingerprints(x, "x")
    if isinstance(x, int):
        return x.bit_count()
    return hamming(x, 0)


def hamming(a: Fingerprints, b: Fingerprints) -> Counts:
    """Hamming distance ``popcount(a ^ b)``.

    Parameters
    ----------
    a, b : int or array_like of non-negative ints (< 2**64)
        Two ints give an int. Arrays broadcast like NumPy; the result is a uint8 array (the same
        dtype as ``np.bitwise_count``), since a distance is at most 64.

    Returns
    -------
    int for two ints; otherwise a uint8 array of the broadcast shape (a NumPy scalar for 0-d input).
    """
    a = as_fingerprints(a, "a")
    b = as_fingerprints(b, "b")
    if isinstance(a, int) and isinstance(b, int):
        return (a ^ b).bit_count()
    if isinstance(a, int) or (isinstance(a, np.ndarray) and a.ndim == 0):
        a, b = b, a
    k = _kernels()
    if isinstance(b, int) or b.ndim == 0:
        shape = np.shape(a)
        flat = np.ascontiguousarray(a).reshape(-1).view()
        flat.flags.writeable = False  # read-only or not, the kernel sees one type: compiled once
        out = np.empty(flat.size, dtype=np.uint8)
        q = np.uint64(int(b))
        run = lambda lo, hi: k.hamming_scalar_kernel(flat[lo:hi], q, out[lo:hi])  # noqa: E731
        run_items(flat.size, run, flat.size >= PARALLEL_MIN)
        out = out.reshape(shape)
    else:
        x = np.ascontiguousarray(np.bitwise_xor(a, b))  # broadcasting, as NumPy does
        out = np.empty(x.shape, dtype=np.uint8)
        k.popcount_kernel(x.reshape(-1), out.reshape(-1))
    return out[()] if out.ndim == 0 else out  # 0-d in, a NumPy scalar out (as a ufunc gives)


def is_near(a: int, b: int, k: int = 3) -> bool:
    """``hamming(a, b) <= k``, stopping as soon as ``k + 1`` differing bits are found.

    The seed's ``isEqual`` (source 004): Kernighan's ``x &= x - 1`` clears one set bit per step, so it
    takes at most ``k + 1`` steps however far apart ``a`` and ``b`` are.

    Parameters
    ----------
    a, b : int
        Two fingerprints, 0 <= a, b < 2**64.
    k : int
        The largest distance that counts as near, 0..64.

    Returns
    -------
    bool
    """
    a = as_fingerprints(a, "a")
    b = as_fingerprints(b, "b")
    k = check_int("k", k, 0, 64)
    if not (isinstance(a, int) and isinstance(b, int)):
        raise TypeError("is_near takes two int fingerprints; use hamming(a, b) <= k for arrays")
    return bool(_kernels().is_near_kernel(np.uint64(a), np.uint64(b), k))
