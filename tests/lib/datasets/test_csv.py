"""CSV datasets (simhash_lab.datasets.csv, through dedup_table): kept records written back byte for
byte, and every bad input one line naming the file, the line and the column."""

import csv

import pytest

from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import dedup_table


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


def test_bad_csv_is_one_line_naming_it(tmp_path):
    (tmp_path / "a.csv").write_text("id,body\n1,x\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no column 'text' \\(the header has 'id', 'body'\\)"):
        dedup_table(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("", encoding="utf-8")
    with pytest.raises(DatasetError, match="empty"):
        dedup_table(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("id,text\n1,x,extra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2: 3 fields, the header has 2"):
        dedup_table(tmp_path / "c.csv")
