"""Datasets in and out (simhash_lab.datasets, through dedup_table): JSONL, CSV and Parquet, kept rows
unchanged and in order, and every bad input one line naming the file, the line and the column."""

import csv

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import dedup_table, dedup_texts


def test_jsonl_in_and_out(tmp_path, rows, write_jsonl):
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, rows)
    res = dedup_table(src, "text", id_column="id", jaccard=0.8, k=12, output=tmp_path / "kept.jsonl",
                      duplicates=tmp_path / "dups.csv")  # fmt: skip
    lines = src.read_bytes().splitlines(keepends=True)
    kept = (tmp_path / "kept.jsonl").read_bytes().splitlines(keepends=True)
    assert kept == [ln for ln, k in zip(lines, res.keep) if k]  # unchanged, in input order
    assert res.written == len(kept) < len(lines)
    want = dedup_texts([r["text"] for r in rows], jaccard=0.8, k=12)
    assert np.array_equal(res.keep, want.keep)
    with open(tmp_path / "dups.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == ["dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row"]
    assert [(t["dropped_id"], t["kept_id"]) for t in table] == [
        (f"r{d}", f"r{k}") for d, k in zip(want.duplicates.dropped.tolist(), want.duplicates.kept.tolist())
    ]
    assert all(float(t["similarity"]) >= 0.8 for t in table)


def test_csv_in_and_out_keeps_records_byte_for_byte(tmp_path, rows):
    src = tmp_path / "docs.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "n"])
        for r in rows:
            w.writerow([r["id"], r["text"], r["n"]])  # texts hold newlines: quoted records
    res = dedup_table(src, "text", id_column="id", jaccard=0.8, k=12, output=tmp_path / "kept.csv")
    with open(src, newline="", encoding="utf-8") as f:
        header, *records = list(csv.reader(f))
    with open(tmp_path / "kept.csv", newline="", encoding="utf-8") as f:
        kh, *kept = list(csv.reader(f))
    assert kh == header and kept == [r for r, k in zip(records, res.keep) if k]
    assert res.duplicates.dropped_id[0].startswith("r")
    text = (tmp_path / "kept.csv").read_text(encoding="utf-8")
    assert (
        text.startswith("id,text,n\r\n")
        and text in src.read_text(encoding="utf-8")
        or len(kept) < len(records)
    )


def test_parquet_in_and_out(tmp_path, rows):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {"id": [r["id"] for r in rows], "text": [r["text"] for r in rows], "n": [r["n"] for r in rows]}
    )
    pq.write_table(table, tmp_path / "docs.parquet", row_group_size=37)
    res = dedup_table(tmp_path / "docs.parquet", "text", id_column="id", jaccard=0.8, k=12,
                      output=tmp_path / "kept.parquet", duplicates=tmp_path / "dups.parquet")  # fmt: skip
    kept = pq.read_table(tmp_path / "kept.parquet")
    assert kept.schema == table.schema
    assert kept.to_pylist() == [r for r, k in zip(table.to_pylist(), res.keep) if k]
    dups = pq.read_table(tmp_path / "dups.parquet").to_pylist()
    assert len(dups) == len(res.duplicates) > 0 and dups[0]["dropped_id"].startswith("r")
    want = dedup_texts([r["text"] for r in rows], jaccard=0.8, k=12)
    assert np.array_equal(res.keep, want.keep)


def test_priority_column(tmp_path, write_jsonl):
    base = " ".join(f"w{i}" for i in range(50))
    write_jsonl(
        tmp_path / "p.jsonl", [{"text": base, "p": 1}, {"text": base, "p": 3}, {"text": base, "p": 2}]
    )
    res = dedup_table(tmp_path / "p.jsonl", priority_column="p", jaccard=0.9, k=5)
    assert res.keep.tolist() == [False, True, False]
    write_jsonl(tmp_path / "q.jsonl", [{"text": base, "p": "high"}])
    with pytest.raises(DatasetError, match="line 1: priority column 'p' is a str"):
        dedup_table(tmp_path / "q.jsonl", priority_column="p", jaccard=0.9, k=5)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": 1, "body": "x"}\n', "line 1: no column 'text'"),
        ('{"id": 1, "text": "ok"}\n{"id": 2, "text": 7}\n', "line 2: column 'text' is a number, not text"),
        ('{"id": 1, "text": null}\n', "line 1: column 'text' is null, not text"),
        ('{"id": 1, "text": "ok"}\nnot json\n', "line 2: not JSON"),
        ("[1, 2]\n", "line 1: a list, not a JSON object"),
        ("", "empty: no rows"),
        ("\n\n", "empty: no rows"),
    ],
)
def test_bad_jsonl_is_one_line_naming_it(tmp_path, content, message):
    p = tmp_path / "docs.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError) as e:
        dedup_table(p, "text", jaccard=0.8, output=tmp_path / "kept.jsonl")
    assert message in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "kept.jsonl").exists()  # nothing written


def test_bad_csv_and_parquet(tmp_path):
    (tmp_path / "a.csv").write_text("id,body\n1,x\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no column 'text' \\(the header has 'id', 'body'\\)"):
        dedup_table(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("", encoding="utf-8")
    with pytest.raises(DatasetError, match="empty"):
        dedup_table(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("id,text\n1,x,extra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2: 3 fields, the header has 2"):
        dedup_table(tmp_path / "c.csv")
    pytest.importorskip("pyarrow")
    (tmp_path / "d.parquet").write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        dedup_table(tmp_path / "d.parquet")
    (tmp_path / "e.parquet").write_bytes(b"")
    with pytest.raises(DatasetError, match="e.parquet: not a readable Parquet file"):
        dedup_table(tmp_path / "e.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "f.parquet")
    with pytest.raises(DatasetError, match="column 'text' is int64, not text"):
        dedup_table(tmp_path / "f.parquet")


def test_jsonl_with_a_byte_order_mark_and_bad_utf8(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"text": "a b c d e"}\n{"text": "a b c d e"}\n')
    res = dedup_table(p, jaccard=0.8, k=3, output=tmp_path / "k.jsonl")
    assert res.keep.tolist() == [True, False]
    assert (tmp_path / "k.jsonl").read_bytes() == b'\xef\xbb\xbf{"text": "a b c d e"}\n'
    p.write_bytes(b'{"text": "ok"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(DatasetError, match="line 2: not UTF-8"):
        dedup_table(p)
