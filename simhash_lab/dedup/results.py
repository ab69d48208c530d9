"""What a dedup run found, and its writers: :class:`DedupResult` (the keep mask, the duplicates
table, the calibration, the pairs, the timings of each step), :class:`Duplicates` (one row per
dropped document) and the files they become: :func:`write_duplicates` (CSV through
:mod:`simhash_lab._escape`, JSONL, Parquet), ``DedupResult.to_json()`` (``--json``); the report is
:mod:`.report`. Both executors (one process, :mod:`.local`; Dask, :mod:`simhash_lab.distributed`)
return the same :class:`Duplicates`.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

from .._escape import csv_rows
from .._files import json_name, show_name
from .._i18n import _, counted
from .._write import atomic_write
from ..calibration import Calibration
from ..datasets import DatasetError, detect_format
from ..datasets.source import kind_of, need_pyarrow

__all__ = [
    "DUPLICATE_COLUMNS",
    "UNIT_COLUMNS",
    "EXIT_FOUND",
    "EXIT_NONE",
    "EXIT_TROUBLE",
    "DedupResult",
    "DuplicateIdsWarning",
    "Duplicates",
    "UnitRows",
    "check_duplicates_name",
    "duplicates_arrow",
    "json_value",
    "write_duplicates",
]

EXIT_NONE, EXIT_FOUND, EXIT_TROUBLE = 0, 1, 2


class DuplicateIdsWarning(UserWarning):
    """A dataset's ids name two rows or more (``unique_ids=True``, ``--unique-ids``: refused).

    Parameters
    ----------
    *args : object
        What :class:`UserWarning` takes: the message.
    """


def deprecated(old: str, new: str) -> None:
    """Warn (DeprecationWarning, at the caller's caller) that ``old`` is now ``new``."""
    warnings.warn(f"simhash_lab: {old} is now {new}", DeprecationWarning, stacklevel=3)


@dataclass
class Duplicates:
    """The duplicates table: one row per dropped document, sorted by its row.

    Attributes
    ----------
    dropped, kept : ndarray, shape (m,), int64
        Row numbers (positions in the input) of the dropped document and of the kept one it is a
        near-duplicate of (of a result with units: unit numbers, ``DedupResult.units``; the table
        :meth:`DedupResult.duplicates_table` gives has the documents' rows).
    distance : ndarray, shape (m,), int64
        Hamming distance of their fingerprints.
    similarity : ndarray, shape (m,), float64
        Exact Jaccard similarity of their shingle sets (NaN when no threshold was given).
    dropped_id, kept_id : list
        Their ids (the id column's values, file paths, or row numbers).
    units : dict or None
        With units, as written (:meth:`DedupResult.duplicates_table`): ``dropped_unit``,
        ``kept_unit`` (each unit's place in its document, from 0), ``dropped_start``,
        ``dropped_end`` (the span of the dropped one's document it took), arrays.
    """

    dropped: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    kept: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    distance: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    similarity: np.ndarray = field(default_factory=lambda: np.empty(0, np.float64))
    dropped_id: list = field(default_factory=list)
    kept_id: list = field(default_factory=list)
    units: dict | None = None

    def __len__(self) -> int:
        return int(self.dropped.shape[0])

    def columns(self) -> list[tuple[str, list]]:
        """The table's columns as written: ``DUPLICATE_COLUMNS``, then with units
        ``UNIT_COLUMNS`` (each dropped unit's place in its document and its span there, the kept
        unit's place).

        Returns
        -------
        list of (str, list)
            Each column's name and its values.
        """
        cols = [
            ("dropped_id", list(self.dropped_id)),
            ("kept_id", list(self.kept_id)),
            ("distance", self.distance.tolist()),
            ("similarity", self.similarity.tolist()),
            ("dropped_row", self.dropped.tolist()),
            ("kept_row", self.kept.tolist()),
        ]
        if self.units is not None:
            cols += [(c, self.units[c].tolist()) for c in UNIT_COLUMNS]
        return cols

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
class UnitRows:
    """The units a run deduplicated (``unit="paragraph"`` or ``"line"``), one entry a unit, in
    the documents' order; the result's row-level fields (``fingerprints``, ``featureless``,
    ``pairs``, ``duplicates``...) are numbered by these units.

    Attributes
    ----------
    unit : str
        ``"paragraph"`` or ``"line"``.
    ids : list
        Each unit's document's id.
    doc, index : ndarray, int64
        Each unit's document (row) and its place in it (0: the first).
    start, end : ndarray, int64
        The span of the document's text it takes (what goes when it is dropped).
    words : ndarray, int64
        Its words (:func:`~simhash_lab.dedup.units.word_counts`).
    keep : ndarray, bool
        Kept (not dropped for another unit).
    """

    unit: str
    ids: list
    doc: np.ndarray
    index: np.ndarray
    start: np.ndarray
    end: np.ndarray
    words: np.ndarray
    keep: np.ndarray

    def __len__(self) -> int:
        return int(self.doc.shape[0])


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
        Their exact Jaccard similarity when it is at least ``jaccard - 0.05`` (every verified
        pair, and the rejected ones nearest the threshold); -1.0 for a pair below that (rejected,
        found by its sets' sizes or a merge stopped early, its exact value not computed); NaN
        without a threshold.
    k, bits : int
    jaccard : float or None
        The threshold (None: Hamming-only).
    calibration : Calibration or None
    settings : dict
        Tokenizer, weights, hash, shingle size, keep order, linkage; ``"candidates"``: how the
        candidates were found (``{"method": "index", "k": k}``, or ``{"method": "minhash bands",
        "bands": b, "rows": r, "at_threshold": P(a pair at the threshold is found), "chosen_by":
        ...}``: ``"settings"`` (``bands`` pinned) or ``"plan"``, with the figures the plan step
        measured on the input's first rows: ``sample``, ``rows_reckoned``, ``sample_pairs``,
        ``sample_below`` (of them, below the threshold), ``expected_pairs``, ``cost_s`` and
        ``weighed``, each choice's ``[bands, rows, sample pairs, expected pairs, cost s]``).
    skipped, errors : list of (path, reason)
        :func:`dedup_files` only: files not used, and files or paths that could not be read.
    timings : dict
        Seconds spent in each step: plan (bands), read, normalise, exact groups, fingerprint, calibrate,
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
    units: UnitRows | None = None
    whole: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))
    words_left: np.ndarray | None = None

    @property
    def row_ids(self) -> list:
        """The id of each row of the run's row-level fields: the documents', or with units each
        unit's document's."""
        return self.units.ids if self.units is not None else self.ids

    @property
    def edited(self) -> np.ndarray:
        """With units: the kept documents that lost some of their units (rows, int64)."""
        if self.units is None:
            return np.empty(0, np.int64)
        lost = np.zeros(len(self.ids), np.bool_)
        lost[self.units.doc[~self.units.keep]] = True
        return np.flatnonzero(lost & self.keep).astype(np.int64)

    def cuts(self) -> dict[int, list[tuple[int, int]]]:
        """With units: each kept document that lost units, and the spans of its text they took
        (``{row: [(start, end), ...]}``, sorted): what :func:`~simhash_lab.datasets.source.cut_text`
        removes when the kept rows are written. Empty without units.

        Returns
        -------
        dict of int to list of (int, int)
        """
        u = self.units
        if u is None:
            return {}
        gone = np.flatnonzero(~u.keep & self.keep[u.doc])
        out: dict[int, list[tuple[int, int]]] = {}
        for r in gone.tolist():
            out.setdefault(int(u.doc[r]), []).append((int(u.start[r]), int(u.end[r])))
        return out

    def duplicates_table(self) -> Duplicates:
        """The duplicates table as it is written: :attr:`duplicates`, or with units one row per
        unit dropped, its rows the documents' and its places in them (``UNIT_COLUMNS``).

        Returns
        -------
        Duplicates
        """
        d, u = self.duplicates, self.units
        if u is None:
            return d
        return Duplicates(
            dropped=u.doc[d.dropped], kept=u.doc[d.kept], distance=d.distance, similarity=d.similarity,
            dropped_id=d.dropped_id, kept_id=d.kept_id,
            units={
                "dropped_unit": u.index[d.dropped], "kept_unit": u.index[d.kept],
                "dropped_start": u.start[d.dropped], "dropped_end": u.end[d.dropped],
            },
        )  # fmt: skip

    def kept_texts(self, texts: Sequence[str]) -> list[str]:
        """The kept documents' texts, in input order, each without the units it lost (with units;
        without them, the kept texts as they are): ``texts`` are the documents the run read.

        Parameters
        ----------
        texts : sequence of str
            Every document's text, as read (a DataFrame's column too).

        Returns
        -------
        list of str
        """
        from .units import cut_text

        texts = list(texts)
        if len(texts) != len(self.ids):
            raise ValueError(f"texts must be the {len(self.ids)} documents the run read, got {len(texts)}")
        cuts = self.cuts()
        return [cut_text(t, cuts.get(i, [])) for i, t in enumerate(texts) if self.keep[i]]

    @property
    def paths(self) -> list:
        """The files fingerprinted (:func:`dedup_files`): the ids."""
        return self.ids

    @property
    def featureless_ids(self) -> list:
        """Ids of the featureless documents (file paths for :func:`dedup_files`)."""
        ids = self.row_ids
        return [ids[i] for i in self.featureless.tolist()]

    @property
    def empty(self) -> list:
        """Deprecated name of :attr:`featureless_ids`."""
        deprecated("DedupResult.empty", "DedupResult.featureless_ids")
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
        n = len(self.row_ids)
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
        ids = self.row_ids
        at = {int(r): i for i, r in enumerate(d.dropped.tolist())}
        out = []
        for r in g:
            fp = int(self.fingerprints[r])
            if r in at:
                i = at[r]
                out.append((ids[r], fp, int(d.distance[i]), float(d.similarity[i])))
            else:
                out.append((ids[r], fp, 0, 1.0))
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
        """One line: rows, dropped, groups, how the candidates were found and verified; each count
        with its noun in the number it has ("1 group", "3 groups"), in the current language.

        Returns
        -------
        str
        """
        files = self.format == "files"
        n_cand = int(self.pairs.shape[0])
        if self.jaccard is not None:
            mode = (
                _("verified at Jaccard >= {jaccard:g} ({verified} of 1 candidate pair)")
                if n_cand == 1
                else _("verified at Jaccard >= {jaccard:g} ({verified} of {candidates} candidate pairs)")
            ).format(jaccard=self.jaccard, verified=self.verified, candidates=n_cand)
        else:
            mode = counted(
                n_cand, _("1 pair, unverified (the raw Hamming mode)"),
                _("{n} pairs, unverified (the raw Hamming mode)"),
            )  # fmt: skip
        n_groups = len(set(self.duplicates.kept.tolist()))
        rows = (
            counted(len(self.ids), _("1 file"), _("{n} files"))
            if files
            else counted(len(self.ids), _("1 row"), _("{n} rows"))
        )
        if self.units is not None:  # the units are what is counted, of the documents
            rows = self.units_note(rows)
        return (
            (
                _("{units}, {dropped} dropped in {groups} ({exact}) {found_by}, {mode}; {featureless}")
                if self.units is not None
                else _("{files}, {dropped} dropped in {groups} ({exact}) {found_by}, {mode}; {featureless}")
                if files
                else _("{rows}, {dropped} dropped in {groups} ({exact}) {found_by}, {mode}; {featureless}")
            ).format(
                files=rows,
                rows=rows,
                units=rows,
                dropped=len(self.duplicates),
                groups=counted(n_groups, _("1 group"), _("{n} groups")),
                exact=counted(self.exact, _("1 exact copy"), _("{n} exact copies")),
                found_by=self.found_by,
                mode=mode,
                featureless=self.featureless_note(),
            )
            + self.chars_note()
            + self.documents_note()
        )

    def units_note(self, documents: str) -> str:
        """With units: how many of them, of how many documents.

        Parameters
        ----------
        documents : str
            The documents' count, already said (``"3 documents"``).

        Returns
        -------
        str
        """
        n = len(self.units)
        units = (
            counted(n, _("1 paragraph"), _("{n} paragraphs"))
            if self.units.unit == "paragraph"
            else counted(n, _("1 line"), _("{n} lines"))
        )
        return _("{units} of {documents}").format(units=units, documents=documents)

    def documents_note(self) -> str:
        """With units: what became of the documents (kept, how many of them without some of their
        units, dropped whole); empty without units.

        Returns
        -------
        str
        """
        if self.units is None:
            return ""
        files = self.format == "files"
        kept = int(np.count_nonzero(self.keep))
        minimum = self.options.min_kept_words if self.options is not None else 1
        return _("; {kept} ({edited}), {whole} (fewer than {words} left)").format(
            kept=counted(kept, _("1 file kept"), _("{n} files kept"))
            if files
            else counted(kept, _("1 row kept"), _("{n} rows kept")),
            edited=(
                counted(
                    int(self.edited.size), _("1 of them without some of its paragraphs"),
                    _("{n} of them without some of their paragraphs"),
                )
                if self.units.unit == "paragraph"
                else counted(
                    int(self.edited.size), _("1 of them without some of its lines"),
                    _("{n} of them without some of their lines"),
                )
            ),
            whole=counted(int(self.whole.size), _("1 dropped whole"), _("{n} dropped whole")),
            words=counted(minimum, _("1 word"), _("{n} words")),
        )  # fmt: skip

    def featureless_note(self) -> str:
        """What the summary says of the featureless rows: how many, and how many of them were
        dropped as exact copies of another (their own exact groups: identical normalised text).

        Returns
        -------
        str
        """
        n = int(self.featureless.size)
        said = counted(n, _("1 featureless"), _("{n} featureless"))
        copies = self.featureless_copies
        if copies:
            said += " " + counted(
                copies, _("(1 of them an exact copy, dropped)"), _("({n} of them exact copies, dropped)")
            )
        return said

    @property
    def featureless_copies(self) -> int:
        """Featureless rows dropped as exact copies of another featureless row (identical
        normalised text: ``['👍👍', '👍👍']`` keeps the first)."""
        if not self.featureless.size or not len(self.duplicates):
            return 0
        return int(np.count_nonzero(np.isin(self.duplicates.dropped, self.featureless)))

    def chars_note(self) -> str:
        """What the summary says about text shingled by characters (empty when none was): the rows
        with runs of a script written without word spaces, those runs cut into character n-grams.

        Returns
        -------
        str
        """
        if not self.by_chars:
            return ""
        n = self.options.char_ngram if self.options is not None else 3
        c = self.by_chars
        return (
            (
                _("; 1 file with text in a script without word spaces (Chinese, Japanese, Thai...), "
                  "shingled there by characters ({n}-grams)")
                if c == 1
                else _("; {count} files with text in a script without word spaces (Chinese, Japanese, "
                       "Thai...), shingled there by characters ({n}-grams)")
            )
            if self.format == "files"
            else (
                _("; 1 row with text in a script without word spaces (Chinese, Japanese, Thai...), "
                  "shingled there by characters ({n}-grams)")
                if c == 1
                else _("; {count} rows with text in a script without word spaces (Chinese, Japanese, "
                       "Thai...), shingled there by characters ({n}-grams)")
            )
        ).format(count=c, n=n)  # fmt: skip

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
        if self.units is not None:  # each member's place in its document; what became of the documents
            u = self.units
            for g, members in zip(self.groups, doc["groups"]):
                for r, m in zip(g, members):
                    m["unit"] = int(u.index[r])
                    m["row"] = int(u.doc[r])
            doc["unit"] = u.unit
            doc["units"] = len(u)
            doc["documents"] = {
                "kept": int(np.count_nonzero(self.keep)),
                "edited": [show(self.ids[i]) for i in self.edited.tolist()],
                "dropped_whole": [show(self.ids[i]) for i in self.whole.tolist()],
            }
        if self.format == "files":
            doc["skipped"] = [{"path": json_name(p), "reason": r} for p, r in self.skipped]
            doc["errors"] = [{"path": json_name(p), "reason": r} for p, r in self.errors]
            doc["featureless"] = [json_name(p) for p in self.featureless_ids]
        else:
            doc["featureless"] = [json_value(v) for v in self.featureless_ids]
            doc["written"] = self.written
        return doc


DUPLICATE_COLUMNS = ("dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row")
#: the duplicates table's columns after those with units (``unit="paragraph"`` or ``"line"``)
UNIT_COLUMNS = ("dropped_unit", "kept_unit", "dropped_start", "dropped_end")


def check_duplicates_name(path: str) -> str:
    """The duplicates table's format from its name: ``.csv``/``.tsv``, ``.jsonl``, ``.parquet``, or
    CSV for a name without an ending (``/dev/stdout``); any other ending (``.xlsx``) is refused.

    Parameters
    ----------
    path : str
        The duplicates table's file name.

    Returns
    -------
    str
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.

    Raises
    ------
    DatasetError
        The name ends in something else.
    """
    fmt = detect_format(path)
    if fmt is None:
        ext = os.path.splitext(os.path.basename(os.fspath(path)))[1]
        if ext:
            raise DatasetError(
                f"{show_name(path)}: the duplicates table is written as CSV, JSONL or Parquet, not {ext}: "
                f"name it .csv, .tsv, .jsonl or .parquet"
            )
        fmt = "csv"
    return fmt


def json_value(value: Any) -> Any:
    """A value strict JSON can hold: a float that is NaN or infinite becomes null (also inside
    lists and objects).

    Parameters
    ----------
    value : object
        A value for :func:`json.dumps`.

    Returns
    -------
    object
        ``value`` with every NaN or infinite float replaced by None (tuples become lists).

    Examples
    --------
    >>> json_value([1.0, float("nan"), {"x": float("inf")}])
    [1.0, None, {'x': None}]
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value


def duplicates_arrow(path: str, table: Duplicates) -> Any:
    """The duplicates table as the pyarrow Table its Parquet file holds.

    Parameters
    ----------
    path : str
        The Parquet file (named in the message).
    table : Duplicates
        The table.

    Returns
    -------
    pyarrow.Table

    Raises
    ------
    DatasetError
        Ids of several kinds that no one Arrow type holds (say int and str: JSONL ids can be any
        JSON value), or no pyarrow.
    """
    pa = need_pyarrow()
    cols = {}
    for name, ids in (("dropped_id", table.dropped_id), ("kept_id", table.kept_id)):
        try:
            cols[name] = pa.array(list(ids))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            kinds = ", ".join(sorted({kind_of(v) for v in ids}))
            raise DatasetError(
                f"{show_name(path)}: the ids are of several kinds ({kinds}) and a Parquet column "
                f"holds one: name the duplicates table .csv or .jsonl, or give ids of one kind"
            ) from None
    sim = [None if s != s else s for s in table.similarity.tolist()]
    more = {c: pa.array(table.units[c], pa.int64()) for c in UNIT_COLUMNS} if table.units is not None else {}
    return pa.table(
        {
            **cols,
            "distance": pa.array(table.distance, pa.int64()),
            "similarity": pa.array(sim, pa.float64()),
            "dropped_row": pa.array(table.dropped, pa.int64()),
            "kept_row": pa.array(table.kept, pa.int64()),
            **more,
        }
    )


def write_duplicates(path: str, table: Duplicates, format: str | None = None, arrow: Any = None) -> None:
    """Write a :class:`Duplicates` table: CSV (default), JSONL or Parquet by the
    name's ending. Columns: ``dropped_id, kept_id, distance, similarity, dropped_row, kept_row``
    (``similarity`` empty / null when it was not computed), and with units ``dropped_unit,
    kept_unit, dropped_start, dropped_end`` (:meth:`DedupResult.duplicates_table`). CSV cells
    that a spreadsheet would run as a formula are escaped, and rows end in CR LF
    (:mod:`simhash_lab._escape`); JSONL is strict JSON (:func:`json_value`).

    Parameters
    ----------
    path : str
        The output file (``.tsv``: tab-separated CSV), written by
        :func:`simhash_lab._write.atomic_output`.
    table : Duplicates
        The table to write.
    format : str, optional
        ``"csv"``, ``"jsonl"`` or ``"parquet"``; by default from the name
        (:func:`check_duplicates_name`).
    arrow : pyarrow.Table, optional
        For Parquet, the table :func:`duplicates_arrow` made already.

    Raises
    ------
    DatasetError
        The name's ending is not a table format, or Parquet without pyarrow or with ids of
        several kinds (:func:`duplicates_arrow`).
    simhash_lab._write.OutputError
        The file cannot be written.
    """
    fmt = format or check_duplicates_name(path)
    cols = table.columns()
    names = [c for c, _ in cols]
    rows = zip(*(v for _, v in cols))
    sim_at = names.index("similarity")
    if fmt == "parquet":
        import pyarrow.parquet as pq

        data = arrow if arrow is not None else duplicates_arrow(path, table)
        atomic_write(path, "wb", lambda f: pq.write_table(data, f))
        return
    if fmt == "jsonl":

        def write(f: IO[str]) -> None:
            for row in rows:
                rec = dict(zip(names, map(json_value, row)))
                f.write(json.dumps(rec, ensure_ascii=False, allow_nan=False, default=str) + "\n")

        atomic_write(path, "w", write, encoding="utf-8")
        return

    def write_csv(f: IO[str]) -> None:
        def cells(row: tuple) -> tuple:
            sim = row[sim_at]
            return (*row[:sim_at], "" if sim != sim else f"{sim:.6f}", *row[sim_at + 1 :])

        csv_rows(f, [names, *map(cells, rows)], delimiter="\t" if path.lower().endswith(".tsv") else ",")

    atomic_write(path, "w", write_csv, encoding="utf-8", newline="")
