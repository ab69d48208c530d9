"""Exercises and their grading.

* :mod:`simhash_lab.grading.checks`: the checkers that check cells call (``assert checks.NAME(x)``);
  each prints a ✅/❌ verdict with what was expected, what came back and a hint.
* :func:`grade` / ``simhash-lab grade``: grade notebooks with nbval, trusting only their ``answer``
  cells (every other cell is restored from the pristine copies in ``simhash_lab/grading/pristine/``).

Importing this package is cheap (the notebooks' check cells import it); the grader and nbformat load
on first use.

>>> from simhash_lab.grading import lint_answer
>>> lint_answer("V = [3, 1, 1, -3]")
[]
>>> lint_answer("import os")
['line 1: `import os` is not allowed in an answer cell']
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CheckResult",
    "GradeResult",
    "format_detail",
    "format_table",
    "grade",
    "grade_one",
    "lint_answer",
    "load_pristine",
]

_LAZY = {
    "CheckResult",
    "GradeResult",
    "format_detail",
    "format_table",
    "grade",
    "grade_one",
    "lint_answer",
    "load_pristine",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import _grader

        return getattr(_grader, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
