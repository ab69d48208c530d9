"""Compile and cache every kernel once, at setup: what ``simhash-lab warmup`` runs.

Numba compiles a kernel the first time it is called and keeps the machine code in an on-disk cache
(``simhash_lab.kernels._jit``: beside the sources, shared by every later process, read-only in the
grader's sandbox). A kernel no one has called yet costs its compile in whoever calls it first; the
warmup makes that the setup (``make lab``, ``make test``) rather than a learner's first cell.

Each step drives the public API the way the course, the exercises and the grader do, on a tiny
input, so that every compiled entry point (the fused and the general fingerprint paths, the
Python-side helpers, the Hamming, index and dedup kernels) is compiled or loaded. A batch large
enough for threads runs the same compiled kernels as a single text (``simhash_lab._threads``), so
the steps that use threads compile nothing more; they check that.
Every setting of a Simhasher (tokenizer, hash, weights, width) is a runtime argument of the same
kernels, so one call per entry point covers them all. ``make test`` checks the coverage: it runs
every notebook with ``SIMHASH_LAB_ON_COMPILE=error`` after the warmup, so a cell that compiles fails.

The steps are data, as nbgrader's preprocessors are: :data:`STEPS`, a list of :class:`Step`, each
with its name, its call, and the steps it must start ``after`` (their kernels are its callees:
started together, two processes would compile them twice). :func:`steps` orders them so that every
step comes after those (a stable topological order: the listed order where nothing forbids it),
and :func:`run` starts a step only once those have finished. Other packages add their own steps
through the ``simhash_lab.warmup`` entry-point group (a callable returning a list of
:class:`Step`): the course registers its compiled loops there (``simhash_lab.course.internals``),
so this module never imports the course.

>>> from simhash_lab import warmup
>>> names = [name for name, _ in warmup.steps()]
>>> names[0], "verified dedup: shingles, Jaccard, clusters" in names
('hash functions and votes', True)
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import NamedTuple, TextIO

from numba.core import event

__all__ = ["ENTRY_POINTS", "STEPS", "Step", "run", "steps"]

_TEXTS = ["Rust is safe. Rust is fast!", "hello world", "\u4f60\u597d\u4e16\u754c \u0130stanbul", ""] * 16


def _default(parallel: bool) -> None:
    from .simhasher import Simhasher

    h = Simhasher()
    if parallel:
        from .dedup import dedup_texts

        h.fingerprints(_TEXTS, parallel=True)
        texts = [f"the quick brown fox jumps over the lazy dog {i % 5} {i % 7}" for i in range(40)]
        dedup_texts(texts, jaccard=0.5, sample=40, hasher=h, linkage="complete")  # dedup, unfused
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


def _hashes() -> None:
    """Every hash function (``Simhasher.trace`` hashes its features one by one through the kernel
    that dispatches on the hash) and the fused paths' hash-and-count loop, called directly with
    its scratch: the callees every fingerprint path shares, compiled first."""
    import numpy as np

    from .kernels.hashes import HASH_XXH64
    from .kernels.vote import ORDER_SIZE, TOKEN_BATCH, hash_batch_address, hash_vote_tokens
    from .simhasher import Simhasher

    Simhasher().trace(["rust", "safe"])
    tok = np.frombuffer(bytearray(b"rustsafe"), np.uint8)
    pos = np.array([0, 4, 4, 8], np.int64)
    scratch = np.empty(TOKEN_BATCH, np.uint64), np.empty(ORDER_SIZE, np.int64), np.empty(128, np.uint8)
    # the hashes of the presets, compiled on first use (``hash_batch``), and the loop that calls them
    hash_vote_tokens(
        tok, pos, 2, HASH_XXH64, hash_batch_address(HASH_XXH64), *scratch, np.zeros(64, np.int64)
    )


def _python_side() -> None:
    from .simhasher import Simhasher
    from .tokenize import words

    words()(_TEXTS[0])  # the features as strings
    h = Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7})  # a made-up hash: Python's votes
    h.trace("rust safe fast")
    Simhasher().fingerprint(["rust", "safe"])  # token lists, dicts, pairs: one kernel
    Simhasher().fingerprints([["rust", "safe"], {"rust": 2.0}, [("fast", 1.5)]] * 22, parallel=True)
    Simhasher().accumulators({"rust": 2.0})


def _hamming() -> None:
    import numpy as np

    from .hamming import PARALLEL_MIN, hamming, is_near, popcount

    fps = np.arange(PARALLEL_MIN, dtype=np.uint64)
    hamming(fps, 3)  # threads
    hamming(fps[:8], 3)  # serial
    hamming(fps[:8, None], fps[:4])  # broadcasting
    popcount(fps[:3])
    is_near(1, 3, 1)


def _dedup() -> None:
    """Verified dedup (``simhash_lab.dedup``): the fused first pass (``kernels.fused.words_pass``:
    digests, fingerprints, band keys, and the shingle sets read from ``str`` in place), the sets
    through UTF-8 for the texts that need it, MinHash band candidates, Jaccard, the calibration's
    scan and the keep/drop pass through the public call on a small batch, then each kernel at the
    size that sends it to threads, and the band map of Dask's pipeline."""
    import numpy as np

    from .calibration import neighbours_within
    from .candidates import split_band
    from .dedup import dedup_texts
    from .shingles import Shingler

    base = "the quick brown fox jumps over the lazy dog near the river bank"
    texts = [f"{base} {i % 5} {i % 7} end" for i in range(40)] + ["", "!!!"]
    dedup_texts(texts, jaccard=0.5, sample=40)  # the fused first pass, calibration, clusters
    dedup_texts(texts * 8, jaccard=0.5, sample=40, candidates="bands")  # MinHash bands, in threads
    sh = Shingler(3)
    fps, indptr, data = sh.fingerprints_and_sets(texts * 2)  # >= 64 texts: in threads
    sh.word_counts(texts * 2)  # the unfused path's featureless test
    sh.sets(["\u0130stanbul and \u03a3 words", "more words here"])  # lowered by Python: UTF-8 path
    rows = np.arange(4096) % len(texts)
    sh.jaccard(indptr, data, rows, rows[::-1].copy())
    sh.jaccard(indptr, data, rows, rows[::-1].copy(), at_least=0.5)  # the calibration's
    neighbours_within(np.resize(fps, 512), np.resize(fps, 512), 3)
    keys = np.arange(8, dtype=np.uint64) << np.uint64(40)  # Dask's band map (distributed)
    split_band(keys, np.arange(8, dtype=np.uint64), 3, 1, np.empty(8, np.uint64), np.empty(4, np.int64))


def _jsonl() -> None:
    """The JSONL reader's scanner (:mod:`simhash_lab.kernels.jsonl`), called as the reader calls
    it (``scan_block``: the same array types) on two lines; the Arrow readers' ASCII test
    (``kernels.strings.ascii_spans``); and the copy of the kept rows
    (:mod:`simhash_lab.kernels.files`), called on no runs (where the C library has it)."""
    import numpy as np

    from .kernels import files
    from .kernels.jsonl import column_names, scan_block
    from .kernels.strings import ascii_spans

    whole = memoryview(b'{"id": 1, "text": "a \\u00e9", "p": 0.5}\n{"id": "x", "text": "b", "p": 1}')
    scan_block(whole, 2, column_names("text", "id", "p"), [np.empty(0, np.uint8), None])
    # an Arrow string array's ASCII values (datasets.parquet.in_place: its data buffer read-only)
    off = np.array([0, 2, 4], np.int64)
    ascii_spans(np.frombuffer(b"ab\xc3\xa9", np.uint8), off[:-1], off[1:], np.empty(2, np.bool_))
    if files.AVAILABLE:
        none = np.zeros(1, np.int64)
        files.copy_runs(0, 1, none[:0], none[:0], none, 0, 0, 0, np.zeros(2, np.int64))


class Step(NamedTuple):
    """One warmup step: ``call()`` compiles (or loads) one group of kernels."""

    name: str
    call: Callable[[], None]
    #: names of the steps that must finish before this one starts (their kernels are its callees)
    after: tuple[str, ...] = ()


#: The entry-point group other packages register steps in: ``name = "module:function"``, the
#: function returning a list of :class:`Step` (an ImportError, say a missing extra: no steps).
ENTRY_POINTS = "simhash_lab.warmup"

_HASHES = "hash functions and votes"
_INDEX_1 = "index: build, query, pairs (one thread)"
_GENERAL_1 = "other tokenizers and weights, one text"
_DEFAULT_1 = "default fingerprint, one text"


def _index(name: str) -> Callable[[], None]:
    """The call of the index's own step ``name`` (:func:`simhash_lab.index.warm.steps`)."""

    def call() -> None:
        from .index.warm import steps as index_steps

        dict(index_steps())[name]()

    return call


#: Every step of the library, in the order they start on two cores: the hash functions (about 6 s
#: of CPU) beside the index's kernels (5 s) and two small steps; then the dedup's kernels beside the
#: general and the fused fingerprint paths (3-4 s each); then token lists; then the batches in
#: threads, which compile nothing more (they check that).
STEPS: list[Step] = [
    Step(_HASHES, _hashes),  # the callees every fingerprint path shares
    Step(_INDEX_1, _index(_INDEX_1)),
    Step("verified dedup: shingles, Jaccard, clusters", _dedup, after=(_HASHES,)),
    Step(_GENERAL_1, lambda: _general(False), after=(_HASHES,)),
    Step(_DEFAULT_1, lambda: _default(False), after=(_HASHES,)),
    Step("features, traces, token lists", _python_side, after=(_GENERAL_1, _DEFAULT_1)),
    Step("Hamming distance", _hamming),
    Step("JSONL reader's scanner", _jsonl),
    Step("default fingerprints and dedup, a batch (threads)", lambda: _default(True), after=(_DEFAULT_1,)),
    Step("other tokenizers and weights, a batch (threads)", lambda: _general(True), after=(_GENERAL_1,)),
    Step(
        "index: build, query, pairs (threads)",
        _index("index: build, query, pairs (threads)"),
        after=(_INDEX_1,),
    ),
    Step("index: streamed pairs, large k", _index("index: streamed pairs, large k"), after=(_INDEX_1,)),
    Step("index: linear scan layout", _index("index: linear scan layout"), after=(_INDEX_1,)),
]


def _registered() -> list[Step]:
    """The steps other packages register (:data:`ENTRY_POINTS`), in entry-point name order."""
    from importlib.metadata import entry_points

    found: list[Step] = []
    for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
        try:
            found.extend(Step(*s) for s in ep.load()())
        except ImportError:  # that package's extra is not installed: nothing of it to compile
            continue
    return found


def all_steps() -> list[Step]:
    """:data:`STEPS` and the registered ones, each after the steps it names in ``after``: the
    first listed step whose ``after`` are all placed goes next (so the listed order holds where
    no ``after`` forbids it). A ValueError names an ``after`` that is no step, a name used twice,
    or steps that wait for each other."""
    listed = [*STEPS, *_registered()]
    names = [s.name for s in listed]
    if len(set(names)) != len(names):
        raise ValueError(
            f"simhash_lab.warmup: two steps share a name: {sorted(n for n in names if names.count(n) > 1)}"
        )
    for s in listed:
        for a in s.after:
            if a not in names:
                raise ValueError(f"simhash_lab.warmup: step {s.name!r} is after {a!r}, which is no step")
    ordered: list[Step] = []
    placed: set[str] = set()
    left = list(listed)
    while left:
        nxt = next((s for s in left if placed.issuperset(s.after)), None)
        if nxt is None:
            raise ValueError(f"simhash_lab.warmup: these steps wait for each other: {[s.name for s in left]}")
        ordered.append(nxt)
        placed.add(nxt.name)
        left.remove(nxt)
    return ordered


def steps() -> list[tuple[str, Callable[[], None]]]:
    """(name, call) pairs of :func:`all_steps`, in the order they start."""
    return [(s.name, s.call) for s in all_steps()]


def _idle_cpus(sample: float = 0.25) -> int:
    """CPUs no other work is using now, at most 4: on Linux the idle share of ``/proc/stat`` over
    ``sample`` seconds; elsewhere the load average's first figure (which lags by about a minute:
    right after ``pip install`` it still counts the install).

    Measured on 2 cores: at load 0.9, two processes took 25 s and one 45 s; at load 4-5, two took
    53 s and one 38 s (the cores were busy already, and two compilers competed for them)."""
    n = os.cpu_count() or 1
    try:
        before = _cpu_ticks()
        time.sleep(sample)
        after = _cpu_ticks()
        idle = (after[0] - before[0]) / max(after[1] - before[1], 1) * n
    except (OSError, ValueError, IndexError):
        try:
            idle = n - os.getloadavg()[0]
        except (AttributeError, OSError):  # no load average (Windows)
            idle = n
    return max(1, min(4, n, round(idle)))


def _cpu_ticks() -> tuple[int, int]:
    """(idle, total) clock ticks of all CPUs since boot, from ``/proc/stat``."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:9]]
    return fields[3] + fields[4], sum(fields)


def _run_step(i: int) -> tuple[int, float]:
    """Run step i in this process: (kernels compiled, seconds)."""
    counter = _CompileCounter()
    t = time.perf_counter()
    with event.install_listener("numba:compile", counter):
        steps()[i][1]()
    return counter.count, time.perf_counter() - t


def run(progress: bool = True, file: TextIO | None = None, jobs: int | None = None) -> tuple[int, float]:
    """Run every step; returns (kernels compiled, seconds). A second run compiles none.

    ``jobs``: processes compiling at once (default: the idle CPUs, at most 4). Numba compiles one
    kernel at a time per process, and the steps share their results through the on-disk cache.
    ``progress``: a tqdm bar on ``file`` (stderr by default) naming the step that runs, a line per
    step as it finishes (kernels compiled, seconds), and a last line with the count, the time and
    the cache folder.
    """
    from .kernels._jit import cache_dir

    file = file or sys.stderr
    order = all_steps()
    names = [s.name for s in order]
    after = [{names.index(a) for a in s.after} for s in order]
    jobs = max(1, min(jobs or _idle_cpus(), len(names)))
    t0 = time.perf_counter()
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(names), desc="simhash-lab warmup", unit="step", file=file, leave=True)
    compiled = 0
    jobs_used = [1]

    def start(i: int) -> None:
        if bar is not None:
            bar.set_postfix_str(names[i])

    def done(i: int, count: int, seconds: float) -> None:
        nonlocal compiled
        compiled += count
        if bar is not None:
            bar.write(f"  {names[i]}: {count} compiled, {seconds:.1f} s", file=file)
            bar.update(1)

    # The Hamming step first, here: it is small, and every kernel shares one freshness stamp (the
    # digest of the kernel sources), so if it compiles nothing the cache is warm and the rest is
    # only loading, faster in this process than in new ones.
    probe = names.index("Hamming distance")
    start(probe)
    count, seconds = _run_step(probe)
    done(probe, count, seconds)
    rest = [i for i in range(len(names)) if i != probe]
    left = [len(rest)]
    if jobs == 1 or count == 0:
        for i in rest:
            start(i)
            done(i, *_run_step(i))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        if bar is not None:
            bar.set_postfix_str(f"{len(rest)} steps, {jobs} processes")

        finished, waiting = {probe}, list(rest)
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures: dict = {}

            def submit_ready() -> None:  # a step starts once the steps it is after have finished
                for i in [i for i in waiting if after[i] <= finished]:
                    waiting.remove(i)
                    futures[pool.submit(_run_step, i)] = i

            submit_ready()
            while futures:
                fut = next(as_completed(futures))
                i = futures.pop(fut)
                if bar is not None:
                    left[0] -= 1
                    bar.set_postfix_str(f"{left[0]} steps left, {jobs} processes")
                done(i, *fut.result())
                finished.add(i)
                submit_ready()
        jobs_used[0] = jobs
    elapsed = time.perf_counter() - t0
    if bar is not None:
        bar.close()
        print(
            f"simhash-lab warmup: {compiled} kernels compiled, the rest loaded, in {elapsed:.1f} s "
            f"with {jobs_used[0]} process{'es' if jobs_used[0] > 1 else ''} (cache: {cache_dir()})",
            file=file,
        )
    return compiled, elapsed


class _CompileCounter(event.Listener):
    """A ``numba:compile`` listener (Numba's event API) counting simhash_lab's kernels."""

    def __init__(self) -> None:
        self.count = 0

    def on_start(self, ev: event.Event) -> None:
        if ev.data["dispatcher"].py_func.__module__.startswith("simhash_lab."):
            self.count += 1

    def on_end(self, ev: event.Event) -> None:
        pass
