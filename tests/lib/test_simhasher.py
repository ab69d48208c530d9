"""The Simhasher API: properties, every input form, bad input, and the documented examples."""

import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import Simhasher, hamming, presets
from simhash_lab.tokenize import char_ngrams, whitespace, word_shingles

HASHERS = {
    "default": Simhasher(),
    "bits16": Simhasher(bits=16),
    "binary": Simhasher(weights="binary"),
    # dyadic weights: sums are exact in float64, so ties (V = 0) are ties in every method
    "idf": Simhasher(weights={"the": 0.25, "of": 0.5, "python": 3.5}, default_weight=1.5),
    "shingles": Simhasher(tokenizer=word_shingles(2)),
    "chargrams": Simhasher(tokenizer=char_ngrams(3)),
    "whitespace-md5": Simhasher(tokenizer=whitespace(), hash="md5"),
    "xxh64": Simhasher(hash="xxh64"),
    "seed_rust": presets.SEED_RUST,
    "leonsim": presets.LEONSIM,
}
texts_strategy = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=120)


def reference_fingerprint(h: Simhasher, text: str) -> int:
    """Plain Python: features -> hashes -> signed votes -> bits (the session's algorithm)."""
    feats = h.features(text)
    if h.weights == "binary":
        feats = list(dict.fromkeys(feats))
    ws = [h._wmap.get(f, h.default_weight) if h._wmap is not None else 1.0 for f in feats]
    v = [0.0] * h.bits
    for _, w, hv in zip(feats, ws, h._hash_features(feats) if feats else []):
        for i in range(h.bits):
            v[i] += w if (int(hv) >> i) & 1 else -w
    return sum(1 << i for i in range(h.bits) if v[i] > 0)


@pytest.mark.parametrize("name", sorted(HASHERS))
def test_batch_equals_single_equals_reference(name, texts):
    h = HASHERS[name]
    batch = h.fingerprints(texts)
    assert batch.dtype == np.uint64 and batch.shape == (len(texts),)
    single = [h.fingerprint(t) for t in texts]
    assert [int(x) for x in batch] == single
    assert [int(x) for x in h.fingerprints(texts, parallel=False)] == single
    assert single == [reference_fingerprint(h, t) for t in texts]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(texts_strategy, max_size=6), st.sampled_from(sorted(HASHERS)))
def test_properties(batch, name):
    h = HASHERS[name]
    fps = h.fingerprints(batch)
    for t, fp in zip(batch, fps):
        assert int(fp) == h.fingerprint(t)  # batch equals single
        assert 0 <= int(fp) < 2**h.bits  # width respected
        assert hamming(h.fingerprint(t), h.fingerprint(t)) == 0  # deterministic, identical -> 0


@settings(max_examples=100, deadline=None, derandomize=True)
@given(texts_strategy, st.integers(1, 64))
def test_width_is_a_mask_of_the_64_bit_fingerprint(text, bits):
    # votes on bit i only see bit i of each hash, so narrower fingerprints are the low bits
    assert Simhasher(bits=bits).fingerprint(text) == Simhasher().fingerprint(text) & ((1 << bits) - 1)


def test_determinism_across_processes():
    text = "Deterministic across processes: never Python's salted hash() \u4f60\u597d \U0001f389"
    code = (
        f"from simhash_lab import Simhasher, presets; t = {text!r}; "
        "print(Simhasher().fingerprint(t), presets.LEONSIM.fingerprint(t))"
    )
    outs = {
        subprocess.check_output(
            [sys.executable, "-c", code], text=True, env={"PYTHONHASHSEED": seed, "PATH": ""}
        )
        for seed in ("1", "2")
    }
    assert outs == {f"{Simhasher().fingerprint(text)} {presets.LEONSIM.fingerprint(text)}\n"}


def test_feature_forms():
    h = Simhasher()
    assert h.fingerprint(["rust", "safe", "rust"]) == h.fingerprint({"rust": 2, "safe": 1})
    assert h.fingerprint([("rust", 2), ("safe", 1)]) == h.fingerprint({"rust": 2, "safe": 1})
    assert h.fingerprint("Rust safe rust") == h.fingerprint(["rust", "safe", "rust"])
    assert h.fingerprint(b"rust safe") == h.fingerprint("rust safe")
    assert h.fingerprint([]) == 0 and h.fingerprint({}) == 0 and h.fingerprint("") == 0
    assert h.fingerprints([]).shape == (0,)
    mixed = h.fingerprints(["rust safe", ["rust", "safe"], {"rust": 1, "safe": 1}])
    assert len(set(mixed.tolist())) == 1


def test_trace_reproduces_the_session_by_hand():
    h = Simhasher(bits=4, hash={"rust": 0b0011, "safe": 0b0101, "fast": 0b0111})
    tr = h.trace("rust safe fast")
    assert tr.features == ["rust", "safe", "fast"]
    assert tr.votes.tolist() == [[0, 0, 0, 0], [1, 1, -1, -1], [2, 0, 0, -2], [3, 1, 1, -3]]
    assert tr.fingerprint == 0b0111 == h.fingerprint("rust safe fast")
    assert h.accumulators("rust safe fast").tolist() == [3, 1, 1, -3]


def test_chinese_source_six_bit_example():
    # source 004: the votes [13, 108, -22, -5, -32, 55] give 110001 (bit 0 written first).
    # Features are built so each accumulator reaches its target: hash (1 << i) together with the
    # all-ones hash, both of weight t/2, add t to bit i only (and the mirror pair subtracts).
    targets = [13, 108, -22, -5, -32, 55]
    feats = {}
    for i, t in enumerate(targets):
        up, rest = (1 << i, 0b111111) if t > 0 else (0b111111 ^ (1 << i), 0)
        feats[f"bit{i}:{up}"] = abs(t) / 2
        feats[f"all{i}:{rest}"] = abs(t) / 2
    h = Simhasher(bits=6, hash=lambda f: int(f.split(":")[1]))
    assert h.accumulators(feats).tolist() == targets
    fp = h.fingerprint(feats)
    assert "".join(str((fp >> i) & 1) for i in range(6)) == "110001"


@pytest.mark.parametrize(
    "bad, exc, match",
    [
        (None, TypeError, "x must be"),
        (3.5, TypeError, "x must be"),
        (float("nan"), TypeError, "x must be"),
        (b"\xff\xfe not utf-8", ValueError, "not valid UTF-8"),
        ("lone \ud800 surrogate", ValueError, "^x contains a lone surrogate"),
        ({"a": float("nan")}, ValueError, "must be finite"),
        ({"a": float("inf")}, ValueError, "must be finite"),
        ([("a", None)], TypeError, "finite number"),
        ([1, 2], TypeError, "must be all str"),
        ({"a": True}, TypeError, "finite number"),
    ],
)
def test_bad_input_to_fingerprint(bad, exc, match):
    with pytest.raises(exc, match=match):
        Simhasher().fingerprint(bad)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"bits": 0}, ValueError, "bits must be between 1 and 64, got 0"),
        ({"bits": 65}, ValueError, "bits must be between 1 and 64, got 65"),
        ({"bits": 8.0}, TypeError, "bits must be an int"),
        ({"bits": None}, TypeError, "bits must be an int"),
        ({"hash": "sha1"}, ValueError, "`hash` must be one of"),
        ({"weights": "idf"}, ValueError, "`weights` must be one of"),
        ({"weights": {"a": float("nan")}}, ValueError, "weights\\['a'\\] must be finite"),
        ({"default_weight": float("inf")}, ValueError, "default_weight must be finite"),
        ({"tokenizer": 3}, TypeError, "tokenizer must be"),
    ],
)
def test_bad_constructor_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        Simhasher(**kwargs)


def test_bad_batches_name_the_item():
    with pytest.raises(TypeError, match=r"texts\[1\] must be"):
        Simhasher().fingerprints(["ok", None])
    with pytest.raises(ValueError, match=r"^texts\[1\] contains a lone surrogate"):
        Simhasher().fingerprints(["ok", "bad \udc00"])
    with pytest.raises(TypeError, match=r"^texts\[0\] must be a str"):
        Simhasher().fingerprints([1, "ok"])
    with pytest.raises(TypeError, match="iterable of texts"):
        Simhasher().fingerprints("a single string")
    with pytest.raises(ValueError, match="no entry for the feature 'unknown'"):
        Simhasher(bits=4, hash={"rust": 3}).fingerprint("rust unknown")


def test_ten_megabytes_of_text(leonsim_int64):
    text = ("lorem ipsum dolor sit amet \u4f60\u597d \U0001f389 " * 320_000)[:10_000_000]
    assert len(text) == 10_000_000
    h = Simhasher()
    fp = h.fingerprint(text)
    assert fp == int(h.fingerprints([text])[0]) == reference_like_counts(h, text)
    assert presets.LEONSIM.fingerprint(text[:200_000]) == leonsim_int64.Simhash(text[:200_000]).value


def reference_like_counts(h, text):
    # the same fingerprint from word counts: every occurrence votes, so counts are weights
    from collections import Counter

    return h.fingerprint(dict(Counter(re.findall(r"\w+", text.lower()))))


def test_readme_has_the_example_that_make_test_runs():
    # `make test` runs README.md's examples (pytest --doctest-glob=README.md); this keeps them there
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert readme.count(">>> ") >= 5 and "SEED_RUST.fingerprint" in readme


def test_hamming_of_counter_vectors_is_simhash():  # the document vectors of notebook 04
    h = Simhasher()
    a = "the cat sat on the mat"
    fp = sum(1 << i for i, v in enumerate(h.accumulators(dict(Counter(h.features(a))))) if v > 0)
    assert hamming(fp, h.fingerprint(a)) == 0
