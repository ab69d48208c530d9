"""Where the fused first pass's time goes (``kernels.fused.words_pass``), stage by stage, one thread.

    .venv/bin/python benchmarks/profile_fused.py --rows 100000 --repeats 5

The pass over the rows of ``bench_dedup.py --rows N``'s generated JSONL (``bench_fused.rows``) cut
short after each stage, the stages being the helpers ``words_pass`` calls, in its order: the
lowercase and token scan (``tokenize.lower_tokenize_str``); the tokens joined and each shingle
hashed (``verify.str_shingle_hashes``); the distinct ones (``vote.dedupe_in``); the vote
(``count_bits``, ``fold_counts``); the band keys (``candidates.band_keys``). Each line is the
CPU time up to and including its stage (medians), in ns per shingle (repeats included), so the
difference of two lines is a stage's cost; then the whole ``Shingler.first_pass`` (the Python
layer's share: views, scratch, outputs). A probe compiled here with plain ``numba.njit``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(__file__))

from bench_dedup import cpu_info, load  # noqa: E402
from bench_fused import rows  # noqa: E402

from simhash_lab.candidates import BandKeys  # noqa: E402
from simhash_lab.kernels.candidates import band_keys  # noqa: E402
from simhash_lab.kernels.strings import str_views, unit_bytes  # noqa: E402
from simhash_lab.kernels.tokenize import lower_tokenize_str  # noqa: E402
from simhash_lab.kernels.verify import str_shingle_hashes  # noqa: E402
from simhash_lab.kernels.vote import count_bits, dedupe_in, fold_counts, table_size  # noqa: E402
from simhash_lab.shingles import CHUNK_ROWS, FusedScratch, Shingler  # noqa: E402

STAGES = [
    "scan: lowercase, tokens",
    "+ join, XXH3 of each shingle",
    "+ distinct (table)",
    "+ vote",
    "+ band keys (all of words_pass but the digest)",
]


@njit(nogil=True)
def upto(stage, ptrs, lens, kinds, p, n, probe, bands, rows, fps, keys, tok, pos, joined, ws, order, hs,
         table, tmp, count, sig, acc, ip):  # fmt: skip
    ip[0] = 0
    total = 0
    for d in range(ptrs.shape[0]):
        data = unit_bytes(ptrs[d], lens[d], kinds[d])
        if stage == 0:
            total += lower_tokenize_str(data, lens[d], kinds[d], p, tok, pos)[0]
            continue
        m, _ = str_shingle_hashes(data, lens[d], kinds[d], p, n, tok, pos, joined, ws, order, hs, 0)
        if stage == 1:
            total += m
            continue
        u = dedupe_in(hs, m, table, table_size(m)) if m > 0 else 0
        if stage == 2:
            total += u
            continue
        acc[:] = 0
        count_bits(hs, u, acc)
        fps[d] = fold_counts(acc, u, 64)
        if stage == 3:
            continue
        ip[1] = u
        band_keys(ip, hs, bands, rows, d, sig, keys, probe)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data-dir", default="/tmp/simhash-lab-bench")
    args = ap.parse_args()
    texts = rows(args.rows, args.data_dir)
    chunks = [texts[i : i + CHUNK_ROWS] for i in range(0, len(texts), CHUNK_ROWS)]
    sh, km = Shingler(3), BandKeys(0.8, 0.99)
    tk = sh.tokenizer
    shingles = int(sum(max(len(t.split()) - 2, 1) if t.split() else 0 for t in texts))
    views = [str_views(c) for c in chunks]
    scratch = FusedScratch()
    for _, lens, kinds in views:
        scratch.fit(lens, kinds, km.bands * km.rows)
    fps = np.zeros(CHUNK_ROWS, np.uint64)
    keys = np.empty((km.bands, CHUNK_ROWS), np.uint64)

    def stage(s: int) -> None:
        for ptrs, lens, kinds in views:
            upto(
                s,
                ptrs,
                lens,
                kinds,
                tk.pipeline,
                tk.n,
                km.probe,
                km.bands,
                km.rows,
                fps,
                keys,
                *scratch.arrays,
            )

    def whole() -> None:
        for c in chunks:
            sh.first_pass(c, km)

    calls = {i: (lambda i=i: stage(i)) for i in range(len(STAGES))}
    calls[len(STAGES)] = whole
    names = [*STAGES, "Shingler.first_pass (the Python layer too)"]
    print(f"{cpu_info()}; load {load():.2f}; {len(texts)} rows, {shingles} shingles")
    for f in calls.values():
        f()
    times: dict = {i: [] for i in calls}
    for _ in range(args.repeats):
        for i, f in calls.items():
            t0 = time.process_time()
            f()
            times[i].append(time.process_time() - t0)
    for i, name in enumerate(names):
        m = statistics.median(times[i])
        print(f"{name:<48} {m:6.3f} s  {1e9 * m / shingles:5.1f} ns/shingle")
    print(f"load after {load():.2f}")


if __name__ == "__main__":
    main()
