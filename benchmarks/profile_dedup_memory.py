"""Where a dedup run's peak memory is: the resident set sampled every 20 ms while
``dedup_table`` runs, each sample put to the step running then (the steps' clock), on the
machine's threads (``NUMBA_NUM_THREADS`` to change them).

    .venv/bin/python benchmarks/profile_dedup_memory.py /tmp/simhash-lab-bench/docs-1000000.jsonl

Prints each step's highest resident set (MiB) and the run's peak (ru_maxrss), the CPU model and
load beside them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dedup as B  # noqa: E402


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data")
    a = ap.parse_args()
    from simhash_lab.dedup import dedup_table
    from simhash_lab.dedup import run as R

    print(B.cpu_info())
    print(f"load before {B.load():.2f}")
    now = ["start"]
    top: dict[str, float] = {}
    real = R.Clock.time

    @contextlib.contextmanager
    def timed(self, name):
        before = now[0]
        now[0] = name
        try:
            with real(self, name):
                yield
        finally:
            now[0] = before

    R.Clock.time = timed
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            r = rss_mib()
            top[now[0]] = max(top.get(now[0], 0.0), r)
            time.sleep(0.02)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    with tempfile.TemporaryDirectory() as out:
        res = dedup_table(a.data, column="text", id_column="id", jaccard=0.8,
                          output=f"{out}/kept.jsonl", duplicates=f"{out}/dups.csv")  # fmt: skip
    done.set()
    t.join()
    print(f"{len(res.ids)} rows, {res.pairs.shape[0]} candidates, {res.verified} verified")
    for name, mib in top.items():
        print(f"{name:<14} highest resident set {mib:7.0f} MiB")
    print(f"peak (ru_maxrss) {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"load after {B.load():.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
