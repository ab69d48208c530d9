# %% [markdown]
# # 08 · Near-duplicates at scale, on Dask
#
# **When one machine is not enough.** Notebook 06 ran the pipeline on hundreds of documents;
# Google's crawler ran it on billions (Manku, Jain and Das Sarma, WWW 2007). Their *batch mode* finds
# every near-duplicate pair of a batch with MapReduce. `simhash_lab.distributed` runs the same plan on
# [Dask](https://www.dask.org): on a `LocalCluster` here, unchanged on a real cluster
# (`pip install 'simhash-lab[dask]'`). We check that it finds exactly the pairs the single-machine
# index finds, run notebook 06's verified dedup from Parquet files to Parquet files with the same
# decisions as on one machine, then measure how it scales on this machine's cores.

# %%
import os
import shutil
import tempfile
import time

import dask.bag as db
import matplotlib.pyplot as plt
import numpy as np
import pyarrow.parquet as pq

from simhash_lab import SimhashIndex, dedup_texts
from simhash_lab import distributed as D
from simhash_lab.course import corpus, plot, widgets
from simhash_lab.settings import DedupSettings

plot.use_course_style()
# the cores this process may run on (a container or a job scheduler may allow fewer than the machine has)
cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


local_cluster = D.local_cluster  # (cluster, client): no dashboard, no busy port, only errors logged


# %% [markdown]
# ## (a) Intuition: the pigeonhole, as a join
#
# Notebook 05's index keeps $k + 1$ tables; a fingerprint sits in table $t$ under its key, the bits
# of block $t$. Two fingerprints within $k$ bits share at least one key (pigeonhole). A batch does not need
# queries: **emit every fingerprint under every key and group by key**. Each group is small, and only
# its members need a popcount. That is a join, and joins are what MapReduce and Dask do well:
#
# ```
# partition of texts ──fingerprint──▶ (id, fp)                       one task per partition (Numba)
# (id, fp) ──map──▶ ((t, fp & mask_t), id, fp) for each table t      hash of the key picks a reducer
# reducer r ──sort by (t, key)──▶ runs of equal keys ──POPCNT ≤ k──▶ (i, j, d)
# ```
#
# A pair that shares several blocks would be found several times, so a reducer keeps it only in the
# **first** table whose key it shares: the output needs no de-duplication, like `SimhashIndex.pairs()`.
#
# ## (b) Definition, in code
#
# `D.pairs(fps, k)` takes fingerprints (a NumPy array, a dask array or delayed partitions);
# `D.near_duplicates(texts, k)` starts from texts (a list or a `dask.bag`) and builds one task graph
# for the whole pipeline. Both return `(i, j, d)` rows sorted like `SimhashIndex.pairs()`.
#
# The corpus: each partition makes its own documents on the worker, the way a cluster reads its own
# shard of a crawl. `corpus.crawl_partition(seed)` makes one: documents of 4 to 6 paragraphs of
# Python's docs, every tenth a copy of an earlier one with one word replaced (a planted
# near-duplicate). All partitions draw from the same pool of paragraphs, so there are accidental
# near-duplicates too, as in a real crawl.

# %%
N_PARTITIONS, PER_PARTITION = 8, 6_000
seeds = db.from_sequence(range(N_PARTITIONS), npartitions=N_PARTITIONS)  # one seed per partition
corpus_bag = seeds.map(corpus.crawl_partition, n=PER_PARTITION).flatten()  # made on the workers

# %% [markdown]
# ## The same pairs as the single-machine index
#
# A `LocalCluster` with one single-threaded worker process per available core (at most 4). On a
# cluster, replace it with `Client("tcp://scheduler:8786")`; nothing else changes.

# %% tags=["nbval-ignore-output"]
with widgets.Progress(_("this cell")) as bar:
    bar.step(_("starting the cluster"))
    cluster, client = local_cluster(min(cores, 4))
    bar.step(_("making the documents, fingerprints and pairs on the workers"))
    fps, pairs = D.near_duplicates(corpus_bag, k=3)
print(f"{cores} cores available to this notebook: {len(client.scheduler_info()['workers'])} worker processes")
print(f"{len(fps):,} documents in {N_PARTITIONS} partitions, {len(pairs):,} pairs within k = 3")

# %%
index = SimhashIndex(k=3)
index.add_many(fps)
same = np.array_equal(pairs, index.pairs())
print("Dask pairs identical to SimhashIndex.pairs() on the same fingerprints:", same)
assert same

# %% [markdown]
# Identical: every row `(i, j, d)`, in the same order. The layout does not matter either: Manku's
# 20-table design `("permuted", 6)` joins on longer keys (smaller groups, more copies of each
# fingerprint) and finds the same pairs:

# %%
assert np.array_equal(D.pairs(fps, k=3, layout=("permuted", 6)), pairs)
print("('permuted', 6):", D.table_masks(3, 64, ("permuted", 6)).size, "tables, same pairs")

# %% [markdown]
# ## Verified dedup, from files to files
#
# Pairs within k bits are candidates, not decisions (notebook 06). `D.dedup_dataset` runs the whole
# verified dedup on the cluster, from partitioned Parquet or JSONL files to partitioned Parquet:
# fingerprint each partition; calibrate k for the Jaccard threshold on a sample drawn across all
# partitions (the seeded sample one machine draws, so the same k); find the candidate
# pairs with the join above; send each pair to the partitions that hold its two rows, where the
# rows' shingle sets are attached and the pair is verified by exact Jaccard; run the keep/drop pass
# over the verified pairs in one worker task; and let each partition write its kept rows. The texts
# never leave the workers that read them, and only counts come back to this notebook.
#
# Here each worker writes its shard as a Parquet file first (`corpus.write_crawl_partition`), as a
# crawler would store it. On a cluster the partitions, the output and the scratch folder of the
# shuffles are URLs every worker can open: `D.dedup_dataset("s3://bucket/in/*.parquet",
# "s3://bucket/out/", storage_options={...})` (any fsspec URL; the README says how).

# %% tags=["nbval-ignore-output"]
folder = tempfile.mkdtemp(prefix="simhash-lab-08-")
settings = DedupSettings(jaccard=0.8)  # the options every dedup entry point shares
with widgets.Progress(_("this cell")) as bar:
    bar.step(_("writing the shards"))
    paths = seeds.map(corpus.write_crawl_partition, folder=folder, n=PER_PARTITION).compute()
    bar.step(_("verified dedup on the cluster"))
    summary = D.dedup_dataset(paths, os.path.join(folder, "kept"), settings, column="text", id_column="id")
print(
    _(f"{summary['rows']:,} rows: {summary['kept']:,} kept, {summary['dropped']:,} dropped ")
    + _(f"({summary['exact']:,} as exact copies) in {summary['groups']:,} groups; ")
    + _(f"{summary['verified']:,} pairs verified within k = {summary['k']}")
)

# %% [markdown]
# The same rows on one machine, with `dedup_texts` and the same arguments (k calibrated there too, on
# the same sample), make the same decisions: the same k, the same rows dropped, each for the same
# kept row.

# %%
texts = [t for p in paths for t in pq.read_table(p, columns=["text"]).column("text").to_pylist()]
single = dedup_texts(texts, jaccard=settings.jaccard, recall=settings.recall)
print(f"k = {single.k} on one machine, k = {summary['k']} on Dask")
kept = os.path.join(folder, "kept")
dups = pq.read_table(os.path.join(kept, "duplicates.parquet")).to_pydict()
kept_rows = sum(
    pq.read_metadata(os.path.join(kept, f)).num_rows for f in os.listdir(kept) if f.startswith("part-")
)
same = np.array_equal(dups["dropped_row"], single.duplicates.dropped) and np.array_equal(
    dups["kept_row"], single.duplicates.kept
)
print("Dask's duplicates table identical to dedup_texts on the same rows:", same)
assert same and single.k == summary["k"]
assert kept_rows == summary["kept"] == int(single.keep.sum())  # the kept rows, written once

# %% tags=["nbval-ignore-output"]
print("{:>10s} {:>10s} {:>9s} {:>10s}".format(_("dropped"), _("kept"), _("distance"), _("similarity")))
for row in range(5):
    print(
        f"{dups['dropped_id'][row]:>10s} {dups['kept_id'][row]:>10s} {dups['distance'][row]:9d} "
        f"{dups['similarity'][row]:10.3f}"
    )
shutil.rmtree(folder)

# %% [markdown]
# ## Scaling on this machine's cores
#
# The pairs graph on 1, 2, … worker processes, up to the cores this notebook may use (at most 4),
# over a crawl twice the size above (16 partitions: work enough for every worker), from making the
# documents to the sorted pairs. Each fresh cluster first runs one small job (its workers load the
# compiled kernels), then the whole graph is timed. Timings depend on the machine and its load, so
# these cells are not checked.

# %% tags=["nbval-ignore-output"]
client.close()
cluster.close()
big_bag = db.from_sequence(range(2 * N_PARTITIONS), npartitions=2 * N_PARTITIONS)
big_bag = big_bag.map(corpus.crawl_partition, n=PER_PARTITION).flatten()
timings, counts = {}, set()
for workers in widgets.progress(sorted({1, min(2, cores), min(cores, 4)}), _("cluster sizes timed")):
    lc, lclient = local_cluster(workers)
    D.near_duplicates(corpus_bag.take(200, npartitions=1), k=3)  # warm-up: kernels loaded in the workers
    t0 = time.perf_counter()
    fps_w, pairs_w = D.near_duplicates(big_bag, k=3)
    timings[_(f"{workers} workers") if workers > 1 else _(f"{workers} worker")] = time.perf_counter() - t0
    counts.add((len(fps_w), len(pairs_w)))
    lclient.close()
    lc.close()
assert len(counts) == 1  # every cluster size found the same pairs
for name, t in timings.items():
    print(f"{name}: {t:.2f} s, {len(fps_w) / t:,.0f} documents per second")
first, last = next(iter(timings.values())), list(timings.values())[-1]
print(
    f"speed-up with {list(timings)[-1]}: {first / last:.2f}x on {cores} available cores; "
    f"load average while measuring: {os.getloadavg()[0]:.1f}"
)

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(9, 3))
plot.benchmark_bars(
    timings,
    ax=ax,
    unit="seconds for the whole pipeline",
    log=False,
    title=f"{len(fps_w):,} documents: texts to pairs on a LocalCluster",
)
plt.show()

# %% [markdown]
# Reading the measurement: on an idle machine each added worker cuts the time, but by less than
# its share, because the scheduler, the transfers between processes and the final sort run on the
# same cores. A load average above the number of cores means other jobs were competing for them,
# and then the speed-up shrinks or vanishes: measure scaling on a quiet machine. On a cluster
# the map and reduce stages spread over as many workers as there are partitions, and the fingerprints
# are 8 bytes per document, so the shuffle stays small.
#
# ## (c) Memory and types
#
# What crosses the network: per fingerprint and table, one `(int32 table, uint64 fp, int64 id)` row,
# 20 bytes, so $k + 1 = 4$ tables shuffle 80 bytes per document, whatever the document's length. A
# billion documents shuffle 80 GB; the texts never leave the worker that read them. The verified
# dedup adds traffic per *candidate pair*, not per document: 24 bytes for the pair, then one
# document's shingle set (8 bytes per shingle) carried to the other's partition, then a few bytes
# per verified pair for the keep/drop task. A calibrated k above 3 means more tables, $k + 1$ rows
# of 20 bytes per document. `benchmarks/dedup_at_scale.md` measures each step and works out what a
# billion documents need.
#
# ## (d) The junior mistake
#
# Sending the texts to one machine to "just build the index there": the texts are terabytes, the
# fingerprints gigabytes. Fingerprint where the data lives, and move only the 8-byte fingerprints.
# Its cousin: gathering all the pairs on the client to cluster them there. `dedup_dataset` verifies
# the pairs where the texts are and clusters them in one worker task, whose memory grows with the
# verified pairs; the client only sees counts.
# A second one: running the Numba kernels' own thread pool inside every Dask task, so that on a
# machine of $c$ cores each of $c$ workers starts $c$ threads: $c^2$ threads fighting for $c$ cores.
# Inside a task, `Simhasher.fingerprints(..., parallel=False)`: Dask provides the parallelism.
#
# ## Summary
#
# - Manku's batch mode is a join on block keys: map emits each fingerprint under each table's key,
#   reducers verify runs of equal keys with `POPCNT`, the first table that holds a pair reports it.
# - `simhash_lab.distributed` runs it on Dask; its pairs equal `SimhashIndex.pairs()` exactly.
# - It runs on a `LocalCluster` here and on a cluster unchanged; only fingerprints are shuffled.
# - `D.dedup_dataset` runs notebook 06's verified dedup from Parquet or JSONL partitions to Parquet:
#   calibrated k, candidates from the join, exact Jaccard where the texts are, clusters whose every
#   two members are a verified pair (complete linkage); the same decisions as `dedup_texts` on one
#   machine.
#
# ## Questions (answer in your own words)
#
# <details><summary><b>1.</b> Why does the join need no final de-duplication step?</summary>
#
# A pair within k bits may share several tables' keys and so meet in several reducers. Each reducer
# keeps a pair only in the **first** table (in a fixed order) whose mask the pair agrees on; every
# reducer can check that from the two fingerprints alone, so exactly one reducer reports each pair,
# as `SimhashIndex.pairs()` does.
# </details>
#
# <details><summary><b>2.</b> With k = 3 and the pigeonhole layout, how many rows does the map emit per
# document? With <code>("permuted", 6)</code>? What do you gain for the extra rows?</summary>
#
# One row per table: 4 with the pigeonhole layout, $\binom{6}{3} = 20$ with `("permuted", 6)`, five
# times the shuffle. In return each table keys on 31–33 bits instead of 16, so the groups of equal
# keys are far smaller: at a billion documents a 16-bit key groups about $10^9/2^{16} \approx 15{,}000$
# random fingerprints that must be compared pairwise, a 32-bit key none but the true matches.
# </details>
#
# <details><summary><b>3.</b> A reducer gets every fingerprint whose key hashes to it. What happens with
# $10^9$ documents that all contain the same boilerplate text, and how would you protect the
# reducers?</summary>
#
# Documents that are (nearly) the same text have the same fingerprint, so they share every key: one
# group of millions lands on one reducer, which then compares millions of fingerprints pairwise
# (quadratic) while the others idle. Protect it by collapsing exact duplicates first (one row per
# distinct fingerprint, with a count or a list of ids), by capping or sampling oversized groups and
# reporting them, or by keys with more bits; and stop the boilerplate from dominating the
# fingerprint in the first place (notebook 06: shingles, binary weights).
# </details>
#
# <details><summary><b>4.</b> To verify a candidate pair, <code>dedup_dataset</code> carries one
# document's shingle set to the partition of the other. Why not send both texts to one place, or
# compare the fingerprints only?</summary>
#
# The fingerprints cannot decide: two files a few bits apart may have a Jaccard far below the
# threshold (notebook 06's licences). The texts are the largest thing in the system; a shingle set
# is 8 bytes per distinct shingle and is needed only for documents in a candidate pair, so moving
# one set per pair to where the other document already is costs the least. The work then spreads
# over the partitions, and no machine ever holds the corpus.
# </details>
#
# <details><summary><b>5.</b> Why should the tasks fingerprint with <code>parallel=False</code>?</summary>
#
# Dask already runs one task per worker thread on every core. If each task also started Numba's
# own thread pool, the machine would run cores × cores threads, which fight for the caches and the
# cores and make every task slower. One level of parallelism: Dask's across partitions.
# </details>
