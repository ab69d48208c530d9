"""The grader's sandbox (simhash_lab.grading._sandbox), its layers one at a time: the PID namespace ends
every process of the sandbox; the notebook's code sees the package without its grader, nothing of the
checkout and no classmate; a package that lives under /tmp is graded too."""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

TOKEN = f"simhash-lab-attack-{uuid.uuid4().hex}"  # only this test's processes hold it


def test_the_pid_namespace_ends_every_process_of_the_sandbox(kit):
    """Below the filter: a setsid daemon started inside (here by a shell, which may fork) dies when
    the sandbox's first process ends."""
    import subprocess

    from simhash_lab.grading import _sandbox

    token = f"{TOKEN}-pidns"
    script = f"setsid sh -c 'sleep 300; : {token}' & sleep 1; echo started"
    p = subprocess.run(
        [*_sandbox.bwrap_command(probe=True), "/bin/sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "started" in p.stdout, p.stderr
    for _ in range(50):
        if not kit.processes_with(token):
            break
        time.sleep(0.1)
    assert kit.processes_with(token) == []


def test_the_sandbox_sees_no_checkout_no_checker_and_no_classmate(kit, tmp_path):
    """What the notebook's code can see: the package without its grader, nothing of the checkout,
    none of the class folder's notebooks (the grader is run with ``python -m`` from the class folder,
    whose current directory is on its sys.path)."""
    import shutil

    classmate = f"classmate-{TOKEN}.ipynb"
    src = f"""
import os, sys, simhash_lab
pkg = os.path.dirname(simhash_lab.__file__)
print('SEEN', sorted(os.listdir(os.path.join(pkg, 'grading'))))
print('SEEN', sorted(os.listdir(os.path.dirname(pkg))))
print('SEEN', os.getuid() != 0, os.path.exists(os.path.expanduser('~/.ipython')))
found = []
for top in [*sys.path, '/', '/work', '/root', '/home', '/tmp']:
    for folder, dirs, files in os.walk(top if os.path.isdir(top) else '/nonexistent'):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in ('/usr', '/proc', '/sys', '/dev')]
        found += [f for f in files if f.endswith('{TOKEN}.ipynb') or f == '03_hamming_popcount.ipynb']
print('SEEN', sorted(set(found)))
raise NotImplementedError()
"""
    cls = tmp_path / "class"
    path = kit.with_answers(kit.exercise("03_hamming_popcount"), {"hamming_by_hand": src}, cls / classmate)
    shutil.copy(kit.solution("03_hamming_popcount"), cls / "03_hamming_popcount.ipynb")
    rc, stdout, _, doc = kit.grade_cli([str(path), "-v"], cls)  # cwd: the class folder
    seen = [ln.split("SEEN ", 1)[1] for ln in doc[0]["log"].splitlines() if ln.startswith("SEEN ")]
    assert seen[0] == "['__init__.py', '_protocol.py', 'checks', 'data.py']", seen
    # beside the package, only the Python installation, where it lives in the checkout (`make`'s .venv)
    python_dirs = {Path(p).relative_to(kit.ROOT).parts[0] for p in (sys.prefix, sys.base_prefix)
                   if Path(p).is_relative_to(kit.ROOT)}  # fmt: skip
    assert seen[1] == str(sorted({"simhash_lab", *python_dirs})), seen
    assert seen[2] == "True False", seen
    assert seen[3] == "[]", seen


def test_a_package_under_tmp_is_graded_too(kit, tmp_path):
    """The sandbox's private /tmp must not hide a simhash_lab that lives under /tmp (a CI checkout)."""
    import shutil
    import subprocess
    import sys

    copy = tmp_path / "checkout"
    shutil.copytree(
        kit.ROOT / "simhash_lab", copy / "simhash_lab", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = {**os.environ, "PYTHONPATH": str(copy)}
    p = subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", "grade", str(kit.solution("03_hamming_popcount"))],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    assert p.returncode == 0 and "PASSED: 4/4" in p.stdout, (p.stdout, p.stderr)
