# %% [markdown]
# # 01 · LSH vs cryptographic hashes: the avalanche effect
#
# **Concept 1 of 4: Locality-Sensitive Hashing (LSH).** We measure the avalanche effect on hundreds of
# real edits, state what "locality-sensitive" means precisely, see how an index sharpens a weak LSH
# into a steep filter, look at what a fingerprint costs in memory, and end with the junior mistake.

# %%
import hashlib

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import binom

from simhash_lab import Simhasher, hamming, hyperplane_signatures, is_near
from simhash_lab.course import experiments, plot
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
# A cryptographic hash is designed so that **any** change flips each output bit with probability $1/2$:
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
assert h.fingerprint(a) == h.fingerprint(b)

# %% [markdown]
# The full stop became an exclamation mark. MD5 changed about half its bits. Simhash changed none: it
# reads *words*, and the words did not change. One sentence proves nothing, so let us measure.
#
# ## The experiment: hundreds of real edits
#
# The paragraphs of Python's own reference manual (`pydoc_data.topics`, shipped with every Python;
# `experiments.paragraphs()` keeps those of 40 to 150 words) are our documents. We make four kinds of
# small edit, each at a random place:

# %%
paras = experiments.paragraphs()
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
pairs = [(p, kind) for p in paras[::2] for kind in kinds]
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
# Two separate peaks. The cryptographic hashes sit on 50% whatever the edit: a one-letter typo and a new
# word look the same to them, and the same as two unrelated texts. Simhash sits near zero. By kind of
# edit (mean number of Simhash bits changed, out of 64):

# %%
kind_of = np.array([k for _, k in pairs])
bits_changed = np.rint(flips["Simhash (64 bits)"] * 64)
shown = {"char": _("char"), "word": _("word"), "delete": _("delete"), "comma": _("comma")}
for k in kinds:
    sel = kind_of == k
    print(
        f"{shown[k]:7s} Simhash {bits_changed[sel].mean():4.2f} bits   "
        f"MD5 {flips['MD5 (128 bits)'][sel].mean():.0%}   SHA-256 {flips['SHA-256 (256 bits)'][sel].mean():.0%}"
    )
assert bits_changed[kind_of == "comma"].max() == 0

# %% [markdown]
# A comma changes no word, so Simhash does not move at all (it would with character n-grams: the choice
# of features decides what counts as "the same"). A changed, deleted or replaced word is one of 40–150
# voters, so only the few bits whose vote was close change.
#
# ✏️ **On paper.** A bit's vote is the sum $V_i$ of $\pm 1$ from every word (notebook 02 builds it).
# Replacing one word takes its $\pm 1$ away and adds the new word's $\pm 1$. By how much can $V_i$
# move, and for which values of $V_i$ can the bit ($1$ when $V_i > 0$) change?
#
# <details><summary>Answer</summary>
#
# $V_i$ moves by $-2$, $0$ or $+2$. A 1 becomes a 0 only from $V_i \in \{1, 2\}$, a 0 becomes a 1 only
# from $V_i \in \{-1, 0\}$: one replaced word can flip only the bits whose vote sits at $-1$, $0$, $1$
# or $2$. With a hundred voters most votes are further from zero, so few bits flip. Notebook 02
# measures this on every paragraph of the manual.
# </details>
#
# ## (b) Definition
#
# > *Familia de algoritmos probabilísticos donde la probabilidad de colisión de hash entre dos elementos
# > x e y es una función monótona creciente de su similitud.* (the session)
#
# Source 001, the Chinese article on the principle of Simhash (notebook 00 lists the sources),
# makes it exact. A family of hash functions $H$ is
# **$(d_1, d_2, p_1, p_2)$-sensitive**, with $d_1 < d_2$ and $p_1 > p_2$, when for a hash $h$ drawn at
# random from $H$:
#
# - if $d(x, y) \le d_1$ then $P(h(x) = h(y)) \ge p_1$ (close points collide often);
# - if $d(x, y) \ge d_2$ then $P(h(x) = h(y)) \le p_2$ (far points collide rarely).
#
# > 满足以上两个条件的hash functions称为(d1,d2,p1,p2)-sensitive。 (source 001: "hash functions that meet both conditions are called (d1,d2,p1,p2)-sensitive")
#
# ### One such family: random hyperplanes
#
# Picture each document as a vector (one coordinate per word, notebook 04) and the angle $\theta$
# between two of them as their distance. Draw a random direction $r$ (a Gaussian vector) and let
# $h(x) = 1$ if $x \cdot r \ge 0$, else 0: which side of the **hyperplane** through the origin with
# normal $r$ the vector $x$ is on. Two vectors get different bits only when the hyperplane passes
# between them, and notebook 04 proves that happens with probability $\theta/\pi$; so one bit
# collides with probability $1 - \theta/\pi$, which falls as the angle grows: an LSH family. Each
# Simhash bit is one such hyperplane in disguise (notebook 04 finds them in the hash bits).
#
# `hyperplane_signatures(X, bits=64, seed=1)` draws 64 such normals (from NumPy's `default_rng(seed)`)
# and gives each row of `X` its 64 bits as one `uint64`. Taking $d_1 = 10°$ and $d_2 = 60°$ gives
# $p_1 = 1 - 10/180 \approx 0.94$ and $p_2 = 1 - 60/180 \approx 0.67$. We measure the curve with random
# vectors in 100 dimensions: 20 pairs at each angle, 64 bits each.


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
grid = np.linspace(0, 180, 181)
fig, ax = plt.subplots(figsize=(10, 5.2))
plot.lsh_sensitivity(
    10,
    60,
    1 - 10 / 180,
    1 - 60 / 180,
    distance=grid,
    prob=1 - grid / 180,
    ax=ax,
    xlabel="angle θ between the vectors (degrees)",
    unit="°",
    title="One hyperplane bit is (10°, 60°, 0.94, 0.67)-sensitive",
)
ax.plot(deg, agree, "o", color=plot.HIGHLIGHT, markersize=8, label="measured: 20 pairs × 64 bits")
ax.legend(loc="lower left")
plt.show()

# %% [markdown]
# The measured points lie on the line $1 - \theta/\pi$; the line passes through both boxes, so the
# definition holds.
#
# ## Amplification: from a weak gap to a steep step
#
# A gap of 0.94 against 0.67 is a weak filter on its own. LSH **amplifies** it by combining hashes:
# the session's block index (notebook 05) cuts a 64-bit fingerprint into 4 blocks of 16 bits, asks that
# the 16 bits of a block *all* agree (AND: $p \mapsto p^{16}$) in *at least one* of the 4 blocks
# (OR: $q \mapsto 1 - (1 - q)^4$). For two documents at angle $\theta$ the bits are independent
# coins, so the probability that they become **candidates** is $1 - (1 - p^{16})^4$ with
# $p = 1 - \theta/\pi$.
#
# Notebook 05 calls the same index **exact**, and both are true; they answer different questions.
# *Given two fingerprints*, nothing is random: if they differ in at most $k = 3$ bits, one of the 4
# blocks is untouched (pigeonhole), so the pair is a candidate for certain, and the check
# $\mathrm{popcount}(a \oplus b) \le 3$ then keeps exactly the pairs within 3 bits. *Given two
# documents*, their fingerprints' distance is random (it depends on which hyperplanes the hash
# function happens to give), so whether the pair is reported is a probability: $P(d_H \le 3)$ for
# $d_H \sim \mathrm{Binomial}(64, \theta/\pi)$. Exactness says the candidate curve is never below that
# reported curve:

# %%
fig, ax = plt.subplots(figsize=(10, 5))
plot.amplification(ax=ax, title="Amplification: AND inside a block, OR across blocks")
plt.show()
th = np.radians(np.linspace(0, 90, 901))
p = 1 - th / np.pi
candidate = 1 - (1 - p**16) ** 4
reported = binom.cdf(3, 64, th / np.pi)
assert np.all(candidate >= reported - 1e-12)  # every pair within 3 bits is a candidate
for deg_ in (5, 10, 20, 30):
    q = 1 - deg_ / 180
    print(
        f"{deg_:2d}°: one bit agrees {q:.3f}, candidate {1 - (1 - q**16) ** 4:.3f}, "
        f"reported (d_H <= 3) {binom.cdf(3, 64, deg_ / 180):.3f}"
    )

# %% [markdown]
# Amplification is what lets LSH answer approximate nearest-neighbour queries in **sublinear time**
# $O(N^\rho)$, with $\rho = \ln(1/p_1) / \ln(1/p_2) < 1$ (Indyk and Motwani):

# %%
p1, p2 = 1 - 10 / 180, 1 - 60 / 180
rho = np.log(1 / p1) / np.log(1 / p2)
print(f"rho = ln(1/{p1:.3f}) / ln(1/{p2:.3f}) = {rho:.3f}: a query costs about N^{rho:.2f}")

# %% [markdown]
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
original = next(p for p in paras if " unnecessary " in p)
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
# - A cryptographic hash flips about 50% of its bits on *any* edit (avalanche); a locality-sensitive
#   hash flips few on a small edit, measured above on hundreds of real edits.
# - $(d_1, d_2, p_1, p_2)$-sensitive: close pairs collide with probability $\ge p_1$, far pairs with
#   $\le p_2$. One random-hyperplane bit is such a hash for the angle, with $P = 1 - \theta/\pi$.
# - Combining hashes (AND within a block, OR across blocks) sharpens the gap:
#   $1 - (1 - p^{16})^4$. Given the fingerprints the block index is exact; given the documents,
#   being found is a probability.
# - A fingerprint is one `u64`: 8 bytes per document, whatever its length.
# - Never use MD5/SHA to find near-duplicates; use them to find exact ones.
#
# ## Questions (answer in your own words, then unfold)
#
# <details><summary><b>1.</b> Why is the avalanche effect a <i>feature</i> of SHA-256?</summary>
#
# SHA-256 protects integrity and secrets: if similar inputs had similar hashes, an attacker could
# learn about an input from its hash, or search for a forgery by small steps. Every output bit
# flipping with probability $1/2$ on any change makes the hash of an edited input look unrelated, so
# nothing leaks and nothing can be approached step by step.
# </details>
#
# <details><summary><b>2.</b> Adding a comma changed 0 Simhash bits here. Name a feature choice for which
# it would change some.</summary>
#
# Character n-grams (shingles) of the raw text, punctuation included: "program," adds the n-grams
# around the comma (for 4-grams "ram," and "am, "), new features that vote. So would tokens split on
# whitespace only ("program," is then a different token from "program").
# </details>
#
# <details><summary><b>3.</b> In the $(d_1, d_2, p_1, p_2)$ definition, what goes wrong if $p_1 = p_2$?</summary>
#
# Then close pairs collide no more often than far pairs: a collision says nothing about the distance,
# and no amount of combining (AND, OR) can separate them, since $\rho = \ln(1/p_1)/\ln(1/p_2) = 1$:
# a query costs as much as a linear scan.
# </details>
#
# <details><summary><b>4.</b> Why does requiring 16 bits to agree make the curve steeper, and what does
# it cost?</summary>
#
# $p^{16}$ punishes every disagreement: at 30° one bit agrees with $p \approx 0.83$, sixteen with
# $p^{16} \approx 0.05$, so far pairs almost never collide. But close pairs are punished too (at 10°,
# $0.94^{16} \approx 0.40$): the AND alone loses many true near-duplicates. The cost is paid back by
# the OR across blocks (several tables, more memory) or by using fewer bits per block (more
# candidates to check).
# </details>
