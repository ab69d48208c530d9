"""The verify step's kernel as it was (every merge to the end) beside the size filter and the
early exit (issue 48), on the same candidate pairs, in one process.

    .venv/bin/python benchmarks/bench_verify.py --rows 100000 --repeats 5

N rows of real prose (``--corpus pydoc``, the default: ``_corpus.documents``, 100-word documents cut
from consecutive paragraphs of Python's documentation, cycled, so that rows share paragraphs as
real text does; ``--corpus pydoc-mixed``: the same words cut into documents of 30 to 300 words,
seeded, so that sizes differ as real rows' do), or of ``bench_dedup``'s generated corpus
(``--corpus generated``: the JSONL ``--data``, its first N rows: random words, 10 % edited
copies); their candidate pairs from ``dedup_texts(jaccard=0.8)`` (MinHash bands) and every row's shingle set
(the ones the verification compares). Then, alternating, on one Numba thread, the CPU time of
``kernels.verify.jaccard`` over every pair at threshold 0 (every merge to the end: the step before
issue 48), at 0.8 (the size filter, then a merge stopped once the pair cannot reach 0.8) and at
0.75 (``jaccard - 0.05``: what the step runs, so that the report's nearest rejected pairs keep
exact values); medians and ratios; the share of pairs the size filter alone drops; and whether
the decisions (similarity >= 0.8) and every similarity from 0.75 are the same. CPU model, SIMD
flags and load beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dedup as B  # noqa: E402
from _corpus import documents, varied_documents  # noqa: E402

from simhash_lab.dedup import dedup_texts  # noqa: E402
from simhash_lab.kernels import verify as V  # noqa: E402
from simhash_lab.settings import DedupSettings  # noqa: E402
from simhash_lab.shingles import Featurizer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--corpus", default="pydoc", choices=["pydoc", "pydoc-mixed", "generated"])
    ap.add_argument("--data", default="/tmp/simhash-lab-bench/docs-1000000.jsonl")
    a = ap.parse_args()
    texts = []
    if a.corpus == "pydoc":
        texts = documents(a.rows, 100)
    elif a.corpus == "pydoc-mixed":
        texts = varied_documents(a.rows, 30, 300)
    else:
        if not os.path.exists(a.data):
            os.makedirs(os.path.dirname(a.data), exist_ok=True)
            B.make_million(a.data, max(a.rows, 100_000))
        with open(a.data, encoding="utf-8") as f:
            for line in f:
                texts.append(json.loads(line)["text"])
                if len(texts) >= a.rows:
                    break
    print(B.cpu_info())
    print(f"{len(texts)} rows ({a.corpus}); load before {B.load():.2f}")
    res = dedup_texts(texts, jaccard=0.8)
    pairs = res.pairs
    indptr, data = Featurizer(DedupSettings()).sets(texts)
    i, j = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    sizes = np.diff(indptr)
    print(f"{pairs.shape[0]:,} candidate pairs ({res.settings['candidates']}), {res.verified:,} verified")
    numba.set_num_threads(1)
    out = {t: np.empty(i.size) for t in (0.0, 0.8, 0.75)}
    V.jaccard(indptr, data, i[:10], j[:10], 0.5, out[0.0][:10])  # compiled or loaded before timing
    times: dict[float, list[float]] = {t: [] for t in out}
    for _ in range(a.repeats):
        for t in out:
            c = time.process_time()
            V.jaccard(indptr, data, i, j, t, out[t])
            times[t].append(time.process_time() - c)
    full, at8, at75 = out[0.0], out[0.8], out[0.75]
    same = bool(((full >= 0.8) == (at8 >= 0.8)).all() and ((full >= 0.8) == (at75 >= 0.8)).all())
    exact = bool((at75[full >= 0.75] == full[full >= 0.75]).all() and (at75[full < 0.75] == -1.0).all())
    med = {t: statistics.median(v) for t, v in times.items()}
    for t in (0.8, 0.75):
        drop = 1 - V.size_passes(sizes[i], sizes[j], t).mean()
        ratio = statistics.median(b / x for b, x in zip(times[0.0], times[t]))
        print(f"threshold {t}: size filter drops {drop:.1%} of the pairs; kernel {med[t]:.3f} s CPU "
              f"(runs {', '.join(f'{x:.3f}' for x in times[t])}) against {med[0.0]:.3f} s to the end: "
              f"{ratio:.2f}x faster, {1 - med[t] / med[0.0]:.0%} less time")  # fmt: skip
    print(f"decisions (>= 0.8) identical: {same}; every similarity from 0.75 exact, -1.0 below: {exact}")
    print(f"load after {B.load():.2f}")


if __name__ == "__main__":
    main()
