"""The fused kernel (word or whitespace tokens, TF weights) read straight from Python strings,
against plain Python: ``re``/``str.split``, ``str.lower`` and the ``xxhash`` package.

The kernel takes eight code units at a time while they are ASCII and one at a time otherwise, for
strings of every width (1-, 2- and 4-byte code units), so the texts here mix ASCII runs with
non-ASCII characters at every offset and in every width."""

import random
import re

import numpy as np
import pytest
import xxhash

from simhash_lab import Simhasher
from simhash_lab.kernels import tokenize as P
from simhash_lab.tokenize import whitespace, words

ASCII = [chr(c) for c in range(128)]
LATIN1 = list("\u00e9\u00df\u00c9\u00a0\u00b5\u00bd\u00aa\u00d7\u00ff")  # 1-byte units
BMP = list("\u2019\u2014\u4f60\u597d\u0130\u03a3\u03c3\u3000\u0301\u212a\u1e9e\u2163\u00e0")
ASTRAL = ["\U0001f389", "\U0001d400", "\U00010400", "\U0002070e"]  # emoji, math A, Deseret, CJK


def reference(text: str, bits: int, lowercase: bool, rule: str) -> int:
    t = text.lower() if lowercase else text
    tokens = re.findall(r"\w+", t) if rule == "words" else t.split()
    v = [0] * bits
    for tok in tokens:
        h = xxhash.xxh3_64_intdigest(tok.encode())
        for i in range(bits):
            v[i] += 1 if (h >> i) & 1 else -1
    return sum(1 << i for i in range(bits) if v[i] > 0)


def mixed_texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        width = rng.choice([None, LATIN1, BMP, ASTRAL])  # the widest character decides the kind
        length = rng.choice([0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, rng.randrange(300)])
        chars = []
        for _ in range(length):
            r = rng.random()
            if width is not None and r < 0.08:
                chars.append(rng.choice(width))
            elif r < 0.3:
                chars.append(rng.choice(ASCII))
            elif r < 0.45:
                chars.append(" ")
            else:
                chars.append(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
        out.append("".join(chars))
    return out


EXTRA = [
    "a b c d e f g h i j k l m n o p",  # eight flips in one block of eight
    "a.b.c.d.e.f.g.h.i.j",
    "x" * 8,
    "x" * 16,
    "y" * 17,
    "word " * 40,
    "Z" * 300,
    "\u2019" + "abcdefgh" * 3,
    "abcdefg\u2019" + "h" * 20,
    "\U0001f389abcdefgh ijklmnop",
    "\u0130stanbul ISTANBUL \u03a3\u039f\u03a3 abcdefgh",  # Python lowers these texts itself
    "tab\tsep\x1cfile\x1dgroup\x1erec\x1funit\x0bvt\x0cff",
]


@pytest.mark.parametrize(
    "rule, lowercase, bits",
    [
        ("words", True, 64),
        ("words", False, 64),
        ("whitespace", True, 64),
        ("whitespace", False, 13),
        ("words", True, 1),
    ],
)
def test_fused_kernel_equals_plain_python(rule, lowercase, bits):
    tok = words(lowercase) if rule == "words" else whitespace(lowercase)
    h = Simhasher(bits=bits, tokenizer=tok)
    texts = EXTRA + mixed_texts(len(rule) + 10 * bits + lowercase, 400)
    want = [reference(t, bits, lowercase, rule) for t in texts]
    assert [int(x) for x in h.fingerprints(texts, parallel=False)] == want
    assert [int(x) for x in h.fingerprints(texts, parallel=True)] == want


KERNELS = ["fingerprints_str", "fingerprints", "token_fingerprints"]


@pytest.fixture
def calls(monkeypatch):
    """Counts the calls of each fingerprint kernel (and of the Python layer's vote kernel), and
    the batches sent to threads (``run_ranges``)."""
    import simhash_lab._threads as T
    import simhash_lab.simhasher as S
    from simhash_lab.kernels import fingerprint as F

    counts = dict.fromkeys([*KERNELS, "fold_weighted", "run_ranges"], 0)

    def spy(module, name):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            counts[name] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    for name in KERNELS:
        spy(F, name)
    spy(S, "fold_weighted")
    spy(T, "run_ranges")
    return counts


def ran(calls: dict) -> dict:
    out = {k: v for k, v in calls.items() if v}
    for k in calls:
        calls[k] = 0
    return out


def test_str_subclasses_and_bytes_take_the_fused_path(calls):
    class Text(str):
        pass

    h = Simhasher()
    want = h.fingerprint("hello world")
    assert ran(calls) == {"fingerprints_str": 1}
    for x in (np.str_("hello world"), Text("hello world"), b"hello world", bytearray(b"hello world")):
        assert h.fingerprint(x) == want
        assert ran(calls) == {"fingerprints_str": 1}, type(x)
    fps = h.fingerprints(np.array(["hello world", "x"]))
    assert [int(v) for v in fps] == [want, h.fingerprint("x")]
    assert ran(calls) == {"fingerprints_str": 2}
    assert h.fingerprints(["hello world"] * 64).tolist() == [want] * 64
    assert ran(calls) == {"run_ranges": 1, "fingerprints_str": 1}  # one range: one chunk of 64
    assert h.fingerprints(["hello world"] * 640).tolist() == [want] * 640
    got = ran(calls)
    assert got.keys() == {"run_ranges", "fingerprints_str"} and got["run_ranges"] == 1
    assert got["fingerprints_str"] >= 4  # ranges of whole chunks, about four per thread


def test_token_lists_dicts_and_pairs_take_one_kernel_call_per_batch(calls):
    h = Simhasher()
    toks = ["hello", "world", "hello"]
    want = h.fingerprint(" ".join(toks))
    ran(calls)
    docs = [x for _ in range(30) for x in (toks, tuple(toks), iter(toks))]
    assert h.fingerprints(docs).tolist() == [want] * 90
    assert ran(calls) == {"run_ranges": 1, "token_fingerprints": 2}  # two ranges of whole chunks
    given = {"hello": 2.0, "world": 1.0}
    pairs = [list(given.items()), [("hello", 1), ("world", 1), ("hello", 1)]]
    assert h.fingerprints([given, *pairs, dict(given)] * 10).tolist() == [want] * 40
    assert ran(calls) == {"token_fingerprints": 2}  # one call for the dicts, one for the pairs
    mixed = h.fingerprints(["hello world hello", toks, given], parallel=False)
    assert mixed.tolist() == [want] * 3
    assert ran(calls) == {"fingerprints_str": 1, "token_fingerprints": 2}
    assert h.trace(toks).fingerprint == want  # the trace is Python's: its own fold
    assert ran(calls) == {"fold_weighted": 1}


def test_other_tokenizers_and_weights_take_the_general_path(calls):
    from simhash_lab.tokenize import char_ngrams

    for h in (Simhasher(weights="binary"), Simhasher(tokenizer=char_ngrams(3)), Simhasher(weights={"a": 2})):
        h.fingerprint("a b a")
        assert ran(calls) == {"fingerprints": 1}, h


def test_flags_send_context_lowering_and_surrogates_back_to_python():
    """The kernel flags what it cannot finish: İ and Σ (their lowercase depends on context) and
    lone surrogates (no UTF-8); each flag is the one expected, and the redone result is right."""
    from simhash_lab.kernels.fingerprint import fingerprints_str
    from simhash_lab.kernels.strings import str_views

    texts = [
        "plain",
        "\u0130I\u0307 \u03a3\u03a3\u03a3 \u039f\u0394\u039f\u03a3",
        "bad \udc00",
        "\u0130 \ud800",
    ]
    out = np.zeros(len(texts), dtype=np.uint64)
    flags = np.full(len(texts), -1, dtype=np.int64)
    fingerprints_str(*str_views(texts), Simhasher()._pipeline, out, flags)
    assert flags.tolist() == [
        0,
        P.FLAG_PYTHON_LOWER,
        P.FLAG_SURROGATE,
        P.FLAG_PYTHON_LOWER | P.FLAG_SURROGATE,
    ]
    assert int(out[0]) == reference("plain", 64, True, "words")
    fps = Simhasher().fingerprints(texts[:2])
    assert int(fps[1]) == reference(texts[1], 64, True, "words")
    with pytest.raises(ValueError, match=r"texts\[2\]"):
        Simhasher().fingerprints(texts[:3])
