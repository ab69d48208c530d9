"""Hash kernels against reference implementations, and the popcount primitive, exhaustively."""

import hashlib
import random

import numpy as np
import pytest
import xxhash

from simhash_lab import _bits
from simhash_lab._hashes import md5_pair, siphash13, xxh3_64, xxh64

# Rust's DefaultHasher::new() (SipHash-1-3, keys 0, 0) after write(&[0, 1, ..., n-1]), n = 0..64,
# printed by rustc 1.95 (the program is in the commit that added this table).
RUST_DEFAULT_HASHER_WRITE = [
    0xd1fba762150c532c, 0x68a914128e01e473, 0x010bac45c41e3669, 0x4d4c9a4a8ef6e0ad,
    0x7cc43f98813e4dbd, 0x5abe2169dff36275, 0xe3c25f87624f1cdb, 0x2f098ab0c751325a,
    0xead411e67ebe2eea, 0x75927f9d95124362, 0xaf9f77a65ab51a1d, 0xfe64ce8b6617fcff,
    0xa6baf4fb0f9fe1c2, 0xa0cf3211850f8e0d, 0x7f86049379fbfe67, 0xf30eb725bb91c9ea,
    0x8972188433a5c5b7, 0x4883c49a2c009c1d, 0xadc2c0b63044067d, 0x091f4a3329f87d19,
    0x639e355ae68c0100, 0xb17bef2cb5213239, 0xf8aeb1066236ccfe, 0x37332b1389daa4ff,
    0x31185a47af932f3a, 0xebf352e82ae23e2f, 0xed36ff242fe478b2, 0x2454d97d299299df,
    0x8cd57fe8130d0ac7, 0xbe98eb2faf0a0e85, 0xd427c34ee09470c6, 0x169739443111d49b,
    0x31ef8061c910629b, 0x7fb71d24dfa4c9f6, 0x92771f49e836d389, 0x3c393cf6f0853bc3,
    0xac77921fcc642bd3, 0x422a9751192ff266, 0xc680ae8a8c584ddf, 0x6c76b6d34bb6d26b,
    0x95bc321ab41d8206, 0x908a3a97a6d37669, 0xfcaf3c64874dd0b4, 0xf689479b32b84a44,
    0xd857641079efd1fd, 0x8b581578722633f7, 0x83cb09d35ea7bcd4, 0x8485f7f5ae725a0d,
    0xfe1f2445ba50237f, 0x23cece041d7866b0, 0x416687480b336c09, 0xf15960da7e7f3892,
    0xded6177b9826835a, 0xf80dae51668be6be, 0x17ecc6ee6647df18, 0x5220d642b4a52110,
    0xa4f0cf4ba4adc016, 0xe5125bb26d1f2976, 0x851b0e75f580d256, 0x12605250a37e39ac,
    0xd95a713568daebf1, 0xcdcf4a42ec0dd605, 0xa5c708712b617164, 0x385d3e39e5f37359,
    0x75e05fd5bbc870c6,
]


def _messages():
    rng = random.Random(7)
    lengths = list(range(0, 260)) + [1023, 1024, 1025, 2048, 2049, 4096 + 17]
    return [bytes(rng.randrange(256) for _ in range(n)) for n in lengths]


MESSAGES = _messages()


def _arr(m: bytes, pad: int = 3):
    # the message sits inside a larger buffer, so reads past its ends would show
    return np.frombuffer(b"\xaa" * pad + m + b"\x55" * pad, dtype=np.uint8), pad, pad + len(m)


def test_xxh3_matches_reference():
    for m in MESSAGES:
        b, s, e = _arr(m)
        assert xxh3_64(b, s, e) == xxhash.xxh3_64_intdigest(m), len(m)


@pytest.mark.parametrize("seed", [0, 1, 2**64 - 1])
def test_xxh64_matches_reference(seed):
    for m in MESSAGES:
        b, s, e = _arr(m)
        assert xxh64(b, s, e, np.uint64(seed)) == xxhash.xxh64_intdigest(m, seed=seed), len(m)


def test_md5_matches_hashlib():
    tail = np.empty(128, dtype=np.uint8)
    for m in MESSAGES:
        b, s, e = _arr(m)
        d = hashlib.md5(m).digest()
        assert md5_pair(b, s, e, tail) == (int.from_bytes(d[:8], "big"), int.from_bytes(d[8:], "big"))


def test_siphash13_matches_rust_default_hasher():
    msg = bytes(range(64))
    for n, expected in enumerate(RUST_DEFAULT_HASHER_WRITE):
        b, s, _ = _arr(msg[:n])
        assert siphash13(b, s, s + n, 0, 0, False) == expected, n


def test_siphash13_str_appends_ff():
    # hashing a &str is write(bytes) + write_u8(0xff)
    for m in [b"", b"rust", b"hello world", "caf\u00e9".encode()]:
        b, s, e = _arr(m)
        b2, s2, e2 = _arr(m + b"\xff")
        assert siphash13(b, s, e, 0, 0, True) == siphash13(b2, s2, e2, 0, 0, False)
    b, s, e = _arr(b"rust")
    assert siphash13(b, s, e, 0, 0, True) == 18297823557882888176  # Rust's hash_token("rust")


def test_popcount_exhaustive_16_bit_at_every_offset():
    x = np.arange(1 << 16, dtype=np.uint64)
    expected = np.array([bin(v).count("1") for v in range(1 << 16)], dtype=np.uint8)
    for shift in (0, 16, 32, 48):
        assert np.array_equal(_bits.hamming_ufunc(x << np.uint64(shift), np.uint64(0)), expected)


def test_popcount_all_one_and_two_bit_words_and_extremes():
    words = [1 << i for i in range(64)] + [(1 << i) | (1 << j) for i in range(64) for j in range(i)]
    words += [0, 2**64 - 1, 2**63, 2**64 - 2]
    arr = np.array(words, dtype=np.uint64)
    got = _bits.hamming_ufunc(arr, np.uint64(0))
    assert got.tolist() == [bin(w).count("1") for w in words]


def test_popcount_random_24_bit_sweep_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**64 - 1, 1 << 20, dtype=np.uint64, endpoint=True)
    assert np.array_equal(_bits.hamming_ufunc(x, np.uint64(0)), np.bitwise_count(x))
    out = np.empty(x.size, dtype=np.uint8)
    _bits.hamming_scalar_kernel(x, np.uint64(0xDEADBEEF), out)
    assert np.array_equal(out, np.bitwise_count(x ^ np.uint64(0xDEADBEEF)))


@pytest.mark.parametrize("limit", [0, 1, 3, 10, 64])
def test_kernighan_early_exit(limit):
    rng = random.Random(limit)
    for _ in range(2000):
        x = rng.getrandbits(64) & rng.getrandbits(64)
        true = bin(x).count("1")
        assert _bits.popcount_kernighan(np.uint64(x), limit) == (true if true <= limit else limit + 1)


def test_popcount_compiles_to_popcnt():
    assert "popcnt" in _bits.hamming_asm()
