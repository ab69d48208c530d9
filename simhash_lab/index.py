"""An exact near-duplicate index for Simhash fingerprints, for every k.

``SimhashIndex(k, bits)`` answers "which stored fingerprints are within Hamming distance k of this
one?" and returns exactly what a brute-force scan returns, for every ``k`` from 0 to ``bits - 1``.

How it works (the course's notebook on the block index tells the story):

* **Pigeonhole blocks** (the seed's ``SimhashLshIndex``): split the ``bits`` bits into ``k + 1``
  disjoint blocks. Two fingerprints that differ in at most ``k`` bits cannot dirty all ``k + 1``
  blocks, so at least one block is identical: keep one table per block and only verify fingerprints
  that share a block with the query.
* **Permuted tables** (Manku, Jain and Das Sarma, "Detecting near-duplicates for web crawling",
  WWW 2007, section 3.1): split into ``m > k + 1`` blocks; at most ``k`` blocks are dirty, so at least
  ``m - k`` are clean. One table per choice of ``m - k`` blocks kept exact: ``C(m, k)`` tables, each
  keyed on more bits, so far fewer candidates per table, at the price of more tables (memory).
  ``("nested", m1, m2)`` applies the argument twice (the paper's 16-table design).
* **Scan**: a Numba linear popcount scan, for tiny indexes or large ``k`` where tables cannot help.

Storage: a table is a flat uint64 array of fingerprints sorted by ``fp & mask`` (the bits it keeps
exact) and a uint32 array of their ids in the same order (12 bytes per fingerprint per table), plus
a directory of bucket starts on the leading ``r`` key bits (``r`` about log2(n) - 1, at most the
top block's width; well under 1 byte per fingerprint per table). A query reads the directory,
binary-searches the bucket for the run of equal masked keys and verifies each candidate with one
popcount. Sorting by the masked value groups exactly the runs that Manku's bit permutation would,
without permuting. Tables are built with a counting sort on the directory bits. Recent adds wait in
a small unsorted buffer (scanned linearly, at most ``max(256, 2 sqrt(n))`` entries) and are merged
into the tables lazily, in O(n) per table, so adding one fingerprint never rebuilds the index;
removed ids are skipped and dropped at the next merge. ``pairs()`` walks each table's runs, and a
pair found through several tables is reported by the first one only.

Reads (``query``, ``query_many``, ``pairs``) may run from several threads once the index is up to
date (call :meth:`SimhashIndex.flush`); writes (``add``, ``add_many``, ``remove``) must not overlap
with anything else.

Layouts (``layout=``)
---------------------
``"auto"`` (default)
    Pick the design with the lowest estimated query cost for the current size (see
    :func:`design_tables`), using at most ``max_tables`` tables; re-decided as the index grows.
``"scan"``
    No tables: a linear popcount scan.
``"seed"``
    The seed's exact layout: 4 tables of 16-bit blocks, block ``c`` = ``(fp >> 16 c) & 0xFFFF``.
    Needs ``bits=64`` and ``k <= 3`` (the seed asserts ``threshold <= 3``).
``"blocks"``
    Pigeonhole: ``k + 1`` blocks, ``k + 1`` tables. Same as ``("permuted", k + 1)``.
``("permuted", m)``
    Manku's permuted tables: ``m`` blocks (``k + 1 <= m <= bits``), ``C(m, k)`` tables.
``("nested", m1, m2)``
    Two levels: ``m1`` blocks keep ``m1 - k`` exact, the remaining bits split into ``m2`` blocks keep
    ``m2 - k`` exact: ``C(m1, k) * C(m2, k)`` tables.

Blocks are consecutive runs of bits starting at bit 0; when ``bits`` is not a multiple of ``m`` the
first ``bits % m`` blocks are one bit longer (64 bits in 6 blocks: 11, 11, 11, 11, 10, 10).
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import numbers
import os
import struct
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Iterable, Sequence, Union

import numpy as np

from . import _index_kernels as _k
from ._index_kernels import _ID_BITS, _ID_MASK
from ._validate import check_int

__all__ = ["SimhashIndex", "TableDesign", "design_tables", "manku_example_3_1"]

Layout = Union[str, tuple]

#: Bytes one table spends per fingerprint: a uint64 copy of the fingerprint and a uint32 id.
BYTES_PER_FINGERPRINT_PER_TABLE = 12
#: Bytes the index spends per fingerprint outside the tables: the uint64 fingerprint and a bool.
BYTES_PER_FINGERPRINT_BASE = 9
#: Forced layouts may not exceed this many tables (auto uses ``max_tables``).
MAX_TABLES_FORCED = 4096
_MAX_IDS = (1 << 32) - 1  # ids are stored as uint32 in the tables
_DIR_MAX_BITS = 24
_TWO_63, _TWO_64 = 1 << 63, 1 << 64  # directory of at most 2**24 buckets per table

# A rough cost model in nanoseconds on a current x86-64 core. Only the ratios matter: they decide
# between designs, never between right and wrong answers.
_NS_CALL = 40.0  # fixed cost of a query
_NS_TABLE = 15.0  # per table probed ...
_NS_STEP = 4.0  # ... plus per binary-search step (log2 n of them)
_NS_CANDIDATE = 1.5  # per candidate verified (contiguous memory, one popcount)
_NS_SCAN = 0.6  # per fingerprint scanned linearly

# ---------------------------------------------------------------------------------------------
# Table designs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TableDesign:
    """One way to lay out the tables of an index, with its costs for ``n`` fingerprints.

    Attributes
    ----------
    layout : str or tuple
        What to pass as ``SimhashIndex(layout=...)``: ``"scan"``, ``"seed"``, ``("permuted", m)``
        (``m == k + 1`` is the pigeonhole ``"blocks"`` layout) or ``("nested", m1, m2)``.
    name : str
        A readable description, e.g. ``"20 tables: 6 blocks (11,11,11,11,10,10 bits), keep 3"``.
    n, k, bits : int
        The sizes the design was computed for.
    tables : int
        Number of tables (0 for a scan).
    block_bits : tuple of int
        Sizes of the first-level blocks.
    key_bits : tuple of int
        Bits each table keeps exact (``p_i`` in the paper), one per table.
    masks : tuple of int
        The bits each table keeps exact, as 64-bit masks.
    max_candidates_per_probe : float
        ``n / 2**min(key_bits)``: the paper's "a probe retrieves at most 2^(d - p)" for random
        fingerprints (``n`` for a scan).
    expected_candidates : float
        ``sum(n / 2**p for p in key_bits)``: expected fingerprints verified per query (all tables)
        when fingerprints are uniformly random (``n`` for a scan).
    bytes_per_fingerprint : int
        ``9 + 12 * tables``: the fingerprint and its alive flag, plus a uint64 and a uint32 id per
        table.
    memory_bytes : int
        ``n * bytes_per_fingerprint``.
    est_query_ns : float
        A rough cost-model estimate of one query's time, used to rank designs.
    """

    layout: Layout
    name: str
    n: int
    k: int
    bits: int
    tables: int
    block_bits: tuple
    key_bits: tuple
    masks: tuple
    max_candidates_per_probe: float
    expected_candidates: float
    bytes_per_fingerprint: int
    memory_bytes: int
    est_query_ns: float


def _block_sizes(total: int, m: int) -> list[int]:
    """``total`` bits in ``m`` blocks, the first ``total % m`` one bit longer."""
    q, r = divmod(total, m)
    return [q + 1] * r + [q] * (m - r)


def _split(positions: Sequence[int], m: int) -> list[list[int]]:
    """Split bit positions (in order) into ``m`` consecutive blocks sized by ``_block_sizes``."""
    out, start = [], 0
    for size in _block_sizes(len(positions), m):
        out.append(list(positions[start:start + size]))
        start += size
    return out


def _mask(positions: Iterable[int]) -> int:
    m = 0
    for p in positions:
        m |= 1 << p
    return m


def _layout_tables(layout: Layout, k: int, bits: int) -> tuple[list[int], list[int], str]:
    """Masks, first-level block sizes and a readable name of a resolved layout."""
    if layout == "scan":
        return [], [], "linear scan (no tables)"
    if layout == "seed":
        blocks = [list(range(16 * c, 16 * c + 16)) for c in range(4)]
        return [_mask(b) for b in blocks], [16] * 4, "seed: 4 tables of 16-bit blocks"
    kind = layout[0]
    if kind == "permuted":
        m = layout[1]
        blocks = _split(range(bits), m)
        masks = [_mask(p for b in keep for p in blocks[b]) for keep in combinations(range(m), m - k)]
        sizes = [len(b) for b in blocks]
        what = "pigeonhole " if m == k + 1 else ""
        name = (f"{len(masks)} tables: {what}{m} blocks ({','.join(map(str, sizes))} bits), "
                f"keep {m - k}")
        return masks, sizes, name
    if kind == "nested":
        m1, m2 = layout[1], layout[2]
        blocks = _split(range(bits), m1)
        masks = []
        for keep in combinations(range(m1), m1 - k):
            kept = [p for b in keep for p in blocks[b]]
            rest = [p for b in range(m1) if b not in keep for p in blocks[b]]
            sub = _split(rest, m2)
            for keep2 in combinations(range(m2), m2 - k):
                masks.append(_mask(kept + [p for b in keep2 for p in sub[b]]))
        sizes = [len(b) for b in blocks]
        name = (f"{len(masks)} tables: {m1} blocks ({','.join(map(str, sizes))} bits) keep {m1 - k}, "
                f"the rest in {m2} blocks keep {m2 - k}")
        return masks, sizes, name
    raise AssertionError(f"unresolved layout {layout!r}")  # pragma: no cover


def _n_tables(layout: Layout, k: int, bits: int) -> int:
    """Number of tables of a resolved layout, without building the masks."""
    if layout == "scan":
        return 0
    if layout == "seed":
        return 4
    if layout[0] == "permuted":
        return math.comb(layout[1], k)
    return math.comb(layout[1], k) * math.comb(layout[2], k)


def _est_query_ns(n: int, key_bits: Sequence[int]) -> float:
    if not key_bits:
        return _NS_CALL + _NS_SCAN * n
    steps = math.log2(n + 1)
    cand = sum(n / 2.0**p for p in key_bits)
    return _NS_CALL + len(key_bits) * (_NS_TABLE + _NS_STEP * steps) + _NS_CANDIDATE * cand


def _design(layout: Layout, n: int, k: int, bits: int) -> TableDesign:
    masks, sizes, name = _layout_tables(layout, k, bits)
    key_bits = tuple(int(m).bit_count() for m in masks)
    if masks:
        max_cand = n / 2.0 ** min(key_bits)
        exp_cand = sum(n / 2.0**p for p in key_bits)
    else:
        max_cand = exp_cand = float(n)
    per_fp = BYTES_PER_FINGERPRINT_BASE + BYTES_PER_FINGERPRINT_PER_TABLE * len(masks)
    return TableDesign(
        layout=layout, name=name, n=n, k=k, bits=bits, tables=len(masks), block_bits=tuple(sizes),
        key_bits=key_bits, masks=tuple(masks), max_candidates_per_probe=max_cand,
        expected_candidates=exp_cand, bytes_per_fingerprint=per_fp, memory_bytes=n * per_fp,
        est_query_ns=_est_query_ns(n, key_bits),
    )


def _candidate_layouts(k: int, bits: int, max_tables: int) -> list[Layout]:
    """Every scan/permuted/nested layout with at most ``max_tables`` tables."""
    out: list[Layout] = ["scan"]
    for m in range(k + 1, bits + 1):
        if math.comb(m, k) > max_tables:
            break
        out.append(("permuted", m))
        if k == 0:  # one table keyed on every bit, whatever m is
            break
    if k >= 1:
        for m1 in range(k + 1, bits + 1):
            if math.comb(m1, k) * math.comb(k + 1, k) > max_tables:
                break
            rest_min = sum(sorted(_block_sizes(bits, m1))[:k])  # fewest bits left for level 2
            for m2 in range(k + 1, rest_min + 1):
                if math.comb(m1, k) * math.comb(m2, k) > max_tables:
                    break
                out.append(("nested", m1, m2))
    return out


def design_tables(n: int, k: int, bits: int = 64, max_tables: int = 64) -> list[TableDesign]:
    """List table designs for an index of ``n`` fingerprints and distance ``k``, best first.

    Lists the linear scan, Manku's permuted tables ``("permuted", m)`` for every ``m >= k + 1``
    (``m = k + 1`` is the pigeonhole layout) and the two-level ``("nested", m1, m2)`` designs that
    need at most ``max_tables`` tables, ranked by a rough estimate of query time (fewer candidates
    versus more tables to probe). Memory grows with the number of tables.

    Parameters
    ----------
    n : int
        Number of fingerprints (>= 0).
    k : int
        Largest Hamming distance searched, 0 <= k <= bits - 1.
    bits : int
        Fingerprint width, 1..64.
    max_tables : int
        Leave out designs with more tables.

    Returns
    -------
    list of TableDesign
        Sorted by ``est_query_ns`` (then fewer tables).

    Examples
    --------
    >>> best = design_tables(2**34, 3)[0]
    >>> best.tables, best.max_candidates_per_probe <= 8
    (20, True)
    """
    bits = check_int("bits", bits, 1, 64)
    k = _check_k(k, bits)
    n = check_int("n", n, 0, 1 << 62)
    max_tables = check_int("max_tables", max_tables, 1, MAX_TABLES_FORCED)
    designs = [_design(lay, n, k, bits) for lay in _candidate_layouts(k, bits, max_tables)]
    designs.sort(key=lambda d: (d.est_query_ns, d.tables))
    return designs


def manku_example_3_1() -> list[TableDesign]:
    """The four designs of Manku, Jain and Das Sarma (WWW 2007), Example 3.1, in the paper's order.

    f = 64-bit fingerprints, k = 3, 8B = 2**34 stored fingerprints:

    * 20 tables: 6 blocks of 11, 11, 11, 11, 10, 10 bits, choose 3 kept exact (C(6, 3) = 20);
      p_i = 31, 32 or 33, so a probe retrieves at most 2**(34 - 31) = 8 fingerprints;
    * 16 tables: 4 blocks of 16 bits choose 1, the other 48 bits in 4 blocks of 12 choose 1;
      p_i = 28: 2**(34 - 28) = 64;
    * 10 tables: 5 blocks of 13, 13, 13, 13, 12 bits choose 2; p_i = 25 or 26: 2**9 = 512;
    * 4 tables: 4 blocks of 16 bits choose 1; p_i = 16: 2**18 = 256K.

    Returns
    -------
    list of TableDesign
        ``max_candidates_per_probe`` is the paper's figure (8, 64, 512, 262144).
    """
    n, k, bits = 2**34, 3, 64
    layouts: list[Layout] = [("permuted", 6), ("nested", 4, 4), ("permuted", 5), ("permuted", 4)]
    return [_design(lay, n, k, bits) for lay in layouts]


def _choose_layout(n: int, k: int, bits: int, max_tables: int) -> Layout:
    """The auto layout: the cheapest estimated query among designs with <= max_tables tables."""
    best, best_cost = "scan", _est_query_ns(n, ())
    for lay in _candidate_layouts(k, bits, max_tables):
        if lay == "scan":
            continue
        cost = _est_query_ns(n, [int(m).bit_count() for m in _layout_tables(lay, k, bits)[0]])
        if cost < best_cost:
            best, best_cost = lay, cost
    return best


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------


def _check_k(k: Any, bits: int) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an int between 0 and bits-1 ({bits - 1}), got {k!r}")
    k = int(k)
    if not 0 <= k <= bits - 1:
        raise ValueError(f"k must be between 0 and bits-1 ({bits - 1}) for bits={bits}, got {k}")
    return k


_LAYOUT_HELP = ('"auto", "scan", "seed", "blocks", ("permuted", m) or ("nested", m1, m2)')


def _normalize_layout(layout: Any, k: int, bits: int) -> Layout:
    """Validate a ``layout=`` argument; returns "auto", "scan", "seed", "blocks" or a tuple."""
    if isinstance(layout, str):
        if layout not in ("auto", "scan", "seed", "blocks"):
            raise ValueError(f"The value for `layout` must be one of {_LAYOUT_HELP}, "
                             f"but {layout!r} was passed.")
        if layout == "seed" and (bits != 64 or k > 3):
            raise ValueError(f'layout="seed" (4 tables of 16-bit blocks) needs bits=64 and k <= 3, '
                             f"got bits={bits}, k={k}; use layout=\"blocks\" or (\"permuted\", m)")
        return layout
    if isinstance(layout, (tuple, list)) and layout and layout[0] in ("permuted", "nested"):
        kind = layout[0]
        want = 2 if kind == "permuted" else 3
        if len(layout) != want or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in layout[1:]
        ):
            form = '("permuted", m)' if kind == "permuted" else '("nested", m1, m2)'
            raise ValueError(f"layout {tuple(layout)!r}: expected {form} with int block counts")
        ms = [int(v) for v in layout[1:]]
        if not k + 1 <= ms[0] <= bits:
            raise ValueError(f"layout {tuple(layout)!r}: the number of blocks must be between "
                             f"k+1 ({k + 1}) and bits ({bits}), got {ms[0]}")
        lay: tuple = (kind, *ms)
        if kind == "nested":
            rest_min = sum(sorted(_block_sizes(bits, ms[0]))[:k])
            if not k + 1 <= ms[1] <= max(rest_min, 0) or k == 0:
                raise ValueError(f"layout {tuple(layout)!r}: the second level needs between k+1 "
                                 f"({k + 1}) and {rest_min} blocks (the bits left over), got {ms[1]}")
        n_tables = _n_tables(lay, k, bits)
        if n_tables > MAX_TABLES_FORCED:
            raise ValueError(f"layout {tuple(layout)!r} needs {n_tables} tables; "
                             f"at most {MAX_TABLES_FORCED} are allowed")
        return lay
    raise ValueError(f"The value for `layout` must be one of {_LAYOUT_HELP}, "
                     f"but {layout!r} was passed.")


def _layout_to_json(layout: Layout) -> Any:
    return layout if isinstance(layout, str) else list(layout)


# ---------------------------------------------------------------------------------------------
# Persistence format
# ---------------------------------------------------------------------------------------------

_MAGIC = b"SIMHASHLAB-INDEX"  # 16 bytes
_FORMAT_VERSION = 1
_HEADER = struct.Struct("<16sI32s")  # magic, version, sha256(version bytes + payload)


# ---------------------------------------------------------------------------------------------
# The index
# ---------------------------------------------------------------------------------------------


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

    def __init__(self, k: int = 3, bits: int = 64, *, layout: Layout = "auto",
                 max_tables: int = 20) -> None:
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
        self._set_layout("scan" if req == "auto" else ("permuted", self._k + 1) if req == "blocks"
                         else req)
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
        return int(self._tfps.nbytes + self._tids.nbytes + self._dirs.nbytes + self._masks.nbytes
                   + self._dshift.nbytes)

    def __len__(self) -> int:
        """Number of fingerprints stored (removed ones excluded)."""
        return self._n_alive

    def __contains__(self, id: object) -> bool:
        return (isinstance(id, numbers.Integral) and not isinstance(id, bool)
                and 0 <= int(id) < self._n and bool(self._alive[int(id)]))

    def __repr__(self) -> str:
        return (f"SimhashIndex(k={self._k}, bits={self._bits}, layout={self._layout_request!r}, "
                f"n={self._n_alive})")

    def fingerprint(self, id: int) -> int:
        """The fingerprint stored under ``id`` (a KeyError if there is none)."""
        return int(self._fps[self._check_id(id)])

    # -- validation ----------------------------------------------------------------------------

    def _check_fp(self, fp: Any, param: str = "fp") -> np.uint64:
        if type(fp) is int and 0 <= fp < self._limit:  # the fast path
            return np.uint64(fp)
        if isinstance(fp, (bool, np.bool_)) or not isinstance(fp, numbers.Integral):
            raise TypeError(f"{param} must be an int fingerprint (0 <= fp < 2**{self._bits}), "
                            f"got {type(fp).__name__}")
        v = int(fp)
        if v < 0:
            raise ValueError(f"{param} must be a non-negative fingerprint, got {v}")
        if v >= self._limit:
            raise ValueError(f"{param}={v} does not fit in bits={self._bits}: fingerprints must "
                             f"satisfy 0 <= fp < 2**{self._bits} (was it made with another `bits`?)")
        return np.uint64(v)

    def _check_fps(self, fps: Any, param: str = "fps") -> np.ndarray:
        """A 1-D C-contiguous uint64 array of valid fingerprints."""
        if fps is None or isinstance(fps, (str, bytes)):
            raise TypeError(f"{param} must be a sequence or 1-D array of int fingerprints, "
                            f"got {type(fps).__name__}")
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
            arr = np.array([self._check_fp(v, f"{param}[{i}]") for i, v in enumerate(arr)],
                           dtype=np.uint64)
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
                raise ValueError(f"{param}[{i}]={int(arr[i])} does not fit in bits={self._bits}: "
                                 f"fingerprints must satisfy 0 <= fp < 2**{self._bits} "
                                 "(were they made with another `bits`?)")
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
        self._fps[start:start + m] = arr
        self._alive[start:start + m] = True
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
        build = _k.build_tables_kernel if n_tables > 1 and n_tables * ids.shape[0] >= \
            _k.PARALLEL_MIN_WORK else _k.build_tables_kernel_serial
        self._tfps, self._tids, self._dirs = build(fps, ids, self._masks, self._dshift, r)
        self._n_main = self._n

    def _merge(self) -> None:
        """Merge the buffer into the tables and drop removed entries (O(n) per table)."""
        lo = self._n_main
        bids = (lo + np.flatnonzero(self._alive[lo: self._n])).astype(np.uint32)
        bfps = self._fps[bids]
        n_tables = self._masks.shape[0]
        sf = np.empty((n_tables, bids.shape[0]), np.uint64)
        si = np.empty((n_tables, bids.shape[0]), np.uint32)
        for t, mask in enumerate(self._masks):
            order = np.argsort(bfps & mask, kind="stable")
            np.take(bfps, order, out=sf[t])
            np.take(bids, order, out=si[t])
        work = n_tables * (self._tfps.shape[1] + bids.shape[0])
        merge = _k.merge_tables_kernel if n_tables > 1 and work >= _k.PARALLEL_MIN_WORK \
            else _k.merge_tables_kernel_serial
        self._tfps, self._tids = merge(self._tfps, self._tids, sf, si, self._masks, self._alive,
                                       self._n_alive)
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
            self._decided_n < 0 or self._n_alive > 2 * self._decided_n
            or 4 * self._n_alive < self._decided_n
        ):
            self._decided_n = self._n_alive
            layout = _choose_layout(self._n_alive, self._k, self._bits, self._max_tables)
            if layout != self._layout:
                self._rebuild(layout)
        if self._masks.shape[0]:
            n_buf = self._n - self._n_main
            if n_buf > self._tfps.shape[1]:  # mostly new: build from scratch (counting sort)
                self._rebuild(self._layout)
            elif (force and (n_buf or self._dead_in_tables)) or n_buf > self._buffer_cap() \
                    or 2 * self._dead_in_tables > self._tfps.shape[1]:
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
            args = self._qargs = (self._k, self._masks, self._dshift, self._dirs, self._tfps,
                                  self._tids, self._fps, self._alive, self._n_main, self._n)
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
        kernel = _k.query_many_kernel if work >= _k.PARALLEL_MIN_WORK \
            else _k.query_many_kernel_serial
        indptr, ids, d = kernel(qs, self._k, self._masks, self._dshift, self._dirs, self._tfps,
                                self._tids, self._fps, self._alive, self._n_main, self._n)
        if return_arrays:
            return indptr, ids, d
        pairs = list(zip(ids.tolist(), d.tolist()))
        bounds = indptr.tolist()
        return [pairs[bounds[i]:bounds[i + 1]] for i in range(qs.shape[0])]

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
            scan = _k.pairs_scan_kernel if self._n * self._n // 2 >= _k.PARALLEL_MIN_WORK \
                else _k.pairs_scan_kernel_serial
            return scan(self._fps, self._alive, self._n, self._k)
        kernel = _k.pairs_table_kernel if self._tfps.shape[1] >= _k.PARALLEL_MIN_WORK \
            else _k.pairs_table_kernel_serial
        parts = [kernel(self._tfps[t], self._tids[t], self._masks, t, self._k,
                                       self._alive) for t in range(self._masks.shape[0])]
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
        """Write the index to ``path`` (no pickle; versioned; checksummed).

        The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32,
        SHA-256 of the version bytes and the payload) followed by an ``.npz`` payload holding
        ``meta`` (UTF-8 JSON: format, version, k, bits, layout, max_tables, n), ``fps`` (uint64,
        every id's fingerprint) and ``alive`` (bool). Tables are rebuilt on load. The write is
        atomic (a temporary file renamed over ``path``).
        """
        meta = {
            "format": "simhash-lab index", "version": _FORMAT_VERSION, "k": self._k,
            "bits": self._bits, "layout": _layout_to_json(self._layout_request),
            "max_tables": self._max_tables, "n": self._n,
        }
        buf = io.BytesIO()
        np.savez(buf, meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8),
                 fps=self._fps[: self._n], alive=self._alive[: self._n])
        payload = buf.getvalue()
        version = struct.pack("<I", _FORMAT_VERSION)
        digest = hashlib.sha256(version + payload).digest()
        path = os.fspath(path)
        tmp = f"{path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "wb") as f:
                f.write(_HEADER.pack(_MAGIC, _FORMAT_VERSION, digest))
                f.write(payload)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "SimhashIndex":
        """Read an index written by :meth:`save`.

        Raises
        ------
        ValueError
            If the file is not a simhash-lab index, has an unsupported version, or is truncated or
            altered (its checksum does not match).
        """
        with open(path, "rb") as f:
            data = f.read()
        where = os.fspath(path)
        if len(data) < _HEADER.size:
            raise ValueError(f"{where}: truncated simhash-lab index file ({len(data)} bytes)")
        magic, version, digest = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise ValueError(f"{where}: not a simhash-lab index file (bad magic bytes)")
        payload = data[_HEADER.size:]
        if hashlib.sha256(data[16:20] + payload).digest() != digest:
            raise ValueError(f"{where}: checksum mismatch: the index file is corrupt or truncated")
        if version != _FORMAT_VERSION:
            raise ValueError(f"{where}: unsupported index format version {version} "
                             f"(this simhash-lab reads version {_FORMAT_VERSION})")
        try:
            with np.load(io.BytesIO(payload), allow_pickle=False) as z:
                meta = json.loads(bytes(z["meta"]).decode("utf-8"))
                fps = np.asarray(z["fps"])
                alive = np.asarray(z["alive"])
            k, bits, n = meta["k"], meta["bits"], meta["n"]
            layout = meta["layout"]
            layout = tuple(layout) if isinstance(layout, list) else layout
            max_tables = meta["max_tables"]
            ok = (meta.get("format") == "simhash-lab index" and meta.get("version") == version
                  and fps.dtype == np.uint64 and alive.dtype == np.bool_
                  and fps.shape == alive.shape == (n,))
        except Exception as exc:  # a payload that passed the checksum but is not ours
            raise ValueError(f"{where}: malformed simhash-lab index payload: {exc}") from None
        if not ok:
            raise ValueError(f"{where}: malformed simhash-lab index payload (fields do not agree)")
        index = cls(k=k, bits=bits, layout=layout, max_tables=max_tables)
        index._check_fps(fps, "fps (in the file)")
        index._reserve(n)
        index._fps[:n] = fps
        index._alive[:n] = alive
        index._n = n
        index._n_alive = int(alive.sum())
        index._dirty = True
        return index
