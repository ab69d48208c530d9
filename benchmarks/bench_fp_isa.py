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

_CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import numba, numpy as np
numba.set_num_threads(1)
from _corpus import documents
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
docs = documents(10_000, 200)
tokens = sum(len(d.split()) for d in docs)
h = Simhasher()
h.fingerprints(docs[:50])  # compiled (or loaded) before timing
times = []
for _ in range(int(sys.argv[2])):
    c = time.process_time()
    h.fingerprints(docs)
    times.append(time.process_time() - c)
print(json.dumps({"cpu_name": numba.config.CPU_NAME or "host",
                  "features": os.environ.get("NUMBA_CPU_FEATURES", "host"),
                  "zmm": "zmm" in asm, "ymm": "ymm" in asm, "evex": evex, "vpopcntq": "vpopcntq" in asm,
                  "tokens": tokens, "times": times}))
"""


def avx2_features() -> str:
    """The host's features for LLVM with every AVX-512 one turned off."""
    import llvmlite.binding as llvm

    feats = llvm.get_host_cpu_features().flatten().split(",")
    return ",".join("-" + f[1:] if f[1:].startswith("avx512") else f for f in feats if f)


def run(env_extra: dict, repeats: int) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS="1", **env_extra)
    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, here, str(repeats)], capture_output=True, text=True, env=env, cwd="/"
    )
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="timed calls in each child")
    ap.add_argument("--rounds", type=int, default=2, help="child pairs, alternating")
    a = ap.parse_args()
    print(B.cpu_info())
    cache = tempfile.mkdtemp(prefix="simhash-lab-avx2-cache-")
    avx2 = {"NUMBA_CPU_FEATURES": avx2_features(), "NUMBA_CACHE_DIR": cache}
    print(f"AVX2 run: NUMBA_CPU_FEATURES with -avx512*, NUMBA_CACHE_DIR={cache}; load before {B.load():.2f}")
    run(avx2, 1)  # its kernels compiled into its own cache, outside the timing
    got: dict[str, list] = {"host (AVX-512)": [], "AVX2 only": []}
    for r in range(a.rounds):
        order = list(got) if r % 2 == 0 else list(got)[::-1]
        for name in order:
            res = run({} if name.startswith("host") else avx2, a.repeats)
            res["load"] = B.load()
            got[name].append(res)
    rates = {}
    for name, rs in got.items():
        per = [r["tokens"] / t / 1e6 for r in rs for t in r["times"]]
        rates[name] = statistics.median(per)
        r0 = rs[0]
        print(f"{name:<15} {rates[name]:6.1f} M tokens/s (median of {len(per)} calls, "
              f"{min(per):.1f}-{max(per):.1f}); probe compiled with AVX-512 instructions: {r0['evex']} "
              f"(vpopcntq {r0['vpopcntq']}, zmm {r0['zmm']}, ymm {r0['ymm']}); "
              f"loads {[round(r['load'], 2) for r in rs]}")  # fmt: skip
    print(f"AVX-512 / AVX2: {rates['host (AVX-512)'] / rates['AVX2 only']:.2f}x; load after {B.load():.2f}")


if __name__ == "__main__":
    main()
