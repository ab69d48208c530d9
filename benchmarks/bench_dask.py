"""The Dask pipeline on generated documents: ``distributed.dedup_dataset`` on a LocalCluster.

    .venv/bin/python benchmarks/bench_dask.py                     # 10M documents, 20 partitions
    .venv/bin/python benchmarks/bench_dask.py --n 200000 --parts 4 # a smoke run

Documents are words drawn (Zipf) from the vocabulary of Python's documentation, ``--words`` a
document; 10 % are copies of an earlier document of the same partition with up to 3 % of their
words replaced (the near-duplicates). They are written as Parquet partitions, then deduplicated at
Jaccard >= 0.8 (k calibrated in a task on the first partition, or ``-k``) with the kept rows
written as partitioned Parquet. Prints the wall time, the per-document cost, the shuffle volume
(bytes written to the scratch folder, measured) and the result's counts; the figures feed
``benchmarks/dedup_at_scale.md``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import threading
import time

import numpy as np


def generate(folder: str, n: int, parts: int, words: int, seed: int = 0) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from simhash_lab.course.corpus import python_docs

    vocab = np.array(sorted({w.lower() for d in python_docs() for w in d.text.split() if w.isalpha()}))
    p = 1.0 / np.arange(1, vocab.size + 1)
    p /= p.sum()
    cdf = np.cumsum(p)
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    paths = []
    for part in range(parts):
        m = int(bounds[part + 1] - bounds[part])
        idx = np.searchsorted(cdf, rng.random((m, words)))
        idx = np.minimum(idx, vocab.size - 1)
        copy = rng.random(m) < 0.1
        copy[:100] = False
        rows = np.flatnonzero(copy)
        src = (rng.random(rows.size) * rows).astype(np.int64)  # an earlier row
        idx[rows] = idx[src]
        edits = rng.integers(0, max(1, words * 3 // 100) + 1, size=rows.size)
        for r, e in zip(rows.tolist(), edits.tolist()):
            if e:
                idx[r, rng.choice(words, e, replace=False)] = rng.integers(0, vocab.size, e)
        texts = [" ".join(vocab[row]) for row in idx]
        ids = [f"doc{int(bounds[part]) + i}" for i in range(m)]
        path = os.path.join(folder, f"part-{part:05d}.parquet")
        pq.write_table(pa.table({"id": ids, "text": texts}), path)
        paths.append(path)
    return paths


def folder_bytes(folder: str) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--parts", type=int, default=20)
    ap.add_argument("--words", type=int, default=40)
    ap.add_argument("-k", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--folder", default="/tmp/simhash-lab-dask")
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    from simhash_lab import distributed as D

    data = os.path.join(args.folder, f"in-{args.n}-{args.words}")
    if not os.path.exists(data):
        t0 = time.perf_counter()
        generate(data, args.n, args.parts, args.words)
        secs = time.perf_counter() - t0
        print(f"generated {args.n:,} documents in {args.parts} partitions in {secs:.0f} s")
    paths = sorted(os.path.join(data, f) for f in os.listdir(data) if f.endswith(".parquet"))
    out = os.path.join(args.folder, "out")
    shutil.rmtree(out, ignore_errors=True)
    scratch = os.path.join(out, "_shuffle")
    peak = [0]
    stop = threading.Event()

    def watch():  # the scratch folder's largest size: the shuffle volume on disk
        while not stop.wait(0.5):
            peak[0] = max(peak[0], folder_bytes(scratch))

    print(f"load before: {os.getloadavg()[0]:.2f}")
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as c,
        Client(c),
    ):
        threading.Thread(target=watch, daemon=True).start()
        t0 = time.perf_counter()
        res = D.dedup_dataset(paths, out, id_column="id", jaccard=0.8, k=args.k, scratch=scratch)
        wall = time.perf_counter() - t0
    stop.set()
    import resource

    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker
    print(res)
    print(
        f"{args.n:,} documents of {args.words} words, {args.parts} partitions, {args.workers} workers: "
        f"{wall:.0f} s wall, {wall * args.workers / args.n * 1e6:.1f} us of worker time per document; "
        f"scratch (shuffle) peak {peak[0] / 1e6:.0f} MB ({peak[0] / args.n:.0f} B per document); "
        f"input {folder_bytes(data) / 1e6:.0f} MB, output {folder_bytes(out) / 1e6:.0f} MB; "
        f"largest worker's peak memory {worker_peak:.0f} MiB; "
        f"load after: {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
