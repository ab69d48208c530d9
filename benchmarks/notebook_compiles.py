"""Which notebook cells compile a simhash_lab kernel, and how long each cell takes.

Run: ``python benchmarks/notebook_compiles.py [NOTEBOOK...] [--json out.json]`` (default: every
notebook in ``notebooks/`` and ``exercises/solutions/``), after ``simhash-lab warmup`` to check the
warmup's coverage, or with ``NUMBA_CACHE_DIR`` set to an empty folder to see what a first run
compiles. It works on any commit: a first cell, added before running, registers a listener on
Numba's ``numba:compile`` event that prints every cached simhash_lab kernel it compiles (kernels
without a cache, such as ``hamming_asm``'s on-purpose compile or a learner's own ``@njit``, are
not counted), and the cells run in this Python's own Jupyter kernel. The notebooks are not changed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
MARK = "@@simhash-lab-compile@@"

PROBE = f"""
import sys as _sys
from numba.core import event as _event
from numba.core.caching import NullCache as _NullCache

class _CompileProbe(_event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        f = d.py_func
        if f.__module__.startswith("simhash_lab") and not isinstance(d._cache, _NullCache):
            sig = str(ev.data["args"]).replace(" ", "")
            print("{MARK}", f.__module__ + "." + f.__qualname__, sig, file=_sys.stderr, flush=True)
    def on_end(self, ev):
        pass

_event.register("numba:compile", _CompileProbe())
"""


def run(path: Path, timeout: int) -> list[dict]:
    nb = nbformat.read(path, as_version=4)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    times: dict[int, float] = {}
    started: dict[int, float] = {}

    def before(cell, cell_index, **_):
        started[cell_index] = time.perf_counter()

    def after(cell, cell_index, **_):
        times[cell_index] = time.perf_counter() - started[cell_index]

    client.on_cell_execute = before
    client.on_cell_executed = after
    client.execute()
    out = []
    for n, i in enumerate(code, 1):
        cell = nb.cells[i + 1]
        kernels = []
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                kernels += [ln.split()[1:3] for ln in o.get("text", "").splitlines() if ln.startswith(MARK)]
        first = next((ln for ln in cell.source.splitlines() if ln.strip() and not ln.startswith("#")), "")
        out.append(dict(cell=n, first_line=first[:70], seconds=times.get(i + 1, 0.0), compiled=kernels))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per cell")
    args = ap.parse_args()
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
        (ROOT / "exercises" / "solutions").glob("*.ipynb")
    )
    os.environ.setdefault("MPLBACKEND", "Agg")
    print(f"load: {os.getloadavg()[0]:.2f}; NUMBA_CACHE_DIR={os.environ.get('NUMBA_CACHE_DIR', '(unset)')}")
    report = {}
    for p in paths:
        t = time.perf_counter()
        cells = run(p.resolve(), args.timeout)
        report[str(p)] = cells
        slow = sorted(cells, key=lambda c: -c["seconds"])[:3]
        compiling = [c for c in cells if c["compiled"]]
        print(
            f"\n{p}: {len(cells)} code cells, {time.perf_counter() - t:.1f} s; "
            f"{len(compiling)} compile a kernel; slowest: "
            + ", ".join(f"cell {c['cell']} {c['seconds']:.1f} s" for c in slow),
            flush=True,
        )
        for c in compiling:
            n = len(c["compiled"])
            print(f"  cell {c['cell']:3d} ({c['seconds']:6.1f} s) {c['first_line']!r}: {n} kernels")
            for name, sig in c["compiled"]:
                print(f"        {name.rsplit('.', 1)[-1]}{sig[:200]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    total = sum(bool(c["compiled"]) for cells in report.values() for c in cells)
    print(f"\n{total} cells compile a kernel", file=sys.stderr)


if __name__ == "__main__":
    main()
