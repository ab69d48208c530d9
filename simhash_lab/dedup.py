"""Near-duplicate removal you can act on: Simhash candidates, exact Jaccard verification, a
keep/drop policy that never chains.

:func:`dedup_texts` (a list of str), :func:`dedup_table` (a JSONL, CSV or Parquet file, read in
chunks: :mod:`simhash_lab.datasets`) and :func:`dedup` (the text files under folders) all run the
same steps and return a :class:`DedupResult`:

1. **Fingerprint** every document (a :class:`~simhash_lab.Simhasher`). With a Jaccard threshold
   the recommended one is the default: word 3-shingles (the shingles the threshold is about), each
   distinct shingle voting once (binary weights), 64 bits. Documents without a single feature
   (empty, whitespace or punctuation only) are set apart as *featureless*: never compared, kept.
2. **Calibrate k** (when a threshold is given and ``k`` is not): :func:`calibrate` measures, on a
   random sample of the corpus, the Hamming distances of real near-duplicate pairs (Jaccard >= the
   threshold, found by a scan and verified exactly), and takes the smallest ``k`` that finds the
   ``recall`` asked for (default 0.95) of them. When the sample holds too few such pairs, pairs made
   from sampled documents by random word replacements down to the threshold stand in (the worst
   case: every pair at the threshold). The :class:`Calibration` says which, with its figures.
3. **Candidates**: with a threshold and ``k`` calibrated, the pairs that agree on a MinHash band
   of their shingle sets (the keys made chunk by chunk in step 1), the bands chosen to find a pair
   at the threshold itself with probability ``recall`` (:mod:`simhash_lab.candidates`: time in
   proportion to the rows and the pairs, where every pair within a calibrated k of 12 costs
   hundreds of tables); with ``k`` given, every pair within ``k`` bits (:meth:`SimhashIndex.pairs`).
4. **Verify** each candidate: exact Jaccard similarity of the two documents' word ``shingle``-gram
   sets (sorted 64-bit hashes merged in Numba, :mod:`simhash_lab.kernels.verify`); pairs below the
   threshold are dropped. Without a threshold, every candidate stands (the Hamming-only mode of
   the first versions, kept for comparison: it over-matches boilerplate).
5. **Keep / drop**: documents are visited in a stated order (``keep="first"``: input order;
   ``"longest"``: most characters first; or a ``priority`` per document, highest first); a
   document not dropped yet is kept and drops each verified neighbour not decided yet that is
   also a verified neighbour of every document dropped for it so far (``linkage="complete"``, the
   default). So every dropped document is verified-near the kept one it is dropped for (its
   representative), nothing chains, and every two members of a cluster are a verified pair: no
   cluster holds a pair below the threshold. A neighbour that cannot join stays undecided, to be
   kept or dropped for a later one. ``linkage="star"`` asks only the first of these (each dropped
   document near its kept one; two dropped members of one star can be less alike).

The result holds the keep mask (``keep``, bool per document) and the duplicates table
(:class:`Duplicates`: dropped id, kept id, Hamming distance, Jaccard similarity).

>>> base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat"
>>> texts = [base, base.replace("warm", "soft"), "an unrelated line of text about cooking rice", "", base]
>>> res = dedup_texts(texts, jaccard=0.7, k=16)
>>> res.keep.tolist(), res.featureless.tolist()
([True, False, True, True, False], [3])
>>> [(d, k, round(s, 3)) for d, k, _, s in res.duplicates.rows()]
[(1, 0, 0.765), (4, 0, 1.0)]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _files
from ._files import DEFAULT_MAX_BYTES, NotRegularFile, NotText, TooLarge, json_name, reason, walk
from ._validate import check_int, check_option
from .calibration import Calibration, _check_fraction, calibrate
from .candidates import BandKeys
from .datasets import DatasetError, Source, TextsSource, open_dataset, write_duplicates
from .shingles import Shingler, _ChunkSets, _gather_sets, recommended_hasher

__all__ = [
    "Calibration",
    "DedupResult",
    "Duplicates",
    "Shingler",
    "calibrate",
    "dedup",
    "dedup_table",
    "dedup_texts",
    "iter_files",
    "read_text",
    "recommended_hasher",
]

_BATCH = 256  # files per fingerprint batch
CHUNK_ROWS = 8192  # dataset rows per chunk
EXIT_NONE, EXIT_FOUND, EXIT_TROUBLE = 0, 1, 2
KEEP_ORDERS = ("first", "longest")
LINKAGES = ("star", "complete")
SETS_BUDGET = 1 << 30  # bytes of shingle sets kept from the first read (else read again)

# A file that is not text, or too large (reported, does not change the exit status)
Skip = (NotText, TooLarge)


# -- results -----------------------------------------------------------------------------------


@dataclass
class Duplicates:
    """The duplicates table: one row per dropped document, sorted by its row.

    Attributes
    ----------
    dropped, kept : ndarray, shape (m,), int64
        Row numbers (positions in the input) of the dropped document and of the kept one it is a
        near-duplicate of.
    distance : ndarray, shape (m,), int64
        Hamming distance of their fingerprints.
    similarity : ndarray, shape (m,), float64
        Exact Jaccard similarity of their shingle sets (NaN when no threshold was given).
    dropped_id, kept_id : list
        Their ids (the id column's values, file paths, or row numbers).
    """

    dropped: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    kept: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    distance: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    similarity: np.ndarray = field(default_factory=lambda: np.empty(0, np.float64))
    dropped_id: list = field(default_factory=list)
    kept_id: list = field(default_factory=list)

    def __len__(self) -> int:
        return int(self.dropped.shape[0])

    def rows(self) -> list[tuple]:
        """``(dropped_id, kept_id, distance, similarity)`` for each row."""
        return list(zip(self.dropped_id, self.kept_id, self.distance.tolist(), self.similarity.tolist()))

    def to_dict(self) -> dict:
        """Columns as lists (the ``dups.csv`` columns)."""
        return {
            "dropped_id": list(self.dropped_id),
            "kept_id": list(self.kept_id),
            "distance": self.distance.tolist(),
            "similarity": [None if s != s else s for s in self.similarity.tolist()],
            "dropped_row": self.dropped.tolist(),
            "kept_row": self.kept.tolist(),
        }


@dataclass
class DedupResult:
    """What a dedup run found.

    Attributes
    ----------
    ids : list
        Each document's id (file paths for :func:`dedup`), in input order: row ``i`` is ``ids[i]``.
    fingerprints : ndarray, shape (n,), uint64
    keep : ndarray, shape (n,), bool
        False for the dropped documents.
    duplicates : Duplicates
        One row per dropped document: the kept one it is dropped for, their distance and verified
        similarity. With ``linkage="complete"`` (the default) every two members of a cluster (a
        kept row and the rows dropped for it, :attr:`groups`) are a verified pair; with
        ``"star"``, each dropped row and its kept one.
    featureless : ndarray, int64
        Rows with no feature (empty, whitespace or punctuation only): never compared, never in a
        cluster, kept; reported apart (``to_json()``: ``"empty"`` for files, ``"featureless"`` for
        rows).
    pairs : ndarray, shape (m, 3), int64
        The candidate pairs ``(i, j, d)`` (rows, ``i < j``; ``d`` their Hamming distance), before
        verification: those within ``k``, or of the MinHash bands (``settings["candidates"]``).
    similarity : ndarray, shape (m,), float64
        Their Jaccard similarity (NaN without a threshold).
    k, bits : int
    jaccard : float or None
        The threshold (None: Hamming-only).
    calibration : Calibration or None
    settings : dict
        Tokenizer, weights, hash, shingle size, keep order, linkage.
    skipped, errors : list of (path, reason)
        :func:`dedup` only: files not used, and files or paths that could not be read.
    timings : dict
        Seconds spent in each step: fingerprint, calibrate, candidates, verify, cluster, write.
    """

    k: int
    bits: int
    preset: str = "default"
    jaccard: float | None = None
    format: str = "files"
    ids: list = field(default_factory=list)
    fingerprints: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))
    keep: np.ndarray = field(default_factory=lambda: np.empty(0, np.bool_))
    duplicates: Duplicates = field(default_factory=Duplicates)
    featureless: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 3), np.int64))
    similarity: np.ndarray = field(default_factory=lambda: np.empty(0, np.float64))
    calibration: Calibration | None = None
    settings: dict = field(default_factory=dict)
    skipped: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    written: int | None = None
    timings: dict = field(default_factory=dict)

    @property
    def paths(self) -> list:
        """The files fingerprinted (:func:`dedup`): the ids."""
        return self.ids

    @property
    def empty(self) -> list:
        """Ids of the featureless documents."""
        return [self.ids[i] for i in self.featureless.tolist()]

    @property
    def verified(self) -> int:
        """Candidate pairs that passed verification (all of them without a threshold)."""
        if self.jaccard is None:
            return int(self.pairs.shape[0])
        return int(np.count_nonzero(self.similarity >= self.jaccard))

    @property
    def groups(self) -> list[list[int]]:
        """Clusters of two or more: the kept row first, then the rows dropped for it, in order;
        clusters sorted by their kept row."""
        d = self.duplicates
        if len(d) == 0:
            return []
        order = np.lexsort((d.dropped, d.kept))
        kept, dropped = d.kept[order], d.dropped[order]
        cuts = np.flatnonzero(np.diff(kept)) + 1
        return [[int(g[0])] + dr.tolist() for g, dr in zip(np.split(kept, cuts), np.split(dropped, cuts))]

    @property
    def exit_status(self) -> int:
        if self.errors:
            return EXIT_TROUBLE
        return EXIT_FOUND if len(self.duplicates) else EXIT_NONE

    def group_members(self, g: Sequence[int]) -> list[tuple[Any, int, int, float]]:
        """``(id, fingerprint, distance to the kept one, similarity to it)`` for each member (the kept
        one first, at distance 0 and similarity 1)."""
        d = self.duplicates
        at = {int(r): i for i, r in enumerate(d.dropped.tolist())}
        out = []
        for r in g:
            fp = int(self.fingerprints[r])
            if r in at:
                i = at[r]
                out.append((self.ids[r], fp, int(d.distance[i]), float(d.similarity[i])))
            else:
                out.append((self.ids[r], fp, 0, 1.0))
        return out

    def summary(self) -> str:
        what = "files" if self.format == "files" else "rows"
        mode = (
            f"verified at Jaccard >= {self.jaccard:g} "
            f"({self.verified} of {self.pairs.shape[0]} candidate pairs)"
            if self.jaccard is not None
            else f"{self.pairs.shape[0]} pairs, unverified (give --jaccard to verify)"
        )
        n_groups = len(set(self.duplicates.kept.tolist()))
        return (
            f"{len(self.ids)} {what}, {len(self.duplicates)} dropped in {n_groups} group(s) "
            f"within k = {self.k}, {mode}; {self.featureless.size} featureless"
        )

    def to_json(self) -> dict:
        width = (self.bits + 3) // 4
        key = "path" if self.format == "files" else "id"

        def show(v):
            return json_name(v) if self.format == "files" else v

        doc = {
            "k": self.k,
            "bits": self.bits,
            "preset": self.preset,
            "jaccard": self.jaccard,
            "settings": self.settings,
            "calibration": None if self.calibration is None else self.calibration.to_json(),
            # files: those fingerprinted, as before (featureless ones are listed apart, in "empty")
            **(
                {"files": len(self.ids) - self.featureless.size}
                if self.format == "files"
                else {"rows": len(self.ids)}
            ),
            "candidates": int(self.pairs.shape[0]),
            "verified": self.verified,
            "dropped": len(self.duplicates),
            "groups": [
                [
                    {
                        key: show(i),
                        "fingerprint": f"{fp:0{width}x}",
                        "distance": d,
                        "similarity": None if s != s else round(s, 6),
                        "kept": n == 0,
                    }
                    for n, (i, fp, d, s) in enumerate(self.group_members(g))
                ]
                for g in self.groups
            ],
        }
        if self.format == "files":
            doc["skipped"] = [{"path": json_name(p), "reason": r} for p, r in self.skipped]
            doc["errors"] = [{"path": json_name(p), "reason": r} for p, r in self.errors]
            doc["empty"] = [json_name(p) for p in self.empty]
        else:
            doc["featureless"] = list(self.empty)
            doc["written"] = self.written
        return doc


# -- the run -----------------------------------------------------------------------------------


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
        from tqdm import tqdm

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


def _hasher_settings(hasher) -> dict:
    tok = hasher.tokenizer
    return {
        "tokenizer": getattr(tok, "name", getattr(tok, "__name__", "custom")),
        "weights": hasher.weights if isinstance(hasher.weights, str) else "mapping",
        "hash": hasher.hash if isinstance(hasher.hash, str) else "custom",
        "bits": hasher.bits,
    }


def _no_features(hasher, text: str) -> bool:
    try:
        return len(hasher.features(text)) == 0
    except (TypeError, ValueError):
        return False


def keep_drop(order, u, v, edges, complete: bool):
    """The greedy keep/drop pass over verified pairs (``kernels.verify.star_clusters``).

    ``order`` (m,): the m nodes in visiting order; ``u``, ``v`` (e,): the two node positions of each
    verified pair; ``edges`` (e,): each pair's id, reported back in ``via``. Returns ``(state, rep,
    via)``, each (m,): 2 for a dropped node, the node kept for it, and the pair that dropped it.
    The same function serves ``dedup_texts`` and ``distributed.dedup_dataset``, so that both make
    the same decisions.
    """
    from .kernels import verify as V

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
    V.star_clusters(
        order, adj_ptr, np.ascontiguousarray(dst), np.ascontiguousarray(eid, np.int64), complete,
        state, rep, via,
    )  # fmt: skip
    return state, rep, via


def _check_text_chunk(call, texts: list, start: int, where: str):
    """``call(texts)``, with a ValueError from a lone surrogate turned into a DatasetError naming
    the row."""
    try:
        return call(texts)
    except ValueError:
        for i, t in enumerate(texts):
            try:
                t.encode("utf-8")
            except UnicodeEncodeError:
                raise DatasetError(
                    f"{where}: row {start + i}: the text holds a lone surrogate, not text"
                ) from None
        raise


def _fused_chunk(shingler: Shingler, texts: list, start: int, where: str):
    return _check_text_chunk(shingler.fingerprints_and_sets, texts, start, where)


def _fingerprint_chunk(hasher, texts: list, start: int, where: str) -> np.ndarray:
    return _check_text_chunk(hasher.fingerprints, texts, start, where)


def _run(
    source: Source,
    *,
    hasher,
    k: int | None,
    jaccard: float | None,
    shingle: int,
    recall: float,
    sample: int,
    keep: str,
    priority,
    linkage: str,
    seed: int,
    max_tables: int | None,
    progress: str,
    memory_budget: int | None = None,
    result: DedupResult | None = None,
) -> DedupResult:
    import time

    from .index import SimhashIndex

    bars = _Bars(progress)
    res = result or DedupResult(k=-1, bits=hasher.bits, format=source.format)
    clock = [time.perf_counter()]

    def lap(step: str) -> None:
        now = time.perf_counter()
        res.timings[step] = res.timings.get(step, 0.0) + now - clock[0]
        clock[0] = now

    res.bits, res.jaccard = hasher.bits, jaccard
    # 1. fingerprints, ids, lengths, priorities
    fps_parts, lengths, prios = [], [], []
    featureless: list[int] = []
    unit = "file" if source.format == "files" else "row"
    shingler = Shingler(shingle)
    fused = jaccard is not None and shingler.fuses(hasher)
    kept_sets = _ChunkSets() if fused else None
    # the candidates' MinHash band keys, made chunk by chunk from the sets (k to be calibrated)
    band_keys = BandKeys(jaccard, recall) if jaccard is not None and k is None else None
    bar = bars.start("fingerprinting", getattr(source, "total", None), unit=unit)
    try:
        start = 0
        for texts, ids, prio in source.chunks(CHUNK_ROWS):
            if fused:  # one tokenization for the fingerprints and the sets
                f, ind, dat = _fused_chunk(shingler, texts, start, source.name)
                if band_keys is not None:
                    band_keys.add(ind, dat)
                if kept_sets is not None:
                    kept_sets.add(ind, dat)
                    if kept_sets.nbytes > SETS_BUDGET:
                        kept_sets = None  # too many to keep: read again those needed
            else:
                f = _fingerprint_chunk(hasher, texts, start, source.name)
            for i in np.flatnonzero(f == 0).tolist():
                if _no_features(hasher, texts[i]):
                    featureless.append(start + i)
            if jaccard is not None and not fused:  # features for the hasher, maybe no shingle
                no_words = np.flatnonzero(shingler.word_counts(texts) == 0)
                featureless.extend((no_words + start).tolist())
                if band_keys is not None:
                    band_keys.add(*_check_text_chunk(shingler.sets, texts, start, source.name))
            fps_parts.append(f)
            res.ids.extend(ids)
            if keep == "longest":
                lengths.append(np.fromiter(map(len, texts), np.int64, len(texts)))
            if prio is not None:
                prios.append(np.array(prio, np.float64))
            start += len(texts)
            if bar is not None:
                bar.update(len(texts))
    finally:
        bars.close()
    n = len(res.ids)
    fps = np.concatenate(fps_parts) if fps_parts else np.empty(0, np.uint64)
    res.fingerprints = fps
    valid = np.ones(n, np.bool_)
    valid[featureless] = False
    if isinstance(priority, np.ndarray) or prios:
        pr = np.concatenate(prios) if prios else priority
    else:
        pr = None
    lap("fingerprint")
    # 2. k
    if k is None:
        if jaccard is None:
            k = 3
        else:
            bar = bars.start("calibrating", None)
            try:
                res.calibration = calibrate(
                    source, fps, jaccard, hasher=hasher, shingle=shingle, recall=recall, sample=sample,
                    seed=seed, valid=valid, bar=bar, sets=kept_sets,
                )  # fmt: skip
            finally:
                bars.close()
            k = res.calibration.k
    res.k = k
    lap("calibrate")
    # 3. candidates: with k calibrated and the sets in memory, MinHash bands of them chosen for the
    # threshold and recall (simhash_lab.candidates); else every pair within k (the index)
    if band_keys is not None:
        bars.start("indexing", None, unit="step")  # the bands' sort
        try:
            pairs = band_keys.pairs(valid, fps)
        finally:
            bars.close()
    else:
        rows = np.flatnonzero(valid)
        index = SimhashIndex(k=k, bits=hasher.bits, max_tables=max_tables, memory_budget=memory_budget)
        bar = bars.start("indexing", None, unit="step")
        try:
            index.add_many(fps[rows])
            p = index.pairs()
        finally:
            bars.close()
        pairs = (
            np.stack([rows[p[:, 0]], rows[p[:, 1]], p[:, 2]], axis=1)
            if p.shape[0]
            else np.empty((0, 3), np.int64)
        )
        del index
    res.pairs = pairs.astype(np.int64, copy=False)
    lap("candidates")
    # 4. verification
    store = None
    if jaccard is not None and pairs.shape[0]:
        need = np.unique(pairs[:, :2])
        bar = bars.start("verifying", int(need.size))
        try:
            store = _gather_sets(source, need, shingler, bar, kept_sets)
        finally:
            bars.close()
        la, lb = store.local(pairs[:, 0]), store.local(pairs[:, 1])
        res.similarity = Shingler.jaccard(store.indptr, store.data, la, lb)
        ok = res.similarity >= jaccard
    else:
        res.similarity = np.full(pairs.shape[0], np.nan)
        ok = np.ones(pairs.shape[0], np.bool_)
    res.featureless = np.unique(np.array(featureless, np.int64))
    lap("verify")
    # 5. keep / drop
    edges = np.flatnonzero(ok)
    nodes = np.unique(pairs[edges, :2]) if edges.size else np.empty(0, np.int64)
    res.keep = np.ones(n, np.bool_)
    if nodes.size:
        if pr is not None:
            rank_key = np.lexsort((nodes, -pr[nodes]))
        elif keep == "longest":
            rank_key = np.lexsort((nodes, -np.concatenate(lengths)[nodes]))
        else:
            rank_key = np.arange(nodes.size)
        u = np.searchsorted(nodes, pairs[edges, 0])
        v = np.searchsorted(nodes, pairs[edges, 1])
        state, rep, via = keep_drop(rank_key, u, v, edges, linkage == "complete")
        dropped = np.flatnonzero(state == 2)
        d_rows = nodes[dropped]
        k_rows = nodes[rep[dropped]]
        e = via[dropped]
        res.keep[d_rows] = False
        res.duplicates = Duplicates(
            dropped=d_rows,
            kept=k_rows,
            distance=pairs[e, 2].copy(),
            similarity=res.similarity[e].copy(),
            dropped_id=[res.ids[i] for i in d_rows.tolist()],
            kept_id=[res.ids[i] for i in k_rows.tolist()],
        )
    lap("cluster")
    res.settings = {
        **_hasher_settings(hasher),
        "shingle": shingle if jaccard is not None else None,
        "keep": "priority" if pr is not None else keep,
        "linkage": linkage,
        "candidates": band_keys.info if band_keys is not None else {"method": "index", "k": k},
    }
    return res


def _check_index_options(max_tables, memory_budget) -> None:
    """The index's options, checked before any work (their errors name the parameter)."""
    from .index.design import MAX_TABLES_FORCED

    if max_tables is not None:
        check_int("max_tables", max_tables, 1, MAX_TABLES_FORCED)
    if memory_budget is not None:
        check_int("memory_budget", memory_budget, 0, 1 << 62)


def _resolve(hasher, jaccard, shingle, keep, priority, linkage, k, bits_default=64):
    from .presets import ALL
    from .simhasher import Simhasher

    shingle = check_int("shingle", shingle, 1, 64)
    if jaccard is not None:
        jaccard = _check_fraction("jaccard", jaccard)
    check_option("keep", keep, KEEP_ORDERS)
    check_option("linkage", linkage, LINKAGES)
    if hasher is None:
        hasher = recommended_hasher(shingle) if jaccard is not None else ALL["default"]
    elif isinstance(hasher, str):
        check_option("preset", hasher, sorted(ALL))
        hasher = ALL[hasher]
    elif not isinstance(hasher, Simhasher):
        raise TypeError(f"hasher must be a Simhasher or a preset name, got {type(hasher).__name__}")
    if k is not None:
        from .index.design import _check_k

        k = _check_k(k, hasher.bits)
    return hasher, jaccard, shingle, linkage, k


_DOC_PARAMS = """
    jaccard : float, optional
        Verify each candidate pair: exact Jaccard similarity of the word ``shingle``-gram sets must
        be at least this (0 < jaccard <= 1). None: Hamming-only (every pair within ``k`` stands).
    k : int, optional
        Largest Hamming distance of a candidate pair. Default: calibrated for ``jaccard``
        (:func:`calibrate`), or 3 without a threshold.
    hasher : Simhasher or str, optional
        Default: :func:`recommended_hasher` (word shingles, binary weights) with a threshold,
        ``presets.DEFAULT`` without; or a preset name ("default", "seed_python", ...).
    shingle : int
        Words per shingle for the verification (and the recommended hasher), default 3.
    recall : float
        The recall the calibration aims at, default 0.95.
    sample : int
        Documents the calibration samples, default 1000.
    keep : {"first", "longest"}
        The order documents are visited in to choose which to keep: input order, or most
        characters first (ties in input order). ``priority`` overrides it.
    priority : array of shape (n,), float, optional
        Keep documents with a higher priority first (ties in input order).
    linkage : {"complete", "star"}
        "complete" (the default): every two members of a cluster are a verified pair (with
        ``jaccard``: within ``k`` and Jaccard >= ``jaccard``; without: within ``k``), so no cluster
        holds a pair below the threshold. "star": only each dropped document and its kept one are
        (two dropped members of one star can be less alike: down to ``2 jaccard - 1``); it drops a
        few more documents.
    seed : int
        The calibration's sample.
    max_tables : int, optional
        The most tables the index may build, 1 to 4096 (memory: 12 bytes per document per table).
    memory_budget : int, optional
        Bytes the index's tables may use (:class:`~simhash_lab.SimhashIndex`; default a quarter of
        the machine's memory): fewer tables, slower candidates, when it is small.
    progress : {"never", "auto", "always"}
        tqdm bars on stderr for fingerprinting, calibrating, indexing and verifying ("auto": when
        stderr is a terminal and a step takes over a second).
"""


def dedup_texts(
    texts: Sequence[str],
    *,
    jaccard: float | None = None,
    k: int | None = None,
    hasher=None,
    shingle: int = 3,
    recall: float = 0.95,
    sample: int = 1000,
    keep: str = "first",
    priority=None,
    linkage: str = "complete",
    ids: Sequence | None = None,
    seed: int = 0,
    max_tables: int | None = None,
    memory_budget: int | None = None,
    progress: str = "never",
) -> DedupResult:
    """Near-duplicates of a list of texts: which to keep, and why each other one is dropped.

    Parameters
    ----------
    texts : sequence of str
    ids : sequence, optional
        One id per text for the duplicates table (default: positions).
    """
    check_option("progress", progress, ["auto", "always", "never"])
    hasher, jaccard, shingle, linkage, k = _resolve(hasher, jaccard, shingle, keep, priority, linkage, k)
    _check_index_options(max_tables, memory_budget)
    source = TextsSource(texts, ids)
    pr = _check_priority(priority, len(source.texts))
    res = _run(
        source, hasher=hasher, k=k, jaccard=jaccard, shingle=shingle, recall=recall, sample=sample,
        keep=keep, priority=pr, linkage=linkage, seed=seed, max_tables=max_tables, progress=progress,
        memory_budget=memory_budget,
    )  # fmt: skip
    res.format = "texts"
    res.preset = hasher.name or repr(hasher)
    return res


dedup_texts.__doc__ += (
    _DOC_PARAMS
    + """
    Returns
    -------
    DedupResult
        ``keep`` (bool per text) and ``duplicates`` (the table), with the calibration and the pairs.
"""
)


def _check_priority(priority, n: int):
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
    path: str | os.PathLike,
    column: str = "text",
    *,
    id_column: str | None = None,
    priority_column: str | None = None,
    format: str | None = None,
    output: str | os.PathLike | None = None,
    duplicates: str | os.PathLike | None = None,
    jaccard: float | None = None,
    k: int | None = None,
    hasher=None,
    shingle: int = 3,
    recall: float = 0.95,
    sample: int = 1000,
    keep: str = "first",
    linkage: str = "complete",
    seed: int = 0,
    max_tables: int | None = None,
    memory_budget: int | None = None,
    progress: str = "never",
) -> DedupResult:
    """Deduplicate a dataset file (JSONL, CSV or Parquet), in bounded memory.

    The file is read in chunks of 8192 rows (:mod:`simhash_lab.datasets`): once to fingerprint,
    again for the rows whose text is needed (the calibration sample, the candidate pairs), and once
    more to write ``output``: the kept rows, unchanged and in input order, in the input's format.
    ``duplicates`` gets the duplicates table (CSV, JSONL or Parquet by its name; columns
    ``dropped_id, kept_id, distance, similarity, dropped_row, kept_row``).

    Parameters
    ----------
    path : str or path
    column : str
        The column holding the text (every value must be a string).
    id_column : str, optional
        The column of ids for the duplicates table (default: row numbers from 0).
    priority_column : str, optional
        A numeric column: rows with a higher value are kept first.
    format : {"jsonl", "csv", "parquet"}, optional
        Default: from the file name.
    output, duplicates : str or path, optional
        Where to write the kept rows and the duplicates table.

    Raises
    ------
    DatasetError
        A ValueError whose message is one line naming the file and the problem (a missing column,
        a value that is not text, a corrupt or empty file, an output named for another format).
    """
    check_option("progress", progress, ["auto", "always", "never"])
    hasher, jaccard, shingle, linkage, k = _resolve(hasher, jaccard, shingle, keep, None, linkage, k)
    _check_index_options(max_tables, memory_budget)
    source = open_dataset(os.fspath(path), column, id_column, format, priority_column)
    for out in (output, duplicates):
        if out is not None:
            if os.fspath(out) == source.path or (os.path.exists(out) and os.path.samefile(out, source.path)):
                raise DatasetError(
                    f"{_files.show_name(os.fspath(out))}: the output would overwrite the input"
                )
    if output is not None:
        source.check_output(os.fspath(output))
    res = _run(
        source, hasher=hasher, k=k, jaccard=jaccard, shingle=shingle, recall=recall, sample=sample,
        keep=keep, priority=None, linkage=linkage, seed=seed, max_tables=max_tables, progress=progress,
        memory_budget=memory_budget,
    )  # fmt: skip
    res.preset = hasher.name or repr(hasher)
    if not res.ids:
        raise DatasetError(f"{source.name}: empty: no rows")
    import time

    t0 = time.perf_counter()
    if output is not None:
        bars = _Bars(progress)
        bar = bars.start("writing", len(res.ids))
        try:
            res.written = source.write_kept(
                os.fspath(output), res.keep, bar.update if bar is not None else None
            )
        finally:
            bars.close()
    if duplicates is not None:
        write_duplicates(os.fspath(duplicates), res.duplicates)
    res.timings["write"] = time.perf_counter() - t0
    return res


_PRIORITY_DOC = (
    "    priority : array of shape (n,), float, optional\n"
    "        Keep documents with a higher priority first (ties in input order).\n"
)
dedup_table.__doc__ += _DOC_PARAMS.replace(_PRIORITY_DOC, "")


# -- text files under folders ------------------------------------------------------------------


def iter_files(
    paths: Iterable[str], hidden: bool = False, errors: list | None = None, skipped: list | None = None
) -> Iterator[str]:
    """Regular files under ``paths``, each once (by real path), folders walked in sorted order.

    The walk is :func:`simhash_lab._files.walk`. What is not a regular file is appended, as
    ``(path, reason)``, to ``errors`` when it was named in ``paths`` or the system refused it
    (missing, permission denied, a folder that cannot be listed), and to ``skipped`` when it was
    found inside a folder (a FIFO, socket or device, a link to one, a broken link, a link to a
    folder, which is not followed).
    """
    seen: set[str] = set()
    for entry in walk(paths, hidden=hidden):
        if entry.kind != "file":
            into = errors if entry.named or entry.kind == "unreadable" else skipped
            if into is not None:
                into.append((entry.path, entry.problem))
            continue
        real = os.path.realpath(entry.path)
        if real not in seen:
            seen.add(real)
            yield entry.path


def read_text(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text of ``path`` as every simhash-lab command reads it: :func:`simhash_lab._files.read_text`
    (a regular file, never blocking, at most ``max_bytes``, UTF-8 with a leading BOM dropped).

    Raises
    ------
    NotText, TooLarge
        Binary (a NUL byte in the first 8 KiB), not UTF-8, or larger than ``max_bytes``: skipped.
    NotRegularFile
        It stopped being a regular file since the walk.
    OSError
        The file could not be read.
    """
    return _files.read_text(path, max_bytes, limit_name="--max-bytes")


class _FilesSource(Source):
    """The text files under folders: a document per file that reads as text (others reported)."""

    format = "files"
    name = "files"

    def __init__(self, files: list[str], res: DedupResult, max_bytes: int, say) -> None:
        self.files = files
        self.res = res
        self.max_bytes = max_bytes
        self.say = say
        self.total = len(files)

    def chunks(self, rows):
        texts, ids = [], []
        for path in self.files:
            try:
                text = read_text(path, self.max_bytes)
            except Skip as e:
                self.res.skipped.append((path, reason(e)))
                self.say(path, reason(e))
                continue
            except (OSError, NotRegularFile) as e:
                self.res.errors.append((path, reason(e)))
                self.say(path, reason(e))
                continue
            texts.append(text)
            ids.append(path)
            if len(texts) >= min(rows, _BATCH):
                yield texts, ids, None
                texts, ids = [], []
        if texts:
            yield texts, ids, None

    def select(self, rows, chunk):
        for s in range(0, rows.size, min(chunk, _BATCH)):
            r = rows[s : s + min(chunk, _BATCH)]
            texts = []
            for i in r.tolist():
                path = self.res.ids[i]
                try:
                    texts.append(read_text(path, self.max_bytes))
                except (OSError, _files.Refused) as e:
                    raise DatasetError(
                        f"{_files.show_name(path)}: could not be read again: {reason(e)}"
                    ) from None
            yield r, texts


def dedup(
    paths: Sequence[str],
    k: int | None = None,
    preset: str | None = None,
    hidden: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: str = "never",
    report=None,
    *,
    jaccard: float | None = None,
    hasher=None,
    shingle: int = 3,
    recall: float = 0.95,
    sample: int = 1000,
    keep: str = "first",
    linkage: str = "complete",
    seed: int = 0,
    max_tables: int | None = None,
    memory_budget: int | None = None,
) -> DedupResult:
    """Near-duplicate text files under ``paths``: each file that reads as text is a document, its
    path its id.

    Parameters
    ----------
    preset : str, optional
        A preset name for the hasher ("default", "seed_python", "seed_rust", "leonsim"); or give
        ``hasher``.
    progress : {"auto", "always", "never"}
        A tqdm bar on stderr: "auto" shows it when stderr is a terminal, after one second.
    report : callable, optional
        Called as ``report(path, reason)`` for each file skipped or failing, as it happens.

    Returns
    -------
    DedupResult
        With ``skipped`` and ``errors`` (see :func:`iter_files`); whitespace-only files are
        featureless (``empty``). Exit status: 2 when something could not be read, else 1 when
        something was dropped, else 0.
    """
    check_option("progress", progress, ["auto", "always", "never"])
    check_int("max_bytes", max_bytes, 0, 1 << 62)
    if preset is not None and hasher is not None:
        raise ValueError("give preset or hasher, not both")
    hasher, jaccard, shingle, linkage, k = _resolve(
        preset if preset is not None else hasher, jaccard, shingle, keep, None, linkage, k
    )
    _check_index_options(max_tables, memory_budget)
    res = DedupResult(k=-1, bits=hasher.bits, preset=preset or hasher.name or repr(hasher), format="files")
    report = report or (lambda path, reason: None)
    files = list(iter_files(paths, hidden=hidden, errors=res.errors, skipped=res.skipped))
    for p, r in res.errors + res.skipped:
        report(p, r)
    bars = _Bars(progress)

    def say(path, why):
        bar = bars.current
        if bar is None:
            report(path, why)
        else:
            with bar.external_write_mode(file=sys.stderr):
                report(path, why)

    source = _FilesSource(files, res, max_bytes, say)
    return _run(
        source, hasher=hasher, k=k, jaccard=jaccard, shingle=shingle, recall=recall, sample=sample,
        keep=keep, priority=None, linkage=linkage, seed=seed, max_tables=max_tables, progress=progress,
        memory_budget=memory_budget, result=res,
    )  # fmt: skip
