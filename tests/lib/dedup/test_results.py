"""What a run found and its writers (simhash_lab.dedup.results): the duplicates table as CSV (every
cell through simhash_lab._escape: a formula start prefixed, a CR or LF inside an id quoted, rows
ending CR LF), strict JSONL and Parquet; the result's pairs, groups and JSON."""

import csv
import json
import math

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import Duplicates, dedup_texts
from simhash_lab.dedup.results import check_duplicates_name, json_value, write_duplicates


def _table(ids):
    n = len(ids) // 2
    return Duplicates(
        dropped=np.arange(n, dtype=np.int64) + n,
        kept=np.arange(n, dtype=np.int64),
        distance=np.arange(n, dtype=np.int64),
        similarity=np.array([1.0, float("nan")] * n)[:n],
        dropped_id=ids[n:],
        kept_id=ids[:n],
    )


def test_the_csv_table_starts_no_formula_and_no_row_of_its_own(tmp_path):
    ids = ["doc1", "=cmd|' /C calc'!A0", "doc2\r=cmd|' /C calc'!A0", "@SUM(A1)"]
    write_duplicates(str(tmp_path / "d.csv"), _table(ids))
    raw = (tmp_path / "d.csv").read_bytes()
    assert raw.count(b"\r\n") == 3 and raw.startswith(b"dropped_id,kept_id,distance,similarity")
    with open(tmp_path / "d.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert len(rows) == 3  # the header and two rows: the CR inside an id started none
    assert rows[1][:2] == ["doc2\r=cmd|' /C calc'!A0", "doc1"]
    assert rows[2][:2] == ["'@SUM(A1)", "'=cmd|' /C calc'!A0"]
    assert rows[2][3] == ""  # no similarity: an empty cell
    write_duplicates(str(tmp_path / "d.tsv"), _table(ids))
    assert b"\t" in (tmp_path / "d.tsv").read_bytes().split(b"\r\n")[0]


def test_jsonl_is_strict_and_parquet_refuses_ids_of_two_kinds(tmp_path):
    write_duplicates(str(tmp_path / "d.jsonl"), _table(["a", 7, "c", 9]))
    recs = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert recs[1]["similarity"] is None and recs[0]["kept_id"] == "a" and recs[1]["dropped_id"] == 9
    pytest.importorskip("pyarrow")
    with pytest.raises(DatasetError, match="the ids are of several kinds"):
        write_duplicates(str(tmp_path / "d.parquet"), _table(["a", 7, "c", 9]))
    assert not (tmp_path / "d.parquet").exists()


def test_the_table_is_named_for_its_format():
    assert [check_duplicates_name(n) for n in ("d.csv", "d.TSV", "d.jsonl", "d.parquet", "/dev/stdout")] == [
        "csv", "csv", "jsonl", "parquet", "csv",
    ]  # fmt: skip
    with pytest.raises(DatasetError, match="not .xlsx"):
        check_duplicates_name("d.xlsx")
    assert json_value([1.0, math.inf, {"x": math.nan}]) == [1.0, None, {"x": None}]


def test_pairs_groups_and_json_of_a_run():
    base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat"
    texts = [base, base.replace("warm", "soft"), "cooking rice", base, ""]
    res = dedup_texts(texts, jaccard=0.7, k=16, ids=["a", "b", "c", "d", "e"])
    assert res.groups == [[0, 1, 3]] and res.exit_status == 1
    assert res.verified_pairs()[:, :2].tolist() == [[0, 1], [0, 3], [1, 3]]
    doc = res.to_json()
    assert doc["dropped"] == 2 and doc["exact_copies"] == 1 and doc["featureless"] == ["e"]
    assert [m["id"] for m in doc["groups"][0]] == ["a", "b", "d"] and doc["groups"][0][0]["kept"]
    with pytest.raises(ValueError, match="more than limit"):
        res.verified_pairs(limit=2)
