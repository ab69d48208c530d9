#!/usr/bin/env python
"""Build the course notebooks from their Python sources, then execute them with stored outputs.

Sources live in ``course/notebooks/NN_name.py`` in the "percent" format that jupytext also reads:

    # %% [markdown]
    # # A heading
    # Some *markdown*, each line behind "# ".

    # %% tags=["nbval-ignore-output"]
    x = 1  # a code cell, with cell tags

Every build: parse -> ``notebooks/NN_name.ipynb`` -> navigation (``tools/add_navigation.py``) ->
execute top to bottom in a fresh kernel (nbclient; fixed ``PYTHONHASHSEED``; widget state stored so
widgets render without a kernel) -> write. The run time of each notebook is printed and a notebook
that takes over ``--budget`` seconds fails the build.

    python tools/build_notebooks.py              # all of them, one at a time
    python tools/build_notebooks.py 02 04        # those whose name starts with 02 or 04
    python tools/build_notebooks.py --no-execute # structure only (fast)
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "course" / "notebooks"
NOTEBOOKS = ROOT / "notebooks"
HEADER = re.compile(r"^# %%(?P<md> \[markdown\])?(?P<opts>.*)$")

sys.path.insert(0, str(ROOT / "tools"))
import add_navigation  # noqa: E402


def parse(path: Path) -> nbformat.NotebookNode:
    """A notebook from one percent-format source file."""
    cells: list = []
    kind, tags, lines = None, [], []

    def flush():
        if kind is None:
            return
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            text = "\n".join(l[2:] if l.startswith("# ") else l.lstrip("#") for l in lines)
            cells.append(new_markdown_cell(text))
        else:
            cell = new_code_cell("\n".join(lines))
            if tags:
                cell.metadata["tags"] = list(tags)
            cells.append(cell)

    for raw in path.read_text(encoding="utf-8").splitlines():
        m = HEADER.match(raw)
        if m:
            flush()
            kind = "markdown" if m.group("md") else "code"
            opts = m.group("opts").strip()
            tags = ast.literal_eval(opts.split("=", 1)[1]) if opts.startswith("tags=") else []
            lines = []
        elif kind is not None:
            lines.append(raw)
    flush()
    for i, c in enumerate(cells):
        c["id"] = f"{path.stem[:2]}-{i:03d}"  # stable ids: clean diffs between builds
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(nb: nbformat.NotebookNode, timeout: int = 600) -> float:
    """Run ``nb`` in place in a fresh kernel started in ``notebooks/``; returns seconds taken."""
    from nbclient import NotebookClient

    os.environ["PYTHONHASHSEED"] = "0"
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=False,
        record_timing=False,
        store_widget_state=True,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    t0 = time.perf_counter()
    client.execute()
    return time.perf_counter() - t0


def cli(doc: str, sources_dir: Path, argv=None) -> tuple[argparse.Namespace, list[Path]]:
    """The command line of both build scripts: its options, and the sources it selects."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("only", nargs="*", help="build only notebooks whose name starts with one of these")
    ap.add_argument("--no-execute", action="store_true", help="write the notebooks without running them")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds a notebook may take (default 60)")
    args = ap.parse_args(argv)
    sources = sorted(sources_dir.glob("[0-9][0-9]_*.py"))
    if args.only:
        sources = [s for s in sources if any(s.stem.startswith(o) for o in args.only)]
    return args, sources


def run_and_write(nb, out: Path, args: argparse.Namespace, failed: list) -> float:
    """Execute ``nb`` (unless ``--no-execute``), note it in ``failed`` when over budget, validate
    and write it to ``out``; print one line. Returns the seconds it ran."""
    secs = 0.0
    if not args.no_execute:
        secs = execute(nb)
        if secs > args.budget:
            failed.append(f"{out.name} took {secs:.1f} s (budget {args.budget:.0f} s)")
    nbformat.validate(nb)
    nbformat.write(nb, out)
    print(
        f"{out.relative_to(ROOT)}: {len(nb.cells)} cells" + ("" if args.no_execute else f", {secs:.1f} s"),
        flush=True,
    )
    return secs


def main(argv=None) -> int:
    args, sources = cli(__doc__, SOURCES, argv)
    NOTEBOOKS.mkdir(exist_ok=True)
    total, failed = 0.0, []
    for src in sources:
        nb = parse(src)
        out = NOTEBOOKS / f"{src.stem}.ipynb"
        add_navigation.add_navigation(nb, out.name, add_navigation.course_titles(extra={out.name: nb}))
        total += run_and_write(nb, out, args, failed)
    # navigation of every notebook (including ones this run did not build) follows the course map
    add_navigation.main([])
    if not args.no_execute:
        print(f"total {total:.1f} s")
    for f in failed:
        print("TOO SLOW:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
