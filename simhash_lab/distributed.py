"""The near-duplicate pipeline on Dask: Manku et al.'s batch mode as a MapReduce.

Manku, Jain and Das Sarma (WWW 2007, section 4) find all near-duplicate pairs of a batch of
fingerprints with MapReduce: every fingerprint is emitted once per table under the table's key (the
bits the table keeps exact), the shuffle brings equal keys together, and each reducer verifies the
fingerprints that share a key with a popcount. Here, on Dask:

1. **fingerprint**: each partition of texts is hashed by the Numba pipeline
   (``Simhasher.fingerprints``, serial inside a task: Dask provides the parallelism);
2. **map**: each partition of fingerprints is split by ``(table, fp & mask[table])`` into
   ``n_reducers`` buckets (a hash of the key picks the bucket), ids attached;
3. **reduce**: each bucket is sorted by ``(table, key, id)`` and every run of equal keys is verified
   with ``popcount(a ^ b) <= k`` (the kernels of :class:`~simhash_lab.SimhashIndex`); a pair is kept
   only by the first table whose mask it satisfies, so no pair is reported twice and no final
   de-duplication is needed;
4. the buckets' pairs are concatenated and sorted: the result equals ``SimhashIndex.pairs()`` on
   the same fingerprints (same layout or not: every exact layout finds every pair within k).

It runs on whatever Dask scheduler is active: a ``distributed.Client`` on a ``LocalCluster`` here,
the same code on a cluster (connect a ``Client`` to its scheduler; pass a ``dask.bag`` of texts read
where the data lives, e.g. ``dask.bag.read_text("s3://bucket/*.txt")``). Dask is an extra:
``pip install 'simhash-lab[dask]'``; without it these functions raise an ImportError that says so.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._i18n import get_language, language
from ._threads import small_pages
from ._validate import check_int

if TYPE_CHECKING:
    import os

    from fsspec import AbstractFileSystem

    from .candidates import BandKeys
    from .dedup import Duplicates
    from .settings import DedupSettings

__all__ = [
    "table_masks",
    "fingerprints",
    "pairs",
    "near_duplicates",
    "dedup_dataset",
    "local_cluster",
    "warmup_workers",
]

EXTRA_HINT = "pip install 'simhash-lab[dask]'"


def _dask():
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
    import logging

    dask = _dask()
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
    import asyncio
    import sys

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
    from . import warmup

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
    _dask()
    client.register_plugin(_warmup_plugin(check_int("jobs", jobs, 1, 64)))
    return client.run(_warmup_result)


# --------------------------------------------------------------------------------------------
# Tables
# --------------------------------------------------------------------------------------------


def table_masks(k: int = 3, bits: int = 64, layout: Any = "blocks") -> np.ndarray:
    """The bits each table keeps exact, as a uint64 array of shape (T,).

    ``layout`` is any table layout of :class:`~simhash_lab.SimhashIndex`: ``"blocks"`` (the
    pigeonhole, k + 1 tables; the default), ``"seed"``, ``("permuted", m)`` (Manku's C(m, k)
    tables) or ``("nested", m1, m2)``. ``"scan"`` and ``"auto"`` are refused: a batch join needs
    keys.

    Parameters
    ----------
    k : int
        The Hamming distance every pair within which some table must hold.
    bits : int
        Fingerprint width.
    layout : str or tuple
        The table layout, as above.

    Returns
    -------
    numpy.ndarray
        uint64, one mask per table.

    Raises
    ------
    ValueError
        ``layout`` is ``"scan"`` or ``"auto"``, or :class:`~simhash_lab.SimhashIndex` refuses
        ``k``, ``bits`` or ``layout``.
    """
    from .index import SimhashIndex

    if isinstance(layout, str) and layout in ("scan", "auto"):
        raise ValueError(
            f"layout must give tables to join on (blocks, seed, permuted, nested), got {layout!r}"
        )
    index = SimhashIndex(k=k, bits=bits, layout=layout)
    return np.array(index.table_masks, dtype=np.uint64)


def _bucket_of(keys: np.ndarray, t: int, n_reducers: int) -> np.ndarray:
    """Reducer of each key of table ``t``: SplitMix64's finaliser of ``key + t * golden``, mod R."""
    with np.errstate(over="ignore"):
        z = keys + np.uint64(t + 1) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z % np.uint64(n_reducers)).astype(np.int64)


def _by_bucket(bucket: np.ndarray, n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, cuts)``: the rows in bucket order (stable) and where each bucket starts
    (``n_buckets + 1`` offsets). The buckets as 16-bit numbers where they fit: NumPy sorts those
    by radix (O(n), several times faster than its merge sort of int64)."""
    small = bucket.astype(np.uint16) if n_buckets <= 1 << 16 else bucket
    order = np.argsort(small, kind="stable")
    cuts = np.zeros(n_buckets + 1, np.int64)
    np.cumsum(np.bincount(small, minlength=n_buckets), out=cuts[1:])
    return order, cuts


# --------------------------------------------------------------------------------------------
# Tasks (plain functions of arrays: they run on the workers)
# --------------------------------------------------------------------------------------------


def _fingerprint_task(texts: Any, hasher: Any) -> np.ndarray:
    return hasher.fingerprints(list(texts), parallel=False)


def _map_task(fps: np.ndarray, offset: int, masks: np.ndarray, n_reducers: int) -> list:
    """Split one partition into ``n_reducers`` buckets of ``(table, fp, id)`` rows."""
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    ids = np.arange(int(offset), int(offset) + fps.size, dtype=np.int64)
    parts_t, parts_f, parts_i, parts_b = [], [], [], []
    for t in range(masks.size):
        parts_b.append(_bucket_of(fps & masks[t], t, n_reducers))
        parts_t.append(np.full(fps.size, t, np.int32))
        parts_f.append(fps)
        parts_i.append(ids)
    if not parts_b:
        return [(np.empty(0, np.int32), np.empty(0, np.uint64), np.empty(0, np.int64))] * n_reducers
    order, cuts = _by_bucket(np.concatenate(parts_b), n_reducers)
    tt, ff, ii = (np.concatenate(p)[order] for p in (parts_t, parts_f, parts_i))
    return [
        (tt[cuts[r] : cuts[r + 1]], ff[cuts[r] : cuts[r + 1]], ii[cuts[r] : cuts[r + 1]])
        for r in range(n_reducers)
    ]


def _pick(buckets: list, r: int):
    return buckets[r]


def _table_pairs(f: np.ndarray, masks: np.ndarray, t: int, k: int, density: list | None = None) -> np.ndarray:
    """``(a, b, d)`` rows (positions in ``f``, ``a < b``) of the pairs table ``t`` reports among
    ``f`` (sorted by ``f & masks[t]``): the kernels of ``SimhashIndex.pairs()`` on one table, one
    thread (a vectorized count of each row's near partners first, then only those rows are
    scanned again), with the index's room-then-retry handling of the output: room for
    ``density[0]`` pairs a row (raised to what this table found, for the next table)."""
    from .kernels import index as K

    tf = np.ascontiguousarray(f, np.uint64).reshape(1, -1)
    ti = np.arange(f.size, dtype=np.uint32).reshape(1, -1)
    gm = np.ascontiguousarray(masks[t : t + 1], np.uint64)
    ct, lo, hi, _ = K.pair_chunks_kernel(tf, gm, 1 << 62)
    counts = np.empty(ct.shape[0], np.int64)
    density = [1 / 16] if density is None else density
    off = _offsets(np.ceil((hi - lo) * density[0]).astype(np.int64) + 16)
    out = np.empty(off[-1], np.uint64)
    K.pairs_chunks_kernel(tf, ti, masks, gm, int(t), int(k), ct, lo, hi, off, out, counts)
    if (counts > np.diff(off)).any():  # more than the room: again, with the exact room
        off = _offsets(counts)
        out = np.empty(off[-1], np.uint64)
        K.pairs_chunks_kernel(tf, ti, masks, gm, int(t), int(k), ct, lo, hi, off, out, counts)
    density[0] = max(density[0], 1.25 * float(counts.sum()) / max(int(f.size), 1))
    keys = np.concatenate([out[off[c] : off[c] + counts[c]] for c in range(ct.shape[0])])
    return K.unpack_pairs_kernel(keys, tf[0])


def _reduce_task(pieces: list, masks: np.ndarray, k: int) -> np.ndarray:
    """Every pair in one bucket: per table, sort by (key, id), verify runs of equal keys."""
    if not pieces:
        return np.empty((0, 3), np.int64)
    masks = np.ascontiguousarray(masks, np.uint64)
    tt = np.concatenate([p[0] for p in pieces])
    ff = np.concatenate([p[1] for p in pieces])
    ii = np.concatenate([p[2] for p in pieces])
    out = []
    density = [1 / 16]  # pairs a row: what the tables so far found, the room for the next
    for t in np.unique(tt).tolist():
        sel = tt == t
        f, g = ff[sel], ii[sel]
        order = np.lexsort((g, f & masks[t]))
        f, g = np.ascontiguousarray(f[order]), g[order]
        p = _table_pairs(f, masks, t, k, density)
        if p.shape[0]:
            a, b = g[p[:, 0]], g[p[:, 1]]
            out.append(np.stack([np.minimum(a, b), np.maximum(a, b), p[:, 2]], axis=1))
    return np.concatenate(out) if out else np.empty((0, 3), np.int64)


def _offsets(lengths: Sequence[int]) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _concat_fps(parts: list) -> np.ndarray:
    return np.concatenate(parts).astype(np.uint64, copy=False) if parts else np.empty(0, np.uint64)


def _take(offsets: np.ndarray, i: int):
    return offsets[i]


def _sorted_pairs(parts: list) -> np.ndarray:
    out = np.concatenate(parts) if parts else np.empty((0, 3), np.int64)
    if out.shape[0] > 1:
        out = out[np.lexsort((out[:, 1], out[:, 0]))]
    return out.astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------------
# The public functions
# --------------------------------------------------------------------------------------------


def _fps_partitions(fps: Any, npartitions: int | None):
    """Delayed uint64 arrays from a NumPy array, a dask array, or a list of delayed arrays."""
    dask = _dask()
    import dask.array as da
    from dask.delayed import Delayed

    if isinstance(fps, (list, tuple)) and fps and all(isinstance(p, Delayed) for p in fps):
        return list(fps)
    if isinstance(fps, da.Array):
        return list(fps.to_delayed().ravel())
    arr = np.asarray(fps)
    if arr.ndim != 1:
        raise ValueError(f"fps must be one-dimensional, got shape {arr.shape}")
    if arr.size and (arr.dtype.kind not in "ui" or (arr.dtype.kind == "i" and arr.min() < 0)):
        raise ValueError("fps must be non-negative integers (uint64 fingerprints)")
    arr = arr.astype(np.uint64, copy=False)
    p = max(1, min(npartitions or 8, max(1, arr.size)))
    return [dask.delayed(c) for c in np.array_split(arr, p)]


def _pairs_graph(parts: list, k: int, bits: int, layout: Any, n_reducers: int | None):
    """The delayed sorted (m, 3) pairs of the fingerprint partitions ``parts``."""
    dask = _dask()
    delayed = dask.delayed
    masks = table_masks(k, bits, layout)
    R = n_reducers or max(1, len(parts))
    check_int("n_reducers", R, 1, 1 << 20)
    lengths = [delayed(len)(p) for p in parts]
    offsets = delayed(_offsets)(lengths)
    maps = [delayed(_map_task)(p, delayed(_take)(offsets, i), masks, R) for i, p in enumerate(parts)]
    reduces = [delayed(_reduce_task)([delayed(_pick)(m, r) for m in maps], masks, k) for r in range(R)]
    return delayed(_sorted_pairs)(reduces)


def fingerprints(texts: Any, hasher: Any = None, npartitions: int | None = None) -> list:
    """Fingerprint ``texts`` on Dask: a list of delayed uint64 arrays, one per partition.

    Parameters
    ----------
    texts : sequence of str or dask.bag.Bag
        A sequence is split into ``npartitions``; a Bag's partitions are used as they are (e.g.
        one per file of ``dask.bag.read_text``).
    hasher : Simhasher, optional
        Default ``Simhasher()``.
    npartitions : int, optional
        Partitions of a sequence (default 8, at most one per text).

    Returns
    -------
    list of dask.delayed.Delayed
        One uint64 array per partition, each fingerprinted serially inside its task.

    Raises
    ------
    TypeError
        ``texts`` is a str, None, or not iterable.
    """
    dask = _dask()
    import dask.bag as db

    from .simhasher import Simhasher

    hasher = Simhasher() if hasher is None else hasher
    if isinstance(texts, db.Bag):
        parts = texts.to_delayed()
    else:
        if isinstance(texts, str) or texts is None:
            raise TypeError("texts must be a sequence of str or a dask.bag.Bag")
        texts = list(texts)
        p = max(1, min(npartitions or 8, max(1, len(texts))))
        bounds = np.linspace(0, len(texts), p + 1).astype(int)
        parts = [texts[bounds[i] : bounds[i + 1]] for i in range(p)]
    return [dask.delayed(_fingerprint_task)(part, hasher) for part in parts]


def pairs(
    fps: Any,
    k: int = 3,
    bits: int = 64,
    *,
    layout: Any = "blocks",
    npartitions: int | None = None,
    n_reducers: int | None = None,
    scheduler: Any = None,
) -> np.ndarray:
    """Every pair of fingerprints within Hamming distance ``k``, computed on Dask.

    Parameters
    ----------
    fps : array_like of shape (n,), uint64; a dask array; or a list of delayed uint64 arrays
        Ids are positions in the concatenation, as ``SimhashIndex.add_many`` numbers them.
    k, bits : int
        As for :class:`~simhash_lab.SimhashIndex` (``0 <= k < bits``).
    layout : str or tuple
        The tables to join on; see :func:`table_masks`.
    npartitions : int, optional
        Map tasks for a NumPy input (default 8).
    n_reducers : int, optional
        Reduce tasks (default: as many as map tasks).
    scheduler : optional
        Passed to ``dask.compute`` (default: the active scheduler, e.g. a ``distributed.Client``).

    Returns
    -------
    array of shape (m, 3), int64
        Rows ``(i, j, d)``, ``i < j``, ``d <= k``, sorted by ``(i, j)``: equal to
        ``SimhashIndex(k, bits).pairs()`` after ``add_many(fps)``.

    Raises
    ------
    ValueError
        ``fps`` is not one-dimensional or holds negative values; ``bits``, ``k``, ``layout`` or
        ``n_reducers`` is out of range.
    """
    dask = _dask()
    bits = check_int("bits", bits, 1, 64)
    parts = _fps_partitions(fps, npartitions)
    (out,) = dask.compute(_pairs_graph(parts, k, bits, layout, n_reducers), scheduler=scheduler)
    return out


def near_duplicates(
    texts: Any,
    k: int = 3,
    *,
    hasher: Any = None,
    layout: Any = "blocks",
    npartitions: int | None = None,
    n_reducers: int | None = None,
    scheduler: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Fingerprint ``texts`` and find every near-duplicate pair within ``k``, in one Dask graph.

    Parameters
    ----------
    texts : sequence of str or dask.bag.Bag
        As :func:`fingerprints` takes them.
    k : int
        Hamming distance.
    hasher : Simhasher, optional
        Default ``Simhasher()``.
    layout, npartitions, n_reducers, scheduler
        As :func:`pairs` takes them.

    Returns
    -------
    fps : array of shape (n,), uint64
        The fingerprints, in the order of ``texts`` (ids of the pairs).
    pairs : array of shape (m, 3), int64
        As :func:`pairs` returns.
    """
    dask = _dask()
    from .simhasher import Simhasher

    hasher = Simhasher() if hasher is None else hasher
    parts = fingerprints(texts, hasher, npartitions)
    graph = _pairs_graph(parts, k, hasher.bits, layout, n_reducers)
    fps_all = dask.delayed(_concat_fps)(parts)
    fps_out, pairs_out = dask.compute(fps_all, graph, scheduler=scheduler)
    return fps_out.astype(np.uint64, copy=False), pairs_out


# --------------------------------------------------------------------------------------------
# Verified dedup of a partitioned dataset
# --------------------------------------------------------------------------------------------
#
# The same steps as simhash_lab.dedup.dedup_table, as tasks over partitions (files). Partitions,
# output and scratch are fsspec URLs (simhash_lab._storage). The shuffles go through objects in the
# scratch folder, as MapReduce's map outputs do: a map task writes one file of pieces, one piece
# per reducer behind an index of their places (Hadoop's and Spark's map output file), a barrier
# task waits for every map task, and each reducer lists the step's files and reads its own piece
# of each. Every task depends on a barrier or on its own partition only, so the graph has
# O(partitions + reducers) tasks and edges (no partitions x reducers fan-in of in-memory pieces),
# and a step writes O(partitions) files, not partitions x reducers; why files and not Dask's task
# shuffle is measured in benchmarks/dedup_at_scale.md. Every object a task writes is named by the
# task (``map/{partition}.pieces``, ...) and written whole, so a task run again after a worker is
# lost writes the same objects again: the result does not change.


def _featurizer(st: DedupSettings):
    """The run's :class:`~simhash_lab.shingles.Featurizer` (made in each task from the settings,
    which pickle: the same shingles, normalisation and script rule as ``dedup_table``)."""
    from .shingles import Featurizer

    return Featurizer(st)


class _RemoteOpen:
    """Opens a dataset file through fsspec (mixed into the format's Source class): the same
    parsing and checks, the file's ``ukey`` (ETag, checksum) in place of the inode stamp."""

    _fs: Any = None
    _fs_path = ""

    def _open(self):
        from .datasets import DatasetError

        try:
            stamp = self._fs.ukey(self._fs_path)
            f = self._fs.open(self._fs_path, "rb")
        except FileNotFoundError:
            raise DatasetError(f"{self.name}: no such file") from None
        except OSError as e:
            raise DatasetError(f"{self.name}: {e.strerror or e}") from None
        if self._stamp is None:
            self._stamp = stamp
        elif stamp != self._stamp:
            f.close()
            raise DatasetError(f"{self.name}: the file changed while it was being deduplicated")
        return f


_REMOTE: dict = {}


def _source(fs: AbstractFileSystem, path: str, column: str, id_column: str | None, fmt: str | None):
    """The :class:`~simhash_lab.datasets.Source` of one partition, local or through fsspec."""
    from ._storage import is_local, url_of
    from .datasets import open_dataset

    if is_local(fs):
        return open_dataset(path, column, id_column, fmt)
    src = open_dataset(url_of(fs, path), column, id_column, fmt)
    cls = type(src)
    if cls not in _REMOTE:
        _REMOTE[cls] = type(f"Remote{cls.__name__}", (_RemoteOpen, cls), {})
    src.__class__ = _REMOTE[cls]
    src._fs, src._fs_path = fs, path
    return src


def _partitions_source(fs: AbstractFileSystem, paths: list[str], args: tuple, offsets: np.ndarray):
    """The rows of every partition, numbered across them in order: what :func:`calibrate` reads
    (``select`` only), so that the calibration on Dask samples the same rows as on one machine."""
    from .datasets import Source

    class Partitions(Source):
        format = "partitions"
        name = "<partitions>"

        def select(self, rows: np.ndarray, chunk: int):
            return _select(fs, paths, args, offsets, rows, chunk)

    return Partitions()


def _select(
    fs: AbstractFileSystem, paths: list[str], args: tuple, offsets: np.ndarray, rows: np.ndarray, chunk: int
):
    """``(rows, texts)`` of the rows ``rows`` (global numbers, sorted), partition by partition."""
    rows = np.asarray(rows, np.int64)
    part = np.searchsorted(offsets, rows, side="right") - 1
    for p in np.unique(part).tolist():
        off = int(offsets[p])
        src = _source(fs, paths[p], *args)
        for local, texts in src.select(rows[part == p] - off, chunk):
            yield local + off, texts


_PIECE = ".piece"  # a file of one piece (see _save)
_PIECES = ".pieces"  # a task's file of pieces for a step's destinations (see _save_pieces)
_MAGIC = b"SHLPIECE"
_MAGIC_MANY = b"SHLPIECS"
_ALIGN = 64


def _piece_buffers(arrays: dict) -> list:
    """The bytes of one piece, as buffers: ``SHLPIECE``, the header's length (uint64,
    little-endian), the header (JSON: each array's name, dtype and shape), then each array's bytes
    as they are in memory, each at a multiple of 64 bytes from the piece's start: no archive, no
    checksum, no copy into one buffer first (what ``np.savez`` costs: a CRC32 of every byte and two
    copies)."""
    import json

    cols = [(name, np.require(a, requirements="C")) for name, a in arrays.items()]  # 0-d stays 0-d
    head = json.dumps([[name, a.dtype.str, list(a.shape)] for name, a in cols]).encode()
    start = len(_MAGIC) + 8 + len(head)
    pad = -start % _ALIGN
    buffers: list = [_MAGIC, np.uint64(len(head) + pad).astype("<u8").tobytes(), head + b" " * pad]
    for _, a in cols:
        raw = a.reshape(-1).view(np.uint8)
        buffers.append(memoryview(raw))
        if -raw.size % _ALIGN:
            buffers.append(bytes(-raw.size % _ALIGN))
    return buffers


def _save(sfs: AbstractFileSystem, path: str, **arrays: np.ndarray) -> None:
    """Write ``arrays`` as one piece, the whole file (:func:`_piece_buffers`)."""
    from ._storage import put_buffers

    put_buffers(sfs, path, _piece_buffers(arrays))


def _parse_piece(buf: bytearray, where: str, keys: Sequence[str] | None = None) -> dict:
    """The arrays of the piece in ``buf`` (``keys`` only, or all), writable views of it."""
    import json

    if bytes(buf[: len(_MAGIC)]) != _MAGIC:
        raise ValueError(f"{where}: not a shuffle piece")
    hl = int(np.frombuffer(buf, "<u8", 1, len(_MAGIC))[0])
    pos = len(_MAGIC) + 8 + hl
    out = {}
    for name, dt, shape in json.loads(bytes(buf[len(_MAGIC) + 8 : pos])):
        dtype = np.dtype(dt)
        count = int(np.prod(shape, dtype=np.int64))
        size = count * dtype.itemsize
        if keys is None or name in keys:
            a = np.frombuffer(buf, dtype, count, pos) if count else np.empty(0, dtype)
            out[name] = a.reshape(tuple(shape))
        pos += size + (-size % _ALIGN)
    return out


def _load(sfs: AbstractFileSystem, path: str, keys: Sequence[str] | None = None) -> dict:
    """The arrays of a piece :func:`_save` wrote (``keys`` only, or all), writable, as views of
    the bytes read (one read, no copy)."""
    from ._storage import read_buffer

    return _parse_piece(read_buffer(sfs, path), path, keys)


def _save_pieces(sfs: AbstractFileSystem, run: str, step: str, src: int, n_dest: int, pieces: dict) -> None:
    """Write task ``src``'s pieces of ``step`` (``{destination: {name: array}}``, destinations
    below ``n_dest``) as one file, ``{step}/{src}.pieces``: ``SHLPIECS``, ``n_dest`` (uint64,
    little-endian), the index (``n_dest + 1`` uint64 byte offsets: destination ``d``'s piece is
    the bytes ``[index[d], index[d + 1])`` of the file, none when they are equal), then the pieces
    (:func:`_piece_buffers`), each at a multiple of 64 bytes. A reader reads the index entries of
    its destination, then its piece only (:func:`_pieces`): a step writes a file a task where a
    file a piece made partitions x reducers of them (at 64 partitions, 4,096 a step, each
    reducer's listing scanning them all: at 1M rows the workers spent 6-14 s of system time
    against 2.1-2.5 s this way, ``benchmarks/results/2026-12-04-dask-files.md``)."""
    from ._storage import join, put_buffers

    head = len(_MAGIC_MANY) + 8 * (n_dest + 2)
    head += -head % _ALIGN
    index = np.full(n_dest + 1, head, np.uint64)
    buffers: list = []
    at = head
    for d in range(n_dest):
        index[d] = at
        if d in pieces:
            for b in _piece_buffers(pieces[d]):
                buffers.append(b)
                at += len(b) if isinstance(b, bytes) else b.nbytes
    index[n_dest] = at
    top = [_MAGIC_MANY, np.uint64(n_dest).astype("<u8").tobytes(), index.astype("<u8").tobytes()]
    top.append(bytes(head - len(_MAGIC_MANY) - 8 * (n_dest + 2)))
    put_buffers(sfs, join(sfs, run, step, f"{src}{_PIECES}"), top + buffers)


def _pieces(
    sfs: AbstractFileSystem, run: str, step: str, dest: int | None, keys: Sequence[str] | None = None
) -> list[dict]:
    """The pieces for destination ``dest`` (None: every destination) in the files of ``step``
    (:func:`_save_pieces`), in the order of the files' names, then of destinations (``keys``
    only, or all arrays): of each file, the index entries of ``dest`` and its piece are read."""
    from ._storage import join, list_files, read_ranges

    out = []
    top = len(_MAGIC_MANY) + 8
    for name in list_files(sfs, join(sfs, run, step), "", _PIECES):
        with read_ranges(sfs, name) as read:
            head = read(0, top)
            if len(head) < top or bytes(head[: len(_MAGIC_MANY)]) != _MAGIC_MANY:
                raise ValueError(f"{name}: not a file of shuffle pieces")
            n = int(np.frombuffer(head, "<u8", 1, len(_MAGIC_MANY))[0])
            lo, hi = (0, n) if dest is None else (int(dest), int(dest) + 1)
            if not 0 <= lo <= hi <= n:
                raise ValueError(f"{name}: no destination {dest} (the file has {n})")
            raw = read(top + 8 * lo, top + 8 * (hi + 1))
            if len(raw) < 8 * (hi - lo + 1):
                raise ValueError(f"{name}: not a file of shuffle pieces (its index is cut short)")
            index = np.frombuffer(raw, "<u8").astype(np.int64)
            if index[-1] > index[0]:
                buf = memoryview(read(int(index[0]), int(index[-1])))
                if buf.nbytes < index[-1] - index[0]:
                    raise ValueError(f"{name}: not a file of shuffle pieces (its pieces are cut short)")
                for a, b in zip((index[:-1] - index[0]).tolist(), (index[1:] - index[0]).tolist()):
                    if b > a:
                        out.append(_parse_piece(buf[a:b], name, keys))
    return out


def _ids_bytes(ids: Iterable[Any]) -> np.ndarray:
    import json

    return np.frombuffer(json.dumps(list(ids), default=str).encode(), np.uint8)


def _ids_of(raw: np.ndarray) -> list:
    import json

    return json.loads(raw.tobytes().decode()) if raw.size else []


def _id_strings(ids: list):
    """The ids as one Arrow string array when every one is a ``str`` (a string id column), else
    None: those travel as JSON (:func:`_ids_bytes`), as any other ids do."""
    import pyarrow as pa

    if not ids or set(map(type, ids)) != {str}:
        return None
    try:
        return pa.array(ids, pa.large_string())
    except (pa.ArrowException, UnicodeError):  # a lone surrogate: not UTF-8
        return None


def _ids_columns(ids: list, strings: Any, rows: np.ndarray) -> dict:
    """The ids of ``rows`` as a piece's arrays: ``id_off`` and ``id_utf8`` (the strings' offsets
    and bytes, taken in Arrow: no Python object a row) when ``strings`` holds them, else ``ids``
    (JSON); read back by :func:`_ids_at`."""
    if strings is None:
        return {"ids": _ids_bytes([ids[i] for i in rows.tolist()])}
    import pyarrow as pa

    got = strings.take(pa.array(rows, pa.int64()))
    off = np.frombuffer(got.buffers()[1], np.int64, len(got) + 1, got.offset * 8)
    data = got.buffers()[2]
    utf8 = np.frombuffer(data, np.uint8) if data is not None else np.empty(0, np.uint8)
    return {"id_off": off - off[0], "id_utf8": utf8[off[0] : off[-1]]}


def _ids_at(got: list[dict], at: np.ndarray) -> list:
    """The ids at positions ``at`` of the pieces ``got`` put end to end (as
    :func:`_ids_columns` wrote them): only those decoded where every piece holds strings."""
    if got and all("id_off" in x for x in got):
        import pyarrow as pa

        parts = [
            pa.LargeStringArray.from_buffers(
                x["id_off"].size - 1, pa.py_buffer(x["id_off"]), pa.py_buffer(x["id_utf8"])
            )
            for x in got
        ]
        return pa.concat_arrays(parts).take(pa.array(at, pa.int64())).to_pylist()
    every = [
        v
        for x in got
        for v in (_ids_of(x["ids"]) if "ids" in x else _ids_at([x], np.arange(x["id_off"].size - 1)))
    ]
    return [every[i] for i in at.tolist()]


def _chunks_of(
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    sizes: list | None = None,
):
    """``(texts, ids, start, source)`` of one task's files in order, 8,192 rows a chunk: ``start``
    the chunk's first row in its file and ``source`` that file's, so that an error names the file
    and its row. Each file's rows are appended to ``sizes``."""
    for path in paths:
        src = _source(fs, path, column, id_column, fmt)
        start = 0
        for texts, ids, _ in src.chunks(8192):
            yield texts, ids, start, src
            start += len(texts)
        if sizes is not None:
            sizes.append(start)


@small_pages()  # as dedup_table runs: no huge pages for its per-chunk arrays
def _fp_part(
    p: int,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    st: DedupSettings,
    sfs: AbstractFileSystem,
    run: str,
    n_reducers: int,
    sets_budget: int = 0,
):
    """Fingerprints, lengths (characters; zeros unless ``keep="longest"``, the one rule that
    reads them) and the featureless flags of one task's files (``paths``, read in order, their
    rows numbered across them; ``"sizes"``: each file's rows), as
    :func:`~simhash_lab.dedup.dedup_table` computes them (the same normalisation and
    :class:`~simhash_lab.shingles.Featurizer`); with ``st.exact``, the digests of its rows with
    features written to the exact-groups shuffle (``exact/{p}.pieces``, the reducer picked
    by the digest's value), with their rows, lengths and ids."""
    from .dedup import check_text_chunk, no_features, text_digests
    from .shingles import ChunkSets

    feat = _featurizer(st)
    band_keys = _band_keys(st)
    kept = ChunkSets() if sets_budget > 0 and feat.features != "hasher" else None
    fps, lengths, empty, digs, ids_all = [], [], [], [], []
    longest = st.keep == "longest"
    chars = 0
    sizes = []
    for texts, ids, start, src in _chunks_of(fs, paths, column, id_column, fmt, sizes):
        norm = check_text_chunk(feat.normalise, texts, start, src.name)
        f, ch, ind, dat = check_text_chunk(feat.fingerprints_sets, norm, start, src.name)
        if ind is not None:
            e = np.diff(ind) == 0
        else:
            e = np.zeros(len(texts), np.bool_)
            for i in np.flatnonzero(f == 0).tolist():
                e[i] = no_features(feat.hasher, norm[i])
        if kept is not None and ind is not None:
            kept.add(ind, dat)
            if kept.nbytes > sets_budget:
                kept = None  # too many to keep: the verifier reads the rows it needs again
        if band_keys is not None:  # as dedup_table makes them: from the sets that are verified
            if ind is None:
                ind, dat = check_text_chunk(feat.sets_of, norm, start, src.name)[1:]
            band_keys.add(ind, dat)
        fps.append(f)
        chars += int(np.count_nonzero(ch))
        if longest:  # the characters of each text: what keep="longest" ranks by (else unread)
            lengths.append(np.fromiter(map(len, texts), np.int64, len(texts)))
        else:
            lengths.append(np.zeros(len(texts), np.int64))
        empty.append(e)
        if st.exact:
            digs.append(text_digests(norm))
        if st.exact or kept is not None:
            ids_all.extend(ids)
    cat = np.concatenate
    out = {
        "fps": cat(fps) if fps else np.empty(0, np.uint64),
        "lengths": cat(lengths) if lengths else np.empty(0, np.int64),
        "featureless": cat(empty) if empty else np.empty(0, np.bool_),
        "chars": chars,
        "sizes": np.array(sizes, np.int64),
    }
    if band_keys is not None:
        out["band_keys"] = _key_chunks(band_keys)
    if kept is not None:  # the sets, ids and lengths the verifier needs, without a second read
        out["sets"] = kept
        out["ids"] = ids_all if id_column is not None else None
    if st.exact and digs:
        d = cat(digs)
        rows = np.flatnonzero(~out["featureless"])
        d = d[rows]
        strings = _id_strings(ids_all) if id_column is not None else None
        bucket = (d[:, 0] % np.uint64(n_reducers)).astype(np.int64)  # a digest is uniform already
        pieces = {}
        for r in np.unique(bucket).tolist():
            sel = rows[bucket == r]
            pieces[r] = dict(
                d=d[bucket == r], row=sel, length=out["lengths"][sel], part=np.array([p], np.int64),
                **(_ids_columns(ids_all, strings, sel) if id_column is not None else {"ids": _ids_bytes([])}),
            )  # fmt: skip
        _save_pieces(sfs, run, "exact", p, n_reducers, pieces)
    return out


def _band_keys(st: DedupSettings):
    """The run's :class:`~simhash_lab.candidates.BandKeys` (``candidates="bands"``), or None: the
    band parameters ``dedup_table`` chooses (they do not depend on the rows)."""
    from .candidates import BandKeys

    return BandKeys(st.jaccard, st.recall) if st.candidates_method == "bands" else None


def _key_chunks(band_keys: BandKeys) -> tuple[int, list[np.ndarray]]:
    """``(bands, chunks)``: the partition's band keys as they were made, one (bands, rows) uint64
    array a chunk (not put side by side: the band map gathers each band's keys from them)."""
    return band_keys.bands, list(band_keys.parts)


def _docbits(offsets: np.ndarray) -> int:
    """Bits of a row number in a band key: as :meth:`~simhash_lab.candidates.BandKeys.pairs`
    numbers the rows of all partitions."""
    n = int(offsets[-1])
    if n >= 1 << 32:
        raise ValueError(f"band candidates take fewer than 2**32 rows, got {n}")
    return max(1, int(n - 1).bit_length())


@small_pages()
def _band_map_part(
    part: dict,
    offsets: np.ndarray,
    n_reducers: int,
    sfs: AbstractFileSystem,
    run: str,
    p: int,
    _token: object = None,
):
    """Write this partition's numbered band keys into one piece per reducer (``map/{p}.pieces``:
    ``count``, the keys of each band, and ``key``, the keys band after band), the reducer picked by
    the key's hash bits and its band, so that equal keys of a band meet: its rows with features
    that represent their exact group, as ``dedup_table``'s ``BandKeys.pairs`` takes them (a key with
    its top bit set, a row without shingles, is left out). One band at a time: its keys (a few
    hundred KB) gathered, then numbered and split by reducer in one counting pass
    (:func:`~simhash_lab.candidates.split_band`)."""
    offset = int(offsets[p])
    from .candidates import split_band

    bands, chunks = part["band_keys"]
    docbits = _docbits(offsets)
    ok = ~part["featureless"]
    ok[_copy_rows(sfs, run, p) - int(offset)] = False
    cols = np.flatnonzero(ok)
    number = cols.astype(np.uint64) + np.uint64(int(offset))
    starts = np.cumsum([0] + [c.shape[1] for c in chunks])
    at = np.searchsorted(cols, starts)  # the kept rows of each chunk: cols[at[c]:at[c + 1]]
    local = [cols[at[c] : at[c + 1]] - starts[c] for c in range(len(chunks))]
    per_r: list[list[np.ndarray]] = [[] for _ in range(n_reducers)]
    counts = np.zeros((n_reducers, bands), np.int64)
    kb = np.empty(cols.size, np.uint64)
    cuts = np.empty(n_reducers + 1, np.int64)
    for b in range(bands):
        for c, chunk in enumerate(chunks):
            if local[c].size:  # in range: "clip" lets np.take write to out without a buffer
                np.take(chunk[b], local[c], out=kb[at[c] : at[c + 1]], mode="clip")
        split = np.empty(cols.size, np.uint64)
        split_band(kb, number, docbits, b, split, cuts)  # numbered, by reducer (their order kept)
        counts[:, b] = np.diff(cuts)
        for r in np.flatnonzero(counts[:, b]).tolist():
            per_r[r].append(split[cuts[r] : cuts[r + 1]])
    pieces = {r: {"count": counts[r], "key": np.concatenate(per_r[r])} for r in range(n_reducers) if per_r[r]}
    _save_pieces(sfs, run, "map", p, n_reducers, pieces)
    return int(np.count_nonzero(ok))


def _band_runs_pairs(counts: list, keys: list, docbits: int) -> np.ndarray:
    """The distinct pairs ``i << 32 | j`` (uint64, sorted) among the map pieces' numbered keys:
    :func:`~simhash_lab.candidates.bucket_pairs` of their keys, each piece's keys band after band
    (``counts[x][b]`` keys of band ``b``), put together a band at a time in one row of scratch
    (each band's keys gathered from the pieces, sorted, its pairs counted and written, as
    ``BandKeys.pairs`` does one band of every row) instead of sorted by band first."""
    from .candidates import band_pairs, sort_bands, unique_sorted_pairs

    starts = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in counts]
    sizes = np.sum(counts, axis=0).astype(np.int64)
    scratch = np.empty((1, int(sizes.max(initial=0))), np.uint64)
    none = np.empty(0, np.uint64)
    found = []
    for b in np.flatnonzero(sizes > 1).tolist():
        row = scratch[:, : sizes[b]]
        at = 0
        for s, k in zip(starts, keys):
            m = int(s[b + 1] - s[b])
            row[0, at : at + m] = k[s[b] : s[b + 1]]
            at += m
        sort_bands(row)
        count = np.zeros(1, np.int64)
        band_pairs(row, docbits, False, none, count)
        if count[0]:
            out = np.empty(int(count[0]), np.uint64)
            band_pairs(row, docbits, True, out, np.zeros(1, np.int64))
            found.append(out)
    packed = np.concatenate(found) if found else none
    return packed[: unique_sorted_pairs(packed)]


def _band_reduce_route(r: int, _token: object, sfs: AbstractFileSystem, run: str, offsets: np.ndarray):
    """Candidate pairs of reducer ``r``'s band keys (every two rows whose keys of a band agree),
    routed to the partition of their first row as ``(i, j, 0)``: the distance is the verifier's
    (``_right_part``), a pair found by several bands (buckets) is counted once there."""
    got = _pieces(sfs, run, "map", r)
    if not got:
        return 0
    packed = _band_runs_pairs([x["count"] for x in got], [x["key"] for x in got], _docbits(offsets))
    pairs = np.zeros((packed.size, 3), np.int64)
    pairs[:, 0] = (packed >> np.uint64(32)).astype(np.int64)
    pairs[:, 1] = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return _route_left(sfs, run, r, pairs, offsets)


def _exact_reduce(
    r: int,
    _token: object,
    sfs: AbstractFileSystem,
    run: str,
    offsets: np.ndarray,
    keep: str,
    id_column: str | None,
):
    """The exact groups of reducer ``r``'s digests (every copy of a text meets here): each row's
    representative by :func:`~simhash_lab.dedup.exact_groups`, the first in ``dedup_table``'s
    visiting order (rows in order; ``keep="longest"``: most characters first, ties in row order);
    the copies (rows not their own representative) routed to their partition's piece of
    ``copies/{r}.pieces`` with their representatives and both ids."""
    from .dedup import exact_groups

    got = _pieces(sfs, run, "exact", r)
    if not got:
        return 0
    d = np.concatenate([x["d"] for x in got])
    rows = np.concatenate([x["row"] + offsets[int(x["part"][0])] for x in got]).astype(np.int64)
    lens = np.concatenate([x["length"] for x in got])
    order = np.lexsort((rows, -lens)) if keep == "longest" else np.argsort(rows, kind="stable")
    rank = np.empty(rows.size, np.int64)
    rank[order] = np.arange(rows.size)
    local = np.arange(rows.size)
    rep = exact_groups(d, rank, local)
    cp = np.flatnonzero(rep != local)
    if not cp.size:
        return 0
    # the ids of the copies and their representatives only (row numbers across all partitions
    # without an id column, as dedup_table numbers them)
    if id_column is None:
        id_cp, id_rp = rows[cp].tolist(), rows[rep[cp]].tolist()
    else:
        both = _ids_at(got, np.concatenate([cp, rep[cp]]))
        id_cp, id_rp = both[: cp.size], both[cp.size :]
    part = np.searchsorted(offsets, rows[cp], side="right") - 1
    pieces = {}
    for q in np.unique(part).tolist():
        at = np.flatnonzero(part == q)
        sel = cp[at]
        pieces[q] = dict(
            row=rows[sel], rep=rows[rep[sel]],
            id_row=_ids_bytes([id_cp[i] for i in at.tolist()]),
            id_rep=_ids_bytes([id_rp[i] for i in at.tolist()]),
        )  # fmt: skip
    _save_pieces(sfs, run, "copies", r, len(offsets) - 1, pieces)
    return int(cp.size)


def _copies(sfs: AbstractFileSystem, run: str, p: int | None = None) -> dict:
    """The exact copies found (of partition ``p``; None: of all), sorted by row: ``row``, ``rep``
    (int64) and, with ``ids``, their ids."""
    got = _pieces(sfs, run, "copies", p)
    row = np.concatenate([x["row"] for x in got]) if got else np.empty(0, np.int64)
    rep_ = np.concatenate([x["rep"] for x in got]) if got else np.empty(0, np.int64)
    id_row = [v for x in got for v in _ids_of(x["id_row"])]
    id_rep = [v for x in got for v in _ids_of(x["id_rep"])]
    order = np.argsort(row, kind="stable")
    return {
        "row": row[order].astype(np.int64),
        "rep": rep_[order].astype(np.int64),
        "id_row": [id_row[i] for i in order.tolist()],
        "id_rep": [id_rep[i] for i in order.tolist()],
    }


def _copy_rows(sfs: AbstractFileSystem, run: str, p: int | None = None) -> np.ndarray:
    """The rows of :func:`_copies` alone (their ids not read)."""
    got = [x["row"] for x in _pieces(sfs, run, "copies", p, ("row",))]
    return np.concatenate(got).astype(np.int64) if got else np.empty(0, np.int64)


def _part_counts(part: dict) -> tuple[int, int, list]:
    """A task's rows, rows shingled by characters, and each of its files' rows."""
    return int(part["fps"].shape[0]), int(part["chars"]), part["sizes"].tolist()


def _file_offsets_of(counts: list) -> np.ndarray:
    return _offsets([int(n) for c in counts for n in c[2]])


def _offsets_of(counts: list) -> np.ndarray:
    return _offsets([int(c[0]) for c in counts])


#: a partition's calibration rows (sampled, or within ``k_max`` of a sampled one) whose shingle
#: sets its scan task hands to the calibration; more (clustered fingerprints): read again there
_CAL_SETS_ROWS = 200_000


def _cal_draw(parts: list, _token: object, sfs: AbstractFileSystem, run: str, st: DedupSettings):
    """The calibration's seeded sample (:func:`~simhash_lab.calibration.draw_sample`, as
    :func:`~simhash_lab.dedup.calibrate` draws it in one process: among the rows of every
    partition with features that represent their exact group) and the sampled fingerprints: what
    each partition's scan task takes. Holds the fingerprints of every row (9 bytes a row)."""
    from .calibration import draw_sample

    fps = _concat_fps([x["fps"] for x in parts])
    featureless = np.concatenate([x["featureless"] for x in parts]) if parts else np.empty(0, np.bool_)
    search = ~featureless
    search[_copy_rows(sfs, run)] = False
    sample = check_int("sample", st.sample, 1, 1 << 40)
    draw, _ = draw_sample(fps.shape[0], search, sample, st.seed, _featurizer(st).bits)
    return draw, fps[draw.picked]


@small_pages()
def _cal_scan(
    p: int,
    drawn: tuple,
    part: dict,
    offsets: np.ndarray,
    sfs: AbstractFileSystem,
    run: str,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    st: DedupSettings,
):
    """One partition's share of the calibration, where its fingerprints are: every searchable row
    of it within ``k_max`` of a sampled one (``(a, b, d)``: sampled row, row, distance; global
    numbers), and the shingle sets of those rows and of its sampled ones (from the sets its
    fingerprinting kept, else read again from its file; none above ``_CAL_SETS_ROWS`` rows)."""
    from .calibration import neighbours_within

    draw, queries = drawn
    offset = int(offsets[p])
    size = int(part["fps"].shape[0])
    ok = ~part["featureless"]
    ok[_copy_rows(sfs, run, p) - offset] = False
    rows = np.flatnonzero(ok)
    if draw.picked.size:
        indptr, ids, d = neighbours_within(queries, part["fps"][rows], draw.k_max)
    else:
        indptr, ids, d = np.zeros(1, np.int64), np.empty(0, np.int64), np.empty(0, np.int64)
    a = np.repeat(draw.picked, np.diff(indptr))
    picked = draw.picked[(draw.picked >= offset) & (draw.picked < offset + size)] - offset
    need = np.unique(np.concatenate([picked, rows[ids]])).astype(np.int64)
    if need.size > _CAL_SETS_ROWS:
        need = need[:0]
    if need.size:
        ind, dat = _rows_sets(part, fs, paths, column, id_column, fmt, need, offset, st)[:2]
    else:
        ind, dat = np.zeros(1, np.int64), np.empty(0, np.uint64)
    return a, rows[ids] + offset, d, need + offset, ind, dat


class _GatheredSets:
    """The shingle sets the calibration's scan tasks gathered (rows, CSR), as
    :func:`~simhash_lab.shingles.gather_sets` takes them (``subset``): a row none of them
    brought is read again from ``source``."""

    def __init__(
        self, rows: np.ndarray, indptr: np.ndarray, data: np.ndarray, source: Any, feat: Any
    ) -> None:
        self.rows, self.indptr, self.data = rows, indptr, data
        self.source, self.feat = source, feat

    def subset(self, rows: np.ndarray):
        from .shingles import SetStore, gather_sets

        have, ptr, data = self.rows, self.indptr, self.data
        pos = np.minimum(np.searchsorted(have, rows), max(have.size - 1, 0))
        found = (have[pos] == rows) if have.size else np.zeros(rows.size, np.bool_)
        if not found.all():  # read the others again, then all of them in row order
            more = gather_sets(self.source, rows[~found], self.feat)
            have = np.concatenate([have, rows[~found]])
            ptr = np.concatenate([ptr, more.indptr[1:] + ptr[-1]])
            data = np.concatenate([data, more.data])
            order = np.argsort(have, kind="stable")
            pos = order[np.searchsorted(have[order], rows)]
        lens = ptr[pos + 1] - ptr[pos]
        out = np.zeros(rows.size + 1, np.int64)
        np.cumsum(lens, out=out[1:])
        idx = np.repeat(ptr[pos] - out[:-1], lens) + np.arange(out[-1])
        store = SetStore(rows)
        store.add(out, data[idx])
        store.finish()
        return store


def _cal_measure(
    drawn: tuple,
    scans: list,
    fs: AbstractFileSystem,
    paths: list[str],
    args: tuple,
    offsets: np.ndarray,
    st: DedupSettings,
):
    """The calibration of k for ``st.jaccard`` from the partitions' scans:
    :func:`~simhash_lab.calibration.measure`, as :func:`~simhash_lab.dedup.calibrate` measures
    in one process (the same sample, neighbours and sets): the one decision. Reads rows again only
    where a scan brought no sets (or for the synthetic pairs, when the sample holds too few)."""
    from ._validate import check_fraction
    from .calibration import measure

    draw, _ = drawn
    feat = _featurizer(st)
    source = _partitions_source(fs, paths, args, offsets)

    def cat(i: int, dt: Any) -> np.ndarray:
        return np.concatenate([x[i] for x in scans]).astype(dt, copy=False) if scans else np.empty(0, dt)

    hits = (cat(0, np.int64), cat(1, np.int64), cat(2, np.int64)) if draw.picked.size else None
    ptr = _offsets([int(x[4][-1]) for x in scans])
    indptr = np.concatenate([np.zeros(1, np.int64)] + [x[4][1:] + ptr[i] for i, x in enumerate(scans)])
    sets = _GatheredSets(cat(3, np.int64), indptr, cat(5, np.uint64), source, feat)
    threshold = check_fraction("jaccard", st.jaccard)
    recall = check_fraction("recall", st.recall)
    return measure(draw, hits, source, feat, threshold, recall, sets=sets)


def _fps_view(part: dict) -> dict:
    return {"fps": part["fps"], "featureless": part["featureless"]}


def _k_of(cal: Any) -> int:
    return int(cal.k)


#: the calibration's task names, as ``dask.utils.key_split`` gives them (without the "_")
_CALIBRATION_TASKS = frozenset(f.__name__.lstrip("_") for f in (_cal_draw, _cal_scan, _cal_measure, _k_of))


def _masks_task(
    offsets: np.ndarray, k: int, bits: int, layout: Any, max_tables: int, memory_budget: int | None = None
):
    """The join's tables. ``"auto"``: the design :class:`~simhash_lab.SimhashIndex` would choose for
    the pairs of this many fingerprints on one thread (its cost model), among layouts with keys;
    the pigeonhole when it would scan."""
    from .index.design import choose_layout, default_memory_budget, layout_tables

    if isinstance(layout, str) and layout == "auto":
        n = int(offsets[-1])
        budget = default_memory_budget() if memory_budget is None else memory_budget
        layout, _ = choose_layout(n, int(k), bits, "pairs", max_tables, budget, 1)
        if layout == "scan":
            layout = ("permuted", int(k) + 1)
        return np.array(layout_tables(layout, int(k), bits)[0], dtype=np.uint64)
    return table_masks(int(k), bits, layout)


def _map_part(
    part: dict,
    offsets: np.ndarray,
    masks: np.ndarray,
    n_reducers: int,
    sfs: AbstractFileSystem,
    run: str,
    p: int,
    _token: object = None,
):
    """Write this partition's ``(table, fp, id)`` rows into one piece per reducer: its rows with
    features that represent their exact group (the copies found are not searched)."""
    offset = int(offsets[p])

    fps = part["fps"]
    ids = np.arange(int(offset), int(offset) + fps.size, dtype=np.int64)
    ok = ~part["featureless"]
    ok[_copy_rows(sfs, run, p) - int(offset)] = False
    fps, ids = fps[ok], ids[ok]
    tt, ff, ii, bb = [], [], [], []
    for t in range(masks.size):
        bb.append(_bucket_of(fps & masks[t], t, n_reducers))
        tt.append(np.full(fps.size, t, np.int32))
        ff.append(fps)
        ii.append(ids)
    if not bb:
        return 0
    order, cuts = _by_bucket(np.concatenate(bb), n_reducers)
    tt, ff, ii = (np.concatenate(x)[order] for x in (tt, ff, ii))
    pieces = {}
    for r in range(n_reducers):
        s, e = cuts[r], cuts[r + 1]
        if e > s:
            pieces[r] = {"t": tt[s:e], "f": ff[s:e], "i": ii[s:e]}
    _save_pieces(sfs, run, "map", p, n_reducers, pieces)
    return int(fps.size)


def _barrier(*counts: int) -> int:
    return int(sum(int(c) for c in counts))


def _reduce_route(
    r: int, _token: object, sfs: AbstractFileSystem, run: str, masks: np.ndarray, k: int, offsets: np.ndarray
):
    """Candidate pairs of reducer ``r``'s pieces, routed to the partition of their first row."""
    pieces = [(x["t"], x["f"], x["i"]) for x in _pieces(sfs, run, "map", r)]
    return _route_left(sfs, run, r, _reduce_task(pieces, masks, int(k)), offsets)


def _route_left(sfs: AbstractFileSystem, run: str, r: int, pairs: np.ndarray, offsets: np.ndarray) -> int:
    """Write reducer ``r``'s pairs ``(i, j, d)`` to the partitions of their first rows."""
    if pairs.shape[0] == 0:
        return 0
    part = np.searchsorted(offsets, pairs[:, 0], side="right") - 1
    order = np.argsort(part, kind="stable")
    pairs, part = pairs[order], part[order]
    cuts = np.flatnonzero(np.diff(part)) + 1
    pieces = {int(part[chunk[0]]): {"pairs": pairs[chunk]} for chunk in np.split(np.arange(part.size), cuts)}
    _save_pieces(sfs, run, "left", r, len(offsets) - 1, pieces)
    return int(pairs.shape[0])


def _texts_of(
    fs: AbstractFileSystem,
    paths: Sequence[str],
    sizes: np.ndarray,
    column: str,
    id_column: str | None,
    fmt: str | None,
    local_rows: np.ndarray,
    offset: int = 0,
):
    """Texts and ids of the rows ``local_rows`` (sorted, distinct; numbered across the task's
    files ``paths``, of ``sizes`` rows each: a file with none of them is not read; no id column:
    the row numbers across all partitions, as ``dedup_table`` gives them)."""
    starts = _offsets(sizes)
    want = set(local_rows.tolist())
    texts, ids = [], []
    for f, path in enumerate(paths):
        lo, hi = np.searchsorted(local_rows, [starts[f], starts[f + 1]])
        if lo == hi:
            continue
        row = int(starts[f])
        for ts, idl, _, _ in _chunks_of(fs, [path], column, id_column, fmt):
            for t, i in zip(ts, idl):
                if row in want:
                    texts.append(t)
                    ids.append(i if id_column is not None else row + int(offset))
                row += 1
    return texts, ids


def _rows_sets(
    part: dict,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    local_rows: np.ndarray,
    offset: int,
    st: DedupSettings,
):
    """``(indptr, data, lengths, ids)`` of the rows ``local_rows`` (sorted, distinct) of one
    task's files: from the sets its fingerprinting kept, or read and shingled again."""
    if "sets" in part:
        store = part["sets"].subset(local_rows)
        lengths = part["lengths"][local_rows]
        if id_column is None:
            ids = (local_rows + int(offset)).tolist()
        else:
            ids = [part["ids"][r] for r in local_rows.tolist()]
        return store.indptr, store.data, lengths, ids
    texts, ids = _texts_of(fs, paths, part["sizes"], column, id_column, fmt, local_rows, offset)
    ind, dat = _featurizer(st).sets(texts)
    return ind, dat, np.fromiter(map(len, texts), np.int64, len(texts)), ids


@small_pages()
def _left_part(
    p: int,
    _token: object,
    sfs: AbstractFileSystem,
    run: str,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    offsets: np.ndarray,
    st: DedupSettings,
    part: dict,
):
    """Attach the shingle sets (and fingerprints) of the pairs' first rows (in this partition);
    route the pairs to the partition of their second row."""
    offset = int(offsets[p])

    fps = part["fps"]
    got = _pieces(sfs, run, "left", p)
    if not got:
        return 0
    pairs = np.concatenate([x["pairs"] for x in got])
    if st.candidates_method == "bands":  # a pair found by bands of several reducers: once
        packed = np.unique((pairs[:, 0].astype(np.uint64) << np.uint64(32)) | pairs[:, 1].astype(np.uint64))
        pairs = np.zeros((packed.size, 3), np.int64)
        pairs[:, 0] = (packed >> np.uint64(32)).astype(np.int64)
        pairs[:, 1] = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    rows = np.unique(pairs[:, 0])
    ind, dat, lengths, ids = _rows_sets(
        part, fs, paths, column, id_column, fmt, rows - int(offset), offset, st
    )
    part = np.searchsorted(offsets, pairs[:, 1], side="right") - 1
    pieces = {}
    for q in np.unique(part).tolist():
        sel = pairs[part == q]
        loc = np.searchsorted(rows, sel[:, 0])
        uniq, inv = np.unique(loc, return_inverse=True)
        sizes = np.diff(ind)[uniq]
        sub_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        sub = np.concatenate([dat[ind[u] : ind[u + 1]] for u in uniq.tolist()]) if uniq.size else dat[:0]
        pieces[q] = dict(
            pairs=sel,
            which=inv.astype(np.int64),
            indptr=sub_ptr,
            data=sub,
            lengths=lengths[uniq],
            fps=fps[rows[uniq] - int(offset)],
            ids=_ids_bytes([ids[u] for u in uniq.tolist()]),
        )
    _save_pieces(sfs, run, "right", p, len(offsets) - 1, pieces)
    return int(pairs.shape[0])


@small_pages()
def _right_part(
    q: int,
    _token: object,
    sfs: AbstractFileSystem,
    run: str,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    column: str,
    id_column: str | None,
    fmt: str | None,
    offsets: np.ndarray,
    st: DedupSettings,
    part: dict,
):
    """Verify the pairs whose second row is in this partition: exact Jaccard of the two sets; the
    pairs' Hamming distances from the two fingerprints."""
    offset = int(offsets[q])
    from .dedup import Shingler
    from .hamming import hamming

    parts = _pieces(sfs, run, "right", q)
    if not parts:
        return 0
    rows = np.unique(np.concatenate([x["pairs"][:, 1] for x in parts]))
    ind_b, dat_b, len_b, ids = _rows_sets(
        part, fs, paths, column, id_column, fmt, rows - int(offset), offset, st
    )
    threshold = st.jaccard
    out = {key: [] for key in ("i", "j", "d", "s", "li", "lj")}
    id_i, id_j = [], []
    for x in parts:
        ids_a = _ids_of(x["ids"])
        ptr = np.concatenate([x["indptr"], ind_b[1:] + x["indptr"][-1]])
        data = np.concatenate([x["data"], dat_b])
        lb = np.searchsorted(rows, x["pairs"][:, 1])
        sim = Shingler.jaccard(ptr, data, x["which"], lb + x["indptr"].size - 1)
        ok = sim >= threshold
        d = hamming(x["fps"][x["which"][ok]], part["fps"][x["pairs"][ok, 1] - int(offset)])
        out["i"].append(x["pairs"][ok, 0])
        out["j"].append(x["pairs"][ok, 1])
        out["d"].append(d.astype(np.int64))
        out["s"].append(sim[ok])
        out["li"].append(x["lengths"][x["which"][ok]])
        out["lj"].append(len_b[lb[ok]])
        id_i.extend(ids_a[w] for w in x["which"][ok].tolist())
        id_j.extend(ids[b] for b in lb[ok].tolist())
    cat = {key: np.concatenate(v) for key, v in out.items()}
    _save_pieces(sfs, run, "verified", q, 1, {0: dict(**cat, id_i=_ids_bytes(id_i), id_j=_ids_bytes(id_j))})
    return int(cat["i"].size)


def _cluster(_token: object, sfs: AbstractFileSystem, run: str, keep: str, linkage: str = "complete"):
    """The keep/drop pass over every verified pair (on one worker), then the exact copies: each
    goes where its representative goes (dropped for it, or for what it is dropped for, at its
    distance and similarity), as in ``dedup_table``; the dropped rows saved for the partitions'
    writes. Returns ``(summary, duplicates)`` (the table: :func:`_write_duplicates`). Memory in
    proportion to the verified pairs and the copies."""
    from ._storage import join
    from .dedup import Duplicates, keep_drop

    cols = {key: [] for key in ("i", "j", "d", "s", "li", "lj")}
    id_of: dict = {}
    for z in _pieces(sfs, run, "verified", None):
        for key in cols:
            cols[key].append(z[key])
        for r, v in zip(z["i"].tolist(), _ids_of(z["id_i"])):
            id_of[r] = v
        for r, v in zip(z["j"].tolist(), _ids_of(z["id_j"])):
            id_of[r] = v
    c = {key: (np.concatenate(v) if v else np.empty(0)) for key, v in cols.items()}
    drops = Duplicates()
    if c["i"].size:
        i, j = c["i"].astype(np.int64), c["j"].astype(np.int64)
        order_e = np.lexsort((j, i))  # the single-machine edge order: sorted pairs
        i, j = i[order_e], j[order_e]
        d, s = c["d"][order_e].astype(np.int64), c["s"][order_e]
        li, lj = c["li"][order_e], c["lj"][order_e]
        nodes, first = np.unique(np.concatenate([i, j]), return_index=True)
        lens = np.concatenate([li, lj])[first]
        if keep == "longest":
            order = np.lexsort((nodes, -lens))
        else:
            order = np.arange(nodes.size)
        u, v = np.searchsorted(nodes, i), np.searchsorted(nodes, j)
        state, rep, via = keep_drop(order, u, v, np.arange(i.size), linkage == "complete")
        gone = np.flatnonzero(state == 2)
        e = via[gone]
        drops = Duplicates(
            dropped=nodes[gone],
            kept=nodes[rep[gone]],
            distance=d[e],
            similarity=s[e],
            dropped_id=[id_of[r] for r in nodes[gone].tolist()],
            kept_id=[id_of[r] for r in nodes[rep[gone]].tolist()],
        )
    cps = _copies(sfs, run)
    drops = _with_copies(drops, cps, id_of)
    _save(sfs, join(sfs, run, f"drops{_PIECE}"), rows=drops.dropped)
    summary = {
        "dropped": len(drops),
        "verified": int(c["i"].size),
        "groups": len(set(drops.kept.tolist())),
        "exact": int(cps["row"].size),
    }
    return summary, drops


def _summary_of(clustered: tuple) -> dict:
    return clustered[0]


def _write_duplicates(clustered: tuple, ofs: AbstractFileSystem, output: str) -> int:
    """The duplicates table of :func:`_cluster`, as ``output/duplicates.parquet``: a task of its
    own, beside the partitions' writes (which need only the dropped rows)."""
    from ._storage import join, staged_file
    from .datasets import write_duplicates

    drops = clustered[1]
    with staged_file(ofs, join(ofs, output, "duplicates.parquet")) as local:
        write_duplicates(local, drops, format="parquet")
    return len(drops)


def _with_copies(drops: Duplicates, cps: dict, id_of: dict):
    """``drops`` (the search's) with the exact copies ``cps`` added, sorted by dropped row: a copy
    of a kept representative is dropped for it (distance 0, similarity 1); a copy of a dropped one
    is dropped for the row that one is dropped for, at its distance and similarity (``dedup_table``'s
    rule)."""
    from .dedup import Duplicates

    if not cps["row"].size:
        return drops
    order = np.argsort(drops.dropped, kind="stable")
    dr, kr = drops.dropped[order], drops.kept[order]
    pos = np.minimum(np.searchsorted(dr, cps["rep"]), max(dr.size - 1, 0))
    hit = (dr[pos] == cps["rep"]) if dr.size else np.zeros(cps["rep"].size, np.bool_)
    goes = np.where(hit, kr[pos] if dr.size else 0, cps["rep"])
    dist = np.where(hit, drops.distance[order][pos] if dr.size else 0, 0).astype(np.int64)
    sim = np.where(hit, drops.similarity[order][pos] if dr.size else 1.0, 1.0).astype(np.float64)
    kept_id = [id_of[g] if h else r for g, h, r in zip(goes.tolist(), hit.tolist(), cps["id_rep"])]
    rows = np.concatenate([drops.dropped, cps["row"]]).astype(np.int64)
    srt = np.argsort(rows, kind="stable")
    dropped_id = list(drops.dropped_id) + list(cps["id_row"])
    kept_ids = list(drops.kept_id) + kept_id
    return Duplicates(
        dropped=rows[srt],
        kept=np.concatenate([drops.kept, goes]).astype(np.int64)[srt],
        distance=np.concatenate([drops.distance.astype(np.int64), dist])[srt],
        similarity=np.concatenate([drops.similarity.astype(np.float64), sim])[srt],
        dropped_id=[dropped_id[i] for i in srt.tolist()],
        kept_id=[kept_ids[i] for i in srt.tolist()],
    )


@small_pages()
def _write_part(
    p: int,
    _token: object,
    sfs: AbstractFileSystem,
    run: str,
    fs: AbstractFileSystem,
    paths: Sequence[str],
    first: int,
    column: str,
    id_column: str | None,
    fmt: str | None,
    offsets: np.ndarray,
    counts: tuple,
    ofs: AbstractFileSystem,
    output: str,
):
    """The kept rows of one task's files, each as its own ``part-NNNNN.parquet`` (the input's
    columns; ``NNNNN``: the file's place among all partitions, from ``first``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ._storage import join, staged_file

    offset, n_rows = int(offsets[p]), int(offsets[p + 1] - offsets[p])
    drops = _load(sfs, join(sfs, run, f"drops{_PIECE}"))["rows"]
    lo, hi = np.searchsorted(drops, [int(offset), int(offset) + int(n_rows)])
    keep_all = np.ones(int(n_rows), np.bool_)
    keep_all[drops[lo:hi] - int(offset)] = False
    starts = _offsets(counts[2])
    kept = 0
    for f, path in enumerate(paths):
        keep = keep_all[starts[f] : starts[f + 1]]
        src = _source(fs, path, column, id_column, fmt)
        if src.format not in ("parquet", "jsonl"):
            raise ValueError(f"partitions must be Parquet or JSONL files, got {src.format}")
        with staged_file(ofs, join(ofs, output, f"part-{first + f:05d}.parquet")) as local:
            if src.format == "parquet":
                kept += src.write_kept(local, keep)
                continue
            # the columns of every row, not of the kept ones: a partition whose every row is
            # dropped has the input's columns too (0 rows), as its neighbours do
            table = pa.Table.from_pylist([src._parse(line, raw)[0] for _, line, raw in src._records()])
            rows = table.filter(pa.array(keep))
            pq.write_table(rows, local)
            kept += rows.num_rows
    return kept


def dedup_dataset(
    partitions: str | os.PathLike | Sequence[str | os.PathLike],
    output: str | os.PathLike,
    settings: DedupSettings | None = None,
    *,
    column: str = "text",
    id_column: str | None = None,
    format: str | None = None,
    layout: Any = "auto",
    n_reducers: int | None = None,
    task_bytes: int | None = None,
    scratch: str | None = None,
    storage_options: dict | None = None,
    scheduler: Any = None,
    compute: bool = True,
    **options: Any,
) -> Any:
    """Verified dedup of a partitioned dataset on Dask: Parquet or JSONL files in, the kept rows out
    as partitioned Parquet, the same decisions as :func:`simhash_lab.dedup.dedup_table` on the
    rows of all partitions in order (with the same arguments: the same k, the same kept rows, the
    same duplicates table).

    Steps (one task per reducer or per run of consecutive files, see ``task_bytes``; nothing but
    small counts comes back to the client): normalise and fingerprint each task's files (``dedup_table``'s
    :class:`~simhash_lab.shingles.Featurizer`: under ``features="auto"`` text in a script without
    word spaces is shingled by characters); the exact groups (each partition's 128-bit digests of
    its normalised texts shuffled by their value, so that every copy of a text meets in one
    reducer, which picks the representative ``dedup_table`` picks: the first in its visiting
    order); calibrate k (``dedup_table``'s calibration on the rows of every partition, the same
    seeded sample among the same representatives: drawn on one task, each partition's
    fingerprints scanned against it where they are, with the sets of the rows it needs, then
    measured on one task; no row read again; with ``candidates="bands"``, where k is only
    reported, its tasks run at a Dask priority below the rest, in the slots the pipeline leaves
    idle); Manku's map/reduce for the candidate
    pairs of representatives within ``k`` (or, with ``candidates="bands"``, the pairs that share a
    MinHash band); route each pair to its first row's partition, which
    attaches that row's shingle set, then to its second row's, which verifies the pair by exact
    Jaccard; the keep/drop pass over the verified pairs, then each exact copy goes where its
    representative goes (one task: memory in proportion to verified pairs and copies, not rows);
    each partition writes its kept rows to ``output/part-NNNNN.parquet``, and the duplicates table goes to
    ``output/duplicates.parquet``. The shuffles go through ``scratch`` (default
    ``output/_shuffle``), which every worker must reach; this run's folder in it is removed at the end
    (after a failure too, once the run's tasks still running on the workers have stopped).

    Parameters
    ----------
    partitions : str or sequence of str
        Parquet or JSONL files, as paths or fsspec URLs (``s3://bucket/in/*.parquet``); a glob or a
        folder (its ``.parquet``, ``.pq``, ``.jsonl`` and ``.ndjson`` files, sorted by name). Rows
        are numbered across them in order.
    output : str
        A folder, path or URL (created).
    settings : DedupSettings, optional
        The options every dedup entry point takes (:class:`~simhash_lab.settings.DedupSettings`;
        its fields may also be given as keywords: ``jaccard=0.7``): ``jaccard``, ``k``,
        ``recall``, ``sample``, ``seed``, ``hasher``, ``shingle``, ``keep``, ``linkage``,
        ``max_tables`` (default here 64: each table is 20 bytes a row in the shuffle),
        ``memory_budget``, ``features``, ``lang``, ``char_ngram``, ``normalize``, ``exact`` and
        ``candidates`` are used as ``dedup_table`` uses them (``"bands"``: each partition's
        MinHash band keys, made as it is fingerprinted, are shuffled by their value, and each
        reducer's pairs go to the verifier; a pair found by several bands is verified once);
        ``unverified`` is refused (every pair is verified), and ``progress`` is not used (Dask's
        dashboard shows the tasks).
    column : str
        The text column.
    id_column : str, optional
        The id column, whose values name the rows in the duplicates table (default: the row
        numbers across all partitions).
    format : str, optional
        ``"parquet"`` or ``"jsonl"`` (default: from each file's name).
    layout : str or tuple
        The join's tables: ``"auto"`` (the design ``SimhashIndex.pairs()`` picks for this many
        rows, at most ``max_tables`` tables), or a layout of :func:`table_masks`. With ``k``
        unset, k is calibrated (:func:`simhash_lab.dedup.calibrate`) for ``jaccard`` on ``sample``
        documents drawn (``seed``) across all partitions, as ``dedup_table`` draws them.
    n_reducers : int, optional
        Reduce tasks (default: one per task of files).
    task_bytes : int, optional
        Consecutive files are read by one task (the rows of each still written to its own output
        file) until the task holds about this many bytes of them on disk; a larger file is a task
        of its own (as ``dask.dataframe.read_parquet`` aggregates small files up to its
        ``blocksize``). Every task has fixed costs of its own in each step, which many small
        files would multiply. Default: the files' bytes over four tasks a worker thread of the
        scheduler (a ``distributed.Client``'s threads; one for ``"sync"``; else this machine's
        cores), at most 256 MiB. 0: a task a file. The decisions do not depend on it.
    scratch : str, optional
        Folder or URL for the shuffles (default ``output/_shuffle``).
    storage_options : dict, optional
        Passed to fsspec for every URL (``{"key": ..., "secret": ..., "client_kwargs":
        {"endpoint_url": ...}}`` for S3), as ``dask.dataframe.read_parquet`` takes them.
    scheduler : optional
        Passed to ``dask.compute`` (default: the active scheduler, e.g. a ``distributed.Client``).
    compute : bool
        False: return the delayed result (to inspect or persist the graph; the scratch folder is
        then left to the caller).
    **options
        Fields of ``settings``, as keywords.

    Returns
    -------
    dict
        ``rows``, ``dropped``, ``verified`` (pairs), ``groups``, ``kept`` (rows written), ``k``,
        ``exact`` (rows dropped as exact copies), ``by_chars`` (rows shingled by characters) and
        ``calibration`` (its summary line; None when ``k`` was given); with ``compute=False``
        the delayed of that dict.

    Raises
    ------
    ValueError
        A setting, ``layout`` or ``n_reducers`` out of range, ``unverified`` asked for, no
        partitions found, or an output that would replace a partition.
    TypeError
        ``storage_options`` is not a dict.
    simhash_lab.datasets.DatasetError
        A partition that cannot be read (its name, row and column in the message).
    """
    import uuid

    dask = _dask()
    delayed = dask.delayed
    from . import _storage

    st = _settings(settings, options)
    bits, k, keep, linkage = _featurizer(st).bits, st.k, st.keep, st.linkage
    max_tables = 64 if st.max_tables is None else st.max_tables
    if not (isinstance(layout, str) and layout == "auto"):
        table_masks(k or 3, bits, layout)  # check it now, on the client
    fs, paths = _storage.expand_partitions(partitions, storage_options)
    ofs, out_path = _storage.filesystem(output, storage_options, "output")
    if scratch is None:
        sfs, scratch_path = ofs, _storage.join(ofs, out_path, "_shuffle")
    else:
        sfs, scratch_path = _storage.filesystem(scratch, storage_options, "scratch")
    run = _storage.join(sfs, scratch_path, f"run-{uuid.uuid4().hex[:12]}")
    _check_overlap(fs, paths, ofs, out_path)
    groups = _task_groups(fs, paths, task_bytes, scheduler)
    tasks = [[paths[f] for f in g] for g in groups]  # each task's files
    R = check_int("n_reducers", n_reducers or len(tasks), 1, 1 << 20)
    made = not ofs.exists(out_path)
    ofs.makedirs(out_path, exist_ok=True)
    for sub in ("exact", "copies", "map", "left", "right", "verified"):
        sfs.makedirs(_storage.join(sfs, run, sub), exist_ok=True)
    args = (column, id_column, format)

    from .dedup import SETS_BUDGET

    sets_budget = SETS_BUDGET // max(len(tasks), 1)  # all tasks' sets: one process's budget
    parts = [delayed(_fp_part)(i, fs, t, *args, st, sfs, run, R, sets_budget) for i, t in enumerate(tasks)]
    counts = [delayed(_part_counts)(x) for x in parts]  # (rows, rows shingled by characters, files' rows)
    offsets = delayed(_offsets_of)(counts)  # each task's first row, after every task's fingerprints
    exact = [delayed(_exact_reduce)(r, offsets, sfs, run, offsets, keep, id_column) for r in range(R)]
    te = delayed(_barrier)(*exact)
    fp_only = [delayed(_fps_view)(x) for x in parts]  # not the band keys: 8 bytes a row a band

    def calibration(token: object):  # drawn on one worker, scanned where each partition is
        drawn = delayed(_cal_draw)(fp_only, token, sfs, run, st)
        scans = [
            delayed(_cal_scan)(i, drawn, parts[i], offsets, sfs, run, fs, t, *args, st)
            for i, t in enumerate(tasks)
        ]
        return delayed(_cal_measure)(drawn, scans, fs, paths, args, delayed(_file_offsets_of)(counts), st)

    bands = st.candidates_method == "bands"
    cal = None
    if k is None and not bands:  # the index's tables need k
        cal = calibration(te)
        k = delayed(_k_of)(cal)
    if bands:
        if k is None:  # only reported, nothing waits for it: its tasks come last in every
            # worker's queue, so they fill the slots the pipeline leaves idle (a worker waiting
            # for a barrier, the one clustering task); one that has started is not pre-empted, so
            # it can still hold the next task of the pipeline back by its length (0.03-0.08 s)
            with dask.annotate(priority=_calibration_last):
                cal = calibration(te)
                k = delayed(_k_of)(cal)
        maps = [delayed(_band_map_part)(x, offsets, R, sfs, run, i, te) for i, x in enumerate(parts)]
        t1 = delayed(_barrier)(*maps)
        routed = [delayed(_band_reduce_route)(r, t1, sfs, run, offsets) for r in range(R)]
    else:
        masks = delayed(_masks_task)(offsets, k, bits, layout, max_tables, st.memory_budget)
        maps = [delayed(_map_part)(x, offsets, masks, R, sfs, run, i, te) for i, x in enumerate(parts)]
        t1 = delayed(_barrier)(*maps)
        routed = [delayed(_reduce_route)(r, t1, sfs, run, masks, k, offsets) for r in range(R)]
    t2 = delayed(_barrier)(*routed)
    lefts = [
        delayed(_left_part)(i, t2, sfs, run, fs, t, *args, offsets, st, parts[i]) for i, t in enumerate(tasks)
    ]
    t3 = delayed(_barrier)(*lefts)
    rights = [
        delayed(_right_part)(i, t3, sfs, run, fs, t, *args, offsets, st, parts[i])
        for i, t in enumerate(tasks)
    ]
    t4 = delayed(_barrier)(*rights)
    clustered = delayed(_cluster)(t4, sfs, run, keep, linkage)
    summary = delayed(_summary_of)(clustered)
    dups = delayed(_write_duplicates)(clustered, ofs, out_path)  # beside the partitions' writes
    writes = [
        delayed(_write_part)(
            i, summary, sfs, run, fs, t, groups[i][0], *args, offsets, counts[i], ofs, out_path
        )
        for i, t in enumerate(tasks)
    ]
    chars = delayed(_chars_sum)(counts)
    result = delayed(_finish)(
        summary, delayed(_barrier)(*writes), offsets, k, cal, chars, get_language(), dups
    )
    if not compute:
        return result
    out = None
    try:
        out = _compute(dask, result, scheduler)
    finally:
        _storage.remove_tree(sfs, run)
        if scratch is None:
            _storage.remove_empty(sfs, scratch_path)
        if made and out is None:  # a failed run leaves no empty output folder it made
            _storage.remove_empty(ofs, out_path)
    return out


#: the most bytes of files ``dedup_dataset`` gives one task by default (``dask.dataframe``'s blocksize)
_TASK_BYTES_MAX = 256 << 20


def _task_groups(fs: AbstractFileSystem, paths: list[str], task_bytes: int | None, scheduler: Any) -> list:
    """The files of each task, as lists of their places in ``paths``: runs of consecutive files,
    as many as the files' bytes make of ``task_bytes`` (default: see ``dedup_dataset``), each
    file in the run its middle byte falls in, so that the runs hold about the same bytes (a file
    larger than a run: a task of its own)."""
    if task_bytes is None:
        sizes = _file_sizes(fs, paths)
        target = min(sum(sizes) / (4 * _scheduler_threads(scheduler)), _TASK_BYTES_MAX)
    else:
        target = check_int("task_bytes", task_bytes, 0, 1 << 62)
        sizes = _file_sizes(fs, paths) if target else []
    total = sum(sizes)
    if target <= 0 or total == 0:
        return [[f] for f in range(len(paths))]
    n = min(len(paths), max(1, math.ceil(total / target * (1 - 1e-9))))
    middles = np.cumsum(sizes) - np.asarray(sizes) / 2
    run = np.minimum((middles * n / total).astype(np.int64), n - 1)
    cuts = np.flatnonzero(np.diff(run)) + 1
    return [c.tolist() for c in np.split(np.arange(len(paths)), cuts)]


def _file_sizes(fs: AbstractFileSystem, paths: list[str]) -> list[int]:
    """Each file's bytes; a file that is not there: a DatasetError naming it, as reading it would."""
    from ._storage import url_of
    from .datasets import DatasetError

    sizes = []
    for path in paths:
        try:
            sizes.append(int(fs.size(path)))
        except OSError as e:
            missing = "No such file or directory" if isinstance(e, FileNotFoundError) else e
            raise DatasetError(f"{url_of(fs, path)}: {e.strerror or missing}") from None
    return sizes


def _scheduler_threads(scheduler: Any) -> int:
    """The worker threads of the scheduler a computation would use: a ``distributed.Client``'s,
    one for the synchronous scheduler, else this machine's cores."""
    import os

    from dask.local import get_sync

    get, client = _scheduler_of(scheduler)
    if get is get_sync:
        return 1
    if client is not None and hasattr(client, "nthreads"):
        n = sum(client.nthreads().values())
        if n:
            return int(n)
    return os.cpu_count() or 1


def _scheduler_of(scheduler: Any, collections: list | None = None) -> tuple:
    """``(get, client)``: the scheduler function ``dask.compute`` would use, and the
    ``distributed.Client`` it belongs to (None for the local schedulers)."""
    from dask.base import get_scheduler

    get = get_scheduler(scheduler=scheduler, collections=collections)
    return get, getattr(get, "__self__", None)


#: how long a failed run waits for its tasks still running on the workers, seconds
_STOP_WAIT = 600.0


def _compute(dask: Any, result: Any, scheduler: Any) -> Any:
    """``dask.compute(result)``. On a distributed client, when a task fails the others that have
    started are not stopped, and would write their pieces after the run's folder is removed: the
    error is raised once none of the graph's tasks is executing on any worker (at most
    :data:`_STOP_WAIT` seconds), so that the cleanup comes after their last write."""
    import time

    client = _scheduler_of(scheduler, [result])[1]
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


def _calibration_last(key: Any) -> int:
    """Dask priority of a task (``dask.annotate``): below the default for the calibration's tasks
    (a callable of the key, since an annotation given as a value reaches the tasks a collection
    depends on too: the whole pipeline before it)."""
    from dask.utils import key_split

    return -1 if key_split(key) in _CALIBRATION_TASKS else 0


def _check_overlap(fs: AbstractFileSystem, paths: list[str], ofs: AbstractFileSystem, out_path: str) -> None:
    """Refuse an output folder whose files would replace a partition (read until the last step)."""
    import os

    from ._storage import is_local, join, url_of

    if type(fs) is not type(ofs):
        return
    norm = os.path.realpath if is_local(fs) else (lambda p: p)
    outputs = [join(ofs, out_path, f"part-{p:05d}.parquet") for p in range(len(paths))]
    outputs.append(join(ofs, out_path, "duplicates.parquet"))
    clash = sorted({norm(p) for p in paths} & {norm(p) for p in outputs})
    if clash:
        raise ValueError(f"output: writing there would replace the partition {url_of(fs, clash[0])}")


def _settings(settings: DedupSettings | None, options: dict):
    """The run's :class:`~simhash_lab.settings.DedupSettings`, as ``dedup_table`` takes them (its
    :class:`~simhash_lab.shingles.Featurizer` is made from them in each task); what Dask does not
    run is refused here, naming the field."""
    import dataclasses

    from ._validate import check_k
    from .settings import DedupSettings

    st = DedupSettings.of(settings, **options)
    if st.unverified:
        raise ValueError("unverified: the raw Hamming mode is not run on Dask (every pair is verified)")
    k = None if st.k is None else check_k(st.k, _featurizer(st).bits)
    return dataclasses.replace(st, k=k)


def _chars_sum(counts: list) -> int:
    return int(sum(int(c[1]) for c in counts))


def _finish(
    summary: dict,
    kept: int,
    offsets: np.ndarray,
    k: int,
    cal: Any,
    chars: int = 0,
    lang: str = "en",
    _duplicates_written: object = None,
):
    # on a worker: the calibration's summary in the caller's language (a worker process starts in English)
    with language(lang):
        said = None if cal is None else cal.summary()
    return {
        **summary,
        "by_chars": int(chars),
        "rows": int(offsets[-1]),
        "kept": int(kept),
        "k": int(k),
        "calibration": said,
    }
