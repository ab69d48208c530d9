"""MinHash band candidates (simhash_lab.candidates) against their definition and the exact truth."""

import numpy as np
import pytest

from simhash_lab.candidates import BandKeys, band_parameters, collision_probability


def _csr(sets):
    indptr = np.zeros(len(sets) + 1, np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    data = (
        np.concatenate([np.sort(np.asarray(s, np.uint64)) for s in sets]) if sets else np.empty(0, np.uint64)
    )
    return indptr, np.ascontiguousarray(data, np.uint64)


def _pairs_at(similar: int, extra: int, n_pairs: int, seed: int):
    """``n_pairs`` pairs of sets that share ``similar`` hashes and each hold ``extra`` of their own:
    Jaccard similarity similar / (similar + 2 extra)."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(n_pairs):
        h = np.unique(rng.integers(1, 2**64 - 1, size=similar + 2 * extra, dtype=np.uint64))
        rng.shuffle(h)  # distinct (a repeat among 2**64 would shorten the set: never seen)
        sets.append(h[: similar + extra])
        sets.append(np.concatenate([h[:similar], h[similar + extra :]]))
    return sets


def _found(sets, keys: BandKeys, threads=True):
    keys.add(*_csr(sets), threads=threads)
    n = len(sets)
    return keys.pairs(np.ones(n, bool), np.arange(n, dtype=np.uint64), threads=threads)


@pytest.mark.parametrize("similar, extra", [(80, 10), (60, 20), (120, 60)])
def test_a_pair_is_found_as_often_as_its_similarity_says(similar, extra):
    # the probability 1 - (1 - J**r)**b the parameters are chosen by, measured on 600 pairs; sets
    # smaller and larger than the signature (densified bins and full ones)
    j = similar / (similar + 2 * extra)
    keys = BandKeys(0.8, 0.9)
    sets = _pairs_at(similar, extra, 600, seed=similar)
    p = _found(sets, keys)
    found = {(a, b) for a, b, _ in p.tolist()}
    rate = np.mean([(2 * i, 2 * i + 1) in found for i in range(600)])
    want = float(collision_probability(j, keys.bands, keys.rows))
    assert abs(rate - want) < 4 * np.sqrt(want * (1 - want) / 600) + 0.02, (rate, want)


def test_pairs_are_the_rows_that_share_a_band_and_nothing_else():
    # identical sets always pair, disjoint ones never; an invalid row never; (i, j, d) with i < j
    # and d the fingerprints' distance
    rng = np.random.default_rng(1)
    base = [rng.integers(1, 2**63, size=rng.integers(1, 300), dtype=np.uint64) for _ in range(40)]
    sets = base + [base[3], base[7], base[7], np.empty(0, np.uint64), base[9]]
    n = len(sets)
    fps = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    valid = np.ones(n, bool)
    valid[44] = False  # the copy of base[9]
    keys = BandKeys(0.8, 0.95)
    keys.add(*_csr(sets))
    p = keys.pairs(valid, fps)
    got = {(a, b) for a, b, _ in p.tolist()}
    assert got == {(3, 40), (7, 41), (7, 42), (41, 42)}
    assert all(d == bin(int(fps[a]) ^ int(fps[b])).count("1") for a, b, d in p.tolist())


def test_chunks_and_threads_give_the_same_pairs():
    sets = _pairs_at(70, 15, 300, seed=5)
    one = BandKeys(0.8, 0.95)
    whole = _found(sets, one, threads=False)
    parts = BandKeys(0.8, 0.95)
    for lo in range(0, len(sets), 97):  # chunks that cut pairs apart
        parts.add(*_csr(sets[lo : lo + 97]))
    n = len(sets)
    chunked = parts.pairs(np.ones(n, bool), np.arange(n, dtype=np.uint64), threads=True)
    assert whole.shape[0] > 200 and np.array_equal(whole, chunked)


@pytest.mark.parametrize("t, recall", [(0.8, 0.95), (0.8, 0.99), (0.5, 0.9), (0.95, 0.99), (1.0, 1.0)])
def test_band_parameters_reach_the_recall_at_the_threshold(t, recall):
    b, r = band_parameters(t, recall)
    assert collision_probability(t, b, r) >= min(recall, 0.9999)
    if b > 1:  # one band fewer would not
        assert collision_probability(t, b - 1, r) < min(recall, 0.9999)


@pytest.mark.parametrize("t, recall", [(0.0, 0.9), (1.5, 0.9), (0.8, 0.0), (0.8, 1.2)])
def test_band_parameters_refuse_what_is_not_a_fraction(t, recall):
    with pytest.raises(ValueError, match="threshold and recall"):
        band_parameters(t, recall)
