"""Tests for ``distributed.dedup_dataset``'s writing of the kept rows: every ``part-NNNNN.parquet``
carries the input's columns, also a partition whose every row is dropped (0 rows, not 0 columns),
so that a reader unifying the parts' schemas reads the output folder as one table."""

import json

import pytest

pytest.importorskip("dask")
pa = pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed")
import pyarrow.dataset as pds  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from simhash_lab.settings import DedupSettings  # noqa: E402


def _texts(n=60, seed=0):
    """Documents of 30 random words of a vocabulary of 5,000: no two alike."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return [" ".join(f"w{j}" for j in rng.integers(5000, size=30).tolist()) for _ in range(n)]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_a_partition_whose_every_row_is_dropped_keeps_the_input_schema(tmp_path, fmt):
    texts = _texts()
    rows = [{"id": f"doc{i}", "text": t, "n": i, "score": i / 2} for i, t in enumerate(texts)]
    # the second partition: exact copies of the first's rows, every one dropped
    copies = [{**r, "id": f"copy{i}"} for i, r in enumerate(rows[:20])]
    paths = []
    for p, part in enumerate([rows, copies]):
        path = tmp_path / f"in-{p}.{fmt}"
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        else:
            pq.write_table(pa.Table.from_pylist(part), path)
        paths.append(str(path))
    out = tmp_path / "out"
    got = D.dedup_dataset(paths, out, DedupSettings(k=3), id_column="id", scheduler="sync")
    assert got["exact"] == len(copies) and got["kept"] == len(rows)
    first, empty = pq.read_table(out / "part-00000.parquet"), pq.read_table(out / "part-00001.parquet")
    assert empty.num_rows == 0
    assert empty.schema.names == ["id", "text", "n", "score"]
    assert empty.schema.equals(first.schema)
    parts = sorted(str(p) for p in out.glob("part-*.parquet"))
    assert pa.unify_schemas([pq.read_schema(p) for p in parts]).equals(first.schema)
    assert pds.dataset(parts, format="parquet").to_table().to_pylist() == rows
