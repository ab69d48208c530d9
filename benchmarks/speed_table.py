"""The README's speed table in one dated run: each row ours beside its peer, ratios first.

    .venv/bin/python benchmarks/speed_table.py              # every row (~10 min on a loaded 2-core machine)
    .venv/bin/python benchmarks/speed_table.py --quick      # smaller sizes, one round (a smoke run)
    .venv/bin/python benchmarks/speed_table.py --readme README.md   # also put the table into the README

Every row runs ours and its peer in the same process, alternating (or in child processes that
alternate: the AVX-512 / AVX2 rows, the dedup runs), and gives medians and the median of the
per-pair ratios; one-thread rows are timed in CPU time (``time.process_time``), the rest in wall
time. The header holds the date, the CPU's model and SIMD flags (``/proc/cpuinfo``, read, never
assumed), the versions, the commit, and each row the load average (1 min) before and after it.
The table goes to stdout and, with the rows' details (per-step times, the peers' precision and
recall, where a fingerprint's time goes), to ``benchmarks/results/DATE-speed-table.md``.

"AVX2" is this CPU with every AVX-512 feature turned off in Numba's target (``bench_fp_isa``:
``NUMBA_CPU_FEATURES``, a cache of its own), not another make of CPU: it measures the vector width
alone. The peers that are not installed are named and their rows say so: ``pip install -e
".[bench]"`` (rensa, gaoya, with datasketch, simhash, xxhash), simhash-pybind as
``bench_index.py`` says (``pip install --no-deps --target build/peers/simhash_pybind
simhash-pybind``). Sizes are chosen so that the whole run fits in about ten minutes; each row says
its size, and ``--dedup-rows`` / ``--generated-rows`` / ``--jsonl-rows`` change the three largest.
The results file says how long its run took; generating the 1M JSONL rows the first time adds
about a minute and a half (they are kept in ``--data-dir``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import io
import json
import logging
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _peers  # noqa: E402,F401,I001  (RAYON_NUM_THREADS=1 before anything imports the Rust peers)
import bench_dedup as B  # noqa: E402
import numba  # noqa: E402
import numpy as np  # noqa: E402

THREADS = numba.get_num_threads()
BEGIN = "<!-- speed table: written by benchmarks/speed_table.py from here -->"
END = "<!-- speed table: to here -->"


@dataclass
class Row:
    ratio: str
    what: str
    ours: str
    peer: str
    load: tuple[float, float]

    def markdown(self) -> str:
        return (
            f"| {self.ratio} | {self.what} | {self.ours} | {self.peer} "
            f"| {self.load[0]:.1f}-{self.load[1]:.1f} |"
        )


DETAILS: list[str] = []  # what the table does not carry, for the results file


def note(text: str) -> None:
    print(text, flush=True)
    DETAILS.append(text)


def one_thread(fn):
    numba.set_num_threads(1)
    try:
        return fn()
    finally:
        numba.set_num_threads(THREADS)


def alternate(fns: dict, repeats: int, clock=time.process_time) -> dict[str, list[float]]:
    """Each function timed once a round, in turn (the first round's order reversed every other
    round), ``repeats`` rounds."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    names = list(fns)
    for r in range(repeats):
        for name in names if r % 2 == 0 else names[::-1]:
            t = clock()
            fns[name]()
            times[name].append(clock() - t)
    return times


def ratio_of(times: dict, slow: str, fast: str, scale: float = 1.0) -> float:
    """Median of the per-round ratios slow / fast (times ``scale``: per-unit when the two ran on
    different amounts)."""
    return statistics.median(s / f * scale for s, f in zip(times[slow], times[fast]))


def med(xs) -> float:
    return statistics.median(xs)


# -- rows ---------------------------------------------------------------------------------------------


def row_fingerprints(docs: list[str], repeats: int) -> Row:
    import simhash as leonsim

    from simhash_lab import Simhasher
    from simhash_lab.tokenize import words

    l0 = B.load()
    h = Simhasher()
    h.fingerprints(docs[:50])
    n_tok = sum(len(words()(d)) for d in docs[:500]) * len(docs) / 500
    sub = [words()(d) for d in docs[:500]]
    sub_tok = sum(map(len, sub))
    t = one_thread(
        lambda: alternate(
            {"ours": lambda: h.fingerprints(docs), "peer": lambda: [leonsim.Simhash(f).value for f in sub]},
            repeats,
        )
    )
    ours = n_tok / med(t["ours"]) / 1e6
    peer = sub_tok / med(t["peer"]) / 1e6
    r = ratio_of(t, "peer", "ours", n_tok / sub_tok)
    return Row(
        f"**{r:.0f}x**",
        f"`Simhasher().fingerprints`, {len(docs):,} docs of 200 words of Python's docs as they are "
        f"(mixed case, punctuation), 1 thread, CPU time, AVX-512 (this process)",
        f"{ours:.0f} M tokens/s",
        f"`simhash.Simhash(words)` on the same words ({len(sub)} docs): {peer:.2f} M tokens/s",
        (l0, B.load()),
    )


def rows_isa(docs: int, repeats: int, rounds: int) -> list[Row]:
    import bench_fp_isa as ISA

    l0 = B.load()
    got = ISA.measure(ISA.TEXTS, repeats, rounds, docs, breakdown=True)
    mhz = ISA.cpu_mhz()
    label = {
        "prose": "Python's docs as they are (mixed case, punctuation; 4.9 bytes a token)",
        "long": "tokens of 17 bytes or more (the docs' words joined by `_`; 20 bytes a token)",
        "words": "lowercased words only (no case, no punctuation)",
    }
    rows = []
    note(f"\nFingerprint rates, child processes alternating, {rounds} pairs of {repeats} calls each:")
    for text in ISA.TEXTS:
        a, b = got[text, "AVX-512"], got[text, "AVX2"]
        for isa in ISA.ISAS:
            note(ISA.describe(text, isa, got[text, isa]))
        cyc = (lambda m: f", {mhz / m['rate']:.0f} cycles a token") if mhz else (lambda m: "")
        loads = a["loads"] + b["loads"]
        rows.append(
            Row(
                f"AVX-512 / AVX2 **{a['rate'] / b['rate']:.2f}x**",
                f"`Simhasher().fingerprints`, {docs:,} docs of 200 tokens: {label[text]}; 1 thread, CPU "
                f"time; tokens = the tokenizer's words",
                f"AVX-512: {a['rate']:.0f} M tokens/s{cyc(a)}",
                f"the same Xeon, Numba's target without AVX-512 (AVX2): {b['rate']:.0f} M tokens/s{cyc(b)}",
                (min(loads), max(loads)),
            )
        )
    rows[0].load = (l0, rows[0].load[1])
    return rows


def row_cold_start() -> Row:
    from bench_fingerprint import cold_start

    l0 = B.load()
    return Row(
        "-",
        "new process: import + a first `Simhasher().fingerprint`, kernels in the cache (after "
        "`simhash-lab warmup`), wall, median of 3",
        f"{cold_start():.2f} s",
        "",
        (l0, B.load()),
    )


def row_leonsim(docs: list[str], repeats: int) -> Row:
    import simhash as leonsim

    from simhash_lab import presets

    l0 = B.load()
    ld = docs[:1000]
    same = np.array_equal(
        presets.LEONSIM.fingerprints(ld), np.array([leonsim.Simhash(d).value for d in ld], np.uint64)
    )
    t = one_thread(
        lambda: alternate(
            {
                "ours": lambda: presets.LEONSIM.fingerprints(ld, parallel=False),
                "peer": lambda: [leonsim.Simhash(d).value for d in ld],
            },
            repeats,
        )
    )
    return Row(
        f"**{ratio_of(t, 'peer', 'ours'):.1f}x**",
        f"`presets.LEONSIM.fingerprints`, {len(ld):,} docs, 1 thread, CPU time (identical values: {same})",
        f"{len(ld) / med(t['ours']):,.0f} docs/s",
        f"`simhash.Simhash(text).value`: {len(ld) / med(t['peer']):,.0f} docs/s",
        (l0, B.load()),
    )


def row_token_lists(docs: list[str], repeats: int) -> Row:
    from bench_fingerprint import pybind_compute

    from simhash_lab import Simhasher
    from simhash_lab.tokenize import words

    l0 = B.load()
    what = f"`Simhasher().fingerprints(token lists)`, {len(docs):,} docs as lists of str, 1 thread, CPU time"
    compute = pybind_compute()
    if compute is None:
        return Row("-", what, "", "simhash-pybind not installed (see this script's docstring)", (l0, l0))
    import xxhash

    xxh3 = xxhash.xxh3_64_intdigest
    feats = [words()(d) for d in docs]
    n = sum(map(len, feats))
    h = Simhasher()
    assert compute([xxh3(t.encode()) for t in feats[0]]) == int(h.fingerprint(feats[0]))
    t = one_thread(
        lambda: alternate(
            {
                "ours": lambda: h.fingerprints(feats, parallel=False),
                "peer": lambda: [compute([xxh3(t.encode()) for t in f]) for f in feats],
            },
            repeats,
        )
    )
    return Row(
        f"**{ratio_of(t, 'peer', 'ours'):.1f}x**",
        what,
        f"{n / med(t['ours']) / 1e6:.1f} M tokens/s",
        f"simhash-pybind `compute` + `xxhash.xxh3_64`: {n / med(t['peer']) / 1e6:.1f} M tokens/s "
        "(same values)",
        (l0, B.load()),
    )


def row_hamming(n: int, repeats: int) -> Row:
    from simhash_lab import hamming

    l0 = B.load()
    a = np.random.default_rng(0).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
    q = np.uint64(0x0123456789ABCDEF)
    assert np.array_equal(hamming(a, q), np.bitwise_count(a ^ q))
    fns = {"ours": lambda: hamming(a, q), "peer": lambda: np.bitwise_count(a ^ q)}
    t1 = one_thread(lambda: alternate(fns, repeats))
    t = alternate(fns, repeats, time.perf_counter)
    return Row(
        f"**{ratio_of(t1, 'peer', 'ours'):.1f}x** (1 thread, CPU); {ratio_of(t, 'peer', 'ours'):.1f}x "
        f"({THREADS} threads, wall)",
        f"`hamming({n:,} uint64, scalar)`",
        f"{n / med(t1['ours']) / 1e9:.2f} G/s on 1 thread (CPU time); {n / med(t['ours']) / 1e9:.2f} G/s "
        f"on {THREADS} (wall)",
        f"`np.bitwise_count(a ^ q)`: {n / med(t1['peer']) / 1e9:.2f} G/s (CPU time)",
        (l0, B.load()),
    )


def row_query(n: int, repeats: int) -> Row:
    import bench_index as X

    l0 = B.load()
    _, ours, brute, queries, brute_q = X.query_case(np.random.default_rng(1), n)
    t = alternate({"ours": ours, "peer": brute}, 2 * repeats + 1, time.perf_counter)
    return Row(
        f"**{ratio_of(t, 'peer', 'ours', len(queries) / len(brute_q)):.0f}x**",
        f"`SimhashIndex.query`, {n:,} random fingerprints, k = 3, wall (half stored, half random)",
        f"{med(t['ours']) / len(queries) * 1e6:.1f} µs",
        f"NumPy brute force: {med(t['peer']) / len(brute_q) * 1e3:.2f} ms",
        (l0, B.load()),
    )


def row_simhash_index(n: int, repeats: int) -> Row:
    import bench_index as X
    from simhash import Simhash
    from simhash import SimhashIndex as PeerIndex

    logging.getLogger("simhash").setLevel(logging.ERROR)
    l0 = B.load()
    k = 3
    rng = np.random.default_rng(2)
    fps = X.plant(rng, X.random_fps(rng, n), n // 20, k)
    objs = [(str(i), Simhash(int(v))) for i, v in enumerate(fps)]

    def peer():
        index = PeerIndex(objs, f=64, k=k)
        return [index.get_near_dups(s) for _, s in objs]

    theirs = {(i, int(j)) for i, dups in enumerate(peer()) for j in dups if i < int(j)}
    mine = {(int(i), int(j)) for i, j, _ in X.pairs_job(fps, k)}
    assert theirs == mine, (len(theirs), len(mine))
    t = alternate({"ours": lambda: X.pairs_job(fps, k), "peer": peer}, repeats, time.perf_counter)
    return Row(
        f"**{ratio_of(t, 'peer', 'ours'):.0f}x**",
        f"build + all pairs, {n:,} fingerprints ({len(mine):,} pairs, the same), k = 3, wall",
        f"{med(t['ours']) * 1e3:.1f} ms",
        f"`simhash.SimhashIndex` + `get_near_dups`: {med(t['peer']):.2f} s",
        (l0, B.load()),
    )


def row_find_all(n: int, k: int, blocks: int, repeats: int) -> Row:
    import bench_index as X

    l0 = B.load()
    what = f"all pairs, {n:,} random fingerprints (1 % planted), k = {k}"
    fa = X.find_all_module()
    rng = np.random.default_rng(3 + k)
    fps = X.plant(rng, X.random_fps(rng, n), n // 100, k, min_flips=1)
    got = X.pairs_job(fps, k)
    cpu1 = one_thread(lambda: alternate({"ours": lambda: X.pairs_job(fps, k)}, repeats)["ours"])
    wall = alternate({"ours": lambda: X.pairs_job(fps, k)}, repeats, time.perf_counter)["ours"]
    ours = (
        f"{med(cpu1):.2f} s of CPU on 1 thread; {med(wall):.2f} s wall on {THREADS} ({got.shape[0]:,} pairs)"
    )
    if fa is None:
        return Row(
            "-", what, ours, "simhash-pybind not installed (see this script's docstring)", (l0, B.load())
        )
    values = {int(x) for x in fps}
    c0 = time.process_time()
    found = fa.find_all(values, blocks, k)
    peer = time.process_time() - c0
    mine = {(min(int(fps[i]), int(fps[j])), max(int(fps[i]), int(fps[j]))) for i, j, _ in got}
    same = {(min(x, y), max(x, y)) for x, y in found} == mine
    return Row(
        f"**{peer / med(cpu1):.1f}x** (CPU, 1 thread each)",
        what + f"; same pairs: {same}",
        ours,
        f"simhash-pybind `find_all`, {blocks} blocks, one run: {peer:.1f} s of CPU",
        (l0, B.load()),
    )


def jsonl(n: int, data_dir: str) -> str:
    """``bench_dedup.make_million``'s N rows, generated once into ``data_dir`` and read again."""
    path = os.path.join(data_dir, f"docs-{n}.jsonl")
    if not os.path.exists(path):
        os.makedirs(data_dir, exist_ok=True)
        t0 = time.perf_counter()
        B.make_million(path + ".part", n)
        os.replace(path + ".part", path)
        note(f"generated {path} ({os.path.getsize(path) / 1e6:.0f} MB) in {time.perf_counter() - t0:.0f} s")
    return path


def rows_jsonl(n: int, data_dir: str, repeats: int) -> list[Row]:
    """Dedup end to end on N generated JSONL rows (``dedup_table``, children: CPU on one thread,
    wall on one and on all cores, peak RSS), and its candidates step by bands beside the index at
    the same k."""
    path = jsonl(n, data_dir)
    out = os.path.join(data_dir, "out-speed-table")
    l0 = B.load()
    runs: dict[str, list] = {"cpu1": [], "index": [], "wall1": [], "walln": []}
    for _ in range(repeats):
        runs["cpu1"].append(B._child(path, out, 1, "cpu"))
        runs["index"].append(B._child(path, out, 1, "cpu", k=runs["cpu1"][-1]["k"], candidates="index"))
        runs["wall1"].append(B._child(path, out, 1, "wall"))
        runs["walln"].append(B._child(path, out, THREADS, "wall"))
    l1 = B.load()
    c = runs["cpu1"][-1]
    steps = list(c["timings"])
    step = {s: med(r["timings"][s] for r in runs["cpu1"]) for s in steps}
    note(f"\nDedup end to end, {n:,} generated JSONL rows (`simhash-lab dedup`'s `dedup_table`, child "
         f"processes, {repeats} rounds): k = {c['k']} (calibrated), {c['candidates']:,} candidates, "
         f"{c['verified']:,} verified, {c['dropped']:,} dropped; CPU s per step on 1 thread (medians): "
         + ", ".join(f"{s} {v:.2f}" for s, v in step.items()))  # fmt: skip
    cand_b = [r["timings"]["candidates"] for r in runs["cpu1"]]
    cand_i = [r["timings"]["candidates"] for r in runs["index"]]
    i = runs["index"][-1]
    speed = [a["wall"] / b["wall"] for a, b in zip(runs["wall1"], runs["walln"])]
    rss = med(r["maxrss_mib"] for r in runs["cpu1"])
    return [
        Row(
            f"{THREADS} threads / 1: **{med(speed):.2f}x** (wall)",
            f"dedup end to end, `simhash-lab dedup` (`dedup_table`, `--jaccard 0.8`), {n:,} generated JSONL "
            f"rows ({os.path.getsize(path) / 1e6:.0f} MB; `bench_dedup.make_million`), a child process each",
            f"{med(r['cpu'] for r in runs['cpu1']):.1f} s of CPU on 1 thread, peak {rss:.0f} MiB; wall "
            f"{med(r['wall'] for r in runs['wall1']):.1f} s on 1 thread, "
            f"{med(r['wall'] for r in runs['walln']):.1f} s on {THREADS}",
            "(no peer runs this pipeline here; the per-step times are in the results file)",
            (l0, l1),
        ),
        Row(
            f"**{med(x / y for x, y in zip(cand_i, cand_b)):.1f}x**",
            f"dedup's candidates step, the same {n:,} rows, k = {c['k']}, 1 thread, CPU time",
            f'`candidates="bands"` ({bands_of(c["method"])}): {med(cand_b):.2f} s, '
            f"{c['verified']:,} verified",
            f'`candidates="index"` (every pair within k): {med(cand_i):.2f} s, {i["verified"]:,} verified',
            (l0, l1),
        ),
    ]


def bands_of(method) -> str:
    """'16 bands of 6 rows' from a run's ``settings["candidates"]``, or what it holds."""
    if isinstance(method, dict) and "bands" in method:
        return f"{method['bands']} bands of {method['rows']} rows"
    return str(method)


def rows_dedup_peers(
    n: int | None, repeats: int, truth_sample: int, data_dir: str | None = None, corpus: str = "generated"
) -> list[Row]:
    """Ours against the MinHash LSH peers on ``n`` rows (None: all there are) of ``corpus``:
    "prose" (rows of Python's docs sharing runs of words), "docstrings" (the installed Python
    files' docstrings and comments, kept in ``data_dir``) or "generated"
    (``bench_dedup.make_million``'s rows, kept in ``data_dir``)."""
    from _corpus import docstring_texts, varied_documents

    l0 = B.load()
    if corpus == "prose":
        texts = varied_documents(n)
        corpus = "rows of real prose (Python's docs, rows sharing runs of words)"
        about = "rows of Python's docs (`_corpus.varied_documents`: real prose, rows sharing runs of words)"
    elif corpus == "docstrings":
        texts = docstring_texts(data_dir, n)
        n = len(texts)
        corpus = (
            f"real rows (docstrings and comments of the installed Python files: {len(set(texts)):,} "
            f"distinct, {sum(map(len, texts)) / n:.0f} characters a row)"
        )
        about = "real rows (`_corpus.docstring_rows`: installed Python files' docstrings and comments)"
    else:
        with open(jsonl(n, data_dir), encoding="utf-8") as f:
            texts = [json.loads(line)["text"] for line in f]
        corpus = "generated rows (the docs' words at random, 10 % edited copies)"
        about = "generated rows (`bench_dedup.make_million`: the docs' words at random, 10 % edited copies)"
    rows_s, truth = B._sample_truth(texts, truth_sample)
    run = B.against_peers(texts, repeats)
    scores = {name: B._sample_scores(p, rows_s, truth, n) for name, p in run["pairs"].items()}
    l1 = B.load()
    note(f"\n`dedup_texts(jaccard=0.8)` against the MinHash LSH peers, {n:,} {about}, {repeats} alternating "
         f"rounds; truth: the {len(truth):,} pairs at Jaccard >= 0.8 touching {rows_s.size:,} "
         "sampled rows:")  # fmt: skip
    for line in B.peer_table(run, lambda p: B._sample_scores(p, rows_s, truth, n)):
        note(line)
    t = run["times"]
    f1 = lambda p, r: 2 * p * r / (p + r) if p + r else 0.0  # noqa: E731
    po, ro = scores["ours"]
    out = []
    for name in (x for x in t if x not in ("ours", "shingles")):
        both = med((s + x) / o for s, x, o in zip(t["shingles"], t[name], t["ours"]))
        own = med(x / o for x, o in zip(t[name], t["ours"]))
        p, r = scores[name]
        i = run["info"][name]
        out.append(
            Row(
                f"**{both:.1f}x** (its own part alone: {own:.1f}x)",
                f"`dedup_texts(jaccard=0.8)`, {n:,} {corpus}, 1 thread, CPU time; "
                f"F1 against the exact truth of {rows_s.size:,} sampled rows' {len(truth):,} pairs",
                f"{med(t['ours']):.2f} s, F1 {f1(po, ro):.3f} (precision {po:.3f}, recall {ro:.3f})",
                f"{name} {run['info']['versions'][name]} MinHash LSH, 128 permutations (b = {i['b']}, "
                f"r = {i['r']}) on the same word 3-shingles: {med(t[name]) + med(t['shingles']):.1f} s "
                f"({med(t['shingles']):.1f} of them making the shingles in Python), F1 {f1(p, r):.3f} "
                f"(precision {p:.3f}, recall {r:.3f})",
                (l0, l1),
            )
        )
    missing = {"rensa", "gaoya"} - set(t)
    if missing:
        note(f"not installed, no row: {', '.join(sorted(missing))} (pip install -e '.[bench]')")
    return out


# -- the run --------------------------------------------------------------------------------------------


def header() -> list[str]:
    flags = set()
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    avx512 = sorted(f for f in flags if f.startswith("avx512"))
    try:
        commit = subprocess.run(
            ["git", "-C", HERE, "describe", "--always", "--dirty"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    from importlib.metadata import PackageNotFoundError, version

    vers = []
    for name in ("numpy", "numba", "simhash", "datasketch", "rensa", "gaoya"):
        try:
            vers.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            vers.append(f"{name} not installed")
    now = datetime.datetime.now(datetime.timezone.utc)
    return [
        f"Measured {now:%Y-%m-%d %H:%M} UTC by `benchmarks/speed_table.py` at commit {commit}, on "
        f"{B.cpu_info()} (AVX-512 flags: {' '.join(avx512) or 'none'}), {platform.system()}, "
        f"Python {platform.python_version()}, {', '.join(vers)}; {THREADS} Numba threads where a row "
        f"says wall. The machine is shared: the load average (1 min) before and after each row is "
        f"in its last column; ratios move by about ±25 % between runs at such loads.",
    ]


def table(rows: list[Row]) -> list[str]:
    return [
        "| ratio (peer / ours) | what | ours | peer | load |",
        "|---|---|---|---|---|",
        *(r.markdown() for r in rows),
    ]


def put_in_readme(path: str, block: list[str]) -> None:
    """Replace what lies between the README's two speed-table markers by ``block``."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    pat = re.compile(re.escape(BEGIN) + r"\n.*?\n" + re.escape(END), re.S)
    if not pat.search(text):
        raise SystemExit(f"{path}: no {BEGIN!r} ... {END!r} markers to write the table between")
    text = pat.sub(lambda _: "\n".join([BEGIN, *block, END]), text, count=1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, one round: a smoke run")
    ap.add_argument("--dedup-rows", type=int, help="rows of real prose against the MinHash peers (50,000)")
    ap.add_argument("--generated-rows", type=int, help="generated rows against the MinHash peers (100,000)")
    ap.add_argument("--jsonl-rows", type=int, help="generated JSONL rows deduplicated end to end (1,000,000)")
    ap.add_argument("--data-dir", default="/tmp/simhash-lab-bench", help="where the JSONL rows are kept")
    ap.add_argument("--out", help="the results file (default benchmarks/results/DATE-speed-table.md)")
    ap.add_argument("--readme", help="also write the table into this README, between its markers")
    a = ap.parse_args()
    q = a.quick
    reps = 2 if q else 5
    dedup_rows = a.dedup_rows or (5_000 if q else 50_000)
    jsonl_rows = a.jsonl_rows or (20_000 if q else 1_000_000)
    gen_rows = a.generated_rows or (5_000 if q else 100_000)
    t_start = time.perf_counter()
    head = header()
    print(head[0], flush=True)
    from _corpus import documents

    docs = documents(2_000 if q else 10_000, 200)
    rows: list[Row] = []
    steps = [
        ("fingerprints against simhash", lambda: [row_fingerprints(docs, reps)]),
        ("AVX-512 against AVX2", lambda: rows_isa(2_000 if q else 10_000, reps, 1 if q else 2)),
        ("LEONSIM", lambda: [row_leonsim(docs, reps)]),
        ("cold start", lambda: [row_cold_start()]),
        ("token lists", lambda: [row_token_lists(docs[:2_000], max(2, reps - 2))]),
        ("hamming", lambda: [row_hamming(2_000_000 if q else 10_000_000, 2 * reps)]),
        ("query", lambda: [row_query(200_000 if q else 1_000_000, reps)]),
        ("SimhashIndex against simhash", lambda: [row_simhash_index(5_000 if q else 20_000, 3)]),
        ("k = 6 against find_all", lambda: [row_find_all(200_000 if q else 1_000_000, 6, 8, 3)]),
        ("k = 10 against find_all", lambda: [row_find_all(50_000 if q else 200_000, 10, 13, 3)]),
        (
            "dedup against MinHash LSH, real rows",
            lambda: rows_dedup_peers(5_000 if q else None, 1 if q else 2, 2_000, a.data_dir, "docstrings"),
        ),
        (
            "dedup against MinHash LSH, prose",
            lambda: rows_dedup_peers(dedup_rows, 1 if q else 2, 2_000, corpus="prose"),
        ),
        (
            "dedup against MinHash LSH, generated",
            lambda: rows_dedup_peers(gen_rows, 1 if q else 2, 2_000, a.data_dir, "generated"),
        ),
        ("dedup end to end", lambda: rows_jsonl(jsonl_rows, a.data_dir, 1 if q else 2)),
    ]
    for name, fn in steps:
        t0 = time.perf_counter()
        l0 = B.load()
        try:
            got = fn()
        except Exception as e:  # one row's failure (a peer missing, an API moved on) is said, not fatal
            import traceback

            note(f"\n{name} failed:\n{traceback.format_exc()}")
            got = [Row("-", name, f"failed: {type(e).__name__}: {str(e)[:200]}", "", (l0, B.load()))]
        rows.extend(got)
        for r in got:
            print(r.markdown(), flush=True)
        print(f"  ({name}: {time.perf_counter() - t0:.0f} s)", flush=True)
    took = time.perf_counter() - t_start
    block = [*head, "", *table(rows)]
    print("\n" + "\n".join(block))
    print(f"\nthe whole run: {took / 60:.1f} min")
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out = a.out or os.path.join(HERE, "results", f"{day}-speed-table.md")
    buf = io.StringIO()
    buf.write(f"# {day}: the README's speed table, one run (`benchmarks/speed_table.py`)\n\n")
    buf.write("\n".join(block) + "\n\n## Details\n\n```\n" + "\n".join(DETAILS).strip() + "\n```\n")
    buf.write(f"\nThe whole run took {took / 60:.1f} min; command: `{' '.join(sys.argv)}`.\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write(buf.getvalue())
    print(f"wrote {out}")
    if a.readme:
        put_in_readme(a.readme, block)
        print(f"wrote the table into {a.readme}")


if __name__ == "__main__":
    main()
