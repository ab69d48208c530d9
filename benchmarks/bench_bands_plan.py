"""The bands the plan step chooses (issue 48, item 4) beside the fixed 16 bands of 6 rows of
earlier versions, side by side in one process.

    .venv/bin/python benchmarks/bench_bands_plan.py --corpus pydoc-mixed --rows 100000 --repeats 3
    .venv/bin/python benchmarks/bench_bands_plan.py --corpus generated --rows 1000000 --repeats 1

For each run (``dedup_texts(jaccard=0.8)``, alternating ``bands=(16, 6)`` pinned and the plan's
choice, one Numba thread, the steps' clock reading the process's CPU time): the plan's, the
candidates' and the verification's CPU seconds (medians), the candidate pairs and those the plan
expected of them (its model, ``candidates.expected_pairs``, from the first ``candidates.PLAN_ROWS`` rows), the
verified pairs, the kept rows, and the recall and precision of the verified pairs against the
exact Jaccard truth of the pairs that touch a random sample of rows (``bench_bands._truth``);
then what the constants of the plan's cost model (``candidates.KEY_NS``, ``PAIR_NS``) measure as
here: CPU ns a band key (candidates step / rows x bands) and a candidate pair (verify step /
candidates). CPU model, SIMD flags and load beside them.

Corpora: ``pydoc`` (``_corpus.documents``: 100-word documents of Python's docs, cycled),
``pydoc-mixed`` (``_corpus.varied_documents``: 30-300 words, rows sharing runs of words), and
``generated`` (``bench_dedup.make_million``: Zipf words, 10 % edited copies of earlier rows).
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
from _corpus import docstring_texts, documents, varied_documents  # noqa: E402
from bench_bands import _truth  # noqa: E402

from simhash_lab.candidates import BAND_NS, EMPTY_NS, PAIR_NS, SHINGLE_NS  # noqa: E402
from simhash_lab.dedup import dedup_texts  # noqa: E402


def corpus(name: str, rows: int) -> list[str]:
    if name == "pydoc":
        return documents(rows, 100)
    if name == "pydoc-mixed":
        return varied_documents(rows, 30, 300)
    if name == "docstrings":
        return docstring_texts("/tmp/simhash-lab-bench", rows)
    data = f"/tmp/simhash-lab-bench/docs-{rows}.jsonl"
    os.makedirs(os.path.dirname(data), exist_ok=True)
    if not os.path.exists(data):
        B.make_million(data, rows)
    with open(data, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    names = ["pydoc", "pydoc-mixed", "generated", "docstrings"]
    ap.add_argument("--corpus", default="pydoc-mixed", choices=names)
    ap.add_argument("--bands", default="16x6", help="pinned bands run beside the plan's, e.g. 16x6,13x4")
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--truth-sample", type=int, default=2000)
    a = ap.parse_args()
    texts = corpus(a.corpus, a.rows)
    print(B.cpu_info())
    print(f"{a.corpus}: {len(texts)} rows; load before {B.load():.2f}")
    numba.set_num_threads(1)
    dedup_texts(texts[:300])  # loads the kernels
    modes = {b: {"bands": tuple(int(x) for x in b.split("x"))} for b in a.bands.split(",")}
    modes = {"16x6": {"bands": (16, 6)}, **modes, "plan": {}}
    runs: dict[str, list] = {m: [] for m in modes}
    total: dict[str, list] = {m: [] for m in modes}  # the whole run's CPU (the keys: the fingerprint step)
    wall = time.perf_counter
    time.perf_counter = time.process_time  # the steps' clock: this process's CPU time
    try:
        for _ in range(a.repeats):
            for m, opts in modes.items():
                c = time.process_time()
                runs[m].append(dedup_texts(texts, jaccard=0.8, **opts))
                total[m].append(time.process_time() - c)
    finally:
        time.perf_counter = wall
    rows, truth = _truth(texts, a.truth_sample)
    plan = runs["plan"][-1].settings["candidates"]
    n = len(texts)
    print(f"plan's choice: {plan}")
    print(
        f"{'bands':<8} {'plan s':>7} {'cand s':>7} {'verify s':>8} {'c+v s':>7} {'candidates':>11} "
        f"{'expected':>10} {'verified':>9} {'kept':>8} {'recall':>7} {'precision':>9} "
        f"{'ns a key':>8} {'ns a pair':>9} {'total s':>8}"
    )
    med = {}
    for m, rs in runs.items():
        r = rs[-1]
        c = r.settings["candidates"]
        t = {
            s: statistics.median(x.timings.get(s, 0.0) for x in rs) for s in ("plan", "candidates", "verify")
        }
        med[m] = t
        p, rec = B._sample_scores(r.verified_pairs(), rows, truth, n)
        # the plan's expectation of these bands' candidates (it weighed 16 x 6 too)
        weighed = {(w[0], w[1]): w[3] for w in plan.get("weighed", ())}
        exp = f"{weighed[c['bands'], c['rows']]:,}" if (c["bands"], c["rows"]) in weighed else "-"
        print(
            f"{c['bands']}x{c['rows']:<5} {t['plan']:7.3f} {t['candidates']:7.3f} {t['verify']:8.3f} "
            f"{t['candidates'] + t['verify']:7.3f} {r.pairs.shape[0]:11,} {exp:>10} {r.verified:9,} "
            f"{int(r.keep.sum()):8,} {rec:7.4f} {p:9.4f} "
            f"{1e9 * t['candidates'] / (n * c['bands']):8.1f} "
            f"{1e9 * t['verify'] / max(r.pairs.shape[0], 1):9.1f} {statistics.median(total[m]):8.3f}"
        )
    before, after = runs["16x6"][-1], runs["plan"][-1]
    differ = int(np.count_nonzero(before.keep != after.keep))
    cv = {m: t["candidates"] + t["verify"] for m, t in med.items()}
    print(
        f"16x6 / plan, candidates + verify CPU: {cv['16x6'] / max(cv['plan'], 1e-9):.2f}x "
        f"(with the plan's own {med['plan']['plan']:.3f} s: "
        f"{cv['16x6'] / max(cv['plan'] + med['plan']['plan'], 1e-9):.2f}x); "
        f"kept rows that differ: {differ} of {n}; truth: {len(truth)} pairs touching {rows.size} rows"
    )
    dc = before.pairs.shape[0] - after.pairs.shape[0]
    db = before.settings["candidates"]["bands"] - after.settings["candidates"]["bands"]
    dv = med["16x6"]["verify"] - med["plan"]["verify"]
    dk = med["16x6"]["candidates"] - med["plan"]["candidates"]
    marginal = f"verify {1e9 * dv / dc:.0f} ns a candidate fewer" if dc else "no candidates fewer"
    if db:
        marginal += (
            f", candidates step {1e9 * dk / (n * db):.0f} ns a row a band more or less (pairs in it too)"
        )
    print(
        f"marginal costs, 16x6 against the plan's: {marginal}; the cost model's constants: BAND_NS "
        f"{BAND_NS}, EMPTY_NS {EMPTY_NS}, PAIR_NS {PAIR_NS}, SHINGLE_NS {SHINGLE_NS}; whole run CPU "
        f"(medians), 16x6 / plan: {statistics.median(total['16x6']) / statistics.median(total['plan']):.2f}x"
        "; "
        f"load after {B.load():.2f}"
    )


if __name__ == "__main__":
    main()
