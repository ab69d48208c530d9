"""Checkers of exercise 04, Charikar's random hyperplanes: a signature, the inverse of
E[d_H] = bits·θ/π, and the measured mean distance ``mean_hamming(u, v)`` (checked on the notebook's
vectors and on other pairs at 30°, so a copied mean fails)."""

from __future__ import annotations

import functools
import math
import random

import numpy as np

from ..._i18n import N_, _
from .. import data
from ._checker import (
    Exercise,
    Functions,
    call,
    case,
    copied_hint,
    data_variants,
    expect_int,
    expect_number,
    f64,
    returned,
)

__all__ = ["EXERCISE", "signature", "estimate_theta", "mean_hamming"]


def _signature_ref(u: np.ndarray, R: np.ndarray, strict: bool = False) -> int:
    dots = R @ u
    return sum(1 << i for i, d in enumerate(dots) if (d > 0 if strict else d >= 0))


def _sig_cases(rng: random.Random | None) -> list[dict]:
    from ...geometry import hyperplanes

    out = []
    if rng is None:
        g = np.random.default_rng(11)
        specs = [
            (np.zeros(3), hyperplanes(3, 8, 0), _("the zero vector (every dot product is 0, and 0 >= 0)"))
        ]
        for seed, (dim, bits) in enumerate([(2, 4), (3, 16), (10, 64), (50, 64), (5, 1)]):
            specs.append((g.standard_normal(dim), hyperplanes(dim, bits, seed), f"dim={dim}, bits={bits}"))
    else:
        g = np.random.default_rng(rng.getrandbits(64))
        specs = [(np.zeros(4), g.standard_normal((64, 4)), _("the zero vector"))]
        while len(specs) < 16:
            dim, bits = int(g.integers(1, 60)), int(g.choice([1, 7, 16, 33, 63, 64]))
            u, R = g.standard_normal(dim) * g.uniform(0.1, 10), g.standard_normal((bits, dim))
            if np.min(np.abs(R @ u)) > 1e-9:  # no dot product so near 0 that rounding could flip it
                specs.append((u, R, f"dim={dim}, bits={bits}"))
    for u, R, label in specs:
        out.append(case(call("signature", f64(u), f64(R)), u=u.tolist(), R=R.tolist(), label=label))
    return out


def _sig_judge(c: dict, res: list[dict]) -> None:
    u, R = np.array(c["u"], dtype=np.float64), np.array(c["R"], dtype=np.float64)
    what = _("signature(u, R) for {v0}").format(v0=c["label"])
    exp = _signature_ref(u, R)
    mistakes = {}
    strict = _signature_ref(u, R, strict=True)
    if strict != exp:
        mistakes[strict] = _("A dot product of exactly 0 counts as bit 1 (the session's convention: >= 0).")
    if exp >= 2**63:
        mistakes[exp - 2**64] = _(
            "A negative number: 1 << 63 overflowed a signed int64. Build the signature with "
            "Python ints (int(1) << i), not NumPy's."
        )
    expect_int(
        returned(res[0], what),
        exp,
        what,
        _("Bit i is 1 when R[i] @ u >= 0; the signature is the sum of 1 << i over those i."),
        mistakes=mistakes,
    )


signature = Functions(
    "signature",
    "signature",
    N_("Your random-hyperplane signature matches hyperplane_signatures bit for bit."),
    ["signature"],
    _sig_cases,
    _sig_judge,
)


def _theta_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        db = [(0, 64), (32, 64), (64, 64), (2, 64), (5, 16), (1, 4)]
    else:
        db = []
        for _unused in range(12):
            bits = rng.choice([1, 4, 8, 16, 32, 48, 64])
            db.append((rng.randint(0, bits), bits))
    return [case(call("estimate_theta", d, bits), d=d, bits=bits) for d, bits in db]


def _theta_judge(c: dict, res: list[dict]) -> None:
    d, bits = c["d"], c["bits"]
    what = f"estimate_theta({d}, {bits})"
    exp = math.pi * d / bits
    expect_number(
        returned(res[0], what),
        exp,
        what,
        _("Solve d = bits * θ / π for θ, in radians."),
        tol=1e-9 * max(1.0, exp),
        mistakes=[(math.degrees(exp), _("That is in degrees; return radians."))] if d else [],
    )


estimate_theta = Functions(
    "estimate_theta",
    "estimate_theta",
    N_("θ̂ = π·d/bits: the inverse of E[d_H] = bits·θ/π."),
    ["estimate_theta"],
    _theta_cases,
    _theta_judge,
)


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _mean_reference(variant: int | None) -> float:
    from ...geometry import hyperplane_signatures

    u, v = data.hyperplane_pair(variant=variant)
    X = np.stack([u, v])
    ds = []
    for seed in range(200):
        s = hyperplane_signatures(X, 64, seed)
        ds.append(bin(int(s[0]) ^ int(s[1])).count("1"))
    return sum(ds) / len(ds)


def _mean_cases(rng: random.Random | None) -> list[dict]:
    out = []
    for variant in data_variants(rng, _mean_reference, 2):
        u, v = data.hyperplane_pair(variant=variant)
        out.append(case(call("mean_hamming", f64(u), f64(v)), variant=variant))
    return out


def _mean_judge(c: dict, res: list[dict]) -> None:
    variant = c["variant"]
    which = _("the notebook's u, v") if variant is None else _("another pair of vectors at 30°")
    what = _("mean_hamming(u, v) on {which}").format(which=which)
    exp = _mean_reference(variant)
    theory = 64 * math.radians(30) / math.pi
    mistakes = [(theory, _("That is the theory's 64·θ/π; measure the mean over the 200 seeds instead."))]
    if variant is not None:
        mistakes.append((_mean_reference(None), copied_hint("mean_hamming", "u, v")))
    expect_number(
        returned(res[0], what),
        exp,
        what,
        _(
            "For each seed in range(200): the 64-bit signatures of u and v drawn with that seed, and their "
            "Hamming distance; return the mean of the 200 distances."
        ),
        mistakes=mistakes,
    )


mean_hamming = Functions(
    "mean_hamming",
    "mean_hamming",
    N_("The measured mean distance is right; compare it with 64·θ/π above."),
    ["mean_hamming"],
    _mean_cases,
    _mean_judge,
)

EXERCISE = Exercise("04_charikar_hyperplanes", (signature, estimate_theta, mean_hamming))
