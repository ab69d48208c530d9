"""The exact-groups step (simhash_lab.dedup.steps: text_digests, exact_groups): digests equal exactly
for equal texts, whatever their width in memory; representatives the first of their group in the
visiting order, against a dictionary, through collisions of the sort key's high bits."""

import numpy as np
import pytest

from simhash_lab.dedup.steps import exact_groups, text_digests


class Text(str):
    pass


def test_digests_are_equal_exactly_for_equal_texts():
    texts = [
        "", "a", "a\x01", "\u0161",  # 61 01: one kind-1 text's bytes are one kind-2 text's units
        "ab", "ab ", "b" * 17, "b" * 240, "b" * 241, "b" * 5000,
        "日本語", "日本語 ", "\U0001f600", "x\U0001f600", "\ud800", "caf\u00e9", "cafe\u0301",
    ]  # fmt: skip
    same = ["".join(list(t)) for t in texts] + [Text(t) for t in texts]  # other objects, equal
    d = text_digests(texts + same)
    assert d.dtype == np.uint64 and d.shape == (3 * len(texts), 2)
    keys = [tuple(r) for r in d.tolist()]
    n = len(texts)
    assert len(set(keys[:n])) == n  # different texts, different digests
    assert keys[n : 2 * n] == keys[:n] and keys[2 * n :] == keys[:n]


def test_digests_are_fixed_values():
    """The same in every process (Dask workers compare them): XXH3-64 and XXH64 of the units."""
    import xxhash

    for t, kind in (("hello world", 1), ("\u0161abc", 2), ("\U0001f600!", 4)):
        units = t.encode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[kind])
        want = [xxhash.xxh3_64_intdigest(units), xxhash.xxh64_intdigest(units, seed=kind)]
        assert text_digests([t]).tolist() == [want]


def reference_groups(digests, rank, rows):
    first = {}
    for i in sorted(rows.tolist(), key=lambda i: rank[i]):
        first.setdefault(tuple(digests[i].tolist()), i)
    return np.array([first[tuple(digests[i].tolist())] for i in rows.tolist()], np.int64)


@pytest.mark.parametrize("order", ["shuffled", "input"])  # "input": rows already in visiting order
@pytest.mark.parametrize("every", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_representatives_are_the_first_in_visiting_order(seed, every, order):
    rng = np.random.default_rng(seed)
    n = 5000
    base = rng.integers(0, 2**63, size=(300, 2), dtype=np.uint64)
    digests = base[rng.integers(0, 300, n)]
    # the sort key keeps only the first half's high bits: make them collide, the rest differ
    clash = rng.choice(n, 400, replace=False)
    digests[clash, 0] = np.uint64(0xABCDEF0000000000) | rng.integers(0, 4, 400).astype(np.uint64)
    digests[clash[:200], 1] = np.uint64(7)
    rank = rng.permutation(n) if order == "shuffled" else np.arange(n)
    rows = np.arange(n) if every else np.sort(rng.choice(n, 4000, replace=False))
    got = exact_groups(digests, rank, rows)
    assert got.tolist() == reference_groups(digests, rank, rows).tolist()


def test_many_identical_rows_one_group():
    n = 200_000
    digests = np.tile(text_digests(["the same text"]), (n, 1))
    rank = np.arange(n)[::-1].copy()  # visited last to first
    got = exact_groups(digests, rank, np.arange(n))
    assert np.all(got == n - 1)


def test_a_dask_part_of_jsonl_with_ids_of_two_kinds_is_refused_naming_the_field(tmp_path):
    # JSON lets one field hold 1 and "c0"; a Parquet column does not: a clear error, not Arrow's
    import json

    from simhash_lab.datasets import DatasetError, open_dataset
    from simhash_lab.dedup.steps import WRITE

    src = tmp_path / "mixed.jsonl"
    src.write_text("".join(json.dumps({"id": i, "text": f"row {i}"}) + "\n" for i in (1, "c0", 2)))
    source = open_dataset(src, "text", id_column="id")
    with pytest.raises(
        DatasetError, match=r"mixed\.jsonl: the field 'id' holds values of several kinds \(a number, a str\)"
    ):
        WRITE.part(source, np.ones(3, np.bool_), str(tmp_path / "part.parquet"))
    assert not (tmp_path / "part.parquet").exists()
    fine = tmp_path / "fine.jsonl"
    fine.write_text("".join(json.dumps({"id": i, "text": f"row {i}"}) + "\n" for i in (1, 2, 3)))
    assert (
        WRITE.part(
            open_dataset(fine, "text", id_column="id"),
            np.array([True, False, True]),
            str(tmp_path / "ok.parquet"),
        )
        == 2
    )
