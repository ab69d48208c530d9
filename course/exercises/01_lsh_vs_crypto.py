# %% [markdown]
# # Exercises 01 · LSH vs cryptographic hashes
#
# A cryptographic hash is built so that one changed character changes *everything*: that is the
# **avalanche effect**, and it is exactly why MD5 cannot catch a copied essay with one word changed.
# A locality-sensitive hash (LSH) such as Simhash is built for the opposite: similar inputs get
# similar outputs. Here you measure both.
#
# **How these exercises work.** Write your code in the cells tagged `answer` (they start with
# `raise NotImplementedError()`), run them, then run the check cell below each one: it prints ✅, or
# ❌ with a hint (and, for computed values, what was expected on this notebook's data). A ❌ never
# stops the notebook, so Run All shows every check at once. Add cells of your own to experiment;
# only the answer cells are graded.
#
# **How they are graded.** `simhash-lab grade` takes only your answer cells, runs them on *other*
# data and inputs drawn at grading time, and checks the results outside your notebook: a number
# copied from a ❌ is wrong there, so compute it.

# %% tags=["setup"]
import hashlib

from simhash_lab import Simhasher, hamming
from simhash_lab.grading import checks, data

# %% [markdown]
# ## 1. A 64-bit MD5
#
# The session's Python reference (`SimhashPython._hash_token`) turns a token into 64 bits by taking
# the **first 16 hex digits** of its MD5 digest (16 hex digits × 4 bits = 64 bits):
# `int(hashlib.md5(token.encode("utf-8")).hexdigest()[:16], 16)`.
#
# Write `md5_64(text)` returning that int.


# %% simhash_lab={"answer": "md5_64"} tags=["answer"]
def md5_64(text: str) -> int:
    ### BEGIN SOLUTION
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)
    ### END SOLUTION


# %% tags=["check"]
checks.md5_64(md5_64)

# %% [markdown]
# ## 2. What should an ideal hash do?
#
# For an ideal cryptographic hash, changing the input flips each output bit independently with
# probability 1/2. **On average, how many of the 64 bits flip?** Work it out on paper first.

# %% simhash_lab={"answer": "ideal_flips"} tags=["answer"]
# Set `ideal_flips` in place of `raise NotImplementedError()`.
### BEGIN SOLUTION
ideal_flips = 64 * 0.5
### END SOLUTION

# %% tags=["check"]
checks.ideal_flips(ideal_flips)

# %% [markdown]
# ## 3. Measure the avalanche
#
# `pairs` holds 40 pairs `(sentence, same sentence with one letter changed)`:

# %%
pairs = data.avalanche_pairs()
for a, b in pairs[:3]:
    print(f"{a!r}\n{b!r}\n")

# %% [markdown]
# Compute `crypto_flips`: the **mean Hamming distance** between `md5_64(a)` and `md5_64(b)` over all
# pairs (`hamming(x, y)` counts the bits where two ints differ).

# %% simhash_lab={"answer": "crypto_flips"} tags=["answer"]
# Set `crypto_flips` in place of `raise NotImplementedError()`.
### BEGIN SOLUTION
crypto_flips = sum(hamming(md5_64(a), md5_64(b)) for a, b in pairs) / len(pairs)
### END SOLUTION
print(crypto_flips)

# %% tags=["check"]
checks.crypto_flips(crypto_flips)

# %% [markdown]
# ## 4. The same edits under Simhash
#
# Now compute `simhash_flips`, the same mean but with the fingerprints of `h = Simhasher()` (the
# library's default: words, counts as weights, 64 bits).

# %% simhash_lab={"answer": "simhash_flips"} tags=["answer"]
# Set `simhash_flips` in place of `raise NotImplementedError()`.
h = Simhasher()
### BEGIN SOLUTION
simhash_flips = sum(hamming(h.fingerprint(a), h.fingerprint(b)) for a, b in pairs) / len(pairs)
### END SOLUTION
print(simhash_flips)

# %% tags=["check"]
checks.simhash_flips(simhash_flips)

# %% [markdown]
# **Think.** One letter changed one word. Why does Simhash move only a few bits, and MD5 about 32?
# Which of the two would you use to find students who copied an essay and changed a few words?
