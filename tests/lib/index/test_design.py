"""Table designs (simhash_lab.index.design): Manku, Jain and Das Sarma's Example 3.1 and the ranked
list design_tables gives, the cost model's choices and the memory budget."""

from __future__ import annotations

import pytest

from simhash_lab.index import TableDesign, design_tables, manku_example_3_1
from simhash_lab.index import design as D


def layouts(k: int, bits: int, limit: int = 200) -> list:
    """Every design the chooser may pick, with at most ``limit`` tables."""
    return [lay for lay in D._candidate_layouts(k, bits, limit)]


def test_manku_example_3_1():
    """Manku, Jain, Das Sarma (WWW 2007) Example 3.1: f = 64, k = 3, 2**34 fingerprints."""
    designs = manku_example_3_1()
    assert [d.tables for d in designs] == [20, 16, 10, 4]
    twenty, sixteen, ten, four = designs
    assert twenty.block_bits == (11, 11, 11, 11, 10, 10)
    assert sorted(set(twenty.key_bits)) == [31, 32, 33]
    assert twenty.max_candidates_per_probe == 2 ** (34 - 31) == 8
    # expected over all 20 probes: 4 tables of 33 bits, 12 of 32, 4 of 31
    assert sorted(twenty.key_bits).count(31) == 4 and sorted(twenty.key_bits).count(33) == 4
    assert twenty.expected_candidates == 4 * 2 + 12 * 4 + 4 * 8
    assert set(sixteen.key_bits) == {28} and sixteen.max_candidates_per_probe == 64
    assert ten.block_bits == (13, 13, 13, 13, 12) and set(ten.key_bits) == {25, 26}
    assert ten.max_candidates_per_probe == 512
    assert set(four.key_bits) == {16} and four.max_candidates_per_probe == 2**18
    for d in designs:
        assert d.n == 2**34 and d.k == 3 and d.bits == 64
        assert d.bytes_per_fingerprint == 9 + 12 * d.tables
        assert d.memory_bytes == 2**34 * d.bytes_per_fingerprint
        # every table keeps m - k blocks exact: at most k differing bits always leave one intact
        assert all(int(m).bit_count() == p for m, p in zip(d.masks, d.key_bits))


def test_design_tables_lists_and_ranks():
    designs = design_tables(2**34, 3, max_tables=20)
    assert all(isinstance(d, TableDesign) for d in designs)
    layouts = [d.layout for d in designs]
    assert "scan" in layouts and ("permuted", 4) in layouts and ("nested", 4, 4) in layouts
    assert all(d.tables <= 20 for d in designs)
    assert [d.est_query_ns for d in designs] == sorted(d.est_query_ns for d in designs)
    assert designs[0].layout == ("permuted", 6)  # the paper's pick at 8B fingerprints
    assert design_tables(10, 3)[0].layout == "scan"  # tables cannot beat a scan of 10
    assert design_tables(0, 0, bits=1)[0].tables <= 1


@pytest.mark.parametrize("k, bits", [(0, 64), (1, 64), (3, 64), (6, 64), (10, 64), (3, 20), (7, 33)])
def test_key_histograms_count_the_masks(k, bits):
    for lay in layouts(k, bits, 400):
        masks = D.layout_tables(lay, k, bits)[0]
        want: dict[int, int] = {}
        for m in masks:
            want[m.bit_count()] = want.get(m.bit_count(), 0) + 1
        assert dict(D._key_hist(lay, k, bits)) == want, lay


def test_key_bits_grow_with_n():
    """No quadratic buckets: the pairs job keeps buckets small by keying more bits as n grows."""
    for k in (3, 6, 10):
        ns = [10**4, 10**5, 10**6, 10**7, 10**8, 10**9]
        chosen = [D.choose_layout(n, k, 64, "pairs", 4096, 1 << 62, 2)[0] for n in ns]
        keys = [min(p for p, _ in D._key_hist(lay, k, 64)) if lay != "scan" else 0 for lay in chosen]
        assert keys == sorted(keys), (k, chosen)
        for n, lay in zip(ns, chosen):
            if lay != "scan":
                r = D.dir_bits(n, min(p for p, _ in D._key_hist(lay, k, 64)))
                biggest = max(n / 2.0 ** min(p, r) for p, _ in D._key_hist(lay, k, 64))
                assert biggest < 2**12, (k, n, lay)  # buckets stay bounded, never ~n


def test_more_tables_at_large_k():
    assert D.choose_layout(10**6, 6, 64, "pairs", 4096, 1 << 62, 2)[0] != ("permuted", 7)
    lay = D.choose_layout(10**6, 10, 64, "pairs", 4096, 1 << 62, 2)[0]
    assert D._n_tables(lay, 10, 64) >= 66


def test_memory_budget_bounds_the_tables():
    n, k = 10**6, 6
    free = D.choose_layout(n, k, 64, "index", 4096, 1 << 62)[0]
    for budget in (10**9, 2 * 10**8, 5 * 10**7, 10**6):
        lay = D.choose_layout(n, k, 64, "index", 4096, budget)[0]
        assert D.layout_design(lay, n, k, 64).table_bytes <= budget, (budget, lay)
    assert D.layout_design(free, n, k, 64).table_bytes > 2 * 10**8  # the budget did bind
    assert D.choose_layout(n, k, 64, "index", 4096, 10**6)[0] == "scan"  # nothing fits
    # pairs() streams one table per thread: a budget too small for all tables still fits some
    lay = D.choose_layout(n, k, 64, "pairs", 4096, 5 * 10**7, 2)[0]
    d = D.layout_design(lay, n, k, 64)
    assert d.tables * 12 * n > 5 * 10**7 >= 2 * d.table_bytes / d.tables


def test_design_tables_jobs_and_costs():
    for job in D.JOBS:
        ds = design_tables(10**6, 3, job=job, max_tables=64)
        assert all(isinstance(d, TableDesign) for d in ds)
        costs = [d.cost_ns(job) for d in ds]
        assert costs == sorted(costs)
        assert ds[0].cost_ns(job) == D.choose_layout(10**6, 3, 64, job, 64, 1 << 62, 1)[1]
    d = design_tables(10**6, 3, job="pairs")[0]
    assert d.cost_ns("pairs") == d.est_build_ns + d.est_pairs_ns
    assert d.cost_ns("index") == d.est_build_ns + 10**6 * d.est_query_ns
    assert all(d.table_bytes <= 10**8 for d in design_tables(10**6, 3, memory_budget=10**8))
    with pytest.raises(ValueError, match="job"):
        design_tables(10, 3, job="fast")
