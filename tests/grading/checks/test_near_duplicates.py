"""The checks of exercise 06 (simhash_lab.grading.checks.near_duplicates): best_k varies across
variants, and the hidden cases never have the notebook's answer."""

from __future__ import annotations

import random

from simhash_lab.grading.checks import CHECKS


def test_best_k_varies_across_variants():
    from simhash_lab.grading.checks.near_duplicates import _best_k

    ks = {_best_k(v) for v in range(1, 9)}
    assert len(ks) >= 3
    hidden = [
        c["variant"] for s in range(3) for c in CHECKS["best_k"].cases(random.Random(s)) if "variant" in c
    ]
    assert len(hidden) == 9 and _best_k(None) not in {_best_k(v) for v in hidden}


def test_best_k_is_checked_on_a_tie_and_on_precision_and_recall_both_0():
    """Issue 47: ``>=`` (the largest k of a tie) and an F1 without its P + R = 0 guard were accepted;
    labelled distances of the check's own have a tie at the largest F1 and a k where P = R = 0,
    in the visible cases and among the hidden ones."""
    import numpy as np

    from simhash_lab.grading.checks.near_duplicates import _f1s_of

    for rng in (None, random.Random(1)):
        own = [c for c in CHECKS["best_k"].cases(rng) if "d" in c]
        f1s = [_f1s_of(np.array(c["d"]), np.array(c["labels"], dtype=bool)) for c in own]
        assert any(f.count(max(f)) > 1 for f in f1s)  # a tie at the largest F1
        zero = [c for c in own if c["d"] == [0, 5] and c["labels"] == [False, True]]
        assert zero, own  # k = 0 flags only the negative: P = R = 0
