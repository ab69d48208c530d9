"""Fingerprinting and Hamming speed, each side by side with a peer in the same process.

Run: ``make bench`` (or ``python benchmarks/bench_fingerprint.py [--quick] [--clock cpu]``). Prints
medians over repeats and the ratios the issue asks for; timings are noisy on shared machines, ratios
less so. ``--clock cpu`` times the one-thread comparisons in this process's CPU time instead of
wall time: on a machine shared with other work it is what moves least (multi-thread figures are
always wall time).
"""

from __future__ import annotations

import argparse
import functools
import glob
import importlib.machinery
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numba
import numpy as np
import simhash as leonsim  # the `simhash` package on PyPI, the peer
from _corpus import documents

from simhash_lab import Simhasher, hamming, presets
from simhash_lab.tokenize import words

CLOCK = [time.perf_counter]  # the one-thread comparisons' clock (--clock)

# simhash-pybind installs as `simhash` (shadowing the `simhash` package above), so it is loaded
# from a folder of its own: pip install --no-deps --target build/peers/simhash_pybind simhash-pybind
PYBIND_DIR = Path(__file__).resolve().parents[1] / "build" / "peers" / "simhash_pybind"


def pybind_compute():
    """simhash-pybind's ``compute`` (a list of 64-bit hashes -> fingerprint), or None."""
    for so in glob.glob(str(PYBIND_DIR / "simhash" / "_simhash*.so")):
        loader = importlib.machinery.ExtensionFileLoader("_simhash", so)
        spec = importlib.util.spec_from_file_location("_simhash", so, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        return mod.compute
    return None


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def alternating(fns, repeat: int) -> list[list[float]]:
    """Each of ``fns`` timed once per round, in turn, ``repeat`` rounds: the times of each."""
    clock = CLOCK[0]
    out = [[] for _ in fns]
    for _ in range(repeat):
        for fn, times in zip(fns, out):
            t = clock()
            fn()
            times.append(clock() - t)
    return out


def paired(ours, peer, repeat: int) -> tuple[float, float, float]:
    """Time ``ours`` and ``peer`` alternately; medians of each and the median per-pair ratio
    peer/ours. Alternating keeps a shared machine's load drift out of the ratio."""
    clock = CLOCK[0]
    a, b = [], []
    for _ in range(repeat):
        for fn, out in ((ours, a), (peer, b)):
            t = clock()
            fn()
            out.append(clock() - t)
    return statistics.median(a), statistics.median(b), statistics.median(y / x for x, y in zip(a, b))


_PEER_C = r"""
#include <stddef.h>
#include <stdint.h>
uint64_t XXH3_64bits(const void *data, size_t len);
void xxh3_spans(const uint8_t *buf, const int64_t *off, int64_t n, uint64_t *out) {
    for (int64_t i = 0; i < n; i++) out[i] = XXH3_64bits(buf + off[i], (size_t)(off[i + 1] - off[i]));
}
"""


def xxh3_peer():
    """C's XXH3 (the system's libxxhash, called from a C loop built here with the C compiler), as
    ``peer(buf, offsets, out)``; or None when there is no compiler or no libxxhash."""
    import ctypes
    import ctypes.util
    import shutil
    import tempfile

    lib = ctypes.util.find_library("xxhash")
    cc = shutil.which("cc") or shutil.which("gcc")
    if lib is None or cc is None:
        return None
    out_dir = Path(__file__).resolve().parents[1] / "build" / "peers"
    out_dir.mkdir(parents=True, exist_ok=True)
    so = out_dir / "xxh3_spans.so"
    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(_PEER_C)
    try:
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(so), f.name, f"-l:{lib}"], check=True)
    except (subprocess.CalledProcessError, OSError):
        return None
    finally:
        os.unlink(f.name)
    fn = ctypes.CDLL(str(so)).xxh3_spans

    def peer(buf, off, out):
        v = ctypes.c_void_p
        fn(v(buf.ctypes.data), v(off.ctypes.data), ctypes.c_int64(off.size - 1), v(out.ctypes.data))

    return peer


def xxh3_lengths(repeat: int) -> None:
    """ns per hash of ``kernels.fingerprint.hash_spans`` (XXH3: the loop every feature path runs)
    beside C's XXH3 over the same spans and the loop of 2026-12-01 (``_prev_kernels``), by length;
    all checked equal first."""
    from _prev_kernels import hash_spans_20261201

    from simhash_lab.kernels.fingerprint import hash_spans
    from simhash_lab.kernels.hashes import HASH_XXH3

    peer = xxh3_peer()
    print("\n1c. XXH3 per length: hash_spans (a loop over byte spans) vs C's XXH3 (libxxhash, a C loop)"
          " and the loop of 2026-12-01 (a call of xxh3_64 per span)")  # fmt: skip
    if peer is None:
        print("   no C compiler or no libxxhash: skipped")
        return
    rng = np.random.default_rng(0)
    for lo, hi in (
        (1, 3),
        (4, 8),
        (9, 16),
        (17, 32),
        (33, 64),
        (65, 128),
        (10, 40),
        (129, 240),
        (241, 512),
        (1024, 1024),
    ):
        m = max(20_000, 2_000_000 // hi)
        off = np.zeros(m + 1, np.int64)
        np.cumsum(rng.integers(lo, hi + 1, size=m), out=off[1:])
        buf = rng.integers(0, 256, size=int(off[-1]) + 8, dtype=np.uint8)
        out = np.empty(m, np.uint64)
        peer(buf, off, out)
        assert np.array_equal(hash_spans(buf, off, HASH_XXH3), out), (lo, hi)
        assert np.array_equal(hash_spans_20261201(buf, off), out), (lo, hi)
        ours = functools.partial(hash_spans, buf, off, HASH_XXH3)
        t = alternating([ours, functools.partial(peer, buf, off, out),
                         functools.partial(hash_spans_20261201, buf, off)], repeat)  # fmt: skip
        t_o, t_c, t_p = (statistics.median(x) / m * 1e9 for x in t)
        r_c = statistics.median(a / c for a, c in zip(t[0], t[1]))
        r_p = statistics.median(a / c for a, c in zip(t[0], t[2]))
        print(f"   {lo:4d}-{hi:<4d} bytes: ours {t_o:6.2f} ns, C {t_c:6.2f} ns, 2026-12-01 {t_p:6.2f} ns; "
              f"ours / C {r_c:5.2f}, ours / 2026-12-01 {r_p:5.2f}")  # fmt: skip


def shingle_sets(repeat: int, rows: int = 20_000) -> None:
    """ns per shingle of ``Shingler(3).sets`` (dedup's shingles: word 3-shingles, XXH3, sorted
    distinct per row) on ``rows`` rows of 100 words, beside the kernel of 2026-12-01
    (``_prev_kernels``) behind the same Python steps; both checked equal first."""
    from _prev_kernels import shingle_hashes_str_20261201

    from simhash_lab.kernels import verify as V
    from simhash_lab.kernels.strings import str_views
    from simhash_lab.shingles import Shingler

    texts = documents(rows, 100)
    sh = Shingler(3)
    tok = sh.tokenizer

    def previous():  # Shingler._str_sets of 2026-12-01 (ASCII texts: no redo), one thread
        nd = len(texts)
        ptrs, lens, kinds = str_views(texts)
        slots = np.zeros(nd + 1, np.int64)
        np.cumsum((lens + 1) // 2 + 1, out=slots[1:])
        scratch = np.empty(slots[-1], np.uint64)
        counts, flags, at = np.zeros(nd, np.int64), np.zeros(nd, np.int64), np.zeros(nd, np.int64)
        shingle_hashes_str_20261201(ptrs, lens, kinds, tok.pipeline, tok.n, slots, scratch, counts, flags, at)
        return V.pack_sets(scratch, at, counts)

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    ours = sh.sets(texts)
    theirs = previous()
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs))
    n = sum(max(len(t.split()) - 2, 1) for t in texts)
    t = alternating([lambda: sh.sets(texts), previous], repeat)
    numba.set_num_threads(threads)
    t_o, t_p = (statistics.median(x) / n * 1e9 for x in t)
    r = statistics.median(b / a for a, b in zip(*t))
    print(f"\n1e. Shingler(3).sets, {rows:,} rows of 100 words ({n:,} shingles), 1 thread: "
          f"ours {t_o:.1f} ns per shingle (target <= 40), the kernel of 2026-12-01 {t_p:.1f} ns; "
          f"time 2026-12-01 / ours {r:.2f}x")  # fmt: skip


def cold_start() -> float:
    """Seconds for a new process to import simhash_lab and fingerprint one text (cache warm)."""
    code = (
        "import time; t = time.perf_counter(); from simhash_lab import Simhasher; "
        "Simhasher().fingerprint('hello world'); print(time.perf_counter() - t)"
    )
    out = [float(subprocess.check_output([sys.executable, "-c", code], text=True)) for _ in range(3)]
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller inputs, fewer repeats")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall", help="clock of 1-thread comparisons")
    args = ap.parse_args()
    if args.clock == "cpu":
        CLOCK[0] = time.process_time
    n_docs, repeat = (2000, 5) if args.quick else (10000, 9)
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}, "
        f"simhash (PyPI) {getattr(leonsim, '__version__', '2.x')}; load {os.getloadavg()[0]:.2f}; "
        f"1-thread clock: {args.clock}"
    )

    docs = documents(n_docs, 200)
    feats = [words()(d) for d in docs]
    n_tokens = sum(map(len, feats))
    h = Simhasher()
    h.fingerprints(docs[:100])  # compile / load the cache
    threads = numba.get_num_threads()

    sub = feats[: max(200, n_docs // 20)]
    sub_tokens = sum(map(len, sub))
    scale = n_tokens / sub_tokens  # the peer runs on a slice; compare per token
    numba.set_num_threads(1)
    t_one, t_peer, r_one = paired(
        lambda: h.fingerprints(docs, parallel=False), lambda: [leonsim.Simhash(f).value for f in sub], repeat
    )
    numba.set_num_threads(threads)
    t_all = median_time(lambda: h.fingerprints(docs, parallel=True), repeat)
    peer_tps = sub_tokens / t_peer
    print(f"\n1. default Simhasher().fingerprints, {n_docs} docs of 200 words ({n_tokens} tokens)")
    print(f"   ours, 1 thread : {n_tokens / t_one / 1e6:8.1f} M tokens/s   (target >= 30)")
    print(f"   ours, {threads} threads: {n_tokens / t_all / 1e6:8.1f} M tokens/s")
    print(f"   simhash package, same word features:    {peer_tps / 1e6:8.3f} M tokens/s")
    print(
        f"   ratio (1 thread / package), median of {repeat} alternating pairs: "
        f"{r_one * scale:6.1f}x   (target >= 40x)"
    )

    compute = pybind_compute()
    if compute is None:
        print(f"\n1b. token lists: simhash-pybind not found in {PYBIND_DIR} (see PYBIND_DIR); skipped")
    else:
        import xxhash

        xxh3 = xxhash.xxh3_64_intdigest
        assert compute([xxh3(t.encode()) for t in feats[0]]) == int(h.fingerprint(feats[0]))  # same values
        numba.set_num_threads(1)
        t_tl, t_pb, r_tl = paired(
            lambda: h.fingerprints(feats, parallel=False),
            lambda: [compute([xxh3(t.encode()) for t in f]) for f in feats],
            repeat,
        )
        numba.set_num_threads(threads)
        t_tla = median_time(lambda: h.fingerprints(feats, parallel=True), repeat)
        counts = [dict(Counter(f)) for f in feats]
        t_dict = median_time(lambda: h.fingerprints(counts, parallel=False), repeat)
        n_keys = sum(map(len, counts))
        print(
            f"\n1b. token lists: Simhasher().fingerprints(lists of str), {n_docs} lists ({n_tokens} tokens)"
        )
        print(
            f"   ours, 1 thread {n_tokens / t_tl / 1e6:6.1f} M tokens/s, {threads} threads "
            f"{n_tokens / t_tla / 1e6:6.1f} M tokens/s; simhash-pybind compute + xxhash.xxh3_64(t.encode()) "
            f"{n_tokens / t_pb / 1e6:6.1f} M tokens/s (same values)"
        )
        print(f"   dicts token -> count of the same lists, 1 thread: {n_keys / t_dict / 1e6:6.1f} M keys/s")
        print(
            f"   ratio (1 thread / simhash-pybind), median of {repeat} alternating pairs: {r_tl:5.2f}x"
            "   (target >= 1.5x)"
        )

    xxh3_lengths(repeat)
    long_docs = [" ".join(w if i % 12 else w * 4 for i, w in enumerate(d.split())) for d in docs]
    n_long = sum(len(d.split()) for d in long_docs)
    share = sum(len(w.encode()) > 16 for d in long_docs for w in d.split()) / n_long
    from _prev_kernels import fingerprints_str_20261201

    from simhash_lab.kernels.strings import str_views

    def previous():  # Simhasher()._fused of 2026-12-01 (ASCII texts: no redo), one thread
        ptrs, lens, kinds = str_views(long_docs)
        out, flags = np.empty(len(long_docs), np.uint64), np.zeros(len(long_docs), np.int64)
        fingerprints_str_20261201(ptrs, lens, kinds, h._pipeline, out, flags)
        return out

    numba.set_num_threads(1)
    assert np.array_equal(previous(), h.fingerprints(long_docs, parallel=False))
    t_long, t_prev, r_prev = paired(lambda: h.fingerprints(long_docs, parallel=False), previous, repeat)
    numba.set_num_threads(threads)
    print(f"\n1d. default Simhasher().fingerprints on the same docs with every 12th word four times over "
          f"({share:.0%} of tokens > 16 bytes), 1 thread: {n_long / t_long / 1e6:.1f} M tokens/s "
          f"(target >= 50; plain docs above: {n_tokens / t_one / 1e6:.1f}); the fused kernel of "
          f"2026-12-01 {n_long / t_prev / 1e6:.1f} M tokens/s; "
          f"time 2026-12-01 / ours {r_prev:.2f}x")  # fmt: skip
    from _prev_kernels import lower_tokenize_str_20261201, scan_docs

    from simhash_lab.kernels.tokenize import lower_tokenize_str

    views = {name: str_views(ds) for name, ds in (("plain", docs), ("long", long_docs))}
    scan_new, scan_old = scan_docs(lower_tokenize_str), scan_docs(lower_tokenize_str_20261201)
    numba.set_num_threads(1)
    for name, n_tok in (("plain", n_tokens), ("long", n_long)):
        s_args = (*views[name], h._pipeline)
        assert scan_new(*s_args) == scan_old(*s_args)
        t_s, t_s0, r_s = paired(lambda a=s_args: scan_new(*a), lambda a=s_args: scan_old(*a), repeat)
        print(f"    the scan alone (lowercase + tokenize), {name} docs: {t_s / n_tok * 1e9:.2f} ns a token, "
              f"2026-12-01's {t_s0 / n_tok * 1e9:.2f}; time 2026-12-01 / ours {r_s:.2f}x")  # fmt: skip
    numba.set_num_threads(threads)

    shingle_sets(repeat)

    ld = docs[: max(500, n_docs // 10)]
    ours = presets.LEONSIM.fingerprints(ld)
    theirs = np.array([leonsim.Simhash(d).value for d in ld], dtype=np.uint64)
    same = bool(np.array_equal(ours, theirs))
    numba.set_num_threads(1)
    t_l1, t_lp, r_l = paired(
        lambda: presets.LEONSIM.fingerprints(ld, parallel=False),
        lambda: [leonsim.Simhash(d).value for d in ld],
        repeat,
    )
    numba.set_num_threads(threads)
    t_la = median_time(lambda: presets.LEONSIM.fingerprints(ld, parallel=True), repeat)
    print(f"\n2. presets.LEONSIM.fingerprints vs simhash.Simhash(text).value, {len(ld)} docs")
    print(f"   identical values: {same}")
    print(
        f"   ours 1 thread {len(ld) / t_l1:9.0f} docs/s, {threads} threads {len(ld) / t_la:9.0f} "
        f"docs/s; package {len(ld) / t_lp:7.0f} docs/s"
    )
    print(
        f"   ratio (1 thread / package), median of {repeat} alternating pairs: {r_l:6.1f}x   (target >= 10x)"
    )

    n = 10_000_000 if not args.quick else 2_000_000
    a = np.random.default_rng(0).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    q = np.uint64(0x0123456789ABCDEF)
    assert np.array_equal(hamming(a, q), np.bitwise_count(a ^ q))
    t_h, t_np, r_h = paired(lambda: hamming(a, q), lambda: np.bitwise_count(a ^ q), repeat * 2)
    numba.set_num_threads(1)
    t_h1, _, r_h1 = paired(lambda: hamming(a, q), lambda: np.bitwise_count(a ^ q), repeat * 2)
    numba.set_num_threads(threads)
    print(f"\n3. hamming(array of {n:,}, scalar) vs np.bitwise_count(a ^ q)")
    print(
        f"   ours {n / t_h / 1e9:5.2f} G/s ({threads} threads), {n / t_h1 / 1e9:5.2f} G/s (1 thread); "
        f"numpy {n / t_np / 1e9:5.2f} G/s"
    )
    print(f"   ratio {r_h:5.1f}x with {threads} threads, {r_h1:5.1f}x with 1   (target >= 3x)")

    print(
        f"\n4. new process, import + first fingerprint (Numba cache warm): {cold_start():.2f} s "
        f"(target < 1 s); load {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
