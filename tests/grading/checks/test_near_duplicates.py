"""The checks of exercise 06 (simhash_lab.grading.checks.near_duplicates): best_k varies across
variants, and the hidden cases never have the notebook's answer."""

from __future__ import annotations

import random

from simhash_lab.grading.checks import CHECKS


def test_best_k_varies_across_variants():
    from simhash_lab.grading.checks.near_duplicates import _best_k

    ks = {_best_k(v) for v in range(1, 9)}
    assert len(ks) >= 3
    hidden = [c["variant"] for s in range(3) for c in CHECKS["best_k"].cases(random.Random(s))]
    assert len(hidden) == 9 and _best_k(None) not in {_best_k(v) for v in hidden}
