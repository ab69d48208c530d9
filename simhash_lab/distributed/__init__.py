"""Simhash and verified dedup on Dask: where one machine is not enough.

* :mod:`.batch`: every pair of fingerprints within k, as Manku et al.'s MapReduce (:func:`pairs`,
  :func:`near_duplicates`, :func:`fingerprints`, :func:`table_masks`): the same pairs as
  :meth:`SimhashIndex.pairs() <simhash_lab.SimhashIndex.pairs>`;
* :mod:`.executor`: verified dedup of a partitioned dataset (:func:`dedup_dataset`): the steps of
  :mod:`simhash_lab.dedup.steps` run as Dask tasks, so the same decisions as
  :func:`~simhash_lab.dedup.dedup_table` on the same rows;
* :mod:`.pieces`: the files the shuffles go through;
* :mod:`.cluster`: a quiet local cluster (:func:`local_cluster`), the kernels warmed on every
  worker (:func:`warmup_workers`), a computation run on a given scheduler.

Dask is an extra: ``pip install 'simhash-lab[dask]'``; without it these functions raise an
ImportError that says so (importing this package needs no Dask).
"""

from __future__ import annotations

from .batch import fingerprints, near_duplicates, pairs, table_masks
from .cluster import local_cluster, warmup_workers
from .executor import dedup_dataset

__all__ = [
    "table_masks",
    "fingerprints",
    "pairs",
    "near_duplicates",
    "dedup_dataset",
    "local_cluster",
    "warmup_workers",
]
