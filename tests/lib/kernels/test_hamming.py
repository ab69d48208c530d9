"""The kernels of simhash_lab.kernels.hamming: popcount exhaustively and against NumPy and
``bin(x).count("1")``, the scalar Hamming kernel, and Kernighan's early exit."""

import random

import numpy as np
import pytest

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
