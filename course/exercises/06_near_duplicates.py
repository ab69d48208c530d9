# %% [markdown]
# # Exercises 06 · Choosing k from a precision/recall curve
#
# "Near duplicate" means Hamming distance ≤ k, and Google's crawler used k = 3. But the right k
# depends on your documents, your features and what you call a duplicate. Measure it: label pairs,
# compute their distances, and pick the k that balances **precision** (of the pairs you flag, how
# many are real near duplicates) and **recall** (of the real near duplicates, how many you flag).
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
import numpy as np

from simhash_lab import Simhasher, hamming
from simhash_lab.grading import checks, data

# %% [markdown]
# The corpus: 450 short documents and 450 labelled pairs. A positive is a copy with up to 12% of its
# words edited; the negatives are documents rewritten by 25–60% from the same source (hard) and
# unrelated pairs.

# %%
docs, pairs, labels = data.near_dup_corpus()
print(len(docs), "documents,", len(pairs), "pairs,", int(labels.sum()), "near duplicates")
print(docs[0][:70], "...")

# %% [markdown]
# ## 1. Distances
#
# Fingerprint every document with `Simhasher()` (use `fingerprints`, the batch form) and compute
# `distances`: one Hamming distance per row of `pairs` (an array of 450 ints).

# %% simhash_lab={"answer": "pair_distances"} tags=["answer"]
# Set `distances` in place of `raise NotImplementedError()`.
### BEGIN SOLUTION
fps = Simhasher().fingerprints(docs)
distances = hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
### END SOLUTION

# %% tags=["check"]
checks.pair_distances(distances)

# %% [markdown]
# ## 2. Precision and recall at k
#
# Write `precision_recall(distances, labels, k)` returning `(precision, recall)` when every pair with
# distance ≤ k is flagged as a near duplicate. When nothing is flagged, precision is 1.0.


# %% simhash_lab={"answer": "precision_recall"} tags=["answer"]
def precision_recall(distances, labels, k):
    ### BEGIN SOLUTION
    flagged = np.asarray(distances) <= k
    labels = np.asarray(labels, dtype=bool)
    tp = int(np.sum(flagged & labels))
    precision = tp / flagged.sum() if flagged.sum() else 1.0
    recall = tp / labels.sum()
    return float(precision), float(recall)
    ### END SOLUTION


# %% tags=["check"]
checks.precision_recall(precision_recall)

# %%
print(" k  precision  recall")
for k in range(0, 13, 2):
    p, r = precision_recall(distances, labels, k)
    print(f"{k:2d}  {p:9.3f}  {r:6.3f}")

# %% [markdown]
# ## 3. Choose k
#
# F1 = 2·P·R / (P + R) balances the two. Compute it for every k in `range(65)` and set `best_k` to
# the k with the largest F1 (the smallest such k on a tie).

# %% simhash_lab={"answer": "best_k"} tags=["answer"]
# Set `best_k` in place of `raise NotImplementedError()`.
### BEGIN SOLUTION
f1 = []
for k in range(65):
    p, r = precision_recall(distances, labels, k)
    f1.append(2 * p * r / (p + r) if p + r else 0.0)
best_k = int(np.argmax(f1))
### END SOLUTION
print("best k:", best_k)

# %% tags=["check"]
checks.best_k(best_k)

# %% [markdown]
# **Think.** Is the F1-best k the right one for a search engine that must never show two copies of a
# page? For a plagiarism detector whose every flag a teacher reads by hand? What would you optimise
# instead?
