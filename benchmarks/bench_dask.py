"""The Dask pipeline on generated documents: ``distributed.dedup_dataset`` on a LocalCluster.

    .venv/bin/python benchmarks/bench_dask.py                      # 10M documents, 20 partitions
    .venv/bin/python benchmarks/bench_dask.py --n 200000 --parts 4  # a smoke run
    .venv/bin/python benchmarks/bench_dask.py --n 200000 --parts 4 --against-one-process --repeats 3
    .venv/bin/python benchmarks/bench_dask.py --shuffle --n 1000000 --parts 8 -k 3

Documents are words drawn (Zipf) from the vocabulary of Python's documentation, ``--words`` a
document; 10 % are copies of an earlier document of the same partition with up to 3 % of their
words replaced (the near-duplicates). They are written as Parquet partitions, then deduplicated at
Jaccard >= 0.8 (the shared ``DedupSettings`` defaults: k calibrated for recall 0.99 on a sample of all
partitions, or ``-k``) with the kept rows written
as partitioned Parquet. Prints the wall time, the per-document cost, the shuffle volume (bytes
written to the scratch folder, measured) and the result's counts; the figures feed
``benchmarks/dedup_at_scale.md``.

``--against-one-process``: ``dedup_table`` on one Parquet file holding the same rows, in this
process (its Numba threads: as many as the cores), with the same default arguments and the same
job: the kept rows written as Parquet and the duplicates table beside them. It alternates with the
Dask run (``--repeats`` each); printed side by side: each pair's wall times, the one process's
steps, their ratio, the medians, and a check that both made the same decision.

``--task-cpu``: after each Dask run, the workers' process CPU per task name (a worker plugin:
one task at a time per worker, so a task's CPU includes its kernels' threads and the worker's own
loops meanwhile), then the same graph on Dask's synchronous scheduler in this process, measured
the same way (a callback): the pipeline's code with and without distributed's workers.

``--candidates``: pass it to both (default: the shared default, ``DedupSettings().candidates``).

``--reducers N``: ``dedup_dataset``'s ``n_reducers`` (default: its own, one a task).
``--task-bytes B``: ``dedup_dataset``'s ``task_bytes`` (default: its own; 0: a task a partition).

``--against PYTHON``: this tree beside another (that tree's interpreter, e.g. main's
``.venv/bin/python``), in alternating child processes, each its own LocalCluster (its workers warmed
first, untimed): ``dedup_dataset`` and, with ``--against-one-process``, ``dedup_table`` on the same
rows (one process's per-step seconds beside it); per pair the ratio after/before, medians, the load
beside each run, and whether both made the same decision (the summary, the kept rows and the
duplicates table, compared byte for byte after sorting).

``--shuffle``: the candidate step alone, both ways, on the same fingerprints (the partitions'
fingerprints computed once and held by the workers): through Dask's task shuffle (each map task
returns one piece per reducer, in worker memory; ``distributed.pairs``) and through files in a
scratch folder (the map writes its pieces, each reducer lists and reads its own:
``dedup_dataset``'s way). Prints each one's wall time and bytes moved (task shuffle: the bytes
the workers sent each other, from their transfer counters; files: the bytes written to scratch).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shutil
import statistics
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


def machine() -> str:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return f"{cpu}, {os.cpu_count()} cores"


def _cpu(client) -> np.ndarray:
    """(user, system) CPU seconds of the workers so far, summed."""
    return np.sum([t[:2] for t in client.run(lambda: tuple(os.times())).values()], axis=0)


def _sent(client) -> int:
    """Bytes the workers have sent each other so far (their transfer counters)."""
    return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total).values())


class TaskCPU:
    """The process CPU (user, system) of each task, summed by task name: a worker plugin (each
    worker runs one task at a time, so the process's CPU between a task's start and end is the
    task's, its kernels' threads and the worker's own loops meanwhile included) or, with
    ``sync()``, a callback of Dask's synchronous scheduler in this process."""

    name = "bench-task-cpu"

    def setup(self, worker=None):
        self.acc, self.start = {}, {}
        if worker is not None:
            worker._bench_task_cpu = self.acc

    @staticmethod
    def _now():
        import resource

        t = os.times()
        return t[0], t[1], resource.getrusage(resource.RUSAGE_SELF).ru_minflt

    def _add(self, key, t0):
        from dask.utils import key_split

        t1 = self._now()
        a = self.acc.setdefault(key_split(key), [0.0, 0.0, 0, 0])
        a[0] += t1[0] - t0[0]
        a[1] += t1[1] - t0[1]
        a[2] += 1
        a[3] += t1[2] - t0[2]

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing":
            self.start[key] = self._now()
        elif start == "executing" and key in self.start:
            self._add(key, self.start.pop(key))

    @staticmethod
    def collect(client) -> dict:
        """The workers' sums so far, then reset."""

        def take(dask_worker):
            acc = dict(dask_worker._bench_task_cpu)
            dask_worker._bench_task_cpu.clear()
            return acc

        tot: dict = {}
        for acc in client.run(take).values():
            for k, v in acc.items():
                t = tot.setdefault(k, [0.0, 0.0, 0, 0])
                for i in range(4):
                    t[i] += v[i]
        return tot

    def sync(self):
        """A callback for ``with``: the same sums for the tasks Dask's sync scheduler runs here."""
        from dask.callbacks import Callback

        self.setup()
        meter = self

        class Meter(Callback):
            def _pretask(self, key, dsk, state):
                meter.start[key] = meter._now()

            def _posttask(self, key, result, dsk, state, id):
                meter._add(key, meter.start.pop(key))

        return Meter()

    @staticmethod
    def table(tot: dict) -> str:
        rows = sorted(tot.items(), key=lambda x: -x[1][0])
        user, system = (sum(v[i] for v in tot.values()) for i in (0, 1))
        head = f"    tasks: {user:.1f} s user + {system:.1f} s system"
        return "\n".join(
            [head]
            + [
                f"      {k:<20} {v[0]:6.2f} + {v[1]:5.2f} s ({v[2]} tasks, {v[3]:,} minor page faults)"
                for k, v in rows
                if v[0] + v[1] >= 0.05
            ]
        )


_CHILD = r"""
import json, os, shutil, sys, time
import pyarrow.parquet as pq
a = json.loads(sys.argv[1])
from simhash_lab import distributed as D
from simhash_lab.dedup import dedup_table

def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    return path

def workers_cpu(client):
    return sum(sum(t[:2]) for t in client.run(lambda: tuple(os.times())).values())

cluster, client = D.local_cluster(a["workers"])
with cluster, client:
    warm = fresh(os.path.join(a["out"], "warm"))
    os.makedirs(warm)
    head = pq.read_table(a["paths"][0]).slice(0, 4000)
    parts = [os.path.join(warm, f"p{i}.parquet") for i in range(2)]
    for i, wp in enumerate(parts):
        pq.write_table(head.slice(i * 2000, 2000), wp)
    for i in range(2):  # each worker's kernels loaded, untimed
        D.dedup_dataset(parts[:: 1 - 2 * i], os.path.join(warm, f"out{i}"), id_column="id", **a["options"])
    dedup_table(parts[0], id_column="id", output=os.path.join(warm, "kept.parquet"), **a["options"])
    out = fresh(os.path.join(a["out"], "dask"))
    c0, t0 = workers_cpu(client), time.perf_counter()
    res = D.dedup_dataset(a["paths"], out, id_column="id", **a["options"], **a["dask_options"])
    got = {"dask_wall": time.perf_counter() - t0, "dask_cpu": workers_cpu(client) - c0, "dask": res}
if a["whole"]:
    one = fresh(os.path.join(a["out"], "one"))
    os.makedirs(one)
    t0, c0 = time.perf_counter(), time.process_time()
    r = dedup_table(a["whole"], id_column="id", output=os.path.join(one, "kept.parquet"),
                    duplicates=os.path.join(one, "duplicates.parquet"), **a["options"])
    got.update(one_wall=time.perf_counter() - t0, one_cpu=time.process_time() - c0, one_timings=r.timings,
               one_k=r.k, one_dropped=len(r.duplicates))
print(json.dumps(got))
"""


def _dask_child(python: str, paths: list, out: str, args, whole: str | None) -> dict:
    """One child run (``python``: a tree's interpreter) of :data:`_CHILD`; the load beside it."""
    import json
    import subprocess
    import sys

    options = {} if args.k is None else {"k": args.k}
    if args.candidates is not None:
        options["candidates"] = args.candidates
    dask_options = {
        k: v for k, v in (("n_reducers", args.reducers), ("task_bytes", args.task_bytes)) if v is not None
    }
    arg = json.dumps({"paths": paths, "out": out, "workers": args.workers, "options": options,
                      "dask_options": dask_options, "whole": whole})  # fmt: skip
    before = os.getloadavg()[0]
    p = subprocess.run([python or sys.executable, "-c", _CHILD, arg], capture_output=True, text=True, cwd="/")
    if p.returncode:
        raise SystemExit(f"child failed ({p.returncode}): {p.stderr.strip()[-3000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["load"] = (before, os.getloadavg()[0])
    return r


def _outputs(folder: str) -> tuple:
    """The kept rows (sorted by id) and the duplicates table of an output folder, as lists."""
    import pyarrow.parquet as pq

    parts = sorted(f for f in os.listdir(folder) if f.startswith("part-"))
    kept = sorted(r["id"] for f in parts for r in pq.read_table(os.path.join(folder, f)).to_pylist())
    dups = pq.read_table(os.path.join(folder, "duplicates.parquet")).to_pylist()
    return kept, dups


def one_file(data: str, paths: list) -> str:
    """The partitions' rows in one Parquet file (made once): what the one process reads."""
    import pyarrow.parquet as pq

    whole = os.path.join(data, "whole", "all.parquet")
    if not os.path.exists(whole):
        os.makedirs(os.path.dirname(whole), exist_ok=True)
        with pq.ParquetWriter(whole, pq.read_schema(paths[0])) as w:
            for p in paths:
                w.write_table(pq.read_table(p))
    return whole


def against(args, paths: list, data: str, python: str) -> None:
    """Before (``python``) and after (this interpreter) in alternating children: medians of pairs."""
    import sys

    whole = one_file(data, paths) if args.against_one_process else None
    trees = {"before": python, "after": sys.executable}
    runs: dict = {t: [] for t in trees}
    print(f"{machine()}; {args.n:,} documents, {args.parts} partitions, {args.workers} workers; "
          f"before: {python}; after: {sys.executable}; load {os.getloadavg()[0]:.2f}")  # fmt: skip
    for rep in range(args.repeats):
        for t in list(trees) if rep % 2 == 0 else list(trees)[::-1]:
            r = _dask_child(trees[t], paths, os.path.join(args.folder, f"against-{t}"), args, whole)
            runs[t].append(r)
            one = f", one process {r['one_wall']:6.2f} s" if whole else ""
            print(f"  {t:<6} dask {r['dask_wall']:6.2f} s wall, {r['dask_cpu']:6.2f} s worker CPU{one}; "
                  f"load {r['load'][0]:.2f}-{r['load'][1]:.2f}", flush=True)  # fmt: skip
    b, a = runs["before"], runs["after"]
    same = b[-1]["dask"] == a[-1]["dask"] and _outputs(
        os.path.join(args.folder, "against-before", "dask")
    ) == (_outputs(os.path.join(args.folder, "against-after", "dask")))
    print(f"the same decision before/after (summary, kept rows, duplicates table): {same}; {a[-1]['dask']}")
    keys = ["dask_wall", "dask_cpu"] + (["one_wall", "one_cpu"] if whole else [])
    print(f"{'measure':<22} {'before':>8} {'after':>8} {'after/before (median of pairs)':>32}")
    rows = [(k, [x[k] for x in b], [x[k] for x in a]) for k in keys]
    if whole:
        for st in a[0]["one_timings"]:
            rows.append(
                (
                    f"one: {st}",
                    [x["one_timings"].get(st, 0.0) for x in b],
                    [x["one_timings"].get(st, 0.0) for x in a],
                )
            )
    for name, bs, as_ in rows:
        ratios = [y / x for x, y in zip(bs, as_) if x > 0]
        med = statistics.median(ratios) if ratios else float("nan")
        print(f"{name:<22} {statistics.median(bs):8.2f} {statistics.median(as_):8.2f} {med:10.3f}  "
              f"{[round(r, 3) for r in ratios]}")  # fmt: skip
    print(f"load after: {os.getloadavg()[0]:.2f}")


def shuffle_bench(client, paths, k, repeats, scratch):
    """The candidate step through Dask's task shuffle and through scratch files, same inputs."""
    import dask
    import numpy as np
    from distributed import wait
    from fsspec.implementations.local import LocalFileSystem

    from simhash_lab._storage import filesystem, join, remove_tree
    from simhash_lab._validate import default_memory_budget
    from simhash_lab.candidates import offsets as offsets_of
    from simhash_lab.candidates import table_join
    from simhash_lab.distributed import batch as B
    from simhash_lab.distributed import executor as X
    from simhash_lab.distributed.pieces import read_pieces
    from simhash_lab.index.design import choose_layout, layout_tables
    from simhash_lab.settings import DedupSettings

    fs = LocalFileSystem()
    sfs, spath = filesystem(scratch)
    fp_run = join(sfs, spath, "fingerprints")
    sfs.makedirs(join(sfs, fp_run, "copies"), exist_ok=True)
    st = DedupSettings(exact=False, candidates="index")  # the fingerprints alone
    run = X.DatasetRun(
        st, fs=fs, files=tuple(paths), tasks=tuple((i,) for i in range(len(paths))), column="text",
        id_column="id", sfs=sfs, folder=fp_run, reducers=len(paths),
    )  # fmt: skip
    parts = [dask.delayed(X.read_part)(run, i) for i in range(len(paths))]
    parts = client.persist(parts)
    sizes = client.compute([dask.delayed(X.part_counts)(x) for x in parts], sync=True)
    sizes = [int(c[0]) for c in sizes]
    n = int(sum(sizes))
    lay, _ = choose_layout(n, k, 64, "pairs", 64, default_memory_budget(), 1)
    if lay == "scan":
        lay = ("permuted", k + 1)
    masks = np.array(layout_tables(lay, k, 64)[0], dtype=np.uint64)
    P = R = len(paths)
    offsets = offsets_of(sizes)
    fps_parts = [dask.delayed(lambda x: x.fps)(x) for x in parts]

    def count(pairs):
        return int(pairs.shape[0])

    def engine():
        maps = [dask.delayed(B._map_task)(f, int(offsets[i]), masks, R) for i, f in enumerate(fps_parts)]
        reduces = [
            dask.delayed(count)(
                dask.delayed(B._reduce_task)([dask.delayed(B._pick)(m, r) for m in maps], masks, k)
            )
            for r in range(R)
        ]
        return sum(dask.compute(*reduces))

    def reduce_files(r, _t, folder):
        return count(table_join(read_pieces(sfs, folder, "map", r), masks, k))

    written = [0]

    def files():
        folder = join(sfs, spath, f"run-{time.monotonic_ns()}")
        for sub in ("map", "copies"):
            sfs.makedirs(join(sfs, folder, sub), exist_ok=True)
        run_f = dataclasses.replace(run, folder=folder)
        maps = [dask.delayed(X.table_map)(run_f, i, x, offsets, masks) for i, x in enumerate(parts)]
        t1 = dask.delayed(X.barrier)(*maps)
        t1 = client.persist(t1)
        wait(t1)
        written[0] = folder_bytes(folder)
        reduces = [dask.delayed(reduce_files)(r, t1, folder) for r in range(R)]
        got = sum(dask.compute(*reduces))
        remove_tree(sfs, folder)
        return got

    rows = {"tasks (in memory)": [], "files (scratch)": []}
    moved = {}
    for _ in range(repeats):
        for name, fn in (("tasks (in memory)", engine), ("files (scratch)", files)):
            s0 = _sent(client)
            t0 = time.perf_counter()
            got = fn()
            rows[name].append(time.perf_counter() - t0)
            moved[name] = (_sent(client) - s0, written[0] if name.startswith("files") else 0, got)
    print(
        f"candidate step, {n:,} fingerprints, {P} partitions x {R} reducers, k = {k}, "
        f"layout {lay} ({masks.size} tables, {masks.size * 20} B of map rows a document)"
    )
    tm = [statistics.median(v) for v in rows.values()]
    for (name, v), med in zip(rows.items(), tm):
        sent, wrote, got = moved[name]
        print(
            f"  {name:18s} median {med:6.2f} s (runs {', '.join(f'{x:.2f}' for x in v)}); "
            f"workers sent each other {sent / 1e6:7.1f} MB ({sent / n:5.1f} B/doc); "
            f"written to scratch {wrote / 1e6:7.1f} MB ({wrote / n:5.1f} B/doc); {got:,} pairs"
        )
    ratio = statistics.median(b / a for a, b in zip(*rows.values()))
    print(f"  files / tasks time: {ratio:.2f} (median of per-run ratios)")


def task_profile(records) -> str:
    """Per task name (``dask.utils.key_split``): tasks, seconds of compute summed over the workers,
    and the span from the run's first task start to that name's first start and last stop."""
    from dask.utils import key_split

    total, count, span = {}, {}, {}
    t00 = min((ss["start"] for r in records for ss in r["startstops"]), default=0.0)
    for r in records:
        name = key_split(r["key"])
        for ss in r["startstops"]:
            if ss["action"] != "compute":
                continue
            total[name] = total.get(name, 0.0) + ss["stop"] - ss["start"]
            a, b = span.get(name, (float("inf"), 0.0))
            span[name] = (min(a, ss["start"] - t00), max(b, ss["stop"] - t00))
        count[name] = count.get(name, 0) + 1
    lines = [
        f"    {name:20s} {count[name]:4d} tasks {total[name]:7.2f} s of compute, "
        f"from {span[name][0]:6.2f} to {span[name][1]:6.2f} s"
        for name in sorted(span, key=lambda x: span[x])
        if total[name] >= 0.05
    ]
    return "\n".join(lines)


def task_timeline(records) -> str:
    """Each task's worker, start and stop (seconds from the run's first start), in start order:
    which tasks sit on the critical path, and where a worker waits."""
    from dask.utils import key_split

    t00 = min((ss["start"] for r in records for ss in r["startstops"]), default=0.0)
    workers = sorted({r.get("worker", "?") for r in records})
    rows = []
    for r in records:
        for ss in r["startstops"]:
            if ss["action"] == "compute" and ss["stop"] - ss["start"] >= 0.01:
                w = workers.index(r.get("worker", "?"))
                rows.append((ss["start"] - t00, ss["stop"] - t00, w, key_split(r["key"])))
    rows.sort()
    return "\n".join(f"      w{w} {a:6.2f}-{b:6.2f} {b - a:5.2f} s {name}" for a, b, w, name in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--parts", type=int, default=20)
    ap.add_argument("--words", type=int, default=40)
    ap.add_argument("-k", type=int, default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--against-one-process", action="store_true")
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--folder", default="/tmp/simhash-lab-dask")
    ap.add_argument("--candidates", default=None, choices=["index", "bands"])
    ap.add_argument("--reducers", type=int, default=None, help="dedup_dataset's n_reducers")
    ap.add_argument("--task-bytes", type=int, default=None, help="dedup_dataset's task_bytes")
    ap.add_argument(
        "--profile", action="store_true", help="print each Dask run's task stream, summed by task name"
    )
    ap.add_argument("--worker-threads", type=int, default=0, help="NUMBA_NUM_THREADS of each worker")
    ap.add_argument("--worker-env", action="append", default=[], metavar="KEY=VALUE", help="workers' env")
    ap.add_argument(
        "--trim-memory", action="store_true", help="distributed's MALLOC_TRIM_THRESHOLD_ in workers"
    )
    ap.add_argument(
        "--task-cpu",
        action="store_true",
        help="each Dask run's process CPU per task name; then the same graph on the sync scheduler here",
    )
    ap.add_argument("--no-watch", action="store_true", help="do not measure the scratch folder's peak")
    ap.add_argument(
        "--against", metavar="PYTHON", help="another tree's interpreter: before/after, alternating"
    )
    ap.add_argument(
        "--timeline",
        action="store_true",
        help="with --profile: each task's worker, start and stop (the critical path)",
    )
    args = ap.parse_args()

    from simhash_lab import distributed as D

    data = os.path.join(args.folder, f"in-{args.n}-{args.words}-{args.parts}")
    if not os.path.exists(data):
        t0 = time.perf_counter()
        generate(data, args.n, args.parts, args.words)
        secs = time.perf_counter() - t0
        print(f"generated {args.n:,} documents in {args.parts} partitions in {secs:.0f} s")
    paths = sorted(os.path.join(data, f) for f in os.listdir(data) if f.endswith(".parquet"))
    if args.against:
        against(args, paths, data, args.against)
        return
    out = os.path.join(args.folder, "out")
    shutil.rmtree(out, ignore_errors=True)
    scratch = os.path.join(args.folder, "scratch")
    shutil.rmtree(scratch, ignore_errors=True)
    peak = [0]
    stop = threading.Event()

    def watch():  # the scratch folder's largest size: the shuffle volume on disk
        while not stop.wait(0.5):
            peak[0] = max(peak[0], folder_bytes(scratch))

    print(f"{machine()}; load before: {os.getloadavg()[0]:.2f}")
    worker_env = dict(kv.split("=", 1) for kv in args.worker_env)
    if args.worker_threads:
        worker_env["NUMBA_NUM_THREADS"] = str(args.worker_threads)
    # the library's LocalCluster: worker processes of one thread, no dashboard; the C allocator's
    # own thresholds unless --trim-memory (distributed's MALLOC_TRIM_THRESHOLD_)
    cluster, client = D.local_cluster(
        args.workers, trim_memory=args.trim_memory, **({"env": worker_env} if worker_env else {})
    )
    with cluster, client:
        if args.shuffle:
            shuffle_bench(client, paths, args.k if args.k is not None else 3, args.repeats, scratch)
            print(f"load after: {os.getloadavg()[0]:.2f}")
            return
        trims = set(client.run(lambda: os.environ.get("MALLOC_TRIM_THRESHOLD_")).values())
        print(f"workers' MALLOC_TRIM_THRESHOLD_: {', '.join(map(str, trims))}")
        whole = one_file(data, paths) if args.against_one_process else None
        if not args.no_watch:
            threading.Thread(target=watch, daemon=True).start()
        dask_s, one_s = [], []
        options = {} if args.k is None else {"k": args.k}
        if args.candidates is not None:
            options["candidates"] = args.candidates
        dask_options = dict(options, n_reducers=args.reducers, task_bytes=args.task_bytes)
        # both sides load their kernels first (each worker process, and this one), untimed: the
        # runs compare the steady state, not the one-time load of a process
        import pyarrow.parquet as pq

        from simhash_lab.dedup import dedup_table

        warm = os.path.join(args.folder, "warm")
        shutil.rmtree(warm, ignore_errors=True)
        os.makedirs(warm)
        head = pq.read_table(paths[0]).slice(0, 4000)
        warm_parts = [os.path.join(warm, f"p{i}.parquet") for i in range(2)]
        for i, wp in enumerate(warm_parts):
            pq.write_table(head.slice(i * 2000, 2000), wp)
        client.run(lambda: __import__("simhash_lab.distributed"))
        D.dedup_dataset(warm_parts, os.path.join(warm, "out"), id_column="id", **options)
        client.run(lambda: __import__("simhash_lab.distributed"))  # and once more on each worker:
        D.dedup_dataset(warm_parts[::-1], os.path.join(warm, "out2"), id_column="id", **options)
        dedup_table(warm_parts[0], id_column="id", output=os.path.join(warm, "kept.parquet"), **options)
        shutil.rmtree(warm, ignore_errors=True)
        if args.task_cpu:
            from distributed import WorkerPlugin

            client.register_plugin(type("TaskCPUPlugin", (TaskCPU, WorkerPlugin), {})())
        for _ in range(args.repeats):
            from distributed import get_task_stream

            cpu0 = _cpu(client), time.process_time()
            shutil.rmtree(out, ignore_errors=True)  # an earlier run's parts are refused
            with get_task_stream(client) if args.profile else contextlib.nullcontext() as ts:
                t0, w0 = time.perf_counter(), time.time()
                res = D.dedup_dataset(paths, out, id_column="id", scratch=scratch, **dask_options)
                dask_s.append(time.perf_counter() - t0)
                w1 = time.time()
            cpu = _cpu(client) - cpu0[0], time.process_time() - cpu0[1]
            print(
                f"  dask: CPU {cpu[0][0]:.1f} s user + {cpu[0][1]:.1f} s system in the workers, "
                f"{cpu[1]:.1f} s in the client and scheduler"
            )
            if args.profile:
                print(task_profile(ts.data))
                if args.timeline:
                    print(task_timeline(ts.data))
                    starts = [ss["start"] for r in ts.data for ss in r["startstops"]]
                    stops = [ss["stop"] for r in ts.data for ss in r["startstops"]]
                    print(
                        f"    the call: {min(starts) - w0:.2f} s before the first task starts, "
                        f"{w1 - max(stops):.2f} s after the last one stops"
                    )
            if args.task_cpu:  # the same graph on the sync scheduler: the code's CPU without workers
                print(TaskCPU.table(TaskCPU.collect(client)))
                meter = TaskCPU()
                shutil.rmtree(out, ignore_errors=True)
                c0, t0 = os.times(), time.perf_counter()
                with meter.sync():
                    D.dedup_dataset(
                        paths, out, id_column="id", scratch=scratch, scheduler="sync", **dask_options
                    )
                c1 = os.times()
                print(
                    f"  sync scheduler here: {time.perf_counter() - t0:.1f} s, CPU {c1.user - c0.user:.1f} s "
                    f"user + {c1.system - c0.system:.1f} s system; load {os.getloadavg()[0]:.2f}"
                )
                print(TaskCPU.table(meter.acc))
            if whole is not None:
                one_out = os.path.join(args.folder, "one-out")
                shutil.rmtree(one_out, ignore_errors=True)
                os.makedirs(one_out)
                t0, c0 = time.perf_counter(), os.times()
                one = dedup_table(
                    whole,
                    id_column="id",
                    output=os.path.join(one_out, "kept.parquet"),
                    duplicates=os.path.join(one_out, "duplicates.parquet"),
                    **options,
                )  # the same job: kept rows and duplicates table written
                one_s.append(time.perf_counter() - t0)
                c1 = os.times()
                print(
                    f"  one process: CPU {c1.user - c0.user:.1f} s user + "
                    f"{c1.system - c0.system:.1f} s system"
                )
                same = one.k == res["k"] and len(one.duplicates) == res["dropped"]
                print(
                    f"  dask {dask_s[-1]:.1f} s | one process {one_s[-1]:.1f} s | "
                    f"dask / one {dask_s[-1] / one_s[-1]:.2f} "
                    f"(one process: {', '.join(f'{s} {v:.1f}' for s, v in one.timings.items())}); "
                    f"{one.found_by}; k {res['k']} / {one.k}, dropped {res['dropped']} / "
                    f"{len(one.duplicates)}, same decision: {same}; load {os.getloadavg()[0]:.2f}"
                )
    stop.set()
    import resource

    worker_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest worker
    wall = statistics.median(dask_s)
    print(res)
    print(
        f"{args.n:,} documents of {args.words} words, {args.parts} partitions, {args.workers} workers: "
        f"{wall:.1f} s wall (median of {len(dask_s)}), "
        f"{wall * args.workers / args.n * 1e6:.1f} us of worker time per document; "
        f"scratch (shuffle) peak {peak[0] / 1e6:.0f} MB ({peak[0] / args.n:.0f} B per document); "
        f"input {folder_bytes(data) / 1e6:.0f} MB, output {folder_bytes(out) / 1e6:.0f} MB; "
        f"largest worker's peak memory {worker_peak:.0f} MiB; "
        f"load after: {os.getloadavg()[0]:.2f}"
    )
    if one_s:
        ratio = statistics.median(d / o for d, o in zip(dask_s, one_s))
        print(
            f"one process (dedup_table, Numba threads) median {statistics.median(one_s):.1f} s; "
            f"dask / one process: {ratio:.2f} (median of per-run ratios)"
        )


if __name__ == "__main__":
    main()
