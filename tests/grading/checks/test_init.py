"""The registry of checkers (simhash_lab.grading.checks): one module per exercise, every answer
registered, and Run All going past a wrong answer."""

from __future__ import annotations

from pathlib import Path

from simhash_lab.grading import checks
from simhash_lab.grading.checks import CHECKS, EXERCISES
from simhash_lab.grading.checks._checker import Functions, Values

SOLUTIONS = Path(__file__).resolve().parents[3] / "exercises" / "solutions"


def test_one_checker_module_per_exercise_and_every_answer_registered():
    import importlib

    for name, ex in EXERCISES.items():
        mod = importlib.import_module(f"simhash_lab.grading.checks.{name[3:]}")
        assert mod.EXERCISE is ex
        for a in ex.answers:
            assert CHECKS[a.key] is a and getattr(checks, a.key) is a
            assert isinstance(a, (Values, Functions))


def test_run_all_goes_past_a_wrong_answer(tmp_path):
    """A learner's Run All: a wrong answer prints ❌ in its check cell and the notebook runs on."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(SOLUTIONS / "03_solution_hamming_popcount.ipynb", as_version=4)
    for c in nb.cells:
        if c.get("metadata", {}).get("simhash_lab", {}).get("answer") == "xor_AB":
            c.source = "xor_AB = 0b101111"
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute(cwd=str(tmp_path))
    outs = {
        c.metadata["simhash_lab"]["check"]: "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if c.get("metadata", {}).get("simhash_lab", {}).get("role") == "check"
    }
    assert outs["xor_AB"].startswith("❌ xor_AB: not yet")
    assert outs["is_near"] == checks.pass_line("is_near")  # the cells after it ran
