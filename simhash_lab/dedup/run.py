"""The run and its state: what every step reads, and what each step leaves for the next.

* :class:`Run`: the run's constants, frozen (the settings and what follows from them: the
  shingles, the band parameters, the budget for kept sets). Every step and every Dask task takes
  it whole, never a dozen of its parts; it pickles as its fields alone.
* :class:`Chunk`: what the first read's steps make of one chunk of rows (normalised texts'
  digests, fingerprints, shingle sets, band keys);
* :class:`Rows`: those chunks put together for a run of consecutive rows, in order: every row in
  one process, one task's files on Dask;
* :class:`State`: the local executor's run state, one field per decision, each set by its step;
* :class:`Clock`: each step's seconds (``res.timings``) and its progress bar.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from ..calibration import Calibration
from ..candidates import BandKeys, BandPlan
from ..datasets import Source
from ..datasets.utf8 import text_lengths
from ..settings import DedupSettings
from ..shingles import ChunkSets, Featurizer
from .results import Duplicates

__all__ = ["SETS_BUDGET", "STEPS", "Chunk", "Clock", "Rows", "Run", "State", "Units"]

#: the named steps, in their order (``res.timings`` and the progress bars use these names)
STEPS = (
    "plan", "read", "normalise", "exact groups", "fingerprint", "calibrate", "candidates", "verify",
    "cluster", "write",
)  # fmt: skip

#: bytes of shingle sets kept from the first read (else made again where a step needs them, for
#: the rows it needs: ``Verify.streamed``); past ``shingles.ChunkSets.MEMORY`` they are kept in a
#: temporary file, not in memory. 0 (issue 48): one process keeps none, so its peak memory is the
#: band keys and a chunk's sets, not every row's (1M rows: 650 MB of sets, spilled and read back);
#: the Dask executor gives its tasks a budget of its own (``distributed.executor.SETS_BUDGET``)
SETS_BUDGET = 0


@dataclass(frozen=True)
class Run:
    """One run's constants: the settings and what follows from them, the same for every step, in
    one process or on every Dask worker.

    Parameters
    ----------
    settings : DedupSettings
        Every option of the run.
    sets_budget : int, optional
        Bytes of shingle sets the first read keeps for the verification (default
        :data:`SETS_BUDGET`, read when the run is made).
    plan : BandPlan, optional
        The bands the plan step chose from the input's first rows
        (:class:`~simhash_lab.dedup.steps.Plan`), before the first read makes any key: every
        chunk's and every Dask task's keys are made with them (:meth:`with_plan`).

    Attributes
    ----------
    featurizer : Featurizer
        The run's shingles (made once per process, on first use; not pickled).
    """

    settings: DedupSettings
    sets_budget: int = -1
    plan: BandPlan | None = None

    def __post_init__(self) -> None:
        if self.sets_budget < 0:
            object.__setattr__(self, "sets_budget", SETS_BUDGET)

    @functools.cached_property
    def featurizer(self) -> Featurizer:
        """The run's shingles (:class:`~simhash_lab.shingles.Featurizer`)."""
        return Featurizer(self.settings)

    def __getstate__(self) -> dict:  # the fields alone: the featurizer is made again where it runs
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @property
    def bits(self) -> int:
        """The fingerprints' width."""
        return self.featurizer.bits

    @property
    def verified(self) -> bool:
        """Every candidate pair is verified by exact Jaccard (not the raw Hamming mode)."""
        return not self.settings.unverified

    @property
    def bands(self) -> bool:
        """The candidates are the pairs that share a MinHash band (else: within k bits)."""
        return self.settings.candidates_method == "bands"

    @property
    def keeps_sets(self) -> bool:
        """The first read keeps the shingle sets (within :attr:`sets_budget`) for the
        verification: verified, shingles of the run's own (a hasher's sets are made later)."""
        return self.verified and self.featurizer.features != "hasher" and self.sets_budget > 0

    @functools.cached_property
    def key_maker(self) -> BandKeys | None:
        """The :class:`~simhash_lab.candidates.BandKeys` that makes each chunk's keys (its
        parameters and probe table; it holds no keys), None without bands."""
        return self.band_keys()

    def band_keys(self) -> BandKeys | None:
        """A new, empty :class:`~simhash_lab.candidates.BandKeys` of the run's bands (None
        without bands): ``settings.bands`` when given, else the :attr:`plan`'s, else the model's
        for a million rows (:func:`~simhash_lab.candidates.band_parameters`); they are the run's,
        so every partition's are alike."""
        s = self.settings
        if not self.bands:
            return None
        chosen = s.bands if s.bands is not None else None
        if chosen is None and self.plan is not None:
            chosen = (self.plan.bands, self.plan.rows)
        return BandKeys(s.jaccard, s.recall, bands=chosen)

    def with_plan(self, plan: BandPlan | None) -> Run:
        """This run with the bands :class:`~simhash_lab.dedup.steps.Plan` chose (its shingles
        kept, not made again)."""
        out = dataclasses.replace(self, plan=plan)
        if "featurizer" in self.__dict__:
            out.__dict__["featurizer"] = self.__dict__["featurizer"]
        return out

    def band_info(self) -> dict | None:
        """The result's ``settings["candidates"]`` with bands: the bands, rows, the probability
        a pair at the threshold is found, and what chose them (``chosen_by``: ``"settings"``,
        ``"plan"`` with the figures it measured, or ``"model"``); None without bands."""
        keys = self.key_maker
        if keys is None:
            return None
        info = keys.info
        if self.settings.bands is not None:
            info["chosen_by"] = "settings"
        elif self.plan is not None:
            info.update(self.plan.info)
        else:
            info["chosen_by"] = "model"
        return info


@dataclass
class Chunk:
    """One chunk's share of the first read (:func:`~simhash_lab.dedup.steps.first_read`), its
    rows in order.

    Attributes
    ----------
    fps : ndarray, shape (m,), uint64
        Fingerprints.
    chars : ndarray, shape (m,), bool
        Shingled by characters.
    indptr, data : ndarray or None
        The shingle sets (CSR; None for a hasher of one's own).
    featureless : ndarray, shape (m,), bool
        Rows with no shingle.
    digests : ndarray, shape (m, 2), uint64, or None
        The normalised texts' 128-bit digests (with ``exact``).
    keys : ndarray, shape (bands, m), uint64, or None
        The rows' MinHash band keys (with bands).
    sizes : ndarray, shape (m,), int32, or None
        Each row's number of distinct shingles (the verification's size filter; None for a
        hasher of one's own).
    """

    fps: np.ndarray
    chars: np.ndarray
    indptr: np.ndarray | None
    data: np.ndarray | None
    featureless: np.ndarray
    digests: np.ndarray | None = None
    keys: np.ndarray | None = None
    sizes: np.ndarray | None = None


class Rows:
    """The first read's results for consecutive rows, chunk after chunk (:meth:`add`), then put
    together (:meth:`finish`): every row's in one process, one task's files' on Dask.

    Parameters
    ----------
    run : Run
    ids : bool
        Keep each row's id (one process: the result's ``ids``; Dask: only where a task hands
        them on).

    Attributes
    ----------
    n : int
        Rows added.
    fps : ndarray, uint64; featureless : ndarray, bool
        After :meth:`finish`.
    digests : ndarray (n, 2), uint64, or None
    lengths : ndarray, int64, or None
        Characters of each text (``keep="longest"`` only, the one rule that reads them).
    priorities : ndarray, float64, or None
        The priority column's values.
    chars : int
        Rows shingled by characters.
    sets : ChunkSets or None
        Every row's shingle set, while within the run's budget (else None: read again).
    keys : BandKeys or None
        Every row's band keys.
    set_sizes : ndarray, int32, or None
        After :meth:`finish`: each row's number of distinct shingles (None when a chunk's sets
        were not made: a hasher of one's own).
    ids : list or None
    sizes : list of int
        Rows of each file read (Dask: a task reads several).
    docs : int
        Documents read (the rows, unless they are units of documents).
    doc_ids : list or None
        Each document's id, when the rows are units (and ids are kept).
    units : Units or None
        After :meth:`finish`, when the rows are units of documents.
    """

    def __init__(self, run: Run, ids: bool = True) -> None:
        self.run = run
        self.n = 0
        self.chars = 0
        self.sizes: list[int] = []
        self.doc_sizes: list[int] = []  # documents of each file read (Dask)
        self.ids: list | None = [] if ids else None
        self.sets: ChunkSets | None = ChunkSets() if run.keeps_sets else None
        self.keys = run.band_keys()
        self.docs = 0  # documents read (the rows when each is one)
        self.doc_ids: list | None = [] if ids and run.settings.unit != "document" else None
        self._units: list[tuple] = []
        self._fps: list[np.ndarray] = []
        self._featureless: list[np.ndarray] = []
        self._digests: list[np.ndarray] = []
        self._lengths: list[np.ndarray] = []
        self._priorities: list[np.ndarray] = []
        self._sizes: list[np.ndarray | None] = []

    def add(
        self,
        chunk: Chunk,
        texts: list,
        ids: list,
        priorities: list | None,
        clock: Clock | None = None,
        units: Any = None,
    ) -> None:
        """The next chunk's results, in the rows' order (``texts``, ``ids``, ``priorities``: the
        chunk as it was read; ``units``: where its rows come from when they are units of
        documents, :class:`~simhash_lab.dedup.units.UnitInfo`). Its shingle sets are kept while
        the run's budget allows (the time that takes: the fingerprint step's)."""
        if units is not None:
            self._units.append((units.doc + self.docs, units.index, units.start, units.end, units.words))
            self.docs += units.docs
            if self.doc_ids is not None:
                self.doc_ids.extend(units.doc_ids)
        else:
            self.docs += len(texts)
        if chunk.indptr is not None and self.sets is not None:
            with clock.time("fingerprint") if clock is not None else contextlib.nullcontext():
                self.sets.add(chunk.indptr, chunk.data)
                if self.sets.nbytes > self.run.sets_budget:
                    self.sets = None  # too many to keep: the rows needed are read again
        if chunk.keys is not None:
            self.keys.extend(chunk.keys)
        if chunk.digests is not None:
            self._digests.append(chunk.digests)
        self._fps.append(chunk.fps)
        self._sizes.append(chunk.sizes)
        self._featureless.append(chunk.featureless)
        self.chars += int(np.count_nonzero(chunk.chars))
        if self.ids is not None:
            self.ids.extend(ids)
        if self.run.settings.keep == "longest":
            self._lengths.append(text_lengths(texts))
        if priorities is not None:
            self._priorities.append(np.array(priorities, np.float64))
        self.n += len(texts)

    def __sizeof__(self) -> int:
        """The bytes it holds in memory (its arrays, its sets and keys, about 60 bytes an id): what
        Dask's scheduler weighs to run a task where its rows already are, instead of moving them
        (``sys.getsizeof`` of a plain object says some 50 bytes)."""
        arrays = [
            getattr(self, name, None) for name in ("fps", "featureless", "digests", "lengths", "priorities")
        ]
        arrays += self._fps + self._featureless + self._digests + self._lengths + self._priorities
        arrays += [getattr(self, "set_sizes", None)] + [a for a in self._sizes if a is not None]
        size = object.__sizeof__(self) + sum(a.nbytes for a in arrays if a is not None)
        if self.sets is not None:
            size += sum(p.nbytes + (d.nbytes if d is not None else 0) for p, d, _ in self.sets.chunks)
        if self.keys is not None:
            size += sum(k.nbytes for k in self.keys.parts)
        units = getattr(self, "units", None)
        if units is not None:
            size += sum(a.nbytes for a in (units.doc, units.index, units.start, units.end, units.words))
        return size + 60 * (len(self.ids or ()) + len(self.doc_ids or ()))

    def finish(self) -> Rows:
        """Put the chunks together (``fps``, ``featureless``, ``digests``, ``lengths``,
        ``priorities``); returns itself."""

        def cat(parts: list, dtype: Any, shape: tuple = (0,)) -> np.ndarray:
            return np.concatenate(parts) if parts else np.empty(shape, dtype)

        self.fps = cat(self._fps, np.uint64)
        self.featureless = cat(self._featureless, np.bool_)
        self.digests = cat(self._digests, np.uint64, (0, 2)) if self.run.settings.exact else None
        self.lengths = cat(self._lengths, np.int64) if self.run.settings.keep == "longest" else None
        self.priorities = cat(self._priorities, np.float64) if self._priorities else None
        known = all(a is not None for a in self._sizes)
        self.set_sizes = cat(self._sizes, np.int32) if known else None
        self._fps = self._featureless = self._digests = self._lengths = self._priorities = []
        self._sizes = []
        self.units = None
        if self.run.settings.unit != "document":
            cols = list(zip(*self._units)) if self._units else [[]] * 5
            self.units = Units(*(cat(list(c), np.int64) for c in cols))
        self._units = []
        return self


@dataclass
class Units:
    """Where each row comes from when the rows are units of documents (``unit="paragraph"`` or
    ``"line"``): its document (numbered from the first read, in :class:`Rows`), its place in it,
    the span it takes there (what goes when it is dropped) and its words."""

    doc: np.ndarray
    index: np.ndarray
    start: np.ndarray
    end: np.ndarray
    words: np.ndarray


@dataclass
class State:
    """The local executor's run state (:mod:`.local`): the rows the first read made, then each
    step's decisions, set in the steps' order.

    Attributes
    ----------
    run : Run
    source : Source
        What the steps read rows again from: the documents, or their units (``unit``).
    documents : Source
        The documents as the source gives them (the first read's, the write's).
    rows : Rows
        read, normalise, exact groups' digests, fingerprint (and the band keys).
    rank : ndarray (n,), int64
        Each row's place in the visiting order (priority, ``keep``).
    priority : bool
        The order is a priority's (a column or an array).
    representative, search : ndarray (n,)
        exact groups: each row's representative; the rows searched (representatives with
        shingles).
    copies, copy_of : ndarray, int64
        exact groups: the exact copies and their representatives.
    exact_groups : int
    calibration : Calibration or None; k : int
        calibrate.
    pairs : ndarray (m, 3), int64
        candidates.
    similarity : ndarray (m,), float64; verified : ndarray (m,), bool
        verify.
    duplicates : Duplicates; keep : ndarray (n,), bool
        cluster.
    doc_keep, doc_whole : ndarray (documents,), bool; doc_left : ndarray, int64
        With units of documents: each document kept or not, dropped whole or not (too little
        left), and its words left (:func:`~simhash_lab.dedup.units.documents`).
    timings : dict
        Seconds of each step.
    """

    run: Run
    source: Source
    documents: Source | None = None
    rows: Rows | None = None
    rank: np.ndarray | None = None
    priority: bool = False
    representative: np.ndarray | None = None
    search: np.ndarray | None = None
    copies: np.ndarray | None = None
    copy_of: np.ndarray | None = None
    exact_groups: int = 0
    calibration: Calibration | None = None
    k: int = -1
    pairs: np.ndarray | None = None
    similarity: np.ndarray | None = None
    verified: np.ndarray | None = None
    duplicates: Duplicates | None = None
    keep: np.ndarray | None = None
    doc_keep: np.ndarray | None = None
    doc_whole: np.ndarray | None = None
    doc_left: np.ndarray | None = None
    timings: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.documents is None:
            self.documents = self.source

    @property
    def n(self) -> int:
        """Rows read."""
        return self.rows.n


class _Bars:
    """tqdm bars on stderr, one per step (``mode``: "auto", "always", "never")."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.on = mode == "always" or (
            mode == "auto" and hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
        )
        self.current = None

    def start(self, desc: str, total: int | None, unit: str = "row"):
        self.close()
        if not self.on:
            return None
        from tqdm import tqdm  # looked up when a bar is shown (tests replace tqdm.tqdm)

        self.current = tqdm(
            total=total,
            unit=unit,
            file=sys.stderr,
            delay=0 if self.mode == "always" else 1.0,
            desc=desc,
            leave=False,
            dynamic_ncols=True,
        )
        return self.current

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
            self.current = None


class Clock:
    """Each step's seconds (``timings``, added from any thread: threads that share a step add
    their times) and its tqdm bar on stderr (``progress``: "auto", "always", "never").

    Parameters
    ----------
    progress : str
        When bars are shown.
    timings : dict, optional
        Where the seconds go (default: a new dict).
    """

    def __init__(self, progress: str = "never", timings: dict | None = None) -> None:
        self.bars = _Bars(progress)
        self.timings = {} if timings is None else timings
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def time(self, name: str) -> Iterator[None]:
        """Add the time spent within to step ``name``."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            with self._lock:
                self.timings[name] = self.timings.get(name, 0.0) + dt

    @contextlib.contextmanager
    def step(self, name: str, total: int | None = None, unit: str = "row") -> Iterator[Any]:
        """Time ``name`` and show its bar (yielded: ``bar.update(n)``, or None)."""
        bar = self.bars.start(name, total, unit)
        try:
            with self.time(name):
                yield bar
        finally:
            self.bars.close()

    def in_order(self) -> None:
        """Put the timings in the steps' order (threads may have begun them in another)."""
        rank = {name: i for i, name in enumerate(STEPS)}
        got = sorted(self.timings.items(), key=lambda kv: rank.get(kv[0], len(rank)))
        self.timings.clear()
        self.timings.update(got)
