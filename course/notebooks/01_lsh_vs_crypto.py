# %% [markdown]
# # 01 · LSH vs cryptographic hashes: the avalanche effect
#
# **Concept 1 of 4: Locality-Sensitive Hashing (LSH).** We measure the avalanche effect on hundreds of
# real edits, state what "locality-sensitive" means precisely, look at what a fingerprint costs in
# memory, and end with the junior mistake.

# %%
import hashlib
from pydoc_data.topics import topics  # real English text that ships with Python

import matplotlib.pyplot as plt
import numpy as np

from simhash_lab import Simhasher, hamming, hyperplane_signatures, is_near
from simhash_lab.course import plot
from simhash_lab.course.plot import bit_string

plot.use_course_style()
rng = np.random.default_rng(60)  # session 60: every random choice below is reproducible

# %% [markdown]
# ## (a) Intuition
#
# > *En las funciones hash comunes (como SHA-256 o MD5), si cambias una sola letra en un libro de 500
# > páginas, el código resultante cambia de forma salvaje e irreconocible (efecto avalancha). LSH busca
# > exactamente lo opuesto.* (the session)
#
# A cryptographic hash is designed so that **any** change flips each output bit with probability ½:
# the two hashes look like two unrelated random numbers. That is what makes it good for passwords and
# file integrity, and useless for "is this *almost* the same document?". LSH wants the opposite: close
# inputs, close codes.
#
# Let us see it on one sentence first.

# %%
a = "Assert statements are a convenient way to insert debugging assertions into a program."
b = "Assert statements are a convenient way to insert debugging assertions into a program!"


def md5(s):
    return int.from_bytes(hashlib.md5(s.encode()).digest(), "big")


print("MD5  a:", f"{md5(a):032x}")
print("MD5  b:", f"{md5(b):032x}")
print("MD5 bits that differ:", (md5(a) ^ md5(b)).bit_count(), "of 128")

# %%
h = Simhasher()  # 64-bit Simhash over words
print("Simhash a:", bit_string(h.fingerprint(a), 64, group=16))
print("Simhash b:", bit_string(h.fingerprint(b), 64, group=16))
print("Simhash bits that differ:", hamming(h.fingerprint(a), h.fingerprint(b)), "of 64")

# %% [markdown]
# The full stop became an exclamation mark. MD5 changed about half its bits. Simhash changed none: it
# reads *words*, and the words did not change. One sentence proves nothing, so let us measure.
#
# ## The experiment: hundreds of real edits
#
# The paragraphs of Python's own reference manual (`pydoc_data.topics`, shipped with every Python) are
# our documents. We make four kinds of small edit, each at a random place:

# %%
paras = [p for t in topics.values() for p in t.split("\n\n") if 40 <= len(p.split()) <= 150]
vocab = sorted({w for p in paras for w in p.split() if w.isalpha()})


def edit(text, kind):
    """One small edit at a random place (kinds: char, word, delete, comma)."""
    w = text.split()
    i = int(rng.integers(len(w)))
    if kind == "char":  # one letter changed
        j = int(rng.integers(len(w[i])))
        w[i] = w[i][:j] + ("x" if w[i][j] != "x" else "y") + w[i][j + 1 :]
    elif kind == "word":  # one word replaced by another
        w[i] = vocab[int(rng.integers(len(vocab)))]
    elif kind == "delete":  # one word deleted
        del w[i]
    else:  # a comma added
        w[i] = w[i] + ","
    return " ".join(w)


print(len(paras), "paragraphs,", len(vocab), "distinct words")

# %%
kinds = ["char", "word", "delete", "comma"]
pairs = [(" ".join(p.split()), kind) for p in paras[::2] for kind in kinds]
originals = [p for p, _ in pairs]
edited = [edit(p, kind) for p, kind in pairs]


def sha256(s):
    return int.from_bytes(hashlib.sha256(s.encode()).digest(), "big")


flips = {
    "MD5 (128 bits)": np.array([(md5(x) ^ md5(y)).bit_count() / 128 for x, y in zip(originals, edited)]),
    "SHA-256 (256 bits)": np.array(
        [(sha256(x) ^ sha256(y)).bit_count() / 256 for x, y in zip(originals, edited)]
    ),
    "Simhash (64 bits)": hamming(h.fingerprints(originals), h.fingerprints(edited)) / 64,
}
print(len(pairs), "edits")

# %%
fig, ax = plt.subplots(figsize=(10, 5))
plot.avalanche_hist(flips, ax=ax, title=f"One small edit, {len(pairs)} times: how much of the hash changes?")
plt.show()

# %% [markdown]
# Two mountains. The cryptographic hashes sit on 50% whatever the edit: a one-letter typo and a new
# word look the same to them, and the same as two unrelated texts. Simhash sits near zero. By kind of
# edit (mean number of Simhash bits changed, out of 64):

# %%
kind_of = np.array([k for _, k in pairs])
bits_changed = np.rint(flips["Simhash (64 bits)"] * 64)
for k in kinds:
    sel = kind_of == k
    print(
        f"{k:7s} Simhash {bits_changed[sel].mean():4.2f} bits   "
        f"MD5 {flips['MD5 (128 bits)'][sel].mean():.0%}   SHA-256 {flips['SHA-256 (256 bits)'][sel].mean():.0%}"
    )

# %% [markdown]
# A comma changes no word, so Simhash does not move at all (it would with character n-grams: the choice
# of features decides what counts as "the same"). A changed, deleted or replaced word is one of 40–150
# voters, so only the few bits whose vote was close change.
#
# ✏️ **On paper.** With 100 voters per bit, how close must a bit's vote be for one voter to flip it?
# (One voter moves the sum by at most 2.)
#
# ## (b) Definition
#
# > *Familia de algoritmos probabilísticos donde la probabilidad de colisión de hash entre dos elementos
# > x e y es una función monótona creciente de su similitud.* (the session)
#
# The Chinese source makes it exact. A family of hash functions H is **(d1, d2, p1, p2)-sensitive**,
# with d1 < d2 and p1 > p2, when for a hash h drawn at random from H:
#
# - if d(x, y) ≤ d1 then P(h(x) = h(y)) ≥ p1 (close points collide often);
# - if d(x, y) ≥ d2 then P(h(x) = h(y)) ≤ p2 (far points collide rarely).
#
# > 满足以上两个条件的hash functions称为(d1,d2,p1,p2)-sensitive。 (source 001)
#
# One bit of Simhash is such a family, with the angle θ as distance: in notebook 04 we prove that the bit
# agrees with probability **1 − θ/π**. Taking d1 = 10° and d2 = 60° gives p1 = 1 − 10/180 ≈ 0.94 and
# p2 = 1 − 60/180 ≈ 0.67. The curve is monotone, so it passes through both boxes. Let us check the curve
# with random vectors (Gaussian hyperplanes, 64 bits each, 100 dimensions):


# %%
def pair_at(theta, dim=100):
    """Two random unit vectors in `dim` dimensions at exactly angle theta."""
    u = rng.standard_normal(dim)
    u /= np.linalg.norm(u)
    w = rng.standard_normal(dim)
    w -= (w @ u) * u
    w /= np.linalg.norm(w)
    return u, np.cos(theta) * u + np.sin(theta) * w


angles = np.radians(np.arange(0, 181, 10))
agree = []
for th in angles:
    sig = hyperplane_signatures(np.array([v for _ in range(20) for v in pair_at(th)]), bits=64, seed=1)
    agree.append(1 - hamming(sig[0::2], sig[1::2]).mean() / 64)  # share of bits that collide

# %%
deg = np.degrees(angles)
fig, ax = plt.subplots(figsize=(9, 5))
plot.lsh_sensitivity(
    10,
    60,
    1 - 10 / 180,
    1 - 60 / 180,
    distance=np.linspace(0, 180, 181),
    prob=1 - np.linspace(0, 180, 181) / 180,
    ax=ax,
    xlabel="angle θ (degrees)",
)
ax.plot(deg, agree, "o", color=plot.HIGHLIGHT, markersize=8, label="measured: 20 pairs × 64 bits")
ax.legend(loc="upper right")
ax.set_title("One Simhash bit is (10°, 60°, 0.94, 0.67)-sensitive")
plt.show()

# %% [markdown]
# A gap of 0.94 against 0.67 is a weak filter on its own. LSH **amplifies** it by combining hashes: the
# block index of notebook 05 asks that 16 bits *all* agree (AND: p ↦ p¹⁶) in *at least one* of 4 tables
# (OR: q ↦ 1 − (1 − q)⁴). The curve becomes a steep step:

# %%
th = np.linspace(0, 180, 181)
p = 1 - th / 180
fig, ax = plt.subplots(figsize=(9, 4.5))
ax.plot(th, p, label="one bit: 1 − θ/π")
ax.plot(th, p**16, label="16 bits all agree: p¹⁶")
ax.plot(th, 1 - (1 - p**16) ** 4, label="any of 4 blocks of 16: 1 − (1 − p¹⁶)⁴")
ax.set_xlabel("angle θ (degrees)")
ax.set_ylabel("P(become candidates)")
ax.legend()
ax.set_title("Amplification: AND inside a block, OR across blocks")
plt.show()

# %% [markdown]
# This is what lets LSH answer approximate nearest-neighbour queries in **sublinear time O(N^ρ)**, with
# ρ = ln(1/p1) / ln(1/p2) < 1 (Indyk and Motwani): for our bit, ρ ≈ ln(1/0.944) / ln(1/0.667) ≈ 0.14.
#
# ## (c) Memory and types
#
# > *Transforma un objeto complejo (un texto largo o vector denso) en un entero escalar sin signo de 64
# > bits (u64) compacto, representable directamente en un registro de la CPU.* (the session)
#
# However long the document, its fingerprint is 8 bytes: in Rust a `u64`, in NumPy one element of a
# `uint64` array. (A Python `int` is a heap object several times that size; arrays of fingerprints are
# how the library stores them.)

# %%
doc = paras[0]
fps = h.fingerprints(paras)
print(f"one paragraph: {len(doc.encode())} bytes of text -> fingerprint {h.fingerprint(doc):#018x}")
print(
    f"{len(paras)} paragraphs: {sum(len(p.encode()) for p in paras):,} bytes of text -> "
    f"{fps.nbytes:,} bytes of fingerprints ({fps.dtype}, shape {fps.shape})"
)
print(
    f"a billion documents: {10**9 * fps.itemsize / 2**30:.1f} GiB of fingerprints, fits in one server's RAM"
)

# %% [markdown]
# ## (d) The junior mistake
#
# > *Usar MD5 o SHA-256 para detectar si dos artículos periodísticos son plagios o reescrituras; al
# > cambiar una coma o un sinónimo, el hash criptográfico difiere en el 50% de sus bits.* (the session)
#
# A "plagiarist" copies a paragraph and swaps one word for a synonym:

# %%
original = " ".join(paras[0].split())
copy = original.replace(" unnecessary ", " needless ", 1)  # one synonym
print(original, "\n")
print("MD5 equal?             ", md5(original) == md5(copy))
print("MD5 bits different:    ", (md5(original) ^ md5(copy)).bit_count(), "of 128")
print("Simhash bits different:", hamming(h.fingerprint(original), h.fingerprint(copy)), "of 64")
print("near-duplicate (k = 3)?", is_near(h.fingerprint(original), h.fingerprint(copy), k=3))

# %% [markdown]
# Exact hashes answer "identical?" and nothing else. To catch rewrites, hash so that small edits make
# small differences, then compare with a tolerance, which is the rest of this course.
#
# ## Summary
#
# - A cryptographic hash flips ~50% of its bits on *any* edit (avalanche); a locality-sensitive hash
#   flips few on a small edit, measured above on hundreds of real edits.
# - (d1, d2, p1, p2)-sensitive: close pairs collide with probability ≥ p1, far pairs with ≤ p2.
#   Combining hashes (AND within a block, OR across blocks) sharpens the gap.
# - A fingerprint is one `u64`: 8 bytes per document, whatever its length.
# - Never use MD5/SHA to find near-duplicates; use them to find exact ones.
#
# ## Questions (answer in your own words)
#
# 1. Why is the avalanche effect a *feature* of SHA-256?
# 2. Adding a comma changed 0 Simhash bits here. Name a feature choice for which it would change some.
# 3. In the (d1, d2, p1, p2) definition, what goes wrong if p1 = p2?
# 4. Why does requiring 16 bits to agree make the curve steeper, and what does it cost?
