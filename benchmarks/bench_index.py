"""SimhashIndex against its peers, measured in one run; prints medians and ratios.

    .venv/bin/python benchmarks/bench_index.py            # the issue's figures (about a minute)
    .venv/bin/python benchmarks/bench_index.py --quick    # smaller sizes, a smoke run

Figures (issue 3):

1. 1M random 64-bit fingerprints, k = 3: one ``query`` against a NumPy brute-force scan
   ``np.nonzero(np.bitwise_count(fps ^ q) <= 3)`` (target >= 200x);
2. all pairs on 1M random fingerprints with planted near-duplicates (target < 2 s; build and pairs
   both timed);
3. build + all pairs on 20k fingerprints against the ``simhash`` package's ``SimhashIndex`` built
   from ``(str(i), Simhash(int_value))`` then ``get_near_dups`` for each (target >= 100x);
4. memory per fingerprint per table.

Every figure is a median over ``--repeats`` runs; the peer runs on the same data in the same process.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import time

import numba
import numpy as np

from simhash_lab.index import SimhashIndex

K = 3


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
        f"({numba.get_num_threads()} threads), numpy {np.__version__}, "
        f"Python {platform.python_version()}"
    )


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def interleaved(fns: dict, repeats: int) -> dict:
    """Median seconds of each function, run in turns so both see the same machine load."""
    times: dict = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def random_fps(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)


def plant_near_dups(rng: np.random.Generator, fps: np.ndarray, n_near: int) -> tuple[np.ndarray, np.ndarray]:
    """Replace the last ``n_near`` fingerprints by copies of others with 0..k bits flipped.

    Returns the fingerprints and, for each planted one, the id it was copied from.
    """
    out = fps.copy()
    n = fps.shape[0] - n_near
    src = rng.integers(0, n, size=n_near)
    near = out[src].copy()
    for i in range(n_near):
        for b in rng.choice(64, size=int(rng.integers(0, K + 1)), replace=False):
            near[i] ^= np.uint64(1) << np.uint64(b)
    out[n:] = near
    return out, src


def build(fps: np.ndarray) -> SimhashIndex:
    index = SimhashIndex(k=K, bits=64)
    index.add_many(fps)
    index.flush()
    return index


def verdict(ok: bool) -> str:
    return "meets the target" if ok else "MISSES the target"


def bench_query(rng, n: int, repeats: int) -> SimhashIndex:
    fps = random_fps(rng, n)
    build_s = median_time(lambda: build(fps), repeats)
    index = build(fps)
    stored = [int(x) for x in fps[rng.integers(0, n, size=500)]]
    fresh = [int(x) for x in random_fps(rng, 500)]
    queries = stored + fresh
    for q in queries[:10]:
        index.query(q)

    def ours():
        for q in queries:
            index.query(q)

    brute_q = [np.uint64(q) for q in stored[:25] + fresh[:25]]

    def brute():
        for q in brute_q:
            np.nonzero(np.bitwise_count(fps ^ q) <= K)

    med = interleaved({"ours": ours, "brute": brute}, 2 * repeats + 1)
    ours_s = med["ours"] / len(queries)
    brute_s = med["brute"] / len(brute_q)
    for q in stored[:50]:  # same answers
        want = np.nonzero(np.bitwise_count(fps ^ np.uint64(q)) <= K)[0]
        assert sorted(i for i, _ in index.query(q)) == want.tolist()
    ratio = brute_s / ours_s
    print(f"\n1. one query, {n:,} random fingerprints, k={K} (layout {index.layout}: {index.design.name})")
    print(f"   build (add_many + flush)       {build_s * 1e3:9.1f} ms")
    print(
        f"   SimhashIndex.query             {ours_s * 1e6:9.2f} us  (median of {2 * repeats + 1} "
        f"x {len(queries)} queries, half stored, half random)"
    )
    print(
        f"   NumPy brute force              {brute_s * 1e6:9.2f} us  "
        "np.nonzero(np.bitwise_count(fps ^ q) <= 3)"
    )
    print(f"   ratio                          {ratio:9.0f}x   target >= 200x: {verdict(ratio >= 200)}")
    return index


def bench_pairs(rng, n: int, repeats: int) -> None:
    n_near = n // 100
    fps, src = plant_near_dups(rng, random_fps(rng, n), n_near)
    build_s = median_time(lambda: build(fps), repeats)
    index = build(fps)
    pairs_s = median_time(index.pairs, repeats)
    total_s = median_time(lambda: build(fps).pairs(), repeats)
    pairs = index.pairs()
    found = {(int(i), int(j)) for i, j in pairs[:, :2]}
    planted = {(int(s), n - n_near + p) for p, s in enumerate(src)}
    assert planted <= found, "a planted near-duplicate was missed"
    print(f"\n2. all pairs, {n:,} random fingerprints with {n_near:,} planted near-duplicates, k={K}")
    print(f"   build                          {build_s:9.3f} s")
    print(f"   pairs()                        {pairs_s:9.3f} s   ({pairs.shape[0]:,} pairs)")
    print(f"   build + pairs()                {total_s:9.3f} s   target < 2 s: {verdict(total_s < 2.0)}")


def bench_simhash_package(rng, n: int, repeats: int) -> None:
    try:
        from simhash import Simhash
        from simhash import SimhashIndex as PeerIndex
    except ImportError:
        print("\n3. the `simhash` package is not installed: pip install simhash")
        return
    logging.getLogger("simhash").setLevel(logging.ERROR)
    fps, _ = plant_near_dups(rng, random_fps(rng, n), n // 20)
    values = [int(x) for x in fps]
    objs = [(str(i), Simhash(v)) for i, v in enumerate(values)]

    def peer():
        index = PeerIndex(objs, f=64, k=K)
        return [index.get_near_dups(s) for _, s in objs]

    def ours():
        return build(fps).pairs()

    peer_repeats = max(1, min(repeats, 3))
    med = interleaved({"peer": peer, "ours": ours}, peer_repeats)
    peer_s, ours_s = med["peer"], med["ours"]
    # the same near-duplicate pairs
    theirs = {(i, int(j)) for i, dups in enumerate(peer()) for j in dups if i < int(j)}
    mine = {(int(i), int(j)) for i, j, _ in ours()}
    assert theirs == mine, (len(theirs), len(mine))
    ratio = peer_s / ours_s
    print(f"\n3. build + all pairs, {n:,} fingerprints ({len(mine):,} pairs), k={K}")
    print(
        f"   simhash.SimhashIndex           {peer_s * 1e3:9.1f} ms  (build from (str(i), Simhash(v)), "
        f"then get_near_dups for each; median of {peer_repeats})"
    )
    print(f"   SimhashIndex add_many+pairs    {ours_s * 1e3:9.2f} ms  (median of {peer_repeats})")
    print(f"   ratio                          {ratio:9.0f}x   target >= 100x: {verdict(ratio >= 100)}")


def bench_memory(index: SimhashIndex) -> None:
    n, t = len(index), len(index.table_masks)
    rows = (index._tfps.nbytes + index._tids.nbytes) / (n * t)
    dirs = index._dirs.nbytes / (n * t)
    print(f"\n4. memory, {n:,} fingerprints, {t} tables ({index.design.name})")
    print(f"   per fingerprint per table      {rows:9.1f} B   (uint64 fingerprint + uint32 id)")
    print(f"   + bucket directory             {dirs:9.2f} B   (uint32 per bucket, 2**r buckets)")
    print(
        f"   whole index per fingerprint    {index.nbytes / n:9.1f} B   "
        "(tables + the uint64 fingerprint and alive flag by id)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n_big = 100_000 if args.quick else 1_000_000
    n_peer = 2_000 if args.quick else 20_000
    rng = np.random.default_rng(args.seed)
    print(f"machine: {machine()}")
    build(random_fps(rng, 5000)).pairs()  # compile / load the Numba cache outside the timings
    index = bench_query(rng, n_big, args.repeats)
    bench_pairs(rng, n_big, max(1, min(args.repeats, 3)))
    bench_simhash_package(rng, n_peer, args.repeats)
    bench_memory(index)


if __name__ == "__main__":
    main()
