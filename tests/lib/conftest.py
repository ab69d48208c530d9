"""Fixtures of the library's tests: hostile files read under a memory cap; a new process with its
own Numba cache, and what its threads did."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def _vm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


@pytest.fixture
def memory_cap():
    """Cap this process's address space at what it uses now plus 1 GiB for the test's duration, so
    that code which reads a /dev/zero link or inflates a zip bomb fails with MemoryError instead
    of taking the machine's memory (other work runs on it). Restored afterwards."""
    try:
        vm = _vm_bytes()
    except (OSError, RuntimeError):
        pytest.skip("needs /proc/self/status")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + (1 << 30)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield cap
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


ROOT = Path(__file__).resolve().parents[2]

# Runs SETUP, then FIRST (a call that compiles something first, or nothing), then CALL repeatedly
# until it has used 0.6 s of CPU, and reports per-thread CPU time of those calls (Linux's
# /proc/self/task/<tid>/stat: utime + stime, in clock ticks) and every simhash_lab kernel compiled
# with its signatures (Numba's event API).
_CHILD = r"""
import json, os, sys, time
from numba.core import event
compiled = {}

class Recorder(event.Listener):
    def on_start(self, ev):
        f = ev.data["dispatcher"].py_func
        if f.__module__.startswith("simhash_lab."):
            compiled.setdefault(f.__module__ + "." + f.__qualname__, []).append(str(ev.data["args"]))
    def on_end(self, ev):
        pass

event.register("numba:compile", Recorder())

def ticks():
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[tid] = int(fields[11]) + int(fields[12])
    return out

import numba
SETUP, FIRST, CALL = sys.argv[1:4]
exec(SETUP)
exec(FIRST)
exec(CALL)  # compile (or load) before measuring
before, c0, n = ticks(), time.process_time(), 0
while time.process_time() - c0 < 0.6 or n < 3:
    exec(CALL)
    n += 1
after = ticks()
deltas = sorted((after[t] - before.get(t, 0) for t in after), reverse=True)
print(json.dumps({"threads": numba.get_num_threads(), "ticks": deltas, "compiled": compiled}))
"""


@pytest.fixture
def run_measured(tmp_path):
    """``run_measured(setup, call, first="", cache=None, threads=2)`` runs the code in a new
    process with ``NUMBA_NUM_THREADS=threads`` and an empty Numba cache (or ``cache``, a folder to
    reuse across calls), and returns a dict: ``threads`` (Numba's), ``ticks`` (CPU ticks of each
    thread of the process during the measured calls, largest first), ``busy`` (how many threads
    did at least a fifth of the busiest one's work) and ``compiled`` (simhash_lab kernel ->
    signatures compiled in that process)."""

    def run(setup: str, call: str, first: str = "", cache: Path | None = None, threads: int = 2) -> dict:
        env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_NUM_THREADS=str(threads))
        env["NUMBA_CACHE_DIR"] = str(cache or tmp_path / "numba-cache")
        env.pop("SIMHASH_LAB_ON_COMPILE", None)
        args = [sys.executable, "-c", _CHILD, *(textwrap.dedent(c) for c in (setup, first, call))]
        out = subprocess.run(args, env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        res = json.loads(out.stdout.strip().splitlines()[-1])
        top = res["ticks"][0] if res["ticks"] else 0
        res["busy"] = sum(1 for t in res["ticks"] if top and t >= top / 5)
        return res

    if not os.path.isdir("/proc/self/task"):
        pytest.skip("per-thread CPU time needs Linux's /proc")
    return run


@pytest.fixture(scope="module")
def labelled(course):
    """The course's labelled set of 150 Python-docs paragraphs with their planted near-duplicates."""
    corpus = course("corpus")
    return corpus.labelled_set(corpus.python_docs()[:150], seed=3)


@pytest.fixture(scope="session")
def shingle_sets(course):
    """The course's Python-set shingles (``simhash_lab.course.compare.shingle_sets``): the reference."""
    return course("compare").shingle_sets


@pytest.fixture(scope="session")
def jaccard_all_pairs(course):
    """The course's exact all-pairs Jaccard (``simhash_lab.course.compare.jaccard_all_pairs``)."""
    return course("compare").jaccard_all_pairs


@pytest.fixture(scope="session")
def truth_pairs(jaccard_all_pairs):
    """``truth_pairs(texts, t, n=3)``: every pair ``(i, j)`` of ``texts`` whose ``n``-word shingle
    sets have Jaccard similarity at least ``t``, by brute force (the course's reference)."""

    def truth(texts, t, n=3):
        pairs, _ = jaccard_all_pairs(texts, n=n, jaccard=t)
        return {tuple(p) for p in pairs.tolist()}

    return truth


@pytest.fixture
def rows(labelled):
    """200 JSONL records of the labelled set: ``id``, ``text``, a number and a nested value."""
    return [
        {"id": f"r{i}", "text": t, "n": i, "extra": {"k": [i]}} for i, t in enumerate(labelled.docs[:200])
    ]


@pytest.fixture(scope="session")
def write_jsonl():
    """``write_jsonl(path, rows)``: the records as JSONL, one per line."""

    def write(path, rows):
        with open(path, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")

    return write
