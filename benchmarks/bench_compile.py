"""Where Numba compile time goes: per step, per kernel and per specialisation, from an empty cache.

Run: ``python benchmarks/bench_compile.py [--repeat N] [--top 25] [--steps course|warmup] [--cli]``.

Each repeat runs the steps in a new process with an empty ``NUMBA_CACHE_DIR`` (a cold cache), then
again in a new process with that cache filled (warm), then times a third kind of process: import and
one fingerprint (what a learner's first cell costs after ``make lab``). Compile events come from
Numba's event API (``numba:compile``, one per kernel and signature, nested when a kernel's callees
compile while it is typed); a kernel's *self* time is its event's time minus its callees' events.

``--steps course`` (the default) is a fixed list of public-API calls, the same on every commit, so
that figures before and after a change compare; ``--steps warmup`` runs ``simhash_lab.warmup.steps()``,
what ``simhash-lab warmup`` runs, in one process; ``--cli`` times the ``simhash-lab warmup`` command
itself (one process, then the default number), its second run, and a first fingerprint after it.
Note ``uptime``'s load beside the figures: on a shared machine a cold compile takes twice as long
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
import json, sys, threading, time
t0 = time.perf_counter()
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
                      cpu=time.process_time())))
"""

FIRST = (
    "import time; t = time.perf_counter(); from simhash_lab import Simhasher; "
    "Simhasher().fingerprint('hello world'); print(time.perf_counter() - t)"
)


def run_child(cache: str, which: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, COURSE_STEPS, which, SKIP[0]],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode:
        sys.exit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_fingerprint(cache: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    return float(
        subprocess.run([sys.executable, "-c", FIRST], env=env, capture_output=True, text=True).stdout
    )


def warmup_cli(repeat: int) -> None:
    """``simhash-lab warmup`` itself, from an empty cache, with one process and with the default
    (alternately, ``repeat`` times each); then its second run and a first fingerprint after it."""
    import time

    rows: dict[str, list[float]] = {"-j 1": [], "default jobs": [], "second run": [], "first fingerprint": []}
    for _ in range(repeat):
        for label, extra in (("-j 1", ["-j", "1"]), ("default jobs", [])):
            with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
                env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
                cmd = [sys.executable, "-m", "simhash_lab.cli", "warmup", "-q", *extra]
                t = time.perf_counter()
                subprocess.run(cmd, env=env, check=True)
                rows[label].append(time.perf_counter() - t)
                if label == "default jobs":
                    t = time.perf_counter()
                    subprocess.run(cmd, env=env, check=True)
                    rows["second run"].append(time.perf_counter() - t)
                    rows["first fingerprint"] += [first_fingerprint(cache) for _ in range(3)]
        print(f"  load now {os.getloadavg()[0]:.2f}", flush=True)
    print(f"\nsimhash-lab warmup from an empty cache, wall seconds ({os.cpu_count()} CPUs):")
    for label, xs in rows.items():
        print(
            f"  {label:18s} median {statistics.median(xs):6.2f}   runs: {', '.join(f'{x:.2f}' for x in xs)}"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1, help="cold runs (each in a new empty cache)")
    ap.add_argument("--top", type=int, default=25, help="kernels listed by self time")
    ap.add_argument("--steps", choices=["course", "warmup"], default="course")
    ap.add_argument("--json", help="also write every run's raw figures here")
    ap.add_argument("--skip", default="", help="leave out the steps whose name contains this")
    ap.add_argument("--cli", action="store_true", help="time the `simhash-lab warmup` command instead")
    args = ap.parse_args()
    SKIP[0] = args.skip
    if args.cli:
        print(f"load before: {os.getloadavg()[0]:.2f} (1 min)")
        warmup_cli(args.repeat)
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
