"""Child process of test_table_threads.py: compile the index kernels, then measure how much CPU
time each thread spends in the parallel entry points.

    python _table_thread_probe.py ORDER

ORDER is ``serial-first`` (small inputs first: they compile every kernel, one thread each) or
``cached`` (nothing first: whatever the cache holds is loaded). Prints one JSON object: for each
parallel entry point (build, pairs, query_many), the CPU nanoseconds each thread of this process
spent during the calls (from ``/proc/self/task/<tid>/schedstat``), and the kernels the large inputs
compiled (Numba's event API: none, they run the kernels the small ones compiled).
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

from simhash_lab.index import SimhashIndex


def thread_cpu_ns() -> dict[int, int]:
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/schedstat") as f:
                out[int(tid)] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return out


def measure(setup, op, min_cpu_ns: float = 0.6e9, max_reps: int = 30) -> dict[int, int]:
    """CPU ns per thread spent in ``op(setup())``, summed over repetitions until ``min_cpu_ns``.

    The first call is not counted: it loads the kernels from the cache in the calling thread (in
    the ``cached`` order that was 0.7 s of the main thread's CPU against 0.1-0.2 s of the split
    work, so a slow machine saw the build "on one thread"). A kernel it compiled instead still
    shows in ``compiled_by_big``."""
    op(setup())
    total: dict[int, int] = {}
    for _ in range(max_reps):
        state = setup()
        before = thread_cpu_ns()
        op(state)
        after = thread_cpu_ns()
        for tid, ns in after.items():
            total[tid] = total.get(tid, 0) + ns - before.get(tid, 0)
        if sum(total.values()) >= min_cpu_ns:
            break
    return total


def fps(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64, n, dtype=np.uint64, endpoint=False)


def small_run() -> None:
    """Small inputs: every operation below the parallel threshold (one thread each)."""
    index = SimhashIndex(k=3, layout=("permuted", 5))
    data = fps(3_000, 1)
    index.add_many(data)
    index.flush()
    index.query_many(data[:100])
    index.pairs()
    index = SimhashIndex(k=6, layout="blocks")
    index.add_many(data)
    index.pairs()


BIG = fps(1_000_000, 2)
QUERIES = fps(200_000, 3)


def built(layout, n=BIG.shape[0], k=3):
    index = SimhashIndex(k=k, layout=layout)
    index.add_many(BIG[:n])
    index.flush()
    return index


def big_run() -> dict:
    def unbuilt():
        index = SimhashIndex(k=3, layout=("permuted", 5))
        index.add_many(BIG)
        return index

    return {
        "build": measure(unbuilt, lambda ix: ix.flush()),
        "pairs": measure(lambda: built("blocks", 300_000, k=6), lambda ix: ix.pairs()),
        "query_many": measure(lambda: built("blocks"), lambda ix: ix.query_many(QUERIES, return_arrays=True)),
    }


def main() -> None:
    import numba
    from numba.core import event

    order = sys.argv[1]
    t = time.perf_counter()
    if order == "serial-first":
        small_run()
    elif order != "cached":
        raise SystemExit(f"unknown order {order!r}")
    compile_s = time.perf_counter() - t
    compiled = []

    class Recorder(event.Listener):
        def on_start(self, ev):
            f = ev.data["dispatcher"].py_func
            if f.__module__.startswith("simhash_lab."):
                compiled.append(f.__qualname__)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Recorder()):
        result = {op: {str(tid): ns for tid, ns in per.items()} for op, per in big_run().items()}
    print(
        json.dumps(
            {
                "threads": numba.get_num_threads(),
                "first_s": compile_s,
                "compiled_by_big": compiled,
                "cpu": result,
            }
        )
    )


if __name__ == "__main__":
    main()
