"""An exact near-duplicate index for Simhash fingerprints, for every k.

``SimhashIndex(k, bits)`` answers "which stored fingerprints are within Hamming distance k of this
one?" and returns exactly what a brute-force scan returns, for every ``k`` from 0 to ``bits - 1``.

How it works (the course's notebook on the block index tells the story):

* **Pigeonhole blocks** (the seed's ``SimhashLshIndex``): split the ``bits`` bits into ``k + 1``
  disjoint blocks. Two fingerprints that differ in at most ``k`` bits cannot dirty all ``k + 1``
  blocks, so at least one block is identical: keep one table per block and only verify fingerprints
  that share a block with the query.
* **Permuted tables** (Manku, Jain and Das Sarma, "Detecting near-duplicates for web crawling",
  WWW 2007, section 3.1): split into ``m > k + 1`` blocks; at most ``k`` blocks are dirty, so at least
  ``m - k`` are clean. One table per choice of ``m - k`` blocks kept exact: ``C(m, k)`` tables, each
  keyed on more bits, so far fewer candidates per table, at the price of more tables (memory).
  ``("nested", m1, m2)`` applies the argument twice (the paper's 16-table design).
* **Scan**: a Numba linear popcount scan, for tiny indexes or large ``k`` where tables cannot help.

Storage: a table is a flat uint64 array of fingerprints sorted by ``fp & mask`` (the bits it keeps
exact) and a uint32 array of their ids in the same order (12 bytes per fingerprint per table), plus
a directory of bucket starts on the leading ``r`` key bits (``r`` about log2(n) - 1, at most the
top block's width; well under 1 byte per fingerprint per table). A query reads the directory,
binary-searches the bucket for the run of equal masked keys and verifies each candidate with one
popcount. Sorting by the masked value groups exactly the runs that Manku's bit permutation would,
without permuting. Tables are built with a counting sort on the directory bits. Recent adds wait in
a small unsorted buffer (scanned linearly, at most ``max(256, 2 sqrt(n))`` entries) and are merged
into the tables lazily, in O(n) per table, so adding one fingerprint never rebuilds the index;
removed ids are skipped and dropped at the next merge. ``pairs()`` walks each table's runs, and a
pair found through several tables is reported by the first one only.

Reads (``query``, ``query_many``, ``pairs``) may run from several threads once the index is up to
date (call :meth:`SimhashIndex.flush`); writes (``add``, ``add_many``, ``remove``) must not overlap
with anything else.

Layouts (``layout=``)
---------------------
``"auto"`` (default)
    Pick the design with the lowest estimated query cost for the current size (see
    :func:`design_tables`), using at most ``max_tables`` tables; re-decided as the index grows.
``"scan"``
    No tables: a linear popcount scan.
``"seed"``
    The seed's exact layout: 4 tables of 16-bit blocks, block ``c`` = ``(fp >> 16 c) & 0xFFFF``.
    Needs ``bits=64`` and ``k <= 3`` (the seed asserts ``threshold <= 3``).
``"blocks"``
    Pigeonhole: ``k + 1`` blocks, ``k + 1`` tables. Same as ``("permuted", k + 1)``.
``("permuted", m)``
    Manku's permuted tables: ``m`` blocks (``k + 1 <= m <= bits``), ``C(m, k)`` tables.
``("nested", m1, m2)``
    Two levels: ``m1`` blocks keep ``m1 - k`` exact, the remaining bits split into ``m2`` blocks keep
    ``m2 - k`` exact: ``C(m1, k) * C(m2, k)`` tables.

Blocks are consecutive runs of bits starting at bit 0; when ``bits`` is not a multiple of ``m`` the
first ``bits % m`` blocks are one bit longer (64 bits in 6 blocks: 11, 11, 11, 11, 10, 10).
"""

from .design import TableDesign, design_tables, manku_example_3_1
from .table import SimhashIndex

__all__ = ["SimhashIndex", "TableDesign", "design_tables", "manku_example_3_1"]
