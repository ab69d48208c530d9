"""Parquet datasets (simhash_lab.datasets.parquet, through dedup_table): kept rows with the input's
schema, and every bad input one line naming the file; a row group that can only hold a row larger
than max_row_bytes refused from the footer, before it is inflated."""

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import dedup_table, dedup_texts


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


def test_bad_parquet_is_one_line_naming_it(tmp_path):
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


def test_a_row_group_that_inflates_past_the_row_limit_is_refused_from_its_footer(tmp_path, monkeypatch):
    """A few KB of Parquet holding one text of many MB (before: read, inflated, then refused: a
    33 KB file took 2.4 GB at 1 GiB): the footer's uncompressed size for the group's rows says one
    row is over ``max_row_bytes``, so the group is refused unread, naming it (issue 45)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    bomb = tmp_path / "bomb.parquet"
    pq.write_table(
        pa.table({"id": ["x"], "text": ["a" * (8 << 20)]}), bomb, compression="zstd", use_dictionary=False
    )
    assert bomb.stat().st_size < 64 << 10

    def unread(*a, **kw):
        raise AssertionError("a row group was read")

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", unread)
    for call in (
        lambda: dedup_table(bomb, max_row_bytes=1 << 20),
        lambda: dedup_table(bomb, id_column="id", max_row_bytes=1 << 20),
    ):
        with pytest.raises(DatasetError) as e:
            call()
        msg = str(e.value)
        assert (
            msg.startswith(f"{bomb}: row group 0 (rows 0-0) holds ")
            and "for 1 row: a row is larger than " in msg
        )
        assert "max_row_bytes (--max-row-bytes 1048576); refused unread" in msg
    monkeypatch.undo()
    ok = tmp_path / "ok.parquet"  # rows up to the limit: read as before
    texts = [f"w{i} " * 300_000 for i in range(3)]  # 0.9 MB each, under 1 MiB
    pq.write_table(pa.table({"text": texts}), ok, compression="zstd")
    res = dedup_table(ok, max_row_bytes=1 << 20, k=3)
    assert len(res.ids) == 3 and res.keep.all()
