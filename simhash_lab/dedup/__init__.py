"""Near-duplicate removal you can act on: Simhash candidates, exact Jaccard verification, a
keep/drop policy that never chains.

:func:`dedup_texts` (a list of str), :func:`dedup_table` (a JSONL, CSV or Parquet file read in
chunks, stdin, or a table in memory: :mod:`simhash_lab.datasets`) and :func:`dedup_files` (the text
files under folders) take one settings object (:class:`~simhash_lab.settings.DedupSettings`, or
its fields as keywords), run the same named steps (each timed in ``res.timings``, each with its
progress bar) and return a :class:`DedupResult`:

1. **read** the rows; 2. **normalise** each text (NFKC, format characters such as U+200B dropped:
   :func:`simhash_lab._unicode.normalise`);
3. **exact groups**: identical normalised texts grouped by a sort of their 128-bit digests; one
   representative of each (the first in visiting order) goes on, the others are dropped for it
   (or for what it is dropped for): the same decisions as the search over every row;
4. **fingerprint** every document from its shingles (:class:`~simhash_lab.shingles.Featurizer`):
   word ``shingle``-grams, or character ``char_ngram``-grams for a text mostly in a script
   without word spaces, each distinct shingle voting once (binary weights), 64 bits. Documents
   without a single shingle (empty, whitespace or punctuation only) are *featureless*: never
   compared, kept;
5. **calibrate** k (unless given): :func:`calibrate` measures, on a random sample of the
   representatives, the Hamming distances of real near-duplicate pairs and takes the smallest
   ``k`` that finds the ``recall`` asked for (default 0.99) of them; with too few such pairs,
   pairs made by random word (or character) replacements down to the threshold stand in;
6. **candidates**: the pairs of representatives whose shingle sets agree on a MinHash band
   (``candidates="bands"``; the default, ``"auto"``, when ``k`` is calibrated), or every pair of
   representatives within ``k`` bits (``candidates="index"``; ``"auto"`` with ``k`` given;
   :meth:`SimhashIndex.pairs <simhash_lab.SimhashIndex.pairs>`); the bands
   (:class:`~simhash_lab.candidates.BandKeys`: keys made chunk by chunk as the rows are
   fingerprinted, the bands chosen to find a pair at the threshold with probability ``recall``;
   time that follows the rows and the pairs, not k). Bands need k calibrated: with ``k`` given (or
   ``unverified``) they are refused (:class:`~simhash_lab.settings.DedupSettings`);
7. **verify** each candidate: exact Jaccard similarity of the two documents' shingle sets (the
   same shingles the fingerprints were made from; sorted 64-bit hashes merged in Numba,
   :mod:`simhash_lab.kernels.verify`); pairs below the threshold are dropped. The raw Hamming mode
   of the first versions (every candidate stands) runs only when asked for by name:
   ``unverified=True`` with ``k``;
8. **cluster** (keep / drop): documents are visited in a stated order (``keep="first"``: input
   order; ``"longest"``: most characters first; or a ``priority`` per document, highest first); a
   document not dropped yet is kept and drops each verified neighbour not decided yet that is
   also a verified neighbour of every document dropped for it so far (``linkage="complete"``, the
   default). So every dropped document is verified-near the kept one it is dropped for (its
   representative), nothing chains, and every two members of a cluster are a verified pair: no
   cluster holds a pair below the threshold. A neighbour that cannot join stays undecided, to be
   kept or dropped for a later one. ``linkage="star"`` asks only the first of these (each dropped
   document near its kept one; two dropped members of one star can be less alike);
9. **write** the outputs (:func:`dedup_table`), through :mod:`simhash_lab._write`.

The result holds the keep mask (``keep``, bool per document) and the duplicates table
(:class:`Duplicates`: dropped id, kept id, Hamming distance, Jaccard similarity).

Where each piece is (with :mod:`simhash_lab.settings`, the options, six files hold verified dedup):

* :mod:`.steps`: the steps, each an object whose methods are its work on a part of the rows;
* :mod:`.run`: the run's constants (:class:`~.run.Run`, frozen), the rows the first read made and
  the local run state;
* :mod:`.local`: the local executor (this process, its threads) and the entry points above;
* :mod:`.results`: :class:`DedupResult`, :class:`Duplicates` and their writers;
* :mod:`.report`: the report (``--report``, HTML or Markdown).

The Dask executor runs the same steps: :mod:`simhash_lab.distributed`.

>>> base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat"
>>> texts = [base, base.replace("warm", "soft"), "an unrelated line of text about cooking rice", "", base]
>>> res = dedup_texts(texts, jaccard=0.7, k=16)
>>> res.keep.tolist(), res.featureless.tolist()
([True, False, True, True, False], [3])
>>> [(d, k, round(s, 3)) for d, k, _, s in res.duplicates.rows()]
[(1, 0, 0.765), (4, 0, 1.0)]
"""

from __future__ import annotations

from ..calibration import Calibration, calibrate
from ..datasets import iter_files, read_text
from ..settings import DedupSettings
from ..shingles import Shingler, recommended_hasher
from .local import LocalExecutor, dedup, dedup_files, dedup_table, dedup_texts
from .results import DedupResult, Duplicates

__all__ = [
    "Calibration",
    "DedupResult",
    "DedupSettings",
    "Duplicates",
    "LocalExecutor",
    "Shingler",
    "calibrate",
    "dedup",
    "dedup_files",
    "dedup_table",
    "dedup_texts",
    "iter_files",
    "read_text",
    "recommended_hasher",
]
