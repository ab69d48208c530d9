"""Where ``Shingler(3).sets`` spends its time, phase by phase (one thread, CPU time, medians).

Run: ``python benchmarks/profile_shingles.py [--rows 20000]``. ``staged`` is
``kernels.verify.shingle_hashes_str`` as of 2026-12-02 cut short after each phase (scan: lowercase
and tokenize in place; join: the words copied, one space between; class scatter: shingle numbers
into XXH3's size classes; hash; sort; dedupe); each phase's figure is the difference between two
cuts. Its last stage is checked equal to ``Shingler(3).sets`` first, so a kernel that has moved on
shows here as a failed check, not as wrong figures. "rest" is what ``Shingler.sets`` adds (the
views of the strings, the scratch's first touch, the CSR arrays, Python).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numba
import numpy as np
from _corpus import documents
from numba import njit

from simhash_lab.kernels.hashes import read64, write64, xxh3_9to16_inline, xxh3_17to128_inline, xxh3_64
from simhash_lab.kernels.sort import sort_hashes
from simhash_lab.kernels.strings import str_views, unit_bytes
from simhash_lab.kernels.tokenize import lower_tokenize_str
from simhash_lab.shingles import Shingler


@njit
def staged(ptrs, lens, kinds, p, n, scratch, counts, stage):
    ndocs = ptrs.shape[0]
    tok = np.empty(1 << 16, dtype=np.uint8)
    pos = np.empty(1 << 15, dtype=np.int64)
    joined = np.empty(1 << 17, dtype=np.uint8)
    ws = np.empty(1 << 15, dtype=np.int64)
    most = 1 << 14
    tmp = np.empty(most, dtype=np.uint64)
    count = np.empty(2 * most + 1, np.int64)
    order = np.empty(3 * most, np.int64)
    w = 0
    acc = np.uint64(0)
    for d in range(ndocs):
        data = unit_bytes(ptrs[d], lens[d], kinds[d])
        nflips, fl = lower_tokenize_str(data, lens[d], kinds[d], p, tok, pos)
        ntok = nflips // 2
        if stage == 1 or ntok == 0:
            acc += np.uint64(ntok)
            continue
        o = np.int64(0)
        for t in range(ntok):
            ws[t] = o
            s = pos[2 * t]
            ln = pos[2 * t + 1] - s
            write64(joined, o, read64(tok, s))
            write64(joined, o + 8, read64(tok, s + 8))
            for q in range(16, ln, 8):
                write64(joined, o + q, read64(tok, s + q))
            o += ln
            joined[o] = 32
            o += 1
        ws[ntok] = o
        if stage == 2:
            acc += np.uint64(joined[o // 2])
            continue
        m = max(ntok - n + 1, 1)
        s0 = w
        c9, c17, cx = 0, m, 2 * m
        for i in range(m):
            ln = ws[min(i + n, ntok)] - 1 - ws[i]
            order[c9] = i
            order[c17] = i
            order[cx] = i
            mid = (ln > 16) & (ln <= 128)
            short = (ln > 8) & (ln <= 16)
            c9 += short
            c17 += mid
            cx += 1 - (short | mid)
        if stage == 3:
            acc += np.uint64(c9 + c17 + cx)
            continue
        h = s0
        for k in range(0, c9):
            i = order[k]
            scratch[h] = xxh3_9to16_inline(joined, ws[i], ws[min(i + n, ntok)] - 1)
            h += 1
        for k in range(m, c17):
            i = order[k]
            scratch[h] = xxh3_17to128_inline(joined, ws[i], ws[min(i + n, ntok)] - 1)
            h += 1
        for k in range(2 * m, cx):
            i = order[k]
            scratch[h] = xxh3_64(joined, ws[i], ws[min(i + n, ntok)] - 1)
            h += 1
        if stage == 4:
            w += m
            continue
        out = scratch[s0 : s0 + m]
        sort_hashes(out, tmp, count, m)
        if stage == 5:
            w += m
            continue
        u = 1
        last = out[0]
        for j in range(1, m):
            x = out[j]
            out[u] = x
            u += x != last
            last = x
        counts[d] = u
        w += u
    return w + acc


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=20_000, help="rows of 100 words")
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    numba.set_num_threads(1)
    docs = documents(args.rows, 100)
    sh = Shingler(3)
    p = sh.tokenizer.pipeline
    ptrs, lens, kinds = str_views(docs)
    scratch = np.empty(int(lens.sum()) + 1, np.uint64)
    counts = np.zeros(len(docs), np.int64)
    nsh = sum(max(len(d.split()) - 2, 1) for d in docs)
    stages = (1, 2, 3, 4, 5, 6)
    for st in stages:
        staged(ptrs, lens, kinds, p, 3, scratch, counts, st)
    ind, dat = sh.sets(docs)
    assert np.array_equal(np.diff(ind), counts) and np.array_equal(scratch[: dat.size], dat)
    times = {st: [] for st in (0, *stages)}
    for _ in range(args.repeat):
        for st in stages:
            t = time.process_time()
            staged(ptrs, lens, kinds, p, 3, scratch, counts, st)
            times[st].append(time.process_time() - t)
        t = time.process_time()
        sh.sets(docs)
        times[0].append(time.process_time() - t)
    med = {k: statistics.median(v) / nsh * 1e9 for k, v in times.items()}
    print(f"Shingler(3).sets, {args.rows:,} rows of 100 words ({nsh:,} shingles), 1 thread, ns per shingle; "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    prev = 0.0
    names = ("scan (lower + tokenize)", "join", "class scatter", "hash (XXH3)", "sort", "dedupe")
    for st, name in zip(stages, names):
        print(f"   {name:24s} {med[st] - prev:5.1f}")
        prev = med[st]
    print(f"   {'rest (Shingler.sets)':24s} {med[0] - prev:5.1f}\n   {'total':24s} {med[0]:5.1f}")


if __name__ == "__main__":
    main()
