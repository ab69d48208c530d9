"""The CI file ``simhash-lab assign --ci github`` writes, run as written on a student's repository:
its install step (``pip install`` of what ``--ci-package`` names: here a wheel built from this
checkout, pip kept off the network) and its grade and summary steps, each as GitHub runs a
``shell: bash`` step (``bash --noprofile --norc -eo pipefail``). Only the step that installs
bubblewrap with sudo is not run (the sandbox fixture needs it here already).

One wheel build, one ``pip install`` into a fresh environment (its dependencies seen from this
one's), one ``simhash-lab warmup`` from an empty cache, two grades: the slowest test of the grader
(a minute or two), and the only one that runs the teacher's CI file whole.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from simhash_lab.grading import classroom


def _bash(script: str, cwd: Path, env: dict, timeout: int = 1500) -> subprocess.CompletedProcess:
    path = cwd / ".step.sh"
    path.write_text(script)
    try:
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(path)],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    finally:
        path.unlink()


@pytest.fixture(scope="module")
def wheel(kit, tmp_path_factory) -> Path:
    """A wheel of this checkout, built from a copy of it (the checkout itself is not written)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(kit.ROOT / name, src / name)
    shutil.copytree(
        kit.ROOT / "simhash_lab",
        src / "simhash_lab",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if p.returncode != 0 and "No matching distribution found for setuptools" in p.stderr:
        pytest.skip("no index to fetch the build backend (setuptools>=77) from: " + p.stderr[-300:])
    assert p.returncode == 0, p.stderr[-3000:]
    [whl] = (tmp / "dist").glob("simhash_lab-*.whl")
    return whl


def test_the_github_workflow_installs_from_ci_package_and_grades_as_written(kit, sandbox_ok, wheel, tmp_path):
    package = f"simhash-lab[grading] @ {wheel.as_uri()}"
    (tmp_path / "roster.csv").write_text("id\nbob\n")
    classroom.assign(
        kit.EXERCISES,
        tmp_path / "roster.csv",
        tmp_path / "release",
        only=["03_hamming_popcount"],
        ci="github",
        ci_package=package,
    )
    handout = tmp_path / "release/handout/bob"
    steps = {
        s.get("name"): s
        for s in yaml.safe_load((handout / ".github/workflows/grade.yml").read_text())["jobs"]["grade"][
            "steps"
        ]
    }
    assert steps["install"]["shell"] == steps["grade"]["shell"] == "bash"
    # a fresh environment, as setup-python gives: its own prefix, this one's packages visible for the
    # dependencies only (a .pth line, no pip of its own: `python -m pip` runs this one's, into it)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=300)
    [purelib] = venv.glob("lib/python3*/site-packages")
    (purelib / "deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTHON", "VIRTUAL_ENV", "NUMBA_CACHE", "PIP_"))
    }
    env.update(
        PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        VIRTUAL_ENV=str(venv),
        PIP_NO_INDEX="1",  # the install line reaches nothing but the wheel it names
        PIP_NO_CACHE_DIR="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
    )
    repo = tmp_path / "repo"
    shutil.copytree(handout, repo)
    p = _bash(steps["install"]["run"], repo, env)
    assert p.returncode == 0, (p.stdout + p.stderr)[-3000:]
    where = subprocess.run(
        [str(venv / "bin/python"), "-c", "import simhash_lab; print(simhash_lab.__file__)"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(purelib)), where  # the wheel's, not this checkout's
    # the stub as handed out fails, and the table is in the log all the same
    p = _bash(steps["grade"]["run"], repo, env)
    assert p.returncode == 1 and "FAILED" in p.stdout and "03_hamming_popcount" in p.stdout, (
        p.stdout + p.stderr
    )
    assert (repo / "grade.json").is_file()
    s = _bash(steps["summary"]["run"], repo, env)
    assert s.returncode == 0 and "FAILED" in (tmp_path / "summary.md").read_text()
    # solved (bob's own variant), it passes
    shutil.copy(
        tmp_path / "release/private/solutions/bob/03_solution_hamming_popcount.ipynb",
        repo / "03_exercise_hamming_popcount.ipynb",  # bob's own file, answered
    )
    p = _bash(steps["grade"]["run"], repo, env)
    assert p.returncode == 0 and "PASSED" in p.stdout, p.stdout + p.stderr
