"""The checkers in the learner's kernel (simhash_lab.grading.checks._checker): a check cell prints one
line and never raises, answers worked out by hand are never shown, lying objects are refused by their
type, values copied from the notebook fail, and the learner's Run All: no sandbox, fast.

Every check here runs the same code the grader runs on exported data; the sandboxed runs are in
``tests/grading/test_grader.py``. What is particular to one exercise is in
``test_<exercise module>.py`` beside this file; the allow-list in ``tests/grading/test_code_checks.py``,
plain data in ``test_protocol.py``, the data and variants in ``test_data.py``.
"""

from __future__ import annotations

import collections
import random
from pathlib import Path

import numpy as np
import pytest
from liars import AlwaysEqual, EqualInt, lying_str

from simhash_lab.grading import checks
from simhash_lab.grading._notebooks import exercise_file
from simhash_lab.grading.checks import CHECKS, EXERCISES

# -- check cells: one line, never a raise ------------------------------------------------------------


def test_a_pass_prints_exactly_the_pass_line(capsys):
    assert checks.rust_safe_fast_votes([3, 1, 1, -3]) is None
    assert capsys.readouterr().out == checks.pass_line("rust_safe_fast_votes")


def test_a_wrong_answer_prints_a_verdict_and_does_not_raise(capsys):
    checks.rust_safe_fast_votes([-3, 1, 1, 3])  # Run All goes on past a ❌
    out = capsys.readouterr().out
    assert out.startswith("❌ rust_safe_fast_votes: not yet") and "hint:" in out and "backwards" in out


_BY_HAND = {  # answers worked out by hand, and what they are: a ❌ must never show them
    "rust_safe_fast_votes": ([[0, 0, 0, 0]], ["3, 1, 1, -3", "[3, 1, 1, -3]"]),
    "rust_safe_fast_fingerprint": ([0b1110], ["0b0111", "= 7"]),
    "six_bit_string": (["100011"], ["110001"]),
    "six_bit_int": ([0b110001], ["35", "100011"]),
    "hamming_by_hand": ([0, 0], ["3", "2"]),
    "xor_AB": ([0b101111], ["0b001101", "13"]),
    "pigeonhole": ([0, False], ["True", " 1"]),
    "ideal_flips": ([0.5], ["32"]),
}


@pytest.mark.parametrize("name", sorted(_BY_HAND))
def test_hints_of_answers_by_hand_do_not_give_them_away(name, capsys):
    values, answer = _BY_HAND[name]
    CHECKS[name](*values)
    out = capsys.readouterr().out
    assert out.startswith("❌") and "expected:" not in out
    shown = out.split("got:", 1)[-1].split("hint:", 1)[1] if "got:" in out else out.split("hint:", 1)[1]
    for text in answer:
        assert text not in shown, (name, text, out)


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_solution_passes_its_checks_in_the_kernel(solved, name, capsys):
    ns = solved[name]
    for a in EXERCISES[name].answers:
        v = a.feedback(*(ns[n] for n in a.names))
        assert v.passed, (a.key, v)


@pytest.mark.parametrize(
    "name, values",
    [
        ("six_bit_string", [lying_str()]),
        ("rust_safe_fast_votes", [AlwaysEqual()]),
        ("rust_safe_fast_votes", [collections.UserList([3, 1, 1, -3])]),
        ("rust_safe_fast_fingerprint", [EqualInt(0)]),
        ("six_bit_int", [AlwaysEqual()]),
        ("six_bit_int", [True]),
        ("best_k", [4.0]),
        ("xor_AB", [np.array([13])]),
        ("md5_64", [lambda t: AlwaysEqual()]),
        ("md5_64", [lambda t: EqualInt(0)]),
    ],
)
def test_lying_objects_are_refused_by_their_type(name, values, capsys):
    v = CHECKS[name].feedback(*values)
    assert not v.passed, v


# -- data answers -----------------------------------------------------------------------------------


def _references():
    """Each answer computed from the data: its reference on a variant (None: the notebook's data),
    and a learner's function that returns the notebook's own result whatever it is given."""
    from simhash_lab.grading.checks import charikar_hyperplanes as ch
    from simhash_lab.grading.checks import lsh_vs_crypto as lc
    from simhash_lab.grading.checks import near_duplicates as nd

    return {
        "crypto_flips": lc._crypto_reference,
        "simhash_flips": lc._simhash_reference,
        "mean_hamming": ch._mean_reference,
        "pair_distances": nd._distances,
        "best_k": nd._best_k,
    }


DATA_ANSWERS = sorted(_references())


@pytest.mark.parametrize("key", DATA_ANSWERS)
def test_a_value_copied_from_the_notebook_is_a_cross_in_the_notebook(key, solved, capsys):
    """A function that returns the number a ❌ showed (right for the notebook's data only) is ❌ in
    the notebook too, with the hint that names the cause; the computed answer is ✅."""
    ref = _references()[key]
    copied = ref(None)
    ns = {key: lambda *args: np.array(copied) if key == "pair_distances" else copied}
    exec(f"checks.{key}()", {"checks": checks, **ns})
    out = capsys.readouterr().out
    assert out.startswith(f"❌ {key}: not yet") and "the notebook's own result on other data" in out, out
    capsys.readouterr()
    exec(f"checks.{key}()", {**solved[EXERCISES_OF[key]], "checks": checks})
    assert capsys.readouterr().out == checks.pass_line(key)


EXERCISES_OF = {a.key: name for name, ex in EXERCISES.items() for a in ex.answers}


@pytest.mark.parametrize("key", DATA_ANSWERS)
def test_every_case_of_a_data_answer_but_the_first_is_other_data(key):
    """Visible cases: the notebook's data, then a variant whose answer differs; hidden cases (drawn at
    grading time): variants whose answers all differ from the notebook's."""
    ref = _references()[key]
    of_data = lambda cases: [c for c in cases if "variant" in c]  # noqa: E731  (best_k has cases of its own)
    visible = of_data(CHECKS[key].cases(None))
    assert [c["variant"] for c in visible][0] is None and len(visible) >= 2
    for c in [*visible[1:], *of_data(CHECKS[key].cases(random.Random(3)))]:
        assert c["variant"] is not None and ref(c["variant"]) != ref(None), (key, c["variant"])


# -- the learner's path: Run All, missing answers, hints that name the cause ------------------------------

EXERCISE_FILES = Path(__file__).resolve().parents[3] / "exercises"


def _check_outputs(nb) -> dict[str, str]:
    return {
        c.metadata["simhash_lab"]["check"]: "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if c.get("metadata", {}).get("simhash_lab", {}).get("role") == "check"
    }


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_run_all_on_an_untouched_exercise_runs_to_the_end_with_a_cross_per_check(name, tmp_path):
    """The student's file as shipped: no cell raises (allow_errors=False), every check cell prints a
    ❌ that says the answer is not written yet."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(EXERCISE_FILES / exercise_file(name), as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute(cwd=str(tmp_path))
    outs = _check_outputs(nb)
    assert sorted(outs) == sorted(a.key for a in EXERCISES[name].answers)
    for key, out in outs.items():
        assert out.startswith("❌") and "not written yet" in out and "Traceback" not in out, (key, out)


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_a_check_cell_whose_answer_is_missing_prints_a_cross(key, capsys):
    """The answer cell was never run (or stopped before it set its names): ❌, not a NameError."""
    exec(f"checks.{key}()", {"checks": checks})
    out = capsys.readouterr().out
    assert out.startswith("❌") and "is not defined: run the answer cell above" in out, out


def test_hints_say_what_to_fix_without_the_solution_line(capsys, out_of):
    out = out_of(
        "pair_distances",
        "def pair_distances(docs, pairs):\n    return np.zeros(len(pairs), dtype=int)\n",
        "06_near_duplicates",
        capsys,
    )
    assert out.startswith("❌") and "fps[pairs[:, 0]]" not in out and "hamming(" not in out, out
    out = out_of(
        "is_near",
        "def is_near(a, b, k=3):\n    x, n = a ^ b, 0\n    while x:\n        x &= x - 1\n        n += 1\n"
        "    return n <= k\n",
        "03_hamming_popcount",
        capsys,
    )
    assert out.startswith("❌") and "while x and" not in out and "count <= k" not in out, out


# -- a check cell is bounded: an endless loop costs seconds, never the kernel for good -----------------


def test_an_endless_loop_in_an_answer_is_a_cross_after_the_call_limit(monkeypatch, capsys):
    """Issue 47: an endless loop in an answer hung the check cell (Run All stuck; interrupting it
    printed a traceback through _checker.py). Now the call is stopped at the limit, the answer's
    other calls are not made, and the ❌ says why."""
    import time

    from simhash_lab.grading import _protocol

    monkeypatch.setattr(_protocol, "CALL_TIMEOUT", 0.5)

    def simhash_py(features, bits=64):
        while True:
            pass

    t0 = time.monotonic()
    CHECKS["simhash_py"](simhash_py)
    out = capsys.readouterr().out
    assert time.monotonic() - t0 < 5
    assert out.startswith("❌") and "timed out after 0.5 s" in out and "endless loop" in out, out


def test_interrupting_a_check_prints_a_cross_not_a_traceback(capsys):
    def simhash_py(features, bits=64):
        raise KeyboardInterrupt

    CHECKS["simhash_py"](simhash_py)
    out = capsys.readouterr().out
    assert out.startswith("❌") and "You stopped the check" in out and "Traceback" not in out, out


def test_a_loop_in_compiled_code_ends_the_kernel_with_where_it_was(tmp_path):
    """No signal stops Numba-compiled code: a kernel would hang for good. The check ends the kernel
    (it restarts) after COMPILED_TIMEOUT, printing where it was (faulthandler's dump)."""
    import subprocess
    import sys

    script = tmp_path / "kernel.py"
    script.write_text(
        "import numpy as np\nfrom numba import njit\nfrom simhash_lab.grading import _protocol, checks\n"
        "_protocol.COMPILED_TIMEOUT = 2.0\n"
        "@njit\ndef simhash_numba(hashes, weights, bits):\n    fp = np.uint64(0)\n    while bits > 0:\n"
        "        fp += np.uint64(1)\n    return fp\n"
        "checks.simhash_numba(simhash_numba)\nprint('not reached')\n"
    )
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "not reached" not in p.stdout
    assert "Timeout (0:00:02)!" in p.stderr and "__call__" in p.stderr, p.stderr[-2000:]


def test_a_functions_pass_line_says_grading_runs_hidden_cases():
    for key, answer in CHECKS.items():
        line = answer.pass_line("en")
        assert line.startswith("✅ ") and line.endswith("\n")
        assert ("grading runs it on hidden ones" in line) == answer.hidden, key
