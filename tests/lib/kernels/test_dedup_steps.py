"""The dedup steps' kernels (simhash_lab.kernels.dedup_steps) on their own: the digests against
the xxhash package, the runs' first rows against a dictionary, the neighbour scan against brute
force, with too little room for its hits (it counts them all and writes what fits)."""

import numpy as np
import xxhash

from simhash_lab.kernels.dedup_steps import first_of_runs, scan_within, str_digests
from simhash_lab.kernels.strings import str_views


def test_str_digests_are_xxh3_and_xxh64_of_the_code_units():
    texts = ["", "abc", "x" * 300, "\u0161" * 40, "\U0001f600" * 9, "caf\u00e9"]
    ptrs, lens, kinds = str_views(texts)
    out = np.empty((len(texts), 2), np.uint64)
    str_digests(ptrs, lens, kinds, out)
    for t, k, row in zip(texts, kinds.tolist(), out.tolist()):
        units = t.encode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[k])
        assert row == [xxhash.xxh3_64_intdigest(units), xxhash.xxh64_intdigest(units, seed=k)]


def test_first_of_runs_through_a_collision_of_the_high_bits():
    low = np.uint64(0xFF)
    d0 = np.array([0x100, 0x100, 0x100, 0x200, 0x100], np.uint64)  # rows 0, 1, 2, 4 share high bits
    d1 = np.array([1, 2, 1, 1, 2], np.uint64)  # ... but rows 1 and 4 are another digest
    place = np.array([3, 0, 4, 1, 2])  # the visiting order: 1, 3, 4, 0, 2
    at = np.empty(5, np.int64)
    at[place] = np.arange(5)
    keys = np.sort((d0 & ~low) | place.astype(np.uint64))
    rep = np.empty(5, np.int64)
    first_of_runs(keys, low, d0, d1, at, rep)
    assert rep.tolist() == [0, 1, 0, 3, 1]


def test_scan_within_equals_brute_force_and_counts_past_its_room():
    rng = np.random.default_rng(4)
    fps = rng.integers(0, 2**64, size=5000, dtype=np.uint64)
    fps[2500:2600] = fps[:100] ^ np.uint64(0b111)
    q = fps[:150].copy()
    near = [np.flatnonzero(np.bitwise_count(fps ^ x) <= 12).tolist() for x in q]
    want = [(i, j) for i in range(q.size) for j in near[i]]
    for room in (len(want) + 5, 10):
        oq, oi, od = (np.full(room, -1, np.int64) for _ in range(3))
        c = scan_within(q, fps, 12, oq, oi, od)
        assert c == len(want)
        got = sorted(zip(oq[: min(c, room)].tolist(), oi[: min(c, room)].tolist()))
        assert set(got) <= set(want) and len(got) == min(c, room)
        if room > c:
            assert got == want
            assert od[:c].tolist() == np.bitwise_count(q[oq[:c]] ^ fps[oi[:c]]).tolist()
