"""The fingerprint rate with AVX-512 and with AVX2 alone, on the same machine, side by side.

    .venv/bin/python benchmarks/bench_fp_isa.py --repeats 5 --rounds 2

``Simhasher().fingerprints`` over 10,000 documents of 200 words of Python's documentation
(``_corpus.documents``, the README's speed-table row), one Numba thread, CPU time, in child
processes that alternate: one compiled for this CPU as it is (its AVX-512, when it has it), one
for the same CPU with every AVX-512 feature turned off (``NUMBA_CPU_FEATURES``: the host's
features, ``+avx512*`` made ``-avx512*``) and a cache of its own (``NUMBA_CACHE_DIR``: kernels
compiled for the host are never loaded into it). Each child prints what it was compiled for:
whether a probe loop it compiles (a float loop and a popcount loop) holds AVX-512 instructions
(EVEX: ``vpopcntq``, mask registers, ``zmm`` or ``ymm16``-``31``; LLVM prefers 256-bit vectors on
this CPU, so ``zmm`` alone would not tell). An AVX2-only CPU of another make (the AMD EPYC
of issue 48) differs in more than its vector width: this measures the width alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dedup as B  # noqa: E402

TEXTS = ("prose", "long", "words")

_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import numba, numpy as np
numba.set_num_threads(1)
import _corpus
from simhash_lab import Simhasher

from simhash_lab.kernels.bits import popcount

@numba.njit
def _probe(x, y):  # a float loop and a popcount loop: what LLVM vectorises them with
    c = 0
    for i in range(x.shape[0]):
        y[i] += 2.5 * x[i]
        c += popcount(np.uint64(i) * np.uint64(0x9E3779B97F4A7C15))
    return c

a = np.ones(4096)
_probe(a, a.copy())
asm = next(iter(_probe.inspect_asm().values()))
import re
evex = bool(re.search(r"%zmm|%ymm(1[6-9]|2[0-9]|3[01])|\{%k[1-7]\}|vpopcntq|vpternlog", asm))
text, ndocs, repeats, breakdown = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
make = {"prose": _corpus.documents, "words": _corpus.lowercase_word_documents,
        "long": _corpus.long_token_documents}[text]
docs = make(ndocs)
h = Simhasher()
feats = [h.tokenizer(d) for d in docs[:500]]  # the tokens the kernel hashes: the tokenizer's words
per_doc = sum(map(len, feats)) / len(feats)
tokens = round(per_doc * len(docs))
token_bytes = sum(len(w.encode()) for f in feats for w in f) / max(1, sum(map(len, feats)))
h.fingerprints(docs[:50])  # compiled (or loaded) before timing


def clock(fn):
    times = []
    for _ in range(repeats):
        c = time.process_time()
        fn()
        times.append(time.process_time() - c)
    return times


times = clock(lambda: h.fingerprints(docs))
stages = {}
if breakdown:  # the fused kernel's scan and hash cut short (their library forms), each timed alone
    try:
        from simhash_lab.kernels.hashes import xxh3_any_inline
        from simhash_lab.kernels.strings import str_views, unit_bytes
        from simhash_lab.kernels.tokenize import lower_tokenize_str, str_scratch

        @numba.njit
        def cut(ptrs, lens, kinds, p, tok, pos, hashing):
            acc = np.uint64(0)
            total = 0
            for d in range(ptrs.shape[0]):
                data = unit_bytes(ptrs[d], lens[d], kinds[d])
                nf, fl = lower_tokenize_str(data, lens[d], kinds[d], p, tok, pos)
                ntok = nf // 2
                total += ntok
                if hashing:
                    for t in range(ntok):
                        acc ^= xxh3_any_inline(tok, pos[2 * t], pos[2 * t + 1])
            return total, acc

        ptrs, lens, kinds = str_views(docs)
        need = [str_scratch(int(n), int(k)) for n, k in zip(lens, kinds)]
        tok = np.empty(max(t for t, _ in need), np.uint8)
        pos = np.empty(max(q for _, q in need), np.int64)
        p = h._pipeline
        ntok, _ = cut(ptrs, lens, kinds, p, tok, pos, False)
        cut(ptrs, lens, kinds, p, tok, pos, True)
        stages = {"scan": clock(lambda: cut(ptrs, lens, kinds, p, tok, pos, False)),
                  "scan+hash": clock(lambda: cut(ptrs, lens, kinds, p, tok, pos, True)),
                  "kernel_tokens": int(ntok)}
    except Exception as e:  # the kernels moved on: say so, keep the rate
        stages = {"error": f"{type(e).__name__}: {e}"[:300]}
print(json.dumps({"cpu_name": numba.config.CPU_NAME or "host",
                  "features": os.environ.get("NUMBA_CPU_FEATURES", "host"),
                  "zmm": "zmm" in asm, "ymm": "ymm" in asm, "evex": evex, "vpopcntq": "vpopcntq" in asm,
                  "tokens": tokens, "token_bytes": token_bytes, "bytes": sum(len(d) for d in docs),
                  "times": times, "stages": stages}))
"""


def avx2_features() -> str:
    """The host's features for LLVM with every AVX-512 one turned off."""
    import llvmlite.binding as llvm

    feats = llvm.get_host_cpu_features().flatten().split(",")
    return ",".join("-" + f[1:] if f[1:].startswith("avx512") else f for f in feats if f)


def run(
    env_extra: dict, repeats: int, text: str = "prose", docs: int = 10_000, breakdown: bool = False
) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", **env_extra)
    here = os.path.dirname(os.path.abspath(__file__))
    argv = [here, text, str(docs), str(repeats), "1" if breakdown else "0"]
    cmd = [sys.executable, "-c", _CHILD, *argv]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/")
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def cpu_mhz() -> float | None:
    """The clock ``/proc/cpuinfo`` reports (a VM's is the nominal one), MHz."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    return float(line.split(":", 1)[1])
    except (OSError, ValueError):
        pass
    return None


ISAS = ("AVX-512", "AVX2")


def measure(
    texts=TEXTS, repeats: int = 5, rounds: int = 2, docs: int = 10_000, breakdown: bool = False
) -> dict:
    """{(text, isa): {"rate": median M tokens/s, "rates": [...], "loads": [...], "child": first child's
    JSON, "stages": {stage: median s}}}: for each text, child pairs alternating AVX-512 (the host)
    and AVX2 alone (``NUMBA_CPU_FEATURES`` without ``avx512*``, its own cache), ``rounds`` pairs of
    ``repeats`` calls each."""
    cache = tempfile.mkdtemp(prefix="simhash-lab-avx2-cache-")
    env = {"AVX-512": {}, "AVX2": {"NUMBA_CPU_FEATURES": avx2_features(), "NUMBA_CACHE_DIR": cache}}
    run(env["AVX2"], 1, texts[0], 100)  # its kernels compiled into its own cache, outside the timing
    out = {}
    for text in texts:
        got: dict[str, list] = {isa: [] for isa in ISAS}
        for r in range(rounds):
            for isa in ISAS if r % 2 == 0 else ISAS[::-1]:
                before = B.load()
                res = run(env[isa], repeats, text, docs, breakdown)
                res["load"] = (before, B.load())
                got[isa].append(res)
        for isa, rs in got.items():
            per = [r["tokens"] / t / 1e6 for r in rs for t in r["times"]]
            stages = {}
            for st in ("scan", "scan+hash"):
                vals = [t for r in rs for t in r["stages"].get(st, [])]
                if vals:
                    stages[st] = statistics.median(vals)
            err = next((r["stages"]["error"] for r in rs if "error" in r["stages"]), None)
            out[text, isa] = {
                "rate": statistics.median(per), "rates": per, "child": rs[0], "stages": stages, "error": err,
                "loads": [x for r in rs for x in r["load"]],
                "time": statistics.median(t for r in rs for t in r["times"]),
            }  # fmt: skip
    return out


def describe(text: str, isa: str, m: dict) -> str:
    """One line: the rate, cycles a token at the reported clock, where the time goes."""
    c = m["child"]
    mhz = cpu_mhz()
    cyc = f", {mhz * 1e6 / (m['rate'] * 1e6):.0f} cycles a token at {mhz:.0f} MHz" if mhz else ""
    line = (f"{text:<6} {isa:<8} {m['rate']:6.1f} M tokens/s (median of {len(m['rates'])} calls, "
            f"{min(m['rates']):.1f}-{max(m['rates']):.1f}){cyc}; {c['tokens']:,} tokens of "
            f"{c['token_bytes']:.1f} bytes on average; probe with AVX-512 instructions: {c['evex']} "
            f"(vpopcntq {c['vpopcntq']}, zmm {c['zmm']}); "
            f"load {min(m['loads']):.2f}-{max(m['loads']):.2f}")  # fmt: skip
    st = m["stages"]
    if "scan" in st and "scan+hash" in st:
        full, scan, hashed = m["time"], st["scan"], st["scan+hash"] - st["scan"]
        ns = 1e9 / c["tokens"]
        line += (f"\n{'':<16}per token (the stages cut short and timed alone: the fused kernel "
                 f"overlaps them, so the rest can come out near 0): {full * ns:.1f} ns in all = "
                 f"scan (lowercase, classify, tokenize) "
                 f"{scan * ns:.1f} ns ({scan / full:.0%}) + XXH3 {hashed * ns:.1f} ns ({hashed / full:.0%}) "
                 f"+ vote and the rest {(full - st['scan+hash']) * ns:.1f} ns "
                 f"({(full - st['scan+hash']) / full:.0%})")  # fmt: skip
    elif m["error"]:
        line += f"\n{'':<16}no breakdown: {m['error']}"
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed calls in each child")
    ap.add_argument("--rounds", type=int, default=2, help="child pairs, alternating")
    ap.add_argument("--text", default="prose", choices=[*TEXTS, "all"],
                    help="prose: Python's docs as they are (mixed case, punctuation); long: tokens of 17 "
                    "bytes or more; words: lowercased words only (default: prose)")  # fmt: skip
    ap.add_argument("--docs", type=int, default=10_000, help="documents of 200 tokens")
    ap.add_argument(
        "--breakdown",
        action="store_true",
        help="also time the fused kernel's scan alone and scan + hash (where the time goes)",
    )
    a = ap.parse_args()
    print(B.cpu_info())
    print(f"AVX2 run: NUMBA_CPU_FEATURES with -avx512*, a cache of its own; load before {B.load():.2f}")
    texts = TEXTS if a.text == "all" else (a.text,)
    got = measure(texts, a.repeats, a.rounds, a.docs, a.breakdown)
    for text in texts:
        for isa in ISAS:
            print(describe(text, isa, got[text, isa]))
        print(f"{text:<6} AVX-512 / AVX2: {got[text, 'AVX-512']['rate'] / got[text, 'AVX2']['rate']:.2f}x")
    print(f"load after {B.load():.2f}")


if __name__ == "__main__":
    main()
