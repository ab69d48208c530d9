# %% [markdown]
# # 03 · Hamming distance and the POPCNT instruction
#
# **Concept 3 of 4: Hamming distance.** Two fingerprints are compared by counting the bits where they
# differ: XOR, then count the ones. We check the sources' examples, count bits six different ways,
# race them, and find the one machine instruction that does it.

# %%
import timeit

import matplotlib.pyplot as plt
import numpy as np
from numba import njit

from simhash_lab import hamming, is_near, popcount
from simhash_lab.course import plot
from simhash_lab.course.plot import bit_string
from simhash_lab.kernels import bits as _bits

plot.use_course_style()
rng = np.random.default_rng(60)

# %% [markdown]
# ## (a) Intuition
#
# > *Es la cantidad de posiciones en las que dos cadenas binarias de igual longitud tienen letras
# > distintas. Por ejemplo: 1001 y 1010 difieren en las dos últimas posiciones, así que su distancia de
# > Hamming es 2.* (the session)
#
# Write the two numbers one above the other on grid paper and mark, in your second colour, each column
# where they differ. The number of marks is the distance.
#
# ## (b) Definition
#
# d_H(A, B) = number of positions i with A_i ≠ B_i = **popcount(A ⊕ B)**: XOR leaves a 1 exactly where
# the bits differ, and the population count counts the 1s.
#
# > 二進制串A 和 二進制串B 的海明距離 就是A xor B后二進制中1的個數。 (source 004)
#
# The sources give three examples. ✏️ Do them on paper, then check:

# %%
examples = [
    (0b1001, 0b1010, 4, "session"),
    (0b100111, 0b101010, 6, "source 004"),
    (0b1011101, 0b1001001, 7, "source 001"),
]
for a, b, n, src in examples:
    print(
        f"{bit_string(a, n):>7} xor {bit_string(b, n):>7} = {bit_string(a ^ b, n):>7}"
        f" -> hamming = {hamming(a, b)}   ({src})"
    )
assert [hamming(a, b) for a, b, _, _ in examples] == [2, 3, 2]

# %%
fig, axes = plt.subplots(1, 3, figsize=(16, 3.2), gridspec_kw={"width_ratios": [4, 6, 7]})
for ax, (a, b, n, src) in zip(axes, examples):
    plot.bit_rows(
        [("A", a), ("B", b), ("A ⊕ B", a ^ b)], n, ax=ax, highlight=a ^ b, title=f"{src}: d = {hamming(a, b)}"
    )
fig.tight_layout()
plt.show()

# %% [markdown]
# The framed columns are the differing bits; the bottom row, A ⊕ B, has a 1 in exactly those columns.
#
# ## (c) Memory and types: one instruction
#
# > *Se computa como (fp1 ^ fp2).count_ones(). En compiladores modernos con arquitectura x86-64 y banderas
# > SSE4.2+, esto no ejecuta ningún bucle: se traduce directamente en la instrucción única de silicio
# > POPCNT.* (the session)
#
# Counting bits can be done many ways. Here are seven, each checked against the obvious
# `bin(x).count("1")` on the same random 64-bit values:


# %%
def popcount_naive(x):
    """The junior loop: look at every bit, one at a time (up to 64 steps)."""
    c = 0
    while x > 0:
        if x & 1:
            c += 1
        x >>= 1
    return c


def popcount_kernighan(x):
    """Kernighan: x &= x - 1 clears the lowest 1-bit, so it loops once per 1-bit."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


M1, M2, M4, H01 = (
    np.uint64(c) for c in (0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101)
)


def popcount_swar(x):
    """SWAR (SIMD within a register): add bits in pairs, nibbles, bytes, then sum the bytes."""
    x = x - ((x >> np.uint64(1)) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return (x * H01) >> np.uint64(56)


TABLE = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount_table(x):
    """Lookup table: split each uint64 into 8 bytes, look each up in a 256-entry table, add."""
    return TABLE[x.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)


# %%
x = rng.integers(0, 2**64, size=100_000, dtype=np.uint64)
xs = [int(v) for v in x]
truth = np.array([bin(v).count("1") for v in xs])
methods = {
    "naive bit loop (Python)": lambda: [popcount_naive(v) for v in xs],
    "Kernighan x &= x-1 (Python)": lambda: [popcount_kernighan(v) for v in xs],
    "int.bit_count() (Python)": lambda: [v.bit_count() for v in xs],
    "SWAR (NumPy)": lambda: popcount_swar(x),
    "lookup table (NumPy)": lambda: popcount_table(x),
    "np.bitwise_count (NumPy 2)": lambda: np.bitwise_count(x),
    "simhash_lab.popcount (Numba)": lambda: popcount(x),
}
for name, f in methods.items():
    assert (np.asarray(f()) == truth).all(), name
print(f"all {len(methods)} methods agree on {len(xs):,} random 64-bit values")

# %% [markdown]
# ### How many steps does each loop take?
#
# The naive loop runs once per bit up to the highest 1 (about 63 for a random 64-bit number).
# Kernighan's loop runs once per **1-bit** (about 32 for a random number, fewer for a near pair). The seed's C++ `isEqual` (source 004) goes further:
# it only needs to know whether the distance is ≤ n = 3, so it stops after n + 1 ones:
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
# The library has it as `is_near(a, b, k)`. Steps taken on random pairs (half of them unrelated, half
# near-duplicates at distance 0 to 6):

# %%
a = rng.integers(0, 2**64, size=2000, dtype=np.uint64)
flips = rng.integers(0, 7, size=1000)
near = np.array(
    [int(v) ^ sum(1 << int(p) for p in rng.choice(64, f, replace=False)) for v, f in zip(a[:1000], flips)],
    dtype=np.uint64,
)
b = np.concatenate([near, rng.integers(0, 2**64, size=1000, dtype=np.uint64)])
d = [int(v) for v in (a ^ b)]
steps = {
    "naive loop": [v.bit_length() for v in d],
    "Kernighan": [v.bit_count() for v in d],
    "Kernighan, stop after k+1 = 4": [min(v.bit_count(), 4) for v in d],
}
for name, s in steps.items():
    print(f"{name:30s} mean {np.mean(s):5.1f} steps, worst {max(s)}")
assert [is_near(int(p), int(q), 3) for p, q in zip(a, b)] == [
    hamming(int(p), int(q)) <= 3 for p, q in zip(a, b)
]

# %% [markdown]
# Early exit bounds the work by k + 1 no matter how far apart the fingerprints are, which is the common
# case: almost every candidate is *not* a near-duplicate.
#
# ### The race
#
# Nanoseconds per 64-bit popcount, each method on 100,000 values (Python loops on a list of ints,
# NumPy and Numba on a `uint64` array). Timings depend on the machine, so this cell is not checked by
# the tests; the order is what to look at.


# %% tags=["nbval-ignore-output"]
def ns_per_item(f, n_items):
    runs = timeit.repeat(f, number=1, repeat=5)
    return min(runs) / n_items * 1e9


timings = {name: ns_per_item(f, len(xs)) for name, f in methods.items()}
for name, ns in timings.items():
    print(f"{name:30s} {ns:9.2f} ns")

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(10, 4.8))
plot.benchmark_bars(
    timings,
    ax=ax,
    unit="ns per 64-bit popcount",
    highlight=["simhash_lab.popcount (Numba)"],
    title="Seven ways to count bits",
)
plt.show()

# %% [markdown]
# Two lessons. Any per-bit work in Python costs microseconds per number; moving the loop out of Python
# (NumPy, Numba) gains two orders of magnitude; and the compiled versions that reach a single `popcnt`
# (NumPy's `bitwise_count`, the library's Numba kernel) are at memory speed, about a nanosecond or less
# per fingerprint.
#
# ### Seeing the instruction
#
# Numba compiles `simhash_lab.kernels.bits.popcount` with LLVM's `ctpop` intrinsic, and LLVM lowers that to
# the x86-64 `popcnt` instruction when the CPU has it (every x86-64 CPU since about 2008; on ARM it
# becomes `cnt`). Here is the machine code Numba generated on this machine, filtered to the interesting
# lines (which registers it uses varies, so this cell is not checked by the tests):


# %% tags=["nbval-ignore-output"]
@njit
def hamming_one(a, b):
    return _bits.popcount(a ^ b)


assert hamming_one(np.uint64(0b1001), np.uint64(0b1010)) == 2
asm = hamming_one.inspect_asm(hamming_one.signatures[0])
lines = [
    l.strip()
    for l in asm.splitlines()
    if any(k in l for k in ("popcnt", "xor", "ret")) and not l.strip().startswith((".", "#"))
]
first_ret = next((i for i, l in enumerate(lines) if l.startswith("ret")), len(lines) - 1)
print("\n".join(lines[: first_ret + 1]))
print("\npopcnt instructions found:", sum("popcnt" in l for l in asm.splitlines()))

# %% [markdown]
# `xor` then `popcnt`: the whole Hamming distance is two instructions, no loop, no branch. That is what
# `(fp1 ^ fp2).count_ones()` becomes in Rust too.
#
# ## (d) The junior mistake
#
# > *Escribir un bucle manual con `while n > 0 { if n & 1 { c += 1; } n >>= 1; }`, perdiendo la
# > optimización por hardware.* (the session)
#
# That is `popcount_naive` above: up to 64 iterations, each with a branch the CPU cannot predict (the
# bits are random), instead of one instruction. In C or Java it has a second trap: with a *signed*
# negative number, `n >>= 1` shifts in ones and `n > 0` is false at once (or the loop never ends with
# `n != 0`). Use the language's popcount: `count_ones()` (Rust), `std::popcount` (C++20),
# `int.bit_count()` (Python 3.10+), `np.bitwise_count` (NumPy 2), or `simhash_lab.hamming`.
#
# ## Summary
#
# - d_H(A, B) = popcount(A ⊕ B): 1001/1010 → 2, 100111/101010 → 3, 1011101/1001001 → 2.
# - Popcount: naive loop (≤ 64 steps) < Kernighan (one step per 1-bit) < early exit (≤ k + 1 steps)
#   < SWAR / table (a few operations) < one `popcnt` instruction.
# - In Python, the loop's location (Python, NumPy, Numba) matters more than the algorithm.
#
# ## Questions (answer in your own words)
#
# 1. Why does `x & (x - 1)` clear exactly the lowest 1-bit?
# 2. `is_near(a, b, 3)` takes at most 4 steps. Why is that the right bound for a near-duplicate test?
# 3. Why is the lookup table 256 entries and not 2⁶⁴?
# 4. The distance between two 64-bit fingerprints fits in a `u8`. Why does the library return `uint8`?
