"""The index's parallel entry points use every thread, compiled from an empty cache and loaded.

Each kernel is compiled once, serial, and ``simhash_lab._threads`` runs ranges of it in threads: the
small inputs below compile it, and the large ones then must run on every thread without compiling
anything more. This test starts from an empty cache (a temporary ``NUMBA_CACHE_DIR``) in a
subprocess, then measures in that process and in a new one that loads everything from the cache: the
CPU time each thread spends in the parallel build, ``pairs()`` and ``query_many``
(``/proc/self/task/<tid>/schedstat``).

Slow: it compiles the index kernels from nothing (about 10-30 s here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = Path(__file__).with_name("_table_thread_probe.py")
THREADS = 2

pytestmark = pytest.mark.skipif(
    not os.path.exists("/proc/self/task") or sys.platform != "linux", reason="per-thread CPU time from /proc"
)


def run_probe(order: str, cache: Path) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), NUMBA_NUM_THREADS=str(THREADS))
    root = Path(__file__).resolve().parents[3]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(PROBE), order], env=env, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def assert_every_thread_works(report: dict, where: str) -> None:
    assert report["threads"] == THREADS
    for op, per_thread in report["cpu"].items():
        busy = sorted(per_thread.values(), reverse=True)
        total = sum(busy)
        assert total > 0, (where, op)
        share = total / THREADS
        # a serial kernel leaves every thread but one idle; a parallel one splits the work
        assert len(busy) >= THREADS and all(ns >= 0.3 * share for ns in busy[:THREADS]), (
            f"{where}: {op} ran on {sum(ns >= 0.3 * share for ns in busy)} of {THREADS} threads "
            f"(CPU ns per thread: {busy})"
        )


def test_parallel_entry_points_use_every_thread_from_an_empty_cache(tmp_path):
    cache = tmp_path / "numba-cache"
    first = run_probe("serial-first", cache)  # small inputs compile the kernels, large ones reuse them
    assert any(cache.rglob("*.nbi")), "nothing was cached"
    assert first["compiled_by_big"] == [], first["compiled_by_big"]
    assert_every_thread_works(first, "same process")
    again = run_probe("cached", cache)  # a new process loads them from the cache
    assert again["compiled_by_big"] == []
    assert_every_thread_works(again, "loaded from the cache")
