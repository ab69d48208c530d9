"""Table designs for :class:`~simhash_lab.SimhashIndex`: which bits each table keeps exact, how many
tables a layout needs, what each job costs with it, the automatic choice, and the checks on ``k`` and
``layout=``.

See :mod:`simhash_lab.index` for the ideas (pigeonhole blocks, Manku's permuted tables).

The cost model
--------------
A design with tables keyed on ``p_1 .. p_T`` bits, over ``n`` uniformly random fingerprints, has
buckets of ``b_t = n / 2**min(p_t, r)`` entries on average (``r``: the directory bits, about
``log2(n) - 2``) and costs (nanoseconds of one core; the constants below):

* a query: ``Q_CALL + T Q_TABLE + Q_CAND sum(b_t)`` (probe every table, check its bucket); a scan:
  ``Q_CALL + Q_SCAN n``;
* the build: ``T (B_ENTRY n + B_BUCKET 2**r)`` (one or two counting-sort passes, about the same per
  entry: see :func:`two_passes`);
* ``pairs()`` over built tables: ``sum_t n (P_ENTRY + P_GROUP g(b_t) + P_CMP b_t / 2)``, where
  ``g(b) = (1 - exp(-b)) / b`` is the number of non-empty buckets per entry (walk every bucket,
  compare its entries with each other); a scan compares all ``n (n - 1) / 2`` pairs at ``P_SCAN``;
* memory: ``T (12 n + 4 * 2**r)`` bytes of tables, besides the 9 bytes per id every index keeps.

Three jobs rank designs (``design_tables(job=...)``): ``"query"`` (one query, the tables built),
``"index"`` (build, then about one query per stored fingerprint: what ``SimhashIndex`` keeps for its
queries) and ``"pairs"`` (build, then all pairs: what ``pairs()`` streams when no built tables serve
it better). The quadratic term makes the key bits grow with ``n``: at k = 3, 4 tables of 16 bits up
to about 2M fingerprints, then 10 tables of 25-26 bits. Memory is a budget, not a cost: a design
whose tables do not fit (``memory_budget``, by default a quarter of the machine's memory) is not
considered.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .._i18n import _
from .._validate import check_budget, check_int, check_k, check_option, default_memory_budget

__all__ = ["JOBS", "TableDesign", "default_memory_budget", "design_tables", "manku_example_3_1"]

Layout = str | tuple

#: Bytes one table spends per fingerprint: a uint64 copy of the fingerprint and a uint32 id.
BYTES_PER_FINGERPRINT_PER_TABLE = 12
#: Bytes the index spends per fingerprint outside the tables: the uint64 fingerprint and a bool.
BYTES_PER_FINGERPRINT_BASE = 9
#: Bytes per bucket of a table's directory (a uint32 start).
BYTES_PER_BUCKET = 4
#: Forced layouts, and the automatic choice, may not exceed this many tables.
MAX_TABLES_FORCED = 4096
#: The jobs a design can be ranked for (see the module docstring).
JOBS = ("query", "index", "pairs")
MAX_IDS = (1 << 32) - 1  # ids are stored as uint32 in the tables
_DIR_MAX_BITS = 30  # at most 2**30 buckets per table (n < 2**32: about 8 entries each)
_DIR_SLACK = 2  # r = bit_length(n) - 2 leading key bits: 2 to 4 entries per bucket
TWO_63, TWO_64 = 1 << 63, 1 << 64

# The cost model's constants: nanoseconds of one core, measured by benchmarks/calibrate_index.py on
# this project's machine on 2026-12-01 (AMD EPYC Zen 4, 2 cores shared with other work, load average
# 2-6 during the runs; least-squares fits over 250K-4M random fingerprints; the fits' figures):
#   query_many per query: Q_TABLE 119, Q_CAND 0.92 (intercept below 0: Q_CALL set to the sort's cost);
#   scan of 250K: 0.85 ns per fingerprint;
#   one table's build: 4.6-4.9 ns/entry at 250K, 8.0-15.4 at 1M-4M (fit: B_ENTRY 7.9; the second
#   counting-sort pass measured no dearer per entry than one scatter into 2**r places at 4M);
#   pairs over built tables: 6.7-407 ns/entry/table (fit: P_ENTRY 5.0, P_GROUP 19, P_CMP 0.10);
#   the scan's pairs: 0.103-0.127 ns per comparison.
# They rank designs; they never decide between right and wrong answers.
Q_CALL = 50.0  # a query's fixed cost inside query_many (sorting its matches)
Q_TABLE = 120.0  # per table probed (directory and bucket: two cache misses, overlapped)
Q_CAND = 0.9  # per bucket entry checked (contiguous memory, one popcount)
Q_SCAN = 0.85  # per fingerprint of a linear scan (vectorized popcount, from memory)
B_ENTRY = 8.0  # per entry per table: bucket ids and the counting sort(s)
B_BUCKET = 4.0  # per directory bucket per table
P_ENTRY = 5.0  # per entry per table: planning chunks, walking buckets
P_GROUP = 19.0  # per non-empty bucket: finding its end, starting its comparisons
P_CMP = 0.10  # per comparison inside a bucket (vectorized popcount)
P_SCAN = 0.10  # per comparison of the scan (one long group: the vectorized loop at full speed)


def two_passes(n: int, r: int) -> bool:
    """Whether a table of ``n`` entries and ``r`` directory bits is built in two counting-sort passes:
    one scatter into ``2**r`` places stays in cache up to about 2M entries (measured)."""
    return not (r <= 6 or (r <= 18 and n <= 1 << 21))


def dir_bits(n: int, min_key_bits: int) -> int:
    """Directory bits for tables of ``n`` entries whose shortest key has ``min_key_bits`` bits."""
    return max(0, min(min_key_bits, n.bit_length() - _DIR_SLACK, _DIR_MAX_BITS))


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
        The cost model's estimate of one query (see the module docstring).
    est_build_ns : float
        Its estimate of building every table (one core).
    est_pairs_ns : float
        Its estimate of ``pairs()`` over the built tables (one core).
    dir_bits : int
        Leading key bits of each table's bucket directory.
    table_bytes : int
        Bytes of the tables: rows and directories.
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
    est_build_ns: float = 0.0
    est_pairs_ns: float = 0.0
    dir_bits: int = 0
    table_bytes: int = 0

    def cost_ns(self, job: str = "query") -> float:
        """The estimated nanoseconds of ``job`` (one of :data:`JOBS`) with this design.

        Parameters
        ----------
        job : str
            One of :data:`JOBS`.

        Returns
        -------
        float
        """
        return _job_cost(job, self.n, self.est_query_ns, self.est_build_ns, self.est_pairs_ns)


def _job_cost(job: str, n: int, query: float, build: float, pairs: float) -> float:
    if job == "query":
        return query
    if job == "index":
        return build + n * query
    return build + pairs


def _block_sizes(total: int, m: int) -> list[int]:
    """``total`` bits in ``m`` blocks, the first ``total % m`` one bit longer."""
    q, r = divmod(total, m)
    return [q + 1] * r + [q] * (m - r)


def _split(positions: Sequence[int], m: int) -> list[list[int]]:
    """Split bit positions (in order) into ``m`` consecutive blocks sized by ``_block_sizes``."""
    out, start = [], 0
    for size in _block_sizes(len(positions), m):
        out.append(list(positions[start : start + size]))
        start += size
    return out


def _mask(positions: Iterable[int]) -> int:
    m = 0
    for p in positions:
        m |= 1 << p
    return m


def layout_tables(layout: Layout, k: int, bits: int) -> tuple[list[int], list[int], str]:
    """Masks, first-level block sizes and a readable name of a resolved layout."""
    if layout == "scan":
        return [], [], _("linear scan (no tables)")
    if layout == "seed":
        blocks = [list(range(16 * c, 16 * c + 16)) for c in range(4)]
        return [_mask(b) for b in blocks], [16] * 4, _("seed: 4 tables of 16-bit blocks")
    kind = layout[0]
    if kind == "permuted":
        m = layout[1]
        blocks = _split(range(bits), m)
        masks = [_mask(p for b in keep for p in blocks[b]) for keep in combinations(range(m), m - k)]
        sizes = [len(b) for b in blocks]
        name = (
            _("{tables} tables: pigeonhole {m} blocks ({sizes} bits), keep {keep}")
            if m == k + 1
            else _("{tables} tables: {m} blocks ({sizes} bits), keep {keep}")
        ).format(tables=len(masks), m=m, sizes=",".join(map(str, sizes)), keep=m - k)
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
        name = _(
            "{tables} tables: {m1} blocks ({sizes} bits) keep {keep1}, the rest in {m2} blocks keep {keep2}"
        ).format(tables=len(masks), m1=m1, sizes=",".join(map(str, sizes)), keep1=m1 - k, m2=m2, keep2=m2 - k)
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


def _key_hist(layout: Layout, k: int, bits: int) -> list[tuple[int, int]]:
    """``(key bits, number of tables)`` of a resolved layout, counted without building masks."""
    if layout == "scan":
        return []
    if layout == "seed":
        return [(16, 4)]

    def kept(total: int, m: int) -> list[tuple[int, int]]:
        # m blocks of ``total`` bits (``long`` of them one bit longer), keep m - k of them
        q, long = divmod(total, m)
        out = []
        for x in range(max(0, m - k - (m - long)), min(long, m - k) + 1):
            out.append(((m - k) * q + x, math.comb(long, x) * math.comb(m - long, m - k - x)))
        return out

    first = kept(bits, layout[1])
    if layout[0] == "permuted":
        return first
    hist: dict[int, int] = {}
    for p1, c1 in first:
        for p2, c2 in kept(bits - p1, layout[2]):
            hist[p1 + p2] = hist.get(p1 + p2, 0) + c1 * c2
    return sorted(hist.items())


def _estimates(hist: Sequence[tuple[int, int]], n: int) -> tuple[float, float, float, int, int]:
    """(query, build, pairs) nanoseconds, directory bits and table bytes of a key-bits histogram."""
    if not hist:  # a scan
        return Q_CALL + Q_SCAN * n, 0.0, P_ENTRY * n + P_SCAN * n * (n - 1) / 2.0, 0, 0
    tables = sum(c for _, c in hist)
    r = dir_bits(n, min(p for p, _ in hist))
    bucket = sum(c * n / 2.0 ** min(p, r) for p, c in hist)  # sum of b_t
    query = Q_CALL + tables * Q_TABLE + Q_CAND * bucket
    build = tables * (B_ENTRY * n + B_BUCKET * 2.0**r)
    pairs = 0.0
    for p, c in hist:
        b = n / 2.0 ** min(p, r)
        groups = -math.expm1(-b) / b if b > 0 else 0.0  # non-empty buckets per entry
        pairs += c * n * (P_ENTRY + P_GROUP * groups + P_CMP * b / 2.0)
    table_bytes = tables * (BYTES_PER_FINGERPRINT_PER_TABLE * n + BYTES_PER_BUCKET * ((1 << r) + 1))
    return query, build, pairs, r, table_bytes


def layout_design(layout: Layout, n: int, k: int, bits: int) -> TableDesign:
    """The :class:`TableDesign` of a resolved layout for ``n`` fingerprints.

    Parameters
    ----------
    layout : str or tuple
        ``"scan"``, ``"seed"``, ``("permuted", m)`` or ``("nested", m1, m2)``, as
        :func:`normalize_layout` and the automatic choice give it.
    n, k, bits : int
        Fingerprints, largest distance, fingerprint width.

    Returns
    -------
    TableDesign
        Its tables, masks, memory and the cost model's estimates.
    """
    masks, sizes, name = layout_tables(layout, k, bits)
    key_bits = tuple(int(m).bit_count() for m in masks)
    if masks:
        max_cand = n / 2.0 ** min(key_bits)
        exp_cand = sum(n / 2.0**p for p in key_bits)
    else:
        max_cand = exp_cand = float(n)
    per_fp = BYTES_PER_FINGERPRINT_BASE + BYTES_PER_FINGERPRINT_PER_TABLE * len(masks)
    query, build, pairs, r, table_bytes = _estimates(_key_hist(layout, k, bits), n)
    return TableDesign(
        layout=layout,
        name=name,
        n=n,
        k=k,
        bits=bits,
        tables=len(masks),
        block_bits=tuple(sizes),
        key_bits=key_bits,
        masks=tuple(masks),
        max_candidates_per_probe=max_cand,
        expected_candidates=exp_cand,
        bytes_per_fingerprint=per_fp,
        memory_bytes=n * per_fp,
        est_query_ns=query,
        est_build_ns=build,
        est_pairs_ns=pairs,
        dir_bits=r,
        table_bytes=table_bytes,
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


def _working_tables(job: str, tables: int, threads: int) -> int:
    """Tables held at once: all of them for queries; ``pairs()`` streams ``threads`` at a time."""
    return min(tables, max(1, threads)) if job == "pairs" else tables


def _threads() -> int:
    from .._threads import thread_count

    return thread_count()


def design_tables(
    n: int,
    k: int,
    bits: int = 64,
    max_tables: int = 64,
    *,
    job: str = "query",
    memory_budget: int | None = None,
) -> list[TableDesign]:
    """List table designs for an index of ``n`` fingerprints and distance ``k``, best first.

    Lists the linear scan, Manku's permuted tables ``("permuted", m)`` for every ``m >= k + 1``
    (``m = k + 1`` is the pigeonhole layout) and the two-level ``("nested", m1, m2)`` designs that
    need at most ``max_tables`` tables, ranked by the cost model's estimate for ``job`` (see the
    module docstring): fewer candidates and shorter runs against more tables to build and probe.
    Memory grows with the number of tables.

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
    job : {"query", "index", "pairs"}
        What to rank by: one query; build plus ``n`` queries; build plus all pairs.
    memory_budget : int, optional
        Leave out designs whose tables need more bytes than this for ``job`` (``"pairs"`` holds
        one table per thread at a time). By default nothing is left out.

    Returns
    -------
    list of TableDesign
        Sorted by the estimated cost of ``job`` (then fewer tables).

    Examples
    --------
    >>> best = design_tables(2**34, 3)[0]
    >>> best.tables, best.max_candidates_per_probe <= 8
    (20, True)
    >>> [d.tables for d in design_tables(10**6, 3, job="pairs")[:1]]
    [4]
    >>> [d.tables for d in design_tables(10**8, 3, job="pairs")[:1]]  # the key grows with n
    [10]
    """
    bits = check_int("bits", bits, 1, 64)
    k = check_k(k, bits)
    n = check_int("n", n, 0, 1 << 62)
    max_tables = check_int("max_tables", max_tables, 1, MAX_TABLES_FORCED)
    job = check_option("job", job, JOBS)
    budget = None if memory_budget is None else check_budget(memory_budget)
    designs = [layout_design(lay, n, k, bits) for lay in _candidate_layouts(k, bits, max_tables)]
    if budget is not None:
        threads = _threads()
        designs = [
            d
            for d in designs
            if d.table_bytes * _working_tables(job, d.tables, threads) <= budget * max(d.tables, 1)
        ]
    designs.sort(key=lambda d: (d.cost_ns(job), d.tables))
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
    return [layout_design(lay, n, k, bits) for lay in layouts]


def choose_layout(
    n: int, k: int, bits: int, job: str, max_tables: int, memory_budget: int, threads: int = 1
) -> tuple[Layout, float]:
    """The cheapest layout for ``job`` and its estimated cost (ns), among those with at most
    ``max_tables`` tables whose working set fits ``memory_budget`` bytes. Falls back to the scan."""
    best: Layout = "scan"
    best_cost = _job_cost(job, n, *_estimates([], n)[:3])
    for lay in _candidate_layouts(k, bits, max_tables):
        if lay == "scan":
            continue
        hist = _key_hist(lay, k, bits)
        query, build, pairs, _, table_bytes = _estimates(hist, n)
        tables = sum(c for _, c in hist)
        if table_bytes * _working_tables(job, tables, threads) > memory_budget * tables:
            continue
        cost = _job_cost(job, n, query, build, pairs)
        if cost < best_cost:
            best, best_cost = lay, cost
    return best, best_cost


# ---------------------------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------------------------


_LAYOUT_HELP = '"auto", "scan", "seed", "blocks", ("permuted", m) or ("nested", m1, m2)'


def normalize_layout(layout: Any, k: int, bits: int) -> Layout:
    """Validate a ``layout=`` argument; returns "auto", "scan", "seed", "blocks" or a tuple."""
    if isinstance(layout, str):
        if layout not in ("auto", "scan", "seed", "blocks"):
            raise ValueError(
                f"The value for `layout` must be one of {_LAYOUT_HELP}, but {layout!r} was passed."
            )
        if layout == "seed" and (bits != 64 or k > 3):
            raise ValueError(
                f'layout="seed" (4 tables of 16-bit blocks) needs bits=64 and k <= 3, '
                f'got bits={bits}, k={k}; use layout="blocks" or ("permuted", m)'
            )
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
            raise ValueError(
                f"layout {tuple(layout)!r}: the number of blocks must be between "
                f"k+1 ({k + 1}) and bits ({bits}), got {ms[0]}"
            )
        lay: tuple = (kind, *ms)
        if kind == "nested":
            rest_min = sum(sorted(_block_sizes(bits, ms[0]))[:k])
            if not k + 1 <= ms[1] <= max(rest_min, 0) or k == 0:
                raise ValueError(
                    f"layout {tuple(layout)!r}: the second level needs between k+1 "
                    f"({k + 1}) and {rest_min} blocks (the bits left over), got {ms[1]}"
                )
        n_tables = _n_tables(lay, k, bits)
        if n_tables > MAX_TABLES_FORCED:
            raise ValueError(
                f"layout {tuple(layout)!r} needs {n_tables} tables; at most {MAX_TABLES_FORCED} are allowed"
            )
        return lay
    raise ValueError(f"The value for `layout` must be one of {_LAYOUT_HELP}, but {layout!r} was passed.")


def layout_to_json(layout: Layout) -> Any:
    """A layout as JSON holds it: a str as it is, a tuple as a list."""
    return layout if isinstance(layout, str) else list(layout)


# ---------------------------------------------------------------------------------------------
# Persistence format
