"""How kernels are compiled: one body, a parallel and a serial twin, each with its own cache entry.

Numba's on-disk cache names its files after the function's qualified name and first line, and its
index key holds the signature and the target machine but not the ``parallel`` flag. Two ``njit``
wrappers of the *same* function object therefore share one cache entry, and whichever compiled
first on a cold cache is what both load afterwards: the parallel entry point could run serially.
``twins`` gives each its own function object and qualified name (``<name>_parallel``,
``<name>_serial``), so each has its own cache files.
"""

from __future__ import annotations

import types
from collections.abc import Callable

from numba import njit

__all__ = ["twins"]


def _clone(fn: Callable, suffix: str) -> Callable:
    out = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__
    )
    out.__qualname__ = fn.__qualname__ + suffix
    out.__doc__ = fn.__doc__
    out.__module__ = fn.__module__
    return out


def twins(impl: Callable) -> tuple[Callable, Callable]:
    """(parallel, serial) compiled kernels of one body written with ``prange``.

    Both are ``cache=True, nogil=True``; in the serial twin ``prange`` is a plain ``range``.
    """
    parallel = njit(cache=True, nogil=True, parallel=True)(_clone(impl, "_parallel"))
    serial = njit(cache=True, nogil=True)(_clone(impl, "_serial"))
    return parallel, serial
