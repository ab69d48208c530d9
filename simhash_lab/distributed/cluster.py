"""Dask's side of the cluster: a local cluster made quiet (:func:`local_cluster`), the kernels warmed
on every worker (:func:`warmup_workers`), and how a computation is run on the scheduler a caller
gives (:func:`compute`: a failed run's tasks stopped before its scratch is removed).

Dask is an extra (``pip install 'simhash-lab[dask]'``): it is imported by :func:`need_dask`, which
raises an ImportError that says what to install.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from typing import Any

from .. import warmup
from .._validate import check_int

__all__ = [
    "EXTRA_HINT",
    "compute",
    "local_cluster",
    "need_dask",
    "scheduler_of",
    "scheduler_threads",
    "warmup_workers",
]

EXTRA_HINT = "pip install 'simhash-lab[dask]'"


def need_dask() -> Any:
    """The ``dask`` module (with ``dask.bag``), or an ImportError naming the extra."""
    try:
        import dask
        import dask.bag  # noqa: F401
    except ImportError:
        raise ImportError(f"the Dask pipeline needs dask, part of the `dask` extra: {EXTRA_HINT}") from None
    return dask


#: what ``local_cluster`` changes when no dashboard shows the profiles and the system's figures
_QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}


def local_cluster(
    workers: int = 2,
    *,
    processes: bool = True,
    threads_per_worker: int = 1,
    trim_memory: bool = False,
    quiet: bool = True,
    **kwargs: Any,
) -> tuple[Any, Any]:
    """``(cluster, client)``: a ``distributed.LocalCluster`` of ``workers`` workers without a
    dashboard, and a Client connected to it; logs only errors (no nanny warnings when workers stop).

    The scheduler's HTTP server (health and metrics routes, which it starts even without the
    dashboard) listens on a free port, so a second cluster (another notebook, a test) never warns
    "Port 8787 is already in use". On a real cluster use ``distributed.Client("tcp://scheduler:8786")``
    instead; nothing else changes.

    The worker processes keep the C allocator's own thresholds: distributed starts each with
    ``MALLOC_TRIM_THRESHOLD_=65536``, which hands freed memory back to the system at once and, as
    any such setting does, stops glibc from raising its mmap threshold, so every large temporary
    array is mapped and page-faulted anew (``dedup_dataset`` at 1M rows: 5.0-5.3 s of system CPU
    in the workers with it, 2.6 s without; ``benchmarks/dedup_at_scale.md``). A worker then keeps
    the memory it freed for its next task, as one process does.

    Without a dashboard, what only the dashboard shows is not gathered (``quiet``): the workers'
    statistical profiler is off (it samples the running task's stack every 10 ms), and the
    event-loop tick monitor (whose warnings are not logged here) and the system monitor run every
    second and every 5 seconds instead of every 20 and 500 ms. Measured on 2 cores, an idle
    worker process spent 0.05-0.06 s of CPU in 10 s with this, 0.18-0.19 s without; the client's
    process (the scheduler's loop) 0.13 s against 0.22-0.25 s.

    Parameters
    ----------
    workers : int
        Worker processes (or threads, with ``processes=False``).
    processes : bool
        Workers in processes of their own (True) or as threads of this process.
    threads_per_worker : int
        Threads each worker runs tasks in.
    trim_memory : bool
        True: distributed's ``MALLOC_TRIM_THRESHOLD_`` in the worker processes (memory returned
        to the system sooner, more CPU spent faulting it back in).
    quiet : bool
        True (without a dashboard): no worker profiler, slower tick and system monitors (above).
    **kwargs
        More ``distributed.LocalCluster`` arguments; they override the ones above.

    Returns
    -------
    cluster : distributed.LocalCluster
        The cluster (close it, or use it in a ``with`` block).
    client : distributed.Client
        A client connected to it.

    Raises
    ------
    ImportError
        Dask or distributed is not installed (the ``dask`` extra).
    """
    dask = need_dask()
    from distributed import Client, LocalCluster

    options = {
        "n_workers": workers,
        "threads_per_worker": threads_per_worker,
        "processes": processes,
        "dashboard_address": None,
        "scheduler_kwargs": {"dashboard_address": ":0"},
        "silence_logs": logging.ERROR,
        **kwargs,
    }
    key = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
    config = {} if trim_memory else {key: None}
    if quiet and options["dashboard_address"] is None:
        config.update(_QUIET)
    with dask.config.set(config):  # read as each worker is spawned (its config travels with it)
        cluster = LocalCluster(**options)
    return cluster, Client(cluster)


def _warmup_plugin(jobs: int):
    """A ``distributed.WorkerPlugin`` that warms every worker, now and as workers join.

    Its setup runs ``simhash-lab warmup`` (a subprocess of the worker, awaited: the worker's event
    loop keeps answering), which compiles what the on-disk cache lacks, then loads the kernels
    into the worker process itself (the warmup's steps in one thread, compiling nothing now), so
    that no task pays the load. The result (exit status, last line) is kept on the worker. It is
    idempotent: registering it again where it is registered does nothing.

    Parameters
    ----------
    jobs : int
        Processes the warmup subprocess compiles with.

    Returns
    -------
    distributed.WorkerPlugin
        The plugin, named ``"simhash-lab-warmup"``.
    """
    from distributed import WorkerPlugin

    class SimhashLabWarmup(WorkerPlugin):
        name = "simhash-lab-warmup"
        idempotent = True

        async def setup(self, worker: Any) -> None:
            cmd = [sys.executable, "-m", "simhash_lab.cli", "warmup", "--jobs", str(jobs)]
            proc = await asyncio.create_subprocess_exec(
                *cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
            )
            out, _ = await proc.communicate()
            lines = out.decode(errors="replace").strip().splitlines()
            last = next((x.rsplit("\r", 1)[-1] for x in reversed(lines) if "warmup:" in x), "")
            worker._simhash_lab_warmup = (proc.returncode, last)
            if proc.returncode:
                raise RuntimeError(f"simhash-lab warmup failed on {worker.address}: {last or lines[-1:]}")
            worker._simhash_lab_loaded = await asyncio.to_thread(_load_kernels)

    return SimhashLabWarmup()


def _load_kernels() -> tuple[int, float]:
    """Load every kernel into this process (the warmup's steps, one process): ``(kernels
    compiled, seconds)``; after ``simhash-lab warmup`` the count is 0."""
    return warmup.run(progress=False, jobs=1)


def _warmup_result(dask_worker: Any) -> tuple[int, str] | None:
    return getattr(dask_worker, "_simhash_lab_warmup", None)


def warmup_workers(client: Any, jobs: int = 1) -> dict:
    """Warm every worker of ``client``, and each worker that joins later (a worker plugin).

    Each worker runs ``simhash-lab warmup`` (compiling what the on-disk kernel cache lacks), then
    loads the kernels into its own process, so that no task compiles or loads a kernel. The
    plugin is registered once: a second call, on warm workers, only collects their results.

    Workers on one machine share the on-disk kernel cache (beside the installed package): the
    first compiles, the others load. Where every worker runs the same image, run ``simhash-lab
    warmup`` once when the image is built and this only loads.

    Parameters
    ----------
    client : distributed.Client
        A client of the cluster.
    jobs : int
        Processes each worker's warmup compiles with (1 to 64).

    Returns
    -------
    dict
        ``{worker address: (exit status, the warmup's summary line)}``.

    Raises
    ------
    ValueError
        ``jobs`` is out of range.
    RuntimeError
        The warmup failed on a worker.
    """
    need_dask()
    client.register_plugin(_warmup_plugin(check_int("jobs", jobs, 1, 64)))
    return client.run(_warmup_result)


def scheduler_threads(scheduler: Any) -> int:
    """The worker threads of the scheduler a computation would use: a ``distributed.Client``'s,
    one for the synchronous scheduler, else this machine's cores."""
    from dask.local import get_sync

    get, client = scheduler_of(scheduler)
    if get is get_sync:
        return 1
    if client is not None and hasattr(client, "nthreads"):
        n = sum(client.nthreads().values())
        if n:
            return int(n)
    return os.cpu_count() or 1


def scheduler_of(scheduler: Any, collections: list | None = None) -> tuple:
    """``(get, client)``: the scheduler function ``dask.compute`` would use, and the
    ``distributed.Client`` it belongs to (None for the local schedulers)."""
    from dask.base import get_scheduler

    get = get_scheduler(scheduler=scheduler, collections=collections)
    return get, getattr(get, "__self__", None)


#: how long a failed run waits for its tasks still running on the workers, seconds
_STOP_WAIT = 600.0


def compute(dask: Any, result: Any, scheduler: Any) -> Any:
    """``dask.compute(result)``. On a distributed client, when a task fails the others that have
    started are not stopped, and would write their pieces after the run's folder is removed: the
    error is raised once none of the graph's tasks is executing on any worker (at most
    :data:`_STOP_WAIT` seconds), so that the cleanup comes after their last write."""
    client = scheduler_of(scheduler, [result])[1]
    if client is None or not hasattr(client, "run") or not hasattr(client, "compute"):
        (out,) = dask.compute(result, scheduler=scheduler)
        return out
    keys = {str(k) for k in dict(result.__dask_graph__())}
    future = client.compute(result)
    try:
        return future.result()
    except BaseException:
        client.cancel(future)
        stop = time.monotonic() + _STOP_WAIT
        while time.monotonic() < stop:
            running = client.run(_executing, keys)
            if not any(running.values()):
                break
            time.sleep(0.05)
        raise


def _executing(keys: set, dask_worker: Any = None) -> int:
    """How many of ``keys`` this worker is executing (started tasks, cancelled or not)."""
    return sum(1 for ts in dask_worker.state.tasks.values() if ts.state in _STARTED and str(ts.key) in keys)


_STARTED = frozenset({"executing", "long-running", "cancelled", "resumed"})
