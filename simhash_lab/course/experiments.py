"""The measured experiments of notebooks 00 to 04: each function computes, the notebook plots.

Every function takes its randomness as an explicit ``seed`` (NumPy's ``default_rng``) and returns
plain arrays, so a notebook cell is one short call and the plot helpers in
:mod:`simhash_lab.course.plot` draw the result.

* :func:`paragraphs`: the paragraphs of Python's reference manual, the course's real text;
* :func:`replace_words`, :func:`unrelated_pairs`: small edits and unrelated pairs of them;
* :func:`flipped_accumulators` (02): which accumulators one replaced word can flip;
* :func:`idf`, :func:`weighting_distances` (02): TF against TF-IDF on edited and unrelated pairs;
* :func:`tf_angle`, :func:`document_angles` (04): angles of TF vectors against Hamming distances;
* :func:`dense_tradeoff` (04): random hyperplanes on dense vectors, bits against recall and
  bucket sizes.

>>> docs = paragraphs()
>>> len(docs) > 500 and all(40 <= len(d.split()) <= 150 for d in docs)
True
>>> import numpy as np
>>> round(float(np.degrees(tf_angle({"a": 1, "b": 1}, {"b": 1, "c": 1}))), 1)
60.0
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from .._i18n import _

__all__ = [
    "paragraphs",
    "replace_words",
    "unrelated_pairs",
    "flipped_accumulators",
    "idf",
    "weighting_distances",
    "tf_angle",
    "document_angles",
    "dense_tradeoff",
]


def paragraphs(min_words: int = 40, max_words: int = 150) -> list[str]:
    """The paragraphs of Python's reference manual (``pydoc_data.topics``, shipped with every
    Python) with ``min_words`` to ``max_words`` words, whitespace collapsed to single spaces,
    topics in sorted order."""
    from pydoc_data.topics import topics

    out = []
    for key in sorted(topics):
        for p in topics[key].split("\n\n"):
            words = p.split()
            if min_words <= len(words) <= max_words:
                out.append(" ".join(words))
    return out


def replace_words(text: str, n: int, rng: np.random.Generator, vocab: Sequence[str]) -> str:
    """``text`` with ``n`` of its (whitespace-separated) words, at distinct random places, replaced
    by random words of ``vocab``."""
    w = text.split()
    for k in rng.choice(len(w), min(n, len(w)), replace=False):
        w[k] = vocab[int(rng.integers(len(vocab)))]
    return " ".join(w)


def unrelated_pairs(n_docs: int, n_pairs: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n_pairs`` random index pairs ``(i, j)`` into ``n_docs`` documents with ``i != j``."""
    i = rng.integers(n_docs, size=n_pairs)
    j = (i + rng.integers(1, n_docs, size=n_pairs)) % n_docs  # never i itself
    return i, j


def flipped_accumulators(hasher, docs: Sequence[str], seed: int = 0):
    """Replace one word of each document by another word of the corpus; record, for every bit
    that flipped, its accumulator ``V[i]`` before the edit.

    The edit works on ``hasher``'s features (one occurrence of one feature replaced by a random
    feature of the corpus; both vote with weight 1), so it is exactly "one word replaced".

    Returns
    -------
    before : ndarray, float64
        ``V[i]`` before the edit, one entry per flipped bit (all documents together).
    flips : ndarray, int
        How many bits flipped in each document.
    """
    rng = np.random.default_rng(seed)
    feats = [hasher.features(d) for d in docs]
    vocab = sorted({f for fs in feats for f in fs})
    before, flips = [], []
    for fs in feats:
        edited = list(fs)
        edited[int(rng.integers(len(fs)))] = vocab[int(rng.integers(len(vocab)))]
        v0, v1 = hasher.accumulators(fs), hasher.accumulators(edited)
        changed = (v0 > 0) != (v1 > 0)
        before.extend(v0[changed].tolist())
        flips.append(int(changed.sum()))
    return np.array(before), np.array(flips)


def idf(hasher, docs: Sequence[str]) -> dict[str, float]:
    """Session 59's inverse document frequency of every feature ``hasher`` cuts ``docs`` into:
    ``idf(t) = ln(N / df(t))``, ``df(t)`` the number of documents containing t."""
    df = Counter(f for d in docs for f in set(hasher.features(d)))
    n = len(docs)
    return {f: math.log(n / c) for f, c in sorted(df.items())}


def weighting_distances(
    hashers: Mapping[str, object],
    docs: Sequence[str],
    *,
    n_pairs: int = 400,
    replaced: int = 3,
    seed: int = 0,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Hamming distances of unrelated pairs and of edited copies, under several hashers.

    ``n_pairs`` random pairs of different documents (the same pairs for every hasher), and each
    pair's first document against a copy with ``replaced`` words replaced by random words of the
    corpus. Returns ``{name: (unrelated, edited)}``, uint8 arrays of shape (n_pairs,).
    """
    from .. import hamming

    rng = np.random.default_rng(seed)
    vocab = sorted({w for d in docs for w in d.split()})
    i, j = unrelated_pairs(len(docs), n_pairs, rng)
    a = [docs[k] for k in i]
    b = [docs[k] for k in j]
    e = [replace_words(x, replaced, rng, vocab) for x in a]
    out = {}
    for name, h in hashers.items():
        fa = h.fingerprints(a)
        out[name] = (hamming(fa, h.fingerprints(b)), hamming(fa, h.fingerprints(e)))
    return out


def tf_angle(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    """The angle (radians) between two sparse vectors given as ``{feature: weight}``."""
    dot = sum(x * b.get(k, 0.0) for k, x in a.items())
    na = math.sqrt(sum(x * x for x in a.values()))
    nb = math.sqrt(sum(x * x for x in b.values()))
    if na == 0 or nb == 0:
        return math.pi / 2
    return math.acos(max(-1.0, min(1.0, dot / (na * nb))))


def document_angles(
    hasher,
    docs: Sequence[str],
    *,
    n_rewritten: int = 800,
    n_unrelated: int = 400,
    max_fraction: float = 0.9,
    seed: int = 0,
):
    """Pairs of documents at every angle, with their TF angle and Hamming distance.

    ``n_rewritten`` random documents are paired with a copy in which a random fraction (uniform in
    0..``max_fraction``) of the words was replaced, which covers small and middle angles;
    ``n_unrelated`` random pairs of different documents cover the large ones.

    Returns
    -------
    theta : ndarray, float64 (radians)
        The angle between the two TF vectors (counts of ``hasher.features``).
    dist : ndarray, uint8
        The Hamming distance of their fingerprints.
    unrelated : ndarray, bool
        Which pairs are unrelated documents.
    """
    from .. import hamming

    rng = np.random.default_rng(seed)
    vocab = sorted({w for d in docs for w in d.split()})
    a = [docs[int(k)] for k in rng.integers(len(docs), size=n_rewritten)]
    b = [
        replace_words(x, int(f * len(x.split())), rng, vocab)
        for x, f in zip(a, rng.uniform(0, max_fraction, n_rewritten))
    ]
    i, j = unrelated_pairs(len(docs), n_unrelated, rng)
    a += [docs[k] for k in i]
    b += [docs[k] for k in j]
    theta = np.array(
        [tf_angle(Counter(hasher.features(x)), Counter(hasher.features(y))) for x, y in zip(a, b)]
    )
    dist = hamming(hasher.fingerprints(a), hasher.fingerprints(b))
    return theta, dist, np.arange(len(a)) >= n_rewritten


def dense_tradeoff(
    bits: Sequence[int] = (2, 4, 6, 8, 12, 16, 24, 32, 48, 64),
    *,
    tables: Sequence[int] = (1, 4),
    n: int = 20_000,
    dim: int = 128,
    clusters: int = 100,
    queries: int = 100,
    k: int = 10,
    angles: tuple[float, float] = (5.0, 30.0),
    seed: int = 0,
) -> dict[str, np.ndarray]:
    """Random-hyperplane LSH on dense vectors: what more bits per table buy and cost, as in
    Pinecone's article on random projection.

    ``n`` dense vectors in ``dim`` dimensions around ``clusters`` random centres (like embeddings,
    they crowd in some directions), and ``queries`` random queries, each with ``k`` planted
    neighbours at angles uniform in ``angles`` degrees; a query's true neighbours are its ``k``
    nearest by cosine among all ``n + queries * k`` vectors. For each width ``b`` in ``bits``:

    * **buckets**: a table keys every vector on its b-bit signature (b Gaussian hyperplanes,
      :func:`simhash_lab.hyperplane_signatures`); a query's candidates are the vectors in its
      bucket, in any of L tables with hyperplanes of their own (L in ``tables``). Recall is the
      share of true neighbours among the candidates, and the cost is the number of candidates;
    * **ranking**: every vector ranked by the Hamming distance of its b-bit signature (ties by
      index) and the first ``k`` returned, as Faiss's ``IndexLSH`` does: a full scan of the
      signatures, no buckets.

    Returns
    -------
    dict of ndarrays
        ``bits`` (w,); ``tables`` (t,); ``bucket_recall`` and ``candidates`` (t, w): mean over
        queries; ``buckets`` (w,): non-empty buckets of one table; ``ranking_recall`` (w,); the
        predicted ``bucket_recall_theory`` (t, w) = mean of 1 − (1 − (1 − θ/π)^b)^L over the planted
        neighbours; and the scalars ``n`` (vectors stored) and ``k``.
    """
    from .. import hamming, hyperplane_signatures

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    X = centres[rng.integers(clusters, size=n)] + 0.8 * rng.standard_normal((n, dim))
    Q = rng.standard_normal((queries, dim))
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    theta = np.radians(rng.uniform(*angles, size=(queries, k)))
    planted = []
    for q, th in zip(Qn, theta):
        w = rng.standard_normal((k, dim))
        w -= (w @ q)[:, None] * q
        w /= np.linalg.norm(w, axis=1, keepdims=True)
        planted.append(np.cos(th)[:, None] * q + np.sin(th)[:, None] * w)
    X = np.vstack([X, *planted])[rng.permutation(n + queries * k)]  # planted ones anywhere
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    truth = np.argsort(-(Qn @ Xn.T), axis=1, kind="stable")[:, :k]

    L = max(tables)
    words_per_table = -(-max(bits) // 64)

    def signatures(M):
        return np.stack(
            [hyperplane_signatures(M, bits=64, seed=seed + 1 + w) for w in range(L * words_per_table)], axis=1
        )

    SX, SQ = signatures(X), signatures(Q)

    def masked(S, t, b):
        full, rest = divmod(int(b), 64)
        masks = [np.uint64(2**64 - 1)] * full + ([np.uint64((1 << rest) - 1)] if rest else [])
        return [S[:, t * words_per_table + w] & m for w, m in enumerate(masks)]

    recall = np.zeros((len(tables), len(bits)))
    cands = np.zeros((len(tables), len(bits)))
    theory = np.zeros((len(tables), len(bits)))
    buckets, ranking = [], []
    from .widgets import progress

    for c, b in progress(list(enumerate(bits)), _("signature widths measured")):
        same = []
        for t in range(L):
            sx, sq = masked(SX, t, b), masked(SQ, t, b)
            d = sum(hamming(q[:, None], x[None, :]).astype(np.int64) for q, x in zip(sq, sx))
            same.append(d == 0)
            if t == 0:
                buckets.append(len(np.unique(np.stack(sx, axis=1), axis=0)))
                top = np.argsort(d, axis=1, kind="stable")[:, :k]
                ranking.append(
                    np.mean([len(set(a) & set(g)) for a, g in zip(top.tolist(), truth.tolist())]) / k
                )
        p = (1 - theta / np.pi) ** b
        for r, n_tables in enumerate(tables):
            hit = np.logical_or.reduce(same[:n_tables])
            recall[r, c] = np.take_along_axis(hit, truth, axis=1).mean()
            cands[r, c] = hit.sum(axis=1).mean()
            theory[r, c] = (1 - (1 - p) ** n_tables).mean()
    return {
        "bits": np.array(bits),
        "tables": np.array(tables),
        "bucket_recall": recall,
        "candidates": cands,
        "bucket_recall_theory": theory,
        "buckets": np.array(buckets),
        "ranking_recall": np.array(ranking),
        "n": np.array(X.shape[0]),
        "k": np.array(k),
    }
