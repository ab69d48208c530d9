"""The fused path's scan (simhash_lab.kernels.tokenize.lower_tokenize_str) on texts long enough
for its 64-unit vector step: every code-unit width, a non-ASCII unit at every lane of a block,
every alignment of the block's end, against ``re`` and ``str.split``. (``whitespace`` has two
ranges of ASCII bytes, so its two padding ranges, which must match no byte, are exercised too.)"""

import random
import re

import numpy as np
import pytest

from simhash_lab.kernels import tokenize as K
from simhash_lab.tokenize import whitespace, words

RULES = {"words": (words, lambda t: re.findall(r"\w+", t)), "whitespace": (whitespace, str.split)}
ASCII = "aZq_9 -.,\t\nMx"  # both cases, digits, "_", spaces, punctuation


def scan(tokenizer, text: str) -> list[str]:
    """The tokens ``lower_tokenize_str`` cuts from ``text`` in its own code units; its scratch
    exactly ``str_scratch``'s size, so a store past it would show as a wrong token or a crash."""
    width = max((ord(c) for c in text), default=0)
    kind, codec = (1, "latin-1") if width < 256 else (2, "utf-16-le") if width < 65536 else (4, "utf-32-le")
    data = np.frombuffer(bytearray(text.encode(codec)), np.uint8)
    tok_n, pos_n = K.str_scratch(len(text), kind)
    tok, pos = np.empty(tok_n, np.uint8), np.empty(pos_n, np.int64)
    nf, flags = K.lower_tokenize_str(data, len(text), kind, tokenizer.pipeline, tok, pos)
    assert nf % 2 == 0 and flags == 0
    return [tok[pos[2 * i] : pos[2 * i + 1]].tobytes().decode("utf-8") for i in range(nf // 2)]


def texts() -> list[str]:
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


@pytest.mark.parametrize("rule", RULES)
def test_scan_matches_the_reference_on_long_texts(rule):
    make, reference = RULES[rule]
    for lowercase in (True, False):
        tokenizer = make(lowercase)
        for text in texts():
            want = reference(text.lower() if lowercase else text)
            assert scan(tokenizer, text) == want, (rule, lowercase, text)
