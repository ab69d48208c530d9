"""Compile and cache every kernel once, at setup: what ``simhash-lab warmup`` runs.

Numba compiles a kernel the first time it is called and keeps the machine code in an on-disk cache
(``simhash_lab.kernels._jit``: beside the sources, shared by every later process, read-only in the
grader's sandbox). A kernel no one has called yet costs its compile in whoever calls it first; the
warmup makes that the setup (``make lab``, ``make test``) rather than a learner's first cell.

Each step drives the public API the way the course, the exercises and the grader do, on a tiny
input, so that every compiled entry point (serial and parallel twins, the fused and the general
fingerprint paths, the Python-side helpers, the Hamming and index kernels) is compiled or loaded.
Every setting of a Simhasher (tokenizer, hash, weights, width) is a runtime argument of the same
kernels, so one call per entry point covers them all. ``make test`` checks the coverage: it runs
every notebook with ``SIMHASH_LAB_ON_COMPILE=error`` after the warmup, so a cell that compiles fails.

>>> from simhash_lab import warmup
>>> [name for name, _ in warmup.steps()][:2]
['default fingerprint, one text', 'default fingerprints, a batch (threads)']
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from numba.core import event

__all__ = ["run", "steps"]

_TEXTS = ["Rust is safe. Rust is fast!", "hello world", "\u4f60\u597d\u4e16\u754c \u0130stanbul", ""] * 16


def _default(parallel: bool) -> None:
    from .simhasher import Simhasher

    h = Simhasher()
    if parallel:
        h.fingerprints(_TEXTS, parallel=True)
    else:
        h.fingerprint(_TEXTS[0])


def _general(parallel: bool) -> None:
    from .simhasher import Simhasher
    from .tokenize import char_ngrams

    h = Simhasher(tokenizer=char_ngrams(3), weights={"rus": 2.0})  # lowering, weights, hashes
    if parallel:
        h.fingerprints(_TEXTS, parallel=True)
    else:
        h.fingerprint(_TEXTS[0])


def _python_side() -> None:
    from .simhasher import Simhasher
    from .tokenize import words

    words()(_TEXTS[0])  # the features as strings
    h = Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7})  # a made-up hash: Python's votes
    h.trace("rust safe fast")
    Simhasher().fingerprint(["rust", "safe"])  # token lists: hashed, then voted
    Simhasher().accumulators({"rust": 2.0})


def _hamming() -> None:
    import numpy as np

    from .hamming import _PARALLEL_MIN, hamming, is_near, popcount

    fps = np.arange(_PARALLEL_MIN, dtype=np.uint64)
    hamming(fps, 3)  # threads
    hamming(fps[:8], 3)  # serial
    hamming(fps[:8, None], fps[:4])  # broadcasting
    popcount(fps[:3])
    is_near(1, 3, 1)


def steps() -> list[tuple[str, Callable[[], None]]]:
    """(name, call) pairs: each call compiles (or loads) one group of kernels."""
    from .index.warm import steps as index_steps

    return [
        ("default fingerprint, one text", lambda: _default(False)),
        ("default fingerprints, a batch (threads)", lambda: _default(True)),
        ("other tokenizers and weights, one text", lambda: _general(False)),
        ("other tokenizers and weights, a batch (threads)", lambda: _general(True)),
        ("features, traces, token lists", _python_side),
        ("Hamming distance", _hamming),
        *index_steps(),
    ]


def run(progress: bool = True, file: TextIO | None = None) -> tuple[int, float]:
    """Run every step; returns (kernels compiled, seconds). A second run compiles none.

    ``progress``: a tqdm bar naming each step, on ``file`` (stderr by default), and a last line
    with the count, the time and the cache folder.
    """
    from .kernels._jit import cache_dir

    file = file or sys.stderr
    todo = steps()
    compiled = _CompileCounter()
    t0 = time.perf_counter()
    with event.install_listener("numba:compile", compiled):
        if progress:
            from tqdm import tqdm

            bar = tqdm(todo, desc="simhash-lab warmup", unit="step", file=file, leave=True)
            for name, call in bar:
                bar.set_postfix_str(name, refresh=True)
                call()
            bar.close()
        else:
            for _, call in todo:
                call()
    elapsed = time.perf_counter() - t0
    if progress:
        print(
            f"simhash-lab warmup: {compiled.count} kernels compiled, the rest loaded, in {elapsed:.1f} s "
            f"(cache: {cache_dir()})",
            file=file,
        )
    return compiled.count, elapsed


class _CompileCounter(event.Listener):
    """A ``numba:compile`` listener (Numba's event API) counting simhash_lab's kernels."""

    def __init__(self) -> None:
        self.count = 0

    def on_start(self, ev) -> None:
        if ev.data["dispatcher"].py_func.__module__.startswith("simhash_lab."):
            self.count += 1

    def on_end(self, ev) -> None:
        pass
