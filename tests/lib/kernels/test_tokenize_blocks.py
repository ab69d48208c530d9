"""The fused path's scan (simhash_lab.kernels.tokenize.lower_tokenize_str) block by block: 16 ASCII
units at a time, 8 at a time, one at a time, and 64 at a time on long texts, against ``re`` and
``str.split`` at every alignment."""

import random
import re

import numpy as np
import pytest

from simhash_lab.kernels import tokenize as K
from simhash_lab.tokenize import whitespace, words

# ASCII letters both cases, digits, "_", spaces, punctuation, and one unit of each width: Latin-1
# (kind 1), BMP (kind 2), astral (kind 4); all of them \w or not the same way in every rule here.
ALPHABET = "aZq_9 -.,\t\n" + "éÄ" + "ж€" + "𝄞"
ASCII = "aZq_9 -.,\t\nMx"  # both cases, digits, "_", spaces, punctuation: the long texts' blocks
RULES = {"words": (words, lambda t: re.findall(r"\w+", t)), "whitespace": (whitespace, str.split)}


def scan(tokenizer, text: str) -> list[str]:
    """The tokens ``lower_tokenize_str`` cuts from ``text`` in its own code units."""
    width = max((ord(c) for c in text), default=0)
    kind, codec = (1, "latin-1") if width < 256 else (2, "utf-16-le") if width < 65536 else (4, "utf-32-le")
    data = np.frombuffer(bytearray(text.encode(codec)), np.uint8)
    tok_n, pos_n = K.str_scratch(len(text), kind)
    tok, pos = np.empty(tok_n, np.uint8), np.empty(pos_n, np.int64)
    nf, flags = K.lower_tokenize_str(data, len(text), kind, tokenizer.pipeline, tok, pos)
    assert nf % 2 == 0 and flags == 0
    return [tok[pos[2 * i] : pos[2 * i + 1]].tobytes().decode("utf-8") for i in range(nf // 2)]


def texts():
    rng = random.Random(25)
    out = ["", "a", "A" * 16, "a" * 17, "a " * 8, " a" * 8, "a b c d e f g h i", "ab" * 40]
    for n in range(0, 70):
        out.append("".join(rng.choice(ALPHABET[:11]) for _ in range(n)))  # ASCII only: 16-unit blocks
        out.append("".join(rng.choice(ALPHABET) for _ in range(n)))
        out.append("".join(rng.choice("a ") for _ in range(n)))  # up to 16 flips in a block
    # one non-ASCII unit at every lane of a 16-unit block (the 16-unit step must not take it)
    for i in range(20):
        for c in "é€𝄞":
            s = list("word" * 6)
            s[i] = c
            out.append("".join(s))
    return out


@pytest.mark.parametrize("corpus", ["texts", "long_texts"])  # the 16/8-unit steps; the 64-unit one
@pytest.mark.parametrize("rule", RULES)
def test_scan_matches_the_reference_at_every_alignment(rule, corpus):
    make, reference = RULES[rule]
    for lowercase in (True, False):
        tokenizer = make(lowercase)
        for text in {"texts": texts, "long_texts": long_texts}[corpus]():
            want = reference(text.lower() if lowercase else text)
            assert scan(tokenizer, text) == want, (rule, lowercase, text)


def test_both_range_counts_are_exercised():
    """Words have three ranges of ASCII token bytes (0-9, _, a-z; uppercase free), so the scan
    tests ranges 2 and 3; whitespace has two (the bytes outside tokens), so it skips them: both
    branches of the scan's range test run above."""
    assert words().pipeline.ranges[4] != 0
    assert whitespace().pipeline.ranges[4] == 0


def long_texts() -> list[str]:
    """Texts long enough for the 64-unit vector step: every width, a non-ASCII unit at every lane
    of a block, every alignment of the block's end (``whitespace``'s two padding ranges too)."""
    rng = random.Random(64)
    out = ["A" * 64, "a" * 65, "ab " * 43, " a" * 64, "a " * 200, "W" * 127 + " x"]
    for n in (63, 64, 65, 100, 127, 128, 129, 191, 200, 257):
        out.append("".join(rng.choice(ASCII) for _ in range(n)))  # ASCII only: 64-unit blocks
        out.append("".join(rng.choice("a ") for _ in range(n)))  # up to 64 flips in a block
    # one unit of each width at every lane of the first 64-unit block and past it: the block must
    # not take it, the units before it are scanned, and the vector step resumes after it
    base = "".join(rng.choice(ASCII) for _ in range(150))
    for i in list(range(0, 66)) + [100, 127, 128, 149]:
        for c in "éÄж€𝄞":
            out.append(base[:i] + c + base[i + 1 :])
    # a wide unit at the very end: the whole text is of that width, its 64-unit blocks ASCII
    for c in "é€𝄞":
        for n in (64, 65, 130, 200):
            out.append("".join(rng.choice(ASCII) for _ in range(n)) + c)
    return out
