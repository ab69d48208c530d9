# %% [markdown]
# # 03 · Hamming distance and the POPCNT instruction
#
# **Concept 3 of 4: Hamming distance.** Two fingerprints are compared by counting the bits where they
# differ: XOR, then count the ones. We check the sources' examples, count bits seven different ways,
# race them, and find the one machine instruction that does it.

# %%
import timeit

import matplotlib.pyplot as plt
import numpy as np

from simhash_lab import hamming, is_near, popcount
from simhash_lab.course import internals, plot
from simhash_lab.course.plot import bit_string

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
# $$d_H(A, B) = \big|\{\, i : A_i \ne B_i \,\}\big| = \mathrm{popcount}(A \oplus B):$$
#
# XOR ($\oplus$) leaves a 1 exactly where the bits differ, and the population count counts the 1s.
#
# > 二進制串A 和 二進制串B 的海明距離 就是A xor B后二進制中1的個數。 (source 004: "the Hamming distance of binary strings A and B is the number of 1s in A xor B, in binary")
#
# The sources give three examples. ✏️ Do them on paper, then check:

# %%
examples = [
    (0b1001, 0b1010, 4, _("session")),
    (0b100111, 0b101010, 6, _("source 004")),
    (0b1011101, 0b1001001, 7, _("source 001")),
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
# The framed columns are the differing bits; the bottom row, $A \oplus B$, has a 1 in exactly those
# columns.
#
# ## (c) Memory and types: one instruction
#
# > *Se computa como (fp1 ^ fp2).count_ones(). En compiladores modernos con arquitectura x86-64 y banderas
# > SSE4.2+, esto no ejecuta ningún bucle: se traduce directamente en la instrucción única de silicio
# > POPCNT.* (the session)
#
# Counting bits can be done many ways. Here are the four we write ourselves, then three that come
# compiled:
#
# - **naive**: look at every bit, one at a time;
# - **Kernighan**: `x &= x - 1` clears the lowest 1-bit, so the loop runs once per 1-bit;
# - **SWAR** (*SIMD within a register*): treat the 64-bit word as 32 two-bit numbers, then 16
#   four-bit numbers, then 8 bytes, adding neighbours at each step with shifts and masks; a last
#   multiplication sums the 8 bytes into the top byte. Every step works on all the small numbers of
#   the word at once;
# - **lookup table**: 256 precomputed counts, one per byte value, and 8 lookups per word.


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
    """SWAR: add bits in pairs, nibbles, bytes, then sum the 8 bytes with one multiplication."""
    x = x - ((x >> np.uint64(1)) & M1)  # 32 counts of 2 bits
    x = (x & M2) + ((x >> np.uint64(2)) & M2)  # 16 counts of 4 bits
    x = (x + (x >> np.uint64(4))) & M4  # 8 counts of 8 bits
    return (x * H01) >> np.uint64(56)  # the sum of the 8 bytes lands in the top byte


TABLE = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)


def popcount_table(x):
    """Lookup table: split each uint64 into 8 bytes, look each up in a 256-entry table, add."""
    return TABLE[x.view(np.uint8)].reshape(-1, 8).sum(axis=1, dtype=np.uint8)


# %%
x = rng.integers(0, 2**64, size=100_000, dtype=np.uint64)
xs = [int(v) for v in x]
truth = np.array([bin(v).count("1") for v in xs])
methods = {
    _("naive bit loop (Python)"): lambda: [popcount_naive(v) for v in xs],
    _("Kernighan x &= x-1 (Python)"): lambda: [popcount_kernighan(v) for v in xs],
    "int.bit_count() (Python)": lambda: [v.bit_count() for v in xs],
    "SWAR (NumPy)": lambda: popcount_swar(x),
    _("lookup table (NumPy)"): lambda: popcount_table(x),
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
# Kernighan's loop runs once per **1-bit** (about 32 for a random number, fewer for a near pair).
# Source 004's C++ `isEqual` goes further: it only needs to know whether the distance is
# $\le n = 3$, so it stops after $n + 1$ ones:
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
    _("naive loop"): [v.bit_length() for v in d],
    "Kernighan": [v.bit_count() for v in d],
    _("Kernighan, stop after k+1 = 4"): [min(v.bit_count(), 4) for v in d],
}
for name, s in steps.items():
    print(f"{name:30s} mean {np.mean(s):5.1f} steps, worst {max(s)}")
assert [is_near(int(p), int(q), 3) for p, q in zip(a, b)] == [
    hamming(int(p), int(q)) <= 3 for p, q in zip(a, b)
]

# %% [markdown]
# Early exit bounds the work by $k + 1$ no matter how far apart the fingerprints are, which is the
# common case: almost every candidate is *not* a near-duplicate.
#
# ### The race
#
# Nanoseconds per 64-bit popcount, each of the seven methods on 100,000 values (Python loops on a
# list of ints, NumPy and Numba on a `uint64` array). Timings depend on the machine and the moment,
# so this cell's output is not checked by the tests; the order is what to look at, and the cell
# prints what this run measured.


# %% tags=["nbval-ignore-output"]
def ns_per_item(f, n_items):
    runs = timeit.repeat(f, number=1, repeat=5)
    return min(runs) / n_items * 1e9


timings = {name: ns_per_item(f, len(xs)) for name, f in methods.items()}
for name, ns in timings.items():
    print(f"{name:30s} {ns:9.2f} ns")
loops = {k: v for k, v in timings.items() if k.endswith("(Python)") and not k.startswith("int.")}  # bit loops
compiled = {k: v for k, v in timings.items() if "(Python)" not in k}
bit_count = timings["int.bit_count() (Python)"]
compiled_best = min(compiled, key=compiled.get)
print(
    f"\nin this run: the two Python bit loops took {min(loops.values()):.0f} to {max(loops.values()):.0f} ns "
    f"per number, {min(loops.values()) / max(compiled.values()):.0f}x the slowest compiled method or more;"
)
print(
    f"int.bit_count() took {bit_count:.1f} ns, {bit_count / compiled[compiled_best]:,.0f}x the fastest compiled method "
    f"({compiled_best}, {compiled[compiled_best]:.2f} ns)"
)
beaten = [k for k, v in compiled.items() if v > bit_count]
print("compiled methods slower than int.bit_count() in this run:", ", ".join(beaten) or _("none"))

# %% tags=["nbval-ignore-output"]
fig, ax = plt.subplots(figsize=(10, 4.8))
plot.benchmark_bars(
    timings,
    ax=ax,
    unit="ns per 64-bit popcount",
    highlight=["simhash_lab.popcount (Numba)"],
    title=f"{len(methods)} ways to count bits",
)
plt.show()

# %% [markdown]
# Two lessons. Whatever the algorithm, a step in the Python interpreter is what costs: the two bit
# loops written in Python, several interpreter steps per number, are the slowest bars by far.
# `int.bit_count()` counts in C, but its list comprehension still takes one interpreter step per
# number; that puts it near the NumPy methods, which make temporary arrays (the lookup table reads 8
# bytes per number through a reshaped copy), and in some runs ahead of one of them (the last line
# above says which, in this run). Moving the whole loop out of the interpreter (NumPy, Numba) is what
# gains most, by the factors printed above. Among the compiled methods the ranking depends on the
# machine and on what else it is doing: the library's `popcount` checks its input and, for long arrays, shares the work
# among threads, which pays on an idle machine with several cores and costs on a busy one. The
# counting itself is cheap once it reaches the CPU's popcount instruction, as the next cell shows.
#
# ### Seeing the instruction
#
# The library counts bits with LLVM's `ctpop` intrinsic, and Numba compiles for the CPU it runs on:
# where that CPU has the x86-64 `popcnt` instruction, LLVM emits it; on ARM it becomes `cnt`. Not
# every x86-64 CPU has `popcnt`: Intel's since Nehalem (2008) and AMD's since Barcelona (2007) do,
# but Intel sold 64-bit Atoms without it until Silvermont (2013), and the first x86-64 processors
# (2003) had none. It has a CPUID flag of its own, apart from SSE4.2's; the session's "SSE4.2+"
# names the two together because Intel brought them out together, in Nehalem. `internals.hamming_asm()` compiles
# `popcount(a ^ b)` for two `uint64` right here (the one compile of the course a cell waits for, on
# purpose: Numba cannot show the machine code of a function it loaded from its cache) and returns the
# instructions of the compiled function. The
# registers it uses can vary, so this cell is not checked by the tests:

# %% tags=["nbval-ignore-output"]
asm = internals.hamming_asm()
print(asm)
print("\none popcnt instruction:", "popcnt" in asm)

# %% [markdown]
# Five instructions on x86-64, and no loop or branch. In AT&T syntax (source first, destination
# last):
#
# | instruction | what it does |
# |---|---|
# | `xorq %rcx, %rdx` | $a \oplus b$ (the two arguments arrive in registers) |
# | `popcntq %rdx, %rax` | count its 1-bits into `%rax` |
# | `movq %rax, (%rdi)` | **store the result** where the caller asked: Numba's calling convention passes a pointer for the return value in `%rdi` |
# | `xorl %eax, %eax` | set the status code to 0, "no exception" (Numba functions return a status, the value goes through the pointer) |
# | `retq` | return |
#
# So the result is not discarded: it is stored through the pointer, and the function then returns
# "ok". The Hamming distance itself is the first two instructions.
#
# The session's Rust `(fp1 ^ fp2).count_ones()` becomes the same `xor` and `popcnt`, **if the
# compiler may use `popcnt`**. Rust's default x86-64 target assumes only the 2003 baseline
# instruction set, which has no `popcnt`; there `count_ones()` compiles to a SWAR sequence like the
# one above (shifts, masks and a multiplication). It becomes one `popcnt` when you build with
# `RUSTFLAGS="-C target-cpu=native"` (or `-C target-feature=+popcnt`, or a target level such as
# `x86-64-v2`). That is what the session's "banderas SSE4.2+" (flags) means. C and C++ compilers work
# the same way (`-mpopcnt`, `-march=native`).
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
# - $d_H(A, B) = \mathrm{popcount}(A \oplus B)$: $d_H(1001, 1010) = 2$, $d_H(100111, 101010) = 3$,
#   $d_H(1011101, 1001001) = 2$.
# - Popcount: naive loop (up to 64 steps), Kernighan (one step per 1-bit), early exit (at most
#   $k + 1$ steps), SWAR and lookup table (a few operations on the whole word), one `popcnt`
#   instruction (when the compiler targets a CPU that has it).
# - In Python, where the loop runs (the interpreter, NumPy, Numba) matters more than the algorithm.
#
# ## Questions (answer in your own words, then unfold)
#
# <details><summary><b>1.</b> Why does <code>x &amp; (x - 1)</code> clear exactly the lowest
# 1-bit?</summary>
#
# Subtracting 1 turns the lowest 1-bit into 0 and every 0 below it into 1, and leaves the bits above
# it alone. ANDing with the original keeps the bits above (equal in both), and clears the lowest 1-bit
# and the bits below it (which differ between $x$ and $x - 1$). Example: $x = 1011000$,
# $x - 1 = 1010111$, $x \mathbin{\&} (x - 1) = 1010000$.
# </details>
#
# <details><summary><b>2.</b> <code>is_near(a, b, 3)</code> takes at most 4 steps. Why is that the right
# bound for a near-duplicate test?</summary>
#
# The test only asks "is $d_H \le 3$?". After 4 ones have been cleared the answer is known to be no,
# whatever the rest of the word holds, so there is nothing more to learn. Most pairs compared are not
# near-duplicates: the block index of notebook 05 hands the check mostly *chance* candidates, pairs
# that happen to share one 16-bit block. Their other 48 bits differ like those of unrelated
# fingerprints: about half of them, 24, on random fingerprints, and somewhat fewer on real text,
# whose unrelated fingerprints differ in fewer than 32 bits of 64 (notebook 02). Either way the full
# count would run through some twenty 1-bits where stopping at $k + 1 = 4$ suffices.
# </details>
#
# <details><summary><b>3.</b> Why is the lookup table 256 entries and not $2^{64}$?</summary>
#
# A table of $2^{64}$ one-byte counts would need 16 exbibytes of memory. Popcount adds up over any
# split of the word, so a 64-bit count is the sum of 8 byte counts: a table of $2^8 = 256$ entries
# (256 bytes, which stays in the L1 cache) and 8 lookups. A 16-bit table ($2^{16}$ entries, 64 KiB)
# would need 4 lookups but no longer fits the fastest cache.
# </details>
#
# <details><summary><b>4.</b> The distance between two 64-bit fingerprints fits in a <code>u8</code>.
# Why does the library return <code>uint8</code>?</summary>
#
# A distance is between 0 and 64, so one byte holds it exactly. An array of a million distances is
# then 1 MB instead of 8 MB as `int64`: less memory, less bandwidth, and more values per cache line
# and per vector register for whatever comes next (a threshold, a histogram). It is also the dtype of
# NumPy's own `np.bitwise_count`.
# </details>
