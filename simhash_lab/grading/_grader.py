"""``simhash-lab grade``: grade exercise notebooks with nbval, trusting only their answer cells.

How a notebook is graded
------------------------
1. Find its exercise (notebook metadata ``simhash_lab.exercise``, else the file name) and load the
   pristine student notebook of that exercise shipped in ``simhash_lab/grading/pristine/``.
2. Take the source of each ``answer`` cell from the graded file, matched by the stable key in the
   cell's metadata (``simhash_lab.answer``), then by cell id; a missing answer keeps the stub.
   Every other cell (setup, given data, check cells) comes from the pristine copy; nothing else in
   the graded file is read: not its outputs, not its other cells, not its tags.
3. Lint the answers: they must be plain Python that does not reach into the grader or the kernel
   (IPython hooks, ``builtins``, ``sys``, the ``checks`` module, ``open`` ...). A failing answer is
   reported without running anything.
4. Write the assembled notebook to a fresh temporary folder. Every cell is unrun (no stored output)
   except the check cells, whose stored output is exactly their ``✅`` line. So nbval fails a check
   cell when it raises (the checkers raise on a wrong answer, and the cell ends in ``assert``) *and*
   when it prints anything but the ``✅`` line (a swallowed exception still prints ``❌``).
5. Run ``pytest --nbval`` on it in a subprocess with a per-cell time limit (an endless loop is
   interrupted and fails) and a wall-clock limit for the whole notebook (the process tree is killed).
   The notebook passes only when pytest exits 0 and every check cell reported a pass.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

import nbformat

__all__ = [
    "GradeResult",
    "CheckResult",
    "grade",
    "grade_one",
    "lint_answer",
    "assemble",
    "load_pristine",
    "format_table",
    "format_detail",
    "META",
]

META = "simhash_lab"  # key of our metadata on notebooks and cells
_PKG = Path(__file__).resolve().parent
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_EXC_LINE = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit|Failed|Warning)\w*)"
    r"(?:\[\w+\])?: ?(.*)$"
)
_CHECK_FAILED = re.compile(r"CheckFailed\[(\w+)\]: ?(.*)")

# -- pristine notebooks --------------------------------------------------------------------------


def _pristine_dir() -> Path:
    return Path(str(resources.files("simhash_lab.grading") / "pristine"))


def load_pristine(directory: str | os.PathLike | None = None) -> dict[str, nbformat.NotebookNode]:
    """The pristine student notebooks, by exercise name (e.g. ``"02_simhash_voting"``)."""
    d = Path(directory) if directory is not None else _pristine_dir()
    out = {}
    for p in sorted(d.glob("*.ipynb")):
        nb = nbformat.read(p, as_version=4)
        out[nb.metadata.get(META, {}).get("exercise", p.stem)] = nb
    return out


def _role(cell) -> dict:
    return cell.get("metadata", {}).get(META, {}) or {}


def _digest(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p).encode())
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()


def _grading_files() -> list[Path]:
    return list(_PKG.glob("*.py")) + list(_pristine_dir().glob("*.ipynb"))


# -- lint ----------------------------------------------------------------------------------------

_ALLOWED_IMPORTS = {
    "__future__",
    "array",
    "bisect",
    "cmath",
    "collections",
    "dataclasses",
    "decimal",
    "fractions",
    "functools",
    "hashlib",
    "heapq",
    "itertools",
    "math",
    "numba",
    "numpy",
    "operator",
    "random",
    "re",
    "simhash_lab",
    "statistics",
    "string",
    "struct",
    "time",
    "typing",
}
_DENIED_NAMES = {
    "get_ipython",
    "__builtins__",
    "builtins",
    "globals",
    "locals",
    "vars",
    "exec",
    "eval",
    "compile",
    "__import__",
    "open",
    "setattr",
    "delattr",
    "getattr",
    "breakpoint",
    "input",
    "checks",
    "grading",
    "sys",
    "os",
    "importlib",
    "subprocess",
    "ctypes",
    "gc",
    "inspect",
    "signal",
    "IPython",
    "ipykernel",
    "excepthook",
    "set_custom_exc",
    "showtraceback",
    "run_cell",
    "user_ns",
    "modules",
    # stdlib modules keep private aliases of os/sys (random._os, collections._sys ...); frames leak globals
    "_os",
    "_sys",
    "_builtins",
    "_imp",
    "_bootstrap",
    "_getframe",
    "f_globals",
    "f_locals",
    "f_back",
    "f_builtins",
    "gi_frame",
    "cr_frame",
    "tb_frame",
    "ag_frame",
}
_ALLOWED_DUNDERS = {
    "__init__",
    "__name__",
    "__doc__",
    "__len__",
    "__iter__",
    "__next__",
    "__getitem__",
    "__eq__",
    "__hash__",
    "__repr__",
    "__str__",
    "__lt__",
}


def lint_answer(source: str) -> list[str]:
    """Problems that keep an answer cell from being graded (empty list: fine).

    Answers are graded as plain Python: no IPython magics or shell escapes (they do not parse),
    imports only from a short list (math, numpy, numba, hashlib, simhash_lab but not its grading,
    ...), and no names that reach into the kernel or the grader (``get_ipython``, ``builtins``,
    ``globals``, ``getattr``, ``open``, ``sys``, the ``checks`` module, dunder attributes ...).
    This closes the obvious ways to tamper with the check cells from an answer cell; it does not
    make running untrusted code safe.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [
            f"line {e.lineno}: not plain Python ({e.msg}); IPython magics (%timeit, !cmd) and "
            "experiments belong in a cell of your own, outside the answer cell"
        ]
    problems: list[tuple[tuple[int, int, int], str]] = []

    def bad(node: ast.AST, what: str) -> None:
        pos = (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), getattr(node, "end_col_offset", 0))
        problems.append((pos, f"line {pos[0]}: {what}"))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                root = a.name.split(".")[0]
                if root not in _ALLOWED_IMPORTS or a.name.startswith("simhash_lab.grading"):
                    bad(node, f"`import {a.name}` is not allowed in an answer cell")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            names = {a.name for a in node.names}
            if (
                node.level
                or mod.split(".")[0] not in _ALLOWED_IMPORTS
                or mod.startswith("simhash_lab.grading")
                or (mod == "simhash_lab" and names & {"grading", "*"})
                or "*" in names
            ):
                bad(node, f"`from {'.' * node.level}{mod} import ...` is not allowed in an answer cell")
        elif isinstance(node, ast.Name) and node.id in _DENIED_NAMES:
            bad(node, f"`{node.id}` is not allowed in an answer cell")
        elif isinstance(node, ast.Attribute):
            a = node.attr
            if a in _DENIED_NAMES or (a.startswith("__") and a.endswith("__") and a not in _ALLOWED_DUNDERS):
                bad(node, f"`.{a}` is not allowed in an answer cell")
        elif (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and node.name in _DENIED_NAMES
        ):
            bad(node, f"a definition named `{node.name}` is not allowed in an answer cell")
        elif isinstance(node, ast.alias) and (node.asname or "") in _DENIED_NAMES:
            bad(node, f"`as {node.asname}` is not allowed in an answer cell")
    return [msg for _, msg in sorted(problems)]


# -- assembling the notebook that nbval runs ------------------------------------------------------


def _answers_of(nb) -> tuple[dict[str, list], dict[str, object]]:
    by_key: dict[str, list] = {}
    by_id: dict[str, object] = {}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        key = _role(cell).get("answer")
        if isinstance(key, str):
            by_key.setdefault(key, []).append(cell)
        if isinstance(cell.get("id"), str):
            by_id[cell["id"]] = cell
    return by_key, by_id


def assemble(pristine, graded) -> tuple[nbformat.NotebookNode, list[dict], dict[str, str]]:
    """The notebook to run: pristine cells, with the graded file's answer sources put in.

    Returns ``(notebook, roles, found)``: ``roles[i]`` describes the i-th code cell (``role``:
    "answer", "check" or "given"; ``answer`` or ``check`` name); ``found`` says, per answer key,
    where its source came from ("key", "id" or "stub").
    """
    nb = copy.deepcopy(pristine)
    by_key, by_id = _answers_of(graded)
    roles, found = [], {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.outputs = []
        cell.execution_count = None
        meta = _role(cell)
        role = meta.get("role", "given")
        if role == "answer":
            key = meta["answer"]
            cands = by_key.get(key, [])
            same_id = [c for c in cands if c.get("id") == cell.get("id")]
            src = None
            if same_id:
                src, found[key] = same_id[0], "key"
            elif cands:
                src, found[key] = cands[0], "key"
            elif cell.get("id") in by_id and not _role(by_id[cell["id"]]).get("role"):
                src, found[key] = by_id[cell["id"]], "id"
            else:
                found[key] = "stub"
            if src is not None:
                s = src.get("source", "")
                cell.source = "".join(s) if isinstance(s, list) else str(s)
        elif role == "check":
            cell.execution_count = 1
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=meta["expect"])]
        roles.append({"role": role, "answer": meta.get("answer"), "check": meta.get("check")})
    return nb, roles, found


# -- results --------------------------------------------------------------------------------------


@dataclasses.dataclass
class CheckResult:
    """One check cell: its checker's name, whether it passed, and the hint when not."""

    name: str
    passed: bool
    hint: str = ""


@dataclasses.dataclass
class GradeResult:
    """The grade of one notebook file."""

    path: str
    exercise: str | None
    passed: bool
    checks: list[CheckResult] = dataclasses.field(default_factory=list)
    first_hint: str = ""
    seconds: float = 0.0
    returncode: int | None = None
    log: str = ""  # pytest's output, for a teacher who wants the details

    @property
    def checks_passed(self) -> int:
        return sum(c.passed for c in self.checks)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["checks_passed"] = self.checks_passed
        return d


def _exception(text: str) -> tuple[str, str]:
    """(exception name, message) of the last exception line in an nbval failure text."""
    text = _ANSI.sub("", text)
    tb = text.split("Traceback:", 1)[-1]
    for line in reversed(tb.splitlines()):
        m = _EXC_LINE.match(line.strip())
        if m:
            return m.group(1), m.group(2).strip()
    return "", ""


def _hint(role: dict, entry: dict, cell_timeout: float) -> str:
    text = _ANSI.sub("", entry.get("text", ""))
    where = (
        f"answer `{role['answer']}`"
        if role["role"] == "answer"
        else f"check `{role['check']}`"
        if role["role"] == "check"
        else "a given cell"
    )
    if "Timeout of" in text or "timed out" in text.lower():
        return f"{where} ran longer than {cell_timeout:g} s and was stopped (an endless loop?)"
    if "Kernel dead" in text or "Kernel died" in text or "kernel died" in text:
        return f"the kernel died before {where} (did your code crash Python?)"
    m = _CHECK_FAILED.search(text)
    if m:
        return m.group(2).strip()
    if "Cell outputs differ" in text:
        return (
            f"{where} printed something besides its ✅ line (remove prints from your functions, "
            "and leave the check cells as they are)"
        )
    name, msg = _exception(text)
    if role["role"] == "answer" and name == "NotImplementedError":
        return f"answer `{role['answer']}` is not written yet (it still raises NotImplementedError)"
    if name:
        return f"{where} raised {name}: {msg}"[:300]
    first = next((ln for ln in text.splitlines() if ln.strip()), "failed")
    return f"{where} failed: {first.strip()}"[:300]


# -- running nbval --------------------------------------------------------------------------------


def _descendants(pid: int) -> list[int]:
    try:
        import psutil

        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except Exception:
        pass
    children: dict[int, list[int]] = {}
    for d in Path("/proc").glob("[0-9]*"):
        try:
            stat = (d / "stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _kill_tree(proc: subprocess.Popen) -> None:
    """Kill pytest and everything it started (the kernel runs in a session of its own).

    Freeze first (SIGSTOP), so nothing forks or gets re-parented to init while the tree is listed,
    then SIGKILL every process found.
    """
    frozen = [proc.pid]
    try:
        os.kill(proc.pid, signal.SIGSTOP)
    except OSError:
        pass
    for _ in range(5):
        new = [p for p in _descendants(proc.pid) if p not in frozen]
        if not new:
            break
        for p in new:
            try:
                os.kill(p, signal.SIGSTOP)
            except OSError:
                pass
        frozen += new
    for p in reversed(frozen):
        try:
            os.kill(p, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def _kill_strays(directory: Path) -> None:
    """Kill processes still working in ``directory`` (a kernel nbval could not stop, say)."""
    target = str(directory)
    for d in Path("/proc").glob("[0-9]*"):
        try:
            cwd = os.readlink(d / "cwd")
        except OSError:
            continue
        if cwd == target or cwd.startswith(target + "/"):
            try:
                os.kill(int(d.name), signal.SIGKILL)
            except OSError:
                pass


def _run_nbval(nb_path: Path, report: Path, cell_timeout: float, timeout: float) -> tuple[int, str, bool]:
    ini = nb_path.parent / "pytest.ini"
    ini.write_text("[pytest]\n")
    args = [
        sys.executable,
        str(_PKG / "_report.py"),
        str(report),
        "--",
        "-p",
        "nbval.plugin",
        "--nbval",
        "--nbval-current-env",
        "--nbval-cell-timeout",
        f"{cell_timeout:g}",
        "--nbval-kernel-startup-timeout",
        "60",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "--noconftest",
        "-c",
        str(ini),
        "--rootdir",
        str(nb_path.parent),
        "-q",
        "-rN",
        "--color=no",
        "-W",
        "ignore::DeprecationWarning",
        str(nb_path),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", MPLBACKEND="Agg", PYDEVD_DISABLE_FILE_VALIDATION="1")
    proc = subprocess.Popen(
        args,
        cwd=nb_path.parent,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
        return proc.returncode, out, False
    except subprocess.TimeoutExpired:
        _kill_tree(proc)
        out, _ = proc.communicate()
        return -signal.SIGKILL, out or "", True
    finally:
        _kill_strays(nb_path.parent)


# -- grading --------------------------------------------------------------------------------------


def _identify(nb, path: Path, pristine: dict, exercise: str | None) -> str | None:
    if exercise:
        return exercise if exercise in pristine else None
    name = nb.get("metadata", {}).get(META, {}).get("exercise") if isinstance(nb, dict) else None
    if isinstance(name, str) and name in pristine:
        return name
    if path.stem in pristine:
        return path.stem
    m = re.match(r"(\d\d)_", path.name)
    if m:
        same = [k for k in pristine if k.startswith(m.group(0))]
        if len(same) == 1:
            return same[0]
    return None


def grade_one(
    path: str | os.PathLike,
    *,
    pristine: dict | None = None,
    cell_timeout: float = 120,
    timeout: float = 600,
    exercise: str | None = None,
) -> GradeResult:
    """Grade one notebook file; see the module docstring for how."""
    t0 = time.monotonic()
    path = Path(path)
    pristine = pristine if pristine is not None else load_pristine()
    res = GradeResult(str(path), None, False)
    try:
        graded = nbformat.read(path, as_version=4)
    except Exception as e:  # unreadable: not JSON, not a notebook, missing
        res.first_hint = f"not a readable notebook ({type(e).__name__}: {str(e)[:120]})"
        return res
    res.exercise = _identify(graded, path, pristine, exercise)
    if res.exercise is None:
        res.first_hint = (
            "cannot tell which exercise this is (no simhash_lab metadata and an unknown "
            f"file name); known: {', '.join(sorted(pristine))}"
        )
        return res
    nb, roles, found = assemble(pristine[res.exercise], graded)
    res.checks = [CheckResult(r["check"], False) for r in roles if r["role"] == "check"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    problems = [
        (r["answer"], p) for r, c in zip(roles, code) if r["role"] == "answer" for p in lint_answer(c.source)
    ]
    if problems:
        key, p = problems[0]
        res.first_hint = f"answer `{key}`, {p}"
        for c in res.checks:
            c.hint = "not run: an answer cell is not allowed (see the first hint)"
        res.seconds = time.monotonic() - t0
        return res
    with tempfile.TemporaryDirectory(prefix="simhash-lab-grade-") as tmp:
        run = Path(tmp) / "run"
        run.mkdir()
        nb_path = run / f"{res.exercise}.ipynb"
        nbformat.write(nb, nb_path)
        report_path = Path(tmp) / "report.json"
        rc, log, killed = _run_nbval(nb_path, report_path, cell_timeout, timeout)
        try:
            report = json.loads(report_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            report = {"cells": {}, "errors": []}
    res.returncode, res.log = rc, log[-20000:]
    cells = report.get("cells", {})
    hints = []
    ci = 0
    for i, role in enumerate(roles):
        entry = cells.get(str(i))
        ok = entry is not None and entry["outcome"] == "passed" and not entry.get("xfail")
        if entry is not None and entry["outcome"] == "failed":
            h = _hint(role, entry, cell_timeout)
            hints.append(
                f"check `{role['check']}`: {h}" if _CHECK_FAILED.search(_ANSI.sub("", entry["text"])) else h
            )
        elif entry is not None and entry.get("xfail") and not hints:
            hints.append(f"not run: an earlier cell timed out after {cell_timeout:g} s")
        if role["role"] == "check":
            c = res.checks[ci]
            ci += 1
            c.passed = ok and not killed
            if not c.passed:
                c.hint = (
                    _hint(role, entry, cell_timeout)
                    if entry and entry["outcome"] == "failed"
                    else "not run"
                    if entry is None or entry.get("xfail")
                    else ""
                )
    all_ran = all(str(i) in cells for i in range(len(roles)))
    res.passed = rc == 0 and not killed and all_ran and all(c.passed for c in res.checks)
    if killed:
        res.first_hint = f"grading took longer than {timeout:g} s and was stopped" + (
            f"; before that: {hints[0]}" if hints else ""
        )
    elif hints:
        res.first_hint = hints[0]
    elif not res.passed:
        errs = report.get("errors") or []
        res.first_hint = (
            "nbval could not run the notebook: " + _ANSI.sub("", errs[0]).strip()[-200:]
            if errs
            else f"pytest exited with status {rc} and no cell report"
        )
    res.seconds = time.monotonic() - t0
    return res


def _expand(paths: Iterable[str | os.PathLike]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.glob("*.ipynb") if not q.name.startswith("."))
        else:
            out.append(p)
    return out


def grade(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    cell_timeout: float = 120,
    timeout: float = 600,
    jobs: int = 1,
    exercise: str | None = None,
    pristine_dir: str | os.PathLike | None = None,
) -> list[GradeResult]:
    """Grade notebooks (a directory means its ``*.ipynb``); one :class:`GradeResult` per file.

    Parameters
    ----------
    paths : path or list of paths
    cell_timeout : float
        Seconds one cell may run before it is interrupted and fails (nbval's
        ``--nbval-cell-timeout``).
    timeout : float
        Wall-clock seconds for one notebook, kernel start included; past it the whole process tree
        is killed and the notebook fails.
    jobs : int
        Notebooks graded at the same time.
    exercise : str, optional
        Grade every file as this exercise (default: from each file's metadata or name).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = _expand(paths)
    pristine = load_pristine(pristine_dir)
    watched = _grading_files()
    before = _digest(watched)
    lock = threading.Lock()
    tampered = [False]

    def one(p: Path) -> GradeResult:
        r = grade_one(p, pristine=pristine, cell_timeout=cell_timeout, timeout=timeout, exercise=exercise)
        with lock:
            if tampered[0] or _digest(watched) != before:
                tampered[0] = True
                r.passed = False
                r.first_hint = (
                    "the grading files of simhash_lab changed on disk while this notebook was "
                    "graded; reinstall simhash-lab and grade again"
                )
        return r

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        return list(ex.map(one, files))


# -- reporting ------------------------------------------------------------------------------------


def format_table(results: Sequence[GradeResult]) -> str:
    """A class table: file, exercise, result, checks passed, first hint."""
    rows = [("file", "exercise", "result", "checks", "first hint")]
    for r in results:
        rows.append(
            (
                r.path,
                r.exercise or "?",
                "passed" if r.passed else "FAILED",
                f"{r.checks_passed}/{len(r.checks)}",
                "" if r.passed else r.first_hint,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for j, row in enumerate(rows):
        lines.append("  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4])
        if j == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 10)
    n_ok = sum(r.passed for r in results)
    lines.append(f"\n{n_ok} of {len(results)} notebooks passed")
    return "\n".join(line.rstrip() for line in lines)


def format_detail(r: GradeResult) -> str:
    """One notebook: each check with ✅/❌ and its hint, then the verdict."""
    lines = [f"{r.path} ({r.exercise or 'unknown exercise'})"]
    for c in r.checks:
        lines.append(
            f"  {'✅' if c.passed else '❌'} {c.name}" + ("" if c.passed or not c.hint else f": {c.hint}")
        )
    verdict = "PASSED" if r.passed else "FAILED"
    lines.append(
        f"{verdict}: {r.checks_passed}/{len(r.checks)} checks passed"
        + ("" if r.passed else f"; first hint: {r.first_hint}")
        + f" ({r.seconds:.1f} s)"
    )
    return "\n".join(lines)
