"""Fingerprinting and Hamming speed, each side by side with a peer in the same process.

Run: ``make bench`` (or ``python benchmarks/bench_fingerprint.py [--quick]``). Prints medians over
repeats and the ratios the issue asks for; timings are noisy on shared machines, ratios less so.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

import numba
import numpy as np
import simhash as leonsim  # the `simhash` package on PyPI, the peer

from _corpus import documents
from simhash_lab import Simhasher, hamming, presets
from simhash_lab.tokenize import words


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cold_start() -> float:
    """Seconds for a new process to import simhash_lab and fingerprint one text (cache warm)."""
    code = ("import time; t = time.perf_counter(); from simhash_lab import Simhasher; "
            "Simhasher().fingerprint('hello world'); print(time.perf_counter() - t)")
    out = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(3)]
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    args = ap.parse_args()
    n_docs, repeat = (2000, 3) if args.quick else (10000, 5)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
          f"simhash (PyPI) {getattr(leonsim, '__version__', '2.x')}")

    docs = documents(n_docs, 200)
    feats = [words()(d) for d in docs]
    n_tokens = sum(map(len, feats))
    h = Simhasher()
    h.fingerprints(docs[:100])  # compile / load the cache
    threads = numba.get_num_threads()

    numba.set_num_threads(1)
    t_one = median_time(lambda: h.fingerprints(docs, parallel=False), repeat)
    numba.set_num_threads(threads)
    t_all = median_time(lambda: h.fingerprints(docs, parallel=True), repeat)
    sub = feats[: max(200, n_docs // 10)]
    sub_tokens = sum(map(len, sub))
    t_peer = median_time(lambda: [leonsim.Simhash(f).value for f in sub], max(1, repeat // 2))
    peer_tps = sub_tokens / t_peer
    print(f"\n1. default Simhasher().fingerprints, {n_docs} docs of 200 words ({n_tokens} tokens)")
    print(f"   ours, 1 thread : {n_tokens / t_one / 1e6:8.1f} M tokens/s")
    print(f"   ours, {threads} threads: {n_tokens / t_all / 1e6:8.1f} M tokens/s")
    print(f"   simhash package, same word features: {peer_tps / 1e6:8.3f} M tokens/s")
    print(f"   ratio (1 thread / package): {n_tokens / t_one / peer_tps:6.1f}x   (target >= 40x)")

    ld = docs[: max(500, n_docs // 10)]
    ours = presets.LEONSIM.fingerprints(ld)
    theirs = np.array([leonsim.Simhash(d).value for d in ld], dtype=np.uint64)
    same = bool(np.array_equal(ours, theirs))
    numba.set_num_threads(1)
    t_l1 = median_time(lambda: presets.LEONSIM.fingerprints(ld, parallel=False), repeat)
    numba.set_num_threads(threads)
    t_la = median_time(lambda: presets.LEONSIM.fingerprints(ld, parallel=True), repeat)
    t_lp = median_time(lambda: [leonsim.Simhash(d).value for d in ld], max(1, repeat // 2))
    print(f"\n2. presets.LEONSIM.fingerprints vs simhash.Simhash(text).value, {len(ld)} docs")
    print(f"   identical values: {same}")
    print(f"   ours 1 thread {len(ld) / t_l1:9.0f} docs/s, {threads} threads {len(ld) / t_la:9.0f} "
          f"docs/s; package {len(ld) / t_lp:7.0f} docs/s")
    print(f"   ratio (1 thread / package): {t_lp / t_l1:6.1f}x   (target >= 10x)")

    n = 10_000_000 if not args.quick else 2_000_000
    a = np.random.default_rng(0).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    q = np.uint64(0x0123456789ABCDEF)
    assert np.array_equal(hamming(a, q), np.bitwise_count(a ^ q))
    t_h = median_time(lambda: hamming(a, q), repeat * 2)
    t_np = median_time(lambda: np.bitwise_count(a ^ q), repeat * 2)
    print(f"\n3. hamming(array of {n:,}, scalar) vs np.bitwise_count(a ^ q)")
    print(f"   ours {n / t_h / 1e9:5.2f} G/s, numpy {n / t_np / 1e9:5.2f} G/s, "
          f"ratio {t_np / t_h:5.1f}x   (target >= 3x)")

    print(f"\n4. new process, import + first fingerprint (Numba cache warm): {cold_start():.2f} s "
          "(target < 2 s)")


if __name__ == "__main__":
    main()
