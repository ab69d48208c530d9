# %% [markdown]
# # 00 · Start here: near-duplicates, Simhash and locality-sensitive hashing
#
# Change one comma in a 500-page book and its SHA-256 changes beyond recognition. That is what a
# cryptographic hash is *for*. This course is about hashes built for the opposite job: **two documents
# that are almost the same get fingerprints that are almost the same**, so that among a billion
# documents you can find the near-copies of a new one in microseconds.
#
# By the end you can explain, draw by hand and implement each of these, and say why it works:
#
# 1. **Locality-sensitive hashing (LSH)**: what "sensitive" means, as a definition with four numbers.
# 2. **Simhash** (Charikar, 2002): 64 accumulators vote, one per bit, and a document becomes one `u64`.
# 3. **Hamming distance and `POPCNT`**: XOR two fingerprints, count the ones, in one CPU instruction.
# 4. **Charikar's hyperplanes**: why the number of differing bits measures the angle between documents,
#    `E[d_H] = 64·θ/π`.
# 5. **The pigeonhole block index**: how to find every fingerprint within 3 bits without comparing
#    against all of them.

# %% [markdown]
# ## Where this sits
#
# This is **session 60** of the course that follows *Grokking Algorithms*, chapter 11 (part 3), about
# 75–85 minutes. It comes right **after session 59, the inverted index and TF-IDF search engine** (you
# will reuse TF and IDF weights here: they are how much each word's vote counts) and **before session 61,
# Knuth's extended Euclid and Diffie-Hellman**, where hashing meets number theory from the other side.
#
# The material mirrors three sources, quoted throughout: the session itself (in Spanish), and two
# Chinese articles, one on LSH and random hyperplanes, one on Simhash as Google uses it for web-scale
# de-duplication. The [review notebook](07_review.ipynb) has a glossary in all three languages.

# %% [markdown]
# ## What to have on your desk
#
# The session asks for four things, and each has a job here:
#
# | Tool | What it is for in this course |
# |---|---|
# | **Grid (squared) paper** | One square per bit: write the 4-bit hashes of "rust safe fast" and the accumulators under them, then the 4 × 16 blocks of a fingerprint. |
# | **Pencil** | The running sums `V[i]`, which change with every word. |
# | **Two colours of pen** | One colour for +w votes (bit is 1) and one for −w votes (bit is 0). The figures use the same two: **blue = +, 1, same** and **vermillion = −, 0→flipped, different** (a palette that colour-blind readers can tell apart). |
# | **Calculator** | `64 × 5 / 180 ≈ 1.78`: the expected Hamming distance of two documents 5° apart; `θ = arccos(cos θ)`. |
#
# Whenever a notebook says **✏️ On paper**, do it by hand before running the next cell.

# %% [markdown]
# ## The map
#
# Work through the notebooks in order; each takes one sitting. Each concept is told in the session's
# four parts: **(a) intuition**, **(b) definition**, **(c) memory and types**, **(d) the typical junior
# mistake**, and then adds what a page cannot: an animation, a widget to play with, and a measured
# experiment.
#
# | # | Notebook | You will see | You will measure |
# |---|---|---|---|
# | 00 | Start here (this page) | the pipeline, the tools | two fingerprints |
# | 01 | [LSH vs cryptographic hashes](01_lsh_vs_crypto.ipynb) | the (d1, d2, p1, p2) picture | the avalanche: bits flipped by MD5, SHA-256 and Simhash over hundreds of real edits |
# | 02 | [Simhash voting](02_simhash_voting.ipynb) | **animation** of 64 accumulators filling; **stepper** widget | "rust safe fast" exactly as the session; TF vs IDF; a Python list loop vs the Numba kernel |
# | 03 | [Hamming distance and POPCNT](03_hamming_popcount.ipynb) | the `popcnt` instruction in Numba's machine code | six ways to count bits, as a bar chart |
# | 04 | [Charikar's hyperplanes](04_charikar_hyperplanes.ipynb) | **animation** of a line sweeping the circle; 3-D plane; **θ slider** | `E[d_H] = 64θ/π` on random vectors and on real documents |
# | 05 | [The pigeonhole block index](05_block_index.ipynb) | the proof drawn; the session's 4 × 16 index | index vs linear scan as n grows (log-log) |
# | 06 | [Near-duplicates in practice](06_near_duplicates.ipynb) | Python's docs and the license files of installed packages; Chinese with jieba | precision, recall and F1 against k; Simhash beside MinHash, Baidu's longest sentences, MD5 and exact Jaccard |
# | 07 | [Socratic review and glossary](07_review.ipynb) | questions with folded answers | — |
# | 08 | [Near-duplicates at scale](08_dask_at_scale.ipynb) (optional) | Manku's batch mode as a join on Dask | the same pairs as the single-machine index; scaling over cores |
#
# **Exercises.** `exercises/` holds one student notebook per concept, numbered like the notebook it
# practises (the navigation line at the top of each notebook links it when it exists); `exercises/solutions/`
# holds the same files solved. You write only in the cells tagged `answer`; the other cells check your
# work with `assert`. Grade a notebook from a terminal:
#
# ```bash
# simhash-lab grade exercises/02_simhash_voting.ipynb   # exit status 0 only when every check passes
# ```
#
# The grader restores every cell except your `answer` cells from a pristine copy before it runs, so
# editing a check does not make it pass.

# %% [markdown]
# ## The whole pipeline on one page
#
# This is the session's architecture diagram (translated). Each box is a notebook's topic: tokens and
# weights (02, and TF-IDF from session 59), the 64 accumulators (02), the `u64` fingerprint (02–04), the
# block tables (05), the `POPCNT` check (03).
#
# ```mermaid
# flowchart TD
#     TEXT["Incoming text document"] --> TOK["Tokenize and compute weights w_t"]
#     TOK --> VECT["Initialize v: [i64; 64] on the stack"]
#     VECT --> LOOP["For each term:<br/>hash_token() -> 64-bit h"]
#     LOOP --> ACC["bit i == 1 ? v[i] += w : v[i] -= w"]
#     ACC --> GEN["Build the u64:<br/>bit i = (v[i] > 0) ? 1 : 0"]
#     GEN --> LSH["Split into 4 blocks of 16 bits<br/>look up the LSH tables in O(1)"]
#     LSH --> HAM["POPCNT check: (fp1 ^ fp2).count_ones() <= 3"]
# ```

# %% [markdown]
# ## A first taste
#
# The library `simhash_lab` does the work; the notebooks tell the story. Three sentences: the second is
# the first with one word changed, the third is about something else.

# %%
from simhash_lab import Simhasher, hamming
from simhash_lab.course.plot import bit_string

h = Simhasher()  # 64 bits, word tokens, TF weights
texts = [
    "the quick brown fox jumps over the lazy dog near the river bank",
    "the quick brown fox leaps over the lazy dog near the river bank",
    "simhash turns a whole document into one sixty four bit number",
]
fps = [h.fingerprint(t) for t in texts]
for t, fp in zip(texts, fps):
    print(bit_string(fp, 64, group=16), " ", t)

# %%
print("one word changed:     ", hamming(fps[0], fps[1]), "bits differ")
print("a different sentence: ", hamming(fps[0], fps[2]), "bits differ")

# %% [markdown]
# One word of thirteen changed, and only a few of the 64 bits moved; the unrelated sentence differs in
# many more (two unrelated texts differ in about half of the 64 bits on average, as two random numbers
# would). The rest of the course explains why, and how to use
# it. Next: [01 · LSH vs cryptographic hashes](01_lsh_vs_crypto.ipynb).
#
# **How to run a notebook.** *Kernel → Restart Kernel and Run All Cells*. Outputs are stored, so you can
# also just read; animations play without a kernel (press ▶ under them). A widget (a stepper or a
# slider) shows only its first frame until its cell has run in this session, because JupyterLab does
# not bring back saved widgets when it opens a notebook; run the notebook once and every widget is
# live. The steppers hold all their frames, so they keep working even after the kernel is stopped.
#
# **The first run.** The first `make lab` installs the packages into `.venv/` (a few minutes, mostly
# downloading), then runs `simhash-lab warmup`: it compiles every Numba kernel the course, the
# exercises and the grader use to machine code, once, and keeps it in a cache beside the library's
# sources, with a progress bar naming each step (about half a minute on a two-core laptop; about a
# second on every later `make lab`). Only then does JupyterLab open, so no cell here waits for a
# compiler: the first cell of a notebook takes about a second (loading the library and its cached
# code), and every cell after it runs at full speed.
