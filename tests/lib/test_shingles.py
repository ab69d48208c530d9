"""Shingle sets and exact Jaccard (simhash_lab.shingles.Shingler) against Python sets, the fused
fingerprints-and-sets path against the Simhasher, and the early-exit Jaccard against the exact one."""

import numpy as np
import pytest

from simhash_lab import Simhasher
from simhash_lab.dedup import Shingler, recommended_hasher


def test_shingle_sets_equal_python_sets(labelled, shingle_sets):
    texts = labelled.docs[:80] + ["", "one", "two words", "Ünïcödé wörds, ünïcödé WÖRDS!", "  \n\t"]
    for n in (1, 2, 3, 5):
        indptr, data = Shingler(n).sets(texts)
        for i, s in enumerate(shingle_sets(texts, n)):
            row = data[indptr[i] : indptr[i + 1]]
            assert row.size == len(s) and np.all(np.diff(row.astype(object)) > 0)  # sorted, distinct
        one = texts.index("one")
        assert indptr[one + 1] - indptr[one] == 1  # one shingle of fewer words
        assert indptr[-1] == indptr[-2] and indptr[1] > indptr[0]  # whitespace: none


def test_jaccard_equals_the_sparse_reference(labelled, jaccard_all_pairs):
    texts = labelled.docs
    pairs, want = jaccard_all_pairs(texts, n=3, jaccard=0.0)
    indptr, data = Shingler(3).sets(texts)
    got = Shingler.jaccard(indptr, data, pairs[:, 0], pairs[:, 1])
    assert pairs.shape[0] > 1000
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert Shingler.jaccard(indptr, data, np.array([0]), np.array([0])).tolist() == [1.0]


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_fused_fingerprints_equal_the_simhasher(labelled, n):
    texts = labelled.docs[:100] + ["", "one", "Ünïcödé wörds, ünïcödé WÖRDS!", "İstanbul ΣΑΣ", "a " * 300]
    sh = Shingler(n)
    fps, indptr, data = sh.fingerprints_and_sets(texts)
    assert np.array_equal(fps, recommended_hasher(n).fingerprints(texts))
    ind2, dat2 = sh.sets(texts)
    assert np.array_equal(indptr, ind2) and np.array_equal(data, dat2)
    assert (
        sh.fuses(recommended_hasher(n))
        and not sh.fuses(Simhasher())
        and not Shingler(n + 1).fuses(recommended_hasher(n))
    )


def test_recommended_hasher_votes_with_the_verification_shingles():
    h = recommended_hasher(3)
    text = "a b c a b c a b c d"
    assert h.fingerprint(text) == Simhasher(tokenizer=h.tokenizer, weights="binary").fingerprint(
        sorted(set(h.features(text)))
    )


def test_jaccard_at_least_equals_the_exact_similarity_where_it_reaches_the_threshold():
    """Sets drawn to lie on both sides of the threshold, at it exactly too (4 of 5 shared: 0.8)."""
    rng = np.random.default_rng(3)
    sets = [np.array([1, 2, 3, 4, 5], np.uint64), np.array([1, 2, 3, 4, 6], np.uint64)]  # J = 4/6
    sets += [np.array([1, 2, 3, 4], np.uint64), np.array([1, 2, 3, 4, 9], np.uint64)]  # J = 0.8
    sets.append(np.empty(0, np.uint64))
    base = rng.choice(1 << 40, 400, replace=False).astype(np.uint64)
    for _ in range(60):
        keep = base[rng.random(base.size) < rng.uniform(0.6, 1.0)]
        extra = rng.choice(1 << 40, int(rng.integers(0, 60)), replace=False).astype(np.uint64) + np.uint64(
            1 << 41
        )
        sets.append(np.sort(np.concatenate([keep, extra])))
    indptr = np.zeros(len(sets) + 1, np.int64)
    np.cumsum([s.size for s in sets], out=indptr[1:])
    data = np.concatenate(sets)
    a, b = (x.ravel() for x in np.triu_indices(len(sets), 1))
    exact = Shingler.jaccard(indptr, data, a, b)
    for t in (0.8, 0.5, 0.9):
        for par in (a, np.tile(a, 3)):  # one thread, and ranges in threads (>= 4096 pairs)
            rows_b = b if par is a else np.tile(b, 3)
            want = exact if par is a else np.tile(exact, 3)
            got = Shingler.jaccard(indptr, data, par, rows_b, at_least=t)
            reach = want >= t
            assert reach.any() and (~reach).any()
            assert np.array_equal(got[reach], want[reach])
            assert (got[~reach] < t).all()
    assert exact[(a == 2) & (b == 3)][0] == 0.8
