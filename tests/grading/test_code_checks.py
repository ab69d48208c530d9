"""The code of a measured answer (simhash_lab.grading._code_checks): what its method run executes (the
answer's functions and every definition of the student's cells they reach, nothing that only runs),
and what is refused in it: the guard (reaching into the interpreter, keeping values outside a
function) and what the exercise's text forbids, nothing about how the answer is spelled."""

from __future__ import annotations

import pytest

from simhash_lab.grading import _code_checks, _runner
from simhash_lab.grading.checks import hamming_popcount


def test_a_spy_cannot_be_read_or_reset():
    src = "def query(tables, fps, q, k):\n    fps._Spy__seen.clear()\n    return []\n"
    assert any("`._Spy__seen` reaches into the interpreter" in p for p in _code_checks.problems(src))


@pytest.mark.parametrize(
    "src",
    [
        "def f(x):\n    import os\n    return 0\n",
        "def f(x):\n    import sys\n    sys.settrace(None)\n    return 0\n",
        "import gc\ndef f(x):\n    return 0\n",
        "def f(x):\n    return x.__class__\n",
        "def f(x):\n    return getattr(x, 'y')\n",
        "def f(x):\n    return eval('1')\n",
        "def f(x):\n    return [1 for _ in ()].__iter__\n",
        "X = open('/etc/passwd')\ndef f(x):\n    return 0\n",
        "def f(x):\n    return (lambda: 0).__code__\n",
        "def f(x):\n    e = None\n    return e.tb_frame\n",
        "def f(x):\n    g = (i for i in ())\n    return g.gi_frame.f_back\n",
        "from inspect import currentframe\ndef f(x):\n    return 0\n",
        "from numpy.lib.stride_tricks import as_strided\ndef f(x):\n    return 0\n",
        "import numpy as np\ndef f(x):\n    np.seen = x\n    return 0\n",
        "import numpy as np\ndef f(x):\n    np.typecodes['seen'] = x\n    return 0\n",
        "from operator import attrgetter\ndef f(x):\n    return attrgetter('_Spy__items')(x)\n",
        "def f(x):\n    return object.__getattribute__(x, 'y')\n",
        "from simhash_lab.grading import data\ndef f(x):\n    return 0\n",
        "from os import *\ndef f(x):\n    return 0\n",
    ],
)
def test_the_guard_refuses_what_reaches_the_interpreter_or_keeps_values(src):
    assert _code_checks.problems(src), src


@pytest.mark.parametrize(
    "src",
    [
        "def f(x):\n    q, r = divmod(x, 1 << 16)\n    return q + r\n",
        "def f(x):\n    n = 0\n    while (x := x & (x - 1)) != 0:\n        n += 1\n    return n\n",
        "def f(x):\n    return 0 if x == 0 else 1 + f(x & (x - 1))\n",
        "def f(x):\n    return sum(1 for i in range(64) if x >> i & 1)\n",
        "def f(x):\n    try:\n        return 1 // x\n    except ZeroDivisionError:\n        return 0\n",
        "from collections import defaultdict\ndef f(x):\n    d = defaultdict(list)\n    return d[x]\n",
        "import numpy as np\ndef f(x):\n    return int(np.uint64(x) >> np.uint64(1))\n",
        "def f(x):\n    return f'{x:b}'.count('1')\n",
        "def f(x):\n    for i in range(3):\n        pass\n    else:\n        return x\n",
        "class Index:\n    def __init__(self):\n        self.tables = {}\n"
        "    def add(self, k):\n        self.tables[k] = 1\n",
        "def f(x, memo=None):\n    global COUNT\n    return x\n",
    ],
)
def test_everything_else_is_the_learners_choice(src):
    assert _code_checks.problems(src) == [], _code_checks.problems(src)


def test_a_stated_rule_is_told_apart_from_the_guard():
    rule = _code_checks.problems("def f(x):\n    return bin(x)\n", hamming_popcount._NO_TEXT)
    guard = _code_checks.problems("import sys\ndef f(x):\n    return 0\n", hamming_popcount._NO_TEXT)
    assert _code_checks.is_stated(rule[0]) and not _code_checks.is_stated(guard[0])


def test_strings_are_allowed_as_docstrings_and_error_messages_even_under_the_text_rule():
    code = (
        'def popcount_kernighan(x):\n    """Kernighan\'s loop."""\n    if x < 0:\n'
        '        raise ValueError("x must be >= 0")\n    count = 0\n    while x:\n        x &= x - 1\n'
        "        count += 1\n    return count\n"
    )
    assert _code_checks.problems(code, hamming_popcount._NO_TEXT) == []


def test_what_a_method_run_executes_is_what_the_answer_reaches():
    """Its functions, the helpers of the learner's own cells and the other answers they call, the
    constants and imports those use; not a test call, a print, an experiment, or a function
    nothing calls."""
    cells = [
        "import numpy as np\nMASK = 0xFFFF\nprint('hi')\nUNUSED = 3\n",
        "def helper(x):\n    return x & MASK\n\nhelper(3)\n",
        "def unused(x):\n    return np.zeros(x)\n",
        "def blocks(fp):\n    return [helper(fp >> (16 * j)) for j in range(4)]\n",
        "%timeit blocks(5)\nfps = [1, 2]\n",
    ]
    defs = _code_checks.definitions([_runner.to_python(c) for c in cells])
    code = _code_checks.method_code(_code_checks.reached(defs, ["blocks"]))
    assert "def blocks" in code and "def helper" in code and "MASK = 0xFFFF" in code
    for gone in ("print", "UNUSED", "unused", "helper(3)", "timeit", "fps = ", "import numpy"):
        assert gone not in code, (gone, code)


def test_a_local_name_does_not_pull_in_a_cell_of_the_same_name():
    """``query``'s parameter ``fps`` is not the learner's ``fps = ...`` experiment (Python's own
    symbol tables tell a local from a global)."""
    cells = ["fps = data.block_fingerprints()[0]\n", "def query(tables, fps, q, k):\n    return fps[0]\n"]
    defs = _code_checks.definitions(cells)
    assert [d.defines for d in _code_checks.reached(defs, ["query"])] == [frozenset({"query"})]


def test_refused_names_the_definition_and_its_line():
    defs = _code_checks.definitions(["def helper(x):\n    import sys\n    return x\n"])
    (p,) = _code_checks.refused(_code_checks.labelled(defs), None)
    assert p.startswith("in `helper`, line 2: `import sys` reaches into the interpreter"), p
