"""Tests for verified dedup: the shingle and Jaccard kernels against Python sets, calibration, the
keep/drop policy (never chains, every dropped document near its kept one), featureless documents,
and datasets in and out (JSONL, CSV, Parquet: kept rows unchanged, in order; errors named)."""

import csv
import json

import numpy as np
import pytest

from simhash_lab import Simhasher, hamming
from simhash_lab.course.compare import jaccard_all_pairs, shingle_sets
from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import Shingler, calibrate, dedup_table, dedup_texts, recommended_hasher


@pytest.fixture(scope="module")
def labelled():
    from simhash_lab.course.corpus import labelled_set, python_docs

    return labelled_set(python_docs()[:150], seed=3)


def truth_pairs(texts, t, n=3):
    pairs, sim = jaccard_all_pairs(texts, n=n, jaccard=t)
    return {tuple(p) for p in pairs.tolist()}


# -- kernels -----------------------------------------------------------------------------------


def test_shingle_sets_equal_python_sets(labelled):
    texts = labelled.docs[:80] + ["", "one", "two words", "Ünïcödé wörds, ünïcödé WÖRDS!", "  \n\t"]
    for n in (1, 2, 3, 5):
        indptr, data = Shingler(n).sets(texts)
        for i, s in enumerate(shingle_sets(texts, n)):
            row = data[indptr[i] : indptr[i + 1]]
            assert row.size == len(s) and np.all(np.diff(row.astype(object)) > 0)  # sorted, distinct
        one = texts.index("one")
        assert indptr[one + 1] - indptr[one] == 1  # one shingle of fewer words
        assert indptr[-1] == indptr[-2] and indptr[1] > indptr[0]  # whitespace: none


def test_jaccard_equals_the_sparse_reference(labelled):
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


# -- the policy --------------------------------------------------------------------------------


def test_verified_pairs_are_exactly_the_true_pairs_within_k(labelled):
    texts = labelled.docs
    res = dedup_texts(texts, jaccard=0.8, k=12)
    truth = truth_pairs(texts, 0.8)
    verified = {tuple(p) for p in res.pairs[res.similarity >= 0.8, :2].tolist()}
    assert verified <= truth  # exact: nothing below the threshold passes
    fps = res.fingerprints
    within = {(i, j) for i, j in truth if hamming(int(fps[i]), int(fps[j])) <= 12}
    assert verified == within  # and nothing within k is lost
    assert len(verified) > 50


def test_no_chaining_every_dropped_document_is_near_its_kept_one(labelled):
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


def _member_pairs_below(res, texts, t):
    """Pairs of members of one cluster whose exact Jaccard (from Python sets) is below ``t``, and
    how many member pairs there are."""
    sets = shingle_sets(texts, 3)
    below, total = [], 0
    for g in res.groups:
        for x in range(len(g)):
            for y in range(x + 1, len(g)):
                a, b = sets[g[x]], sets[g[y]]
                total += 1
                if len(a & b) / len(a | b) < t:
                    below.append((g[x], g[y]))
    return below, total


def test_the_default_clusters_hold_no_pair_below_the_threshold(labelled):
    """The default (complete linkage) on a corpus where stars would chain: every two members of
    every cluster are at Jaccard >= 0.8 and within k (checked from Python sets and popcounts), where
    star clusters of the same run hold pairs below it."""
    texts = labelled.docs
    star = dedup_texts(texts, jaccard=0.8, k=14, linkage="star")
    below, _ = _member_pairs_below(star, texts, 0.8)
    assert below  # the corpus chains: star clusters hold pairs below the threshold
    res = dedup_texts(texts, jaccard=0.8, k=14)
    assert res.settings["linkage"] == "complete"
    below, total = _member_pairs_below(res, texts, 0.8)
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


def test_calibration_measures_real_pairs(labelled):
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


def test_dedup_with_calibration_reaches_the_recall(labelled):
    texts = labelled.docs
    res = dedup_texts(texts, jaccard=0.8)
    assert res.calibration is not None and res.k == res.calibration.k
    truth = truth_pairs(texts, 0.8)
    found = {tuple(p) for p in res.pairs[res.similarity >= 0.8, :2].tolist()}
    recall = len(found & truth) / len(truth)
    assert found <= truth and recall >= 0.9


# -- datasets ----------------------------------------------------------------------------------


@pytest.fixture
def rows(labelled):
    return [
        {"id": f"r{i}", "text": t, "n": i, "extra": {"k": [i]}} for i, t in enumerate(labelled.docs[:200])
    ]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def test_jsonl_in_and_out(tmp_path, rows):
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, rows)
    res = dedup_table(src, "text", id_column="id", jaccard=0.8, k=12, output=tmp_path / "kept.jsonl",
                      duplicates=tmp_path / "dups.csv")  # fmt: skip
    lines = src.read_bytes().splitlines(keepends=True)
    kept = (tmp_path / "kept.jsonl").read_bytes().splitlines(keepends=True)
    assert kept == [ln for ln, k in zip(lines, res.keep) if k]  # unchanged, in input order
    assert res.written == len(kept) < len(lines)
    want = dedup_texts([r["text"] for r in rows], jaccard=0.8, k=12)
    assert np.array_equal(res.keep, want.keep)
    with open(tmp_path / "dups.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == ["dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row"]
    assert [(t["dropped_id"], t["kept_id"]) for t in table] == [
        (f"r{d}", f"r{k}") for d, k in zip(want.duplicates.dropped.tolist(), want.duplicates.kept.tolist())
    ]
    assert all(float(t["similarity"]) >= 0.8 for t in table)


def test_csv_in_and_out_keeps_records_byte_for_byte(tmp_path, rows):
    src = tmp_path / "docs.csv"
    with open(src, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "text", "n"])
        for r in rows:
            w.writerow([r["id"], r["text"], r["n"]])  # texts hold newlines: quoted records
    res = dedup_table(src, "text", id_column="id", jaccard=0.8, k=12, output=tmp_path / "kept.csv")
    with open(src, newline="", encoding="utf-8") as f:
        header, *records = list(csv.reader(f))
    with open(tmp_path / "kept.csv", newline="", encoding="utf-8") as f:
        kh, *kept = list(csv.reader(f))
    assert kh == header and kept == [r for r, k in zip(records, res.keep) if k]
    assert res.duplicates.dropped_id[0].startswith("r")
    text = (tmp_path / "kept.csv").read_text(encoding="utf-8")
    assert (
        text.startswith("id,text,n\r\n")
        and text in src.read_text(encoding="utf-8")
        or len(kept) < len(records)
    )


def test_parquet_in_and_out(tmp_path, rows):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {"id": [r["id"] for r in rows], "text": [r["text"] for r in rows], "n": [r["n"] for r in rows]}
    )
    pq.write_table(table, tmp_path / "docs.parquet", row_group_size=37)
    res = dedup_table(tmp_path / "docs.parquet", "text", id_column="id", jaccard=0.8, k=12,
                      output=tmp_path / "kept.parquet", duplicates=tmp_path / "dups.parquet")  # fmt: skip
    kept = pq.read_table(tmp_path / "kept.parquet")
    assert kept.schema == table.schema
    assert kept.to_pylist() == [r for r, k in zip(table.to_pylist(), res.keep) if k]
    dups = pq.read_table(tmp_path / "dups.parquet").to_pylist()
    assert len(dups) == len(res.duplicates) > 0 and dups[0]["dropped_id"].startswith("r")
    want = dedup_texts([r["text"] for r in rows], jaccard=0.8, k=12)
    assert np.array_equal(res.keep, want.keep)


def test_priority_column(tmp_path):
    base = " ".join(f"w{i}" for i in range(50))
    write_jsonl(
        tmp_path / "p.jsonl", [{"text": base, "p": 1}, {"text": base, "p": 3}, {"text": base, "p": 2}]
    )
    res = dedup_table(tmp_path / "p.jsonl", priority_column="p", jaccard=0.9, k=5)
    assert res.keep.tolist() == [False, True, False]
    write_jsonl(tmp_path / "q.jsonl", [{"text": base, "p": "high"}])
    with pytest.raises(DatasetError, match="line 1: priority column 'p' is a str"):
        dedup_table(tmp_path / "q.jsonl", priority_column="p", jaccard=0.9, k=5)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": 1, "body": "x"}\n', "line 1: no column 'text'"),
        ('{"id": 1, "text": "ok"}\n{"id": 2, "text": 7}\n', "line 2: column 'text' is a number, not text"),
        ('{"id": 1, "text": null}\n', "line 1: column 'text' is null, not text"),
        ('{"id": 1, "text": "ok"}\nnot json\n', "line 2: not JSON"),
        ("[1, 2]\n", "line 1: a list, not a JSON object"),
        ("", "empty: no rows"),
        ("\n\n", "empty: no rows"),
    ],
)
def test_bad_jsonl_is_one_line_naming_it(tmp_path, content, message):
    p = tmp_path / "docs.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError) as e:
        dedup_table(p, "text", jaccard=0.8, output=tmp_path / "kept.jsonl")
    assert message in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "kept.jsonl").exists()  # nothing written


def test_bad_csv_and_parquet(tmp_path):
    (tmp_path / "a.csv").write_text("id,body\n1,x\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no column 'text' \\(the header has 'id', 'body'\\)"):
        dedup_table(tmp_path / "a.csv")
    (tmp_path / "b.csv").write_text("", encoding="utf-8")
    with pytest.raises(DatasetError, match="empty"):
        dedup_table(tmp_path / "b.csv")
    (tmp_path / "c.csv").write_text("id,text\n1,x,extra\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="line 2: 3 fields, the header has 2"):
        dedup_table(tmp_path / "c.csv")
    pytest.importorskip("pyarrow")
    (tmp_path / "d.parquet").write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(DatasetError, match="not a readable Parquet file"):
        dedup_table(tmp_path / "d.parquet")
    (tmp_path / "e.parquet").write_bytes(b"")
    with pytest.raises(DatasetError, match="e.parquet: not a readable Parquet file"):
        dedup_table(tmp_path / "e.parquet")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "f.parquet")
    with pytest.raises(DatasetError, match="column 'text' is int64, not text"):
        dedup_table(tmp_path / "f.parquet")


def test_outputs_are_checked_before_any_work(tmp_path, rows):
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, rows[:5])
    from simhash_lab._write import OutputError

    with pytest.raises(OutputError, match="--output names an input file"):
        dedup_table(src, output=src)
    with pytest.raises(DatasetError, match="input's format \\(jsonl\\)"):
        dedup_table(src, output=tmp_path / "kept.parquet")
    with pytest.raises(DatasetError, match="cannot tell the format"):
        dedup_table(tmp_path / "docs.txt")


def test_sort_sorts():
    """Every path: insertion (< 64), buckets (64..4096; a bucket of > 32 keys heap-sorted: the
    "low" and "equal" keys), radix (> 4096)."""
    from simhash_lab.kernels.verify import sort_u64

    rng = np.random.default_rng(5)
    for m in (0, 1, 5, 63, 64, 65, 127, 128, 129, 2048, 2049, 4096, 4097, 5000):
        for kind in ("random", "low", "equal"):
            a = rng.integers(0, 2**64, size=m, dtype=np.uint64)
            if kind == "low":
                a = a % np.uint64(300)  # the high bytes equal: passes skipped
            elif kind == "equal":
                a[:] = 7
            want = np.sort(a)
            sort_u64(a, np.empty(m, np.uint64), m)
            assert np.array_equal(a, want)


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


@pytest.mark.parametrize("chunk, budget", [(7, 1 << 30), (7, 0), (100_000, 0)])
def test_chunks_and_the_sets_budget_do_not_change_the_answer(tmp_path, labelled, monkeypatch, chunk, budget):
    """Small chunks (sets packed across them) and a zero budget (sets read again) decide the same."""
    import simhash_lab.dedup as dd
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
    monkeypatch.setattr(dd, "SETS_BUDGET", budget)
    for res in [dedup_texts(texts, jaccard=0.8)] + [dedup_table(f, jaccard=0.8) for f in files]:
        assert res.k == want.k and np.array_equal(res.keep, want.keep)
        assert np.array_equal(res.similarity, want.similarity)
        assert res.duplicates.rows() == want.duplicates.rows()


def test_jsonl_with_a_byte_order_mark_and_bad_utf8(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"text": "a b c d e"}\n{"text": "a b c d e"}\n')
    res = dedup_table(p, jaccard=0.8, k=3, output=tmp_path / "k.jsonl")
    assert res.keep.tolist() == [True, False]
    assert (tmp_path / "k.jsonl").read_bytes() == b'\xef\xbb\xbf{"text": "a b c d e"}\n'
    p.write_bytes(b'{"text": "ok"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(DatasetError, match="line 2: not UTF-8"):
        dedup_table(p)


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
