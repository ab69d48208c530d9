"""Grading a class: seconds per notebook and per core, and where a notebook's time goes.

Run: ``python benchmarks/bench_grade.py [--students 30] [--jobs N] [--compare-jobs 1] [--repeat 5]``.

It releases every exercise to ``--students`` students (``simhash-lab assign``, a fixed secret),
hands in each student's solved copy (so every answer runs, method checks included), and grades the
class as ``simhash-lab grade SUBMISSIONS --assignment ...`` does (:func:`classroom.grade_class`:
collection, sorting, the sandboxed runs, the gradebook), ``--jobs`` notebooks at a time. It prints:

* wall seconds per notebook, and per notebook per core (wall x cores used / notebooks: what one
  core spends on one notebook), and the grader's own CPU time per notebook (this process: reading,
  judging, the gradebook; the sandboxes' CPU is not counted by ``getrusage``, which never sees
  bubblewrap's grandchildren reaped);
* where one notebook's time goes, from the grader's own calls, timed as they run: the notebook's
  sandbox run (its first cell, the setup's imports, apart from the other cells; the rest is the
  sandbox and runner starting, IPython's shell, the exports), the method runs (each a sandbox of its
  own), IPython's transformations in a child process, and what is left (reading, judging, the
  gradebook);
* the floors side by side in this process, ``--repeat`` times each, medians: a bare sandbox
  (bubblewrap and ``python -c pass``) and an empty notebook run (the runner, IPython's shell, no
  cell), and the ratio of a notebook's sandbox run to them;
* with ``--compare-jobs J``, the same class graded again with J at a time: the speed-up.

The CPU model, its avx2/avx512 flags and the load (``os.getloadavg``) before and after are printed
beside the figures. On a shared machine, note the load: the figures move with it.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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
    """The grader's calls, timed as they run (threads: one lock)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.notebook: list[tuple[float, list[float]]] = []  # (wall, each cell's seconds)
        self.method: list[float] = []
        self.to_python: list[float] = []

    def install(self):
        from simhash_lab.grading import _code_checks, _sandbox

        run, to_python = _sandbox.run, _code_checks.to_python_bounded

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
                    self.notebook.append((wall, cells))
                else:
                    self.method.append(wall)
            return r

        def timed_to_python(*a, **kw):
            t = time.perf_counter()
            try:
                return to_python(*a, **kw)
            finally:
                with self.lock:
                    self.to_python.append(time.perf_counter() - t)

        _sandbox.run = timed_run
        _code_checks.to_python_bounded = timed_to_python
        self._undo = (run, to_python)

    def uninstall(self):
        from simhash_lab.grading import _code_checks, _sandbox

        _sandbox.run, _code_checks.to_python_bounded = self._undo


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
    import subprocess

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


def main() -> int:
    from simhash_lab.cli.grade import default_jobs

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--jobs", type=int, default=default_jobs(), help="default: the cores (as grade)")
    ap.add_argument("--compare-jobs", type=int, default=None, metavar="J", help="grade again J at a time")
    ap.add_argument("--repeat", type=int, default=5, help="runs of each floor (medians)")
    args = ap.parse_args()

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
        bare, empty = floors(args.repeat)
        timings = Timings()
        timings.install()
        try:
            done, totals, wall, cpu = grade_once(release, subs, args.jobs, tmp / "g.db")
        finally:
            timings.uninstall()
        n = len(done.results)
        full = sum(1 for p, m in totals.values() if p == m)
        assert n == n_files, (n, n_files)
        cores = min(args.jobs, len(os.sched_getaffinity(0)))
        print(
            f"graded {n} notebooks with --jobs {args.jobs} in {wall:.1f} s ({load()} after); "
            f"{full} of {len(totals)} students full marks"
        )
        print(f"  wall per notebook:          {wall / n:.2f} s")
        print(
            f"  per notebook per core:      {wall * cores / n:.2f} s  (wall x {cores} cores / notebooks; "
            "goal <= 2 s)"
        )
        print(f"  the grader's own CPU:       {cpu / n:.2f} s a notebook (reading, judging, gradebook)")
        by_ex = collections.defaultdict(list)
        for r in done.results:
            by_ex[r.exercise].append(r.seconds)
        print("  one notebook, by exercise (grade_one seconds, median; several run at once):")
        for e, xs in sorted(by_ex.items()):
            print(f"    {e:26s} {med(xs):5.2f} s")
        nb_wall = [w for w, _c in timings.notebook]
        first = [c[0] for _w, c in timings.notebook if c]
        rest = [sum(c[1:]) for _w, c in timings.notebook if c]
        other = [w - sum(c) for w, c in timings.notebook]
        per = lambda xs: sum(xs) / n  # noqa: E731  (seconds per graded notebook)
        total_nb = sum(r.seconds for r in done.results)
        print("  where a notebook's time goes (seconds per notebook, summed over its runs; medians per run):")
        print(
            f"    notebook sandbox runs      {per(nb_wall):5.2f}  ({len(nb_wall)} runs, "
            f"median {med(nb_wall):.2f})"
        )
        print(f"      sandbox, runner, shell, exports {per(other):5.2f}  (median {med(other):.2f})")
        print(f"      first cell (setup, imports)     {per(first):5.2f}  (median {med(first):.2f})")
        print(f"      the other cells                 {per(rest):5.2f}  (median {med(rest):.2f})")
        print(
            f"    method runs                {per(timings.method):5.2f}  ({len(timings.method)} runs, median "
            f"{med(timings.method):.2f})"
        )
        print(
            f"    IPython transformations    {per(timings.to_python):5.2f}  ({len(timings.to_python)} child "
            f"processes, median {med(timings.to_python):.2f})"
        )
        left = total_nb - sum(nb_wall) - sum(timings.method) - sum(timings.to_python)
        print(f"    the rest (read, judge)     {left / n:5.2f}")
        print(
            f"    grade_one in all           {total_nb / n:5.2f}  (orchestration outside it: "
            f"{(wall * min(args.jobs, n) - total_nb) / n:.2f} per notebook of {args.jobs} slots)"
        )
        print(f"  floors ({args.repeat} runs each, alternating, median; {load()}):")
        print(f"    bare sandbox (bwrap + python -c pass)   {med(bare):.3f} s  (min {min(bare):.3f})")
        print(f"    empty notebook run (runner + IPython)   {med(empty):.3f} s  (min {min(empty):.3f})")
        print(f"    a notebook's sandbox run / empty run    {med(nb_wall) / med(empty):.1f}x")
        if args.compare_jobs:
            (tmp / "g.db").unlink()
            done2, _t, wall2, cpu2 = grade_once(release, subs, args.compare_jobs, tmp / "g.db")
            print(
                f"--jobs {args.compare_jobs}: {wall2:.1f} s ({wall2 / n:.2f} s a notebook); "
                f"--jobs {args.jobs} is {wall2 / wall:.2f}x faster ({load()})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
