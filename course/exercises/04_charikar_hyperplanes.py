# %% [markdown]
# # Exercises 04 · Charikar's random hyperplanes
#
# Draw a random hyperplane through the origin, with normal vector $r$. A vector $u$ lands on one side
# ($r \cdot u \ge 0$, bit 1) or the other (bit 0). Two vectors at angle $\theta$ land on different
# sides with probability $\theta/\pi$. With 64 independent hyperplanes you get a 64-bit signature,
# and the expected Hamming distance of two signatures is $E[d_H] = 64\,\theta/\pi$. Simhash's hash
# bits act as such hyperplanes, implicitly.
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
import numpy as np

from simhash_lab import expected_hamming, hamming, hyperplane_signatures
from simhash_lab.geometry import angle, hyperplanes
from simhash_lab.grading import checks, data

# %% [markdown]
# ## 1. A signature
#
# `R = hyperplanes(dim, bits, seed)` is a `(bits, dim)` array of random normals, one per row. Write
# `signature(u, R)`: bit $i$ is 1 when `R[i] @ u >= 0` (the session's convention: 0 counts as 1).
# Return the signature as an int: a Python int, or a NumPy unsigned integer (the check reads its
# value). Careful: `np.int64(1) << 63` is negative, so build it with Python ints (`1 << i`).


# %% simhash_lab={"answer": "signature"} tags=["answer"]
def signature(u, R) -> int:
    ### BEGIN SOLUTION
    sig = 0
    for i, r in enumerate(R):
        if r @ u >= 0:
            sig |= 1 << i
    return sig
    ### END SOLUTION


# %% tags=["check"]
checks.signature()

# %% [markdown]
# ## 2. From a distance back to an angle
#
# Invert $E[d_H] = \text{bits} \cdot \theta/\pi$: write `estimate_theta(d, bits=64)` returning the
# estimate $\hat\theta$ in **radians**. Then use it on two vectors:


# %% simhash_lab={"answer": "estimate_theta"} tags=["answer"]
def estimate_theta(d, bits=64):
    ### BEGIN SOLUTION
    return np.pi * d / bits
    ### END SOLUTION


# %% tags=["check"]
checks.estimate_theta()

# %%
u, v = data.hyperplane_pair()
R = hyperplanes(u.shape[0], 64, seed=0)
try:
    d = hamming(signature(u, R), signature(v, R))
    print(
        f"true angle {np.degrees(angle(u, v)):.1f}°, Hamming distance {d}, "
        f"estimate {np.degrees(estimate_theta(d)):.1f}°"
    )
except NotImplementedError:
    print("Write `signature` and `estimate_theta` above: this cell uses them.")
except Exception as e:  # a wrong answer: its check above says more
    print(f"This cell uses your `signature` and `estimate_theta`, which raised {type(e).__name__}: {e}")

# %% [markdown]
# ## 3. Verify $E[d_H] = 64\,\theta/\pi$
#
# One set of hyperplanes gives a noisy estimate. Measure the mean: write `mean_hamming(u, v)` that,
# for every `seed` in `range(200)`, takes the 64-bit signatures of `u` and `v` with that seed (your
# `signature`, or the library's `hyperplane_signatures(np.stack([u, v]), 64, seed)`) and their
# Hamming distance, and returns the mean of the 200 distances. The check runs it on this notebook's
# `u, v` and on another pair at $30^\circ$.


# %% simhash_lab={"answer": "mean_hamming"} tags=["answer"]
def mean_hamming(u, v) -> float:
    ### BEGIN SOLUTION
    ds = []
    for seed in range(200):
        s = hyperplane_signatures(np.stack([u, v]), 64, seed)
        ds.append(hamming(int(s[0]), int(s[1])))
    return sum(ds) / len(ds)
    ### END SOLUTION


# %% tags=["check"]
checks.mean_hamming()

# %% [markdown]
# How much one seed's distance varies, measured with the library's signatures on the same 200 seeds:

# %%
one_seed = [
    hamming(*(int(s) for s in hyperplane_signatures(np.stack([u, v]), 64, seed))) for seed in range(200)
]
p = angle(u, v) / np.pi
print(
    f"theory {expected_hamming(angle(u, v)):.2f} bits; one seed's distance: from {min(one_seed)} to "
    f"{max(one_seed)}, standard deviation {np.std(one_seed):.2f} "
    f"(binomial: {np.sqrt(64 * p * (1 - p)):.2f}); at 5°: {expected_hamming(np.radians(5)):.2f} bits"
)

# %% [markdown]
# **Think.** The vectors are $30^\circ$ apart: $64 \cdot 30/180 \approx 10.7$ bits. How far from that
# is one seed's distance, typically? Why does a $5^\circ$ angle give only about 1.8 bits, and what
# does that mean for choosing $k$?
#
# <details><summary>An answer</summary>
#
# Each of the 64 bits differs with probability $p = \theta/\pi = 1/6$, independently, so one seed's
# distance is binomial with standard deviation $\sqrt{64\,p\,(1-p)} \approx 3$ bits: a single seed is
# typically a few bits either side of the mean (the cell above prints the spread it measured). At
# $5^\circ$, $p = 5/180$ and $64 \cdot 5/180 \approx 1.8$: the distance grows linearly with the
# angle, and small angles give few bits. So $k$ is an angle in disguise: on average $k = 3$ accepts pairs up to
# $\theta = 3\pi/64$, about $8.4^\circ$, and because one fingerprint's distance is that noisy, pairs
# a little closer are sometimes missed and pairs a little farther sometimes accepted. Choose $k$
# from measured distances of pairs you call duplicates (exercise 06), not from one example.
#
# </details>
