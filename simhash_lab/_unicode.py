"""Character-class tables for the Numba tokenizers, built lazily from well-kept Unicode sources.

One uint8 table indexed by code point (0..0x10FFFF); each class is one bit. A class is computed the
first time a tokenizer needs it (about 20-60 ms each) and cached for the life of the process, and
as its runs of code points in the kernels' cache folder (``stored``), so that a new process loads
it in a millisecond instead:

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

import os
import platform
import re
import threading
import unicodedata
from collections.abc import Callable

import numpy as np

from ._cache import cache_dir

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

_RE_CLASSES = (WORD, PYSPACE)  # from Python's own re; the others from the regex package

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


def stored(name: str, build: Callable[[], np.ndarray], versions: str = "") -> np.ndarray:
    """``build()``, kept between processes in the kernels' cache folder (:func:`simhash_lab._cache.cache_dir`)
    as ``unicode-<name>-py<Python version>-ucd<Unicode version><versions>.npy``: what decides the
    content (Python's ``re`` and ``str`` follow the running Python's Unicode database; ``versions``
    names any other source, such as the ``regex`` package) is in the name, so a file never serves
    another version. A file that cannot be read is built again; one that cannot be written (a
    read-only cache) is skipped.

    Parameters
    ----------
    name : str
        What the array is (one name per table).
    build : callable
        Makes the array (int or uint, no objects) when no file holds it.
    versions : str, optional
        The versions of other sources the content depends on.

    Returns
    -------
    ndarray
    """
    key = f"py{platform.python_version()}-ucd{unicodedata.unidata_version}{versions}"
    path = os.path.join(cache_dir(), f"unicode-{name}-{key}.npy")
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError):
        pass
    arr = build()
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            np.save(f, arr, allow_pickle=False)
        os.replace(tmp, path)  # whole or not at all, for a process reading it meanwhile
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return arr


def _runs(bit: int) -> np.ndarray:
    """int64 (k, 2): the runs [start, end) of the code points in class ``bit``."""
    text = _all_code_points()
    runs = [(m.start(), m.end()) for m in _PATTERNS[bit]().finditer(text)]
    return np.array(runs, dtype=np.int64).reshape(-1, 2)


def _lower_changes() -> np.ndarray:
    """int64 (k, 2): (code point, its lowercase) wherever ``str.lower()`` changes one code point
    into one other (the entries of ``lower_table`` that are not the identity)."""
    text = _all_code_points().replace("\u0130", "\0")
    low = np.frombuffer(text.lower().encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    low[0x130] = 0x130
    low[0x3A3] = 0x3A3
    low[0xD800:0xE000] = np.arange(0xD800, 0xE000)
    low[0] = 0
    cps = np.flatnonzero(low != np.arange(0x110000))
    return np.stack([cps, low[cps]], axis=1)


_lower: np.ndarray | None = None


def lower_table() -> np.ndarray:
    """uint32 (0x110000,): each code point's ``str.lower()``, where that is one code point.

    Python lowers every character on its own except two: U+0130 (to two code points) and U+03A3
    (final sigma depends on the neighbours). Texts holding either are lowered by Python itself
    (see ``needs_python_lower``); their entries here are left unchanged.
    """
    global _lower
    if _lower is None:
        changes = stored("lower", _lower_changes)
        low = np.arange(0x110000, dtype=np.uint32)
        low[changes[:, 0]] = changes[:, 1]
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
            for bit in _PATTERNS:
                if missing & bit:
                    versions = "" if bit in _RE_CLASSES else f"-regex{__import__('regex').__version__}"
                    for start, end in stored(f"class{bit}", lambda bit=bit: _runs(bit), versions):
                        _table[start:end] |= bit
            _table[0xD800:0xE000] = 0
            _table[0] = 0  # NUL stood in for the surrogates; it is in no class anyway
            _built |= missing
    return _table
