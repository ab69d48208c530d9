"""The exercises' data: small, deterministic, generated here so checkers and notebooks agree.

Checkers never take data from the notebook (a learner could redefine it); they call these
functions themselves. Every function returns a fresh copy, so mutating it changes nothing here.
Randomness comes from :class:`random.Random` with fixed seeds (its integer stream is stable across
Python versions, unlike NumPy's ``Generator.choice``), so stored outputs stay true.

Variants
--------
Every data function takes ``variant``: None (the default) is the data the notebooks show; an int
gives other data of the same kind (other edits, other vectors, another corpus with another best
k). An answer computed from the data is a function of it (``crypto_flips(pairs)``): its check cell
calls it on the notebook's data and on variant 1, and ``simhash-lab grade`` on variants drawn at
grading time, each judged against the same variant in the grader's own process, so a value pasted
from a ❌ of the visible data is wrong in the notebook and in the grade. (:func:`use_variant` sets
the default variant of a whole process, for a notebook that should run on other data.)

The data of the answers worked out by hand (:func:`rust_safe_fast_hashes`, :func:`six_accumulators`,
:func:`hamming_pairs`) has variants too: ``simhash-lab assign`` gives each student one, which their
notebook shows and calls :func:`use_variant` with, and those answers are judged on it. So these
three follow the *shown* variant: ``use_variant(v)`` sets both, and the grader's sandbox sets the
hidden variant for the others and the student's for these (``use_variant(hidden, shown=v)``), so a
hand answer computed in its cell from these functions gets the data the student was shown.

>>> avalanche_pairs()[0] == avalanche_pairs(variant=None)[0] != avalanche_pairs(variant=7)[0]
True
"""

from __future__ import annotations

import bisect
import random
from functools import lru_cache

import numpy as np

_VARIANT: list[int | None] = [None]
_SHOWN: list[int | None] = [None]
_SAME = object()


def use_variant(variant: int | None, shown: int | None | object = _SAME) -> None:
    """Make ``variant`` the default of every data function in this process (None: the notebooks'
    own data); ``shown`` (default: the same) that of the data the text shows and the learner works
    out by hand (:func:`rust_safe_fast_hashes`, :func:`six_accumulators`, :func:`hamming_pairs`).
    The grader's sandbox calls it before a notebook's first cell, with the hidden variant and the
    student's."""
    for name, v in (("variant", variant), ("shown", None if shown is _SAME else shown)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError(f"{name} must be an int or None, got {type(v).__name__}")
    _VARIANT[0] = variant
    _SHOWN[0] = variant if shown is _SAME else shown


def current_variant() -> int | None:
    """The variant the data functions use when none is given."""
    return _VARIANT[0]


def shown_variant() -> int | None:
    """The variant the data worked out by hand follows when none is given (see :func:`use_variant`)."""
    return _SHOWN[0]


def _pick(variant: int | None) -> int | None:
    return _VARIANT[0] if variant is None else variant


def _shown(variant: int | None) -> int | None:
    return _SHOWN[0] if variant is None else variant


def _rng(variant: int | None, seed: int, salt: str) -> random.Random:
    """The generator of one data function: its fixed ``seed`` for the notebooks' data, else one
    derived from the variant and the function (``salt``), so variants of two functions differ."""
    return random.Random(seed if variant is None else f"{salt}:{variant}")


#: The session's made-up 4-bit hashes for "rust safe fast" (source 000).
RUST_SAFE_FAST_HASHES = {"rust": 0b0011, "safe": 0b0101, "fast": 0b0111}

#: The Chinese source's six accumulators (source 004): [13, 108, -22, -5, -32, 55] -> 110001.
SIX_ACCUMULATORS = (13, 108, -22, -5, -32, 55)


# -- the data of the answers worked out by hand (a student's variant: ``simhash-lab assign``) --------


def rust_safe_fast_hashes(variant: int | None = None) -> dict[str, int]:
    """The 4-bit hashes of "rust safe fast" (exercise 02): the session's (:data:`RUST_SAFE_FAST_HASHES`),
    or a variant's: three different 4-bit hashes, none 0."""
    variant = _shown(variant)
    if variant is None:
        return dict(RUST_SAFE_FAST_HASHES)
    hashes = _rng(variant, 0, "rust_safe_fast").sample(range(1, 16), 3)
    return dict(zip(RUST_SAFE_FAST_HASHES, hashes))


def six_accumulators(variant: int | None = None) -> tuple[int, ...]:
    """Six accumulators of a 6-bit Simhash (exercise 02): source 004's (:data:`SIX_ACCUMULATORS`), or
    a variant's: none 0, their signs no palindrome (so both bit orders give different answers)."""
    variant = _shown(variant)
    if variant is None:
        return SIX_ACCUMULATORS
    rng = _rng(variant, 0, "six")
    while True:
        v = tuple(rng.choice((-1, 1)) * rng.randint(1, 120) for _ in range(6))
        signs = [x > 0 for x in v]
        if signs != signs[::-1]:
            return v


def hamming_pairs(variant: int | None = None) -> tuple[tuple[int, int], tuple[int, int]]:
    """``((A, B), (C, D))``: the pairs of exercise 03 worked out by hand, A and B of 6 bits, C and D
    of 7 (written with all their digits): the sources' ``100111``/``101010`` and
    ``1011101``/``1001001``, or a variant's (each pair 2 to 5 bits apart)."""
    variant = _shown(variant)
    if variant is None:
        return (0b100111, 0b101010), (0b1011101, 0b1001001)
    rng = _rng(variant, 0, "hamming")
    out = []
    for n in (6, 7):
        while True:
            a, b = rng.getrandbits(n) | 1 << (n - 1), rng.getrandbits(n) | 1 << (n - 1)
            if 2 <= bin(a ^ b).count("1") <= 5:
                out.append((a, b))
                break
    return out[0], out[1]


_SENTENCES = (
    "simhash finds near duplicates in a sea of web pages",
    "rust is safe and rust is fast",
    "the quick brown fox jumps over the lazy dog",
    "a cryptographic hash changes completely when one character changes",
    "locality sensitive hashing keeps similar things close",
    "google used simhash to drop near duplicate pages while crawling",
    "two documents that differ in one word should get similar fingerprints",
    "hamming distance counts the bits where two fingerprints differ",
)


def _edit_one_char(s: str, rng: random.Random) -> str:
    """``s`` with one letter replaced by a different letter (never a space)."""
    letters = [i for i, c in enumerate(s) if c.isalpha()]
    i = letters[rng.randrange(len(letters))]
    c = s[i]
    new = c
    while new == c:
        new = chr(ord("a") + rng.randrange(26))
    return s[:i] + new + s[i + 1 :]


@lru_cache(maxsize=8)
def _avalanche_pairs(variant: int | None) -> tuple:
    rng = _rng(variant, 1, "avalanche")
    return tuple((s, _edit_one_char(s, rng)) for s in _SENTENCES for _ in range(5))


def avalanche_pairs(variant: int | None = None) -> list[tuple[str, str]]:
    """40 pairs ``(sentence, the same sentence with one letter changed)``."""
    return list(_avalanche_pairs(_pick(variant)))


def hyperplane_pair(variant: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two vectors in 50 dimensions at exactly 30 degrees: ``(u, v)``, float64 arrays of shape (50,)."""
    rng = _rng(_pick(variant), 4, "hyperplanes")
    a = np.array([rng.gauss(0.0, 1.0) for _ in range(50)])
    b = np.array([rng.gauss(0.0, 1.0) for _ in range(50)])
    e1 = a / np.linalg.norm(a)
    b = b - (b @ e1) * e1
    e2 = b / np.linalg.norm(b)
    t = np.deg2rad(30.0)
    return 2.0 * e1, 3.0 * (np.cos(t) * e1 + np.sin(t) * e2)


@lru_cache(maxsize=8)
def _block_fingerprints(variant: int | None) -> tuple:
    rng = _rng(variant, 5, "blocks")
    fps = [rng.getrandbits(64) for _ in range(2000)]
    for i in range(0, 400, 2):  # plant near copies: 1..5 flipped bits
        f = fps[i]
        for b in rng.sample(range(64), rng.randint(1, 5)):
            f ^= 1 << b
        fps[i + 1] = f
    queries = []
    for i in range(0, 60, 2):
        q = fps[i]
        for b in rng.sample(range(64), rng.randint(0, 3)):
            q ^= 1 << b
        queries.append(q)
    queries += [rng.getrandbits(64) for _ in range(10)]
    return tuple(fps), tuple(queries)


def block_fingerprints(variant: int | None = None) -> tuple[list[int], list[int]]:
    """``(fps, queries)``: 2000 64-bit fingerprints (pairs of near copies among the first 400) and
    40 queries (30 near a stored fingerprint, 10 random), all Python ints."""
    fps, queries = _block_fingerprints(_pick(variant))
    return list(fps), list(queries)


_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "sa",
    "to",
    "vi",
    "ze",
    "po",
    "da",
    "fe",
    "gu",
    "hi",
    "jo",
    "qua",
    "re",
    "si",
    "tu",
    "wa",
)


# The share of words edited in the exercises' corpus (``near_dup_corpus()``): up to 12% in a near
# duplicate, 25-60% in a rewrite. Course notebook 06 prints them beside its own, different rates.
NEAR_DUP_RATES = {"near duplicate": (0.0, 0.12), "rewrite": (0.25, 0.6)}


@lru_cache(maxsize=8)
def _near_dup_corpus(variant: int | None) -> tuple:
    rng = _rng(variant, 2024, "corpus")
    if variant is None:  # the notebooks' corpus: up to 12% edited is a near duplicate
        near_max, far = NEAR_DUP_RATES["near duplicate"][1], NEAR_DUP_RATES["rewrite"]
    else:  # another corpus, another threshold, so another best k
        near_max = rng.uniform(0.04, 0.3)
        lo = near_max + rng.uniform(0.08, 0.2)
        far = (lo, min(0.95, lo + rng.uniform(0.2, 0.4)))
    vocab = sorted({"".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(3000)})
    cum = []
    total = 0.0
    for r in range(1, len(vocab) + 1):  # Zipf: common words are shared by unrelated documents
        total += 1.0 / r
        cum.append(total)
    draw, last = rng.random, len(vocab) - 1

    def word() -> str:  # rng.choices(vocab, cum_weights=cum)[0], draw for draw, without its checks
        return vocab[bisect.bisect(cum, draw() * total, 0, last)]

    def edit(words: list[str], m: int) -> list[str]:
        w = list(words)
        for _ in range(m):
            op, i = rng.randrange(3), rng.randrange(len(w))
            if op == 0:
                w[i] = word()
            elif op == 1:
                w.insert(i, word())
            elif len(w) > 1:
                del w[i]
        return w

    docs: list[str] = []
    pairs: list[tuple[int, int]] = []
    labels: list[bool] = []
    for _ in range(150):
        base = [word() for _ in range(rng.randint(40, 120))]
        docs.append(" ".join(base))
        b = len(docs) - 1
        # a near duplicate: up to 12% of the words edited
        docs.append(" ".join(edit(base, round(rng.uniform(0.0, near_max) * len(base)))))
        pairs.append((b, len(docs) - 1))
        labels.append(True)
        # a different document on the same template: 25..60% of the words edited
        docs.append(" ".join(edit(base, round(rng.uniform(*far) * len(base)))))
        pairs.append((b, len(docs) - 1))
        labels.append(False)
    for _ in range(150):  # unrelated pairs
        a, c = rng.sample(range(len(docs)), 2)
        pairs.append((a, c))
        labels.append(False)
    return tuple(docs), tuple(pairs), tuple(labels)


def near_dup_corpus(variant: int | None = None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(docs, pairs, labels)``: 450 short documents, 450 labelled pairs.

    ``pairs`` is an int64 array of shape (450, 2) of indices into ``docs``; ``labels`` a bool array of
    shape (450,), True for a near duplicate (a copy with up to 12% of its words edited). The negatives
    are documents rewritten by 25-60% from the same source, and unrelated pairs. (A variant draws
    its own thresholds: its near duplicates have up to 4-30% of their words edited.)
    """
    docs, pairs, labels = _near_dup_corpus(_pick(variant))
    return list(docs), np.array(pairs, dtype=np.int64), np.array(labels, dtype=bool)


#: The public names: every function defined here and every constant (upper case) not named ``_*``.
#: An exercise's data is a function added above, nothing to register.
__all__ = sorted(
    name
    for name, value in globals().items()
    if not name.startswith("_")
    and (name.isupper() or (callable(value) and getattr(value, "__module__", None) == __name__))
)
