"""Near-duplicate removal you can act on: Simhash candidates, exact Jaccard verification, a
keep/drop policy that never chains.

:func:`dedup_texts` (a list of str), :func:`dedup_table` (a JSONL, CSV or Parquet file read in
chunks, stdin, or a table in memory: :mod:`simhash_lab.datasets`) and :func:`dedup_files` (the text
files under folders) take one settings object (:class:`~simhash_lab.settings.DedupSettings`, or
its fields as keywords), run the same named steps (each timed in ``res.timings``, each with its
progress bar) and return a :class:`DedupResult`:

1. **read** the rows; 2. **normalise** each text (NFKC, format characters such as U+200B dropped:
   :func:`simhash_lab._unicode.normalise`);
3. **exact groups**: identical normalised texts grouped by a sort of their 128-bit digests; one
   representative of each (the first in visiting order) goes on, the others are dropped for it
   (or for what it is dropped for): the same decisions as the search over every row;
4. **fingerprint** every document from its shingles (:class:`~simhash_lab.shingles.Featurizer`):
   word ``shingle``-grams, or character ``char_ngram``-grams for a text mostly in a script
   without word spaces, each distinct shingle voting once (binary weights), 64 bits. Documents
   without a single shingle (empty, whitespace or punctuation only) are *featureless*: never
   compared, kept;
5. **calibrate** k (unless given): :func:`calibrate` measures, on a random sample of the
   representatives, the Hamming distances of real near-duplicate pairs and takes the smallest
   ``k`` that finds the ``recall`` asked for (default 0.99) of them; with too few such pairs,
   pairs made by random word (or character) replacements down to the threshold stand in;
6. **candidates**: the pairs of representatives whose shingle sets agree on a MinHash band
   (``candidates="bands"``; the default, ``"auto"``, when ``k`` is calibrated), or every pair of
   representatives within ``k`` bits (``candidates="index"``; ``"auto"`` with ``k`` given;
   :func:`candidates`, one call: :meth:`SimhashIndex.pairs`); the bands
   (:class:`~simhash_lab.candidates.BandKeys`: keys made chunk by chunk as the rows are
   fingerprinted, the bands chosen to find a pair at the threshold with probability ``recall``;
   time that follows the rows and the pairs, not k). Bands need k calibrated: with ``k`` given (or
   ``unverified``) they are refused (:class:`~simhash_lab.settings.DedupSettings`);
7. **verify** each candidate: exact Jaccard similarity of the two documents' shingle sets (the
   same shingles the fingerprints were made from; sorted 64-bit hashes merged in Numba,
   :mod:`simhash_lab.kernels.verify`); pairs below the threshold are dropped. The raw Hamming mode
   of the first versions (every candidate stands) runs only when asked for by name:
   ``unverified=True`` with ``k``;
8. **cluster** (keep / drop): documents are visited in a stated order (``keep="first"``: input
   order; ``"longest"``: most characters first; or a ``priority`` per document, highest first); a
   document not dropped yet is kept and drops each verified neighbour not decided yet that is
   also a verified neighbour of every document dropped for it so far (``linkage="complete"``, the
   default). So every dropped document is verified-near the kept one it is dropped for (its
   representative), nothing chains, and every two members of a cluster are a verified pair: no
   cluster holds a pair below the threshold. A neighbour that cannot join stays undecided, to be
   kept or dropped for a later one. ``linkage="star"`` asks only the first of these (each dropped
   document near its kept one; two dropped members of one star can be less alike);
9. **write** the outputs (:func:`dedup_table`), through :mod:`simhash_lab._write`.

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

import collections
import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _files
from ._files import DEFAULT_MAX_BYTES, NotRegularFile, NotText, TooLarge, json_name, reason, walk
from ._i18n import _
from ._threads import one_thread, run_items, short_switches, small_pages, thread_count
from ._validate import check_int
from .calibration import Calibration, calibrate
from .candidates import BandKeys
from .datasets import (
    DatasetError,
    Source,
    StdinSource,
    TextsSource,
    check_duplicates_name,
    duplicates_arrow,
    json_value,
    open_dataset,
    prefetch,
    write_duplicates,
)
from .settings import DedupSettings
from .shingles import CHUNK_ROWS, ChunkSets, Featurizer, Shingler, gather_sets, recommended_hasher

__all__ = [
    "Calibration",
    "DedupSettings",
    "DedupResult",
    "Duplicates",
    "Shingler",
    "calibrate",
    "dedup",
    "dedup_files",
    "dedup_table",
    "dedup_texts",
    "iter_files",
    "read_text",
    "recommended_hasher",
]

_BATCH = 256  # files per fingerprint batch
EXIT_NONE, EXIT_FOUND, EXIT_TROUBLE = 0, 1, 2
KEEP_ORDERS = ("first", "longest")
LINKAGES = ("star", "complete")
SETS_BUDGET = 1 << 30  # bytes of shingle sets kept from the first read (else read again); past
# shingles.ChunkSets.MEMORY they are kept in a temporary file, not in memory

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
        """``(dropped_id, kept_id, distance, similarity)`` for each row.

        Returns
        -------
        list of tuple
        """
        return list(zip(self.dropped_id, self.kept_id, self.distance.tolist(), self.similarity.tolist()))

    def to_dict(self) -> dict:
        """Columns as lists (the ``dups.csv`` columns).

        Returns
        -------
        dict
        """
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
        Each document's id (file paths for :func:`dedup_files`), in input order: row ``i`` is ``ids[i]``.
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
        cluster, kept; reported apart (``to_json()``: ``"featureless"``, their ids;
        :attr:`featureless_ids`).
    pairs : ndarray, shape (m, 3), int64
        The candidate pairs ``(i, j, d)`` (rows, ``i < j``; ``d`` their Hamming distance) within
        ``k``, or of the MinHash bands (``settings["candidates"]`` says which), before verification:
        pairs of exact-group representatives (:meth:`verified_pairs` gives every near-duplicate pair).
    similarity : ndarray, shape (m,), float64
        Their Jaccard similarity (NaN without a threshold).
    k, bits : int
    jaccard : float or None
        The threshold (None: Hamming-only).
    calibration : Calibration or None
    settings : dict
        Tokenizer, weights, hash, shingle size, keep order, linkage; ``"candidates"``: how the
        candidates were found (``{"method": "index", "k": k}``, or ``{"method": "minhash bands",
        "bands": b, "rows": r, "at_threshold": P(a pair at the threshold is found)}``).
    skipped, errors : list of (path, reason)
        :func:`dedup_files` only: files not used, and files or paths that could not be read.
    timings : dict
        Seconds spent in each step: read, normalise, exact groups, fingerprint, calibrate,
        candidates, verify, cluster, write (with threads, a step that several threads work at
        adds up their times: it can exceed the run's).
    exact, exact_groups : int
        Rows dropped as exact copies (identical normalised text) of another, and their groups.
    representative : ndarray, shape (n,), int64
        Each row's exact group's representative (the row itself for most): only representatives
        are candidates, so ``pairs`` holds pairs of representatives; :meth:`verified_pairs` gives
        every near-duplicate pair, the exact copies' included.
    by_chars : int
        Rows shingled by characters (text in a script without word spaces).
    options : DedupSettings
        The settings of the run.
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
    exact: int = 0
    exact_groups: int = 0
    by_chars: int = 0
    options: Any = None
    representative: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @property
    def paths(self) -> list:
        """The files fingerprinted (:func:`dedup_files`): the ids."""
        return self.ids

    @property
    def featureless_ids(self) -> list:
        """Ids of the featureless documents (file paths for :func:`dedup_files`)."""
        return [self.ids[i] for i in self.featureless.tolist()]

    @property
    def empty(self) -> list:
        """Deprecated name of :attr:`featureless_ids`."""
        _deprecated("DedupResult.empty", "DedupResult.featureless_ids")
        return self.featureless_ids

    @property
    def verified(self) -> int:
        """Candidate pairs that passed verification (all of them without a threshold)."""
        if self.jaccard is None:
            return int(self.pairs.shape[0])
        return int(np.count_nonzero(self.similarity >= self.jaccard))

    def verified_pairs(self, limit: int = 50_000_000) -> np.ndarray:
        """Every near-duplicate pair ``(i, j, d)`` (int64 (m, 3), ``i < j``, sorted): the verified
        candidate pairs of representatives, each for every two members of their exact groups, and
        every two members of one exact group (distance 0). Raises ValueError past ``limit`` pairs
        (100,000 identical rows make 5·10⁹).

        Parameters
        ----------
        limit : int
            The most pairs to make.

        Returns
        -------
        ndarray of shape (m, 3), int64
        """
        ok = self.pairs[self.similarity >= self.jaccard] if self.jaccard is not None else self.pairs
        n = len(self.ids)
        rep = self.representative if self.representative.size == n else np.arange(n)
        order = np.argsort(rep, kind="stable")
        cuts = np.flatnonzero(np.diff(rep[order])) + 1
        members = {int(g[0] if rep[g[0]] == g[0] else rep[g[0]]): g for g in np.split(order, cuts)}
        sizes = {r: g.size for r, g in members.items()}
        total = sum(sizes.get(int(a), 1) * sizes.get(int(b), 1) for a, b, _ in ok.tolist())
        total += sum(m * (m - 1) // 2 for m in sizes.values())
        if total > limit:
            raise ValueError(f"{total:,} near-duplicate pairs, more than limit ({limit:,})")
        out = []
        for a, b, d in ok.tolist():
            ga, gb = members.get(a, np.array([a])), members.get(b, np.array([b]))
            x, y = np.repeat(ga, gb.size), np.tile(gb, ga.size)
            out.append(np.stack([np.minimum(x, y), np.maximum(x, y), np.full(x.size, d)], axis=1))
        for g in members.values():
            if g.size > 1:
                i, j = np.triu_indices(g.size, 1)
                x, y = g[i], g[j]
                out.append(np.stack([np.minimum(x, y), np.maximum(x, y), np.zeros(x.size, np.int64)], axis=1))
        if not out:
            return np.empty((0, 3), np.int64)
        p = np.concatenate(out).astype(np.int64)
        return p[np.lexsort((p[:, 1], p[:, 0]))]

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
        """The command's exit status: 2 when something could not be read, else 1 when something
        was dropped, else 0."""
        if self.errors:
            return EXIT_TROUBLE
        return EXIT_FOUND if len(self.duplicates) else EXIT_NONE

    def group_members(self, g: Sequence[int]) -> list[tuple[Any, int, int, float]]:
        """``(id, fingerprint, distance to the kept one, similarity to it)`` for each member (the kept
        one first, at distance 0 and similarity 1).

        Parameters
        ----------
        g : sequence of int
            A group's rows, the kept one first (:attr:`groups`).

        Returns
        -------
        list of (id, int, int, float)
        """
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

    @property
    def found_by(self) -> str:
        """How the candidates were found, for the summary: ``"within k = 3"``, or ``"by MinHash
        bands (10 of 6 rows; calibrated k = 11)"``."""
        c = self.settings.get("candidates") or {}
        if c.get("method") == "minhash bands":
            return _("by MinHash bands ({bands} of {rows} rows; calibrated k = {k})").format(
                bands=c["bands"], rows=c["rows"], k=self.k
            )
        return _("within k = {k}").format(k=self.k)

    def summary(self) -> str:
        """One line: rows, dropped, groups, how the candidates were found and verified.

        Returns
        -------
        str
        """
        files = self.format == "files"
        mode = (
            _("verified at Jaccard >= {jaccard:g} ({verified} of {candidates} candidate pairs)").format(
                jaccard=self.jaccard, verified=self.verified, candidates=self.pairs.shape[0]
            )
            if self.jaccard is not None
            else _("{pairs} pairs, unverified (the raw Hamming mode)").format(pairs=self.pairs.shape[0])
        )
        n_groups = len(set(self.duplicates.kept.tolist()))
        return (
            _(
                "{n} files, {dropped} dropped in {groups} group(s) ({exact} exact copies) {found_by}, "
                "{mode}; {featureless} featureless"
            )
            if files
            else _(
                "{n} rows, {dropped} dropped in {groups} group(s) ({exact} exact copies) {found_by}, "
                "{mode}; {featureless} featureless"
            )
        ).format(
            n=len(self.ids),
            dropped=len(self.duplicates),
            groups=n_groups,
            exact=self.exact,
            found_by=self.found_by,
            mode=mode,
            featureless=self.featureless.size,
        ) + self.chars_note()

    def chars_note(self) -> str:
        """What the summary says about text shingled by characters (empty when none was).

        Returns
        -------
        str
        """
        if not self.by_chars:
            return ""
        n = self.options.char_ngram if self.options is not None else 3
        return (
            _(
                "; {count} files in a script without word spaces (Chinese, Japanese, Thai...) "
                "shingled by characters ({n}-grams)"
            )
            if self.format == "files"
            else _(
                "; {count} rows in a script without word spaces (Chinese, Japanese, Thai...) "
                "shingled by characters ({n}-grams)"
            )
        ).format(count=self.by_chars, n=n)

    def to_json(self) -> dict:
        """The run as JSON-able data: what ``simhash-lab dedup --json`` prints.

        Returns
        -------
        dict
        """
        width = (self.bits + 3) // 4
        key = "path" if self.format == "files" else "id"

        def show(v: Any) -> Any:
            return json_name(v) if self.format == "files" else json_value(v)

        doc = {
            "k": self.k,
            "bits": self.bits,
            "preset": self.preset,
            "jaccard": self.jaccard,
            "settings": self.settings,
            "calibration": None if self.calibration is None else self.calibration.to_json(),
            # files: those fingerprinted, as before (featureless ones are listed apart)
            **(
                {"files": len(self.ids) - self.featureless.size}
                if self.format == "files"
                else {"rows": len(self.ids)}
            ),
            "exact_copies": self.exact,
            "by_characters": self.by_chars,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
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
            doc["featureless"] = [json_name(p) for p in self.featureless_ids]
        else:
            doc["featureless"] = [json_value(v) for v in self.featureless_ids]
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


def _hasher_settings(hasher: Any) -> dict:
    tok = hasher.tokenizer
    return {
        "tokenizer": getattr(tok, "name", getattr(tok, "__name__", "custom")),
        "weights": hasher.weights if isinstance(hasher.weights, str) else "mapping",
        "hash": hasher.hash if isinstance(hasher.hash, str) else "custom",
        "bits": hasher.bits,
    }


def no_features(hasher: Any, text: str) -> bool:
    try:
        return len(hasher.features(text)) == 0
    except (TypeError, ValueError):
        return False


def keep_drop(order: np.ndarray, u: np.ndarray, v: np.ndarray, edges: np.ndarray, complete: bool):
    """The greedy keep/drop pass over verified pairs (``kernels.verify.greedy_clusters``).

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
    V.greedy_clusters(
        order, adj_ptr, np.ascontiguousarray(dst), np.ascontiguousarray(eid, np.int64), complete,
        state, rep, via,
    )  # fmt: skip
    return state, rep, via


def check_text_chunk(call: Any, texts: list, start: int, where: str):
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


class _Steps:
    """The run's named steps: each timed (``res.timings``, seconds) and given its tqdm bar."""

    NAMES = (
        "read", "normalise", "exact groups", "fingerprint", "calibrate", "candidates", "verify",
        "cluster", "write",
    )  # fmt: skip

    def __init__(self, mode: str, timings: dict) -> None:
        self.bars = _Bars(mode)
        self.timings = timings
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def time(self, name: str):
        """Add the time spent within to step ``name`` (from any thread: threads that share a
        step add their times)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            dt = time.perf_counter() - t0
            with self._lock:
                self.timings[name] = self.timings.get(name, 0.0) + dt

    def in_order(self) -> None:
        """Put the timings in the steps' order (threads may have begun them in another)."""
        rank = {name: i for i, name in enumerate(self.NAMES)}
        got = sorted(self.timings.items(), key=lambda kv: rank.get(kv[0], len(rank)))
        self.timings.clear()
        self.timings.update(got)

    @contextlib.contextmanager
    def step(self, name: str, total: int | None = None, unit: str = "row"):
        """Time ``name`` and show its bar (yielded: ``bar.update(n)`` or None)."""
        bar = self.bars.start(name, total, unit)
        try:
            with self.time(name):
                yield bar
        finally:
            self.bars.close()


def text_digests(texts: list, threads: bool = True) -> np.ndarray:
    """(n, 2) uint64: a 128-bit digest of each (normalised) text, the same in every process (of
    one byte order: the code units are hashed as they lie in memory).

    CPython keeps a str as one array of code units of the narrowest width its characters need
    (PEP 393), so two strings are equal exactly when their widths and units are: the digest is
    XXH3-64 and XXH64 (seeded with the width) of the units, read in place by Numba
    (:func:`~simhash_lab.kernels.strings.str_views`), no UTF-8 copy. Two different texts share
    both halves with probability about 2**-128 a pair; the digests are not a defence against texts
    made to collide. ``threads``: on the package's threads (for 4096 texts or more)."""
    from .kernels.dedup_steps import str_digests
    from .kernels.strings import str_views

    if set(map(type, texts)) - {str}:  # str_views reads exact str objects: a subclass's text copied
        texts = [t if type(t) is str else str.__str__(t) for t in texts]
    n = len(texts)
    out = np.empty((n, 2), np.uint64)
    if n:
        ptrs, lens, kinds = str_views(texts)

        def run(lo: int, hi: int) -> None:
            str_digests(ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], out[lo:hi])

        run_items(n, run, threads and n >= 4096)
    return out


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


def exact_groups(digests: np.ndarray, rank: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The representative of each of ``rows`` (int64, same shape): the first in visiting order
    (``rank``) of the rows whose texts have its digest. One sort of 64-bit keys: the digest's
    high bits, the row's place in the visiting order in the low bits."""
    from .kernels.dedup_steps import first_of_runs

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


def candidates(
    fps: np.ndarray, rows: np.ndarray, k: int, bits: int, s: DedupSettings, bar: Any = None
) -> np.ndarray:
    """The candidate pairs ``(i, j, d)`` (int64 (m, 3), ``i < j`` rows) of the fingerprints of
    ``rows`` within ``k`` bits: the candidates step, one call (:meth:`SimhashIndex.pairs`);
    ``bar`` (a tqdm bar, optional) counts its tables done of their total."""
    from .index import SimhashIndex

    index = SimhashIndex(k=k, bits=bits, max_tables=s.max_tables, memory_budget=s.memory_budget)
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


_VERIFY_BLOCK = 1 << 20  # pairs per Jaccard call (the bar moves between them)


def _sharing() -> contextlib.AbstractContextManager:
    """With threads, the GIL handed over sooner (:func:`~simhash_lab._threads.short_switches`)
    while a run's threads share it: the reading thread and the chunk threads, the calibration
    beside the candidates, the duplicates table written beside the kept rows (whose copy takes the
    GIL back after each run of rows)."""
    return short_switches() if thread_count() > 1 else contextlib.nullcontext()


def _run(
    source: Source, s: DedupSettings, *, priority: Any = None, result: DedupResult | None = None
) -> DedupResult:
    with _sharing(), small_pages():
        return _run_steps(source, s, priority=priority, result=result)


def _run_steps(source: Source, s: DedupSettings, *, priority: Any, result: DedupResult | None) -> DedupResult:
    feat = Featurizer(s)
    verified = not s.unverified
    res = result or DedupResult(k=-1, bits=feat.bits, format=source.format)
    res.bits = feat.bits
    res.jaccard = s.jaccard if verified else None
    steps = _Steps(s.progress, res.timings)
    unit = "file" if source.format == "files" else "row"
    fps_parts, dig_parts, lengths, prios, chars_parts = [], [], [], [], []
    featureless: list[int] = []
    kept_sets = ChunkSets() if verified and feat.features != "hasher" else None
    # candidates="bands": each row's MinHash band keys, made chunk by chunk from its shingle set
    band_keys = BandKeys(s.jaccard, s.recall) if s.candidates_method == "bands" else None
    total, bar_unit = source.size_hint()
    bar = steps.bars.start("read", total, bar_unit or unit)
    # with threads, a file's chunks are read by a thread of its own (the reading holds the GIL)
    # and each chunk is normalised, digested, fingerprinted and given its band keys whole by one
    # of ``workers`` threads, its kernels on that thread alone (they release the GIL): no
    # hand-off inside a chunk, no thread waiting for another's half; this thread takes the
    # chunks' results in order and keeps their sets
    workers = thread_count() if source.format in ("jsonl", "csv", "parquet") else 1
    pool = ThreadPoolExecutor(workers, "simhash-lab-rows") if workers > 1 else None
    sets_bytes = 0

    def featurize(texts: list, start: int) -> tuple:
        with steps.time("normalise"):
            norm = check_text_chunk(feat.normalise, texts, start, source.name)
        dig = None
        if s.exact:
            with steps.time("exact groups"):
                dig = text_digests(norm)
        with steps.time("fingerprint"):
            f, chars, ind, dat = check_text_chunk(feat.fingerprints_sets, norm, start, source.name)
            if ind is not None:
                empty = (np.flatnonzero(np.diff(ind) == 0) + start).tolist()
            else:
                none = np.flatnonzero(f == 0).tolist()
                empty = [start + i for i in none if no_features(feat.hasher, norm[i])]
        keys = None
        if band_keys is not None:  # the keys' share of the candidates step, made here
            with steps.time("candidates"):
                if ind is None:  # a hasher of one's own: its sets, as verified
                    kind, kdat = check_text_chunk(feat.sets_of, norm, start, source.name)[1:]
                else:
                    kind, kdat = ind, dat
                keys = band_keys.make(kind, kdat)
        return f, chars, ind, dat, dig, empty, keys

    def on_thread(texts: list, start: int) -> tuple:
        with one_thread():
            return featurize(texts, start)

    def take(texts: list, ids: list, prio: Any, got: tuple) -> None:
        """One chunk's results, in the rows' order."""
        nonlocal kept_sets, sets_bytes
        f, chars, ind, dat, dig, empty, keys = got
        if dig is not None:
            dig_parts.append(dig)
        featureless.extend(empty)
        if ind is not None and kept_sets is not None:
            with steps.time("fingerprint"):
                sets_bytes += int(ind.nbytes + dat.nbytes)
                if sets_bytes > SETS_BUDGET or kept_sets.nbytes > SETS_BUDGET:
                    kept_sets = None  # too many to keep: read again those needed
                else:
                    kept_sets.add(ind, dat)
        if keys is not None:
            band_keys.extend(keys)
        fps_parts.append(f)
        chars_parts.append(chars)
        res.ids.extend(ids)
        if s.keep == "longest":
            lengths.append(np.fromiter(map(len, texts), np.int64, len(texts)))
        if prio is not None:
            prios.append(np.array(prio, np.float64))
        if bar is not None:
            bar.update(source.progress_step(len(texts)))

    pending: collections.deque = collections.deque()  # (texts, ids, prio, future), in order

    def drain(leave: int) -> None:
        """Take the pending chunks' results, in order, until ``leave`` are left."""
        while len(pending) > leave:
            t, i, p, job = pending.popleft()
            take(t, i, p, job.result())

    try:
        chunks = iter(source.chunks(CHUNK_ROWS))
        if pool is not None:
            chunks = prefetch(chunks)
        start = 0
        while True:
            try:
                with steps.time("read"):
                    chunk = next(chunks, None)
            except Exception:
                drain(0)  # a bad row in a chunk before this one is the one reported
                raise
            if chunk is None:
                break
            texts, ids, prio = chunk
            if pool is None:
                take(texts, ids, prio, featurize(texts, start))
            else:
                pending.append((texts, ids, prio, pool.submit(on_thread, texts, start)))
                drain(workers)  # one chunk waits for each thread that comes free
            start += len(texts)
        drain(0)
        if kept_sets is not None and kept_sets.nbytes > SETS_BUDGET:
            kept_sets = None  # a spill file that could not be written: read again those needed
    finally:
        steps.bars.close()
        if pool is not None:
            for *_, job in pending:
                job.cancel()
            pool.shutdown(wait=True)
    n = len(res.ids)
    fps = np.concatenate(fps_parts) if fps_parts else np.empty(0, np.uint64)
    res.fingerprints = fps
    res.by_chars = int(np.concatenate(chars_parts).sum()) if chars_parts else 0
    valid = np.ones(n, np.bool_)
    valid[featureless] = False
    res.featureless = np.unique(np.array(featureless, np.int64))
    pr = np.concatenate(prios) if prios else priority
    # the visiting order: rank[i] is row i's place
    if pr is not None:
        order = np.lexsort((np.arange(n), -pr))
    elif s.keep == "longest":
        order = np.lexsort((np.arange(n), -np.concatenate(lengths))) if lengths else np.arange(n)
    else:
        order = np.arange(n)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    # exact groups: one representative each goes on
    with steps.time("exact groups"):
        rows = np.flatnonzero(valid)
        rep = exact_groups(np.concatenate(dig_parts), rank, rows) if s.exact and n else rows
        copies = rows[rep != rows]
        copy_of = rep[rep != rows]
        search = valid.copy()
        search[copies] = False
        res.exact = int(copies.size)
        res.exact_groups = int(distinct_rows(n, copy_of).size)
        res.representative = np.arange(n, dtype=np.int64)
        res.representative[copies] = copy_of
    # k
    k = s.k
    beside = None  # the calibration on a thread of its own, while the bands find the candidates

    def calibration(bar: Any) -> Calibration:
        return calibrate(
            source, fps, s.jaccard, recall=s.recall, sample=s.sample, seed=s.seed, valid=search,
            bar=bar, sets=kept_sets, featurizer=feat,
        )  # fmt: skip

    def calibration_beside() -> Calibration:
        with one_thread(), steps.time("calibrate"):
            return calibration(None)

    if k is None:
        # the bands do not need k (it is reported): with threads and the sets at hand (nothing
        # read again), the calibration runs beside the candidates and the verification, unless
        # progress bars are shown (one step's bar at a time: then it runs before them)
        if band_keys is not None and kept_sets is not None and thread_count() > 1 and not steps.bars.on:
            beside = ThreadPoolExecutor(1, "simhash-lab-calibrate")
            cal = beside.submit(calibration_beside)
        else:
            with steps.step("calibrate") as bar:
                res.calibration = calibration(bar)
            k = res.calibration.k
    else:
        from ._validate import check_k

        k = check_k(k, feat.bits)
    try:
        # candidates: of the representatives only (``search``)
        with steps.step("candidates", None, unit="band" if band_keys is not None else "table") as bar:
            if band_keys is not None:
                pairs = band_keys.pairs(search, fps, bar=bar)
            else:
                pairs = candidates(fps, np.flatnonzero(search), k, feat.bits, s, bar)
        res.pairs = pairs
        # verify
        if verified and pairs.shape[0]:
            need = distinct_rows(n, pairs[:, 0], pairs[:, 1])
            with steps.step("verify", int(need.size) + int(pairs.shape[0])) as bar:
                store = gather_sets(source, need, feat, bar, kept_sets)
                if bar is not None and kept_sets is not None:  # the sets were in memory
                    bar.update(int(need.size))
                la, lb = store.local(pairs[:, 0]), store.local(pairs[:, 1])
                sim = np.empty(pairs.shape[0], np.float64)
                for lo in range(0, pairs.shape[0], _VERIFY_BLOCK):
                    hi = min(lo + _VERIFY_BLOCK, pairs.shape[0])
                    sim[lo:hi] = Shingler.jaccard(store.indptr, store.data, la[lo:hi], lb[lo:hi])
                    if bar is not None:
                        bar.update(hi - lo)
                del store
            res.similarity = sim
            ok = sim >= s.jaccard
        else:
            res.similarity = np.full(pairs.shape[0], np.nan)
            ok = np.ones(pairs.shape[0], np.bool_)
        if beside is not None:
            res.calibration = cal.result()
            k = res.calibration.k
    finally:
        if beside is not None:
            beside.shutdown(wait=True)
    res.k = k
    # keep / drop
    with steps.step("cluster"):
        res.keep = np.ones(n, np.bool_)
        edges = np.flatnonzero(ok)
        nodes = distinct_rows(n, pairs[edges, 0], pairs[edges, 1])
        d_rows = k_rows = np.empty(0, np.int64)
        dist = np.empty(0, np.int64)
        dsim = np.empty(0, np.float64)
        if nodes.size:
            place = np.zeros(n, np.int64)  # each node's number
            place[nodes] = np.arange(nodes.size)
            u, v = place[pairs[edges, 0]], place[pairs[edges, 1]]
            state, krep, via = keep_drop(
                np.argsort(rank[nodes], kind="stable"), u, v, edges, s.linkage == "complete"
            )
            dropped = np.flatnonzero(state == 2)
            d_rows, k_rows = nodes[dropped], nodes[krep[dropped]]
            e = via[dropped]
            dist, dsim = pairs[e, 2].copy(), res.similarity[e].copy()
        if copies.size:  # an exact copy goes where its representative goes
            kept_for = np.arange(n)
            kept_for[d_rows] = k_rows
            at = np.full(n, -1, np.int64)
            at[d_rows] = np.arange(d_rows.size)
            goes = kept_for[copy_of]
            j = at[copy_of]
            cd = np.where(j >= 0, dist[np.maximum(j, 0)] if dist.size else 0, 0)
            cs = np.where(j >= 0, dsim[np.maximum(j, 0)] if dsim.size else 1.0, 1.0)
            d_rows = np.concatenate([d_rows, copies])
            k_rows = np.concatenate([k_rows, goes])
            dist = np.concatenate([dist, cd.astype(np.int64)])
            dsim = np.concatenate([dsim, cs.astype(np.float64)])
        srt = np.argsort(d_rows, kind="stable")
        d_rows, k_rows, dist, dsim = d_rows[srt], k_rows[srt], dist[srt], dsim[srt]
        res.keep[d_rows] = False
        res.duplicates = Duplicates(
            dropped=d_rows, kept=k_rows, distance=dist, similarity=dsim,
            dropped_id=[res.ids[i] for i in d_rows.tolist()],
            kept_id=[res.ids[i] for i in k_rows.tolist()],
        )  # fmt: skip
    res.settings = {
        "features": feat.name,
        **_hasher_settings(feat.hasher if feat.hasher is not None else recommended_hasher(s.shingle)),
        "shingle": s.shingle if verified else None,
        "keep": "priority" if pr is not None else s.keep,
        "linkage": s.linkage,
        "normalize": s.normalize,
        "exact": s.exact,
        "candidates": band_keys.info if band_keys is not None else {"method": "index", "k": k},
    }
    res.options = s
    steps.in_order()
    return res


def _settings(settings: DedupSettings | None, options: dict) -> DedupSettings:
    return DedupSettings.of(settings, **options)


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
    s = _settings(settings, options)
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
    what was found (``.html``, or ``.md`` with PNG figures beside it). A table in memory gives the
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
        anything is read.
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
    s = _settings(settings, options)
    source = open_dataset(data, column, id_column, format, priority_column, max_row_bytes=s.max_row_bytes)
    try:
        outs = _check_outputs(source, output, duplicates, report)
        res = _run(source, s)
        res.preset = res.settings.get("features", "")
        if not res.ids:
            raise DatasetError(f"{source.name}: empty: no rows")
        steps = _Steps(s.progress, res.timings)
        side = duplicates is not None and output is not None and thread_count() > 1
        arrow = None  # a Parquet table's columns, made (its ids checked) before anything is written
        if duplicates is not None and check_duplicates_name(outs["duplicates"]) == "parquet":
            arrow = duplicates_arrow(outs["duplicates"], res.duplicates)
        if output is not None:
            pool = ThreadPoolExecutor(1) if side else contextlib.nullcontext()
            with steps.step("write", len(res.ids)) as bar, pool, _sharing():
                # with threads, the duplicates table is written beside the kept rows (their
                # writes and syncs wait on the disk, the table's cells on the interpreter)
                table = None
                if side:
                    table = pool.submit(write_duplicates, outs["duplicates"], res.duplicates, None, arrow)
                res.written = source.write_kept(
                    outs["output"], res.keep, bar.update if bar is not None else None
                )
                if table is not None:
                    table.result()
        if duplicates is not None and not side:
            with steps.time("write"):
                write_duplicates(outs["duplicates"], res.duplicates, arrow=arrow)
        if report is not None:
            from .report import write_report

            with steps.time("write"):
                write_report(outs["report"], res, source)
    finally:
        source.close()
    return res


def _check_outputs(source: Any, output: Any, duplicates: Any, report: Any) -> dict:
    """The outputs, checked before any work by the one safe writer (:func:`simhash_lab._write.
    check_outputs`: folders that exist and can be written, not the input, no file named twice),
    then each named for what it gets; returns their paths."""
    from ._write import check_outputs
    from .report import check_report_name

    given = [
        (o, p)
        for o, p in (("output", output), ("duplicates", duplicates), ("report", report))
        if p is not None
    ]
    src = getattr(source, "path", None)
    inputs = [src] if src is not None and not isinstance(source, StdinSource) else []
    check_outputs(*[p for _, p in given], what=[f"--{o}" for o, _ in given], inputs=inputs)
    outs = {o: os.fspath(p) for o, p in given}
    if "output" in outs:
        source.check_output(outs["output"])
    if "duplicates" in outs:
        check_duplicates_name(outs["duplicates"])
    if "report" in outs:
        check_report_name(outs["report"])
    return outs


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

    Parameters
    ----------
    paths : iterable of str
        Files and folders.
    hidden : bool
        Also walk hidden files and folders (names starting with ``.``).
    errors, skipped : list, optional
        Where to append ``(path, reason)`` for what is not read.

    Yields
    ------
    str
        The path of each regular file.
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

    Parameters
    ----------
    path : str
    max_bytes : int
        The largest file read.

    Returns
    -------
    str

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

    def __init__(self, files: list[str], res: DedupResult, max_bytes: int, say: Any) -> None:
        self.files = files
        self.res = res
        self.max_bytes = max_bytes
        self.say = say
        self.total = len(files)

    def chunks(self, rows: int):
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

    def select(self, rows: np.ndarray, chunk: int):
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
        Files and folders (read recursively); see :func:`iter_files`.
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
        With ``skipped`` and ``errors`` (see :func:`iter_files`); whitespace-only files are
        featureless (:attr:`DedupResult.featureless_ids`). Exit status: 2 when something could
        not be read, else 1 when something was dropped, else 0.
    """
    check_int("max_bytes", max_bytes, 0, 1 << 62)
    if preset is not None:
        if options.get("hasher") is not None:
            raise ValueError("give preset or hasher, not both")
        options["hasher"] = preset
    s = _settings(settings, options)
    res = DedupResult(k=-1, bits=64, format="files")
    report = report or (lambda path, reason: None)
    files = list(iter_files(paths, hidden=hidden, errors=res.errors, skipped=res.skipped))
    for p, r in res.errors + res.skipped:
        report(p, r)
    holder: list = []

    def say(path: str, why: str) -> None:
        bar = holder[0].bars.current if holder else None
        if bar is None:
            report(path, why)
        else:
            with bar.external_write_mode(file=sys.stderr):
                report(path, why)

    source = _FilesSource(files, res, max_bytes, say)
    res = _run(source, s, result=res)
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
    _deprecated("dedup()", "dedup_files()")
    return dedup_files(paths, settings, **options)


def _deprecated(old: str, new: str) -> None:
    import warnings

    warnings.warn(f"simhash_lab: {old} is now {new}", DeprecationWarning, stacklevel=3)
