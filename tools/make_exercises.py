#!/usr/bin/env python
"""Generate the exercise notebooks from their sources in ``course/exercises/``.

    python tools/make_exercises.py              # write student versions, solutions (executed), pristine
    python tools/make_exercises.py --no-execute # skip running the solutions (outputs left empty)
    python tools/make_exercises.py --out DIR    # write under DIR instead of the repository

For each ``course/exercises/NN_name.py`` it writes

* ``exercises/NN_name.ipynb``: the student version, where every ``### BEGIN SOLUTION`` ...
  ``### END SOLUTION`` region becomes ``raise NotImplementedError()``;
* ``exercises/solutions/NN_name.ipynb``: the solution, executed, outputs stored;
* ``simhash_lab/grading/pristine/NN_name.ipynb``: a copy of the student version, shipped in the package;
  ``simhash-lab grade`` restores every non-answer cell from it.

Source format (jupytext-like "percent" cells, so a source is valid Python)::

    # %% [markdown]          a markdown cell; its lines lose their leading "# "
    # %% [setup]             imports; locked in JupyterLab
    # %%                     a given code cell; locked in JupyterLab
    # %% [answer] KEY        a cell the learner edits: tagged `answer`, metadata simhash_lab.answer = KEY
    # %% [check]             `assert checks.NAME(...)`: tagged `check`, locked, its ✅ line recorded

Options after the header: ``ignore-output`` adds nbval's ``nbval-ignore-output`` tag (answer cells
always have it: what a learner prints is not graded, only what the check cells assert).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "course" / "exercises"
META = "simhash_lab"
COURSE = {  # exercise -> the course notebook it pairs with (notebooks/)
    "01_lsh_vs_crypto": "01_lsh_vs_crypto",
    "02_simhash_voting": "02_simhash_voting",
    "03_hamming_popcount": "03_hamming_popcount",
    "04_charikar_hyperplanes": "04_charikar_hyperplanes",
    "05_block_index": "05_block_index",
    "06_near_duplicates": "06_near_duplicates",
}

_HEADER = re.compile(r"^# %%(?:\s+\[(\w+)\])?\s*(.*)$")
_BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_CHECK_CALL = re.compile(r"\bchecks\.(\w+)\(")


def parse(path: Path) -> list[dict]:
    """Cells of a source file: dicts with kind, arg, options, lines."""
    cells: list[dict] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = _HEADER.match(line)
        if m:
            kind = m.group(1) or "code"
            rest = m.group(2).split()
            arg = rest.pop(0) if kind == "answer" and rest else None
            cells.append({"kind": kind, "arg": arg, "options": set(rest), "lines": []})
        elif cells:
            cells[-1]["lines"].append(line)
        elif line.strip():
            raise ValueError(f"{path}: text before the first '# %%' header: {line!r}")
    for c in cells:
        while c["lines"] and not c["lines"][-1].strip():
            c["lines"].pop()
        while c["lines"] and not c["lines"][0].strip():
            c["lines"].pop(0)
        if c["kind"] not in {"markdown", "setup", "code", "answer", "check"}:
            raise ValueError(f"{path}: unknown cell kind [{c['kind']}]")
        if c["kind"] == "answer" and not c["arg"]:
            raise ValueError(f"{path}: an [answer] cell needs a key")
    return cells


def _markdown(lines: list[str]) -> str:
    out = []
    for ln in lines:
        if ln.startswith("# "):
            out.append(ln[2:])
        elif ln.rstrip() == "#":
            out.append("")
        else:
            raise ValueError(f"markdown line without '# ': {ln!r}")
    return "\n".join(out)


def _split_solution(lines: list[str], where: str) -> tuple[str, str, bool]:
    """(student source, solution source, had a region)."""
    student, solution, inside, found = [], [], False, False
    for ln in lines:
        b = _BEGIN.match(ln)
        if b:
            if inside:
                raise ValueError(f"{where}: nested BEGIN SOLUTION")
            inside = found = True
            student += [f"{b.group(1)}# YOUR CODE HERE", f"{b.group(1)}raise NotImplementedError()"]
            continue
        if _END.match(ln):
            if not inside:
                raise ValueError(f"{where}: END SOLUTION without BEGIN")
            inside = False
            continue
        solution.append(ln)
        if not inside:
            student.append(ln)
    if inside:
        raise ValueError(f"{where}: BEGIN SOLUTION without END")
    return "\n".join(student), "\n".join(solution), found


def _nav(name: str, names: list[str], solution: bool) -> str:
    i = names.index(name)
    up = "../../" if solution else "../"
    parts = []
    if i > 0:
        parts.append(f"[← {names[i - 1]}]({names[i - 1]}.ipynb)")
    parts.append(f"[course notebook {COURSE.get(name, name)}]({up}notebooks/{COURSE.get(name, name)}.ipynb)")
    if i + 1 < len(names):
        parts.append(f"[{names[i + 1]} →]({names[i + 1]}.ipynb)")
    return " · ".join(parts) + ("  \n*Solutions: every answer filled in and run.*" if solution else "")


def build(path: Path, names: list[str]) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The (student, solution) notebooks of one source file, unexecuted."""
    from simhash_lab.grading.checks import CHECKS, pass_line

    name = path.stem
    student, solution = new_notebook(), new_notebook()
    for nb, sol in ((student, False), (solution, True)):
        nb.metadata = {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
            META: {"exercise": name},
        }
        nb.cells.append(new_markdown_cell(_nav(name, names, sol), id="nav-top"))
    keys: set[str] = set()
    n_md = n_code = n_check = 0
    for c in parse(path):
        kind, where = c["kind"], f"{path.name} [{c['kind']}] {c['arg'] or ''}"
        if kind == "markdown":
            n_md += 1
            src = _markdown(c["lines"])
            for nb in (student, solution):
                nb.cells.append(new_markdown_cell(src, id=f"md-{n_md:02d}"))
            continue
        s_src, sol_src, region = _split_solution(c["lines"], where)
        tags: list[str] = []
        meta: dict = {}
        lock = {}
        if kind == "answer":
            key = c["arg"]
            if key in keys:
                raise ValueError(f"{where}: duplicate answer key")
            if not region:
                raise ValueError(f"{where}: an answer cell needs a BEGIN/END SOLUTION region")
            keys.add(key)
            tags = ["answer", "nbval-ignore-output"]
            lock = {"deletable": False}
            meta = {"role": "answer", "answer": key}
            cid = f"answer-{key}".replace("_", "-")
        else:
            if region:
                raise ValueError(f"{where}: only answer cells may hold solution regions")
            lock = {"editable": False, "deletable": False}
            if kind == "check":
                calls = _CHECK_CALL.findall(s_src)
                if len(calls) != 1 or calls[0] not in CHECKS or not s_src.lstrip().startswith("assert "):
                    raise ValueError(
                        f"{where}: a check cell is one `assert checks.NAME(...)` with a known NAME"
                    )
                n_check += 1
                tags = ["check"]
                meta = {"role": "check", "check": calls[0], "expect": pass_line(calls[0])}
                cid = f"check-{n_check:02d}-{calls[0]}".replace("_", "-")[:64]
            else:
                n_code += 1
                tags = ["setup"] if kind == "setup" else []
                meta = {"role": "setup" if kind == "setup" else "given"}
                cid = f"{'setup' if kind == 'setup' else 'given'}-{n_code:02d}"
            if "ignore-output" in c["options"]:
                tags.append("nbval-ignore-output")
        for nb, src in ((student, s_src), (solution, sol_src)):
            md = {**lock, META: dict(meta)}
            if tags:
                md["tags"] = list(tags)
            nb.cells.append(new_code_cell(src, id=cid, metadata=md))
    done = (
        f"When every check above shows ✅, grade the whole notebook the way a teacher will:\n\n"
        f"    simhash-lab grade exercises/{name}.ipynb\n\n"
        f"It keeps only your `answer` cells and restores every other cell from a pristine copy, "
        f"so the check cells must pass as they are."
    )
    for nb, sol in ((student, False), (solution, True)):
        nb.cells.append(new_markdown_cell(done, id="grade-note"))
        nb.cells.append(new_markdown_cell(_nav(name, names, sol), id="nav-bottom"))
        nbformat.validate(nb)
    return student, solution


def execute(nb: nbformat.NotebookNode, cwd: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """Run ``nb`` top to bottom in a kernel of this environment; raise on the first error."""
    from jupyter_client import KernelManager
    from nbclient import NotebookClient
    from nbval.kernel import CURRENT_ENV_KERNEL_NAME, NbvalKernelspecManager

    km = KernelManager(kernel_name=CURRENT_ENV_KERNEL_NAME, kernel_spec_manager=NbvalKernelspecManager())
    client = NotebookClient(
        nb, km=km, timeout=timeout, record_timing=False, resources={"metadata": {"path": str(cwd)}}
    )
    try:
        client.execute()
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    nb.metadata.pop("widgets", None)
    return nb


def _check_outputs(nb: nbformat.NotebookNode, where: str) -> None:
    for c in nb.cells:
        meta = c.get("metadata", {}).get(META, {})
        if meta.get("role") == "check":
            text = "".join(
                o.get("text", "")
                for o in c.outputs
                if o.get("output_type") == "stream" and o.get("name") == "stdout"
            )
            others = [
                o for o in c.outputs if not (o.get("output_type") == "stream" and o.get("name") == "stdout")
            ]
            if text != meta["expect"] or others:
                raise RuntimeError(
                    f"{where}: check {meta['check']} printed {text!r} (+{len(others)} other "
                    f"outputs), expected {meta['expect']!r}"
                )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--src", type=Path, default=SRC)
    ap.add_argument("--out", type=Path, default=ROOT, help="repository root to write under")
    ap.add_argument("--no-execute", action="store_true", help="do not run the solutions")
    ap.add_argument("--only", nargs="*", help="exercise names to build (default: all)")
    args = ap.parse_args(argv)

    sources = sorted(args.src.glob("[0-9][0-9]_*.py"))
    names = [p.stem for p in sources]
    ex_dir = args.out / "exercises"
    sol_dir = ex_dir / "solutions"
    pristine_dir = args.out / "simhash_lab" / "grading" / "pristine"
    for d in (ex_dir, sol_dir, pristine_dir):
        d.mkdir(parents=True, exist_ok=True)
    n_answers = 0
    for path in sources:
        if args.only and path.stem not in args.only:
            continue
        student, solution = build(path, names)
        n_answers += sum("answer" in c.metadata.get("tags", []) for c in student.cells)
        if not args.no_execute:
            t = __import__("time").monotonic()
            execute(solution, sol_dir)
            _check_outputs(solution, path.name)
            print(f"  executed {path.stem} in {__import__('time').monotonic() - t:.1f} s", file=sys.stderr)
        nbformat.write(student, ex_dir / f"{path.stem}.ipynb")
        nbformat.write(student, pristine_dir / f"{path.stem}.ipynb")
        nbformat.write(solution, sol_dir / f"{path.stem}.ipynb")
        print(f"wrote {path.stem}: exercises/, exercises/solutions/, simhash_lab/grading/pristine/")
    print(f"{len(sources)} exercise notebooks, {n_answers} answer cells")
    return 0


if __name__ == "__main__":
    sys.exit(main())
