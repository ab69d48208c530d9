"""``SimhashIndex``: the exact Hamming-distance index (tables, buffer, queries, pairs, groups).

See :mod:`simhash_lab.index` for how it works, :mod:`.design` for the table designs and
:mod:`.storage` for the file format.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._validate import check_int
from ..kernels import index as _k
from ..kernels.index import _ID_BITS, _ID_MASK
from . import storage
from .design import (
    _DIR_MAX_BITS,
    _MAX_IDS,
    _TWO_63,
    _TWO_64,
    MAX_TABLES_FORCED,
    Layout,
    TableDesign,
    _check_k,
    _choose_layout,
    _design,
    _layout_tables,
    _normalize_layout,
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
    max_tables : int
        Most tables ``"auto"`` may use (memory: 12 bytes per fingerprint per table).

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

    def __init__(self, k: int = 3, bits: int = 64, *, layout: Layout = "auto", max_tables: int = 20) -> None:
        self._bits = check_int("bits", bits, 1, 64)
        self._k = _check_k(k, self._bits)
        self._layout_request = _normalize_layout(layout, self._k, self._bits)
        self._max_tables = check_int("max_tables", max_tables, 1, MAX_TABLES_FORCED)
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
        return _design(self._layout, self._n_alive, self._k, self._bits)

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
            + self._dshift.nbytes
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
        """The fingerprint stored under ``id`` (a KeyError if there is none)."""
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
        if need > _MAX_IDS:
            raise ValueError(f"the index holds at most {_MAX_IDS} ids, {need} were asked for")
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
        return np.arange(start, start + m, dtype=np.int64)

    def remove(self, id: int) -> None:
        """Remove the fingerprint stored under ``id``; the id is never reused.

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

    # -- tables --------------------------------------------------------------------------------

    def _set_layout(self, layout: Layout) -> None:
        self._layout = layout
        masks = _layout_tables(layout, self._k, self._bits)[0]
        self._masks = np.array(masks, dtype=np.uint64).reshape(len(masks))
        # Each mask's highest run of set bits [lo, top): the directory uses its leading bits.
        tops, lens = [], []
        for m in masks:
            top = m.bit_length()
            lo = top
            while lo > 0 and (m >> (lo - 1)) & 1:
                lo -= 1
            tops.append(top)
            lens.append(top - lo)
        self._dir_top = np.array(tops, dtype=np.int64)
        self._dir_maxbits = min(lens, default=0)
        self._tfps = np.zeros((len(masks), 0), np.uint64)
        self._tids = np.zeros((len(masks), 0), np.uint32)
        self._build_dirs()
        self._n_main = 0
        self._dead_in_tables = 0

    def _dir_bits(self, n: int) -> int:
        """Directory bits for ``n`` entries (about 2 to 4 entries per bucket); sets the shifts."""
        r = min(self._dir_maxbits, max(0, n.bit_length() - 2), _DIR_MAX_BITS)
        self._dshift = (self._dir_top - r) if r else np.zeros_like(self._dir_top)
        return r

    def _build_dirs(self) -> None:
        """Directory on the ``r`` leading key bits of each table."""
        r = self._dir_bits(self._tfps.shape[1])
        self._dirs = _k.build_dirs_kernel(self._tfps, self._dshift, r)

    def _rebuild(self, layout: Layout) -> None:
        """Build every table from scratch for ``layout``."""
        self._set_layout(layout)
        if self._masks.shape[0] == 0:
            return
        ids = np.flatnonzero(self._alive[: self._n]).astype(np.uint32)
        fps = self._fps[ids]
        n_tables = self._masks.shape[0]
        r = self._dir_bits(ids.shape[0])
        build = (
            _k.build_tables_kernel
            if n_tables > 1 and n_tables * ids.shape[0] >= _k.PARALLEL_MIN_WORK
            else _k.build_tables_kernel_serial
        )
        self._tfps, self._tids, self._dirs = build(fps, ids, self._masks, self._dshift, r)
        self._n_main = self._n

    def _merge(self) -> None:
        """Merge the buffer into the tables and drop removed entries (O(n) per table)."""
        lo = self._n_main
        bids = (lo + np.flatnonzero(self._alive[lo : self._n])).astype(np.uint32)
        bfps = self._fps[bids]
        n_tables = self._masks.shape[0]
        sf = np.empty((n_tables, bids.shape[0]), np.uint64)
        si = np.empty((n_tables, bids.shape[0]), np.uint32)
        for t, mask in enumerate(self._masks):
            order = np.argsort(bfps & mask, kind="stable")
            np.take(bfps, order, out=sf[t])
            np.take(bids, order, out=si[t])
        work = n_tables * (self._tfps.shape[1] + bids.shape[0])
        merge = (
            _k.merge_tables_kernel
            if n_tables > 1 and work >= _k.PARALLEL_MIN_WORK
            else _k.merge_tables_kernel_serial
        )
        self._tfps, self._tids = merge(
            self._tfps, self._tids, sf, si, self._masks, self._alive, self._n_alive
        )
        self._build_dirs()
        self._n_main = self._n
        self._dead_in_tables = 0

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
            layout = _choose_layout(self._n_alive, self._k, self._bits, self._max_tables)
            if layout != self._layout:
                self._rebuild(layout)
        if self._masks.shape[0]:
            n_buf = self._n - self._n_main
            if n_buf > self._tfps.shape[1]:  # mostly new: build from scratch (counting sort)
                self._rebuild(self._layout)
            elif (
                (force and (n_buf or self._dead_in_tables))
                or n_buf > self._buffer_cap()
                or 2 * self._dead_in_tables > self._tfps.shape[1]
            ):
                self._merge()
        self._dirty = False
        self._qargs = None

    def flush(self) -> None:
        """Merge pending adds and removals into the tables now (queries do it lazily when needed)."""
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
        if fp >= _TWO_63:  # the kernel takes the same 64 bits as an int64
            fp -= _TWO_64
        if self._dirty:
            self._maybe_flush()
        args = self._qargs
        if args is None:
            args = self._qargs = (
                self._k,
                self._masks,
                self._dshift,
                self._dirs,
                self._tfps,
                self._tids,
                self._fps,
                self._alive,
                self._n_main,
                self._n,
            )
        bufs = self._bufs  # output buffers, one per concurrent query (list.pop is atomic)
        out = bufs.pop() if bufs else np.empty(64, np.int64)
        m = _k.query_one_kernel(fp, *args, out)
        if m > 64:  # many matches: a buffer of the right size
            bufs.append(out)
            out = np.empty(m, np.int64)
            m = _k.query_one_kernel(fp, *args, out)
            return [(x & _ID_MASK, x >> _ID_BITS) for x in out.tolist()]
        res = [(x & _ID_MASK, x >> _ID_BITS) for x in out[:m].tolist()] if m else []
        bufs.append(out)
        return res

    def query_many(self, fps: Iterable[int] | np.ndarray, *, return_arrays: bool = False):
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
        work = qs.shape[0] * (self._n - self._n_main + 32 * self._masks.shape[0])
        kernel = _k.query_many_kernel if work >= _k.PARALLEL_MIN_WORK else _k.query_many_kernel_serial
        indptr, ids, d = kernel(
            qs,
            self._k,
            self._masks,
            self._dshift,
            self._dirs,
            self._tfps,
            self._tids,
            self._fps,
            self._alive,
            self._n_main,
            self._n,
        )
        if return_arrays:
            return indptr, ids, d
        pairs = list(zip(ids.tolist(), d.tolist()))
        bounds = indptr.tolist()
        return [pairs[bounds[i] : bounds[i + 1]] for i in range(qs.shape[0])]

    def pairs(self) -> np.ndarray:
        """Every pair of stored fingerprints within distance ``k``.

        Returns
        -------
        array of shape (m, 3), int64
            Rows ``(i, j, d)`` with ``i < j`` and ``d = hamming(fp_i, fp_j) <= k``, sorted by
            ``(i, j)``.
        """
        self.flush()
        if self._masks.shape[0] == 0:
            scan = (
                _k.pairs_scan_kernel
                if self._n * self._n // 2 >= _k.PARALLEL_MIN_WORK
                else _k.pairs_scan_kernel_serial
            )
            return scan(self._fps, self._alive, self._n, self._k)
        kernel = (
            _k.pairs_table_kernel
            if self._tfps.shape[1] >= _k.PARALLEL_MIN_WORK
            else _k.pairs_table_kernel_serial
        )
        parts = [
            kernel(self._tfps[t], self._tids[t], self._masks, t, self._k, self._alive)
            for t in range(self._masks.shape[0])
        ]
        out = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if out.shape[0] > 1:
            out = out[np.lexsort((out[:, 1], out[:, 0]))]
        return out

    def groups(self) -> list[list[int]]:
        """Near-duplicate clusters: connected components of the :meth:`pairs` graph.

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

    # -- persistence -----------------------------------------------------------------------------

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to ``path`` (no pickle; versioned; checksummed; atomic).

        See :mod:`simhash_lab.index.storage` for the format.
        """
        storage.save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> SimhashIndex:
        """Read an index written by :meth:`save`.

        Raises
        ------
        ValueError
            If the file is not a simhash-lab index, has an unsupported version, or is truncated or
            altered (its checksum does not match).
        """
        return storage.load(cls, path)
