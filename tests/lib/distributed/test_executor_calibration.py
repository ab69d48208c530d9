"""The calibration of ``distributed.dedup_dataset``: drawn on one task, scanned where each
partition's fingerprints are, measured on the sets the scans bring: the calibration
``dedup_table`` makes on the same rows, pair for pair (issue 24, item 3)."""

import json

import numpy as np
import pytest

pytest.importorskip("dask")
pa = pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed")
X = pytest.importorskip("simhash_lab.distributed.executor")
import pyarrow.parquet as pq  # noqa: E402

from simhash_lab.calibration import Draw, draw_sample  # noqa: E402
from simhash_lab.dedup import dedup_table  # noqa: E402


def corpus(n=1500, words=60, seed=3):
    """Documents of ``words`` words (Python's docs' vocabulary): a fifth are copies of an earlier
    one with one to three words replaced (near-duplicates), a few are exact copies."""
    from simhash_lab.course.corpus import python_docs

    vocab = sorted({w.lower() for d in python_docs() for w in d.text.split() if w.isalpha()})
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        if i > 10 and rng.random() < 0.2:
            w = docs[int(rng.integers(i))].split()
            for p in rng.choice(words, int(rng.integers(1, 4)), replace=False).tolist():
                w[p] = vocab[int(rng.integers(len(vocab)))]
        elif i > 10 and rng.random() < 0.03:
            w = docs[int(rng.integers(i))].split()  # an exact copy: not sampled, not searched
        else:
            w = [vocab[int(j)] for j in rng.integers(len(vocab), size=words)]
        docs.append(" ".join(w))
    return docs


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cal")
    rows = [{"id": f"r{i}", "text": t} for i, t in enumerate(corpus())]
    bounds = np.linspace(0, len(rows), 5).astype(int)
    paths = []
    for p in range(4):
        path = folder / f"part-{p}.parquet"
        pq.write_table(pa.Table.from_pylist(rows[bounds[p] : bounds[p + 1]]), path)
        paths.append(str(path))
    whole = folder / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    want = dedup_table(whole, id_column="id").calibration
    assert want.method == "sample" and want.pairs >= 50
    return paths, want


@pytest.mark.parametrize(
    "sets", ["kept by the fingerprint tasks", "read again by the calibration", "never kept"]
)
def test_the_calibration_is_the_single_machine_one(tmp_path, dataset, monkeypatch, sets):
    """The same sample, the same measured pairs (distances and similarities, in order), the same
    k, whether the sampled rows' and neighbours' sets come from the fingerprint tasks, are read
    again by the measuring task (a partition's scan brings none: over ``_CAL_SETS_ROWS``), or
    were never kept (over the sets' budget: each scan reads its own rows again)."""
    paths, want = dataset
    if sets == "read again by the calibration":
        monkeypatch.setattr(X, "CAL_SETS_ROWS", 0)
    elif sets == "never kept":
        monkeypatch.setattr("simhash_lab.dedup.run.SETS_BUDGET", 0)
    got, measure = [], X.cal_measure
    monkeypatch.setattr(X, "cal_measure", lambda *a: got.append(measure(*a)) or got[-1])
    res = D.dedup_dataset(paths, tmp_path / "out", id_column="id", scheduler="sync")
    (cal,) = got
    assert (cal.k, cal.method, cal.sample, cal.pairs, cal.k_max) == (
        want.k, want.method, want.sample, want.pairs, want.k_max
    )  # fmt: skip
    assert cal.recall == want.recall and res["k"] == want.k
    np.testing.assert_array_equal(cal.distances, want.distances)
    np.testing.assert_array_equal(cal.similarities, want.similarities)
    np.testing.assert_array_equal(cal.recall_by_k, want.recall_by_k)
    assert res["calibration"] == want.summary()


def test_the_draw_is_calibrates_draw():
    """``draw_sample``: the seeded rows among the valid ones, sorted, and a generator that goes on
    from where the draw left it (the synthetic pairs draw from it next)."""
    valid = np.ones(5000, np.bool_)
    valid[::3] = False
    draw, rows = draw_sample(5000, valid, 100, 7, 64)
    assert isinstance(draw, Draw) and draw.n == 5000 and rows.tolist() == np.flatnonzero(valid).tolist()
    rng = np.random.default_rng(7)
    assert draw.picked.tolist() == np.sort(rng.choice(rows, 100, replace=False)).tolist()
    assert valid[draw.picked].all() and draw.rng.random() == rng.random()
    empty, _ = draw_sample(10, np.zeros(10, np.bool_), 100, 0, 64)
    assert empty.picked.size == 0
