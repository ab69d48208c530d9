"""Candidate pairs: by MinHash bands from the shingle sets, in time that follows the pairs; or every
pair within k bits by a join on tables keyed by fingerprint bits (Manku's batch mode, the map and
reduce of :func:`table_buckets` and :func:`table_join`).

Each document's set (sorted distinct 64-bit shingle hashes, the CSR arrays of ``kernels.verify``)
gets a MinHash signature of ``K = bands * rows`` values by one-permutation hashing (Li, Owen and
Zhang 2012): each hash falls in one of K bins by its top bits and each bin keeps its smallest;
bins left empty (a set of fewer than about 3 K shingles leaves some) are filled by *optimal
densification* (Shrivastava, ICML 2017): an empty bin copies the bin that a hash sequence of its
own number, the same for every document, first reaches among those not empty. Two sets then agree
on a bin with probability their Jaccard similarity J, so on all ``rows`` bins of a band with
about J**rows, and on at least one of ``bands`` bands with ``1 - (1 - J**rows)**bands``: the band
parameters are chosen for the threshold (``simhash_lab.candidates``).

A band's key is the hash of its ``rows`` values, with the document's number in its low bits:
sorting one band's keys (NumPy's sort) puts the documents that agree on the band next
to each other, in order of their numbers, and every two of a run are a candidate pair. The work is
one pass over the shingles, one sort per band and the pairs themselves, whatever Hamming distance
they are at: no table count that grows with k.

The kernels are in :mod:`simhash_lab.kernels.candidates`; each works on a range of documents or
of bands and writes only their outputs (``simhash_lab._threads`` runs ranges in threads).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._threads import run_items, run_ranges
from .kernels import index as K
from .kernels.candidates import (
    PROBES,
    band_keys,
    band_pairs,
    number_keys,
    pair_distances,
    probe_table,
    split_band,
    unique_sorted,
)

__all__ = [
    "BandKeys",
    "BandPlan",
    "band_choices",
    "band_pairs",
    "band_parameters",
    "expected_pairs",
    "plan_bands",
    "bucket_pairs",
    "by_bucket",
    "collision_probability",
    "offsets",
    "sort_bands",
    "split_band",
    "table_bucket",
    "table_buckets",
    "table_join",
    "table_pairs",
    "unique_sorted_pairs",
]


def sort_bands(keys: np.ndarray) -> None:
    """Sort each row of ``keys`` (a range of bands) in place: NumPy's sort (x86-simd-sort where
    the CPU has AVX-512, as NumPy detects it at run time), which releases the GIL."""
    for j in range(keys.shape[0]):
        keys[j].sort()


# -- the Python layer ------------------------------------------------------------------------

#: Relative cost of verifying one candidate pair, against computing and sorting one band key of
#: one document (measured: about 60-100 ns a pair, 10-20 ns a key).
_VERIFY_COST = 5.0
#: The similarity of a typical pair of unrelated documents, as word 3-shingle sets: the false
#: candidates the band parameters are chosen to keep few.
_BACKGROUND = 0.05
#: The highest recall at the threshold the bands are chosen for (1 cannot be promised by bands).
_MOST_RECALL = 0.9999
#: The corpus size the band parameters are chosen for (before the rows are counted).
_REFERENCE_ROWS = 1_000_000


def collision_probability(similarity: float | np.ndarray, bands: int, rows: int) -> np.ndarray:
    """P(two sets of Jaccard ``similarity`` agree on at least one band): ``1 - (1 - s**r)**b``.

    Parameters
    ----------
    similarity : float or ndarray
        Jaccard similarities, in [0, 1].
    bands, rows : int
        The bands and the MinHash values (rows) in each.

    Returns
    -------
    ndarray of float64
        The probability for each similarity (a 0-d array for a float).
    """
    s = np.asarray(similarity, np.float64)
    return 1.0 - (1.0 - s**rows) ** bands


def band_parameters(
    threshold: float, recall: float, n: int = _REFERENCE_ROWS, max_rows: int = 16
) -> tuple[int, int]:
    """``(bands, rows)`` for a Jaccard threshold: for each number of rows r, the fewest bands b
    that find a pair at the threshold itself with probability >= ``recall`` (a pair above it more
    often); of those, the one whose cost is least for ``n`` documents (default a million: the
    choice is made before the rows are counted): ``n b`` band keys plus the pairs of unrelated
    documents (similarity ``_BACKGROUND``) it would verify for nothing.

    Parameters
    ----------
    threshold : float
        The Jaccard threshold, in (0, 1].
    recall : float
        P(a pair at the threshold is found) asked for, in (0, 1] (at most 0.9999 is promised).
    n : int
        The number of documents the cost is reckoned for.
    max_rows : int
        The most rows a band may have.

    Returns
    -------
    tuple of int
        ``(bands, rows)``.

    Raises
    ------
    ValueError
        ``threshold`` or ``recall`` outside (0, 1].

    Examples
    --------
    >>> band_parameters(0.8, 0.95), band_parameters(0.8, 0.99), band_parameters(0.8, 0.99, 10_000)
    ((10, 6), (16, 6), (9, 4))
    """
    if not 0 < threshold <= 1 or not 0 < recall <= 1:
        raise ValueError(f"threshold and recall must be in (0, 1], got {threshold}, {recall}")
    recall = min(recall, _MOST_RECALL)
    best = None
    pairs = n * (n - 1) / 2
    for r in range(1, max_rows + 1):
        p = threshold**r
        b = 1 if p >= 1 else max(1, math.ceil(math.log(1 - recall) / math.log1p(-p)))
        if b > 4096:
            break
        cost = n * b + _VERIFY_COST * pairs * float(collision_probability(_BACKGROUND, b, r))
        if best is None or cost < best[0]:
            best = (cost, b, r)
    return best[1], best[2]


#: The rows of the source's beginning :func:`plan_bands` measures (``DedupSettings.bands`` unset).
PLAN_ROWS = 10_000
#: The most bands :func:`band_choices` offers: the keys take 8 bytes a row a band until the pairs
#: are made (64 bands: 512 MB for a million rows), so more would cost memory before time.
MAX_BANDS = 32
#: The cost model of :func:`plan_bands`, in CPU nanoseconds, fixed so that one input always gets
#: the same bands (a run's own timings would make the choice, and so the decisions, vary with the
#: machine's load):
#:
#: * ``BAND_NS``, a band of a row: its key hashed from its ``rows`` values, then sorted among the
#:   band's keys and its run scanned (35-56 ns a band a row on 86k docstring rows, whatever rows);
#: * ``EMPTY_NS``, a bin of a row left empty by one-permutation hashing and filled by the
#:   densification (a random read of another bin): 15 ns on the docstring rows and on pydoc-mixed.
#:   A row of ``m`` shingles leaves ``s (1 - 1/s)**m`` of its ``s = bands x rows`` bins empty, so
#:   the keys' cost grows with the bins past the row's shingles, not with the bands alone: on 86k
#:   docstring rows (84 shingles a row) 13 x 4 costs 197 ns a row, 16 x 6 582 and 27 x 8 2,238;
#: * ``PAIR_NS``, a candidate pair below the threshold (packed, sorted, the size filter, its merge
#:   stopped early): 470 ns on pydoc-mixed;
#: * ``SHINGLE_NS``, a shingle of a row in a candidate pair, made again for the verification (the
#:   first read keeps no set): 30 ns.
#:
#: Measured by ``benchmarks/bench_bands_plan.py`` (one thread, CPU time,
#: ``benchmarks/results/2026-12-07-bands-calibrated.md``). The first model, 200 ns a band, took
#: the bands for the cost: on the docstring rows it chose 10 x 2 (0.17 s of keys reckoned, 0.01
#: measured) and its 106,668 candidates, where 13 x 4 made the same verified pairs 25 % faster.
BAND_NS = 45.0
EMPTY_NS = 15.0
PAIR_NS = 500.0
SHINGLE_NS = 30.0


def empty_bins(sizes: np.ndarray, slots: int) -> float:
    """The bins one-permutation hashing leaves empty in a row, on average over rows of ``sizes``
    distinct shingles (each falls in one of ``slots`` bins, uniformly): ``slots (1 - 1/slots)**m``.

    >>> round(empty_bins(np.array([84]), 96), 1), round(empty_bins(np.array([84]), 52), 1)
    (39.8, 10.2)
    """
    m = np.asarray(sizes, np.float64)
    if m.size == 0 or slots <= 0:
        return 0.0
    return float(np.mean(slots * (1.0 - 1.0 / slots) ** m)) if slots > 1 else 0.0


def band_choices(
    threshold: float, recall: float, max_rows: int = 16, max_bands: int = MAX_BANDS
) -> list[tuple[int, int]]:
    """Every ``(bands, rows)`` worth weighing for a Jaccard threshold: for each number of rows r,
    the fewest bands b that find a pair at the threshold with probability >= ``recall`` and a pair
    of any similarity from the threshold up at least as often as :func:`band_parameters`' own
    choice for a million rows does (the bands of earlier versions: so no choice finds fewer of the
    pairs at or above the threshold, in expectation), those of at most ``max_bands`` bands; and
    that choice itself (so a threshold so low that every r needs more bands still has one).

    Parameters
    ----------
    threshold, recall : float
        As :func:`band_parameters` takes them.
    max_rows, max_bands : int
        The most rows a band may have, the most bands.

    Returns
    -------
    list of tuple of int
        ``(bands, rows)``, by rows.

    Examples
    --------
    >>> band_choices(0.8, 0.99)[4:8]
    [(15, 5), (16, 6), (21, 7), (27, 8)]
    """
    if not 0 < threshold <= 1 or not 0 < recall <= 1:
        raise ValueError(f"threshold and recall must be in (0, 1], got {threshold}, {recall}")
    recall = min(recall, _MOST_RECALL)
    base = band_parameters(threshold, recall)
    grid = np.linspace(threshold, 1.0, 65)
    floor = np.maximum(collision_probability(grid, *base), 0.0)
    floor[0] = max(floor[0], recall)
    out = {base}
    for r in range(1, max_rows + 1):
        p = threshold**r
        b = 1 if p >= 1 else max(1, math.ceil(math.log(1 - recall) / math.log1p(-p)))
        while b <= max_bands and (collision_probability(grid, b, r) < floor - 1e-12).any():
            b += 1
        if b <= max_bands:
            out.add((b, r))
    return sorted(out, key=lambda br: (br[1], br[0]))


def expected_pairs(i: np.ndarray, j: np.ndarray, s: int, n: int) -> float:
    """The candidate pairs of ``n`` rows that the pairs ``(i, j)`` (``i < j``) of their first ``s``
    rows stand for, by the growth the sample itself shows: the pairs among its first ``s / 2``
    rows are those with ``j < s / 2`` (a pair's bands do not depend on the other rows), so from
    ``s / 2`` to ``s`` rows the pairs grew ``2**a`` times, and they are reckoned to go on so:
    ``pairs(s) * (n / s)**a``, ``a`` in [0, 2]. Unrelated rows that share common shingles, and
    passages repeated all over the input, give ``a`` = 2 (each row meets a share of all the
    others); a copy close to its original (a crawl's pages of one site), ``a`` = 1; an input whose
    rows come to repeat one another (exact copies are not searched), less. Checked against whole
    runs by ``benchmarks/bench_bands_plan.py``: what it cannot see is a change past the sample
    (an input that starts repeating itself later).

    Parameters
    ----------
    i, j : ndarray of int
        The sample's pairs, ``i < j``.
    s : int
        Rows in the sample (its pairs are below it).
    n : int
        Rows of the whole input (at least ``s``).

    Returns
    -------
    float

    Examples
    --------
    >>> spread = np.array([0, 10, 20, 30]), np.array([40, 60, 70, 80])  # 1 in the first half
    >>> expected_pairs(*spread, 100, 100), expected_pairs(*spread, 100, 1000)
    (4.0, 400.0)
    >>> near = np.array([0, 50]), np.array([1, 51])  # doubled with the rows
    >>> expected_pairs(*near, 100, 1000)
    20.0
    """
    m = int(np.size(j))
    if n <= s or m == 0 or s < 2:
        return float(m)
    half = int(np.count_nonzero(np.asarray(j) < s // 2))
    a = 2.0 if half == 0 else min(max(math.log2(m / half), 0.0), 2.0)
    return m * (n / s) ** a


@dataclass(frozen=True)
class BandPlan:
    """The bands :func:`plan_bands` chose, and the figures it chose them by.

    Attributes
    ----------
    bands, rows : int
        The choice.
    sample : int
        Rows measured (the first of the input; exact copies among them and rows without shingles
        left out).
    n : int
        The rows the cost was reckoned for (the input's, counted or estimated).
    choices : tuple of tuple
        For each ``(bands, rows)`` weighed: ``(bands, rows, pairs, below, expected, cost)``: the
        sample's candidate pairs, how many of them are below the threshold (exact Jaccard; counted
        for the choice and for :func:`band_parameters`' own, else -1), the candidate pairs
        expected of ``n`` rows (:func:`expected_pairs`), and the cost in CPU seconds
        (:data:`BAND_NS`, :data:`EMPTY_NS`, :data:`PAIR_NS`, :data:`SHINGLE_NS`).
    """

    bands: int
    rows: int
    sample: int
    n: int
    choices: tuple = ()

    @property
    def info(self) -> dict:
        """The settings entry's figures: the rows measured and reckoned for, the choice's sample
        pairs, those below the threshold, its expected pairs and cost; ``weighed``: each choice
        counted as ``[bands, rows, sample pairs, expected pairs, cost s]``."""
        got: dict = {
            "chosen_by": "plan",
            "sample": self.sample,
            "rows_reckoned": self.n,
            "weighed": [[b, r, p, round(e), round(c, 3)] for b, r, p, _, e, c in self.choices],
        }
        for b, r, pairs, below, expected, cost in self.choices:
            if (b, r) == (self.bands, self.rows):
                got.update(
                    sample_pairs=pairs,
                    sample_below=below,
                    expected_pairs=round(expected),
                    cost_s=round(cost, 3),
                )
        return got


def plan_bands(
    indptr: np.ndarray,
    data: np.ndarray,
    valid: np.ndarray,
    threshold: float,
    recall: float,
    n: int,
    threads: bool = True,
) -> BandPlan:
    """``(bands, rows)`` for an input of ``n`` rows from its first rows' shingle sets, measured:
    for each :func:`band_choices` (but one row a band, unless it is the model's own) the sample's
    candidate pairs (their band keys made and paired as the run makes them), extrapolated to ``n``
    rows (:func:`expected_pairs`); the one of least cost is chosen: ``n`` rows' keys (``bands *
    BAND_NS`` and ``EMPTY_NS`` an empty bin a row, :func:`empty_bins` of the sample's sizes), the
    expected pairs' ``PAIR_NS`` and their rows' sets made again (the sample's rows in a pair, as
    many more as the rows, ``SHINGLE_NS`` a shingle); ties: fewer bands; a choice whose keys alone
    cost more than the best so far is not counted. Each
    choice finds a pair at the threshold with probability >= ``recall`` (a pair above it more
    often), so the choice changes the cost, not the recall asked for.

    Parameters
    ----------
    indptr, data : ndarray
        The sample's CSR shingle sets (``kernels.verify``'s layout), its rows in input order.
    valid : ndarray of bool
        The rows that may be in a pair (the run's: not an exact copy of an earlier row, not
        without shingles).
    threshold, recall : float
        The Jaccard threshold and the recall at it.
    n : int
        The input's rows (at least the sample's).
    threads : bool
        Make the keys on the package's threads.

    Returns
    -------
    BandPlan
    """
    s = indptr.shape[0] - 1
    n = max(int(n), s)
    valid = np.ascontiguousarray(valid, np.bool_)
    zeros = np.zeros(s, np.uint64)
    sizes = np.diff(indptr)[valid]  # the searched rows' sets
    shingles = float(sizes.mean()) if sizes.size else 0.0
    weighed = band_choices(threshold, recall)
    base = band_parameters(threshold, recall)
    if len(weighed) > 1:  # one row a band: the most candidates to count, never the cheapest at scale
        weighed = [br for br in weighed if br[1] > 1 or br == base] or weighed
    key_cost = {(b, r): n * (b * BAND_NS + EMPTY_NS * empty_bins(sizes, b * r)) for b, r in weighed}
    choices, found = [], {}
    for b, r in sorted(weighed, key=lambda br: (key_cost[br], br)):  # past the best by keys alone, stop
        if choices and key_cost[b, r] * 1e-9 >= min(c[5] for c in choices):
            break
        keys = BandKeys(threshold, recall, bands=(b, r))
        keys.add(indptr, data, threads)
        p = found[b, r] = keys.pairs(valid, zeros, threads)
        expected = expected_pairs(p[:, 0], p[:, 1], s, n)
        # the rows in a pair have their sets made again: as many more as the rows, at most all
        touched = min(np.unique(p[:, :2]).size * n / max(s, 1), n) if p.shape[0] else 0.0
        cost = key_cost[b, r] + expected * PAIR_NS + touched * shingles * SHINGLE_NS
        choices.append([b, r, int(p.shape[0]), -1, expected, cost * 1e-9])
    best = min(choices, key=lambda x: (x[5], x[0]))
    for c in choices:  # the false candidates (below the threshold) of the choice and of the model's
        if (c[0], c[1]) in {(best[0], best[1]), base} and c[2]:
            from .shingles import Shingler  # here: the bands' module is light without the shingles'

            p = found[c[0], c[1]]
            c[3] = int(
                np.count_nonzero(Shingler.jaccard(indptr, data, p[:, 0], p[:, 1], threshold) < threshold)
            )
        elif not c[2]:
            c[3] = 0
    choices = [tuple(c) for c in sorted(choices, key=lambda c: (c[1], c[0]))]
    return BandPlan(best[0], best[1], s, n, tuple(choices))


class BandKeys:
    """The band keys of every row, added chunk by chunk as the shingle sets are made (the sets
    themselves need not be kept), then :meth:`pairs`.

    Parameters
    ----------
    threshold : float
        The Jaccard threshold the bands are chosen for.
    recall : float
        P(a pair at the threshold agrees on a band) asked for (:func:`band_parameters`).
    n : int
        The number of documents the band parameters are chosen for (unless ``bands`` is given).
    bands : tuple of int, optional
        ``(bands, rows)`` as chosen elsewhere (:func:`plan_bands`, ``DedupSettings.bands``).

    Attributes
    ----------
    bands, rows : int
        The band parameters.
    n : int
        Rows added so far.

    Examples
    --------
    >>> from simhash_lab.shingles import Shingler
    >>> texts = ["the cat sat on the mat today", "the cat sat on the mat today", "a dog barked loudly"]
    >>> keys = BandKeys(0.8, 0.95)
    >>> keys.add(*Shingler(3).sets(texts))
    >>> keys.pairs(np.ones(3, bool), np.zeros(3, np.uint64)).tolist()
    [[0, 1, 0]]
    """

    def __init__(
        self, threshold: float, recall: float, n: int = _REFERENCE_ROWS, bands: tuple[int, int] | None = None
    ) -> None:
        self.threshold = threshold
        self.bands, self.rows = band_parameters(threshold, recall, n) if bands is None else map(int, bands)
        self.probe = probe_table(self.bands * self.rows, PROBES)
        self.parts: list[np.ndarray] = []
        self.n = 0

    @property
    def info(self) -> dict:
        """The settings entry: method, bands, rows, P(a pair at the threshold is found)."""
        p = float(collision_probability(self.threshold, self.bands, self.rows))
        return {
            "method": "minhash bands",
            "bands": self.bands,
            "rows": self.rows,
            "at_threshold": round(p, 4),
        }

    def add(self, indptr: np.ndarray, data: np.ndarray, threads: bool = True) -> None:
        """Add the keys of the next ``indptr.shape[0] - 1`` rows, from their CSR sets
        (:meth:`make` then :meth:`extend`).

        Parameters
        ----------
        indptr : ndarray of int64, shape (m + 1,)
        data : ndarray of uint64
            Row i's sorted distinct shingle hashes are ``data[indptr[i]:indptr[i + 1]]``.
        threads : bool
            Make the keys on the package's threads (:mod:`simhash_lab._threads`).
        """
        self.extend(self.make(indptr, data, threads))

    def make(self, indptr: np.ndarray, data: np.ndarray, threads: bool = True) -> np.ndarray:
        """The keys of CSR rows (uint64, shape ``(bands, m)``), not added: a thread of a caller's
        own may make them while another adds those of the rows before (:meth:`extend`, in order)."""
        m = indptr.shape[0] - 1
        keys = np.empty((self.bands, m), np.uint64)
        b, r = self.bands, self.rows

        def run(lo: int, hi: int) -> None:
            band_keys(indptr[lo : hi + 1], data, b, r, lo, np.empty(3 * b * r, np.uint64), keys, self.probe)

        run_items(m, run, threads and m >= 256)
        return keys

    def extend(self, keys: np.ndarray) -> None:
        """Add the keys :meth:`make` made, as the next rows."""
        self.parts.append(keys)
        self.n += keys.shape[1]

    def pairs(self, valid: np.ndarray, fps: np.ndarray, threads: bool = True, bar: Any = None) -> np.ndarray:
        """Every pair of ``valid`` rows that agree on at least one band: int64 (m, 3) of
        ``(i, j, d)``, ``i < j``, ``d`` the Hamming distance of their fingerprints ``fps``, sorted.
        The keys are consumed. ``bar`` (a tqdm bar, optional) counts the work in bands: each band
        sorted, its pairs counted, its pairs written (``3 * bands``), then one more for the sort of
        the pairs.

        Parameters
        ----------
        valid : ndarray of bool, shape (n,)
            The rows that may be in a pair.
        fps : ndarray of uint64, shape (n,)
            Their fingerprints (for the distances).
        threads : bool
            Sort and pair the bands on the package's threads.
        bar : tqdm bar, optional

        Returns
        -------
        ndarray of int64, shape (m, 3)

        Raises
        ------
        ValueError
            2**32 rows or more.
        """
        lock = threading.Lock()
        if bar is not None:
            bar.total = 3 * self.bands + 1
            bar.refresh()

        def done(count: int) -> None:  # from the threads: one at a time
            if bar is not None:
                with lock:
                    bar.update(count)

        n = self.n
        if n >= 1 << 32:
            raise ValueError(f"band candidates take fewer than 2**32 rows, got {n}")
        fps = np.ascontiguousarray(fps, np.uint64)
        valid = np.ascontiguousarray(valid, np.bool_)
        docbits = max(1, int(n - 1).bit_length())
        bands = self.bands
        parts, self.parts = self.parts, []
        self.n = 0
        workers = None if threads else 1
        # band by band: its keys gathered from the chunks' parts into one row of scratch (one per
        # thread, used again for each band: no fresh (bands, n) array, whose first touch costs
        # more than the copy), numbered, sorted, its pairs counted and written
        found: list = [None] * bands
        none = np.empty(0, np.uint64)
        local = threading.local()

        def band(a: int, b: int) -> None:
            row = getattr(local, "row", None)
            if row is None:
                row = local.row = np.empty((1, n), np.uint64)
            for j in range(a, b):
                at = 0
                for part in parts:
                    row[0, at : at + part.shape[1]] = part[j]
                    at += part.shape[1]
                number_keys(row, valid, docbits)
                sort_bands(row)
                count = np.zeros(1, np.int64)
                band_pairs(row, docbits, False, none, count)
                got = np.empty(int(count[0]), np.uint64)
                band_pairs(row, docbits, True, got, np.zeros(1, np.int64))
                found[j] = got
                done(3)

        if n:
            run_ranges(band, bands, threads=workers, size=1)
        parts = None  # the keys are consumed: freed before the pairs are sorted
        packed = np.concatenate([f for f in found if f is not None]) if n else none
        found = None
        m = unique_sorted_pairs(packed)
        done(1)
        out = np.empty((m, 3), np.int64)
        if m:
            pair_distances(packed[:m], fps, out)
        return out


def bucket_pairs(band: np.ndarray, keys: np.ndarray, docbits: int) -> np.ndarray:
    """The distinct pairs ``i << 32 | j`` (uint64, sorted) among numbered keys of several bands
    (``band[x]``: the band of ``keys[x]``; each key a band hash with the document's number in its
    low ``docbits`` bits, as :meth:`BandKeys.pairs` numbers them): the documents whose keys of one
    band agree but for their numbers. Each key of a band reaches one bucket (its value picks the
    bucket), so a bucket's pairs are exactly those :meth:`BandKeys.pairs` finds among its keys:
    the reduce step of the bands on Dask (``distributed.dedup_dataset``).

    Parameters
    ----------
    band : ndarray of int
        The band of each key.
    keys : ndarray of uint64
        The numbered keys.
    docbits : int
        The bits of each key that hold the document's number.

    Returns
    -------
    ndarray of uint64
    """
    band = np.asarray(band)
    keys = np.ascontiguousarray(keys, np.uint64)
    order = np.argsort(band, kind="stable")
    band, keys = band[order], keys[order]
    cuts = np.flatnonzero(np.diff(band)) + 1
    runs = np.split(keys, cuts) if keys.size else []
    rows = [np.ascontiguousarray(r).reshape(1, -1) for r in runs]
    counts = np.zeros(len(rows), np.int64)
    none = np.empty(0, np.uint64)
    for b, row in enumerate(rows):
        sort_bands(row)
        band_pairs(row, docbits, False, none, counts[b : b + 1])
    starts = np.zeros(len(rows), np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    packed = np.empty(int(counts.sum()), np.uint64)
    for b, row in enumerate(rows):
        band_pairs(row, docbits, True, packed, starts[b : b + 1])
    return packed[: unique_sorted_pairs(packed)]


def unique_sorted_pairs(packed: np.ndarray) -> int:
    """Sort ``packed`` in place and move its distinct values to the front.

    Parameters
    ----------
    packed : ndarray of uint64
        Packed pairs ``i << 32 | j``; sorted in place.

    Returns
    -------
    int
        The count of distinct values, now ``packed[:count]``.
    """
    m = packed.shape[0]
    if m == 0:
        return 0
    packed.sort()
    return unique_sorted(packed, m)


# -- the table join: every pair within k bits, by tables keyed by fingerprint bits ------------


def table_bucket(keys: np.ndarray, t: int, n_reducers: int) -> np.ndarray:
    """The reducer of each key of table ``t``: SplitMix64's finaliser of ``key + t * golden``,
    mod ``n_reducers`` (int64).

    Parameters
    ----------
    keys : ndarray of uint64
        The table's keys (fingerprints masked by the table's mask).
    t : int
        The table.
    n_reducers : int

    Returns
    -------
    ndarray of int64
    """
    with np.errstate(over="ignore"):
        z = keys + np.uint64(t + 1) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z % np.uint64(n_reducers)).astype(np.int64)


def by_bucket(bucket: np.ndarray, n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """``(order, cuts)``: the rows in bucket order (stable) and where each bucket starts
    (``n_buckets + 1`` offsets). The buckets as 16-bit numbers where they fit: NumPy sorts those
    by radix (O(n), several times faster than its merge sort of int64).

    Parameters
    ----------
    bucket : ndarray of int
    n_buckets : int

    Returns
    -------
    order, cuts : ndarray of int64
    """
    small = bucket.astype(np.uint16) if n_buckets <= 1 << 16 else bucket
    order = np.argsort(small, kind="stable")
    cuts = np.zeros(n_buckets + 1, np.int64)
    np.cumsum(np.bincount(small, minlength=n_buckets), out=cuts[1:])
    return order, cuts


def table_buckets(fps: np.ndarray, ids: np.ndarray, masks: np.ndarray, n_reducers: int) -> dict:
    """The join's map: each fingerprint once per table, as ``(table, fp, id)``, split among
    ``n_reducers`` by a hash of the table's key (:func:`table_bucket`), so that the fingerprints
    that share a table's key meet in one reducer.

    Parameters
    ----------
    fps : ndarray of uint64
    ids : ndarray of int64
        Their ids (row numbers).
    masks : ndarray of uint64
        Each table's mask: the bits it keeps exact.
    n_reducers : int

    Returns
    -------
    dict
        ``{reducer: {"t": int32, "f": uint64, "i": int64}}`` for the reducers that get rows.
    """
    fps = np.ascontiguousarray(fps, np.uint64)
    tt, ff, ii, bb = [], [], [], []
    for t in range(masks.size):
        bb.append(table_bucket(fps & masks[t], t, n_reducers))
        tt.append(np.full(fps.size, t, np.int32))
        ff.append(fps)
        ii.append(ids)
    if not bb:
        return {}
    order, cuts = by_bucket(np.concatenate(bb), n_reducers)
    tt, ff, ii = (np.concatenate(x)[order] for x in (tt, ff, ii))
    return {
        r: {"t": tt[cuts[r] : cuts[r + 1]], "f": ff[cuts[r] : cuts[r + 1]], "i": ii[cuts[r] : cuts[r + 1]]}
        for r in range(n_reducers)
        if cuts[r + 1] > cuts[r]
    }


def offsets(lengths: Sequence[int]) -> np.ndarray:
    """``[0, l0, l0 + l1, ...]`` (int64): where each of consecutive runs of ``lengths`` starts.

    >>> offsets([2, 0, 3]).tolist()
    [0, 2, 2, 5]
    """
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def table_pairs(f: np.ndarray, masks: np.ndarray, t: int, k: int, density: list | None = None) -> np.ndarray:
    """``(a, b, d)`` rows (positions in ``f``, ``a < b``) of the pairs table ``t`` reports among
    ``f`` (sorted by ``f & masks[t]``): the kernels of ``SimhashIndex.pairs()`` on one table, one
    thread (a vectorized count of each row's near partners first, then only those rows are
    scanned again), with the index's room-then-retry handling of the output: room for
    ``density[0]`` pairs a row (raised to what this table found, for the next table).

    Parameters
    ----------
    f : ndarray of uint64
        The fingerprints, sorted by the table's key.
    masks : ndarray of uint64
        Every table's mask (a pair is reported by the first table whose mask it satisfies).
    t, k : int
        The table, and the distance.
    density : list of one float, optional
        Room for pairs a row; updated.

    Returns
    -------
    ndarray of int64, shape (m, 3)
    """
    tf = np.ascontiguousarray(f, np.uint64).reshape(1, -1)
    ti = np.arange(f.size, dtype=np.uint32).reshape(1, -1)
    gm = np.ascontiguousarray(masks[t : t + 1], np.uint64)
    ct, lo, hi, _ = K.pair_chunks_kernel(tf, gm, 1 << 62)
    counts = np.empty(ct.shape[0], np.int64)
    density = [1 / 16] if density is None else density
    off = offsets(np.ceil((hi - lo) * density[0]).astype(np.int64) + 16)
    out = np.empty(off[-1], np.uint64)
    K.pairs_chunks_kernel(tf, ti, masks, gm, int(t), int(k), ct, lo, hi, off, out, counts)
    if (counts > np.diff(off)).any():  # more than the room: again, with the exact room
        off = offsets(counts)
        out = np.empty(off[-1], np.uint64)
        K.pairs_chunks_kernel(tf, ti, masks, gm, int(t), int(k), ct, lo, hi, off, out, counts)
    density[0] = max(density[0], 1.25 * float(counts.sum()) / max(int(f.size), 1))
    keys = np.concatenate([out[off[c] : off[c] + counts[c]] for c in range(ct.shape[0])])
    return K.unpack_pairs_kernel(keys, tf[0])


def table_join(pieces: list, masks: np.ndarray, k: int) -> np.ndarray:
    """The join's reduce: every pair within ``k`` bits among one reducer's ``(table, fp, id)``
    pieces (dicts of :func:`table_buckets`, or ``(t, f, i)`` tuples): per table, sorted by (key,
    id), each run of equal keys verified (:func:`table_pairs`); a pair is kept only by the first
    table whose mask it satisfies, so no pair is reported twice.

    Parameters
    ----------
    pieces : list
        The reducer's pieces.
    masks : ndarray of uint64
    k : int

    Returns
    -------
    ndarray of int64, shape (m, 3)
        ``(i, j, d)`` with ``i < j`` ids.
    """
    if not pieces:
        return np.empty((0, 3), np.int64)
    masks = np.ascontiguousarray(masks, np.uint64)
    cols = [(p["t"], p["f"], p["i"]) if isinstance(p, dict) else p for p in pieces]
    tt = np.concatenate([p[0] for p in cols])
    ff = np.concatenate([p[1] for p in cols])
    ii = np.concatenate([p[2] for p in cols])
    out = []
    density = [1 / 16]  # pairs a row: what the tables so far found, the room for the next
    for t in np.unique(tt).tolist():
        sel = tt == t
        f, g = ff[sel], ii[sel]
        order = np.lexsort((g, f & masks[t]))
        f, g = np.ascontiguousarray(f[order]), g[order]
        p = table_pairs(f, masks, t, k, density)
        if p.shape[0]:
            a, b = g[p[:, 0]], g[p[:, 1]]
            out.append(np.stack([np.minimum(a, b), np.maximum(a, b), p[:, 2]], axis=1))
    return np.concatenate(out) if out else np.empty((0, 3), np.int64)
