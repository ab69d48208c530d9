"""Grading a class: seconds per notebook and per core, where a notebook's time goes, and the same
class graded by another checkout beside this one.

Run: ``python benchmarks/bench_grade.py [--students 30] [--jobs N] [--compare-jobs 1] [--repeat 5]``,
or ``python benchmarks/bench_grade.py --against DIR [--pairs 3]`` (DIR: another checkout, e.g.
``git archive REV | tar -x -C DIR``, its kernels warmed with its own ``simhash-lab warmup``).

It releases every exercise to ``--students`` students (``simhash-lab assign``, a fixed secret),
hands in each student's solved copy (so every answer runs, measured answers included), and grades
the class as ``simhash-lab grade SUBMISSIONS --assignment ...`` does (:func:`classroom.grade_class`:
collection, sorting, the sandboxed runs, the gradebook), ``--jobs`` notebooks at a time. It prints:

* wall seconds per notebook, and per notebook per core (wall x cores used / notebooks: what one
  core spends on one notebook), and the grader's own CPU time per notebook (this process: reading,
  judging, the gradebook; the sandboxes' CPU is not counted by ``getrusage``, which never sees
  bubblewrap's grandchildren reaped);
* where one notebook's time goes, from the grader's own calls, timed as they run: its sandbox runs
  (and within them the measured answers, the first cell with the setup's imports, the other cells;
  the rest is the sandbox and runner starting, IPython, reading the student's cells, the exports),
  a separate sandbox per notebook for the measured answers and a child process for IPython's
  transformations where the checkout still has them, and what is left (reading, judging);
* the floors side by side in this process, ``--repeat`` times each, medians: a bare sandbox
  (bubblewrap and ``python -c pass``) and an empty notebook run (the runner, IPython's shell, no
  cell), and the ratio of a notebook's sandbox run to them;
* with ``--compare-jobs J``, the same class graded again with J at a time: the speed-up;
* with ``--against DIR``: the same class graded by this checkout and by DIR's, each in a process of
  its own, in alternating order (this, DIR; DIR, this; ...), ``--pairs`` pairs: each run's figures
  with the load beside them, then the medians and each pair's ratio (DIR's time / this one's).

The CPU model, its avx2/avx512 flags and the load (``os.getloadavg``) before and after are printed
beside the figures. On a shared machine, note the load: the figures move with it.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECRET = "be7c4" * 8


def machine() -> str:
    model, flags = "?", set()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    simd = " ".join(sorted(f for f in flags if f in ("avx2", "avx512f", "avx512_vpopcntdq"))) or "no avx2"
    return f"{model} ({simd}), {len(os.sched_getaffinity(0))} cores"


def load() -> str:
    return "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def cpu_seconds() -> float:
    """This process's CPU seconds (the grader's own work; not the sandboxes')."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


class Timings:
    """The grader's calls, timed as they run (threads: one lock). Works on this checkout and on an
    older one (a separate sandbox for the measured answers, ``mode: method``; IPython's
    transformations in a child process, ``_code_checks.to_python_bounded``)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.notebook: list[tuple[float, list[float], float]] = []  # (wall, each cell's s, measured s)
        self.method: list[float] = []  # separate sandboxes of measured answers (an older checkout)
        self.to_python: list[float] = []  # child processes of IPython's transformations (older)
        self._undo: list[tuple[object, str, object]] = []

    def install(self):
        from simhash_lab.grading import _code_checks, _sandbox

        run = _sandbox.run

        def timed_run(job, **kw):
            t = time.perf_counter()
            r = run(job, **kw)
            wall = time.perf_counter() - t
            with self.lock:
                if job.get("mode") == "notebook":
                    cells = [
                        float(m.get("seconds") or 0)
                        for m in r.messages
                        if m.get("event") == "cell" and m.get("phase") == "end"
                    ]
                    measured = sum(
                        float(m.get("seconds") or 0)
                        for m in getattr(r, "measured", ())
                        if m.get("event") == "measures"
                    )
                    self.notebook.append((wall, cells, measured))
                else:
                    self.method.append(wall)
            return r

        self._undo.append((_sandbox, "run", run))
        _sandbox.run = timed_run
        to_python = getattr(_code_checks, "to_python_bounded", None)
        if to_python is not None:

            def timed_to_python(*a, **kw):
                t = time.perf_counter()
                try:
                    return to_python(*a, **kw)
                finally:
                    with self.lock:
                        self.to_python.append(time.perf_counter() - t)

            self._undo.append((_code_checks, "to_python_bounded", to_python))
            _code_checks.to_python_bounded = timed_to_python

    def uninstall(self):
        for obj, name, value in self._undo:
            setattr(obj, name, value)

    def split(self, n: int, total: float) -> dict:
        """Seconds per graded notebook (``n`` of them, ``total`` seconds of grade_one), by where."""
        per = lambda xs: sum(xs) / n  # noqa: E731
        nb_wall = [w for w, _c, _m in self.notebook]
        return {
            "sandbox_runs": len(self.notebook) + len(self.method),
            "notebook_runs": per(nb_wall),
            "measured": per([m for _w, _c, m in self.notebook]),
            "first_cell": per([c[0] for _w, c, _m in self.notebook if c]),
            "other_cells": per([sum(c[1:]) for _w, c, _m in self.notebook if c]),
            "start_read_exports": per([w - sum(c) - m for w, c, m in self.notebook]),
            "method_runs": per(self.method),
            "to_python": per(self.to_python),
            "rest": (total - sum(nb_wall) - sum(self.method) - sum(self.to_python)) / n,
            "median_notebook_run": med(nb_wall),
        }


def make_class(tmp: Path, students: int) -> tuple[Path, Path]:
    """A release of every exercise to ``students`` students, and a submissions folder holding each
    one's solved copies."""
    import shutil

    from simhash_lab.grading import classroom

    roster = tmp / "roster.csv"
    roster.write_text("id\n" + "".join(f"s{i:02d}\n" for i in range(students)))
    (tmp / "secret.hex").write_text(SECRET)
    classroom.assign(ROOT / "exercises", roster, tmp / "release", secret=tmp / "secret.hex")
    subs = tmp / "subs"
    shutil.copytree(tmp / "release" / "private" / "solutions", subs)
    return tmp / "release", subs


def grade_once(release: Path, subs: Path, jobs: int, gradebook: Path):
    from simhash_lab.grading import classroom

    located = classroom.locate(release, gradebook)
    t0, c0 = time.perf_counter(), cpu_seconds()
    with classroom.open_gradebook(located) as gb:
        done = classroom.grade_class([str(subs)], located, gb, jobs=jobs)
        totals = gb.totals()
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    return done, totals, wall, cpu


def floors(repeat: int) -> tuple[list[float], list[float]]:
    """A bare sandbox (bwrap, python -c pass), and an empty notebook run, ``repeat`` times each,
    alternating."""
    from simhash_lab.grading import _sandbox

    bare, empty = [], []
    cmd = [*_sandbox.bwrap_command(probe=True), sys.executable, "-I", "-c", "pass"]
    job = {
        "mode": "notebook",
        "variant": None,
        "cells": [],
        "exports": [],
        "cell_timeout": 30,
        "call_timeout": 10,
    }
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, stdin=subprocess.DEVNULL)
        bare.append(time.perf_counter() - t)
        t = time.perf_counter()
        r = _sandbox.run(job, limits=_sandbox.Limits(), wall=60)
        empty.append(time.perf_counter() - t)
        assert any(m.get("event") == "done" for m in r.messages), r.log[-500:]
    return bare, empty


def med(xs) -> float:
    return statistics.median(xs) if xs else float("nan")


def graded(release: Path, subs: Path, jobs: int, gradebook: Path) -> dict:
    """Grade the class once with the grader's calls timed: the run's figures, as a dict."""
    timings = Timings()
    timings.install()
    before = load()
    try:
        done, totals, wall, cpu = grade_once(release, subs, jobs, gradebook)
    finally:
        timings.uninstall()
    n = len(done.results)
    cores = min(jobs, len(os.sched_getaffinity(0)))
    by_ex = collections.defaultdict(list)
    for r in done.results:
        by_ex[r.exercise].append(r.seconds)
    total_nb = sum(r.seconds for r in done.results)
    return {
        "n": n,
        "jobs": jobs,
        "cores": cores,
        "wall": wall,
        "per_notebook": wall / n,
        "per_core": wall * cores / n,
        "cpu": cpu / n,
        "full": sum(1 for p, m in totals.values() if p == m),
        "students": len(totals),
        "by_exercise": {e: med(xs) for e, xs in sorted(by_ex.items())},
        "grade_one": total_nb / n,
        "orchestration": (wall * min(jobs, n) - total_nb) / n,
        "split": timings.split(n, total_nb),
        "load_before": before,
        "load_after": load(),
    }


def print_run(fig: dict) -> None:
    n, s = fig["n"], fig["split"]
    print(
        f"graded {n} notebooks with --jobs {fig['jobs']} in {fig['wall']:.1f} s ({fig['load_before']} "
        f"before, {fig['load_after']} after); {fig['full']} of {fig['students']} students full marks"
    )
    print(f"  wall per notebook:          {fig['per_notebook']:.2f} s")
    print(
        f"  per notebook per core:      {fig['per_core']:.2f} s  (wall x {fig['cores']} cores / notebooks; "
        "goal <= 2 s)"
    )
    print(f"  the grader's own CPU:       {fig['cpu']:.2f} s a notebook (reading, judging, gradebook)")
    print("  one notebook, by exercise (grade_one seconds, median; several run at once):")
    for e, x in fig["by_exercise"].items():
        print(f"    {e:26s} {x:5.2f} s")
    print("  where a notebook's time goes (seconds per notebook, summed over its runs):")
    print(
        f"    sandbox runs               {s['notebook_runs'] + s['method_runs']:5.2f}  "
        f"({s['sandbox_runs']} for {n} notebooks; a notebook run's median {s['median_notebook_run']:.2f})"
    )
    print(f"      measured answers                {s['measured']:5.2f}  (in the notebook's sandbox)")
    print(f"      first cell (setup, imports)     {s['first_cell']:5.2f}")
    print(f"      the other cells                 {s['other_cells']:5.2f}")
    print(f"      sandbox, runner, IPython, reading, exports {s['start_read_exports']:5.2f}")
    if s["method_runs"]:
        print(f"      separate sandboxes of measured answers {s['method_runs']:5.2f}")
    if s["to_python"]:
        print(f"    IPython transformations (child processes) {s['to_python']:5.2f}")
    print(f"    the rest (read, judge)     {s['rest']:5.2f}")
    print(
        f"    grade_one in all           {fig['grade_one']:5.2f}  (orchestration outside it: "
        f"{fig['orchestration']:.2f} per notebook of {fig['jobs']} slots)"
    )


def against(args, release: Path, subs: Path, tmp: Path) -> None:
    """The class graded by this checkout and by ``args.against``, alternating, each run a process."""
    peer = Path(args.against).resolve()
    runs: dict[str, list[dict]] = {"this": [], "peer": []}
    for pair in range(args.pairs):
        order = ("this", "peer") if pair % 2 == 0 else ("peer", "this")
        for who in order:
            root = ROOT if who == "this" else peer
            cmd = [
                sys.executable,
                str(Path(__file__).resolve()),
                "--root",
                str(root),
                "--class-dir",
                str(tmp),
                "--jobs",
                str(args.jobs),
                "--json",
            ]
            p = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if p.returncode != 0:
                raise SystemExit(f"{who} ({root}) failed:\n{p.stderr[-3000:]}")
            fig = json.loads(p.stdout.strip().splitlines()[-1])
            runs[who].append(fig)
            s = fig["split"]
            print(
                f"pair {pair + 1} {who:4s} ({root}): {fig['per_core']:.2f} s per notebook per core, "
                f"{fig['per_notebook']:.2f} s a notebook, {fig['full']}/{fig['students']} full marks; "
                f"{s['sandbox_runs']} sandbox runs, IPython children {s['to_python']:.2f} s/nb; "
                f"{fig['load_before']} before, {fig['load_after']} after",
                flush=True,
            )
    this, other = runs["this"], runs["peer"]
    ratios = [o["wall"] / t["wall"] for t, o in zip(this, other)]
    print(
        f"median per notebook per core: this {med([r['per_core'] for r in this]):.2f} s, "
        f"{peer.name} {med([r['per_core'] for r in other]):.2f} s; "
        f"{peer.name} / this, per pair: {', '.join(f'{x:.2f}' for x in ratios)} (median {med(ratios):.2f})"
    )
    keys = ("notebook_runs", "measured", "method_runs", "to_python", "rest")
    for who, rs in (("this", this), (peer.name, other)):
        print(
            f"  {who:12s} seconds per notebook (medians): "
            + ", ".join(f"{k} {med([r['split'][k] for r in rs]):.2f}" for k in keys)
            + f"; sandbox runs {med([r['split']['sandbox_runs'] for r in rs]):.0f}"
        )
    print(f"({load()} at the end)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=None, help="default: the cores (as grade)")
    ap.add_argument("--compare-jobs", type=int, default=None, metavar="J", help="grade again J at a time")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each floor (medians)")
    ap.add_argument(
        "--against", metavar="DIR", help="another checkout: grade the class with both, alternating"
    )
    ap.add_argument("--pairs", type=int, default=3, help="with --against: runs of each (medians)")
    ap.add_argument("--root", help=argparse.SUPPRESS)  # the checkout whose grader this process uses
    ap.add_argument("--class-dir", help=argparse.SUPPRESS)  # a class made by the --against parent
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one run's figures
    args = ap.parse_args()
    root = Path(args.root).resolve() if args.root else ROOT
    sys.path.insert(0, str(root))
    import simhash_lab

    if not Path(simhash_lab.__file__).resolve().is_relative_to(root):
        raise SystemExit(f"simhash_lab comes from {simhash_lab.__file__}, not {root}")
    from simhash_lab.cli.grade import default_jobs

    args.jobs = args.jobs or default_jobs()
    if args.json:  # a child of --against: grade the class it was given, print the figures
        tmp = Path(args.class_dir)
        with tempfile.TemporaryDirectory(prefix="bench-grade-db-") as db:
            fig = graded(tmp / "release", tmp / "subs", args.jobs, Path(db) / "g.db")
        print(json.dumps(fig))
        return 0

    print(f"{machine()}; Python {sys.version.split()[0]}; {load()} before")
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        release, subs = make_class(tmp, args.students)
        n_files = sum(1 for _ in subs.rglob("*.ipynb"))
        print(
            f"class: {args.students} students x {n_files // args.students} exercises = {n_files} notebooks "
            f"(assign: {time.perf_counter() - t:.1f} s)"
        )
        if args.against:
            against(args, release, subs, tmp)
            return 0
        bare, empty = floors(args.repeat)
        fig = graded(release, subs, args.jobs, tmp / "g.db")
        assert fig["n"] == n_files, (fig["n"], n_files)
        print_run(fig)
        print(f"  floors ({args.repeat} runs each, alternating, median; {load()}):")
        print(f"    bare sandbox (bwrap + python -c pass)   {med(bare):.3f} s  (min {min(bare):.3f})")
        print(f"    empty notebook run (runner + IPython)   {med(empty):.3f} s  (min {min(empty):.3f})")
        ratio = fig["split"]["median_notebook_run"] / med(empty)
        print(f"    a notebook's sandbox run / empty run    {ratio:.1f}x")
        if args.compare_jobs:
            (tmp / "g.db").unlink()
            _done, _t, wall2, _cpu2 = grade_once(release, subs, args.compare_jobs, tmp / "g.db")
            print(
                f"--jobs {args.compare_jobs}: {wall2:.1f} s ({wall2 / fig['n']:.2f} s a notebook); "
                f"--jobs {args.jobs} is {wall2 / fig['wall']:.2f}x faster ({load()})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
