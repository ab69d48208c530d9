# %% [markdown]
# # 05 · The pigeonhole block index
#
# **Concept 4 of 4: LSH indexing by block partition.** Comparing a new fingerprint with every stored
# one costs $O(N)$. The pigeonhole principle lets us look at only a handful. We draw the proof, read
# the session's $4 \times 16$-bit index written out in NumPy, connect it with notebook 01's amplification
# formula, measure it against a linear scan as $N$ grows, and meet Manku et al.'s permuted tables,
# which trade memory for fewer candidates.

# %%
import inspect
import math

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Code
from scipy.stats import binom

from simhash_lab import SimhashIndex, design_tables, hamming, manku_example_3_1
from simhash_lab.course import compare, pigeonhole, plot, widgets

plot.use_course_style()
rng = np.random.default_rng(60)

# %% [markdown]
# ## (a) Intuition
#
# > *Si tienes una huella de 64 bits y buscas documentos que difieran en máximo 3 bits, divide la huella
# > en 4 trozos de 16 bits cada uno ($4 \times 16 = 64$). Si solo se equivocan 3 veces, es matemáticamente
# > imposible que ensucien los 4 trozos.* (the session)
#
# Three flipped bits are three pigeons; four blocks are four holes. At least one hole stays empty, so
# at least one 16-bit block of the two fingerprints is **identical**. Two random placements:

# %%
fig, axes = plt.subplots(2, 1, figsize=(14, 5.6))
for ax in axes:
    plot.pigeonhole(64, 3, rng.choice(64, 3, replace=False), ax=ax)
fig.tight_layout()
plt.show()

# %% [markdown]
# ✏️ **On grid paper**: draw 64 squares in 4 groups of 16 and try to place 3 crosses so that every group
# gets one. Then try with 4 crosses. The stepper shows an adversary doing exactly that, one flip at a
# time:

# %%
frames = []
for n_flips in range(5):
    fig, ax = plt.subplots(figsize=(12, 2.9))
    verdict = (
        _("an intact block remains") if n_flips < 4 else _("no block is intact: the index can miss this pair")
    )
    flips = _("1 flip") if n_flips == 1 else _(f"{n_flips} flips")
    plot.pigeonhole(64, 3, [5, 21, 37, 53][:n_flips], ax=ax, title=f"{flips}, one per block: {verdict}")
    frames.append(widgets.figure_png(fig, dpi=80))
widgets.stepper(
    frames, labels=[_("1 flip") if i == 1 else _(f"{i} flips") for i in range(5)], description="adversary"
)

# %% [markdown]
# ## (b) Definition
#
# To find every stored fingerprint at Hamming distance $d_H \le k$ from a query:
#
# 1. Split the 64 bits into $m = k + 1$ **disjoint blocks**.
# 2. If two fingerprints differ in at most $k$ bits, at least one of the $k + 1$ blocks is exactly equal.
# 3. Keep $m$ hash tables: table $c$ maps the value of block $c$ to the ids having it
#    (`HashMap<u16, Vec<usize>>` in the session). A query looks up its own block $c$ in table $c$, for
#    each $c$, and verifies only those **candidates**, with one popcount each.
#
# Step 2 is a proof, not a probability: **no pair within $k$ is missed**. The session extracts block
# $c$ with a shift and a mask, `((fp >> (chunk * 16)) & 0xFFFF) as u16`; `pigeonhole.blocks_of` does it
# for a whole NumPy array at once:

# %%
fp = np.uint64(0x0123_4567_89AB_CDEF)
print([f"{b:#06x}" for b in pigeonhole.blocks_of([fp])[0]], "(block 0 is the lowest 16 bits)")

# %% [markdown]
# `pigeonhole.SeedIndex` is the session's `SimhashLshIndex`, story-sized, in NumPy. Instead of a
# HashMap per block, table $c$ is the ids sorted by block $c$, so equal values sit together and
# `np.searchsorted` finds them. Its whole code:

# %%
Code(inspect.getsource(pigeonhole.SeedIndex), language="python")

# %% [markdown]
# Test it on 100,000 random fingerprints with 200 planted near-duplicates (copies with 1–3 bits
# flipped), against a brute-force scan and against the library's `SimhashIndex` with the session's
# layout (`layout="seed"`):

# %%
fps, src, dst = pigeonhole.planted(100_000, n_planted=200, seed=60)
story = pigeonhole.SeedIndex(fps)
lib = SimhashIndex(k=3, bits=64, layout="seed")
lib.add_many(fps)
for q in fps[src[:50]]:
    d = hamming(fps, q)
    brute = sorted(zip(np.flatnonzero(d <= 3).tolist(), d[d <= 3].tolist()), key=lambda t: (t[1], t[0]))
    assert story.query(q) == brute == lib.query(int(q))
print("50 queries: SeedIndex == brute-force scan == SimhashIndex(layout='seed')")
print("example:", lib.query(int(fps[src[0]])), " (id, distance)")

# %% [markdown]
# A query verifies the candidates of 4 tables. For random fingerprints a 16-bit block matches by
# chance with probability $2^{-16}$, so a query expects $4 \cdot N / 2^{16}$ chance candidates, plus
# its true matches:

# %%
n_cand = [len(story.candidates(q)) for q in fps[src]]
print(
    f"candidates verified per query: mean {np.mean(n_cand):.1f} of {len(fps):,}; "
    f"chance candidates expected 4 · N / 2^16 = {4 * len(fps) / 2**16:.1f}, plus the query itself and its copy"
)

# %% [markdown]
# ## Exact here, probabilistic in notebook 01: two questions
#
# Notebook 01 drew this index as **amplification**: 16 bits must all agree (AND, $p \mapsto p^{16}$)
# in at least one of 4 blocks (OR, $q \mapsto 1 - (1 - q)^4$), so a pair becomes a candidate with
# probability $1 - (1 - p^{16})^4$, where $p$ is the chance that one bit agrees. Here we just called the
# same index exact. Both are right, because they answer different questions:
#
# - **Given the distance.** A pair exactly $d$ bits apart has its $d$ differing bits at $d$ distinct
#   positions, all $\binom{64}{d}$ placements equally likely. Counting the placements that leave some
#   block untouched gives the exact chance of a shared block, `pigeonhole.candidate_probability(d)`.
#   The count is an *inclusion–exclusion*: add, for each block, the placements that leave it
#   untouched; subtract, for each two blocks, those that leave both untouched (they were counted
#   twice); add back those of each three blocks; and so on: the size of a union of sets from the
#   sizes of their intersections. It is exactly 1 for $d \le 3$. The formula $1 - (1 - p^{16})^4$
#   with $p = 1 - d/64$ treats the 64 bits as independent coins, which a fixed count of $d$
#   differences is not, and says less than 1.
# - **Given the angle.** If the 64 bits come from 64 random hyperplanes drawn independently
#   (Charikar's scheme, notebook 04), each bit of two documents at angle $\theta$ differs
#   independently with probability $\theta/\pi$: the distance itself is random,
#   $d_H \sim \mathrm{Binomial}(64, \theta/\pi)$, and notebook 01's $1 - (1 - p^{16})^4$ with
#   $p = 1 - \theta/\pi$ is the chance, over the draw of the hyperplanes, of becoming a candidate.
#   The index reports the pair when $d_H \le 3$, with probability $P(d_H \le 3)$. Simhash draws its
#   hyperplanes once, from its hash function ($\pm 1$ vectors, notebook 04), so for its fingerprints
#   these are models, close where notebook 04's question 3 says they hold: many features of
#   comparable weight. The rates below are measured with independent random bits.
#
# Both measured on random pairs:

# %%
ds = np.arange(0, 17)
exact = pigeonhole.candidate_probability(ds)  # counted over every placement of the d differences
measured = [pigeonhole.candidate_rate(int(d), trials=20_000, seed=int(d)) for d in ds]
degrees = np.array([2, 5, 10, 15, 20, 30, 40])
rates = np.array(
    [pigeonhole.rates_at_angle(math.radians(x), k=3, trials=20_000, seed=int(x)) for x in degrees]
)
assert np.all(exact[:4] == 1.0) and np.allclose(measured, exact, atol=0.015)
assert np.allclose(rates[:, 0], compare.s_curve(1 - degrees / 180, 16, 4), atol=0.015)  # 01's formula
print(f"d = 4: {1 - exact[4]:.1%} of the pairs share no block (all four blocks touched)")
p5 = 1 - 5 / 180
print(
    f"θ = 5°: candidate with probability {compare.s_curve(p5, 16, 4):.3f}, reported with {binom.cdf(3, 64, 5 / 180):.3f}"
)

# %%
fig, (a1, a2) = plt.subplots(1, 2, figsize=(15, 5.2))
plot.candidates_by_distance(ds, exact, measured=measured, k=3, ax=a1, title="Given the distance: exact")
plot.detection_by_angle(measured=(degrees, *rates.T), k=3, ax=a2, title="Given the angle: probabilistic")
fig.tight_layout()
plt.show()

# %% [markdown]
# On the left, every pair within 3 bits is a candidate, whatever the positions of its differences:
# the index is **exact** for the question it is asked, "which stored fingerprints are within $k$
# bits?". On the right, the question a user cares about, "which documents are similar?", is
# **probabilistic**: a pair at 5° (the session's near-duplicate example) is a candidate almost
# always, but lands within 3 bits only about 9 times in 10, because its distance is random. The
# amplification of notebook 01 is the first, wider curve; the popcount that verifies the candidates
# cuts it down to the second.
#
# ## Index vs linear scan as $N$ grows
#
# Per-query time for $N$ from 1,000 to 1,000,000 fingerprints: the library's linear scan
# (`SimhashIndex(layout="scan")`: one popcount per stored fingerprint, in a Numba loop) against the
# seed layout and the automatic layout (`pigeonhole.time_queries` checks each against a brute-force
# scan, then times 200 queries, best of 5), with a line of progress while it measures. Timings depend on the machine, so the next two cells are
# not checked by the tests.

# %% tags=["nbval-ignore-output"]
sizes = [1_000, 10_000, 100_000, 1_000_000]
times = pigeonhole.time_queries(sizes, k=3, repeat=5, seed=60)
shown = {
    "linear scan": _("linear scan"),
    "4 × 16 index (seed)": _("4 × 16 index (seed)"),
    "SimhashIndex, auto layout": _("SimhashIndex, auto layout"),
}
times = {shown.get(name, name): t for name, t in times.items()}  # as printed and plotted
for name, t in times.items():
    print(f"{name:27s}", "  ".join(f"{x * 1e6:9.1f} µs" for x in t))
scan, seed_ix = list(times.values())[:2]  # the linear scan, the seed's index (time_queries' order)


def against_line(ratio):
    """Where a ×10 step in N put the time, against the ∝ N line's ×10."""
    if 9 <= ratio <= 11:
        return _("on the ∝ N line")
    return _("below the ∝ N line's ×10") if ratio < 9 else _("above the ∝ N line's ×10")


print(
    f"\nfrom N = 10^5 to 10^6 (×10): the scan took ×{scan[-1] / scan[-2]:.1f} ({against_line(scan[-1] / scan[-2])}), "
    f"the seed index ×{seed_ix[-1] / seed_ix[-2]:.2f}"
)
print(
    f"from N = 10^3 to 10^4 (×10): the scan took ×{scan[1] / scan[0]:.1f} ({against_line(scan[1] / scan[0])})"
)

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(10, 5.5))
plot.query_scaling(sizes, times, ax=ax, title="Per-query time, k = 3 (measured)")
plt.show()

# %% [markdown]
# Reading the plot: the dotted line is $\propto N$, ten times the time for ten times the
# fingerprints, and that is how the scan's *work* grows: one popcount per stored fingerprint. Its
# *time* follows the line only roughly, and how closely depends on the machine and the moment. At
# small $N$ a call's fixed cost (entering Numba, allocating the result) can be a large part of the
# time, and then the scan is flatter than the line. At large $N$ the cost per fingerprint can come out lower than
# at $10^5$ (a long scan keeps the processor's prefetcher and pipeline busy, and long arrays can be
# shared among threads) or higher (where the array outgrows the processor's caches, 8 MB at
# $N = 10^6$, or other programs share the cores). The lines printed above say where this run's
# scan stood against the line. Either way the scan's time keeps growing with $N$ over the whole
# range, while the index stays nearly flat: its time is 4 probes plus a handful of candidates. That handful grows with $N$, though: the session's 16-bit blocks give
# $4 \cdot N / 2^{16}$ chance candidates per query, which the library's design for the session's layout
# computes:

# %%
for n in (10**6, 10**9):
    seed_design = next(d for d in design_tables(n, 3) if d.layout == ("permuted", 4))
    print(f"N = {n:>13,}: {seed_design.expected_candidates:>9,.0f} candidates expected per query")

# %% [markdown]
# About 61 at a million fingerprints, about 61,000 at a billion: at web scale every query would
# verify tens of thousands of candidates. That is what the next idea fixes.
#
# ## Manku et al.'s permuted tables: the design trade-off
#
# Manku, Jain and Das Sarma (Google, WWW 2007, the system behind "n = 3" in source 004) generalise the
# pigeonhole: split into $m > k + 1$ blocks. At most $k$ are dirty, so at least $m - k$ are clean;
# keep one table for every choice of $m - k$ blocks held exact: $\binom{m}{k}$ **tables**, each keyed
# on more bits, so each probe returns far fewer candidates. Their Example 3.1
# ($N = 2^{34} \approx 1.7 \cdot 10^{10}$ fingerprints, $k = 3$), computed by the library:

# %%
example = manku_example_3_1()
W = max(len(d.name) for d in example)
header = _("design"), _("tables"), _("bits kept"), _("≤ candidates/probe"), _("bytes/fp")
print("{:{W}s} {:>6s} {:>10s} {:>19s} {:>8s}".format(*header, W=W))
for d in example:
    print(
        f"{d.name:{W}s} {d.tables:6d} {min(d.key_bits):10d} {d.max_candidates_per_probe:19,.0f} "
        f"{d.bytes_per_fingerprint:8d}"
    )
per_table = {
    (d.bytes_per_fingerprint - e.bytes_per_fingerprint) // (d.tables - e.tables)
    for d, e in zip(example, example[1:])
}
(per,) = per_table  # the same bytes for every table
base = example[0].bytes_per_fingerprint - per * example[0].tables
print(
    _(
        f"bytes per fingerprint = {base} + {per} × tables: {per} in each table (a uint64 copy and a "
        f"uint32 id), {base} outside the tables"
    )
)

# %% [markdown]
# Every table stores every fingerprint, and the index keeps a few more bytes per fingerprint outside
# its tables (the line above: the table's last column adds them up), so memory grows with the
# number of tables while the work per query shrinks. For $k = 3$ and $N = 2^{34}$, every design the
# library considers up to 64 tables:

# %%
designs = design_tables(2**34, 3, max_tables=64)
fig, ax = plt.subplots(figsize=(12, 7))
plot.table_designs(designs, ax=ax, title="Memory against work, $N = 2^{34}$, $k = 3$")
plt.show()
off = [
    d
    for d in designs
    if any(e.tables < d.tables and e.expected_candidates < d.expected_candidates for e in designs)
]
print("off the frontier:", ", ".join(_(f"{d.layout} ({d.tables} tables)") for d in off))

# %% [markdown]
# More tables do not always mean fewer candidates: the two-level designs with 40 tables expect more
# candidates than the 35 tables of `("permuted", 7)`, so nobody should choose them. Choosing a design
# is choosing a point on the blue **frontier**: as many tables as memory allows, then the one with
# the fewest candidates (more tables also cost more probes, so past some point a query gets slower
# again). `SimhashIndex(k, bits)` picks one for the current $N$ by a cost model (`layout="auto"`),
# and any design can be forced, e.g. `layout=("permuted", 6)` for the 20-table one.
#
# ## (c) Memory and types
#
# > *Se extrae el bloque con corrimiento y máscara de 16 bits: ((fp >> (chunk * 16)) & 0xFFFF) as u16.*
# > (the session)
#
# The key of a table is a `u16` (2 bytes), but the table must also store *which* fingerprints have it:
# the session's `HashMap<u16, Vec<usize>>` keeps one 8-byte id per fingerprint per table, plus a Vec
# (24 bytes and a heap allocation) per distinct key. The library stores each table as two flat arrays
# sorted by the key (fingerprints and `uint32` ids), so the candidates sit in contiguous memory:

# %%
print(f"{lib!r}: {lib.nbytes / len(lib):.1f} bytes per fingerprint in all")
by_tables = {d.tables: d for d in design_tables(10**9, 3)}
for n in (10**6, 10**9):
    print(
        f"N = {n:>13,}: the seed's 4 tables need about {n * by_tables[4].bytes_per_fingerprint / 2**30:8.2f} GiB; "
        f"20 tables {n * by_tables[20].bytes_per_fingerprint / 2**30:8.2f} GiB"
    )

# %% [markdown]
# ## (d) The junior mistake
#
# > *Comparar la huella entrante contra los 1,000 millones de huellas existentes en un bucle lineal
# > O(N), saturando la CPU.* (the session)
#
# Even at one nanosecond per popcount, a scan of $10^9$ fingerprints costs a full second of CPU per
# query, and a crawler sees thousands of new pages a second. The index turns the second into
# microseconds.
#
# A second mistake: using the 4-block index for $k = 4$. Four flips can dirty all four blocks (the
# stepper's last frame; on the left plot above, one pair in ten at $d = 4$), so the index would
# **silently miss** pairs. The session's code asserts `threshold <= 3`; the library refuses too:

# %%
try:
    SimhashIndex(k=4, bits=64, layout="seed")
except ValueError as e:
    message = str(e)
    print(_("ValueError: the 4 tables of 16-bit blocks serve k ≤ 3 only"))
assert "k <= 3" in message  # the library's own words (in English), which the line above says

# %% [markdown]
# ## Summary
#
# - Pigeonhole: $k$ flips cannot touch all $k + 1$ blocks, so some block matches exactly; the index
#   finds every pair within $k$ bits, a certainty, not a probability.
# - Over documents at angle $\theta$, the same index is notebook 01's amplification: a candidate with
#   probability $1 - (1 - p^{16})^4$, reported with probability $P(d_H \le k)$.
# - The session's index: 4 tables keyed by 16-bit blocks, a lookup per block, candidates verified with
#   `POPCNT`; measured above against a linear scan as $N$ grows. Its chance candidates grow as
#   $4N/2^{16}$: about 61,000 per query at $N = 10^9$.
# - Manku's permuted tables: $\binom{m}{k}$ tables with more bits kept exact; memory for speed, on a
#   frontier of designs.
#
# ## Questions (answer in your own words)
#
# <details><summary><b>1.</b> Why is the block index exact, while LSH in general is probabilistic?
# </summary>
#
# Because it answers a question about the fingerprints, not about the documents. If two fingerprints
# differ in at most $k$ bits, those $k$ bits lie in at most $k$ of the $k + 1$ disjoint blocks, so
# one block is identical and the pair is a candidate: no randomness is involved, and the candidates
# are verified exactly with popcount. LSH in general hashes *documents*, and whether two similar
# documents collide depends on random hash functions (here: on where the random hyperplanes fall,
# which makes $d_H$ itself random; see the right-hand plot).
# </details>
#
# <details><summary><b>2.</b> With 4 blocks of 16 bits and random fingerprints, how many candidates does a
# probe return at $N = 2^{34}$? Why does that make the 4-table design poor at web scale?</summary>
#
# A block matches by chance with probability $2^{-16}$, so one probe returns about
# $2^{34}/2^{16} = 2^{18} = 262{,}144$ fingerprints, and a query (4 probes) about a million, each to
# be fetched and popcounted. At a thousand queries a second that is a billion popcounts a second,
# scattered over memory: most of the work a linear scan would do.
# </details>
#
# <details><summary><b>3.</b> How many tables does <code>("permuted", 6)</code> need for $k = 3$, and why
# $\binom{6}{3}$?</summary>
#
# $\binom{6}{3} = 20$ tables. With 6 blocks and at most 3 dirty ones, at least 3 blocks are clean; the index does not know
# which, so it keeps one table for every choice of 3 blocks held exact: $\binom{6}{3} = 20$. Each
# table keys on 31 to 33 bits, so a probe returns at most $2^{34-31} = 8$ chance candidates at
# $N = 2^{34}$.
# </details>
#
# <details><summary><b>4.</b> What would you change to support $k = 5$ with the pigeonhole layout?
# </summary>
#
# Split into $k + 1 = 6$ blocks (of 11, 11, 11, 11, 10, 10 bits) and keep 6 tables; 5 flips cannot
# dirty 6 blocks. The keys are shorter (10–11 bits instead of 16), so each probe returns about
# $N/2^{10}$ chance candidates: for large $N$ use more blocks and $\binom{m}{5}$ tables instead
# (`SimhashIndex(k=5)` chooses). The library's name for it is `layout="blocks"`.
# </details>
#
# <details><summary><b>5.</b> A pair of documents at 5° is not reported by the index, although it is
# exact. Is that a bug?</summary>
#
# No. At 5° each bit differs with probability $5/180$, so $d_H \sim \mathrm{Binomial}(64, 5/180)$ has
# mean 1.8 but exceeds 3 about one time in ten. Those pairs are more than 3 bits apart, and the
# index correctly does not report them. To catch more of them, raise $k$ (and use a layout for it),
# or use more bits.
# </details>
