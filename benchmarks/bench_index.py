"""SimhashIndex against its peers, measured side by side in one run; prints medians and ratios.

    .venv/bin/python benchmarks/bench_index.py             # every figure (15-30 minutes, 16M needs ~3 GB)
    .venv/bin/python benchmarks/bench_index.py --quick     # smaller sizes, a smoke run
    .venv/bin/python benchmarks/bench_index.py --only 4,5  # some sections

Sections (issues 3 and 17):

1. one ``query`` on 1M random fingerprints, k = 3, against a NumPy scan (README ratio);
2. all pairs on 1M random fingerprints with 1 % planted near-duplicates, k = 3 (README row);
3. build + all pairs on 20k fingerprints against the ``simhash`` package's ``SimhashIndex``;
4. k = 3, the all-pairs job (``add_many`` + ``pairs()``, what ``dedup`` does) from 1M to 16M, and
   the index build (``flush()``) + ``pairs()``: growth per doubling (target <= 2.5x);
5. k = 6 and k = 10 on 1M: ``pairs()`` against simhash-pybind's ``find_all`` (seomoz's C++ core) at
   each block count (targets: k = 6 <= 1.5 s; k = 10 <= 30 s and >= 5x ``find_all`` at its best);
6. dense output: time per pair as clusters grow (linear in the output);
7. 2 threads against 1 on the build, ``pairs()`` and ``query_many`` (target >= 1.4x);
8. memory: peak RSS of a whole process for 1M fingerprints, k = 3 (build + pairs) against
   ``find_all``'s; and the index's bytes per fingerprint.

Every figure is a median over ``--repeats`` runs; peers run on the same data in the same process,
alternating with ours. simhash-pybind installs as ``simhash`` and would shadow the ``simhash``
package, so it is loaded from a folder of its own::

    pip install --no-deps --target build/peers/simhash_pybind simhash-pybind
"""

from __future__ import annotations

import argparse
import glob
import importlib.machinery
import importlib.util
import logging
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np

from simhash_lab.index import SimhashIndex

ROOT = Path(__file__).resolve().parents[1]
PYBIND_DIR = ROOT / "build" / "peers" / "simhash_pybind"


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} logical cores, numba {numba.__version__} "
        f"({numba.get_num_threads()} threads), numpy {np.__version__}, Python {platform.python_version()}"
    )


def load() -> str:
    return f"load average {os.getloadavg()[0]:.2f}"


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cpu_time(fn, repeats: int) -> float:
    """Median CPU seconds of ``fn()`` on one Numba thread: the work, whatever else the machine runs."""
    numba.set_num_threads(1)
    try:
        times = []
        for _ in range(repeats):
            t = time.process_time()
            fn()
            times.append(time.process_time() - t)
        return statistics.median(times)
    finally:
        numba.set_num_threads(THREADS)


def median_time(fn, repeats: int, setup=None) -> float:
    """Median seconds of ``fn(setup())`` (or ``fn()``); ``setup`` is not timed."""
    times = []
    for _ in range(repeats):
        if setup is None:
            times.append(timed(fn))
        else:
            state = setup()
            times.append(timed(lambda state=state: fn(state)))
    return statistics.median(times)


def paired(fns: dict, repeats: int) -> dict:
    """Median seconds of each function, run in turns so that all see the same machine load, and the
    median per-turn ratio of each to the first."""
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(timed(fn))
    first = next(iter(fns))
    out = {name: statistics.median(ts) for name, ts in times.items()}
    out["ratio"] = {
        name: statistics.median(b / a for a, b in zip(times[first], ts)) for name, ts in times.items()
    }
    return out


def random_fps(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def plant(rng: np.random.Generator, fps: np.ndarray, n_near: int, k: int, min_flips: int = 0) -> np.ndarray:
    """Replace the last ``n_near`` fingerprints by copies of others with ``min_flips..k`` bits flipped."""
    out = fps.copy()
    n = fps.shape[0] - n_near
    src = rng.integers(0, n, size=n_near)
    flips = rng.integers(min_flips, k + 1, size=n_near)
    near = out[src].copy()
    for i in range(n_near):
        for b in rng.choice(64, size=int(flips[i]), replace=False):
            near[i] ^= np.uint64(1) << np.uint64(b)
    out[n:] = near
    return out


def built(fps: np.ndarray, k: int, layout="auto") -> SimhashIndex:
    index = SimhashIndex(k=k, layout=layout)
    index.add_many(fps)
    index.flush()
    return index


def pairs_job(fps: np.ndarray, k: int, layout="auto") -> np.ndarray:
    """The all-pairs job, as ``dedup`` runs it: add everything, ask for the pairs."""
    index = SimhashIndex(k=k, layout=layout)
    index.add_many(fps)
    return index.pairs()


def verdict(ok: bool) -> str:
    return "meets the target" if ok else "MISSES the target"


def find_all_module():
    """simhash-pybind's compiled module (``find_all``), or None."""
    for so in glob.glob(str(PYBIND_DIR / "simhash" / "_simhash*.so")):
        loader = importlib.machinery.ExtensionFileLoader("_simhash", so)
        spec = importlib.util.spec_from_file_location("_simhash", so, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod
    try:  # installed as `simhash` in this environment (shadowing the simhash package)
        from simhash import _simhash  # type: ignore[attr-defined]

        return _simhash
    except ImportError:
        return None


# -- 1-3: the README's rows ------------------------------------------------------------------------


def query_case(rng, n: int, k: int = 3):
    """(index, ours, brute, queries, brute queries): ``ours()`` asks the index built on ``n`` random
    fingerprints 1,000 queries (half stored, half random), ``brute()`` answers every 20th of them
    with a NumPy scan; the first 50 stored ones checked equal first."""
    fps = random_fps(rng, n)
    index = built(fps, k)
    stored = [int(x) for x in fps[rng.integers(0, n, size=500)]]
    queries = stored + [int(x) for x in random_fps(rng, 500)]
    brute_q = [np.uint64(q) for q in queries[::20]]

    def ours():
        for q in queries:
            index.query(q)

    def brute():
        for q in brute_q:
            np.nonzero(np.bitwise_count(fps ^ q) <= k)

    for q in stored[:50]:  # same answers
        want = np.nonzero(np.bitwise_count(fps ^ np.uint64(q)) <= k)[0]
        assert sorted(i for i, _ in index.query(q)) == want.tolist()
    return index, ours, brute, queries, brute_q


def bench_query(rng, n: int, repeats: int) -> None:
    k = 3
    index, ours, brute, queries, brute_q = query_case(rng, n, k)
    m = paired({"ours": ours, "brute": brute}, 2 * repeats + 1)
    ours_s, brute_s = m["ours"] / len(queries), m["brute"] / len(brute_q)
    ratio = m["ratio"]["brute"] * len(queries) / len(brute_q)
    print(f"\n1. one query, {n:,} random fingerprints, k={k} ({index.design.name})")
    print(f"   SimhashIndex.query             {ours_s * 1e6:9.2f} us  (half stored, half random)")
    print(
        f"   NumPy brute force              {brute_s * 1e6:9.2f} us  (nonzero(bitwise_count(fps ^ q) <= 3))"
    )
    print(f"   ratio (median of turns)        {ratio:9.0f}x   target >= 200x: {verdict(ratio >= 200)}")


def bench_pairs(rng, n: int, repeats: int) -> None:
    k = 3
    fps = plant(rng, random_fps(rng, n), n // 100, k)
    b = median_time(lambda: built(fps, k), repeats)
    p = median_time(lambda ix: ix.pairs(), repeats, setup=lambda: built(fps, k))
    job = median_time(lambda: pairs_job(fps, k), repeats)
    found = pairs_job(fps, k)
    print(f"\n2. all pairs, {n:,} random fingerprints with {n // 100:,} planted near-duplicates, k={k}")
    print(f"   build (add_many + flush)       {b:9.3f} s, then pairs() {p:7.3f} s ({found.shape[0]:,} pairs)")
    print(f"   add_many + pairs()             {job:9.3f} s   target < 2 s: {verdict(job < 2.0)}")


def bench_simhash_package(rng, n: int, repeats: int) -> None:
    try:
        from simhash import Simhash
        from simhash import SimhashIndex as PeerIndex
    except ImportError:
        print("\n3. the `simhash` package is not installed: pip install simhash")
        return
    logging.getLogger("simhash").setLevel(logging.ERROR)
    k = 3
    fps = plant(rng, random_fps(rng, n), n // 20, k)
    objs = [(str(i), Simhash(int(v))) for i, v in enumerate(fps)]

    def peer():
        index = PeerIndex(objs, f=64, k=k)
        return [index.get_near_dups(s) for _, s in objs]

    theirs = {(i, int(j)) for i, dups in enumerate(peer()) for j in dups if i < int(j)}
    mine = {(int(i), int(j)) for i, j, _ in pairs_job(fps, k)}
    assert theirs == mine, (len(theirs), len(mine))
    m = paired({"ours": lambda: pairs_job(fps, k), "peer": peer}, max(1, min(repeats, 3)))
    print(f"\n3. build + all pairs, {n:,} fingerprints ({len(mine):,} pairs), k={k}")
    print(f"   simhash.SimhashIndex           {m['peer'] * 1e3:9.1f} ms  (Simhash(v) objects, get_near_dups)")
    print(f"   SimhashIndex add_many+pairs    {m['ours'] * 1e3:9.2f} ms")
    ratio = m["ratio"]["peer"]
    print(f"   ratio                          {ratio:9.0f}x   target >= 100x: {verdict(ratio >= 100)}")


# -- 4: growth with n ------------------------------------------------------------------------------


def bench_growth(rng, sizes: list[int], repeats: int) -> None:
    k = 3
    print(f"\n4. k={k}: the all-pairs job and the index build as n doubles (1 % planted; {load()})")
    print("          n    add_many+pairs  growth   (1-thread CPU  growth)   flush+pairs  growth   layouts")
    prev = None
    for n in sizes:
        fps = plant(rng, random_fps(rng, n), n // 100, k)
        job = median_time(lambda fps=fps: pairs_job(fps, k), repeats)
        cpu = cpu_time(lambda fps=fps: pairs_job(fps, k), repeats)

        def flush_pairs(fps=fps):
            ix = built(fps, k)
            ix.pairs()
            return ix

        both = median_time(flush_pairs, repeats)
        ix = SimhashIndex(k=k)
        ix.add_many(fps)
        lay_pairs = _pairs_layout(ix)
        lay_index = built(fps, k).layout
        g1 = f"{job / prev[0]:5.2f}x" if prev else "      "
        g2 = f"{both / prev[1]:5.2f}x" if prev else "      "
        g3 = f"{cpu / prev[2]:5.2f}x" if prev else "      "
        print(
            f"   {n:>10,}    {job:9.3f} s  {g1}   ({cpu:8.3f} s  {g3})   {both:9.3f} s  {g2}   "
            f"{lay_pairs} / {lay_index}"
        )
        prev = (job, both, cpu)
        del fps, ix
    print(
        "   target: add_many + pairs() grows at most 2.5x per doubling; the layouts are those pairs() streams"
    )
    print("   and those flush() builds for queries (which may take more tables: queries 4-5x faster)")


def _pairs_layout(index: SimhashIndex):
    from simhash_lab.index.design import choose_layout

    return choose_layout(
        len(index), index.k, index.bits, "pairs", index._table_cap(), index._budget(), numba.get_num_threads()
    )[0]


# -- 5: large k against find_all ---------------------------------------------------------------------


def bench_large_k(rng, n: int, repeats: int, blocks: dict) -> None:
    fa = find_all_module()
    for k in sorted(blocks):
        # at least one bit flipped: distinct values, since find_all takes a set
        fps = plant(rng, random_fps(rng, n), n // 100, k, min_flips=1)
        values = {int(x) for x in fps}
        job = median_time(lambda fps=fps, k=k: pairs_job(fps, k), repeats)
        got = pairs_job(fps, k)
        ix = SimhashIndex(k=k)
        ix.add_many(fps)
        lay = _pairs_layout(ix)
        cpu1 = cpu_time(lambda fps=fps, k=k: pairs_job(fps, k), max(1, repeats // 2))
        print(f"\n5. k={k}, {n:,} fingerprints ({got.shape[0]:,} pairs; {load()})")
        print(
            f"   SimhashIndex add_many+pairs()  {job:9.3f} s with {THREADS} threads; {cpu1:7.3f} s CPU on 1"
        )
        print(f"   (streamed tables: {lay})")
        if k == 6:
            print(f"   target <= 1.5 s: {verdict(job <= 1.5)}")
        if fa is None:
            print("   simhash-pybind not found: see this script's docstring")
            continue
        mine = {(min(int(fps[i]), int(fps[j])), max(int(fps[i]), int(fps[j]))) for i, j, _ in got}
        best = best_cpu = None
        for b in blocks[k]:  # one run each: find_all is slow (one thread)
            t0, c0 = time.perf_counter(), time.process_time()
            found = fa.find_all(values, b, k)
            t, cpu = time.perf_counter() - t0, time.process_time() - c0
            assert {(min(x, y), max(x, y)) for x, y in found} == mine, (b, len(found), len(mine))
            print(f"   find_all(blocks={b:2d})           {t:9.3f} s ({cpu:7.3f} s CPU): {t / job:5.1f}x ours")
            best = t if best is None else min(best, t)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        print(
            f"   ratio to find_all at its best  {best / job:9.1f}x wall ({THREADS} threads), "
            f"{best_cpu / cpu1:.1f}x CPU (1 thread each)"
        )
        if k == 10:
            print(f"   target <= 30 s and >= 5x: {verdict(job <= 30 and best / job >= 5)}")


# -- 6: dense output -------------------------------------------------------------------------------


def bench_dense(rng, n: int, repeats: int) -> None:
    k = 3
    print(f"\n6. dense output: {n:,} fingerprints in clusters of s copies with 0-2 bits flipped, k={k}")
    print("        s        pairs     pairs()   ns per pair")
    for s in (1, 4, 16, 64):
        centres = random_fps(rng, n // s)
        fps = np.repeat(centres, s)
        for _ in range(2):
            flip = rng.integers(0, 64, fps.shape[0]).astype(np.uint64)
            fps ^= (np.uint64(1) << flip) * (rng.random(fps.shape[0]) < 0.5)
        fps = rng.permutation(fps)
        t = median_time(lambda fps=fps: pairs_job(fps, k), repeats)
        m = pairs_job(fps, k).shape[0]
        print(f"   {s:6d} {m:12,}   {t:8.3f} s   {t / max(m, 1) * 1e9:8.1f}")


# -- 7: threads ------------------------------------------------------------------------------------


def bench_threads(rng, n: int, repeats: int) -> None:
    if THREADS < 2:
        print("\n7. one thread only: nothing to compare")
        return
    k = 3
    fps = plant(rng, random_fps(rng, n), n // 100, k)
    qs = random_fps(rng, 200_000)
    index = built(fps, k, ("permuted", 5))

    def with_threads(t, fn):
        def run():
            numba.set_num_threads(t)
            try:
                fn()
            finally:
                numba.set_num_threads(THREADS)

        return run

    def unbuilt():
        ix = SimhashIndex(k=k, layout=("permuted", 5))
        ix.add_many(fps)
        return ix

    cases = {
        "build (flush, 10 tables)": lambda: unbuilt().flush(),
        "pairs() (add_many + pairs)": lambda: pairs_job(fps, k),
        "query_many (200k)": lambda: index.query_many(qs, return_arrays=True),
    }
    print(f"\n7. {THREADS} threads against 1, {n:,} fingerprints, k={k} ({load()})")
    for name, fn in cases.items():
        m = paired({"1": with_threads(1, fn), "2": with_threads(THREADS, fn)}, repeats)
        speedup = 1 / m["ratio"]["2"]
        print(
            f"   {name:28s} 1 thread {m['1']:7.3f} s, {THREADS} threads {m['2']:7.3f} s: "
            f"{speedup:4.2f}x   target >= 1.4x: {verdict(speedup >= 1.4)}"
        )


# -- 8: memory -------------------------------------------------------------------------------------

# Peak resident memory of the process after exec (VmHWM; ru_maxrss would include the parent's
# pages before exec), in KiB, after the imports and data and at the end.
_HWM = "int([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])"
_RSS_OURS = f"""
import numpy as np
from simhash_lab.index import SimhashIndex
fps = np.random.default_rng(0).integers(0, 2**64, {{n}}, dtype=np.uint64, endpoint=False)
small = SimhashIndex(k=3)
small.add_many(fps[:300_000])
small.pairs()  # loads the compiled kernels (Numba's first load costs about 60 MiB)
del small
base = {_HWM}
index = SimhashIndex(k=3)
index.add_many(fps)
p = index.pairs()
print(base, {_HWM})
"""
_RSS_PEER = f"""
import sys, numpy as np
sys.path.insert(0, {{path!r}})
from simhash import _simhash
fps = np.random.default_rng(0).integers(0, 2**64, {{n}}, dtype=np.uint64, endpoint=False)
values = set(fps.tolist())
base = {_HWM}
pairs = _simhash.find_all(values, 6, 3)
print(base, {_HWM})
"""


def _peak_rss(code: str) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    base, peak = map(int, out.stdout.split())
    return base / 1024, peak / 1024


def bench_memory(rng, n: int) -> None:
    base, peak = _peak_rss(_RSS_OURS.format(n=n))
    print(f"\n8. memory, {n:,} random fingerprints, k=3: peak RSS of a whole process (MiB)")
    print(f"   ours: add_many + pairs()       {peak:7.0f} MiB  (after imports, data, kernels: {base:.0f})")
    if (PYBIND_DIR / "simhash").exists():
        pbase, ppeak = _peak_rss(_RSS_PEER.format(n=n, path=str(PYBIND_DIR)))
        print(f"   find_all(set, 6, 3)            {ppeak:7.0f} MiB  (after imports and the set: {pbase:.0f})")
    index = built(random_fps(rng, n), 3)
    t = len(index.table_masks)
    rows = (index._tfps.nbytes + index._tids.nbytes) / (n * t)
    dirs = index._dirs.nbytes / (n * t)
    print(f"   index for queries: {t} tables ({index.design.name})")
    print(f"   per fingerprint per table      {rows:9.1f} B   (uint64 fingerprint + uint32 id)")
    print(f"   + bucket directory             {dirs:9.2f} B   (uint32 per bucket, 2**r buckets)")
    print(f"   whole index per fingerprint    {index.nbytes / n:9.1f} B   (tables + fingerprint, alive flag)")


THREADS = numba.get_num_threads()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="1,2,3,4,5,6,7,8", help="sections to run, e.g. 4,5")
    parser.add_argument("--max-n", type=int, default=16_000_000, help="largest n of section 4")
    parser.add_argument(
        "--blocks-k10",
        type=lambda s: [int(b) for b in s.split(",")],
        default=[13, 14],
        help="find_all block counts at k = 10 (12 takes about half an hour here)",
    )
    args = parser.parse_args()
    only = {int(s) for s in args.only.split(",")}
    n_big = 100_000 if args.quick else 1_000_000
    rng = np.random.default_rng(args.seed)
    print(f"machine: {machine()}; {load()}")
    pairs_job(random_fps(rng, 300_000), 3)  # compile / load the Numba cache outside the timings
    built(random_fps(rng, 5000), 3).pairs()
    if 1 in only:
        bench_query(rng, n_big, args.repeats)
    if 2 in only:
        bench_pairs(rng, n_big, args.repeats)
    if 3 in only:
        bench_simhash_package(rng, 2_000 if args.quick else 20_000, args.repeats)
    if 4 in only:
        top = min(args.max_n, 800_000 if args.quick else args.max_n)
        sizes = [n_big // 8 if args.quick else 1_000_000]
        while sizes[-1] * 2 <= top:
            sizes.append(sizes[-1] * 2)
        bench_growth(rng, sizes, args.repeats)
    if 5 in only:
        # Block counts tried: on 2026-12-01 here (1M, load 4-7) find_all took 237 s with 7 blocks and
        # 12-24 s with 8 or 9 at k = 6; 1617 s with 12 blocks, 286 s with 13 at k = 10 (--blocks-k10).
        blocks = {6: [8, 9], 10: args.blocks_k10} if not args.quick else {6: [8], 10: [12]}
        bench_large_k(rng, 50_000 if args.quick else n_big, args.repeats, blocks)
    if 6 in only:
        bench_dense(rng, n_big, args.repeats)
    if 7 in only:
        bench_threads(rng, n_big, max(3, args.repeats))
    if 8 in only:
        bench_memory(rng, n_big)
    print(f"\n{load()}")


if __name__ == "__main__":
    main()
