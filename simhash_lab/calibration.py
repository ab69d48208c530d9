"""Choosing k for a Jaccard threshold by measuring it on the corpus: :func:`calibrate`.

Simhash's Hamming distance and the Jaccard similarity of shingle sets are related only in
expectation: with binary weights each bit differs with probability θ/π, cos θ = |A ∩ B| /
sqrt(|A| |B|) (Charikar), so at Jaccard 0.8 two sets of one size differ in about 64 θ/π ≈ 9.7 of
64 bits, with a spread of about 3. Which k finds most near-duplicate pairs depends on where the
corpus's pairs lie above the threshold (licence copies at 0 bits, light edits at 5 to 12), so it
is measured on a sample of the corpus, not guessed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._i18n import _
from ._threads import run_items
from ._validate import check_fraction, check_int
from .datasets import Source, TextsSource
from .hamming import hamming
from .kernels.dedup_steps import scan_within
from .settings import DedupSettings
from .shingles import CHUNK_ROWS, Featurizer, Shingler, gather_sets

__all__ = ["MIN_CALIBRATION_PAIRS", "Calibration", "calibrate"]

MIN_CALIBRATION_PAIRS = 50


@dataclass
class Calibration:
    """How ``k`` was chosen for a Jaccard threshold (see :func:`calibrate`).

    Attributes
    ----------
    k : int
        The smallest distance whose candidates hold ``target`` of the measured pairs.
    jaccard, target : float
        The Jaccard threshold (``DedupSettings.jaccard``; ``threshold`` is its deprecated name) and
        the recall asked for.
    recall : float
        The recall expected at ``k``: the fraction of the measured pairs within ``k`` bits.
    method : {"sample", "synthetic", "theory"}
        ``"sample"``: real near-duplicate pairs of the sampled documents (Jaccard >= threshold);
        ``"synthetic"``: too few of those (fewer than 50), so pairs made from sampled documents by
        random word replacements down to the threshold (the worst case for recall); ``"theory"``:
        not even those (every sampled document is shorter than 8 words), so the recall a binomial
        of ``bits`` trials with Charikar's ``p = θ/π``, ``cos θ = 2J / (1 + J)``, gives.
    sample : int
        Documents sampled.
    pairs : int
        Near-duplicate pairs measured.
    k_max : int
        The farthest distance searched (pairs farther apart are not seen: the recall is over pairs
        within ``k_max``, about all of them when ``k_max`` is well above ``k``).
    recall_by_k : ndarray, shape (k_max + 1,), float64
        The fraction of the measured pairs within each distance.
    distances : ndarray, int64; similarities : ndarray, float64
        The measured pairs.
    """

    k: int
    jaccard: float
    target: float
    recall: float
    method: str
    sample: int
    pairs: int
    k_max: int
    recall_by_k: np.ndarray
    distances: np.ndarray
    similarities: np.ndarray

    @property
    def threshold(self) -> float:
        """Deprecated name of :attr:`jaccard`."""
        warnings.warn(
            "simhash_lab: Calibration.threshold is now Calibration.jaccard", DeprecationWarning, stacklevel=2
        )
        return self.jaccard

    def summary(self) -> str:
        """One line: the chosen ``k``, its expected recall, and what it was measured on.

        Returns
        -------
        str
        """
        if self.method == "theory":
            return _(
                "k = {k}: expected recall {recall:.3f} (target {target:g}) from Charikar's bound at Jaccard "
                "{jaccard:g} (no pair could be measured: the sampled documents are shorter than 8 words)"
            ).format(k=self.k, recall=self.recall, target=self.target, jaccard=self.jaccard)
        how = (
            _("{pairs} near-duplicate pairs (Jaccard >= {jaccard:g}) of a sample of {sample} documents")
            if self.method == "sample"
            else _(
                "{pairs} pairs made at Jaccard ~ {jaccard:g} from {sample} sampled documents "
                "(the sample held too few real ones)"
            )
        ).format(pairs=self.pairs, jaccard=self.jaccard, sample=self.sample)
        return _(
            "k = {k}: expected recall {recall:.3f} (target {target:g}), measured on {how}; "
            "distances searched up to {k_max}"
        ).format(k=self.k, recall=self.recall, target=self.target, how=how, k_max=self.k_max)

    def to_json(self) -> dict:
        """The calibration as JSON-able data (without the measured pairs).

        Returns
        -------
        dict
        """
        return {
            "k": self.k,
            "jaccard": self.jaccard,
            "target_recall": self.target,
            "expected_recall": round(self.recall, 4),
            "method": self.method,
            "sample": self.sample,
            "pairs": self.pairs,
            "k_max": self.k_max,
            "recall_by_k": [round(float(r), 4) for r in self.recall_by_k],
        }


def _random_within(k: int, bits: int) -> float:
    """P(hamming(a, b) <= k) for two independent uniform ``bits``-bit fingerprints."""
    return sum(math.comb(bits, i) for i in range(k + 1)) / 2.0**bits


def _k_max(n: int, bits: int, per_doc: float = 2.0, cap: int = 24) -> int:
    """The farthest distance worth scanning from a sampled document: random fingerprints would put
    about ``per_doc`` of the ``n`` within it."""
    k = 0
    for j in range(min(bits - 1, cap) + 1):
        if n * _random_within(j, bits) <= per_doc:
            k = j
    return k


def _replace_units(
    units: list, joiner: str, count: int, rng: np.random.Generator, vocab: Sequence[str]
) -> str:
    if not units or not vocab:
        return joiner.join(units)
    units = list(units)
    where = rng.choice(len(units), size=min(count, len(units)), replace=False)
    for p in where.tolist():
        units[p] = vocab[int(rng.integers(len(vocab)))]
    return joiner.join(units)


def _synthetic_pairs(
    texts: Sequence[str], feat: Featurizer, threshold: float, rng: np.random.Generator, limit: int = 300
):
    """Pairs at Jaccard just above ``threshold``: each text against copies of it with more and more
    words (characters, for text without word spaces) replaced (from the sample's own), the copy
    with the lowest similarity >= threshold."""
    texts = feat.normalise(list(texts))
    split = feat.units(texts)
    vocab = sorted({w for u, _ in split for w in u})
    picked = [i for i, (u, _) in enumerate(split) if len(u) >= 8]
    short = [i for i in picked if len(split[i][0]) <= 20_000]  # 8 edited copies each: not megabytes
    picked = (short if len(short) >= MIN_CALIBRATION_PAIRS else picked)[:limit]
    docs = [texts[i] for i in picked]
    d_out, s_out = [], []
    if not docs:
        return np.empty(0, np.int64), np.empty(0)
    ind, dat = feat.sets(docs)
    sizes = np.diff(ind)
    n = feat.settings.shingle
    variants, owner = [], []
    for i, t in enumerate(picked):
        units, joiner = split[t]
        m = max(int(sizes[i]), 1)
        guess = max(1.0, m * (1 - threshold) / (n * (1 + threshold)))
        for f in (0.3, 0.5, 0.7, 0.85, 1.0, 1.15, 1.3, 1.6):
            variants.append(_replace_units(units, joiner, max(1, round(guess * f)), rng, vocab))
            owner.append(i)
    owner = np.array(owner, np.int64)
    vi, vd = feat.sets(variants)
    both_ptr = np.concatenate([ind, vi[1:] + ind[-1]])
    both = np.concatenate([dat, vd])
    sim = Shingler.jaccard(both_ptr, both, owner, np.arange(len(variants)) + len(docs))
    fa = feat.fingerprints(docs)
    fv = feat.fingerprints(variants)

    for i in range(len(docs)):
        sel = np.flatnonzero((owner == i) & (sim >= threshold))
        if sel.size:
            j = sel[np.argmin(sim[sel])]
            d_out.append(int(hamming(int(fa[i]), int(fv[j]))))
            s_out.append(float(sim[j]))
    return np.array(d_out, np.int64), np.array(s_out)


def featurizer_for(hasher: Any = None, shingle: int = 3) -> Featurizer:
    """The :class:`~simhash_lab.shingles.Featurizer` of ``hasher`` (default: the recommended one,
    word ``shingle``-grams), texts taken as they are (not normalised)."""
    if hasher is None or Shingler(shingle).fuses(hasher):
        return Featurizer(DedupSettings(features="words", shingle=shingle, normalize=False))
    return Featurizer(DedupSettings(hasher=hasher, shingle=shingle, normalize=False))


def calibrate(
    source: Source | Sequence[str],
    fingerprints: np.ndarray,
    jaccard: float | None = None,
    *,
    threshold: float | None = None,
    hasher: Any = None,
    shingle: int = 3,
    recall: float = 0.95,
    sample: int = 1000,
    seed: int = 0,
    valid: np.ndarray | None = None,
    bar: Any = None,
    sets: Any = None,
    featurizer: Featurizer | None = None,
) -> Calibration:
    """Choose ``k`` for a Jaccard threshold by measuring, on a sample of the corpus, where its
    near-duplicate pairs lie in Hamming distance.

    ``sample`` documents are drawn at random (``seed``) among those with features; every other
    document within ``k_max`` bits of one of them (a linear popcount scan; ``k_max`` is the farthest
    distance at which random 64-bit fingerprints would still put only about 2 of the corpus, at
    most 24: 18 for a million documents, 20 for ten thousand) is compared with it by exact Jaccard;
    the pairs at or above ``jaccard`` are the
    measured ones, and ``k`` is the smallest distance that holds ``recall`` of them. Sampling
    documents samples pairs uniformly (a pair is seen when either end is drawn), so the fraction
    estimates the recall over all the corpus's pairs within ``k_max``. With fewer than 50 such
    pairs, pairs at the threshold made from the sampled documents (random word replacements) are
    measured instead: the worst case.

    Parameters
    ----------
    source : Source or sequence of str
        The documents (read again only for the sample and its neighbours).
    fingerprints : ndarray, shape (n,), uint64
        Their fingerprints by ``hasher``.
    jaccard : float
        The Jaccard threshold, 0 < jaccard <= 1.
    threshold : float, optional
        The deprecated name of ``jaccard`` (a DeprecationWarning).
    hasher : Simhasher or preset name, optional
        What made ``fingerprints``; its features are the shingles compared (default: the
        recommended hasher, word ``shingle``-grams).
    shingle : int, default 3
        Words per shingle when ``hasher`` is the default one.
    recall : float, default 0.95
        The fraction of the measured pairs ``k`` must hold, 0 < recall <= 1.
    sample : int, default 1000
        How many documents are drawn.
    seed : int, default 0
        The seed of the draw (and of the synthetic edits, when they are used).
    valid : ndarray of bool, optional
        Documents that may be sampled or matched (default: all).
    bar : tqdm progress bar, optional
        Advanced by the rows read again for their shingles (its total is set here).
    sets : CSR shingle sets, optional
        The sets of every row, when the caller holds them already: nothing is read again.
    featurizer : Featurizer, optional
        The shingles (:class:`~simhash_lab.shingles.Featurizer`; default: those of ``hasher``).

    Returns
    -------
    Calibration
    """
    feat = featurizer if featurizer is not None else featurizer_for(hasher, shingle)
    if threshold is not None:
        warnings.warn(
            "simhash_lab: calibrate(threshold=) is now calibrate(jaccard=)", DeprecationWarning, stacklevel=2
        )
        jaccard = threshold if jaccard is None else jaccard
    threshold = check_fraction("jaccard", jaccard)
    recall = check_fraction("recall", recall)
    sample = check_int("sample", sample, 1, 1 << 40)
    if not isinstance(source, Source):
        source = TextsSource(source)
    fps = np.ascontiguousarray(fingerprints, np.uint64)
    draw, rows = draw_sample(fps.shape[0], valid, sample, seed, feat.bits)
    hits = None
    if draw.picked.size:
        indptr, ids, d = neighbours_within(fps[draw.picked], fps[rows], draw.k_max)
        hits = (np.repeat(draw.picked, np.diff(indptr)), rows[ids], d)
    return measure(draw, hits, source, feat, threshold, recall, bar=bar, sets=sets)


@dataclass
class Draw:
    """The seeded sample of :func:`calibrate`, drawn before anything is measured: what a
    distributed run hands to the tasks that scan their own part of the fingerprints.

    Attributes
    ----------
    picked : ndarray of int64
        The sampled rows, sorted.
    k_max : int
        The farthest distance scanned from them.
    n : int
        Rows in all (sampled or not).
    rng : numpy.random.Generator
        The draw's generator, in the state the draw left it (the synthetic edits go on from it).
    """

    picked: np.ndarray
    k_max: int
    n: int
    rng: np.random.Generator


def draw_sample(
    n: int, valid: np.ndarray | None, sample: int, seed: int, bits: int
) -> tuple[Draw, np.ndarray]:
    """``(draw, rows)``: :func:`calibrate`'s sample of ``sample`` rows among ``rows`` (those
    ``valid``, default all ``n``), seeded, and the farthest distance scanned from it."""
    rows = np.arange(n) if valid is None else np.flatnonzero(valid)
    rng = np.random.default_rng(seed)
    k_max = _k_max(max(rows.size, 1), bits)
    picked = np.sort(rng.choice(rows, size=min(sample, rows.size), replace=False)) if rows.size else rows
    return Draw(picked, k_max, int(n), rng), rows


def measure(
    draw: Draw,
    hits: tuple[np.ndarray, np.ndarray, np.ndarray] | None,
    source: Source,
    feat: Featurizer,
    threshold: float,
    recall: float,
    *,
    bar: Any = None,
    sets: Any = None,
) -> Calibration:
    """The :class:`Calibration` of a draw from its neighbours: ``hits`` ``(a, b, d)``, each sampled
    row ``a`` with every searchable row ``b`` within ``draw.k_max`` bits of it at distance ``d``
    (in any order: the pairs are put in one order here), or None when nothing was sampled.

    ``sets``: anything whose ``subset(rows)`` gives the shingle sets of ``rows`` (a
    :class:`~simhash_lab.shingles.ChunkSets`, or the sets a distributed run gathered); without
    it the rows are read again from ``source``."""
    picked, k_max, n, rng = draw.picked, draw.k_max, draw.n, draw.rng
    bits = feat.bits
    dist = np.empty(0, np.int64)
    sims = np.empty(0)
    if picked.size:
        a, b, d = hits
        keep = a != b
        a, b, d = a[keep], b[keep], d[keep]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        key = np.unique(lo * np.int64(n) + hi, return_index=True)[1]
        lo, hi, d = lo[key], hi[key], d[key]
        if lo.size > 200_000:  # clustered fingerprints: look less far rather than read the corpus
            cut = np.sort(d)[200_000]
            sel = d < cut
            lo, hi, d = lo[sel], hi[sel], d[sel]
            k_max = int(cut) - 1
        need = np.unique(np.concatenate([picked, lo, hi]))
        if bar is not None and sets is None:  # the rows read again: a known total
            bar.total = int(need.size)
            bar.refresh()
        store = gather_sets(source, need, feat, bar, sets)
        la, lb = store.local(lo), store.local(hi)
        size = np.diff(store.indptr)
        small, large = np.minimum(size[la], size[lb]), np.maximum(size[la], size[lb])
        can = small >= threshold * large  # J <= |small| / |large|: the others cannot reach it
        s = Shingler.jaccard(store.indptr, store.data, la[can], lb[can], at_least=threshold)
        ok = s >= threshold
        dist, sims = d[can][ok].astype(np.int64), s[ok]
    method = "sample"
    if dist.size < MIN_CALIBRATION_PAIRS:
        method = "synthetic"
        texts = [t for _, ts in source.select(picked, CHUNK_ROWS) for t in ts]
        dist, sims = _synthetic_pairs(texts, feat, threshold, rng)
        k_max = bits - 1
    if dist.size == 0:  # nothing to measure (no document long enough to edit): Charikar's bound
        method = "theory"
        curve = _charikar_recall(threshold, bits)
        k_max = bits - 1
        reach = np.flatnonzero(curve >= recall)
        k = int(reach[0]) if reach.size else k_max
        rec = float(curve[k])
    else:
        curve = np.array([np.mean(dist <= j) for j in range(k_max + 1)])
        reach = np.flatnonzero(curve >= recall)
        k = int(reach[0]) if reach.size else k_max
        rec = float(curve[k])
    k = min(k, bits - 1)
    return Calibration(
        k, threshold, recall, rec, method, int(picked.size), int(dist.size), k_max, curve, dist, sims
    )


def _charikar_recall(threshold: float, bits: int) -> np.ndarray:
    """P(distance <= k), k = 0..bits-1, for two equal-sized sets at Jaccard ``threshold`` under
    binary weights: each bit differs with probability θ/π, cos θ = 2J / (1 + J) (Charikar)."""
    p = math.acos(min(1.0, 2 * threshold / (1 + threshold))) / math.pi
    pmf = [math.comb(bits, i) * p**i * (1 - p) ** (bits - i) for i in range(bits)]
    return np.minimum(np.cumsum(pmf), 1.0)


def neighbours_within(queries: np.ndarray, fps: np.ndarray, k: int):
    """CSR ``(indptr, positions in fps, distances)`` of every fingerprint within ``k`` of each query
    (positions increasing): one vectorised pass over ``fps`` (``kernels.dedup_steps.scan_within``),
    the queries in ranges on threads."""
    q = np.ascontiguousarray(queries, np.uint64)
    f = np.ascontiguousarray(fps, np.uint64)
    parts: dict[int, tuple] = {}

    def run(lo: int, hi: int) -> None:
        room = 8 * (hi - lo) + 1024  # a few random neighbours a query, then its real ones
        while True:
            oq, oi, od = np.empty(room, np.int64), np.empty(room, np.int64), np.empty(room, np.int64)
            c = scan_within(q[lo:hi], f, k, oq, oi, od)
            if c <= room:
                break
            room = c
        parts[lo] = (oq[:c] + lo, oi[:c], od[:c])

    run_items(q.size, run, q.size * f.size >= 1 << 18)
    got = [parts[lo] for lo in sorted(parts)]
    qs = np.concatenate([g[0] for g in got]) if got else np.empty(0, np.int64)
    order = np.argsort(qs, kind="stable")  # per query, the positions stay in increasing order
    indptr = np.zeros(q.size + 1, np.int64)
    np.cumsum(np.bincount(qs, minlength=q.size), out=indptr[1:])
    ids = np.concatenate([g[1] for g in got])[order] if got else np.empty(0, np.int64)
    d = np.concatenate([g[2] for g in got])[order] if got else np.empty(0, np.int64)
    return indptr, ids, d
