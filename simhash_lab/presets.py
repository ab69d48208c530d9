"""Simhashers that reproduce real programs bit for bit.

* ``SEED_PYTHON``: the session's ``SimhashPython.compute`` (``text.lower().split()``, counts,
  ``int(md5(token).hexdigest()[:16], 16)``).
* ``SEED_RUST``: the session's Rust ``Simhash::compute`` (``split_whitespace``, trim
  non-alphanumerics, case kept, counts, ``DefaultHasher`` = SipHash-1-3 with keys (0, 0) over the
  UTF-8 bytes and one 0xFF byte).
* ``LEONSIM``: ``simhash.Simhash(text).value`` from the `simhash` package on PyPI (lowercase, ``\\w``
  runs joined, character 4-grams, counts, the last 8 bytes of md5).

>>> SEED_RUST.fingerprint("rust safe fast")
13163702389499390377
"""

from __future__ import annotations

from .simhasher import Simhasher
from .tokenize import leonsim_ngrams, rust_words, whitespace

__all__ = ["SEED_PYTHON", "SEED_RUST", "LEONSIM", "DEFAULT", "ALL"]

DEFAULT = Simhasher(name="default")
SEED_PYTHON = Simhasher(tokenizer=whitespace(), hash="md5", name="SEED_PYTHON")
SEED_RUST = Simhasher(tokenizer=rust_words(), hash="siphash13-rust", name="SEED_RUST")
LEONSIM = Simhasher(tokenizer=leonsim_ngrams(), hash="md5-last8", name="LEONSIM")

ALL = {"default": DEFAULT, "seed_python": SEED_PYTHON, "seed_rust": SEED_RUST, "leonsim": LEONSIM}
