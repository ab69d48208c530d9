"""The candidates step by MinHash bands beside the index, at the calibrated k, in one process.

    .venv/bin/python benchmarks/bench_bands.py --rows 100000 --repeats 3

N generated rows (``bench_dedup.make_million``'s: words of Python's documentation, 10 % copies
of earlier rows with up to 3 % of their words replaced) through ``dedup_texts(jaccard=0.8)`` with
``candidates="index"`` and ``candidates="bands"``, alternating, on one Numba thread, the steps'
clock reading the process's CPU time: the candidates step's CPU seconds (for bands, the keys made
while fingerprinting included), medians and their ratio; then the recall and precision of each
run's verified pairs against the exact Jaccard truth of the pairs that touch a random sample of
rows (``bench_dedup._sample_truth``). CPU model, SIMD flags and load are printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numba

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dedup as B  # noqa: E402

from simhash_lab.dedup import dedup_texts  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--truth-sample", type=int, default=2000)
    a = ap.parse_args()
    data = f"/tmp/simhash-lab-bench/docs-{a.rows}.jsonl"
    os.makedirs(os.path.dirname(data), exist_ok=True)
    if not os.path.exists(data):
        B.make_million(data, a.rows)
    with open(data, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    print(B.cpu_info())
    print(f"{len(texts)} rows; load before {B.load():.2f}")
    numba.set_num_threads(1)
    dedup_texts(texts[:300], candidates="bands")  # loads the kernels
    wall = time.perf_counter
    time.perf_counter = time.process_time  # the steps' clock: this process's CPU time
    runs: dict[str, list] = {"index": [], "bands": []}
    try:
        for _ in range(a.repeats):
            for method in ("index", "bands"):
                runs[method].append(dedup_texts(texts, candidates=method))
    finally:
        time.perf_counter = wall
    rows, truth = B._sample_truth(texts, a.truth_sample)
    med = {m: statistics.median(r.timings["candidates"] for r in rs) for m, rs in runs.items()}
    for m, rs in runs.items():
        r = rs[-1]
        each = ", ".join(f"{x.timings['candidates']:.3f}" for x in rs)
        p, rec = B._sample_scores(r.verified_pairs(), rows, truth, len(texts))  # exact copies too
        print(
            f"{m:<6} k = {r.k}, {r.settings['candidates']}: candidates step {med[m]:.3f} s CPU "
            f"(runs {each}), {r.pairs.shape[0]} "
            f"candidates, {r.verified} verified, {len(r.duplicates)} dropped; against the truth of "
            f"{rows.size} sampled rows ({len(truth)} pairs): precision {p:.4f}, recall {rec:.4f}"
        )
    print(f"index / bands, candidates CPU: {med['index'] / med['bands']:.1f}x; load after {B.load():.2f}")


if __name__ == "__main__":
    main()
