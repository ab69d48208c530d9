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

The map and the reduce are :func:`~simhash_lab.candidates.table_buckets` and
:func:`~simhash_lab.candidates.table_join`, which the candidates step of
:func:`~simhash_lab.distributed.dedup_dataset` runs too.

It runs on whatever Dask scheduler is active: a ``distributed.Client`` on a ``LocalCluster`` here,
the same code on a cluster (connect a ``Client`` to its scheduler; pass a ``dask.bag`` of texts read
where the data lives, e.g. ``dask.bag.read_text("s3://bucket/*.txt")``). Dask is an extra:
``pip install 'simhash-lab[dask]'``; without it these functions raise an ImportError that says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validate import check_int
from ..candidates import offsets as _offsets_of
from ..candidates import table_buckets, table_join
from ..index import SimhashIndex
from ..simhasher import Simhasher
from .cluster import need_dask

__all__ = ["fingerprints", "near_duplicates", "pairs", "table_masks"]


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
    if isinstance(layout, str) and layout in ("scan", "auto"):
        raise ValueError(
            f"layout must give tables to join on (blocks, seed, permuted, nested), got {layout!r}"
        )
    index = SimhashIndex(k=k, bits=bits, layout=layout)
    return np.array(index.table_masks, dtype=np.uint64)


def _fingerprint_task(texts: Any, hasher: Any) -> np.ndarray:
    return hasher.fingerprints(list(texts), parallel=False)


def _map_task(fps: np.ndarray, offset: int, masks: np.ndarray, n_reducers: int) -> list:
    """Split one partition into ``n_reducers`` buckets of ``(table, fp, id)`` rows
    (:func:`~simhash_lab.candidates.table_buckets`)."""
    fps = np.ascontiguousarray(fps, dtype=np.uint64)
    ids = np.arange(int(offset), int(offset) + fps.size, dtype=np.int64)
    got = table_buckets(fps, ids, masks, n_reducers)
    none = {"t": np.empty(0, np.int32), "f": np.empty(0, np.uint64), "i": np.empty(0, np.int64)}
    return [got.get(r, none) for r in range(n_reducers)]


def _pick(buckets: list, r: int):
    return buckets[r]


def _reduce_task(pieces: list, masks: np.ndarray, k: int) -> np.ndarray:
    """Every pair in one bucket (:func:`~simhash_lab.candidates.table_join`)."""
    return table_join(pieces, masks, k)


def _concat_fps(parts: list) -> np.ndarray:
    return np.concatenate(parts).astype(np.uint64, copy=False) if parts else np.empty(0, np.uint64)


def _take(offsets: np.ndarray, i: int):
    return offsets[i]


def _sorted_pairs(parts: list) -> np.ndarray:
    out = np.concatenate(parts) if parts else np.empty((0, 3), np.int64)
    if out.shape[0] > 1:
        out = out[np.lexsort((out[:, 1], out[:, 0]))]
    return out.astype(np.int64, copy=False)


def _fps_partitions(fps: Any, npartitions: int | None):
    """Delayed uint64 arrays from a NumPy array, a dask array, or a list of delayed arrays."""
    dask = need_dask()
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
    dask = need_dask()
    delayed = dask.delayed
    masks = table_masks(k, bits, layout)
    R = n_reducers or max(1, len(parts))
    check_int("n_reducers", R, 1, 1 << 20)
    lengths = [delayed(len)(p) for p in parts]
    offsets = delayed(_offsets_of)(lengths)
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
    dask = need_dask()
    import dask.bag as db

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
    dask = need_dask()
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
    dask = need_dask()
    hasher = Simhasher() if hasher is None else hasher
    parts = fingerprints(texts, hasher, npartitions)
    graph = _pairs_graph(parts, k, hasher.bits, layout, n_reducers)
    fps_all = dask.delayed(_concat_fps)(parts)
    fps_out, pairs_out = dask.compute(fps_all, graph, scheduler=scheduler)
    return fps_out.astype(np.uint64, copy=False), pairs_out
