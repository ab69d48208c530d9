"""The fused first read of the default dedup path: one pass over each text for everything a chunk
of rows needs (issue 48, item 1).

``words_pass`` reads each ``str``'s code units in place (``strings.str_views``) and for each text:

* its 128-bit exact-groups digest (``dedup_steps.str_digest``, the one definition), while its
  units are in the cache;
* its word ``n``-shingles' XXH3 hashes (``verify.str_shingle_hashes``, the hasher of
  ``verify.shingle_hashes_str``), into per-thread scratch;
* the distinct ones, by a small open-addressing table (``vote.dedupe_in``), or, when the sorted
  set itself is wanted (a Dask task keeps its sets), by the sort and run-compaction of
  ``shingle_hashes_str``;
* their binary-weight vote (``vote.count_bits``, SWAR, then ``vote.fold_counts``): the
  fingerprint ``verify.fold_sets`` makes from the set;
* its MinHash band keys, one-permutation hashing with optimal densification
  (``candidates.band_keys`` on the one row), and the set's size.

Every output is the one the separate kernels make (the same helpers, called in one loop), bit for
bit: ``tests/lib/test_fused.py`` compares them. The scratch is the caller's, allocated once per
thread and reused across chunks (``simhash_lab.shingles.FusedScratch``), so nothing is allocated
per text or per chunk; a range of texts writes only its own outputs (``simhash_lab._threads``).
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .candidates import band_keys
from .dedup_steps import str_digest
from .sort import sort_hashes
from .strings import unit_bytes
from .verify import str_shingle_hashes
from .vote import count_bits, dedupe_in, fold_counts, table_size

__all__ = ["words_pass"]

_U64 = np.uint64


@kernel
def words_pass(
    ptrs, lens, kinds, p, n, first, probe, bands, rows, digests, fps, sizes, flags, keys,
    slots, sets, at, by_sort, tok, pos, joined, ws, order, hs, table, tmp, count, sig, acc, ip,
):  # fmt: skip
    """One pass over the texts ``ptrs``, ``lens``, ``kinds`` (``strings.str_views``; a range of
    a chunk, whose first text is column ``first`` of ``keys``) with the word ``n``-shingles of
    pipeline ``p``. For text d:

    * ``digests[d]`` (shape (m, 2), or (0, 2): none made): ``dedup_steps.str_digest``;
    * ``fps[d]``: the binary-weight Simhash of its distinct shingle hashes (64 bits);
    * ``sizes[d]``: how many distinct shingles (0: none, a featureless row);
    * ``flags[d]``: ``tokenize.lower_tokenize_str``'s (the caller redoes a row whose lowercase
      needs Python, refuses a lone surrogate);
    * ``keys[:, first + d]`` (``bands`` > 0): ``candidates.band_keys`` of its set (``rows`` values
      a band, ``probe``: ``probe_table``);
    * with ``slots`` (``slots.size`` > 0): the sorted set itself into ``sets[at[d]:]``, packed as
      ``verify.shingle_hashes_str`` packs them (then ``verify.compact_sets``); distinct values are
      then found by sorting, as there, else by ``by_sort`` (True: sort; False: a hash table).

    Scratch, sized by the caller for the range's longest text (``FusedScratch.fit``): ``tok``,
    ``pos``, ``joined``, ``ws``, ``order`` as ``verify.str_shingle_hashes`` takes them; ``hs``,
    ``tmp`` one per shingle, ``count`` 2 per shingle + 1; ``table`` at least ``vote.table_size``
    of the most shingles; ``sig`` ``3 * bands * rows``; ``acc`` 64; ``ip`` 2."""
    keep_sets = slots.shape[0] > 0
    sort = by_sort or keep_sets
    w = slots[0] if keep_sets else 0
    digest = digests.shape[0] > 0
    ip[0] = 0
    for d in range(ptrs.shape[0]):
        data = unit_bytes(ptrs[d], lens[d], kinds[d])
        if digest:
            digests[d, 0], digests[d, 1] = str_digest(data, kinds[d])
        m, flags[d] = str_shingle_hashes(data, lens[d], kinds[d], p, n, tok, pos, joined, ws, order, hs, 0)
        u = 0
        if m > 0:
            if sort:
                sort_hashes(hs, tmp, count, m)
                u = 1
                last = hs[0]
                for j in range(1, m):  # distinct values, branch-free (as shingle_hashes_str)
                    x = hs[j]
                    hs[u] = x
                    u += x != last
                    last = x
            else:
                u = dedupe_in(hs, m, table, table_size(m))
        acc[:] = 0
        count_bits(hs, u, acc)
        fps[d] = fold_counts(acc, u, 64)
        sizes[d] = u
        if bands > 0:
            ip[1] = u
            band_keys(ip, hs, bands, rows, first + d, sig, keys, probe)
        if keep_sets:
            at[d] = w
            for j in range(u):
                sets[w + j] = hs[j]
            w += u
