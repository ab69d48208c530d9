"""Character-class tables for the Numba tokenizers, built lazily from well-kept Unicode sources.

One uint8 table indexed by code point (0..0x10FFFF); each class is one bit. A class is computed the
first time a tokenizer needs it (about 20-60 ms each) and cached for the life of the process:

* ``WORD``: Python's ``re`` ``\\w`` (``str.isalnum()`` or ``_``), so the default tokenizer equals
  ``re.findall(r"\\w+", text)`` on the running Python, and ``simhash``'s own tokenizer too.
* ``PYSPACE``: ``str.isspace()``, i.e. what ``str.split()`` splits on (the seed's Python code).
* ``RUSTSPACE``: Unicode ``White_Space``, what Rust's ``str::split_whitespace`` splits on.
* ``RUSTALNUM``: ``Alphabetic`` or a number category (Nd, Nl, No): Rust's ``char::is_alphanumeric``.
  The last two come from the ``regex`` package's Unicode property tables.
* ``UNSPACED``: the letters of the scripts written without word spaces (``UNSPACED_SCRIPTS``:
  Chinese, Japanese kana, Thai, Lao, Khmer, Myanmar, Tibetan), which dedup shingles by characters.
"""

from __future__ import annotations

import re
import threading

import numpy as np

WORD = 1
PYSPACE = 2
RUSTSPACE = 4
RUSTALNUM = 8
UNSPACED = 16

#: the scripts written without spaces between words: their text is shingled by characters
UNSPACED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan")

_PATTERNS = {
    WORD: lambda: re.compile(r"\w+"),
    PYSPACE: lambda: re.compile(r"\s+"),
    RUSTSPACE: lambda: __import__("regex").compile(r"\p{White_Space}+"),
    RUSTALNUM: lambda: __import__("regex").compile(r"[\p{Alphabetic}\p{N}]+"),
    UNSPACED: lambda: __import__("regex").compile(
        "[" + "".join(f"\\p{{Script={s}}}" for s in UNSPACED_SCRIPTS) + "]+"
    ),
}

_FORMAT = None


def normalise(text: str) -> str:
    """``text`` as the dedup pipeline compares it: NFKC (compatibility forms folded: full-width
    letters, ligatures, ...) and the format characters (category Cf: U+200B zero-width space,
    U+00AD soft hyphen, U+200D, U+2060, U+FEFF...) dropped, so an invisible edit does not hide a copy.
    ASCII text is returned as it is (it is already so)."""
    global _FORMAT
    if text.isascii():
        return text
    import unicodedata

    if _FORMAT is None:
        _FORMAT = __import__("regex").compile(r"\p{Cf}+")
    text = _FORMAT.sub("", text)
    return unicodedata.normalize("NFKC", text)


_table = np.zeros(0x110000, dtype=np.uint8)
_built = 0
_lock = threading.Lock()


def _all_code_points() -> str:
    cps = np.arange(0x110000, dtype=np.uint32)
    cps[0xD800:0xE000] = 0  # surrogates cannot be in a str that encodes to UTF-8; NUL stands in
    return cps.tobytes().decode("utf-32-le")


_lower: np.ndarray | None = None


def lower_table() -> np.ndarray:
    """uint32 (0x110000,): each code point's ``str.lower()``, where that is one code point.

    Python lowers every character on its own except two: U+0130 (to two code points) and U+03A3
    (final sigma depends on the neighbours). Texts holding either are lowered by Python itself
    (see ``needs_python_lower``); their entries here are left unchanged.
    """
    global _lower
    if _lower is None:
        text = _all_code_points().replace("\u0130", "\0")
        low = np.frombuffer(text.lower().encode("utf-32-le"), dtype=np.uint32).copy()
        low[0x130] = 0x130
        low[0x3A3] = 0x3A3
        low[0xD800:0xE000] = np.arange(0xD800, 0xE000, dtype=np.uint32)
        low[0] = 0
        _lower = low
    return _lower


def needs_python_lower(text: str) -> bool:
    """True when ``text`` has a character whose lowercase depends on more than itself."""
    return "\u0130" in text or "\u03a3" in text


def char_table(classes: int) -> np.ndarray:
    """The shared class table with at least ``classes`` (an OR of the bits above) filled in."""
    global _built
    if _built & classes == classes:
        return _table
    with _lock:
        missing = classes & ~_built
        if missing:
            text = _all_code_points()
            for bit, make in _PATTERNS.items():
                if missing & bit:
                    for m in make().finditer(text):
                        _table[m.start() : m.end()] |= bit
            _table[0xD800:0xE000] = 0
            _table[0] = 0  # NUL stood in for the surrogates; it is in no class anyway
            _built |= missing
    return _table
