"""MinHash LSH peers on the same shingles as ours: datasketch (Python), rensa and gaoya (Rust).

Each takes the documents' shingle sets as str (:func:`simhash_lab.course.compare.shingle_sets`:
the word 3-shingles our :class:`~simhash_lab.shingles.Shingler` hashes: lowercased ``\\w+`` words,
three at a time joined by one space), 128 permutations, its own LSH at the same threshold, and keeps
a candidate pair when its estimated Jaccard (matching signature values / permutations) is at least
the threshold, as :func:`~simhash_lab.course.compare.minhash_lsh_pairs` does for datasketch. Each
returns ``(pairs (m, 2) int64 i < j, estimate (m,), info)``.

The Rust peers run on one thread: ``RAYON_NUM_THREADS=1`` is set before they are imported (their
batch calls use rayon's pool). rensa and gaoya band only with ``b * r`` equal to the permutations
(rensa refuses another); :func:`bands` chooses them so that a pair at the threshold is a
candidate with probability 0.9 or more. Install them with ``pip install -e ".[bench]"``.
"""

from __future__ import annotations

import os

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # before rensa and gaoya start their pools

import numpy as np  # noqa: E402

NUM_PERM = 128


def available() -> dict[str, str]:
    """{peer: version} of the Rust peers that import here."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("rensa", "gaoya"):
        try:
            __import__(name)
            out[name] = version(name)
        except (ImportError, PackageNotFoundError):
            pass
    return out


def bands(threshold: float, num_perm: int = NUM_PERM, recall: float = 0.9) -> tuple[int, int]:
    """(b, r) with ``b * r == num_perm``: the fewest bands whose candidate probability
    ``1 - (1 - t**r)**b`` at the threshold ``t`` is at least ``recall`` (16 x 8 at 0.8 and 128:
    0.947). datasketch's objective (equal weights on its false positive and negative
    probabilities) picks 8 x 16 among these at 0.8, whose candidate probability there is 0.20:
    on the pydoc rows it left the Rust peers recall 0.55."""
    opts = [(b, num_perm // b) for b in range(1, num_perm + 1) if num_perm % b == 0]
    ok = [(b, r) for b, r in opts if 1 - (1 - threshold**r) ** b >= recall]
    return ok[0] if ok else opts[-1]


def _candidates(found: list) -> np.ndarray:
    """The pairs (i, j), i < j, each once, of ``found[i]`` (the keys a query of row i returned),
    gathered in NumPy: the same glue for every peer (millions of candidates on heavily
    overlapping rows: a set of tuples built in Python would weigh on the peers' times)."""
    import itertools

    lens = np.fromiter(map(len, found), np.int64, len(found))
    j = np.fromiter(itertools.chain.from_iterable(found), np.int64, int(lens.sum()))
    i = np.repeat(np.arange(len(found), dtype=np.int64), lens)
    keys = np.unique(i[j > i] * len(found) + j[j > i])
    return np.stack([keys // max(1, len(found)), keys % max(1, len(found))], axis=1)


def _keep(cand: np.ndarray, sig: np.ndarray, threshold: float, info: dict, block: int = 1 << 18):
    """The candidates whose estimated Jaccard (equal signature values / permutations) is at least
    ``threshold``, estimated a block of pairs at a time."""
    est = np.empty(cand.shape[0])
    for lo in range(0, cand.shape[0], block):
        c = cand[lo : lo + block]
        est[lo : lo + block] = (sig[c[:, 0]] == sig[c[:, 1]]).mean(axis=1)
    keep = est >= threshold
    info["candidates"] = int(cand.shape[0])
    return cand[keep], est[keep], info


def datasketch_pairs(sets: list[set], threshold: float, num_perm: int = NUM_PERM, seed: int = 1):
    """datasketch's ``MinHash.bulk`` signatures, its ``MinHashLSH`` (its own banding for the
    threshold: datasketch's objective), a query a row; as
    :func:`simhash_lab.course.compare.minhash_lsh_pairs`, with the pairs gathered in NumPy."""
    import datasketch

    encoded = [[x.encode("utf-8") for x in s] for s in sets]
    mhs = datasketch.MinHash.bulk(encoded, num_perm=num_perm, seed=seed)
    lsh = datasketch.MinHashLSH(threshold=threshold, num_perm=num_perm)
    with lsh.insertion_session() as sess:
        for i, m in enumerate(mhs):
            sess.insert(i, m, check_duplication=False)
    cand = _candidates([lsh.query(m) for m in mhs])
    sig = np.stack([m.hashvalues for m in mhs]) if mhs else np.empty((0, num_perm), np.uint64)
    return _keep(cand, sig, threshold, {"b": lsh.b, "r": lsh.r})


def rensa_pairs(sets: list[set], threshold: float, num_perm: int = NUM_PERM, seed: int = 1):
    """rensa's R-MinHash signatures (``RMinHash.from_token_sets``), its ``RMinHashLSH``
    (``insert_many``, ``query_all``), the estimate from the signatures (``digest``)."""
    import rensa

    b, r = bands(threshold, num_perm)
    tokens = [list(s) for s in sets]
    mhs = rensa.RMinHash.from_token_sets(tokens, num_perm, seed)
    lsh = rensa.RMinHashLSH(threshold=threshold, num_perm=num_perm, num_bands=b)
    lsh.insert_many(mhs)
    cand = _candidates(lsh.query_all(mhs))
    sig = np.array([m.digest() for m in mhs], dtype=np.uint32).reshape(len(mhs), num_perm)
    return _keep(cand, sig, threshold, {"b": b, "r": r})


def gaoya_pairs(sets: list[set], threshold: float, num_perm: int = NUM_PERM):
    """gaoya's ``MinHashStringIndex`` (32-bit MinHash, ``vec`` buckets) fed the same shingles as
    tokens (``bulk_insert_tokens``), queried with them (``par_bulk_query_tokens``, one rayon
    thread); gaoya keeps a candidate when its own estimate is at least the threshold."""
    import gaoya

    b, r = bands(threshold, num_perm)
    index = gaoya.minhash.MinHashStringIndex(
        hash_size=32, jaccard_threshold=threshold, num_bands=b, band_size=r, analyzer=lambda d: d,
        lowercase=False, id_container="vec",
    )  # fmt: skip
    tokens = [list(s) for s in sets]
    ids = list(range(len(tokens)))
    index.minhash_index.bulk_insert_tokens(ids, tokens)
    found = index.minhash_index.par_bulk_query_tokens(tokens)
    pairs = _candidates(found)
    return pairs, np.full(pairs.shape[0], np.nan), {"b": b, "r": r, "candidates": None}
