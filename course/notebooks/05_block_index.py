# %% [markdown]
# # 05 · The pigeonhole block index
#
# **Concept 4 of 4: LSH indexing by block partition.** Comparing a new fingerprint with every stored
# one is O(N). The pigeonhole principle lets us look at only a handful. We draw the proof, build the
# session's 4 × 16-bit index with NumPy, measure it against a linear scan as N grows, and meet Manku et
# al.'s permuted tables, which trade memory for fewer candidates.

# %%
import timeit

import matplotlib.pyplot as plt
import numpy as np

from simhash_lab import hamming
from simhash_lab.course import plot, widgets
from simhash_lab.index import SimhashIndex, design_tables, manku_example_3_1

plot.use_course_style()
rng = np.random.default_rng(60)

# %% [markdown]
# ## (a) Intuition
#
# > *Si tienes una huella de 64 bits y buscas documentos que difieran en máximo 3 bits, divide la huella
# > en 4 trozos de 16 bits cada uno (4 × 16 = 64). Si solo se equivocan 3 veces, es matemáticamente
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
    fig, ax = plt.subplots(figsize=(14, 2.6))
    plot.pigeonhole(
        64,
        3,
        [5, 21, 37, 53][:n_flips],
        ax=ax,
        title=f"{n_flips} flips, one per block: "
        + ("an intact block remains" if n_flips < 4 else "no block is intact, the index can miss this pair"),
    )
    frames.append(widgets.figure_html(fig, dpi=72))
widgets.stepper(frames, labels=[f"{i} flips" for i in range(5)], description="adversary")

# %% [markdown]
# ## (b) Definition
#
# To find every stored fingerprint at Hamming distance d_H ≤ k from a query:
#
# 1. Split the 64 bits into **m = k + 1 disjoint blocks**.
# 2. If two fingerprints differ in at most k bits, at least one of the k + 1 blocks is exactly equal.
# 3. Keep m hash tables, table c maps the value of block c to the ids having it
#    (`HashMap<u16, Vec<usize>>` in the session). A query looks up its own block c in table c, for each
#    c, and verifies only those **candidates** with one popcount each.
#
# It is **exact**: no near-duplicate within k is missed (step 2 is a proof, not a probability). The
# session extracts block c with a shift and a mask, `((fp >> (chunk * 16)) & 0xFFFF) as u16`. In NumPy,
# for a whole array at once:


# %%
def blocks_of(fps):
    """The seed's extract_chunk for every fingerprint: shape (n, 4), uint16 values."""
    shifts = np.arange(4, dtype=np.uint64) * np.uint64(16)
    return ((fps[:, None] >> shifts) & np.uint64(0xFFFF)).astype(np.uint16)


fp = np.uint64(0x0123_4567_89AB_CDEF)
print([f"{b:#06x}" for b in blocks_of(np.array([fp]))[0]], "(block 0 is the lowest 16 bits)")

# %% [markdown]
# A story-sized version of the session's `SimhashLshIndex`, with NumPy: instead of a HashMap per block,
# each table is the ids sorted by that block's value, so equal values sit together and `searchsorted`
# finds them.


# %%
class SeedIndex:
    """The session's 4 x 16-bit pigeonhole index (k <= 3), in NumPy, for the story."""

    def __init__(self, fps, k=3):
        assert k <= 3, "Threshold > 3 requires more than 4 tables"  # as the seed asserts
        self.fps, self.k = fps, k
        self.keys = blocks_of(fps)  # (n, 4)
        self.order = np.argsort(self.keys, axis=0, kind="stable")  # table c: ids sorted by block c
        self.sorted = np.take_along_axis(self.keys, self.order, axis=0)

    def candidates(self, q):
        qb = blocks_of(np.array([q], dtype=np.uint64))[0]
        found = [
            self.order[
                np.searchsorted(self.sorted[:, c], qb[c]) : np.searchsorted(
                    self.sorted[:, c], qb[c], side="right"
                ),
                c,
            ]
            for c in range(4)
        ]
        return np.unique(np.concatenate(found))

    def query(self, q):
        cand = self.candidates(q)
        d = hamming(self.fps[cand], q)
        return sorted(zip(cand[d <= self.k].tolist(), d[d <= self.k].tolist()), key=lambda t: (t[1], t[0]))


# %% [markdown]
# Test it on 100,000 random fingerprints with planted near-duplicates (copies of some with 1–3 bits
# flipped), against a brute-force scan, and against the library's `SimhashIndex` with the seed's layout:


# %%
def with_near_duplicates(n, n_planted=200):
    fps = rng.integers(0, 2**64, size=n, dtype=np.uint64)
    src = rng.choice(n, n_planted, replace=False)
    dst = rng.choice(np.setdiff1d(np.arange(n), src), n_planted, replace=False)
    for s, t in zip(src, dst):
        fps[t] = fps[s] ^ np.uint64(
            sum(1 << int(b) for b in rng.choice(64, rng.integers(1, 4), replace=False))
        )
    return fps, src


fps, planted = with_near_duplicates(100_000)
story = SeedIndex(fps)
lib = SimhashIndex(k=3, bits=64, layout="seed")
lib.add_many(fps)
for q in fps[planted[:50]]:
    d = hamming(fps, q)
    brute = sorted(zip(np.flatnonzero(d <= 3).tolist(), d[d <= 3].tolist()), key=lambda t: (t[1], t[0]))
    assert story.query(q) == brute == lib.query(int(q))
print("50 queries: NumPy story index == brute-force scan == SimhashIndex(layout='seed')")
print("example:", lib.query(int(fps[planted[0]])), " (id, distance)")

# %%
n_cand = [len(story.candidates(q)) for q in fps[planted[:200]]]
print(
    f"candidates verified per query: mean {np.mean(n_cand):.1f} of {len(fps):,} "
    f"(random fingerprints: expected about 4 x n / 2^16 = {4 * len(fps) / 2**16:.1f}, plus the true matches)"
)

# %% [markdown]
# ## Index vs linear scan as N grows
#
# Per-query time for N from 1,000 to 1,000,000 fingerprints: the linear scan (the library's Numba
# popcount over the whole array) against the seed layout and the library's automatic layout. Timings
# depend on the machine, so the next two cells are not checked by the tests.


# %% tags=["nbval-ignore-output"]
def per_query(f, queries):
    return min(timeit.repeat(lambda: [f(q) for q in queries], number=1, repeat=3)) / len(queries)


sizes = [1_000, 10_000, 100_000, 1_000_000]
times = {"linear scan (Numba popcount)": [], "4 × 16 index (seed)": [], "SimhashIndex auto layout": []}
for n in sizes:
    fps_n, _ = with_near_duplicates(n, n_planted=min(200, n // 10))
    queries = [int(q) for q in fps_n[rng.choice(n, 200, replace=False)]]
    seed_ix = SimhashIndex(k=3, layout="seed")
    seed_ix.add_many(fps_n)
    seed_ix.flush()
    auto_ix = SimhashIndex(k=3)
    auto_ix.add_many(fps_n)
    auto_ix.flush()
    times["linear scan (Numba popcount)"].append(
        per_query(lambda q, fps_n=fps_n: np.flatnonzero(hamming(fps_n, q) <= 3), queries)
    )
    times["4 × 16 index (seed)"].append(per_query(seed_ix.query, queries))
    times["SimhashIndex auto layout"].append(per_query(auto_ix.query, queries))
for name, t in times.items():
    print(f"{name:30s}", "  ".join(f"{x * 1e6:9.1f} µs" for x in t))

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(9, 5.5))
plot.scaling(sizes, times, ax=ax, title="Per-query time, k = 3 (measured)")
plt.show()

# %% [markdown]
# The scan grows in proportion to N (parallel to the dotted ∝ n line). The index grows much more
# slowly: with the seed's 16-bit blocks a query verifies about 4·N/65,536 random candidates, which is
# nothing at N = 10⁶ (about 60) but becomes 65,536 per query at N = 10⁹. That is what the next idea fixes.
#
# ## Manku et al.'s permuted tables: the design trade-off
#
# Manku, Jain and Das Sarma (Google, WWW 2007, the system behind "n = 3" in source 004) generalise the
# pigeonhole: split into **m > k + 1** blocks. At most k are dirty, so at least m − k are clean; keep
# one table for every choice of m − k blocks held exact: **C(m, k) tables**, each keyed on more bits,
# so each probe returns far fewer candidates. Their Example 3.1 (N = 2³⁴ ≈ 8 billion fingerprints,
# k = 3), computed by the library:

# %%
example = manku_example_3_1()
W = max(len(d.name) for d in example)
print(f"{'design':{W}s} {'tables':>6s} {'bits kept':>9s} {'≤ candidates/probe':>19s} {'bytes/fp':>8s}")
for d in example:
    print(
        f"{d.name:{W}s} {d.tables:6d} {min(d.key_bits):9d} {d.max_candidates_per_probe:19,.0f} {d.bytes_per_fingerprint:8d}"
    )

# %% [markdown]
# Every table stores every fingerprint (here 12 bytes each: a `uint64` copy and a `uint32` id), so
# memory grows with the number of tables while the work per query shrinks. For k = 3, all the designs
# the library considers:

# %%
designs = [d for d in design_tables(2**34, 3, max_tables=64) if d.tables > 0]
fig, ax = plt.subplots(figsize=(10, 5.5))
ax.scatter([d.tables for d in designs], [d.expected_candidates for d in designs], s=60, color=plot.POS)
for d in designs:
    if d.tables in (4, 10, 16, 20):
        ax.annotate(
            f"{d.tables} tables\n{d.bytes_per_fingerprint} B/fp",
            (d.tables, d.expected_candidates),
            textcoords="offset points",
            xytext=(10, 5),
            fontsize=12,
        )
ax.set_yscale("log")
ax.set_xlabel("tables (memory: 12 bytes per fingerprint each)")
ax.set_ylabel("expected candidates per query")
ax.set_title("N = 2³⁴, k = 3: more tables, fewer candidates")
plt.show()

# %% [markdown]
# Choosing a design is choosing a point on this curve: as many tables as memory allows, then the one
# with the fewest candidates. `SimhashIndex(k, bits)` picks one for the current N by a cost model
# (`layout="auto"`), and any design can be forced, e.g. `layout=("permuted", 6)` for the 20-table one.
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
for n in (10**6, 10**9):
    print(
        f"N = {n:>13,}: the seed's 4 tables need about {n * (9 + 4 * 12) / 2**30:8.2f} GiB; "
        f"20 tables {n * (9 + 20 * 12) / 2**30:8.2f} GiB"
    )

# %% [markdown]
# ## (d) The junior mistake
#
# > *Comparar la huella entrante contra los 1,000 millones de huellas existentes en un bucle lineal
# > O(N), saturando la CPU.* (the session)
#
# Even at one nanosecond per popcount, a scan of 10⁹ fingerprints costs a full second of CPU per query,
# and a crawler sees thousands of new pages a second. The index turns the second into microseconds.
#
# A second mistake: using the 4-block index for k = 4. Four flips can dirty all four blocks (the
# stepper's last frame), so the index would **silently miss** pairs. The seed asserts `threshold <= 3`;
# the library refuses too:

# %%
try:
    SimhashIndex(k=4, bits=64, layout="seed")
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# ## Summary
#
# - Pigeonhole: k flips cannot touch all k + 1 blocks, so some block matches exactly; the index is
#   exact, not probabilistic.
# - The seed's index: 4 tables keyed by 16-bit blocks, a lookup per block, candidates verified with
#   `POPCNT`; measured above against a linear scan as N grows.
# - Manku's permuted tables: C(m, k) tables with more bits kept exact; memory for speed.
#
# ## Questions (answer in your own words)
#
# 1. Why is the block index exact, while LSH in general is probabilistic?
# 2. With 4 blocks of 16 bits and random fingerprints, how many candidates does a probe return at
#    N = 2³⁴? Why does that make the 4-table design poor at web scale?
# 3. How many tables does ("permuted", 6) need for k = 3, and why C(6, 3)?
# 4. What would you change to support k = 5 with the pigeonhole layout?
