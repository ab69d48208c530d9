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
#    $E[d_H] = 64\,\theta/\pi$.
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
# ## The sources
#
# The material mirrors three texts, quoted throughout by these names. Their full texts are in
# [course/sources](../course/sources/README.md), so that you can read every quotation in its
# context:
#
# | quoted as | language | what it is |
# |---|---|---|
# | **the session** ([000](../course/sources/000_session_60_simhash_es.txt)) | Spanish | session 60 itself: the four concepts (intuition, definition, memory and types, the junior mistake), Charikar's argument, the flowchart, the "rust safe fast" trace, and the reference code in Rust and Python |
# | **source 001** ([001](../course/sources/001_simhash_principles_zh.txt)) | Chinese (simplified characters) | an article on the principle of Simhash: the $(d_1, d_2, p_1, p_2)$-sensitive definition of LSH, $f$-bit signatures, random hyperplanes, and where Simhash hides them |
# | **source 004** ([004](../course/sources/004_simhash_google_dedup_zh.txt)) | Chinese (traditional characters) | an article on Simhash as Google uses it to de-duplicate web pages: the 6-bit example, Hamming distance with threshold $n = 3$, the early-exit popcount `isEqual` in C++, and two other methods (Baidu's longest sentences, shingling) |
#
# The notebooks quote them in their own language and then say the same in English. The
# [review notebook](07_review.ipynb) ends with a glossary of their terms in all three languages.

# %% [markdown]
# ## What to have on your desk
#
# The session asks for four things, and each has a job here:
#
# | Tool | What it is for in this course |
# |---|---|
# | **Grid (squared) paper** | One square per bit: write the 4-bit hashes of "rust safe fast" and the accumulators under them, then the $4 \times 16$ blocks of a fingerprint. |
# | **Pencil** | The running sums `V[i]`, which change with every word. |
# | **Two colours of pen** | One colour for $+w$ votes (bit is 1) and one for $-w$ votes (bit is 0). The figures use the same two: **blue = +, 1, same** and **vermillion = −, 0, flipped, different** (a palette that colour-blind readers can tell apart). Pairs of documents get two more: **green = near-duplicates**, **purple = unrelated**. |
# | **Calculator** | $64 \times 5 / 180 \approx 1.78$: the expected Hamming distance of two documents 5° apart; $\theta = \arccos(\cos\theta)$. |
#
# Whenever a notebook says **✏️ On paper**, do it by hand before running the next cell.

# %% [markdown]
# ## The map
#
# Work through the notebooks in order; each takes one sitting. Each concept is told in the session's
# four parts: **(a) intuition**, **(b) definition**, **(c) memory and types**, **(d) the typical junior
# mistake**, and then adds what a page cannot: a measured experiment in every notebook, and where
# motion helps (02, 04, 05, 06) an animation or a stepper to play with.
#
# | # | Notebook | You will see | You will measure |
# |---|---|---|---|
# | 00 | Start here (this page) | the pipeline, the tools | one changed word, in a sentence and in real paragraphs |
# | 01 | [LSH vs cryptographic hashes](01_lsh_vs_crypto.ipynb) | the $(d_1, d_2, p_1, p_2)$ picture; amplification | the avalanche: bits flipped by MD5, SHA-256 and Simhash over hundreds of real edits |
# | 02 | [Simhash voting](02_simhash_voting.ipynb) | **animations** of the accumulators filling (the session's 4 bits, then 64) | "rust safe fast" exactly as the session; which bits one word can flip; TF vs IDF; a Python list loop vs the compiled loop |
# | 03 | [Hamming distance and POPCNT](03_hamming_popcount.ipynb) | the `popcnt` instruction in Numba's machine code | seven ways to count bits, as a bar chart |
# | 04 | [Charikar's hyperplanes](04_charikar_hyperplanes.ipynb) | **animation** of a line sweeping the circle; 3-D plane; **$\theta$ stepper** | $E[d_H] = 64\,\theta/\pi$ on random vectors and on real documents; bits against recall on dense vectors |
# | 05 | [The pigeonhole block index](05_block_index.ipynb) | the proof drawn, and a **stepper** of an adversary dirtying one block per flip; the session's $4 \times 16$ index in NumPy; Manku et al.'s permuted tables: memory against work | why the index is exact for a distance and probabilistic for an angle (notebook 01's amplification); index vs linear scan as $N$ grows (log-log); candidates per query up to $N = 10^9$ and $2^{34}$ |
# | 06 | [Near-duplicates in practice](06_near_duplicates.ipynb) | Python's docs and the license files of installed packages; a **stepper** moving the threshold k; MinHash and LSH banding (the S-curve); Chinese with jieba | precision, recall and F1 against k; why unrelated text sits well below 32 bits apart; Simhash beside MinHash, Baidu's longest sentences, MD5 and exact Jaccard; dedup with a Jaccard threshold: calibrate k, verify, keep or drop |
# | 07 | [Socratic review and glossary](07_review.ipynb) | questions with folded answers; the sources' terms in English, Spanish and Chinese | how far apart unrelated documents are in the course's two corpora, and why length matters |
# | 08 | [Near-duplicates at scale](08_dask_at_scale.ipynb) (optional) | Manku's batch mode as a join on Dask | the same pairs as the single-machine index; scaling over cores |
#
# **Exercises.** `exercises/` holds a student notebook for each notebook that teaches a concept,
# numbered like the notebook it practises and named so that its tab says which is which:
# `exercises/02_exercise_simhash_voting.ipynb` practises `02_simhash_voting.ipynb` (the navigation
# line at the top of each notebook links it); `exercises/solutions/` holds the same files solved
# (`02_solution_simhash_voting.ipynb`). You write only in the cells tagged `answer`; the check cell
# under each prints ✅ or ❌ with a hint, and never stops Run All. Save the notebook, then check it
# as the grader will from a terminal, in the repository's folder (nothing to activate):
#
# ```bash
# make check NB=exercises/02_exercise_simhash_voting.ipynb   # or .venv/bin/simhash-lab check exercises/02_...
# ```
#
# The command restores every cell except your `answer` cells from a pristine copy and runs them on
# other data, so editing a check does not make it pass; it is feedback, not a grade (a teacher
# grades with `simhash-lab grade`, in a sandbox). `make check NB=exercises/` checks all six at once
# and prints one table: your progress through the exercises.

# %% [markdown]
# **Teaching a class.** A week in seven steps: release, hand out, collect, grade, re-grade one,
# override, export.
#
# ```bash
# simhash-lab assign exercises/ --roster roster.csv --out release/ --ci github   # 1. one variant per student
# #   2. hand out release/handout/<id>/ (release/private/ stays yours);  3. collect submissions/<id>/
# simhash-lab grade submissions/ --assignment release/ --deadline 2026-12-10T23:59   # 4. grade
# simhash-lab grade submissions/s18 --assignment release/                  # 5. re-grade one student
# simhash-lab override s18 03 6 --comment "..." --assignment release/     # 6. your own points
# simhash-lab grade --assignment release/ --csv grades.csv --canvas canvas.csv \
#     --moodle moodle.csv --feedback feedback/                             # 7. export, return feedback
# ```
#
# Every student's notebook shows their own data (a variant derived from a secret kept in
# `release/private/secret.key` and the student's id), so a classmate's hand-computed answers are wrong
# there. Only the assigned exercises count, one copy of each (the latest; the others are listed with
# the reason), and the grades live in one gradebook (an SQLite file) that a re-grade adds to and
# never loses. The sandbox keeps a submission from the teacher's files, the network and other
# processes, and bounds its time and memory; the grade is decided outside it, on inputs drawn at
# grading time. It cannot tell who wrote the code, nor stop a pasted classmate's *code* (right on
# every variant): the section "For teachers" of the [README](../README.md) has the details.

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
import time

t_start = time.perf_counter()
import numpy as np

from simhash_lab import Simhasher, hamming
from simhash_lab.course import experiments
from simhash_lab.course.plot import bit_string

h = Simhasher()  # 64 bits, word tokens, TF weights
texts = [
    "the quick brown fox jumps over the lazy dog near the river bank",
    "the quick brown fox leaps over the lazy dog near the river bank",
    "simhash turns a whole document into one sixty four bit number",
]
fps = [h.fingerprint(t) for t in texts]
first_cell = time.perf_counter() - t_start  # the imports, and the first call, which loads the kernels
for t, fp in zip(texts, fps):
    print(bit_string(fp, 64, group=16), " ", t)

# %%
d_word, d_other = hamming(fps[0], fps[1]), hamming(fps[0], fps[2])
print("one word changed:     ", d_word, "bits differ")
print("a different sentence: ", d_other, "bits differ")
assert 3 < d_word < d_other

# %% [markdown]
# Fewer bits moved for the changed word than for the other sentence, but still more than the 3 bits
# within which the rest of the course calls two fingerprints near-duplicates. In a sentence of
# thirteen words each word is a loud voter (notebook 02 shows the vote). Real documents are longer:
# in a paragraph of a hundred words one word is one voice in a hundred. Measured on the paragraphs of
# Python's reference manual (it ships with Python), once with one word of each replaced, and once as
# pairs of unrelated paragraphs:

# %%
docs = experiments.paragraphs()  # 40 to 150 words each
rng = np.random.default_rng(60)
vocab = sorted({w for d in docs for w in d.split()})
fp_docs = h.fingerprints(docs)
d_edit = hamming(fp_docs, h.fingerprints([experiments.replace_words(d, 1, rng, vocab) for d in docs]))
i, j = experiments.unrelated_pairs(len(docs), 500, rng)
d_unrelated = hamming(fp_docs[i], fp_docs[j])
print(
    f"one word replaced, {len(docs)} paragraphs: {d_edit.mean():.1f} bits differ on average, "
    f"{np.mean(d_edit <= 3):.0%} of them within 3 bits"
)
print(f"{len(i)} pairs of unrelated paragraphs: {d_unrelated.mean():.1f} bits differ on average")
assert np.mean(d_edit <= 3) > 0.5 and d_unrelated.mean() < 32

# %% [markdown]
# In a paragraph one changed word usually moves at most 3 bits. Unrelated paragraphs differ in many
# more, but fewer than the 32 bits in which two random 64-bit numbers differ on average: English
# paragraphs share "the", "is", "of", and those shared words pull their fingerprints together.
# Notebook 02 measures that pull (and how IDF weights remove it), notebook 04 explains it as an angle,
# and notebook 06 shows why the vectors of real text are never more than 90° apart.
# The rest of the course explains why all of this works, and how to use it. Next:
# [01 · LSH vs cryptographic hashes](01_lsh_vs_crypto.ipynb).
#
# **How to run a notebook.** *Kernel → Restart Kernel and Run All Cells*. Outputs are stored, so you can
# also just read. Every animation and stepper plays by itself as the notebook opens: it is stored as
# an animated picture, because JupyterLab does not run a notebook's saved widgets or scripts until
# you run it. Run its cell (or Run All) and the same frames get a player: ▶ to play, and a slider to
# stop on any frame. The player holds all its frames in the page, so it keeps working after the
# kernel stops.
#
# **The first run.** The first `make lab` installs the packages into `.venv/` (mostly downloading),
# then runs `simhash-lab warmup`: it compiles every Numba kernel the course, the exercises and the
# grader use to machine code, once, and keeps them in a cache beside the library's sources, with a
# progress bar naming each step; its last line says how many kernels it compiled, and in how many
# seconds, on your machine. Every later `make lab` finds the cache and skips that step. Only then
# does JupyterLab open, so no cell here waits for a compiler. The first code cell of a notebook
# loads the library and reads its machine code from the cache; the cells after it run at full
# speed. How long that first cell took here:

# %% tags=["nbval-ignore-output"]
print(f"the first code cell of this notebook took {first_cell:.1f} s")

# %% [markdown]
# A cell that takes longer than a few seconds shows a line of progress while it runs (what it is
# doing, and for how long so far), which disappears when it is done.
#
# **Chinese in the notebooks.** Sources 001 and 004 are quoted in Chinese, each quotation followed
# by its sense in English. If the Chinese characters show as empty boxes, your system has no font
# for them: `make lab` installs one on Debian and Ubuntu (`fonts-wqy-microhei`); elsewhere install
# any font with Chinese characters (macOS and Windows have one).
