"""A dataset in parts (``simhash_lab.datasets.parts``): a folder's parts found as ``dedup_dataset``
finds its partitions (names starting with ``.`` or ``_`` left out, sorted by path, subfolders
too), read in order as one dataset (rows numbered across them), read again by row, and each
part's kept rows written to a file of its name in an output folder."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError, open_dataset
from simhash_lab.datasets.parts import PartsSource, find_parts, split_folder


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "data"
    (d / "year=2024").mkdir(parents=True)
    (d / "_tmp").mkdir()
    (d / ".hidden").mkdir()
    for path, rows in (
        (d / "a.jsonl", ["a0", "a1"]),
        (d / "year=2024" / "b.jsonl", ["b0"]),
        (d / "c.ndjson", ["c0", "c1", "c2"]),
        (d / "_tmp" / "x.jsonl", ["never"]),
        (d / ".hidden" / "y.jsonl", ["never"]),
        (d / "_SUCCESS", None),
        (d / "README.md", None),
    ):
        path.write_text("".join(json.dumps({"text": t}) + "\n" for t in rows) if rows else "notes\n")
    return d


def test_a_folders_parts_and_the_rest(folder):
    parts, others = split_folder(str(folder))
    assert [p.split("data/")[1] for p in parts] == ["a.jsonl", "c.ndjson", "year=2024/b.jsonl"]  # by path
    assert [p.split("data/")[1] for p in others] == ["README.md"]  # _SUCCESS, _tmp/, .hidden/ left out
    with pytest.raises(DatasetError, match="holds no csv file"):
        find_parts(str(folder), "csv")


def test_parts_read_in_order_and_again_by_row(folder, tmp_path):
    src = open_dataset(str(folder), format="jsonl")
    assert isinstance(src, PartsSource)
    got = [(t, i) for texts, ids, _ in src.chunks(2) for t, i in zip(texts, ids)]
    assert got == [("a0", 0), ("a1", 1), ("c0", 2), ("c1", 3), ("c2", 4), ("b0", 5)]  # ids: rows across parts
    assert [t for _, ts in src.select(np.array([1, 2, 5]), 10) for t in ts] == ["a1", "c0", "b0"]
    out = tmp_path / "kept"
    src.check_output(str(out))
    assert src.write_kept(str(out), np.array([True, False, True, True, False, True])) == 4
    assert (out / "a.jsonl").read_text() == json.dumps({"text": "a0"}) + "\n"
    assert (out / "year=2024" / "b.jsonl").read_text() == json.dumps({"text": "b0"}) + "\n"
    assert len((out / "c.ndjson").read_text().splitlines()) == 2
    for bad in (str(tmp_path / "kept.jsonl"), str(folder)):  # a file name; the input folder itself
        with pytest.raises(DatasetError, match="name a folder|overwrite the input"):
            src.check_output(bad)
    with pytest.raises(DatasetError, match="read again before they were read once"):
        list(open_dataset(str(folder), format="jsonl").select(np.array([0]), 1))
