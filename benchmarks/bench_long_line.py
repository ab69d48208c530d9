"""One long JSON line, read: the time for a line of 2N MiB over the time for N MiB (linear reading: about 2).

    .venv/bin/python benchmarks/bench_long_line.py                       # 64 and 128 MiB, 3 repeats
    .venv/bin/python benchmarks/bench_long_line.py --mib 32 --against ../main/.venv/bin/python

Each file holds one JSON object whose text is N MiB (``"ab " * ...``), read through
``open_dataset(...).chunks()`` (the JSONL reader, in blocks of 256 KiB, then the object parsed) in
a child process of its own, ``--repeats`` times, the two sizes alternating; medians and the ratio.
``--against PYTHON`` runs the same children with another tree's interpreter too, alternating with
this one's: before the fix, a line was appended to block by block (``rest += block``) and a line of
128 MiB took 5.5 times one of 64 MiB. The CPU (``/proc/cpuinfo``) and the load are printed beside.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import sys, time
from simhash_lab.datasets import open_dataset
src = open_dataset(sys.argv[1], "text", max_row_bytes=1 << 31)
t0 = time.perf_counter()
n = sum(len(t) for texts, _, _ in src.chunks(8192) for t in texts)
print(time.perf_counter() - t0, n)
"""


def cpu() -> str:
    model, flags = "?", set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and model == "?":
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    return f"{model}, {' '.join(x for x in ('avx2', 'avx512f') if x in flags)}"


def make(folder: str, mib: int) -> str:
    path = os.path.join(folder, f"line-{mib}MiB.jsonl")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps({"text": "ab " * (mib * (1 << 20) // 3)}) + "\n")
    return path


def timed(python: str, path: str) -> float:
    # cwd "/": a checkout in the working folder would come first on sys.path, whichever tree
    p = subprocess.run([python, "-c", _CHILD, path], capture_output=True, text=True, check=True, cwd="/")
    return float(p.stdout.split()[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mib", type=int, default=64, help="the shorter line's MiB (the longer: twice)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--folder", default="/tmp/simhash-lab-long-line")
    ap.add_argument("--against", metavar="PYTHON", help="another tree's interpreter (before)")
    args = ap.parse_args()
    os.makedirs(args.folder, exist_ok=True)
    small, large = make(args.folder, args.mib), make(args.folder, 2 * args.mib)
    trees = {"after": sys.executable, **({"before": args.against} if args.against else {})}
    print(f"{cpu()}; load {os.getloadavg()[0]:.2f}")
    times = {(t, s): [] for t in trees for s in (small, large)}
    for rep in range(args.repeats):
        for t in trees if rep % 2 == 0 else list(trees)[::-1]:
            for path in (small, large) if rep % 2 == 0 else (large, small):
                times[t, path].append(timed(trees[t], path))
    for t in trees:
        a, b = statistics.median(times[t, small]), statistics.median(times[t, large])
        print(
            f"{t:<6}: {args.mib} MiB line {a:7.2f} s, {2 * args.mib} MiB line {b:7.2f} s "
            f"(medians of {args.repeats}): ratio {b / a:.2f}"
        )
    print(f"load after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
