"""Checkers of exercise 06, choosing k: the labelled pairs' distances, precision and recall, the
F1-best k.

``pair_distances(docs, pairs)`` and ``best_k(distances, labels)`` are checked on the notebook's
corpus and on another variant of :func:`simhash_lab.grading.data.near_dup_corpus` (its own edit
rates, so its best k differs), and graded on variants drawn at grading time: a function that
returns what a ❌ showed for the notebook's corpus fails in the notebook too.
"""

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
    Raw,
    Wrong,
    call,
    case,
    copied_hint,
    data_variants,
    expect_int,
    flags,
    i64,
    returned,
)

__all__ = ["EXERCISE", "pair_distances", "precision_recall", "best_k"]


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _distances(variant: int | None) -> list[int]:
    from ...hamming import hamming
    from ...presets import DEFAULT

    docs, pairs, _unused = data.near_dup_corpus(variant=variant)
    fps = DEFAULT.fingerprints(docs)
    return [int(d) for d in hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])]


def _which(variant: int | None) -> str:
    return (
        _("the notebook's corpus") if variant is None else _("another corpus (another variant of the data)")
    )


def _distances_cases(rng: random.Random | None) -> list[dict]:
    out = []
    for variant in data_variants(rng, _distances, 2):
        docs, pairs, _unused = data.near_dup_corpus(variant=variant)
        out.append(case(call("pair_distances", docs, {"$i64": pairs.tolist()}), variant=variant))
    return out


def _distances_judge(c: dict, res: list[dict]) -> None:
    variant = c["variant"]
    what = _("pair_distances(docs, pairs) on {which}").format(which=_which(variant))
    got = returned(res[0], what)
    exp = _distances(variant)
    if type(got) is not list or len(got) != len(exp) or any(type(d) not in (int, float) for d in got):
        raise Wrong(
            _(
                "Return one Hamming distance per row of pairs: an array (or a list) of ints, "
                "as long as pairs."
            ),
            expected=Raw(f"{len(exp)} distances"),
            got=Raw(_describe(got)),
        )
    if variant is not None and got == _distances(None):
        raise Wrong(copied_hint("pair_distances", "docs, pairs"))
    i = next((i for i, (a, b) in enumerate(zip(got, exp)) if a != b), None)
    if i is not None:
        raise Wrong(
            _(
                "Fingerprint every document with Simhasher() (the default; `.fingerprints` for the batch), "
                "then, for each row (i, j) of pairs, the Hamming distance of documents i and j."
            ),
            expected=Raw(_("{v0} for pair {i} of {what}").format(v0=exp[i], i=i, what=what)),
            got=got[i],
        )


def _describe(x: object) -> str:
    if type(x) is list:
        return _("a list of {len}").format(len=len(x))
    return f"a {type(x).__name__}"


pair_distances = Functions(
    "pair_distances",
    "pair_distances",
    N_("One Hamming distance per labelled pair, all right."),
    ["pair_distances"],
    _distances_cases,
    _distances_judge,
)


def _pr(d: np.ndarray, labels: np.ndarray, k: int) -> tuple[float, float]:
    pred = d <= k
    tp = int(np.sum(pred & labels))
    npred, npos = int(np.sum(pred)), int(np.sum(labels))
    return (tp / npred if npred else 1.0), (tp / npos if npos else 1.0)


def _pr_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        g = np.random.default_rng(12)
        specs = [
            (np.array([0, 1, 5, 9]), np.array([True, True, False, True]), 3),
            (np.array([4, 7]), np.array([True, False]), 2),  # nothing flagged: precision 1.0
            (np.array([0, 1, 2]), np.array([True, True, True]), 64),
        ]
        for _unused in range(8):
            n = int(g.integers(5, 40))
            specs.append((g.integers(0, 30, n), g.random(n) < 0.4, int(g.integers(0, 20))))
        _unused, _unused, labels = data.near_dup_corpus(variant=None)
        specs.append((np.array(_distances(None)), labels, 4))
    else:
        g = np.random.default_rng(rng.getrandbits(64))
        specs = [(np.array([9, 12]), np.array([True, False]), int(g.integers(0, 8)))]
        while len(specs) < 14:
            n = int(g.integers(3, 60))
            specs.append((g.integers(0, 40, n), g.random(n) < g.uniform(0.1, 0.9), int(g.integers(0, 30))))
    out = []
    for d, labels, k in specs:
        if not labels.any():
            continue
        out.append(
            case(
                call("precision_recall", i64(d), flags(labels), k),
                d=d.tolist(),
                labels=labels.tolist(),
                k=k,
            )
        )
    return out


def _pr_judge(c: dict, res: list[dict]) -> None:
    d, labels, k = np.array(c["d"]), np.array(c["labels"], dtype=bool), c["k"]
    what = f"precision_recall(distances, labels, {k})"
    got = returned(res[0], what)
    if type(got) is not list or len(got) != 2 or any(type(v) not in (int, float) for v in got):
        raise Wrong(_("Return two numbers: (precision, recall)."), got=Raw(_describe(got)))
    p, r = (float(v) for v in got)
    exp = _pr(d, labels, k)
    if (
        all(math.isfinite(v) for v in (p, r))
        and math.isclose(p, exp[0], abs_tol=1e-9)
        and math.isclose(r, exp[1], abs_tol=1e-9)
    ):
        return
    hint = _(
        "Flag distance <= k. precision = TP / flagged (1.0 when nothing is flagged), "
        "recall = TP / actual near duplicates."
    )
    close = lambda a, b: math.isfinite(a) and math.isclose(a, b, abs_tol=1e-9)  # noqa: E731
    if close(p, exp[1]) and close(r, exp[0]):
        hint = _("Precision and recall are swapped.")
    elif k > 0 and all(close(a, b) for a, b in zip((p, r), _pr(d, labels, k - 1))):
        hint = _("Flag distance <= k (at most k bits), not < k.")
    shown = (
        f"({exp[0]:.4f}, {exp[1]:.4f}) for k={k}, distances={_short(c['d'])}, labels={_short(c['labels'])}"
    )
    raise Wrong(hint, expected=Raw(shown), got=Raw(f"({p:.4f}, {r:.4f})"))


def _short(xs: list) -> str:
    s = str([int(x) for x in xs])
    return s if len(s) <= 50 else s[:47] + "..."


precision_recall = Functions(
    "precision_recall",
    "precision_recall",
    N_("Precision and recall are right, edge cases included."),
    ["precision_recall"],
    _pr_cases,
    _pr_judge,
)


def _f1s_of(d: np.ndarray, labels: np.ndarray) -> list[float]:
    out = []
    for k in range(65):
        p, r = _pr(d, labels, k)
        out.append(2 * p * r / (p + r) if p + r else 0.0)
    return out


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _f1s(variant: int | None) -> list[float]:
    return _f1s_of(np.array(_distances(variant)), data.near_dup_corpus(variant=variant)[2])


@functools.lru_cache(maxsize=32)  # a variant's reference, for every notebook graded on it
def _best_k(variant: int | None) -> int:
    return int(np.argmax(_f1s(variant)))


def _plateau(rng: random.Random) -> tuple[list[int], list[bool]]:
    """Labelled distances whose F1 is 1 on a run of k (every positive at most ``a`` bits apart, every
    negative more than ``b``): the largest F1 is a tie, and the smallest such k is ``a``."""
    a = rng.randint(1, 12)
    b = a + rng.randint(2, 6)
    pos = [rng.randint(0, a) for _ in range(rng.randint(3, 9))] + [a]
    neg = [rng.randint(b + 1, 40) for _ in range(rng.randint(3, 9))]
    d = pos + neg
    order = list(range(len(d)))
    rng.shuffle(order)
    return [d[i] for i in order], [i < len(pos) for i in order]


#: Labelled distances no corpus gives: F1 tied at its largest on k = 2..5 (the smallest is the
#: answer), and one pair of each label where k = 0 flags only the negative (precision and recall
#: both 0, so F1's 2PR / (P + R) needs its guard).
_SMALL = [([1, 2, 6, 9], [True, True, False, False]), ([0, 5], [False, True])]


def _best_k_cases(rng: random.Random | None) -> list[dict]:
    out = []
    for variant in data_variants(rng, _best_k, 3):
        labels = data.near_dup_corpus(variant=variant)[2]
        out.append(case(call("best_k", i64(_distances(variant)), flags(labels)), variant=variant))
    small = list(_SMALL) + ([_plateau(rng) for _ in range(2)] if rng is not None else [])
    for d, labels in small:
        out.append(case(call("best_k", i64(d), flags(labels)), d=d, labels=labels))
    return out


def _best_k_judge(c: dict, res: list[dict]) -> None:
    if "d" in c:  # labelled distances of its own (a tie, P + R = 0)
        d, labels = np.array(c["d"]), np.array(c["labels"], dtype=bool)
        what = f"best_k({_short(c['d'])}, {_short(c['labels'])})"
        f1 = _f1s_of(d, labels)
        got = returned(res[0], what)
        exp = int(np.argmax(f1))
        top = [k for k in range(65) if f1[k] == f1[exp]]
        hint = _(
            "Compute F1 = 2PR / (P + R) with precision_recall for every k in range(65) and return the k "
            "with the largest F1 (the smallest such k on a tie)."
        )
        if type(got) is int and got in top and got != exp:
            hint = _(
                "F1 is largest on several k here ({top}): return the smallest of them (compare with >, "
                "not >=, or use np.argmax, which returns the first)."
            ).format(top=f"{top[0]}..{top[-1]}")
        expect_int(got, exp, what, hint)
        return
    variant = c["variant"]
    what = _("best_k(distances, labels) on {which}").format(which=_which(variant))
    f1 = _f1s(variant)
    exp = int(np.argmax(f1))
    got = returned(res[0], what)
    if variant is not None and got == _best_k(None) and got != exp:
        raise Wrong(copied_hint("best_k", "distances, labels"), got=got)
    yours = _("; yours gives F1 = {v0:.3f}").format(v0=f1[got]) if type(got) is int and 0 <= got <= 64 else ""
    expect_int(
        got,
        exp,
        what,
        _(
            "Compute F1 = 2PR / (P + R) with precision_recall for every k in range(65) and "
            "return the k with the largest F1 (the smallest such k on a tie){yours}."
        ).format(yours=yours),
    )


best_k = Functions(
    "best_k",
    "best_k",
    N_("That k maximises F1 on this corpus."),
    ["best_k"],
    _best_k_cases,
    _best_k_judge,
)

EXERCISE = Exercise("06_near_duplicates", (pair_distances, precision_recall, best_k))
