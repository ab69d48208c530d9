"""Every path against one plain-Python reference written from the definition, at every width.

Simhash, from the session: the features of a text (or the given tokens, dict or pairs) each carry a
weight (their count, 1 when binary, count x given weight with a weight dict); the accumulator
``V[i] = sum over distinct features f of (+w_f if bit i of hash(f) else -w_f)``; bit i of the
fingerprint is ``V[i] > 0``. Features are told apart by what they are, never by the low bits of
their hash: at ``bits < 64`` distinct tokens whose hashes agree on those bits still vote apart (the
bug this file was written for: 4-bit binary weights merged ``w1`` and ``w5``).

The reference tokenizes with ``re``/``str.split``/``regex``, hashes with ``xxhash``, ``hashlib`` and
a SipHash-1-3 written here from its paper, and votes with Python ints; the library is checked on
``fingerprint``, ``fingerprints`` (serial and parallel), ``trace``, ``accumulators`` and the token
list, dict and pair inputs, for bits in {1, 4, 6, 8, 16, 32, 63, 64} x every built-in tokenizer x
counts, binary and IDF weights x every built-in hash. Weights are dyadic, so every float sum is
exact whatever the order of summation.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import numpy as np
import pytest
import regex
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import Simhasher
from simhash_lab.tokenize import char_ngrams, leonsim_ngrams, rust_words, whitespace, word_shingles, words

BITS = [1, 4, 6, 8, 16, 32, 63, 64]
M64 = (1 << 64) - 1


# -- hashes -------------------------------------------------------------------------------------


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def _sipround(v0, v1, v2, v3):
    v0 = (v0 + v1) & M64
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 = (v2 + v3) & M64
    v3 = _rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & M64
    v3 = _rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & M64
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash13(data: bytes, k0: int = 0, k1: int = 0) -> int:
    """SipHash-1-3 (Aumasson and Bernstein, 2012: 1 compression round, 3 finalization rounds)."""
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    tail = len(data) % 8
    blocks = [int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data) - tail, 8)]
    blocks.append(int.from_bytes(data[len(data) - tail :], "little") | ((len(data) & 0xFF) << 56))
    for m in blocks:
        v3 ^= m
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 ^= m
    v2 ^= 0xFF
    for _ in range(3):
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


HASHES = {
    "xxh3": lambda b: xxhash.xxh3_64_intdigest(b),
    "xxh64": lambda b: xxhash.xxh64_intdigest(b),
    "md5": lambda b: int(hashlib.md5(b).hexdigest()[:16], 16),
    "md5-last8": lambda b: int.from_bytes(hashlib.md5(b).digest()[-8:], "big"),
    "siphash13-rust": lambda b: siphash13(b + b"\xff"),  # Rust's DefaultHasher fed a &str
}


def test_the_siphash_reference_is_rusts_default_hasher():
    from simhash_lab import presets

    # the session's values (DESIGN.md): SEED_RUST is this hash, split_whitespace, counts
    for text, fp in [("rust safe fast", 13163702389499390377), ("hello world", 4616338503230524416)]:
        assert (
            fingerprint(text.split(), "siphash13-rust", "tf", 64) == fp == presets.SEED_RUST.fingerprint(text)
        )


# -- tokenizers ---------------------------------------------------------------------------------

_RUST_SPACE = regex.compile(r"\p{White_Space}+")
_RUST_TRIM = regex.compile(r"^[^\p{Alphabetic}\p{N}]+|[^\p{Alphabetic}\p{N}]+$")


def _grams(chars: str, n: int, empty_feature: bool) -> list[str]:
    if not chars:
        return [""] if empty_feature else []
    return [chars[i : i + n] for i in range(max(len(chars) - n + 1, 1))]


TOKENIZERS = {
    "words": (words(), lambda t: re.findall(r"\w+", t.lower())),
    "whitespace": (whitespace(), lambda t: t.lower().split()),
    "rust_words": (
        rust_words(),
        lambda t: [w for w in (_RUST_TRIM.sub("", x) for x in _RUST_SPACE.split(t)) if w],
    ),
    "word_shingles(2)": (
        word_shingles(2),
        lambda t: (lambda ws: [" ".join(ws[i : i + 2]) for i in range(max(len(ws) - 1, 1))] if ws else [])(
            re.findall(r"\w+", t.lower())
        ),
    ),
    "char_ngrams(3)": (char_ngrams(3), lambda t: _grams(" ".join(re.findall(r"\w+", t.lower())), 3, False)),
    "leonsim_ngrams": (leonsim_ngrams(), lambda t: _grams("".join(re.findall(r"\w+", t.lower())), 4, True)),
}

IDF = {"w1": 2.5, "w5": -0.75, "zz": 0.5, "ab": 4.0, "é": 1.25}
WEIGHTINGS = {"tf": ("tf", 1.0), "binary": ("binary", 1.0), "idf": (IDF, 0.5)}


# -- the definition -----------------------------------------------------------------------------


def weighted(features, weighting: str) -> dict[str, float]:
    """Distinct features and their weights: counts, ones (binary) or count x IDF weight."""
    counts = Counter(features)
    if weighting == "tf":
        return {f: float(c) for f, c in counts.items()}
    if weighting == "binary":
        return dict.fromkeys(counts, 1.0)
    idf, default = WEIGHTINGS["idf"]
    return {f: c * idf.get(f, default) for f, c in counts.items()}


def accumulators(weights: dict[str, float], hash_name: str, bits: int) -> list[float]:
    v = [0.0] * bits
    for f, w in weights.items():
        h = HASHES[hash_name](f.encode())
        for i in range(bits):
            v[i] += w if (h >> i) & 1 else -w
    return v


def fold(v: list[float]) -> int:
    return sum(1 << i for i, x in enumerate(v) if x > 0)


def fingerprint(features, hash_name: str, weighting: str, bits: int) -> int:
    return fold(accumulators(weighted(features, weighting), hash_name, bits))


def hasher(tok_name: str, weighting: str, hash_name: str, bits: int) -> Simhasher:
    weights, default = WEIGHTINGS[weighting]
    return Simhasher(bits=bits, tokenizer=TOKENIZERS[tok_name][0], hash=hash_name, weights=weights,
                     default_weight=default)  # fmt: skip


# -- the known disagreements --------------------------------------------------------------------


def test_narrow_binary_weights_keep_distinct_tokens_apart():
    h = Simhasher(bits=4, weights="binary")
    text = "w1 w5 zz yy"
    want = fingerprint(text.split(), "xxh3", "binary", 4)
    assert h.fingerprint(text) == h.trace(text).fingerprint == h.fingerprint(text.split()) == want


def test_narrow_weight_dicts_look_up_the_whole_feature():
    h = Simhasher(bits=4, weights={"w1": 5.0, "w5": -20.0})
    v = [0.0] * 4
    for f, w in {"w5": -20.0, "zz": 1.0}.items():
        hv = xxhash.xxh3_64_intdigest(f.encode())
        v = [x + (w if (hv >> i) & 1 else -w) for i, x in enumerate(v)]
    assert h.fingerprint("w5 zz") == h.trace("w5 zz").fingerprint == fold(v)
    assert h.accumulators("w5 zz").tolist() == v


# -- every path, every width --------------------------------------------------------------------

# Short tokens from a few letters collide often in a few low bits; the non-ASCII ones take the
# general UTF-8 paths (é: 2 bytes, Σ: context-dependent lowercase, 你: no case, 🎉: 4 bytes).
_TOKEN = st.sampled_from(
    ["w1", "w5", "zz", "yy", "ab", "AB", "é", "Σ", "你好", "a", "🎉x", "--", "x_y", "3.14"]
)
TEXTS = st.lists(st.lists(_TOKEN, max_size=9).map(" ".join), min_size=1, max_size=4)


@pytest.mark.parametrize("hash_name", sorted(HASHES))
@pytest.mark.parametrize("weighting", sorted(WEIGHTINGS))
@pytest.mark.parametrize("tok_name", sorted(TOKENIZERS))
@settings(max_examples=12, deadline=None, derandomize=True)
@given(texts=TEXTS, bits=st.sampled_from(BITS))
def test_every_path_equals_the_reference(tok_name, weighting, hash_name, texts, bits):
    h = hasher(tok_name, weighting, hash_name, bits)
    ref_tok = TOKENIZERS[tok_name][1]
    want = [fingerprint(ref_tok(t), hash_name, weighting, bits) for t in texts]
    assert [h.fingerprint(t) for t in texts] == want
    assert h.fingerprints(texts, parallel=False).tolist() == want
    assert h.fingerprints(texts * 20, parallel=True).tolist() == want * 20
    text = texts[0]
    feats = ref_tok(text)
    assert h.features(text) == feats
    tr = h.trace(text)
    v = accumulators(weighted(feats, weighting), hash_name, bits)
    assert tr.fingerprint == want[0] and tr.votes[-1].tolist() == v == h.accumulators(text).tolist()
    assert h.fingerprint(feats) == want[0]  # a token list: repeats add up
    ws = weighted(feats, weighting)
    given_w = {f: w + 0.25 for f, w in ws.items()}  # given weights are used as they are
    want_given = fold(accumulators(given_w, hash_name, bits))
    assert h.fingerprint(given_w) == want_given
    assert h.fingerprint(list(given_w.items())) == want_given
    assert h.fingerprints([given_w, list(given_w.items())]).tolist() == [want_given] * 2


@pytest.mark.parametrize("bits", BITS)
def test_a_narrow_fingerprint_is_the_low_bits_of_the_wide_one(bits, texts):
    for weights in ("tf", "binary", IDF):
        narrow = Simhasher(bits=bits, weights=weights, default_weight=0.5).fingerprints(texts)
        wide = Simhasher(weights=weights, default_weight=0.5).fingerprints(texts)
        assert np.array_equal(narrow, wide & np.uint64((1 << bits) - 1))
