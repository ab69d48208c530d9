"""Calibration (simhash_lab.calibration): the k that reaches the recall asked for, measured on real
pairs, synthetic pairs or Charikar's bound, and the neighbour scan against brute force."""

import numpy as np

from simhash_lab import hamming
from simhash_lab.dedup import calibrate, recommended_hasher


def test_calibration_measures_real_pairs(labelled, truth_pairs):
    texts = labelled.docs
    h = recommended_hasher()
    fps = h.fingerprints(texts)
    cal = calibrate(texts, fps, 0.8, sample=250, seed=1)
    assert cal.method == "sample" and cal.sample == 250 and cal.pairs >= 50
    assert cal.recall >= 0.95 and cal.recall_by_k[cal.k] == cal.recall
    assert cal.k == 0 or cal.recall_by_k[cal.k - 1] < 0.95  # the smallest such k
    assert np.all(np.diff(cal.recall_by_k) >= 0) and np.all(cal.similarities >= 0.8)
    # the recall it expects is the recall it gets, within sampling error
    truth = truth_pairs(texts, 0.8)
    got = np.mean([hamming(int(fps[i]), int(fps[j])) <= cal.k for i, j in truth])
    assert abs(got - cal.recall) < 0.06
    assert "expected recall" in cal.summary()
    # a higher recall asks for a k at least as large
    assert calibrate(texts, fps, 0.8, sample=250, seed=1, recall=0.99).k >= cal.k


def test_calibration_without_near_duplicates_falls_back_to_synthetic_pairs(labelled):
    originals = [t for t, kind in zip(labelled.docs, labelled.kind) if kind == "original"]
    h = recommended_hasher()
    cal = calibrate(originals, h.fingerprints(originals), 0.8, sample=200)
    assert cal.method == "synthetic" and cal.pairs > 50
    assert np.all((cal.similarities >= 0.8) & (cal.similarities < 0.9))
    # Charikar: at Jaccard 0.8 (cos = 2J/(1+J)), 64 * theta / pi ~ 9.7 bits expected
    theta = np.arccos(2 * 0.8 / 1.8)
    assert abs(cal.distances.mean() - 64 * theta / np.pi) < 2.0
    assert 10 <= cal.k <= 18


def test_calibration_scan_equals_brute_force():
    from simhash_lab.calibration import neighbours_within

    rng = np.random.default_rng(2)
    fps = rng.integers(0, 2**64, size=3000, dtype=np.uint64)
    fps[100:200] = fps[:100] ^ np.uint64(0b1011)  # neighbours at 3 bits
    q = fps[:300]
    for k in (0, 3, 20):
        indptr, ids, d = neighbours_within(q, fps, k)
        for i in range(q.size):
            want = np.flatnonzero(np.bitwise_count(fps ^ q[i]) <= k)
            assert ids[indptr[i] : indptr[i + 1]].tolist() == want.tolist()
            assert d[indptr[i] : indptr[i + 1]].tolist() == np.bitwise_count(fps[want] ^ q[i]).tolist()


def test_calibration_of_short_documents_uses_charikars_bound():
    cal = calibrate(["a b", "a c", "x"], recommended_hasher().fingerprints(["a b", "a c", "x"]), 0.8)
    assert cal.method == "theory" and cal.pairs == 0 and "Charikar" in cal.summary()
    # at J = 0.8: p = arccos(8/9) / pi = 0.1515, Binomial(64, p): 0.95 first reached at 15
    assert cal.k == 15 and cal.recall_by_k[14] < 0.95 <= cal.recall < 0.98
    assert calibrate(["a b"], np.zeros(1, np.uint64), 0.99).k < cal.k
