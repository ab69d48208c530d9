# %% [markdown]
# # Exercises 05 · The pigeonhole block index
#
# Comparing a query with every stored fingerprint is a linear scan. The seed's `SimhashLshIndex`
# avoids it: cut each 64-bit fingerprint into 4 blocks of 16 bits and keep one hash table per block.
# If two fingerprints differ in at most 3 bits, those 3 bits fall into at most 3 blocks, so **at
# least one block is identical** (the pigeonhole principle) and that table finds the pair.
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
from simhash_lab import hamming
from simhash_lab.grading import checks, data

# %% [markdown]
# ## 1. Blocks
#
# The seed's Rust: `extract_chunk(fp, j) = (fp >> (j * 16)) & 0xFFFF`. Write `blocks(fp)` returning
# the list `[block 0, block 1, block 2, block 3]` of a 64-bit int (block 0 holds the lowest bits).


# %% simhash_lab={"answer": "blocks"} tags=["answer"]
def blocks(fp: int) -> list[int]:
    ### BEGIN SOLUTION
    return [(fp >> (16 * j)) & 0xFFFF for j in range(4)]
    ### END SOLUTION


# %% tags=["check"]
checks.blocks()

# %% [markdown]
# ## 2. Pigeonhole, on paper
#
# Two fingerprints differ in exactly 3 bits. Draw the 64 bits as 4 boxes of 16.
#
# * `min_equal_blocks`: at least how many of the 4 blocks are identical, wherever the 3 bits land?
# * `k4_can_miss`: with **4** differing bits, can it happen that no block is identical (so the
#   index misses the pair)? `True` or `False`.

# %% simhash_lab={"answer": "pigeonhole"} tags=["answer"]
### BEGIN SOLUTION
min_equal_blocks = 1
k4_can_miss = True
### END SOLUTION

# %% tags=["check"]
checks.pigeonhole()

# %% [markdown]
# ## 3. Build the index, answer a query
#
# Write two functions, with dicts and lists (a list of 4 dicts or a dict of 4, `defaultdict`, sets
# of ids: your choice):
#
# * `build_tables(fps)`: 4 tables; table *j* maps a block-*j* value to the list of ids (indices into
#   `fps`) whose block *j* has that value.
# * `query(tables, fps, q, k)`: the ids `i` with `hamming(fps[i], q) <= k`, as a sorted list, for
#   $k \le 3$. Collect **candidates** from the 4 tables (block *j* of `q` looked up in table *j*),
#   then keep the candidates within distance k. The check counts what a query reads: in table *j*
#   only the entry of block *j* of `q`, and `fps[i]` only for the ids found there (looping over
#   `fps`, or over a table's entries, is the linear scan the index avoids). Each call is made on its
#   own, so `query` uses only its arguments.


# %% simhash_lab={"answer": "block_index"} tags=["answer"]
def build_tables(fps):
    ### BEGIN SOLUTION
    tables = [{} for _ in range(4)]
    for i, fp in enumerate(fps):
        for j, b in enumerate(blocks(fp)):
            tables[j].setdefault(b, []).append(i)
    return tables
    ### END SOLUTION


def query(tables, fps, q, k):
    ### BEGIN SOLUTION
    candidates = set()
    for j, b in enumerate(blocks(q)):
        candidates.update(tables[j].get(b, []))
    return sorted(i for i in candidates if hamming(fps[i], q) <= k)
    ### END SOLUTION


# %% tags=["check"]
checks.block_index()

# %% [markdown]
# Try it on the exercise's data: 2000 fingerprints, with near copies planted among the first 400.

# %%
fps, queries = data.block_fingerprints()
try:
    tables = build_tables(fps)
    q = queries[0]
    candidates = {i for j, b in enumerate(blocks(q)) for i in tables[j].get(b, [])}
    print(f"{len(candidates)} candidates out of {len(fps)}; near (k=3): {query(tables, fps, q, 3)}")
except NotImplementedError:
    print("Write `blocks`, `build_tables` and `query` above: this cell uses them.")
except Exception as e:  # a wrong answer: its check above says more
    print(f"This cell uses your `blocks`, `build_tables` and `query`, which raised {type(e).__name__}: {e}")

# %% [markdown]
# **Think.** Why is this index exact for $k \le 3$ but not for $k = 4$? How would you make it exact
# for $k = 7$ (how many blocks do you need), and what does that cost?
#
# <details><summary>An answer</summary>
#
# Each differing bit lands in one block, so $d$ differing bits touch at most $d$ of the 4 blocks. For
# $d \le 3$ at least one block is untouched, and its table finds the pair; 4 bits can land one per
# block (your `k4_can_miss`), and then no table does. The rule is $d < $ the number of blocks: for
# $k = 7$ you need at least **8 blocks**, of 8 bits each, and that makes the index exact. The cost
# is candidates: an 8-bit key matches a random fingerprint with probability $1/256$, so each of the 8
# tables hands back about $1/256$ of everything stored, where a 16-bit key hands back $1/65536$.
# Manku et al.'s permuted tables do not add the exactness (the pigeonhole does); they cut those
# candidates: cut the fingerprint into more blocks and key each table on *several* of them, one
# table for every choice of blocks that $k$ flipped bits must leave untouched (with 9 blocks and
# $k = 7$, 2 of 9 stay clean: $\binom{9}{2} = 36$ tables keyed on about 14 bits). More tables and
# memory, far fewer candidates per query; notebook 05 measures that trade-off.
#
# </details>
