"""Checkers of exercise 01, LSH vs cryptographic hashes: ``md5_64``, the ideal and measured avalanche.

``crypto_flips(pairs)`` and ``simhash_flips(pairs)`` compute means over sentence pairs. The check
cell runs them on the notebook's 40 pairs and on another variant of
:func:`simhash_lab.grading.data.avalanche_pairs`, and grading on variants drawn at grading time, so
a function that returns a mean copied from a ❌ fails in the notebook too.
"""

from __future__ import annotations

import functools
import hashlib
import random
import string

from ..._i18n import N_, _
from .. import data
from ._checker import (
    Exercise,
    Functions,
    Values,
    call,
    case,
    copied_hint,
    data_variants,
    expect_int,
    expect_number,
    returned,
)

__all__ = ["EXERCISE", "md5_64", "ideal_flips", "crypto_flips", "simhash_flips"]


def _md5_64(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)


_VISIBLE = ["rust", "safe", "fast", "", "Simhash", "near-duplicate", "ñandú 汉明距离"]
_ALPHABET = string.ascii_letters + string.digits + " -_.ñüé汉明距离"


def _md5_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        texts = _VISIBLE
    else:
        texts = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 30))) for _ in range(24)]
    return [case(call("md5_64", t), text=t) for t in texts]


def _md5_judge(c: dict, res: list[dict]) -> None:
    text = c["text"]
    what = f"md5_64({text!r})"
    got = returned(res[0], what)
    digest = hashlib.md5(text.encode("utf-8")).hexdigest()
    expect_int(
        got,
        int(digest[:16], 16),
        what,
        _(
            "Take the first 16 hex digits (8 bytes) of hashlib.md5(text.encode('utf-8')).hexdigest() "
            "and read them in base 16."
        ),
        mistakes={
            int(digest[-16:], 16): _("You took the last 16 hex digits; the seed takes the first 16 ([:16])."),
            int(digest, 16): _(
                "That is all 128 bits; keep only the first 16 hex digits ([:16]) for 64 bits."
            ),
        },
    )


md5_64 = Functions(
    "md5_64",
    "md5_64",
    N_("md5_64 matches the seed's SimhashPython._hash_token."),
    ["md5_64"],
    _md5_cases,
    _md5_judge,
)


def _ideal(values: dict, variant: object) -> None:
    expect_number(
        values["ideal_flips"],
        32.0,
        "ideal_flips",
        _(
            "Each of the 64 bits flips with probability 1/2, independently of the others: add up what "
            "each bit contributes on average (linearity of expectation)."
        ),
        show=False,
        mistakes=[
            (0.5, _("That is the probability for one bit; the question asks about all 64 bits.")),
            (
                64.0,
                _(
                    "64 is what every bit flipping would give, and what 128 bits (MD5's whole digest) "
                    "times 1/2 gives: here the hash has 64 bits, and each flips with probability 1/2."
                ),
            ),
        ],
    )


ideal_flips = Values(
    "ideal_flips",
    N_("ideal avalanche"),
    N_("An ideal 64-bit hash flips half its bits: 32 on average."),
    ["ideal_flips"],
    _ideal,
    kinds=N_("a number"),
)


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _mean_flips(fp, variant: int | None) -> float:
    pairs = data.avalanche_pairs(variant=variant)
    return sum(_popcount(fp(a) ^ fp(b)) for a, b in pairs) / len(pairs)


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _crypto_reference(variant: int | None) -> float:
    return _mean_flips(_md5_64, variant)


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _simhash_reference(variant: int | None) -> float:
    from ...presets import DEFAULT

    return _mean_flips(DEFAULT.fingerprint, variant)


def _pairs_cases(name: str, reference):
    def cases(rng: random.Random | None) -> list[dict]:
        return [
            case(call(name, [list(p) for p in data.avalanche_pairs(variant=v)]), variant=v)
            for v in data_variants(rng, reference, 3)
        ]

    return cases


def _mean_judge(name: str, reference, hint: str):
    def judge(c: dict, res: list[dict]) -> None:
        variant = c["variant"]
        exp = reference(variant)
        n = len(data.avalanche_pairs(variant=variant))
        which = (
            _("the notebook's pairs") if variant is None else _("other pairs (another variant of the data)")
        )
        what = _("{name}(pairs) on {which}").format(name=name, which=which)
        got = returned(res[0], what)
        mistakes = [
            (exp * n, _("That is the sum over the {n} pairs; divide by len(pairs) for the mean.").format(n=n))
        ]
        if variant is not None:
            mistakes.append((reference(None), copied_hint(name, "pairs")))
        expect_number(got, exp, what, hint, mistakes=mistakes)

    return judge


crypto_flips = Functions(
    "crypto_flips",
    "crypto_flips",
    N_("MD5's bits flip about half the time: the avalanche effect."),
    ["crypto_flips"],
    _pairs_cases("crypto_flips", _crypto_reference),
    _mean_judge(
        "crypto_flips",
        _crypto_reference,
        N_(
            "For every (a, b) in pairs, count the bits where md5_64(a) and md5_64(b) differ "
            "(hamming counts them); then average over all the pairs."
        ),
    ),
)

simhash_flips = Functions(
    "simhash_flips",
    "simhash_flips",
    N_("Simhash moves only a few bits for a one-letter edit: it is locality sensitive."),
    ["simhash_flips"],
    _pairs_cases("simhash_flips", _simhash_reference),
    _mean_judge(
        "simhash_flips",
        _simhash_reference,
        N_(
            "The same mean as crypto_flips, with the fingerprints of the library's default "
            "Simhasher() in place of md5_64."
        ),
    ),
)

EXERCISE = Exercise("01_lsh_vs_crypto", (md5_64, ideal_flips, crypto_flips, simhash_flips))
