"""The checks of exercise 03 (simhash_lab.grading.checks.hamming_popcount): honest Kernighan loops and
early exits pass, bypasses fail the method check with the hint that names them, and hints name the
cause without the solution."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from simhash_lab.grading import _code_checks, _protocol
from simhash_lab.grading.checks import CHECKS


def _src(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).lstrip("\n")


_KERNIGHAN = """
    def popcount_kernighan(x):
        c = 0
        while x:
            x &= x - 1
            c += 1
        return c
"""


_HONEST = {
    "popcount_kernighan": [
        _src(_KERNIGHAN),
        _src("""
            def popcount_kernighan(x):
                if x == 0:
                    return 0
                return 1 + popcount_kernighan(x & (x - 1))
        """),
        _src("""
            def popcount_kernighan(x: int) -> int:
                n = 0
                while x != 0:
                    x = x & (x - 1)
                    n = n + 1
                return n
        """),
    ],
    "is_near": [
        _src("""
            def is_near(a, b, k=3):
                x = a ^ b
                c = 0
                while x and c <= k:
                    x &= x - 1
                    c += 1
                return c <= k
        """),
        _src("""
            def is_near(a, b, k=3):
                x, c = a ^ b, 0
                while x:
                    x &= x - 1
                    c += 1
                    if c > k:
                        return False
                return True
        """),
    ],
}


_BYPASS = {
    "popcount_kernighan": [
        ("def popcount_kernighan(x):\n    return bin(x).count('1')\n", "`bin` is not allowed"),
        ("def popcount_kernighan(x):\n    return x.bit_count()\n", "`.bit_count` is not allowed"),
        (
            _src("""
                def popcount_kernighan(x):
                    for _ in range(x.bit_count()):
                        pass
                    return x.bit_count()
            """),
            "`.bit_count` is not allowed",
        ),
        ("def popcount_kernighan(x):\n    return f'{x:b}'.count('1')\n", "f-string"),
        (
            _src("""
                def popcount_kernighan(x):
                    c = 0
                    while x:
                        c += x & 1
                        x >>= 1
                    return c
            """),
            "junior",
        ),
        (
            _src("""
                def popcount_kernighan(x):
                    c = 0
                    for i in range(64):
                        if (x >> i) & 1:
                            c += 1
                    return c
            """),
            "junior",
        ),
        (
            _src("""
                def popcount_kernighan(x):
                    x = x - ((x >> 1) & 0x5555555555555555)
                    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
                    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
                    return ((x * 0x0101010101010101) & (2**64 - 1)) >> 56
            """),
            "None of your function's variables does",
        ),
    ],
    "is_near": [
        # no rule of the text's in is_near: these fail for what they do (no variable walks the bits)
        (
            "def is_near(a, b, k=3):\n    return bin(a ^ b).count('1') <= k\n",
            "None of your function's variables",
        ),
        (
            "def is_near(a, b, k=3):\n    return (a ^ b).bit_count() <= k\n",
            "None of your function's variables",
        ),
        (
            _src("""
                def is_near(a, b, k=3):
                    x, c = a ^ b, 0
                    while x:
                        x &= x - 1
                        c += 1
                    return c <= k
            """),
            "as soon as the count exceeds k",
        ),
        (
            _src("""
                def is_near(a, b, k=3):
                    c = 0
                    for i in range(64):
                        if ((a ^ b) >> i) & 1:
                            c += 1
                            if c > k:
                                return False
                    return True
            """),
            "stop as soon as the count exceeds k",
        ),
    ],
}


def _method_verdict(name: str, src: str, tmp_path):
    """What the grader decides on a method answer from its source: the code its method run executes
    (:func:`_code_checks.method_code`) and the static checks, then the cases and the measured cases
    run on that code, each call on definitions made anew (here in this process, as the sandbox
    does)."""
    answer = CHECKS[name]
    defs = _code_checks.reached(_code_checks.definitions([src]), answer.names)
    problems = _code_checks.refused(_code_checks.labelled(defs), answer.method.rules)
    code = _code_checks.method_code(defs)
    path = tmp_path / f"{name}_{hashlib.md5(code.encode()).hexdigest()[:8]}.py"
    path.write_text(code)
    compiled = compile(code, str(path), "exec")

    def fresh():
        ns: dict = {}
        exec(compiled, ns)
        return {name: ns[name]}

    rng = random.Random(5)
    cases, mcases = answer.cases(rng), answer.method.cases(rng)
    run = lambda cs: json.loads(json.dumps(_protocol.run_cases({}, cs, files=[str(path)], fresh=fresh)))  # noqa: E731
    return answer.verdict(cases, run(cases), problems, mcases, run(mcases))


@pytest.mark.parametrize("name, src", [(n, s) for n, ss in _HONEST.items() for s in ss])
def test_honest_methods_pass(name, src, tmp_path):
    v = _method_verdict(name, src, tmp_path)
    assert v.passed, v


@pytest.mark.parametrize("name, src, why", [(n, s, w) for n, ss in _BYPASS.items() for s, w in ss])
def test_bypasses_fail_the_method_check(name, src, why, tmp_path):
    v = _method_verdict(name, src, tmp_path)
    assert not v.passed and why in v.hint, v


def test_is_near_on_a_full_popcount_blames_the_missing_early_exit(capsys, out_of):
    out = out_of(
        "is_near",
        "def is_near(a, b, k=3):\n    return popcount_kernighan(a ^ b) <= k\n",
        "03_hamming_popcount",
        capsys,
    )
    assert out.startswith("❌") and "not allowed" not in out and "stop as soon as the count exceeds k" in out
    assert "count <= k" not in out, out  # the cause, not the solution's loop condition


@pytest.mark.parametrize("key", ["popcount_kernighan", "is_near"])
def test_an_untouched_method_answer_is_not_written_yet_not_a_hint_about_its_form(key, capsys, out_of):
    args = "x" if key == "popcount_kernighan" else "a, b, k=3"
    stub = f'def {key}({args}):\n    """Your code."""\n    raise NotImplementedError()\n'
    out = out_of(key, stub, "03_hamming_popcount", capsys)
    assert out.startswith(f"❌ {key}") and "not written yet" in out, out
    assert "x &= x - 1" not in out and "while x" not in out, out  # no method handed over
