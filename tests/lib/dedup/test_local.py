"""Tests for verified dedup (simhash_lab.dedup): the keep/drop policy (never chains, every dropped
document near its kept one), featureless documents, the recall calibration reaches, outputs checked
before any work, and chunks that do not change the answer. The shingle sets and Jaccard are in
test_shingles.py, calibration in test_calibration.py, the file formats in test_datasets.py."""

import csv

import numpy as np
import pytest

from simhash_lab import hamming
from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import dedup_table, dedup_texts

# -- the policy --------------------------------------------------------------------------------


def test_verified_pairs_are_exactly_the_true_pairs_within_k(labelled, truth_pairs):
    texts = labelled.docs
    res = dedup_texts(texts, jaccard=0.8, k=12)
    truth = truth_pairs(texts, 0.8)
    verified = {tuple(p) for p in res.pairs[res.similarity >= 0.8, :2].tolist()}
    assert verified <= truth  # exact: nothing below the threshold passes
    fps = res.fingerprints
    within = {(i, j) for i, j in truth if hamming(int(fps[i]), int(fps[j])) <= 12}
    assert verified == within  # and nothing within k is lost
    assert len(verified) > 50


def test_no_chaining_every_dropped_document_is_near_its_kept_one(labelled, shingle_sets):
    texts = labelled.docs
    for linkage in ("complete", "star"):
        res = dedup_texts(texts, jaccard=0.8, k=14, linkage=linkage)
        d = res.duplicates
        assert len(d) > 50
        sets = shingle_sets(texts, 3)
        for dr, kp, dist, sim in zip(
            d.dropped.tolist(), d.kept.tolist(), d.distance.tolist(), d.similarity.tolist()
        ):
            assert res.keep[kp] and not res.keep[dr] and kp < dr  # first seen is kept
            a, b = sets[dr], sets[kp]
            assert sim == pytest.approx(len(a & b) / len(a | b)) and sim >= 0.8
            assert dist == hamming(int(res.fingerprints[dr]), int(res.fingerprints[kp])) <= 14
    # star: the kept documents, no two of them form a verified pair
    verified = res.pairs[res.similarity >= 0.8]
    assert not np.any(res.keep[verified[:, 0]] & res.keep[verified[:, 1]])


def _member_pairs_below(res, sets, t):
    """Pairs of members of one cluster whose exact Jaccard (from the Python ``sets``) is below
    ``t``, and how many member pairs there are."""
    below, total = [], 0
    for g in res.groups:
        for x in range(len(g)):
            for y in range(x + 1, len(g)):
                a, b = sets[g[x]], sets[g[y]]
                total += 1
                if len(a & b) / len(a | b) < t:
                    below.append((g[x], g[y]))
    return below, total


def test_the_default_clusters_hold_no_pair_below_the_threshold(labelled, shingle_sets):
    """The default (complete linkage) on a corpus where stars would chain: every two members of
    every cluster are at Jaccard >= 0.8 and within k (checked from Python sets and popcounts), where
    star clusters of the same run hold pairs below it."""
    texts = labelled.docs
    sets = shingle_sets(texts, 3)
    star = dedup_texts(texts, jaccard=0.8, k=14, linkage="star")
    below, _ = _member_pairs_below(star, sets, 0.8)
    assert below  # the corpus chains: star clusters hold pairs below the threshold
    res = dedup_texts(texts, jaccard=0.8, k=14)
    assert res.settings["linkage"] == "complete"
    below, total = _member_pairs_below(res, sets, 0.8)
    assert below == [] and total > len(res.duplicates)  # clusters of three or more were checked
    for g in res.groups:
        fp = [int(res.fingerprints[r]) for r in g]
        assert max(hamming(a, b) for a in fp for b in fp) <= 14
    # each dropped document is still near its kept one, and nothing is dropped twice
    assert np.all(res.duplicates.similarity >= 0.8) and len(set(res.duplicates.dropped.tolist())) == len(
        res.duplicates
    )
    assert len(res.duplicates) <= len(star.duplicates)


def test_complete_linkage_without_a_threshold_keeps_every_pair_within_k():
    """Hamming-only: the similarity asked for is "within k", so every two members are within k."""
    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(300)]
    base = list(rng.choice(words, 80))
    texts = []
    for _ in range(30):
        w = list(base)
        for j in rng.choice(len(w), int(rng.integers(0, 12)), replace=False):
            w[j] = str(rng.choice(words))
        texts.append(" ".join(w))
    k = 8
    star = dedup_texts(texts, k=k, linkage="star")
    full = dedup_texts(texts, k=k)
    fps = [int(f) for f in full.fingerprints]

    def worst(res):
        return max(hamming(fps[a], fps[b]) for g in res.groups for a in g for b in g)

    assert worst(star) > k  # stars hold pairs farther apart than k
    assert full.groups and worst(full) <= k


def test_a_chain_is_cut_not_followed():
    """a ~ b ~ c with a and c far apart: the connected components of the old groups() put all three
    together; here b is dropped for a, and c (not near a) is kept."""
    words = [f"w{i}" for i in range(40)]
    a = words
    b = words[:30] + [f"x{i}" for i in range(10)]
    c = words[:20] + [f"x{i}" for i in range(10)] + [f"y{i}" for i in range(10)]
    texts = [" ".join(t) for t in (a, b, c)]
    res = dedup_texts(texts, jaccard=0.5, k=40)
    sim = {tuple(p[:2]): s for p, s in zip(res.pairs.tolist(), res.similarity.tolist())}
    assert sim[(0, 1)] >= 0.5 and sim[(1, 2)] >= 0.5 and sim[(0, 2)] < 0.5
    assert res.keep.tolist() == [True, False, True]
    assert res.groups == [[0, 1]]


def test_complete_linkage_keeps_every_pair_of_a_cluster_near():
    words = [f"w{i}" for i in range(60)]
    a = words
    b = words[:50] + [f"x{i}" for i in range(10)]
    c = [f"y{i}" for i in range(10)] + words[10:]
    texts = [" ".join(t) for t in (a, b, c)]
    star = dedup_texts(texts, jaccard=0.7, k=40, linkage="star")
    assert star.groups == [[0, 1, 2]]  # b and c near a, not near each other
    full = dedup_texts(texts, jaccard=0.7, k=40)
    assert full.groups == [[0, 1]] and full.keep.tolist() == [True, False, True]
    assert dedup_texts(texts, jaccard=0.7, k=40, linkage="complete").groups == full.groups
    with pytest.raises(ValueError, match="linkage"):
        dedup_texts(texts, linkage="single")


def test_keep_orders():
    base = " ".join(f"w{i}" for i in range(50))
    texts = [base, base + " extra tail words here", base]
    assert dedup_texts(texts, jaccard=0.8, k=20).keep.tolist() == [True, False, False]
    assert dedup_texts(texts, jaccard=0.8, k=20, keep="longest").keep.tolist() == [False, True, False]
    res = dedup_texts(texts, jaccard=0.8, k=20, priority=[0, 1, 5])
    assert res.keep.tolist() == [False, False, True] and res.settings["keep"] == "priority"
    with pytest.raises(ValueError, match="keep"):
        dedup_texts(texts, keep="shortest")
    with pytest.raises(ValueError, match="priority"):
        dedup_texts(texts, priority=[1, 2])


def test_featureless_documents_are_apart_and_kept():
    texts = ["", "   ", "!!! ???", "a real text with words", "", "a real text with words"]
    for kw in ({}, {"jaccard": 0.8, "k": 5}):
        res = dedup_texts(texts, **kw)
        assert res.featureless.tolist() == [0, 1, 2, 4]
        assert res.keep.tolist() == [True, True, True, True, True, False]
        assert res.groups == [[3, 5]]


def test_verified_by_default_the_hamming_mode_only_by_name(labelled):
    res = dedup_texts(labelled.docs)
    assert res.jaccard == 0.8 and res.calibration is not None and res.calibration.target == 0.99
    assert (res.duplicates.similarity >= 0.8).all()
    with pytest.raises(ValueError, match="unverified.*needs k"):
        dedup_texts(labelled.docs, unverified=True)
    with pytest.raises(ValueError, match="unverified=True and k"):
        dedup_texts(labelled.docs, jaccard=None)


def test_hamming_only_mode_groups_without_verifying(labelled):
    res = dedup_texts(labelled.docs, unverified=True, k=3)  # the first versions' defaults: words, TF
    assert res.k == 3 and res.jaccard is None and res.calibration is None
    assert np.isnan(res.similarity).all() and res.verified == res.pairs.shape[0]
    assert res.settings["tokenizer"] == "words" and res.settings["weights"] == "tf"


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="jaccard"):
        dedup_texts(["a"], jaccard=1.5)
    with pytest.raises(TypeError, match="jaccard"):
        dedup_texts(["a"], jaccard="0.8")
    with pytest.raises(ValueError, match="k"):
        dedup_texts(["a"], k=64)
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        dedup_texts(["a", None])
    with pytest.raises(ValueError, match="shingle"):
        dedup_texts(["a"], shingle=0)
    with pytest.raises(ValueError, match="ids"):
        dedup_texts(["a", "b"], ids=["x"])


# -- calibration -------------------------------------------------------------------------------


def test_dedup_with_calibration_reaches_the_recall(labelled, truth_pairs):
    texts = labelled.docs
    res = dedup_texts(texts, jaccard=0.8)
    assert res.calibration is not None and res.k == res.calibration.k
    truth = truth_pairs(texts, 0.8)
    found = {tuple(p) for p in res.pairs[res.similarity >= 0.8, :2].tolist()}
    recall = len(found & truth) / len(truth)
    assert found <= truth and recall >= 0.9


# -- tables ------------------------------------------------------------------------------------


def test_outputs_are_checked_before_any_work(tmp_path, rows, write_jsonl):
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, rows[:5])
    from simhash_lab._write import OutputError

    with pytest.raises(OutputError, match="--output names an input file"):
        dedup_table(src, output=src)
    with pytest.raises(DatasetError, match="input's format \\(jsonl\\)"):
        dedup_table(src, output=tmp_path / "kept.parquet")
    with pytest.raises(DatasetError, match="cannot tell the format"):
        dedup_table(tmp_path / "docs.txt")


@pytest.mark.parametrize("chunk, budget", [(7, 1 << 30), (7, 0), (100_000, 0)])
def test_chunks_and_the_sets_budget_do_not_change_the_answer(
    tmp_path, labelled, monkeypatch, chunk, budget, write_jsonl
):
    """Small chunks (sets packed across them) and a zero budget (sets read again) decide the same."""
    import simhash_lab.dedup.local as dd
    import simhash_lab.dedup.run as run
    import simhash_lab.shingles as sh

    texts = labelled.docs
    write_jsonl(tmp_path / "d.jsonl", [{"text": t} for t in texts])
    with open(tmp_path / "d.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text"])
        w.writerows([t] for t in texts)
    files = [tmp_path / "d.jsonl", tmp_path / "d.csv"]
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"text": texts}), tmp_path / "d.parquet", row_group_size=50)
        files.append(tmp_path / "d.parquet")
    except ImportError:
        pass
    want = dedup_texts(texts, jaccard=0.8)
    monkeypatch.setattr(dd, "CHUNK_ROWS", chunk)
    monkeypatch.setattr(sh, "CHUNK_ROWS", chunk)
    monkeypatch.setattr(run, "SETS_BUDGET", budget)
    for res in [dedup_texts(texts, jaccard=0.8)] + [dedup_table(f, jaccard=0.8) for f in files]:
        assert res.k == want.k and np.array_equal(res.keep, want.keep)
        assert np.array_equal(res.similarity, want.similarity)
        assert res.duplicates.rows() == want.duplicates.rows()
