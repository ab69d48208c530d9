"""The checks of exercise 05 (simhash_lab.grading.checks.block_index): a query that scans every
fingerprint (it finds bait), reads more than its candidates (counted) or tables that smuggle them
fail; wrong blocks are blamed, not a right build."""

from __future__ import annotations

from simhash_lab.grading import checks


def test_a_query_that_scans_every_fingerprint_fails(capsys):
    from simhash_lab import hamming

    def build(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j in range(4):
                tables[j].setdefault((fp >> (16 * j)) & 0xFFFF, []).append(i)
        return tables

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(fps) if hamming(f, q) <= k]

    v = checks.block_index.feedback(build, query)
    assert not v.passed and "no candidate of q" in v.hint  # what it read beyond them was bait


def test_a_query_that_reads_every_fingerprint_but_answers_from_the_candidates_fails(capsys):
    """Reading more than the candidates is a linear scan's cost even when the answer is right: the
    counted reads say so."""
    from simhash_lab import hamming

    def build(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j in range(4):
                tables[j].setdefault((fp >> (16 * j)) & 0xFFFF, []).append(i)
        return tables

    def query(tables, fps, q, k):
        everything = list(fps)  # reads them all, uses none of the others
        ids = {i for j in range(4) for i in tables[j].get((q >> (16 * j)) & 0xFFFF, [])}
        return sorted(i for i in ids if hamming(everything[i], q) <= k)

    v = checks.block_index.feedback(build, query)
    assert not v.passed and "read fps[id] only for those ids" in v.hint, v


def test_tables_that_smuggle_the_fingerprints_fail():
    def build(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j in range(4):
                tables[j].setdefault((fp >> (16 * j)) & 0xFFFF, []).append(i)
        return [*tables, {"all": list(fps)}]

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(tables[4]["all"]) if bin(f ^ q).count("1") <= k]

    v = checks.block_index.feedback(build, query)
    assert not v.passed and "4 tables" in v.hint


def test_wrong_blocks_are_blamed_not_a_right_build_tables(capsys, out_of):
    out = out_of(
        "blocks",
        "def blocks(fp):\n    return [(fp >> (16 * j)) & 0xFF for j in range(4)]\n",
        "05_block_index",
        capsys,
    )
    assert out.startswith("❌ blocks: not yet"), out
    out = out_of(
        "blocks",
        "def blocks(fp):\n    return [(fp >> (16 * j)) & 0xFF for j in range(4)]\n",
        "05_block_index",
        capsys,
        check="block_index",
    )
    assert out.startswith("❌") and "your blocks() is wrong" in out and "Table 0" not in out, out
