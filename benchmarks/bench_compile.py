"""Where Numba compile time goes: per step, per kernel and per specialisation, from an empty cache.

Run: ``python benchmarks/bench_compile.py [--repeat N] [--top 25]
[--steps course|warmup|fingerprints|dedup_texts] [--cli] [--first] [--against TREE] [--tree TREE]``.

Each repeat runs the steps in a new process with an empty ``NUMBA_CACHE_DIR`` (a cold cache), then
again in a new process with that cache filled (warm), then times a third kind of process: import and
one fingerprint (what a learner's first cell costs after ``make lab``). Compile events come from
Numba's event API (``numba:compile``, one per kernel and signature, nested when a kernel's callees
compile while it is typed); a kernel's *self* time is its event's time minus its callees' events.

``--steps course`` (the default) is a fixed list of public-API calls, the same on every commit, so
that figures before and after a change compare; ``--steps warmup`` runs ``simhash_lab.warmup.steps()``,
what ``simhash-lab warmup`` runs, in one process; ``--steps fingerprints`` and ``--steps dedup_texts``
a library user's first call alone (``Simhasher().fingerprints`` or ``dedup_texts`` of 200 short
texts), so that the kernel list shows what that call compiles. ``--tree`` measures another tree.

``--cli`` runs the ``simhash-lab warmup`` command itself from an empty cache, with one process and
with the default number (alternately), and prints the CPU seconds of the command and its children
(the figure: on a shared machine wall time mostly measures the others' load), the wall seconds
and the kernels it compiled; then its second run and a first fingerprint after it. ``--first``
measures what a library user who never ran the warmup waits for: a new process, an empty cache,
``import simhash_lab`` and a first ``Simhasher().fingerprints(texts)``, or a first
``dedup_texts(texts)`` (with the CPU seconds spent inside LLVM's calls). ``--speed`` checks what
the compiled code does once compiled: the process's CPU seconds on the corpus (fingerprints,
shingle sets, a dedup) and a digest of the outputs. ``--against TREE`` (another tree's folder, run
with this interpreter, e.g. a ``git archive`` of main; or its own interpreter,
``../main/.venv/bin/python``) runs both trees alternately in ``--cli``, ``--first`` and
``--speed``: medians of each and the median of the pairs' ratios. The CPU's model and flags and
the load average are printed beside the figures: a cold compile takes longer, in CPU time too,
when another process competes for the core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = [""]

# the course's workload through the public API only (runs on any commit since the layout one)
COURSE_STEPS = r"""
import numpy as np
def course_steps():
    from simhash_lab import Simhasher, SimhashIndex, hamming, is_near, popcount, presets
    from simhash_lab.tokenize import char_ngrams, whitespace, word_shingles, words
    docs = ["Rust is safe and fast. " * 3, "hello world", "\u4f60\u597d \u4e16\u754c", ""] * 20
    def both(h):
        h.fingerprint(docs[0]); h.fingerprints(docs[:3], parallel=False); h.fingerprints(docs, parallel=True)
    fps = np.random.default_rng(0).integers(0, 2**63, 300_000, dtype=np.uint64)
    def index(n, layout="auto"):
        ix = SimhashIndex(k=3, layout=layout); ix.add_many(fps[:n]); ix.add_many(fps[:8] ^ np.uint64(1))
        ix.flush(); ix.query(int(fps[0])); ix.query_many(fps[:256]); ix.pairs(); ix.groups()
    return [
        ("default fingerprint", lambda: Simhasher().fingerprint("rust safe fast")),
        ("default fingerprints", lambda: both(Simhasher())),
        ("4-bit dict hash, trace", lambda: Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7})
            .trace("rust safe fast")),
        ("binary, IDF weights", lambda: (both(Simhasher(weights="binary")),
            both(Simhasher(weights={"rust": 2.0, "safe": 0.5})))),
        ("shingles, char n-grams", lambda: (both(Simhasher(tokenizer=word_shingles(2))),
            both(Simhasher(tokenizer=char_ngrams(3))))),
        ("presets", lambda: [both(p) for p in (presets.SEED_PYTHON, presets.SEED_RUST, presets.LEONSIM)]),
        ("features, tokens, dicts", lambda: (words()("a b"), Simhasher().fingerprint(["a", "b"]),
            Simhasher().fingerprint({"a": 2.0}), Simhasher().features("x y"))),
        ("hamming", lambda: (hamming(fps[:10], fps[1]), hamming(fps, 5), is_near(1, 3, 2),
            popcount(fps[:9]))),
        ("index (serial)", lambda: index(2_000)),
        ("index (parallel)", lambda: index(300_000)),
        ("index (scan)", lambda: index(500, "scan")),
    ]
"""

CHILD = r"""
import collections, json, sys, threading, time
t0 = time.perf_counter()
from llvmlite.binding import ffi  # CPU time in each of LLVM's entry points (every thread)
llvm_calls, _call = collections.Counter(), ffi._lib_fn_wrapper.__call__
def _timed(self, *a, **k):
    c = time.thread_time()
    try:
        return _call(self, *a, **k)
    finally:
        llvm_calls[self._cfn.__name__] += time.thread_time() - c
ffi._lib_fn_wrapper.__call__ = _timed
from numba.core import event
events, compiled, stack = [], [], threading.local()

class Recorder(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        st = getattr(stack, "s", None)
        if st is None:
            st = stack.s = []
        st.append([d.py_func.__module__ + "." + d.py_func.__qualname__, str(ev.data["args"]),
                   time.process_time(), 0.0])
    def on_end(self, ev):
        name, args, start, children = stack.s.pop()
        dt = time.process_time() - start
        if stack.s:
            stack.s[-1][3] += dt
        events.append(dict(name=name, args=args, total=dt, self=dt - children, step=CURRENT[0]))
        compiled.append((events[-1], ev.data["dispatcher"], tuple(ev.data["args"])))

event.register("numba:compile", Recorder())
CURRENT = ["import"]
STEPS_SRC = sys.argv[1]
which = sys.argv[2]
if which == "warmup":
    from simhash_lab.warmup import steps
    todo = steps()
elif which in ("fingerprints", "dedup_texts"):  # a library user's first call, nothing before it
    import simhash_lab
    texts = [f"The quick brown fox number {i} jumps over the lazy dog, again and again." for i in range(200)]
    todo = [("first " + which, lambda: simhash_lab.Simhasher().fingerprints(texts) if which == "fingerprints"
             else simhash_lab.dedup_texts(texts))]
else:
    exec(STEPS_SRC)
    todo = course_steps()
todo = [(n, f) for n, f in todo if not (sys.argv[3] and sys.argv[3] in n)]
t_import = time.perf_counter() - t0
walls = []
for name, fn in todo:
    CURRENT[0] = name
    t, c = time.perf_counter(), time.process_time()
    fn()
    walls.append((name, time.perf_counter() - t, time.process_time() - c))
for e, d, a in compiled:  # the LLVM lock's time is stored once the compile has returned
    cres = d.overloads.get(a)
    e["llvm"] = ((getattr(cres, "metadata", None) or {}).get("timers") or {}).get("llvm_lock", 0.0)
print(json.dumps(dict(import_s=t_import, steps=walls, events=events, total=time.perf_counter() - t0,
                      cpu=time.process_time(), llvm_total=sum(llvm_calls.values()),
                      llvm_calls=dict(llvm_calls.most_common(6)))))
"""

FIRST = (
    "import time; t = time.perf_counter(); from simhash_lab import Simhasher; "
    "Simhasher().fingerprint('hello world'); print(time.perf_counter() - t)"
)

# a library user's first call, in a new process: CPU (all threads) and wall of import + the call
FIRST_CALL = r"""
import json, resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
t = time.perf_counter()
from llvmlite.binding import ffi  # the CPU time spent in LLVM: every call into it, on every thread
llvm, call = [0.0], ffi._lib_fn_wrapper.__call__
def timed(self, *a, **k):
    c = time.thread_time()
    try:
        return call(self, *a, **k)
    finally:
        llvm[0] += time.thread_time() - c
ffi._lib_fn_wrapper.__call__ = timed
import simhash_lab
from simhash_lab.kernels import _jit
texts = [f"The quick brown fox number {i} jumps over the lazy dog, again and again." for i in range(200)]
if sys.argv[1] == "fingerprints":
    simhash_lab.Simhasher().fingerprints(texts)
else:
    simhash_lab.dedup_texts(texts)
print(json.dumps({"cpu": cpu(), "llvm cpu": llvm[0], "wall": time.perf_counter() - t,
                  "compiled": len(_jit.MISSES)}))
"""


def run_child(cache: str, which: str) -> dict:
    out = subprocess.run(
        [_python(TREE[0]), "-c", CHILD, COURSE_STEPS, which, SKIP[0]],
        env=_tree_env(TREE[0], cache),
        capture_output=True,
        text=True,
        check=False,
        cwd="/",
    )
    if out.returncode:
        sys.exit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_fingerprint(cache: str) -> float:
    env = _tree_env(TREE[0], cache)
    return float(
        subprocess.run(
            [_python(TREE[0]), "-c", FIRST], env=env, capture_output=True, text=True, cwd="/"
        ).stdout
    )


# the compiled code itself, once compiled (a filled cache): CPU seconds (all threads) of the best of
# 3 per workload, and a digest of every output (the trees must agree bit for bit)
SPEED = r"""
import hashlib, json, sys, time
sys.path.insert(0, sys.argv[1])
import numpy as np
from _corpus import documents
from simhash_lab import Simhasher, dedup_texts
from simhash_lab.shingles import Shingler
from simhash_lab.tokenize import char_ngrams
docs = documents(4000)
mixed = [d.title() + " \u0130stanbul \u4f60\u597d " + "x" * (17 + i % 200) for i, d in enumerate(docs[:900])]
sh = Shingler(5)
out, digest = {}, hashlib.sha256()
def best(name, fn):
    fn()
    ts = []
    for _ in range(3):
        c = time.process_time(); r = fn(); ts.append(time.process_time() - c)
    out[name] = min(ts)
    digest.update(name.encode())
    for a in (r if isinstance(r, tuple) else (r,)):
        digest.update(np.ascontiguousarray(a).tobytes())
def dd():
    res = dedup_texts(docs[:2000] + [d[: len(d) // 2] for d in docs[:500]], jaccard=0.5)
    return res.fingerprints, res.keep
best("fingerprints, prose", lambda: Simhasher().fingerprints(docs * 10, parallel=False))
best("fingerprints, mixed, long tokens", lambda: Simhasher().fingerprints(mixed * 10, parallel=False))
best("fingerprints, char 3-grams", lambda: Simhasher(tokenizer=char_ngrams(3)).fingerprints(docs))
best("fingerprints, md5", lambda: Simhasher(hash="md5").fingerprints(docs, parallel=False))
best("shingle sets", lambda: sh.fingerprints_and_sets(docs * 3))
best("dedup_texts", dd)
out["digest"] = digest.hexdigest()
print(json.dumps(out))
"""


def _tree(spec: str) -> str:
    """``--against``/``--tree``: a tree's folder (run with this interpreter, that folder first on
    ``sys.path``) or another tree's interpreter; returned as a key of ``_TREE_PATH``."""
    if os.path.isdir(spec):
        key = f"{sys.executable}#{os.path.abspath(spec)}"
        _TREE_PATH[key] = (sys.executable, os.path.abspath(spec))
    else:
        key = spec
        _TREE_PATH[key] = (spec, None)
    return key


_TREE_PATH: dict[str, tuple[str, str | None]] = {sys.executable: (sys.executable, str(ROOT))}
TREE = [sys.executable]


def _tree_env(tree: str, cache: str) -> dict:
    """The environment of a child of ``tree`` (see ``_tree``): the tree's folder on
    ``PYTHONPATH``, or none for another tree's own interpreter."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    env.pop("PYTHONPATH", None)
    env.pop("SIMHASH_LAB_ON_COMPILE", None)
    if _TREE_PATH[tree][1]:
        env["PYTHONPATH"] = _TREE_PATH[tree][1]
    return env


def _python(tree: str) -> str:
    return _TREE_PATH[tree][0]


def _timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """(CPU seconds of ``cmd`` and its children, wall seconds, its stderr + stdout)."""
    import resource
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/")
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        sys.exit(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out.stderr + out.stdout


def _warmup_once(tree: str, jobs: list[str]) -> dict:
    """``simhash-lab warmup`` from an empty cache, its second run, and a new process's first
    fingerprint after it."""
    import re

    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        env, python = _tree_env(tree, cache), _python(tree)
        cmd = [python, "-m", "simhash_lab.cli", "warmup", *jobs]
        load = os.getloadavg()[0]
        cpu, wall, text = _timed(cmd, env)
        m = re.search(r"warmup: (\d+) kernels compiled.* with (\d+) process", text)
        cpu2, wall2, _ = _timed(cmd, env)
        cpu3, wall3, _ = _timed([python, "-c", FIRST], env)
    return {
        "cpu": cpu, "wall": wall, "kernels": int(m.group(1)) if m else -1,
        "processes": int(m.group(2)) if m else -1, "second cpu": cpu2, "second wall": wall2,
        "first fingerprint cpu": cpu3, "first fingerprint wall": wall3, "load": load,
    }  # fmt: skip


def _first_once(tree: str, what: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        load = os.getloadavg()[0]
        _, _, text = _timed([_python(tree), "-c", FIRST_CALL, what], _tree_env(tree, cache))
    return dict(json.loads(text.strip().splitlines()[-1]), load=load)


def _trees(against: str | None) -> dict[str, str]:
    return {"before": _tree(against), "after": TREE[0]} if against else {"this tree": TREE[0]}


def _report(label: str, runs: dict[str, list[dict]], keys: list[str]) -> None:
    """Medians per tree, and with two trees the median of the pairs' ratios after/before."""
    print(f"\n{label}")
    for key in keys:
        cells = [f"{t} {statistics.median(r[key] for r in rs):7.2f}" for t, rs in runs.items()]
        line = f"  {key:24s} " + "   ".join(cells)
        if len(runs) == 2:
            before, after = runs.values()
            ratios = [a[key] / b[key] for b, a in zip(before, after) if b[key]]
            if ratios:
                line += f"   after/before {statistics.median(ratios):.3f}"
        print(line)
    for t, rs in runs.items():
        print(f"  {t}: loads " + ", ".join(f"{r['load']:.2f}" for r in rs))


def warmup_cli(repeat: int, against: str | None = None) -> None:
    """``simhash-lab warmup`` from an empty cache, with one process and with the default number
    (alternately, each tree first in turn), ``repeat`` times each."""
    trees = _trees(against)
    for label, jobs in (("-j 1", ["-j", "1"]), ("default jobs", [])):
        runs: dict[str, list[dict]] = {t: [] for t in trees}
        for rep in range(repeat):
            for t in list(trees)[:: 1 if rep % 2 == 0 else -1]:
                runs[t].append(_warmup_once(trees[t], jobs))
        _report(
            f"simhash-lab warmup {label} from an empty cache (CPU: the command and its children; "
            f"medians of {repeat})",
            runs,
            ["cpu", "wall", "kernels", "processes", "second cpu", "second wall",
             "first fingerprint cpu", "first fingerprint wall"],
        )  # fmt: skip


def first_calls(repeat: int, against: str | None = None) -> None:
    """A library user who never ran the warmup: import + first fingerprints / dedup_texts, each
    in a new process with an empty cache."""
    trees = _trees(against)
    for what in ("fingerprints", "dedup_texts"):
        runs: dict[str, list[dict]] = {t: [] for t in trees}
        for rep in range(repeat):
            for t in list(trees)[:: 1 if rep % 2 == 0 else -1]:
                runs[t].append(_first_once(trees[t], what))
        _report(
            f"new process, empty cache: import + first {what}(200 texts) (medians of {repeat})",
            runs,
            ["cpu", "llvm cpu", "wall", "compiled"],
        )


def speed(repeat: int, against: str | None = None) -> None:
    """The compiled code's speed (CPU seconds, all threads), in new processes over one filled cache per tree
    (each tree first in turn): medians of the best-of-3 CPU seconds, their ratio, the outputs'
    digests (equal: the same fingerprints, sets and kept rows)."""
    trees = _trees(against)
    caches = {t: tempfile.mkdtemp(prefix="numba-speed-") for t in trees}
    runs: dict[str, list[dict]] = {t: [] for t in trees}
    try:
        for rep in range(repeat):
            for t in list(trees)[:: 1 if rep % 2 == 0 else -1]:
                load = os.getloadavg()[0]
                _, _, text = _timed(
                    [_python(trees[t]), "-c", SPEED, str(ROOT / "benchmarks")], _tree_env(trees[t], caches[t])
                )
                runs[t].append(dict(json.loads(text.strip().splitlines()[-1]), load=load))
    finally:
        import shutil

        for c in caches.values():
            shutil.rmtree(c, ignore_errors=True)
    keys = [k for k in next(iter(runs.values()))[0] if k not in ("digest", "load")]
    _report(f"compiled code, CPU s (best of 3 per run; medians of {repeat} runs)", runs, keys)
    for t, rs in runs.items():
        print(f"  {t}: output digests {sorted({r['digest'][:16] for r in rs})}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1, help="cold runs (each in a new empty cache)")
    ap.add_argument("--top", type=int, default=25, help="kernels listed by self time")
    ap.add_argument("--steps", choices=["course", "warmup", "fingerprints", "dedup_texts"], default="course")
    ap.add_argument("--json", help="also write every run's raw figures here")
    ap.add_argument("--skip", default="", help="leave out the steps whose name contains this")
    ap.add_argument("--cli", action="store_true", help="time the `simhash-lab warmup` command instead")
    ap.add_argument("--first", action="store_true", help="a first fingerprints / dedup_texts, no warmup")
    ap.add_argument(
        "--speed", action="store_true", help="the compiled code's speed and outputs, filled cache"
    )
    ap.add_argument(
        "--against",
        metavar="TREE",
        help="--cli, --first, --speed: another tree (its folder or its Python), alternately",
    )
    ap.add_argument("--tree", help="measure this tree (its folder or its Python) instead of this one")
    args = ap.parse_args()
    SKIP[0] = args.skip
    if args.tree:
        TREE[0] = _tree(args.tree)
    from bench_dedup import cpu_info

    print(f"{cpu_info()}; tree {_TREE_PATH[TREE[0]][1] or TREE[0]}")
    if args.cli or args.first or args.speed:
        print(f"load before {os.getloadavg()[0]:.2f} (1 min)")
        if args.speed:
            speed(args.repeat, args.against)
        if args.first:
            first_calls(args.repeat, args.against)
        if args.cli:
            warmup_cli(args.repeat, args.against)
        print(f"load after: {os.getloadavg()[0]:.2f}")
        return
    print(f"load before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores; steps: {args.steps}")
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
            cold = run_child(cache, args.steps)
            warm = run_child(cache, args.steps)
            first = [first_fingerprint(cache) for _ in range(5)]
            runs.append(dict(cold=cold, warm=warm, first=first, load=os.getloadavg()[0]))
    last = runs[-1]["cold"]
    print("\nwall and CPU seconds per step (CPU: this process only, so other load on the machine")
    print("inflates wall time but hardly CPU time); compiles: simhash_lab kernels and Numba's own")
    print(f"{'step':34s} {'cold wall':>9s} {'cold CPU':>9s} {'warm wall':>9s} {'compiles':>9s}")
    for i, (name, *_) in enumerate(last["steps"]):
        cold = statistics.median(r["cold"]["steps"][i][1] for r in runs)
        cpu = statistics.median(r["cold"]["steps"][i][2] for r in runs)
        warm = statistics.median(r["warm"]["steps"][i][1] for r in runs)
        evs = [e for e in last["events"] if e["step"] == name]
        print(f"{name:34s} {cold:9.2f} {cpu:9.2f} {warm:9.2f} {len(evs):9d}")
    tc = statistics.median(r["cold"]["total"] for r in runs)
    cc = statistics.median(r["cold"]["cpu"] for r in runs)
    tw = statistics.median(r["warm"]["total"] for r in runs)
    ff = statistics.median(x for r in runs for x in r["first"])
    print(
        f"\nwhole run, empty cache: {tc:.1f} s wall, {cc:.1f} s CPU (median of {len(runs)}); "
        f"filled cache: {tw:.2f} s"
    )
    print(f"new process, import + first fingerprint, cache filled: {ff:.2f} s (median of {5 * len(runs)})")
    print(f"load after: {runs[-1]['load']:.2f}")
    calls = last.get("llvm_calls", {})
    total = last.get("llvm_total", 0.0)
    print(f"\nCPU s inside LLVM (last cold run, all threads): {total:.2f} of {last['cpu']:.2f}; the largest:")
    for name, t in calls.items():
        print(f"  {t:7.2f}  {name}")
    by_kernel: dict = {}
    for e in last["events"]:
        k = by_kernel.setdefault(e["name"], [0.0, 0.0, 0.0, set()])
        k[0] += e["self"]
        k[1] += e["total"]
        k[2] += e.get("llvm", 0.0)
        k[3].add(e["args"])
    ours = [e for e in last["events"] if e["name"].startswith("simhash_lab.")]
    print(
        f"\nkernels by self compile time (last cold run; {len(last['events'])} compiles, "
        f"{len(by_kernel)} kernels; simhash_lab's: {len(ours)} compiles, "
        f"{sum(e['self'] for e in ours):.1f} s self):"
    )
    print(
        f"{'self':>7s} {'incl':>7s} {'llvm':>7s} {'sigs':>4s}  kernel "
        "(CPU s; llvm: wall s in LLVM, callees included)"
    )
    for name, (s, t, lv, sigs) in sorted(by_kernel.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(f"{s:7.2f} {t:7.2f} {lv:7.2f} {len(sigs):4d}  {name}")
    multi = {n: v[3] for n, v in by_kernel.items() if len(v[3]) > 1}
    if multi:
        print("\nkernels compiled for more than one signature:")
        for n, sigs in sorted(multi.items()):
            print(f"  {n}:")
            for s in sorted(sigs):
                print(f"      {s[:150]}")
    if args.json:
        Path(args.json).write_text(json.dumps(runs))


if __name__ == "__main__":
    main()
