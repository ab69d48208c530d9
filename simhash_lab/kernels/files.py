"""Runs of a file's bytes copied into another by the operating system's kernel, in one compiled
call for many runs: ``copy_runs`` calls Linux's ``copy_file_range(2)`` (glibc's, by its symbol) once
a run, without the GIL.

``dedup --output`` copies the kept rows of a JSONL file as runs of consecutive kept rows: 75,711
runs for 1M rows. One ``os.copy_file_range`` a run takes the GIL back after each of them, while on
two threads the duplicates table is written beside by a Python thread: each return may wait for
that thread to let go. Here the copy holds no GIL from the first run to the last, so the table has
the other core to itself (``benchmarks/results/2026-12-07-write-overlap.md``).

``AVAILABLE``: whether the symbol was found (Linux with glibc ≥ 2.27) and Numba compiles
(``NUMBA_DISABLE_JIT`` unset: the plain Python function cannot call a C symbol); elsewhere
``copy_runs`` must not be called, and the caller copies run by run in Python.
"""

from __future__ import annotations

import ctypes

import numpy as np
from numba import types
from numba.core import config

from ._jit import kernel

__all__ = ["AVAILABLE", "COPIED", "FAILED", "SHORT", "copy_runs"]


def _symbol(name: str) -> bool:
    """Make the C library's function ``name`` known to the compiled code by its name (a name, not
    an address, is what the cached code holds); False where there is none."""
    try:
        import llvmlite.binding as ll

        address = ctypes.cast(getattr(ctypes.CDLL(None), name), ctypes.c_void_p).value
    except (OSError, AttributeError, TypeError):
        return False
    if not address:
        return False
    ll.add_symbol(name, address)
    return True


AVAILABLE = not config.DISABLE_JIT and _symbol("copy_file_range")

# ssize_t copy_file_range(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out, size_t len,
# unsigned flags): the offsets passed as their addresses (intp: a pointer's bits), the length and
# the flags as the signed integers of their widths (the same bits)
_copy_file_range = types.ExternalFunction(
    "copy_file_range", types.int64(types.int32, types.intp, types.int32, types.intp, types.int64, types.int32)
)

#: ``copy_runs``' status: the runs asked for copied; a call failed (``pos``: where); the source
#: ended before a run did (``pos``: where)
COPIED, FAILED, SHORT = 0, -1, 1


@kernel
def copy_runs(
    src: int, dst: int, run_s: np.ndarray, run_e: np.ndarray, at: np.ndarray, lo: int, hi: int, upto: int,
    pos: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Copy the runs ``lo`` to ``hi`` (excluded) of file descriptor ``src``'s bytes, run ``i`` being
    ``[run_s[i], run_e[i])``, to ``dst`` at ``at[i]``, in order, stopping before the first run
    that starts at or past ``upto`` in ``dst``; ``pos`` (int64[2], scratch): the source's and the
    output's offsets the calls move on.

    Returns ``(i, status)``: ``i`` the first run not wholly copied; ``status`` :data:`COPIED` (the
    runs before ``i`` copied, ``i`` is ``hi`` or the run at ``upto``), :data:`FAILED` (a call
    failed in run ``i``: its bytes before ``pos[0]`` are at ``pos[1]``; the caller makes the call
    again to learn why) or :data:`SHORT` (the source ended at ``pos[0]``, inside run ``i``).
    """
    p = pos.ctypes.data
    for i in range(lo, hi):
        if at[i] >= upto:
            return i, COPIED
        pos[0] = run_s[i]
        pos[1] = at[i]
        while pos[0] < run_e[i]:
            got = _copy_file_range(src, p, dst, p + 8, run_e[i] - pos[0], 0)
            if got < 0:
                return i, FAILED
            if got == 0:
                return i, SHORT
    return hi, COPIED
