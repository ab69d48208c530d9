# %% [markdown]
# # Exercises 03 · Hamming distance and POPCNT
#
# Two fingerprints are near when few of their bits differ. XOR marks the differing bits with a 1;
# counting the ones (the **population count**, one `popcnt` instruction on a modern CPU) gives the
# Hamming distance. Pencil first, then code.
#
# A ❌ never stops Run All; grading runs your answers on other data and inputs (see exercise 01).

# %% tags=["setup"]
from simhash_lab.grading import checks

# %% [markdown]
# ## 1. By hand
#
# The Chinese sources give two examples. Write each pair one above the other on grid paper and mark
# the columns that differ.
#
# * `A = 100111`, `B = 101010` (source 004)
# * `C = 1011101`, `D = 1001001` (source 001)

# %% simhash_lab={"answer": "hamming_by_hand"} tags=["answer"]
### BEGIN SOLUTION
d_AB = 3
d_CD = 2
### END SOLUTION

# %% tags=["check"]
checks.hamming_by_hand()

# %% [markdown]
# Now the XOR itself: write `A ^ B` as a binary literal, worked out by hand (`0b......`).

# %% simhash_lab={"answer": "xor_AB"} tags=["answer"]
### BEGIN SOLUTION
xor_AB = 0b001101
### END SOLUTION

# %% tags=["check"]
checks.xor_AB()

# %% [markdown]
# ## 2. Kernighan's popcount
#
# The junior way counts ones by shifting through all 64 bits. Kernighan's trick: `x & (x - 1)` is
# `x` with its **lowest set bit cleared** (try it on `0b101100`: `x - 1 = 0b101011`). So a loop of
# `x &= x - 1` runs once per *set* bit, not once per bit.
#
# Write `popcount_kernighan(x)` for a non-negative int `x < 2**64` with that method, written your way
# (a `while` loop, recursion, a helper of yours). The check follows the values your function's
# variables take (one of them must go `x`, `x & (x - 1)`, ... down to the last set bit) and counts
# its steps (one per set bit, wherever the bits are). No text and no ready-made popcount in this
# answer: `bin`, `str`, `format`, f-strings, `'%x' % x`, `int.bit_count`, `np.bitwise_count` and the
# library's `popcount` and `hamming` are not allowed here.


# %% simhash_lab={"answer": "popcount_kernighan"} tags=["answer"]
def popcount_kernighan(x: int) -> int:
    ### BEGIN SOLUTION
    count = 0
    while x:
        x &= x - 1
        count += 1
    return count
    ### END SOLUTION


# %% tags=["check"]
checks.popcount_kernighan()

# %% [markdown]
# ## 3. Stop early: the source's `isEqual`
#
# To decide "near or not" with threshold k you do not need the exact distance: stop as soon as you
# have seen $k + 1$ differing bits. Source 004's C++:
#
# ```cpp
# bool isEqual(uint64_t lhs, uint64_t rhs, unsigned short n = 3) {
#     unsigned short cnt = 0;
#     lhs ^= rhs;
#     while (lhs && cnt <= n) { lhs &= lhs - 1; cnt++; }
#     return cnt <= n;
# }
# ```
#
# Write `is_near(a, b, k=3)` in Python: True when `hamming(a, b) <= k`, taking at most $k + 1$ steps
# however far apart `a` and `b` are (one step per differing bit, as above; the check follows a
# variable of yours going `a ^ b`, then one differing bit fewer at each step, and where it stops).
# Anything else is your choice here.


# %% simhash_lab={"answer": "is_near"} tags=["answer"]
def is_near(a: int, b: int, k: int = 3) -> bool:
    ### BEGIN SOLUTION
    x = a ^ b
    count = 0
    while x and count <= k:
        x &= x - 1
        count += 1
    return count <= k
    ### END SOLUTION


# %% tags=["check"]
checks.is_near()

# %% [markdown]
# **Think.** For $k = 3$, how many steps does `is_near` take on two random 64-bit fingerprints
# (about 32 bits apart)? How many does a full popcount take? When does the early exit stop mattering?
#
# <details><summary>An answer</summary>
#
# Two random 64-bit words differ in each bit with probability $1/2$, so their distance is
# binomial: mean 32, standard deviation $\sqrt{64 \cdot \frac12 \cdot \frac12} = 4$. `is_near`
# stops at the 4th differing bit: 4 steps (fewer only when the distance is 3 or less, which for
# random words almost never happens). Kernighan's full popcount takes one step per differing bit,
# about 32; a shift-through-every-bit popcount takes 64. The early exit stops mattering when the
# pairs you test are mostly near (distance $\le k$: both loops take the same $d$ steps), and where
# one `popcnt` instruction counts all 64 bits at once: `hamming(a, b) <= k` is then a single
# instruction and a comparison, cheaper than any loop, early exit or not.
#
# </details>
