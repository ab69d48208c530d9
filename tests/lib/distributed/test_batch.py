"""Tests for the Dask pipeline: its pairs equal SimhashIndex.pairs() on the same fingerprints."""

import subprocess
import sys

import numpy as np
import pytest

from simhash_lab import Simhasher, SimhashIndex

dask = pytest.importorskip("dask")
D = pytest.importorskip("simhash_lab.distributed")


def planted(n, n_planted, bits=64, seed=0, max_flips=6):
    """Random fingerprints with copies of some at 0..max_flips bits from their source."""
    rng = np.random.default_rng(seed)
    fps = (
        rng.integers(0, 2**bits, size=n, dtype=np.uint64)
        if bits < 64
        else rng.integers(0, 2**64, size=n, dtype=np.uint64)
    )
    src = rng.choice(n, n_planted)
    dst = rng.choice(n, n_planted)
    for s, t in zip(src, dst):
        flips = rng.choice(bits, rng.integers(0, max_flips + 1), replace=False)
        fps[t] = fps[s] ^ np.uint64(sum(1 << int(b) for b in flips))
    return fps


def index_pairs(fps, k, bits=64):
    ix = SimhashIndex(k=k, bits=bits)
    ix.add_many(fps)
    return ix.pairs()


@pytest.fixture(scope="module")
def fps():
    return planted(20_000, 600)


@pytest.mark.parametrize(
    "k, layout",
    [
        (0, "blocks"),
        (1, "blocks"),
        (3, "blocks"),
        (3, "seed"),
        (3, ("permuted", 6)),
        (6, "blocks"),
        (2, ("nested", 4, 3)),
    ],
)
def test_pairs_equal_index_pairs(fps, k, layout):
    want = index_pairs(fps, k)
    got = D.pairs(fps, k=k, layout=layout, scheduler="sync")
    assert got.dtype == np.int64 and got.shape[1] == 3
    assert np.array_equal(got, want)
    assert len(want) > 0


@pytest.mark.parametrize("npartitions, n_reducers", [(1, 1), (3, 7), (16, 2)])
def test_partitioning_does_not_change_the_answer(fps, npartitions, n_reducers):
    got = D.pairs(fps, k=3, npartitions=npartitions, n_reducers=n_reducers, scheduler="threads")
    assert np.array_equal(got, index_pairs(fps, 3))


def test_corner_cases():
    empty = np.empty(0, np.uint64)
    assert D.pairs(empty, k=3, scheduler="sync").shape == (0, 3)
    assert D.pairs(np.array([5], np.uint64), k=3, scheduler="sync").shape == (0, 3)
    zeros = np.zeros(30, np.uint64)  # all-zero fingerprints: every pair at distance 0
    got = D.pairs(zeros, k=3, npartitions=4, scheduler="sync")
    assert len(got) == 30 * 29 // 2 and np.array_equal(got, index_pairs(zeros, 3))
    extremes = np.array([0, 2**64 - 1, 2**63, 1, 2**64 - 2], dtype=np.uint64)
    assert np.array_equal(D.pairs(extremes, k=2, scheduler="sync"), index_pairs(extremes, 2))


@pytest.mark.parametrize("bits, k", [(16, 2), (8, 3), (1, 0)])
def test_narrow_fingerprints(bits, k):
    fps = planted(3_000, 200, bits=bits, max_flips=min(3, bits), seed=bits)
    assert np.array_equal(D.pairs(fps, k=k, bits=bits, scheduler="sync"), index_pairs(fps, k, bits))


def test_dask_array_and_delayed_inputs(fps):
    import dask.array as da

    want = index_pairs(fps, 3)
    assert np.array_equal(D.pairs(da.from_array(fps, chunks=3_000), k=3, scheduler="sync"), want)
    parts = [dask.delayed(c) for c in np.array_split(fps, 5)]
    assert np.array_equal(D.pairs(parts, k=3, scheduler="sync"), want)


@pytest.fixture(scope="module")
def texts():
    from simhash_lab.course.corpus import labelled_set, python_docs

    return labelled_set(python_docs()[:120], seed=1).docs


def test_near_duplicates_from_texts_and_bags(texts):
    import dask.bag as db

    h = Simhasher()
    want_fps = h.fingerprints(texts)
    want = index_pairs(want_fps, 4)
    fps, got = D.near_duplicates(texts, k=4, npartitions=5, scheduler="sync")
    assert fps.dtype == np.uint64 and np.array_equal(fps, want_fps)
    assert np.array_equal(got, want) and len(got) > 20
    fps, got = D.near_duplicates(db.from_sequence(texts, npartitions=3), k=4, scheduler="threads")
    assert np.array_equal(fps, want_fps) and np.array_equal(got, want)
    h16 = Simhasher(bits=16)
    fps, got = D.near_duplicates(texts, k=2, hasher=h16, scheduler="sync")
    assert np.array_equal(fps, h16.fingerprints(texts)) and np.array_equal(got, index_pairs(fps, 2, 16))


def test_on_a_local_cluster(fps, texts):
    pytest.importorskip("distributed")
    cluster, client = D.local_cluster(2, processes=False)
    with cluster, client:
        assert np.array_equal(D.pairs(fps, k=3, npartitions=4), index_pairs(fps, 3))
        f, p = D.near_duplicates(texts, k=4, npartitions=4)
        assert np.array_equal(p, index_pairs(f, 4))


def test_bad_input():
    with pytest.raises(ValueError, match="layout"):
        D.pairs(np.zeros(3, np.uint64), layout="scan")
    with pytest.raises(ValueError, match="k"):
        D.pairs(np.zeros(3, np.uint64), k=64)
    with pytest.raises(ValueError, match="non-negative"):
        D.pairs(np.array([-1, 2]))
    with pytest.raises(ValueError, match="one-dimensional"):
        D.pairs(np.zeros((2, 2), np.uint64))
    with pytest.raises(TypeError, match="texts"):
        D.near_duplicates("one text")
    masks = D.table_masks(3, 64, "blocks")
    assert masks.dtype == np.uint64 and masks.size == 4
    assert int(np.bitwise_or.reduce(masks)) == 2**64 - 1


def test_without_dask_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    with pytest.raises(ImportError, match=r"simhash-lab\[dask\]"):
        D.pairs(np.zeros(3, np.uint64))


def test_import_does_not_import_dask():
    code = "import sys, simhash_lab.distributed; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
