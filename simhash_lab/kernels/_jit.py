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

One specialisation per kernel (``KernelDispatcher``): a constant at a call site (``f(b, 0, n)``)
types as ``Literal[int](0)``, and Numba would compile the callee again for it (as it did for
``xxh3_64``, ``xxh64`` and the index's ``_counting_sort``); here every argument is
typed as its plain type before the callee is compiled, so each kernel compiles once per kind of
array it takes, and LLVM folds the constant once the callee is inlined. No C callback wrapper
(``no_cfunc_wrapper``: no kernel is passed as a function pointer): one wrapper less to compile.

Inlining (``inline=True``) is LLVM's, not Numba's: the helper is compiled once, like any kernel,
and its LLVM function is marked ``alwaysinline``, so every caller inlines it in the first, cheap
pass Numba runs over the linked module, before the pass that removes the reference counting of
array arguments. The caller's code is the same as with Numba's ``inline="always"``, which inlines
at the IR level before typing: every call site (and every call site of every function that
inlined it) re-ran Numba's front end on the whole callee tree (the XXH3 code was typed again in
each of the four kernels that inlined it). A helper is compiled at LLVM ``-O1`` (``HELPER_OPT``):
its code only runs inlined into a caller, whose ``-O3`` optimises it there; ``-O1`` still drops
the references a global array's constant leaves behind, which would make the cache refuse the
entry. Nor does a helper get a CPython wrapper (``HelperDispatcher``): the tests that call one
from Python get a second entry, compiled for them. Nor machine code of its own
(``_LinkOnlyLibrary``): its optimised module is what callers link in, and nothing calls the
helper's own copy.

Numba's first compile or cache load in a process imports ``scipy.linalg`` to learn whether BLAS
is there (0.2 s); here it looks for the file instead (``_load_registries_without_scipy_linalg``).
(``benchmarks/results/2026-12-07-cold-start.md`` has the measurements.)
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable

from llvmlite import binding as ll
from numba.core import compiler, config, types
from numba.core.caching import CompileResultCacheImpl, FunctionCache, _CacheLocator
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler_lock import global_compiler_lock
from numba.core.cpu import CPUContext
from numba.core.registry import CPUDispatcher

from .._cache import KERNELS as _KERNELS
from .._cache import cache_dir

__all__ = [
    "HELPER_OPT",
    "HelperDispatcher",
    "c_address",
    "KERNEL_SOURCES",
    "MISSES",
    "KernelCache",
    "KernelDispatcher",
    "cache_dir",
    "is_cached",
    "kernel",
    "source_digest",
]

#: The files whose content decides whether a cached kernel is fresh.
KERNEL_SOURCES = (*sorted(_KERNELS.glob("*.py")), _KERNELS.parent / "_unicode.py")

#: LLVM's optimisation level for ``inline=True`` helpers (kernels: Numba's, ``NUMBA_OPT``, 3 by default).
HELPER_OPT = 1

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


class _PythonEntryLocator(_KernelLocator):
    """A helper's Python entry (``HelperDispatcher``): its own cache files beside the helper's."""

    def get_disambiguator(self):
        return f"{self._lineno}py"


class _KernelCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_KernelLocator]


class _LinkOnlyLibrary(JITCodeLibrary):
    """The code library of an ``inline=True`` helper or a ``python=False`` kernel: optimised (a
    helper at ``HELPER_OPT``) and linked into every kernel that calls it, as before, but never
    turned into machine code of its own, which nothing would run (it has no CPython wrapper and
    no C entry: a call from Python goes to its ``_python_entry``, a library of the ordinary kind).
    Numba emits machine code for every library it finalises: for the warmup's 60 helpers and 33
    such kernels, 1.8 of its 4.4 s of CPU in LLVM's code generator
    (``benchmarks/results/2026-12-07-cold-start-2.md``).

    A helper whose code uses its environment (Numba's pointer to the function's Python-level
    state, set at run time) is finalised the ordinary way, since the environment lives in the
    machine code: none does today. Cached as its optimised bitcode, which callers link
    (``serialize_using_object_code``, the kind ``"linkonly"``, read by ``_unserialize``)."""

    link_only = True

    def _finalize_final_module(self):
        if _uses_env(self._final_module):
            self.link_only = False
            return super()._finalize_final_module()
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    @property
    def codegen(self):
        return self._codegen if not self.link_only else _EnvlessCodegen(self._codegen)

    def get_pointer_to_function(self, name):
        if not self.link_only:
            return super().get_pointer_to_function(name)
        self._ensure_finalized()
        return 0

    def serialize_using_object_code(self):
        if not self.link_only:
            return super().serialize_using_object_code()
        self._ensure_finalized()
        return (self.name, "linkonly", self._get_module_for_linking().as_bitcode())

    @classmethod
    def _unserialize(cls, codegen, state):
        name, kind, data = state
        if kind != "linkonly":
            raise ValueError(f"not a link-only library: {kind!r}")
        self = cls(codegen, name)
        self._shared_module = ll.parse_bitcode(data)
        self._finalized = True
        return self


def _uses_env(module) -> bool:
    """Whether code in ``module`` reads a Numba environment (a global ``_ZN08NumbaEnv...``)."""
    return any("@_ZN08NumbaEnv" in line for line in str(module).splitlines() if not line.startswith("@"))


class _EnvlessCodegen:
    """The codegen as a link-only library shows it: its code has no environment to set (Numba
    sets one after finalising a library, and on loading it from the cache)."""

    def __init__(self, codegen):
        self._codegen = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class _HelperCompiler(compiler.Compiler):
    """Numba's pipeline, lowering into a ``_LinkOnlyLibrary``."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = _LinkOnlyLibrary(self.state.targetctx.codegen(), func.__qualname__)
            self.state.library.enable_object_caching()
        return super().compile_extra(func)


class _HelperCacheImpl(_KernelCacheImpl):
    """A helper's cache entries: a link-only library is rebuilt as ``_LinkOnlyLibrary``, one that
    was finalised the ordinary way (``_uses_env``) as Numba rebuilds any."""

    def rebuild(self, target_context, payload):
        if payload[0][1] != "linkonly":  # payload[0]: the library's (name, kind, data)
            return super().rebuild(target_context, payload)
        codegen = target_context.codegen()
        with global_compiler_lock:  # no other library is made meanwhile
            codegen._library_class = _LinkOnlyLibrary
            try:
                return super().rebuild(target_context, payload)
            finally:
                del codegen._library_class


class _PythonEntryCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_PythonEntryLocator]


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


class _PythonEntryCache(KernelCache):
    _impl_class = _PythonEntryCacheImpl


class _HelperCache(KernelCache):
    _impl_class = _HelperCacheImpl


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


class KernelDispatcher(CPUDispatcher):
    """A kernel's dispatcher: one specialisation whatever constants its callers pass, and, for a
    helper (``always_inline``), compiled at ``HELPER_OPT`` and inlined by LLVM into every caller."""

    always_inline = False
    #: this process's level for kernels, read once (``NUMBA_OPT``), restored around helpers
    _KERNEL_OPT = config.OPT

    def get_call_template(self, args, kws):
        """Typing a call from another kernel: literal argument types become plain ones."""
        args = tuple(types.unliteral(a) for a in args)
        kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def compile(self, sig):
        """Compile (or load) ``sig`` at this kernel's optimisation level. ``config.OPT`` is read
        by Numba's code generator as it optimises; it is set under the compiler lock (a compile
        in another thread waits) and put back after, so a kernel compiled while a helper is
        being typed gets its own level."""
        with global_compiler_lock:
            saved = config.OPT
            if self.always_inline:
                config.OPT = config._OptLevel(min(HELPER_OPT, self._KERNEL_OPT))
            else:
                config.OPT = self._KERNEL_OPT
            try:
                return super().compile(sig)
            finally:
                config.OPT = saved

    def add_overload(self, cres):
        super().add_overload(cres)
        if self.always_inline:  # compiled now or loaded from the cache: what callers link in
            linked = cres.library._get_module_for_linking()
            fn = linked.get_function(cres.fndesc.llvm_func_name)
            if "alwaysinline" not in {a.decode() if isinstance(a, bytes) else a for a in fn.attributes}:
                fn.add_function_attribute("alwaysinline")


class HelperDispatcher(KernelDispatcher):
    """An ``inline=True`` helper: compiled without a CPython wrapper (kernels call it, inlined; the
    wrapper's code would cost compile time in every first call that needs the helper). A call
    from Python (the tests) goes to a second dispatcher of the same function, with a wrapper and
    cache files of its own, compiled on that first call."""

    always_inline = True
    _python_entry = None

    def __call__(self, *args, **kws):
        if self._python_entry is None:
            options = dict(self.targetoptions, no_cpython_wrapper=False)
            entry = KernelDispatcher(py_func=self.py_func, locals={}, targetoptions=options)
            entry._cache = _PythonEntryCache(self.py_func)
            self._python_entry = entry
        return self._python_entry(*args, **kws)


class CalleeDispatcher(HelperDispatcher):
    """A kernel that only other kernels call (``kernel(python=False)``): as a helper, no CPython
    wrapper and no machine code of its own (its optimised module is linked into each caller, as
    any kernel's is), but compiled at the kernels' level and inlined only where LLVM chooses. A
    call from Python (the tests) goes to a second entry, as a helper's does."""

    always_inline = False


def _blas_file_exists() -> bool:
    """Whether SciPy's BLAS module (``scipy.linalg.cython_blas``) is installed, found without
    importing ``scipy.linalg``."""
    spec = importlib.util.find_spec("scipy")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            if os.path.exists(os.path.join(folder, "linalg", "cython_blas" + suffix)):
                return True
    return False


def _load_registries_without_scipy_linalg(load):
    """Numba's ``CPUContext.load_additional_registries`` with a cheaper BLAS check.

    When Numba first compiles or loads a function, it imports ``numba.np.arraymath``, whose
    ``_HAVE_BLAS = _check_blas()`` imports ``scipy.linalg.cython_blas`` to learn whether ``np.dot``
    and the like can be compiled: importing ``scipy.linalg`` took 0.2 s of a first call's CPU (a
    new process that loads every kernel from the cache, or compiles its first). No kernel here
    uses BLAS. During that import only, ``ensure_blas`` asks whether the module's file is
    installed and runs Numba's own check of its integer width; afterwards the real one is back,
    so a kernel (ours or a user's) that compiles ``np.dot`` imports SciPy's BLAS as before, and an
    installation whose file is there but does not import gets Numba's ImportError then."""

    @functools.wraps(load)
    def wrapper(self):
        if "numba.np.arraymath" in sys.modules:
            return load(self)
        from numba.np import linalg

        real = linalg.ensure_blas

        def ensure_blas():
            if not _blas_file_exists():
                raise ImportError("scipy 0.16+ is required for linear algebra")
            check = getattr(linalg, "_check_lapack_int_width", None)
            if check is not None:
                check()

        with global_compiler_lock:
            linalg.ensure_blas = ensure_blas
            try:
                return load(self)
            finally:
                linalg.ensure_blas = real
                arraymath = sys.modules.get("numba.np.arraymath")
                if getattr(arraymath, "ensure_blas", None) is ensure_blas:
                    arraymath.ensure_blas = real

    wrapper._simhash_lab = True
    return wrapper


if not getattr(CPUContext.load_additional_registries, "_simhash_lab", False):
    CPUContext.load_additional_registries = _load_registries_without_scipy_linalg(
        CPUContext.load_additional_registries
    )


def kernel(
    fn: Callable | None = None,
    *,
    nogil: bool = True,
    inline: bool = False,
    c_entry: bool = False,
    python: bool = True,
):
    """Compile ``fn`` with Numba, cached by ``KernelCache``: ``@kernel`` or ``@kernel(...)``.

    ``inline=True``: a helper that only kernels call, compiled at ``HELPER_OPT`` and inlined by
    LLVM into each caller (see the module's docstring), with no CPython wrapper and no machine
    code of its own; a call from Python (the tests) compiles a second entry that has them
    (``HelperDispatcher``).
    ``python=False``: a kernel that only other kernels call, compiled as any kernel but, like a
    helper, with no CPython wrapper and no machine code of its own (``CalleeDispatcher``); the
    library's Python code never calls it (a call would compile a second entry, which
    ``SIMHASH_LAB_ON_COMPILE=error`` after the warmup makes an error).
    ``c_entry=True``: the compiled code also gets a C entry point (``c_address``), for a kernel
    that other kernels call through its address, so that it is compiled only by the first call
    that needs it, not with every kernel that might (``vote.hash_batch``).
    """

    def wrap(f: Callable):
        if config.DISABLE_JIT:  # NUMBA_DISABLE_JIT: the plain Python function, as njit gives
            return f
        options = {"nopython": True, "nogil": nogil, "boundscheck": None, "no_cfunc_wrapper": not c_entry}
        if inline or not python:
            disp = (HelperDispatcher if inline else CalleeDispatcher)(
                py_func=f,
                locals={},
                targetoptions=dict(options, no_cpython_wrapper=True),
                pipeline_class=compiler.Compiler if c_entry else _HelperCompiler,
            )
            disp._cache = (KernelCache if c_entry else _HelperCache)(disp.py_func)
        else:
            disp = KernelDispatcher(py_func=f, locals={}, targetoptions=options)
            disp._cache = KernelCache(disp.py_func)
        return disp

    return wrap(fn) if fn is not None else wrap


def c_address(disp: KernelDispatcher, sig) -> int:
    """The address of the C entry point of ``disp`` (a ``c_entry=True`` kernel) compiled for the
    signature ``sig`` (compiled, or loaded from the cache, on first use in this process): a
    runtime value, never stored in the cache or sent to another process."""
    disp.compile(sig.args)
    cres = disp.overloads[tuple(sig.args)]
    return cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name)


def is_cached(disp: KernelDispatcher) -> bool:
    """Whether a call of ``disp`` would run without compiling: it has code in this process, or
    its cache index holds an entry stamped with today's sources (``source_digest``). A reader that
    can do without a kernel asks first, so that a small first call waits for no compile (an entry
    built for another CPU still counts: that call compiles)."""
    if getattr(disp, "overloads", None):
        return True
    try:
        return bool(disp._cache._cache_file._load_index())
    except Exception:  # no cache (NUMBA_DISABLE_JIT), an unreadable folder: it would compile
        return False
