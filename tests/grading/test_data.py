"""The exercises' data (simhash_lab.grading.data): deterministic, fresh on every call, and variants
that are other data of the same kind."""

from __future__ import annotations

import numpy as np

from simhash_lab.grading import data


def test_the_notebooks_data_is_deterministic_and_fresh():
    a, b = data.near_dup_corpus(), data.near_dup_corpus()
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    a[0][0] = "changed"
    assert data.near_dup_corpus()[0][0] != "changed"
    u, v = data.hyperplane_pair()
    assert np.isclose(np.degrees(np.arccos(u @ v / np.linalg.norm(u) / np.linalg.norm(v))), 30.0)
    assert len(data.avalanche_pairs()) == 40
    assert all(a != b and len(a) == len(b) for a, b in data.avalanche_pairs())


def test_variants_are_other_data_of_the_same_kind():
    for v in (1, 2**61 + 5):
        u, w = data.hyperplane_pair(variant=v)
        assert np.isclose(np.degrees(np.arccos(u @ w / np.linalg.norm(u) / np.linalg.norm(w))), 30.0)
        assert not np.allclose(u, data.hyperplane_pair()[0])
        assert data.avalanche_pairs(variant=v) != data.avalanche_pairs()
        docs, pairs, labels = data.near_dup_corpus(variant=v)
        assert len(docs) == 450 and pairs.shape == (450, 2) and labels.sum() == 150
        assert docs != data.near_dup_corpus()[0]
    try:
        data.use_variant(3)
        assert data.avalanche_pairs() == data.avalanche_pairs(variant=3)
    finally:
        data.use_variant(None)
    assert data.avalanche_pairs() == data.avalanche_pairs(variant=None)


def test_the_corpus_is_drawn_as_it_always_was():
    """The corpus's words are drawn one ``random()`` each, as ``random.choices(vocab,
    cum_weights=...)`` draws them (the draw made faster, not changed): the notebooks' corpus and
    every student's variant are the data they were. The digest is of the draws before it was made
    faster."""
    import hashlib
    import json

    digest = hashlib.sha256()
    for v in (None, 0, 1, 2, 3, 7, 12345):
        docs, pairs, labels = data.near_dup_corpus(variant=v)
        digest.update(json.dumps([docs, pairs.tolist(), labels.tolist()]).encode())
    assert digest.hexdigest() == "2e6e59beb4c4fe2b35f7661eca07eb77da98fbfc36518ef39737f1a4c44400d4"
