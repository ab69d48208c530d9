"""Hamming distance: the popcount primitive exhaustively, the kernels against NumPy and
``bin(x).count("1")``, Kernighan's early exit, and the ``popcnt`` instruction."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import hamming, is_near
from simhash_lab.kernels import hamming as _hamming_kernels


def _popcounts(x):
    out = np.empty(x.size, dtype=np.uint8)
    _hamming_kernels.popcount_kernel(np.ascontiguousarray(x), out)
    return out


def test_popcount_exhaustive_16_bit_at_every_offset():
    x = np.arange(1 << 16, dtype=np.uint64)
    expected = np.array([bin(v).count("1") for v in range(1 << 16)], dtype=np.uint8)
    for shift in (0, 16, 32, 48):
        assert np.array_equal(_popcounts(x << np.uint64(shift)), expected)


def test_popcount_all_one_and_two_bit_words_and_extremes():
    words = [1 << i for i in range(64)] + [(1 << i) | (1 << j) for i in range(64) for j in range(i)]
    words += [0, 2**64 - 1, 2**63, 2**64 - 2]
    arr = np.array(words, dtype=np.uint64)
    got = _popcounts(arr)
    assert got.tolist() == [bin(w).count("1") for w in words]


def test_popcount_random_24_bit_sweep_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**64 - 1, 1 << 20, dtype=np.uint64, endpoint=True)
    assert np.array_equal(_popcounts(x), np.bitwise_count(x))
    out = np.empty(x.size, dtype=np.uint8)
    _hamming_kernels.hamming_scalar_kernel(x, np.uint64(0xDEADBEEF), out)
    assert np.array_equal(out, np.bitwise_count(x ^ np.uint64(0xDEADBEEF)))


@pytest.mark.parametrize("limit", [0, 1, 3, 10, 64])
def test_kernighan_early_exit(limit):
    rng = random.Random(limit)
    for _ in range(2000):
        x = rng.getrandbits(64) & rng.getrandbits(64)
        true = bin(x).count("1")
        assert _hamming_kernels.popcount_kernighan(np.uint64(x), limit) == (
            true if true <= limit else limit + 1
        )


def test_popcount_compiles_to_popcnt():
    """The kernels' popcount is one instruction on x86-64 (``cnt`` on ARM). Compiled here without
    the cache: Numba shows no assembly for cached code. (Notebook 03 shows the same listing through
    ``simhash_lab.course.internals.hamming_asm``.)"""
    import platform

    from numba import njit

    from simhash_lab.kernels.bits import popcount

    @njit(cache=False)
    def hamming_u64(a, b):
        return popcount(a ^ b)

    hamming_u64(np.uint64(1), np.uint64(2))
    asm = next(iter(hamming_u64.inspect_asm().values()))
    assert ("popcnt" if platform.machine() in ("x86_64", "AMD64") else "cnt") in asm


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
