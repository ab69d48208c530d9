"""The pigeonhole block index of notebook 05, story-sized: the session's 4 x 16-bit index in NumPy,
fingerprints with planted near-duplicates, the exact probability that a pair becomes a candidate,
and per-query times of the index against a linear scan.

The library's :class:`~simhash_lab.SimhashIndex` is the real index (any k, Manku's permuted
tables, Numba); :class:`SeedIndex` is the session's ``SimhashLshIndex`` written out in NumPy so
that a learner can read it in one screen, and is checked against both a brute-force scan and
``SimhashIndex(layout="seed")``.

>>> import numpy as np
>>> fps, src, dst = planted(1_000, n_planted=10, seed=1)
>>> ix = SeedIndex(fps)
>>> q = fps[src[0]]
>>> d = [(i, dist) for i, dist in ix.query(q)]
>>> (int(src[0]), 0) in d and any(i == dst[0] for i, _ in d)
True
>>> [round(float(p), 4) for p in candidate_probability([0, 3, 4, 5])]
[1.0, 1.0, 0.8969, 0.7421]
"""

from __future__ import annotations

import math
import timeit
from itertools import combinations

import numpy as np

from .._i18n import _
from .._validate import check_int

__all__ = [
    "blocks_of",
    "SeedIndex",
    "planted",
    "candidate_probability",
    "candidate_rate",
    "rates_at_angle",
    "time_queries",
]


def blocks_of(fps) -> np.ndarray:
    """The seed's ``extract_chunk`` for every fingerprint: block c is ``(fp >> (16 c)) & 0xFFFF``.

    Parameters
    ----------
    fps : array_like of shape (n,), uint64

    Returns
    -------
    array of shape (n, 4), uint16
        Column c holds block c (block 0 is the lowest 16 bits).
    """
    fps = np.asarray(fps, dtype=np.uint64).reshape(-1)
    shifts = np.arange(4, dtype=np.uint64) * np.uint64(16)
    return ((fps[:, None] >> shifts) & np.uint64(0xFFFF)).astype(np.uint16)


class SeedIndex:
    """The session's ``SimhashLshIndex`` (4 tables of 16-bit blocks, k <= 3), in NumPy.

    Instead of a ``HashMap<u16, Vec<usize>>`` per block, table c is the ids sorted by block c, so
    equal values sit together and ``np.searchsorted`` finds the run of a query's value.

    Parameters
    ----------
    fps : array_like of shape (n,), uint64
        The stored fingerprints; id i is ``fps[i]``.
    k : int
        Largest distance reported, 0..3 (the seed asserts ``threshold <= 3``).
    """

    def __init__(self, fps, k: int = 3) -> None:
        self.k = check_int("k", k, 0, 3)
        self.fps = np.asarray(fps, dtype=np.uint64).reshape(-1)
        keys = blocks_of(self.fps)  # (n, 4)
        self.order = np.argsort(keys, axis=0, kind="stable")  # table c: ids sorted by block c
        self.sorted = np.take_along_axis(keys, self.order, axis=0)

    def candidates(self, q) -> np.ndarray:
        """Ids that share at least one 16-bit block with ``q``: int64 array, sorted, unique."""
        qb = blocks_of([q])[0]
        runs = []
        for c in range(4):
            lo = np.searchsorted(self.sorted[:, c], qb[c], side="left")
            hi = np.searchsorted(self.sorted[:, c], qb[c], side="right")
            runs.append(self.order[lo:hi, c])
        return np.unique(np.concatenate(runs)).astype(np.int64)

    def query(self, q) -> list[tuple[int, int]]:
        """``(id, distance)`` of every stored fingerprint within k of ``q``, nearest first (then by id),
        like :meth:`SimhashIndex.query`: the candidates, each verified with one popcount."""
        from ..hamming import hamming

        cand = self.candidates(q)
        d = hamming(self.fps[cand], np.uint64(q))
        ok = d <= self.k
        return sorted(zip(cand[ok].tolist(), d[ok].tolist()), key=lambda t: (t[1], t[0]))


def planted(n: int, n_planted: int = 200, *, max_flips: int = 3, seed: int = 0):
    """``n`` random 64-bit fingerprints, ``n_planted`` of them overwritten with a copy of another one
    with 1 to ``max_flips`` random bits flipped (a planted near-duplicate).

    Returns
    -------
    fps : array of shape (n,), uint64
    src, dst : arrays of shape (n_planted,), int64
        ``fps[dst[i]]`` is ``fps[src[i]]`` with 1..max_flips bits flipped; no id is both.
    """
    n = check_int("n", n, 2, 1 << 40)
    n_planted = check_int("n_planted", n_planted, 0, n // 2)
    max_flips = check_int("max_flips", max_flips, 1, 64)
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    ids = rng.permutation(n)[: 2 * n_planted]
    src, dst = np.sort(ids[:n_planted]), ids[n_planted:]
    for s, t in zip(src, dst):
        flips = rng.choice(64, rng.integers(1, max_flips + 1), replace=False)
        fps[t] = fps[s] ^ np.uint64(sum(1 << int(b) for b in flips))
    return fps, src.astype(np.int64), dst.astype(np.int64)


def _block_sizes(bits: int, blocks: int) -> list[int]:
    q, r = divmod(bits, blocks)
    return [q + 1] * r + [q] * (blocks - r)


def candidate_probability(d, bits: int = 64, blocks: int = 4) -> np.ndarray:
    """The exact probability that two fingerprints ``d`` bits apart share at least one whole block.

    The ``d`` differing bits sit at uniformly random distinct positions (all ``C(bits, d)`` sets
    equally likely). By inclusion-exclusion over the sets S of blocks left untouched,

    ``P = sum over non-empty S of (-1)^(|S|+1) C(bits - size(S), d) / C(bits, d)``.

    For ``d < blocks`` it is exactly 1 (the pigeonhole principle).

    Parameters
    ----------
    d : int or array_like of int
        Hamming distances, 0..bits.

    Returns
    -------
    ndarray of float64, the shape of ``d``
    """
    bits = check_int("bits", bits, 1, 64)
    blocks = check_int("blocks", blocks, 1, bits)
    d = np.asarray(d)
    if d.size and (d.min() < 0 or d.max() > bits):
        raise ValueError(f"d must be between 0 and bits={bits}, got {d.min()}..{d.max()}")
    sizes = _block_sizes(bits, blocks)
    out = np.zeros(d.shape, dtype=np.float64)
    for idx, dd in np.ndenumerate(d):
        dd = int(dd)
        total = math.comb(bits, dd)
        p = 0
        for r in range(1, blocks + 1):
            for S in combinations(sizes, r):
                p += (-1) ** (r + 1) * math.comb(bits - sum(S), dd)
        out[idx] = p / total
    return out


def candidate_rate(d: int, trials: int = 20_000, *, seed: int = 0) -> float:
    """The measured share of ``trials`` random pairs exactly ``d`` bits apart that share a 16-bit
    block (that :class:`SeedIndex` would return as candidates): a random fingerprint, ``d`` random
    bits flipped, the blocks compared."""
    d = check_int("d", d, 0, 64)
    trials = check_int("trials", trials, 1, 10**8)
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**64, size=trials, dtype=np.uint64)
    flips = np.argsort(rng.random((trials, 64)), axis=1)[:, :d]  # d distinct positions per pair
    mask = np.zeros(trials, dtype=np.uint64)
    for col in range(d):
        mask |= np.uint64(1) << flips[:, col].astype(np.uint64)
    b = a ^ mask
    return float((blocks_of(a) == blocks_of(b)).any(axis=1).mean())


def rates_at_angle(theta: float, k: int = 3, trials: int = 20_000, *, seed: int = 0) -> tuple[float, float]:
    """Measured rates for pairs of documents at angle ``theta`` (radians), as random hyperplanes see
    them: each of the 64 bits differs independently with probability ``theta / pi`` (notebook 04).

    Returns
    -------
    candidate : float
        Share of the ``trials`` pairs that share a 16-bit block (theory: ``1 - (1 - p**16)**4``
        with ``p = 1 - theta / pi``, notebook 01's amplification).
    reported : float
        Share within ``k`` bits, which the index reports (theory: ``P(Binomial(64, theta/pi) <= k)``).
    """
    k = check_int("k", k, 0, 63)
    trials = check_int("trials", trials, 1, 10**8)
    if not 0 <= theta <= math.pi:
        raise ValueError(f"theta must be between 0 and pi, got {theta!r}")
    rng = np.random.default_rng(seed)
    differ = rng.random((trials, 64)) < theta / math.pi
    a = rng.integers(0, 2**64, size=trials, dtype=np.uint64)
    mask = (differ.astype(np.uint64) << np.arange(64, dtype=np.uint64)).sum(axis=1, dtype=np.uint64)
    b = a ^ mask
    candidate = float((blocks_of(a) == blocks_of(b)).any(axis=1).mean())
    reported = float((differ.sum(axis=1) <= k).mean())
    return candidate, reported


def time_queries(sizes, *, k: int = 3, n_queries: int = 200, repeat: int = 3, seed: int = 0) -> dict:
    """Seconds per query, for each ``n`` in ``sizes``, of a linear scan and two indexes.

    For each n: :func:`planted` fingerprints, ``n_queries`` of them as queries, and the best of
    ``repeat`` timed runs of all the queries (:func:`timeit.repeat`) with ``SimhashIndex(k,
    layout=...).query`` for the layouts

    * ``"linear scan"``: ``"scan"``, one popcount per stored fingerprint (a serial Numba loop);
    * ``"4 × 16 index (seed)"``: ``"seed"``;
    * ``"SimhashIndex, auto layout"``: ``"auto"``.

    Before timing, each method's answers to 20 of the queries are checked against a brute-force
    ``hamming(fps, q) <= k``.

    Returns
    -------
    dict name -> ndarray of shape (len(sizes),), float64 seconds per query
    """
    from ..hamming import hamming
    from ..index import SimhashIndex

    k = check_int("k", k, 0, 3)
    rng = np.random.default_rng(seed)
    layouts = {"linear scan": "scan", "4 × 16 index (seed)": "seed", "SimhashIndex, auto layout": "auto"}
    out: dict[str, list[float]] = {name: [] for name in layouts}
    from .widgets import progress

    for n in progress(list(sizes), _("sizes of N timed")):
        fps, _src, _dst = planted(int(n), n_planted=min(200, int(n) // 10), seed=int(rng.integers(2**31)))
        queries = [int(q) for q in fps[rng.choice(len(fps), min(n_queries, len(fps)), replace=False)]]
        for name, layout in layouts.items():
            ix = SimhashIndex(k=k, layout=layout)
            ix.add_many(fps)
            ix.flush()
            for q in queries[:20]:
                ref = np.flatnonzero(hamming(fps, q) <= k).tolist()
                assert sorted(i for i, _d in ix.query(q)) == ref, name
            best = min(
                timeit.repeat(lambda ix=ix, qs=queries: [ix.query(q) for q in qs], number=1, repeat=repeat)
            )
            out[name].append(best / len(queries))
    return {name: np.array(v) for name, v in out.items()}
