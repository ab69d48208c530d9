"""``candidates="bands"`` in the dedup pipeline: MinHash bands of the exact-group representatives'
shingle sets instead of the index, verified the same; against the index and an exact reference."""

import json
from itertools import combinations

import numpy as np
import pytest

from simhash_lab.candidates import collision_probability
from simhash_lab.dedup import dedup_table, dedup_texts
from simhash_lab.dedup.run import STEPS
from simhash_lab.settings import DedupSettings

T = 0.8
WORDS = 80


def _corpus(seed: int, spaced: bool, bases: int = 120):
    """Random documents of ``WORDS`` words, each with near-copies (words replaced) and some exact
    copies. ``spaced``: replacements at least 3 words apart and inside the text, so m of them
    change 3 m shingles of 78 and the similarities are 1, 0.926 (m = 1), 0.857 (2), 0.793 (3)...:
    every pair at the threshold or above is at 0.857 or above. Else anywhere (near 0.8 too)."""
    rng = np.random.default_rng(seed)
    vocab = np.array(["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6)) for _ in range(4000)])
    texts = []
    for _ in range(bases):
        base = list(rng.choice(vocab, WORDS))
        texts.append(base)
        for m in rng.choice([1, 2, 3, 4], size=rng.integers(1, 4)):
            if spaced:
                slots = rng.choice(np.arange(1, WORDS // 3 - 1), size=m, replace=False) * 3
            else:
                slots = rng.choice(WORDS, size=m, replace=False)
            v = list(base)
            for p in slots.tolist():
                v[p] = str(rng.choice(vocab))
            texts.append(v)
    out = [" ".join(t) for t in texts]
    copies = rng.choice(len(out), size=len(out) // 6, replace=False)
    for c in copies.tolist():
        out.insert(int(rng.integers(c, len(out) + 1)), out[c])  # a copy after its original
    return out


def _exact_pairs(texts):
    """Every pair (i, j), i < j, and its exact Jaccard similarity of word 3-shingles (Python sets)."""
    sets = []
    for t in texts:
        w = t.split()
        sets.append({tuple(w[i : i + 3]) for i in range(len(w) - 2)})
    return {(i, j): len(a & b) / len(a | b) for (i, a), (j, b) in combinations(enumerate(sets), 2)}


def _reference_keep(n, sim):
    """The keep mask of the greedy complete-linkage pass over the exact truth, in input order."""
    nbr = {i: set() for i in range(n)}
    for (i, j), s in sim.items():
        if s >= T:
            nbr[i].add(j)
            nbr[j].add(i)
    state = [0] * n  # 1 kept, 2 dropped
    for u in range(n):
        if state[u]:
            continue
        state[u] = 1
        members = []
        for v in sorted(nbr[u]):
            if state[v] == 0 and all(v in nbr[m] for m in members):
                state[v] = 2
                members.append(v)
    return np.array([s == 1 for s in state])


def _verified(res):
    ok = res.similarity >= res.jaccard
    return {(int(i), int(j)) for i, j, _ in res.pairs[ok].tolist()}


@pytest.fixture(scope="module")
def near_threshold():
    texts = _corpus(seed=3, spaced=False)
    index = dedup_texts(texts, jaccard=T, candidates="index")
    return texts, index, dedup_texts(texts, jaccard=T)  # the default: bands


def test_bands_find_the_index_pairs_but_for_what_the_recall_allows(near_threshold):
    texts, index, bands = near_threshold
    assert index.settings["candidates"] == {"method": "index", "k": index.k}
    c = bands.settings["candidates"]
    assert c["method"] == "minhash bands" and bands.k == index.k  # k still calibrated, reported
    assert "MinHash bands" in bands.summary() and f"within k = {index.k}" in index.summary()
    # the keys, made while fingerprinting, are counted in the candidates step, in the steps' order
    assert list(bands.timings) == [n for n in STEPS if n in bands.timings]
    # only representatives are candidates, as with the index
    assert (bands.representative[bands.pairs[:, :2]] == bands.pairs[:, :2]).all()
    assert bands.pairs.shape[0] and bands.exact > 0
    found, want = _verified(bands), _verified(index)
    sim = dict(zip(map(tuple, index.pairs[:, :2].tolist()), index.similarity.tolist()))
    # each pair of the index's is missed with probability (1 - J**r)**b (at most 1 - recall): the
    # misses allowed are their expected number and four standard deviations
    miss = np.array([1 - collision_probability(sim[p], c["bands"], c["rows"]) for p in sorted(want)])
    assert miss.max() <= 1 - 0.99 + 1e-9
    allowed = miss.sum() + 4 * np.sqrt(miss.sum()) + 1
    assert len(want - found) <= allowed, (len(want - found), allowed, len(want))
    assert len(want) > 100  # pairs near the threshold too: the tolerance is tested
    assert min(sim[p] for p in want) < 0.85


def test_bands_never_keep_a_pair_below_the_threshold(near_threshold):
    texts, _, bands = near_threshold
    truth = _exact_pairs(texts)
    assert (bands.duplicates.similarity >= T).all()
    for g in bands.groups:  # complete linkage: every two members a true pair
        for a, b in combinations(sorted(g), 2):
            assert truth[(a, b)] >= T - 1e-9, (a, b, truth[(a, b)])
    # the verified similarities are the exact ones
    for (i, j), s in zip(map(tuple, bands.pairs[:, :2].tolist()), bands.similarity.tolist()):
        assert s == pytest.approx(truth[(i, j)])


def test_bands_keep_what_the_exact_reference_keeps_when_every_pair_is_found():
    texts = _corpus(seed=5, spaced=True)
    truth = _exact_pairs(texts)
    res = dedup_texts(texts, jaccard=T, candidates="bands")
    true_pairs = {p for p, s in truth.items() if s >= T}
    rep = res.representative
    # every true pair of representatives was found (each at 0.857 or more: missed with p < 1e-3)
    reps = {(i, j) for i, j in true_pairs if rep[i] == i and rep[j] == j}
    assert reps <= _verified(res)
    assert any(0.79 < s < T for s in truth.values())  # pairs just below: must not be grouped
    ref = _reference_keep(len(texts), truth)
    assert res.keep.tolist() == ref.tolist()
    assert (~ref).sum() > 50


def test_bands_with_a_hasher_of_ones_own_use_its_sets():
    from simhash_lab import Simhasher
    from simhash_lab.tokenize import word_shingles

    texts = _corpus(seed=7, spaced=True, bases=30)
    h = Simhasher(tokenizer=word_shingles(2), weights="binary")
    a = dedup_texts(texts, jaccard=T, hasher=h)
    b = dedup_texts(texts, jaccard=T, hasher=h, candidates="bands")
    assert b.settings["candidates"]["method"] == "minhash bands"
    va, vb = _verified(a), _verified(b)
    # the sets banded are the hasher's (2-shingles: each pair at 0.82 or more, missed with p < 0.003)
    assert len(va) > 20 and len(va - vb) <= 2, (len(va), len(va - vb))
    assert (b.duplicates.similarity >= T).all()


@pytest.mark.parametrize(
    "options, match",
    [
        ({"candidates": "lsh"}, "candidates"),
        ({"candidates": None}, "candidates"),
        ({"candidates": "bands", "k": 5}, "candidates='bands'.*k"),
        ({"candidates": "bands", "k": 3, "unverified": True}, "candidates='bands'"),
    ],
)
def test_bad_candidates_are_refused_naming_the_option(options, match):
    with pytest.raises(ValueError, match=match):
        DedupSettings(**options)
    with pytest.raises(ValueError, match=match):
        dedup_texts(["a b c"], **options)


def test_the_cli_option_runs_end_to_end(tmp_path, capsys):
    from simhash_lab.cli import main

    texts = _corpus(seed=11, spaced=True, bases=40)
    src = tmp_path / "docs.jsonl"
    src.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    code = main(
        [
            "dedup",
            str(src),
            "--candidates",
            "bands",
            "--output",
            str(tmp_path / "kept.jsonl"),
            "--report",
            str(tmp_path / "r.html"),
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    want = dedup_table(str(src), candidates="bands")
    assert code == 1, err
    doc = json.loads(out)
    assert doc["settings"]["candidates"]["method"] == "minhash bands"
    assert "MinHash bands" in err
    assert "pairs by MinHash bands" in (tmp_path / "r.html").read_text()
    kept = [json.loads(line)["text"] for line in (tmp_path / "kept.jsonl").read_text().splitlines()]
    assert kept == [t for t, k in zip(texts, want.keep.tolist()) if k]
    assert len(kept) < len(texts)
    # refused: an unknown method (argparse names the option), and bands with -k
    for bad in (["--candidates", "lsh"], ["--candidates", "bands", "-k", "3"]):
        with pytest.raises(SystemExit) as e:
            code = main(["dedup", str(src), *bad])
            raise SystemExit(code)
        out, err = capsys.readouterr()
        assert e.value.code == 2 and "--candidates" in err and "Traceback" not in err, err


def test_the_help_documents_the_option(capsys):
    from simhash_lab.cli import main

    with pytest.raises(SystemExit):
        main(["dedup", "--help"])
    out = capsys.readouterr().out
    assert "--candidates {auto,index,bands}" in out and "MinHash band" in out
