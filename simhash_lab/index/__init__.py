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

Storage: a table is a flat uint64 array of fingerprints and a uint32 array of their ids in the same
order (12 bytes per fingerprint per table), sorted by the ``r`` leading bits of the table's key (the
bits it keeps exact, packed in order: Manku's permutation, without permuting), with a directory of
bucket starts (``r`` about log2(n) - 2, at most the key's length: 1 to 2 bytes per fingerprint per
table). Tables are built by one or two counting sorts, whatever the mask looks like, so the key bits
can grow with ``n`` at no extra cost per entry. A query reads the directory, checks every entry of
its bucket (a few) with one popcount each. Recent adds wait in a small unsorted buffer (scanned
linearly, at most ``max(256, 2 sqrt(n))`` entries) and the tables are rebuilt when it fills
(a counting sort costs less than merging), so adding one fingerprint never rebuilds the index;
removed ids are skipped and dropped at the next rebuild.

``pairs()`` compares the entries of each bucket with each other (a vectorized popcount), and a pair
found through several tables is reported by the first one only. With ``layout="auto"`` it takes the
tables built for queries when they serve, or builds the tables of a design chosen for the job, a
few at a time, and drops them: its memory stays one table per thread whatever the number of tables.
Which design, for which job, is decided by a cost model measured on real runs
(:mod:`simhash_lab.index.design`): at k = 3, 4 tables of 16 bits for the pairs of up to tens of
millions of fingerprints; at k = 6, 28 tables of 16 bits; at k = 10, 66 tables. The memory budget
(``memory_budget``, a quarter of the machine's memory by default) bounds the tables; ``max_tables``
can cap their number.

Reads (``query``, ``query_many``, ``pairs``) may run from several threads once the index is up to
date (call :meth:`SimhashIndex.flush`); writes (``add``, ``add_many``, ``remove``) must not overlap
with anything else.

Layouts (``layout=``)
---------------------
``"auto"`` (default)
    Pick the design with the lowest estimated cost of building the tables and answering about one
    query per stored fingerprint (see :func:`design_tables`, ``job="index"``) within the memory
    budget; re-decided as the index grows. ``pairs()`` chooses for its own job (``job="pairs"``).
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

from .design import TableDesign, default_memory_budget, design_tables, manku_example_3_1
from .table import SimhashIndex

__all__ = ["SimhashIndex", "TableDesign", "default_memory_budget", "design_tables", "manku_example_3_1"]
