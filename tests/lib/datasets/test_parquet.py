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
