"""``SimhashIndex``: the exact Hamming-distance index (tables, buffer, queries, pairs, groups).

See :mod:`simhash_lab.index` for how it works, :mod:`.design` for the table designs and
:mod:`.storage` for the file format.
"""

from __future__ import annotations

import math
import numbers
import os
import weakref
from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import _threads
from .._validate import check_budget, check_int, check_k
from ..kernels import index as _k
from ..kernels.index import ID_BITS, ID_MASK
from . import design as _d
from . import storage
from .design import (
    MAX_IDS,
    MAX_TABLES_FORCED,
    TWO_63,
    TWO_64,
    Layout,
    TableDesign,
    choose_layout,
    dir_bits,
    layout_design,
    layout_tables,
    normalize_layout,
)

__all__ = ["SimhashIndex"]


class SimhashIndex:
    """An exact Hamming-distance index over Simhash fingerprints.

    ``query(fp)`` returns every stored fingerprint within distance ``k`` of ``fp``, exactly what a
    brute-force scan returns, whatever the layout. Identical fingerprints are distinct entries and
    match each other at distance 0.

    Parameters
    ----------
    k : int
        Largest Hamming distance reported, ``0 <= k <= bits - 1``.
    bits : int
        Fingerprint width, 1..64; fingerprints are ints with ``0 <= fp < 2**bits``.
    layout : str or tuple
        ``"auto"`` (default), ``"scan"``, ``"seed"``, ``"blocks"``, ``("permuted", m)`` or
        ``("nested", m1, m2)``; see the module docstring.
    max_tables : int, optional
        Most tables ``"auto"`` may use (by default only ``memory_budget`` limits them, up to 4096).
    memory_budget : int, optional
        Bytes the tables of ``"auto"`` may use: 12 per fingerprint per table and about 1 of
        directory (``pairs()`` streams its tables, one per thread at a time, within the same budget).
        By default a quarter of the machine's physical memory. Forced layouts ignore it.

    Examples
    --------
    >>> index = SimhashIndex(k=3, bits=64)
    >>> index.add_many([0b1011, 0b1010, 0b1011, 0xFFFF << 48]).tolist()
    [0, 1, 2, 3]
    >>> index.query(0b1011)
    [(0, 0), (2, 0), (1, 1)]
    >>> index.pairs().tolist()
    [[0, 1, 1], [0, 2, 0], [1, 2, 1]]
    >>> index.groups()
    [[0, 1, 2]]

    Notes
    -----
    Ids are 0, 1, 2, ... in insertion order; removed ids are never reused. Not thread-safe for
    concurrent writes.
    """

    def __init__(
        self,
        k: int = 3,
        bits: int = 64,
        *,
        layout: Layout = "auto",
        max_tables: int | None = None,
        memory_budget: int | None = None,
    ) -> None:
        self._bits = check_int("bits", bits, 1, 64)
        self._k = check_k(k, self._bits)
        self._layout_request = normalize_layout(layout, self._k, self._bits)
        # as given (None: no cap but the budget), so that save/load keep the request
        self._max_tables = (
            None if max_tables is None else check_int("max_tables", max_tables, 1, MAX_TABLES_FORCED)
        )
        self._memory_budget = None if memory_budget is None else check_budget(memory_budget)
        self._version = 0  # bumped by every add and remove: the pairs() cache is keyed on it
        self._pairs_cache: tuple[int, weakref.ref] | None = None
        self._limit = 1 << self._bits
        self._fps = np.zeros(16, np.uint64)  # by id; capacity grows by doubling
        self._alive = np.zeros(16, np.bool_)
        self._n = 0  # ids handed out
        self._n_alive = 0
        self._n_main = 0  # ids < _n_main are in the tables (or removed)
        self._dead_in_tables = 0
        self._decided_n = -1  # size at the last auto decision
        req = self._layout_request
        self._set_layout("scan" if req == "auto" else ("permuted", self._k + 1) if req == "blocks" else req)
        self._dirty = False
        self._qargs: tuple | None = None  # the query kernel's arguments, while nothing changes
        self._bufs: list[np.ndarray] = []  # spare 64-slot output buffers for query()

    # -- small things --------------------------------------------------------------------------

    @property
    def k(self) -> int:
        """Largest Hamming distance reported."""
        return self._k

    @property
    def bits(self) -> int:
        """Fingerprint width."""
        return self._bits

    @property
    def layout(self) -> Layout:
        """The layout in use now: ``"scan"``, ``"seed"``, ``("permuted", m)`` or ``("nested", m1, m2)``.

        ``"auto"`` and ``"blocks"`` resolve to one of these (``"blocks"`` is ``("permuted", k+1)``).
        """
        self._maybe_flush()
        return self._layout

    @property
    def design(self) -> TableDesign:
        """The :class:`TableDesign` in use, with its costs for the current number of fingerprints."""
        self._maybe_flush()
        return layout_design(self._layout, self._n_alive, self._k, self._bits)

    @property
    def table_masks(self) -> list[int]:
        """The bits each table keeps exact, as ints (empty for a scan)."""
        self._maybe_flush()
        return [int(m) for m in self._masks]

    @property
    def nbytes(self) -> int:
        """Bytes held by the index's arrays (fingerprints, flags, tables and their directories,
        spare capacity included)."""
        return int(self._fps.nbytes + self._alive.nbytes + self.table_nbytes)

    @property
    def table_nbytes(self) -> int:
        """Bytes held by the tables: sorted fingerprints, ids and bucket directories."""
        return int(
            self._tfps.nbytes
            + self._tids.nbytes
            + self._dirs.nbytes
            + self._masks.nbytes
            + self._druns.nbytes
        )

    def __len__(self) -> int:
        """Number of fingerprints stored (removed ones excluded)."""
        return self._n_alive

    def __contains__(self, id: object) -> bool:
        return (
            isinstance(id, numbers.Integral)
            and not isinstance(id, bool)
            and 0 <= int(id) < self._n
            and bool(self._alive[int(id)])
        )

    def __repr__(self) -> str:
        return (
            f"SimhashIndex(k={self._k}, bits={self._bits}, layout={self._layout_request!r}, "
            f"n={self._n_alive})"
        )

    def fingerprint(self, id: int) -> int:
        """The fingerprint stored under ``id`` (a KeyError if there is none).

        Parameters
        ----------
        id : int
            An id :meth:`add` handed out.

        Returns
        -------
        int
        """
        return int(self._fps[self._check_id(id)])

    # -- validation ----------------------------------------------------------------------------

    def _check_fp(self, fp: Any, param: str = "fp") -> np.uint64:
        if type(fp) is int and 0 <= fp < self._limit:  # the fast path
            return np.uint64(fp)
        if isinstance(fp, (bool, np.bool_)) or not isinstance(fp, numbers.Integral):
            raise TypeError(
                f"{param} must be an int fingerprint (0 <= fp < 2**{self._bits}), got {type(fp).__name__}"
            )
        v = int(fp)
        if v < 0:
            raise ValueError(f"{param} must be a non-negative fingerprint, got {v}")
        if v >= self._limit:
            raise ValueError(
                f"{param}={v} does not fit in bits={self._bits}: fingerprints must "
                f"satisfy 0 <= fp < 2**{self._bits} (was it made with another `bits`?)"
            )
        return np.uint64(v)

    def _check_fps(self, fps: Any, param: str = "fps") -> np.ndarray:
        """A 1-D C-contiguous uint64 array of valid fingerprints."""
        if fps is None or isinstance(fps, (str, bytes)):
            raise TypeError(
                f"{param} must be a sequence or 1-D array of int fingerprints, got {type(fps).__name__}"
            )
        if not isinstance(fps, np.ndarray):
            lst = fps if isinstance(fps, list) else list(fps)
            if all(type(v) is int for v in lst):  # the usual case: plain Python ints
                if lst and (min(lst) < 0 or max(lst) >= self._limit):
                    for i, v in enumerate(lst):
                        self._check_fp(v, f"{param}[{i}]")
                return np.array(lst, dtype=np.uint64)
            arr = np.empty(len(lst), dtype=object)
            arr[:] = lst
        else:
            arr = fps
        if arr.ndim != 1:
            raise ValueError(f"{param} must be 1-D, got an array of shape {arr.shape}")
        if arr.dtype == object:  # Python ints beyond int64/uint64, or mixed types
            arr = np.array([self._check_fp(v, f"{param}[{i}]") for i, v in enumerate(arr)], dtype=np.uint64)
        elif arr.dtype.kind == "i":
            if arr.size and arr.min() < 0:
                i = int(np.argmin(arr))
                raise ValueError(f"{param}[{i}] must be a non-negative fingerprint, got {arr[i]}")
        elif arr.dtype.kind != "u" and not (arr.size == 0 and arr.dtype.kind == "f"):
            raise TypeError(f"{param} must hold int fingerprints, got dtype {arr.dtype}")
        arr = np.ascontiguousarray(arr, dtype=np.uint64)
        if self._bits < 64 and arr.size:
            big = np.flatnonzero(arr >= np.uint64(self._limit))
            if big.size:
                i = int(big[0])
                raise ValueError(
                    f"{param}[{i}]={int(arr[i])} does not fit in bits={self._bits}: "
                    f"fingerprints must satisfy 0 <= fp < 2**{self._bits} "
                    "(were they made with another `bits`?)"
                )
        return arr

    def _check_id(self, id: Any) -> int:
        if isinstance(id, (bool, np.bool_)) or not isinstance(id, numbers.Integral):
            raise TypeError(f"id must be an int, got {type(id).__name__}")
        i = int(id)
        if not (0 <= i < self._n and self._alive[i]):
            raise KeyError(f"id {i} is not in the index (never added, or removed)")
        return i

    # -- adding and removing ---------------------------------------------------------------------

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        if need > MAX_IDS:
            raise ValueError(f"the index holds at most {MAX_IDS} ids, {need} were asked for")
        if need > self._fps.shape[0]:
            cap = max(need, 2 * self._fps.shape[0])
            fps = np.zeros(cap, np.uint64)
            fps[: self._n] = self._fps[: self._n]
            alive = np.zeros(cap, np.bool_)
            alive[: self._n] = self._alive[: self._n]
            self._fps, self._alive = fps, alive

    def add(self, fp: int) -> int:
        """Store one fingerprint; returns its id (the next integer, starting at 0).

        Parameters
        ----------
        fp : int
            ``0 <= fp < 2**bits``.

        Returns
        -------
        int
            The new fingerprint's id.
        """
        q = self._check_fp(fp)
        self._reserve(1)
        i = self._n
        self._fps[i] = q
        self._alive[i] = True
        self._n += 1
        self._n_alive += 1
        self._dirty = True
        self._qargs = None
        self._version += 1
        return i

    def add_many(self, fps: Iterable[int] | np.ndarray) -> np.ndarray:
        """Store many fingerprints; returns their ids, consecutive, in order.

        Parameters
        ----------
        fps : sequence of int or array of shape (m,), any unsigned (or non-negative) integer dtype

        Returns
        -------
        array of shape (m,), int64
        """
        arr = self._check_fps(fps)
        m = arr.shape[0]
        self._reserve(m)
        start = self._n
        self._fps[start : start + m] = arr
        self._alive[start : start + m] = True
        self._n += m
        self._n_alive += m
        self._dirty = self._dirty or m > 0
        self._qargs = None
        self._version += m > 0
        return np.arange(start, start + m, dtype=np.int64)

    def remove(self, id: int) -> None:
        """Remove the fingerprint stored under ``id``; the id is never reused.

        Parameters
        ----------
        id : int
            An id :meth:`add` handed out.

        Raises
        ------
        KeyError
            If ``id`` was never handed out or is already removed.
        """
        i = self._check_id(id)
        self._alive[i] = False
        self._n_alive -= 1
        if i < self._n_main:
            self._dead_in_tables += 1
        self._dirty = True
        self._qargs = None
        self._version += 1

    # -- tables --------------------------------------------------------------------------------

    def _set_layout(self, layout: Layout) -> None:
        self._layout = layout
        masks = layout_tables(layout, self._k, self._bits)[0]
        self._masks = np.array(masks, dtype=np.uint64).reshape(len(masks))
        self._min_key_bits = min((m.bit_count() for m in masks), default=0)
        self._tfps = np.zeros((len(masks), 0), np.uint64)
        self._tids = np.zeros((len(masks), 0), np.uint32)
        self._dir_bits(0)
        self._dirs = np.zeros((len(masks), 2), np.uint32)
        self._n_main = 0
        self._dead_in_tables = 0

    def _dir_bits(self, n: int) -> int:
        """Directory bits for tables of ``n`` entries (2 to 4 entries per bucket); sets the runs."""
        r = dir_bits(n, self._min_key_bits)
        self._druns = _dir_runs(self._masks, r)
        return r

    def _rebuild(self, layout: Layout) -> None:
        """Build every table from scratch for ``layout``."""
        self._set_layout(layout)
        n_tables = self._masks.shape[0]
        if n_tables == 0:
            return
        self._tfps = self._tids = self._dirs = None  # drop the old tables before building new ones
        fps, ids = self._live()
        r = self._dir_bits(ids.shape[0])
        self._tfps, self._tids, self._dirs = _new_tables(n_tables, ids.shape[0], r)
        _build(fps, ids, self._druns, r, 0, self._tfps, self._tids, self._dirs)
        self._n_main = self._n

    def _live(self) -> tuple[np.ndarray, np.ndarray]:
        """The live fingerprints and their ids (uint32), in id order (a view when none was removed)."""
        if self._n_alive == self._n:
            return self._fps[: self._n], np.arange(self._n, dtype=np.uint32)
        ids = np.flatnonzero(self._alive[: self._n]).astype(np.uint32)
        return self._fps[ids], ids

    def _buffer_cap(self) -> int:
        return max(256, 2 * math.isqrt(self._tfps.shape[1]))

    def _maybe_flush(self, force: bool = False) -> None:
        """Bring the tables up to date when the buffer or the removed entries grew too large."""
        if not (self._dirty or force):
            return
        if self._layout_request == "auto" and (
            self._decided_n < 0 or self._n_alive > 2 * self._decided_n or 4 * self._n_alive < self._decided_n
        ):
            self._decided_n = self._n_alive
            layout = choose_layout(
                self._n_alive, self._k, self._bits, "index", self._table_cap(), self._budget()
            )[0]
            if layout != self._layout:
                self._rebuild(layout)
        if self._masks.shape[0]:
            # A rebuild (a counting sort per table) costs less than merging the buffer in would.
            n_buf = self._n - self._n_main
            if (
                (force and (n_buf or self._dead_in_tables))
                or n_buf > self._buffer_cap()
                or 2 * self._dead_in_tables > self._tfps.shape[1]
            ):
                self._rebuild(self._layout)
        self._dirty = False
        self._qargs = None

    def flush(self) -> None:
        """Bring pending adds and removals into the tables now (queries do it lazily when needed)."""
        self._dirty = True
        self._qargs = None
        self._maybe_flush(force=True)

    # -- queries -------------------------------------------------------------------------------

    def query(self, fp: int) -> list[tuple[int, int]]:
        """Every stored fingerprint within distance ``k`` of ``fp``.

        Parameters
        ----------
        fp : int
            ``0 <= fp < 2**bits``.

        Returns
        -------
        list of (id, distance)
            Sorted by distance, then id. A stored copy of ``fp`` comes back at distance 0.
        """
        if not (type(fp) is int and 0 <= fp < self._limit):  # the fast path skips the checks
            fp = int(self._check_fp(fp))
        if fp >= TWO_63:  # the kernel takes the same 64 bits as an int64
            fp -= TWO_64
        if self._dirty:
            self._maybe_flush()
        args = self._qargs
        if args is None:
            args = self._table_args()
        bufs = self._bufs  # output buffers, one per concurrent query (list.pop is atomic)
        out = bufs.pop() if bufs else np.empty(64, np.int64)
        m = _k.query_one_kernel(fp, *args, out)
        if m > 64:  # many matches: a buffer of the right size
            bufs.append(out)
            out = np.empty(m, np.int64)
            m = _k.query_one_kernel(fp, *args, out)
            return [(x & ID_MASK, x >> ID_BITS) for x in out.tolist()]
        res = [(x & ID_MASK, x >> ID_BITS) for x in out[:m].tolist()] if m else []
        bufs.append(out)
        return res

    def _table_args(self) -> tuple:
        """The query kernels' arguments after the queries: ``k``, the tables and the fingerprints, as
        they are now (kept in ``_qargs`` until the next change)."""
        if self._qargs is None:
            self._qargs = (
                self._k,
                self._masks,
                self._druns,
                self._dirs,
                self._tfps,
                self._tids,
                self._fps,
                self._alive,
                self._n_main,
                self._n,
            )
        return self._qargs

    def query_many(
        self, fps: Iterable[int] | np.ndarray, *, return_arrays: bool = False
    ) -> list[list[tuple[int, int]]] | tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`query` for each fingerprint, in parallel.

        Parameters
        ----------
        fps : sequence of int or array of shape (nq,), unsigned integers
        return_arrays : bool
            Return the CSR arrays instead of lists.

        Returns
        -------
        list of list of (id, distance)
            One list per query, as :meth:`query` returns. With ``return_arrays=True``:
            ``(indptr, ids, distances)``, int64 arrays of shapes (nq + 1,), (m,), (m,); the matches of
            query ``i`` are ``ids[indptr[i]:indptr[i + 1]]``.
        """
        qs = self._check_fps(fps)
        self._maybe_flush()
        nq = qs.shape[0]
        work = nq * (self._n - self._n_main + 32 * self._masks.shape[0])
        parallel = work >= _k.PARALLEL_MIN_WORK
        args = (qs, *self._table_args())
        n_chunks = min(nq, 16 * _threads.thread_count()) if parallel else min(nq, 1)
        bounds = np.linspace(0, nq, n_chunks + 1).astype(np.int64)
        qlo, qhi = bounds[:-1], bounds[1:]
        counts = np.empty(nq, np.int64)
        off = _offsets(4 * (qhi - qlo) + 16)  # room for a few matches per query, else run again
        keys = np.empty(off[-1], np.int64)

        def kernel(qlo: np.ndarray, qhi: np.ndarray, off: np.ndarray, keys: np.ndarray) -> None:  # in threads
            _threads.run_items(
                qlo.shape[0],
                lambda a, b: _k.query_many_kernel(*args, qlo[a:b], qhi[a:b], off[a : b + 1], keys, counts),
                parallel,
            )

        kernel(qlo, qhi, off, keys)
        found = np.add.reduceat(counts, qlo) if n_chunks else counts[:0]
        over = np.flatnonzero(found > np.diff(off))
        if over.size:  # chunks with more matches than room: again, alone, with the exact room
            off2 = _offsets(found[over])
            keys2 = np.empty(off2[-1], np.int64)
            kernel(qlo[over], qhi[over], off2, keys2)
        parts, j = [], 0
        for c in range(n_chunks):
            if j < over.size and over[j] == c:
                parts.append(keys2[off2[j] : off2[j + 1]])
                j += 1
            else:
                parts.append(keys[off[c] : off[c] + found[c]])
        keys = np.concatenate(parts) if len(parts) != 1 else parts[0]
        indptr = np.zeros(nq + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        ids = keys & ID_MASK
        d = keys >> ID_BITS
        if return_arrays:
            return indptr, ids, d
        pairs = list(zip(ids.tolist(), d.tolist()))
        cuts = indptr.tolist()
        return [pairs[cuts[i] : cuts[i + 1]] for i in range(nq)]

    # -- all pairs -------------------------------------------------------------------------------

    def pairs(self) -> np.ndarray:
        """Every pair of stored fingerprints within distance ``k``.

        With ``layout="auto"`` the pairs come from whichever is cheaper by the cost model (see
        :mod:`simhash_lab.index.design`): the tables built for queries, or tables of a design chosen
        for this job, built and dropped one thread's worth at a time (so its memory stays within
        ``memory_budget`` whatever the number of tables). A forced layout uses its own tables.

        Returns
        -------
        array of shape (m, 3), int64, read-only
            Rows ``(i, j, d)`` with ``i < j`` and ``d = hamming(fp_i, fp_j) <= k``, sorted by
            ``(i, j)``. While it is alive and nothing is added or removed, later calls (and
            :meth:`groups`) return this same array instead of computing it again.
        """
        if self._pairs_cache is not None and self._pairs_cache[0] == self._version:
            cached = self._pairs_cache[1]()
            if cached is not None:
                return cached
        out = self._compute_pairs()
        out.flags.writeable = False
        self._pairs_cache = (self._version, weakref.ref(out))
        return out

    def _compute_pairs(self) -> np.ndarray:
        if self._n_alive < 2:
            return np.empty((0, 3), np.int64)
        if self._layout_request != "auto":  # a forced layout: its own tables
            self.flush()
            if self._masks.shape[0] == 0:
                return self._pairs_streamed("scan")
            return self._pairs_stored()
        n, threads = self._n_alive, _threads.thread_count()
        layout, cost = choose_layout(
            n, self._k, self._bits, "pairs", self._table_cap(), self._budget(), threads
        )
        if self._masks.shape[0] and self._n_main:  # tables built for queries: would they do?
            d = layout_design(self._layout, n, self._k, self._bits)
            stale = self._n > self._n_main or self._dead_in_tables  # then flush() rebuilds them
            if d.est_pairs_ns + (d.est_build_ns if stale else 0.0) <= cost:
                self.flush()
                return self._pairs_stored()
        return self._pairs_streamed(layout)

    def _pairs_streamed(self, layout: Layout) -> np.ndarray:
        """All pairs through the tables of ``layout``, built a few at a time and dropped."""
        fps, ids = self._live()
        masks = np.array(layout_tables(layout, self._k, self._bits)[0], dtype=np.uint64)
        if masks.shape[0] == 0:  # the scan: one "table" keyed on no bits, a single group
            zero = np.zeros(1, np.uint64)
            return self._unpack([self._pair_keys(fps[None, :], ids[None, :], zero, zero, 0)])
        r = dir_bits(ids.shape[0], min(int(m).bit_count() for m in masks))
        druns = _dir_runs(masks, r)
        gmasks = _runs_mask(druns)
        # Tables built at once: one per thread, more while small (fewer parallel calls: each one
        # wakes the threads and waits for the slowest).
        per_table = 16 * ids.shape[0] + 8 * (1 << r)  # the row, the build's scratch, the directory
        step = max(_threads.thread_count(), min(self._budget() // 8, _STREAM_BYTES) // max(per_table, 1), 1)
        parts = []
        tf, ti, dirs = _new_tables(min(step, masks.shape[0]), ids.shape[0], r)  # reused: no new pages
        scratch = None
        progress = getattr(self, "_progress", None)  # (tables done, tables): dedup's candidates bar
        for t0 in range(0, masks.shape[0], step):
            rows = min(step, masks.shape[0] - t0)
            scratch = _build(fps, ids, druns, r, t0, tf[:rows], ti[:rows], dirs[:rows], scratch)
            parts.append(self._pair_keys(tf[:rows], ti[:rows], masks, gmasks[t0 : t0 + rows], t0))
            if progress is not None:
                progress(t0 + rows, int(masks.shape[0]))
        del tf, ti, dirs, scratch
        return self._unpack(parts)

    def _pairs_stored(self) -> np.ndarray:
        """All pairs through the tables built for queries."""
        return self._unpack(
            [self._pair_keys(self._tfps, self._tids, self._masks, _runs_mask(self._druns), 0)]
        )

    def _unpack(self, parts: list) -> np.ndarray:
        keys = np.concatenate(parts) if len(parts) != 1 else parts[0]
        keys.sort()
        return _k.unpack_pairs_kernel(keys, self._fps)

    def _pair_keys(
        self, tfps: np.ndarray, tids: np.ndarray, masks: np.ndarray, gmasks: np.ndarray, t0: int
    ) -> np.ndarray:
        """Packed pairs (uint64 ``i << 32 | j``, unsorted) that rows ``tfps`` (tables ``t0 ..``) report;
        ``gmasks`` are the rows' grouping bits (see ``pairs_chunks_kernel``).

        The work is cut into chunks of about equal cost (long groups across several) and run in
        waves; each chunk writes into its own slice, sized from the density of pairs seen so far, and
        only a chunk that found more than its slice holds is run again (alone, with the exact room).
        """
        rows, n = tfps.shape
        threads = _threads.thread_count()
        est = rows * n + sum(n * (n - 1) / 2.0 ** (int(m).bit_count() + 1) for m in gmasks.tolist())
        parallel = _parallel(2, est)
        target = max(1 << 15, int(est // (16 * threads))) if parallel else 1 << 62
        ct, lo, hi, _ = _k.pair_chunks_kernel(tfps, gmasks, target)
        k = self._k

        def kernel(  # chunk ranges in threads
            cts: np.ndarray,
            los: np.ndarray,
            his: np.ndarray,
            off: np.ndarray,
            out: np.ndarray,
            counts: np.ndarray,
        ) -> None:
            _threads.run_items(
                cts.shape[0],
                lambda a, b: _k.pairs_chunks_kernel(
                    tfps,
                    tids,
                    masks,
                    gmasks,
                    t0,
                    k,
                    *(x[a:b] for x in (cts, los, his)),
                    off[a : b + 1],
                    out,
                    counts[a:b],
                ),
                parallel,
            )

        density = 1 / 16  # pairs per entry a chunk makes room for, raised by what chunks find
        # Two waves: a few chunks to measure the density, then the rest with room to match.
        parts, c, wave = [], 0, 2 * threads if ct.shape[0] > 8 * threads else ct.shape[0]
        while c < ct.shape[0]:
            sl = slice(c, min(c + wave, ct.shape[0]))
            cts, los, his = ct[sl], lo[sl], hi[sl]
            entries = his - los
            off = _offsets(np.ceil(entries * density).astype(np.int64) + 16)
            out = np.empty(off[-1], np.uint64)
            counts = np.empty(entries.shape[0], np.int64)
            kernel(cts, los, his, off, out, counts)
            over = counts > np.diff(off)
            parts.extend(out[off[j] : off[j] + counts[j]] for j in np.flatnonzero(~over))
            if over.any():  # again, alone, with the exact room
                j = np.flatnonzero(over)
                off2 = _offsets(counts[j])
                out2 = np.empty(off2[-1], np.uint64)
                kernel(cts[j], los[j], his[j], off2, out2, counts[j].copy())
                parts.append(out2)
            density = max(density, 1.25 * float((counts / np.maximum(entries, 1)).max()))
            c = sl.stop
            wave = ct.shape[0]
        if not parts:
            return np.empty(0, np.uint64)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    def groups(self) -> list[list[int]]:
        """Near-duplicate clusters: connected components of the :meth:`pairs` graph.

        Uses the array :meth:`pairs` returned while it is alive and nothing was added or removed
        since, instead of computing the pairs again.

        Returns
        -------
        list of list of int
            Each cluster's ids, sorted, for clusters of two or more; clusters sorted by first id.
            Clusters are transitive closures: two members may be farther apart than ``k``.
        """
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        p = self.pairs()
        if p.shape[0] == 0:
            return []
        n = self._n
        graph = coo_matrix((np.ones(p.shape[0], np.int8), (p[:, 0], p[:, 1])), shape=(n, n))
        _, labels = connected_components(graph, directed=False)
        nodes = np.unique(p[:, :2])
        lab = labels[nodes]
        order = np.lexsort((nodes, lab))
        nodes, lab = nodes[order], lab[order]
        cuts = np.flatnonzero(np.diff(lab)) + 1
        groups = [g.tolist() for g in np.split(nodes, cuts)]
        groups.sort()
        return groups

    # -- choices -------------------------------------------------------------------------------

    def _table_cap(self) -> int:
        return MAX_TABLES_FORCED if self._max_tables is None else self._max_tables

    def _budget(self) -> int:
        return check_budget(self._memory_budget)

    # -- persistence -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to ``path`` (no pickle; versioned; checksummed; atomic).

        See :mod:`simhash_lab.index.storage` for the format.

        Parameters
        ----------
        path : str or os.PathLike
        """
        storage.save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> SimhashIndex:
        """Read an index written by :meth:`save`.

        Parameters
        ----------
        path : str or os.PathLike

        Returns
        -------
        SimhashIndex

        Raises
        ------
        ValueError
            If the file is not a simhash-lab index, has an unsupported version, or is truncated or
            altered (its checksum does not match).
        """
        return storage.load(cls, path)


#: Bytes of tables ``pairs()`` may build at once beyond one per thread (small tables go together).
_STREAM_BYTES = 16 << 20


def _new_tables(rows: int, n: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.empty((rows, n), np.uint64),
        np.empty((rows, n), np.uint32),
        np.empty((rows, (1 << r) + 1), np.uint32),
    )


def _build(
    fps: np.ndarray,
    ids: np.ndarray,
    druns: np.ndarray,
    r: int,
    t0: int,
    out_f: np.ndarray,
    out_i: np.ndarray,
    dirs: np.ndarray,
    scratch: np.ndarray | None = None,
):
    """Build tables ``t0 ..`` into ``out_f``/``out_i``/``dirs`` (parallel when large); returns the
    scratch it used, for the next call."""
    rows, n = out_f.shape
    parallel = _parallel(rows, rows * n)
    workers = min(rows, _threads.thread_count()) if parallel else 1
    if scratch is None or scratch[0].shape[0] < workers:
        scratch = (np.empty((workers, n), np.uint32), np.empty((workers, n), np.uint32))
    two = _d.two_passes(n, r)

    def rows_of(a: int, b: int) -> None:  # worker w builds rows w, w + workers, ... with its scratch
        for w in range(a, b):
            _k.build_tables_kernel(
                fps, ids, druns, r, t0, out_f, out_i, dirs, scratch[0][w], scratch[1][w], two, w, workers
            )

    _threads.run_ranges(rows_of, workers, threads=workers, size=1)
    return scratch


def _parallel(n_tables: int, work: float) -> bool:
    """Whether a kernel over ``n_tables`` tables (or chunks) and ``work`` entries runs in parallel."""
    return n_tables > 1 and work >= _k.PARALLEL_MIN_WORK


def _offsets(sizes: np.ndarray) -> np.ndarray:
    out = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def _dir_runs(masks: np.ndarray, r: int) -> np.ndarray:
    """``(shift, width)`` runs of each mask's ``r`` highest set bits, highest first; width 0 pads.

    Returns a uint64 array of shape (T, R, 3): ``(shift, width, 2**width - 1)`` for the kernels'
    ``_compress``.
    """
    per_mask = []
    for m in masks.tolist():
        runs, left = [], r
        while left and m:
            top = m.bit_length()
            lo = (~m & ((1 << top) - 1)).bit_length()  # the run of ones is [lo, top)
            width = min(top - lo, left)
            runs.append((top - width, width))
            left -= width
            m &= (1 << lo) - 1
        per_mask.append(runs)
    out = np.zeros((len(per_mask), max(1, max(map(len, per_mask), default=1)), 3), np.uint64)
    for t, runs in enumerate(per_mask):
        for j, (shift, width) in enumerate(runs):
            out[t, j] = shift, width, (1 << width) - 1
    return out


def _runs_mask(druns: np.ndarray) -> np.ndarray:
    """The bits each table's runs cover, as uint64 masks of shape (T,)."""
    return np.bitwise_or.reduce(druns[:, :, 2] << druns[:, :, 0], axis=1).astype(np.uint64)
