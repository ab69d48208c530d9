"""Presets against the real programs: the seed's Python and Rust code, and the `simhash` package."""

import hashlib
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import simhash as leonsim
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import presets


# --- the seed's typed Python reference (session 60, section 4), copied verbatim -----------------
class SimhashPython:
    @staticmethod
    def _hash_token(token: str) -> int:
        return int(hashlib.md5(token.encode("utf-8")).hexdigest()[:16], 16)

    @classmethod
    def compute(cls, text: str) -> int:
        v = [0] * 64
        words = text.lower().split()
        if not words:
            return 0

        counts: dict[str, int] = {}
        for w in words:
            counts[w] = counts.get(w, 0) + 1

        for word, weight in counts.items():
            h = cls._hash_token(word)
            for i in range(64):
                bit = (h >> i) & 1
                v[i] += weight if bit == 1 else -weight

        fingerprint = 0
        for i in range(64):
            if v[i] > 0:
                fingerprint |= 1 << i
        return fingerprint


text_strategy = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200) | st.lists(
    st.sampled_from(["rust", "Safe", "FAST", "\u4f60\u597d", "\U0001f389", "a-b", "  ", "\n"]), max_size=40
).map(" ".join)


def test_seed_python_on_corpus(texts):
    ours = presets.SEED_PYTHON.fingerprints(texts)
    assert [int(x) for x in ours] == [SimhashPython.compute(t) for t in texts]
    assert [presets.SEED_PYTHON.fingerprint(t) for t in texts] == [int(x) for x in ours]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text_strategy)
def test_seed_python_property(text):
    assert presets.SEED_PYTHON.fingerprint(text) == SimhashPython.compute(text)


# --- the `simhash` package (leonsim) ------------------------------------------------------------
def test_leonsim_on_corpus(texts):
    ours = presets.LEONSIM.fingerprints(texts)
    assert [int(x) for x in ours] == [leonsim.Simhash(t).value for t in texts]


@settings(max_examples=200, deadline=None, derandomize=True)
@given(text_strategy)
def test_leonsim_property(text):
    assert presets.LEONSIM.fingerprint(text) == leonsim.Simhash(text).value


def test_leonsim_features_list_dict_pairs(leonsim_int64):
    feats = ["aaa", "bbb", "ccc", "aaa", "\u4f60\u597d", "\U0001f389"]
    assert presets.LEONSIM.fingerprint(feats) == leonsim_int64.Simhash(feats).value
    weights = {"aaa": 3, "bbb": 1, "ccc": 7, "ddd": 300, "eee": 51, "fff": 1000}
    assert presets.LEONSIM.fingerprint(weights) == leonsim_int64.Simhash(weights).value
    pairs = [("aaa", 2), ("bbb", 0.5), ("ccc", 2.25), ("ddd", 60)]
    assert presets.LEONSIM.fingerprint(pairs) == leonsim_int64.Simhash(pairs).value


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.dictionaries(st.text(min_size=1, max_size=8), st.integers(1, 5000), min_size=1, max_size=30))
def test_leonsim_weighted_property(weights):
    orig = leonsim.Simhash._bitarray_from_bytes
    leonsim.Simhash._bitarray_from_bytes = staticmethod(lambda b: orig(b).astype(np.int64))
    try:
        expected = leonsim.Simhash(weights).value
    finally:
        leonsim.Simhash._bitarray_from_bytes = staticmethod(orig)
    assert presets.LEONSIM.fingerprint(weights) == expected


# --- the seed's Rust code ------------------------------------------------------------------------
def test_seed_rust_known_values():
    assert presets.SEED_RUST.fingerprint("rust safe fast") == 13163702389499390377
    assert presets.SEED_RUST.fingerprint("hello world") == 4616338503230524416
    assert presets.SEED_RUST.fingerprint("") == 0
    assert presets.SEED_RUST.fingerprint("!!! ---") == 0


@pytest.fixture(scope="module")
def rust_reference(tmp_path_factory):
    """The seed's Rust program, compiled with rustc (skipped where there is no Rust toolchain)."""
    rustc = shutil.which("rustc")
    if rustc is None:
        pytest.skip("rustc not installed")
    exe = tmp_path_factory.mktemp("rust") / "dia_60"
    src = Path(__file__).parents[1] / "rust_reference" / "dia_60.rs"
    subprocess.run([rustc, "-O", "-o", str(exe), str(src)], check=True, capture_output=True)

    def run(docs):
        out = (
            subprocess.run([str(exe)], input="\0".join(docs).encode(), capture_output=True, check=True)
            .stdout.decode()
            .split("\n")
        )
        return [tuple(int(x) for x in line.split()) for line in out if line]

    return run


def test_seed_rust_against_rustc(texts, rust_reference):

    rng = random.Random(3)
    alphabet = "abc XYZ \u00e9\u00df\u4f60\U0001f389.,!-'\u00a0\u3000\x1c\t\n0\u00bd\u0939\u093f"
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(40))) for _ in range(300)]
    docs = [t.replace("\0", "") for t in texts] + randoms
    expected = rust_reference(docs)
    assert len(expected) == len(docs)
    ours = presets.SEED_RUST.fingerprints(docs)
    assert [int(x) for x in ours] == [fp for fp, _ in expected]
    # and the token hash itself: Rust's DefaultHasher over each whole document as a &str
    tok = presets.SEED_RUST._hash_features(docs)
    assert [int(x) for x in tok] == [h for _, h in expected]
