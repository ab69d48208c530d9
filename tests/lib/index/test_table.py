"""SimhashIndex (simhash_lab.index.table): exact against brute force for every layout, k, bits; a saved
index answers as it did; errors; every design usable and exact. The file format is tested in
test_storage.py, the designs themselves in test_design.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simhash_lab.index.design as index_design
from simhash_lab.index import SimhashIndex, design_tables

PROPERTY = settings(
    max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


# -- references -----------------------------------------------------------------------------------


def popcount_py(x: int) -> int:
    return bin(x).count("1")


def brute_query(fps: list[int], alive: list[bool], q: int, k: int) -> list[tuple[int, int]]:
    hits = [(i, popcount_py(f ^ q)) for i, f in enumerate(fps) if alive[i]]
    return sorted(((i, d) for i, d in hits if d <= k), key=lambda t: (t[1], t[0]))


def brute_pairs(fps: list[int], alive: list[bool], k: int) -> np.ndarray:
    arr = np.array(fps, dtype=np.uint64)
    live = np.array(alive, dtype=bool)
    d = np.bitwise_count(arr[:, None] ^ arr[None, :]).astype(np.int64)
    ok = np.triu(d <= k, 1) & live[:, None] & live[None, :]
    i, j = np.nonzero(ok)
    return np.stack([i, j, d[i, j]], axis=1).astype(np.int64).reshape(-1, 3)


def brute_groups(n: int, pairs: np.ndarray) -> list[list[int]]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, _ in pairs.tolist():
        parent[find(i)] = find(j)
    comps: dict[int, list[int]] = {}
    for x in {int(v) for v in pairs[:, :2].ravel()}:
        comps.setdefault(find(x), []).append(x)
    return sorted(sorted(c) for c in comps.values())


def planted(seed: int, n: int, bits: int, k: int, n_near: int, n_same: int) -> list[int]:
    """Random fingerprints, plus near-duplicates (0..k+1 flipped bits) and exact copies."""
    rng = np.random.default_rng(seed)
    base = (
        [int(x) for x in rng.integers(0, 1 << bits, size=n, dtype=np.uint64)]
        if bits < 64
        else [int.from_bytes(rng.bytes(8), "little") for _ in range(n)]
    )
    out = list(base)
    for _ in range(n_near if n else 0):
        f = base[int(rng.integers(n))]
        for b in rng.choice(bits, size=int(rng.integers(0, min(k + 1, bits) + 1)), replace=False):
            f ^= 1 << int(b)
        out.append(f)
    for _ in range(n_same if n else 0):
        out.append(out[int(rng.integers(len(out)))])
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def layouts_for(k: int, bits: int) -> list:
    out: list = ["auto", "scan", "blocks"]
    if k + 2 <= bits and math.comb(k + 2, k) <= 64:
        out.append(("permuted", k + 2))
    if 1 <= k <= 2 and bits >= 16:
        out.append(("nested", k + 1, k + 1))
    if bits == 64 and k <= 3:
        out.append("seed")
    return out


def check_against_brute(
    index: SimhashIndex, fps: list[int], alive: list[bool], k: int, queries: list[int]
) -> None:
    for q in queries:
        assert index.query(q) == brute_query(fps, alive, q, k), (index.layout, q)
    assert index.query_many(queries) == [brute_query(fps, alive, q, k) for q in queries]
    np.testing.assert_array_equal(index.pairs(), brute_pairs(fps, alive, k))


# -- property tests against brute force ------------------------------------------------------------


@PROPERTY
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(0, 8),
    bits=st.sampled_from([64, 64, 32, 16, 12, 9]),
    n=st.integers(0, 120),
    n_near=st.integers(0, 60),
    n_same=st.integers(0, 10),
)
def test_every_layout_matches_brute_force(seed, k, bits, n, n_near, n_same):
    k = min(k, bits - 1)
    fps = planted(seed, n, bits, k, n_near, n_same)
    alive = [True] * len(fps)
    rng = np.random.default_rng(seed + 1)
    extra = [int(x) for x in rng.integers(0, 1 << min(bits, 63), size=3, dtype=np.uint64)]
    queries = fps[:15] + extra + [(1 << bits) - 1, 0]
    for layout in layouts_for(k, bits):
        index = SimhashIndex(k=k, bits=bits, layout=layout)
        half = len(fps) // 2
        ids = index.add_many(np.array(fps[:half], dtype=np.uint64))
        assert ids.tolist() == list(range(half))
        assert [index.add(f) for f in fps[half:]] == list(range(half, len(fps)))  # the buffer
        assert len(index) == len(fps)
        check_against_brute(index, fps, alive, k, queries)


@pytest.mark.parametrize("layout", ["auto", "blocks", ("permuted", 5), ("nested", 4, 4), "seed"])
def test_stored_fingerprints_and_exact_copies_match_at_distance_0(layout):
    index = SimhashIndex(k=3, bits=64, layout=layout)
    fp = 0xDEADBEEF_CAFEBABE
    a, b = index.add(fp), index.add(fp)
    index.add_many([fp ^ 1, fp ^ 0b111, fp ^ 0b1111, 2**64 - 1])
    assert index.query(fp) == [(a, 0), (b, 0), (2, 1), (3, 3)]
    assert [0, 1, 0] in index.pairs().tolist()


def test_every_k_for_small_bits_with_blocks():
    bits = 8
    fps = planted(7, 60, bits, 3, 20, 5)
    alive = [True] * len(fps)
    for k in range(bits):
        for layout in ("blocks", "auto", "scan"):
            index = SimhashIndex(k=k, bits=bits, layout=layout)
            index.add_many(fps)
            check_against_brute(index, fps, alive, k, fps[:10] + [0, 255])


def test_bits_1_and_k_0():
    index = SimhashIndex(k=0, bits=1)
    index.add_many([0, 1, 1, 0])
    assert index.query(1) == [(1, 0), (2, 0)]
    assert index.pairs().tolist() == [[0, 3, 0], [1, 2, 0]]
    assert index.groups() == [[0, 3], [1, 2]]


def test_large_index_merges_buffer_and_changes_layout():
    """Growing one add at a time crosses buffer merges and auto's scan -> tables switch."""
    fps = planted(3, 2500, 64, 3, 400, 50)
    alive = [True] * len(fps)
    index = SimhashIndex(k=3)
    assert index.layout == "scan"
    for i, f in enumerate(fps):
        index.add(f)
        if i in (10, 700, 2000):
            check_against_brute(index, fps[: i + 1], alive[: i + 1], 3, fps[:5])
    assert index.layout == ("permuted", 4)
    check_against_brute(index, fps, alive, 3, fps[:40])


# -- remove ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["auto", "scan", "blocks", ("permuted", 5)])
def test_remove_then_query(layout):
    fps = planted(11, 800, 64, 3, 300, 30)
    alive = [True] * len(fps)
    index = SimhashIndex(k=3, layout=layout)
    index.add_many(fps)
    index.query(fps[0])  # build the tables first, so removals hit them
    rng = np.random.default_rng(0)
    gone = rng.choice(len(fps), size=500, replace=False).tolist()  # most: forces a compaction
    for n_done, i in enumerate(gone):
        index.remove(i)
        alive[i] = False
        if n_done in (0, 100, 499):
            check_against_brute(index, fps, alive, 3, fps[:20])
    assert len(index) == len(fps) - len(gone)
    for i in gone[:5]:
        assert i not in index
        assert all(j != i for j, _ in index.query(fps[i]))
        with pytest.raises(KeyError, match="not in the index"):
            index.remove(i)
    new_id = index.add(fps[gone[0]])  # ids are never reused
    assert new_id == len(fps)
    assert index.query(fps[gone[0]])[0] == (new_id, 0)


def test_remove_bad_ids():
    index = SimhashIndex(k=2)
    index.add(5)
    with pytest.raises(KeyError):
        index.remove(1)
    with pytest.raises(KeyError):
        index.remove(-1)
    with pytest.raises(TypeError, match="id must be an int"):
        index.remove("0")


# -- groups ----------------------------------------------------------------------------------------


def test_groups_are_connected_components():
    fps = planted(5, 300, 64, 4, 200, 20)
    index = SimhashIndex(k=4)
    index.add_many(fps)
    pairs = index.pairs()
    groups = index.groups()
    assert groups == brute_groups(len(fps), pairs)
    assert all(len(g) >= 2 and g == sorted(g) for g in groups)
    assert groups == sorted(groups)


def test_empty_index():
    index = SimhashIndex(k=3)
    assert len(index) == 0
    assert index.query(123) == []
    assert index.query_many([1, 2]) == [[], []]
    assert index.pairs().shape == (0, 3)
    assert index.groups() == []
    indptr, ids, d = index.query_many(np.array([1, 2], np.uint64), return_arrays=True)
    assert indptr.tolist() == [0, 0, 0] and ids.size == 0 and d.size == 0


def test_query_many_arrays_form():
    fps = planted(9, 200, 64, 3, 100, 10)
    index = SimhashIndex(k=3)
    index.add_many(fps)
    indptr, ids, d = index.query_many(fps[:30], return_arrays=True)
    assert indptr.dtype == ids.dtype == d.dtype == np.int64
    for i, q in enumerate(fps[:30]):
        s, e = indptr[i], indptr[i + 1]
        assert list(zip(ids[s:e].tolist(), d[s:e].tolist())) == index.query(q)


# -- persistence -----------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["auto", "seed", ("permuted", 5), "scan"])
def test_save_load_round_trip(tmp_path, layout):
    fps = planted(21, 400, 64, 3, 150, 20)
    index = SimhashIndex(k=3, layout=layout, max_tables=12)
    index.add_many(fps)
    index.remove(3)
    index.remove(250)
    path = tmp_path / "index.shidx"
    index.save(path)
    again = SimhashIndex.load(path)
    assert (again.k, again.bits, len(again)) == (3, 64, len(fps) - 2)
    assert repr(again) == repr(index)
    assert again.layout == index.layout
    np.testing.assert_array_equal(again.pairs(), index.pairs())
    for q in fps[:20]:
        assert again.query(q) == index.query(q)
    assert 3 not in again and 4 in again
    assert again.add(1) == len(fps)  # ids continue after the saved ones
    assert again.fingerprint(0) == fps[0]


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("k, bits", [(64, 64), (70, 64), (-1, 64), (16, 16), (1, 1)])
def test_k_out_of_range(k, bits):
    with pytest.raises(ValueError, match=rf"k must be between 0 and bits-1 \({bits - 1}\).*got {k}"):
        SimhashIndex(k=k, bits=bits)


@pytest.mark.parametrize("k", ["3", 3.0, True, None])
def test_k_wrong_type(k):
    with pytest.raises(TypeError, match="k must be an int"):
        SimhashIndex(k=k)


@pytest.mark.parametrize("bits", [0, 65])
def test_bits_out_of_range(bits):
    with pytest.raises(ValueError, match="bits"):
        SimhashIndex(k=0, bits=bits)


def test_bits_mismatch():
    index = SimhashIndex(k=2, bits=16)
    with pytest.raises(ValueError, match=r"does not fit in bits=16"):
        index.add(2**16)
    with pytest.raises(ValueError, match=r"does not fit in bits=16"):
        index.query(2**40)
    with pytest.raises(ValueError, match=r"fps\[1\]=65536 does not fit in bits=16"):
        index.add_many(np.array([1, 2**16], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"does not fit in bits=16"):
        index.query_many([3, 2**17])
    with pytest.raises(ValueError, match=r"does not fit in bits=64"):
        SimhashIndex(k=3).add(2**64)
    assert len(index) == 0  # nothing half-added


@pytest.mark.parametrize(
    "bad, err",
    [
        (-1, ValueError),
        (1.5, TypeError),
        ("12", TypeError),
        (None, TypeError),
        (True, TypeError),
    ],
)
def test_bad_single_fingerprints(bad, err):
    with pytest.raises(err, match="fp"):
        SimhashIndex(k=3).add(bad)
    with pytest.raises(err, match="fp"):
        SimhashIndex(k=3).query(bad)


@pytest.mark.parametrize(
    "bad, err",
    [
        (np.array([1.0, 2.0]), TypeError),
        (np.array([1, -2]), ValueError),
        ([1, -2], ValueError),
        (np.zeros((2, 2), np.uint64), ValueError),
        (None, TypeError),
        ("ab", TypeError),
        ([1, "a"], TypeError),
        ([2**64], ValueError),
        (np.array([True]), TypeError),
    ],
)
def test_bad_fingerprint_arrays(bad, err):
    with pytest.raises(err, match="fps"):
        SimhashIndex(k=3).add_many(bad)


def test_fingerprint_inputs_accepted():
    index = SimhashIndex(k=1, bits=64)
    ids = index.add_many([2**64 - 1, 0, np.uint64(7)])
    index.add_many(np.array([1, 2], dtype=np.int32))
    index.add_many(range(3))
    index.add(np.uint64(2**63))
    assert ids.tolist() == [0, 1, 2] and len(index) == 9
    assert index.query(np.uint64(2**64 - 1)) == [(0, 0)]
    assert index.query(2**63)[0] == (8, 0)


@pytest.mark.parametrize(
    "layout, match",
    [
        ("fast", "must be one of"),
        (("permuted", 3), "between k\\+1 \\(4\\) and bits"),
        (("permuted", 65), "between k\\+1"),
        (("permuted",), "expected"),
        (("nested", 4, 49), "second level"),
        (("permuted", 40), "tables; at most"),
        (("shuffled", 4), "must be one of"),
        (5, "must be one of"),
    ],
)
def test_bad_layouts(layout, match):
    with pytest.raises(ValueError, match=match):
        SimhashIndex(k=3, layout=layout)


def test_seed_layout_is_the_seeds_and_needs_k_le_3():
    index = SimhashIndex(k=2, layout="seed")
    assert index.table_masks == [0xFFFF << (16 * c) for c in range(4)]
    with pytest.raises(ValueError, match="seed.*k <= 3"):
        SimhashIndex(k=4, layout="seed")
    with pytest.raises(ValueError, match="seed.*bits=64"):
        SimhashIndex(k=2, bits=32, layout="seed")


def test_forced_layouts_resolve():
    assert SimhashIndex(k=3, layout="blocks").layout == ("permuted", 4)
    assert SimhashIndex(k=3, layout=["permuted", 6]).layout == ("permuted", 6)
    assert len(SimhashIndex(k=3, layout=("permuted", 6)).table_masks) == 20
    assert len(SimhashIndex(k=3, layout=("nested", 4, 4)).table_masks) == 16
    assert SimhashIndex(k=3, layout="scan").table_masks == []


# -- table designs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [0, 1, 3, 7])
def test_every_design_is_exact(k):
    """Any design listed must be usable and exact."""
    fps = planted(k, 150, 32, k, 80, 5)
    alive = [True] * len(fps)
    for d in design_tables(len(fps), k, bits=32, max_tables=40)[:6]:
        index = SimhashIndex(k=k, bits=32, layout=d.layout, max_tables=40)
        index.add_many(fps)
        assert index.design.tables == d.tables
        check_against_brute(index, fps, alive, k, fps[:8])


def test_memory_per_fingerprint_per_table():
    index = SimhashIndex(k=3, layout="blocks")
    index.add_many(planted(1, 5000, 64, 3, 0, 0))
    index.flush()
    n, t = len(index), len(index.table_masks)
    per = (index._tfps.nbytes + index._tids.nbytes) / (n * t)
    assert per == index_design.BYTES_PER_FINGERPRINT_PER_TABLE == 12
    assert index.table_nbytes >= n * t * 12


@pytest.mark.parametrize("min_work", [0, 1 << 62])
def test_threads_and_one_thread_agree(monkeypatch, min_work):
    """Small inputs run in one thread; force ranges in threads, or one thread, and compare with
    brute force."""
    import simhash_lab.kernels.index as kernels

    monkeypatch.setattr(kernels, "PARALLEL_MIN_WORK", min_work)
    fps = planted(13, 700, 64, 3, 300, 20)
    alive = [True] * len(fps)
    for layout in ("blocks", "scan", ("permuted", 5)):
        index = SimhashIndex(k=3, layout=layout)
        index.add_many(fps[:400])
        index.query(fps[0])
        index.add_many(fps[400:])  # over the buffer cap: a merge
        check_against_brute(index, fps, alive, 3, fps[:30])
