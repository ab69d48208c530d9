# %% [markdown]
# # Exercises 02 · Simhash voting
#
# Simhash is a congress of 64 members, one per bit. Every feature (word) of a document votes on every
# bit: $+w$ on bit $i$ when bit $i$ of its hash is 1, $-w$ when it is 0 ($w$ is its weight, here
# its count). Bit $i$ of the fingerprint is 1 when the votes on it add up to more than 0.
#
# You need grid paper and a pencil for parts 1–2. Write answers in the `answer` cells (in place of
# each `...` or `raise NotImplementedError()`), run the check cell below each; add cells of your own
# to experiment.
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
import numpy as np
from numba import njit

from simhash_lab import Simhasher
from simhash_lab.grading import checks, data

# %% [markdown]
# ## 1. "rust safe fast" by hand (4 bits)
#
# The session's trace uses made-up 4-bit hashes, each word with weight 1:
#
# | word | hash | bit 3 | bit 2 | bit 1 | bit 0 |
# |------|------|:-----:|:-----:|:-----:|:-----:|
# | rust | `0b0011` | 0 | 0 | 1 | 1 |
# | safe | `0b0101` | 0 | 1 | 0 | 1 |
# | fast | `0b0111` | 0 | 1 | 1 | 1 |
#
# Bit 0 is the **rightmost** digit. Start from `V = [0, 0, 0, 0]` and let the three words vote.
# Write the accumulators as a list in index order, `[V[0], V[1], V[2], V[3]]`.

# %% simhash_lab={"answer": "rust_safe_fast_votes"} tags=["answer"]
### BEGIN SOLUTION
V_rust_safe_fast = [3, 1, 1, -3]
### END SOLUTION

# %% tags=["check"]
checks.rust_safe_fast_votes()

# %% [markdown]
# Now the fingerprint: bit *i* is 1 where `V[i] > 0`. Write it as a binary literal (`0b....`).

# %% simhash_lab={"answer": "rust_safe_fast_fingerprint"} tags=["answer"]
### BEGIN SOLUTION
fp_rust_safe_fast = 0b0111
### END SOLUTION

# %% tags=["check"]
checks.rust_safe_fast_fingerprint()

# %% [markdown]
# The library reproduces the session's trace when you give it the same made-up hashes. This cell
# compares its accumulators and fingerprint with yours (it shows no number: those are yours to
# work out):

# %%
seed4 = Simhasher(bits=4, hash=data.RUST_SAFE_FAST_HASHES)
yours = globals().get("V_rust_safe_fast")
library = [int(v) for v in seed4.accumulators("rust safe fast")]
same_v = isinstance(yours, (list, tuple)) and list(yours) == library
same_fp = globals().get("fp_rust_safe_fast") == seed4.fingerprint("rust safe fast")
yes, no = _("yes"), _("not yet")
print(
    f"Do the library's accumulators match yours? {yes if same_v else no}. Its fingerprint? {yes if same_fp else no}."
)

# %% [markdown]
# ## 2. Six accumulators to bits
#
# The Chinese source (004) ends a 6-bit example with the accumulators `[13, 108, -22, -5, -32, 55]`
# and writes the result as `110001`: "positive → 1, negative → 0". Its figure writes the signs in
# the list's order, `V[0]` first.
#
# First write that bit string yourself, **in the list's order**, `V[0]` first (a `str`).

# %% simhash_lab={"answer": "six_bit_string"} tags=["answer"]
### BEGIN SOLUTION
six_bits = "110001"
### END SOLUTION

# %% tags=["check"]
checks.six_bit_string()

# %% [markdown]
# Now the fingerprint as an int. In this course, as in the library, the seed's Rust
# (`fingerprint |= 1 << i`) and Python, and the `simhash` package, **`V[i]` is bit *i*** of the
# fingerprint, worth `2**i`. A binary numeral such as `0b110001` writes bit 0 *last* (rightmost).
# The junior mistake is to read the figure's string, `V[0]` first, as a binary numeral.
# **Which int is the fingerprint?** Write it as a binary literal (`0b......`) or in decimal.

# %% simhash_lab={"answer": "six_bit_int"} tags=["answer"]
### BEGIN SOLUTION
six_bit_fp = 0b100011
### END SOLUTION

# %% tags=["check"]
checks.six_bit_int()

# %% [markdown]
# ## 3. Simhash in plain Python
#
# Write `simhash_py(features, bits)`: `features` is a list of `(hash, weight)` pairs (hash an int of
# `bits` bits, weight a positive number): each feature votes $+w$ or $-w$, its own weight. Return the
# fingerprint as an int. A tie (`V[i] == 0`) gives 0, and no features at all give 0.


# %% simhash_lab={"answer": "simhash_py"} tags=["answer"]
def simhash_py(features, bits=64):
    ### BEGIN SOLUTION
    V = [0.0] * bits
    for h, w in features:
        for i in range(bits):
            V[i] += w if (h >> i) & 1 else -w
    fp = 0
    for i in range(bits):
        if V[i] > 0:
            fp |= 1 << i
    return fp
    ### END SOLUTION


# %% tags=["check"]
checks.simhash_py()

# %% [markdown]
# ## 4. The same loop in Numba
#
# Python ints never overflow; machine words do. Write `simhash_numba(hashes, weights, bits)` with
# `@njit`, all of it compiled (no `objmode` block: the check looks at what Numba compiled): `hashes` is
# a `uint64` array, `weights` a `float64` array of the same length. Keep the
# fingerprint in `uint64`: a plain `fp = 0` is an `int64` in Numba, where `1 << 63` is the sign bit,
# so a fingerprint with bit 63 set comes back negative. Start from `np.uint64(0)` and set bits with
# `np.uint64(1) << np.uint64(i)`. The 64 accumulators are a small array, `np.zeros(64)`: in Numba
# that is a heap allocation (notebook 02's lesson), made once per call, not once per feature; the
# session's Rust `[i64; 64]` lives on the stack. (No signal stops compiled code: if a loop of yours
# never ends, its check ends the kernel after two minutes, and Jupyter restarts it.)


# %% simhash_lab={"answer": "simhash_numba"} tags=["answer"]
@njit
def simhash_numba(hashes, weights, bits):
    ### BEGIN SOLUTION
    V = np.zeros(64, dtype=np.float64)
    one = np.uint64(1)
    for j in range(hashes.shape[0]):
        h, w = hashes[j], weights[j]
        for i in range(bits):
            if (h >> np.uint64(i)) & one:
                V[i] += w
            else:
                V[i] -= w
    fp = np.uint64(0)
    for i in range(bits):
        if V[i] > 0:
            fp |= one << np.uint64(i)
    return fp
    ### END SOLUTION


# %% tags=["check"]
checks.simhash_numba()

# %% [markdown]
# **Think.** Your Numba loop and the library's kernel agree bit for bit. Time both against
# `simhash_py` on 10 000 features in a cell of your own (`%timeit`): where does the speed come from?
#
# <details><summary>An answer</summary>
#
# Both run the same $64 \times n$ votes. `simhash_py` runs them in the interpreter: every step
# looks up names, checks the types of `h`, `i` and `w`, and makes a new Python int or float object.
# `simhash_numba` is compiled once, for the types of its arguments, to machine code: `h`, `i` and the
# accumulators stay in registers and in one array of 64 doubles, and each vote is a shift, a mask and
# an add. The library's kernel is the same kind of compiled loop, which is why the two agree bit for
# bit; your `%timeit` gives the ratios on your machine.
#
# </details>
