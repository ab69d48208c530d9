"""The JSONL read step alone: the compiled scanner (``simhash_lab.kernels.jsonl``) beside orjson,
on the same file in the same process, alternating; then where the scanner's time goes.

    .venv/bin/python benchmarks/bench_jsonl_read.py /tmp/simhash-lab-bench/docs-1000000.jsonl
    .venv/bin/python benchmarks/bench_jsonl_read.py FILE --repeats 5 --id-column id

Each pass is ``JsonlSource(FILE, "text", id).chunks(8192)`` consumed as the dedup's read step does
(a chunk of rows alive at a time), timed by process CPU (user + system). Passes alternate between
the scanner (``_SCAN_MIN = 0``) and orjson (``_SCAN_MIN`` huge); medians and each pair's ratio,
with the load average beside them. Then one pass split by stage: the blocks read and joined (the
file's bytes in 256 KiB reads: the floor of any reader of this file in Python), the scanner's
kernel, the block's one UTF-8 decode, one ``str`` per text and per id, the rest. The CPU's model
and SIMD flags are read from ``/proc/cpuinfo``.
"""

from __future__ import annotations

import argparse
import os
import statistics

import numpy as np
from bench_dedup import cpu_info  # the CPU's model and SIMD flags, read from /proc/cpuinfo

from simhash_lab.datasets import JsonlSource
from simhash_lab.kernels.jsonl import column_names, scan_block


def cpu() -> float:
    t = os.times()
    return t.user + t.system


def one_pass(path: str, idc: str | None, scan: bool) -> float:
    JsonlSource._SCAN_MIN, JsonlSource._SCAN_COMPILE = (0, 0) if scan else (1 << 62, 1 << 62)
    src = JsonlSource(path, "text", idc)
    t0 = cpu()
    rows = 0
    for texts, _, _ in src.chunks(8192):
        rows += len(texts)
    return cpu() - t0


def stages(path: str, idc: str | None) -> dict:
    """One scanner pass, each stage's process CPU summed (as ``JsonlSource._scanned`` runs them)."""
    acc = dict.fromkeys(["blocks read and joined", "scanner kernel", "one decode per block"], 0.0)
    acc.update(dict.fromkeys(["str per text", "str per id", "spans and lists"], 0.0))
    src = JsonlSource(path, "text", idc)
    names = column_names("text", idc, None)
    scratch = [np.empty(0, np.uint8), None]
    alive: list = []
    blocks = src._wholes()
    while True:
        t0 = cpu()
        got = next(blocks, None)
        t1 = cpu()
        acc["blocks read and joined"] += t1 - t0
        if got is None:
            return acc
        lineno, whole, n, _, at = got
        _, flagged, used, starts, ends, is_row, txt, idk, ida, idv, pra, out = scan_block(
            whole, n, names, scratch
        )
        if flagged:  # this split times the scanner alone: a file it reads whole
            raise SystemExit(f"line {lineno}...: a line the scanner flags: no split by stage for this file")
        t2 = cpu()
        acc["scanner kernel"] += t2 - t1
        big = str(memoryview(out)[:used], "utf-8")
        t3 = cpu()
        acc["one decode per block"] += t3 - t2
        texts = [big[a:b] for a, b in zip(txt[:, 0].tolist(), txt[:, 1].tolist())]
        t4 = cpu()
        acc["str per text"] += t4 - t3
        if idc is not None:
            ids = [big[a:b] for a, b in zip(ida[:, 0].tolist(), ida[:, 1].tolist())]
        t5 = cpu()
        acc["str per id"] += t5 - t4
        s, e = starts + at, ends + (at + 1)
        ln = np.arange(lineno, lineno + n)
        del s, e, ln, ids
        alive.extend(texts)
        if len(alive) >= 8192:
            del alive[:]
        acc["spans and lists"] += cpu() - t5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("path")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--id-column", default="id", help="the id column ('' for row numbers)")
    args = ap.parse_args()
    idc = args.id_column or None
    size = os.path.getsize(args.path)
    print(f"{args.path}: {size / 1e6:.0f} MB; {cpu_info()}")
    one_pass(args.path, idc, True)  # the scanner loaded, the file in the page cache
    runs: dict = {True: [], False: []}
    for rep in range(args.repeats):
        for scan in (True, False) if rep % 2 == 0 else (False, True):  # each first in turn
            load = os.getloadavg()[0]
            runs[scan].append(one_pass(args.path, idc, scan))
            print(
                f"  {'scanner' if scan else 'orjson ':<7} {runs[scan][-1]:6.2f} s CPU  load {load:.2f}",
                flush=True,
            )
    a, b = statistics.median(runs[True]), statistics.median(runs[False])
    ratios = [o / s for s, o in zip(runs[True], runs[False])]
    pairs = ", ".join(f"{r:.2f}" for r in ratios)
    print(f"read step (JsonlSource.chunks), CPU s, median of {args.repeats}: scanner {a:.2f}, "
          f"orjson {b:.2f}: {b / a:.2f}x (pairs: {pairs}); load now {os.getloadavg()[0]:.2f}")  # fmt: skip
    acc = stages(args.path, idc)
    total = sum(acc.values())
    print(f"the scanner's pass by stage (CPU s; {total:.2f} in all; load {os.getloadavg()[0]:.2f}):")
    for k, v in acc.items():
        print(f"  {k:<24} {v:5.2f}  {v / total:4.0%}")


if __name__ == "__main__":
    main()
