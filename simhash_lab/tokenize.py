"""Tokenizers: how a text becomes the features that vote.

A :class:`Tokenizer` is a small frozen description that the Numba pipeline runs on UTF-8 bytes; calling
one on a text returns its features as strings, which is how the course shows them.

>>> words()("Rust is safe; Rust is fast!")
['rust', 'is', 'safe', 'rust', 'is', 'fast']
>>> word_shingles(2)("a b c")
['a b', 'b c']
>>> char_ngrams(3)("Hi there")
['hi ', 'i t', ' th', 'the', 'her', 'ere']
"""

from __future__ import annotations

import functools
import numbers
from dataclasses import dataclass

import numpy as np

from ._unicode import PYSPACE, RUSTALNUM, RUSTSPACE, WORD, char_table, lower_table
from ._validate import as_text, check_int, utf8
from .kernels import tokenize as K
from .kernels.fingerprint import Pipeline

__all__ = ["Tokenizer", "words", "whitespace", "rust_words", "char_ngrams", "word_shingles", "leonsim_ngrams"]

_CLASSES = {K.TOK_WORDS: WORD, K.TOK_WHITESPACE: PYSPACE, K.TOK_RUST: RUSTSPACE | RUSTALNUM}
# what "inside a token" means for the words and whitespace rules: (class bit, wanted)
_INSIDE = {K.TOK_WORDS: (WORD, True), K.TOK_WHITESPACE: (PYSPACE, False)}
_NO_LOWER = np.empty(0, dtype=np.uint32)
_KINDS = (K.TOK_WORDS, K.TOK_WHITESPACE, K.TOK_RUST)
_FEATURES = (K.FEAT_TOKENS, K.FEAT_SHINGLES, K.FEAT_CHARGRAMS)
_NAMES = {
    "kind": "TOK_WORDS, TOK_WHITESPACE, TOK_RUST",
    "features": "FEAT_TOKENS, FEAT_SHINGLES, FEAT_CHARGRAMS",
}


@dataclass(frozen=True)
class Tokenizer:
    """A built-in tokenizer: word rule, feature rule, and normalisation.

    Attributes
    ----------
    name : str
        Shown in reprs and the CLI.
    kind : int
        Word rule: ``TOK_WORDS`` (runs of ``\\w``), ``TOK_WHITESPACE`` (``str.split()``) or
        ``TOK_RUST`` (Rust's ``split_whitespace`` then trim non-alphanumerics at both ends).
    features : int
        ``FEAT_TOKENS`` (each word), ``FEAT_SHINGLES`` (n consecutive words joined by a space) or
        ``FEAT_CHARGRAMS`` (n consecutive characters of the words joined by ``joiner``).
    n : int
        Shingle or n-gram size; a text with fewer words or characters is one feature.
    joiner : str
        Put between words before character n-grams are cut ("" or " ").
    lowercase : bool
        Apply ``str.lower()`` first.
    empty_feature : bool
        A text with no characters still has one feature, "" (the `simhash` package's rule).
    """

    name: str
    kind: int = K.TOK_WORDS
    features: int = K.FEAT_TOKENS
    n: int = 1
    joiner: str = " "
    lowercase: bool = True
    empty_feature: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {self.name!r}")
        for param, value, options in (
            ("kind", self.kind, _KINDS),
            ("features", self.features, _FEATURES),
        ):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in options:
                raise ValueError(f"{param} must be one of {options} ({_NAMES[param]}), got {value!r}")
        check_int("n", self.n, 1, 64)
        if not isinstance(self.joiner, str) or len(self.joiner) > 1 or self.joiner > "\x7f":
            raise ValueError(f"joiner must be '' or one ASCII character, got {self.joiner!r}")
        for param in ("lowercase", "empty_feature"):
            if not isinstance(getattr(self, param), bool):
                raise TypeError(f"{param} must be True or False, got {getattr(self, param)!r}")

    @property
    def table(self) -> np.ndarray:
        """The character-class table this tokenizer needs (built on first use)."""
        return char_table(_CLASSES[self.kind])

    @property
    def fused_tables(self) -> tuple[int, bool, np.ndarray, np.ndarray]:
        """(class bit, wanted, ASCII map, ASCII ranges): what the fused kernel needs for this
        word rule (``words``/``whitespace``; see ``kernels.tokenize.lower_tokenize_str``)."""
        p = self.pipeline
        return p.sel, p.want, p.amap, p.ranges

    @functools.cached_property
    def pipeline(self) -> Pipeline:
        """This tokenizer as the kernels read it (``kernels.fingerprint.Pipeline``, its other
        fields left at their defaults), built on first use."""
        table = self.table
        if self.kind in _INSIDE:
            sel, want = _INSIDE[self.kind]
            amap = K.ascii_map(table, sel, want, self.lowercase)
            ranges = K.ascii_ranges(amap, self.lowercase)
        else:  # the Rust rule never runs on the fused path: placeholders of the same types
            sel, want = RUSTSPACE, False
            amap, ranges = np.full(128, -1, dtype=np.int16), np.zeros(10, dtype=np.uint64)
        return Pipeline(
            table=table,
            tok_kind=int(self.kind),
            feat_kind=int(self.features),
            n=int(self.n),
            joiner=self.joiner_byte,
            empty_feature=bool(self.empty_feature),
            lower=lower_table() if self.lowercase else _NO_LOWER,
            sel=int(sel),
            want=bool(want),
            amap=amap,
            ranges=ranges,
        )

    @property
    def joiner_byte(self) -> int:
        """The byte that joins a shingle's tokens (-1: none)."""
        return ord(self.joiner) if self.joiner else -1

    def prepare(self, text: str, param: str = "text") -> bytes:
        """The UTF-8 bytes the kernels read: lowercased when asked.

        Parameters
        ----------
        text : str
        param : str
            The parameter named in an error.

        Returns
        -------
        bytes
        """
        return utf8(text.lower() if self.lowercase else text, param)

    def __call__(self, text: str) -> list[str]:
        """The features of ``text``, in order, as strings (repeats kept)."""
        text = as_text(text, "text")
        b = np.frombuffer(bytearray(self.prepare(text)), dtype=np.uint8)  # writable, as every kernel's
        rec, off = K.record_features(b, 0, b.size, self.pipeline)
        raw = rec.tobytes()
        return [raw[off[i] : off[i + 1]].decode("utf-8") for i in range(off.size - 1)]


def words(lowercase: bool = True) -> Tokenizer:
    """Unicode words: maximal runs of ``\\w`` (letters, digits, marks of any script, ``_``).

    Equal to ``re.findall(r"\\w+", text.lower())``. Chinese has no spaces, so a run of Han
    characters is one token: use ``char_ngrams`` (or the ``chinese`` extra's jieba tokenizer) there.

    Parameters
    ----------
    lowercase : bool
        Lowercase first (Unicode full case folding of ``str.lower``).

    Returns
    -------
    Tokenizer
    """
    return Tokenizer(
        "words" if lowercase else "words(cased)", K.TOK_WORDS, K.FEAT_TOKENS, lowercase=lowercase
    )


def whitespace(lowercase: bool = True) -> Tokenizer:
    """``text.lower().split()``: the seed's Python reference (punctuation stays on the words).

    Parameters
    ----------
    lowercase : bool
        Lowercase first (Unicode full case folding of ``str.lower``).

    Returns
    -------
    Tokenizer
    """
    return Tokenizer("whitespace", K.TOK_WHITESPACE, K.FEAT_TOKENS, lowercase=lowercase)


def rust_words() -> Tokenizer:
    """The seed's Rust rule: ``split_whitespace``, trim non-alphanumerics at both ends, keep case.

    Returns
    -------
    Tokenizer
    """
    return Tokenizer("rust_words", K.TOK_RUST, K.FEAT_TOKENS, lowercase=False)


def char_ngrams(n: int = 4, joiner: str = " ", lowercase: bool = True) -> Tokenizer:
    """Character n-grams (shingles of characters) over the words joined by ``joiner``.

    Robust to word-boundary edits and to languages without spaces (Chinese, Japanese).

    Parameters
    ----------
    n : int
        Characters per n-gram (1 to 64).
    joiner : str
        What joins the words before the n-grams are cut ("": the words run together).
    lowercase : bool
        Lowercase first.

    Returns
    -------
    Tokenizer
    """
    n = check_int("n", n, 1, 64)
    if joiner not in ("", " "):
        raise ValueError(f"joiner must be '' or ' ', got {joiner!r}")
    return Tokenizer(f"char_ngrams({n})", K.TOK_WORDS, K.FEAT_CHARGRAMS, n, joiner, lowercase)


def word_shingles(n: int = 3, lowercase: bool = True) -> Tokenizer:
    """Word n-grams ("w-shingles"): n consecutive words joined by one space. Order-sensitive.

    Parameters
    ----------
    n : int
        Words per shingle (1 to 64).
    lowercase : bool
        Lowercase first.

    Returns
    -------
    Tokenizer
    """
    n = check_int("n", n, 1, 64)
    return Tokenizer(f"word_shingles({n})", K.TOK_WORDS, K.FEAT_SHINGLES, n, " ", lowercase)


def leonsim_ngrams() -> Tokenizer:
    """The `simhash` package's features: lowercase, keep ``\\w`` runs joined with no separator,
    character 4-grams; a shorter string (even the empty one) is one feature.

    Returns
    -------
    Tokenizer
    """
    return Tokenizer("leonsim_ngrams", K.TOK_WORDS, K.FEAT_CHARGRAMS, 4, "", True, True)
