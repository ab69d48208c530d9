"""Measure the constants of SimhashIndex's cost model (``simhash_lab/index/design.py``) on this machine.

    .venv/bin/python benchmarks/calibrate_index.py            # a few minutes
    .venv/bin/python benchmarks/calibrate_index.py --quick    # smaller sizes

Every figure is one core's time (Numba set to one thread; the CPU time of this process, which a
busy machine disturbs less than the wall clock), the median of ``--repeats`` runs, on uniformly random
64-bit fingerprints. Each constant is fitted by least squares over several designs and sizes, the
way the model uses it (``b_t``: the mean bucket size of table ``t``, ``r``: the directory bits):

* query (``query_many``'s serial kernel, per query): ``Q_CALL + T Q_TABLE + Q_CAND sum(b_t)``; a
  scan: ``Q_CALL + Q_SCAN n``;
* build (one table): ``B_ENTRY n + B_BUCKET 2**r``;
* pairs over built tables: ``sum_t n (P_ENTRY + P_GROUP g(b_t) + P_CMP b_t / 2)`` with
  ``g(b) = (1 - exp(-b)) / b`` non-empty buckets per entry; the scan: ``P_SCAN n (n - 1) / 2``;
* then the model's estimate of a streamed ``pairs()`` (build + pairs) against its measurement.

It prints each fit and its residuals; the constants go into ``design.py`` with the date and load.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time

import numba
import numpy as np

from simhash_lab.index import SimhashIndex
from simhash_lab.index.design import dir_bits, layout_design, layout_tables, two_passes
from simhash_lab.index.table import _dir_runs, _new_tables
from simhash_lab.kernels import index as K


def cpu_median(fn, repeats: int) -> float:
    """Median CPU seconds of ``fn()`` (this process, one Numba thread)."""
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def fit(rows: list[tuple[list[float], float]], names: list[str]) -> dict[str, float]:
    """Least squares ``y = sum(c_i x_i)`` over ``rows`` of (x, y); prints the fit and residuals."""
    x = np.array([r[0] for r in rows], float)
    y = np.array([r[1] for r in rows], float)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    pred = x @ coef
    for (_, yi), pi in zip(rows, pred):
        print(f"      measured {yi:10.1f} ns   model {pi:10.1f} ns   ({100 * (pi - yi) / yi:+5.0f} %)")
    out = dict(zip(names, coef))
    print("    => " + ", ".join(f"{k} = {v:.3g}" for k, v in out.items()))
    return out


def random_fps(rng, n: int) -> np.ndarray:
    return rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)


def built(fps: np.ndarray, k: int, layout) -> SimhashIndex:
    index = SimhashIndex(k=k, layout=layout)
    index.add_many(fps)
    index.flush()
    return index


def buckets(n: int, key_bits) -> tuple[int, float]:
    """Directory bits and sum of the mean bucket sizes of tables keyed on ``key_bits``."""
    r = dir_bits(n, min(key_bits))
    return r, sum(n / 2.0 ** min(p, r) for p in key_bits)


QUERY_DESIGNS = [
    (3, ("permuted", 4)),
    (3, ("permuted", 5)),
    (3, ("permuted", 6)),
    (3, ("nested", 4, 4)),
    (6, ("permuted", 7)),
    (6, ("permuted", 8)),
    (2, ("permuted", 3)),
    (1, ("permuted", 2)),
]


def calibrate_queries(rng, n: int, repeats: int) -> None:
    print(f"\nquery_many, serial kernel, {n:,} fingerprints, 20,000 queries (ns per query)")
    fps = random_fps(rng, n)
    qs = np.concatenate([fps[:10_000], random_fps(rng, 10_000)])
    rows = []
    for k, layout in QUERY_DESIGNS:
        index = built(fps, k, layout)
        d = index.design
        _, b = buckets(n, d.key_bits)
        index.query_many(qs[:100])
        ns = cpu_median(lambda ix=index: ix.query_many(qs, return_arrays=True), repeats) / qs.shape[0] * 1e9
        print(f"    k={k} {d.name[:60]:60s} T={d.tables:3d} bucket entries {b:9.1f}")
        rows.append(([1.0, d.tables, b], ns))
    fit(rows, ["Q_CALL", "Q_TABLE", "Q_CAND"])
    scan = SimhashIndex(k=3, layout="scan")
    scan.add_many(fps[: n // 4])
    ns = cpu_median(lambda: scan.query_many(qs[:200], return_arrays=True), repeats) / 200 * 1e9
    print(f"    scan of {n // 4:,}: {ns:.0f} ns per query => Q_SCAN = {ns / (n // 4):.3g}")


def calibrate_build(rng, sizes: list[int], repeats: int) -> None:
    print("\nbuild, one table, serial kernel (ns per table)")
    rows = []
    for n in sizes:
        fps = random_fps(rng, n)
        ids = np.arange(n, dtype=np.uint32)
        for layout, k in [(("permuted", 4), 3), (("permuted", 5), 3), (("permuted", 8), 6)]:
            masks = np.array(layout_tables(layout, k, 64)[0], np.uint64)
            r = dir_bits(n, min(int(m).bit_count() for m in masks))
            druns = _dir_runs(masks, r)

            out = _new_tables(1, n, r)
            scratch = (np.empty(n, np.uint32), np.empty(n, np.uint32))

            two = two_passes(n, r)

            def run(fps=fps, ids=ids, druns=druns, r=r, out=out, scratch=scratch, two=two):
                return K.build_tables_kernel(fps, ids, druns, r, 0, *out, *scratch, two, 0, 1)

            run()
            ns = cpu_median(run, repeats) * 1e9
            print(f"    n={n:>9,} {layout!s:16s} r={r:2d}: {ns / n:6.1f} ns/entry")
            rows.append(([n, 2.0**r], ns))
    fit(rows, ["B_ENTRY", "B_BUCKET"])


def calibrate_pairs(rng, sizes: list[int], repeats: int) -> None:
    print("\npairs over built tables, serial kernels (ns per pairs() call)")
    rows = []
    for n in sizes:
        fps = random_fps(rng, n)
        for k, layout in [
            (3, ("permuted", 4)),
            (3, ("permuted", 5)),
            (6, ("permuted", 7)),
            (6, ("permuted", 8)),
        ]:
            index = built(fps, k, layout)
            d = index.design
            r, b = buckets(n, d.key_bits)
            groups = 0.0
            for p in d.key_bits:
                bt = n / 2.0 ** min(p, r)
                groups += n * -math.expm1(-bt) / bt
            index._pairs_stored()
            ns = cpu_median(index._pairs_stored, repeats) * 1e9
            per = ns / (d.tables * n)
            print(
                f"    n={n:>9,} k={k} T={d.tables:2d} {per:6.1f} ns/entry/table, {n * b / 2:.3g} comparisons"
            )
            rows.append(([d.tables * n, groups, n * b / 2], ns))
    fit(rows, ["P_ENTRY", "P_GROUP", "P_CMP"])
    rows = []
    for n in (5_000, 20_000, 40_000):
        fps = random_fps(rng, n)
        index = SimhashIndex(k=3, layout="scan")
        index.add_many(fps)
        index._pairs_streamed("scan")
        ns = cpu_median(lambda ix=index: ix._pairs_streamed("scan"), repeats) * 1e9
        rows.append(([n * (n - 1) / 2], ns))
        print(f"    scan pairs of {n:,}: {ns / (n * (n - 1) / 2):.3f} ns per comparison")
    fit(rows, ["P_SCAN"])


def check_stream(rng, n: int, repeats: int) -> None:
    print(
        f"\nstreamed pairs() (build + pairs, dropped), serial, {n:,} fingerprints: model against measurement"
    )
    fps = random_fps(rng, n)
    for k, layout in [
        (3, ("permuted", 4)),
        (3, ("permuted", 5)),
        (6, ("permuted", 8)),
        (10, ("permuted", 12)),
    ]:
        index = SimhashIndex(k=k)
        index.add_many(fps)
        index._pairs_streamed(layout)
        ns = cpu_median(lambda ix=index, lay=layout: ix._pairs_streamed(lay), repeats) * 1e9
        d = layout_design(layout, n, k, 64)
        model = d.est_build_ns + d.est_pairs_ns
        print(f"    k={k:2d} {d.name[:48]:48s} measured {ns / 1e6:9.1f} ms, model {model / 1e6:9.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    numba.set_num_threads(1)
    rng = np.random.default_rng(0)
    print(f"one Numba thread; load average {os.getloadavg()[0]:.2f}")
    big = 250_000 if args.quick else 1_000_000
    sizes = [100_000, 250_000] if args.quick else [250_000, 1_000_000, 4_000_000]
    calibrate_queries(rng, big, args.repeats)
    calibrate_build(rng, sizes, args.repeats)
    calibrate_pairs(rng, sizes, args.repeats)
    check_stream(rng, big, args.repeats)
    print(f"\nload average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
