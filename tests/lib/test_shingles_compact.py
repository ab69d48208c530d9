"""``Shingler.sets`` hands back its scratch as the CSR data (shrunk in place): the same sets on one
thread (one range, nothing moved) and on several (ranges moved down), and no row's set is touched
by the next call."""

from __future__ import annotations

import numba
import numpy as np
import xxhash

from simhash_lab.shingles import Shingler
from simhash_lab.tokenize import word_shingles


def _want(texts):
    tok = word_shingles(3)
    return [sorted({xxhash.xxh3_64_intdigest(s.encode()) for s in tok(t)}) for t in texts]


def test_sets_same_on_one_thread_and_several(monkeypatch):
    rng = np.random.default_rng(4)
    vocab = [f"w{i}" for i in range(300)] + ["Ünï", "İstanbul", "straße"]
    texts = [" ".join(rng.choice(vocab, rng.integers(0, 60))) for _ in range(700)]
    sh = Shingler(3)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = sh.sets(texts)  # one range
        # several ranges (in threads where there are several, else one after another)
        monkeypatch.setattr("simhash_lab.shingles.thread_count", lambda: 2)
        many = sh.sets(texts)
    finally:
        numba.set_num_threads(threads)
    want = _want(texts)
    for ind, dat in (one, many):
        assert dat.shape == (ind[-1],)
        assert [dat[ind[i] : ind[i + 1]].tolist() for i in range(len(texts))] == want
    sh.sets(texts[::-1])  # a later call: its own scratch, the earlier data unchanged
    assert [one[1][one[0][i] : one[0][i + 1]].tolist() for i in range(len(texts))] == want
