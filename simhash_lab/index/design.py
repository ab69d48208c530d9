"""Table designs for :class:`~simhash_lab.SimhashIndex`: which bits each table keeps exact, how many
tables a layout needs, what a query is expected to cost, and the checks on ``k`` and ``layout=``.

See :mod:`simhash_lab.index` for the ideas (pigeonhole blocks, Manku's permuted tables).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .._validate import check_int

__all__ = ["TableDesign", "design_tables", "manku_example_3_1"]

Layout = str | tuple

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
        out.append(list(positions[start : start + size]))
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
        name = f"{len(masks)} tables: {what}{m} blocks ({','.join(map(str, sizes))} bits), keep {m - k}"
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
        name = (
            f"{len(masks)} tables: {m1} blocks ({','.join(map(str, sizes))} bits) keep {m1 - k}, "
            f"the rest in {m2} blocks keep {m2 - k}"
        )
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


_LAYOUT_HELP = '"auto", "scan", "seed", "blocks", ("permuted", m) or ("nested", m1, m2)'


def _normalize_layout(layout: Any, k: int, bits: int) -> Layout:
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


def _layout_to_json(layout: Layout) -> Any:
    return layout if isinstance(layout, str) else list(layout)


# ---------------------------------------------------------------------------------------------
# Persistence format
