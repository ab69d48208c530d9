"""Exercises and `simhash-lab grade`.

Grading runs nbval in subprocesses, so it is slow (seconds per notebook). Every notebook is graded
once: one session-wide class run (all student versions, all solutions, forged and rearranged
copies) through the real CLI, a looping run, and a wall-clock run; the tests read their results.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from simhash_lab import cli
from simhash_lab.grading import _grader, checks, data, grade, lint_answer
from simhash_lab.grading._grader import CheckResult, GradeResult, assemble, load_pristine

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = ROOT / "exercises"
SOLUTIONS = EXERCISES / "solutions"
PRISTINE = ROOT / "simhash_lab" / "grading" / "pristine"
NAMES = sorted(p.stem for p in (ROOT / "course" / "exercises").glob("[0-9][0-9]_*.py"))
META = "simhash_lab"


def _role(cell) -> dict:
    return cell.get("metadata", {}).get(META, {})


def _cells(nb, role):
    return [c for c in nb.cells if _role(c).get("role") == role]


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _set_answers(nb, answers: dict[str, str]):
    for c in nb.cells:
        key = _role(c).get("answer")
        if key in answers:
            c.source = answers[key]
    return nb


# -- fixtures: every grading run happens once -----------------------------------------------------

_SWALLOW = (
    "get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)\nV_rust_safe_fast = [0, 0, 0, 0]"
)


def _forged(tmp: Path) -> Path:
    """02, unanswered, with every check cell turned into a print of its ✅ line, the expected outputs
    pasted in, asserts gone, and nbval's raises-exception tag on every cell."""
    nb = _read(EXERCISES / "02_simhash_voting.ipynb")
    n = 0
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        n += 1
        c.execution_count = n
        c.metadata.setdefault("tags", []).append("raises-exception")
        role = _role(c)
        if role.get("role") == "answer":
            c.source = "pass"
        elif role.get("role") == "check":
            c.source = f"print({role['expect'].rstrip()!r})"
            c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=role["expect"])]
        else:
            c.source = "pass"
    p = tmp / "forged_02_simhash_voting.ipynb"
    nbformat.write(nb, p)
    return p


def _rearranged(tmp: Path) -> Path:
    """The 03 solution as a learner's messy copy: cells added, answers moved to the end, checks and
    markdown deleted, a broken duplicate of an answer (new id) after the real one, no file-name hint."""
    nb = _read(SOLUTIONS / "03_hamming_popcount.ipynb")
    answers = _cells(nb, "answer")
    others = [
        c for c in nb.cells if c not in answers and _role(c).get("role") != "check" and c.cell_type == "code"
    ]
    dup = nbformat.from_dict(json.loads(json.dumps(answers[2])))
    dup.id = "my-copy"
    dup.source = "def popcount_kernighan(x):\n    return -1"
    scratch = nbformat.v4.new_code_cell("print('my experiments')\nx = 1 + 1", id="scratch")
    nb.cells = [scratch, *others, *answers, dup]
    p = tmp / "alice_homework.ipynb"
    nbformat.write(nb, p)
    return p


def _swallowing(tmp: Path) -> Path:
    nb = _set_answers(_read(SOLUTIONS / "02_simhash_voting.ipynb"), {"rust_safe_fast_votes": _SWALLOW})
    p = tmp / "swallow_02.ipynb"
    nbformat.write(nb, p)
    return p


def _looping(tmp: Path) -> tuple[Path, Path]:
    py = _set_answers(
        _read(SOLUTIONS / "03_hamming_popcount.ipynb"),
        {"popcount_kernighan": "def popcount_kernighan(x):\n    while True:\n        pass"},
    )
    nb = _set_answers(
        _read(SOLUTIONS / "03_hamming_popcount.ipynb"),
        {
            "popcount_kernighan": (
                "from numba import njit\n\n@njit\ndef spin(n):\n    i = 0\n    while n > 0:\n        i += 1\n"
                "    return i\n\nspin(1)\n\ndef popcount_kernighan(x):\n    return bin(x).count('1')"
            )
        },
    )
    paths = tmp / "loop_python_03.ipynb", tmp / "loop_numba_03.ipynb"
    nbformat.write(py, paths[0])
    nbformat.write(nb, paths[1])
    return paths


@pytest.fixture(scope="session")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("grading")


@pytest.fixture(scope="session")
def class_run(work):
    """One `simhash-lab grade` over the whole class: (exit status, stdout, {path: result dict})."""
    files = (
        [EXERCISES / f"{n}.ipynb" for n in NAMES]
        + [SOLUTIONS / f"{n}.ipynb" for n in NAMES]
        + [_forged(work), _rearranged(work), _swallowing(work)]
    )
    out_json = work / "class.json"
    buf = io.StringIO()
    lint = _grader.lint_answer
    _grader.lint_answer = lambda source: []  # let the swallowing answer run: the next layer must hold
    try:
        with contextlib.redirect_stdout(buf):
            rc = cli.main(
                [
                    "grade",
                    *map(str, files),
                    "--jobs",
                    "2",
                    "--cell-timeout",
                    "120",
                    "--timeout",
                    "400",
                    "--json",
                    str(out_json),
                ]
            )
    finally:
        _grader.lint_answer = lint
    results = {r["path"]: r for r in json.loads(out_json.read_text())}
    return rc, buf.getvalue(), results, files


@pytest.fixture(scope="session")
def loop_run(work):
    return grade(_looping(work), cell_timeout=20, timeout=300, jobs=2)


# -- the class run ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_untouched_student_version_fails(class_run, name):
    r = class_run[2][str(EXERCISES / f"{name}.ipynb")]
    assert not r["passed"]
    assert r["exercise"] == name
    assert r["checks_passed"] == 0, "a check passes with no answer written"
    assert "NotImplementedError" in r["first_hint"]


@pytest.mark.parametrize("name", NAMES)
def test_solution_passes(class_run, name):
    r = class_run[2][str(SOLUTIONS / f"{name}.ipynb")]
    assert r["passed"], (r["first_hint"], r["log"][-3000:])
    assert r["checks_passed"] == len(r["checks"]) > 0
    assert r["returncode"] == 0


def test_forged_copy_fails(class_run, work):
    forged = work / "forged_02_simhash_voting.ipynb"
    r = class_run[2][str(forged)]
    assert r["exercise"] == "02_simhash_voting"  # from the notebook's metadata
    assert not r["passed"] and r["checks_passed"] == 0


def test_forgery_would_fool_plain_nbval(work):
    """The forged copy passes nbval run directly: restoring cells from the pristine copy is what
    stops it. (Cheap: the forged cells are all `pass` and prints.)"""
    forged = work / "forged_plain.ipynb"
    nb = _read(_forged(work))
    nbformat.write(nb, forged)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--nbval",
            "--nbval-current-env",
            "-q",
            "-p",
            "no:cacheprovider",
            "--noconftest",
            str(forged),
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_rearranged_copy_with_extra_cells_passes(class_run, work):
    r = class_run[2][str(work / "alice_homework.ipynb")]
    assert r["exercise"] == "03_hamming_popcount"
    assert r["passed"], (r["first_hint"], r["log"][-3000:])


def test_swallowed_exceptions_still_fail(class_run, work):
    """An answer that installs an IPython handler swallowing every exception (with the lint turned
    off) still fails: check cells must print exactly their ✅ line, and a wrong one prints ❌."""
    r = class_run[2][str(work / "swallow_02.ipynb")]
    assert not r["passed"]
    assert "printed something besides its ✅ line" in r["first_hint"]


def test_class_table_lists_every_file(class_run):
    rc, out, results, files = class_run
    assert rc == 1  # some notebooks fail
    lines = out.splitlines()
    assert lines[0].split()[:5] == ["file", "exercise", "result", "checks", "first"]
    for f in files:
        row = next(ln for ln in lines if ln.startswith(str(f) + " "))
        assert ("passed" if results[str(f)]["passed"] else "FAILED") in row
    assert f"of {len(files)} notebooks passed" in out


def test_class_run_is_bounded(class_run):
    """Each notebook's grading took a bounded time (the suite budget is ~4 minutes on 2 cores)."""
    assert all(r["seconds"] < 400 for r in class_run[2].values())


# -- loops and time limits --------------------------------------------------------------------------


def test_looping_answers_time_out_as_failures(loop_run):
    py, nb = loop_run
    assert not py.passed and not nb.passed
    assert "popcount_kernighan" in py.first_hint and "ran longer than 20 s" in py.first_hint
    assert "popcount_kernighan" in nb.first_hint and "ran longer than 20 s" in nb.first_hint
    assert py.seconds < 200 and nb.seconds < 200


def _our_grading_processes() -> list[int]:
    out = []
    for d in Path("/proc").glob("[0-9]*"):
        try:
            if "simhash-lab-grade-" in os.readlink(d / "cwd"):
                out.append(int(d.name))
        except OSError:
            pass
    return out


def test_wall_clock_bound_kills_the_whole_tree(work):
    path = _looping(work)[0]
    r = grade([path], cell_timeout=600, timeout=12)[0]
    assert not r.passed
    assert "took longer than 12 s" in r.first_hint
    assert r.seconds < 40
    for _ in range(50):  # kernel and pytest are gone (give init a moment to reap them)
        if not _our_grading_processes():
            break
        time.sleep(0.1)
    assert _our_grading_processes() == []


# -- cheap checks: no nbval run ---------------------------------------------------------------------


def test_unreadable_and_unknown_notebooks(tmp_path, capsys):
    bad = tmp_path / "not_a_notebook.ipynb"
    bad.write_text("{ this is not json")
    unknown = tmp_path / "my_notes.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), unknown)
    rc = cli.main(["grade", str(bad), str(unknown)])
    out = capsys.readouterr().out
    assert rc == 1
    assert "not a readable notebook" in out and "cannot tell which exercise" in out
    assert str(bad) in out and str(unknown) in out


def test_lint_failure_is_reported_without_running(tmp_path):
    nb = _set_answers(_read(SOLUTIONS / "02_simhash_voting.ipynb"), {"rust_safe_fast_votes": _SWALLOW})
    p = tmp_path / "02_simhash_voting.ipynb"
    nbformat.write(nb, p)
    r = grade([p])[0]
    assert not r.passed and r.returncode is None
    assert "rust_safe_fast_votes" in r.first_hint and "get_ipython" in r.first_hint


def test_exit_status(monkeypatch, capsys):
    ok = GradeResult("a.ipynb", "01_lsh_vs_crypto", True, [CheckResult("md5_64", True)])
    bad = GradeResult("b.ipynb", "01_lsh_vs_crypto", False, [CheckResult("md5_64", False, "h")], "h")
    monkeypatch.setattr(_grader, "grade", lambda paths, **kw: [ok] if paths == ["a"] else [ok, bad])
    assert cli.main(["grade", "a"]) == 0
    assert "PASSED: 1/1 checks passed" in capsys.readouterr().out
    assert cli.main(["grade", "a", "b"]) == 1
    table = capsys.readouterr().out
    assert "a.ipynb" in table and "b.ipynb" in table and "FAILED" in table


@pytest.mark.parametrize(
    "source",
    [
        "get_ipython().set_custom_exc((Exception,), print)",
        "import sys\nsys.modules['simhash_lab.grading.checks'].md5_64 = lambda f: True",
        "checks.md5_64 = lambda f: True",
        "from simhash_lab.grading import checks as c",
        "import simhash_lab.grading",
        "from simhash_lab import grading",
        "__builtins__.print = None",
        "x = ().__class__.__bases__[0].__subclasses__()",
        "exec('import os')",
        "f = getattr(md5_64, '__glo' + 'bals__')",
        "open('/tmp/x', 'w').write('')",
        "%timeit 1 + 1",
        "!rm -rf /",
        "import os as checks",
        "import subprocess",
        "from os import system",
        "import random\nrandom._os.system('true')",
        "def f():\n    return f.__code__",
    ],
)
def test_lint_rejects_tampering(source):
    assert lint_answer(source)


@pytest.mark.parametrize("name", NAMES)
def test_solution_answers_pass_the_lint(name):
    for c in _cells(_read(SOLUTIONS / f"{name}.ipynb"), "answer"):
        assert lint_answer(c.source) == [], c.source


def test_assemble_trusts_only_answer_cells():
    pristine = load_pristine()["02_simhash_voting"]
    graded = _read(SOLUTIONS / "02_simhash_voting.ipynb")
    for c in graded.cells:  # tamper with everything but the answers
        if _role(c).get("role") != "answer":
            c.source = "pass"
            c.metadata["tags"] = ["raises-exception", "nbval-skip"]
    nb, roles, found = assemble(pristine, graded)
    assert set(found.values()) == {"key"}
    code = [c for c in nb.cells if c.cell_type == "code"]
    for c, p in zip(code, [c for c in pristine.cells if c.cell_type == "code"]):
        if _role(p).get("role") != "answer":
            assert c.source == p.source and c.metadata == p.metadata
    for c, r in zip(code, roles):
        if r["role"] == "check":
            assert c.execution_count == 1 and c.outputs[0]["text"] == checks.pass_line(r["check"])
        else:
            assert c.execution_count is None and c.outputs == []


def test_assemble_missing_answers_keep_the_stub():
    pristine = load_pristine()["05_block_index"]
    graded = nbformat.v4.new_notebook()  # a learner who deleted everything
    nb, roles, found = assemble(pristine, graded)
    assert set(found.values()) == {"stub"}
    stubs = [
        c.source
        for c, r in zip([c for c in nb.cells if c.cell_type == "code"], roles)
        if r["role"] == "answer"
    ]
    assert all("raise NotImplementedError()" in s for s in stubs)


def test_assemble_matches_by_id_when_metadata_is_lost():
    pristine = load_pristine()["01_lsh_vs_crypto"]
    graded = _read(SOLUTIONS / "01_lsh_vs_crypto.ipynb")
    for c in graded.cells:
        c.metadata.pop(META, None)
    _, _, found = assemble(pristine, graded)
    assert set(found.values()) == {"id"}


# -- the notebooks themselves ---------------------------------------------------------------------


def test_enough_exercises_and_answer_cells():
    assert len(NAMES) >= 6
    total = 0
    for name in NAMES:
        nb = _read(EXERCISES / f"{name}.ipynb")
        answers = _cells(nb, "answer")
        total += len(answers)
        for c in answers:
            assert "answer" in c.metadata["tags"] and "nbval-ignore-output" in c.metadata["tags"]
            assert "raise NotImplementedError()" in c.source
            assert c.outputs == [] and c.execution_count is None
        for c in _cells(nb, "check"):
            assert c.source.startswith("assert checks.") and c.metadata["editable"] is False
        assert nb.metadata[META]["exercise"] == name
    assert total >= 15


@pytest.mark.parametrize("name", NAMES)
def test_solutions_store_their_check_lines(name):
    nb = _read(SOLUTIONS / f"{name}.ipynb")
    for c in nb.cells:
        if c.cell_type == "code":
            assert c.execution_count is not None
            assert not any(o.output_type == "error" for o in c.outputs)
    for c in _cells(nb, "check"):
        assert [o.get("text") for o in c.outputs] == [_role(c)["expect"]]


# -- the checkers, in process -----------------------------------------------------------------------


def test_checker_pass_prints_one_line(capsys):
    assert checks.rust_safe_fast_votes([3, 1, 1, -3]) is True
    assert capsys.readouterr().out == checks.pass_line("rust_safe_fast_votes")


def test_checker_fail_prints_verdict_and_raises_short(capsys):
    with pytest.raises(AssertionError) as e:
        checks.rust_safe_fast_votes([-3, 1, 1, 3])
    out = capsys.readouterr().out
    assert out.startswith("❌") and "expected: [3, 1, 1, -3]" in out and "got:" in out
    assert "backwards" in out
    assert isinstance(e.value, checks.CheckFailed)
    assert len(e.value._render_traceback_()) == 1


class _Sneaky:
    def __eq__(self, other):
        return True

    def __iter__(self):
        return iter([_Sneaky()] * 4)

    def __len__(self):
        return 4


@pytest.mark.parametrize(
    "call",
    [
        lambda: checks.rust_safe_fast_votes(_Sneaky()),
        lambda: checks.six_bit_int(_Sneaky()),
        lambda: checks.six_bit_int(True),
        lambda: checks.best_k(4.0),
        lambda: checks.md5_64(lambda t: _Sneaky()),
    ],
)
def test_checkers_normalise_answers(call, capsys):
    with pytest.raises(checks.CheckFailed):
        call()


def test_checkers_catch_learner_bugs(capsys):
    def broken(x):
        raise ZeroDivisionError("oops")

    with pytest.raises(checks.CheckFailed):
        checks.popcount_kernighan(broken)
    assert "ZeroDivisionError: oops" in capsys.readouterr().out


def test_kernighan_check_counts_steps(capsys):
    def shifting(x):
        c = 0
        while x:
            c += x & 1
            x >>= 1
        return c

    with pytest.raises(checks.CheckFailed, match="set bit"):
        checks.popcount_kernighan(shifting)


def test_is_near_check_wants_an_early_exit(capsys):
    def full(a, b, k=3):
        x, c = a ^ b, 0
        while x:
            x &= x - 1
            c += 1
        return c <= k

    with pytest.raises(checks.CheckFailed, match="exceeds k"):
        checks.is_near(full)


def test_block_index_check_rejects_a_scan(capsys):
    def build(fps):
        return None

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(fps) if bin(f ^ q).count("1") <= k]

    with pytest.raises(checks.CheckFailed, match="candidate"):
        checks.block_index(build, query)


def test_data_is_deterministic_and_fresh():
    a, b = data.near_dup_corpus(), data.near_dup_corpus()
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    a[0][0] = "changed"
    assert data.near_dup_corpus()[0][0] != "changed"
    u, v = data.hyperplane_pair()
    assert np.isclose(np.degrees(np.arccos(u @ v / np.linalg.norm(u) / np.linalg.norm(v))), 30.0)
    assert len(data.avalanche_pairs()) == 40
    assert all(a != b and len(a) == len(b) for a, b in data.avalanche_pairs())
