"""The static checks of an answer's source (simhash_lab.grading._code_checks): the allow-list refuses
what could reach outside the answer, and extract keeps definitions and constants only."""

from __future__ import annotations

import pytest

from simhash_lab.grading import _code_checks
from simhash_lab.grading.checks import CHECKS


def test_a_spy_cannot_be_read_or_reset_by_an_allowed_answer():
    src = "def query(tables, fps, q, k):\n    fps._Spy__seen.clear()\n    return []\n"
    assert any("`._Spy__seen`" in p for p in _code_checks.problems(src, CHECKS["block_index"].method.allow))


@pytest.mark.parametrize(
    "src",
    [
        "def f(x):\n    import os\n    return 0\n",
        "def f(x):\n    return x.__class__\n",
        "def f(x):\n    return getattr(x, 'y')\n",
        "def f(x):\n    try:\n        return 1\n    except Exception:\n        return 0\n",
        "def f(x):\n    with x:\n        return 1\n",
        "def f(x):\n    global y\n    return 1\n",
        "def f(x):\n    return eval('1')\n",
        "def f(x):\n    return [1 for _ in ()].__iter__\n",
        "def f(x):\n    yield 1\n",
        "def f(x, y=print('at definition')):\n    return 0\n",
        "@print\ndef f(x):\n    return 0\n",
        "class A:\n    pass\n",
        "import os\ndef f(x):\n    return 0\n",
        "X = open('/etc/passwd')\ndef f(x):\n    return 0\n",
        "def f(x):\n    return (lambda: 0).__code__\n",
        "def f(x):\n    e = None\n    return e.__traceback__.tb_frame\n",
        "def f(x):\n    return '{0.__class__}'.format(x)\n",
    ],
)
def test_the_allow_list_refuses(src):
    assert _code_checks.problems(src, CHECKS["popcount_kernighan"].method.allow)


def test_extract_keeps_definitions_and_constants_only():
    ex = _code_checks.extract(
        "MASK = (1 << 64) - 1\nprint('hi')\nimport numpy as np\ndef f(x):\n    return x & MASK\nf(3)\n"
    )
    assert "print" not in ex.text and "f(3)" not in ex.text.splitlines()
    assert ex.functions == {"f"} and {"MASK", "np", "f"} <= ex.defines and ex.dropped == (2, 6)


def test_extract_reads_ipython_syntax():
    ex = _code_checks.extract("%timeit 1 + 1\ndef f(x):\n    return x\n")
    assert ex.functions == {"f"}
