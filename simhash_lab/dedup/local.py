"""The local executor: the steps of :mod:`.steps` over every row, in this process, on the package's
threads; and the entry points that run on it: :func:`dedup_texts` (a list of str),
:func:`dedup_table` (a dataset file, stdin, a table in memory) and :func:`dedup_files` (the text
files under folders).

:class:`LocalExecutor` keeps one :class:`~simhash_lab.dedup.run.State` and sets its fields step
after step. Its threads: a source's chunks are read by a thread of their own
(:func:`~simhash_lab.datasets.prefetch`; the reading holds the GIL) and each chunk's first-read
steps (:func:`~simhash_lab.dedup.steps.first_read`) run whole on one of ``thread_count()``
threads, its kernels on that thread alone (they release the GIL), the chunks taken back in order;
the calibration, when k is only reported (bands), runs beside the candidates and the verification;
the duplicates table is written beside the kept rows.
"""

from __future__ import annotations

import collections
import contextlib
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from .._files import DEFAULT_MAX_BYTES, show_name
from .._threads import one_thread, short_switches, small_pages, thread_count
from .._validate import check_int, check_k
from .._write import check_outputs
from ..calibration import Calibration
from ..datasets import (
    DatasetError,
    FilesSource,
    PartsSource,
    Source,
    StdinSource,
    TextsSource,
    iter_files,
    open_dataset,
    prefetch,
)
from ..settings import DedupSettings
from ..shingles import CHUNK_ROWS, gather_sets
from .report import check_report_name, write_report
from .results import (
    DedupResult,
    UnitRows,
    check_duplicates_name,
    deprecated,
    duplicates_arrow,
    write_duplicates,
)
from .run import Clock, Rows, Run, State
from .steps import (
    CALIBRATE,
    CANDIDATES,
    CLUSTER,
    EXACT_GROUPS,
    PLAN,
    READ,
    VERIFY,
    WRITE,
    distinct_rows,
    exact_groups,
    first_read,
    run_settings,
    visiting_order,
)

__all__ = ["LocalExecutor", "dedup", "dedup_files", "dedup_table", "dedup_texts"]


def _sharing() -> contextlib.AbstractContextManager:
    """With threads, the GIL handed over sooner (:func:`~simhash_lab._threads.short_switches`)
    while a run's threads share it: the reading thread and the chunk threads, the calibration
    beside the candidates, the duplicates table written beside the kept rows (a JSONL file's rows:
    copied by a compiled call without the GIL, ``JsonlSource._copy_kept``; other formats' writers
    take it back between their writes)."""
    return short_switches() if thread_count() > 1 else contextlib.nullcontext()


class LocalExecutor:
    """Runs the steps over every row of a source in this process (see the module's docstring).

    Parameters
    ----------
    settings : DedupSettings
        The run's options.
    """

    def __init__(self, settings: DedupSettings) -> None:
        self.run = Run(settings)
        _ = self.run.featurizer  # made once, before the threads that use it
        self.clock = Clock(settings.progress)

    def __call__(self, source: Source, priority: np.ndarray | None = None) -> State:
        """Every step but write over ``source`` (``priority``: one per row, optional); the state
        they leave."""
        with self.clock.step(PLAN.name) if self.run.bands else contextlib.nullcontext():
            self.run = self.run.with_plan(PLAN.choose(self.run, [source], chunk_rows=CHUNK_ROWS))
        _ = self.run.key_maker  # made once, before the threads that use it
        state = State(self.run, READ.source(self.run, source), documents=source, timings=self.clock.timings)
        with _sharing(), small_pages():
            self.read(state)
            self.order(state, priority)
            self.exact_groups(state)
            self.search(state)
            self.cluster(state)
            if state.rows.units is not None:
                self.documents(state)
        self.clock.in_order()
        return state

    # -- read, normalise, exact digests, fingerprint, band keys -------------------------------

    def read(self, state: State) -> None:
        """The first read: each chunk's :func:`~simhash_lab.dedup.steps.first_read` on a thread,
        taken back in order into :attr:`State.rows`.

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        run, source, clock = self.run, state.documents, self.clock
        rows = state.rows = Rows(run)
        total, bar_unit = source.size_hint()
        bar = clock.bars.start(READ.name, total, bar_unit or ("file" if source.format == "files" else "row"))
        workers = thread_count() if source.format in ("jsonl", "csv", "parquet", "parts") else 1
        pool = ThreadPoolExecutor(workers, "simhash-lab-rows") if workers > 1 else None

        def on_thread(texts: list, start: Any):
            with one_thread():
                return first_read(run, texts, start, source.name, clock)

        def take(texts: list, ids: list, prio: Any, units: Any, chunk: Any) -> None:
            rows.add(chunk, texts, ids, prio, clock, units)
            if bar is not None:
                bar.update(source.progress_step(len(texts) if units is None else units.docs))

        pending: collections.deque = collections.deque()  # (texts, ids, prio, units, future), in order

        def drain(leave: int) -> None:
            """Take the pending chunks' results, in order, until ``leave`` are left."""
            while len(pending) > leave:
                t, i, p, u, job = pending.popleft()
                take(t, i, p, u, job.result())

        try:
            chunks = READ.chunks(run, source, CHUNK_ROWS, READ.in_place(run))
            if pool is not None:
                chunks = prefetch(chunks)
            start = docs = 0
            while True:
                try:
                    with clock.time(READ.name):
                        chunk = next(chunks, None)
                except Exception:
                    drain(0)  # a bad row in a chunk before this one is the one reported
                    raise
                if chunk is None:
                    break
                texts, ids, prio, units = chunk
                at = start if units is None else units.doc + docs  # a unit's errors name its document
                if pool is None:
                    take(texts, ids, prio, units, first_read(run, texts, at, source.name, clock))
                else:
                    pending.append((texts, ids, prio, units, pool.submit(on_thread, texts, at)))
                    drain(workers)  # one chunk waits for each thread that comes free
                start += len(texts)
                docs += len(texts) if units is None else units.docs
            drain(0)
        finally:
            clock.bars.close()
            if pool is not None:
                for *_, job in pending:
                    job.cancel()
                pool.shutdown(wait=True)
        rows.finish()
        what = ids_named(source)
        if what is not None:
            with clock.time(READ.name):
                READ.check_ids(run, rows.ids if rows.units is None else rows.doc_ids, what, source.name)

    def order(self, state: State, priority: np.ndarray | None) -> None:
        """The visiting order (``rank[i]``: row i's place): a priority column (or array), else
        ``keep``.

        Parameters
        ----------
        state : State
            The run state.
        priority : ndarray of float64, optional
            One priority a row (``dedup_texts(priority=)``), unless the source has a column of them.
        """
        rows = state.rows
        n = rows.n
        pr = rows.priorities if rows.priorities is not None else priority
        order = visiting_order(np.arange(n), rows.lengths, pr)
        state.rank = np.empty(n, np.int64)
        state.rank[order] = np.arange(n)
        state.priority = pr is not None

    # -- exact groups --------------------------------------------------------------------------

    def exact_groups(self, state: State) -> None:
        """One representative of each exact group goes on to the search (``state.search``): every
        row is grouped, the featureless ones too (``['👍👍', '👍👍']`` keeps the first), and the
        representatives with features are searched.

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        rows, n = state.rows, state.n
        with self.clock.time(EXACT_GROUPS.name):
            valid = ~rows.featureless
            ok = np.arange(n, dtype=np.int64)
            rep = exact_groups(rows.digests, state.rank, ok) if rows.digests is not None and n else ok
            state.copies, state.copy_of = ok[rep != ok], rep[rep != ok]
            state.search = valid
            state.search[state.copies] = False
            state.exact_groups = int(distinct_rows(n, state.copy_of).size)
            state.representative = np.arange(n, dtype=np.int64)
            state.representative[state.copies] = state.copy_of

    # -- calibrate, candidates, verify --------------------------------------------------------

    def search(self, state: State) -> None:
        """The steps calibrate (unless k is given), candidates and verify: with bands and threads (and no
        bars) the calibration runs beside the candidates and the verification (the bands do not
        need k, only report it).

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        run, rows, clock = self.run, state.rows, self.clock
        fps = rows.fps

        def calibration(bar: Any) -> Calibration:
            return CALIBRATE.run(run, state.source, fps, state.search, rows.sets, bar)

        def calibration_beside() -> Calibration:
            with one_thread(), clock.time(CALIBRATE.name):
                return calibration(None)

        beside = None
        k = run.settings.k
        if k is None:
            if rows.keys is not None and thread_count() > 1 and not clock.bars.on:
                beside = ThreadPoolExecutor(1, "simhash-lab-calibrate")
                cal = beside.submit(calibration_beside)
            else:
                with clock.step(CALIBRATE.name) as bar:
                    state.calibration = calibration(bar)
                k = state.calibration.k
        else:
            k = check_k(k, run.bits)
        try:
            with clock.step(CANDIDATES.name, None, unit="band" if rows.keys is not None else "table") as bar:
                if rows.keys is not None:
                    state.pairs = rows.keys.pairs(state.search, fps, bar=bar)
                else:
                    state.pairs = CANDIDATES.within_k(run, fps, np.flatnonzero(state.search), k, bar)
            self.verify(state)
            if beside is not None:
                state.calibration = cal.result()
                k = state.calibration.k
        finally:
            if beside is not None:
                beside.shutdown(wait=True)
        state.k = k

    def verify(self, state: State) -> None:
        """Each candidate pair's exact Jaccard similarity from ``Verify.floor`` (below it
        ``Verify.BELOW``): the pairs whose set sizes cannot reach it left out first, then the sets
        of the rows the others need, kept by the first read or made again (those rows alone).

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        run, rows, pairs = self.run, state.rows, state.pairs
        if run.verified and pairs.shape[0]:
            floor = VERIFY.floor(run)
            state.similarity = np.full(pairs.shape[0], VERIFY.BELOW)
            with self.clock.time(VERIFY.name):
                ok = np.flatnonzero(VERIFY.by_size(run, rows.set_sizes, pairs[:, 0], pairs[:, 1]))
                a, b = pairs[ok, 0], pairs[ok, 1]
                need = distinct_rows(state.n, a, b)
            with self.clock.step(VERIFY.name, int(need.size) + int(ok.size)) as bar:
                if rows.sets is None:  # made again, a chunk of rows at a time
                    state.similarity[ok] = VERIFY.streamed(run, state.source, a, b, state.n, bar)
                else:
                    store = gather_sets(state.source, need, run.featurizer, None, rows.sets)
                    if bar is not None:  # the sets were in memory
                        bar.update(int(need.size))
                    la, lb = store.local(a), store.local(b)
                    state.similarity[ok] = VERIFY.similarity(store.indptr, store.data, la, lb, bar, floor)
                    del store
        else:
            state.similarity = np.full(pairs.shape[0], np.nan)
        state.verified = VERIFY.passes(run, state.similarity)

    # -- cluster -------------------------------------------------------------------------------

    def cluster(self, state: State) -> None:
        """The keep/drop pass over the verified pairs, then the exact copies; the keep mask.

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        n, rank = state.n, state.rank
        ids = state.rows.ids
        with self.clock.step(CLUSTER.name):
            edges = np.flatnonzero(state.verified)
            state.duplicates = CLUSTER.decide(
                self.run,
                state.pairs[edges],
                state.similarity[edges],
                lambda nodes: np.argsort(rank[nodes], kind="stable"),
                state.copies,
                state.copy_of,
                lambda rows: [ids[i] for i in rows.tolist()],
                n,
            )
            state.keep = np.ones(n, np.bool_)
            state.keep[state.duplicates.dropped] = False

    def documents(self, state: State) -> None:
        """With units of documents: each document kept (without the units dropped) or dropped
        whole (``Cluster.documents``), timed as the cluster step.

        Parameters
        ----------
        state : State
            The run state: what the steps before left, where this one leaves its part.
        """
        rows, d = state.rows, state.duplicates
        with self.clock.time(CLUSTER.name):
            state.doc_keep, state.doc_whole, state.doc_left = CLUSTER.documents(
                self.run, rows.units, d.dropped, np.unique(d.kept), rows.docs
            )

    def result(self, state: State, result: DedupResult | None = None) -> DedupResult:
        """The :class:`~simhash_lab.dedup.results.DedupResult` of a run's state.

        Parameters
        ----------
        state : State
            The state the steps left.
        result : DedupResult, optional
            A result to fill (:func:`dedup_files` gives one holding the files it skipped).

        Returns
        -------
        DedupResult
        """
        run, rows = self.run, state.rows
        res = result or DedupResult(k=-1, bits=run.bits, format=state.source.format)
        res.bits = run.bits
        res.jaccard = run.settings.jaccard if run.verified else None
        res.ids = rows.ids
        res.fingerprints = rows.fps
        res.by_chars = rows.chars
        res.featureless = np.flatnonzero(rows.featureless).astype(np.int64)
        res.exact = int(state.copies.size)
        res.exact_groups = state.exact_groups
        res.representative = state.representative
        res.calibration = state.calibration
        res.k = state.k
        res.pairs = state.pairs
        res.similarity = state.similarity
        res.keep = state.keep
        res.duplicates = state.duplicates
        if rows.units is not None:  # the documents' view: their ids and fates; the units apart
            u = rows.units
            res.units = UnitRows(
                run.settings.unit, rows.ids, u.doc, u.index, u.start, u.end, u.words, state.keep
            )
            res.ids = rows.doc_ids if rows.doc_ids is not None else list(range(rows.docs))
            res.keep = state.doc_keep
            res.whole = np.flatnonzero(state.doc_whole).astype(np.int64)
            res.words_left = state.doc_left
        res.settings = run_settings(run, state.k, run.band_info(), state.priority)
        res.options = run.settings
        res.timings = state.timings
        return res


def ids_named(source: Source) -> str | None:
    """How messages name a source's ids when they come from the data (an id column, the ids
    given), else None (row numbers, file paths: unique by construction)."""
    col = getattr(source, "id_column", None)
    if col is not None:
        return f"id column {col!r}"
    if isinstance(source, TextsSource) and source.ids is not None:
        return "ids"
    return None


def _run(
    source: Source, s: DedupSettings, *, priority: Any = None, result: DedupResult | None = None
) -> DedupResult:
    ex = LocalExecutor(s)
    return ex.result(ex(source, priority), result)


def dedup_texts(
    texts: Sequence[str],
    settings: DedupSettings | None = None,
    *,
    ids: Sequence | None = None,
    priority: Any = None,
    **options: Any,
) -> DedupResult:
    """Near-duplicates of a list of texts: which to keep, and why each other one is dropped.

    Parameters
    ----------
    texts : sequence of str
    settings : DedupSettings, optional
        Every option of the run (:class:`~simhash_lab.settings.DedupSettings`); its fields may
        also be given as keywords (``jaccard=0.7``, ``k=12``, ``unverified=True``...).
    ids : sequence, optional
        One id per text for the duplicates table (default: positions).
    priority : array of shape (n,), float, optional
        Keep documents with a higher priority first (ties in input order).
    **options
        Fields of :class:`~simhash_lab.settings.DedupSettings` by name (``jaccard=0.7``, ``k=12``,
        ``unverified=True``...): they replace those of ``settings``.

    Returns
    -------
    DedupResult
        ``keep`` (bool per text) and ``duplicates`` (the table), with the calibration and the pairs.
    """
    s = DedupSettings.of(settings, **options)
    source = TextsSource(texts, ids)
    pr = _check_priority(priority, len(source.texts))
    res = _run(source, s, priority=pr)
    res.format = "texts"
    res.preset = res.settings.get("features", "")
    return res


def _check_priority(priority: Any, n: int):
    if priority is None:
        return None
    arr = np.asarray(priority)
    if arr.shape != (n,) or arr.dtype.kind not in "iuf":
        raise ValueError(
            f"priority must be an array of {n} numbers (one per document), got shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise ValueError("priority must hold finite numbers")
    return arr


def dedup_table(
    data: Any,
    column: str = "text",
    settings: DedupSettings | None = None,
    *,
    id_column: str | None = None,
    priority_column: str | None = None,
    format: str | None = None,
    output: str | os.PathLike | None = None,
    duplicates: str | os.PathLike | None = None,
    report: str | os.PathLike | None = None,
    **options: Any,
) -> DedupResult:
    """Deduplicate a dataset: a JSONL, CSV or Parquet file (``"-"``: JSONL on stdin), or in memory
    a pandas DataFrame, a pyarrow Table or a Hugging Face ``datasets.Dataset``.

    A file is read in chunks of 8192 rows (:mod:`simhash_lab.datasets`): once to fingerprint,
    again for the rows whose text is needed (the calibration sample, the candidate pairs), and once
    more to write ``output``: the kept rows, unchanged and in input order, in the input's format.
    ``duplicates`` gets the duplicates table (CSV, JSONL or Parquet by its name; columns
    ``dropped_id, kept_id, distance, similarity, dropped_row, kept_row``); ``report`` a page of
    what was found (``.html``, or ``.md``). A table in memory gives the
    same decisions as the same rows in a file (``res.keep``: ``df[res.keep]``).

    Parameters
    ----------
    data : str, path, DataFrame, pyarrow.Table or datasets.Dataset
    column : str
        The column holding the text (every value must be a string).
    settings : DedupSettings, optional
        Every option of the run (:class:`~simhash_lab.settings.DedupSettings`); its fields may
        also be given as keywords (``jaccard=0.7``, ``k=12``...).
    id_column : str, optional
        The column of ids for the duplicates table (default: row numbers from 0).
    priority_column : str, optional
        A numeric column: rows with a higher value are kept first.
    format : {"jsonl", "csv", "parquet"}, optional
        Default: from the file name.
    output, duplicates, report : str or path, optional
        Where to write the kept rows, the duplicates table and the report; each checked before
        anything is read (none may be the input, by any name: standard input's file too).
    **options
        Fields of :class:`~simhash_lab.settings.DedupSettings` by name (``jaccard=0.7``, ``k=12``,
        ``unverified=True``...): they replace those of ``settings``.

    Returns
    -------
    DedupResult
        ``ids`` the id column's values (or row numbers); ``written`` the rows written to ``output``.

    Raises
    ------
    DatasetError
        A ValueError whose message is one line naming the file and the problem (a missing column,
        a value that is not text, a corrupt or empty file, an output named for another format).
    """
    s = DedupSettings.of(settings, **options)
    if isinstance(data, (str, os.PathLike)) and os.fspath(data) == "-":
        _check_outputs(None, output, duplicates, report, stdin=True)  # before stdin is spooled
    source = open_dataset(data, column, id_column, format, priority_column, max_row_bytes=s.max_row_bytes)
    done = False
    try:
        outs = _check_outputs(source, output, duplicates, report)
        ex = LocalExecutor(s)
        res = ex.result(ex(source))
        res.preset = res.settings.get("features", "")
        if not res.ids:
            raise DatasetError(f"{source.name}: empty: no rows")
        _write_outputs(ex.clock, source, res, outs)
        done = True
    finally:
        if not done:
            _remove_made(getattr(source, "made_folders", []))
        source.close()
    return res


def _write_outputs(clock: Clock, source: Source, res: DedupResult, outs: dict) -> None:
    """The write step: the kept rows, the duplicates table (with threads, beside the kept rows:
    their writes and syncs wait on the disk, the table's cells on the interpreter), the report."""
    output, duplicates, report = outs.get("output"), outs.get("duplicates"), outs.get("report")
    side = duplicates is not None and output is not None and thread_count() > 1
    table = res.duplicates_table()
    arrow = None  # a Parquet table's columns, made (its ids checked) before anything is written
    if duplicates is not None and check_duplicates_name(duplicates) == "parquet":
        arrow = duplicates_arrow(duplicates, table)
    if output is not None:
        pool = ThreadPoolExecutor(1) if side else contextlib.nullcontext()
        cuts = res.cuts()
        with clock.step(WRITE.name, len(res.ids)) as bar, pool, _sharing():
            job = None
            if side:
                job = pool.submit(write_duplicates, duplicates, table, None, arrow)
            progress = bar.update if bar is not None else None
            if cuts:  # units dropped: the kept documents without them
                res.written = source.write_kept(output, res.keep, progress, cuts)
            else:
                res.written = source.write_kept(output, res.keep, progress)
            if job is not None:
                job.result()
    if duplicates is not None and not side:
        with clock.time(WRITE.name):
            write_duplicates(duplicates, table, arrow=arrow)
    if report is not None:
        with clock.time(WRITE.name):
            write_report(report, res, READ.source(Run(res.options), source))


def _check_outputs(source: Any, output: Any, duplicates: Any, report: Any, stdin: bool = False) -> dict:
    """The outputs, checked before any work by the one safe writer (:func:`simhash_lab._write.
    check_outputs`: folders that exist and can be written, not an input by any name, standard
    input's file included, no file named twice), then each named for what it gets; returns their
    paths."""
    given = [
        (o, p)
        for o, p in (("output", output), ("duplicates", duplicates), ("report", report))
        if p is not None
    ]
    if stdin or isinstance(source, StdinSource):
        inputs: list = [0]  # standard input: the file (or pipe) on descriptor 0, by any name
    elif isinstance(source, PartsSource):
        inputs = source.inputs
    else:
        src = getattr(source, "path", None)
        inputs = [src] if src is not None and getattr(source, "fs", None) is None else []
    files = [(f"--{o}", p) for o, p in given]
    if isinstance(source, PartsSource) and output is not None:  # a folder: each part's file in it
        source.check_output(os.fspath(output))
        made = _make_folders(source.output_files(os.fspath(output)))
        files = [f for f in files if f[0] != "--output"]
        files += [("--output", f) for f in source.output_files(os.fspath(output))]
        source.made_folders = made
    check_outputs(*[p for _, p in files], what=[w for w, _ in files], inputs=inputs)
    outs = {o: os.fspath(p) for o, p in given}
    if source is not None:
        if "output" in outs and not isinstance(source, PartsSource):
            source.check_output(outs["output"])
        if "duplicates" in outs:
            check_duplicates_name(outs["duplicates"])
        if "report" in outs:
            check_report_name(outs["report"])
    return outs


def _make_folders(files: list[str]) -> list[str]:
    """The folders of ``files`` made where missing (before any work, so that the outputs in them
    can be checked); returns those made, deepest first, for :func:`_remove_made` after a failure."""
    made = []
    for folder in sorted({os.path.dirname(os.path.abspath(f)) for f in files}):
        missing = []
        at = folder
        while not os.path.isdir(at):
            missing.append(at)
            at = os.path.dirname(at)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            why = e.strerror or e
            raise DatasetError(f"{show_name(folder)}: cannot make the output folder: {why}") from None
        made += [m for m in missing if m not in made]
    return sorted(made, key=len, reverse=True)


def _remove_made(folders: list[str]) -> None:
    """Remove the output folders :func:`_make_folders` made, when still empty (a failed run)."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            pass


def dedup_files(
    paths: Sequence[str],
    settings: DedupSettings | None = None,
    *,
    preset: str | None = None,
    hidden: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    report: Any = None,
    **options: Any,
) -> DedupResult:
    """Near-duplicate text files under ``paths``: each file that reads as text is a document, its
    path its id.

    Parameters
    ----------
    paths : sequence of str
        Files and folders (read recursively); see :func:`~simhash_lab.datasets.iter_files`.
    settings : DedupSettings, optional
        Every option of the run (:class:`~simhash_lab.settings.DedupSettings`); its fields may
        also be given as keywords.
    preset : str, optional
        A preset name for the hasher ("default", "seed_python", "seed_rust", "leonsim"): the same
        as ``hasher=``.
    hidden : bool, default False
        Also read files and folders whose name starts with a dot.
    max_bytes : int, optional
        Files larger than this (default 64 MiB) are skipped and listed in ``skipped``.
    report : callable, optional
        Called as ``report(path, reason)`` for each file skipped or failing, as it happens.
    **options
        Fields of :class:`~simhash_lab.settings.DedupSettings` by name (``jaccard=0.7``, ``k=12``,
        ``unverified=True``...): they replace those of ``settings``.

    Returns
    -------
    DedupResult
        With ``skipped`` and ``errors`` (see :func:`~simhash_lab.datasets.iter_files`);
        whitespace-only files are featureless (:attr:`DedupResult.featureless_ids`). Exit status:
        2 when something could not be read, else 1 when something was dropped, else 0.
    """
    check_int("max_bytes", max_bytes, 0, 1 << 62)
    if preset is not None:
        if options.get("hasher") is not None:
            raise ValueError("give preset or hasher, not both")
        options["hasher"] = preset
    s = DedupSettings.of(settings, **options)
    res = DedupResult(k=-1, bits=64, format="files")
    report = report or (lambda path, reason: None)
    files = list(iter_files(paths, hidden=hidden, errors=res.errors, skipped=res.skipped))
    for p, r in res.errors + res.skipped:
        report(p, r)
    ex = LocalExecutor(s)

    def say(path: str, why: str) -> None:
        bar = ex.clock.bars.current
        if bar is None:
            report(path, why)
        else:
            with bar.external_write_mode(file=sys.stderr):
                report(path, why)

    source = FilesSource(files, max_bytes, say)
    res = ex.result(ex(source), res)
    res.skipped += source.skipped
    res.errors += source.errors
    res.preset = preset or res.settings.get("features", "")
    return res


def dedup(paths: Sequence[str], settings: DedupSettings | None = None, **options: Any) -> DedupResult:
    """Deprecated name of :func:`dedup_files` (the files variant beside :func:`dedup_texts` and
    :func:`dedup_table`): the same call, with a DeprecationWarning.

    Parameters
    ----------
    paths : sequence of str
        Files and folders, as for :func:`dedup_files`.
    settings : DedupSettings, optional
        As for :func:`dedup_files`.
    **options
        As for :func:`dedup_files` (``preset``, ``hidden``, ``max_bytes``, ``report`` and the
        settings' fields).

    Returns
    -------
    DedupResult
    """
    deprecated("dedup()", "dedup_files()")
    return dedup_files(paths, settings, **options)
