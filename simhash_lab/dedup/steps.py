"""The named steps of verified dedup, written once: each is an object whose methods are the step's
work on one part of the data, with the run (:class:`~simhash_lab.dedup.run.Run`) as their first
argument. Two executors call them (datatrove's ``PipelineStep.run(data, rank, world_size)`` is
the model): :mod:`.local` runs every step over all the rows in this process, on its threads;
:mod:`simhash_lab.distributed.executor` runs the same methods as Dask tasks, a partition or a
reducer each, the data between them shuffled through files. So one process and Dask make the
same decisions by construction: what differs is only where each call runs and which rows it sees.

============== ============================================== =======================================
step           its work (a method)                            where it runs (one process / Dask)
============== ============================================== =======================================
plan           ``Plan.choose``: the MinHash bands, from the   this process / the client, before the
               input's first rows (bands, unless pinned)      graph is made
read           ``Read.chunks``: the rows, a chunk at a time   threads / a task a run of files
normalise      ``Normalise.chunk``: NFKC, format chars        the chunk's thread / its task
exact groups   ``ExactGroups.digests`` (a chunk; words:       chunk / task; all rows / a reducer a
               made by ``Fingerprint.fused``);                bucket of digests
               ``ExactGroups.representatives`` (the first
               in visiting order of each digest)
fingerprint    words: ``Fingerprint.fused``, one pass a       the chunk's thread / its task
               text: digest, fingerprint, set size, band
               keys (the sets only when kept); other
               features: ``Fingerprint.chunk``, the sets
               and their fingerprints; featureless rows
calibrate      ``Calibrate.draw``, ``.scan``, ``.measure``    all rows / draw and measure on one
                                                              task, a scan a partition
candidates     ``Candidates.keys`` (a chunk's band keys,      bands: all keys / a map a partition,
               other features; words: ``.fused``'s);
               ``.band_map``, ``.band_reduce`` (the pairs     a reduce a bucket; index: the index /
               that share a band); ``.table_map``,            the table join
               ``.table_reduce`` (within k bits)
verify         ``Verify.similarity``, ``.passes``             all pairs / a partition's pairs
cluster        ``Cluster.decide``: keep/drop over the         all verified pairs, on one thread /
               verified pairs, then the exact copies          one task
write          the source's ``write_kept``;                   one file / a task a partition
               ``Write.part`` (a partition as Parquet)
============== ============================================== =======================================

The per-chunk steps are put together by :func:`first_read`, which both executors call on every
chunk of rows. On the default path (word shingles: ``features="words"``, or ``"auto"`` for a
chunk without a script written without word spaces) the exact groups' digests, the fingerprints,
the sets' sizes (verify's size filter) and the band keys are made in one compiled pass over each
text (:meth:`Fingerprint.fused`, :mod:`simhash_lab.kernels.fused`), timed as the fingerprint
step; no set is kept (verify makes again the sets of the rows in candidate pairs) unless the run
keeps them (a Dask task's budget). The other features run the three steps one after another.
"""

from __future__ import annotations

import itertools
import json
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .._i18n import counted
from .._validate import check_fraction, check_int
from ..calibration import Calibration, Draw, draw_sample, measure, neighbours_within
from ..candidates import (
    PLAN_ROWS,
    BandPlan,
    band_pairs,
    plan_bands,
    sort_bands,
    split_band,
    table_buckets,
    table_join,
    unique_sorted_pairs,
)
from ..datasets import DatasetError, FilesSource, PartsSource, Source
from ..datasets.source import kind_of
from ..datasets.utf8 import Utf8Texts
from ..index import SimhashIndex
from ..kernels import verify as V
from ..kernels.dedup_steps import first_of_runs
from ..shingles import CHUNK_ROWS, Shingler, recommended_hasher, text_digests
from .results import DuplicateIdsWarning, Duplicates
from .run import Chunk, Clock, Run
from .units import UnitsSource, cut_text, documents, pieces

__all__ = [
    "CALIBRATE",
    "CANDIDATES",
    "CLUSTER",
    "EXACT_GROUPS",
    "FINGERPRINT",
    "NORMALISE",
    "PLAN",
    "READ",
    "VERIFY",
    "WRITE",
    "Calibrate",
    "Candidates",
    "Cluster",
    "ExactGroups",
    "Fingerprint",
    "Normalise",
    "Plan",
    "Read",
    "Step",
    "Verify",
    "Write",
    "check_text_chunk",
    "id_keys",
    "repeats",
    "distinct_rows",
    "exact_groups",
    "first_read",
    "keep_drop",
    "run_settings",
    "text_digests",
    "visiting_order",
]


class Step:
    """A named step: ``name`` is its key in ``res.timings`` and its progress bar's label."""

    name = ""

    def __repr__(self) -> str:
        return f"<step {self.name}>"


def check_text_chunk(call: Callable[[list], Any], texts: list, start: Any, where: str) -> Any:
    """``call(texts)``, with a ValueError from a lone surrogate turned into a DatasetError naming
    the row (``start``: the chunk's first row, or each text's row: units name their document's;
    ``where``: the file)."""
    try:
        return call(texts)
    except ValueError:
        for i, t in enumerate(texts):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                row = int(start[i]) if isinstance(start, np.ndarray) else start + i
                raise DatasetError(f"{where}: row {row}: the text holds a lone surrogate, not text") from None
        raise


def visiting_order(
    rows: np.ndarray, lengths: np.ndarray | None = None, priorities: np.ndarray | None = None
) -> np.ndarray:
    """The order rows are visited in to choose which one of a group is kept: positions into
    ``rows`` (row numbers), highest priority first when ``priorities`` are given, else most
    characters first when ``lengths`` are (``keep="longest"``), else, and among ties, by row
    number. The one rule of both executors: the exact groups' representatives and the clusters'
    kept rows.

    >>> visiting_order(np.array([4, 1, 7]), lengths=np.array([5, 9, 9])).tolist()
    [1, 2, 0]
    """
    if priorities is not None:
        return np.lexsort((rows, -priorities))
    if lengths is not None:
        return np.lexsort((rows, -lengths))
    if rows.size < 2 or bool((rows[1:] > rows[:-1]).all()):
        return np.arange(rows.size)
    return np.argsort(rows, kind="stable")


def distinct_rows(n: int, *cols: np.ndarray) -> np.ndarray:
    """The distinct values of ``cols`` (row numbers below ``n``), sorted: marked in a mask of the
    rows, nothing sorted (2M random row numbers below 1M: ``np.unique`` 0.99 s, this 4 ms).

    >>> distinct_rows(6, np.array([4, 1, 4]), np.array([1, 0]))
    array([0, 1, 4])
    """
    seen = np.zeros(n, np.bool_)
    for c in cols:
        seen[c] = True
    return np.flatnonzero(seen)


# -- plan --------------------------------------------------------------------------------------


class Plan(Step):
    """plan: the MinHash bands of a run with bands, chosen before the first read (which makes every
    chunk's keys with them) from counts measured on the input's first :attr:`ROWS` rows: their
    shingle sets (exact copies of an earlier sampled row and rows without shingles left out, as
    the search leaves them out), for each ``(bands, rows)`` that finds a pair at ``jaccard`` with
    probability ``recall`` the candidate pairs their keys give, reckoned for the input's rows
    (:func:`~simhash_lab.candidates.plan_bands`). Runs once, in this process or on Dask's client;
    its choice goes into the run every task takes (:meth:`Run.with_plan
    <simhash_lab.dedup.run.Run.with_plan>`). ``bands`` pinned in the settings: no plan."""

    name = "plan"

    #: the input's first rows measured (their sets are made again by the first read)
    ROWS = PLAN_ROWS

    def choose(
        self,
        run: Run,
        sources: Iterable[Source],
        sizes: Sequence[int] | None = None,
        chunk_rows: int = CHUNK_ROWS,
    ) -> BandPlan | None:
        """The bands for the rows of ``sources`` (in order; Dask: every partition's), or None
        (no bands, or bands pinned). ``sizes``: each source's bytes, when known (Dask lists them),
        for the estimate of the rows past the sample (:meth:`rows_of`); ``chunk_rows``: the rows
        the first read takes at a time, taken so here too (a bad row is then the one the first
        read would name, before a broken row of a later chunk)."""
        s = run.settings
        if not run.bands or s.bands is not None:
            return None
        # several files read as one: each on its own, as Dask's tasks read them (the same estimate)
        sources = [p for src in sources for p in (src.parts if isinstance(src, PartsSource) else [src])]
        sampled = [self.quiet(src) for src in sources]
        feat = run.featurizer
        inds, dats, digests = [], [], []
        docs: list[int] = []  # documents of each source the sample read from
        m = rows_read = 0
        complete = True
        for src in sampled:  # each chunk's errors before the next is read, as the first read's
            start = got = 0
            chunks = READ.chunks(run, src, min(chunk_rows, self.ROWS))
            try:
                for texts, _, _, units in chunks:
                    at = start if units is None else units.doc + got  # a unit's errors name its document
                    take = texts[: self.ROWS - m]
                    norm = check_text_chunk(feat.normalise, take, at, src.name)
                    _, ind, dat = check_text_chunk(feat.sets_of, norm, at, src.name)
                    inds.append(np.diff(ind))
                    dats.append(dat)
                    if s.exact:
                        digests.append(text_digests(norm))
                    m += len(take)
                    rows_read += len(texts)
                    start += len(texts)
                    got += len(texts) if units is None else units.docs
                    if m >= self.ROWS:
                        complete = False
                        break
            finally:
                chunks.close()
            docs.append(got)
            if not complete:
                break
        per_doc = rows_read / max(sum(docs), 1)  # rows a document (units: more than one)
        ind = np.zeros(m + 1, np.int64)
        if m:
            np.cumsum(np.concatenate(inds), out=ind[1:])
        dat = np.concatenate(dats) if dats else np.empty(0, np.uint64)
        valid = np.diff(ind) > 0
        if digests and m:  # an exact copy of an earlier row is not searched: not counted
            d = np.concatenate(digests)
            first = np.unique(d, axis=0, return_index=True)[1]
            seen = np.zeros(m, np.bool_)
            seen[first] = True
            valid &= seen
        n = m if complete else self.rows_of(run, sources, docs, per_doc, sizes)
        return plan_bands(ind, dat, valid, s.jaccard, s.recall, n)

    def rows_of(
        self, run: Run, sources: list, docs: list[int], per_doc: float, sizes: Sequence[int] | None = None
    ) -> int:
        """The rows of ``sources`` reckoned from the sample's: ``docs[i]`` documents were read from
        ``sources[i]``, each ``per_doc`` rows (units of it; 1: the documents). Each source's
        documents counted where that is cheap (a table's, a Parquet file's metadata, a folder's
        files), else its bytes (``sizes``, or the file's) at the bytes a document took in the
        first sampled file that is not counted (its first lines read again). Unknown: a million rows
        (:func:`~simhash_lab.candidates.band_parameters`' reference)."""
        rows = int(sum(docs) * per_doc)
        counts = [self.count(src) for src in sources]
        # bytes of a document: in the first sampled file whose documents are not counted
        at = next((i for i in range(len(docs)) if counts[i] is None and docs[i]), None)
        byte_rate = self.head_bytes(sources[at], docs[at]) / docs[at] if at is not None else 0
        total = 0.0
        estimated = False
        for i, src in enumerate(sources):
            count = counts[i]
            if count is None:
                size = sizes[i] if sizes is not None else self.size(src)
                if size is None or not byte_rate:
                    return max(rows, 1_000_000)
                count = size / byte_rate
                estimated = True
            total += count
        total *= per_doc
        if estimated:  # two significant digits: a few bytes more or less, the same choice
            total = float(f"{total:.2g}")
        return max(rows, int(total))

    def quiet(self, src: Source) -> Source:
        """A source to read the sample from, that records nothing of it: text files record the
        files they read, skip or fail to read (and say so as it happens), which the first read
        does; the plan reads a copy of them that says nothing."""
        if not isinstance(src, FilesSource):
            return src
        return FilesSource(src.files, src.max_bytes)

    def count(self, src: Source) -> int | None:
        """A source's documents, when they are counted without reading them, else None."""
        total = getattr(src, "total", None)
        if isinstance(total, int):
            return total
        if src.format == "parquet":
            import pyarrow.parquet as pq

            f = src._open()
            try:
                return int(pq.ParquetFile(f).metadata.num_rows)
            finally:
                f.close()
        return None

    def size(self, src: Source) -> int | None:
        """A file source's bytes (None: not a file)."""
        path = getattr(src, "path", None)
        if path is None:
            return None
        fs = getattr(src, "fs", None)
        return int(fs.size(path)) if fs is not None else os.path.getsize(path)

    def head_bytes(self, src: Source, docs: int) -> int:
        """Bytes of a file source's first ``docs`` lines (a CSV's header and the lines of its
        first records: about their bytes)."""
        if getattr(src, "path", None) is None:
            return 0
        f = src._open()
        try:
            return sum(map(len, itertools.islice(f, docs + (src.format == "csv"))))
        finally:
            f.close()


# -- read, normalise ---------------------------------------------------------------------------


class Read(Step):
    """read: the rows of a source, a chunk at a time (``(texts, ids, priorities)``); then their
    ids checked (:meth:`check_ids`)."""

    name = "read"

    def chunks(
        self, run: Run, source: Source, rows: int, utf8: bool = False
    ) -> Iterator[tuple[Sequence[str], list, list | None, Any]]:
        """``(texts, ids, priorities, units)`` of every row of ``source``, ``rows`` documents at a
        time. With ``unit="paragraph"`` or ``"line"`` the rows are each document's units
        (:func:`~simhash_lab.dedup.units.pieces`; ``units`` says where they come from), else
        the documents themselves (``units`` None). ``utf8`` (the first read, when :meth:`in_place`
        says so): each chunk's texts as the source finds them (:meth:`Source.utf8_chunks`: ASCII
        texts left in the reader's buffer), else a list of ``str``."""
        unit = run.settings.unit
        if unit == "document":
            for texts, ids, prio in source.utf8_chunks(rows) if utf8 else source.chunks(rows):
                yield texts, ids, prio, None
            return
        yield from pieces(source, rows, unit)

    def in_place(self, run: Run) -> bool:
        """Whether the first read takes texts left in the reader's buffer
        (:class:`~simhash_lab.datasets.utf8.Utf8Texts`): documents shingled by words (the fused
        pass reads their bytes in place); any other run takes a list of ``str``."""
        feat = run.featurizer
        return run.settings.unit == "document" and feat.features in ("words", "auto")

    def source(self, run: Run, source: Source) -> Source:
        """What the steps that read rows again read (:meth:`Source.select`): ``source`` itself,
        or with units its units (:class:`~simhash_lab.dedup.units.UnitsSource`)."""
        return source if run.settings.unit == "document" else UnitsSource(source, run.settings.unit)

    def check_ids(self, run: Run, ids: list, what: str, where: str) -> int:
        """Ids that name two rows or more: a :class:`~simhash_lab.dedup.results.DuplicateIdsWarning`
        (the duplicates table and the report name rows by id: two rows would have one name), or
        with ``unique_ids`` a DatasetError. ``what`` names the ids (``"id column 'id'"``),
        ``where`` the dataset. Returns how many rows repeat an earlier row's id."""
        if not maybe_repeated(ids):
            return 0
        count, first, again = repeats(id_keys(ids), np.arange(len(ids), dtype=np.int64))
        if count:
            self.say_ids(run, count, ids[first], first, again, what, where)
        return count

    def say_ids(
        self, run: Run, count: int, value: Any, first: int, again: int, what: str, where: str
    ) -> None:
        """Warn of (or refuse, ``unique_ids``) ``count`` rows that repeat an earlier row's id, the
        first of them ``again`` repeating row ``first``'s ``value``: one message, both executors."""
        rows = counted(count, "1 row has", "{n} rows have")
        shown = first_id_shown(value)
        said = (
            f"{where}: {what}: {rows} the id of an earlier row (the first: {shown}, rows {first} and {again})"
        )
        if run.settings.unique_ids:
            raise DatasetError(f"{said}; unique_ids (--unique-ids) refuses it")
        warnings.warn(
            f"{said}: the duplicates table names rows by id, so two rows share a name there (its "
            "dropped_row and kept_row columns tell them apart); unique_ids=True (--unique-ids) refuses "
            "such a dataset",
            DuplicateIdsWarning,
            stacklevel=3,
        )


def maybe_repeated(ids: Sequence) -> bool:
    """False when no two of ``ids`` can be equal: their Python hashes (computed once a str, then
    cached in it) all differ, found by one sort (1M str ids: 0.15 s; their 128-bit digests took
    0.3 s, a set of them 0.15-0.35 s). True means look closer (:func:`repeats`): equal ids, a
    hash collision, or ids that are not hashable (JSON lists and objects)."""
    try:
        h = np.fromiter(map(hash, ids), np.int64, len(ids))
    except TypeError:
        return True
    h.sort()
    return bool((h[1:] == h[:-1]).any())


def first_id_shown(value: Any) -> str:
    """An id as a message shows it: a str quoted, anything else as JSON would write it."""
    return repr(value) if isinstance(value, str) else json.dumps(value, default=str)[:80]


def id_keys(ids: Sequence) -> np.ndarray:
    """(n, 2) uint64: a 128-bit digest of each id's text (an id of another kind by its JSON, so
    ``1`` and ``"1"`` differ), the same in every process."""
    if set(map(type, ids)) == {str}:
        return text_digests(list(ids))
    return text_digests([json.dumps(v, sort_keys=True, default=str) for v in ids])


def repeats(keys: np.ndarray, rows: np.ndarray) -> tuple[int, int, int]:
    """``(count, first, again)``: how many of the ids (``keys``, :func:`id_keys`; ``rows`` their
    rows, distinct) repeat one of an earlier row, and the first repeat in row order (the earlier
    row, then the row that repeats it; -1, -1 when none): one sort, no Python set of a million ids.

    >>> repeats(id_keys(["a", "b", "a", "c", "b"]), np.arange(5))
    (2, 0, 2)
    """
    n = rows.size
    if n < 2:
        return 0, -1, -1
    first = np.sort(keys[:, 0])  # most datasets: no two ids share even half their digest (1M: 0.03 s)
    if not (first[1:] == first[:-1]).any():
        return 0, -1, -1
    order = np.lexsort((rows, keys[:, 1], keys[:, 0]))
    k = keys[order]
    same = np.zeros(n, np.bool_)
    same[1:] = (k[1:] == k[:-1]).all(axis=1)
    count = int(np.count_nonzero(same))
    if not count:
        return 0, -1, -1
    again = rows[order[same]]
    start = np.flatnonzero(~same)  # each group's first place in the sorted order
    grp = np.searchsorted(start, np.flatnonzero(same), side="right") - 1
    firsts = rows[order[start[grp]]]
    at = int(np.argmin(again))
    return count, int(firsts[at]), int(again[at])


class Normalise(Step):
    """normalise: NFKC, format characters (U+200B...) dropped (:func:`simhash_lab._unicode.normalise`;
    ``normalize=False``: as they are)."""

    name = "normalise"

    def chunk(self, run: Run, texts: Sequence[str], start: int, where: str) -> Sequence[str]:
        """A chunk's texts normalised (``start``: its first row; ``where``: its file, for errors).
        Texts read in place (:class:`~simhash_lab.datasets.utf8.Utf8Texts`): its ``str`` rows
        normalised, its ASCII texts left as they are (ASCII is normalised already)."""
        if not isinstance(texts, Utf8Texts):
            return check_text_chunk(run.featurizer.normalise, texts, start, where)
        rows = texts.str_rows()
        if not rows.size:
            return texts
        sub = [texts.strs[i] for i in rows.tolist()]
        return texts.with_strs(rows, check_text_chunk(run.featurizer.normalise, sub, start + rows, where))


# -- exact groups ------------------------------------------------------------------------------


def exact_groups(digests: np.ndarray, rank: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The representative of each of ``rows`` (int64, same shape): the first in visiting order
    (``rank``, indexed by row) of the rows whose texts have its digest (``digests``, indexed by
    row). One sort of 64-bit keys: the digest's high bits, the row's place in the visiting order
    in the low bits."""
    m = rows.size
    if m == 0:
        return rows.copy()
    every = m == digests.shape[0] and bool((rows == np.arange(m)).all())
    d = digests if every else digests[rows]
    r = rank[rows]
    if m == 1 or bool((r[1:] > r[:-1]).all()):  # rows already in visiting order (keep="first")
        place = at = np.arange(m)
    else:
        mark = np.zeros(rank.size, np.int64)
        mark[r] = 1
        place = (np.cumsum(mark) - 1)[r]  # 0..m-1: the place of each of rows in the visiting order
        at = np.empty(m, np.int64)
        at[place] = np.arange(m)
    bits = max(1, int(m - 1).bit_length())
    low = np.uint64((1 << bits) - 1)
    keys = (d[:, 0] & ~low) | place.astype(np.uint64)
    keys.sort()  # NumPy's (x86-simd-sort on AVX-512): measured 4-5x kernels.sort.sort_u64 at 1M keys
    rep = np.empty(m, np.int64)
    first_of_runs(keys, low, d[:, 0].copy(), d[:, 1].copy(), at, rep)
    return rows[rep]


class ExactGroups(Step):
    """exact groups: identical normalised texts grouped by their 128-bit digests; one
    representative of each (the first in visiting order) goes on to the near-duplicate search,
    the others are dropped for it (or for what it is dropped for: :class:`Cluster`)."""

    name = "exact groups"

    def digests(self, run: Run, texts: list) -> np.ndarray | None:
        """A chunk's digests (``exact=False``: None): :func:`text_digests`; word shingles get the
        same from the fused pass (:meth:`Fingerprint.fused`)."""
        return text_digests(texts) if run.settings.exact else None

    def representatives(
        self,
        digests: np.ndarray,
        rows: np.ndarray,
        lengths: np.ndarray | None = None,
        priorities: np.ndarray | None = None,
    ) -> np.ndarray:
        """The representative of each of ``rows`` (row numbers, in any order), as its position in
        ``rows``, given every row that shares a digest with one of them (a Dask reducer's bucket of
        digests; one process calls :func:`exact_groups` on all rows with their rank):
        ``digests`` (m, 2), ``lengths`` and ``priorities`` aligned with ``rows``."""
        order = visiting_order(rows, lengths, priorities)
        rank = np.empty(rows.size, np.int64)
        rank[order] = np.arange(rows.size)
        return exact_groups(digests, rank, np.arange(rows.size))


# -- fingerprint -------------------------------------------------------------------------------


def no_features(hasher: Any, text: str) -> bool:
    try:
        return len(hasher.features(text)) == 0
    except (TypeError, ValueError):
        return False


class Fingerprint(Step):
    """fingerprint: every document's 64-bit Simhash of its shingle set
    (:class:`~simhash_lab.shingles.Featurizer`: word shingles, or character n-grams for text
    without word spaces, each distinct shingle voting once); rows without a shingle are
    featureless (never compared, kept). Word shingles: :meth:`fused` (one pass a text, with the
    exact groups' digests, the sets' sizes and the band keys, no set made); else :meth:`chunk`
    (the sets, then their fingerprints)."""

    name = "fingerprint"

    def chunk(self, run: Run, norm: list, start: int, where: str, chars: np.ndarray | None = None) -> tuple:
        """``(fps, chars, indptr, data, featureless)`` of a chunk of normalised texts (sets None
        for a hasher of one's own; ``chars``: the texts' ``Featurizer.kinds``, when known)."""
        feat = run.featurizer
        call = lambda t: feat.fingerprints_sets(t, chars)  # noqa: E731
        f, chars, ind, dat = check_text_chunk(call, norm, start, where)
        if ind is not None:
            empty = np.diff(ind) == 0
        else:
            empty = np.zeros(len(norm), np.bool_)
            for i in np.flatnonzero(f == 0).tolist():
                empty[i] = no_features(feat.hasher, norm[i])
        return f, chars, ind, dat, empty

    def fused(self, run: Run, norm: list, start: int, where: str) -> tuple[Chunk | None, np.ndarray | None]:
        """A chunk's whole first read after normalising, for texts shingled by words: the
        exact groups' digests (with ``exact``), the fingerprints, the sets' sizes and the band
        keys (with bands) in one compiled pass over each text
        (:meth:`~simhash_lab.shingles.Featurizer.first_pass`), the same values the three steps
        make apart; the sets themselves only when the run keeps them (a Dask task's budget).
        Returns ``(chunk, chars)``: the chunk None for other features (:func:`first_read` then
        runs the steps one by one, given ``chars``, the texts' ``Featurizer.kinds``)."""
        feat = run.featurizer
        s = run.settings
        key_maker = run.key_maker if run.bands else None
        call = lambda t: feat.first_pass(t, key_maker, s.exact, run.keeps_sets)  # noqa: E731
        chars, fp = check_text_chunk(call, norm, start, where)
        if fp is None:
            return None, chars
        sizes = fp.sizes.astype(np.int32)
        return Chunk(fp.fps, chars, fp.indptr, fp.data, fp.sizes == 0, fp.digests, fp.keys, sizes), chars


def first_read(run: Run, texts: Sequence[str], start: int, where: str, clock: Clock) -> Chunk:
    """The first read's steps on one chunk of rows (``start``: its first row; ``where``: its
    file): normalise, the exact groups' digests, fingerprint, and with bands the candidates'
    keys, each timed as its step. Texts shingled by words (the default) get the last three in
    one pass (:meth:`Fingerprint.fused`), timed as the fingerprint step; the other features in
    three. ``texts``: a list of ``str``, or texts read in place
    (:class:`~simhash_lab.datasets.utf8.Utf8Texts`, :meth:`Read.in_place`): the same values.
    Both executors call it on every chunk, one process on its threads (a chunk whole on one
    thread), Dask in each task."""
    with clock.time(NORMALISE.name):
        norm = NORMALISE.chunk(run, texts, start, where)
    with clock.time(FINGERPRINT.name):
        fused, chars = FINGERPRINT.fused(run, norm, start, where)
    if fused is not None:
        return fused
    if isinstance(norm, Utf8Texts):  # the steps one by one take a list of str
        with clock.time(NORMALISE.name):
            norm = list(norm)
    dig = None
    if run.settings.exact:
        with clock.time(EXACT_GROUPS.name):
            dig = EXACT_GROUPS.digests(run, norm)
    with clock.time(FINGERPRINT.name):
        fps, chars, ind, dat, empty = FINGERPRINT.chunk(run, norm, start, where, chars)
    keys = None
    if run.bands:  # the keys' share of the candidates step, made here
        with clock.time(CANDIDATES.name):
            keys = CANDIDATES.keys(run, norm, ind, dat, start, where)
    sizes = np.diff(ind).astype(np.int32) if ind is not None else None  # verify's size filter
    return Chunk(fps, chars, ind, dat, empty, dig, keys, sizes)


# -- calibrate ---------------------------------------------------------------------------------


class Calibrate(Step):
    """calibrate k (unless given): on a seeded sample of the representatives, the Hamming
    distances of real near-duplicate pairs; the smallest k that finds ``recall`` of them
    (:func:`~simhash_lab.calibration.calibrate`). In three parts, so that Dask scans each
    partition's fingerprints where they are: :meth:`draw`, :meth:`scan`, :meth:`measure`."""

    name = "calibrate"

    def run(
        self, run: Run, source: Source, fps: np.ndarray, search: np.ndarray, sets: Any = None, bar: Any = None
    ) -> Calibration:
        """The three parts over every row (one process): :meth:`draw`, :meth:`scan` of every
        searchable row, :meth:`measure` (``sets``: every row's, when the read kept them)."""
        draw = self.draw(run, fps.shape[0], search)
        rows = np.flatnonzero(search)
        hits = self.scan(draw, fps[draw.picked], fps[rows], rows) if draw.picked.size else None
        return self.measure(run, draw, hits, source, sets, bar)

    def draw(self, run: Run, n: int, search: np.ndarray) -> Draw:
        """The seeded sample among the searchable rows (:func:`~simhash_lab.calibration.draw_sample`)."""
        sample = check_int("sample", run.settings.sample, 1, 1 << 40)
        return draw_sample(n, search, sample, run.settings.seed, run.bits)[0]

    def scan(self, draw: Draw, queries: np.ndarray, fps: np.ndarray, rows: np.ndarray) -> tuple:
        """``(a, b, d)``: each sampled row ``a`` (``queries``: their fingerprints) with every row
        ``b`` of ``rows`` (fingerprints ``fps``) within ``draw.k_max`` bits, at distance ``d``."""
        if not draw.picked.size:
            e = np.empty(0, np.int64)
            return e, e, e
        indptr, ids, d = neighbours_within(queries, fps, draw.k_max)
        return np.repeat(draw.picked, np.diff(indptr)), rows[ids], d

    def measure(
        self, run: Run, draw: Draw, hits: tuple | None, source: Source, sets: Any = None, bar: Any = None
    ) -> Calibration:
        """The k of the scans' pairs (:func:`~simhash_lab.calibration.measure`; ``bar``, a tqdm
        bar, counts the rows read again)."""
        s = run.settings
        threshold = check_fraction("jaccard", s.jaccard)
        recall = check_fraction("recall", s.recall)
        return measure(draw, hits, source, run.featurizer, threshold, recall, bar=bar, sets=sets)


# -- candidates --------------------------------------------------------------------------------


class Candidates(Step):
    """candidates: the pairs of representatives to verify. ``bands``: those whose shingle sets
    agree on a MinHash band (keys made chunk by chunk as the rows are fingerprinted, :meth:`keys`;
    paired by :meth:`band_map` and :meth:`band_reduce`); ``index``: every pair within k bits of
    their fingerprints (:class:`~simhash_lab.SimhashIndex`, or the table join :meth:`table_map`,
    :meth:`table_reduce`: Manku's batch mode). Either finds every pair its rule names, so
    wherever it runs the same pairs come out."""

    name = "candidates"

    def keys(
        self, run: Run, norm: list, ind: np.ndarray | None, dat: np.ndarray | None, start: int, where: str
    ) -> np.ndarray:
        """A chunk's band keys (uint64, shape (bands, m)), from the sets that are verified (a
        hasher of one's own: its sets, made here). Word shingles get theirs from the fused pass
        (:meth:`Fingerprint.fused`), the same keys."""
        if ind is None:
            ind, dat = check_text_chunk(run.featurizer.sets_of, norm, start, where)[1:]
        return run.key_maker.make(ind, dat)

    def within_k(self, run: Run, fps: np.ndarray, rows: np.ndarray, k: int, bar: Any = None) -> np.ndarray:
        """The pairs ``(i, j, d)`` (int64 (m, 3), ``i < j`` rows) of the fingerprints of ``rows``
        within ``k`` bits, in one call (:meth:`SimhashIndex.pairs`); ``bar`` (a tqdm bar,
        optional) counts its tables done of their total."""
        s = run.settings
        index = SimhashIndex(k=k, bits=run.bits, max_tables=s.max_tables, memory_budget=s.memory_budget)
        if bar is not None:

            def tables(done: int, total: int) -> None:
                if bar.total != total:
                    bar.total = total
                    bar.refresh()
                bar.update(done - bar.n)

            index._progress = tables
        index.add_many(fps[rows])
        p = index.pairs()
        if bar is not None and bar.total is None:  # no tables streamed (a scan, or the query tables)
            bar.total = 1
            bar.update(1)
        del index
        if not p.shape[0]:
            return np.empty((0, 3), np.int64)
        return np.stack([rows[p[:, 0]], rows[p[:, 1]], p[:, 2]], axis=1).astype(np.int64, copy=False)

    def band_map(
        self,
        chunks: Sequence[np.ndarray],
        bands: int,
        cols: np.ndarray,
        numbers: np.ndarray,
        docbits: int,
        n_reducers: int,
    ) -> tuple[np.ndarray, list[list[np.ndarray]]]:
        """One partition's band keys numbered and split among reducers: ``chunks`` its keys as
        they were made (one (bands, rows) array a chunk, ``bands`` bands), ``cols`` its searchable
        rows (sorted positions), ``numbers`` their row numbers. One band at a time: its keys gathered, then
        numbered and split by reducer in one counting pass (:func:`~simhash_lab.candidates.split_band`;
        a row without shingles left out), so that equal keys of a band meet. Returns ``(counts,
        keys)``: ``counts[r, b]`` keys of band b go to reducer r, ``keys[r]`` their arrays, band
        after band."""
        starts = np.cumsum([0] + [c.shape[1] for c in chunks])
        at = np.searchsorted(cols, starts)  # the kept rows of each chunk: cols[at[c]:at[c + 1]]
        local = [cols[at[c] : at[c + 1]] - starts[c] for c in range(len(chunks))]
        per_r: list[list[np.ndarray]] = [[] for _ in range(n_reducers)]
        counts = np.zeros((n_reducers, bands), np.int64)
        kb = np.empty(cols.size, np.uint64)
        cuts = np.empty(n_reducers + 1, np.int64)
        for b in range(bands):
            for c, chunk in enumerate(chunks):
                if local[c].size:  # in range: "clip" lets np.take write to out without a buffer
                    np.take(chunk[b], local[c], out=kb[at[c] : at[c + 1]], mode="clip")
            split = np.empty(cols.size, np.uint64)
            split_band(kb, numbers, docbits, b, split, cuts)  # numbered, by reducer (their order kept)
            counts[:, b] = np.diff(cuts)
            for r in np.flatnonzero(counts[:, b]).tolist():
                per_r[r].append(split[cuts[r] : cuts[r + 1]])
        return counts, per_r

    def band_reduce(self, counts: list, keys: list, docbits: int) -> np.ndarray:
        """The distinct pairs ``i << 32 | j`` (uint64, sorted) among a reducer's numbered keys:
        each piece's keys band after band (``counts[x][b]`` keys of band ``b``), put together a
        band at a time in one row of scratch, sorted, their runs of equal keys paired (as
        :meth:`BandKeys.pairs <simhash_lab.candidates.BandKeys.pairs>` does one band of every
        row)."""
        starts = [np.concatenate([[0], np.cumsum(c)]).astype(np.int64) for c in counts]
        sizes = np.sum(counts, axis=0).astype(np.int64)
        scratch = np.empty((1, int(sizes.max(initial=0))), np.uint64)
        none = np.empty(0, np.uint64)
        found = []
        for b in np.flatnonzero(sizes > 1).tolist():
            row = scratch[:, : sizes[b]]
            at = 0
            for s, k in zip(starts, keys):
                m = int(s[b + 1] - s[b])
                row[0, at : at + m] = k[s[b] : s[b + 1]]
                at += m
            sort_bands(row)
            count = np.zeros(1, np.int64)
            band_pairs(row, docbits, False, none, count)
            if count[0]:
                out = np.empty(int(count[0]), np.uint64)
                band_pairs(row, docbits, True, out, np.zeros(1, np.int64))
                found.append(out)
        packed = np.concatenate(found) if found else none
        return packed[: unique_sorted_pairs(packed)]

    def table_map(self, fps: np.ndarray, ids: np.ndarray, masks: np.ndarray, n_reducers: int) -> dict:
        """One partition's ``(table, fp, id)`` rows split among reducers by each table's key
        (:func:`~simhash_lab.candidates.table_buckets`): ``{reducer: {"t", "f", "i"}}``."""
        return table_buckets(fps, ids, masks, n_reducers)

    def table_reduce(self, pieces: list, masks: np.ndarray, k: int) -> np.ndarray:
        """Every pair within ``k`` bits among a reducer's ``(table, fp, id)`` pieces, each found
        by the first table whose mask it satisfies (:func:`~simhash_lab.candidates.table_join`)."""
        return table_join(pieces, masks, k)


# -- verify ------------------------------------------------------------------------------------


class Verify(Step):
    """verify: each candidate pair's exact Jaccard similarity, of the same shingle sets the
    fingerprints were made from (sorted 64-bit hashes merged, :mod:`simhash_lab.kernels.verify`);
    a pair passes at ``jaccard`` or above. Unverified (the raw Hamming mode, by name): every
    candidate passes.

    A pair's similarity is computed exactly from :meth:`floor` (``jaccard - MARGIN``: every pair
    that passes, and the rejected pairs the report shows nearest the threshold); a pair that
    cannot reach it gets :data:`BELOW` (-1.0), found sooner: by the sizes of its sets alone
    (``min / max < floor``, :meth:`by_size`, before any set is made again) or by a merge stopped
    once it cannot reach it. The decisions are the same as with every merge run to the end."""

    name = "verify"

    #: pairs a Jaccard call (the bar moves between them)
    BLOCK = 1 << 20

    #: how far below ``jaccard`` similarities are still exact (the report's "kept apart" pairs)
    MARGIN = 0.05

    #: the similarity of a pair below :meth:`floor` (its exact value not computed)
    BELOW = -1.0

    def floor(self, run: Run) -> float:
        """The similarity from which a pair's value is exact: ``jaccard - MARGIN`` (at least 0)."""
        return max(float(run.settings.jaccard) - self.MARGIN, 0.0)

    def by_size(self, run: Run, sizes: np.ndarray | None, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Which pairs of rows ``a[p]``, ``b[p]`` can reach :meth:`floor` by the sizes of their
        sets (``sizes``, indexed by row; None: unknown, every pair can), bool
        (:func:`~simhash_lab.kernels.verify.size_passes`)."""
        if sizes is None:
            return np.ones(a.shape[0], np.bool_)
        return V.size_passes(sizes[a], sizes[b], self.floor(run))

    def similarity(
        self,
        indptr: np.ndarray,
        data: np.ndarray,
        a: np.ndarray,
        b: np.ndarray,
        bar: Any = None,
        at_least: float = 0.0,
    ) -> np.ndarray:
        """The similarity of the CSR rows ``a[p]`` and ``b[p]`` of each pair, in blocks; below
        ``at_least`` (:meth:`floor`), :data:`BELOW`."""
        sim = np.empty(a.shape[0], np.float64)
        for lo in range(0, a.shape[0], self.BLOCK):
            hi = min(lo + self.BLOCK, a.shape[0])
            sim[lo:hi] = Shingler.jaccard(indptr, data, a[lo:hi], b[lo:hi], at_least or None)
            if bar is not None:
                bar.update(hi - lo)
        return sim

    def streamed(
        self, run: Run, source: Source, a: np.ndarray, b: np.ndarray, n: int, bar: Any = None
    ) -> np.ndarray:
        """The similarity (:meth:`similarity` from :meth:`floor`) of the pairs ``a[p] < b[p]``
        (rows below ``n``), their sets made again from ``source``, one chunk of the rows they need
        at a time (:meth:`Source.select`, in row order): a pair is verified as soon as the chunk of
        its second row is made, and a row's set is held only until the chunk of its last partner
        is, so the sets in memory at once are those of the rows still waiting for a partner plus
        one chunk's, never every set (the first read keeps none). ``bar`` counts the rows made
        and the pairs verified."""
        floor = self.floor(run)
        m = a.shape[0]
        sim = np.empty(m, np.float64)
        if not m:
            return sim
        last = np.full(n, -1, np.int64)  # each row's last partner (itself when none comes later)
        np.maximum.at(last, a, b)
        need = distinct_rows(n, a, b)
        last[need] = np.maximum(last[need], need)
        by_b = np.argsort(b, kind="stable")  # pairs in the order their second rows come
        b_sorted = b[by_b]
        ptr = np.zeros(2 * n, np.int64)  # row r's set: data[ptr[2r]:ptr[2r + 1]] (CSR row 2r)
        data = np.empty(0, np.uint64)
        held = np.empty(0, np.int64)  # the rows whose sets are in data
        fill = done = 0
        for rows, texts in source.select(need, CHUNK_ROWS):
            ind, dat = run.featurizer.sets(texts)
            if fill + dat.shape[0] > data.shape[0]:  # full: the rows still waiting kept, compacted
                held = held[last[held] >= rows[0]]
                lens = ptr[2 * held + 1] - ptr[2 * held]
                to = np.zeros(held.size + 1, np.int64)
                np.cumsum(lens, out=to[1:])
                fresh = np.empty(max(2 * (int(to[-1]) + dat.shape[0]), 1 << 16), np.uint64)
                V.copy_runs(data, ptr[2 * held], to, fresh)
                ptr[2 * held], ptr[2 * held + 1] = to[:-1], to[1:]
                data, fill = fresh, int(to[-1])
            data[fill : fill + dat.shape[0]] = dat
            ptr[2 * rows], ptr[2 * rows + 1] = fill + ind[:-1], fill + ind[1:]
            fill += dat.shape[0]
            held = np.concatenate([held, rows])
            upto = int(np.searchsorted(b_sorted, rows[-1], side="right"))
            if upto > done:
                at = by_b[done:upto]
                sim[at] = self.similarity(ptr, data, 2 * a[at], 2 * b[at], None, floor)
                if bar is not None:
                    bar.update(upto - done)
                done = upto
            if bar is not None:
                bar.update(rows.shape[0])
        return sim

    def passes(self, run: Run, sim: np.ndarray) -> np.ndarray:
        """Which pairs are near-duplicates (bool): similarity >= ``jaccard``."""
        if not run.verified:
            return np.ones(sim.shape[0], np.bool_)
        return sim >= run.settings.jaccard


# -- cluster -----------------------------------------------------------------------------------


def keep_drop(
    order: np.ndarray, u: np.ndarray, v: np.ndarray, edges: np.ndarray, complete: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The greedy keep/drop pass over verified pairs (``kernels.verify.greedy_clusters``).

    ``order`` (m,): the m nodes in visiting order; ``u``, ``v`` (e,): the two node positions of each
    verified pair; ``edges`` (e,): each pair's id, reported back in ``via``. Returns ``(state, rep,
    via)``, each (m,): 2 for a dropped node, the node kept for it, and the pair that dropped it.
    """
    m = len(order)
    order = np.ascontiguousarray(order, np.int64)
    rank = np.empty(m, np.int64)
    rank[order] = np.arange(m)
    src, dst = np.concatenate([u, v]), np.concatenate([v, u])
    eid = np.concatenate([edges, edges])
    srt = np.lexsort((rank[dst], src))  # each node's neighbours in visiting order
    src, dst, eid = src[srt], dst[srt], eid[srt]
    adj_ptr = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=m), out=adj_ptr[1:])
    state = np.zeros(m, np.int8)
    rep = np.full(m, -1, np.int64)
    via = np.full(m, -1, np.int64)
    V.greedy_clusters(
        order, adj_ptr, np.ascontiguousarray(dst), np.ascontiguousarray(eid, np.int64), complete,
        state, rep, via,
    )  # fmt: skip
    return state, rep, via


class Cluster(Step):
    """cluster (keep / drop): documents visited in the stated order (:func:`visiting_order`); a
    document not dropped yet is kept and drops each verified neighbour not decided yet that is
    also a verified neighbour of every document dropped for it so far (``linkage="complete"``;
    ``"star"``: only near the kept one). Then each exact copy goes where its representative goes:
    dropped for it, or for the row it is dropped for, at that drop's distance and similarity."""

    name = "cluster"

    def decide(
        self,
        run: Run,
        pairs: np.ndarray,
        similarity: np.ndarray,
        order_of: Callable[[np.ndarray], np.ndarray],
        copies: np.ndarray,
        copy_of: np.ndarray,
        ids_of: Callable[[np.ndarray], list],
        n: int | None = None,
    ) -> Duplicates:
        """The duplicates table (sorted by dropped row) of the verified ``pairs`` (int64 (e, 3):
        ``i < j`` rows, distance; sorted by ``(i, j)``) and their ``similarity``; ``order_of(nodes)``:
        the visiting order of the sorted rows ``nodes`` (positions); ``copies``, ``copy_of``: the
        exact copies and their representatives; ``ids_of(rows)``: the rows' ids. ``n`` (the rows'
        count, optional) lets the nodes be found in a mask of the rows instead of by a sort."""
        i, j = pairs[:, 0], pairs[:, 1]
        d_rows = k_rows = np.empty(0, np.int64)
        dist = np.empty(0, np.int64)
        dsim = np.empty(0, np.float64)
        if i.size:
            if n is not None:
                nodes = distinct_rows(n, i, j)
                place = np.zeros(n, np.int64)  # each node's number
                place[nodes] = np.arange(nodes.size)
                u, v = place[i], place[j]
            else:
                nodes = np.unique(np.concatenate([i, j]))
                u, v = np.searchsorted(nodes, i), np.searchsorted(nodes, j)
            order = order_of(nodes)
            state, krep, via = keep_drop(order, u, v, np.arange(i.size), run.settings.linkage == "complete")
            dropped = np.flatnonzero(state == 2)
            d_rows, k_rows = nodes[dropped], nodes[krep[dropped]]
            e = via[dropped]
            dist, dsim = pairs[e, 2].astype(np.int64), similarity[e].astype(np.float64)
        if copies.size:  # an exact copy goes where its representative goes
            srt = np.argsort(d_rows, kind="stable")
            dr = d_rows[srt]
            pos = np.minimum(np.searchsorted(dr, copy_of), max(dr.size - 1, 0))
            hit = (dr[pos] == copy_of) if dr.size else np.zeros(copy_of.size, np.bool_)
            at = srt[pos] if dr.size else pos
            goes = np.where(hit, k_rows[at] if dr.size else 0, copy_of)
            cd = np.where(hit, dist[at] if dr.size else 0, 0)
            cs = np.where(hit, dsim[at] if dr.size else 1.0, 1.0)
            d_rows = np.concatenate([d_rows, copies])
            k_rows = np.concatenate([k_rows, goes])
            dist = np.concatenate([dist, cd.astype(np.int64)])
            dsim = np.concatenate([dsim, cs.astype(np.float64)])
        srt = np.argsort(d_rows, kind="stable")
        d_rows, k_rows, dist, dsim = d_rows[srt], k_rows[srt], dist[srt], dsim[srt]
        return Duplicates(
            dropped=d_rows.astype(np.int64), kept=k_rows.astype(np.int64), distance=dist, similarity=dsim,
            dropped_id=ids_of(d_rows), kept_id=ids_of(k_rows),
        )  # fmt: skip

    def documents(
        self, run: Run, units: Any, dropped: np.ndarray, kept_for: np.ndarray, n_docs: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """With units of documents: each document's fate from its units' (``dropped``: the unit
        rows dropped; ``kept_for``: those others were dropped for; ``units``: where each row comes
        from, :class:`~simhash_lab.dedup.run.Units`): ``(keep, whole, words_left)`` per document
        (:func:`~simhash_lab.dedup.units.documents`)."""
        return documents(units.doc, units.words, dropped, kept_for, n_docs, run.settings.min_kept_words)


# -- write -------------------------------------------------------------------------------------


class Write(Step):
    """write: the kept rows, unchanged and in input order, in the input's format (the source's
    ``write_kept``, through :mod:`simhash_lab._write`), the duplicates table and the report
    (:mod:`.results`, :mod:`.report`). On Dask each partition writes its own rows as Parquet
    (:meth:`part`)."""

    name = "write"

    def part(self, source: Source, keep: np.ndarray, path: str, edits: dict | None = None) -> int:
        """The rows of a Parquet or JSONL partition that ``keep`` keeps, written to ``path`` as
        Parquet with the input's columns (also when none is kept: a partition of 0 rows has the
        columns its neighbours have); ``edits`` (row: the spans of its text to cut, units) as the
        source's ``write_kept`` takes them; returns how many."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if source.format == "parquet":
            return source.write_kept(path, keep, edits=edits) if edits else source.write_kept(path, keep)
        if source.format != "jsonl":
            raise ValueError(f"partitions must be Parquet or JSONL files, got {source.format}")
        records = [rec for rec, _ in source.records()]
        for r, spans in (edits or {}).items():
            records[r][source.column] = cut_text(records[r][source.column], spans)
        try:
            table = pa.Table.from_pylist(records)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            raise DatasetError(f"{source.name}: {mixed_field(records)}") from None
        rows = table.filter(pa.array(keep))
        pq.write_table(rows, path)
        return rows.num_rows


def mixed_field(records: list[dict]) -> str:
    """Why JSONL records make no Parquet table (a Dask run's kept rows): the first field whose
    values are of several kinds (ids 1 and "c0": JSON allows it), named, or that they do not."""
    for k in dict.fromkeys(k for rec in records for k in rec):
        kinds = sorted({kind_of(rec[k]) for rec in records if k in rec})
        if len(kinds) > 1:
            return (
                f"the field {k!r} holds values of several kinds ({', '.join(kinds)}), and a Parquet "
                "column holds one (a Dask run writes its kept rows as Parquet): give it values of one kind"
            )
    return "its records make no one Parquet table (a Dask run writes its kept rows as Parquet)"


def run_settings(run: Run, k: int, band_info: dict | None, priority: bool) -> dict:
    """The result's ``settings``: what the run's features and candidates were."""
    s = run.settings
    feat = run.featurizer
    hasher = feat.hasher if feat.hasher is not None else recommended_hasher(s.shingle)
    tok = hasher.tokenizer
    return {
        "features": feat.name,
        "tokenizer": getattr(tok, "name", getattr(tok, "__name__", "custom")),
        "weights": hasher.weights if isinstance(hasher.weights, str) else "mapping",
        "hash": hasher.hash if isinstance(hasher.hash, str) else "custom",
        "bits": hasher.bits,
        "shingle": s.shingle if run.verified else None,
        "keep": "priority" if priority else s.keep,
        "linkage": s.linkage,
        **({"unit": s.unit, "min_kept_words": s.min_kept_words} if s.unit != "document" else {}),
        "normalize": s.normalize,
        "exact": s.exact,
        "candidates": band_info if band_info is not None else {"method": "index", "k": k},
    }


PLAN = Plan()
READ = Read()
NORMALISE = Normalise()
EXACT_GROUPS = ExactGroups()
FINGERPRINT = Fingerprint()
CALIBRATE = Calibrate()
CANDIDATES = Candidates()
VERIFY = Verify()
CLUSTER = Cluster()
WRITE = Write()
