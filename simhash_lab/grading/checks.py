"""Checkers for the exercises' check cells.

A check cell is one line, ``assert checks.NAME(answer)``. The checker prints a verdict that a learner
can act on::

    ✅ The four accumulators are right.

or::

    ❌ rust_safe_fast_votes: not yet
       expected: [3, 1, 1, -3]
       got:      [3, 1, 1, 3]
       hint:     ...

and then raises :class:`CheckFailed`, a short :class:`AssertionError` that JupyterLab shows as one
line instead of a traceback wall. On success it prints exactly one line, ``✅ <message>``, and returns
True; ``simhash-lab grade`` compares that line too (see :mod:`simhash_lab.grading._grader`).

Checkers trust nothing from the notebook but the answer under test: they hold their own data
(:mod:`simhash_lab.grading.data`) and reference computations, convert answers to plain ints, floats
and lists before comparing (an object whose ``__eq__`` always says True does not pass), and call a
learner's functions on inputs of their own, hidden ones included.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import math
import numbers
import operator
import random
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import data

__all__ = ["CheckFailed", "CHECKS", "pass_line"]

#: name -> (title, message printed on success); filled by :func:`_checker`.
CHECKS: dict[str, tuple[str, str]] = {}

_RED, _RESET = "\x1b[31m", "\x1b[0m"


class CheckFailed(AssertionError):
    """A wrong answer. JupyterLab shows ``_render_traceback_()``: one line, not a traceback."""

    def __init__(self, name: str, hint: str) -> None:
        super().__init__(f"{name}: {hint}")
        self.name = name
        self.hint = hint

    def _render_traceback_(self) -> list[str]:  # IPython uses this instead of a traceback
        return [f"{_RED}CheckFailed[{self.name}]{_RESET}: {self.hint}"]


class _Wrong(Exception):
    """Raised inside a checker: what was expected, what came back, and a hint."""

    def __init__(self, expected: Any, got: Any, hint: str) -> None:
        super().__init__(hint)
        self.expected, self.got, self.hint = expected, got, hint


def pass_line(name: str) -> str:
    """The exact stdout of a passing check cell that calls checker ``name``."""
    return f"✅ {CHECKS[name][1]}\n"


def _show(x: Any, limit: int = 160) -> str:
    try:
        s = repr(x)
    except Exception:  # a learner's object with a broken __repr__
        s = f"<{type(x).__name__} object>"
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _checker(title: str, passed: str) -> Callable:
    """Register a checker: the wrapped function raises :class:`_Wrong` or returns normally."""

    def deco(fn: Callable) -> Callable:
        name = fn.__name__
        CHECKS[name] = (title, passed)

        @functools.wraps(fn)
        def wrapper(*args: Any) -> bool:
            try:
                fn(*args)
                wrong = None
            except _Wrong as w:
                wrong = w
            if wrong is None:
                print(pass_line(name), end="", flush=True)
                return True
            print(
                f"❌ {title}: not yet\n"
                f"   expected: {wrong.expected}\n"
                f"   got:      {_show(wrong.got) if not isinstance(wrong.got, _Raw) else wrong.got}\n"
                f"   hint:     {wrong.hint}",
                flush=True,
            )
            raise CheckFailed(name, wrong.hint)

        return wrapper

    return deco


class _Raw(str):
    """A 'got' text shown as is (an exception message, say), not repr'd."""


# -- helpers: call a learner's function, normalise answers ---------------------------------------


def _call(fn: Any, *args: Any, what: str) -> Any:
    """``fn(*args)`` with its prints and warnings kept out of the verdict; errors become _Wrong."""
    if not callable(fn):
        raise _Wrong(f"a function {what}", _show(fn), f"Define {what} as a function (def ...).")
    out = io.StringIO()
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            warnings.simplefilter("ignore")
            return fn(*args)
    except NotImplementedError:
        raise _Wrong(
            f"{what} to return a value",
            _Raw("NotImplementedError"),
            "Write your code in the answer cell above (replace `raise NotImplementedError()`), "
            "run it, then run this check again.",
        ) from None
    except Exception as e:  # the learner's bug: report it, briefly
        msg = str(e).strip().splitlines()
        first = msg[0] if msg else ""
        hint = "Your function raised an exception; run it on this input yourself to see where."
        if type(e).__name__ == "TypingError":
            hint = (
                "Numba could not compile your function. Mixing uint64 and int64 gives float64 "
                "in Numba: write np.uint64(1) and np.uint64(i) in shifts and masks."
            )
        args_s = ", ".join(_show(a, 60) for a in args)
        raise _Wrong(
            f"{what}({args_s}) to return a value", _Raw(f"{type(e).__name__}: {first[:200]}"), hint
        ) from None


def _int(x: Any, what: str, hint: str = "") -> int:
    if isinstance(x, bool) or not isinstance(x, (numbers.Integral, np.integer)):
        raise _Wrong(
            f"{what} as an int",
            f"{type(x).__name__} {_show(x, 60)}",
            hint or f"{what} must be an int (write it as 0b..., 0x... or decimal).",
        )
    return operator.index(x)


def _float(x: Any, what: str) -> float:
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, np.floating, np.integer)):
        raise _Wrong(f"{what} as a number", f"{type(x).__name__} {_show(x, 60)}", f"{what} must be a number.")
    return float(x)


def _expect_close(x: Any, what: str, exp: float, expected: str, hint: str) -> None:
    """``x`` must be a number within 1e-9 of ``exp``; else ``expected`` and ``hint`` say why not."""
    got = _float(x, what)
    if not math.isclose(got, exp, rel_tol=0, abs_tol=1e-9):
        raise _Wrong(expected, got, hint)


def _int_list(x: Any, n: int | None, what: str) -> list[int]:
    if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
        raise _Wrong(f"{what} as a list of ints", _show(x), f"Write {what} as a list, e.g. [1, 2, 3].")
    items = list(x)
    if n is not None and len(items) != n:
        raise _Wrong(
            f"{what}: a list of {n} ints", _show(items), f"{what} needs exactly {n} numbers, one per bit."
        )
    return [_int(v, f"each item of {what}") for v in items]


def _is_numba(fn: Any) -> bool:
    return hasattr(fn, "py_func") and hasattr(fn, "nopython_signatures")


def _trace_lines(fn: Any, *args: Any) -> int:
    """How many Python lines ``fn(*args)`` executes in the learner's own code (its file)."""
    fn = getattr(fn, "py_func", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return -1
    filename = code.co_filename
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename != filename:
            return None
        if event == "line":
            count += 1
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        _call(fn, *args, what=getattr(fn, "__name__", "your function"))
    finally:
        sys.settrace(old)
    return count


# -- references ----------------------------------------------------------------------------------


def _md5_64(text: str) -> int:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)


def _simhash_ref(features: list[tuple[int, float]], bits: int) -> int:
    v = [0.0] * bits
    for h, w in features:
        for i in range(bits):
            v[i] += w if (h >> i) & 1 else -w
    return sum(1 << i for i in range(bits) if v[i] > 0)


def _popcount(x: int) -> int:
    return bin(x).count("1")


# ================================================================================================
# 01 LSH vs cryptographic hashes
# ================================================================================================


@_checker("md5_64", "md5_64 matches the seed's SimhashPython._hash_token.")
def md5_64(fn: Any) -> None:
    for text in ["rust", "safe", "fast", "", "Simhash", "near-duplicate", "ñandú 汉明距离"]:
        got = _call(fn, text, what="md5_64")
        exp = _md5_64(text)
        got_i = _int(got, f"md5_64({text!r})", "Return an int: int(hexdigest[:16], 16).")
        if got_i != exp:
            hint = "Take the first 16 hex digits (8 bytes) of md5(text.encode('utf-8')).hexdigest(), base 16."
            if got_i == int(hashlib.md5(text.encode("utf-8")).hexdigest()[-16:], 16):
                hint = "You took the last 16 hex digits; the seed takes the first 16 ([:16])."
            elif got_i == int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16):
                hint = "That is all 128 bits; keep only the first 16 hex digits ([:16]) for 64 bits."
            raise _Wrong(f"md5_64({text!r}) == {exp}", got_i, hint)


@_checker("ideal avalanche", "An ideal 64-bit hash flips half its bits: 32 on average.")
def ideal_flips(x: Any) -> None:
    _expect_close(
        x,
        "ideal_flips",
        32.0,
        "the expected number of flipped bits out of 64",
        "Each bit flips independently with probability 1/2: expectation = 64 × 1/2.",
    )


def _mean_flips(fp: Callable[[str], int]) -> float:
    pairs = data.avalanche_pairs()
    return sum(_popcount(fp(a) ^ fp(b)) for a, b in pairs) / len(pairs)


@_checker("crypto_flips", "MD5's bits flip about half the time: the avalanche effect.")
def crypto_flips(x: Any) -> None:
    exp = _mean_flips(_md5_64)
    _expect_close(
        x,
        "crypto_flips",
        exp,
        f"{exp:.4f} (mean Hamming distance of md5_64 over all {len(data.avalanche_pairs())} pairs)",
        "For every (a, b) in pairs, count the bits of md5_64(a) ^ md5_64(b); "
        "then average over all pairs (divide by len(pairs)).",
    )


@_checker("simhash_flips", "Simhash moves only a few bits for a one-letter edit: it is locality sensitive.")
def simhash_flips(x: Any) -> None:
    from ..presets import DEFAULT

    exp = _mean_flips(DEFAULT.fingerprint)
    _expect_close(
        x,
        "simhash_flips",
        exp,
        f"{exp:.4f} (mean Hamming distance of Simhasher() fingerprints over all pairs)",
        "Use h = Simhasher() (the default) and hamming(h.fingerprint(a), "
        "h.fingerprint(b)) for every pair, then average.",
    )


# ================================================================================================
# 02 Simhash voting
# ================================================================================================


@_checker("rust_safe_fast_votes", "The four accumulators are right: each word votes +1 or -1 on every bit.")
def rust_safe_fast_votes(V: Any) -> None:
    exp = [3, 1, 1, -3]
    got = _int_list(V, 4, "V")
    if got != exp:
        if got == exp[::-1]:
            hint = (
                "You listed the accumulators backwards: V[0] belongs to bit 0, the rightmost "
                "binary digit of 0b0011."
            )
        else:
            bad = next(i for i in range(4) if got[i] != exp[i])
            col = ", ".join(
                f"{w}: bit {bad} = {(h >> bad) & 1}" for w, h in data.RUST_SAFE_FAST_HASHES.items()
            )
            hint = (
                f"Look at V[{bad}] ({col}): a 1 bit votes +1, a 0 bit votes -1; "
                "start from 0 and add the three votes."
            )
        raise _Wrong(exp, got, hint)


@_checker("rust_safe_fast_fingerprint", "0b0111: bit i is 1 exactly where V[i] > 0.")
def rust_safe_fast_fingerprint(fp: Any) -> None:
    got = _int(fp, "fp")
    if got != 0b0111:
        hint = "Bit i of the fingerprint is 1 when V[i] > 0, else 0; bit 0 is the rightmost digit."
        if got == 0b1110:
            hint = "You wrote V[0] as the leftmost digit; in 0b... notation bit 0 is the rightmost."
        elif got == 0b1111:
            hint = "V[3] = -3 is not > 0, so bit 3 is 0."
        raise _Wrong(f"{0b0111} (0b0111)", f"{got} ({got:#06b})" if got >= 0 else got, hint)


@_checker("six_bit_string", "110001: positive -> 1, negative -> 0, in the list's order.")
def six_bit_string(s: Any) -> None:
    if not isinstance(s, str):
        raise _Wrong("a str of six '0'/'1' characters", _show(s), "Write it as a string, e.g. '101010'.")
    got = s.strip().removeprefix("0b")
    if got != "110001":
        hint = "Go through [13, 108, -22, -5, -32, 55] in order: > 0 gives '1', otherwise '0'."
        if got == "100011":
            hint = "That is the right bits in reverse; here write them in the list's order, first to last."
        raise _Wrong("'110001'", s, hint)


@_checker("six_bit_int", "35 = 0b100011: bit i comes from V[i], so the source's string reads backwards.")
def six_bit_int(x: Any) -> None:
    got = _int(x, "six_bit_fp")
    if got != 35:
        hint = (
            "In the library (and the seed's Rust) bit i of the fingerprint comes from V[i], and bit 0 "
            "is the least significant: sum 2**i over the i with V[i] > 0."
        )
        if got == 0b110001:
            hint = (
                "0b110001 puts V[0] in the most significant place. Bit i comes from V[i] and bit 0 is "
                "the rightmost, so read the string backwards: 0b100011."
            )
        raise _Wrong("35 (0b100011)", got, hint)


def _random_features(rng: random.Random, n: int, bits: int, ints: bool) -> list[tuple[int, float]]:
    feats = []
    for _ in range(n):
        h = rng.getrandbits(bits)
        w = rng.randint(1, 5) if ints else round(rng.uniform(0.1, 3.0), 3)
        feats.append((h, w))
    return feats


@_checker("simhash_py", "Your plain-Python Simhash agrees with the reference on every case.")
def simhash_py(fn: Any) -> None:
    rng = random.Random(7)
    cases = [
        ([(0b0011, 1), (0b0101, 1), (0b0111, 1)], 4, "the seed's 4-bit example"),
        ([], 64, "no features (the fingerprint of an empty text is 0)"),
        ([(0b1, 1), (0b0, 1)], 1, "a tie (V[0] == 0 gives bit 0)"),
        ([(2**64 - 1, 2), (0, 1)], 64, "64-bit hashes with weights"),
    ]
    cases += [
        (_random_features(rng, rng.randint(1, 12), 64, i % 2 == 0), 64, "random 64-bit hashes")
        for i in range(12)
    ]
    cases += [(_random_features(rng, 5, 16, False), 16, "16-bit hashes, float weights")]
    for feats, bits, label in cases:
        exp = _simhash_ref(feats, bits)
        got = _call(fn, list(feats), bits, what="simhash_py")
        got_i = _int(got, "simhash_py(...)", "Return the fingerprint as an int.")
        if got_i != exp:
            hint = (
                "For each (h, w): V[i] += w if bit i of h is 1 else -= w, for i in range(bits); "
                "then set bit i where V[i] > 0 (not >= 0)."
            )
            if got_i == _simhash_ref(feats, bits) | sum(
                1 << i for i in range(bits) if _votes(feats, bits)[i] == 0
            ):
                hint = "A tie (V[i] == 0) must give 0: use V[i] > 0, not >= 0."
            raise _Wrong(f"{exp} for {label}: simhash_py({_show(feats, 80)}, bits={bits})", got_i, hint)


def _votes(feats: list[tuple[int, float]], bits: int) -> list[float]:
    v = [0.0] * bits
    for h, w in feats:
        for i in range(bits):
            v[i] += w if (h >> i) & 1 else -w
    return v


@_checker("simhash_numba", "Your Numba Simhash is compiled and exact, 64-bit hashes included.")
def simhash_numba(fn: Any) -> None:
    if not _is_numba(fn):
        raise _Wrong(
            "a Numba-compiled function",
            f"a plain {type(fn).__name__}",
            "Decorate it with @njit (from numba import njit) so it compiles to machine code.",
        )
    rng = random.Random(8)
    cases = [([(0b0011, 1), (0b0101, 1), (0b0111, 1)], 4), ([(2**63 + 5, 1.5), (2**64 - 1, 1.0)], 64)]
    cases += [(_random_features(rng, rng.randint(1, 20), 64, i % 2 == 0), 64) for i in range(10)]
    cases += [([(0b1, 1.0), (0b0, 1.0)], 1)]
    for feats, bits in cases:
        hs = np.array([h for h, _ in feats], dtype=np.uint64)
        ws = np.array([w for _, w in feats], dtype=np.float64)
        exp = _simhash_ref(feats, bits)
        got = _call(fn, hs, ws, bits, what="simhash_numba")
        got_i = _int(got, "simhash_numba(...)", "Return the fingerprint (a uint64 is fine).")
        if got_i != exp:
            hint = (
                "Loop over features and bits as in simhash_py. Keep everything uint64: "
                "(h >> np.uint64(i)) & np.uint64(1), and fp |= np.uint64(1) << np.uint64(i)."
            )
            raise _Wrong(
                f"{exp} for hashes={_show(hs.tolist(), 80)}, weights={_show(ws.tolist(), 60)}, bits={bits}",
                got_i,
                hint,
            )
    if not getattr(fn, "nopython_signatures", None):
        raise _Wrong(
            "a function compiled in nopython mode",
            "object mode",
            "Use @njit (nopython mode), not @jit(forceobj=True).",
        )


# ================================================================================================
# 03 Hamming distance and POPCNT
# ================================================================================================


@_checker("hamming by hand", "Both distances are right: XOR, then count the ones.")
def hamming_by_hand(d_AB: Any, d_CD: Any) -> None:
    a = _int(d_AB, "d_AB")
    if a != 3:
        raise _Wrong(
            "3 for A = 100111, B = 101010",
            a,
            "Write A over B and mark the columns where the digits differ; count the marks.",
        )
    c = _int(d_CD, "d_CD")
    if c != 2:
        raise _Wrong(
            "2 for 1011101 and 1001001",
            c,
            "Compare the two strings column by column and count the columns that differ.",
        )


@_checker("xor_AB", "A ^ B = 0b001101: a 1 exactly where A and B differ.")
def xor_AB(x: Any) -> None:
    got = _int(x, "xor_AB")
    if got != 0b001101:
        hint = "XOR gives 1 where the bits differ and 0 where they agree; work column by column."
        if got == 0b101111:
            hint = "That is A | B (OR); XOR is 1 only where exactly one of the two bits is 1."
        elif got == 0b100010:
            hint = "That is A & B (AND); XOR is 1 where the bits differ."
        raise _Wrong("0b001101 (13)", f"{got:#08b} ({got})" if got >= 0 else got, hint)


_POPCOUNT_VALUES = [
    0,
    1,
    2,
    3,
    0b1011101,
    0b100111 ^ 0b101010,
    2**63,
    2**64 - 1,
    2**32 - 1,
    0xF0F0F0F0F0F0F0F0,
]


@_checker("popcount_kernighan", "Kernighan's loop: one step per set bit, not one per bit.")
def popcount_kernighan(fn: Any) -> None:
    rng = random.Random(3)
    for x in _POPCOUNT_VALUES + [rng.getrandbits(64) for _ in range(40)]:
        got = _int(_call(fn, x, what="popcount_kernighan"), f"popcount_kernighan({x})")
        if got != _popcount(x):
            raise _Wrong(
                f"{_popcount(x)} for x = {x:#x}",
                got,
                "Count steps of x &= x - 1 until x == 0: each step clears the lowest set bit.",
            )
    one, high, full = (_trace_lines(fn, 1), _trace_lines(fn, 2**63), _trace_lines(fn, 2**64 - 1))
    if one >= 0 and not (high <= one + 2 and full >= one + 60):
        raise _Wrong(
            "about as many steps for x = 2**63 (one set bit) as for x = 1, and many more for "
            "2**64 - 1 (64 set bits)",
            _Raw(f"{one}, {high} and {full} lines executed for x = 1, 2**63, 2**64 - 1"),
            "Loop while x != 0 with x &= x - 1 (one iteration per set bit) instead of shifting "
            "through all 64 bits or calling bin(x).count('1').",
        )


@_checker("is_near", "is_near stops after k + 1 differing bits, like the source's isEqual.")
def is_near(fn: Any) -> None:
    rng = random.Random(4)
    cases = [
        (0b1011101, 0b1001001, 3),
        (0b100111, 0b101010, 3),
        (0b100111, 0b101010, 2),
        (0, 0, 0),
        (0, 1, 0),
        (0, 2**64 - 1, 63),
        (0, 2**64 - 1, 64),
        (5, 5, 3),
    ]
    for _ in range(40):
        a = rng.getrandbits(64)
        b = a
        for bit in rng.sample(range(64), rng.randint(0, 6)):
            b ^= 1 << bit
        cases.append((a, b, rng.randint(0, 5)))
    for a, b, k in cases:
        exp = _popcount(a ^ b) <= k
        got = _call(fn, a, b, k, what="is_near")
        if isinstance(got, (bool, np.bool_)) is False:
            raise _Wrong(f"a bool for is_near({a:#x}, {b:#x}, k={k})", got, "Return True or False.")
        if bool(got) != exp:
            raise _Wrong(
                f"{exp} for is_near({a:#x}, {b:#x}, k={k}) (distance {_popcount(a ^ b)})",
                got,
                "Near means distance <= k: True when at most k bits differ.",
            )
    few, many = _trace_lines(fn, 0, 0b1111, 3), _trace_lines(fn, 0, 2**64 - 1, 3)
    if few >= 0 and many > few + 6:
        raise _Wrong(
            "the same few steps for distance 4 and distance 64 when k = 3 (stop at k + 1 bits)",
            _Raw(f"{few} lines for distance 4, {many} for distance 64"),
            "Stop the loop as soon as the count exceeds k: while x and count <= k.",
        )


# ================================================================================================
# 04 Charikar's hyperplanes
# ================================================================================================


@_checker("signature", "Your random-hyperplane signature matches hyperplane_signatures bit for bit.")
def signature(fn: Any) -> None:
    from ..geometry import hyperplane_signatures, hyperplanes

    rng = np.random.default_rng(11)
    cases = [(np.zeros(3), 8, 0, "the zero vector (every dot product is 0, and 0 >= 0)")]
    for seed, (dim, bits) in enumerate([(2, 4), (3, 16), (10, 64), (50, 64), (5, 1)]):
        cases.append((rng.standard_normal(dim), bits, seed, f"a random vector, dim={dim}, bits={bits}"))
    for u, bits, seed, label in cases:
        R = hyperplanes(u.shape[0], bits, seed)
        exp = int(hyperplane_signatures(u, bits, seed))
        got = _int(
            _call(fn, u.copy(), R.copy(), what="signature"),
            "signature(u, R)",
            "Return the signature as a Python int (build it with 1 << i on ints).",
        )
        if got != exp:
            hint = "Bit i is 1 when R[i] @ u >= 0; the signature is the sum of 1 << i over those i."
            if got < 0:
                hint = (
                    "A negative number: 1 << 63 overflowed a signed int64. Build the signature with "
                    "Python ints: int(1) << i."
                )
            raise _Wrong(f"{exp} for {label}", got, hint)


@_checker("estimate_theta", "θ̂ = π·d/bits: the inverse of E[d_H] = bits·θ/π.")
def estimate_theta(fn: Any) -> None:
    for d, bits in [(0, 64), (32, 64), (64, 64), (2, 64), (5, 16), (1, 4)]:
        exp = math.pi * d / bits
        got = _float(_call(fn, d, bits, what="estimate_theta"), f"estimate_theta({d}, {bits})")
        if not math.isclose(got, exp, rel_tol=1e-9, abs_tol=1e-12):
            hint = "Solve d = bits * θ / π for θ, in radians."
            if math.isclose(got, math.degrees(exp), rel_tol=1e-9):
                hint = "That is in degrees; return radians (θ = π d / bits)."
            raise _Wrong(f"{exp!r} rad for d={d}, bits={bits}", got, hint)


@_checker("mean_hamming", "The measured mean distance is right; compare it with 64·θ/π above.")
def mean_hamming(x: Any) -> None:
    from ..geometry import hyperplane_signatures

    u, v = data.hyperplane_pair()
    X = np.stack([u, v])
    ds = []
    for seed in range(200):
        s = hyperplane_signatures(X, 64, seed)
        ds.append(_popcount(int(s[0]) ^ int(s[1])))
    exp = sum(ds) / len(ds)
    _expect_close(
        x,
        "mean_d",
        exp,
        f"{exp:.4f}",
        "For seed in range(200): signatures of u and v with "
        "64 bits and that seed, their Hamming distance; then the mean of the 200.",
    )


# ================================================================================================
# 05 The pigeonhole block index
# ================================================================================================


@_checker("blocks", "Four 16-bit blocks, block j = (fp >> 16j) & 0xFFFF, like the seed's extract_chunk.")
def blocks(fn: Any) -> None:
    rng = random.Random(6)
    for fp in [0, 2**64 - 1, 0x0123456789ABCDEF, 1 << 16, 0xFFFF] + [rng.getrandbits(64) for _ in range(20)]:
        exp = [(fp >> (16 * j)) & 0xFFFF for j in range(4)]
        got = _int_list(_call(fn, fp, what="blocks"), 4, f"blocks({fp:#x})")
        if got != exp:
            hint = "Block j is (fp >> (16 * j)) & 0xFFFF for j = 0, 1, 2, 3: block 0 holds the lowest bits."
            if got == exp[::-1]:
                hint = "Right blocks, wrong order: block 0 is the lowest 16 bits (no shift)."
            raise _Wrong(f"{[hex(b) for b in exp]} for fp = {fp:#018x}", [hex(b) for b in got], hint)


@_checker("pigeonhole", "k ≤ 3 differing bits cannot touch all 4 blocks; 4 bits can.")
def pigeonhole(min_equal: Any, k4_can_miss: Any) -> None:
    m = _int(min_equal, "min_equal_blocks")
    if m != 1:
        raise _Wrong(
            1, m, "3 flipped bits land in at most 3 of the 4 blocks, so at least 4 - 3 blocks are untouched."
        )
    if not isinstance(k4_can_miss, (bool, np.bool_)):
        raise _Wrong("True or False", k4_can_miss, "Answer with a bool.")
    if not bool(k4_can_miss):
        raise _Wrong(
            True,
            k4_can_miss,
            "Put one flipped bit in each block: every block differs, so no table lookup finds the pair.",
        )


class _SpyList:
    """A sequence of fingerprints that counts how many a query looks at."""

    def __init__(self, items: list[int]) -> None:
        self._items = list(items)
        self.seen: set[int] = set()

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            idx = range(*i.indices(len(self._items)))
            self.seen.update(idx)
            return [self._items[j] for j in idx]
        i = operator.index(i)
        self.seen.add(i % len(self._items))
        return self._items[i]

    def __iter__(self):
        self.seen.update(range(len(self._items)))
        return iter(self._items)


@_checker("block_index", "Exact for every k ≤ 3, and it looks only at the candidates the tables give.")
def block_index(build: Any, query: Any) -> None:
    fps, queries = data.block_fingerprints()
    tables = _call(build, list(fps), what="build_tables")
    for k in range(4):
        for q in queries:
            exp = sorted(i for i, f in enumerate(fps) if _popcount(f ^ q) <= k)
            spy = _SpyList(fps)
            got = _call(query, tables, spy, q, k, what="query")
            if isinstance(got, (str, bytes)) or not hasattr(got, "__iter__"):
                raise _Wrong("a list of ids", got, "Return the ids (indices into fps) as a list.")
            got_l = sorted(_int(i, "each id") for i in got)
            if got_l != exp:
                missing = sorted(set(exp) - set(got_l))
                hint = (
                    "Look up each of the query's 4 blocks in its table, collect the ids found, then "
                    "keep those with hamming(fps[id], q) <= k."
                )
                if missing and not set(got_l) - set(exp):
                    hint = (
                        "Some near fingerprints are missing: did you look up all 4 blocks, each in its "
                        "own table (table j keyed by block j)?"
                    )
                elif set(got_l) - set(exp):
                    hint = "Some ids are too far: verify each candidate with hamming(fps[id], q) <= k."
                raise _Wrong(f"{exp} for q = {q:#018x}, k = {k}", got_l, hint)
            if len(spy.seen) > len(fps) // 4:
                raise _Wrong(
                    "a query that reads only its candidates' fingerprints",
                    _Raw(f"it read {len(spy.seen)} of {len(fps)} fingerprints for one query"),
                    "Get candidate ids from the tables first; read fps[id] only for those ids "
                    "(no loop over all of fps).",
                )


# ================================================================================================
# 06 Near-duplicates in practice
# ================================================================================================


def _corpus_distances() -> np.ndarray:
    from ..hamming import hamming
    from ..presets import DEFAULT

    docs, pairs, _ = data.near_dup_corpus()
    fps = DEFAULT.fingerprints(docs)
    return np.asarray(hamming(fps[pairs[:, 0]], fps[pairs[:, 1]]), dtype=np.int64)


@_checker("pair_distances", "One Hamming distance per labelled pair, all right.")
def pair_distances(d: Any) -> None:
    exp = _corpus_distances()
    try:
        got = np.asarray(d)
    except Exception:
        got = None
    if got is None or got.shape != exp.shape or not np.issubdtype(got.dtype, np.number):
        raise _Wrong(
            f"an array of {exp.shape[0]} distances",
            _show(d),
            "One distance per row of pairs: hamming(fps[pairs[:, 0]], fps[pairs[:, 1]]).",
        )
    got = got.astype(np.float64)
    if not np.array_equal(got, exp.astype(np.float64)):
        i = int(np.flatnonzero(got != exp)[0])
        raise _Wrong(
            f"{int(exp[i])} for pair {i}",
            got[i],
            "Fingerprint docs with Simhasher() (the default), then take the Hamming distance of "
            "the two documents of each pair.",
        )


def _pr(d: np.ndarray, labels: np.ndarray, k: int) -> tuple[float, float]:
    pred = d <= k
    tp = int(np.sum(pred & labels))
    npred, npos = int(np.sum(pred)), int(np.sum(labels))
    return (tp / npred if npred else 1.0), (tp / npos if npos else 1.0)


@_checker("precision_recall", "Precision and recall are right, edge cases included.")
def precision_recall(fn: Any) -> None:
    rng = np.random.default_rng(12)
    cases = [
        (np.array([0, 1, 5, 9]), np.array([True, True, False, True]), 3),
        (np.array([4, 7]), np.array([True, False]), 2),  # nothing predicted: precision 1.0
        (np.array([0, 1, 2]), np.array([True, True, True]), 64),
    ]
    for _ in range(8):
        n = int(rng.integers(5, 40))
        cases.append((rng.integers(0, 30, n), rng.random(n) < 0.4, int(rng.integers(0, 20))))
    cases.append((_corpus_distances(), data.near_dup_corpus()[2], 4))
    for d, labels, k in cases:
        if not labels.any():
            continue
        exp = _pr(d, labels, k)
        got = _call(fn, d.copy(), labels.copy(), k, what="precision_recall")
        if isinstance(got, (str, bytes)) or not hasattr(got, "__len__") or len(got) != 2:
            raise _Wrong("a tuple (precision, recall)", got, "Return two numbers: precision, recall.")
        p, r = _float(got[0], "precision"), _float(got[1], "recall")
        if not (math.isclose(p, exp[0], abs_tol=1e-9) and math.isclose(r, exp[1], abs_tol=1e-9)):
            hint = (
                "Predicted near = distance <= k. precision = TP / predicted (1.0 when nothing is "
                "predicted), recall = TP / actual near duplicates."
            )
            if math.isclose(p, exp[1], abs_tol=1e-9) and math.isclose(r, exp[0], abs_tol=1e-9):
                hint = "Precision and recall are swapped."
            elif _pr(d, labels, k - 1) == (p, r):
                hint = "Use distance <= k (at most k bits), not < k."
            raise _Wrong(
                f"({exp[0]:.4f}, {exp[1]:.4f}) for k={k}, distances={_show(d.tolist(), 50)}, "
                f"labels={_show(labels.astype(int).tolist(), 50)}",
                (p, r),
                hint,
            )


@_checker("best_k", "That k maximises F1 on this corpus.")
def best_k(k: Any) -> None:
    d = _corpus_distances()
    labels = data.near_dup_corpus()[2]
    f1 = []
    for kk in range(65):
        p, r = _pr(d, labels, kk)
        f1.append(2 * p * r / (p + r) if p + r else 0.0)
    exp = int(np.argmax(f1))
    got = _int(k, "best_k")
    if got != exp:
        raise _Wrong(
            exp,
            got,
            f"Compute F1 = 2PR / (P + R) for every k in range(65) and keep the k with "
            f"the largest F1 (the smallest such k on a tie). Yours gives F1 = "
            f"{f1[got] if 0 <= got <= 64 else float('nan'):.3f}.",
        )
