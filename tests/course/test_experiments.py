"""The course's measured experiments (simhash_lab.course.experiments) and its public look inside the
library (simhash_lab.course.internals), against plain NumPy and Python references."""

import math
import platform
from collections import Counter

import numpy as np
import pytest

from simhash_lab import Simhasher, hamming
from simhash_lab.course import experiments as E
from simhash_lab.course import internals


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


# -- internals: the compiled loops, public for the course ---------------------------------------------


def test_vote_counts_against_numpy():
    rng = np.random.default_rng(8)
    hs = rng.integers(0, 2**64, size=1000, dtype=np.uint64)
    want = ((hs[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).sum(axis=0)
    got = internals.vote_counts(hs)
    assert got.dtype == np.int64 and got.shape == (64,) and (got == want).all()
    assert (internals.vote_counts([3, 5, 7])[:4] == [3, 2, 2, 0]).all()
    assert (internals.vote_counts(np.array([], dtype=np.uint64)) == 0).all()


@pytest.mark.parametrize(
    "bad,error,words",
    [
        (np.zeros((2, 2), dtype=np.uint64), ValueError, "hashes must be one-dimensional"),
        ([1.5, 2.0], TypeError, "hashes must be unsigned 64-bit integers"),
        ([-1, 2], ValueError, "hashes must be non-negative"),
    ],
)
def test_vote_counts_names_bad_input(bad, error, words):
    with pytest.raises(error) as e:
        internals.vote_counts(bad)
    assert words in str(e.value)


def test_the_two_allocation_patterns_vote_alike():
    rng = np.random.default_rng(9)
    hs = rng.integers(0, 2**64, size=300, dtype=np.uint64)
    v = 2 * internals.vote_counts(hs) - len(hs)
    assert (internals.vote_alloc_once(hs) == v).all() and (internals.vote_alloc_per_token(hs) == v).all()


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 listing")
def test_hamming_asm_is_the_compiled_function_itself():
    flags = open("/proc/cpuinfo").read() if platform.system() == "Linux" else ""
    asm = internals.hamming_asm()
    lines = asm.splitlines()
    assert lines[-1].startswith("ret") and not any(x.startswith(".") for x in lines)
    assert any(x.startswith("xor") for x in lines)
    assert any(x.startswith("mov") and "(%rdi)" in x for x in lines)  # the result is stored
    if " popcnt" in flags:
        assert any(x.startswith("popcnt") for x in lines)
    assert "PyArg_UnpackTuple" in internals.hamming_asm(full=True) and "PyArg" not in asm


def test_hamming_of_counter_vectors_is_simhash():  # the document vectors of notebook 04
    h = Simhasher()
    a = "the cat sat on the mat"
    fp = sum(1 << i for i, v in enumerate(h.accumulators(dict(Counter(h.features(a))))) if v > 0)
    assert hamming(fp, h.fingerprint(a)) == 0
