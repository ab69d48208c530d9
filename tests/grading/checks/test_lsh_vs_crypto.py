"""The checks of exercise 01 (simhash_lab.grading.checks.lsh_vs_crypto): ``md5_64`` is the seed's hash
(the first 16 hex digits of MD5) and the usual wrong readings get their own hint; the ideal avalanche
is 32 bits; the measured means pass when computed and fail, named, when summed instead of averaged.
Answers are judged in the learner's kernel, as the check cell does (``feedback``)."""

from __future__ import annotations

import hashlib

from simhash_lab import Simhasher, hamming
from simhash_lab.grading import checks


def seed_md5_64(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)


def test_md5_64_passes_the_seeds_hash_and_names_the_usual_mistakes():
    assert checks.md5_64.feedback(seed_md5_64).passed
    last = checks.md5_64.feedback(lambda t: int(hashlib.md5(t.encode()).hexdigest()[-16:], 16))
    assert not last.passed and "last 16 hex digits" in last.hint
    whole = checks.md5_64.feedback(lambda t: int(hashlib.md5(t.encode()).hexdigest(), 16))
    assert not whole.passed and "all 128 bits" in whole.hint
    latin = checks.md5_64.feedback(
        lambda t: int(hashlib.md5(t.encode("latin-1", "replace")).hexdigest()[:16], 16)
    )
    assert not latin.passed  # the visible cases hold non-Latin text


def test_the_ideal_avalanche_is_half_of_64_bits():
    assert checks.ideal_flips.feedback(32).passed and checks.ideal_flips.feedback(32.0).passed
    one = checks.ideal_flips.feedback(0.5)
    assert not one.passed and "one bit" in one.hint
    every = checks.ideal_flips.feedback(64)
    assert not every.passed and "probability 1/2" in every.hint


def _mean(fp):
    def flips(pairs):
        return sum(hamming(fp(a), fp(b)) for a, b in pairs) / len(pairs)

    return flips


def test_the_measured_means_pass_when_computed_and_a_sum_is_named():
    assert checks.crypto_flips.feedback(_mean(seed_md5_64)).passed
    assert checks.simhash_flips.feedback(_mean(Simhasher().fingerprint)).passed
    summed = checks.crypto_flips.feedback(lambda pairs: _mean(seed_md5_64)(pairs) * len(pairs))
    assert not summed.passed and "divide by len(pairs)" in summed.hint
    swapped = checks.simhash_flips.feedback(_mean(seed_md5_64))  # MD5's mean is not Simhash's
    assert not swapped.passed
