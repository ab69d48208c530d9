#!/usr/bin/env python
"""Put a navigation line at the top and bottom of every course notebook (generated, never typed).

The line links the previous notebook, the start page, the exercise with the same number (when
``exercises/NN_*.ipynb`` exists) and the next notebook, in file-name order, so a notebook added
later (say ``06_…``) slots in by re-running this script. Navigation cells carry the cell tag
``navigation`` and are replaced on every run; nothing else in a notebook changes, so running it
does not invalidate stored outputs.

    python tools/add_navigation.py            # every notebooks/NN_*.ipynb
    python tools/add_navigation.py notebooks/05_block_index.ipynb
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXERCISES = ROOT / "exercises"
TAG = "navigation"
START = "00_start_here.ipynb"


def is_nav(cell) -> bool:
    return TAG in cell.get("metadata", {}).get("tags", [])


def title_of(nb) -> str:
    """The text of the notebook's first ``# `` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and not is_nav(cell):
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return "untitled"


def course_titles(extra: dict | None = None) -> dict[str, str]:
    """``{file name: title}`` of the course notebooks, in course order."""
    found = {p.name: p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    titles = {}
    for name in sorted(set(found) | set(extra or {})):
        nb = (extra or {}).get(name) or nbformat.read(found[name], as_version=4)
        titles[name] = title_of(nb)
    return titles


def nav_line(name: str, titles: dict[str, str]) -> str:
    names = list(titles)
    i = names.index(name)
    parts = []
    if i > 0:
        parts.append(f"[← {titles[names[i - 1]]}]({names[i - 1]})")
    if name != START and START in titles:
        parts.append(f"[Start here: the map]({START})")
    ex = sorted(EXERCISES.glob(f"{name[:2]}_*.ipynb")) if name != START else []
    if ex:
        parts.append(f"[Exercise](../exercises/{ex[0].name})")
    if i + 1 < len(names):
        parts.append(f"[{titles[names[i + 1]]} →]({names[i + 1]})")
    return "*simhash-lab course* · " + " | ".join(parts)


def add_navigation(nb, name: str, titles: dict[str, str]) -> bool:
    """Replace ``nb``'s navigation cells (top and bottom); True when anything changed."""
    before = [c.source for c in nb.cells if is_nav(c)]
    nb.cells = [c for c in nb.cells if not is_nav(c)]
    line = nav_line(name, titles)
    for pos, suffix in ((0, "top"), (len(nb.cells) + 1, "bottom")):
        cell = new_markdown_cell(line)
        cell.metadata["tags"] = [TAG]
        cell["id"] = f"nav-{suffix}"
        nb.cells.insert(pos, cell)
    return before != [line, line]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    titles = course_titles()
    paths = [Path(a) for a in argv] or [NOTEBOOKS / n for n in titles]
    for p in paths:
        nb = nbformat.read(p, as_version=4)
        if add_navigation(nb, p.name, titles):
            nbformat.write(nb, p)
            print(f"navigation updated: {p.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
