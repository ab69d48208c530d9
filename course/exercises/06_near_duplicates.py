# %% [markdown]
# # Exercises 06 · Choosing k from a precision/recall curve
#
# "Near duplicate" means Hamming distance $\le k$, and Google's crawler used $k = 3$. But the right
# $k$ depends on your documents, your features and what you call a duplicate. Measure it: label
# pairs, compute their distances, and pick the $k$ that balances **precision** (of the pairs you
# flag, how many are real near duplicates) and **recall** (of the real near duplicates, how many you
# flag).
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
import numpy as np

from simhash_lab import Simhasher, hamming
from simhash_lab.grading import checks, data

# %% [markdown]
# The corpus: 450 short documents and 450 labelled pairs, generated (syllable words with Zipf
# frequencies, so common words are shared by unrelated documents). A positive is a copy with up to
# 12% of its words replaced, inserted or deleted; the negatives are documents rewritten by 25–60%
# from the same source (hard) and unrelated pairs. These rates are not notebook 06's: there a near
# duplicate of a real document has 1–8% of its words edited (plus, half the time, one structural
# edit) and a rewrite 30–50%, so the two need not agree on the best $k$.

# %%
docs, pairs, labels = data.near_dup_corpus()
print(len(docs), "documents,", len(pairs), "pairs,", int(labels.sum()), "near duplicates")
print(docs[0][:70], "...")

# %% [markdown]
# ## 1. Distances
#
# Write `pair_distances(docs, pairs)`: fingerprint every document with `Simhasher()` (use
# `fingerprints`, the batch form) and return one Hamming distance per row `(i, j)` of `pairs` (an
# array of ints as long as `pairs`). The check runs it on this corpus and on another one.


# %% simhash_lab={"answer": "pair_distances"} tags=["answer"]
def pair_distances(docs, pairs):
    ### BEGIN SOLUTION
    fps = Simhasher().fingerprints(docs)
    return hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
    ### END SOLUTION


# %% tags=["check"]
checks.pair_distances()

# %% [markdown]
# ## 2. Precision and recall at k
#
# Write `precision_recall(distances, labels, k)` returning `(precision, recall)` when every pair with
# distance $\le k$ is flagged as a near duplicate. When nothing is flagged, precision is 1.0.


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
checks.precision_recall()

# %%
try:
    distances = pair_distances(docs, pairs)
    print(" k  precision  recall")
    for k in range(0, 13, 2):
        p, r = precision_recall(distances, labels, k)
        print(f"{k:2d}  {p:9.3f}  {r:6.3f}")
except NotImplementedError:
    print("Write `pair_distances` and `precision_recall` above: this cell uses them.")
except Exception as e:  # a wrong answer: its check above says more
    print(
        f"This cell uses your `pair_distances` and `precision_recall`, which raised {type(e).__name__}: {e}"
    )

# %% [markdown]
# ## 3. Choose k
#
# $F_1 = 2PR/(P + R)$ balances the two (it is 0 when $P + R = 0$). Write `best_k(distances, labels)`:
# compute $F_1$ for every $k$ in `range(65)` (with your `precision_recall`) and return the $k$ with
# the largest $F_1$ (the smallest such $k$ on a tie). The check runs it on this corpus's distances,
# on another's, and on small sets of its own.


# %% simhash_lab={"answer": "best_k"} tags=["answer"]
def best_k(distances, labels) -> int:
    ### BEGIN SOLUTION
    f1 = []
    for k in range(65):
        p, r = precision_recall(distances, labels, k)
        f1.append(2 * p * r / (p + r) if p + r else 0.0)
    return int(np.argmax(f1))
    ### END SOLUTION


# %% tags=["check"]
checks.best_k()

# %% [markdown]
# The $k$ a different goal would pick, on this corpus (with your functions):

# %%
try:
    pr = {k: precision_recall(distances, labels, k) for k in range(65)}
    goals = {
        _("best F1"): best_k(distances, labels),
        _("smallest k with recall 1"): min((k for k, (p, r) in pr.items() if r == 1.0), default=None),
        _("largest k with precision 1"): max((k for k, (p, r) in pr.items() if p == 1.0), default=None),
    }
    for goal, k in goals.items():
        p, r = pr[k] if k in pr else (float("nan"), float("nan"))
        print(f"{goal:>27}: k = {k}, precision {p:.3f}, recall {r:.3f}")
except (NotImplementedError, NameError):
    print("Write `pair_distances`, `precision_recall` and `best_k` above: this cell uses them.")
except Exception as e:  # a wrong answer: its check above says more
    print(
        f"This cell uses your `pair_distances`, `precision_recall` and `best_k`, which raised {type(e).__name__}: {e}"
    )

# %% [markdown]
# **Think.** Is the F1-best $k$ the right one for a search engine that must never show two copies of
# a page? For a plagiarism detector whose every flag a teacher reads by hand? What would you optimise
# instead?
#
# <details><summary>An answer</summary>
#
# F1 weighs a missed copy and a false flag the same; neither application does. A search engine that
# must never show two copies cares about **recall**: take the smallest $k$ whose recall is 1 on
# labelled pairs (the cell above prints it and the precision it costs), and pay for the lower
# precision by verifying each candidate pair (exact Jaccard of the shingles, as `simhash-lab dedup`
# does) before dropping a page. A plagiarism detector whose every flag costs a teacher's time cares
# about **precision**: take the largest $k$ whose precision is still 1 (or meets a target such as
# 0.99), and accept that some copies with heavier edits go unflagged. Optimise the cost you actually
# pay (recall at a fixed precision, or precision at a fixed recall), measured on labelled pairs of
# your own documents.
#
# </details>
