"""SimhashIndex's layouts and paths against brute force: streamed pairs() tables of every design, the
tables built for queries, dense outputs (chunks that overflow their room), bucket-sorted rows, the
memory budget and the table cap honoured, the pairs() cache that groups() reuses. The cost model's
choices are tested in test_design.py, the warmup's coverage in test_warm.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simhash_lab.kernels.index as kernels
from simhash_lab.index import SimhashIndex
from simhash_lab.index import design as D
from simhash_lab.index.table import _dir_runs, _runs_mask

PROPERTY = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def brute_pairs(fps, alive, k: int) -> np.ndarray:
    arr = np.asarray(fps, dtype=np.uint64)
    live = np.asarray(alive, dtype=bool)
    d = np.bitwise_count(arr[:, None] ^ arr[None, :]).astype(np.int64)
    ok = np.triu(d <= k, 1) & live[:, None] & live[None, :]
    i, j = np.nonzero(ok)
    return np.stack([i, j, d[i, j]], axis=1).astype(np.int64).reshape(-1, 3)


def brute_query(fps, alive, q: int, k: int) -> list[tuple[int, int]]:
    arr = np.asarray(fps, dtype=np.uint64)
    d = np.bitwise_count(arr ^ np.uint64(q)).astype(np.int64)
    hits = [(i, int(d[i])) for i in np.flatnonzero((d <= k) & np.asarray(alive, bool))]
    return sorted(hits, key=lambda t: (t[1], t[0]))


def clustered(seed: int, n_centres: int, per: int, bits: int, flips: int) -> np.ndarray:
    """``n_centres`` random fingerprints, each with ``per`` copies at 0..``flips`` flipped bits."""
    rng = np.random.default_rng(seed)
    top = (1 << bits) - 1
    centres = rng.integers(0, 2**63, n_centres, dtype=np.uint64) & np.uint64(top)
    out = []
    for c in centres:
        for _ in range(per):
            f = int(c)
            for b in rng.choice(bits, size=int(rng.integers(0, flips + 1)), replace=False):
                f ^= 1 << int(b)
            out.append(f)
    return np.array(rng.permutation(out), dtype=np.uint64)


def layouts(k: int, bits: int, limit: int = 200) -> list:
    """Every design the chooser may pick, with at most ``limit`` tables."""
    return [lay for lay in D._candidate_layouts(k, bits, limit)]


@pytest.fixture(params=[False, True], ids=["one thread", "threads"])
def both_twins(request, monkeypatch):
    """Run each test in one thread and, with the threshold at 0, with ranges in threads."""
    if request.param:
        monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", 0)
    return request.param


# -- exactness of every path -----------------------------------------------------------------------


@PROPERTY
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(0, 10),
    bits=st.sampled_from([64, 64, 48, 32, 20, 10]),
    n=st.integers(2, 300),
    removed=st.integers(0, 30),
)
def test_streamed_pairs_of_every_design_match_brute_force(seed, k, bits, n, removed):
    """Whatever design pairs() streams (bucket-sorted tables, groups = directory buckets)."""
    k = min(k, bits - 1)
    rng = np.random.default_rng(seed)
    fps = clustered(seed, max(1, n // 6), 6, bits, k + 1)[:n]
    alive = np.ones(fps.shape[0], bool)
    index = SimhashIndex(k=k, bits=bits)
    index.add_many(fps)
    for i in rng.choice(fps.shape[0], size=min(removed, fps.shape[0]), replace=False):
        index.remove(int(i))
        alive[i] = False
    want = brute_pairs(fps, alive, k)
    cands = layouts(k, bits)
    for lay in [cands[i] for i in sorted(set(rng.integers(0, len(cands), 4).tolist()))] + ["scan"]:
        np.testing.assert_array_equal(index._pairs_streamed(lay), want, err_msg=str(lay))
    np.testing.assert_array_equal(index.pairs(), want)


@pytest.mark.parametrize("k, bits", [(0, 64), (3, 64), (6, 64), (10, 64), (3, 16), (5, 12)])
def test_every_design_is_exact_built_and_streamed(k, bits, both_twins):
    fps = clustered(k + bits, 60, 8, bits, k + 1)
    alive = np.ones(fps.shape[0], bool)
    want = brute_pairs(fps, alive, k)
    queries = np.concatenate([fps[:40], clustered(1, 5, 2, bits, 2)])
    for lay in layouts(k, bits, limit=120)[:12]:
        index = SimhashIndex(k=k, bits=bits, layout=lay)
        index.add_many(fps)
        np.testing.assert_array_equal(index.pairs(), want, err_msg=str(lay))
        np.testing.assert_array_equal(index._pairs_streamed(lay), want, err_msg=str(lay))
        got = index.query_many(queries)
        assert got == [brute_query(fps, alive, int(q), k) for q in queries], lay
        assert [index.query(int(q)) for q in queries[:10]] == got[:10]


def test_dense_pairs_overflow_their_room_and_stay_exact(both_twins, monkeypatch):
    """Clusters of 300 near-identical fingerprints: ~40,000 pairs each, far over a chunk's first room
    (1/16 pair per entry), so chunks run again with the exact room; nothing is lost or doubled."""
    fps = clustered(5, 12, 300, 64, 2)
    alive = np.ones(fps.shape[0], bool)
    want = brute_pairs(fps, alive, 3)
    assert want.shape[0] > 12 * 300 * 299 / 2 * 0.8
    overflowed = []
    for name in ("pairs_chunks_kernel",):
        orig = getattr(kernels, name)

        def counting(*args, orig=orig):
            orig(*args)
            off, counts = args[-3], args[-1]
            overflowed.append(bool((counts > np.diff(off)).any()))

        monkeypatch.setattr(kernels, name, counting)
    for layout in ("auto", "blocks", ("permuted", 6), "scan"):
        index = SimhashIndex(k=3, layout=layout)
        index.add_many(fps)
        np.testing.assert_array_equal(index.pairs(), want, err_msg=str(layout))
    index = SimhashIndex(k=3)
    index.add_many(fps)
    for lay in (("permuted", 4), ("permuted", 5), ("nested", 4, 4)):
        np.testing.assert_array_equal(index._pairs_streamed(lay), want, err_msg=str(lay))
    assert any(overflowed) and not all(overflowed)  # some chunks ran again, and those found room


def test_query_many_overflowing_chunks_are_run_again(both_twins):
    fps = clustered(8, 4, 400, 64, 1)  # every query matches about 400 stored fingerprints
    alive = np.ones(fps.shape[0], bool)
    index = SimhashIndex(k=3)
    index.add_many(fps)
    qs = fps[::7]
    indptr, ids, d = index.query_many(qs, return_arrays=True)
    assert indptr[-1] > 300 * qs.shape[0]
    for i, q in enumerate(qs):
        got = list(zip(ids[indptr[i] : indptr[i + 1]].tolist(), d[indptr[i] : indptr[i + 1]].tolist()))
        assert got == brute_query(fps, alive, int(q), 3)


def test_buffer_and_removals_between_rebuilds(both_twins):
    """Adds land in the buffer (scanned), removals are skipped, flush() rebuilds the tables."""
    fps = clustered(3, 200, 5, 64, 4)
    alive = np.ones(fps.shape[0], bool)
    index = SimhashIndex(k=3, layout=("permuted", 5))
    index.add_many(fps[:600])
    index.flush()
    for f in fps[600:]:
        index.add(int(f))
    for i in range(0, 900, 7):
        index.remove(i)
        alive[i] = False
    assert index._n_main == 600  # the adds are still in the buffer
    q = fps[::11]
    assert index.query_many(q) == [brute_query(fps, alive, int(x), 3) for x in q]
    np.testing.assert_array_equal(index.pairs(), brute_pairs(fps, alive, 3))
    assert index._n_main == fps.shape[0]  # pairs() of a forced layout flushed first


# -- rows, keys, chunks ------------------------------------------------------------------------------


@PROPERTY
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 8), n=st.integers(0, 3000))
def test_rows_are_sorted_by_bucket_with_ids_ascending(seed, k, n):
    rng = np.random.default_rng(seed)
    fps = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    cands = layouts(k, 64, 60)[1:]
    lay = cands[int(rng.integers(len(cands)))]
    index = SimhashIndex(k=k, layout=lay)
    index.add_many(fps)
    index.flush()
    r = D.dir_bits(n, index._min_key_bits)
    for t, mask in enumerate(index.table_masks):
        top = [b for b in range(63, -1, -1) if mask >> b & 1][:r]  # the r highest key bits
        row, ids, dirs = index._tfps[t], index._tids[t], index._dirs[t]
        bucket = np.zeros(n, np.int64)
        for b in top:
            bucket = (bucket << 1) | ((row >> np.uint64(b)) & np.uint64(1)).astype(np.int64)
        assert np.all(np.diff(bucket) >= 0)
        assert np.all((np.diff(ids.astype(np.int64)) > 0) | (np.diff(bucket) > 0))
        assert dirs[0] == 0 and dirs[-1] == n and dirs.shape[0] == (1 << r) + 1
        np.testing.assert_array_equal(np.searchsorted(bucket, np.arange(1 << r)), dirs[:-1])
        assert sorted(ids.tolist()) == list(range(n))
        np.testing.assert_array_equal(row, fps[ids])


@PROPERTY
@given(seed=st.integers(0, 2**32 - 1), r=st.integers(0, 30))
def test_directory_runs_pack_the_highest_key_bits_in_order(seed, r):
    rng = np.random.default_rng(seed)
    masks = rng.integers(0, 2**64, 6, dtype=np.uint64, endpoint=False)
    masks[0] = np.uint64(2**64 - 1)
    masks[1] = np.uint64(0)
    druns = _dir_runs(masks, r)
    x = rng.integers(0, 2**64, 50, dtype=np.uint64, endpoint=False)
    for t, m in enumerate(masks.tolist()):
        top = [b for b in range(63, -1, -1) if m >> b & 1][:r]
        assert int(_runs_mask(druns)[t]) == sum(1 << b for b in top)
        out = np.empty(x.shape[0], np.uint32)
        kernels._bucket_ids(x, druns, t, out)
        want = [sum(((int(v) >> b) & 1) << (len(top) - 1 - i) for i, b in enumerate(top)) for v in x]
        assert out.tolist() == want


# -- the budget ------------------------------------------------------------------------------------


def test_index_honours_budget_and_max_tables():
    fps = clustered(2, 3000, 1, 64, 0)
    small = SimhashIndex(k=6, memory_budget=3000 * 12 * 8)
    small.add_many(fps)
    small.flush()
    assert small.design.table_bytes <= 3000 * 12 * 8
    capped = SimhashIndex(k=6, max_tables=7)
    capped.add_many(fps)
    assert len(capped.table_masks) <= 7
    for bad, err in ((-1, ValueError), ("big", TypeError), (1.5, TypeError)):
        with pytest.raises(err, match="memory_budget"):
            SimhashIndex(k=3, memory_budget=bad)
    with pytest.raises(ValueError, match="max_tables"):
        SimhashIndex(k=3, max_tables=0)


# -- pairs() and groups() ------------------------------------------------------------------------------


def test_groups_reuse_the_pairs_and_changes_drop_them(monkeypatch):
    fps = clustered(4, 50, 6, 64, 3)
    index = SimhashIndex(k=3)
    index.add_many(fps)
    calls = []
    compute = SimhashIndex._compute_pairs
    monkeypatch.setattr(SimhashIndex, "_compute_pairs", lambda self: calls.append(1) or compute(self))
    p = index.pairs()
    assert not p.flags.writeable
    groups = index.groups()
    assert index.pairs() is p and len(calls) == 1  # groups() and a second pairs(): no new work
    with pytest.raises(ValueError):
        p[0, 0] = 5
    index.add(int(fps[0]))  # a change: the next pairs() is computed again and includes the new id
    q = index.pairs()
    assert len(calls) == 2 and q is not p and q.shape[0] > p.shape[0]
    index.remove(len(fps))
    again = index.pairs()
    np.testing.assert_array_equal(again, p)
    assert index.groups() == groups and len(calls) == 3
    del p, q, again
    index.groups()  # nobody holds the pairs any more: computed again, not kept alive by the index
    assert len(calls) == 4


def test_auto_pairs_takes_the_cheaper_path(monkeypatch):
    """Built tables when the model says they serve, streamed tables otherwise: both exact."""
    fps = clustered(6, 400, 4, 64, 3)
    want = brute_pairs(fps, np.ones(fps.shape[0], bool), 3)
    used = []
    for name in ("_pairs_stored", "_pairs_streamed"):
        orig = getattr(SimhashIndex, name)
        monkeypatch.setattr(
            SimhashIndex, name, lambda self, *a, o=orig, n=name: used.append(n) or o(self, *a)
        )
    index = SimhashIndex(k=3)
    index.add_many(fps)
    np.testing.assert_array_equal(index.pairs(), want)  # nothing built yet: streamed
    index.flush()
    index.add(int(fps[0]))
    index.remove(fps.shape[0])
    np.testing.assert_array_equal(index.pairs(), want)  # built tables of the same design: reused
    assert used == ["_pairs_streamed", "_pairs_stored"]


@pytest.mark.parametrize("two", [False, True], ids=["one pass", "two passes"])
def test_one_and_two_pass_builds_give_the_same_tables(monkeypatch, two, both_twins):
    """Large rows are sorted in two counting-sort passes (design.two_passes); forced here on small
    ones, the tables, queries and pairs are those of the one-pass build."""
    fps = clustered(9, 2500, 3, 64, 4)
    alive = np.ones(fps.shape[0], bool)
    ref = {}
    for layout in (("permuted", 4), ("permuted", 5), ("nested", 4, 4)):
        monkeypatch.setattr(D, "two_passes", lambda n, r: False)
        one = SimhashIndex(k=3, layout=layout)
        one.add_many(fps)
        one.flush()
        ref[layout] = (one._tfps.copy(), one._tids.copy(), one._dirs.copy())
        monkeypatch.setattr(D, "two_passes", lambda n, r, two=two: two)
        index = SimhashIndex(k=3, layout=layout)
        index.add_many(fps)
        index.flush()
        assert index._dirs.shape[1] - 1 > 64  # r > 6: the two-pass path applies
        for got, want in zip((index._tfps, index._tids, index._dirs), ref[layout]):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(index._pairs_streamed(layout), brute_pairs(fps, alive, 3))
        assert index.query_many(fps[:20]) == [brute_query(fps, alive, int(q), 3) for q in fps[:20]]
