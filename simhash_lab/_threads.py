"""Several cores for one call: a compiled serial kernel run over ranges of its input in threads.

Every kernel is compiled with ``nogil=True`` and written over a range of independent items
(documents, queries, chunks, tables) that each write their own output slots, so the same compiled
code serves one thread and many: :func:`run_ranges` cuts ``[0, n)`` into ranges and calls the kernel
on them from a pool of threads (the calling thread works too), each call outside the GIL.

Why not Numba's ``parallel=True``: a ``prange`` loop is compiled a second time (Numba lowers its body
into a gufunc, then LLVM optimizes everything the body calls once in that gufunc and again in the
function that launches it), so each parallel kernel beside its serial form cost 3-6 s more of
compile from an empty cache, half of ``simhash-lab warmup`` on two cores. Threads over the serial
kernel run as fast on large batches (``benchmarks/bench_fingerprint.py``,
``benchmarks/bench_index.py``) and compile nothing more.

The number of threads is Numba's: ``numba.set_num_threads`` (per calling thread) or
``NUMBA_NUM_THREADS``, as with ``prange``. Ranges are handed out one at a time, so a slow range
(long documents, a dense bucket) does not hold back the others.

>>> import numpy as np
>>> out = np.zeros(10, dtype=np.int64)
>>> def body(lo, hi):
...     out[lo:hi] = np.arange(lo, hi) ** 2
>>> run_ranges(body, 10, threads=2, size=3)
>>> out.tolist()
[0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

__all__ = ["one_thread", "run_items", "run_ranges", "short_switches", "small_pages", "thread_count"]

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_local = threading.local()  # ``alone``: this thread's calls run on it alone (:func:`one_thread`)
_switch_users = 0  # calls within :func:`short_switches`
_switch_before = 0.0
_pages_users = 0  # calls within :func:`small_pages`
_pages_before = True


def thread_count() -> int:
    """How many threads a parallel call uses: ``numba.get_num_threads()`` of the calling thread.

    Asking Numba starts its threading layer's pool, which no kernel here uses, so until something
    has started it (``numba.set_num_threads`` does) the answer is Numba's default,
    ``NUMBA_NUM_THREADS``."""
    if getattr(_local, "alone", False):
        return 1
    import numba
    from numba.np.ufunc import parallel

    if getattr(parallel, "_is_initialized", True):
        return max(1, numba.get_num_threads())
    return max(1, numba.config.NUMBA_NUM_THREADS)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Within it, this thread's parallel calls run on this thread alone (:func:`thread_count` is 1
    here, for this thread only): for a caller that already spreads whole pieces of work over
    threads of its own (``dedup``'s chunks), where splitting each piece again would only add
    hand-offs.

    >>> with one_thread():
    ...     thread_count()
    1
    """
    before = getattr(_local, "alone", False)
    _local.alone = True
    try:
        yield
    finally:
        _local.alone = before


#: The GIL's switch interval while threads share it closely (:func:`short_switches`), seconds.
SHORT_SWITCH = 0.0005


@contextlib.contextmanager
def short_switches() -> Iterator[None]:
    """Within it, the interpreter's switch interval (:func:`sys.setswitchinterval`) is
    :data:`SHORT_SWITCH`, then back to what it was once the last such call ends.

    A thread that keeps the GIL busy (parsing JSON, say) holds it until another has waited a whole
    interval (5 ms by default), and a kernel's thread needs it back after every compiled call:
    ``dedup``'s chunk threads waited for it longer than they worked (1M JSONL rows on two
    threads: the reading and fingerprinting took 7.0 s of wall with 5 ms, 3.4 s with 0.5 ms).

    >>> import sys
    >>> before = sys.getswitchinterval()
    >>> with short_switches():
    ...     sys.getswitchinterval() == SHORT_SWITCH
    True
    >>> sys.getswitchinterval() == before
    True
    """
    import sys

    global _switch_users, _switch_before
    with _lock:
        if _switch_users == 0:
            _switch_before = sys.getswitchinterval()
            sys.setswitchinterval(min(SHORT_SWITCH, _switch_before))
        _switch_users += 1
    try:
        yield
    finally:
        with _lock:
            _switch_users -= 1
            if _switch_users == 0:
                sys.setswitchinterval(_switch_before)


@contextlib.contextmanager
def small_pages() -> Iterator[None]:
    """Within it, NumPy does not ask the kernel for transparent huge pages for its large arrays
    (``madvise(MADV_HUGEPAGE)``, what ``NUMPY_MADVISE_HUGEPAGE=0`` turns off), then asks again
    as before once the last such call ends.

    A run that makes a fresh array of a few MB for each chunk of rows and frees it had each 2 MB
    page zeroed whole by the kernel as it was first touched, and compacted for: at 1M JSONL rows on
    two threads, ``clear_page`` was 17 % of the run's CPU, and the system time 3.4-5.2 s with huge
    pages against 2.3-3.9 s without, less in each of six pairs run side by side (``perf``,
    ``/usr/bin/time``; AMD EPYC, Linux 6.1). Nothing changes where NumPy has no such switch.

    >>> with small_pages():
    ...     pass
    """
    global _pages_users, _pages_before
    try:
        from numpy._core.multiarray import _set_madvise_hugepage as switch
    except ImportError:  # another NumPy: nothing to switch
        yield
        return
    with _lock:
        if _pages_users == 0:
            _pages_before = switch(False)
        _pages_users += 1
    try:
        yield
    finally:
        with _lock:
            _pages_users -= 1
            if _pages_users == 0:
                switch(_pages_before)


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < workers:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="simhash_lab")
            _pool_size = workers
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def _forget_pool() -> None:  # a forked child has none of its parent's threads
    global _pool, _pool_size
    _pool, _pool_size = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def run_ranges(
    body: Callable[[int, int], object], n: int, threads: int | None = None, size: int = 0, align: int = 1
) -> None:
    """Call ``body(lo, hi)`` once for each range of consecutive ``[lo, hi)`` covering ``[0, n)``, on
    up to ``threads`` threads (default :func:`thread_count`), the calling one included.

    ``size``: items per range (default: about four ranges per thread), rounded up to a multiple of
    ``align`` (a kernel's own chunk of items, say). The first exception raised
    by a ``body`` is raised here once every thread has stopped; the ranges not yet started are not
    run.
    """
    if n <= 0:
        return
    want = thread_count() if threads is None else max(1, int(threads))
    size = max(1, size or (-(-n // (4 * want)) if want > 1 else n))  # one thread: one range
    size = -(-size // align) * align
    nranges = -(-n // size)
    workers = min(want, nranges)
    if workers <= 1:
        for lo in range(0, n, size):
            body(lo, min(lo + size, n))
        return
    ticket = itertools.count()  # next() is atomic under the GIL: each range is taken once
    failed: list[BaseException] = []

    def work() -> None:
        while not failed:
            i = next(ticket)
            if i >= nranges:
                return
            lo = i * size
            try:
                body(lo, min(lo + size, n))
            except BaseException as e:  # noqa: BLE001 - re-raised in the calling thread
                failed.append(e)
                return

    pool = _executor(workers - 1)
    futures = [pool.submit(work) for _ in range(workers - 1)]
    work()
    for f in futures:
        f.result()
    if failed:
        raise failed[0]


def run_items(n: int, body: Callable[[int, int], object], parallel: bool, align: int = 1) -> None:
    """Run ``body`` over the items ``[0, n)``: ``body(0, n)`` in this thread, or :func:`run_ranges`
    when ``parallel`` (the callers decide by the size of the work: below a few hundred
    microseconds a thread's wake-up costs more)."""
    if parallel:
        run_ranges(body, n, align=align)
    elif n > 0:
        body(0, n)


over = run_items  # the old name, for code not yet renamed
