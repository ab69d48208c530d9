# %% [markdown]
# # 02 · Simhash voting: the congress of 64 accumulators
#
# **Concept 2 of 4: Simhash** (Moses Charikar, 2002). We reproduce the session's hand trace of
# "rust safe fast" exactly, then source 004's 6-bit example (and settle how to read its bits),
# then watch 64 accumulators fill for a real sentence, find which of them one changed word can flip,
# change the weights, and measure what the session says about memory.

# %%
import inspect
import sys
import timeit

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Code

from simhash_lab import Simhasher, hamming, presets
from simhash_lab.course import animate, experiments, internals, plot
from simhash_lab.course.plot import bit_string

plot.use_course_style()

# %% [markdown]
# ## (a) Intuition
#
# > *Imagina que cada palabra de tu documento vota en un congreso de 64 miembros. Si la palabra tiene el
# > bit 5 encendido, vota "+1"; si lo tiene apagado, vota "-1". Si la palabra se repite mucho, su voto
# > vale el doble o el triple. Al final, si la suma total de votos en la banca 5 es positiva, la banca se
# > queda con un 1; si es negativa o cero, se queda con un 0.* (the session)
#
# Every word has a 64-bit hash: a random-looking yes/no opinion on each of 64 seats. Each seat tallies
# the votes of all the words and keeps the majority. Change one word of a hundred, and only the seats
# whose vote was nearly tied can change: that is why similar documents get similar fingerprints.
#
# ## (b) Definition, step by step
#
# 1. Start 64 integer accumulators at zero: $V = (0, 0, \dots, 0)$, in Rust `[0i64; 64]`.
# 2. For each term $t$ with weight $w_t$, compute its 64-bit hash $h(t)$; for each bit $i$, if bit $i$
#    of $h(t)$ is 1 then $V_i \mathrel{+}= w_t$, else $V_i \mathrel{-}= w_t$. In one line:
#    $V_i = \sum_t w_t \, (2\,h_i(t) - 1)$, where $h_i(t) \in \{0, 1\}$ is bit $i$ of $h(t)$.
# 3. The fingerprint $F$ has bit $i$ set when $V_i > 0$, and clear otherwise (a tie, $V_i = 0$,
#    gives 0): $F = \sum_i [V_i > 0] \, 2^i$.
#
# Source 001 says the same for an $f$-bit signature:
#
# > 对每一个特征: 用传统的hash算法对该特征产生一个f位的签名b. 对于i=1tof: 如果b的第i位为1,则 v⃗ S加上该特征的权重 否则,v⃗ 的第i个元素减去该特征的权重 如果v⃗ 的第i个元素大于0, S 的第i位为1,否则为0 (source 001)
#
# "For each feature, make an $f$-bit signature $b$ with a conventional hash; for $i = 1$ to $f$, if
# bit $i$ of $b$ is 1, add the feature's weight to element $i$ of $\vec v$, otherwise subtract it;
# bit $i$ of the signature $S$ is 1 if element $i$ of $\vec v$ is above 0, else 0." (The scraped
# text has lost a few characters: "i=1tof" is "i = 1 to f", and "v⃗ S加上" stands for
# "v⃗ 的第i个元素加上", adds to element $i$ of $\vec v$.)
#
# ### The session's trace, exactly
#
# The session runs "rust safe fast" with **4-bit** hashes it made up, so that you can do it on grid
# paper: h("rust") = 0011, h("safe") = 0101, h("fast") = 0111, each word weight 1. The library accepts
# made-up hashes as a dict, so we can replay it.
#
# ✏️ **On paper first**: four columns $V_3$, $V_2$, $V_1$, $V_0$, one row per word, blue pen for $+1$, the
# other colour for $-1$. Then run the next cell.

# %%
toy = Simhasher(bits=4, hash={"rust": 0b0011, "safe": 0b0101, "fast": 0b0111})
t = toy.trace("rust safe fast")
for j, (word, hw) in enumerate(zip(t.features, t.hashes), start=1):
    moves = ", ".join(
        f"v[{i}] {'+=' if (int(hw) >> i) & 1 else '-='} 1 ({t.votes[j, i]:+.0f})" for i in range(4)
    )
    print(f'"{word}": h = ...{bit_string(hw, 4)}   {moves}')
print("fingerprint:", bit_string(t.fingerprint, 4), f"(0x...{t.fingerprint:x})")

# %%
assert t.votes.tolist() == [
    [0, 0, 0, 0],
    [1, 1, -1, -1],
    [2, 0, 0, -2],
    [3, 1, 1, -3],
]  # the session's frames
assert t.fingerprint == 0b0111  # "Huella resultante u64: ...0111 (0x...7)"

# %% [markdown]
# Both asserts hold: the library computes, frame by frame, what the session wrote by hand. In pictures
# (hashes on the left, the accumulators after each word on the right; most significant bit on the
# left, as binary numbers are written):

# %%
fig, axes = plt.subplots(1, 4, figsize=(15, 3.4), gridspec_kw={"width_ratios": [1.3, 1, 1, 1]})
plot.bit_rows(
    [(f"h({w})", int(x)) for w, x in zip(t.features, t.hashes)] + [("F", t.fingerprint)],
    4,
    ax=axes[0],
    title="hashes and fingerprint",
)
for j, ax in enumerate(axes[1:], start=1):
    plot.accumulator_bars(
        t.votes[j], ax=ax, ylim=3.5, highlight_bits=int(t.hashes[j - 1]), title=f'after "{t.features[j - 1]}"'
    )
    ax.set_xlabel("bit i")
fig.tight_layout()
plt.show()

# %% [markdown]
# Seat 3 ended at $-3$ (every word voted "0"), seat 0 at $+3$, seats 1 and 2 at $+1$: fingerprint `0111`.
#
# The same trace as an animation. As the notebook opens it plays by itself (an animated picture);
# once you run the cell, ▶ and the slider let you stop on any step. Each frame outlines in orange how
# far every bar just moved, and frames the fingerprint bits that changed in that step:

# %%
animate.show(animate.accumulators(t), description="after")

# %% [markdown]
# With the real hash functions instead of the made-up ones, the session's two reference programs give
# these 64-bit fingerprints. `presets.SEED_RUST` gives what the session's Rust `Simhash::compute`
# gives: that program hashes each word with Rust's `DefaultHasher`, which is today SipHash 1-3 with
# zero keys (SipHash is a keyed hash built against hash-flooding attacks on hash tables; "1-3" means
# one mixing round per 8-byte block of input and three at the end). Rust's documentation leaves
# `DefaultHasher`'s algorithm unspecified, so a later Rust release may change it, and with it every
# fingerprint the Rust program makes; this course's tests compile the session's program with the
# installed `rustc` and compare (`tests/lib/test_presets.py`). `presets.SEED_PYTHON` gives what
# `SimhashPython` gives, hashing each word with MD5:

# %%
fp_rust = presets.SEED_RUST.fingerprint("rust safe fast")
fp_python = presets.SEED_PYTHON.fingerprint("rust safe fast")
print("Rust   :", fp_rust)
print("Python :", fp_python)
print("Hamming:", hamming(fp_rust, fp_python))

# %% [markdown]
# Two correct implementations, two unrelated fingerprints: a fingerprint only means something next to
# fingerprints made by **the same** tokenizer, hash and weights. Never compare across them.
#
# ### Source 004's 6-bit example, and which way to read its bits
#
# > 最后生成bits_count個數字，如圖所示是[13, 108, -22, -5, -32, 55] ... [13,108,-22,-5,-32,55] -> 110001這個就很簡單啦，正1負0。 (source 004: "finally bits_count numbers come out, in the figure [13, 108, -22, -5, -32, 55] ... this is very simple: positive gives 1, negative 0")
#
# The source does not print the features and weights behind its picture, so here is a document that
# produces exactly those six sums: six keywords from the source's own first sentence
# ("simhash是google用來處理海量文本去重的算法"), each with a 6-bit hash and a weight (think TF-IDF,
# session 59). The list is $V$ in index order, $V_0$ first, as the source's code builds it:

# %%
keywords = {"simhash": 26.5, "google": 12.5, "海量": 12.5, "文本": 16.5, "去重": 21.5, "算法": 18.5}
hashes6 = {
    "simhash": 0b001111,
    "google": 0b101011,
    "海量": 0b101010,
    "文本": 0b110110,
    "去重": 0b110011,
    "算法": 0b100010,
}
t6 = Simhasher(bits=6, hash=hashes6).trace(keywords)
V6 = t6.votes[-1]
signs_in_list_order = "".join("1" if v > 0 else "0" for v in V6)
print("V[0], V[1], ..., V[5]       :", V6.tolist())
print("signs in the list's order   :", signs_in_list_order, "  (V[0] first, as the source writes it)")
print(
    "the fingerprint, as a number:", t6.fingerprint, "= 0b" + bit_string(t6.fingerprint, 6), "(bit 5 first)"
)
assert V6.tolist() == [13, 108, -22, -5, -32, 55]
assert signs_in_list_order == "110001" and t6.fingerprint == 0b100011 == 35

# %% [markdown]
# Both strings are the same six bits. The source writes the signs **in the order of its list**,
# $V_0$ first: `110001`. A binary numeral is written the other way round, most significant bit
# first, so bit 0 comes **last**: the fingerprint, as an integer, is `0b100011` = 35. The library, the
# session's Rust (`fingerprint |= 1 << i` when `v[i] > 0`) and Python, and the `simhash` package all
# give bit $i$ from $V_i$, so for all of them this fingerprint is 35. Reading `110001` as the binary
# number 49 is the junior mistake (the exercise for this notebook asks for both readings).
#
# Why are the weights not whole numbers? Write $V_i = 2 S_i - W$, where $S_i$ is the weight of the
# features with bit $i$ set and $W$ the total weight. If all weights were integers, every $V_i$
# would have the parity of $W$, but 13 is odd and 108 is even. ✏️ **Check bit 0 with your
# calculator**: the total weight is $W = 108$; the keywords whose hash has bit 0 set are simhash,
# google and 去重, so $S_0 = 26.5 + 12.5 + 21.5 = 60.5$ and $V_0 = 2 \times 60.5 - 108 = 13$. Now do
# bit 5.
#
# <details><summary>Bit 5, worked</summary>
#
# Bit 5 is set in the hashes of google, 海量, 文本, 去重 and 算法 (all but simhash), so
# $S_5 = 12.5 + 12.5 + 16.5 + 21.5 + 18.5 = 81.5$ and $V_5 = 2 \times 81.5 - 108 = 55$: positive, bit 5
# is 1, the leading 1 of `0b100011`.
# </details>
#
# ## The congress in motion: 64 accumulators, a real sentence
#
# Now the real thing: 64-bit hashes of the words of the first lines of *The Zen of Python*, made by
# the library's default hash function, XXH3 (the 64-bit hash of the xxHash family: not
# cryptographic, but fast and well mixed, so that each bit of a word's hash is a fair coin across
# words). Repeated words ("is", "better", "than") vote once per
# occurrence: their weight is their count (TF). Top: the current word's 64 hash bits (blue = 1).
# Middle: the accumulators, blue above zero, vermillion at or below, the move of this step outlined in
# orange. Bottom: the fingerprint so far (pale), its bits that just changed framed in orange, and lit
# when every word has voted.

# %%
zen = "Beautiful is better than ugly. Explicit is better than implicit. Simple is better than complex."
h = Simhasher()  # 64 bits, words, TF weights, XXH3-64
tz = h.trace(zen)
print(len(tz), "distinct words and their weights:", {f: int(w) for f, w in zip(tz.features, tz.weights)})

# %%
animate.show(animate.accumulators(tz), description="after")

# %%
V = tz.votes[-1]
print("fingerprint     :", bit_string(tz.fingerprint, 64, group=16))
print("library agrees  :", h.fingerprint(zen) == tz.fingerprint)
print("accumulators    : from", int(V.min()), "to", int(V.max()))

# %% [markdown]
# ## Which seats can one changed word flip?
#
# Replace one word (weight 1) by another. Every accumulator loses the old word's vote ($\pm 1$) and
# gains the new word's ($\pm 1$), so $V_i$ moves by $-2$, $0$ or $+2$. A bit flips from 1 to 0 only
# if $V_i > 0$ and $V_i - 2 \le 0$, that is $V_i \in \{1, 2\}$; from 0 to 1 only if $V_i \le 0$ and
# $V_i + 2 > 0$, that is $V_i \in \{-1, 0\}$. So **one replaced word of weight 1 can flip only the
# seats at $-1$, $0$, $1$ or $2$**; the asymmetry comes from the tie rule ($V_i = 0$ gives 0). (A
# deleted or inserted word moves every seat by $\pm 1$ and can flip only the seats at 0 or 1; a word
# of weight $w$ replaced by one of weight $w$ moves them by $-2w$, $0$ or $+2w$.)
#
# Measured on every paragraph of 40 to 150 words of Python's reference manual (the real text of
# this course; it ships with Python as `pydoc_data.topics`), one random word of each replaced by a
# random word of the manual: the value of $V_i$, before the edit, of every bit that flipped.

# %%
docs = experiments.paragraphs()  # 40 to 150 words each
before, flips = experiments.flipped_accumulators(h, docs, seed=60)
values, counts = np.unique(before, return_counts=True)
print(
    f"{len(flips)} edits flipped {flips.sum()} bits in all ({flips.mean():.2f} per edit, at most {flips.max()})"
)
print("V[i] before the edit, of the flipped bits:", dict(zip(values.astype(int).tolist(), counts.tolist())))
assert set(values) <= {-1, 0, 1, 2}

# %%
fragile = np.isin(V, [-1, 0, 1, 2])
print(f"zen: {fragile.sum()} of 64 seats are at -1, 0, 1 or 2: the only ones one replaced word can flip")

# %% [markdown]
# Every flipped bit sat at $-1$, $0$, $1$ or $2$, as the argument says, and never anywhere else. (With
# integer weights every $V_i$ has the parity of the total weight $W$, so in one document the fragile
# seats are either those at $-1$ and $1$, or those at $0$ and $2$.) A long document has most seats far
# from zero, so few are fragile: that is why an edit moves few bits.
#
# ## Weights: counts (TF) or IDF
#
# With TF weights, "is", "the", "of" vote as loudly as the words that carry meaning, and every English
# text shares them. Session 59's IDF, $\mathrm{idf}(t) = \ln(N / \mathrm{df}(t))$ ($N$ documents,
# $\mathrm{df}(t)$ of them contain $t$), turns them down. We compare on the paragraphs of Python's
# reference manual: 400 pairs of **unrelated** paragraphs, and each pair's first paragraph against a
# copy with **3 words replaced**.

# %%
idf = experiments.idf(h, docs)
print("idf:", {w: round(idf[w], 2) for w in ["the", "is", "of", "expression", "generator", "metaclass"]})
tfidf = Simhasher(weights=idf, default_weight=np.log(len(docs)))  # every occurrence votes idf(t)
dist = experiments.weighting_distances({"TF": h, "TF-IDF": tfidf}, docs, n_pairs=400, replaced=3, seed=60)

# %%
plot.distance_hists(dist)
plt.show()
for name, (unrelated, edited) in dist.items():
    print(
        f"{name:6s}: unrelated pairs differ in {unrelated.mean():.1f} bits on average, edited copies in {edited.mean():.1f}"
    )
assert dist["TF"][0].mean() < dist["TF-IDF"][0].mean() <= 32 + 2

# %% [markdown]
# Two random 64-bit numbers differ in 32 bits on average. Unrelated paragraphs with TF weights differ
# in fewer (the means are printed above): they are **not** independent. A document is a vector with
# one coordinate per word (its count), and the fingerprint distance measures the angle between two
# such vectors (notebook 04 proves $E[d_H] = 64\,\theta/\pi$). Two things pull that angle below 90°,
# where 32 bits would be:
#
# - every English paragraph uses "the", "is", "of", "a", and those shared words are the heaviest
#   coordinates of both vectors, so their dot product is large;
# - counts are never negative, so the dot product of two documents is never negative either: their
#   angle is at most 90°, whatever they say. Two texts reach 90° only when they share no word at
#   all, and never pass it.
#
# IDF gives the words found everywhere a weight near zero, so what remains is the content words, which
# unrelated paragraphs do not share: their angle moves towards 90° and their distance towards 32. The
# price: a replaced *rare* word now weighs a lot, so edits move further too. Weighting decides what
# "similar" means; choose it for your data (notebook 06 measures precision and recall).
#
# ## (c) Memory and types
#
# > *El acumulador v: [i64; 64] se aloja en el Stack (512 bytes), aprovechando los registros vectoriales
# > del procesador. La huella final es un primitivo u64 que cabe en un registro de propósito general.*
# > (the session)
#
# In Rust, `[i64; 64]` is 64 signed 8-byte integers side by side: 512 bytes in the function's stack
# frame, no allocator involved, and the bit loop becomes vector instructions. The result is one `u64`.
# Python has no such thing: a list holds 64 *pointers* to int objects on the heap.

# %%
v_rust_like = np.zeros(64, dtype=np.int64)
v_python = [0] * 64
print("int64 array :", v_rust_like.nbytes, "bytes of data, contiguous, one machine type")
print(
    "Python list :",
    sys.getsizeof(v_python),
    "bytes of pointers, plus an int object per value",
    f"(an int like 10**6 is {sys.getsizeof(10**6)} bytes)",
)

# %% [markdown]
# So the loop matters. The session's Python reference votes with a list and a bit loop. The library
# votes with a compiled loop (Numba) that keeps its counts in machine integers, and it counts **eight
# bits per addition**: it adds `(h >> j) & 0x0101010101010101` into a 64-bit counter, whose eight
# bytes then count bits $j$, $8 + j$, ..., $56 + j$ side by side, so eight such counters (for
# $j = 0 \dots 7$) cover all 64 bits of a hash in eight additions. Treating the bytes of one machine
# word as eight small independent numbers is called **SWAR**, *SIMD within a register*; notebook 03
# uses the same trick to count bits. A byte counts only up to 255, so the loop never lets one count
# further: after every 255 hashes it adds (*flushes*) the eight bytes of each counter into 64
# ordinary `int64` counts, sets its byte counters back to zero, and goes on; the last flush takes
# the hashes that are left. `internals.vote_counts` is that compiled loop (it returns the counts $S_i$;
# the accumulators are $V_i = 2 S_i - n$ with unit weights). Same votes, first checked equal (the
# hashes are the distinct words of the whole manual, so the cell also prints how many flushes they
# took), then timed:


# %%
def vote_python(hashes):
    """The session's SimhashPython loop: a list of 64 ints, one Python step per bit."""
    v = [0] * 64
    for hh in hashes:
        for b in range(64):
            v[b] += 1 if (hh >> b) & 1 else -1
    return v


hs = h.trace(" ".join(docs)).hashes  # uint64 hashes of every distinct word
hs_list = [int(x) for x in hs]
S = internals.vote_counts(hs)  # how many hashes have bit i set
assert vote_python(hs_list) == (2 * S - len(hs)).tolist()
full, rest = divmod(len(hs), 255)
print(
    _(f"{len(hs):,} hashes voted in {full} flushes of 255 hashes")
    + (_(f" and one of {rest}") if rest else ""),
    "; the two loops agree on all 64 accumulators",
    sep="",
)
ones = np.full(1000, 2**64 - 1, dtype=np.uint64)  # 1,000 hashes with every bit set
assert (internals.vote_counts(ones) == 1000).all()  # counts past 255 are right: the flushes work


# %% tags=["nbval-ignore-output"]
def best(f, number):
    return min(timeit.repeat(f, number=number, repeat=5)) / number


t_py = best(lambda: vote_python(hs_list), 3)
t_nb = best(lambda: internals.vote_counts(hs), 200)
ratio = t_py / t_nb
print(f"Python list loop          : {t_py * 1e3:9.3f} ms")
print(f"library's compiled (SWAR) : {t_nb * 1e3:9.3f} ms")
print(f"in this run the compiled loop was {ratio:,.0f}x faster: {np.log10(ratio):.1f} orders of magnitude")

# %% [markdown]
# (Timings vary from machine to machine and from run to run, so this cell's output is not checked
# by the tests; the line above is what this run measured.)
#
# ## (d) The junior mistake
#
# > *Usar un vector dinámico Vec<i64> en el Heap para los 64 enteros, introduciendo costos innecesarios
# > de reserva dinámica (malloc/free).* (the session)
#
# The costly version allocates on the heap in the hot loop. The course's library has two compiled
# loops that differ only in *where* the 64-element scratch array is allocated: once per document, or
# once per token. Here is the second one:

# %%
Code(inspect.getsource(internals.vote_alloc_per_token), language="python")

# %%
V_all = 2 * S - len(hs)
assert (internals.vote_alloc_once(hs) == V_all).all() and (internals.vote_alloc_per_token(hs) == V_all).all()

# %% tags=["nbval-ignore-output"]
t_once = best(lambda: internals.vote_alloc_once(hs), 200)
t_each = best(lambda: internals.vote_alloc_per_token(hs), 200)
fig, ax = plt.subplots(figsize=(9, 3.6))
plot.benchmark_bars(
    {
        _("Python list loop"): t_py * 1e6,
        _("compiled, array per token (heap)"): t_each * 1e6,
        _("compiled, array once per call"): t_once * 1e6,
        _("library's loop (SWAR)"): t_nb * 1e6,
    },
    ax=ax,
    unit=f"µs to vote {len(hs)} hashes",
    highlight=[_("compiled, array per token (heap)")],
)
plt.show()
print(f"allocating per token cost {t_each / t_once:.1f}x the one allocation per call, in this run")

# %% [markdown]
# Same answers; the only difference between the middle two bars is the allocation in the loop (the
# ratio printed above is this run's). The lesson carries to any language: the 64 counters are a
# fixed-size, per-call scratchpad; put them where allocation is free (the stack in Rust, one array per
# document in Numba or NumPy), never in the per-token loop.
#
# ## Summary
#
# - Each feature votes $\pm w$ on every one of the 64 seats by its hash bits; a seat keeps 1 when its
#   sum is positive. The library's trace reproduces the session's "rust safe fast" frames and the
#   source's $[13, 108, -22, -5, -32, 55]$ exactly: `110001` in the list's order, the integer 35.
# - One replaced word of weight 1 can flip only the seats at $-1$, $0$, $1$ or $2$.
# - Fingerprints from different tokenizers, hashes or weights are not comparable.
# - Weights decide what "similar" means: TF lets shared function words pull unrelated texts together
#   (and non-negative counts never pass 90°); IDF turns them down.
# - 64 `i64` counters are 512 bytes: keep them off the allocator and out of Python objects.
#
# ## Questions (answer in your own words, then unfold)
#
# <details><summary><b>1.</b> Why does a tie (<code>V[i] = 0</code>) give 0, and would it matter if it
# gave 1?</summary>
#
# A rule is needed because an even total weight can leave a seat at exactly 0; the session picks 0
# ("si es negativa o cero, se queda con un 0"). Either choice works if everyone uses the same one:
# a tie is a coin flip about that bit. It matters for compatibility (fingerprints made with the other
# rule differ in every tied bit, so they are not comparable) and, slightly, for which seats are
# fragile: with "0 gives 0" one replaced word can flip the seats at $-1, 0, 1, 2$; with "0 gives 1",
# those at $-2, -1, 0, 1$.
# </details>
#
# <details><summary><b>2.</b> A document has one word repeated 100 times and 10 other words once. What
# is its fingerprint?</summary>
#
# The repeated word's hash. On every seat it votes $\pm 100$ and the ten others together at most
# $\pm 10$, so every $V_i$ has the sign of the repeated word's vote: bit $i$ is bit $i$ of its hash.
# With TF weights one frequent word can dominate a short document, one more reason for IDF (or
# binary weights).
# </details>
#
# <details><summary><b>3.</b> Which seats can one replaced word of weight 1 flip, and why not
# others?</summary>
#
# Only those at $V_i \in \{-1, 0, 1, 2\}$ before the edit. Removing the old word and adding the new one
# moves every $V_i$ by $-2$, $0$ or $+2$; a 1 becomes a 0 only from $V_i = 1$ or $2$ (a move of $-2$),
# a 0 becomes a 1 only from $V_i = -1$ or $0$ (a move of $+2$). Measured above: every flipped bit was
# at one of those four values.
# </details>
#
# <details><summary><b>4.</b> Why must two systems that compare fingerprints agree on the tokenizer,
# the hash and the weights?</summary>
#
# A fingerprint is meaningful only as a set of votes over the *same* random hyperplanes: the hash
# function defines them (notebook 04), the tokenizer defines which features vote, the weights how
# loudly. Change any of the three and the same text gets an unrelated fingerprint, as the session's
# Rust and Python programs showed above for "rust safe fast": the distance between fingerprints then
# says nothing about the texts.
# </details>
