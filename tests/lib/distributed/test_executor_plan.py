"""The plan step on Dask (issue 48, item 4): the bands chosen once, on the client, from the first
partitions' rows, and every task's keys made with them: the same bands and the same decisions as
``dedup_table`` on the same files, also where the sample is shorter than the input (its rows then
reckoned from the files' bytes, as ``dedup_table`` reckons them)."""

import importlib.util
import pathlib

import numpy as np
import pytest

pytest.importorskip("dask")
pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed")

from simhash_lab.dedup import dedup_table  # noqa: E402
from simhash_lab.dedup import steps as S  # noqa: E402


def _load(name: str, path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HERE = pathlib.Path(__file__).parent
T = _load("_distributed_dataset_corpora", HERE / "test_executor.py")  # one definition of each helper
P = _load("_plan_corpora", HERE.parent / "dedup" / "test_plan.py")


client = _load("_bands_on_dask", HERE / "test_executor_bands.py").client  # its cluster fixture, one of each


@pytest.mark.parametrize("fmt, sample", [("jsonl", 700), ("parquet", 700), ("jsonl", 20_000)])
def test_dask_plans_the_bands_dedup_table_plans(tmp_path, client, monkeypatch, fmt, sample):
    monkeypatch.setattr(S.Plan, "ROWS", sample)  # 700: the sample ends inside the second file
    texts = P._shared_passages(2400, seed=3)
    paths, rows, _ = T._partitioned(tmp_path, texts, 4, fmt)
    want = dedup_table(paths, id_column="id")
    plan = want.settings["candidates"]
    assert plan["chosen_by"] == "plan" and plan["sample"] == min(sample, len(texts))
    assert (plan["bands"], plan["rows"]) != (16, 6)
    if sample < len(texts):  # reckoned: Parquet's rows counted, JSONL's from the bytes
        assert plan["rows_reckoned"] == pytest.approx(len(texts), rel=0.1)
    got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", n_reducers=3)
    assert got["candidates"] == plan
    T._same_as(want, rows, *T._read_output(tmp_path / "out"))
    assert got["verified"] == int(np.count_nonzero(want.similarity >= want.jaccard))


def test_pinned_bands_on_dask(tmp_path, client):
    paths, rows, _ = T._partitioned(tmp_path, P._shared_passages(900, seed=4), 3, "parquet")
    want = dedup_table(paths, id_column="id", bands=(9, 4))
    got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", bands=(9, 4))
    assert got["candidates"] == want.settings["candidates"]
    assert (got["candidates"]["bands"], got["candidates"]["rows"], got["candidates"]["chosen_by"]) == (
        9,
        4,
        "settings",
    )
    T._same_as(want, rows, *T._read_output(tmp_path / "out"))
