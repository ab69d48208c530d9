# %% [markdown]
# # Exercises 04 · Charikar's random hyperplanes
#
# Draw a random hyperplane through the origin, with normal vector r. A vector u lands on one side
# (`r · u >= 0`, bit 1) or the other (bit 0). Two vectors at angle θ land on different sides with
# probability **θ/π**. With 64 independent hyperplanes you get a 64-bit signature, and the expected
# Hamming distance of two signatures is **E[d_H] = 64·θ/π**. Simhash's hash bits act as such
# hyperplanes, implicitly.
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
# `signature(u, R)`: bit *i* is 1 when `R[i] @ u >= 0` (the session's convention: 0 counts as 1).
# Return a Python int. Careful: `np.int64(1) << 63` is negative; build the int with Python ints.


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
checks.signature(signature)

# %% [markdown]
# ## 2. From a distance back to an angle
#
# Invert E[d_H] = bits·θ/π: write `estimate_theta(d, bits=64)` returning θ̂ in **radians**. Then
# use it on two vectors:


# %% simhash_lab={"answer": "estimate_theta"} tags=["answer"]
def estimate_theta(d, bits=64):
    ### BEGIN SOLUTION
    return np.pi * d / bits
    ### END SOLUTION


# %% tags=["check"]
checks.estimate_theta(estimate_theta)

# %%
u, v = data.hyperplane_pair()
R = hyperplanes(u.shape[0], 64, seed=0)
d = hamming(signature(u, R), signature(v, R))
print(
    f"true angle {np.degrees(angle(u, v)):.1f}°, Hamming distance {d}, "
    f"estimate {np.degrees(estimate_theta(d)):.1f}°"
)

# %% [markdown]
# ## 3. Verify E[d_H] = 64·θ/π
#
# One set of hyperplanes gives a noisy estimate. Measure the mean: for every `seed` in `range(200)`,
# take the 64-bit signatures of `u` and `v` with that seed (your `signature`, or the library's
# `hyperplane_signatures(np.stack([u, v]), 64, seed)`), their Hamming distance, and the mean of the
# 200 distances as `mean_d`.

# %% simhash_lab={"answer": "mean_hamming"} tags=["answer"]
# Set `mean_d` in place of `raise NotImplementedError()`.
### BEGIN SOLUTION
ds = []
for seed in range(200):
    s = hyperplane_signatures(np.stack([u, v]), 64, seed)
    ds.append(hamming(int(s[0]), int(s[1])))
mean_d = sum(ds) / len(ds)
### END SOLUTION
print(f"measured {mean_d:.2f}, theory {expected_hamming(angle(u, v)):.2f}")

# %% tags=["check"]
checks.mean_hamming(mean_d)

# %% [markdown]
# **Think.** The vectors are 30° apart: 64·30/180 ≈ 10.7 bits. How far from that is one seed's
# distance, typically? Why does a 5° angle give only about 1.8 bits, and what does that mean for
# choosing k?
