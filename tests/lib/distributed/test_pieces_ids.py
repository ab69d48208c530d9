"""The ids in ``distributed.dedup_dataset``'s exact-groups shuffle: string ids travel as Arrow
strings (offsets and bytes, decoded only for the copies and their representatives), any other
ids as JSON, with the same values back and the same duplicates table as ``dedup_table``."""

import json

import numpy as np
import pytest

pytest.importorskip("dask")
pa = pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed.pieces")
DD = pytest.importorskip("simhash_lab.distributed")
import pyarrow.parquet as pq  # noqa: E402

from simhash_lab.dedup import dedup_table  # noqa: E402


def test_string_ids_round_trip_through_arrow():
    ids = ["a", "", "é文", "x" * 300, "b"]
    strings = D.id_strings(ids)
    assert strings is not None
    rows = np.array([4, 0, 2, 1], np.int64)
    piece = D.ids_columns(ids, strings, rows)
    assert set(piece) == {"id_off", "id_utf8"} and piece["id_off"][0] == 0
    other = D.ids_columns(ids, strings, np.array([3], np.int64))
    assert D.ids_at([piece, other], np.array([4, 0, 3, 2])) == ["x" * 300, "b", "", "é文"]


@pytest.mark.parametrize(
    "ids", [[1, 2, 3], ["a", 2, "c"], ["a", None, "c"], ["a", "\ud800", "c"], [b"a", "b", "c"]]
)
def test_other_ids_travel_as_json(ids):
    assert D.id_strings(ids) is None
    piece = D.ids_columns(ids, None, np.array([2, 0], np.int64))
    assert set(piece) == {"ids"}
    want = json.loads(json.dumps([ids[2], ids[0]], default=str))
    assert D.ids_at([piece], np.array([0, 1])) == want


def test_pieces_of_both_kinds_together():
    a = D.ids_columns(["p", "q"], D.id_strings(["p", "q"]), np.array([0, 1], np.int64))
    b = D.ids_columns([7, 8], None, np.array([1], np.int64))
    assert D.ids_at([a, b], np.array([2, 0, 1])) == [8, "p", "q"]


@pytest.mark.parametrize("kind", ["str", "int"])
def test_exact_copies_are_named_as_one_process_names_them(tmp_path, kind):
    """Exact copies across partitions (and within one): the duplicates table of ``dedup_table`` on
    the same rows, ids and all, whether the ids are strings or integers (JSONL). (Strings in one
    partition and integers in another reach the duplicates table's writer, which refuses a
    column of mixed types, on main as here.)"""
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(400)]
    base = [" ".join(rng.choice(words, 30)) for _ in range(60)]
    texts = base + [base[int(i)] for i in rng.integers(0, 60, 40)]  # 40 exact copies
    order = rng.permutation(len(texts))
    rows = []
    for n, i in enumerate(order.tolist()):
        ident = f"id-{n}" if kind == "str" else 1000 + n
        rows.append({"id": ident, "text": texts[i]})
    paths = []
    for p in range(2):
        path = tmp_path / f"part-{p}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows[p * 50 : (p + 1) * 50]), encoding="utf-8")
        paths.append(str(path))
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    want = dedup_table(whole, id_column="id", k=3)
    got = DD.dedup_dataset(paths, tmp_path / "out", id_column="id", k=3, scheduler="sync")
    assert got["exact"] >= 40 and got["dropped"] == len(want.duplicates)
    table = pq.read_table(tmp_path / "out" / "duplicates.parquet").to_pylist()
    assert [r["dropped_id"] for r in table] == list(want.duplicates.dropped_id)
    assert [r["kept_id"] for r in table] == list(want.duplicates.kept_id)
