"""Shingle sets read from str in place (kernels.verify.shingle_hashes_str) against the UTF-8 path."""

import numpy as np
import pytest

from simhash_lab.shingles import Shingler
from simhash_lab.simhasher import utf8_batch

TRICKY = [
    "",
    "   \n\t ",
    "!!! ... ???",
    "one",
    "two words",
    "The Quick, brown FOX -- jumps; over_the lazy dog 42 times.",
    "Ünïcödé wörds, ünïcödé WÖRDS! café CAFÉ",  # 1-byte units beyond ASCII
    "Ελληνικά ΚΕΙΜΕΝΑ και λέξεις ΣΟΦΊΑ",  # 2-byte units (Σ: lowered by Python)
    "İstanbul İZMİR ıspanak",  # İ: lowered by Python, and it splits into two tokens
    "emoji 😀 in 😀 a 😀 text 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 words",  # 4-byte units
    "x" * 300 + " y " + "z" * 40 + " " + "w" * 17,  # every XXH3 size class
    "a" + " b" * 500,
    "二つの 言葉 と 三つ 目 の 言葉",
]


def _utf8_sets(sh, texts):
    return sh._sets(*utf8_batch(list(texts), sh.tokenizer.lowercase))


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_str_sets_equal_the_utf8_path(labelled, n):
    sh = Shingler(n)
    texts = TRICKY + labelled.docs[:120] + TRICKY  # > 64 texts: in threads, chunks of 64
    got = sh.sets(texts)
    want = _utf8_sets(sh, texts)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_python_lowered_texts_with_more_shingles_than_their_room():
    # "İ" lowers to "i" + U+0307 (not a word character): 1 token of 6 units becomes 6 tokens, more
    # single-word shingles than the room a 6-unit text gets; the result is spliced, still equal
    sh = Shingler(1)
    texts = ["İİİİİİ", "plain words here", "İİ İİ"]
    got, want = sh.sets(texts), _utf8_sets(sh, texts)
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
    assert np.diff(got[0])[0] == 1  # six times the one shingle "i"


def test_fingerprints_and_sets_read_str_in_place(labelled):
    from simhash_lab.shingles import recommended_hasher

    sh = Shingler(3)
    texts = TRICKY + labelled.docs[:70]
    fps, ind, dat = sh.fingerprints_and_sets(texts)
    want = _utf8_sets(sh, texts)
    assert np.array_equal(ind, want[0]) and np.array_equal(dat, want[1])
    assert np.array_equal(fps, recommended_hasher(3).fingerprints(texts))


def test_a_lone_surrogate_is_refused():
    with pytest.raises(ValueError):
        Shingler(3).sets(["fine text", "bad \ud800 text"])
