"""dedup's write step on its own: the kept JSONL rows and the duplicates table, on one thread and on
two, by the compiled copy beside the one-call-a-run copy, alternating in one process.

    .venv/bin/python benchmarks/bench_write_step.py --data /tmp/simhash-lab-bench/docs-1000000.jsonl \
        --out-dir /tmp/out --repeats 7

One run of ``dedup_table``'s steps (``LocalExecutor``, ``jaccard=0.8``) on the file gives the keep
mask and the duplicates table; then ``dedup/local.py``'s ``_write_outputs`` (the write step as a
run makes it: the table beside the kept rows when there are two threads, after them on one) is
timed, wall, for each engine of the kept rows' copy:

* ``compiled``: ``kernels.files.copy_runs``, one call for every ``Writeback.STEP`` bytes of runs,
  no GIL between runs (``JsonlSource._copy_kept``);
* ``a call a run``: one ``os.copy_file_range`` a run from Python (``_COPY_RUNS = None``), the copy
  this step had on one thread before (on two it had two such loops, a half of the runs each).

The outputs written before each round are removed and synced outside the timing. Each round runs
every (threads, engine) pair in turn, the order reversed every other round; medians, the ratio of
one thread's to two threads' time per engine, and the load beside; also each run's CPU time
(``time.process_time``: all threads) and the process's context switches (``getrusage``: voluntary,
each a wait such as one for the GIL), which a loaded machine moves far less than the wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench_dedup as B  # noqa: E402

import simhash_lab.dedup.local as L  # noqa: E402
from simhash_lab.datasets import JsonlSource  # noqa: E402
from simhash_lab.datasets import jsonl as J  # noqa: E402
from simhash_lab.settings import DedupSettings  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default="/tmp/simhash-lab-bench/docs-1000000.jsonl")
    ap.add_argument("--out-dir", default="/tmp/simhash-lab-bench/write-step")
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    if not os.path.exists(a.data):
        B.make_million(a.data, 1_000_000)
    os.makedirs(a.out_dir, exist_ok=True)
    print(B.cpu_info())
    print(f"{a.data} ({os.path.getsize(a.data) / 1e6:.0f} MB); load before {B.load():.2f}")
    source = JsonlSource(a.data, "text", "id")
    ex = L.LocalExecutor(DedupSettings.of(None, jaccard=0.8))
    t0 = time.perf_counter()
    res = ex.result(ex(source))
    keep = np.asarray(res.keep)
    print(f"steps before the write: {time.perf_counter() - t0:.1f} s; {int(keep.sum()):,} of "
          f"{keep.size:,} rows kept, {len(res.duplicates):,} rows in the duplicates table")  # fmt: skip
    outs = {
        "output": os.path.join(a.out_dir, "kept.jsonl"),
        "duplicates": os.path.join(a.out_dir, "dups.csv"),
    }
    engines = {"compiled": J._COPY_RUNS, "a call a run": None}
    if engines["compiled"] is None:
        raise SystemExit("no compiled copy here (no copy_file_range in the C library)")
    cases = [(t, e) for t in (1, 2) for e in engines]
    times: dict = {c: [] for c in cases}
    cpu: dict = {c: [] for c in cases}
    switches: dict = {c: [] for c in cases}
    written: dict = {}
    for rep in range(a.repeats):
        for threads, engine in cases if rep % 2 == 0 else cases[::-1]:
            for path in outs.values():
                if os.path.exists(path):
                    os.unlink(path)
            os.sync()
            J._COPY_RUNS = engines[engine]
            L.thread_count = lambda threads=threads: threads
            l0 = B.load()
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            t, c = time.perf_counter(), time.process_time()
            L._write_outputs(ex.clock, source, res, outs)
            w, c = time.perf_counter() - t, time.process_time() - c
            sw = resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw - r0.ru_nvcsw
            times[threads, engine].append(w)
            cpu[threads, engine].append(c)
            switches[threads, engine].append(sw)
            with open(outs["output"], "rb") as f:
                written.setdefault("kept", set()).add(hash(f.read()))
            print(f"  {threads} thread{'s' if threads > 1 else ''}, {engine:<13} {w:6.3f} s  CPU {c:6.3f} s  "
                  f"{sw:7,} switches  load {l0:.2f}-{B.load():.2f}", flush=True)  # fmt: skip
    J._COPY_RUNS = engines["compiled"]
    print(f"the kept rows byte-identical in every run: {len(written['kept']) == 1}")
    print(f"{'engine':<14} {'1 thread':>9} {'2 threads':>10} {'1/2 per round (median)':>24}"
          f" {'CPU 1':>7} {'CPU 2':>7} {'switches 1':>11} {'switches 2':>11}")  # fmt: skip
    for engine in engines:
        one, two = times[1, engine], times[2, engine]
        r = statistics.median(x / y for x, y in zip(one, two))
        print(f"{engine:<14} {statistics.median(one):9.3f} {statistics.median(two):10.3f} {r:23.2f}x"
              f" {statistics.median(cpu[1, engine]):7.3f} {statistics.median(cpu[2, engine]):7.3f}"
              f" {statistics.median(switches[1, engine]):11,.0f}"
              f" {statistics.median(switches[2, engine]):11,.0f}")  # fmt: skip
    for threads in (1, 2):
        r = statistics.median(
            x / y for x, y in zip(times[threads, "a call a run"], times[threads, "compiled"])
        )
        print(f"{threads} thread(s): a call a run / compiled per round, median {r:.2f}x")
    print(f"load after {B.load():.2f}")


if __name__ == "__main__":
    main()
