"""The fused kernel (word or whitespace tokens, TF weights) read straight from Python strings,
against plain Python: ``re``/``str.split``, ``str.lower`` and the ``xxhash`` package.

The kernel takes eight code units at a time while they are ASCII and one at a time otherwise, for
strings of every width (1-, 2- and 4-byte code units), so the texts here mix ASCII runs with
non-ASCII characters at every offset and in every width.

Batches run in chunks of 64 documents and in ranges of whole chunks on threads: every batch size
around a chunk, on one thread and on all, serial and in ranges, gives the fingerprints each text
gets alone (and plain Python's). Which kernel ran is not observable through the API, so it is not
asserted: a change of chunking or dispatch that keeps every fingerprint passes."""

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


@pytest.fixture(params=["one thread", "every thread"])
def threads(request):
    """Numba's thread count for the calling thread: 1, then all of them (the ranges of a batch that
    run in threads, about four per thread, change with it). Restored afterwards."""
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1 if request.param == "one thread" else numba.config.NUMBA_NUM_THREADS)
    yield numba.get_num_threads()
    numba.set_num_threads(before)


SIZES = [1, 63, 64, 65, 129, 640, 641]  # around the kernel's chunk of 64 documents


def test_str_subclasses_and_bytes_give_the_fingerprint_of_their_text():
    class Text(str):
        pass

    h = Simhasher()
    want = h.fingerprint("hello world")
    assert want == reference("hello world", 64, True, "words")
    for x in (np.str_("hello world"), Text("hello world"), b"hello world", bytearray(b"hello world")):
        assert h.fingerprint(x) == want, type(x)
    fps = h.fingerprints(np.array(["hello world", "x"]))
    assert [int(v) for v in fps] == [want, h.fingerprint("x")]
    mixed = [Text("hello world"), b"hello world", np.str_("hello world"), "hello world"] * 20
    assert h.fingerprints(mixed).tolist() == [want] * 80


def test_text_batches_give_the_same_fingerprints_whatever_their_chunks_and_threads(threads):
    """Batches of every size around the kernel's chunk, on one thread and on several, serial and in
    ranges: each fingerprint is plain Python's of its text."""
    texts = EXTRA + mixed_texts(11, 700)
    want = [reference(t, 64, True, "words") for t in texts]
    h = Simhasher()
    for n in SIZES:
        for parallel in (False, True, None):
            assert [int(x) for x in h.fingerprints(texts[:n], parallel=parallel)] == want[:n], (n, parallel)
    assert [int(x) for x in h.fingerprints(texts[5:650])] == want[5:650]  # ranges not at offset 0


def test_token_lists_dicts_and_pairs_give_the_same_fingerprints_whatever_their_chunks(threads):
    """Token lists, dicts and (token, weight) pairs, in batches of every size, serial and in ranges:
    each equals the fingerprint of the text the tokens come from, and one document fingerprinted
    alone."""
    h = Simhasher()
    toks = ["hello", "world", "hello"]
    want = h.fingerprint(" ".join(toks))
    given = {"hello": 2.0, "world": 1.0}
    pairs = [("hello", 1), ("world", 1), ("hello", 1)]

    def forms():  # a fresh iterator each time
        return [toks, tuple(toks), iter(toks), given, list(given.items()), pairs, dict(given)]

    for n in SIZES:
        for parallel in (False, True):
            docs = [list(toks) if i % 3 == 0 else tuple(toks) for i in range(n)]
            assert h.fingerprints(docs, parallel=parallel).tolist() == [want] * n, (n, parallel)
            dicts = [dict(given) for _ in range(n)]
            assert h.fingerprints(dicts, parallel=parallel).tolist() == [want] * n, (n, parallel)
    assert h.fingerprints([f for _ in range(20) for f in forms()]).tolist() == [want] * 140
    assert h.fingerprints(["hello world hello", toks, given], parallel=False).tolist() == [want] * 3
    # documents of their own tokens: a batch of many equals each alone
    texts = mixed_texts(7, 300)
    docs = [h.features(t) for t in texts]
    alone = [h.fingerprint(d) for d in docs]
    assert alone == [reference(t, 64, True, "words") for t in texts]
    for n in SIZES[:-2] + [300]:
        assert h.fingerprints(docs[:n], parallel=True).tolist() == alone[:n], n
    assert h.trace(toks).fingerprint == want  # the trace is Python's: its own fold


@pytest.mark.parametrize("name", ["binary", "char 3-grams", "weight dict"])
def test_the_general_path_gives_the_same_fingerprints_whatever_the_chunks(name, threads):
    """Other tokenizers and weights (not the fused path): a batch of any size, serial or in ranges,
    equals each text fingerprinted alone; and binary weights are plain Python's over distinct
    tokens."""
    from simhash_lab.tokenize import char_ngrams

    h = {
        "binary": Simhasher(weights="binary"),
        "char 3-grams": Simhasher(tokenizer=char_ngrams(3)),
        "weight dict": Simhasher(weights={"a": 2, "hello": 0.5}),
    }[name]
    texts = EXTRA + mixed_texts(3, 300)
    alone = [h.fingerprint(t) for t in texts]
    for n in SIZES[:-2] + [len(texts)]:
        for parallel in (False, True):
            assert h.fingerprints(texts[:n], parallel=parallel).tolist() == alone[:n], (n, parallel)
            back = h.fingerprints(texts[:n][::-1], parallel=parallel).tolist()  # not the last output
            assert back == alone[:n][::-1], (n, parallel)
    if name == "binary":
        for t in texts[:60]:
            tokens = sorted(set(re.findall(r"\w+", t.lower())))
            assert h.fingerprint(t) == reference(" ".join(tokens), 64, False, "whitespace"), t


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
    fingerprints_str(*str_views(texts), Simhasher()._pipeline, 0, out, flags)
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
