"""The near-duplicate methods of notebook 06 and their scores (simhash_lab.course.compare): exact keys,
Jaccard, MinHash and banding, Simhash, thresholds, TF vectors. The corpora and the labelled set are
tested in test_corpus.py, the Chinese tokenizer in tests/lib/test_chinese.py."""

import math
import sys

import numpy as np
import pytest

from simhash_lab import Simhasher, hamming
from simhash_lab.course import compare, corpus


@pytest.fixture(scope="module")
def docs():
    return corpus.python_docs()


@pytest.fixture(scope="module")
def lab(docs):
    return corpus.labelled_set(docs[:80], seed=3)


# -- scores -------------------------------------------------------------------------------------


def test_pair_scores_by_hand():
    truth = np.array([[0, 1], [2, 3], [4, 5]])
    s = compare.pair_scores(np.array([[1, 0, 7], [2, 3, 1], [0, 9, 2], [2, 3, 1]]), truth)
    assert (s.tp, s.fp, s.fn) == (2, 1, 1)
    assert s.precision == round(2 / 3, 4) and s.recall == round(2 / 3, 4) and s.f1 == round(2 / 3, 4)
    empty = compare.pair_scores(np.empty((0, 2)), truth)
    assert (empty.precision, empty.recall, empty.f1) == (1.0, 0.0, 0.0)
    assert compare.pair_scores(np.empty((0, 2)), np.empty((0, 2))).f1 == 1.0


def test_sweep_matches_pair_scores():
    rng = np.random.default_rng(0)
    pairs = np.array([(i, j) for i in range(20) for j in range(i + 1, 20)])
    d = rng.integers(0, 10, len(pairs))
    truth = pairs[rng.random(len(pairs)) < 0.2]
    ks = [0, 3, 5, 9]
    prf = compare.sweep(pairs, d, truth, ks)
    for row, k in zip(prf, ks):
        s = compare.pair_scores(pairs[d <= k], truth)
        assert tuple(row) == (s.precision, s.recall, s.f1)
    sim = rng.random(len(pairs))
    prf = compare.sweep(pairs, sim, truth, [0.5], higher_is_closer=True)
    assert tuple(prf[0])[:2] == compare.pair_scores(pairs[sim >= 0.5], truth)[:2]
    assert compare.best_threshold(ks, compare.sweep(pairs, d, truth, ks))[0] in ks


# -- methods ------------------------------------------------------------------------------------


def test_normalize_and_md5():
    assert compare.normalize("  Ｈｅｌｌｏ\n\tWORLD  ") == "hello world"
    assert compare.md5_key("Hello   world") == compare.md5_key("hello world")
    assert compare.md5_key("hello world") != compare.md5_key("hello world!")


def test_longest_sentences_key():
    text = "Short one. This is the longest sentence of them all. A medium sentence here. Tiny!"
    edited_short = text.replace("Tiny!", "Small!")
    edited_long = text.replace("longest", "longer")
    k = compare.longest_sentences_key
    assert k(text) == k(edited_short)  # only the 3 longest count
    assert k(text) != k(edited_long)
    assert k(text, n=4) != k(edited_short, n=4)
    assert compare.sentences("一句话。第二句话！三") == ["一句话。", "第二句话!", "三"]  # NFKC
    with pytest.raises(ValueError, match="n"):
        k(text, n=0)


def test_key_pairs():
    assert compare.key_pairs(["a", "b", "a", "c", "a", "b"]).tolist() == [[0, 2], [0, 4], [1, 5], [2, 4]]
    assert compare.key_pairs([]).shape == (0, 2)


def test_jaccard_all_pairs_against_python_sets(docs):
    texts = [d.text for d in docs[:40]] + [docs[0].text + " extra words here"]
    pairs, sim = compare.jaccard_all_pairs(texts, n=2)
    sets = compare.shingle_sets(texts, 2)
    ref = {}
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            inter = len(sets[i] & sets[j])
            if inter:
                ref[(i, j)] = inter / len(sets[i] | sets[j])
    assert [tuple(p) for p in pairs.tolist()] == sorted(ref)
    assert np.allclose(sim, [ref[tuple(p)] for p in pairs.tolist()])
    p5, s5 = compare.jaccard_all_pairs(texts, n=2, jaccard=0.5)
    assert [0, len(texts) - 1] in p5.tolist() and np.all(s5 >= 0.5)


def test_minhash_lsh_estimates_jaccard(lab):
    pytest.importorskip("datasketch")
    pairs, est, info = compare.minhash_lsh_pairs(lab.docs, threshold=0.5, num_perm=128)
    assert info["b"] * info["r"] <= 128 and info["candidates"] >= len(pairs)
    assert np.all(est >= 0.5)
    ref, sim = compare.jaccard_all_pairs(lab.docs, n=3)
    exact = dict(zip(map(tuple, ref.tolist()), sim))
    err = np.array([abs(exact.get(tuple(p), 0.0) - e) for p, e in zip(pairs.tolist(), est)])
    assert err.mean() < 0.05  # standard error of 128 permutations is about 0.044 at J = 0.5
    s = compare.pair_scores(pairs, lab.truth())
    assert s.precision > 0.9 and s.recall > 0.8


def test_minhash_without_datasketch_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "datasketch", None)
    with pytest.raises(ImportError, match=r"simhash-lab\[compare\]"):
        compare.minhash_lsh_pairs(["a b c"])


def test_simhash_pairs_and_distances(lab):
    h = Simhasher()
    fps = h.fingerprints(lab.docs)
    got = compare.simhash_pairs(lab.docs, k=5, hasher=h)
    p, d = compare.simhash_distances(fps, max_k=5)
    assert np.array_equal(got[:, :2], p) and np.array_equal(got[:, 2], d)
    assert np.array_equal(d, hamming(fps[p[:, 0]], fps[p[:, 1]]))
    assert np.array_equal(compare.simhash_pairs(None, k=5, fps=fps), got)


def test_compare_runs_every_method(lab):
    res = compare.compare(lab, k=6)
    names = [r.method for r in res]
    assert names[0].startswith("Simhash") and names[-1].startswith("Shingles")
    by = {r.method: r for r in res}
    assert by["MD5 of normalised text"].scores.precision == 1.0
    assert by["Shingles, exact Jaccard"].scores.f1 > 0.9
    assert by["Simhash + SimhashIndex"].scores.f1 > 0.7
    assert all(r.seconds >= 0 and r.found >= 0 for r in res)
    table = compare.format_table(res)
    assert table.count("\n") == len(res) + 1 and "time (ms)" in table
    assert "time" not in compare.format_table(res, times=False)


# -- thresholds, lookups, amplification -----------------------------------------------------------


def test_threshold_counts_by_hand():
    dist = np.array([0, 1, 1, 3, 5, 9])
    dup = np.array([True, True, False, True, False, True])
    got = compare.threshold_counts(dist, dup, [0, 1, 4, 9])
    assert got.tolist() == [[1, 0, 3], [2, 1, 2], [3, 1, 1], [4, 2, 0]]
    with pytest.raises(ValueError, match="same shape"):
        compare.threshold_counts(dist, dup[:3], [0])


def test_pair_values_looks_up_either_order():
    got = compare.pair_values([[3, 1], [0, 2]], [0.5, 0.25], [[1, 3], [2, 0], [0, 1], [3, 1]], fill=-1)
    assert got.tolist() == [0.5, 0.25, -1.0, 0.5]
    assert compare.pair_values(np.empty((0, 2)), [], [[0, 1]]).tolist() == [0.0]
    with pytest.raises(ValueError, match="one entry per pair"):
        compare.pair_values([[0, 1]], [1.0, 2.0], [[0, 1]])


def test_s_curve_and_its_threshold():
    s = np.linspace(0, 1, 11)
    for r, b in ((5, 25), (16, 4), (1, 1)):
        ref = np.array([1 - (1 - x**r) ** b for x in s])
        assert np.allclose(compare.s_curve(s, r, b), ref)
        assert math.isclose(compare.s_curve_threshold(r, b), (1 / b) ** (1 / r))
    # the threshold sits where the curve is steepest, approximately
    grid = np.linspace(0, 1, 10_001)
    steepest = grid[np.argmax(np.gradient(compare.s_curve(grid, 5, 25)))]
    assert abs(steepest - compare.s_curve_threshold(5, 25)) < 0.05
    with pytest.raises(ValueError, match="r"):
        compare.s_curve(0.5, 0, 3)


# -- TF vectors ----------------------------------------------------------------------------------


def test_tf_matrix_and_cosines_against_counters():
    from collections import Counter

    from simhash_lab.tokenize import words

    texts = ["the cat sat on the mat", "the dog sat", "a b c", "", "the the the"]
    X, vocab = compare.tf_matrix(texts)
    assert X.shape == (5, len(vocab)) and len(set(vocab)) == len(vocab)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    assert np.allclose(norms, [1, 1, 1, 0, 1])
    tok = words()
    vec = [Counter(tok(t)) for t in texts]
    pairs = np.array([[0, 1], [0, 2], [1, 4], [0, 3]])
    want = []
    for a, b in pairs:
        dot = sum(vec[a][w] * vec[b][w] for w in vec[a])
        na, nb = (
            math.sqrt(sum(v * v for v in vec[a].values())),
            math.sqrt(sum(v * v for v in vec[b].values())),
        )
        want.append(dot / (na * nb) if na and nb else 0.0)
    assert np.allclose(compare.cosines(X, pairs), want)


def test_dot_shares_names_the_shared_heavy_word():
    texts = ["the the the alpha", "the the the beta", "the gamma"]
    X, vocab = compare.tf_matrix(texts)
    shares = compare.dot_shares(X, vocab, [[0, 1], [0, 2], [1, 2]], top=3)
    assert shares[0][0] == "the" and shares[0][1] == pytest.approx(1.0)
    assert all(s >= 0 for _, s in shares)


def test_idf_weights():
    texts = ["a b", "a c", "a b d"]
    idf = compare.idf_weights(texts)
    assert idf["a"] == 0.0
    assert idf["b"] == pytest.approx(math.log(3 / 2)) and idf["d"] == pytest.approx(math.log(3))
    assert Simhasher(weights=idf).fingerprint("a a a") == 0  # a word in every text votes nothing


# -- MinHash and banding -------------------------------------------------------------------------


def test_minhash_estimates_jaccard_of_constructed_sets():
    pytest.importorskip("datasketch")
    rng = np.random.default_rng(0)
    base = {f"s{i}" for i in range(400)}
    sets, js = [], []
    for j in (0.0, 0.2, 0.5, 0.8, 1.0):
        other = compare.set_at_jaccard(base, j, rng, tag=f"j{j}")
        assert len(other) == len(base)
        js.append(len(base & other) / len(base | other))
        assert abs(js[-1] - j) < 0.01
        sets += [base, other]
    sig = compare.minhash_signatures(sets, num_perm=256)
    assert sig.shape == (10, 256) and sig.dtype == np.uint64
    est = compare.minhash_estimates(sig, np.arange(10).reshape(5, 2))
    se = np.sqrt(np.array(js) * (1 - np.array(js)) / 256)
    assert np.all(np.abs(est - js) <= 4 * se + 1e-9)
    assert est[-1] == 1.0 and np.array_equal(sig[0], sig[2])  # equal sets, equal signatures


def test_set_at_jaccard_validates():
    with pytest.raises(ValueError, match="j must be"):
        compare.set_at_jaccard({"a"}, 1.5, np.random.default_rng(0))


def test_band_candidates_against_all_pairs():
    rng = np.random.default_rng(3)
    sig = rng.integers(0, 4, size=(60, 12), dtype=np.uint64)  # small values: many bands collide
    for b, r in ((3, 4), (6, 2), (4, 3), (2, 5)):
        got = compare.band_candidates(sig, b, r)
        want = [
            [i, j]
            for i in range(60)
            for j in range(i + 1, 60)
            if any(np.array_equal(sig[i, c * r : (c + 1) * r], sig[j, c * r : (c + 1) * r]) for c in range(b))
        ]
        assert got.tolist() == want
    assert compare.band_candidates(np.arange(12, dtype=np.uint64).reshape(3, 4), 2, 2).shape == (0, 2)
    with pytest.raises(ValueError, match="b \\* r"):
        compare.band_candidates(sig, 5, 3)


def test_banding_experiment_follows_the_s_curve(docs):
    pytest.importorskip("datasketch")
    sets = compare.shingle_sets([d.text for d in docs[:50]], 3)
    s, cand = compare.banding_experiment(sets, 25, 5, n_pairs=1500, seed=2)
    assert s.shape == cand.shape == (1500,) and 0 <= s.min() and s.max() <= 1
    edges = np.linspace(0, 1, 6)
    for lo, hi in zip(edges[:-1], edges[1:]):
        sel = (s >= lo) & (s < hi)
        p = compare.s_curve(s[sel], 5, 25).mean()
        assert abs(cand[sel].mean() - p) < 4 * math.sqrt(max(p * (1 - p), 0.01) / sel.sum())
    with pytest.raises(ValueError, match="non-empty"):
        compare.banding_experiment([set()], 2, 2)


def test_datasketch_bands_minimise_the_error_areas():
    pytest.importorskip("datasketch")
    from scipy.integrate import quad

    for t in (0.5, 0.8):
        best, best_err = None, float("inf")
        for b in range(1, 129):
            for r in range(1, 128 // b + 1):
                fp = quad(lambda s, r=r, b=b: compare.s_curve(s, r, b), 0, t)[0]
                fn = quad(lambda s, r=r, b=b: 1 - compare.s_curve(s, r, b), t, 1)[0]
                if fp + fn < best_err:
                    best, best_err = (b, r), fp + fn
        assert compare.datasketch_bands(t, 128) == best


def test_sweep_counts_a_repeated_pair_once_at_its_closest_score():
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 15, size=(400, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    score = rng.integers(0, 12, len(pairs)).astype(float)
    truth = pairs[::7]
    ts = np.arange(-1, 13)
    for hic in (False, True):
        got = compare.sweep(pairs, score, truth, ts, higher_is_closer=hic)
        for row, t in zip(got, ts):
            sel = score >= t if hic else score <= t
            s = compare.pair_scores(pairs[sel], truth)
            assert tuple(row) == (s.precision, s.recall, s.f1)
    with pytest.raises(ValueError, match="one entry per pair"):
        compare.sweep(pairs, score[:-1], truth, ts)
