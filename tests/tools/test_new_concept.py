"""``tools/new_concept.py``, the recipe of CONTRIBUTING, end to end on a fresh copy of the
repository: the commands of CONTRIBUTING's "Adding a concept" (steps 0 to 2) are read from it and
typed into a shell as a newcomer types them (`make warmup`, the scaffold, the build of 00 and the
new concept, its checker's tests in both languages, `tools/build.py --check`, the Spanish checks of
the sources and of the library), and each must pass; the scaffold writes every piece, prints the
same next steps, and a wrong answer in its exercise fails its check. The copy's `.venv` is this
environment (its `bin/python` and `bin/simhash-lab` run this Python on the copy), and its kernels'
cache is this checkout's, so `make warmup` finds them compiled, as it would after its first run."""

from __future__ import annotations

import importlib.util
import os
import re
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
    for cache in (ROOT / "simhash_lab").rglob("__pycache__"):  # compiled kernels: stamped by the
        for f in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:  # sources' digest, which the copy shares
            target = dest / f.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)
    return dest


def _run(copy: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONHASHSEED": "0", **env}
    return subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout
    )


_COMMAND = re.compile(r"^ {4,}((?:make|\.venv/bin/)\S*.*)$")


def recipe_commands() -> list[str]:
    """The commands of CONTRIBUTING's "Adding a concept", in order, for the toy concept."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Adding a concept", 1)[1].split("\n## ", 1)[0]
    commands = [m.group(1).strip() for line in section.splitlines() if (m := _COMMAND.match(line))]
    return [re.sub(r"\bNN\b", NN, c.replace("NAME", NAME)) for c in commands]


def _venv(copy: Path) -> None:
    """The copy's `.venv`: this Python, running the copy's code; installed already (so `make`
    does not install it again)."""
    bin_ = copy / ".venv" / "bin"
    bin_.mkdir(parents=True)
    shims = {"python": 'exec "{py}" "$@"', "simhash-lab": 'exec "{py}" -m simhash_lab.cli "$@"'}
    for name, body in shims.items():
        (bin_ / name).write_text("#!/bin/sh\n" + body.format(py=sys.executable) + "\n", encoding="utf-8")
        (bin_ / name).chmod(0o755)
    (copy / ".venv" / ".installed-stamp").touch()


@pytest.fixture(scope="module")
def recipe(copy: Path) -> tuple[Path, list[tuple[str, subprocess.CompletedProcess]]]:
    """The recipe typed into the copy: each command and what it did."""
    _venv(copy)
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONHASHSEED": "0"}
    done = []
    for command in recipe_commands():
        r = subprocess.run(
            ["bash", "-c", command], cwd=copy, env=env, capture_output=True, text=True, timeout=900
        )
        done.append((command, r))
        if r.returncode != 0:
            break
    return copy, done


@pytest.fixture(scope="module")
def scaffolded(recipe) -> Path:
    copy, done = recipe
    assert any("tools/new_concept.py" in c for c, _ in done), [c for c, _ in done]
    return copy


def test_contributing_names_every_step_and_the_scaffold_prints_the_same(copy):
    commands = recipe_commands()
    assert commands[0] == "make warmup"
    assert commands[1].startswith(f".venv/bin/python tools/new_concept.py {NAME} ")
    spec = importlib.util.spec_from_file_location(
        "simhash_lab_new_concept_tool", ROOT / "tools" / "new_concept.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert commands[2:] == tool.next_steps(NN, NAME)
    joined = " ".join(commands)
    for what in (
        "tools/build.py 00",
        "test_checker_spanish.py",
        "--check",
        "i18n.py check",
        "i18n_library.py check",
    ):
        assert what in joined, what


def test_every_command_of_the_recipe_passes_as_typed(recipe):
    _, done = recipe
    assert len(done) == len(recipe_commands())
    for command, r in done:
        assert r.returncode == 0, f"{command}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    build = next(r for c, r in done if "tools/build.py 00" in c)
    assert "TOO SLOW" not in build.stderr and "warming the kernels first" in build.stdout
    tests = next(r for c, r in done if "-m pytest" in c)
    assert " passed" in tests.stdout and "failed" not in tests.stdout, tests.stdout[-1500:]


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
    assert f"# | {NN} | [Its title]({NN}_{NAME}.ipynb) |" in start  # as CONTRIBUTING types it
    for lint in (["check"], ["format", "--check"]):  # as `make test` lints every file
        r = _run(scaffolded, "-m", "ruff", *lint, ".", timeout=120)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-1000:]


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
    solved = scaffolded / "exercises" / "solutions" / f"{NN}_solution_{NAME}.ipynb"
    if not solved.exists():
        _run(scaffolded, "tools/build.py", "--exercises", NN, timeout=300)
    r = _run(scaffolded, "-c", _RUN_WITH, str(solved), timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert f"❌ {NAME}_set_bits: not yet" in r.stdout and "counts the 0 bits" in r.stdout, r.stdout
    assert "✅" not in r.stdout
