"""Helpers of the checker tests: the solved notebooks' cells run here, in one namespace each, as a
learner's kernel runs them."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from simhash_lab.grading._notebooks import exercise_file
from simhash_lab.grading.checks import EXERCISES

SOLUTIONS = Path(__file__).resolve().parents[3] / "exercises" / "solutions"
RUN = ("setup", "given", "answer")  # the roles of the cells a learner's Run All executes before a check


def _cells(name: str):
    nb = nbformat.read(SOLUTIONS / exercise_file(name, "solution"), as_version=4)
    for c in nb.cells:
        meta = c.metadata.get("simhash_lab", {})
        if c.cell_type == "code" and meta.get("role") in RUN:
            yield c, meta


@pytest.fixture(scope="module")
def solved() -> dict[str, dict]:
    """Every exercise's namespace after its solved notebook's setup, given and answer cells ran."""
    out = {}
    for name in EXERCISES:
        ns: dict = {}
        for c, _ in _cells(name):
            exec(c.source, ns)
        out[name] = ns
    return out


@pytest.fixture
def out_of():
    """``out_of(key, src, name, capsys, check=None)``: what ``checks.KEY()`` (or ``checks.CHECK()``)
    prints after the solution's cells run with ``src`` in place of ``key``'s answer (in one
    namespace, as in a kernel: the other answers call what ``src`` defines)."""

    def run(key: str, src: str, name: str, capsys, check: str | None = None) -> str:
        ns: dict = {}
        for c, meta in _cells(name):
            exec(src if meta.get("answer") == key else c.source, ns)
        capsys.readouterr()
        exec(f"checks.{check or key}()", ns)
        return capsys.readouterr().out

    return run
