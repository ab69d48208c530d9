"""Verified dedup against labels and against datasketch, and 1M JSONL documents end to end.

    .venv/bin/python benchmarks/bench_dedup.py                 # both parts (minutes)
    .venv/bin/python benchmarks/bench_dedup.py --part labelled # F1 and speed against datasketch
    .venv/bin/python benchmarks/bench_dedup.py --part million  # 1M JSONL rows, time and peak memory
    .venv/bin/python benchmarks/bench_dedup.py --rows 200000   # per step, bands vs index, datasketch
    .venv/bin/python benchmarks/bench_dedup.py --rows 1000000 --against ../main/.venv/bin/python \
        --out-dir /tmp/out                                     # before/after, alternating children

Part 1, a labelled corpus of real text nobody here wrote: Python's reference documentation
(``pydoc_data.topics``, cut into documents) and the copyright files and READMEs under
``/usr/share/doc``, with near-duplicates planted by known edits (:mod:`simhash_lab.course.corpus`:
typos, word deletions, insertions, replacements, a sentence swap, a header line) beside the natural
ones (Debian's copyright files repeat whole licences). Truth: exact Jaccard similarity of word
3-shingles >= 0.8, over all pairs (a sparse product). Each method runs on the same texts in the
same process, alternating, ``--repeats`` times (medians):

* ours, recommended: ``dedup_texts(texts, jaccard=0.8)`` (word 3-shingles, binary weights, k
  calibrated on a sample, exact Jaccard verification, complete-linkage clusters): the verified
  pairs; timed with Numba's threads (all the machine's cores) and again on one thread (MinHash
  LSH runs on one: the same CPU on both sides, and on a loaded machine the faster of the two);
* ours, ``dedup_texts(texts)``, its defaults (the first version's were words, TF weights, k = 3,
  unverified; since ``DedupSettings`` they are the row above's, ``jaccard=0.8``);
* datasketch, rensa and gaoya on the same shingles, one thread, CPU time (:func:`against_peers`);
* datasketch MinHash LSH at threshold 0.8 (128 permutations, its own banding), pairs kept when the
  estimated Jaccard is >= 0.8.

It also checks every cluster, for both linkages: each dropped document against its kept one,
every two members, and the kept documents left verified-near each other (the price of complete
linkage: a document near a kept one but not near every member of its cluster stays).

Part 3 (``--rows N``): N generated JSONL rows (as part 2's) through ``dedup_table`` in child
processes: per-step CPU time (one thread: the steps' clock reads the process's CPU time) and wall
time (one thread, then all the machine's cores), peak memory (max RSS) of each child, and the
candidates step by MinHash bands (``candidates="bands"``, k calibrated) beside every pair within
the same k (the index, ``k`` given) in the same run; then, on a subset (``--subset``, default 100k rows),
ours on one thread (``--candidates``, bands by default) beside datasketch MinHash LSH (128
permutations, threshold 0.8) and the precision and recall of both against the exact Jaccard
truth of the pairs that touch a random sample of rows (``--truth-sample``; a sparse product of
the sampled rows' shingle sets with all); ``--subset-only`` runs that comparison alone.
``--against PYTHON`` (another tree's interpreter) runs the children of both trees alternately
instead (per step CPU and wall, medians, each pair's ratio and load, and whether both wrote the
same bytes); ``--out-dir`` says where the children write (by default beside the data).
The CPU's model, its SIMD flags (``/proc/cpuinfo``, read, never assumed) and the load average are
printed beside the figures: on a shared machine compare the ratios, not the seconds.

Part 2: 1M generated JSONL documents (words drawn from the vocabulary of part 1's corpus, about 100
a document; 10 % are copies of earlier ones with up to 3 % of their words replaced) through the
command line, ``simhash-lab dedup docs.jsonl --column text --id-column id --jaccard 0.8 --output
kept.jsonl --duplicates dups.csv``, in a subprocess whose peak memory (its own VmHWM, printed at
exit) is read.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time

import numba
import numpy as np

from simhash_lab.course import corpus as C
from simhash_lab.course.compare import jaccard_all_pairs, minhash_lsh_pairs, pair_scores
from simhash_lab.dedup import dedup_texts

T = 0.8


def load() -> float:
    return os.getloadavg()[0]


def debian_docs(max_bytes: int = 100_000) -> list[C.Doc]:
    paths = sorted(
        p
        for pat in ("/usr/share/doc/*/copyright", "/usr/share/doc/*/README*")
        for p in glob.glob(pat)
        if os.path.isfile(p) and not p.endswith(".gz") and os.path.getsize(p) <= max_bytes
    )
    out = []
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        if len(text.split()) >= 20:
            out.append(C.Doc(p, text))
    return out


def planted(docs: list[C.Doc], seed: int = 0, share: float = 0.4) -> tuple[list[str], list[str]]:
    """The documents, then edited copies of ``share`` of them (1 to 3 % of their words, sometimes
    a structural edit): names say which is which."""
    rng = random.Random(seed)
    vocab = sorted({w for d in docs[:300] for w in d.text.split() if w.isalpha()})
    texts = [d.text for d in docs]
    names = [d.name for d in docs]
    for d in docs:
        if rng.random() >= share:
            continue
        n = len(d.text.split())
        for v in range(rng.choice([1, 1, 2])):
            ops = [
                rng.choice(("typo", "delete", "insert", "replace"))
                for _ in range(max(1, round(rng.uniform(0.01, 0.03) * n)))
            ]
            if rng.random() < 0.3:
                ops.append(rng.choice(("swap", "boilerplate", "reflow")))
            texts.append(C.edits(d.text, ops, rng, vocab))
            names.append(f"{d.name}~edit{v}")
    return texts, names


def timed(fn, repeats: int):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, statistics.median(times)


def against_peers(texts: list[str], repeats: int, candidates: str = "bands") -> dict:
    """Ours (``dedup_texts(jaccard=0.8)``, one Numba thread) beside the MinHash LSH peers on the same
    texts, alternating, CPU time (``time.process_time``), ``repeats`` rounds: the shingle sets as str
    (``shingle_sets``, the same word 3-shingles; timed once a round, a cost every peer pays, since
    none reads our tokens), then datasketch, rensa and gaoya on those sets (:mod:`_peers`; the Rust
    ones when installed, on one rayon thread). Returns {"times": {name: [s]}, "pairs": {name: (m, 2)},
    "info": {name: dict}, "ours": the last DedupResult}."""
    import _peers as P

    from simhash_lab.course.compare import shingle_sets

    peers = {"datasketch": lambda s: P.datasketch_pairs(s, T)}
    have = P.available()
    if "rensa" in have:
        peers["rensa"] = lambda s: P.rensa_pairs(s, T)
    if "gaoya" in have:
        peers["gaoya"] = lambda s: P.gaoya_pairs(s, T)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    times: dict[str, list[float]] = {"ours": [], "shingles": [], **{k: [] for k in peers}}
    pairs, info, ours = {}, {}, None
    try:
        dedup_texts(texts[:200], jaccard=T, candidates=candidates)  # kernels loaded before timing
        for fn in peers.values():
            fn(shingle_sets(texts[:200], 3))
        for _ in range(repeats):
            c = time.process_time()
            ours = dedup_texts(texts, jaccard=T, candidates=candidates)
            times["ours"].append(time.process_time() - c)
            c = time.process_time()
            sets = shingle_sets(texts, 3)
            times["shingles"].append(time.process_time() - c)
            for name, fn in peers.items():
                c = time.process_time()
                got = fn(sets)
                times[name].append(time.process_time() - c)
                pairs[name], info[name] = got[0], got[2]
            del sets
    finally:
        numba.set_num_threads(threads)
    pairs["ours"] = ours.verified_pairs()[:, :2]
    info["versions"] = {"datasketch": _version("datasketch"), **have}
    return {"times": times, "pairs": pairs, "info": info, "ours": ours}


def _version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def peer_table(run: dict, scores) -> list[str]:
    """Markdown rows, ratios first: each peer's CPU time per row over ours (text to pairs: its
    shingling in Python included; and its own part alone, the shingles given), then the times
    and ``scores(pairs) -> (precision, recall)`` against the truth."""
    t = {k: statistics.median(v) for k, v in run["times"].items()}
    sh = run["times"]["shingles"]
    rows = [
        "| method (1 thread, CPU) | peer / ours, text to pairs | peer / ours, shingles given | CPU s "
        "| precision | recall | F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    f1 = lambda p, r: 2 * p * r / (p + r) if p + r else 0.0  # noqa: E731
    ours = run["ours"]
    p, r = scores(run["pairs"]["ours"])
    rows.append(f"| ours: `dedup_texts(jaccard=0.8)`, k = {ours.k}, {ours.settings['candidates']['method']}, "
                f"verified | 1 | 1 | {t['ours']:.2f} | {p:.4f} | {r:.4f} | {f1(p, r):.4f} |")  # fmt: skip
    for name in run["times"]:
        if name in ("ours", "shingles"):
            continue
        both = [(s + x) / o for s, x, o in zip(sh, run["times"][name], run["times"]["ours"])]
        own = [x / o for x, o in zip(run["times"][name], run["times"]["ours"])]
        p, r = scores(run["pairs"][name])
        i = run["info"][name]
        rows.append(
            f"| {name} {run['info']['versions'][name]} MinHash LSH, 128 perm, b = {i['b']}, r = {i['r']} "
            f"| **{statistics.median(both):.1f}x** | {statistics.median(own):.1f}x "
            f"| {t['shingles'] + t[name]:.2f} ({t[name]:.2f} + shingles {t['shingles']:.2f}) "
            f"| {p:.4f} | {r:.4f} | {f1(p, r):.4f} |"
        )
    steps = ", ".join(f"{k} {v:.2f}" for k, v in ours.timings.items())
    rows.append(f"\nours, the last round, seconds per step (wall, 1 thread): {steps}; "
                f"{ours.pairs.shape[0]:,} candidates, {ours.verified:,} verified")  # fmt: skip
    return rows


def cluster_check(res, texts) -> tuple[float, float, int, int]:
    """(lowest dropped-to-kept similarity, lowest similarity of any two members, member pairs below T,
    verified pairs of two kept documents)."""
    from simhash_lab.dedup import Shingler

    groups = res.groups
    verified = res.pairs[res.similarity >= T]
    kept_pairs = int(np.count_nonzero(res.keep[verified[:, 0]] & res.keep[verified[:, 1]]))
    if not groups:
        return 1.0, 1.0, 0, kept_pairs
    ind, dat = Shingler(3).sets(texts)
    a, b = [], []
    for g in groups:
        for x in range(len(g)):
            for y in range(x + 1, len(g)):
                a.append(g[x])
                b.append(g[y])
    sim = Shingler.jaccard(ind, dat, np.array(a), np.array(b))
    lows = float(res.duplicates.similarity.min()), float(sim.min()), int(np.count_nonzero(sim < T))
    return (*lows, kept_pairs)


def part_labelled(repeats: int) -> None:
    docs = C.python_docs() + debian_docs()
    texts, names = planted(docs)
    t0 = time.perf_counter()
    tp, tsim = jaccard_all_pairs(texts, n=3, jaccard=T)
    t_exact = time.perf_counter() - t0
    n_planted = sum("~edit" in n for n in names)
    print(f"corpus: {len(texts)} documents ({len(docs)} real: {len(C.python_docs())} from pydoc_data, "
          f"{len(docs) - len(C.python_docs())} from /usr/share/doc; {n_planted} planted copies); "
          f"truth: {len(tp)} pairs with Jaccard >= {T} (exact all pairs: {t_exact:.2f} s)")  # fmt: skip
    dedup_texts(texts[:50], jaccard=T)  # compiled kernels loaded before timing
    dedup_texts(texts[:50])
    minhash_lsh_pairs(texts[:50], threshold=T)
    runs = {"ours": [], "ours1": [], "defaults": [], "minhash": []}
    out = {}
    threads = numba.get_num_threads()
    step_times: list[dict] = []

    def one_thread(fn):
        numba.set_num_threads(1)
        try:
            return fn()
        finally:
            numba.set_num_threads(threads)

    print(f"load before: {load():.2f}; Numba threads: {threads}")
    for _ in range(repeats):  # alternating
        for name, fn in (
            ("ours", lambda: dedup_texts(texts, jaccard=T)),
            ("ours1", lambda: one_thread(lambda: dedup_texts(texts, jaccard=T))),
            ("defaults", lambda: dedup_texts(texts)),
            ("minhash", lambda: minhash_lsh_pairs(texts, threshold=T)),
        ):
            t0 = time.perf_counter()
            out[name] = fn()
            runs[name].append(time.perf_counter() - t0)
            if name == "ours":
                step_times.append(out[name].timings)
    med = {k: statistics.median(v) for k, v in runs.items()}
    ours = out["ours"]
    # every verified pair, each for every two members of the exact groups it joins (res.pairs holds
    # the groups' representatives alone: scored as they were, exact copies counted as misses)
    found = ours.verified_pairs()[:, :2]
    s_ours = pair_scores(found, tp)
    s_def = pair_scores(out["defaults"].verified_pairs()[:, :2], tp)
    s_mh = pair_scores(out["minhash"][0], tp)
    cal = ours.calibration
    info = out["minhash"][2]
    print(f"calibration: {cal.summary()}")
    print(
        f"{'method':<44} {'precision':>9} {'recall':>7} {'F1':>6} {'pairs':>7} "
        f"{'time (s)':>9} {'vs MinHash':>10}"
    )
    for label, s, t in (
        (f"ours: word 3-shingles, binary, k={ours.k}, J>=0.8", s_ours, med["ours"]),
        ("ours, the same on 1 thread", pair_scores(out["ours1"].verified_pairs()[:, :2], tp),
         med["ours1"]),
        ("ours, dedup_texts(texts): its defaults", s_def, med["defaults"]),
        (f"datasketch MinHash LSH (128 perm, b={info['b']}, r={info['r']})", s_mh, med["minhash"]),
    ):  # fmt: skip
        print(
            f"{label:<44} {s.precision:9.3f} {s.recall:7.3f} {s.f1:6.3f} {s.tp + s.fp:7d} {t:9.3f} "
            f"{med['minhash'] / t:9.1f}x"
        )
    ratios = [m / o for m, o in zip(runs["minhash"], runs["ours"])]
    ratios1 = [m / o for m, o in zip(runs["minhash"], runs["ours1"])]
    print(f"times over {repeats} alternating runs: ours {[round(x, 3) for x in runs['ours']]}, "
          f"ours on 1 thread {[round(x, 3) for x in runs['ours1']]}, "
          f"MinHash {[round(x, 3) for x in runs['minhash']]}; MinHash / ours per run "
          f"{[round(r, 1) for r in ratios]}, median {statistics.median(ratios):.1f}x; on 1 thread "
          f"{[round(r, 1) for r in ratios1]}, median {statistics.median(ratios1):.1f}x; "
          f"load after: {load():.2f}")  # fmt: skip
    steps = {s: statistics.median([t[s] for t in step_times]) for s in step_times[0]} if step_times else {}
    print("ours, per step (medians, s): " + ", ".join(f"{s} {v:.3f}" for s, v in steps.items()))
    star = dedup_texts(texts, jaccard=T, linkage="star")
    for name, res in (("complete, the default", ours), ("star", star)):
        lo_pair, lo_member, below, kept_pairs = cluster_check(res, texts)
        print(
            f"clusters ({name}): {len(res.groups)}, {len(res.duplicates)} dropped; lowest dropped-to-kept "
            f"similarity {lo_pair:.3f}; lowest member-member {lo_member:.3f} ({below} member pairs below "
            f"{T}); {kept_pairs} verified pairs of two kept documents"
        )
    print(f"\nagainst the MinHash LSH peers, one thread, CPU time, {repeats} alternating rounds "
          f"(load {load():.2f}):")  # fmt: skip
    run = against_peers(texts, repeats)
    print("\n".join(peer_table(run, lambda p: (pair_scores(p, tp).precision, pair_scores(p, tp).recall))))
    print(f"load after {load():.2f}")
    # the finding, on the copyright files alone
    lic = [d.text for d in debian_docs() if d.name.endswith("/copyright")]
    ltp, _ = jaccard_all_pairs(lic, n=3, jaccard=T)
    d = dedup_texts(lic)
    o = dedup_texts(lic, jaccard=T)
    print(f"Debian copyright files ({len(lic)}, {len(ltp)} true pairs): "
          f"defaults {pair_scores(d.verified_pairs()[:, :2], ltp)}; "
          f"ours (k={o.k}) {pair_scores(o.verified_pairs()[:, :2], ltp)}")  # fmt: skip


def make_million(path: str, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    words = sorted({w.lower() for d in C.python_docs() for w in d.text.split() if w.isalpha()})
    vocab = np.array(words)
    zipf = 1.0 / np.arange(1, len(vocab) + 1)
    p = zipf / zipf.sum()
    lengths = rng.integers(60, 140, size=n)
    with open(path, "w", encoding="utf-8") as f:
        made: list[list[str]] = []
        for i in range(n):
            if i > 1000 and rng.random() < 0.1:
                src = made[int(rng.integers(len(made)))]
                w = list(src)
                for j in rng.choice(
                    len(w), size=int(rng.integers(0, max(1, len(w) * 3 // 100) + 1)), replace=False
                ):
                    w[j] = vocab[int(rng.integers(len(vocab)))]
            else:
                w = list(vocab[rng.choice(len(vocab), size=int(lengths[i]), p=p)])
            if len(made) < 20000:
                made.append(w)
            elif rng.random() < 0.02:
                made[int(rng.integers(len(made)))] = w
            f.write(json.dumps({"id": f"doc{i}", "text": " ".join(w)}) + "\n")


# The command line in a child that prints its own peak resident set (VmHWM) to stderr at exit:
# ru_maxrss of the children would also count the pages of this process at the fork before exec.
_CLI_PEAK = (
    "import atexit, sys\n"
    "def _hwm():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM'):\n"
    "            print(line.strip(), file=sys.stderr)\n"
    "atexit.register(_hwm)\n"
    "from simhash_lab.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def part_million(n: int, data: str, memory_gib: float) -> None:
    if not os.path.exists(data):
        t0 = time.perf_counter()
        make_million(data, n)
        print(f"generated {data} ({os.path.getsize(data) / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
    out_dir = os.path.dirname(os.path.abspath(data))
    cmd = [sys.executable, "-c", _CLI_PEAK, "dedup", data, "--column", "text", "--id-column", "id",
           "--jaccard", "0.8", "--output", os.path.join(out_dir, "kept.jsonl"),
           "--duplicates", os.path.join(out_dir, "dups.csv")]  # fmt: skip
    limit = int(memory_gib * (1 << 30))
    print(f"load before: {load():.2f}; address space capped at {memory_gib} GiB")
    t0 = time.perf_counter()
    p = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)),
    )
    wall = time.perf_counter() - t0
    hwm = [line for line in p.stderr.splitlines() if line.startswith("VmHWM")]
    peak = int(hwm[-1].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak /= 1024
    print("\n".join(line for line in p.stderr.splitlines() if not line.startswith("VmHWM")).strip())
    print(
        f"exit {p.returncode}; {wall:.1f} s wall; peak memory (max RSS) {peak:.0f} MiB; "
        f"load after: {load():.2f}"
    )


def cpu_info() -> str:
    """The CPU's model and the SIMD features it reports (``/proc/cpuinfo`` flags), as found."""
    model, flags = platform.processor() or platform.machine(), set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name") and model in ("", platform.machine()):
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    break
    except OSError:
        return f"{model} (no /proc/cpuinfo: features unknown)"
    wanted = ("sse4_2", "popcnt", "avx2", "bmi2", "avx512f", "avx512bw", "avx512_vpopcntdq")
    simd = [f for f in wanted if f in flags]
    return f"{model}, {os.cpu_count()} logical CPUs, features: {' '.join(simd) or 'none of the listed'}"


_CHILD = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
if args["clock"] == "cpu":  # the steps' clock reads this process's CPU time (all its threads)
    time.perf_counter = time.process_time
from simhash_lab.dedup import dedup_table
def peak_kib():  # this process's own peak (VmHWM): ru_maxrss also counts the parent's pages at fork
    try:
        return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1])
    except (OSError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0, c0 = time.time(), time.process_time()
res = dedup_table(args["path"], column="text", id_column="id", jaccard=0.8, k=args["k"],
                  candidates=args["candidates"], output=args["out"] + "/kept.jsonl",
                  duplicates=args["out"] + "/dups.csv")
print(json.dumps({"timings": res.timings, "k": res.k, "candidates": int(res.pairs.shape[0]),
                  "verified": res.verified, "dropped": len(res.duplicates),
                  "method": res.settings["candidates"], "wall": time.time() - t0,
                  "cpu": time.process_time() - c0, "maxrss_mib": peak_kib() / 1024}))
"""


def _child(
    path: str, out: str, threads: int, clock: str, k=None, candidates="bands", python: str | None = None
) -> dict:
    """One run of ``dedup_table`` in a child process (``python``: another interpreter, another
    tree's virtual environment), the load average before and after it. The outputs of the run
    before are removed first, outside the timing: each run writes new files (replacing a 700 MB
    kept.jsonl made the rename free the old one's pages and blocks, 0.2 s of the write step)."""
    os.makedirs(out, exist_ok=True)
    for name in ("kept.jsonl", "dups.csv"):
        if os.path.exists(os.path.join(out, name)):
            os.unlink(os.path.join(out, name))
    os.sync()  # the removed files' blocks freed now, not during the next run
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    arg = json.dumps({"path": path, "out": out, "clock": clock, "k": k, "candidates": candidates})
    before = load()
    p = subprocess.run(
        [python or sys.executable, "-c", _CHILD, arg], capture_output=True, text=True, env=env, cwd="/"
    )
    if p.returncode:
        raise SystemExit(f"child failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    r = json.loads(p.stdout.strip().splitlines()[-1])
    r["load"] = (before, load())
    return r


def _sample_truth(texts: list[str], sample: int, seed: int = 1):
    """(sampled rows, {(i, j)} with exact Jaccard >= T touching them), from the shingle sets."""
    import scipy.sparse as sp

    from simhash_lab.shingles import Shingler

    ind, dat = Shingler(3).sets(texts)
    n = len(texts)
    rows = np.sort(np.random.default_rng(seed).choice(n, size=min(sample, n), replace=False))
    uniq, inv = np.unique(dat, return_inverse=True)
    x = sp.csr_matrix((np.ones(dat.size, np.float32), inv, ind), shape=(n, uniq.size))
    inter = (x[rows] @ x.T).tocoo()
    size = np.diff(ind)
    a, b, c = rows[inter.row], inter.col, inter.data
    ok = (a != b) & (c / (size[a] + size[b] - c) >= T)
    return rows, set(zip(np.minimum(a[ok], b[ok]).tolist(), np.maximum(a[ok], b[ok]).tolist()))


def _sample_scores(pairs: np.ndarray, rows: np.ndarray, truth: set, n: int) -> tuple[float, float]:
    """(precision, recall) of ``pairs`` (m, >= 2) restricted to those touching ``rows``."""
    touch = np.zeros(n, np.bool_)
    touch[rows] = True
    p = pairs[touch[pairs[:, 0]] | touch[pairs[:, 1]], :2]
    found = set(zip(np.minimum(p[:, 0], p[:, 1]).tolist(), np.maximum(p[:, 0], p[:, 1]).tolist()))
    tp = len(found & truth)
    return tp / max(len(found), 1), tp / max(len(truth), 1)


def part_rows(
    n: int, subset: int, truth_sample: int, repeats: int, data_dir: str, candidates: str = "bands",
    children: bool = True, out_dir: str | None = None, against: str | None = None, corpus: str = "generated",
    wall_only: bool = False,
) -> None:  # fmt: skip
    data = os.path.join(data_dir, f"docs-{n}.jsonl" if corpus == "generated" else f"docs-{corpus}-{n}.jsonl")
    os.makedirs(os.path.dirname(data), exist_ok=True)
    if not os.path.exists(data):
        t0 = time.perf_counter()
        if corpus == "generated":
            make_million(data, n)
        else:  # real prose: rows of 60 to 140 words sharing runs of words (_corpus.varied_documents),
            # or the installed Python files' docstrings (_corpus.docstring_rows: as many as there are)
            from _corpus import docstring_rows, varied_documents

            texts = varied_documents(n) if corpus == "pydoc" else docstring_rows(n)
            with open(data, "w", encoding="utf-8") as f:
                for i, t in enumerate(texts):
                    f.write(json.dumps({"id": f"doc{i}", "text": t}) + "\n")
        print(f"generated {data} ({os.path.getsize(data) / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
    if against:
        part_rows_against(data, n, repeats, out_dir or os.path.dirname(data), against, wall_only)
        return
    if children:
        part_rows_children(data, n, repeats, out_dir)
    part_subset(data, subset, truth_sample, repeats, candidates)


def part_rows_children(data: str, n: int, repeats: int, out_dir: str | None = None) -> None:
    """The N rows through ``dedup_table`` in child processes: per step CPU (one thread) and wall
    (one thread, all cores), bands beside the index at the same k, peak memory."""
    out = out_dir or os.path.dirname(data)
    cores = os.cpu_count() or 1
    print(f"{n} rows; load before {load():.2f}")
    runs = {"cpu1": [], "wall1": [], f"wall{cores}": [], "index_cpu1": []}
    for _ in range(repeats):  # alternating, so that the load's drift spreads over all of them
        runs["cpu1"].append(_child(data, out, 1, "cpu"))
        runs["index_cpu1"].append(_child(data, out, 1, "cpu", k=runs["cpu1"][-1]["k"], candidates="index"))
        runs["wall1"].append(_child(data, out, 1, "wall"))
        runs[f"wall{cores}"].append(_child(data, out, cores, "wall"))
    first = runs["cpu1"][0]
    steps = list(first["timings"])

    def med(name, key):
        return statistics.median(r["timings"].get(key, 0.0) if key in steps else r[key] for r in runs[name])

    print(f"k = {first['k']} (calibrated); candidates by {first['method']}; "
          f"{first['candidates']} candidates, {first['verified']} verified, {first['dropped']} dropped; "
          f"the index at k = {first['k']}: {runs['index_cpu1'][0]['candidates']} candidates, "
          f"{runs['index_cpu1'][0]['verified']} verified")  # fmt: skip
    print(f"{'step':<14} {'CPU 1 thread':>12} {'wall 1':>8} {f'wall {cores}':>8} {'1/' + str(cores):>6}")
    for st in steps + ["wall", "cpu"]:
        c1, w1, wn = med("cpu1", st), med("wall1", st), med(f"wall{cores}", st)
        print(f"{st:<14} {c1:12.2f} {w1:8.2f} {wn:8.2f} {w1 / wn if wn else float('nan'):5.2f}x")
    ci, cb = med("index_cpu1", "candidates"), med("cpu1", "candidates")
    print(f"candidates, CPU s on 1 thread: bands {cb:.2f}, every pair within k (index) {ci:.2f}: "
          f"{ci / cb:.1f}x")  # fmt: skip
    rss = {name: statistics.median(r["maxrss_mib"] for r in rs) for name, rs in runs.items()}
    print("peak RSS (MiB, median): " + ", ".join(f"{name} {v:.0f}" for name, v in rss.items()))
    print(f"load after {load():.2f}")


def part_rows_against(
    data: str, n: int, repeats: int, out_dir: str, against: str, wall_only: bool = False
) -> None:
    """This tree beside another (``against``: that tree's Python, e.g. ``../main/.venv/bin/python``)
    on the same rows, in alternating child processes: per step CPU on one thread and wall on one
    thread and on all cores, medians of ``repeats`` pairs, each pair's ratio with its load, peak
    memory, and whether both wrote the same files (kept rows, duplicates table). ``wall_only``:
    no one-thread CPU mode (the pairs of wall times come twice as often on a machine whose load
    moves)."""
    import filecmp

    cores = os.cpu_count() or 1
    modes = [("cpu1", 1, "cpu"), ("wall1", 1, "wall"), (f"wall{cores}", cores, "wall")]
    if wall_only:
        modes = modes[1:]
    trees = {"before": against, "after": sys.executable}
    runs: dict = {(m, t): [] for m, _, _ in modes for t in trees}
    print(f"{n} rows ({data}); before: {against}; after: {sys.executable}; outputs under {out_dir}")
    for rep in range(repeats):
        for mode, threads, clock in modes:
            order = list(trees) if rep % 2 == 0 else list(trees)[::-1]  # each first in turn
            for t in order:
                r = _child(data, os.path.join(out_dir, t), threads, clock, python=trees[t])
                runs[mode, t].append(r)
                print(f"  {mode:<6} {t:<6} {r['cpu']:6.2f} s CPU {r['wall']:6.2f} s wall "
                      f"{r['maxrss_mib']:5.0f} MiB  load {r['load'][0]:.2f}-{r['load'][1]:.2f}",
                      flush=True)  # fmt: skip
    same = all(
        filecmp.cmp(os.path.join(out_dir, "before", f), os.path.join(out_dir, "after", f), shallow=False)
        for f in ("kept.jsonl", "dups.csv")
    )
    print(f"kept.jsonl and dups.csv byte-identical before/after: {same}")
    steps = list(runs[modes[0][0], "after"][0]["timings"])

    def med(mode: str, t: str, key: str) -> float:
        rs = runs[mode, t]
        return statistics.median(r["timings"].get(key, 0.0) if key in steps else r[key] for r in rs)

    wn = f"wall{cores}"
    names = {"cpu1": "CPU1", "wall1": "wall1", wn: wn}
    print(f"{'step':<14} " + " ".join(f"{names[m] + ' before':>12} {'after':>7}" for m, _, _ in modes))
    for st in steps + ["wall", "cpu"]:
        print(f"{st:<14} " + " ".join(f"{med(m, 'before', st):12.2f} {med(m, 'after', st):7.2f}"
                                      for m, _, _ in modes))  # fmt: skip
    print("after/before per step, median of the pairs' ratios (above 1: slower after)")
    print(f"{'step':<14} " + " ".join(f"{m:>8}" for m, _, _ in modes))
    for st in steps + ["wall", "cpu"]:
        cells = []
        for mode, _, _ in modes:
            pairs = [
                (a["timings"].get(st, 0.0) if st in steps else a[st])
                / (b["timings"].get(st, 0.0) if st in steps else b[st])
                for b, a in zip(runs[mode, "before"], runs[mode, "after"])
                if (b["timings"].get(st, 0.0) if st in steps else b[st]) > 0
            ]
            cells.append(f"{statistics.median(pairs):8.3f}" if pairs else f"{'-':>8}")
        print(f"{st:<14} " + " ".join(cells))
    for mode, _, clock in modes:
        key = "cpu" if clock == "cpu" else "wall"
        pairs = [b[key] / a[key] for b, a in zip(runs[mode, "before"], runs[mode, "after"])]
        print(f"{mode}: before/after per pair {[round(x, 3) for x in pairs]}, median "
              f"{statistics.median(pairs):.3f}")  # fmt: skip
    for t in trees:
        sp = [a["wall"] / b["wall"] for a, b in zip(runs["wall1", t], runs[wn, t])]
        print(f"{t}: wall 1 thread / {cores} threads per pair {[round(x, 2) for x in sp]}, median "
              f"{statistics.median(sp):.2f}x")  # fmt: skip
    rss = {k: statistics.median(r["maxrss_mib"] for r in rs) for k, rs in runs.items()}
    print("peak RSS (MiB, median): " + ", ".join(f"{m} {t} {v:.0f}" for (m, t), v in rss.items()))


def part_subset(data: str, subset: int, truth_sample: int, repeats: int, candidates: str) -> None:
    """Ours against datasketch on the first ``subset`` rows, and both against the exact truth of
    a sample, alternating, one thread."""
    texts = []
    with open(data, encoding="utf-8") as f:
        for line in f:
            texts.append(json.loads(line)["text"])
            if len(texts) >= subset:
                break
    m = len(texts)
    t0 = time.perf_counter()
    rows, truth = _sample_truth(texts, truth_sample)
    print(f"\nsubset: {m} rows; truth: {len(truth)} pairs at Jaccard >= {T} touching {rows.size} "
          f"sampled rows ({time.perf_counter() - t0:.1f} s)")  # fmt: skip
    run = against_peers(texts, repeats, candidates)
    print("\n".join(peer_table(run, lambda p: _sample_scores(p, rows, truth, m))))
    print(f"medians of {repeats} alternating rounds; load after {load():.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=["labelled", "million", "both"], default="both")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--data", default="/tmp/simhash-lab-bench/docs.jsonl")
    ap.add_argument("--memory-gib", type=float, default=6.0)
    ap.add_argument("--rows", type=int, help="part 3 alone: N generated rows, per step, against datasketch")
    ap.add_argument("--subset", type=int, default=100_000, help="part 3: rows ours and datasketch run on")
    ap.add_argument("--candidates", default="bands", choices=["bands", "index"],
                    help="part 3: ours' candidates method beside datasketch on the subset")  # fmt: skip
    ap.add_argument("--data-dir", default="/tmp/simhash-lab-bench",
                    help="part 3: where docs-N.jsonl is generated once and read again")  # fmt: skip
    ap.add_argument("--out-dir", help="part 3: where the children write kept.jsonl and dups.csv "
                    "(default: beside the data)")  # fmt: skip
    ap.add_argument("--against", metavar="PYTHON",
                    help="part 3: another tree's Python, run alternately with this one")  # fmt: skip
    ap.add_argument("--corpus", default="generated", choices=["generated", "pydoc", "docstrings"],
                    help="part 3: generated rows (random words, 10 %% edited copies), real prose (pydoc: "
                    "Python's documentation cut into rows of 60-140 words that share runs of words; its 54k "
                    "words cycled, so heavy overlap past ~10k rows) or real rows at scale (docstrings: the "
                    "paragraphs of every installed Python file's docstrings, 60+ words a row, natural "
                    "near-duplicates; about 60k rows with the bench extra installed)")  # fmt: skip
    ap.add_argument("--truth-sample", type=int, default=2000, help="part 3: rows whose true pairs are found")
    ap.add_argument("--wall-only", action="store_true",
                    help="part 3 with --against: the wall modes only (1 thread, all cores)")  # fmt: skip
    ap.add_argument("--subset-only", action="store_true",
                    help="part 3: only ours against datasketch on the subset (no child runs)")  # fmt: skip
    args = ap.parse_args()
    print(f"{cpu_info()}; Python {platform.python_version()}, numba {numba.__version__}")
    if args.rows:
        part_rows(
            args.rows, args.subset, args.truth_sample, args.repeats, args.data_dir, args.candidates,
            children=not args.subset_only, out_dir=args.out_dir, against=args.against, corpus=args.corpus,
            wall_only=args.wall_only,
        )  # fmt: skip
        return
    if args.part in ("labelled", "both"):
        part_labelled(args.repeats)
    if args.part in ("million", "both"):
        os.makedirs(os.path.dirname(os.path.abspath(args.data)), exist_ok=True)
        part_million(args.n, args.data, args.memory_gib)


if __name__ == "__main__":
    main()
