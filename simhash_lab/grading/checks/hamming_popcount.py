"""Checkers of exercise 03, Hamming distance and POPCNT: distances and XOR by hand, Kernighan's
popcount, the early-exit ``is_near`` of source 004's ``isEqual``.

The two functions are checked for their method as well as their results, by what they do, apart
from the rest of the notebook (see :mod:`simhash_lab.grading._code_checks`), however they are
written (a ``while`` loop, the walrus, ``for``/``else``, recursion, a generator, helpers of the
learner's):

* ``popcount_kernighan``: one of its variables takes the values x, x & (x - 1), ... (traced), and
  the lines it executes grow by the same amount per set bit wherever the bits are: one step per set
  bit. The exercise's text also forbids text and ready-made popcounts in it (:data:`_NO_TEXT`);
* ``is_near``: a variable goes a ^ b, then one differing bit fewer at each step, and stops after
  k + 1 differing bits (it clears them all when at most k differ); its lines stay flat after k + 1.

So padding (``for _ in range(count): pass`` after a table, SWAR arithmetic or ``bit_count``) fails:
no variable walks down the chain. Every measured case is also judged for its value first, so an
answer that is wrong on one (``while x > 1`` on x = 1) is told what it returned.
"""

from __future__ import annotations

import random

from ..._i18n import N_, _
from .. import data
from .._code_checks import Rules
from ._checker import (
    Exercise,
    Functions,
    Method,
    Raw,
    Values,
    Wrong,
    call,
    case,
    expect_bool,
    expect_int,
    returned,
)

__all__ = ["EXERCISE", "hamming_by_hand", "xor_AB", "popcount_kernighan", "is_near"]

#: The pairs of part 1 on the notebook's own data (a student's variant has others:
#: :func:`simhash_lab.grading.data.hamming_pairs`; the judges of part 1 read them from there).
(_A, _B), (_C, _D) = data.hamming_pairs(None)


def _popcount(x: int) -> int:
    return bin(x).count("1")


def _by_hand(variant: object) -> dict:
    (a, b), (c, d) = data.hamming_pairs(variant)
    return {"d_AB": _popcount(a ^ b), "d_CD": _popcount(c ^ d)}


def _by_hand_judge(values: dict, variant: object) -> None:
    (a, b), (c, d) = data.hamming_pairs(variant)
    expect_int(
        values["d_AB"],
        _popcount(a ^ b),
        "d_AB",
        _(
            "Write A = {a:06b} over B = {b:06b} and mark the columns where the digits "
            "differ; count the marks."
        ).format(a=a, b=b),
        mistakes={
            6 - _popcount(a ^ b): _("That counts the columns where A and B agree; count where they differ.")
        },
        show=False,
    )
    expect_int(
        values["d_CD"],
        _popcount(c ^ d),
        "d_CD",
        _("Compare {c:07b} and {d:07b} column by column and count the columns that differ.").format(c=c, d=d),
        mistakes={7 - _popcount(c ^ d): _("That counts the columns that agree; count the ones that differ.")},
        show=False,
    )


hamming_by_hand = Values(
    "hamming_by_hand",
    N_("hamming by hand"),
    N_("Both distances are right: XOR, then count the ones."),
    ["d_AB", "d_CD"],
    _by_hand_judge,
    kinds=N_("an int"),
    hand=_by_hand,
    points=2,
)


def _xor(variant: object) -> dict:
    (a, b), _unused = data.hamming_pairs(variant)
    return {"xor_AB": a ^ b}


def _xor_judge(values: dict, variant: object) -> None:
    (a, b), _unused = data.hamming_pairs(variant)
    expect_int(
        values["xor_AB"],
        a ^ b,
        "xor_AB",
        _("XOR gives 1 where the bits differ and 0 where they agree; work column by column."),
        mistakes={
            a | b: _("That is A | B (OR); XOR is 1 only where exactly one of the two bits is 1."),
            a & b: _("That is A & B (AND); XOR is 1 where the bits differ."),
            ~(a ^ b) & 0b111111: _(
                "That marks the columns where A and B agree; XOR marks where they differ."
            ),
        },
        show=False,
        shown=lambda v: f"0b{v:06b}" if v >= 0 else str(v),
    )


xor_AB = Values(
    "xor_AB",
    "xor_AB",
    lambda variant: _("A ^ B = 0b{v0:06b}: a 1 exactly where A and B differ.").format(
        v0=_xor(variant)["xor_AB"]
    ),
    ["xor_AB"],
    _xor_judge,
    kinds=N_("an int"),
    hand=_xor,
)

#: What exercise 03's text forbids in ``popcount_kernighan`` (and only there): turning the int into
#: text, and ready-made popcounts.
_NO_TEXT = Rules(
    why=N_(
        "The exercise asks for Kernighan's loop on the int itself: no text (bin, str, format, "
        "f-strings, '%x' % x) and no ready-made popcount (int.bit_count, np.bitwise_count, the "
        "library's popcount or hamming) in popcount_kernighan."
    ),
    names={"bin", "str", "format", "hex", "oct", "repr", "ascii", "popcount", "hamming", "bitwise_count"},
    attributes={"bit_count", "bitwise_count", "popcount", "format", "hex", "binary_repr", "base_repr"},
    text=True,
)


# -- Kernighan's popcount -----------------------------------------------------------------------------

_VISIBLE = [0, 1, 2, 3, 0b1011101, _A ^ _B, 2**63, 2**64 - 1, 2**32 - 1, 0xF0F0F0F0F0F0F0F0]


def _with_bits(rng: random.Random, n: int, positions: range = range(64)) -> int:
    return sum(1 << b for b in rng.sample(list(positions), n))


def _pc_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        r = random.Random(3)
        xs = _VISIBLE + [r.getrandbits(64) for _ in range(40)]
    else:
        xs = [_with_bits(rng, rng.randint(0, 64)) for _ in range(40)] + [0, 1, 2**64 - 1]
        xs += [1 << rng.randrange(64), _with_bits(rng, 2, range(4))]
    return [case(call("popcount_kernighan", x), x=x) for x in xs]


def _pc_judge(c: dict, res: list[dict]) -> None:
    x = c["x"]
    what = f"popcount_kernighan({x:#x})"
    expect_int(
        returned(res[0], what),
        _popcount(x),
        what,
        _("Count the steps of x &= x - 1 until x == 0: each step clears the lowest set bit."),
        mistakes={
            _popcount(x) - 1: _(
                "One set bit too few: the loop stops before x reaches 0 (loop while x != 0, so the "
                "last set bit is counted too)."
            ),
            64 - _popcount(x): _("That counts the 0 bits; count the 1 bits."),
        }
        if x
        else {},
    )


def _pc_method_cases(rng: random.Random | None) -> list[dict]:
    """Pairs with the same number of set bits in low and high places, and counts from 0 to 64."""
    r = rng if rng is not None else random.Random(30)
    xs = [0, 1, 2**63, 0b1111, 0b1111 << 60, 2**64 - 1]
    xs += [_with_bits(r, n) for n in (1, 2, 5, 9, 17, 33, 48)]
    xs += [_with_bits(r, 8, range(8)), _with_bits(r, 8, range(56, 64))]
    return [case(call("popcount_kernighan", x, measure=["lines", "trace"]), x=x) for x in xs]


# -- what the method does: the values of its own variables, and the loop that makes them ----------


def _chain(x: int) -> list[int]:
    """x, x & (x - 1), ... down to 0: the values Kernighan's loop gives its variable."""
    out = [x]
    while x:
        x &= x - 1
        out.append(x)
    return out


def _walked(trace: object, chain: list[int]) -> int:
    """How far down ``chain`` (from its start) the answer's variables went: the longest run of
    ``chain`` one traced variable took, value after value, starting at ``chain[0]``; -1 if none
    went past it in order, or went somewhere else after it."""
    best = -1
    if type(trace) is not dict:
        return best
    for seq in trace.values():
        if type(seq) is not list or chain[0] not in seq:
            continue
        tail = seq[seq.index(chain[0]) :]
        n = 0
        while n + 1 < len(tail) and n + 1 < len(chain) and tail[n + 1] == chain[n + 1]:
            n += 1
        if n + 1 < len(tail) and tail[n + 1] not in chain:
            continue  # it went on to other values: not this chain
        best = max(best, n)
    return best


def _traces(cases: list[dict], results: list[list[dict]], name: str) -> list[tuple[dict, object]]:
    out = []
    for c, res in zip(cases, results):
        for cl, r in zip(c["calls"], res):
            if cl["fn"] == name and "trace" in cl.get("measure", ()):
                out.append((c, r.get("trace") if isinstance(r, dict) else None))
    return out


def _pc_trace_judge(cases: list[dict], results: list[list[dict]]) -> None:
    for c, trace in _traces(cases, results, "popcount_kernighan"):
        chain = _chain(c["x"])
        # down to the last set bit at least: the step that clears it may give 0 without any
        # variable holding it (a lambda in itertools.accumulate, say)
        if _walked(trace, chain) < len(chain) - 2:
            raise Wrong(
                _(
                    "Kernighan's loop works on x itself: each step x &= x - 1 clears its lowest set bit, "
                    "so x takes the values x, x & (x - 1), ... until 0, one loop step per set bit. None of "
                    "your function's variables does (a walk through the bit positions is the junior way; "
                    "a table, SWAR arithmetic or a loop that only counts is another method)."
                ),
                expected=Raw(_("a variable going {show_chain}").format(show_chain=_show_chain(chain))),
                got=Raw(_show_trace(trace)),
            )


def _lines(cases: list[dict], results: list[list[dict]], name: str) -> list[tuple[dict, int]]:
    out = []
    for c, res in zip(cases, results):
        for cl, r in zip(c["calls"], res):
            if cl["fn"] == name and "lines" in cl.get("measure", ()):
                n = r.get("lines") if isinstance(r, dict) else None
                if type(n) is not int or n < 0:
                    raise Wrong(_("the steps of {name} could not be counted.").format(name=name))
                out.append((c, n))
    return out


def _show_chain(chain: list[int]) -> str:
    shown = [f"{v:#x}" for v in chain[:4]]
    return " -> ".join(shown + (["...", f"{chain[-1]:#x}"] if len(chain) > 4 else []))


def _show_trace(trace: object) -> str:
    if type(trace) is not dict or not trace:
        return _("no int variable traced")
    parts = []
    for key, seq in list(trace.items())[:3]:
        if type(seq) is list:
            vals = ", ".join(f"{v:#x}" if type(v) is int else "?" for v in seq[:4])
            parts.append(f"{str(key).split(':')[-1]}: {vals}{', ...' if len(seq) > 4 else ''}")
    return "; ".join(parts)


def _pc_method_judge(cases: list[dict], results: list[list[dict]]) -> None:
    _pc_trace_judge(cases, results)
    lines = [(c["x"], n) for c, n in _lines(cases, results, "popcount_kernighan")]
    base = next(n for x, n in lines if x == 0)
    full = next(n for x, n in lines if x == 2**64 - 1)
    per_bit = (full - base) / 64
    shown = Raw(
        _("lines executed: ")
        + ", ".join(
            _("{n} for {popcount} set bits ({x:#x})").format(n=n, popcount=_popcount(x), x=x)
            for x, n in lines[:4]
        )
    )
    if per_bit < 1:
        raise Wrong(
            _(
                "Loop while x != 0 with x &= x - 1: one loop step per set bit. Your function takes about "
                "the same steps whatever the number of set bits."
            ),
            expected=Raw(_("more steps for more set bits")),
            got=shown,
        )
    one = next(n for x, n in lines if x == 2**63)
    scans = full < 4 * one  # a fixed pass over all 64 bits, plus one step per set bit
    for x, n in lines:
        want = base + per_bit * _popcount(x)
        if scans or abs(n - want) > max(3.0, 0.1 * per_bit * _popcount(x)):
            raise Wrong(
                _(
                    "Kernighan's loop takes one step per set bit and nothing else, wherever the bits "
                    "are (x &= x - 1 clears the lowest one each time); yours walks through the bit "
                    "positions, the junior way."
                ),
                expected=Raw(_("one step per set bit")),
                got=shown,
            )


popcount_kernighan = Functions(
    "popcount_kernighan",
    "popcount_kernighan",
    N_("Kernighan's loop: one step per set bit, not one per bit."),
    ["popcount_kernighan"],
    _pc_cases,
    _pc_judge,
    method=Method(_pc_method_cases, _pc_method_judge, rules=_NO_TEXT),
    points=2,
)


# -- is_near -------------------------------------------------------------------------------------------


def _flip(rng: random.Random, a: int, d: int) -> int:
    return a ^ _with_bits(rng, d)


def _near_cases(rng: random.Random | None) -> list[dict]:
    if rng is None:
        r = random.Random(4)
        abk = [
            (0b1011101, 0b1001001, 3),
            (_A, _B, 3),
            (_A, _B, 2),
            (0, 0, 0),
            (0, 1, 0),
            (0, 2**64 - 1, 63),
            (0, 2**64 - 1, 64),
            (5, 5, 3),
        ]
        n = 40
    else:
        r, abk, n = rng, [(0, 2**64 - 1, 64)], 40
    for _i in range(n):
        a = r.getrandbits(64)
        abk.append((a, _flip(r, a, r.randint(0, 7)), r.randint(0, 5)))
    return [case(call("is_near", a, b, k), a=a, b=b, k=k) for a, b, k in abk]


def _near_judge(c: dict, res: list[dict]) -> None:
    a, b, k = c["a"], c["b"], c["k"]
    d = _popcount(a ^ b)
    what = f"is_near({a:#x}, {b:#x}, k={k})"
    got = returned(res[0], what)
    if type(got) is not bool:
        expect_bool(got, d <= k, what, "")
    if got != (d <= k):
        raise Wrong(
            _("Near means distance <= k: True when at most k bits differ (here {d} differ).").format(d=d),
            expected=d <= k,
            got=got,
        )


def _near_method_cases(rng: random.Random | None) -> list[dict]:
    r = rng if rng is not None else random.Random(40)
    out = []
    for k in (1, 3, 5):
        a = r.getrandbits(64)
        for d in sorted({0, 1, k, k + 1, k + 2, 20, 64}):
            b = _flip(r, a, d)
            out.append(
                case(call("is_near", a, b, k, measure=["lines", "trace"]), a=a, b=b, k=k, d=d, x=a ^ b)
            )
    return out


def _near_trace_judge(cases: list[dict], results: list[list[dict]]) -> None:
    for c, trace in _traces(cases, results, "is_near"):
        k, d = c["k"], c["d"]
        chain = _chain(c["x"])
        walked = _walked(trace, chain)
        # it must have cleared every differing bit when they are at most k (to know), and stopped
        # once it knew there are more than k: after the (k + 1)-th bit, or on seeing it
        # d <= k: down to the last differing bit at least (the step to 0 may be held by no variable)
        ok = d - 1 <= walked <= d if d <= k else walked in (k, k + 1)
        if not ok:
            too_far = walked > k + 1
            raise Wrong(
                _(
                    "Count the differing bits and stop as soon as the count exceeds k: yours goes on "
                    "clearing bits of a ^ b after the (k + 1)-th."
                )
                if too_far
                else _(
                    "Count the differing bits one at a time: x = a ^ b, then x &= x - 1 in a loop "
                    "(each step clears one differing bit), and stop as soon as the count exceeds k. "
                    "None of your function's variables takes those values (SWAR arithmetic, a table "
                    "or a loop that only counts is another method)."
                ),
                expected=Raw(
                    _("with k = {k} and {d} differing bits: a variable going {show_chain}").format(
                        k=k, d=d, show_chain=_show_chain(chain[: min(d, k + 1) + 1])
                    )
                ),
                got=Raw(_show_trace(trace)),
            )


def _near_method_judge(cases: list[dict], results: list[list[dict]]) -> None:
    _near_trace_judge(cases, results)
    lines = [(c["k"], c["d"], n) for c, n in _lines(cases, results, "is_near")]
    for k in sorted({k for k, _d, _n in lines}):
        by_d = {d: n for kk, d, n in lines if kk == k}
        stop = by_d[k + 1]
        shown = Raw(
            f"with k = {k}: "
            + ", ".join(
                _("{n} lines for {d} differing bits").format(n=n, d=d) for d, n in sorted(by_d.items())
            )
        )
        if stop - by_d[0] < k + 1:
            raise Wrong(
                _(
                    "Count the differing bits one step at a time, as Kernighan's loop does, and stop as "
                    "soon as the count exceeds k: the check counts those steps."
                ),
                expected=Raw(_("one more step per differing bit, up to k + 1")),
                got=shown,
            )
        late = max(n for d, n in by_d.items() if d > k)
        if late > stop + 3:
            raise Wrong(
                _(
                    "is_near must stop as soon as the count exceeds k: yours goes on counting however far "
                    "apart a and b are (a full popcount, popcount_kernighan included, counts every "
                    "differing bit). Give the loop a second condition that ends it early."
                ),
                expected=Raw(_("the same steps for k + 1 differing bits as for 64")),
                got=shown,
            )


is_near = Functions(
    "is_near",
    "is_near",
    N_("is_near stops after k + 1 differing bits, like the source's isEqual."),
    ["is_near"],
    _near_cases,
    _near_judge,
    method=Method(_near_method_cases, _near_method_judge),
    points=2,
)


def _text(variant: int) -> list[tuple[str, str]]:
    """The pairs part 1's text shows, and a variant's."""
    (a, b), (c, d) = data.hamming_pairs(None)
    (a2, b2), (c2, d2) = data.hamming_pairs(variant)
    return [
        (f"`A = {a:06b}`, `B = {b:06b}`", f"`A = {a2:06b}`, `B = {b2:06b}`"),
        (f"`C = {c:07b}`, `D = {d:07b}`", f"`C = {c2:07b}`, `D = {d2:07b}`"),
    ]


EXERCISE = Exercise("03_hamming_popcount", (hamming_by_hand, xor_AB, popcount_kernighan, is_near), text=_text)
