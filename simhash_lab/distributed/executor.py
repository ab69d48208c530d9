"""The Dask executor: verified dedup of a partitioned dataset, :func:`dedup_dataset`.

It runs the steps of :mod:`simhash_lab.dedup.steps` (the ones :mod:`simhash_lab.dedup.local` runs
in one process) as Dask tasks: a task a run of consecutive files for the steps over rows, a task a
reducer for the steps over buckets (digests, band keys, table keys), one task for the decisions
that need every pair (the calibration's measure, the clusters). Every task takes one frozen run
object (:class:`DatasetRun`: the settings and where everything is) and its rank; what one step
hands the next goes through the shuffle's files (:mod:`.pieces`) in a scratch folder, as
MapReduce's map outputs do: a map task writes one file of pieces, one piece per reducer behind an
index of their places, a barrier task waits for every map task, and each reducer lists the step's
files and reads its own piece of each. Every task depends on a barrier or on its own partition
only, so the graph has O(partitions + reducers) tasks and edges, and a step writes O(partitions)
files (why files and not Dask's task shuffle: ``benchmarks/dedup_at_scale.md``). Every object a
task writes is named by the task and written whole, so a task run again after a worker is lost
writes the same objects again: the result does not change.

============ ====================================== ================================================
step         task (rank)                            what it does
============ ====================================== ================================================
read ...     :func:`read_part` (task)               ``first_read`` on every chunk of its files;
                                                    digests to the exact groups' shuffle
exact groups :func:`exact_reduce` (reducer)         ``ExactGroups.representatives``: copies routed
calibrate    :func:`cal_draw`, :func:`cal_scan`     ``Calibrate.draw`` (one), ``.scan`` (a task),
             (task), :func:`cal_measure`            ``.measure`` (one)
candidates   :func:`band_map` / :func:`table_map`   ``Candidates.band_map`` / ``.table_map``;
             (task), :func:`band_reduce` /          ``.band_reduce`` / ``.table_reduce``: each pair
             :func:`table_reduce` (reducer)         routed to its first row's partition
verify       :func:`attach_left` (task),            the first row's set attached, the pair routed to
             :func:`verify_right` (task)            its second row's partition: ``Verify``
cluster      :func:`cluster_all` (one)              ``Cluster.decide``
write        :func:`write_part` (task),             ``Write.part`` a file; the duplicates table
             :func:`write_duplicates_table` (one)
============ ====================================== ================================================
"""

from __future__ import annotations

import dataclasses
import math
import os
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _storage
from .._i18n import get_language, language
from .._threads import small_pages
from .._validate import check_int, check_k, default_memory_budget
from ..calibration import Draw
from ..candidates import offsets as offsets_of
from ..datasets import DatasetError, Source, open_dataset
from ..dedup.results import Duplicates, duplicates_arrow, write_duplicates
from ..dedup.run import Clock, Rows, Run
from ..dedup.steps import (
    CALIBRATE,
    CANDIDATES,
    CLUSTER,
    EXACT_GROUPS,
    PLAN,
    READ,
    VERIFY,
    WRITE,
    first_read,
    id_keys,
    repeats,
    visiting_order,
)
from ..hamming import hamming
from ..index.design import choose_layout, layout_tables
from ..settings import DedupSettings
from ..shingles import CHUNK_ROWS, SetStore, gather_sets
from .batch import table_masks
from .cluster import compute as run_graph
from .cluster import need_dask, scheduler_threads
from .pieces import (
    PIECE,
    id_strings,
    ids_at,
    ids_bytes,
    ids_columns,
    ids_of,
    load_piece,
    read_pieces,
    save_piece,
    save_pieces,
)

__all__ = ["DatasetRun", "dedup_dataset"]

#: the shuffle's steps: a folder each in the run's scratch folder
SHUFFLES = ("exact", "copies", "map", "left", "right", "verified", "places", "ids")
#: bytes of shingle sets all tasks' first reads may keep (one process's budget, shared among
#: them): a task verifies its pairs from them, else makes the sets of the rows it needs again
SETS_BUDGET = 1 << 30
#: a partition's calibration rows (sampled, or within ``k_max`` of a sampled one) whose shingle
#: sets its scan task hands to the calibration; more (clustered fingerprints): read again there
CAL_SETS_ROWS = 200_000
#: the most bytes of files ``dedup_dataset`` gives one task by default (``dask.dataframe``'s blocksize)
TASK_BYTES_MAX = 256 << 20
#: how a partition's kept rows are named in the output folder (``NNNNN``: the file's place)
PART_NAME = "part-{:05d}.parquet"
DUPLICATES_NAME = "duplicates.parquet"


@dataclass(frozen=True)
class DatasetRun(Run):
    """:func:`dedup_dataset`'s run: the settings (:class:`~simhash_lab.dedup.run.Run`) and where
    everything is; the one object every task takes (frozen; fsspec filesystems pickle as their
    protocol and options).

    Attributes
    ----------
    fs : fsspec filesystem
        The partitions' filesystem.
    files : tuple of str
        Every partition file, in order (their rows numbered across them).
    tasks : tuple of tuple of int
        Each task's files (their places in ``files``; consecutive).
    column, id_column, format : str or None
        As :func:`dedup_dataset` takes them.
    sfs : fsspec filesystem; folder : str
        The scratch filesystem and this run's folder in it.
    reducers : int
        Reduce tasks.
    ofs : fsspec filesystem; output : str
        The output folder.
    layout : str or tuple; max_tables : int
        The table join's layout and its most tables (``candidates="index"``).
    """

    fs: Any = None
    files: tuple = ()
    tasks: tuple = ()
    column: str = "text"
    id_column: str | None = None
    format: str | None = None
    sfs: Any = None
    folder: str = ""
    reducers: int = 1
    ofs: Any = None
    output: str = ""
    layout: Any = "auto"
    max_tables: int = 64

    def source(self, f: int) -> Source:
        """The :class:`~simhash_lab.datasets.Source` of file ``f``, local or through fsspec."""
        path = self.files[f]
        if _storage.is_local(self.fs):
            return open_dataset(path, self.column, self.id_column, self.format)
        return open_dataset(path, self.column, self.id_column, self.format, fs=self.fs)

    def sources(self, p: int) -> Iterator[Source]:
        """The sources of task ``p``'s files, in order."""
        for f in self.tasks[p]:
            yield self.source(f)

    def pieces(self, step: str, dest: int | None, keys: Sequence[str] | None = None) -> list[dict]:
        """The pieces of ``step`` for destination ``dest`` (None: all), :func:`.pieces.read_pieces`."""
        return read_pieces(self.sfs, self.folder, step, dest, keys)

    def save(self, step: str, src: int, n_dest: int, pieces: dict) -> None:
        """Task ``src``'s pieces of ``step``, :func:`.pieces.save_pieces`."""
        save_pieces(self.sfs, self.folder, step, src, n_dest, pieces)


# -- read, normalise, exact digests, fingerprint, band keys: a task a run of files --------------


@small_pages()  # as dedup_table runs: no huge pages for its per-chunk arrays
def read_part(run: DatasetRun, p: int) -> Rows:
    """Task ``p``'s files read in order (their rows numbered across them; ``rows.sizes``: each
    file's), every chunk through :func:`~simhash_lab.dedup.steps.first_read` as
    :func:`~simhash_lab.dedup.dedup_table` does it; with ``exact``, the digests of its rows
    written to the exact groups' shuffle (``exact/{p}.pieces``, the reducer picked by the digest's
    value), with their rows, lengths and ids: every row's, the featureless ones too (identical
    normalised texts are one group whatever their shingles)."""
    rows = Rows(run, ids=run.id_column is not None)
    clock = Clock()
    for src in run.sources(p):
        start, docs = 0, rows.docs
        for texts, ids, _, units in READ.chunks(run, src, CHUNK_ROWS):
            at = start if units is None else units.doc + rows.docs  # a unit's errors name its document
            rows.add(first_read(run, texts, at, src.name, clock), texts, ids, None, units=units)
            start += len(texts)
        rows.sizes.append(start)
        rows.doc_sizes.append(rows.docs - docs)
    rows.finish()
    if rows.digests is not None and rows.n:
        sel = np.arange(rows.n, dtype=np.int64)
        d = rows.digests
        strings = id_strings(rows.ids) if run.id_column is not None else None
        bucket = (d[:, 0] % np.uint64(run.reducers)).astype(np.int64)  # a digest is uniform already
        pieces = {}
        for r in np.unique(bucket).tolist():
            at = sel[bucket == r]
            piece = {"d": d[bucket == r], "row": at, "part": np.array([p], np.int64)}
            if rows.units is not None:  # each unit's document (its id without an id column)
                piece["doc"] = rows.units.doc[at]
            if rows.lengths is not None:
                piece["length"] = rows.lengths[at]
            piece.update(
                ids_columns(rows.ids, strings, at) if run.id_column is not None else {"ids": ids_bytes([])}
            )
            pieces[r] = piece
        run.save("exact", p, run.reducers, pieces)
    if run.id_column is not None:  # the ids, shuffled by their digests: ids_reduce finds repeats
        ids = rows.doc_ids if rows.units is not None else rows.ids
        keys = id_keys(ids)
        bucket = (keys[:, 0] % np.uint64(run.reducers)).astype(np.int64)
        strings = id_strings(ids)
        pieces = {}
        for r in np.unique(bucket).tolist():
            at = np.flatnonzero(bucket == r)
            pieces[r] = {
                "k": keys[at],
                "row": at,
                "part": np.array([p], np.int64),
                **ids_columns(ids, strings, at),
            }
        run.save("ids", p, run.reducers, pieces)
    return rows


def ids_reduce(run: DatasetRun, r: int, docs_at: np.ndarray) -> tuple:
    """Reducer ``r``'s ids (every copy of an id meets here): how many rows repeat an earlier row's
    id, and the first such repeat (``steps.repeats``, in the rows' numbers across all partitions):
    ``(count, first, again, id)``."""
    got = run.pieces("ids", r)
    if not got:
        return 0, -1, -1, None
    keys = np.concatenate([x["k"] for x in got])
    rows = np.concatenate([x["row"] + docs_at[int(x["part"][0])] for x in got]).astype(np.int64)
    count, first, again = repeats(keys, rows)
    if not count:
        return 0, -1, -1, None
    return count, first, again, ids_at(got, np.flatnonzero(rows == first)[:1])[0]


def ids_check(run: DatasetRun, where: str, *found: tuple) -> tuple:
    """Every reducer's repeats of ids summed, the first of them (in row order) said: refused with
    ``unique_ids`` (the run stops here, before anything is written), else returned for the caller
    to warn of: ``(count, id, first, again)``."""
    count = sum(int(f[0]) for f in found)
    if not count:
        return 0, None, -1, -1
    first = min((f for f in found if f[0]), key=lambda f: f[2])
    if run.settings.unique_ids:
        READ.say_ids(run, count, first[3], first[1], first[2], f"id column {run.id_column!r}", where)
    return count, first[3], first[1], first[2]


def gate(checked: tuple) -> int:
    """0 once the ids are checked (what the clustering waits for)."""
    return 0


def part_counts(rows: Rows) -> tuple[int, int, list, int, list]:
    """A task's rows, rows shingled by characters, each of its files' rows, its documents (the
    rows, unless they are units of documents) and each of its files' documents."""
    return rows.n, rows.chars, list(rows.sizes), rows.docs, list(rows.doc_sizes)


def doc_offsets(counts: list) -> np.ndarray:
    """Each task's first document (and the documents in all, last)."""
    return offsets_of([int(c[3]) for c in counts])


def ids_of_rows(run: DatasetRun, rows: Rows, local_rows: np.ndarray, offset: int, doc_offset: int) -> list:
    """The ids of rows ``local_rows`` of a task: the id column's values, or without one the row
    numbers across all partitions (``offset``: the task's first), as ``dedup_table`` numbers them;
    units take their document's (``doc_offset``: the task's first document)."""
    if run.id_column is not None:
        return [rows.ids[r] for r in local_rows.tolist()]
    if rows.units is not None:
        return (rows.units.doc[local_rows] + int(doc_offset)).tolist()
    return (local_rows + int(offset)).tolist()


def task_offsets(counts: list) -> np.ndarray:
    """Each task's first row (and the rows in all, last)."""
    return offsets_of([int(c[0]) for c in counts])


def file_offsets(counts: list) -> np.ndarray:
    """Each file's first row (and the rows in all, last)."""
    return offsets_of([int(n) for c in counts for n in c[2]])


def barrier(*counts: int) -> int:
    """Waits for every task of a step (their counts summed)."""
    return int(sum(int(c) for c in counts))


# -- exact groups: a reducer a bucket of digests --------------------------------------------------


def exact_reduce(
    run: DatasetRun, r: int, offsets: np.ndarray, docs_at: np.ndarray | None = None, _after: object = None
) -> int:
    """The exact groups of reducer ``r``'s digests (every copy of a text meets here): each row's
    representative by ``ExactGroups.representatives`` (the visiting order of
    :func:`~simhash_lab.dedup.steps.visiting_order`); the copies routed to their partition's piece
    of ``copies/{r}.pieces`` with their representatives and both ids."""
    got = run.pieces("exact", r)
    if not got:
        return 0
    d = np.concatenate([x["d"] for x in got])
    rows = np.concatenate([x["row"] + offsets[int(x["part"][0])] for x in got]).astype(np.int64)
    longest = run.settings.keep == "longest"
    lens = np.concatenate([x["length"] for x in got]) if longest else None
    rep = EXACT_GROUPS.representatives(d, rows, lens)
    cp = np.flatnonzero(rep != np.arange(rows.size))
    if not cp.size:
        return 0
    # the ids of the copies and their representatives only (row numbers across all partitions
    # without an id column, as dedup_table numbers them)
    if run.id_column is None and "doc" in got[0]:  # units: their documents' numbers
        doc = np.concatenate([x["doc"] + docs_at[int(x["part"][0])] for x in got]).astype(np.int64)
        id_cp, id_rp = doc[cp].tolist(), doc[rep[cp]].tolist()
    elif run.id_column is None:
        id_cp, id_rp = rows[cp].tolist(), rows[rep[cp]].tolist()
    else:
        both = ids_at(got, np.concatenate([cp, rep[cp]]))
        id_cp, id_rp = both[: cp.size], both[cp.size :]
    part = np.searchsorted(offsets, rows[cp], side="right") - 1
    pieces = {}
    for q in np.unique(part).tolist():
        at = np.flatnonzero(part == q)
        sel = cp[at]
        pieces[q] = dict(
            row=rows[sel], rep=rows[rep[sel]],
            id_row=ids_bytes([id_cp[i] for i in at.tolist()]),
            id_rep=ids_bytes([id_rp[i] for i in at.tolist()]),
        )  # fmt: skip
    run.save("copies", r, len(offsets) - 1, pieces)
    return int(cp.size)


def copies(run: DatasetRun, p: int | None = None) -> dict:
    """The exact copies found (of partition ``p``; None: of all), sorted by row: ``row``, ``rep``
    (int64) and their ids."""
    got = run.pieces("copies", p)
    row = np.concatenate([x["row"] for x in got]) if got else np.empty(0, np.int64)
    rep_ = np.concatenate([x["rep"] for x in got]) if got else np.empty(0, np.int64)
    id_row = [v for x in got for v in ids_of(x["id_row"])]
    id_rep = [v for x in got for v in ids_of(x["id_rep"])]
    order = np.argsort(row, kind="stable")
    return {
        "row": row[order].astype(np.int64),
        "rep": rep_[order].astype(np.int64),
        "id_row": [id_row[i] for i in order.tolist()],
        "id_rep": [id_rep[i] for i in order.tolist()],
    }


def copy_rows(run: DatasetRun, p: int | None = None) -> np.ndarray:
    """The rows of :func:`copies` alone (their ids not read)."""
    got = [x["row"] for x in run.pieces("copies", p, ("row",))]
    return np.concatenate(got).astype(np.int64) if got else np.empty(0, np.int64)


def searched(run: DatasetRun, p: int, rows: Rows, offsets: np.ndarray) -> np.ndarray:
    """Partition ``p``'s rows that are searched (positions): with features, representing their
    exact group."""
    ok = ~rows.featureless
    ok[copy_rows(run, p) - int(offsets[p])] = False
    return np.flatnonzero(ok)


# -- calibrate: drawn on one task, scanned where each partition is, measured on one -------------


def fps_view(rows: Rows) -> tuple:
    """What the calibration's draw needs of a partition: its fingerprints and featureless flags
    (not its sets or band keys)."""
    return rows.fps, rows.featureless


def cal_draw(run: DatasetRun, parts: list, _after: object = None) -> tuple:
    """The calibration's seeded sample (``Calibrate.draw``, as one process draws it: among the
    rows of every partition with features that represent their exact group) and the sampled
    fingerprints: what each partition's scan takes. Holds the fingerprints of every row (9 bytes a
    row)."""
    fps = np.concatenate([x[0] for x in parts]) if parts else np.empty(0, np.uint64)
    search = ~np.concatenate([x[1] for x in parts]) if parts else np.empty(0, np.bool_)
    search[copy_rows(run)] = False
    draw = CALIBRATE.draw(run, fps.shape[0], search)
    return draw, fps[draw.picked]


@small_pages()
def cal_scan(run: DatasetRun, p: int, drawn: tuple, rows: Rows, offsets: np.ndarray) -> tuple:
    """Partition ``p``'s share of the calibration, where its fingerprints are: every searchable
    row of it within ``k_max`` of a sampled one (``Calibrate.scan``; global numbers), and the
    shingle sets of those rows and of its sampled ones (from the sets its read kept, else read
    again from its files; none above :data:`CAL_SETS_ROWS` rows)."""
    draw, queries = drawn
    offset = int(offsets[p])
    local = searched(run, p, rows, offsets)
    a, b, d = CALIBRATE.scan(draw, queries, rows.fps[local], local)
    mine = draw.picked[(draw.picked >= offset) & (draw.picked < offset + rows.n)] - offset
    need = np.unique(np.concatenate([mine, b])).astype(np.int64)
    if need.size > CAL_SETS_ROWS:
        need = need[:0]
    if need.size:
        ind, dat = rows_sets(run, p, rows, need, offset)[:2]
    else:
        ind, dat = np.zeros(1, np.int64), np.empty(0, np.uint64)
    return a, b + offset, d, need + offset, ind, dat


class _Partitions(Source):
    """The rows of every partition, numbered across them in order: what the calibration reads
    again (``select`` only), so that it samples the same rows as one process."""

    format = "partitions"
    name = "<partitions>"

    def __init__(self, run: DatasetRun, offsets: np.ndarray) -> None:
        self.run, self.offsets = run, offsets  # each file's first row

    def select(self, rows: np.ndarray, chunk: int):
        rows = np.asarray(rows, np.int64)
        part = np.searchsorted(self.offsets, rows, side="right") - 1
        for f in np.unique(part).tolist():
            off = int(self.offsets[f])
            for local, texts in READ.source(self.run, self.run.source(f)).select(
                rows[part == f] - off, chunk
            ):
                yield local + off, texts


class _GatheredSets:
    """The shingle sets the calibration's scan tasks gathered (rows, CSR), as
    :func:`~simhash_lab.shingles.gather_sets` takes them (``subset``): a row none of them
    brought is read again from ``source``."""

    def __init__(
        self, rows: np.ndarray, indptr: np.ndarray, data: np.ndarray, source: Any, feat: Any
    ) -> None:
        self.rows, self.indptr, self.data = rows, indptr, data
        self.source, self.feat = source, feat

    def subset(self, rows: np.ndarray) -> SetStore:
        have, ptr, data = self.rows, self.indptr, self.data
        pos = np.minimum(np.searchsorted(have, rows), max(have.size - 1, 0))
        found = (have[pos] == rows) if have.size else np.zeros(rows.size, np.bool_)
        if not found.all():  # read the others again, then all of them in row order
            more = gather_sets(self.source, rows[~found], self.feat)
            have = np.concatenate([have, rows[~found]])
            ptr = np.concatenate([ptr, more.indptr[1:] + ptr[-1]])
            data = np.concatenate([data, more.data])
            order = np.argsort(have, kind="stable")
            pos = order[np.searchsorted(have[order], rows)]
        lens = ptr[pos + 1] - ptr[pos]
        out = np.zeros(rows.size + 1, np.int64)
        np.cumsum(lens, out=out[1:])
        idx = np.repeat(ptr[pos] - out[:-1], lens) + np.arange(out[-1])
        store = SetStore(rows)
        store.add(out, data[idx])
        store.finish()
        return store


def cal_measure(run: DatasetRun, drawn: tuple, scans: list, files_at: np.ndarray):
    """The k of the partitions' scans (``Calibrate.measure``, as one process measures: the same
    sample, neighbours and sets): the one decision. Reads rows again only where a scan brought no
    sets (or for the synthetic pairs, when the sample holds too few)."""
    draw: Draw = drawn[0]
    source = _Partitions(run, files_at)

    def cat(i: int, dt: Any) -> np.ndarray:
        return np.concatenate([x[i] for x in scans]).astype(dt, copy=False) if scans else np.empty(0, dt)

    hits = (cat(0, np.int64), cat(1, np.int64), cat(2, np.int64)) if draw.picked.size else None
    ptr = offsets_of([int(x[4][-1]) for x in scans])
    indptr = np.concatenate([np.zeros(1, np.int64)] + [x[4][1:] + ptr[i] for i, x in enumerate(scans)])
    sets = _GatheredSets(cat(3, np.int64), indptr, cat(5, np.uint64), source, run.featurizer)
    return CALIBRATE.measure(run, draw, hits, source, sets)


def k_of(cal: Any) -> int:
    return int(cal.k)


#: the calibration's task names, as ``dask.utils.key_split`` gives them
CALIBRATION_TASKS = frozenset(f.__name__ for f in (cal_draw, cal_scan, cal_measure, k_of))


def calibration_last(key: Any) -> int:
    """Dask priority of a task (``dask.annotate``): below the default for the calibration's tasks
    (a callable of the key, since an annotation given as a value reaches the tasks a collection
    depends on too: the whole pipeline before it)."""
    from dask.utils import key_split

    return -1 if key_split(key) in CALIBRATION_TASKS else 0


# -- candidates: bands or the table join, a map a partition and a reduce a bucket ---------------


def docbits(offsets: np.ndarray) -> int:
    """Bits of a row number in a band key: as :meth:`~simhash_lab.candidates.BandKeys.pairs`
    numbers the rows of all partitions."""
    n = int(offsets[-1])
    if n >= 1 << 32:
        raise ValueError(f"band candidates take fewer than 2**32 rows, got {n}")
    return max(1, int(n - 1).bit_length())


@small_pages()
def band_map(run: DatasetRun, p: int, rows: Rows, offsets: np.ndarray, _after: object = None) -> int:
    """Partition ``p``'s searched rows' band keys, numbered, into one piece per reducer
    (``map/{p}.pieces``: ``count``, the keys of each band, and ``key``, the keys band after band):
    ``Candidates.band_map``."""
    cols = searched(run, p, rows, offsets)
    numbers = cols.astype(np.uint64) + np.uint64(int(offsets[p]))
    counts, per_r = CANDIDATES.band_map(
        rows.keys.parts, rows.keys.bands, cols, numbers, docbits(offsets), run.reducers
    )
    pieces = {
        r: {"count": counts[r], "key": np.concatenate(per_r[r])} for r in range(run.reducers) if per_r[r]
    }
    run.save("map", p, run.reducers, pieces)
    return int(cols.size)


def band_reduce(run: DatasetRun, r: int, offsets: np.ndarray, _after: object = None) -> int:
    """The candidate pairs of reducer ``r``'s band keys (``Candidates.band_reduce``), routed to
    the partition of their first row as ``(i, j, 0)``: the distance is the verifier's, a pair
    found by several bands (buckets) is counted once there."""
    got = run.pieces("map", r)
    if not got:
        return 0
    packed = CANDIDATES.band_reduce([x["count"] for x in got], [x["key"] for x in got], docbits(offsets))
    pairs = np.zeros((packed.size, 3), np.int64)
    pairs[:, 0] = (packed >> np.uint64(32)).astype(np.int64)
    pairs[:, 1] = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    return route_left(run, r, pairs, offsets)


def masks_of(run: DatasetRun, offsets: np.ndarray, k: int) -> np.ndarray:
    """The join's tables. ``"auto"``: the design :class:`~simhash_lab.SimhashIndex` would choose for
    the pairs of this many fingerprints on one thread (its cost model), among layouts with keys;
    the pigeonhole when it would scan."""
    layout = run.layout
    if isinstance(layout, str) and layout == "auto":
        n = int(offsets[-1])
        budget = run.settings.memory_budget
        budget = default_memory_budget() if budget is None else budget
        layout, _ = choose_layout(n, int(k), run.bits, "pairs", run.max_tables, budget, 1)
        if layout == "scan":
            layout = ("permuted", int(k) + 1)
        return np.array(layout_tables(layout, int(k), run.bits)[0], dtype=np.uint64)
    return table_masks(int(k), run.bits, layout)


def table_map(
    run: DatasetRun, p: int, rows: Rows, offsets: np.ndarray, masks: np.ndarray, _after: object = None
) -> int:
    """Partition ``p``'s searched rows as ``(table, fp, id)`` into one piece per reducer
    (``Candidates.table_map``)."""
    cols = searched(run, p, rows, offsets)
    ids = cols.astype(np.int64) + int(offsets[p])
    run.save("map", p, run.reducers, CANDIDATES.table_map(rows.fps[cols], ids, masks, run.reducers))
    return int(cols.size)


def table_reduce(
    run: DatasetRun, r: int, masks: np.ndarray, k: int, offsets: np.ndarray, _after: object = None
) -> int:
    """Candidate pairs of reducer ``r``'s pieces (``Candidates.table_reduce``), routed to the
    partition of their first row."""
    return route_left(run, r, CANDIDATES.table_reduce(run.pieces("map", r), masks, int(k)), offsets)


def route_left(run: DatasetRun, r: int, pairs: np.ndarray, offsets: np.ndarray) -> int:
    """Write reducer ``r``'s pairs ``(i, j, d)`` to the partitions of their first rows."""
    if pairs.shape[0] == 0:
        return 0
    part = np.searchsorted(offsets, pairs[:, 0], side="right") - 1
    order = np.argsort(part, kind="stable")
    pairs, part = pairs[order], part[order]
    cuts = np.flatnonzero(np.diff(part)) + 1
    pieces = {int(part[chunk[0]]): {"pairs": pairs[chunk]} for chunk in np.split(np.arange(part.size), cuts)}
    run.save("left", r, len(offsets) - 1, pieces)
    return int(pairs.shape[0])


# -- verify: the first row's set attached, then the pair verified where its second row is -------


def texts_of(run: DatasetRun, p: int, sizes: Sequence[int], local_rows: np.ndarray) -> list:
    """Texts of the rows ``local_rows`` (sorted, distinct; numbered across task ``p``'s files, of
    ``sizes`` rows each: a file with none of them is not read)."""
    starts = offsets_of(sizes)
    want = set(local_rows.tolist())
    texts = []
    for i, f in enumerate(run.tasks[p]):
        lo, hi = np.searchsorted(local_rows, [starts[i], starts[i + 1]])
        if lo == hi:
            continue
        row = int(starts[i])
        for ts, _, _, _ in READ.chunks(run, run.source(f), CHUNK_ROWS):
            for t in ts:
                if row in want:
                    texts.append(t)
                row += 1
    return texts


def rows_sets(run: DatasetRun, p: int, rows: Rows, local_rows: np.ndarray, offset: int, doc_offset: int = 0):
    """``(indptr, data, lengths, ids)`` of the rows ``local_rows`` (sorted, distinct) of task
    ``p``'s files: from the sets its read kept, or read and shingled again."""
    ids = ids_of_rows(run, rows, local_rows, offset, doc_offset)
    if rows.sets is not None:
        store = rows.sets.subset(local_rows)
        lengths = (
            rows.lengths[local_rows] if rows.lengths is not None else np.zeros(local_rows.size, np.int64)
        )
        return store.indptr, store.data, lengths, ids
    texts = texts_of(run, p, rows.sizes, local_rows)
    ind, dat = run.featurizer.sets(texts)
    return ind, dat, np.fromiter(map(len, texts), np.int64, len(texts)), ids


@small_pages()
def attach_left(
    run: DatasetRun, p: int, rows: Rows, offsets: np.ndarray, docs_at: np.ndarray, _after: object = None
) -> int:
    """Attach the shingle sets (and fingerprints) of the pairs' first rows (in partition ``p``);
    route the pairs to the partition of their second row."""
    offset = int(offsets[p])
    got = run.pieces("left", p)
    if not got:
        return 0
    pairs = np.concatenate([x["pairs"] for x in got])
    if run.bands:  # a pair found by bands of several reducers: once
        packed = np.unique((pairs[:, 0].astype(np.uint64) << np.uint64(32)) | pairs[:, 1].astype(np.uint64))
        pairs = np.zeros((packed.size, 3), np.int64)
        pairs[:, 0] = (packed >> np.uint64(32)).astype(np.int64)
        pairs[:, 1] = (packed & np.uint64(0xFFFFFFFF)).astype(np.int64)
    first = np.unique(pairs[:, 0])
    ind, dat, lengths, ids = rows_sets(run, p, rows, first - offset, offset, int(docs_at[p]))
    part = np.searchsorted(offsets, pairs[:, 1], side="right") - 1
    pieces = {}
    for q in np.unique(part).tolist():
        sel = pairs[part == q]
        loc = np.searchsorted(first, sel[:, 0])
        uniq, inv = np.unique(loc, return_inverse=True)
        sizes = np.diff(ind)[uniq]
        sub_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        sub = np.concatenate([dat[ind[u] : ind[u + 1]] for u in uniq.tolist()]) if uniq.size else dat[:0]
        pieces[q] = dict(
            pairs=sel,
            which=inv.astype(np.int64),
            indptr=sub_ptr,
            data=sub,
            lengths=lengths[uniq],
            fps=rows.fps[first[uniq] - offset],
            ids=ids_bytes([ids[u] for u in uniq.tolist()]),
        )
    run.save("right", p, len(offsets) - 1, pieces)
    return int(pairs.shape[0])


@small_pages()
def verify_right(
    run: DatasetRun, q: int, rows: Rows, offsets: np.ndarray, docs_at: np.ndarray, _after: object = None
) -> int:
    """Verify the pairs whose second row is in partition ``q`` (``Verify.similarity``,
    ``Verify.passes``); the pairs' Hamming distances from the two fingerprints."""
    offset = int(offsets[q])
    parts = run.pieces("right", q)
    if not parts:
        return 0
    second = np.unique(np.concatenate([x["pairs"][:, 1] for x in parts]))
    ind_b, dat_b, len_b, ids = rows_sets(run, q, rows, second - offset, offset, int(docs_at[q]))
    floor = VERIFY.floor(run) if run.verified else 0.0  # below it only "below" (the same decisions)
    out: dict = {key: [] for key in ("i", "j", "d", "s", "li", "lj")}
    id_i, id_j = [], []
    for x in parts:
        ids_a = ids_of(x["ids"])
        ptr = np.concatenate([x["indptr"], ind_b[1:] + x["indptr"][-1]])
        data = np.concatenate([x["data"], dat_b])
        lb = np.searchsorted(second, x["pairs"][:, 1])
        sim = VERIFY.similarity(ptr, data, x["which"], lb + x["indptr"].size - 1, at_least=floor)
        ok = VERIFY.passes(run, sim)
        d = hamming(x["fps"][x["which"][ok]], rows.fps[x["pairs"][ok, 1] - offset])
        out["i"].append(x["pairs"][ok, 0])
        out["j"].append(x["pairs"][ok, 1])
        out["d"].append(d.astype(np.int64))
        out["s"].append(sim[ok])
        out["li"].append(x["lengths"][x["which"][ok]])
        out["lj"].append(len_b[lb[ok]])
        id_i.extend(ids_a[w] for w in x["which"][ok].tolist())
        id_j.extend(ids[b] for b in lb[ok].tolist())
    cat = {key: np.concatenate(v) for key, v in out.items()}
    run.save("verified", q, 1, {0: dict(**cat, id_i=ids_bytes(id_i), id_j=ids_bytes(id_j))})
    return int(cat["i"].size)


# -- cluster: every verified pair, on one task ----------------------------------------------------


def cluster_all(run: DatasetRun, _after: object = None) -> tuple[dict, Duplicates]:
    """The keep/drop pass over every verified pair, then the exact copies (``Cluster.decide``, as
    one process decides); the dropped rows saved for the partitions' writes. Returns ``(summary,
    duplicates)``. Memory in proportion to the verified pairs and the copies, not the rows."""
    cols: dict = {key: [] for key in ("i", "j", "d", "s", "li", "lj")}
    id_of: dict = {}
    for z in run.pieces("verified", None):
        for key in cols:
            cols[key].append(z[key])
        id_of.update(zip(z["i"].tolist(), ids_of(z["id_i"])))
        id_of.update(zip(z["j"].tolist(), ids_of(z["id_j"])))
    c = {key: (np.concatenate(v) if v else np.empty(0)) for key, v in cols.items()}
    i, j = c["i"].astype(np.int64), c["j"].astype(np.int64)
    order_e = np.lexsort((j, i))  # the single-machine edge order: sorted pairs
    pairs = np.stack([i[order_e], j[order_e], c["d"][order_e].astype(np.int64)], axis=1)
    nodes, first = np.unique(np.concatenate([i, j]), return_index=True)
    lens = np.concatenate([c["li"], c["lj"]])[first].astype(np.int64) if i.size else np.empty(0, np.int64)
    longest = run.settings.keep == "longest"

    def order_of(got: np.ndarray) -> np.ndarray:  # ``got`` is ``nodes``: the same rows, sorted
        return visiting_order(got, lens if longest else None)

    cps = copies(run)
    id_of.update(zip(cps["row"].tolist(), cps["id_row"]))
    for r, v in zip(cps["rep"].tolist(), cps["id_rep"]):
        id_of.setdefault(r, v)
    drops = CLUSTER.decide(
        run, pairs, c["s"][order_e].astype(np.float64), order_of, cps["row"], cps["rep"],
        lambda rows: [id_of[r] for r in rows.tolist()],
    )  # fmt: skip
    save_piece(
        run.sfs,
        _storage.join(run.sfs, run.folder, f"drops{PIECE}"),
        rows=drops.dropped,
        kept=np.unique(drops.kept),
    )
    summary = {
        "dropped": len(drops),
        "verified": int(i.size),
        "groups": len(set(drops.kept.tolist())),
        "exact": int(cps["row"].size),
    }
    return summary, drops


def summary_of(clustered: tuple) -> dict:
    return clustered[0]


# -- write: a task a run of files, and the duplicates table --------------------------------------


def write_duplicates_table(run: DatasetRun, clustered: tuple, _after: object = None) -> int:
    """The duplicates table of :func:`cluster_all`, as ``output/duplicates.parquet``: a task of its
    own, beside the partitions' writes (which need only the dropped rows). With units, after them:
    each partition's places of the units in it (:func:`write_part`) make the rows the documents'
    (``DedupResult.duplicates_table``)."""
    drops = clustered[1]
    if run.settings.unit != "document" and len(drops):
        got = run.pieces("places", None)
        cat = {k: np.concatenate([x[k] for x in got]) for k in ("row", "doc", "index", "start", "end")}
        order = np.argsort(cat["row"])
        at = {k: v[order] for k, v in cat.items()}
        d, k = np.searchsorted(at["row"], drops.dropped), np.searchsorted(at["row"], drops.kept)
        drops = Duplicates(
            dropped=at["doc"][d], kept=at["doc"][k], distance=drops.distance, similarity=drops.similarity,
            dropped_id=drops.dropped_id, kept_id=drops.kept_id,
            units={
                "dropped_unit": at["index"][d], "kept_unit": at["index"][k],
                "dropped_start": at["start"][d], "dropped_end": at["end"][d],
            },
        )  # fmt: skip
    path = _storage.join(run.ofs, run.output, DUPLICATES_NAME)
    arrow = duplicates_arrow(path, drops)  # ids no Parquet column holds: named by the table's own name
    with _storage.staged_file(run.ofs, path) as local:
        write_duplicates(local, drops, format="parquet", arrow=arrow)
    return len(drops)


@small_pages()
def write_part(
    run: DatasetRun,
    p: int,
    offsets: np.ndarray,
    counts: tuple,
    rows: Rows | None = None,
    docs_at: np.ndarray | None = None,
    _after: object = None,
) -> tuple[int, int, int]:
    """The kept rows of task ``p``'s files, each as its own ``part-NNNNN.parquet`` (``Write.part``:
    the input's columns; ``NNNNN``: the file's place among all files). With units (``rows``: the
    task's, where each unit comes from): each document's fate from its units'
    (``Cluster.documents``, as one process decides it: a document is in one task), the kept
    documents written without their units dropped, and the places of the units the duplicates
    table names (``places/{p}.pieces``). Returns ``(kept, dropped whole, edited)`` documents."""
    offset, n_rows = int(offsets[p]), int(offsets[p + 1] - offsets[p])
    got = load_piece(run.sfs, _storage.join(run.sfs, run.folder, f"drops{PIECE}"))
    drops = got["rows"]
    lo, hi = np.searchsorted(drops, [offset, offset + n_rows])
    keep_all = np.ones(n_rows, np.bool_)
    keep_all[drops[lo:hi] - offset] = False
    whole = edited = 0
    cuts: dict = {}
    if rows is not None and rows.units is not None:
        u = rows.units
        kept_for = got["kept"]
        a, b = np.searchsorted(kept_for, [offset, offset + n_rows])
        mine = kept_for[a:b] - offset
        keep_all, is_whole, _ = CLUSTER.documents(run, u, drops[lo:hi] - offset, mine, rows.docs)
        gone = np.flatnonzero(np.isin(np.arange(n_rows), drops[lo:hi] - offset) & keep_all[u.doc])
        for r in gone.tolist():
            cuts.setdefault(int(u.doc[r]), []).append((int(u.start[r]), int(u.end[r])))
        whole, edited = int(is_whole.sum()), len(cuts)
        named = np.unique(np.concatenate([drops[lo:hi] - offset, mine]))
        run.save("places", p, 1, {0: dict(
            row=named + offset, doc=u.doc[named] + int(docs_at[p]), index=u.index[named],
            start=u.start[named], end=u.end[named],
        )})  # fmt: skip
        starts = offsets_of(counts[4])  # each file's first document
    else:
        starts = offsets_of(counts[2])
    kept = 0
    for i, f in enumerate(run.tasks[p]):
        lo_f, hi_f = int(starts[i]), int(starts[i + 1])
        edits = {r - lo_f: c for r, c in cuts.items() if lo_f <= r < hi_f}
        with _storage.staged_file(run.ofs, _storage.join(run.ofs, run.output, PART_NAME.format(f))) as local:
            kept += WRITE.part(run.source(f), keep_all[lo_f:hi_f], local, edits)
    return kept, whole, edited


def chars_sum(counts: list) -> int:
    return int(sum(int(c[1]) for c in counts))


def write_counts(*counts: tuple) -> tuple[int, int, int]:
    """The partitions' writes' ``(kept, dropped whole, edited)`` summed (a barrier of them too)."""
    return tuple(int(sum(c[i] for c in counts)) for i in range(3))  # type: ignore[return-value]


def finish(
    summary: dict,
    written: tuple,
    offsets: np.ndarray,
    k: int,
    cal: Any,
    chars: int = 0,
    lang: str = "en",
    _duplicates_written: object = None,
    docs_at: np.ndarray | None = None,
    unit: str = "document",
    ids: tuple | None = None,
    band_info: dict | None = None,
) -> dict:
    # on a worker: the calibration's summary in the caller's language (a worker process starts in English)
    with language(lang):
        said = None if cal is None else cal.summary()
    kept, whole, edited = written if isinstance(written, tuple) else (written, 0, 0)
    out = {
        **summary,
        "by_chars": int(chars),
        "rows": int(offsets[-1]) if docs_at is None or unit == "document" else int(docs_at[-1]),
        "kept": int(kept),
        "k": int(k),
        "calibration": said,
    }
    if band_info is not None:  # the bands and what chose them (dedup_table's settings["candidates"])
        out["candidates"] = band_info
    if unit != "document":  # the rows are documents; what was dropped, units of them
        out.update(unit=unit, units=int(offsets[-1]), dropped_whole=int(whole), edited=int(edited))
    if ids is not None:  # rows that repeat an earlier row's id, and the first of them: (id, row, row)
        out["duplicate_ids"] = int(ids[0])
        out["first_duplicate_id"] = None if not ids[0] else [ids[1], int(ids[2]), int(ids[3])]
    return out


# -- the graph ------------------------------------------------------------------------------------


def dedup_dataset(
    partitions: str | os.PathLike | Sequence[str | os.PathLike],
    output: str | os.PathLike,
    settings: DedupSettings | None = None,
    *,
    column: str = "text",
    id_column: str | None = None,
    format: str | None = None,
    layout: Any = "auto",
    n_reducers: int | None = None,
    task_bytes: int | None = None,
    scratch: str | None = None,
    storage_options: dict | None = None,
    scheduler: Any = None,
    compute: bool = True,
    overwrite: bool = False,
    **options: Any,
) -> Any:
    """Verified dedup of a partitioned dataset on Dask: Parquet or JSONL files in, the kept rows out
    as partitioned Parquet, the same decisions as :func:`simhash_lab.dedup.dedup_table` on the
    rows of all partitions in order (with the same arguments: the same k, the same kept rows, the
    same duplicates table): the same steps (:mod:`simhash_lab.dedup.steps`), run as tasks.

    Steps (one task per reducer or per run of consecutive files, see ``task_bytes``; nothing but
    small counts comes back to the client): normalise and fingerprint each task's files (``dedup_table``'s
    :class:`~simhash_lab.shingles.Featurizer`: under ``features="auto"`` text in a script without
    word spaces is shingled by characters); the exact groups (each partition's 128-bit digests of
    its normalised texts shuffled by their value, so that every copy of a text meets in one
    reducer, which picks the representative ``dedup_table`` picks: the first in its visiting
    order); calibrate k (``dedup_table``'s calibration on the rows of every partition, the same
    seeded sample among the same representatives: drawn on one task, each partition's
    fingerprints scanned against it where they are, with the sets of the rows it needs, then
    measured on one task; no row read again; with ``candidates="bands"``, where k is only
    reported, its tasks run at a Dask priority below the rest, in the slots the pipeline leaves
    idle); Manku's map/reduce for the candidate
    pairs of representatives within ``k`` (or, with ``candidates="bands"``, the pairs that share a
    MinHash band); route each pair to its first row's partition, which
    attaches that row's shingle set, then to its second row's, which verifies the pair by exact
    Jaccard; the keep/drop pass over the verified pairs, then each exact copy goes where its
    representative goes (one task: memory in proportion to verified pairs and copies, not rows);
    each partition writes its kept rows to ``output/part-NNNNN.parquet``, and the duplicates table goes to
    ``output/duplicates.parquet``. The shuffles go through ``scratch`` (default
    ``output/_shuffle``), which every worker must reach; this run's folder in it is removed at the end
    (after a failure too, once the run's tasks still running on the workers have stopped).

    An output folder that already holds parts (``part-*.parquet``, ``duplicates.parquet``: an
    earlier run's) is refused, unless ``overwrite=True``, which removes them first (as Spark's
    ``mode("overwrite")`` and pyarrow's ``write_dataset(existing_data_behavior=...)`` do): a
    reader of ``output/part-*.parquet`` never gets rows of another run.

    Parameters
    ----------
    partitions : str or sequence of str
        Parquet or JSONL files, as paths or fsspec URLs (``s3://bucket/in/*.parquet``); a glob or a
        folder (its ``.parquet``, ``.pq``, ``.jsonl`` and ``.ndjson`` files, sorted by name). Rows
        are numbered across them in order.
    output : str
        A folder, path or URL (created).
    settings : DedupSettings, optional
        The options every dedup entry point takes (:class:`~simhash_lab.settings.DedupSettings`;
        its fields may also be given as keywords: ``jaccard=0.7``): ``jaccard``, ``k``,
        ``recall``, ``sample``, ``seed``, ``hasher``, ``shingle``, ``keep``, ``linkage``,
        ``max_tables`` (default here 64: each table is 20 bytes a row in the shuffle),
        ``memory_budget``, ``features``, ``lang``, ``char_ngram``, ``normalize``, ``exact`` and
        ``candidates`` are used as ``dedup_table`` uses them (``"bands"``: each partition's
        MinHash band keys, made as it is fingerprinted, are shuffled by their value, and each
        reducer's pairs go to the verifier; a pair found by several bands is verified once);
        ``unverified`` is refused (every pair is verified), and ``progress`` is not used (Dask's
        dashboard shows the tasks).
    column : str
        The text column.
    id_column : str, optional
        The id column, whose values name the rows in the duplicates table (default: the row
        numbers across all partitions).
    format : str, optional
        ``"parquet"`` or ``"jsonl"`` (default: from each file's name).
    layout : str or tuple
        The join's tables: ``"auto"`` (the design ``SimhashIndex.pairs()`` picks for this many
        rows, at most ``max_tables`` tables), or a layout of :func:`table_masks`. With ``k``
        unset, k is calibrated (:func:`simhash_lab.dedup.calibrate`) for ``jaccard`` on ``sample``
        documents drawn (``seed``) across all partitions, as ``dedup_table`` draws them.
    n_reducers : int, optional
        Reduce tasks (default: one per task of files).
    task_bytes : int, optional
        Consecutive files are read by one task (the rows of each still written to its own output
        file) until the task holds about this many bytes of them on disk; a larger file is a task
        of its own (as ``dask.dataframe.read_parquet`` aggregates small files up to its
        ``blocksize``). Every task has fixed costs of its own in each step, which many small
        files would multiply. Default: the files' bytes over four tasks a worker thread of the
        scheduler (a ``distributed.Client``'s threads; one for ``"sync"``; else this machine's
        cores), at most 256 MiB. 0: a task a file. The decisions do not depend on it.
    scratch : str, optional
        Folder or URL for the shuffles (default ``output/_shuffle``).
    storage_options : dict, optional
        Passed to fsspec for every URL (``{"key": ..., "secret": ..., "client_kwargs":
        {"endpoint_url": ...}}`` for S3), as ``dask.dataframe.read_parquet`` takes them.
    scheduler : optional
        Passed to ``dask.compute`` (default: the active scheduler, e.g. a ``distributed.Client``).
    compute : bool
        False: return the delayed result (to inspect or persist the graph; the scratch folder is
        then left to the caller).
    overwrite : bool
        True: an output folder holding an earlier run's parts has them removed first (default
        False: refused).
    **options
        Fields of ``settings``, as keywords.

    Returns
    -------
    dict
        ``rows``, ``dropped``, ``verified`` (pairs), ``groups``, ``kept`` (rows written), ``k``,
        ``exact`` (rows dropped as exact copies), ``by_chars`` (rows with runs of a script
        without word spaces) and ``calibration`` (its summary line; None when ``k`` was given);
        with bands, ``candidates`` (``dedup_table``'s ``settings["candidates"]``: the bands, rows,
        and what chose them: the plan on the client, from the first partitions' rows); with
        ``id_column``, ``duplicate_ids`` (rows repeating an earlier row's id, warned of as
        ``dedup_table`` warns; ``unique_ids=True``: refused before anything is written) and
        ``first_duplicate_id`` (``[id, row, row]`` or None); with ``unit="paragraph"`` or
        ``"line"``, ``unit``, ``units`` (rows of the run: the documents' units; ``rows``,
        ``kept``: documents; ``dropped``, ``exact``, ``verified``: units), ``dropped_whole``
        and ``edited`` (kept documents written without some of their units); with
        ``compute=False`` the delayed of that dict.

    Raises
    ------
    ValueError
        A setting, ``layout`` or ``n_reducers`` out of range, ``unverified`` asked for, no
        partitions found, an output that would replace a partition, or an output folder holding
        parts without ``overwrite=True``.
    TypeError
        ``storage_options`` is not a dict, ``overwrite`` not a bool.
    simhash_lab.datasets.DatasetError
        A partition that cannot be read (its name, row and column in the message).
    """
    dask = need_dask()
    delayed = dask.delayed
    if not isinstance(overwrite, bool):
        raise TypeError(f"overwrite must be True or False, got {overwrite!r}")
    st = _settings(settings, options)
    bits = Run(st).bits
    k = st.k
    if not (isinstance(layout, str) and layout == "auto"):
        table_masks(k or 3, bits, layout)  # check it now, on the client
    fs, files = _storage.expand_partitions(partitions, storage_options)
    ofs, out_path = _storage.filesystem(output, storage_options, "output")
    if scratch is None:
        sfs, scratch_path = ofs, _storage.join(ofs, out_path, "_shuffle")
    else:
        sfs, scratch_path = _storage.filesystem(scratch, storage_options, "scratch")
    earlier = _earlier_parts(ofs, out_path)
    _check_overlap(fs, files, ofs, out_path, earlier)
    if earlier and not overwrite:
        shown = ", ".join(_storage.url_of(ofs, p).rsplit("/", 1)[-1] for p in earlier[:3])
        more = ", ..." if len(earlier) > 3 else ""
        raise ValueError(
            f"output: {_storage.url_of(ofs, out_path)} holds {len(earlier)} part file"
            f"{'s' if len(earlier) > 1 else ''} of an earlier run ({shown}{more}): a reader of the folder "
            "would get their rows too; give overwrite=True to remove them first, or another folder"
        )
    where = (
        os.fspath(partitions) if isinstance(partitions, (str, os.PathLike)) else f"{len(files)} partitions"
    )
    groups = _task_groups(fs, files, task_bytes, scheduler)
    R = check_int("n_reducers", n_reducers or len(groups), 1, 1 << 20)
    run = DatasetRun(
        st,
        sets_budget=SETS_BUDGET // max(len(groups), 1),  # all tasks' sets: one process's budget
        fs=fs,
        files=tuple(files),
        tasks=tuple(tuple(g) for g in groups),
        column=column,
        id_column=id_column,
        format=format,
        sfs=sfs,
        folder=_storage.join(sfs, scratch_path, f"run-{uuid.uuid4().hex[:12]}"),
        reducers=R,
        ofs=ofs,
        output=out_path,
        layout=layout,
        max_tables=64 if st.max_tables is None else st.max_tables,
    )
    if run.bands:  # chosen here, once, from the first partitions' rows: every task makes its keys so
        run = run.with_plan(
            PLAN.choose(run, [run.source(f) for f in range(len(files))], _file_sizes(fs, files))
        )
    for path in earlier:  # overwrite: the earlier run's parts go before this run writes
        ofs.rm_file(path)
    made = not ofs.exists(out_path)
    ofs.makedirs(out_path, exist_ok=True)
    for sub in SHUFFLES:
        sfs.makedirs(_storage.join(sfs, run.folder, sub), exist_ok=True)

    n_tasks = len(groups)
    # every task takes the run in its arguments (as a node of the graph instead, every task
    # depended on the worker holding it, which the scheduler then filled first)
    parts = [delayed(read_part)(run, p) for p in range(n_tasks)]
    counts = [delayed(part_counts)(x) for x in parts]  # (rows, rows shingled by characters, files' rows)
    offsets = delayed(task_offsets)(counts)  # each task's first row, after every task's read
    docs = delayed(doc_offsets)(counts)  # each task's first document (units: not its first row)
    exact = [delayed(exact_reduce)(run, r, offsets, docs) for r in range(R)]
    te = delayed(barrier)(*exact)
    views = [delayed(fps_view)(x) for x in parts]  # not the band keys: 8 bytes a row a band

    def calibration(after: object):  # drawn on one worker, scanned where each partition is
        drawn = delayed(cal_draw)(run, views, after)
        scans = [delayed(cal_scan)(run, p, drawn, parts[p], offsets) for p in range(n_tasks)]
        return delayed(cal_measure)(run, drawn, scans, delayed(file_offsets)(counts))

    cal = None
    if k is None and not run.bands:  # the index's tables need k
        cal = calibration(te)
        k = delayed(k_of)(cal)
    if run.bands:
        if k is None:  # only reported, nothing waits for it: its tasks come last in every
            # worker's queue, so they fill the slots the pipeline leaves idle (a worker waiting
            # for a barrier, the one clustering task); one that has started is not pre-empted, so
            # it can still hold the next task of the pipeline back by its length (0.03-0.08 s)
            with dask.annotate(priority=calibration_last):
                cal = calibration(te)
                k = delayed(k_of)(cal)
        maps = [delayed(band_map)(run, p, parts[p], offsets, te) for p in range(n_tasks)]
        t1 = delayed(barrier)(*maps)
        routed = [delayed(band_reduce)(run, r, offsets, t1) for r in range(R)]
    else:
        masks = delayed(masks_of)(run, offsets, k)
        maps = [delayed(table_map)(run, p, parts[p], offsets, masks, te) for p in range(n_tasks)]
        t1 = delayed(barrier)(*maps)
        routed = [delayed(table_reduce)(run, r, masks, k, offsets, t1) for r in range(R)]
    t2 = delayed(barrier)(*routed)
    lefts = [delayed(attach_left)(run, p, parts[p], offsets, docs, t2) for p in range(n_tasks)]
    t3 = delayed(barrier)(*lefts)
    rights = [delayed(verify_right)(run, p, parts[p], offsets, docs, t3) for p in range(n_tasks)]
    if id_column is not None:  # ids that name two rows: refused before the clusters, or warned of
        checked = delayed(ids_check)(run, where, *[delayed(ids_reduce)(run, r, docs) for r in range(R)])
        t4 = delayed(barrier)(*rights, delayed(gate)(checked))
    else:
        checked = None
        t4 = delayed(barrier)(*rights)
    clustered = delayed(cluster_all)(run, t4)
    summary = delayed(summary_of)(clustered)
    units = st.unit != "document"
    writes = [
        delayed(write_part)(run, p, offsets, counts[p], parts[p] if units else None, docs, summary)
        for p in range(n_tasks)
    ]
    written = delayed(write_counts)(*writes)
    # beside the partitions' writes; with units after them (their places of the units named)
    dups = delayed(write_duplicates_table)(run, clustered, written if units else None)
    chars = delayed(chars_sum)(counts)
    result = delayed(finish)(
        summary,
        written,
        offsets,
        k,
        cal,
        chars,
        get_language(),
        dups,
        docs,
        st.unit,
        checked,
        run.band_info(),
    )
    if not compute:
        return result
    out = None
    try:
        out = run_graph(dask, result, scheduler)
        if out.get("duplicate_ids"):  # warned of here, in the caller's process
            value, first, again = out["first_duplicate_id"]
            READ.say_ids(run, out["duplicate_ids"], value, first, again, f"id column {id_column!r}", where)
    finally:
        _storage.remove_tree(sfs, run.folder)
        if scratch is None:
            _storage.remove_empty(sfs, scratch_path)
        if made and out is None:  # a failed run leaves no empty output folder it made
            _storage.remove_empty(ofs, out_path)
    return out


def _task_groups(fs: Any, paths: list[str], task_bytes: int | None, scheduler: Any) -> list:
    """The files of each task, as lists of their places in ``paths``: runs of consecutive files,
    as many as the files' bytes make of ``task_bytes`` (default: see ``dedup_dataset``), each
    file in the run its middle byte falls in, so that the runs hold about the same bytes (a file
    larger than a run: a task of its own)."""
    if task_bytes is None:
        sizes = _file_sizes(fs, paths)
        target = min(sum(sizes) / (4 * scheduler_threads(scheduler)), TASK_BYTES_MAX)
    else:
        target = check_int("task_bytes", task_bytes, 0, 1 << 62)
        sizes = _file_sizes(fs, paths) if target else []
    total = sum(sizes)
    if target <= 0 or total == 0:
        return [[f] for f in range(len(paths))]
    n = min(len(paths), max(1, math.ceil(total / target * (1 - 1e-9))))
    middles = np.cumsum(sizes) - np.asarray(sizes) / 2
    run = np.minimum((middles * n / total).astype(np.int64), n - 1)
    cuts = np.flatnonzero(np.diff(run)) + 1
    return [c.tolist() for c in np.split(np.arange(len(paths)), cuts)]


def _file_sizes(fs: Any, paths: list[str]) -> list[int]:
    """Each file's bytes; a file that is not there: a DatasetError naming it, as reading it would."""
    sizes = []
    for path in paths:
        try:
            sizes.append(int(fs.size(path)))
        except OSError as e:
            missing = "No such file or directory" if isinstance(e, FileNotFoundError) else e
            raise DatasetError(f"{_storage.url_of(fs, path)}: {e.strerror or missing}") from None
    return sizes


def _earlier_parts(ofs: Any, out_path: str) -> list[str]:
    """The parts an earlier run left in the output folder (``part-*.parquet``, the duplicates
    table), sorted."""
    if not ofs.isdir(out_path):
        return []
    ofs.invalidate_cache(out_path)
    names = []
    for p in ofs.ls(out_path, detail=False):
        base = os.path.basename(p.rstrip("/")) if _storage.is_local(ofs) else p.rstrip("/").rpartition("/")[2]
        if (base.startswith("part-") and base.endswith(".parquet")) or base == DUPLICATES_NAME:
            names.append(p)
    return sorted(names)


def _check_overlap(fs: Any, paths: list[str], ofs: Any, out_path: str, earlier: Sequence[str] = ()) -> None:
    """Refuse an output folder whose files would replace a partition (read until the last step),
    or whose earlier parts to be removed (``overwrite``) are partitions."""
    if type(fs) is not type(ofs):
        return
    norm = os.path.realpath if _storage.is_local(fs) else (lambda p: p)
    outputs = [_storage.join(ofs, out_path, PART_NAME.format(p)) for p in range(len(paths))]
    outputs.append(_storage.join(ofs, out_path, DUPLICATES_NAME))
    outputs.extend(earlier)
    clash = sorted({norm(p) for p in paths} & {norm(p) for p in outputs})
    if clash:
        raise ValueError(f"output: writing there would replace the partition {_storage.url_of(fs, clash[0])}")


def _settings(settings: DedupSettings | None, options: dict) -> DedupSettings:
    """The run's :class:`~simhash_lab.settings.DedupSettings`, as ``dedup_table`` takes them; what
    Dask does not run is refused here, naming the field."""
    st = DedupSettings.of(settings, **options)
    if st.unverified:
        raise ValueError("unverified: the raw Hamming mode is not run on Dask (every pair is verified)")
    k = None if st.k is None else check_k(st.k, Run(st).bits)
    return dataclasses.replace(st, k=k)
