"""MinHash band keys (simhash_lab.candidates.band_keys) against a reference written from the
description in Python integers: one-permutation bins, optimal densification (its first steps read
from a table, the later ones computed), the band hash; and the band pairs against every pair."""

import itertools

import numpy as np
import pytest

from simhash_lab.candidates import BandKeys, band_keys, probe_table

M64 = (1 << 64) - 1
P1, P2, P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9


def avalanche(h):
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    return h ^ (h >> 32)


def fold(a, b):
    p = a * b
    return (p & M64) ^ (p >> 64)


def bin_of(h, nbins):
    return ((h >> 32) * nbins) >> 32


def reference_keys(sets, bands, rows):
    nbins = bands * rows
    out = []
    for s in sets:
        if not s:
            out.append([1 << 63] * bands)
            continue
        sig = [None] * nbins
        for h in s:
            b = bin_of(h, nbins)
            sig[b] = h if sig[b] is None else min(sig[b], h)
        dense = []
        for i in range(nbins):
            v, a = sig[i], 0
            while v is None:
                a += 1
                v = sig[bin_of(avalanche((((i << 32) | a) * P1) & M64), nbins)]
            dense.append(v)
        keys = []
        for j in range(bands):
            k = (P1 + j) & M64
            for i in range(j * rows, (j + 1) * rows):
                k = fold(k ^ dense[i], P2)
            keys.append(avalanche(k) & ~(1 << 63))
        out.append(keys)
    return np.array(out, np.uint64).T


@pytest.mark.parametrize("bands,rows", [(16, 6), (9, 4), (3, 1)])
def test_band_keys_equal_the_reference(bands, rows):
    rng = np.random.default_rng(bands)
    # sets of 0, 1, 2 (far more empty bins than the table's steps reach), then up to 400 shingles
    sizes = [0, 1, 2, 3, 5, 0, 40, 96, 97, 400] + rng.integers(1, 300, 30).tolist()
    sets = [np.unique(rng.integers(0, 2**64, size=n, dtype=np.uint64)) for n in sizes]
    indptr = np.zeros(len(sets) + 1, np.int64)
    np.cumsum([s.size for s in sets], out=indptr[1:])
    data = np.concatenate(sets)
    keys = np.empty((bands, len(sets)), np.uint64)
    probe = probe_table(bands * rows, 16)
    band_keys(indptr, data, bands, rows, 0, np.empty(3 * bands * rows, np.uint64), keys, probe)
    want = reference_keys([s.tolist() for s in sets], bands, rows)
    assert keys.tolist() == want.tolist()


def test_band_pairs_are_every_pair_that_shares_a_key():
    rng = np.random.default_rng(5)
    base = [np.unique(rng.integers(0, 2**64, size=60, dtype=np.uint64)) for _ in range(40)]
    sets = [b for b in base] + [
        np.unique(np.concatenate([b[:57], rng.integers(0, 2**64, 3, np.uint64)])) for b in base
    ]
    indptr = np.zeros(len(sets) + 1, np.int64)
    np.cumsum([s.size for s in sets], out=indptr[1:])
    bk = BandKeys(0.8, 0.9)
    bk.add(indptr, np.concatenate(sets))
    valid = np.ones(len(sets), bool)
    valid[3] = False
    keys = reference_keys([s.tolist() for s in sets], bk.bands, bk.rows)
    want = {
        (i, j)
        for i, j in itertools.combinations(range(len(sets)), 2)
        if valid[i] and valid[j] and (keys[:, i] == keys[:, j]).any()
    }
    got = bk.pairs(valid, np.zeros(len(sets), np.uint64))
    assert {(int(i), int(j)) for i, j, _ in got.tolist()} == want and len(want) > 30
