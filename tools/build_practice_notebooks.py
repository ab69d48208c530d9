#!/usr/bin/env python
"""Build the practice notebooks (06 near-duplicates in practice, 08 Dask at scale) from their sources.

The same conventions as ``tools/build_notebooks.py``, whose parser and executor this reuses:
percent-format sources in ``tools/practice/NN_name.py`` -> ``notebooks/NN_name.ipynb`` ->
navigation (``tools/add_navigation.py``) -> executed top to bottom in a fresh kernel -> written.
Each notebook's run time is printed and one over ``--budget`` seconds fails the build.

Only this script's notebooks are written. The navigation lines of the other notebooks follow the
course map the next time ``python tools/add_navigation.py`` (or ``tools/build_notebooks.py``) runs;
the notebooks whose lines are out of date are listed at the end.

    python tools/build_practice_notebooks.py            # 06 and 08
    python tools/build_practice_notebooks.py 08         # only 08
    python tools/build_practice_notebooks.py --no-execute
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "tools" / "practice"
NOTEBOOKS = ROOT / "notebooks"

sys.path.insert(0, str(ROOT / "tools"))
import add_navigation  # noqa: E402
import build_notebooks  # noqa: E402


def main(argv=None) -> int:
    args, sources = build_notebooks.cli(__doc__, SOURCES, argv)
    built = {src.stem + ".ipynb": build_notebooks.parse(src) for src in sources}
    titles = add_navigation.course_titles(extra=built)
    failed = []
    for name, nb in built.items():
        add_navigation.add_navigation(nb, name, titles)
        build_notebooks.run_and_write(nb, NOTEBOOKS / name, args, failed)
    stale = []
    for name in titles:
        if name in built or not (NOTEBOOKS / name).exists():
            continue
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        if add_navigation.add_navigation(nb, name, titles):
            stale.append(name)
    if stale:
        print("navigation out of date (run tools/add_navigation.py):", ", ".join(stale))
    for f in failed:
        print("TOO SLOW:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
