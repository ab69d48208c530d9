"""Tests for notebook 05's helpers: simhash_lab.course.pigeonhole (the story-sized seed index, planted
fingerprints, candidate probabilities, query timing)."""

import math
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import binom

from simhash_lab import SimhashIndex, hamming
from simhash_lab.course import compare, pigeonhole


def test_blocks_of_matches_the_seeds_shift_and_mask():
    rng = np.random.default_rng(0)
    fps = rng.integers(0, 2**64, size=50, dtype=np.uint64)
    got = pigeonhole.blocks_of(fps)
    assert got.shape == (50, 4) and got.dtype == np.uint16
    for row, fp in zip(got, fps.tolist()):
        assert row.tolist() == [(fp >> (c * 16)) & 0xFFFF for c in range(4)]
    assert pigeonhole.blocks_of([0x0123_4567_89AB_CDEF])[0].tolist() == [0xCDEF, 0x89AB, 0x4567, 0x0123]


def test_planted_copies_differ_by_one_to_max_flips():
    fps, src, dst = pigeonhole.planted(2_000, n_planted=100, max_flips=3, seed=4)
    assert fps.dtype == np.uint64 and fps.shape == (2_000,)
    assert src.size == dst.size == 100 and not set(src.tolist()) & set(dst.tolist())
    d = hamming(fps[src], fps[dst])
    assert d.min() >= 1 and d.max() <= 3
    again = pigeonhole.planted(2_000, n_planted=100, max_flips=3, seed=4)
    assert np.array_equal(again[0], fps)
    with pytest.raises(ValueError, match="n_planted"):
        pigeonhole.planted(10, n_planted=6)
    with pytest.raises(TypeError, match="n"):
        pigeonhole.planted(10.5)


@pytest.mark.parametrize("k", [0, 1, 3])
def test_seed_index_equals_brute_force_and_the_library(k):
    fps, src, _ = pigeonhole.planted(20_000, n_planted=100, seed=k)
    story = pigeonhole.SeedIndex(fps, k=k)
    lib = SimhashIndex(k=k, layout="seed")
    lib.add_many(fps)
    rng = np.random.default_rng(k)
    queries = list(fps[src[:30]]) + list(rng.integers(0, 2**64, size=10, dtype=np.uint64))
    for q in queries:
        d = hamming(fps, q)
        brute = sorted(zip(np.flatnonzero(d <= k).tolist(), d[d <= k].tolist()), key=lambda t: (t[1], t[0]))
        assert story.query(q) == brute == lib.query(int(q))
        cand = story.candidates(q)
        assert set(np.flatnonzero(d <= 3).tolist()) <= set(cand.tolist())  # pigeonhole: none missed
        assert np.array_equal(cand, np.unique(cand))


def test_seed_index_refuses_k_above_3():
    with pytest.raises(ValueError, match="k"):
        pigeonhole.SeedIndex(np.zeros(3, np.uint64), k=4)


def _brute_candidate_probability(d, bits, blocks):
    """Enumerate every placement of d differing bits among `bits` positions."""
    q, r = divmod(bits, blocks)
    sizes = [q + 1] * r + [q] * (blocks - r)
    owner = [b for b, s in enumerate(sizes) for _ in range(s)]
    hit = total = 0
    for pos in combinations(range(bits), d):
        total += 1
        hit += len({owner[p] for p in pos}) < blocks
    return hit / total


@pytest.mark.parametrize("bits, blocks", [(12, 4), (13, 4), (10, 3)])
def test_candidate_probability_counts_every_placement(bits, blocks):
    ds = np.arange(0, bits + 1)
    got = pigeonhole.candidate_probability(ds, bits=bits, blocks=blocks)
    want = [_brute_candidate_probability(int(d), bits, blocks) for d in ds]
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    assert np.all(got[:blocks] == 1.0)  # the pigeonhole


def test_candidate_probability_validates():
    with pytest.raises(ValueError, match="d must be"):
        pigeonhole.candidate_probability([65])
    with pytest.raises(ValueError, match="blocks"):
        pigeonhole.candidate_probability([1], bits=8, blocks=9)


@pytest.mark.parametrize("d", [0, 3, 4, 6, 10])
def test_candidate_rate_measures_the_exact_probability(d):
    p = float(pigeonhole.candidate_probability(d))
    got = pigeonhole.candidate_rate(d, trials=20_000, seed=d)
    assert abs(got - p) <= 4 * math.sqrt(p * (1 - p) / 20_000) + 1e-12


@pytest.mark.parametrize("deg", [3, 10, 20])
def test_rates_at_angle_follow_amplification_and_the_binomial(deg):
    th = math.radians(deg)
    cand, rep = pigeonhole.rates_at_angle(th, k=3, trials=20_000, seed=deg)
    c = float(compare.s_curve(1 - th / math.pi, 16, 4))
    r = float(binom.cdf(3, 64, th / math.pi))
    assert abs(cand - c) <= 4 * math.sqrt(c * (1 - c) / 20_000) + 1e-3
    assert abs(rep - r) <= 4 * math.sqrt(r * (1 - r) / 20_000) + 1e-3
    assert cand >= rep  # a reported pair is always a candidate
    with pytest.raises(ValueError, match="theta"):
        pigeonhole.rates_at_angle(4.0)


def test_time_queries_times_every_method_per_size():
    t = pigeonhole.time_queries([500, 2_000], k=3, n_queries=20, repeat=1, seed=1)
    assert list(t) == ["linear scan", "4 × 16 index (seed)", "SimhashIndex, auto layout"]
    assert all(v.shape == (2,) and np.all(v > 0) for v in t.values())
    with pytest.raises(ValueError, match="k"):
        pigeonhole.time_queries([100], k=4)
