"""Kernels of the dedup pipeline's own steps: exact-copy digests and groups, the calibration's scan.

* ``str_digests`` (``str_digest``: one text's): two 64-bit hashes of each text's code units, read
  in place (``strings.str_views``): the 128-bit digest by which the exact-groups step finds
  identical texts;
* ``first_of_runs``: the first row, in the visiting order, of each group of equal digests, from
  one sort of 64-bit keys (digest high bits, the row's place in the low bits);
* ``scan_within``: every fingerprint within ``k`` bits of each of a few queries (the calibration's
  sample), one pass over the fingerprints in tiles that the vector unit counts through.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import popcount
from .hashes import xxh3_64, xxh64
from .strings import unit_bytes

__all__ = ["first_of_runs", "scan_within", "str_digest", "str_digests"]

_TILE = 2048  # fingerprints per tile: 16 KB, in the L1 cache while every query passes over them


@kernel(inline=True)
def str_digest(b, kind):
    """The 128-bit digest of one string's code units ``b`` (``strings.unit_bytes``) of width
    ``kind``: (XXH3-64, XXH64 seeded with the kind). Its one definition: ``str_digests`` and the
    fused pass (``kernels.fused``) both call it."""
    n = b.shape[0]
    return xxh3_64(b, 0, n), xxh64(b, 0, n, np.uint64(kind))


@kernel
def str_digests(ptrs, lens, kinds, out):
    """``out[i] = str_digest`` of string i's code units: the data address, length in code units
    and kind (bytes a unit) of ``strings.str_views``."""
    for i in range(ptrs.shape[0]):
        out[i, 0], out[i, 1] = str_digest(unit_bytes(ptrs[i], lens[i], kinds[i]), kinds[i])


@kernel
def first_of_runs(keys, low, d0, d1, at, rep):
    """``keys`` sorted, each the high bits of a digest with a row's place in the visiting order in
    its ``low`` bits (``at[place]``: the row's index): ``rep[index]`` is the index of the first row,
    in that order, whose 128-bit digest ``(d0, d1)`` is the row's own. A run of equal high bits
    holds one digest but for a collision of those bits, so each row is compared with the first row
    of each digest met so far in its run (one, but for such a collision)."""
    m = keys.shape[0]
    heads = np.empty(m, np.int64)
    i = 0
    while i < m:
        hi = keys[i] & ~low
        e = i + 1
        while e < m and (keys[e] & ~low) == hi:
            e += 1
        nh = 0
        for x in range(i, e):
            r = at[np.int64(keys[x] & low)]
            found = -1
            for h in range(nh):
                y = heads[h]
                if d0[y] == d0[r] and d1[y] == d1[r]:
                    found = y
                    break
            if found < 0:
                heads[nh] = r
                nh += 1
                found = r
            rep[r] = found
        i = e


@kernel
def scan_within(queries, fps, k, out_q, out_id, out_d):
    """Every ``(query, position, distance)`` with ``popcount(queries[q] ^ fps[position]) <= k``,
    written into ``out_*`` (as many as fit) in order of tiles of ``fps``, then of queries, then of
    positions; returns how many there are (rerun with room for them when more than fit). Each
    query counts a tile's hits first (no branch: the loop vectorises), and only a tile with a hit
    is read again to write them."""
    n = fps.shape[0]
    cap = out_q.shape[0]
    c = 0
    for t0 in range(0, n, _TILE):
        t1 = min(t0 + _TILE, n)
        for q in range(queries.shape[0]):
            x = queries[q]
            hits = 0
            for i in range(t0, t1):
                hits += popcount(x ^ fps[i]) <= k
            if hits:
                for i in range(t0, t1):
                    d = popcount(x ^ fps[i])
                    if d <= k:
                        if c < cap:
                            out_q[c] = q
                            out_id[c] = i
                            out_d[c] = d
                        c += 1
    return c
