"""A Hugging Face ``datasets.Dataset`` as the input of ``dedup_table`` (issue 24, Build 7): the
decisions the same rows give as a JSONL file and as a pandas DataFrame, read from the Arrow table
the Dataset holds (not copied row by row), for a plain Dataset, a selection of its rows, one with
a format set and one memory-mapped from its cache files; the wrong kinds of Dataset get one clear
error."""

from __future__ import annotations

import json

import numpy as np
import pytest

hf = pytest.importorskip("datasets")  # the `dev` extra installs it; skip only where it is missing
pa = pytest.importorskip("pyarrow")

from simhash_lab import dedup_table  # noqa: E402
from simhash_lab.datasets import DatasetError, open_dataset  # noqa: E402
from simhash_lab.datasets.arrow import as_arrow  # noqa: E402


def corpus(seed=5):
    """200 documents of 40-120 words, 80 of them near-copies (1-3 words replaced) of earlier ones."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(2000)]
    docs = [" ".join(rng.choice(vocab, int(rng.integers(40, 120)))) for _ in range(120)]
    for _ in range(80):
        w = docs[int(rng.integers(len(docs)))].split()
        for p in rng.choice(len(w), int(rng.integers(1, 4)), replace=False):
            w[p] = str(rng.choice(vocab))
        docs.append(" ".join(w))
    ids = [f"doc{i}" for i in range(len(docs))]
    return ids, docs


def from_file(tmp_path, ids, texts, **kw):
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)))
    return dedup_table(p, "text", id_column="id", **kw)


def same(a, b):
    assert a.k == b.k
    assert a.keep.tolist() == b.keep.tolist()
    assert a.duplicates.rows() == b.duplicates.rows()


def test_a_dataset_decides_as_the_file_and_the_dataframe(tmp_path):
    pd = pytest.importorskip("pandas")
    ids, texts = corpus()
    want = from_file(tmp_path, ids, texts)
    assert (~want.keep).sum() >= 40  # the planted copies are found: the comparison means something
    ds = hf.Dataset.from_dict({"id": ids, "text": texts, "n": list(range(len(ids)))})
    same(dedup_table(ds, "text", id_column="id"), want)
    same(dedup_table(pd.DataFrame({"id": ids, "text": texts}), "text", id_column="id"), want)
    # with options, and a priority column, as for a file
    want = from_file(tmp_path, ids, texts, jaccard=0.7, k=10)
    same(dedup_table(ds, "text", id_column="id", jaccard=0.7, k=10), want)


def test_the_datasets_own_arrow_table_is_read_not_a_copy():
    ids, texts = corpus()
    ds = hf.Dataset.from_dict({"id": ids, "text": texts})
    table = as_arrow(ds)
    assert isinstance(table, pa.Table)
    # the very buffers the Dataset holds (no row-by-row conversion, no copy)
    got = table.column("text").chunk(0).buffers()[-1].address
    assert got == ds.data.table.column("text").chunk(0).buffers()[-1].address
    src = open_dataset(ds, "text", "id")
    assert src.total == len(ds) and src.name == "<Dataset>"


def test_a_selection_a_shuffle_a_filter_give_their_own_rows_in_order(tmp_path):
    ids, texts = corpus()
    ds = hf.Dataset.from_dict({"id": ids, "text": texts})
    rows = np.random.default_rng(0).permutation(len(ids))[:150].tolist()
    for sub, keep_rows in (
        (ds.select(rows), rows),
        (ds.shuffle(seed=3), None),
        (ds.filter(lambda r: int(r["id"][3:]) % 3 != 0), [i for i in range(len(ids)) if i % 3]),
    ):
        if keep_rows is None:  # the shuffle's order: read back from the Dataset itself
            keep_rows = [int(i[3:]) for i in sub["id"]]
        assert sub._indices is not None  # a view of the table through an index mapping
        want = from_file(tmp_path, [ids[i] for i in keep_rows], [texts[i] for i in keep_rows])
        same(dedup_table(sub, "text", id_column="id"), want)


def test_a_format_set_and_a_dataset_on_disk(tmp_path):
    ids, texts = corpus()
    want = from_file(tmp_path, ids, texts)
    ds = hf.Dataset.from_dict({"id": ids, "text": texts})
    same(dedup_table(ds.with_format("numpy"), "text", id_column="id"), want)
    ds.save_to_disk(str(tmp_path / "saved"))
    mapped = hf.load_from_disk(str(tmp_path / "saved"))  # memory-mapped Arrow files
    same(dedup_table(mapped, "text", id_column="id"), want)
    parquet = tmp_path / "docs.parquet"
    ds.to_parquet(str(parquet))
    loaded = hf.Dataset.from_parquet(str(parquet), cache_dir=str(tmp_path / "cache"))
    same(dedup_table(loaded, "text", id_column="id"), want)


def test_wrong_columns_and_wrong_kinds_of_dataset_are_one_clear_error(tmp_path):
    ids, texts = corpus()
    ds = hf.Dataset.from_dict({"id": ids, "text": texts, "n": list(range(len(ids)))})
    with pytest.raises(DatasetError, match=r"<Dataset>: no column 'body'"):
        dedup_table(ds, "body")
    with pytest.raises(DatasetError, match=r"<Dataset>: column 'n' is int64, not text"):
        dedup_table(ds, "n")
    with pytest.raises(DatasetError, match="keep mask"):
        dedup_table(ds, "text", output=tmp_path / "kept.parquet")
    splits = hf.DatasetDict({"train": ds, "test": ds})
    with pytest.raises(TypeError, match=r"DatasetDict.*one split.*\['train'\]"):
        dedup_table(splits, "text")
    stream = ds.to_iterable_dataset()
    with pytest.raises(TypeError, match=r"IterableDataset.*make it a Dataset"):
        dedup_table(stream, "text")
