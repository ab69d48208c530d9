"""The verification kernels (simhash_lab.kernels.verify) called directly, each against plain Python:
Jaccard of CSR rows against Python sets, with and without a threshold; the keep/drop pass against a
transcription of its definition (visit in order, keep, drop the undecided neighbours; with complete
linkage only those near every member so far); the fingerprints of sets against the session's
accumulator loop; the neighbour scan against brute force; packing against concatenation.

The early-exit Jaccard on sets built to sit on the threshold is tested through ``Shingler.jaccard``
in tests/lib/test_shingles.py, the sorts in test_sort.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

from simhash_lab.kernels import verify as V


def csr(sets: list[set[int]]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in sets], out=indptr[1:])
    data = np.array([x for s in sets for x in sorted(s)], dtype=np.uint64)
    return indptr, data


def random_sets(seed: int, n: int) -> list[set[int]]:
    rng = random.Random(seed)
    base = rng.sample(range(1, 2**63), 60)
    out = [set(), set()]  # two empty sets
    for _ in range(n):
        keep = {x for x in base if rng.random() < rng.uniform(0.3, 1.0)}
        out.append(keep | {rng.randrange(2**63, 2**64) for _ in range(rng.randrange(0, 30))})
    return out


def python_jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


@pytest.mark.parametrize("threshold", [0.0, 0.3, 0.5, 0.8])
def test_jaccard_is_the_similarity_of_python_sets_or_minus_one_below_the_threshold(threshold):
    sets = random_sets(int(threshold * 10), 40)
    indptr, data = csr(sets)
    a, b = (x.astype(np.int64).ravel() for x in np.triu_indices(len(sets)))  # pairs and each with itself
    out = np.full(a.shape[0], 9.0)
    V.jaccard(indptr, data, a, b, threshold, out)
    want = [python_jaccard(sets[i], sets[j]) for i, j in zip(a.tolist(), b.tolist())]
    want = [w if w >= threshold else -1.0 for w in want]
    if threshold == 0.0:
        assert min(want) == 0.0 and -1.0 not in want
    else:
        assert -1.0 in want and max(want) == 1.0
    assert out.tolist() == want


def test_the_size_filter_drops_exactly_the_pairs_whose_sizes_cannot_reach_the_threshold():
    """Issue 48: min/max < t cannot reach Jaccard t. ``size_passes`` keeps every pair whose sizes
    can (exact rationals), and the kernel, whose merge starts with the same test, gives a set
    inside another (J = min / max exactly) its similarity at the threshold and -1.0 below it."""
    from fractions import Fraction

    sizes = np.arange(0, 90)
    na, nb = (x.ravel() for x in np.meshgrid(sizes, sizes))
    for t in (0.5, 0.75, 0.8, 0.9, 0.95):
        got = V.size_passes(na, nb, t)
        can = [
            (a + b == 0 and t <= 0) or (a + b > 0 and Fraction(min(a, b), max(a, b)) >= Fraction(t))
            for a, b in zip(na.tolist(), nb.tolist())
        ]
        assert not (np.array(can) & ~got).any()  # no pair that can reach t is dropped
        ft = Fraction(t)
        for a, b in zip(na[got & ~np.array(can)].tolist(), nb[got & ~np.array(can)].tolist()):
            assert abs(a - b) - 1 <= (a + b) * (1 - ft) / (1 + ft)  # the others kept: one element off
        assert (~got).sum() > 0.8 * (~np.array(can)).sum()
        nested = [set(range(1, m + 1)) for m in range(1, 90)]  # set i inside set j for i < j
        indptr, data = csr(nested)
        a, b = (x.astype(np.int64).ravel() for x in np.triu_indices(len(nested), 1))
        out = np.full(a.shape[0], 9.0)
        V.jaccard(indptr, data, a, b, t, out)
        want = [(i + 1) / (j + 1) for i, j in zip(a.tolist(), b.tolist())]
        assert out.tolist() == [w if w >= t else -1.0 for w in want]
        assert any(w == t for w in want)  # pairs exactly at t are in the test


def star_reference(order, neighbours, complete):
    """The keep/drop pass as its docstring defines it, with Python sets."""
    m = len(order)
    state, rep, via = [0] * m, [-1] * m, [-1] * m
    for u in order:
        if state[u]:
            continue
        state[u] = 1
        members = []
        for v, edge in neighbours[u]:
            if state[v]:
                continue
            if complete and not all(w in {x for x, _ in neighbours[v]} for w in members):
                continue
            state[v], rep[v], via[v] = 2, u, edge
            members.append(v)
    return state, rep, via


def graph(seed: int, m: int, p: float):
    """A random graph: the visiting order, and each node's (neighbour, edge) in that order."""
    rng = random.Random(seed)
    order = list(range(m))
    rng.shuffle(order)
    rank = {u: i for i, u in enumerate(order)}
    edges = [(i, j) for i in range(m) for j in range(i + 1, m) if rng.random() < p]
    neighbours: list[list[tuple[int, int]]] = [[] for _ in range(m)]
    for e, (i, j) in enumerate(edges):
        neighbours[i].append((j, e))
        neighbours[j].append((i, e))
    for lst in neighbours:
        lst.sort(key=lambda t: rank[t[0]])
    return order, neighbours


@pytest.mark.parametrize("complete", [False, True], ids=["star", "complete"])
@pytest.mark.parametrize("seed", range(6))
def test_greedy_clusters_is_the_greedy_pass_it_defines(complete, seed):
    m = [1, 2, 10, 40, 80, 120][seed]
    order, neighbours = graph(seed, m, [0.5, 0.9, 0.3, 0.15, 0.08, 0.05][seed])
    adj_ptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum([len(n) for n in neighbours], out=adj_ptr[1:])
    adj_nbr = np.array([v for n in neighbours for v, _ in n], dtype=np.int64)
    adj_edge = np.array([e for n in neighbours for _, e in n], dtype=np.int64)
    state = np.zeros(m, dtype=np.int8)
    rep = np.full(m, -7, dtype=np.int64)
    via = np.full(m, -7, dtype=np.int64)
    V.greedy_clusters(np.array(order, dtype=np.int64), adj_ptr, adj_nbr, adj_edge, complete, state, rep, via)
    want = star_reference(order, neighbours, complete)
    assert (state.tolist(), rep.tolist(), via.tolist()) == want
    # and what the pass promises: no chains; with complete linkage, every two members are near
    near = [{v for v, _ in n} for n in neighbours]
    for v in range(m):
        if state[v] == 2:
            assert state[rep[v]] == 1 and rep[v] in near[v]
    if complete:
        for u in range(m):
            members = [v for v in range(m) if rep[v] == u and state[v] == 2]
            assert all(b in near[a] for a in members for b in members if a != b)


def accumulator_fingerprint(hs, bits: int) -> int:
    v = [0] * bits
    for h in hs:
        for i in range(bits):
            v[i] += 1 if (int(h) >> i) & 1 else -1
    return sum(1 << i for i in range(bits) if v[i] > 0)


@pytest.mark.parametrize("bits", [1, 7, 64])
def test_fold_sets_gives_each_sets_fingerprint_with_binary_weights(bits):
    sets = random_sets(bits, 30)
    indptr, data = csr(sets)
    fps = np.zeros(len(sets), dtype=np.uint64)
    V.fold_sets(indptr, data, bits, fps)
    assert fps.tolist() == [accumulator_fingerprint(sorted(s), bits) for s in sets]


@pytest.mark.parametrize("k", [0, 2, 10, 64])
def test_neighbours_counts_then_fills_what_a_brute_force_scan_finds(k):
    rng = np.random.default_rng(k)
    fps = rng.integers(0, 2**64, 500, dtype=np.uint64)
    fps[100:150] = fps[:50] ^ np.uint64(0b101)  # neighbours at 2 bits
    queries = fps[:80].copy()
    counts = np.zeros(queries.shape[0], dtype=np.int64)
    V.neighbours(queries, fps, k, counts, np.empty(0, np.int64), np.empty(0, np.int64), False)
    d = np.bitwise_count(queries[:, None] ^ fps[None, :])
    assert counts.tolist() == (d <= k).sum(axis=1).tolist()
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    ids = np.full(int(counts.sum()), -1, dtype=np.int64)
    dist = np.full(int(counts.sum()), -1, dtype=np.int64)
    V.neighbours(queries, fps, k, starts.copy(), ids, dist, True)
    for q in range(queries.shape[0]):
        row = slice(starts[q], starts[q] + counts[q])
        want = np.flatnonzero(d[q] <= k)
        assert ids[row].tolist() == want.tolist() and dist[row].tolist() == d[q, want].tolist()


def test_pack_sets_concatenates_each_documents_room():
    rng = np.random.default_rng(1)
    counts = np.array([0, 3, 1, 0, 5], dtype=np.int64)
    slots = np.array([0, 2, 6, 8, 9, 15], dtype=np.int64)  # each room at least its count
    scratch = rng.integers(0, 2**64, 15, dtype=np.uint64)
    indptr, data = V.pack_sets(scratch, slots, counts)
    assert indptr.tolist() == [0, 0, 3, 4, 4, 9]
    want = [int(x) for d in range(5) for x in scratch[slots[d] : slots[d] + counts[d]]]
    assert data.tolist() == want


def test_shingle_slots_leave_room_for_every_shingle():
    """A document of b bytes has at most (b + 1) // 2 + 1 shingles: its room in the scratch."""
    offsets = np.array([0, 0, 1, 2, 10, 11, 111], dtype=np.int64)
    slots = V.shingle_slots(offsets)
    rooms = np.diff(slots)
    assert slots[0] == 0 and rooms.tolist() == [(b + 1) // 2 + 1 for b in np.diff(offsets).tolist()]
