"""Charikar's random hyperplanes (simhash_lab.geometry): signatures against a plain loop over the
hyperplanes, the expected Hamming distance bits * theta / pi and its statistics, angles, and bad
input named."""

import math

import numpy as np
import pytest

from simhash_lab import expected_hamming, hamming, hyperplane_signatures
from simhash_lab.geometry import angle, hyperplanes


def test_geometry():
    assert expected_hamming(0) == 0
    assert expected_hamming(math.pi / 2) == 32
    assert round(expected_hamming(math.radians(5)), 2) == 1.78
    assert expected_hamming(np.array([0, math.pi]), bits=16).tolist() == [0, 16]
    with pytest.raises(ValueError, match="theta"):
        expected_hamming(float("nan"))
    rng = np.random.default_rng(1)
    X = rng.standard_normal((200, 50))
    s1 = hyperplane_signatures(X, bits=64, seed=3)
    assert np.array_equal(s1, hyperplane_signatures(X, bits=64, seed=3))
    assert not np.array_equal(s1, hyperplane_signatures(X, bits=64, seed=4))
    assert hyperplane_signatures(X[0], bits=8, seed=3) == int(s1[0]) & 0xFF
    with pytest.raises(ValueError, match="finite"):
        hyperplane_signatures(np.array([[np.nan, 1.0]]))


def test_charikar_expectation_holds_statistically():
    # pairs at fixed angles; mean Hamming over many hyperplane draws ~ 64 theta / pi
    rng = np.random.default_rng(0)
    for theta in (0.1, 0.5, 1.0, 2.0, 3.0):
        u = rng.standard_normal(30)
        w = rng.standard_normal(30)
        w -= (w @ u) / (u @ u) * u
        v = math.cos(theta) * u / np.linalg.norm(u) + math.sin(theta) * w / np.linalg.norm(w)
        d = [hamming(*hyperplane_signatures(np.vstack([u, v]), seed=s).tolist()) for s in range(400)]
        se = math.sqrt(64 * (theta / math.pi) * (1 - theta / math.pi) / len(d))
        assert abs(np.mean(d) - expected_hamming(theta)) < 4 * se + 1e-9


def test_signatures_are_the_signs_against_each_hyperplane():
    """Bit i of a row is 1 when the row's dot product with hyperplane i is >= 0 (a plain loop)."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 7))
    X[0] = 0.0  # on every hyperplane: all ones
    for bits in (1, 13, 64):
        R = hyperplanes(7, bits, seed=2)
        assert R.shape == (bits, 7) and np.array_equal(R, hyperplanes(7, bits, seed=2))
        want = [sum(1 << i for i in range(bits) if float(x @ R[i]) >= 0) for x in X]
        got = hyperplane_signatures(X, bits=bits, seed=2)
        assert got.dtype == np.uint64 and got.tolist() == want
        assert want[0] == (1 << bits) - 1


def test_angle_is_the_angle_in_radians():
    assert angle([1, 0], [0, 3]) == pytest.approx(math.pi / 2)
    assert angle([1, 1], [2, 2]) == pytest.approx(0.0, abs=1e-7)
    assert angle([1, 0], [-5, 0]) == pytest.approx(math.pi)
    assert angle([1, 2, 3], [3, -1, 2]) == pytest.approx(math.acos(7 / 14))
    with pytest.raises(ValueError, match="zero vector"):
        angle([0, 0], [1, 0])


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: expected_hamming(-0.1), ValueError, "between 0 and pi"),
        (lambda: expected_hamming(4.0), ValueError, "between 0 and pi"),
        (lambda: expected_hamming(1.0, bits=0), ValueError, "bits must be between 1 and 64"),
        (lambda: hyperplanes(0), ValueError, "dim must be between 1"),
        (lambda: hyperplanes(3, bits=65), ValueError, "bits must be between 1 and 64"),
        (lambda: hyperplane_signatures(np.ones((2, 0))), ValueError, "shape \\(n, dim\\)"),
        (lambda: hyperplane_signatures(np.ones((2, 2, 2))), ValueError, "2-D array"),
    ],
)
def test_bad_input_names_the_parameter(call, error, words):
    with pytest.raises(error, match=words):
        call()
