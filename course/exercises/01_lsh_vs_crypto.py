# %% [markdown]
# # Exercises 01 · LSH vs cryptographic hashes
#
# A cryptographic hash is built so that one changed character changes *everything*: that is the
# **avalanche effect**, and it is exactly why MD5 cannot catch a copied essay with one word changed.
# A locality-sensitive hash (LSH) such as Simhash is built for the opposite: similar inputs get
# similar outputs. Here you measure both.
#
# **How these exercises work.** Write your code in the cells tagged `answer` (a function's body
# starts as `raise NotImplementedError()`, a value as `...`), run them, then run the check cell below
# each one: it prints ✅, or ❌ with a hint (and, for computed values, what was expected on this
# notebook's data). A ❌ never stops the notebook, so Run All shows every check at once. Add cells of
# your own, to experiment or for helper functions (grading runs them too, where they stand); only
# the answer cells are graded.
#
# **Answers computed from the data are functions of it.** The check cell runs them on this
# notebook's data *and* on another variant of it, so a number copied from a ❌ is ❌ here too. The
# last cell names the command that checks the whole notebook the way the grader does (`make check`);
# your teacher grades with `simhash-lab grade`, on other data and inputs drawn at grading time. So a
# function's ✅ here says it passed the cases shown here, and that grading runs it on hidden ones.
# A call that runs for more than 10 seconds is stopped (an endless loop?) and the check says so.
#
# **Write your answers your own way**: any Python, helper functions in cells of your own, NumPy.
# Where an exercise checks the *method* (02, 03, 05), it measures what your functions do (the lines
# they run, the values their variables take, what they read); only two things are refused there,
# besides what the exercise itself forbids: code that reaches into the interpreter (`sys`, `gc`,
# `inspect`, `getattr`, `eval`, names and attributes that start with `_`) and code that keeps values
# outside a function (files, `os`, setting an attribute of a module), since either could change
# what is measured.

# %% tags=["setup"]
import hashlib

from simhash_lab import Simhasher, hamming
from simhash_lab.grading import checks, data

# %% [markdown]
# ## 1. A 64-bit MD5
#
# The session's Python reference (`SimhashPython._hash_token`) turns a token into 64 bits by taking
# the **first 16 hex digits** of its MD5 digest ($16 \times 4 = 64$ bits):
# `int(hashlib.md5(token.encode("utf-8")).hexdigest()[:16], 16)`.
#
# Write `md5_64(text)` returning that int.


# %% simhash_lab={"answer": "md5_64"} tags=["answer"]
def md5_64(text: str) -> int:
    ### BEGIN SOLUTION
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)
    ### END SOLUTION


# %% tags=["check"]
checks.md5_64()

# %% [markdown]
# ## 2. What should an ideal hash do?
#
# For an ideal cryptographic hash, changing the input flips each output bit independently with
# probability $1/2$. **On average, how many of the 64 bits flip?** Work it out on paper first.

# %% simhash_lab={"answer": "ideal_flips"} tags=["answer"]
### BEGIN SOLUTION
ideal_flips = 64 * 0.5
### END SOLUTION

# %% tags=["check"]
checks.ideal_flips()

# %% [markdown]
# ## 3. Measure the avalanche
#
# `pairs` holds 40 pairs `(sentence, same sentence with one letter changed)`:

# %%
pairs = data.avalanche_pairs()
for a, b in pairs[:3]:
    print(f"{a!r}\n{b!r}\n")

# %% [markdown]
# Write `crypto_flips(pairs)`: the **mean Hamming distance** between `md5_64(a)` and `md5_64(b)`
# over all the pairs `(a, b)` of `pairs` (`hamming(x, y)` counts the bits where two ints differ).


# %% simhash_lab={"answer": "crypto_flips"} tags=["answer"]
def crypto_flips(pairs) -> float:
    ### BEGIN SOLUTION
    return sum(hamming(md5_64(a), md5_64(b)) for a, b in pairs) / len(pairs)
    ### END SOLUTION


# %% tags=["check"]
checks.crypto_flips()

# %% [markdown]
# ## 4. The same edits under Simhash
#
# Now write `simhash_flips(pairs)`, the same mean but with the fingerprints of `Simhasher()` (the
# library's default: words, counts as weights, 64 bits) in place of `md5_64`.


# %% simhash_lab={"answer": "simhash_flips"} tags=["answer"]
def simhash_flips(pairs) -> float:
    ### BEGIN SOLUTION
    h = Simhasher()
    return sum(hamming(h.fingerprint(a), h.fingerprint(b)) for a, b in pairs) / len(pairs)
    ### END SOLUTION


# %% tags=["check"]
checks.simhash_flips()

# %% [markdown]
# The two means on this notebook's pairs, and how many words each sentence has:

# %%
words = sorted({len(a.split()) for a, _ in pairs})
print(f"sentences of {words[0]} to {words[-1]} words")
try:
    print(f"MD5: {crypto_flips(pairs):.2f} of 64 bits flip on average; Simhash: {simhash_flips(pairs):.2f}")
except NotImplementedError:
    print("Write `crypto_flips` and `simhash_flips` above: this cell prints what they measure.")
except Exception as e:  # a wrong answer: its check above says more
    print(f"This cell uses your `crypto_flips` and `simhash_flips`, which raised {type(e).__name__}: {e}")

# %% [markdown]
# **Think.** One letter changed one word. Why does Simhash move only a few bits, and MD5 about 32?
# Which of the two would you use to find students who copied an essay and changed a few words?
#
# <details><summary>An answer</summary>
#
# MD5 sees the text as one input: any change gives an output that looks unrelated, each bit flipping
# with probability $1/2$, so about 32 bits move (the cell above measures it). Simhash hashes each
# *word* and lets every word vote on every bit; the edit replaces one word's votes out of a sentence's
# few words (the cell above counts them), and a bit of the fingerprint flips only where the vote sum
# was close enough to 0 for one word to tip it. So only a few bits move. To find copied essays with a
# few words changed, use Simhash: the copies get fingerprints a few bits apart, which an index can
# find; MD5 finds only exact copies (a single changed character hides a copy from it completely).
#
# </details>
