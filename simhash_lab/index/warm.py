"""What ``simhash-lab warmup`` runs to compile the index's kernels: every kernel, parallel and serial.

``steps()`` lists (name, call) pairs; each call drives :class:`SimhashIndex` through its public API at
a size that picks the kernel it names, so that the Numba cache holds every compiled kernel before a
learner's first cell (or the grader's sandbox) needs it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["steps"]


def _fps(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)


def _run(n: int, k: int, layout="auto") -> None:
    from . import SimhashIndex

    index = SimhashIndex(k=k, layout=layout)
    fps = _fps(n)
    index.add_many(fps)
    index.add_many(fps[:8] ^ np.uint64(1))  # the unsorted buffer, then a merge into the tables
    index.flush()
    index.query(int(fps[0]))
    index.query_many(fps[:256])
    index.pairs()
    index.groups()
    index.remove(0)
    index.flush()


def steps() -> list[tuple[str, Callable[[], None]]]:
    """(name, call) for each group of index kernels; small sizes pick the serial twins, large ones
    the parallel kernels."""
    return [
        ("index: build, query, pairs (serial kernels)", lambda: _run(2_000, 3)),
        ("index: build, query, pairs (parallel kernels)", lambda: _run(300_000, 3)),
        ("index: linear scan layout", lambda: _run(500, 3, layout="scan")),
    ]
