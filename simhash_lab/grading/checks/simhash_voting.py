"""Checkers of exercise 02, Simhash voting: the 4-bit trace by hand, the 6-bit figure's bit order,
Simhash in plain Python and in Numba.

The bit order (decided for the whole course): ``V[i]`` is bit *i* of the fingerprint, as in the
library, the seed's Rust and Python and the ``simhash`` package. Source 004's figure
``[13, 108, -22, -5, -32, 55] -> 110001`` writes the signs in list order, ``V[0]`` first; as an int
that is ``0b100011 = 35``, because a binary numeral writes bit 0 last. The answers worked out by
hand are never shown in a ❌ (the hints say where to look, not what to write).
"""

from __future__ import annotations

import random

from ..._i18n import N_, _
from .. import data
from ._checker import (
    Exercise,
    Functions,
    Method,
    Raw,
    Values,
    Wrong,
    call,
    case,
    expect_int,
    f64,
    int_list,
    returned,
    u64,
)

__all__ = [
    "EXERCISE",
    "rust_safe_fast_votes",
    "rust_safe_fast_fingerprint",
    "six_bit_string",
    "six_bit_int",
    "simhash_py",
    "simhash_numba",
]

# The data of parts 1-2 (worked out by hand) comes from :mod:`simhash_lab.grading.data` for the
# shown variant: the session's and source 004's on the notebook's own data, a student's otherwise.


def _expected_votes(variant: object) -> dict:
    v = _votes([(h, 1) for h in data.rust_safe_fast_hashes(variant).values()], 4)
    return {"V_rust_safe_fast": [int(x) for x in v]}


def _expected_fp(variant: object) -> dict:
    v = _expected_votes(variant)["V_rust_safe_fast"]
    return {"fp_rust_safe_fast": sum(1 << i for i in range(4) if v[i] > 0)}


def _expected_string(variant: object) -> dict:
    return {"six_bits": "".join("1" if v > 0 else "0" for v in data.six_accumulators(variant))}


def _expected_int(variant: object) -> dict:
    return {"six_bit_fp": sum(1 << i for i, v in enumerate(data.six_accumulators(variant)) if v > 0)}


def _votes(features: list, bits: int) -> list[float]:
    v = [0.0] * bits
    for h, w in features:
        for i in range(bits):
            v[i] += w if (h >> i) & 1 else -w
    return v


def _simhash_ref(features: list, bits: int, *, ties: bool = False) -> int:
    v = _votes(features, bits)
    return sum(1 << i for i in range(bits) if v[i] > 0 or (ties and v[i] == 0))


def _votes_judge(values: dict, variant: object) -> None:
    got = int_list(values["V_rust_safe_fast"], "V", 4)
    hashes = data.rust_safe_fast_hashes(variant)
    exp = _expected_votes(variant)["V_rust_safe_fast"]
    if got == exp:
        return
    if got == exp[::-1]:
        raise Wrong(
            _(
                "You listed the accumulators backwards: V[0] belongs to bit 0, the rightmost binary digit "
                "of each hash."
            ),
            got=got,
        )
    bad = next(i for i in range(4) if got[i] != exp[i])
    col = ", ".join(
        _("{w} has bit {bad} = {v2}").format(w=w, bad=bad, v2=(h >> bad) & 1) for w, h in hashes.items()
    )
    raise Wrong(
        _(
            "V[{bad}] is not right. Look at bit {bad} of each hash ({col}): a 1 votes +1, a "
            "0 votes -1, starting from 0."
        ).format(bad=bad, col=col),
        got=got,
    )


rust_safe_fast_votes = Values(
    "rust_safe_fast_votes",
    "rust_safe_fast_votes",
    N_("The four accumulators are right: each word votes +1 or -1 on every bit."),
    ["V_rust_safe_fast"],
    _votes_judge,
    kinds=N_("a list of ints"),
    hand=_expected_votes,
)


def _fp_judge(values: dict, variant: object) -> None:
    exp = _expected_fp(variant)["fp_rust_safe_fast"]
    mistakes = {exp ^ (1 << 3): _("Bit 3 is 1 only when V[3] > 0: look at V[3] again.")}
    reversed_ = int(f"{exp:04b}"[::-1], 2)
    if reversed_ != exp:
        mistakes[reversed_] = _(
            "You wrote V[0] as the leftmost digit; in 0b... notation bit 0 is the rightmost."
        )
    expect_int(
        values["fp_rust_safe_fast"],
        exp,
        "fp_rust_safe_fast",
        _("Bit i of the fingerprint is 1 when V[i] > 0, else 0; bit 0 is the rightmost digit of 0b...."),
        mistakes=mistakes,
        show=False,
        shown=lambda v: f"0b{v:04b}" if v >= 0 else str(v),
    )


rust_safe_fast_fingerprint = Values(
    "rust_safe_fast_fingerprint",
    "rust_safe_fast_fingerprint",
    lambda variant: _("0b{v0:04b}: bit i is 1 exactly where V[i] > 0.").format(
        v0=_expected_fp(variant)["fp_rust_safe_fast"]
    ),
    ["fp_rust_safe_fast"],
    _fp_judge,
    kinds=N_("an int"),
    hand=_expected_fp,
)


def _string_judge(values: dict, variant: object) -> None:
    s = values["six_bits"]
    if type(s) is not str:
        raise Wrong(_("Write it as a str of six '0'/'1' characters, e.g. '101010'."), got=s)
    got = s.strip().removeprefix("0b")
    exp = _expected_string(variant)["six_bits"]
    if got == exp:
        return
    six = list(data.six_accumulators(variant))
    hint = _("Go through {six} in order, V[0] first: > 0 gives '1', otherwise '0'.").format(six=six)
    if got == exp[::-1]:
        hint = _("That is the other order: here write the signs in the list's order, V[0] first.")
    elif len(got) != 6 or set(got) - {"0", "1"}:
        hint = _("Six characters, each '0' or '1', one per accumulator.")
    raise Wrong(hint, got=s)


six_bit_string = Values(
    "six_bit_string",
    "six_bit_string",
    lambda variant: _(
        "{v0}: positive -> 1, negative -> 0, in the list's order (V[0] first), as the source writes it."
    ).format(v0=_expected_string(variant)["six_bits"]),
    ["six_bits"],
    _string_judge,
    kinds=N_("a str"),
    hand=_expected_string,
)


def _int_judge(values: dict, variant: object) -> None:
    exp = _expected_int(variant)["six_bit_fp"]
    in_list_order = int(_expected_string(variant)["six_bits"], 2)
    expect_int(
        values["six_bit_fp"],
        exp,
        "six_bit_fp",
        _(
            "V[i] is bit i of the fingerprint (as in the library and the seed's Rust), and bit i is worth "
            "2**i: add up 2**i over the i with V[i] > 0."
        ),
        mistakes={
            in_list_order: (
                _(
                    "That reads the figure's string as a binary numeral, which puts V[0] in the most "
                    "significant place. But V[i] is bit i, and a binary numeral writes bit 0 last."
                )
            ),
            exp ^ 0b111111: _("That marks the negative accumulators; a bit is 1 where V[i] > 0."),
        },
        show=False,
        shown=lambda v: f"{v} (0b{v:b})" if v >= 0 else str(v),
    )


six_bit_int = Values(
    "six_bit_int",
    "six_bit_int",
    lambda variant: _(
        "{v0} = 0b{v0:06b}: V[i] is bit i, and a binary numeral writes bit 0 last, so "
        "the figure's {v1} (V[0] first) reads backwards as a number."
    ).format(v0=_expected_int(variant)["six_bit_fp"], v1=_expected_string(variant)["six_bits"]),
    ["six_bit_fp"],
    _int_judge,
    kinds=N_("an int"),
    hand=_expected_int,
)


# -- Simhash in plain Python --------------------------------------------------------------------------


def _features(rng: random.Random, n: int, bits: int, ints: bool) -> list[list]:
    """``n`` random ``(hash, weight)`` pairs; float weights are multiples of 1/8, so every sum of
    votes is exact in floating point, whatever order a learner adds them in."""
    out = []
    for _i in range(n):
        h = rng.getrandbits(bits)
        w = rng.randint(1, 5) if ints else rng.randint(1, 24) / 8
        out.append([h, w])
    return out


def _py_cases(rng: random.Random | None) -> list[dict]:
    fixed = [
        ([[0b0011, 1], [0b0101, 1], [0b0111, 1]], 4, _("the seed's 4-bit example")),
        ([], 64, _("no features (the fingerprint of an empty text is 0)")),
        ([[0b1, 1], [0b0, 1]], 1, _("a tie (V[0] == 0 gives bit 0)")),
        ([[2**64 - 1, 2], [0, 1]], 64, _("64-bit hashes with weights")),
    ]
    r = rng if rng is not None else random.Random(7)
    n = 12 if rng is None else 20
    cases = fixed if rng is None else [fixed[1], fixed[2]]
    cases = cases + [
        (_features(r, r.randint(1, 12), 64, i % 2 == 0), 64, _("random hashes")) for i in range(n)
    ]
    cases.append((_features(r, 6, 16, False), 16, _("16-bit hashes, float weights")))
    cases.append(([[h, 1] for h in (r.getrandbits(8), r.getrandbits(8))] * 2, 8, _("ties on some bits")))
    return [
        case(call("simhash_py", [{"$tuple": f} for f in feats], bits), features=feats, bits=bits, label=label)
        for feats, bits, label in cases
    ]


def _py_judge(c: dict, res: list[dict]) -> None:
    feats, bits = [tuple(f) for f in c["features"]], c["bits"]
    what = f"simhash_py({_short(feats)}, bits={bits})"
    exp = _simhash_ref(feats, bits)
    expect_int(
        returned(res[0], what),
        exp,
        f"{what} ({c['label']})",
        _(
            "For each (h, w): V[i] += w if bit i of h is 1, else V[i] -= w, for i in range(bits); then "
            "set bit i where V[i] > 0."
        ),
        mistakes=_py_mistakes(feats, bits, exp),
    )


def _reverse(x: int, bits: int) -> int:
    return int(format(x, f"0{bits}b")[::-1], 2) if bits else x


def _py_mistakes(feats: list, bits: int, exp: int) -> dict[int, str]:
    """Wrong fingerprints that known mistakes give, and the hint that names each one."""
    out = {}
    unweighted = _simhash_ref([(h, 1) for h, _w in feats], bits)
    if unweighted != exp:
        out[unweighted] = _(
            "That is the fingerprint with every weight 1: each feature votes +w or -w, its own "
            "weight w, not +1 or -1."
        )
    rev = _reverse(exp, bits)
    if rev != exp:
        out[rev] = _(
            "Your bits are in reverse order: V[i] is bit i of each hash, (h >> i) & 1, "
            "counted from the right, and it sets bit i of the fingerprint, worth 2**i."
        )
    ties = _simhash_ref(feats, bits, ties=True)
    if ties != exp:
        out[ties] = _("A tie (V[i] == 0) must give 0: use V[i] > 0, not >= 0.")
    return out


def _short(feats: list) -> str:
    s = repr(feats)
    return s if len(s) <= 70 else s[:67] + "..."


simhash_py = Functions(
    "simhash_py",
    "simhash_py",
    N_("Your plain-Python Simhash agrees with the reference on every case."),
    ["simhash_py"],
    _py_cases,
    _py_judge,
    points=2,
)


# -- the same loop in Numba ---------------------------------------------------------------------------


def _nb_cases(rng: random.Random | None) -> list[dict]:
    r = rng if rng is not None else random.Random(8)
    cases = [([[0b0011, 1.0], [0b0101, 1.0], [0b0111, 1.0]], 4), ([[2**63 + 5, 1.5], [2**64 - 1, 1.0]], 64)]
    cases += [(_features(r, r.randint(1, 20), 64, False), 64) for _ in range(10 if rng is None else 16)]
    cases += [([[0b1, 1.0], [0b0, 1.0]], 1)]
    return [
        case(
            call("simhash_numba", u64([h for h, _ in f]), f64([float(w) for _, w in f]), bits),
            features=f,
            bits=bits,
        )
        for f, bits in cases
    ]


def _nb_judge(c: dict, res: list[dict]) -> None:
    feats, bits = [tuple(f) for f in c["features"]], c["bits"]
    what = f"simhash_numba(hashes={_short([h for h, _ in feats])}, weights=..., bits={bits})"
    exp = _simhash_ref(feats, bits)
    mistakes = _py_mistakes(feats, bits, exp)
    if exp >= 2**63:  # bit 63 kept in a signed int64 comes back negative
        mistakes[exp - 2**64] = _(
            "A negative number: bit 63 landed in the sign of an int64. Keep the fingerprint in "
            "uint64 (start from np.uint64(0), set bits with np.uint64(1) << np.uint64(i))."
        )
    expect_int(
        returned(res[0], what),
        exp,
        what,
        _(
            "For each feature j and each bit i below bits: add weights[j] to V[i] when bit i of "
            "hashes[j] is 1, subtract it when it is 0; then set bit i of the fingerprint where V[i] > 0."
        ),
        mistakes=mistakes,
    )


def _nb_method_cases(rng: random.Random | None) -> list[dict]:
    feats = [[3, 1.0], [5, 1.0], [7, 1.0]]
    hashes, weights = u64([h for h, _w in feats]), f64([w for _h, w in feats])
    return [case(call("simhash_numba", hashes, weights, 4, measure=["numba"]), features=feats, bits=4)]


def _nb_method_judge(cases: list[dict], results: list[list[dict]]) -> None:
    for res in results:
        for r in res:
            state = r.get("numba") if isinstance(r, dict) else None
            if state is None:
                continue
            if not (isinstance(state, dict) and state.get("dispatcher") is True):
                raise Wrong(
                    _("Decorate it with @njit (from numba import njit) so that Numba compiles it."),
                    expected=Raw(_("a function compiled by Numba")),
                    got=Raw(_("a plain Python function")),
                )
            if not (type(state.get("nopython")) is int and state["nopython"] >= 1):
                raise Wrong(
                    _("Use @njit (nopython mode), not @jit(forceobj=True)."),
                    expected=Raw(_("nopython mode")),
                    got=Raw(_("object mode")),
                )
            if state.get("lifted"):
                raise Wrong(
                    _(
                        "Write the whole loop in Numba: a `with objmode(...)` block runs Python, "
                        "outside what Numba compiles."
                    ),
                    expected=Raw(_("nopython mode throughout")),
                    got=Raw(_("an object-mode block")),
                )


simhash_numba = Functions(
    "simhash_numba",
    "simhash_numba",
    N_("Your Numba Simhash is compiled and exact, 64-bit hashes included."),
    ["simhash_numba"],
    _nb_cases,
    _nb_judge,
    method=Method(_nb_method_cases, _nb_method_judge, compiled=True),
    points=2,
)


def _hash_row(word: str, h: int) -> str:
    return f"| {word} | `0b{h:04b}` | " + " | ".join(str((h >> i) & 1) for i in (3, 2, 1, 0)) + " |"


def _signs(v: tuple[int, ...]) -> str:
    return "".join("1" if x > 0 else "0" for x in v)


def _text(variant: int) -> list[tuple[str, str]]:
    """The notebook's hashes of "rust safe fast" and six accumulators, and a variant's."""
    old_h, new_h = data.rust_safe_fast_hashes(None), data.rust_safe_fast_hashes(variant)
    reps = [(_hash_row(w, old_h[w]), _hash_row(w, new_h[w])) for w in old_h]
    old6, new6 = data.six_accumulators(None), data.six_accumulators(variant)
    reps.append((f"`{list(old6)}`", f"`{list(new6)}`"))
    reps.append((f"`{_signs(old6)}`", f"`{_signs(new6)}`"))
    reps.append(("data.RUST_SAFE_FAST_HASHES", "data.rust_safe_fast_hashes()"))
    return reps


EXERCISE = Exercise(
    "02_simhash_voting",
    (
        rust_safe_fast_votes,
        rust_safe_fast_fingerprint,
        six_bit_string,
        six_bit_int,
        simhash_py,
        simhash_numba,
    ),
    text=_text,
)
