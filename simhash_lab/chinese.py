"""Chinese text the way the yanyiwu/simhash project does it: jieba words, TF-IDF weights.

Chinese is written without spaces, so the default ``words()`` tokenizer sees a whole clause as one
token and one changed character changes the whole token. The C++ project the Chinese source (004)
describes segments the text with jieba first and weights each word by TF-IDF before hashing. Here:

* :func:`jieba_words`: a tokenizer for :class:`~simhash_lab.Simhasher` (any callable
  ``text -> list of str`` is one): jieba's words, lowercased, punctuation and spaces dropped;
* :func:`jieba_simhasher`: a ``Simhasher`` with that tokenizer whose every word occurrence votes
  its IDF from jieba's table, so a word's total vote is TF x IDF (words missing from the table vote
  the median IDF, as ``jieba.analyse`` does);
* :func:`keywords`: ``jieba.analyse.extract_tags``: the top-N ``(word, TF-IDF)`` pairs, which
  ``Simhasher.fingerprint`` takes as they are (the C++ project's top-N keyword mode).

jieba is optional: ``pip install 'simhash-lab[chinese]'``. Without it these functions raise an
ImportError that says so. jieba logs "Building prefix dict ..." to stderr when its dictionary first
loads; this module sets jieba's log level to WARNING before that (``quiet=True``), so notebooks stay
clean.

>>> from simhash_lab import hamming
>>> h = jieba_simhasher()
>>> a = h.fingerprint("局部敏感哈希让相似的文档得到相似的指纹")
>>> b = h.fingerprint("局部敏感哈希让相似的文本得到相似的指纹")
>>> c = h.fingerprint("今天的天气很好，我们去公园散步吧")
>>> hamming(a, b) < hamming(a, c)
True
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from types import ModuleType

from ._validate import check_int
from .simhasher import Simhasher

__all__ = ["JiebaWords", "jieba_words", "jieba_simhasher", "idf_table", "keywords"]

_HAS_WORD = re.compile(r"\w")
EXTRA_HINT = "pip install 'simhash-lab[chinese]'"


def load_jieba(quiet: bool = True) -> ModuleType:
    """The ``jieba`` module, imported on first use, with its logger quietened.

    Parameters
    ----------
    quiet : bool
        Set jieba's log level to WARNING (no "Building prefix dict ..." on stderr).

    Returns
    -------
    module
        ``jieba``.

    Raises
    ------
    ImportError
        jieba is not installed; the message names the extra that installs it.
    """
    try:
        import jieba
    except ImportError:
        raise ImportError(
            f"Chinese segmentation needs jieba, part of the `chinese` extra: {EXTRA_HINT}"
        ) from None
    if quiet:
        jieba.setLogLevel(logging.WARNING)
    return jieba


class JiebaWords:
    """A tokenizer: jieba's segmentation of a text, lowercased, keeping words with a letter or digit.

    Picklable (it holds only its settings), so it travels to Dask workers.

    Parameters
    ----------
    hmm : bool
        Let jieba's HMM guess words missing from its dictionary (jieba's default).
    lowercase : bool
        Lowercase Latin words mixed into the text ("Simhash" and "simhash" are one feature).
    """

    name = "jieba_words"

    def __init__(self, hmm: bool = True, lowercase: bool = True) -> None:
        self.hmm = bool(hmm)
        self.lowercase = bool(lowercase)
        load_jieba()

    def __call__(self, text: str) -> list[str]:
        """The words of ``text``.

        Parameters
        ----------
        text : str
            The text to segment.

        Returns
        -------
        list of str
            jieba's words in order, stripped, each with a letter or digit (lowercased unless
            ``lowercase=False``).

        Raises
        ------
        TypeError
            ``text`` is not a str.
        ImportError
            jieba is not installed.
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        jieba = load_jieba()
        words = (w.strip() for w in jieba.lcut(text, HMM=self.hmm))
        return [w.lower() if self.lowercase else w for w in words if w and _HAS_WORD.search(w)]

    def __repr__(self) -> str:
        return f"jieba_words(hmm={self.hmm}, lowercase={self.lowercase})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JiebaWords) and (self.hmm, self.lowercase) == (other.hmm, other.lowercase)

    def __hash__(self) -> int:
        return hash((JiebaWords, self.hmm, self.lowercase))


def jieba_words(hmm: bool = True, lowercase: bool = True) -> JiebaWords:
    """A jieba tokenizer for ``Simhasher(tokenizer=...)``; see :class:`JiebaWords`.

    Parameters
    ----------
    hmm : bool
        Let jieba's HMM guess words missing from its dictionary.
    lowercase : bool
        Lowercase Latin words.

    Returns
    -------
    JiebaWords

    Raises
    ------
    ImportError
        jieba is not installed.

    Examples
    --------
    >>> jieba_words()("simhash是google用来处理海量文本去重的算法")
    ['simhash', '是', 'google', '用来', '处理', '海量', '文本', '去', '重', '的', '算法']
    """
    return JiebaWords(hmm=hmm, lowercase=lowercase)


@lru_cache(maxsize=1)
def _idf() -> tuple[dict, float]:
    load_jieba()
    import jieba.analyse as ja

    tf = ja.default_tfidf
    return dict(tf.idf_freq), float(tf.median_idf)


def idf_table() -> tuple[dict, float]:
    """The IDF table of jieba (``{word: idf}``, about 350,000 words) and its median IDF (a copy).

    Returns
    -------
    table : dict of str to float
        A copy of ``jieba.analyse.default_tfidf.idf_freq``.
    median : float
        Its median IDF, the vote of a word not in the table.

    Raises
    ------
    ImportError
        jieba is not installed.
    """
    table, median = _idf()
    return dict(table), median


def jieba_simhasher(
    bits: int = 64, hash: str = "xxh3", hmm: bool = True, name: str | None = None
) -> Simhasher:
    """A :class:`~simhash_lab.Simhasher` for Chinese: jieba words, TF-IDF weights.

    Each occurrence of a word votes its IDF (jieba's table; the median IDF for a word not in it),
    so a word that occurs ``tf`` times votes ``tf * idf`` in all: the weighting of the yanyiwu/simhash
    project, over every word rather than the top N (for that, see :func:`keywords`). Building it
    hashes the whole IDF table once (about a second).

    Parameters
    ----------
    bits : int
        Fingerprint width (:class:`~simhash_lab.Simhasher`'s ``bits``).
    hash : str
        The feature hash (:class:`~simhash_lab.Simhasher`'s ``hash``).
    hmm : bool
        Let jieba's HMM guess words missing from its dictionary.
    name : str, optional
        The hasher's name; by default ``"jieba TF-IDF, {bits} bits"``.

    Returns
    -------
    Simhasher

    Raises
    ------
    ImportError
        jieba is not installed.
    """
    table, median = _idf()
    return Simhasher(
        bits=bits,
        tokenizer=jieba_words(hmm=hmm),
        hash=hash,
        weights=table,
        default_weight=median,
        name=name or f"jieba TF-IDF, {bits} bits",
    )


def keywords(text: str, top_k: int = 20) -> list[tuple[str, float]]:
    """The ``top_k`` words of ``text`` by TF-IDF: ``jieba.analyse.extract_tags(text, topK=top_k,
    withWeight=True)`` (TF is the word's share of the text's words; stop words and one-character
    words are left out). Pass the result to ``Simhasher.fingerprint`` to hash it as the C++ project
    does.

    Parameters
    ----------
    text : str
        The text.
    top_k : int
        How many words, 1 to 1,000,000.

    Returns
    -------
    list of (str, float)
        ``(word, TF-IDF)`` pairs, the highest first.

    Raises
    ------
    TypeError
        ``text`` is not a str, or ``top_k`` not an int.
    ValueError
        ``top_k`` is out of range.
    ImportError
        jieba is not installed.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    top_k = check_int("top_k", top_k, 1, 1_000_000)
    load_jieba()
    import jieba.analyse as ja

    return [(w, float(x)) for w, x in ja.extract_tags(text, topK=top_k, withWeight=True)]
