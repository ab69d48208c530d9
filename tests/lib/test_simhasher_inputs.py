"""Every input form through the library as a careful and as a hostile user would give it: one
answer on every path, or a clear TypeError/ValueError naming the parameter (and the item of a batch).

Token lists, dicts and (token, weight) pairs go through one compiled kernel (all tokens of a batch
joined in one str); they are checked here against the Python fold (``trace``) and a plain-Python
vote, for every built-in hash, weighting and width. Weights of any finite size give the fingerprint
of the same weights scaled down, since Simhash is scale-invariant.
"""

from __future__ import annotations

import hashlib
import tracemalloc

import numpy as np
import pytest
import xxhash
from hypothesis import given, settings
from hypothesis import strategies as st

from simhash_lab import Simhasher
from simhash_lab.tokenize import char_ngrams

HASHES = {
    "xxh3": lambda b: xxhash.xxh3_64_intdigest(b),
    "xxh64": lambda b: xxhash.xxh64_intdigest(b),
    "md5": lambda b: int(hashlib.md5(b).hexdigest()[:16], 16),
}


def vote(weights: list[tuple[str, float]], hash_name: str, bits: int) -> int:
    """Plain Python: every (feature, weight) occurrence votes +w or -w on each bit."""
    v = [0.0] * bits
    for f, w in weights:
        h = HASHES[hash_name](f.encode())
        for i in range(bits):
            v[i] += w if (h >> i) & 1 else -w
    return sum(1 << i for i in range(bits) if v[i] > 0)


# Tokens that are not words: empty, spaces, punctuation, every UTF-8 width, 1..40 bytes.
_TOKEN = st.sampled_from(
    [
        "",
        " ",
        "a",
        "ab",
        "abc",
        "abcd",
        "x" * 9,
        "y" * 17,
        "z" * 40,
        "É",
        "é",
        "ß",
        "你好",
        "🎉",
        "a b",
        "\x00",
    ]
)
_DOCS = st.lists(st.lists(_TOKEN, max_size=12), min_size=1, max_size=5)
_WEIGHT = st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, -0.75, -3.0, 0.0])  # dyadic: exact sums


@pytest.mark.parametrize("hash_name", sorted(HASHES))
@settings(max_examples=25, deadline=None, derandomize=True)
@given(docs=_DOCS, bits=st.sampled_from([1, 4, 8, 63, 64]), ws=st.lists(_WEIGHT, min_size=60, max_size=60))
def test_token_lists_dicts_and_pairs_equal_plain_python(hash_name, docs, bits, ws):
    for weights in ("tf", "binary", {"a": 2.5, "é": -1.25, "": 0.5}):
        h = Simhasher(bits=bits, hash=hash_name, weights=weights, default_weight=0.75)
        if weights == "tf":
            want = [vote([(t, 1.0) for t in d], hash_name, bits) for d in docs]
        elif weights == "binary":
            want = [vote([(t, 1.0) for t in dict.fromkeys(d)], hash_name, bits) for d in docs]
        else:
            want = [vote([(t, weights.get(t, 0.75)) for t in d], hash_name, bits) for d in docs]
        assert h.fingerprints(docs, parallel=False).tolist() == want
        assert h.fingerprints(docs * 20, parallel=True).tolist() == want * 20
        assert [h.fingerprint(d) for d in docs] == want == [h.trace(d).fingerprint for d in docs]
    h = Simhasher(bits=bits, hash=hash_name, weights="binary")  # given weights ignore the weighting
    pairs = [[(t, ws[j]) for j, t in enumerate(d)] for d in docs]
    want = [vote(p, hash_name, bits) for p in pairs]
    assert h.fingerprints(pairs, parallel=False).tolist() == want
    assert h.fingerprints(pairs * 20, parallel=True).tolist() == want * 20
    assert [h.trace(p).fingerprint for p in pairs] == want
    dicts = [dict(p) for p in pairs]
    assert h.fingerprints(dicts).tolist() == [vote(list(d.items()), hash_name, bits) for d in dicts]


def test_custom_tokenizers_tokens_take_the_same_votes():
    h = Simhasher(tokenizer=lambda t: t.split("|"))
    assert h.fingerprints(["a|b|a", "x"]).tolist() == [
        vote([("a", 1), ("b", 1), ("a", 1)], "xxh3", 64),
        vote([("x", 1)], "xxh3", 64),
    ]


# -- weights of any size ------------------------------------------------------------------------


def test_huge_weights_give_the_fingerprint_of_the_scaled_weights():
    base = {"alpha": 1.0, "beta": 1.0, "gamma": 1.0}
    want = Simhasher(weights=base).fingerprint("alpha beta gamma")
    huge = Simhasher(weights={"alpha": 1e308, "beta": 1e308, "gamma": 1e308})
    assert huge.fingerprint("alpha beta gamma") == want != 0
    assert huge.fingerprints(["alpha beta gamma"] * 70).tolist() == [want] * 70
    assert Simhasher(weights={"a": 1e308}).fingerprint("a a a") == Simhasher().fingerprint("a a a")
    h = Simhasher()
    rng = np.random.default_rng(0)
    for _ in range(20):
        toks = [f"t{i}" for i in range(int(rng.integers(1, 30)))]
        ws = rng.choice([-3.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=len(toks))
        small = dict(zip(toks, ws.tolist()))
        for k in (1000, 1020, 1022):  # 3 * 2**1022 < 2**1024
            big = {t: float(np.ldexp(w, k)) for t, w in small.items()}
            assert np.isfinite(list(big.values())).all()
            want = h.fingerprint(small)
            assert (
                h.fingerprint(big) == want == h.fingerprint(list(big.items()) * 3) == h.trace(big).fingerprint
            )
            assert h.fingerprints([big, list(big.items())]).tolist() == [want] * 2


def test_a_trace_of_huge_weights_says_its_scale():
    tr = Simhasher().trace({"a": 1e308, "b": 1e308, "c": -1e308})
    assert tr.scale < 1 and np.isfinite(tr.votes).all() and np.isfinite(tr.weights).all()
    assert tr.weights.tolist() == [1e308 * tr.scale, 1e308 * tr.scale, -1e308 * tr.scale]
    assert Simhasher().trace({"a": 1.0}).scale == 1.0


def test_weights_too_large_for_float64_name_the_weight():
    with pytest.raises(ValueError, match=r"weights\['alpha'\] is too large"):
        Simhasher(weights={"alpha": 2**1100})
    with pytest.raises(ValueError, match=r"'a' in texts\[1\] is too large"):
        Simhasher().fingerprints([{"a": 1}, [("a", -(2**1100))]])


# -- bytes --------------------------------------------------------------------------------------


def test_bytes_cost_what_str_costs():
    """Bytes are decoded once and take the str path: Python holds the text, not its features (a 20
    MB text of 4-letter words once became 4 M Python strings)."""
    h = Simhasher()
    text = "lorem ipsum dolor sit amet " * 800_000  # 21.6 MB
    data = text.encode()
    want = h.fingerprint(text)
    peaks = []
    for x in (text, data):
        tracemalloc.start()
        try:
            assert h.fingerprint(x) == want
            assert h.fingerprints([x, bytearray(b"x")]).tolist() == [want, h.fingerprint("x")]
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    assert peaks[1] < peaks[0] + 2 * len(data), peaks  # the str path's, and the decoded str


# -- errors that name the parameter and the item ------------------------------------------------

BAD = [
    (
        lambda h: h.fingerprints(["ok", ["a"], "bad \udc00"]),
        ValueError,
        r"texts\[2\] contains a lone surrogate",
    ),
    (lambda h: h.fingerprints([["a"], ["b", "x\udc00"]]), ValueError, r"texts\[1\], token 1"),
    (lambda h: h.fingerprints(5), TypeError, r"texts must be an iterable"),
    (lambda h: h.fingerprints(None), TypeError, r"texts must be"),
    (lambda h: h.fingerprints("abc"), TypeError, r"texts must be .* got str"),
    (lambda h: h.fingerprint(None), TypeError, r"^x must be"),
    (lambda h: h.fingerprint(5), TypeError, r"^x must be .* got int"),
    (lambda h: h.fingerprints(["a", 2.5]), TypeError, r"^texts\[1\] must be .* got float"),
    (lambda h: h.fingerprints([b"ok", b"\xff"]), ValueError, r"texts\[1\] is bytes that are not valid UTF-8"),
    (lambda h: h.fingerprint({"a": float("nan")}), ValueError, r"'a' in x must be finite"),
    (
        lambda h: h.fingerprints([{"a": 1.0}, {"b": float("inf")}]),
        ValueError,
        r"'b' in texts\[1\] must be finite",
    ),
    (lambda h: h.fingerprint({"a": -np.inf}), ValueError, r"'a' in x must be finite"),
    (lambda h: h.fingerprint({"a": True}), TypeError, r"'a' in x must be a finite number"),
    (lambda h: h.fingerprint([("a", np.bool_(True))]), TypeError, r"'a' in x must be a finite number"),
    (lambda h: h.fingerprint([("a", "1")]), TypeError, r"'a' in x must be a finite number"),
    (lambda h: h.fingerprints([{"a": 1}, {1: 1}]), TypeError, r"texts\[1\] keys must be str"),
    (
        lambda h: h.fingerprints([["a"], ["a", 3]]),
        TypeError,
        r"texts\[1\] must be all str tokens .* item 1 is 3",
    ),
    (
        lambda h: h.fingerprint(["a", ("b", 1)]),
        TypeError,
        r"x must be all str tokens or all \(str, weight\) pairs",
    ),
    (lambda h: h.fingerprint([("a", 1, 2)]), TypeError, r"x must be all str tokens"),
    (lambda h: h.fingerprints(["a"], parallel="yes"), TypeError, r"parallel must be"),
    (lambda h: Simhasher(bits=8.0), TypeError, r"bits must be an int"),
    (lambda h: Simhasher(bits=True), TypeError, r"bits must be an int"),
    (lambda h: Simhasher(bits=65), ValueError, r"bits must be between"),
    (lambda h: Simhasher(default_weight=np.nan), ValueError, r"default_weight must be finite"),
    (lambda h: Simhasher(weights={1: 2.0}), TypeError, r"weights keys must be str"),
    (
        lambda h: Simhasher(tokenizer=lambda t: None).fingerprints(["a", "b"]),
        TypeError,
        r"tokenizer .* NoneType for texts\[0\]",
    ),
    (
        lambda h: Simhasher(tokenizer=lambda t: "ab").fingerprint("ab"),
        TypeError,
        r"tokenizer must return an iterable",
    ),
    (lambda h: Simhasher(tokenizer=lambda t: [1]).fingerprint("ab"), TypeError, r"feature 0 of x"),
    (
        lambda h: Simhasher(hash={"a": 1}).fingerprints(["a", "a b"]),
        ValueError,
        r"hash: .* 'b' of texts\[1\]",
    ),
    (
        lambda h: Simhasher(hash=lambda f: -1).fingerprint("a"),
        ValueError,
        r"hash must give non-negative ints",
    ),
    (
        lambda h: Simhasher(hash=lambda f: 1.5).fingerprint("a"),
        TypeError,
        r"hash must give ints; gave 1.5 for the feature 'a' of x",
    ),
]


@pytest.mark.parametrize("call, error, message", BAD)
def test_bad_input_is_a_clear_error_naming_the_parameter(call, error, message):
    with pytest.raises(error, match=message):
        call(Simhasher())


def test_errors_raised_by_user_callables_keep_their_type_and_name_the_item():
    for h in (Simhasher(tokenizer=lambda t: 1 / 0), Simhasher(hash=lambda f: 1 / 0)):
        with pytest.raises(ZeroDivisionError) as info:
            h.fingerprints(["a", "b"])
        assert any("texts[0]" in note for note in info.value.__notes__)


# -- inputs that have an answer -----------------------------------------------------------------


def test_inputs_that_have_an_answer():
    h = Simhasher()
    assert (
        h.fingerprint("") == 0 == h.fingerprint([]) == h.fingerprint({}) == h.fingerprints([""]).tolist()[0]
    )
    assert h.fingerprints([]).shape == (0,)
    assert h.fingerprints([[], ()]).tolist() == [0, 0]
    # tokens are joined by NUL unless one holds a NUL: both ways give the same votes
    for docs in ([["a\x00b", "c"], ["", "\x00"], ["c"]], [["a", "b", "c"], ["", ""], ["c"]]):
        want = [vote([(t, 1.0) for t in d], "xxh3", 64) for d in docs]
        assert h.fingerprints(docs, parallel=False).tolist() == want
        assert h.fingerprints(docs * 30, parallel=True).tolist() == want * 30
    assert h.fingerprint("word") == h.fingerprint(["word"]) == vote([("word", 1)], "xxh3", 64)
    text = "\U0001f389 party \u4f60\u597d\u4e16\u754c caf\u00e9"
    assert h.fingerprint(text) == h.fingerprint(["party", "\u4f60\u597d\u4e16\u754c", "caf\u00e9"])
    assert (
        h.fingerprint(np.str_("hi there"))
        == h.fingerprint("hi there")
        == h.fingerprint(np.bytes_(b"hi there"))
    )
    assert h.fingerprint(np.array(["hi", "there"])) == h.fingerprint(["hi", "there"])
    assert h.fingerprints(t for t in ["a b", "c"]).tolist() == [h.fingerprint("a b"), h.fingerprint("c")]
    assert (
        h.fingerprint([(np.str_("a"), 1.5)])
        == h.fingerprint({np.str_("a"): 1.5})
        == h.fingerprint({"a": 1.5})
    )
    assert h.fingerprint({"a", "b"}) == h.fingerprint(["a", "b"])  # a set of tokens: order does not count
    assert h.fingerprint({"a": np.float32(2.0), "b": np.int64(3)}) == h.fingerprint({"a": 2.0, "b": 3.0})
    assert h.fingerprint({"a": -1.0}) == h.fingerprint({"a": 1.0}) ^ ((1 << 64) - 1)  # every bit flips
    big = "word " * 2_000_000  # 10 MB
    assert h.fingerprint(big) == h.fingerprint(["word"]) == h.fingerprints([big.split()]).tolist()[0]
    assert Simhasher(bits=np.int64(8)).bits == 8
    assert Simhasher(tokenizer=char_ngrams(3)).fingerprint(b"abcd") == Simhasher(
        tokenizer=char_ngrams(3)
    ).fingerprint("abcd")
