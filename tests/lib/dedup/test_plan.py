"""The plan step (issue 48, item 4): the MinHash bands chosen before the first read from candidate
counts measured on the input's first rows, not fixed at 16 x 6; ``bands=(b, r)`` pins them."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

from simhash_lab.candidates import BandKeys, collision_probability, expected_pairs
from simhash_lab.dedup import dedup_table, dedup_texts
from simhash_lab.dedup import steps as S
from simhash_lab.settings import DedupSettings
from simhash_lab.shingles import Featurizer

T = 0.8
WORDS_POOL = 2000


def _shared_passages(n: int, seed: int = 0) -> list[str]:
    """Rows of 30-300 words cut from one stream of the words of Python's docs, cycled with shifted
    cuts: real prose whose rows share runs of words (``benchmarks/_corpus.varied_documents``)."""
    from pydoc_data.topics import topics

    words = " ".join(topics[k] for k in sorted(topics)).split()[:WORDS_POOL]
    rng = np.random.default_rng(seed)
    out, at = [], 0
    for m in rng.integers(30, 301, size=n).tolist():
        if at + m > len(words):
            at = (at + m) % 997
        out.append(" ".join(words[at : at + m]))
        at += m
    return out


def _true_pairs(texts: list[str]) -> set:
    """Every pair of rows at exact Jaccard >= T, from the sets the verifier compares."""
    ind, dat = Featurizer(DedupSettings()).sets(texts)
    uniq, inv = np.unique(dat, return_inverse=True)
    x = sp.csr_matrix((np.ones(dat.size, np.float32), inv, ind), shape=(len(texts), uniq.size))
    inter = sp.triu(x @ x.T, k=1).tocoo()
    size = np.diff(ind)
    a, b, c = inter.row, inter.col, inter.data
    ok = c / (size[a] + size[b] - c) >= T - 1e-9
    return set(zip(a[ok].tolist(), b[ok].tolist()))


def test_the_plan_counts_fewer_false_candidates_on_shared_passages_and_keeps_the_recall():
    texts = _shared_passages(3000)
    truth = _true_pairs(texts)
    fixed = dedup_texts(texts, jaccard=T, bands=(16, 6))
    planned = dedup_texts(texts, jaccard=T)
    info = planned.settings["candidates"]
    assert (
        info["chosen_by"] == "plan" and info["sample"] == len(texts) and info["rows_reckoned"] == len(texts)
    )
    assert (info["bands"], info["rows"]) != (16, 6)
    assert info["at_threshold"] >= 0.99
    # the whole input was the sample: the pairs counted are the candidates the run made
    assert info["sample_pairs"] == planned.pairs.shape[0] == info["expected_pairs"]
    false = {
        name: int(np.count_nonzero(r.similarity < T)) for name, r in (("fixed", fixed), ("plan", planned))
    }
    assert false["plan"] < 0.8 * false["fixed"], false
    assert info["sample_below"] == false["plan"]
    found = {
        name: {(int(i), int(j)) for i, j in r.verified_pairs()[:, :2]}
        for name, r in (("fixed", fixed), ("plan", planned))
    }
    assert found["plan"] <= truth and found["fixed"] <= truth  # verified: exact
    recall = {k: len(v) / len(truth) for k, v in found.items()}
    assert len(truth) > 2000 and recall["plan"] >= 0.99 and recall["plan"] >= recall["fixed"] - 0.002, recall


def test_pinned_bands_are_the_run_s_and_no_plan_is_made(monkeypatch):
    texts = _shared_passages(600)

    def no_plan(*_, **__):
        raise AssertionError("a plan with pinned bands")

    monkeypatch.setattr(S, "plan_bands", no_plan)
    res = dedup_texts(texts, bands=(7, 3))
    c = res.settings["candidates"]
    assert (c["bands"], c["rows"], c["chosen_by"]) == (7, 3, "settings")
    assert c["at_threshold"] == round(float(collision_probability(T, 7, 3)), 4)
    assert res.options.bands == (7, 3) and res.options.to_json()["bands"] == (7, 3)
    keys = BandKeys(T, 0.99, bands=(7, 3))  # the run's candidates are exactly these bands' pairs
    keys.add(*Featurizer(DedupSettings()).sets(texts))
    searched = res.representative == np.arange(len(texts))  # an exact copy is not searched
    want = keys.pairs(searched, np.zeros(len(texts), np.uint64))
    assert np.array_equal(res.pairs[:, :2], want[:, :2]) and want.shape[0] > 100


@pytest.mark.parametrize(
    "opts, error, match",
    [
        ({"bands": (0, 3)}, ValueError, r"bands\[0\] \(bands\) must be between 1 and 1024, got 0"),
        ({"bands": (8, 65)}, ValueError, r"bands\[1\] \(rows\) must be between 1 and 64"),
        ({"bands": "16x6"}, TypeError, r"bands must be a pair \(bands, rows\)"),
        ({"bands": (16, 6, 1)}, TypeError, r"bands must be a pair"),
        ({"bands": (16, 6), "k": 3}, ValueError, r"bands=\(16, 6\) pins the MinHash bands"),
        ({"bands": (16, 6), "candidates": "index"}, ValueError, r"bands=\(16, 6\) pins"),
    ],
)
def test_bad_bands_are_refused_naming_them(opts, error, match):
    with pytest.raises(error, match=match):
        DedupSettings(**opts)


@pytest.mark.parametrize("texts", [[], ["one row of a few words"], ["", "  ", "\u200b"]])
def test_a_tiny_input_gets_bands(texts):
    res = dedup_texts(texts)
    c = res.settings["candidates"]
    assert c["chosen_by"] == "plan" and c["sample"] == len(texts) and c["sample_pairs"] == 0
    assert collision_probability(T, c["bands"], c["rows"]) >= 0.99
    assert res.pairs.shape[0] == 0 and res.keep.shape == (len(texts),)
    assert res.keep.sum() == len(texts) - len(res.duplicates)


def test_the_rows_past_the_sample_are_reckoned_from_the_file(tmp_path, monkeypatch):
    """A JSONL file longer than the sample: its rows reckoned from its bytes (two significant
    digits), the sample the first ``Plan.ROWS`` rows; the same choice as ``dedup_texts`` of the
    same rows told their count."""
    import json

    texts = _shared_passages(3000, seed=2)
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    monkeypatch.setattr(S.Plan, "ROWS", 1000)
    got = dedup_table(path, report=tmp_path / "report.md").settings["candidates"]
    assert got["sample"] == 1000 and got["rows_reckoned"] == 3000
    said = f"| plan | {got['bands']} bands of {got['rows']} rows: {got['sample_pairs']:,} candidate pairs"
    assert said + " in the first 1,000 rows, " in (tmp_path / "report.md").read_text(encoding="utf-8")
    listed = dedup_texts(texts).settings["candidates"]  # a list: its rows counted
    assert listed["rows_reckoned"] == 3000 and (listed["bands"], listed["rows"]) == (
        got["bands"],
        got["rows"],
    )
    assert (got["bands"], got["rows"]) != (16, 6)


def test_the_pairs_are_reckoned_by_the_growth_the_sample_shows():
    rng = np.random.default_rng(0)
    s, n = 2000, 20_000
    i, j = rng.integers(0, s, 20_000), rng.integers(0, s, 20_000)
    keep = i != j
    a, b = np.minimum(i, j)[keep], np.maximum(i, j)[keep]  # spread: a quarter in the first half
    assert expected_pairs(a, b, s, n) == pytest.approx(a.size * 100, rel=0.05)
    near = expected_pairs(np.arange(0, s - 1, 2), np.arange(1, s, 2), s, n)  # next to each other
    assert near == pytest.approx(n / 2, rel=0.01)
    same = expected_pairs(np.zeros(5, int), np.arange(1, 6), s, n)  # all in the first rows: no growth
    assert same == 5
    assert expected_pairs(a, b, s, s) == a.size


def test_a_bad_row_in_the_sample_is_named_as_the_first_read_names_it(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('{"text": "fine words here"}\n{"text": "a \\ud800 b"}\n', encoding="utf-8")
    with pytest.raises(Exception, match=re.escape("row 1: the text holds a lone surrogate")):
        dedup_table(path)
