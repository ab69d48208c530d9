"""Near-duplicate detection methods side by side, and how to score them against labels.

Every method here takes a list of texts and returns the pairs it calls near-duplicates as an int64
array of shape (m, 2), rows ``(i, j)`` with ``i < j``, sorted (methods with a similarity also return
it, so one run can be thresholded many ways):

* :func:`simhash_pairs`: Simhash fingerprints and :class:`~simhash_lab.SimhashIndex` (Hamming
  distance <= k);
* :func:`minhash_lsh_pairs`: MinHash signatures of word shingles, candidates from LSH banding,
  kept when the estimated Jaccard similarity reaches the threshold (the ``datasketch`` package,
  ``pip install simhash-lab[compare]``);
* :func:`key_pairs` over :func:`longest_sentences_key`: the signature the Chinese source attributes
  to Baidu, an MD5 of the document's n longest sentences (n = 3);
* :func:`key_pairs` over :func:`md5_key`: exact duplicates after normalisation;
* :func:`jaccard_all_pairs`: exact Jaccard similarity of word-shingle sets over all pairs, the
  reference the approximate methods estimate (sparse matrix product, quadratic in the worst case).

:func:`pair_scores` and :func:`sweep` score found pairs against true ones; :func:`compare` runs all
methods on a :class:`~simhash_lab.corpus.LabelledSet` with the same metrics and wall-clock times.

>>> texts = ["a b c d e f", "a b c d e g", "x y z"]
>>> key_pairs([md5_key(t) for t in ["Hi  there", "hi there", "bye"]]).tolist()
[[0, 1]]
>>> pairs, sim = jaccard_all_pairs(texts, n=1, jaccard=0.5)
>>> pairs.tolist(), sim.round(3).tolist()
([[0, 1]], [0.714])
>>> pair_scores(pairs, np.array([[0, 1], [1, 2]]))
Scores(precision=1.0, recall=0.5, f1=0.6667, tp=1, fp=0, fn=1)
"""

from __future__ import annotations

import hashlib
import re
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._i18n import N_, _
from .._validate import check_int

__all__ = [
    "Scores",
    "MethodResult",
    "normalize",
    "md5_key",
    "sentences",
    "longest_sentences_key",
    "key_pairs",
    "shingle_sets",
    "jaccard_all_pairs",
    "minhash_lsh_pairs",
    "s_curve",
    "s_curve_threshold",
    "simhash_pairs",
    "simhash_distances",
    "tf_matrix",
    "cosines",
    "dot_shares",
    "idf_weights",
    "threshold_counts",
    "pair_values",
    "minhash_signatures",
    "minhash_estimates",
    "band_candidates",
    "set_at_jaccard",
    "banding_experiment",
    "datasketch_bands",
    "pair_scores",
    "sweep",
    "best_threshold",
    "compare",
    "format_table",
]


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


class Scores(NamedTuple):
    """Pairwise scores: precision = tp / (tp + fp) (1.0 when nothing is found), recall =
    tp / (tp + fn) (1.0 when there is nothing to find), F1 their harmonic mean (rounded to 4
    places for readable reprs; the counts are exact)."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int

    def __str__(self) -> str:
        """The scores as a sentence in the set language (``print`` shows it; ``repr`` stays the
        tuple's): ``precision 0.871, recall 0.643, F1 0.740 (TP 3457, FP 511, FN 1921)``."""
        return _("precision {p:.3f}, recall {r:.3f}, F1 {f:.3f} (TP {tp:,}, FP {fp:,}, FN {fn:,})").format(
            p=self.precision, r=self.recall, f=self.f1, tp=self.tp, fp=self.fp, fn=self.fn
        )


def _keys(pairs: np.ndarray) -> np.ndarray:
    p = np.asarray(pairs, dtype=np.int64)
    if p.size == 0:
        return np.empty(0, np.int64)
    p = p.reshape(p.shape[0], -1)
    lo = np.minimum(p[:, 0], p[:, 1])
    hi = np.maximum(p[:, 0], p[:, 1])
    return np.unique(lo * np.int64(1 << 31) + hi)


def pair_scores(found, truth) -> Scores:
    """Precision, recall and F1 of ``found`` pairs against ``truth`` pairs.

    Parameters
    ----------
    found, truth : array_like of shape (m, 2) or (m, 3), int
        Pairs ``(i, j)`` (any order within a row; duplicates count once; a third column, such as
        a distance, is ignored). Ids must be below 2**31.
    """
    f, t = _keys(found), _keys(truth)
    tp = int(np.intersect1d(f, t, assume_unique=True).size)
    return _scores(tp, int(f.size - tp), int(t.size - tp))


def _scores(tp: int, fp: int, fn: int) -> Scores:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return Scores(round(p, 4), round(r, 4), round(f1, 4), tp, fp, fn)


def sweep(pairs, score, truth, thresholds, *, higher_is_closer: bool = False) -> np.ndarray:
    """Precision, recall and F1 for each threshold, from one run that returned a score per pair.

    A pair is found at threshold ``t`` when ``score <= t`` (a distance; default) or
    ``score >= t`` (a similarity, ``higher_is_closer=True``); a pair listed twice counts once, found
    at its closer score. Equal to :func:`pair_scores` of the pairs found at each threshold, in one
    sort instead of one set intersection per threshold.

    Returns
    -------
    array of shape (len(thresholds), 3), float64
        Columns precision, recall, F1.
    """
    keys = _keys_in_order(pairs)
    score = np.asarray(score, dtype=np.float64).reshape(-1)
    if score.size != keys.size:
        raise ValueError(f"score must have one entry per pair ({keys.size}), got {score.size}")
    closeness = -score if higher_is_closer else score  # smaller is closer
    order = np.lexsort((closeness, keys))
    keys, closeness = keys[order], closeness[order]
    first = np.r_[True, keys[1:] != keys[:-1]] if keys.size else np.empty(0, bool)
    keys, closeness = keys[first], closeness[first]  # each pair once, at its closest score
    true = np.isin(keys, _keys(truth))
    n_truth = int(_keys(truth).size)
    by = np.argsort(closeness, kind="stable")
    c_sorted, tp_cum = closeness[by], np.cumsum(true[by])
    out = np.empty((len(thresholds), 3))
    for row, t in enumerate(thresholds):
        n = int(np.searchsorted(c_sorted, -t if higher_is_closer else t, side="right"))
        tp = int(tp_cum[n - 1]) if n else 0
        s = _scores(tp, n - tp, n_truth - tp)
        out[row] = s.precision, s.recall, s.f1
    return out


def best_threshold(thresholds, prf: np.ndarray):
    """The threshold with the highest F1 (the first such one), and its (precision, recall, F1)."""
    i = int(np.argmax(prf[:, 2]))
    return thresholds[i], tuple(float(x) for x in prf[i])


# --------------------------------------------------------------------------------------------
# Exact keys: MD5 of normalised text, Baidu's longest sentences
# --------------------------------------------------------------------------------------------

_WS = re.compile(r"\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?;。！？；])\s*|\n\s*\n")


def normalize(text: str) -> str:
    """NFKC, case-folded, runs of whitespace collapsed to one space, stripped."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def md5_key(text: str) -> str:
    """Hex MD5 of :func:`normalize` (``text``): equal only for texts that differ in nothing but
    case, Unicode form and whitespace."""
    return hashlib.md5(normalize(text).encode("utf-8")).hexdigest()


def sentences(text: str) -> list[str]:
    """``text`` split after ``. ! ? ;`` (and their full-width Chinese forms) and at blank lines,
    each sentence normalised, empty ones dropped."""
    return [s for s in (normalize(p) for p in _SENTENCE_END.split(text)) if s]


def longest_sentences_key(text: str, n: int = 3) -> str:
    """The signature the Chinese source (004) attributes to Baidu: "find the n longest sentences
    of the article and hash them" (n = 3).

    The ``n`` longest of :func:`sentences` (by characters; ties to the earlier one), in document
    order, joined by newlines, MD5 in hex. Two documents match when the signatures are equal.
    """
    n = check_int("n", n, 1, 1_000_000)
    s = sentences(text)
    top = sorted(sorted(range(len(s)), key=lambda i: (-len(s[i]), i))[:n])
    return hashlib.md5("\n".join(s[i] for i in top).encode("utf-8")).hexdigest()


def key_pairs(keys: Sequence) -> np.ndarray:
    """All pairs of positions with equal keys: int64 (m, 2), ``i < j``, sorted."""
    groups: dict = {}
    for i, k in enumerate(keys):
        groups.setdefault(k, []).append(i)
    rows = [(a, b) for g in groups.values() if len(g) > 1 for x, a in enumerate(g) for b in g[x + 1 :]]
    out = np.array(rows, dtype=np.int64).reshape(-1, 2)
    return out[np.lexsort((out[:, 1], out[:, 0]))] if out.size else out


# --------------------------------------------------------------------------------------------
# Shingles: exact Jaccard and MinHash
# --------------------------------------------------------------------------------------------


def shingle_sets(texts: Sequence[str], n: int = 3) -> list[set]:
    """Each text's set of word n-shingles (:func:`simhash_lab.tokenize.word_shingles`: lowercased
    ``\\w+`` words, n at a time, joined by one space)."""
    from ..tokenize import word_shingles

    tok = word_shingles(check_int("n", n, 1, 64))
    return [set(tok(t)) for t in texts]


def jaccard_all_pairs(
    texts: Sequence[str],
    n: int = 3,
    jaccard: float = 0.0,
    sets: Sequence[set] | None = None,
    *,
    min_similarity: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact Jaccard similarity |A ∩ B| / |A ∪ B| of the shingle sets of every pair of texts.

    One sparse product ``X Xᵀ`` of the binary document-by-shingle matrix gives every intersection
    at once; pairs that share no shingle are never touched.

    Parameters
    ----------
    jaccard : float
        Keep pairs with similarity >= this (pairs with similarity 0 are never returned);
        ``min_similarity`` is its deprecated name.
    sets : list of set, optional
        Precomputed :func:`shingle_sets` (then ``texts`` is not read).

    Returns
    -------
    pairs : array of shape (m, 2), int64, rows i < j, sorted
    similarity : array of shape (m,), float64
    """
    from scipy.sparse import csr_matrix, triu

    if min_similarity is not None:
        import warnings

        msg = "simhash_lab.course.compare: jaccard_all_pairs(min_similarity=) is now jaccard="
        warnings.warn(msg, DeprecationWarning, stacklevel=2)
        jaccard = min_similarity
    sets = shingle_sets(texts, n) if sets is None else sets
    vocab: dict = {}
    indptr = [0]
    indices: list[int] = []
    for s in sets:
        indices.extend(vocab.setdefault(x, len(vocab)) for x in s)
        indptr.append(len(indices))
    nd = len(sets)
    X = csr_matrix(
        (np.ones(len(indices), np.int32), np.array(indices, np.int64), np.array(indptr)),
        shape=(nd, max(1, len(vocab))),
    )
    inter = triu(X @ X.T, k=1).tocoo()
    sizes = np.diff(np.array(indptr))
    i, j, c = inter.row.astype(np.int64), inter.col.astype(np.int64), inter.data.astype(np.float64)
    sim = c / (sizes[i] + sizes[j] - c)
    keep = (sim >= jaccard) & (c > 0)
    i, j, sim = i[keep], j[keep], sim[keep]
    order = np.lexsort((j, i))
    return np.stack([i[order], j[order]], axis=1).reshape(-1, 2), sim[order]


def s_curve(s, r: int, b: int):
    """AND-then-OR amplification: the chance that at least one of ``b`` bands of ``r`` rows agrees
    in every row, when each row agrees independently with probability ``s``:
    ``1 - (1 - s**r)**b``.

    With MinHash rows ``s`` is the Jaccard similarity (Mining of Massive Datasets, 3.4.2); with
    Simhash bits it is ``1 - theta/pi`` and ``r = 16, b = 4`` is the seed's block index.

    >>> round(float(s_curve(0.5, 5, 25)), 4)  # 1 - (31/32)**25
    0.5478
    """
    r = check_int("r", r, 1, 1 << 20)
    b = check_int("b", b, 1, 1 << 20)
    s = np.asarray(s, dtype=np.float64)
    return 1.0 - (1.0 - s**r) ** b


def s_curve_threshold(r: int, b: int) -> float:
    """Where the S-curve rises steepest, approximately: ``(1/b)**(1/r)`` (MMDS 3.4.2).

    >>> round(s_curve_threshold(5, 25), 3)
    0.525
    """
    r = check_int("r", r, 1, 1 << 20)
    b = check_int("b", b, 1, 1 << 20)
    return (1.0 / b) ** (1.0 / r)


def _datasketch():
    try:
        import datasketch
    except ImportError:
        raise ImportError(
            "MinHash needs the datasketch package, part of the `compare` extra: "
            "pip install 'simhash-lab[compare]'"
        ) from None
    return datasketch


def minhash_lsh_pairs(
    texts: Sequence[str],
    threshold: float = 0.5,
    num_perm: int = 128,
    n: int = 3,
    seed: int = 1,
    sets: Sequence[set] | None = None,
    params: tuple[int, int] | None = None,
):
    """MinHash signatures of word n-shingles, LSH banding for candidates, estimated Jaccard to keep.

    ``datasketch.MinHashLSH`` picks the banding (b bands of r rows, b * r <= ``num_perm``) that
    minimises the weighted false positive and negative probabilities at ``threshold`` unless
    ``params=(b, r)`` is given. Candidates (pairs sharing a band) are kept when their estimated
    Jaccard similarity (matching MinHash values / ``num_perm``) is >= ``threshold``.

    Returns
    -------
    pairs : array of shape (m, 2), int64, rows i < j, sorted
    estimate : array of shape (m,), float64
    info : dict
        ``b``, ``r`` and ``candidates`` (pairs that shared a band, before the check).
    """
    ds = _datasketch()
    sets = shingle_sets(texts, n) if sets is None else sets
    mhs = ds.MinHash.bulk([[s.encode("utf-8") for s in x] for x in sets], num_perm=num_perm, seed=seed)
    lsh = ds.MinHashLSH(threshold=threshold, num_perm=num_perm, params=params)
    with lsh.insertion_session() as sess:
        for i, m in enumerate(mhs):
            sess.insert(i, m, check_duplication=False)
    hv = np.stack([m.hashvalues for m in mhs]) if mhs else np.empty((0, num_perm), np.uint64)
    cand = set()
    for i, m in enumerate(mhs):
        for j in lsh.query(m):
            if j > i:
                cand.add((i, j))
    c = np.array(sorted(cand), dtype=np.int64).reshape(-1, 2)
    est = (hv[c[:, 0]] == hv[c[:, 1]]).mean(axis=1) if c.size else np.empty(0)
    keep = est >= threshold
    return c[keep], est[keep], {"b": lsh.b, "r": lsh.r, "candidates": int(c.shape[0])}


# --------------------------------------------------------------------------------------------
# Simhash
# --------------------------------------------------------------------------------------------


def simhash_pairs(texts: Sequence[str], k: int = 3, hasher=None, fps=None) -> np.ndarray:
    """Pairs within Hamming distance ``k``: :meth:`SimhashIndex.pairs`, rows ``(i, j, d)``.

    ``hasher`` defaults to ``Simhasher()`` (64 bits, words, TF); pass ``fps`` to skip hashing.
    """
    from ..index import SimhashIndex
    from ..simhasher import Simhasher

    hasher = Simhasher() if hasher is None else hasher
    fps = hasher.fingerprints(texts) if fps is None else np.asarray(fps, dtype=np.uint64)
    index = SimhashIndex(k=k, bits=hasher.bits)
    index.add_many(fps)
    return index.pairs()


def simhash_distances(fps, max_k: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Every pair within ``max_k`` and its Hamming distance, for sweeping k: ``(pairs (m, 2),
    d (m,))``. With ``max_k`` >= bits this is all pairs (quadratic memory: small sets only)."""
    from ..hamming import hamming

    fps = np.asarray(fps, dtype=np.uint64)
    i, j = np.triu_indices(fps.size, 1)
    d = hamming(fps[i], fps[j]).astype(np.int64)
    keep = d <= max_k
    return np.stack([i[keep], j[keep]], axis=1).astype(np.int64), d[keep]


def pair_values(pairs, values, query, fill: float = 0.0) -> np.ndarray:
    """Look up a value per pair: ``values[r]`` belongs to ``pairs[r]``; for each row of ``query``
    return the value of the same pair (either order), or ``fill`` where ``pairs`` does not hold it.

    >>> pair_values([[0, 1], [2, 5]], [0.9, 0.4], [[5, 2], [0, 3], [1, 0]]).tolist()
    [0.4, 0.0, 0.9]
    """
    known, vals = _keys_in_order(pairs), np.asarray(values, dtype=np.float64)
    if known.size != vals.size:
        raise ValueError(f"values must have one entry per pair ({known.size}), got {vals.size}")
    order = np.argsort(known, kind="stable")
    known, vals = known[order], vals[order]
    q = _keys_in_order(query)
    at = np.clip(np.searchsorted(known, q), 0, max(known.size - 1, 0))
    hit = (known.size > 0) & (known[at] == q) if known.size else np.zeros(q.size, bool)
    out = np.full(q.size, float(fill))
    out[hit] = vals[at[hit]]
    return out


def _keys_in_order(pairs) -> np.ndarray:
    """One int64 key per row (``min * 2**31 + max``), in the rows' order (no de-duplication)."""
    p = np.asarray(pairs, dtype=np.int64)
    if p.size == 0:
        return np.empty(0, np.int64)
    p = p.reshape(p.shape[0], -1)
    return np.minimum(p[:, 0], p[:, 1]) * np.int64(1 << 31) + np.maximum(p[:, 0], p[:, 1])


def threshold_counts(dist, is_dup, ks) -> np.ndarray:
    """For each threshold k, the pairs flagged at distance ``<= k`` counted against the labels.

    Parameters
    ----------
    dist : array_like of shape (m,), int
        Every pair's distance (all pairs of the set, so that the misses can be counted).
    is_dup : array_like of shape (m,), bool
        Whether each pair is a near-duplicate.
    ks : sequence of int

    Returns
    -------
    array of shape (len(ks), 3), int64
        Columns: true positives, false positives, false negatives (copies missed).
    """
    dist = np.asarray(dist)
    is_dup = np.asarray(is_dup, dtype=bool)
    if dist.shape != is_dup.shape:
        raise ValueError(f"dist and is_dup must have the same shape, got {dist.shape} and {is_dup.shape}")
    out = np.empty((len(ks), 3), dtype=np.int64)
    total = int(is_dup.sum())
    for row, k in enumerate(ks):
        flagged = dist <= k
        tp = int((flagged & is_dup).sum())
        out[row] = tp, int(flagged.sum()) - tp, total - tp
    return out


# --------------------------------------------------------------------------------------------
# TF vectors: what Simhash's angle is measured on
# --------------------------------------------------------------------------------------------


def tf_matrix(texts: Sequence[str], tokenizer=None):
    """The documents' term-frequency vectors, each scaled to length 1.

    Parameters
    ----------
    tokenizer : callable, optional
        ``text -> list of str``; default :func:`simhash_lab.tokenize.words` (what ``Simhasher()``
        votes with).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n, vocabulary), float64
        Row i is document i's counts divided by their Euclidean norm (a zero row for a text with
        no tokens).
    vocab : list of str
        The column of each token.
    """
    from collections import Counter

    from scipy.sparse import csr_matrix

    from ..tokenize import words

    tok = words() if tokenizer is None else tokenizer
    index: dict[str, int] = {}
    indptr, indices, data = [0], [], []
    for t in texts:
        c = Counter(tok(t))
        indices.extend(index.setdefault(w, len(index)) for w in c)
        data.extend(c.values())
        indptr.append(len(indices))
    X = csr_matrix(
        (np.array(data, np.float64), np.array(indices, np.int64), np.array(indptr, np.int64)),
        shape=(len(indptr) - 1, max(1, len(index))),
    )
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    X = csr_matrix(X.multiply(scale[:, None]))
    return X, sorted(index, key=index.get)


def cosines(X, pairs) -> np.ndarray:
    """Cosine similarity of rows ``i`` and ``j`` of a row-normalised matrix (:func:`tf_matrix`) for
    each pair: array of shape (m,), float64 (0 for an empty row)."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, np.shape(pairs)[-1] if np.size(pairs) else 2)
    if X.shape[0] <= 4096:  # a dense Gram matrix is small: one product, then a lookup per pair
        G = (X @ X.T).toarray()
        return G[p[:, 0], p[:, 1]]
    return np.asarray(X[p[:, 0]].multiply(X[p[:, 1]]).sum(axis=1)).ravel()


def dot_shares(X, vocab: Sequence[str], pairs, top: int = 10) -> list[tuple[str, float]]:
    """The tokens that contribute most to the pairs' dot products: ``(token, share)`` where share is
    the token's part of ``sum over pairs of u · v``, largest first (``top`` of them)."""
    from scipy.sparse import csr_matrix

    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    n = X.shape[0]
    A = csr_matrix((np.ones(len(p)), (p[:, 0], p[:, 1])), shape=(n, n))  # A[i, j] = 1 for each pair
    contrib = np.asarray(X.multiply(A @ X).sum(axis=0)).ravel()  # sum over pairs of X[i, w] X[j, w]
    total = contrib.sum()
    order = np.argsort(-contrib)[: check_int("top", top, 1, 1 << 30)]
    return [(vocab[c], float(contrib[c] / total) if total else 0.0) for c in order]


def idf_weights(texts: Sequence[str], tokenizer=None) -> dict:
    """Inverse document frequency of every token: ``log(n / df)``, where ``df`` is the number of
    the ``n`` texts that contain it. Pass it as ``Simhasher(weights=...)``: each occurrence then
    votes its IDF (TF x IDF), and a token found in every text votes 0."""
    import math
    from collections import Counter

    from ..tokenize import words

    tok = words() if tokenizer is None else tokenizer
    df: Counter = Counter()
    for t in texts:
        df.update(set(tok(t)))
    n = len(texts)
    return {w: math.log(n / c) for w, c in df.items()}


# --------------------------------------------------------------------------------------------
# MinHash and banding, step by step
# --------------------------------------------------------------------------------------------


def minhash_signatures(sets: Sequence[set], num_perm: int = 128, seed: int = 1) -> np.ndarray:
    """MinHash signatures of shingle sets (:func:`shingle_sets`), from datasketch.

    Row ``i``, column ``c``: the smallest value of the ``c``-th random hash function
    ``h_c(x) = (a_c x + b_c) mod (2^61 - 1)`` (truncated to 32 bits) over the elements of set ``i``,
    as ``datasketch.MinHash.bulk`` computes it, so that two rows agree in column ``c`` with
    probability equal to the sets' Jaccard similarity.

    Returns
    -------
    array of shape (len(sets), num_perm), uint64
    """
    ds = _datasketch()
    num_perm = check_int("num_perm", num_perm, 1, 1 << 16)
    mhs = ds.MinHash.bulk([[x.encode("utf-8") for x in s] for s in sets], num_perm=num_perm, seed=seed)
    if not mhs:
        return np.empty((0, num_perm), np.uint64)
    return np.stack([m.hashvalues for m in mhs]).astype(np.uint64)


def minhash_estimates(sig: np.ndarray, pairs) -> np.ndarray:
    """The MinHash estimate of each pair's Jaccard similarity: the share of signature columns in which
    rows ``i`` and ``j`` agree. Array of shape (m,), float64."""
    p = np.asarray(pairs, dtype=np.int64).reshape(-1, np.shape(pairs)[-1] if np.size(pairs) else 2)
    return (sig[p[:, 0]] == sig[p[:, 1]]).mean(axis=1)


def band_candidates(sig: np.ndarray, b: int, r: int) -> np.ndarray:
    """LSH banding: the pairs of rows that agree on every column of at least one band.

    The first ``b * r`` columns of ``sig`` are cut into ``b`` bands of ``r`` columns; each band's
    columns, taken together, are a key, and rows with equal keys in some band are candidates
    (Mining of Massive Datasets, 3.4.1). Found by sorting the keys, never by looking at all pairs.

    Returns
    -------
    array of shape (m, 2), int64
        Rows ``i < j``, sorted, each once.
    """
    sig = np.asarray(sig)
    b = check_int("b", b, 1, 1 << 20)
    r = check_int("r", r, 1, 1 << 20)
    if b * r > sig.shape[1]:
        raise ValueError(f"b * r must be at most the signature length {sig.shape[1]}, got {b} * {r}")
    found = []
    for band in range(b):
        block = np.ascontiguousarray(sig[:, band * r : (band + 1) * r])
        keys = block.view(np.dtype((np.void, block.dtype.itemsize * r))).ravel()
        _, inv = np.unique(keys, return_inverse=True)
        order = np.argsort(inv, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(inv[order]) != 0])
        sizes = np.diff(np.r_[starts, order.size])
        for st, sz in zip(starts[sizes > 1], sizes[sizes > 1]):
            g = np.sort(order[st : st + sz])
            i, j = np.triu_indices(sz, 1)
            found.append(g[i] * np.int64(1 << 31) + g[j])
    if not found:
        return np.empty((0, 2), np.int64)
    keys = np.unique(np.concatenate(found))
    return np.stack([keys >> 31, keys & ((1 << 31) - 1)], axis=1).astype(np.int64)


def set_at_jaccard(base: set, j: float, rng, *, tag: str = "new") -> set:
    """A set whose Jaccard similarity with ``base`` is ``j`` (as near as whole elements allow): it
    keeps ``m = round(2 |A| j / (1 + j))`` elements of ``A = base`` and adds ``|A| - m`` elements
    that are not in ``A``, so ``|A ∩ B| = m`` and ``|A ∪ B| = 2 |A| - m``.

    ``rng`` is a :class:`numpy.random.Generator`; new elements are ``f"{tag}:{i}"`` strings.
    """
    if not 0.0 <= j <= 1.0:
        raise ValueError(f"j must be between 0 and 1, got {j!r}")
    a = sorted(base)
    m = round(2 * len(a) * j / (1 + j))
    kept = [a[i] for i in rng.choice(len(a), m, replace=False)] if m else []
    return set(kept) | {f"{tag}:{i}" for i in range(len(a) - m)}


def banding_experiment(
    sets: Sequence[set], b: int, r: int, *, n_pairs: int = 2000, num_perm: int = 128, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Measure LSH banding on pairs of known Jaccard similarity spread evenly over [0, 1].

    Each pair is one of ``sets`` (drawn at random, non-empty) and :func:`set_at_jaccard` of it at a
    similarity drawn uniformly from [0, 1]; both get MinHash signatures (:func:`minhash_signatures`)
    and the pair is a candidate when some band of ``r`` rows (of ``b``) agrees entirely.

    Returns
    -------
    jaccard : array of shape (n_pairs,), float64
        The exact Jaccard similarity of each pair.
    candidate : array of shape (n_pairs,), bool
    """
    rng = np.random.default_rng(seed)
    n_pairs = check_int("n_pairs", n_pairs, 1, 10**7)
    pool = [s for s in sets if s]
    if not pool:
        raise ValueError("sets must hold at least one non-empty set")
    left, right, jac = [], [], []
    for p in range(n_pairs):
        a = pool[rng.integers(len(pool))]
        bset = set_at_jaccard(a, float(rng.random()), rng, tag=f"pair{p}")
        left.append(a)
        right.append(bset)
        jac.append(len(a & bset) / len(a | bset))
    sig = minhash_signatures(left + right, num_perm=num_perm, seed=int(rng.integers(1, 2**31)))
    x, y = sig[:n_pairs, : b * r], sig[n_pairs:, : b * r]
    agree = (x == y).reshape(n_pairs, b, r).all(axis=2).any(axis=1)
    return np.array(jac), agree


def datasketch_bands(threshold: float, num_perm: int = 128) -> tuple[int, int]:
    """The ``(b, r)`` that ``datasketch.MinHashLSH(threshold, num_perm)`` chooses: the banding whose
    S-curve has the smallest sum of false-positive area (below the threshold) and false-negative
    area (above it)."""
    ds = _datasketch()
    lsh = ds.MinHashLSH(threshold=threshold, num_perm=check_int("num_perm", num_perm, 2, 1 << 16))
    return int(lsh.b), int(lsh.r)


# --------------------------------------------------------------------------------------------
# Side by side
# --------------------------------------------------------------------------------------------


@dataclass
class MethodResult:
    """One method's run: its name and settings, scores against the labels, and wall time."""

    method: str
    setting: str
    scores: Scores
    seconds: float
    found: int

    def row(self, times: bool = True) -> str:
        s = self.scores
        t = f"  {self.seconds * 1e3:9.1f}" if times else ""
        w = _recall_width()
        return (
            f"{_(self.method):<30} {self.setting:<30} {s.precision:9.3f} {s.recall:{w}.3f} "
            f"{s.f1:6.3f} {self.found:7d}{t}"
        )


def _recall_width() -> int:
    """The recall column's width: its header's in the language shown ("exhaustividad" in Spanish)."""
    return max(6, len(_("recall")))


def format_table(results: Sequence[MethodResult], times: bool = True) -> str:
    """A fixed-width table of results, one method per line."""
    w = _recall_width()
    head = (
        f"{_('method'):<30} {_('setting'):<30} {_('precision'):>9} {_('recall'):>{w}} "
        f"{'F1':>6} {_('pairs'):>7}" + (f"  {_('time (ms)'):>9}" if times else "")
    )
    return "\n".join([head, "-" * len(head)] + [r.row(times) for r in results])


def _timed(fn: Callable, repeat: int):
    best, out = float("inf"), None
    for _rep in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def compare(
    labelled,
    *,
    k: int = 3,
    hasher=None,
    jaccard: float = 0.5,
    minhash: float = 0.5,
    num_perm: int = 128,
    shingle: int = 3,
    sentences_n: int = 3,
    repeat: int = 1,
) -> list[MethodResult]:
    """Run every method on ``labelled.docs`` and score it against ``labelled.truth()``.

    Times are end to end, texts to pairs (tokenizing, hashing, indexing, verifying), best of
    ``repeat`` runs, after one warm-up call of Simhash's compiled kernels. MinHash is left out
    (with a note in its row) when datasketch is missing.

    Returns
    -------
    list of MethodResult
        Simhash, MinHash + LSH, Baidu's longest sentences, MD5 of normalised text, exact Jaccard.
    """
    from ..simhasher import Simhasher

    texts, truth = list(labelled.docs), labelled.truth()
    hasher = Simhasher() if hasher is None else hasher
    simhash_pairs(texts[:2], k=k, hasher=hasher)  # warm-up: load compiled kernels
    out = []
    from .widgets import Progress

    bar = Progress(_("methods run"), total=5)
    try:
        bar.update(0)
        found, t = _timed(lambda: simhash_pairs(texts, k=k, hasher=hasher), repeat)
        out.append(
            MethodResult(
                N_("Simhash + SimhashIndex"),
                _("{bits} bits, k={k}").format(bits=hasher.bits, k=k),
                pair_scores(found, truth),
                t,
                len(found),
            )
        )
        try:
            _datasketch()
        except ImportError:
            pass
        else:
            bar.update(1)
            (found, _sets, info), t = _timed(
                lambda: minhash_lsh_pairs(texts, threshold=minhash, num_perm=num_perm, n=shingle), repeat
            )
            out.append(
                MethodResult(
                    N_("MinHash + LSH banding"),
                    _("{num_perm} perm, b={b} r={r}, J>={minhash}").format(
                        num_perm=num_perm, b=info["b"], r=info["r"], minhash=minhash
                    ),
                    pair_scores(found, truth),
                    t,
                    len(found),
                )
            )
        bar.update(2)
        found, t = _timed(lambda: key_pairs([longest_sentences_key(x, sentences_n) for x in texts]), repeat)
        out.append(
            MethodResult(
                N_("Baidu: longest sentences"),
                f"n={sentences_n}, MD5",
                pair_scores(found, truth),
                t,
                len(found),
            )
        )
        bar.update(3)
        found, t = _timed(lambda: key_pairs([md5_key(x) for x in texts]), repeat)
        out.append(
            MethodResult(N_("MD5 of normalised text"), _("exact"), pair_scores(found, truth), t, len(found))
        )
        bar.update(4)
        (found, _sims), t = _timed(lambda: jaccard_all_pairs(texts, n=shingle, jaccard=jaccard), repeat)
        out.append(
            MethodResult(
                N_("Shingles, exact Jaccard"),
                _("{shingle}-word, J>={jaccard}").format(shingle=shingle, jaccard=jaccard),
                pair_scores(found, truth),
                t,
                len(found),
            )
        )
    finally:
        bar.close()
    return out
