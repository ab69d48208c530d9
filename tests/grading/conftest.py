"""Helpers of the grading tests: the exercise notebooks, and notebooks built from them with some
answer cells replaced (the attacks)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
# liars.py: the lying objects test_protocol.py and checks/test_checker.py parametrize with (made at
# collection, so a module beside the tests rather than a fixture)
sys.path.insert(0, str(Path(__file__).resolve().parent))
EXERCISES = ROOT / "exercises"
SOLUTIONS = EXERCISES / "solutions"
NAMES = sorted(p.stem for p in (ROOT / "course" / "exercises").glob("[0-9][0-9]_*.py"))
META = "simhash_lab"


def exercise(name: str, lang: str = "en") -> Path:
    """The learner's file of exercise ``name`` as the build writes it
    (``exercises/[LANG/]NN_exercise_topic.ipynb``)."""
    from simhash_lab.grading._notebooks import exercise_file

    return EXERCISES / ("" if lang == "en" else lang) / exercise_file(name)


def solution(name: str, lang: str = "en") -> Path:
    """The solved file of exercise ``name`` (``exercises/[LANG/]solutions/NN_solution_topic.ipynb``)."""
    from simhash_lab.grading._notebooks import exercise_file

    return EXERCISES / ("" if lang == "en" else lang) / "solutions" / exercise_file(name, "solution")


def role(cell) -> dict:
    md = cell.get("metadata", {}).get(META, {})
    return md if isinstance(md, dict) else {}


def read(path: Path):
    return nbformat.read(path, as_version=4)


def with_answers(base: Path, answers: dict[str, str], dest: Path) -> Path:
    """``base`` with the source of the answer cells named in ``answers`` replaced; written to ``dest``."""
    nb = read(base)
    seen = set()
    for c in nb.cells:
        key = role(c).get("answer")
        if key in answers:
            c.source = answers[key]
            seen.add(key)
    assert seen == set(answers), f"no answer cells {set(answers) - seen} in {base.name}"
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return dest


def solution_source(name: str, key: str) -> str:
    for c in read(solution(name)).cells:
        if role(c).get("answer") == key:
            return c.source
    raise KeyError(key)


def processes_with(token: str) -> list[int]:
    """Processes of this machine whose command line holds ``token`` (a uuid of the test's own: so
    only the test's own processes match)."""
    out = []
    me = os.getpid()
    for d in Path("/proc").glob("[0-9]*"):
        try:
            cmd = (d / "cmdline").read_bytes()
        except OSError:
            continue
        if token.encode() in cmd and int(d.name) != me:
            out.append(int(d.name))
    return out


def package_digest() -> dict[str, str]:
    """SHA-256 of every file of the simhash_lab package (caches aside): nothing may change it."""
    import hashlib

    pkg = ROOT / "simhash_lab"
    out = {}
    for p in sorted(pkg.rglob("*")):
        if p.is_file() and "__pycache__" not in p.parts:
            out[str(p.relative_to(pkg))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def grade_cli(args: list[str], tmp: Path, env: dict | None = None) -> tuple[int, str, str, list[dict]]:
    """``simhash-lab grade ARGS --json FILE`` in a subprocess: (status, stdout, stderr, the JSON).

    Every sandbox runs with ``SIMHASH_LAB_ON_COMPILE=error`` (the grader passes it in): a notebook
    that made Numba compile, instead of loading the warmup's read-only cache, fails."""
    import subprocess

    out_json = tmp / f"grade-{len(list(tmp.glob('grade-*.json')))}.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "SIMHASH_LAB_ON_COMPILE": "error",
        **(env or {}),
    }
    p = subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", "grade", *args, "--json", str(out_json)],
        capture_output=True,
        timeout=1800,
        env=env,
        cwd=tmp,
    )
    doc = json.loads(out_json.read_bytes().decode("utf-8")) if out_json.exists() else []
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), doc


@pytest.fixture(scope="session")
def sandbox_ok():
    """The sandbox must work here (``make test`` installs bubblewrap; off Linux the tests skip), and
    the compiled kernels are cached first, as a teacher's ``simhash-lab warmup`` does, so that each
    graded notebook loads them instead of compiling."""
    import subprocess

    if not sys.platform.startswith("linux"):
        pytest.skip("the grader's sandbox (bubblewrap) needs Linux")
    from simhash_lab.grading import _sandbox

    why = _sandbox.availability()
    assert why is None, why
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    p = subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", "warmup"], capture_output=True, timeout=1800, env=env
    )
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-2000:]


@pytest.fixture(scope="session")
def kit():
    """The helpers above, for the test modules (which cannot import this conftest)."""
    import types

    return types.SimpleNamespace(
        ROOT=ROOT,
        EXERCISES=EXERCISES,
        SOLUTIONS=SOLUTIONS,
        NAMES=NAMES,
        exercise=exercise,
        solution=solution,
        role=role,
        read=read,
        with_answers=with_answers,
        solution_source=solution_source,
        processes_with=processes_with,
        package_digest=package_digest,
        grade_cli=grade_cli,
    )
