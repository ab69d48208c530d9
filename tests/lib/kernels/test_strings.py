"""The string kernels (simhash_lab.kernels.strings) called directly, against Python's own codecs:
``str_views`` gives each string's length and width (PEP 393), ``unit`` and ``ascii_block`` read its
code units as ``latin-1`` / ``utf-16-le`` / ``utf-32-le`` lay them out, ``decode_utf8`` and
``put_utf8`` agree with ``str.encode("utf-8")`` on every class of code point, and ``lower_utf8`` is
``str.lower()``."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simhash_lab._unicode import lower_table
from simhash_lab.kernels import strings as K

WIDTH = {1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}
SAMPLES = {
    1: ["", "a", "rust safe fast", "caf\u00e9 na\u00efve \u00ff", "x" * 100],
    2: ["\u4f60\u597d", "a\u2019b", "\u0130stanbul \u03a3\u03c3", "abcdefgh\u2014ijklmnop" * 3],
    4: ["\U0001f389", "party \U0001f389 time", "\U0001d400bcdefgh" * 5],
}


def width(s: str) -> int:
    top = max(map(ord, s), default=0)
    return 1 if top < 256 else 2 if top < 65536 else 4


def units(s: str, kind: int) -> np.ndarray:
    """The string's code units laid out as CPython keeps them, with 64 bytes of zeros after."""
    return np.frombuffer(s.encode(WIDTH[kind]) + bytes(64), dtype=np.uint8).copy()


def test_str_views_give_each_strings_length_and_width():
    texts = [s for group in SAMPLES.values() for s in group]
    ptrs, lens, kinds = K.str_views(texts)
    assert lens.tolist() == [len(s) for s in texts]
    assert kinds.tolist() == [width(s) for s in texts]
    assert (ptrs != 0).all() and len(set(ptrs.tolist())) == len(set(texts))
    assert [a.tolist() for a in K.str_views([])] == [[], [], []]


@pytest.mark.parametrize("kind", [1, 2, 4])
def test_unit_reads_each_code_unit(kind):
    for s in SAMPLES[kind]:
        data = units(s, kind)
        assert [K.unit(data, p, kind) for p in range(len(s))] == [ord(c) for c in s], s


@pytest.mark.parametrize("kind", [1, 2, 4])
def test_ascii_block_packs_eight_units_and_counts_the_ascii_ones(kind):
    """Lane L holds code unit p + L while they are ASCII; the count stops at the first that is not
    (units past the end read as the zeros after the string)."""
    rng = random.Random(kind)
    wide = {1: "\u00e9\u00ff", 2: "\u2019\u4f60", 4: "\U0001f389\u00e9"}[kind]
    for _ in range(300):
        s = "".join(rng.choice("abcXYZ 09" + wide) for _ in range(rng.randrange(1, 30)))
        if width(s) != kind:
            s += wide[0]
        data = units(s, kind)
        padded = [ord(c) for c in s] + [0] * 8
        for p in range(len(s)):
            x, j = K.ascii_block(data, p, kind)
            block = padded[p : p + 8]
            want = next((i for i, c in enumerate(block) if c >= 0x80), 8)
            assert j == want, (s, p)
            assert [(int(x) >> (8 * i)) & 0xFF for i in range(want)] == block[:want], (s, p)


CODE_POINTS = [0, 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x2019, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x1F389]
CODE_POINTS += [0x10FFFF] + random.Random(0).sample(range(0x110000), 300)


def test_put_utf8_and_decode_utf8_are_python_utf8():
    out = np.zeros(8, dtype=np.uint8)
    for cp in CODE_POINTS:
        if 0xD800 <= cp < 0xE000:
            continue  # surrogates have no UTF-8
        want = chr(cp).encode("utf-8")
        end = K.put_utf8(out, 2, cp)
        assert end == 2 + len(want) and out[2:end].tobytes() == want, hex(cp)
        buf = np.frombuffer(want + bytes(4), dtype=np.uint8).copy()
        assert K.decode_utf8(buf, 0) == (cp, len(want)), hex(cp)


def test_lower_utf8_is_str_lower(texts):
    """Every document of a batch lowered as Python lowers it (but for the two characters whose
    lowercase depends on context, which the Python layer redoes itself: İ and final Σ)."""
    docs = [t for t in texts if "\u0130" not in t and "\u03a3" not in t]
    docs += ["ABC\u00c9\u00dcXYZ", "\u212a\u1e9e\u2163", "", "\U00010400\U0001d400"]
    encoded = [d.encode("utf-8") for d in docs]
    buf = np.frombuffer(b"".join(encoded) + b"\0", dtype=np.uint8).copy()
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    out, out_off = K.lower_utf8(buf, offsets, lower_table())
    assert out_off[0] == 0 and out_off.shape == offsets.shape
    got = [out[out_off[d] : out_off[d + 1]].tobytes().decode("utf-8") for d in range(len(docs))]
    assert got == [d.lower() for d in docs]
