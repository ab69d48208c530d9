"""Dedup in any language and from any input (issue 24, items 1, 2, 4, 5 and 7), each case on a corpus
made here: text without word spaces shingled by characters and measured against exact character
3-gram Jaccard, invisible edits normalised away, exact groups first (the same decisions as without
them), verified by default with the recall asked for, one settings object, tables in memory."""

import itertools
import json

import numpy as np
import pytest

from simhash_lab import dedup_table, dedup_texts
from simhash_lab.dedup import DedupSettings
from simhash_lab.shingles import Shingler

PUNCT = "，。！？；："


def han_corpus(seed=0, n_base=150, copies=150):
    """Poem-like Chinese texts (random Han characters, punctuation every 5 to 7) and near-copies
    with 1 to 3 characters replaced or a punctuation mark changed."""
    rng = np.random.default_rng(seed)
    chars = [chr(0x4E00 + i) for i in rng.choice(3000, 800, replace=False)]

    def poem():
        out = []
        for _ in range(int(rng.integers(6, 10))):
            out.append("".join(rng.choice(chars, int(rng.integers(5, 8)))))
            out.append(str(rng.choice(list(PUNCT))))
        return "".join(out)

    texts = [poem() for _ in range(n_base)]
    for _ in range(copies):
        t = list(texts[int(rng.integers(n_base))])
        for _ in range(int(rng.integers(1, 4))):
            p = int(rng.integers(len(t)))
            t[p] = str(rng.choice(chars)) if t[p] not in PUNCT else str(rng.choice(list(PUNCT)))
        texts.append("".join(t))
    return texts


def char_truth(texts, threshold=0.8, n=3):
    """Exact Jaccard of character n-gram sets (whitespace and punctuation dropped), every pair."""
    sets = []
    for t in texts:
        c = [ch for ch in t if ch.isalnum()]
        sets.append({"".join(c[i : i + n]) for i in range(max(len(c) - n + 1, 1))})
    pairs = set()
    for i, j in itertools.combinations(range(len(texts)), 2):
        a, b = sets[i], sets[j]
        if len(a & b) >= threshold * len(a | b):
            pairs.add((i, j))
    return pairs


def found(res):
    return {(min(a, b), max(a, b)) for g in res.groups for a, b in itertools.combinations(g, 2)}


def test_chinese_is_shingled_by_characters_and_said(capsys):
    """Before: words took a whole clause as one token and the check used word shingles: recall 0.29
    against exact character 3-gram Jaccard, with no warning."""
    texts = han_corpus()
    truth = char_truth(texts)
    assert len(truth) > 50
    res = dedup_texts(texts)
    assert res.by_chars == len(texts)
    assert "shingled by characters (3-grams)" in res.summary()
    got = found(res)
    assert got and got <= truth  # precision 1
    # a true pair is missed when both its rows are kept (star: each proposed true pair joins;
    # complete linkage also keeps apart two rows whose clusters are not all near each other)
    star = dedup_texts(texts, linkage="star")
    missed = sum(star.keep[a] and star.keep[b] for a, b in truth) / len(truth)
    assert missed <= 0.02
    words = dedup_texts(texts, features="words", linkage="star")
    assert words.by_chars == 0
    missed_words = sum(words.keep[a] and words.keep[b] for a, b in truth) / len(truth)
    assert missed_words > 0.3  # the old rule: clauses as words


def test_mixed_corpus_detected_per_document():
    zh = han_corpus(n_base=20, copies=20)
    en_base = " ".join(f"word{i}" for i in range(60))
    en = [en_base, en_base.replace("word7 ", "word7 and "), "a text of its own about other things entirely"]
    res = dedup_texts(zh + en)
    assert res.by_chars == len(zh)
    assert not res.keep[len(zh) + 1]  # the English near-copy, by word shingles


def test_jieba_for_zh_when_installed():
    pytest.importorskip("jieba")
    texts = han_corpus(n_base=30, copies=30)
    res = dedup_texts(texts, lang="zh")
    assert res.settings["features"] == "jieba word 3-shingles"
    assert (~res.keep).sum() > 0 and (res.duplicates.similarity >= 0.8).all()


def test_invisible_edits_do_not_hide_a_copy():
    """Before: a near-copy with U+200B between every character was missed (0/50)."""
    rng = np.random.default_rng(1)
    words = [f"word{i}" for i in range(400)]
    base = [" ".join(rng.choice(words, 60)) for _ in range(50)]
    zw = ["\u200b".join(t) for t in base]
    soft = [t.replace("o", "o\u00ad") for t in base]  # soft hyphens
    wide = ["".join(chr(ord(c) + 0xFEE0) if "a" <= c <= "z" else c for c in t) for t in base]  # full-width
    res = dedup_texts(base + zw + soft + wide)
    assert res.keep[:50].all() and not res.keep[50:].any()
    assert res.exact == 150  # identical once normalised
    raw = dedup_texts(base + zw, normalize=False, exact=False)
    assert raw.keep.all()  # what it was before


def copyright_corpus(seed=3):
    """Like Debian's copyright files: a few long licences shared by many files, each file a header of
    its own (names, years, paths) and one or two licences; near-copies with 1-3 % of words edited."""
    rng = np.random.default_rng(seed)
    vocab = [f"v{i}" for i in range(3000)]
    licences = [" ".join(rng.choice(vocab, int(rng.integers(150, 400)))) for _ in range(8)]
    docs = []
    for _ in range(300):
        head = " ".join(rng.choice(vocab, int(rng.integers(15, 60))))
        body = licences[int(rng.integers(8))]
        if rng.random() < 0.3:
            body += " " + licences[int(rng.integers(8))]
        docs.append(head + " " + body)
    for _ in range(150):
        w = docs[int(rng.integers(300))].split()
        for p in rng.choice(len(w), max(1, int(len(w) * rng.uniform(0.01, 0.03))), replace=False):
            w[p] = str(rng.choice(vocab))
        docs.append(" ".join(w))
    return docs


def word_truth(texts, threshold=0.8):
    sh = Shingler(3)
    ind, dat = sh.sets(texts)
    a, b = np.triu_indices(len(texts), 1)
    sim = Shingler.jaccard(ind, dat, a, b)
    ok = sim >= threshold
    return set(zip(a[ok].tolist(), b[ok].tolist()))


def test_verified_by_default_keeps_at_most_2_percent_of_the_true_pairs():
    """Before: the shortest command ran unverified (precision 0.60 on the copyright files), and the
    default recall 0.95 left 4.7 % of the true pairs with both rows kept."""
    texts = copyright_corpus()
    truth = word_truth(texts)
    assert len(truth) > 150
    res = dedup_texts(texts)
    assert res.jaccard == 0.8 and res.calibration.target == 0.99
    got = found(res)
    assert got <= truth  # precision 1
    candidates = {(i, j) for i, j, _ in res.pairs.tolist()}
    assert len(truth - candidates) <= 0.02 * len(truth)  # not even proposed: at most 2 %
    star = dedup_texts(texts, linkage="star")  # every true pair, once proposed, joins
    assert sum(star.keep[a] and star.keep[b] for a, b in truth) <= 0.02 * len(truth)
    loose = dedup_texts(texts, unverified=True, k=3)  # the first versions' defaults
    assert not found(loose) <= truth  # boilerplate pairs that are not near-duplicates


@pytest.mark.parametrize("kw", [{}, {"keep": "longest"}, {"linkage": "star"}, {"priority": True}])
def test_exact_groups_first_make_the_same_decisions(kw):
    rng = np.random.default_rng(5)
    texts = copyright_corpus(seed=5)[:200]
    texts += [texts[int(i)] for i in rng.integers(0, 200, 120)]  # exact copies, anywhere
    rng.shuffle(texts)
    if kw.get("priority"):
        kw = {"priority": rng.integers(0, 5, len(texts)).astype(float)}
    a = dedup_texts(texts, k=14, **kw)
    b = dedup_texts(texts, k=14, exact=False, **kw)
    assert a.exact > 100 and b.exact == 0
    assert a.keep.tolist() == b.keep.tolist()
    assert a.duplicates.rows() == b.duplicates.rows()
    vb = b.pairs[b.similarity >= 0.8]
    assert a.verified_pairs()[:, :2].tolist() == vb[np.lexsort((vb[:, 1], vb[:, 0]))][:, :2].tolist()


def test_one_settings_object_for_every_entry_point(tmp_path):
    texts = copyright_corpus()[:120]
    s = DedupSettings(jaccard=0.7, recall=0.95, k=12)
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    a = dedup_texts(texts, s)
    b = dedup_table(p, "text", s)
    c = dedup_texts(texts, jaccard=0.7, recall=0.95, k=12)
    assert a.keep.tolist() == b.keep.tolist() == c.keep.tolist()
    assert a.options == s and dedup_texts(texts, s, k=3).k == 3  # keywords override
    with pytest.raises(TypeError, match="unknown dedup option.*jacard"):
        dedup_texts(texts, jacard=0.7)


def test_tables_in_memory_give_what_the_file_gives(tmp_path):
    pa = pytest.importorskip("pyarrow")
    texts = copyright_corpus()[:150]
    ids = [f"doc{i}" for i in range(len(texts))]
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in zip(ids, texts)))
    want = dedup_table(p, "text", id_column="id")
    table = pa.table({"id": ids, "text": texts})
    got = [dedup_table(table, "text", id_column="id")]
    pd = pytest.importorskip("pandas")
    got.append(dedup_table(pd.DataFrame({"id": ids, "text": texts}), "text", id_column="id"))
    for res in got:
        assert res.keep.tolist() == want.keep.tolist()
        assert res.duplicates.rows() == want.duplicates.rows()
    with pytest.raises(ValueError, match="keep mask"):
        dedup_table(table, "text", output=tmp_path / "k.parquet")
    try:
        import datasets
    except ImportError:
        return
    res = dedup_table(datasets.Dataset.from_dict({"id": ids, "text": texts}), "text", id_column="id")
    assert res.keep.tolist() == want.keep.tolist()
