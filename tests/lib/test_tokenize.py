"""Tokenizers (simhash_lab.tokenize): every rule against its plain-Python definition on the shared
texts (re.findall, str.split, joins of words, character windows, the `simhash` package's n-grams),
and tokenizers checked when made."""

import re

import pytest

from simhash_lab.kernels import tokenize as K
from simhash_lab.tokenize import (
    Tokenizer,
    char_ngrams,
    leonsim_ngrams,
    rust_words,
    whitespace,
    word_shingles,
    words,
)


def test_words_tokenizer_equals_re_findall(texts):
    for t in texts:
        assert words()(t) == re.findall(r"\w+", t.lower())
        assert whitespace()(t) == t.lower().split()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(joiner="é", features=K.FEAT_CHARGRAMS), r"joiner must be '' or one ASCII character"),
        (dict(joiner="ab"), r"joiner"),
        (dict(kind=7), r"kind must be one of"),
        (dict(kind=True), r"kind must be one of"),
        (dict(features=3), r"features must be one of"),
        (dict(n=0), r"n must be between 1 and 64"),
    ],
)
def test_tokenizers_are_checked_when_made(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Tokenizer("t", **kwargs)


def test_tokenizers_refuse_non_bool_flags_and_non_int_sizes():
    with pytest.raises(TypeError, match="lowercase must be True or False"):
        Tokenizer("t", lowercase=1)
    with pytest.raises(TypeError, match="n must be an int"):
        Tokenizer("t", n=2.0)
    assert Tokenizer("t", K.TOK_WORDS, K.FEAT_CHARGRAMS, 3, "_")("ab cd") == ["ab_", "b_c", "_cd"]


def _windows(seq, n):
    """n at a time; a shorter non-empty sequence is one window; an empty one none."""
    if not seq:
        return []
    return [seq[i : i + n] for i in range(max(len(seq) - n + 1, 1))]


@pytest.mark.parametrize("n", [1, 2, 3, 5])
def test_word_shingles_are_joins_of_n_consecutive_words(texts, n):
    for t in texts:
        ws = re.findall(r"\w+", t.lower())
        assert word_shingles(n)(t) == [" ".join(w) for w in _windows(ws, n)], t
        cased = re.findall(r"\w+", t)
        assert word_shingles(n, lowercase=False)(t) == [" ".join(w) for w in _windows(cased, n)], t


@pytest.mark.parametrize("n, joiner", [(1, " "), (3, " "), (4, ""), (7, " ")])
def test_char_ngrams_are_windows_over_the_joined_words(texts, n, joiner):
    for t in texts:
        s = joiner.join(re.findall(r"\w+", t.lower()))
        assert char_ngrams(n, joiner)(t) == _windows(s, n), t


def test_leonsim_ngrams_are_the_simhash_packages_features(texts):
    """simhash.Simhash's own: lowercase, the \\w runs joined with nothing, 4-grams, at least one
    (the empty string for a text without words)."""
    for t in texts:
        s = "".join(re.findall(r"[\w\u4e00-\u9fcc]+", t.lower()))
        assert leonsim_ngrams()(t) == [s[i : i + 4] for i in range(max(len(s) - 4 + 1, 1))], t


def test_cased_rules_keep_case_and_rust_words_trim_their_ends():
    assert words(lowercase=False)("Rust IS safe") == ["Rust", "IS", "safe"]
    assert whitespace(lowercase=False)("A b\x1cc") == ["A", "b", "c"]  # Python's whitespace
    assert rust_words()("  --Hello, wörld!! ¿x? ") == ["Hello", "wörld", "x"]
    assert words()(b"caf\xc3\xa9 ok") == ["café", "ok"]  # UTF-8 bytes are text
