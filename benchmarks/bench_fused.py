"""The fused first read (issue 48 item 1) against the separate kernels, kernel level, one thread.

    .venv/bin/python benchmarks/bench_fused.py --rows 100000 --repeats 5

The rows of ``bench_dedup.py --rows N``'s generated JSONL (generated beside it when missing), in
chunks of ``CHUNK_ROWS``, on one thread, in the same process, alternating:

* apart: what ``first_read`` ran on the default path before, the separate kernels (kept as the
  reference, ``tests/lib/test_fused.py``'s ``reference``): ``verify.shingle_hashes_str`` (sets
  sorted per text, compacted), ``fold_sets``, ``BandKeys.make`` (the band keys), ``text_digests``
  (exact groups);
* fused, table: ``Shingler.first_pass`` with digests and keys, distinct shingles by an
  open-addressing table (what ``first_read`` runs now);
* fused, sort: the same pass with distinct shingles found by a sort (as the sets need);
* the fused pass without digests, to see what fusing the exact groups' digests costs.

Prints each variant's median CPU seconds, ns per shingle (shingles: the texts' ``max(words - n +
1, 1)``, repeats included) and the ratio to "apart", with the CPU and load beside.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

from bench_dedup import cpu_info, load, make_million  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "lib"))
from test_fused import reference  # noqa: E402

from simhash_lab._threads import one_thread  # noqa: E402
from simhash_lab.candidates import BandKeys  # noqa: E402
from simhash_lab.shingles import CHUNK_ROWS, Shingler  # noqa: E402


def rows(n: int, data_dir: str) -> list[str]:
    path = os.path.join(data_dir, "docs-1000000.jsonl")
    if not os.path.exists(path):
        os.makedirs(data_dir, exist_ok=True)
        make_million(path, 1_000_000)
    with open(path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in itertools.islice(f, n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data-dir", default="/tmp/simhash-lab-bench")
    args = ap.parse_args()
    texts = rows(args.rows, args.data_dir)
    chunks = [texts[i : i + CHUNK_ROWS] for i in range(0, len(texts), CHUNK_ROWS)]
    sh, km = Shingler(3), BandKeys(0.8, 0.99)
    shingles = int(sum(max(len(t.split()) - 2, 1) if t.split() else 0 for t in texts))

    def apart(c):
        reference(sh, km, c)

    variants = {
        "apart (before)": apart,
        "fused, table": lambda c: sh.first_pass(c, km, digests=True),
        "fused, sort": lambda c: sh.first_pass(c, km, digests=True, by_sort=True),
        "fused, table, no digests": lambda c: sh.first_pass(c, km),
    }
    print(f"{cpu_info()}; load {load():.2f}")
    print(f"{len(texts)} rows, {shingles} shingles, {len(chunks)} chunks of {CHUNK_ROWS}; "
          f"bands {km.bands} x {km.rows}")  # fmt: skip
    times: dict = {k: [] for k in variants}
    with one_thread():
        for c in chunks[:2]:  # compiled, scratch grown
            for f in variants.values():
                f(c)
        for rep in range(args.repeats):
            names = list(variants) if rep % 2 == 0 else list(variants)[::-1]
            for name in names:
                t0 = time.process_time()
                for c in chunks:
                    variants[name](c)
                times[name].append(time.process_time() - t0)
    base = statistics.median(times["apart (before)"])
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"{name:<26} {m:6.3f} s CPU  {1e9 * m / shingles:6.1f} ns/shingle  {base / m:5.2f}x apart  "
              f"(runs {', '.join(f'{t:.3f}' for t in ts)})")  # fmt: skip
    print(f"load after {load():.2f}")


if __name__ == "__main__":
    main()
