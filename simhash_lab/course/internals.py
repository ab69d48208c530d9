"""A look inside the library, public for the course: the compiled vote loop, the machine code of a
Hamming distance, and the two allocation patterns notebook 02 compares.

The notebooks import these instead of the library's private kernels (``simhash_lab.kernels``),
whose names and signatures may change. The kernels here are compiled once and cached like the
library's (``simhash-lab warmup`` compiles them); :func:`hamming_asm` is the exception, see there.

>>> import numpy as np
>>> from simhash_lab.course import internals
>>> hs = np.array([0b0011, 0b0101, 0b0111], dtype=np.uint64)  # the session's "rust safe fast"
>>> internals.vote_counts(hs)[:4]  # S[i]: how many hashes have bit i set
array([3, 2, 2, 0])
>>> (2 * internals.vote_counts(hs) - len(hs))[:4]  # V[i] = S[i] - (n - S[i])
array([ 3,  1,  1, -3])
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["vote_counts", "vote_alloc_once", "vote_alloc_per_token", "hamming_asm"]


def _hashes(hashes) -> np.ndarray:
    """``hashes`` as a contiguous 1-D uint64 array, or a ValueError/TypeError naming it."""
    arr = np.asarray(hashes)
    if arr.ndim != 1:
        raise ValueError(f"hashes must be one-dimensional, got shape {arr.shape}")
    if arr.dtype != np.uint64:
        if arr.size and arr.dtype.kind not in "ui":
            raise TypeError(f"hashes must be unsigned 64-bit integers, got dtype {arr.dtype}")
        if arr.size and arr.dtype.kind == "i" and arr.min() < 0:
            raise ValueError("hashes must be non-negative")
        arr = arr.astype(np.uint64)
    return np.ascontiguousarray(arr)


def vote_counts(hashes) -> np.ndarray:
    """``S[i]`` = how many of ``hashes`` have bit i set, with the library's compiled vote loop.

    This is the loop every fingerprint runs (unit weights): the accumulators of the session are
    ``V[i] = 2 * S[i] - len(hashes)``. It counts eight bits per addition (SWAR, *SIMD within a
    register*: one 64-bit add does eight independent byte-sized adds).

    Parameters
    ----------
    hashes : array_like of shape (n,), uint64

    Returns
    -------
    ndarray of shape (64,), int64
    """
    from ..kernels.vote import vote_unit

    hs = _hashes(hashes)
    return np.asarray(vote_unit(hs, hs.shape[0])).astype(np.int64)


@njit(cache=True, nogil=True)
def vote_alloc_once(hashes):
    """The 64 accumulators of ``hashes`` (uint64 (n,)), with one scratch array per call: the
    session's ``[i64; 64]``. Returns int64 (64,) ``V``."""
    v = np.zeros(64, np.int64)
    step = np.empty(64, np.int64)  # one allocation per call
    for hh in hashes:
        for b in range(64):
            step[b] = 1 if (hh >> np.uint64(b)) & np.uint64(1) else -1
        v += step
    return v


@njit(cache=True, nogil=True)
def vote_alloc_per_token(hashes):
    """The same as :func:`vote_alloc_once`, with the junior mistake: the scratch array is
    allocated (and freed) again for every token."""
    v = np.zeros(64, np.int64)
    for hh in hashes:
        step = np.empty(64, np.int64)  # malloc and free for every token
        for b in range(64):
            step[b] = 1 if (hh >> np.uint64(b)) & np.uint64(1) else -1
        v += step
    return v


def hamming_asm(full: bool = False) -> str:
    """The x86-64 (or other host) assembly Numba generates for ``popcount(a ^ b)`` on two uint64.

    The function is compiled here, fresh (about a second), because Numba cannot show the assembly
    of code it loaded from its cache. By default only the instructions of the compiled function
    itself are returned (label, directives and the CPython wrapper left out); ``full=True`` gives
    Numba's whole listing.
    """
    from ..kernels.bits import popcount

    @njit(cache=False)
    def hamming_u64(a, b):
        return popcount(a ^ b)

    hamming_u64(np.uint64(1), np.uint64(2))
    asm = next(iter(hamming_u64.inspect_asm().values()))
    if full:
        return asm
    lines, inside = [], False
    for line in asm.splitlines():
        s = line.strip()
        if not inside:
            inside = s.endswith(":") and "hamming_u64" in s and "cpython" not in s and not s.startswith(".")
            continue
        if s.startswith(".Lfunc_end"):
            break
        if s and not s.startswith((".", "#")):
            lines.append(s)
    return "\n".join(lines)
