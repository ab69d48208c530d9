"""The voting kernels (simhash_lab.kernels.vote) called directly, each against a plain-Python
reference: the session's accumulator loop (``V[i] += w`` when bit i of the feature's hash is set,
``-= w`` otherwise; bit i of the fingerprint is ``V[i] > 0``), bit counts by ``(h >> i) & 1``, the
``xxhash`` package and ``hashlib`` for the hashes, ``dict.fromkeys`` for distinct values.

The counting kernels flush byte-lane counters every 255 hashes and hash tokens in batches of 4080:
the sizes here sit on both sides of both."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import xxhash

from simhash_lab.kernels import vote as V
from simhash_lab.kernels.hashes import HASH_MD5_FIRST8, HASH_MD5_LAST8, HASH_XXH3, HASH_XXH64

SIZES = [0, 1, 2, 254, 255, 256, 510, 511, 1000]
DBL_MAX = np.finfo(np.float64).max


def hashes(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64, endpoint=False)


def bit_counts(hs) -> list[int]:
    """How many of ``hs`` have bit i set, for i in 0..63."""
    return [sum((int(h) >> i) & 1 for h in hs) for i in range(64)]


def accumulator_fingerprint(hs, ws, bits: int) -> int:
    """The session's loop: one accumulator per bit, +w or -w per feature, then the signs."""
    v = [0.0] * bits
    for h, w in zip(hs, ws):
        for i in range(bits):
            v[i] += w if (int(h) >> i) & 1 else -w
    return sum(1 << i for i in range(bits) if v[i] > 0)


@pytest.mark.parametrize("n", SIZES)
def test_count_bits_adds_the_bit_counts_to_the_accumulator(n):
    hs = hashes(n, n)
    acc = np.arange(64, dtype=np.int64) * 1000  # what is there already stays
    V.count_bits(hs, n, acc)
    assert acc.tolist() == [1000 * i + c for i, c in enumerate(bit_counts(hs))]
    assert V.vote_unit(hs, n).tolist() == bit_counts(hs)


def test_count_bits_reads_only_the_first_nf_and_counts_all_ones_past_a_byte():
    """600 hashes of all ones: each counter passes 255 (one byte) twice; only hs[:nf] count."""
    ones = np.full(600, 2**64 - 1, dtype=np.uint64)
    assert V.vote_unit(ones, 600).tolist() == [600] * 64
    assert V.vote_unit(ones, 256).tolist() == [256] * 64
    single = np.array([1 << b for b in range(64)], dtype=np.uint64)
    assert V.vote_unit(single, 64).tolist() == [1] * 64
    assert V.vote_unit(single, 10).tolist() == [1] * 10 + [0] * 54


def _tokens(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, list[bytes]]:
    """``n`` tokens of every XXH3 size class (0, 1-3, 4-8, 9-16, 17-240, longer), concatenated:
    (bytes, start/end pairs, the tokens)."""
    rng = np.random.default_rng(seed)
    lengths = rng.choice([0, 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 100, 240, 241, 300], n)
    toks = [rng.integers(0, 256, int(ln), dtype=np.uint8).tobytes() for ln in lengths]
    pos = np.zeros(2 * n, dtype=np.int64)
    at = 0
    for t, tok in enumerate(toks):
        pos[2 * t], pos[2 * t + 1] = at, at + len(tok)
        at += len(tok)
    buf = np.frombuffer(b"".join(toks) + b"\0", dtype=np.uint8).copy()
    return buf, pos, toks


REFERENCE_HASHES = {
    HASH_XXH3: lambda b: xxhash.xxh3_64_intdigest(b),
    HASH_XXH64: lambda b: xxhash.xxh64_intdigest(b),
    HASH_MD5_FIRST8: lambda b: int(hashlib.md5(b).hexdigest()[:16], 16),
    HASH_MD5_LAST8: lambda b: int.from_bytes(hashlib.md5(b).digest()[-8:], "big"),
}


@pytest.mark.parametrize(
    "kind, n",
    [(HASH_XXH3, n) for n in (0, 1, 300, 4079, 4080, 4081, 9000)]  # XXH3: sorted by size class
    + [(kind, n) for kind in (HASH_XXH64, HASH_MD5_FIRST8, HASH_MD5_LAST8) for n in (0, 1, 4081)],
)
def test_hash_vote_tokens_counts_the_bits_of_each_tokens_hash(kind, n):
    buf, pos, toks = _tokens(n, seed=n + kind)
    hs = np.empty(V.TOKEN_BATCH, dtype=np.uint64)
    order = np.empty(V.ORDER_SIZE, dtype=np.int64)
    tail = np.empty(128, dtype=np.uint8)
    acc = np.full(64, 7, dtype=np.int64)  # overwritten, not added to
    V.hash_vote_tokens(buf, pos, n, kind, V.hash_batch_address(kind), hs, order, tail, acc)
    ref = REFERENCE_HASHES[kind]
    assert acc.tolist() == bit_counts([ref(t) for t in toks])


@pytest.mark.parametrize("n", [0, 1, 5, 300])
def test_vote_weighted_sums_the_weights_of_each_bit(n):
    rng = np.random.default_rng(n)
    hs = hashes(n, n + 1)
    ws = rng.integers(-8, 9, n) / 4.0  # quarters: every sum exact
    want = [sum(float(w) for h, w in zip(hs, ws) if (int(h) >> i) & 1) for i in range(64)]
    assert V.vote_weighted(hs, ws, n).tolist() == want


def test_fold_counts_and_fold_bits_set_the_bits_whose_votes_are_positive():
    counts = np.zeros(64, dtype=np.int64)
    counts[:6] = [0, 1, 2, 3, 4, 2]  # of n = 4 features: V = 2 S - n = -4, -2, 0, 2, 4, 0
    assert V.fold_counts(counts, 4, 64) == 0b11000  # a tie (V = 0) is a 0
    assert V.fold_counts(counts, 4, 4) == 0b1000  # only the low `bits` bits
    s = counts.astype(np.float64)
    assert V.fold_bits(s, 4.0, 64) == 0b11000 and V.fold_bits(s, 4.0, 4) == 0b1000
    assert V.fold_bits(np.full(64, 0.5), 0.0, 64) == 2**64 - 1
    assert V.fold_counts(np.zeros(64, np.int64), 0, 64) == 0  # no features: all votes 0


@pytest.mark.parametrize("bits", [1, 6, 13, 64])
@pytest.mark.parametrize("seed", range(4))
def test_fold_weighted_is_the_accumulator_loop(bits, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    hs = hashes(n, seed)
    ws = rng.integers(-3, 20, n) / 2.0  # halves, some negative or zero: exact sums
    assert V.fold_weighted(hs, ws, bits) == accumulator_fingerprint(hs, ws, bits)
    units = np.ones(n)
    want = accumulator_fingerprint(hs, units, bits)
    assert V.fold_weighted(hs, units, bits) == want
    assert V.fold_counts(V.vote_unit(hs, n), n, bits) == want  # unit weights, counted as ints


def test_a_narrow_fingerprint_is_the_low_bits_of_the_wide_one():
    hs = hashes(77, 3)
    ws = np.random.default_rng(3).integers(1, 5, 77).astype(np.float64)
    wide = V.fold_weighted(hs, ws, 64)
    for bits in (1, 8, 31, 63):
        assert V.fold_weighted(hs, ws, bits) == wide & ((1 << bits) - 1)


@pytest.mark.parametrize(
    "values",
    [[], [0], [0, 0, 5, 0], [5, 3, 5, 3, 9], list(range(1, 100)) * 3, [2**64 - 1, 1, 2**64 - 1]],
)
def test_dedupe_keeps_the_first_of_each_value_in_order(values):
    hs = np.array(values + [123456789], dtype=np.uint64)  # one past nf: left alone
    n = len(values)
    u = V.dedupe(hs, n)
    want = list(dict.fromkeys(values))
    assert u == len(want) and hs[:u].tolist() == want
    assert int(hs[-1]) == 123456789


def test_dedupe_of_colliding_slots():
    """Values equal in their low bits (the table's slot): probed past each other, none lost."""
    values = [(i << 40) | 7 for i in range(1, 50)] + [7, 7 << 40]
    hs = np.array(values + values, dtype=np.uint64)
    u = V.dedupe(hs, hs.shape[0])
    assert hs[:u].tolist() == list(dict.fromkeys(values))


@pytest.mark.parametrize(
    "ws", [[1.0, -2.0], [1e300, 1e300, -1e300], [DBL_MAX, DBL_MAX], [-DBL_MAX] * 100, [0.0], []]
)
def test_overflow_scale_is_the_largest_power_of_two_that_keeps_the_sums_finite(ws):
    w = np.array(ws, dtype=np.float64)
    n = w.shape[0]
    scale = V.overflow_scale(w, n)
    amax = float(np.abs(w).max()) if n else 0.0
    limit = DBL_MAX / (4.0 * max(n, 1))
    assert scale <= 1.0 and np.frexp(scale)[0] == 0.5  # a power of two
    assert amax * scale <= limit
    assert scale == 1.0 or amax * scale * 2 > limit  # not smaller than needed


def test_weighted_sums_of_huge_weights_stay_finite_and_fold_as_the_scaled_ones():
    hs = hashes(50, 9)
    ws = np.random.default_rng(9).integers(1, 9, 50).astype(np.float64)
    want = accumulator_fingerprint(hs, ws, 64)
    huge = ws * 2.0**1000  # 2 S - T of these overflows without the scale
    s, total = V.weighted_sums(hs, huge, 50)
    assert np.isfinite(s).all() and np.isfinite(total)
    assert V.fold_bits(s, total, 64) == want == V.fold_weighted(hs, huge, 64)
    s1, t1 = V.weighted_sums(hs, ws, 50)  # ordinary weights: no scale
    assert s1.tolist() == V.vote_weighted(hs, ws, 50).tolist() and t1 == ws.sum()
