# %% [markdown]
# # 02 · Simhash voting: the congress of 64 accumulators
#
# **Concept 2 of 4: Simhash** (Moses Charikar, 2002). We reproduce the session's hand trace of
# "rust safe fast" exactly, then the Chinese source's 6-bit example, then watch 64 accumulators fill for
# a real sentence, step through them with a widget, change the weights, and measure what the session
# says about memory.

# %%
import math
import sys
import timeit
from pydoc_data.topics import topics

import matplotlib.pyplot as plt
import numpy as np
from numba import njit

from simhash_lab import Simhasher, hamming, presets
from simhash_lab.course import animate, plot, widgets
from simhash_lab.course.plot import bit_string
from simhash_lab.kernels.vote import vote_unit  # the Numba kernel the library votes with

plot.use_course_style()
rng = np.random.default_rng(60)

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
# 1. Start 64 integer accumulators at zero: `V = [0; 64]`.
# 2. For each term t with weight w_t: compute its 64-bit hash h(t); for each bit i, if bit i of h(t)
#    is 1 then `V[i] += w_t`, else `V[i] -= w_t`.
# 3. The fingerprint F has bit i = 1 when `V[i] > 0`, else 0 (a tie gives 0).
#
# The Chinese source says the same for an f-bit signature:
#
# > 对每一个特征：用传统的hash算法对该特征产生一个f位的签名b。对于i=1到f：如果b的第i位为1，则V的第i个元素加上该特征的权重；否则，V的第i个元素减去该特征的权重。如果V的第i个元素大于0，S的第i位为1，否则为0。 (source 001)
#
# ### The session's trace, exactly
#
# The session runs "rust safe fast" with **4-bit** hashes it made up, so that you can do it on grid
# paper: h("rust") = 0011, h("safe") = 0101, h("fast") = 0111, each word weight 1. The library accepts
# made-up hashes as a dict, so we can replay it.
#
# ✏️ **On paper first**: four columns V[3] V[2] V[1] V[0], one row per word, blue pen for +1, the
# other colour for −1. Then run the next cell.

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
# Seat 3 ended at −3 (every word voted "0"), seat 0 at +3, seats 1 and 2 at +1: fingerprint `0111`.
#
# The same trace, one step at a time (press ▶ or drag the slider; it works without a kernel too):

# %%
widgets.accumulator_stepper(t)

# %% [markdown]
# With the real hash functions instead of the made-up ones, the session's two reference programs give
# these 64-bit fingerprints. `presets.SEED_RUST` is bit-exact with the Rust `Simhash::compute` (SipHash
# 1-3, Rust's `DefaultHasher`), `presets.SEED_PYTHON` with `SimhashPython` (MD5):

# %%
print("Rust   :", presets.SEED_RUST.fingerprint("rust safe fast"))
print("Python :", presets.SEED_PYTHON.fingerprint("rust safe fast"))
print(
    "Hamming:",
    hamming(
        presets.SEED_RUST.fingerprint("rust safe fast"), presets.SEED_PYTHON.fingerprint("rust safe fast")
    ),
)

# %% [markdown]
# Two correct implementations, two unrelated fingerprints: a fingerprint only means something next to
# fingerprints made by **the same** tokenizer, hash and weights. Never compare across them.
#
# ### The Chinese source's 6-bit example
#
# > 最后生成bits_count个数字，如图所示是[13, 108, -22, -5, -32, 55] ... [13,108,-22,-5,-32,55] -> 110001这个就很简单啦，正1负0。 (source 004: positive gives 1, negative gives 0)
#
# The source does not print the features and weights behind its picture, so here is a document that
# produces exactly those six sums: six keywords from the source's own first sentence ("simhash是google用來處理海量文本去重的算法"),
# each with a 6-bit hash and a weight (think TF-IDF, session 59):

# %%
keywords = {"simhash": 26.5, "google": 12.5, "海量": 12.5, "文本": 16.5, "去重": 21.5, "算法": 18.5}
hashes6 = {
    "simhash": 0b111100,
    "google": 0b110101,
    "海量": 0b010101,
    "文本": 0b011011,
    "去重": 0b110011,
    "算法": 0b010001,
}
t6 = Simhasher(bits=6, hash=hashes6).trace(keywords)
print("accumulators, written left to right from bit 5:", t6.votes[-1][::-1])
print("fingerprint:", bit_string(t6.fingerprint, 6))
assert t6.votes[-1][::-1].tolist() == [13, 108, -22, -5, -32, 55]
assert bit_string(t6.fingerprint, 6) == "110001"

# %% [markdown]
# Why are the weights not whole numbers? Write `V[i] = 2·S[i] − W`, where S[i] is the weight of the
# features with bit i set and W the total weight. If all weights were integers, every V[i] would have
# the parity of W, but 13 is odd and 108 is even. ✏️ **Check bit 5 with your calculator**: the total
# weight is W = 108; the keywords whose hash starts with 1 are simhash, google and 去重, so
# S[5] = 26.5 + 12.5 + 21.5 = 60.5 and V[5] = 2 × 60.5 − 108 = 13. Now do bit 0.
#
# ## The congress in motion: 64 accumulators, a real sentence
#
# Now the real thing: 64-bit hashes (the library's default hash function) of the words of the first lines of *The Zen of Python*.
# Repeated words ("is", "better", "than") vote once per occurrence: their weight is their count (TF).
# Top: the current word's 64 hash bits (blue = 1). Middle: the accumulators, blue above zero,
# vermillion at or below. Bottom: the fingerprint so far (pale), lit when every word has voted.

# %%
zen = "Beautiful is better than ugly. Explicit is better than implicit. Simple is better than complex."
h = Simhasher()  # 64 bits, words, TF weights, XXH3-64
tz = h.trace(zen)
print(len(tz), "distinct words and their weights:", {f: int(w) for f, w in zip(tz.features, tz.weights)})

# %%
anim = animate.accumulators(tz)
animate.show(anim, "zen-accumulators")

# %% [markdown]
# Watch a single seat through the film: most seats swing a few times and end within ±5 of zero, so one
# changed word (weight 1, moving a seat by 2) can only flip the seats that end at −1, 0 or +1. Step
# through the same votes as numbers (▲: this word votes +w on that seat, ▼: −w):

# %%
widgets.accumulator_stepper(tz)

# %%
print("fingerprint      :", bit_string(tz.fingerprint, 64, group=16))
print("library agrees   :", h.fingerprint(zen) == tz.fingerprint)
print("seats at |V| <= 1:", int((np.abs(tz.votes[-1]) <= 1).sum()), "of 64  (the fragile ones)")

# %% [markdown]
# ## Weights: counts (TF) or IDF
#
# With TF weights, "is", "the", "of" vote as loudly as the words that carry meaning, and every English
# text shares them: unrelated documents look more alike than they are. Session 59's IDF,
# `idf(t) = ln(N / df(t))`, turns them down. We compare on the paragraphs of Python's reference manual:
# pairs of **unrelated** paragraphs, and paragraphs with **3 words replaced**.

# %%
paras = [
    " ".join(p.split()) for t_ in topics.values() for p in t_.split("\n\n") if 40 <= len(p.split()) <= 150
]
N = len(paras)
df = {}
for p in paras:
    for w in set(h.features(p)):
        df[w] = df.get(w, 0) + 1
idf = {w: math.log(N / d) for w, d in sorted(df.items())}
print("idf:", {w: round(idf[w], 2) for w in ["the", "is", "of", "expression", "generator", "metaclass"]})

# %%
vocab = sorted(df)


def replace3(p):
    w = p.split()
    for k in rng.choice(len(w), 3, replace=False):
        w[k] = vocab[int(rng.integers(len(vocab)))]
    return " ".join(w)


i, j = rng.integers(N, size=(2, 400))
i, j = i[i != j], j[i != j]
A = [paras[k] for k in i]
B = [paras[k] for k in j]
E = [replace3(a) for a in A]
tfidf = Simhasher(weights=idf, default_weight=math.log(N))  # every occurrence votes idf(t): TF x IDF
dist = {
    name: (hamming(s.fingerprints(A), s.fingerprints(B)), hamming(s.fingerprints(A), s.fingerprints(E)))
    for name, s in [("TF", h), ("TF-IDF", tfidf)]
}

# %%
fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), sharey=True)
for ax, (name, (unrel, edited)) in zip(axes, dist.items()):
    bins = np.arange(-0.5, 48.5, 1)
    ax.hist(
        edited, bins=bins, color=plot.POS, alpha=0.7, label=f"3 words replaced (mean {edited.mean():.1f})"
    )
    ax.hist(unrel, bins=bins, color=plot.NEG, alpha=0.7, label=f"unrelated (mean {unrel.mean():.1f})")
    ax.axvline(32, color="black", linestyle="--", linewidth=1.2, label="32: two random numbers")
    ax.set_title(f"{name} weights")
    ax.set_xlabel("Hamming distance (bits of 64)")
    ax.legend(loc="upper right")
axes[0].set_ylabel("pairs of paragraphs")
fig.tight_layout()
plt.show()

# %% [markdown]
# With TF, unrelated paragraphs sit well below 32 bits: the shared function words pull them together.
# IDF moves them to ~32, where unrelated should be. The price: a replaced *rare* word now weighs a lot,
# so edits move further too. Weighting decides what "similar" means; choose it for your data (the
# practice notebook, 06, measures precision and recall).
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
# So the loop matters. The session's Python reference votes with a list and a bit loop; the library's
# Numba kernel `vote_unit` keeps 64 `int64` counts in one small array and compiles the loop to machine
# code. Same votes, first checked equal, then timed (the hashes are the distinct words of the whole
# manual):


# %%
def vote_python(hashes):
    """The session's SimhashPython loop: a list of 64 ints, one Python step per bit."""
    v = [0] * 64
    for hh in hashes:
        for b in range(64):
            v[b] += 1 if (hh >> b) & 1 else -1
    return v


hs = h.trace(" ".join(paras)).hashes  # uint64 hashes of every distinct word
hs_list = [int(x) for x in hs]
S = vote_unit(hs, len(hs))  # the kernel counts 1-bits: V = 2 S - n
assert vote_python(hs_list) == (2 * S - len(hs)).tolist()
print(len(hs), "hashes voted; the two loops agree on all 64 accumulators")


# %% tags=["nbval-ignore-output"]
def best(f, number):
    return min(timeit.repeat(f, number=number, repeat=5)) / number


t_py = best(lambda: vote_python(hs_list), 3)
t_nb = best(lambda: vote_unit(hs, len(hs)), 200)
print(f"Python list loop: {t_py * 1e3:8.2f} ms")
print(f"Numba vote_unit : {t_nb * 1e3:8.3f} ms   ({t_py / t_nb:,.0f}x faster)")

# %% [markdown]
# (Timings vary from machine to machine and run to run; this cell is not checked by the tests. Expect
# the compiled loop to be two to three orders of magnitude faster.)
#
# ## (d) The junior mistake
#
# > *Usar un vector dinámico Vec<i64> en el Heap para los 64 enteros, introduciendo costos innecesarios
# > de reserva dinámica (malloc/free).* (the session)
#
# The costly version allocates on the heap in the hot loop. Here are two Numba loops that differ only
# in *where* the 64-element scratch array is allocated: once per document, or once per token.


# %%
@njit(cache=False)
def vote_alloc_once(hashes):
    v = np.zeros(64, np.int64)
    step = np.empty(64, np.int64)  # one allocation per call: the [i64; 64] of the session
    for hh in hashes:
        for b in range(64):
            step[b] = 1 if (hh >> np.uint64(b)) & np.uint64(1) else -1
        v += step
    return v


@njit(cache=False)
def vote_alloc_per_token(hashes):
    v = np.zeros(64, np.int64)
    for hh in hashes:
        step = np.empty(64, np.int64)  # the junior mistake: malloc (and free) for every token
        for b in range(64):
            step[b] = 1 if (hh >> np.uint64(b)) & np.uint64(1) else -1
        v += step
    return v


assert (vote_alloc_once(hs) == 2 * S - len(hs)).all() and (vote_alloc_per_token(hs) == 2 * S - len(hs)).all()

# %% tags=["nbval-ignore-output"]
t_once = best(lambda: vote_alloc_once(hs), 200)
t_each = best(lambda: vote_alloc_per_token(hs), 200)
fig, ax = plt.subplots(figsize=(9, 3.6))
plot.benchmark_bars(
    {
        "Python list loop": t_py * 1e6,
        "Numba, array per token (heap)": t_each * 1e6,
        "Numba, array once per call": t_once * 1e6,
        "library vote_unit (SWAR)": t_nb * 1e6,
    },
    ax=ax,
    unit=f"µs to vote {len(hs)} hashes",
    highlight=["Numba, array per token (heap)"],
)
plt.show()

# %% [markdown]
# Same answers; the only difference between the middle two bars is the allocation in the loop (exact
# sizes depend on the machine; the library's kernel adds a bit-parallel trick, counting 8 bits per add). The lesson carries to
# any language: the 64 counters are a fixed-size, per-call scratchpad; put them where allocation is
# free (the stack in Rust, one array per document in Numba/NumPy), never in the per-token loop.
#
# ## Summary
#
# - Each feature votes ±w on every one of the 64 seats by its hash bits; a seat keeps 1 when its sum is
#   positive. The library's trace reproduces the session's "rust safe fast" frames and the source's
#   [13, 108, −22, −5, −32, 55] → 110001 exactly.
# - Fingerprints from different tokenizers, hashes or weights are not comparable.
# - Weights decide what "similar" means: TF lets function words dominate; IDF turns them down.
# - 64 `i64` counters are 512 bytes: keep them off the allocator and out of Python objects.
#
# ## Questions (answer in your own words)
#
# 1. Why does a tie (`V[i] = 0`) give 0, and would it matter if it gave 1?
# 2. A document has one word repeated 100 times and 10 other words once. What is its fingerprint?
# 3. Why can one changed word only flip seats whose final |V[i]| is at most its weight?
# 4. Why must two systems that compare fingerprints agree on the tokenizer, the hash and the weights?
