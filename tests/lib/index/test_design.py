"""Table designs (simhash_lab.index.design): Manku, Jain and Das Sarma's Example 3.1 and the ranked
list design_tables gives."""

from __future__ import annotations

from simhash_lab.index import TableDesign, design_tables, manku_example_3_1


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
