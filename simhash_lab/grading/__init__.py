"""Exercises and their grading.

* :mod:`simhash_lab.grading.checks`: the checkers the exercises' check cells call
  (``checks.NAME(answer)``): one module per exercise; each prints a ✅ line or a ❌ with a hint, in
  the learner's kernel, for feedback.
* :func:`grade` / ``simhash-lab grade``: grade notebooks in a sandbox, trusting nothing that runs
  in the student's process. The grader by step: :mod:`~simhash_lab.grading._grader` (the steps, and
  steps 4-6: read and measure, run, judge), :mod:`~simhash_lab.grading._notebooks` (1-3: collect, read,
  assemble), :mod:`~simhash_lab.grading._sandbox` (bubblewrap, limits, the watchdog) with
  :mod:`~simhash_lab.grading._seccomp` (its filter), :mod:`~simhash_lab.grading._runner` (what runs
  inside), :mod:`~simhash_lab.grading._protocol` (the data that crosses),
  :mod:`~simhash_lab.grading._code_checks` (the code a measured answer runs, and what is refused in it),
  :mod:`~simhash_lab.grading._report` (table, detail, JSON).
* :mod:`simhash_lab.grading.data`: the exercises' data, and the variants grading draws.
* :mod:`simhash_lab.grading.classroom`: ``simhash-lab assign`` (a variant per student) and
  ``simhash-lab grade --assignment`` (each student's folder on its variant, a gradebook, feedback).

Importing this package is cheap and does not load Numba (the notebooks' check cells import it;
``tests/lib/test_init.py`` checks it); the grader loads on first use.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "CheckResult",
    "GradeResult",
    "SandboxUnavailable",
    "format_detail",
    "format_table",
    "grade",
    "grade_one",
    "load_pristine",
    "write_json",
]

_WHERE = {
    "CheckResult": "_report",
    "GradeResult": "_report",
    "format_detail": "_report",
    "format_table": "_report",
    "write_json": "_report",
    "grade": "_grader",
    "grade_one": "_grader",
    "load_pristine": "_grader",
    "SandboxUnavailable": "_sandbox",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
