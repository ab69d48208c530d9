"""simhash_lab.hamming, the public API: a metric (Hypothesis), broadcasting and types. Its kernels are
tested in kernels/test_hamming.py, the popcount instruction in kernels/test_bits.py."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import hamming, is_near

# -- the public API: simhash_lab.hamming ---------------------------------------------------------


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))
def test_hamming_is_a_metric(a, b, c):
    assert hamming(a, b) == hamming(b, a) == bin(a ^ b).count("1")
    assert hamming(a, a) == 0
    assert hamming(a, c) <= hamming(a, b) + hamming(b, c)
    arr = np.array([a, b, c], dtype=np.uint64)
    assert hamming(arr, np.uint64(b)).tolist() == [hamming(a, b), 0, hamming(c, b)]
    for k in (0, 3, 10):
        assert is_near(a, b, k) == (hamming(a, b) <= k)


def test_hamming_broadcasting_and_types():
    a = np.array([[0b1001], [0b100111]], dtype=np.uint64)
    b = np.array([0b1010, 0b101010], dtype=np.uint64)
    assert hamming(a, b).tolist() == [[2, 3], [4, 3]]
    assert hamming(0b1011101, 0b1001001) == 2
    big = np.arange(100_000, dtype=np.uint64)  # the parallel path
    assert np.array_equal(hamming(big, 7), np.bitwise_count(big ^ np.uint64(7)))
    assert np.array_equal(hamming(7, big), hamming(big, 7))
    assert hamming(np.array([1, 2, 3]), 0).tolist() == [1, 1, 2]  # int64 input accepted
    assert isinstance(hamming(3, 5), int)
