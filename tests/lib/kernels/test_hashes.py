"""Hash kernels (XXH3, XXH64, MD5, SipHash-1-3) against reference implementations."""

import hashlib
import random

import numpy as np
import pytest
import xxhash

from simhash_lab.kernels.hashes import (
    md5_pair,
    siphash13,
    xxh3_1to3,
    xxh3_4to8,
    xxh3_9to16,
    xxh3_17to128,
    xxh3_64,
    xxh64,
)

# Rust's DefaultHasher::new() (SipHash-1-3, keys 0, 0) after write(&[0, 1, ..., n-1]), n = 0..64,
# printed by rustc 1.95 (the program is in the commit that added this table).
RUST_DEFAULT_HASHER_WRITE = [
    0xD1FBA762150C532C,
    0x68A914128E01E473,
    0x010BAC45C41E3669,
    0x4D4C9A4A8EF6E0AD,
    0x7CC43F98813E4DBD,
    0x5ABE2169DFF36275,
    0xE3C25F87624F1CDB,
    0x2F098AB0C751325A,
    0xEAD411E67EBE2EEA,
    0x75927F9D95124362,
    0xAF9F77A65AB51A1D,
    0xFE64CE8B6617FCFF,
    0xA6BAF4FB0F9FE1C2,
    0xA0CF3211850F8E0D,
    0x7F86049379FBFE67,
    0xF30EB725BB91C9EA,
    0x8972188433A5C5B7,
    0x4883C49A2C009C1D,
    0xADC2C0B63044067D,
    0x091F4A3329F87D19,
    0x639E355AE68C0100,
    0xB17BEF2CB5213239,
    0xF8AEB1066236CCFE,
    0x37332B1389DAA4FF,
    0x31185A47AF932F3A,
    0xEBF352E82AE23E2F,
    0xED36FF242FE478B2,
    0x2454D97D299299DF,
    0x8CD57FE8130D0AC7,
    0xBE98EB2FAF0A0E85,
    0xD427C34EE09470C6,
    0x169739443111D49B,
    0x31EF8061C910629B,
    0x7FB71D24DFA4C9F6,
    0x92771F49E836D389,
    0x3C393CF6F0853BC3,
    0xAC77921FCC642BD3,
    0x422A9751192FF266,
    0xC680AE8A8C584DDF,
    0x6C76B6D34BB6D26B,
    0x95BC321AB41D8206,
    0x908A3A97A6D37669,
    0xFCAF3C64874DD0B4,
    0xF689479B32B84A44,
    0xD857641079EFD1FD,
    0x8B581578722633F7,
    0x83CB09D35EA7BCD4,
    0x8485F7F5AE725A0D,
    0xFE1F2445BA50237F,
    0x23CECE041D7866B0,
    0x416687480B336C09,
    0xF15960DA7E7F3892,
    0xDED6177B9826835A,
    0xF80DAE51668BE6BE,
    0x17ECC6EE6647DF18,
    0x5220D642B4A52110,
    0xA4F0CF4BA4ADC016,
    0xE5125BB26D1F2976,
    0x851B0E75F580D256,
    0x12605250A37E39AC,
    0xD95A713568DAEBF1,
    0xCDCF4A42EC0DD605,
    0xA5C708712B617164,
    0x385D3E39E5F37359,
    0x75E05FD5BBC870C6,
]


def _messages():
    # every length through 1024 (each XXH3 size class and its edges: 3/4, 8/9, 16/17, 32/33,
    # 64/65, 96/97, 128/129, 240/241, whole and partial stripes and blocks), then a few more blocks
    rng = random.Random(7)
    lengths = list(range(0, 1025)) + [1025, 2047, 2048, 2049, 3072, 4096 + 17]
    return [rng.randbytes(n) for n in lengths]


MESSAGES = _messages()


def _arr(m: bytes, pad: int = 3):
    # the message sits inside a larger buffer, so reads past its ends would show
    return np.frombuffer(b"\xaa" * pad + m + b"\x55" * pad, dtype=np.uint8), pad, pad + len(m)


def test_xxh3_matches_reference():
    for m in MESSAGES:
        b, s, e = _arr(m)
        assert xxh3_64(b, s, e) == xxhash.xxh3_64_intdigest(m), len(m)


@pytest.mark.parametrize("pad", [0, 1, 7])
def test_xxh3_size_classes_match_reference(pad):
    # each size class's own kernel (``vote.hash_vote_tokens`` calls them directly) over its whole
    # range, the message at several offsets of its buffer (unaligned loads)
    classes = [(xxh3_1to3, 1, 3), (xxh3_4to8, 4, 8), (xxh3_9to16, 9, 16), (xxh3_17to128, 17, 128)]
    for fn, lo, hi in classes:
        for m in MESSAGES[lo : hi + 1]:
            b, s, e = _arr(m, pad)
            assert fn(b, s, e) == xxhash.xxh3_64_intdigest(m), (fn.__name__, len(m), pad)


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
