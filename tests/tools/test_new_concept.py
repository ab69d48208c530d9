"""``tools/new_concept.py``, the recipe of CONTRIBUTING, end to end on a scratch copy of the
repository: the scaffold writes every piece of a concept, the build gives its notebook and exercise,
its checker test passes, ``tools/build.py --check`` passes (map, navigation, Spanish catalogues), and
a wrong answer in its exercise fails its check. Only the new concept and the map's notebook (00) are
built, as ``make test`` runs the notebooks: with the kernels' cache copied from this checkout (which
``make test`` warms first) and compiles forbidden (``SIMHASH_LAB_ON_COMPILE=error``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAME, NN = "toy_parity", "09"


def _tracked(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return [p for p in out.decode().split("\0") if p and (root / p).is_file()]


@pytest.fixture(scope="module")
def copy(tmp_path_factory) -> Path:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the scratch copy is its tracked files)")
    dest = tmp_path_factory.mktemp("checkout")
    for rel in _tracked(ROOT):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest / rel)
    cache = ROOT / "simhash_lab" / "kernels" / "__pycache__"
    if cache.is_dir():  # stamped by the kernel sources' digest, which the copy shares
        shutil.copytree(cache, dest / "simhash_lab" / "kernels" / "__pycache__")
    return dest


def _run(copy: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONHASHSEED": "0", **env}
    return subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def scaffolded(copy: Path) -> Path:
    r = _run(copy, "tools/new_concept.py", NAME, "--title", "Toy parity")
    assert r.returncode == 0, r.stderr
    return copy


def test_bad_names_are_refused_naming_the_parameter(copy):
    for args, word in (
        (["Bad-Name"], "NAME"),
        (["lsh_vs_crypto"], "NAME"),
        (["fresh", "--number", "03"], "--number"),
        (["fresh", "--number", "9"], "--number"),
    ):
        r = _run(copy, "tools/new_concept.py", *args, timeout=60)
        assert r.returncode == 2 and word in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert not list((copy / "course" / "notebooks").glob("*_fresh.py"))


def test_the_scaffold_writes_every_piece_and_says_what_next(scaffolded):
    for rel in (
        f"course/notebooks/{NN}_{NAME}.py",
        f"course/exercises/{NN}_{NAME}.py",
        f"simhash_lab/grading/checks/{NAME}.py",
        f"tests/grading/checks/test_{NAME}.py",
        f"course/i18n/es/notebooks/{NN}_{NAME}.po",
        f"course/i18n/es/exercises/{NN}_{NAME}.po",
    ):
        assert (scaffolded / rel).is_file(), rel
    assert f"def {NAME}_fingerprints(" in (scaffolded / "simhash_lab/grading/data.py").read_text()
    start = (scaffolded / "course/notebooks/00_start_here.py").read_text()
    assert f"# | {NN} | [Toy parity]({NN}_{NAME}.ipynb) |" in start
    for lint in (["check"], ["format", "--check"]):  # as `make test` lints every file
        r = _run(scaffolded, "-m", "ruff", *lint, ".", timeout=120)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-1000:]


def test_the_new_concept_builds_checks_and_passes(scaffolded):
    before = _run(scaffolded, "tools/build.py", "--check", timeout=120)
    assert before.returncode != 0 and f"{NN}_{NAME}" in before.stdout  # not built yet: named stale
    # as `make test` runs the notebooks: after the warmup, a cell that compiles a kernel fails
    warm = (scaffolded / "simhash_lab" / "kernels" / "__pycache__").is_dir()
    on_compile = {"SIMHASH_LAB_ON_COMPILE": "error"} if warm else {}
    built = _run(scaffolded, "tools/build.py", "00", NN, "--budget", "300", timeout=600, **on_compile)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-3000:]
    for rel in (f"notebooks/{NN}_{NAME}.ipynb", f"exercises/solutions/{NN}_{NAME}.ipynb"):
        assert (scaffolded / rel).is_file(), rel
    tests = _run(
        scaffolded, "-m", "pytest", "-q", "-p", "no:randomly", f"tests/grading/checks/test_{NAME}.py"
    )
    assert tests.returncode == 0 and "4 passed" in tests.stdout, tests.stdout[-2000:]
    check = _run(scaffolded, "tools/build.py", "--check", timeout=120)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    i18n = _run(scaffolded, "tools/i18n.py", "check", "00", NN, timeout=120)
    assert i18n.returncode == 0, i18n.stdout[-2000:]


_RUN_WITH = """
import sys
import nbformat
nb = nbformat.read(sys.argv[1], as_version=4)
ns = {}
for c in nb.cells:
    role = c.metadata.get("simhash_lab", {}).get("role")
    if c.cell_type == "code" and role in ("setup", "given", "answer", "check"):
        src = c.source
        if role == "answer":
            src = src.replace('bin(f).count("1")', '64 - bin(f).count("1")')  # counts the zeros
        exec(src, ns)
"""


def test_a_wrong_answer_in_the_new_exercise_fails_its_check(scaffolded):
    solved = scaffolded / "exercises" / "solutions" / f"{NN}_{NAME}.ipynb"
    if not solved.exists():
        _run(scaffolded, "tools/build.py", "--exercises", NN, timeout=300)
    r = _run(scaffolded, "-c", _RUN_WITH, str(solved), timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"❌ {NAME}_set_bits: not yet" in r.stdout and "counts the 0 bits" in r.stdout, r.stdout
    assert "✅" not in r.stdout
