"""The Makefile's learner-facing targets, on a scratch tree (make -n: nothing runs): `make check`
recompiles kernels only when a file of the library changed since the last warmup succeeded, so it
is quiet once they are compiled, and `make lab` announces each of its steps."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def _tree(tmp_path: Path) -> Path:
    """The Makefile over an installed environment whose warmup succeeded after every library file."""
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "simhash_lab").mkdir()
    (tmp_path / "simhash_lab" / "a.py").write_text("", encoding="utf-8")
    venv = tmp_path / ".venv"
    (venv / "bin").mkdir(parents=True)
    past = time.time() - 100
    for f in (tmp_path / "pyproject.toml", tmp_path / "simhash_lab" / "a.py"):
        os.utime(f, (past, past))
    for stamp in (venv / ".installed-stamp", venv / ".warm-stamp"):
        stamp.touch()
        os.utime(stamp, (past + 50, past + 50))
    return tmp_path


def _dry(tree: Path, *args: str) -> str:
    # as typed in a plain shell, also when the tests themselves run under `make test` (whose
    # MAKEFLAGS / MAKELEVEL would make this make print "Entering directory '<the test's folder>'")
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    env["LC_ALL"] = "C"
    cmd = ["make", "--no-print-directory", "-n", *args]
    return subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True).stdout


def test_check_runs_no_warmup_once_the_kernels_are_compiled(tmp_path):
    tree = _tree(tmp_path)
    quiet = _dry(tree, "check", "NB=exercises/")
    assert "warmup" not in quiet and 'simhash-lab check "exercises/"' in quiet
    (tree / "simhash_lab" / "a.py").touch()  # the library changed: compile what it needs first
    again = _dry(tree, "check", "NB=exercises/")
    assert again.index("simhash-lab warmup") < again.index("simhash-lab check")


def test_lab_says_each_step_and_opens_the_course(tmp_path):
    tree = _tree(tmp_path)
    (tree / "pyproject.toml").touch()  # a fresh environment: every step runs
    dry = _dry(tree, "lab")
    steps = ["the Python environment", "compiling the Numba kernels", "starting JupyterLab"]
    at = [dry.find(s) for s in steps]
    assert -1 not in at and at == sorted(at), dry
    assert "--progress-bar on" in dry and "tools/lab.py" in dry
