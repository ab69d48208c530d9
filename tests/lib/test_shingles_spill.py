"""The shingle sets a dedup run keeps (shingles.ChunkSets): beyond ``MEMORY`` bytes they go to a
temporary file and come back the same, so a run's result does not depend on where they were."""

import numpy as np
import pytest

from simhash_lab.shingles import ChunkSets, Shingler


def _chunks(seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(7):
        lens = rng.integers(0, 30, size=int(rng.integers(1, 40)))
        indptr = np.zeros(lens.size + 1, np.int64)
        np.cumsum(lens, out=indptr[1:])
        out.append((indptr, rng.integers(0, 2**63, size=int(indptr[-1]), dtype=np.uint64)))
    return out


@pytest.mark.parametrize("memory", [0, 2000, 1 << 30])
def test_subset_is_the_same_held_or_spilled(monkeypatch, memory):
    monkeypatch.setattr(ChunkSets, "MEMORY", memory)
    store = ChunkSets()
    chunks = _chunks(1)
    for indptr, data in chunks:
        store.add(indptr, data)
    assert (store._file is not None) == (memory < 1 << 30)
    every = [data[indptr[i] : indptr[i + 1]] for indptr, data in chunks for i in range(indptr.size - 1)]
    rows = np.sort(np.random.default_rng(2).choice(len(every), size=len(every) // 3, replace=False))
    got = store.subset(rows)
    for k, r in enumerate(rows.tolist()):
        assert np.array_equal(got.data[got.indptr[k] : got.indptr[k + 1]], every[r])


def test_dedup_gives_the_same_result_with_the_sets_spilled(monkeypatch, course):
    from simhash_lab.dedup import dedup_texts

    corpus = course("corpus")
    docs = corpus.labelled_set(corpus.python_docs()[:120], seed=5).docs
    want = dedup_texts(docs, jaccard=0.8, k=12)
    monkeypatch.setattr(ChunkSets, "MEMORY", 0)
    got = dedup_texts(docs, jaccard=0.8, k=12)
    assert want.verified > 0
    assert np.array_equal(got.keep, want.keep) and np.array_equal(got.similarity, want.similarity)
    assert Shingler(3).sets(docs)[0].size == len(docs) + 1


@pytest.mark.parametrize("threads", [False, True])
def test_subset_reads_the_spill_file_again_after_it_grows(monkeypatch, threads):
    """The spill file read back, then more chunks added to it and read back too."""
    monkeypatch.setattr(ChunkSets, "MEMORY", 0)
    store = ChunkSets()
    chunks = _chunks(3)
    every = [data[indptr[i] : indptr[i + 1]] for indptr, data in chunks for i in range(indptr.size - 1)]
    for indptr, data in chunks[:4]:
        store.add(indptr, data)
    first = int(sum(c[0].size - 1 for c in chunks[:4]))
    got = store.subset(np.arange(first), threads=threads)
    assert all(np.array_equal(got.data[got.indptr[k] : got.indptr[k + 1]], every[k]) for k in range(first))
    for indptr, data in chunks[4:]:
        store.add(indptr, data)
    rows = np.arange(0, len(every), 2)
    got = store.subset(rows, threads=threads)
    for k, r in enumerate(rows.tolist()):
        assert np.array_equal(got.data[got.indptr[k] : got.indptr[k + 1]], every[r])


@pytest.mark.parametrize("many", [False, True])
def test_store_places_are_the_same_by_table_or_by_search(many):
    """SetStore.local: a pair list's many ends read from a table of row numbers, a few found by
    binary search: the same places."""
    store = ChunkSets()
    for indptr, data in _chunks(4):
        store.add(indptr, data)
    rows = np.arange(1, store.starts[-1], 3)
    got = store.subset(rows)
    assert got.indptr.shape == (rows.size + 1,) and got.data.size == got.indptr[-1]
    rng = np.random.default_rng(5)
    ask = rng.choice(rows, size=4 * rows.size if many else 3)
    at = got.local(ask)
    assert (getattr(got, "_at", None) is not None) == many
    assert np.array_equal(rows[at], ask) and np.array_equal(at, np.searchsorted(rows, ask))
