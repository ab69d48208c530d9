"""The course's corpora (simhash_lab.course.corpus): the Python manual in paragraphs, license files,
the edit operations, the labelled set and its truth pairs and pair kinds."""

import random

import numpy as np
import pytest

from simhash_lab.course import compare, corpus


@pytest.fixture(scope="module")
def docs():
    return corpus.python_docs()


@pytest.fixture(scope="module")
def lab(docs):
    return corpus.labelled_set(docs[:80], seed=3)


def test_python_docs_are_chunked_at_paragraphs(docs):
    assert len(docs) > 200
    assert all(80 <= len(d.text.split()) for d in docs)
    assert len({d.name for d in docs}) == len(docs)
    # every chunk is a run of whole paragraphs of its topic
    from pydoc_data.topics import topics

    for d in docs[:50]:
        topic = topics[d.name.split("#")[0]]
        for para in d.text.split("\n\n"):
            assert para in topic


def test_python_docs_validates():
    with pytest.raises(ValueError, match="max_words"):
        corpus.python_docs(min_words=100, max_words=50)
    with pytest.raises(TypeError, match="min_words"):
        corpus.python_docs(min_words=1.5)


class _Meta(dict):
    """A stand-in for an email.message.Message: get() and get_all()."""

    def get_all(self, key):
        v = self.get(key)
        return None if v is None else list(v)


@pytest.mark.parametrize(
    "meta, family",
    [
        ({"License-Expression": "MIT"}, "MIT"),
        ({"License-Expression": "BSD-3-Clause"}, "BSD"),
        ({"License-Expression": "Apache-2.0"}, "Apache"),
        ({"License-Expression": "MPL-2.0"}, "other"),
        ({"License-Expression": "Apache-2.0 OR BSD-2-Clause"}, "mixed"),
        ({"Classifier": ["License :: OSI Approved :: MIT License"]}, "MIT"),
        ({"Classifier": ["License :: OSI Approved :: BSD License", "Programming Language :: Python"]}, "BSD"),
        (
            {
                "Classifier": [
                    "License :: OSI Approved :: BSD License",
                    "License :: OSI Approved :: MIT License",
                ]
            },
            "mixed",
        ),
        ({"License": "BSD 3-Clause License\n\nCopyright (c) 2022, someone"}, "BSD"),
        ({"License": "Apache 2.0"}, "Apache"),
        (
            {
                "License-Expression": "MIT",
                "Classifier": ["License :: OSI Approved :: Apache Software License"],
            },
            "mixed",
        ),
        ({}, "unknown"),
        ({"License": "UNKNOWN"}, "unknown"),
    ],
)
def test_license_family(meta, family):
    assert corpus.license_family(_Meta(meta)) == family


def test_license_files_come_from_dist_info():
    files = corpus.license_files()
    assert files, "the test environment has packages with license files"
    assert all(".dist-info/" in lf.path for lf in files)
    assert all(len(lf.text.split()) >= 20 for lf in files)
    assert files == sorted(files, key=lambda lf: (lf.package.lower(), lf.path))
    numpy_files = [lf for lf in files if lf.package.lower() == "numpy"]
    assert numpy_files and numpy_files[0].n_files == len(numpy_files)


@pytest.mark.parametrize("op", sorted(corpus.EDIT_OPERATIONS))
def test_each_edit_operation(op):
    text = "Alpha beta gamma delta.  Epsilon zeta eta!\nTheta iota kappa."
    out = corpus.edit(text, op, random.Random(1), vocab=["NEW"])
    assert out != text
    wa, wb = text.split(), out.split()
    if op in ("typo", "replace", "case"):
        assert len(wa) == len(wb) and sum(a != b for a, b in zip(wa, wb)) == 1
    elif op == "delete":
        assert len(wb) == len(wa) - 1
    elif op == "insert":
        assert len(wb) == len(wa) + 1 and "NEW" in wb
    elif op in ("swap", "reflow"):
        assert sorted(wa) == sorted(wb)
    elif op == "truncate":
        assert wb == wa[:-3]
    else:
        assert len(wb) > len(wa)


def test_edit_keeps_whitespace_and_validates():
    rng = random.Random(0)
    out = corpus.edit("  one  two\n", "replace", rng, vocab=["X"])
    assert out.startswith("  ") and out.endswith("\n") and "X" in out
    assert corpus.edit("", "delete", rng) == ""
    assert corpus.edit("one", "delete", rng) == ""
    with pytest.raises(ValueError, match="`op`"):
        corpus.edit("text", "shuffle", rng)


def test_labelled_set_is_deterministic(docs):
    a = corpus.labelled_set(docs[:60], seed=5)
    b = corpus.labelled_set(docs[:60], seed=5)
    c = corpus.labelled_set(docs[:60], seed=6)
    assert a.docs == b.docs and a.edits == b.edits
    assert a.docs != c.docs


def test_labelled_set_structure(lab):
    n = len(lab)
    assert len(lab.names) == len(lab.kind) == len(lab.edits) == lab.source.size == lab.edit_rate.size == n
    for i in range(n):
        s = lab.source[i]
        assert lab.kind[s] == "original"
        if lab.kind[i] == "original":
            assert s == i and lab.edits[i] == ()
        else:
            assert lab.edits[i] and lab.names[i].startswith(lab.names[s] + "~")
    near = np.array([k == "near" for k in lab.kind])
    rew = np.array([k == "rewrite" for k in lab.kind])
    assert near.any() and rew.any()
    assert lab.edit_rate[near].max() <= 0.08 + 1 / 80  # rounded to whole operations, >= 80 words
    assert lab.edit_rate[rew].min() >= 0.25


def test_truth_pairs(lab):
    t = lab.truth()
    assert t.dtype == np.int64 and t.shape[1] == 2
    assert np.all(t[:, 0] < t[:, 1])
    assert np.array_equal(t, t[np.lexsort((t[:, 1], t[:, 0]))])
    # brute force: same source, neither a rewrite
    ok = [
        (i, j)
        for i in range(len(lab))
        for j in range(i + 1, len(lab))
        if lab.source[i] == lab.source[j] and "rewrite" not in (lab.kind[i], lab.kind[j])
    ]
    assert t.tolist() == [list(p) for p in ok]
    assert "near-duplicates" in lab.summary()


def test_originals_that_overlap_are_dropped(docs):
    dup = corpus.Doc("copy", docs[0].text)
    s = corpus.labelled_set([docs[0], dup, docs[1]], near=(0,), rewrite_p=0.0)
    assert s.names == [docs[0].name, docs[1].name]


def test_labelled_set_validates(docs):
    with pytest.raises(ValueError, match="near_rate"):
        corpus.labelled_set(docs[:5], near_rate=(0.5, 0.1))
    with pytest.raises(ValueError, match="docs"):
        corpus.labelled_set([])


def test_word_diff():
    assert corpus.word_diff("a b c d", "a b x d", context=1) == "b [-c-]{+x+} d"
    assert corpus.word_diff("same", "same") == ""


def test_pair_kinds_against_the_definition(lab):
    n = len(lab)
    i, j = np.triu_indices(n, 1)
    pairs = np.stack([i, j], axis=1)
    kinds = lab.pair_kinds(pairs)
    truth = {tuple(p) for p in lab.truth().tolist()}
    for (a, b), kind in zip(pairs.tolist(), kinds):
        if (a, b) in truth:
            assert kind == "near-duplicate"
        elif lab.source[a] == lab.source[b]:
            assert kind == "rewrite" and "rewrite" in (lab.kind[a], lab.kind[b])
        else:
            assert kind == "unrelated"
    # order within a row and a third column do not matter
    swapped = np.stack([j, i, np.zeros_like(i)], axis=1)
    assert np.array_equal(lab.pair_kinds(swapped), kinds)
    with pytest.raises(ValueError, match="pairs"):
        lab.pair_kinds([[0, n]])


def test_truncate_never_removes_most_of_a_document():
    table = "Operator Description " + " ".join(f"op{i} meaning{i}" for i in range(60))  # one "sentence"
    text = "A short first sentence. " + table
    assert corpus.edit(text, "truncate", random.Random(0)) == text
    # every near-duplicate of the labelled set keeps most of its original's 3-shingles
    s = corpus.labelled_set(seed=0)
    pairs, sim = compare.jaccard_all_pairs(s.docs, n=3)
    kinds = s.pair_kinds(pairs)
    orig_near = np.array([s.kind[a] == "original" or s.kind[b] == "original" for a, b in pairs.tolist()])
    assert sim[(kinds == "near-duplicate") & orig_near].min() > 0.3
