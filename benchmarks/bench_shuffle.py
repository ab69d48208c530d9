"""The candidate step's shuffle three ways on a LocalCluster: scratch files, Dask's task shuffle, P2P.

    .venv/bin/python benchmarks/bench_shuffle.py --n 1000000 --parts 8 --repeats 3
    .venv/bin/python benchmarks/bench_shuffle.py --n 10000000 --parts 20 --repeats 2

The candidate step of ``distributed.dedup_dataset`` is its largest shuffle: each partition's map
task emits one ``(table, fingerprint, row)`` record per table per document (4 B + 8 B + 8 B = 20 B;
4 tables at k = 3), each record goes to the reducer its table's key picks, and each reducer sorts
its records by key and reports the pairs within k. This script times that step alone, on the same
fingerprints held by the workers, moving the records three ways:

* ``files``: ``dedup_dataset``'s own way. Each map task writes one file of pieces, one per
  reducer behind an index, to a scratch folder through fsspec
  (``scratch/run-*/map/{partition}.pieces``, staged writes), a barrier task waits for all of
  them, each reducer lists the files and reads its own piece of each
  (``candidates.table_buckets``, ``distributed.pieces.save_pieces`` and ``read_pieces``: what
  ``distributed.executor.table_map`` and ``table_reduce`` do).
* ``tasks``: Dask's task-based shuffle: each map task returns its pieces in worker memory, one
  picking task per (partition, reducer), each reducer depends on its P picking tasks (what
  ``dask.bag.groupby(method="tasks")`` builds; ``distributed.pairs`` does this: ``distributed.batch``).
* ``p2p``: Dask's P2P shuffle (``distributed.shuffle``, through ``dask.dataframe``): each map task
  returns its records as a pandas DataFrame with the reducer in a ``_partitions`` column, and
  dask.dataframe's P2P ``Shuffle`` expression on that column (the column's value is the output
  partition, so each reducer gets exactly the records the other two ways give it; the public
  ``DataFrame.shuffle(on=...)`` would hash the column again) moves them worker to worker, spilled
  to each worker's local disk, as ``DataFrame.shuffle(..., shuffle_method="p2p")`` does.

The three ways run the same map (``candidates.table_bucket`` picks each record's reducer) and the
same reduce (``candidates.table_join``) and must find the same number of pairs (checked). Bytes moved:
``files`` the bytes written to scratch (each read once again); ``tasks`` the bytes the workers
sent each other (their ``transfer_outgoing_bytes_total``); ``p2p`` the shard bytes its comms sent
(distributed's ``("p2p", ..., "process", "bytes")`` metric: every shard, those a worker sends
itself included) and the bytes it wrote to the workers' disks (``disk-write``), plus the task
transfers.

The fingerprints are synthetic, of the real shape: random 64-bit values, 10 % of each partition
replaced by copies of another row (of the same or the previous partition) with 0 to 3 bits
flipped, so that the candidate pairs are as many as on the planted corpora of ``bench_dask.py``
(generating 10M rows of text would take this machine about 25 minutes; the shuffle moves only
the records). Alternating runs, medians, the ratio of each to ``files`` per round.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time

import numpy as np


def synthetic_part(p: int, n: int, seed: int = 0) -> dict:
    """Partition ``p`` of ``n`` fingerprints: random, 10 % near-copies (0-3 bits flipped) of a row
    of this partition or of partition ``p - 1`` (regenerated from its seed: no data travels)."""
    base = np.random.default_rng([seed, p]).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    prev = base if p == 0 else np.random.default_rng([seed, p - 1]).integers(0, 2**64 - 1, n, np.uint64, True)
    rng = np.random.default_rng([seed, p, 1])
    fps = base.copy()
    rows = np.flatnonzero(rng.random(n) < 0.1)
    src_prev = rng.random(rows.size) < 0.5
    src = rng.integers(0, n, rows.size)
    copied = np.where(src_prev, prev[src], base[src])
    flips = np.zeros(rows.size, np.uint64)
    for _ in range(3):
        bit = rng.integers(0, 64, rows.size).astype(np.uint64)
        on = rng.random(rows.size) < 0.6
        flips ^= np.where(on, np.uint64(1) << bit, np.uint64(0))
    fps[rows] = copied ^ flips
    return {"fps": fps, "featureless": np.zeros(n, np.bool_)}


def folder_bytes(folder: str) -> int:
    total = 0
    for root, _, files in os.walk(folder):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def machine() -> str:
    cpu, flags = "?", ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and cpu == "?":
                cpu = line.split(":", 1)[1].strip()
            if line.startswith("flags") and not flags:
                have = set(line.split(":", 1)[1].split())
                flags = " ".join(
                    x for x in ("sse4_2", "avx", "avx2", "avx512f", "bmi2", "popcnt") if x in have
                )
    return f"{cpu} ({flags}), {os.cpu_count()} cores"


def _sent(client) -> int:
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())


def _p2p_bytes(client) -> tuple[float, float]:
    """(shard bytes sent by P2P's comms, bytes P2P wrote to disk), over all workers, so far."""

    def get(dask_worker):
        sent = wrote = 0.0
        for key, v in dask_worker.digests_total.items():
            if isinstance(key, tuple) and key and key[0] == "p2p" and key[-1] == "bytes":
                if "comms" in str(key[2]) and key[3] == "process":
                    sent += v
                elif key[3] == "disk-write":
                    wrote += v
        return sent, wrote

    got = client.run(get).values()
    return sum(g[0] for g in got), sum(g[1] for g in got)


def _records_frame(buckets: list):
    """The map task's pieces as one DataFrame: ``_partitions`` (the reducer), ``t``, ``f``, ``i``."""
    import pandas as pd

    return pd.DataFrame(
        {
            "_partitions": np.concatenate([np.full(b["t"].size, r, np.int64) for r, b in enumerate(buckets)]),
            "t": np.concatenate([b["t"] for b in buckets]),
            "f": np.concatenate([b["f"] for b in buckets]),
            "i": np.concatenate([b["i"] for b in buckets]),
        }
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("-k", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ways", default="files,tasks,p2p")
    ap.add_argument("--scratch", default=None, help="a scratch URL (default: a local temporary folder)")
    args = ap.parse_args()

    import dask
    from distributed import Client, LocalCluster, wait

    from simhash_lab import distributed as D
    from simhash_lab._storage import filesystem, join, remove_tree
    from simhash_lab.candidates import offsets as offsets_of
    from simhash_lab.candidates import table_buckets, table_join
    from simhash_lab.distributed import batch as B
    from simhash_lab.distributed.pieces import read_pieces, save_pieces

    P = R = args.parts
    sizes = np.diff(np.linspace(0, args.n, P + 1).astype(np.int64))
    offsets = offsets_of(sizes)
    masks = D.table_masks(args.k)  # the pigeonhole's k + 1 tables: what dedup_dataset uses at k = 3
    k = args.k
    tmp = tempfile.mkdtemp(prefix="simhash-lab-shuffle-")
    scratch = args.scratch or os.path.join(tmp, "scratch")
    print(f"{machine()}; load before: {os.getloadavg()[0]:.2f}")
    with (
        LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
            local_directory=tmp,
        ) as cluster,
        Client(cluster) as client,
    ):
        t0 = time.perf_counter()
        parts = client.persist([dask.delayed(synthetic_part)(p, int(sizes[p])) for p in range(P)])
        wait(parts)
        fps = client.persist([dask.delayed(lambda x: x["fps"])(x) for x in parts])
        wait(fps)
        secs = time.perf_counter() - t0
        print(f"{args.n:,} synthetic fingerprints in {P} partitions on {args.workers} workers: {secs:.1f} s")

        def count(pairs):
            return int(pairs.shape[0])

        sfs, spath = filesystem(scratch)
        written = [0]

        def files():
            run = join(sfs, spath, f"run-{time.monotonic_ns()}")
            sfs.makedirs(join(sfs, run, "map"), exist_ok=True)

            def map_part(x, i):
                ids = np.arange(int(offsets[i]), int(offsets[i]) + x["fps"].size, dtype=np.int64)
                save_pieces(sfs, run, "map", i, R, table_buckets(x["fps"], ids, masks, R))
                return int(x["fps"].size)

            maps = [dask.delayed(map_part)(x, i) for i, x in enumerate(parts)]
            token = dask.delayed(sum)(maps)

            def reduce_files(r, _t):
                return count(table_join(read_pieces(sfs, run, "map", r), masks, k))

            got = sum(dask.compute(*[dask.delayed(reduce_files)(r, token) for r in range(R)]))
            written[0] = folder_bytes(run) if os.path.isdir(run) else 0
            remove_tree(sfs, run)
            return got

        def tasks():
            maps = [dask.delayed(B._map_task)(f, int(offsets[i]), masks, R) for i, f in enumerate(fps)]
            reduces = [
                dask.delayed(count)(
                    dask.delayed(B._reduce_task)([dask.delayed(B._pick)(m, r) for m in maps], masks, k)
                )
                for r in range(R)
            ]
            return sum(dask.compute(*reduces))

        def p2p():
            import dask.dataframe as dd
            import pandas as pd
            from dask.dataframe.dask_expr import new_collection
            from dask.dataframe.dask_expr._shuffle import Shuffle

            meta = pd.DataFrame(
                {
                    "_partitions": np.empty(0, np.int64),
                    "t": np.empty(0, np.int32),
                    "f": np.empty(0, np.uint64),
                    "i": np.empty(0, np.int64),
                }
            )
            frames = [
                dask.delayed(_records_frame)(dask.delayed(B._map_task)(f, int(offsets[i]), masks, R))
                for i, f in enumerate(fps)
            ]
            ddf = dd.from_delayed(frames, meta=meta, verify_meta=False)
            shuffled = new_collection(Shuffle(ddf.expr, "_partitions", R, True, "p2p"))

            def reduce_frame(df):
                pieces = [(df["t"].to_numpy(), df["f"].to_numpy(), df["i"].to_numpy())] if len(df) else []
                return pd.Series([count(table_join(pieces, masks, k))], dtype=np.int64)

            return int(shuffled.map_partitions(reduce_frame, meta=pd.Series(dtype=np.int64)).sum().compute())

        ways = {"files": files, "tasks": tasks, "p2p": p2p}
        names = [w for w in args.ways.split(",") if w]

        def warm(dask_worker=None):  # kernels loaded from the cache, pandas and P2P imported
            import dask.dataframe  # noqa: F401
            import distributed.shuffle  # noqa: F401

            f = synthetic_part(0, 5000)["fps"]
            return count(table_join(B._map_task(f, 0, masks, 1), masks, k))

        client.run(warm)
        warm()
        print(f"workers warmed (kernels loaded, pandas imported); load {os.getloadavg()[0]:.1f}")
        times = {w: [] for w in names}
        moved = {w: {} for w in names}
        loads = []
        for rep in range(args.repeats):
            order = names if rep % 2 == 0 else names[::-1]
            for w in order:
                s0, (c0, d0) = _sent(client), _p2p_bytes(client)
                t0 = time.perf_counter()
                got = ways[w]()
                times[w].append(time.perf_counter() - t0)
                s1, (c1, d1) = _sent(client), _p2p_bytes(client)
                moved[w] = {
                    "pairs": got,
                    "between workers (task transfers)": s1 - s0,
                    "p2p comms": c1 - c0,
                    "p2p disk": d1 - d0,
                    "scratch written": written[0] if w == "files" else 0,
                }
                loads.append(os.getloadavg()[0])
                print(
                    f"  round {rep + 1} {w:5s} {times[w][-1]:7.2f} s, {got:,} pairs, load {loads[-1]:.1f}",
                    flush=True,
                )

    pairs = {moved[w]["pairs"] for w in names}
    assert len(pairs) == 1, f"the ways found different pair counts: {moved}"
    n = args.n
    print(
        f"candidate step, {n:,} fingerprints, {P} partitions x {R} reducers, k = {k}, {masks.size} tables "
        f"({masks.size * 20} B of map records a document), {args.workers} workers of 1 thread, "
        f"{pairs.pop():,} pairs each way; load {min(loads):.1f}-{max(loads):.1f}"
    )
    for w in names:
        m = moved[w]
        parts_txt = ", ".join(f"{key} {v / n:.1f} B/doc" for key, v in m.items() if key != "pairs" and v)
        runs = ", ".join(f"{x:.2f}" for x in times[w])
        med = statistics.median(times[w])
        print(f"  {w:5s} median {med:7.2f} s (runs {runs}); moved: {parts_txt or 'nothing counted'}")
    if "files" in names:
        for w in names:
            if w != "files":
                r = statistics.median(b / a for a, b in zip(times["files"], times[w]))
                print(f"  {w} / files time: {r:.2f} (median of per-round ratios)")
    import shutil

    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
