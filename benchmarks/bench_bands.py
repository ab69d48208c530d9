"""The candidates step by MinHash bands beside the index, at the calibrated k, in one process.

    .venv/bin/python benchmarks/bench_bands.py --rows 100000 --repeats 3

N generated rows (``bench_dedup.make_million``'s: words of Python's documentation, 10 % copies
of earlier rows with up to 3 % of their words replaced) through ``dedup_texts(jaccard=0.8)`` with
``candidates="index"`` and ``candidates="bands"``, alternating, on one Numba thread, the steps'
clock reading the process's CPU time: the candidates step's CPU seconds (for bands, the keys made
while fingerprinting included), medians and their ratio; then the recall and precision of each
run's verified pairs against the exact Jaccard truth of the pairs that touch a random sample of
rows (``bench_dedup._sample_truth``). CPU model, SIMD flags and load are printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numba

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_dedup as B  # noqa: E402

from simhash_lab.dedup import dedup_texts  # noqa: E402


def _truth(texts: list[str], sample: int, seed: int = 1):
    """(sampled rows, {(i, j)} at exact Jaccard >= T touching them), from the sets the verifier
    compares (``Featurizer``: normalised text, word 3-shingles or character 3-grams by script)."""
    import numpy as np
    import scipy.sparse as sp

    from simhash_lab.settings import DedupSettings
    from simhash_lab.shingles import Featurizer

    ind, dat = Featurizer(DedupSettings()).sets(texts)
    n = len(texts)
    rows = np.sort(np.random.default_rng(seed).choice(n, size=min(sample, n), replace=False))
    uniq, inv = np.unique(dat, return_inverse=True)
    x = sp.csr_matrix((np.ones(dat.size, np.float32), inv, ind), shape=(n, uniq.size))
    inter = (x[rows] @ x.T).tocoo()
    size = np.diff(ind)
    a, b, c = rows[inter.row], inter.col, inter.data
    with np.errstate(invalid="ignore", divide="ignore"):
        ok = (a != b) & (c / (size[a] + size[b] - c) >= B.T)
    return rows, set(zip(np.minimum(a[ok], b[ok]).tolist(), np.maximum(a[ok], b[ok]).tolist()))


def copyright_files() -> list[str]:
    """Debian's copyright files of the installed packages (real, repetitive licence text)."""
    import glob

    out = []
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, encoding="utf-8") as f:
                out.append(f.read())
        except (OSError, UnicodeDecodeError):
            pass
    return out


def chinese(n: int, seed: int = 5) -> list[str]:
    """Generated Chinese: clauses of Han characters (Zipf over the 3,000 commonest code points of
    the block), no spaces; 20 % are copies of an earlier document with 1-4 characters replaced."""
    import numpy as np

    rng = np.random.default_rng(seed)
    han = np.array([chr(c) for c in range(0x4E00, 0x4E00 + 3000)])
    p = 1.0 / np.arange(1, han.size + 1)
    p /= p.sum()
    docs: list[str] = []
    for i in range(n):
        if i > 10 and rng.random() < 0.2:
            c = list(docs[int(rng.integers(i))])
            for q in rng.choice(len(c), int(rng.integers(1, 5)), replace=False).tolist():
                c[q] = han[int(rng.integers(han.size))]
            docs.append("".join(c))
        else:
            m = int(rng.integers(60, 160))
            body = "".join(rng.choice(han, m, p=p))
            docs.append("，".join(body[j : j + 12] for j in range(0, m, 12)) + "。")
    return docs


def parquet_texts(folder: str) -> list[str]:
    import glob

    import pyarrow.parquet as pq

    return [
        t
        for f in sorted(glob.glob(f"{folder}/*.parquet"))
        for t in pq.read_table(f, columns=["text"])["text"].to_pylist()
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--truth-sample", type=int, default=2000)
    ap.add_argument(
        "--corpus",
        default="generated",
        help="generated (bench_dedup's, --rows), copyright (/usr/share/doc/*/copyright, every row "
        "sampled), chinese (generated, --rows), or a folder of Parquet partitions (a text column)",
    )
    ap.add_argument("--threads", type=int, default=1, help="Numba threads (1: CPU time is the clock)")
    a = ap.parse_args()
    if a.corpus == "generated":
        data = f"/tmp/simhash-lab-bench/docs-{a.rows}.jsonl"
        os.makedirs(os.path.dirname(data), exist_ok=True)
        if not os.path.exists(data):
            B.make_million(data, a.rows)
        with open(data, encoding="utf-8") as f:
            texts = [json.loads(line)["text"] for line in f]
    elif a.corpus == "copyright":
        texts = copyright_files()
    elif a.corpus == "chinese":
        texts = chinese(a.rows)
    else:
        texts = parquet_texts(a.corpus)
    print(B.cpu_info())
    print(f"{a.corpus}: {len(texts)} rows; load before {B.load():.2f}")
    numba.set_num_threads(a.threads)
    dedup_texts(texts[:300], candidates="bands")  # loads the kernels
    wall = time.perf_counter
    if a.threads == 1:
        time.perf_counter = time.process_time  # the steps' clock: this process's CPU time
    runs: dict[str, list] = {"index": [], "bands": []}
    try:
        for _ in range(a.repeats):
            for method in ("index", "bands"):
                runs[method].append(dedup_texts(texts, candidates=method))
    finally:
        time.perf_counter = wall
    rows, truth = _truth(texts, a.truth_sample)
    clock = "CPU" if a.threads == 1 else "wall"
    med = {m: statistics.median(r.timings["candidates"] for r in rs) for m, rs in runs.items()}
    for m, rs in runs.items():
        r = rs[-1]
        each = ", ".join(f"{x.timings['candidates']:.3f}" for x in rs)
        p, rec = B._sample_scores(r.verified_pairs(), rows, truth, len(texts))  # exact copies too
        print(
            f"{m:<6} k = {r.k}, {r.settings['candidates']}: candidates step {med[m]:.3f} s {clock} "
            f"(runs {each}), {r.pairs.shape[0]} "
            f"candidates, {r.verified} verified, {len(r.duplicates)} dropped; against the truth of "
            f"{rows.size} sampled rows ({len(truth)} pairs): precision {p:.4f}, recall {rec:.4f}"
        )
    same = (runs["index"][-1].keep == runs["bands"][-1].keep).all()
    print(
        f"index / bands, candidates {clock}: {med['index'] / max(med['bands'], 1e-9):.1f}x; "
        f"same kept rows: {same}; load after {B.load():.2f}"
    )


if __name__ == "__main__":
    main()
