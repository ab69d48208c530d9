"""The course's measured experiments (simhash_lab.course.experiments), against plain NumPy and Python
references. The course's look inside the library is tested in test_internals.py."""

import math

import numpy as np
import pytest

from simhash_lab import Simhasher
from simhash_lab.course import experiments as E


@pytest.fixture(scope="module")
def docs():
    return E.paragraphs()


def test_paragraphs_are_the_manual_within_bounds(docs):
    assert len(docs) > 300
    assert all(40 <= len(d.split()) <= 150 and "  " not in d for d in docs)
    assert E.paragraphs(60, 70) == [d for d in docs if 60 <= len(d.split()) <= 70]


def test_replace_words_replaces_exactly_n_places():
    rng = np.random.default_rng(0)
    text = " ".join(f"w{i}" for i in range(30))
    out = E.replace_words(text, 3, rng, ["NEW"])
    changed = [a != b for a, b in zip(text.split(), out.split())]
    assert len(out.split()) == 30 and sum(changed) == 3


def test_unrelated_pairs_never_pair_a_document_with_itself():
    i, j = E.unrelated_pairs(5, 2000, np.random.default_rng(1))
    assert (i != j).all() and set(i) == set(j) == set(range(5))


def test_flipped_accumulators_only_at_minus_one_to_two(docs):
    before, flips = E.flipped_accumulators(Simhasher(), docs[:120], seed=3)
    assert flips.sum() == before.size > 0
    assert set(np.unique(before)) <= {-1, 0, 1, 2}


def test_idf_is_log_n_over_df():
    h = Simhasher()
    idf = E.idf(h, ["a b", "a c", "a b d"])
    assert idf["a"] == 0.0 and math.isclose(idf["b"], math.log(3 / 2)) and math.isclose(idf["d"], math.log(3))


def test_weighting_distances_match_hamming_of_fingerprints(docs):
    h = Simhasher()
    out = E.weighting_distances({"TF": h}, docs, n_pairs=30, seed=4)
    unrelated, edited = out["TF"]
    assert unrelated.shape == edited.shape == (30,)
    assert edited.mean() < unrelated.mean()


def test_tf_angle_against_numpy():
    rng = np.random.default_rng(5)
    for _ in range(20):
        a, b = rng.integers(0, 4, 6), rng.integers(0, 4, 6)
        if not a.any() or not b.any():
            continue
        want = np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1, 1))
        got = E.tf_angle(
            {i: float(x) for i, x in enumerate(a) if x}, {i: float(x) for i, x in enumerate(b) if x}
        )
        assert math.isclose(got, want, abs_tol=1e-9)
    assert E.tf_angle({}, {"a": 1.0}) == math.pi / 2


def test_document_angles_stay_within_ninety_degrees(docs):
    h = Simhasher()
    theta, dist, unrelated = E.document_angles(h, docs, n_rewritten=40, n_unrelated=20, seed=6)
    assert theta.shape == dist.shape == unrelated.shape == (60,) and unrelated.sum() == 20
    assert theta.max() <= math.pi / 2 + 1e-12
    # the Hamming distances are those of the fingerprints, and the angles follow the counts
    assert dist.dtype == np.uint8 and dist[unrelated].mean() > dist[~unrelated].mean() - 64


def test_dense_tradeoff_measures_what_theory_predicts():
    r = E.dense_tradeoff(bits=(2, 8, 16), tables=(1, 3), n=3000, queries=40, seed=7)
    assert r["bucket_recall"].shape == r["candidates"].shape == (2, 3)
    assert (np.diff(r["candidates"], axis=1) <= 0).all()  # more bits, fewer candidates
    assert (r["bucket_recall"][1] >= r["bucket_recall"][0]).all()  # more tables, more recall
    assert np.abs(r["bucket_recall"] - r["bucket_recall_theory"]).max() < 0.15
    assert r["ranking_recall"][-1] > r["ranking_recall"][0]
    assert int(r["n"]) == 3000 + 40 * 10
