"""What the dedup defaults cost and find (issue 24): recall target 0.95 against 0.99 on Debian's
copyright files, Chinese against exact character 3-gram Jaccard (and datasketch on the same
3-grams), 100,000 identical rows, and a generated JSONL dataset end to end, per step.

    .venv/bin/python benchmarks/bench_dedup_defaults.py [--rows 100000] [--repeats 3]

Figures are medians of ``--repeats`` runs alternating in one process; the CPU and the load are
printed beside them (the machine is shared: the load is high).
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "lib"))

from simhash_lab import dedup_texts  # noqa: E402
from simhash_lab.course.compare import jaccard_all_pairs  # noqa: E402


def cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        model = platform.processor()
    return f"{model}, {os.cpu_count()} cores"


def load() -> str:
    return "load {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())


def missed(res, truth) -> int:
    return int(sum(bool(res.keep[a] and res.keep[b]) for a, b in truth))


def copyright_part(repeats: int) -> None:
    paths = sorted(glob.glob("/usr/share/doc/*/copyright"))
    texts = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                texts.append(f.read())
        except (OSError, UnicodeDecodeError):
            pass
    pairs, _ = jaccard_all_pairs(texts, 3, 0.8)
    truth = [tuple(p) for p in pairs[:, :2].tolist()]
    print(f"copyright files: {len(texts)} files, {len(truth)} true pairs (word 3-shingles, Jaccard >= 0.8)")
    rows = {}
    for _ in range(repeats):
        for recall in (0.95, 0.99):
            for linkage in ("complete", "star"):
                t0 = time.perf_counter()
                res = dedup_texts(texts, recall=recall, linkage=linkage)
                dt = time.perf_counter() - t0
                cand = {(int(i), int(j)) for i, j, _ in res.pairs.tolist()}
                exact = {
                    (min(a, b), max(a, b))
                    for a, b in zip(res.duplicates.dropped.tolist(), res.duplicates.kept.tolist())
                }
                not_proposed = sum(1 for p in truth if p not in cand and p not in exact)
                rows.setdefault((recall, linkage), []).append(
                    (dt, res.k, missed(res, truth), not_proposed, len(res.duplicates))
                )
    for (recall, linkage), r in rows.items():
        t = statistics.median(x[0] for x in r)
        k, m, np_, d = r[0][1:]
        print(
            f"  recall {recall} {linkage:8s}: k = {k:2d}, {d} dropped, true pairs with both kept {m} "
            f"({m / max(len(truth), 1):.1%}), {np_} exact copies, {t:.2f} s (median of {len(r)})"
        )
    base = statistics.median(x[0] for x in rows[(0.95, "complete")])
    high = statistics.median(x[0] for x in rows[(0.99, "complete")])
    print(f"  cost of recall 0.99 against 0.95: {high / base:.2f}x")
    loose = dedup_texts(texts, unverified=True, k=3)
    found = {(min(a, b), max(a, b)) for g in loose.groups for a, b in itertools.combinations(g, 2)}
    tp = len(found & set(truth))
    prec = tp / max(len(found), 1)
    print(f"  unverified words/TF k = 3: {len(loose.duplicates)} dropped, pair precision {prec:.3f}")


def chinese_part() -> None:
    from test_dedup_languages import char_truth, han_corpus

    texts = han_corpus(seed=7, n_base=600, copies=600)
    truth = char_truth(texts)
    t0 = time.perf_counter()
    res = dedup_texts(texts, linkage="star")
    dt = time.perf_counter() - t0
    got = {(min(a, b), max(a, b)) for g in res.groups for a, b in itertools.combinations(g, 2)}
    verified = {(i, j) for (i, j, _), s in zip(res.pairs.tolist(), res.similarity.tolist()) if s >= 0.8}
    print(
        f"Chinese (generated poems): {len(texts)} texts, {len(truth)} true pairs (character 3-grams, >= 0.8)"
    )
    m = missed(res, truth)
    print(
        f"  ours (auto: {res.by_chars} shingled by characters, k = {res.k}): true pairs with both kept {m} "
        f"({m / len(truth):.1%}), cluster pairs not true {len(got - truth)}, {dt:.2f} s"
    )
    words = dedup_texts(texts, features="words", linkage="star")
    m = missed(words, truth)
    print(f"  the old rule (words): true pairs with both kept {m} ({m / len(truth):.1%})")
    try:
        from datasketch import MinHash, MinHashLSH
    except ImportError:
        return
    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    mh = []
    for i, t in enumerate(texts):
        c = [ch for ch in t if ch.isalnum()]
        m1 = MinHash(num_perm=128)
        for g in {"".join(c[j : j + 3]) for j in range(max(len(c) - 2, 1))}:
            m1.update(g.encode())
        lsh.insert(str(i), m1)
        mh.append(m1)
    found = set()
    for i, m1 in enumerate(mh):
        for j in lsh.query(m1):
            j = int(j)
            if j != i and m1.jaccard(mh[j]) >= 0.8:
                found.add((min(i, j), max(i, j)))
    dt2 = time.perf_counter() - t0
    tp = len(found & truth)
    p, r = tp / max(len(found), 1), tp / len(truth)
    ours_tp = len(verified & truth)
    print(
        f"  datasketch MinHash LSH (128 perm, same 3-grams): pair precision {p:.3f} recall {r:.3f} "
        f"F1 {2 * p * r / max(p + r, 1e-9):.3f}, {dt2:.2f} s; ours: {ours_tp} true pairs verified "
        f"among the representatives (exact copies apart: {res.exact})"
    )


def identical_part() -> None:
    text = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat"
    t0 = time.perf_counter()
    res = dedup_texts([text] * 100_000)
    dt = time.perf_counter() - t0
    print(
        f"100,000 identical rows: {int(res.keep.sum())} kept, {res.pairs.shape[0]} candidate pairs, "
        f"{dt:.2f} s ({', '.join(f'{k} {v:.2f}' for k, v in res.timings.items())})"
    )


def read_part(path: str, repeats: int = 3) -> None:
    """The read step alone: JSONL rows parsed by orjson against the standard json, alternating."""
    import simhash_lab.datasets.jsonl as D

    fast = D._ORJSON
    times = {"orjson": [], "json": []}
    for _ in range(repeats):
        for name, loads in (("orjson", fast), ("json", None)):
            if name == "orjson" and loads is None:
                continue
            D._ORJSON = loads
            src = D.open_dataset(path, "text", "id")
            t0 = time.process_time()
            n = sum(len(t) for t, _, _ in src.chunks(8192))
            times[name].append(time.process_time() - t0)
    D._ORJSON = fast
    med = {k: statistics.median(v) for k, v in times.items() if v}
    size = os.path.getsize(path) / 1e6
    line = ", ".join(f"{k} {v:.2f} s CPU" for k, v in med.items())
    ratio = f"; json / orjson {med['json'] / med['orjson']:.2f}x" if "orjson" in med else ""
    print(f"read {n:,} JSONL rows ({size:.0f} MB): {line}{ratio} (medians of {repeats})")


def dataset_part(rows: int) -> None:
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(20_000)]
    d = tempfile.mkdtemp()
    path = os.path.join(d, "docs.jsonl")
    with open(path, "w") as f:
        base = []
        for i in range(rows):
            if base and rng.random() < 0.1:
                w = list(base[int(rng.integers(len(base)))])
                for p in rng.choice(len(w), 3, replace=False):
                    w[p] = vocab[int(rng.integers(len(vocab)))]
            else:
                w = [vocab[int(x)] for x in rng.zipf(1.3, 100) % len(vocab)]
                if len(base) < 50_000:
                    base.append(w)
            f.write(json.dumps({"id": i, "text": " ".join(w)}) + "\n")
    read_part(path)
    cmd = [sys.executable, "-m", "simhash_lab.cli", "dedup", path, "--id-column", "id", "--output",
           os.path.join(d, "kept.jsonl"), "--duplicates", os.path.join(d, "dups.csv"),
           "--report", os.path.join(d, "report.html")]  # fmt: skip
    t0 = time.perf_counter()
    p = subprocess.run(
        ["/usr/bin/time", "-f", "peak %M KiB", *cmd] if os.path.exists("/usr/bin/time") else cmd,
        capture_output=True, text=True,
    )  # fmt: skip
    dt = time.perf_counter() - t0
    print(f"{rows:,} JSONL rows end to end: exit {p.returncode}, {dt:.1f} s wall")
    for line in p.stderr.splitlines()[-3:]:
        print("  " + line)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--part", choices=["all", "copyright", "chinese", "identical", "dataset"], default="all")
    a = ap.parse_args()
    print(cpu(), load())
    if a.part in ("all", "copyright"):
        copyright_part(a.repeats)
    if a.part in ("all", "chinese"):
        chinese_part()
    if a.part in ("all", "identical"):
        identical_part()
    if a.part in ("all", "dataset"):
        dataset_part(a.rows)
    print(load())


if __name__ == "__main__":
    main()
