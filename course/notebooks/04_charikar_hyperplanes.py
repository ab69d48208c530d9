# %% [markdown]
# # 04 · Charikar's hyperplanes: why Hamming distance measures angle
#
# **The proof behind Simhash.** A random hyperplane separates two vectors with probability θ/π, so
# 64 of them give E[d_H] = 64·θ/π. We watch a line sweep the circle, see a plane in 3-D, find the
# hyperplanes hidden inside Simhash's hash bits, and verify the formula on random vectors and on real
# documents.

# %%
from pydoc_data.topics import topics

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import binom

from simhash_lab import Simhasher, expected_hamming, hamming, hyperplane_signatures
from simhash_lab.course import animate, plot, widgets
from simhash_lab.geometry import angle, hyperplanes

plot.use_course_style()
rng = np.random.default_rng(60)

# %% [markdown]
# ## (a) Intuition
#
# Think of a document as an arrow in a space with one axis per word (its TF or TF-IDF weights). Similar
# documents point in similar directions. Now slice the space with a random flat sheet through the
# origin: the two arrows land on the same side unless the sheet passes *between* them, and that is
# unlikely when the angle between them is small. Each fingerprint bit records one sheet's side:
#
# > *Cada uno de los 64 bits de la huella digital corresponde a la orientación de un vector normal
# > aleatorio rᵢ en el espacio vectorial continuo.* (the session)
#
# ## (b) Definition and proof
#
# Bit i of vector u is hᵢ(u) = 1 if u · rᵢ ≥ 0, else 0, with rᵢ a random direction. Two vectors at angle
# θ get different bits exactly when the hyperplane perpendicular to rᵢ falls inside the angle between
# them. In the plane the line's direction is uniform on a half-turn of π radians, and it separates u
# and v on an arc of θ of them, so
#
# **P(hᵢ(u) ≠ hᵢ(v)) = θ / π**, and over 64 independent bits **E[d_H] = 64 · θ / π**.
#
# (In more dimensions, project onto the plane of u and v: the hyperplane cuts that plane in a line whose
# direction is still uniform, so nothing changes.) Watch it: first one line turns through 180° (it
# separates u and v only while inside their angle), then random lines, with the running fraction of
# separating ones approaching θ/π:

# %%
anim = animate.hyperplane_sweep(np.radians(60), n_random=1000, sweep_frames=19, random_frames=24, seed=0)
animate.show(anim, "hyperplane-sweep")

# %% [markdown]
# The same in 3-D: the hyperplane is a plane through the origin, the normal r is drawn at random.

# %%
u3, v3 = np.array([1.0, 0.2, 0.1]), np.array([0.6, 0.9, 0.2])
fig = plt.figure(figsize=(12, 5.5))
for k, normal in enumerate([[-0.5, 0.7, 0.6], [0.1, 0.2, 1.0]]):
    ax = fig.add_subplot(1, 2, k + 1, projection="3d")
    plot.hyperplane_3d(u3, v3, normal, ax=ax)
    ax.view_init(elev=22, azim=-60)
print(f"angle between u and v: {np.degrees(angle(u3, v3)):.1f} degrees")
plt.show()

# %% [markdown]
# ✏️ **With your calculator**: the angle above is about 45°. What fraction of random planes separate u
# and v? (45/180 = 0.25: one plane in four.)
#
# ### Simhash's hash bits are hidden hyperplanes
#
# Simhash never draws a random vector. The Chinese source explains where they are:
#
# > 在simhash中并没有直接产生用于分割空间的随机向量，而是间接产生的：第k个特征的hash签名的第i位拿出来，如果为0，则改为-1，如果为1则不变，作为第i个随机向量的第k维。 (source 001)
#
# "Take bit i of feature k's hash; turn 0 into −1: that is coordinate k of the i-th random vector."
# So rᵢ = (±1 for each word of the vocabulary), and the accumulator V[i] = Σ_k w_k · rᵢ[k] = **w · rᵢ**:
# a dot product with a random ±1 vector. Let us build those vectors explicitly and check that they give
# exactly the library's fingerprint:

# %%
h = Simhasher()
doc = "Simple is better than complex. Complex is better than complicated. Flat is better than nested."
vocab_trace = h.trace({w: 1 for w in h.features(doc)})  # the hash of each distinct word
vocab = vocab_trace.features
R = np.array([[1 if (int(hk) >> i) & 1 else -1 for hk in vocab_trace.hashes] for i in range(64)])
w = np.array([h.features(doc).count(f) for f in vocab])  # TF vector of the document
print("vocabulary:", vocab)
print("R is", R.shape, "(64 random ±1 vectors, one coordinate per word); w =", w.tolist())

# %%
V = R @ w  # 64 dot products = the 64 accumulators
fp_from_hyperplanes = sum(1 << i for i in range(64) if V[i] > 0)
print("sign(R @ w) :", f"{fp_from_hyperplanes:#018x}")
print("Simhasher   :", f"{h.fingerprint(doc):#018x}")
assert fp_from_hyperplanes == h.fingerprint(doc)

# %% [markdown]
# Identical. Simhash **is** random-hyperplane hashing, with the hyperplanes generated on the fly by the
# hash function instead of stored. (Two small differences from the textbook: the coordinates are ±1
# instead of Gaussian, and a tie V[i] = 0 gives 0, while the session's hᵢ(u) uses ≥ 0. Neither changes the
# picture for real documents, as we measure next.)
#
# ## Verifying E[d_H] = 64θ/π
#
# ### 1. Random vectors, Gaussian hyperplanes
#
# 3,000 pairs of 300-dimensional vectors at angles spread over 0–180°; 64 Gaussian hyperplanes (seeded)
# sign them; we compare the measured Hamming distance with 64θ/π.


# %%
def pairs_at(thetas, dim=300):
    U = rng.standard_normal((len(thetas), dim))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    W = rng.standard_normal((len(thetas), dim))
    W -= (W * U).sum(1, keepdims=True) * U
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    return U, np.cos(thetas)[:, None] * U + np.sin(thetas)[:, None] * W


thetas = rng.uniform(0, np.pi, 3000)
U, Vv = pairs_at(thetas)
d_gauss = hamming(hyperplane_signatures(U, bits=64, seed=1), hyperplane_signatures(Vv, bits=64, seed=1))
print("hyperplanes:", hyperplanes(300, bits=64, seed=1).shape, "float64, drawn from default_rng(seed)")

# %% [markdown]
# ### 2. Real documents, Simhash
#
# Paragraphs of Python's reference manual, as TF vectors over words. Unrelated pairs are far apart; to
# cover small angles too we also pair each paragraph with a copy in which a random fraction (0 to 90%)
# of its words was replaced. For each pair: the angle of the TF vectors (θ = arccos of the cosine) and
# the Hamming distance of the 64-bit Simhash fingerprints.

# %%
paras = [" ".join(p.split()) for t in topics.values() for p in t.split("\n\n") if 40 <= len(p.split()) <= 150]
words = sorted({w for p in paras for w in h.features(p)})


def tf(text):
    c = {}
    for f in h.features(text):
        c[f] = c.get(f, 0) + 1
    return c


def cos_angle(a, b):
    dot = sum(x * b.get(k, 0) for k, x in a.items())
    return np.arccos(
        np.clip(dot / np.sqrt(sum(x * x for x in a.values()) * sum(x * x for x in b.values())), -1, 1)
    )


def rewrite(p, frac):
    ws = p.split()
    for k in rng.choice(len(ws), int(frac * len(ws)), replace=False):
        ws[k] = words[int(rng.integers(len(words)))]
    return " ".join(ws)


A = [paras[int(k)] for k in rng.integers(len(paras), size=1200)]
B = [rewrite(a, f) for a, f in zip(A[:800], rng.uniform(0, 0.9, 800))] + [
    paras[int(k)] for k in rng.integers(len(paras), size=400)
]
theta_docs = np.array([cos_angle(tf(a), tf(b)) for a, b in zip(A, B)])
d_docs = hamming(h.fingerprints(A), h.fingerprints(B))

# %%
fig, axes = plt.subplots(1, 2, figsize=(15, 5.5))
plot.hamming_vs_angle(
    thetas, d_gauss, ax=axes[0], label="Gaussian hyperplanes", title="Random vectors, 64 Gaussian hyperplanes"
)
plot.hamming_vs_angle(
    theta_docs,
    d_docs,
    ax=axes[1],
    label="Simhash",
    color=plot.ACCENT,
    title="Real paragraphs, 64-bit Simhash (TF)",
)
axes[1].set_xlim(0, 180)
fig.tight_layout()
plt.show()

# %%
slope_g = (d_gauss * thetas).sum() / (thetas**2).sum() * np.pi
slope_d = (d_docs * theta_docs).sum() / (theta_docs**2).sum() * np.pi
print(
    f"least-squares d_H = b * theta/pi:  Gaussian b = {slope_g:.1f}, Simhash on documents b = {slope_d:.1f}, theory 64"
)
assert abs(slope_g - 64) < 2 and abs(slope_d - 64) < 6

# %% [markdown]
# Both clouds follow the dashed theory line, and the band (±1 standard deviation) is what a
# binomial(64, θ/π) predicts: each bit is an independent coin with bias θ/π, so
# sd = √(64 · p · (1 − p)). Unrelated paragraphs never reach 90°: English texts share "the", "is", "a",
# so their TF vectors are far from orthogonal (notebook 02 showed how IDF fixes that).
#
# ### The session's numbers
#
# > *Si dos documentos son idénticos: θ = 0 ⟹ d_H = 0. Si dos documentos son ortogonales: θ = π/2 ⟹
# > d_H = 32 bits. Si dos documentos son casi-duplicados (θ ≈ 5°): d_H ≈ 64 × 5/180 ≈ 1.77 ≤ 3 bits.*

# %%
for name, th in [("identical", 0.0), ("orthogonal", np.pi / 2), ("near-duplicate, 5°", np.radians(5))]:
    e = expected_hamming(th, bits=64)
    print(f"{name:20s} E[d_H] = 64 * {np.degrees(th):5.1f}/180 = {e:6.3f} bits")

# %% [markdown]
# 64 × 5 / 180 = 1.777…, which the session truncates to 1.77 (rounded, 1.78). The expected value is not
# the whole story: at 5°, how often does the distance stay within the usual threshold k = 3?

# %%
p5 = 5 / 180
print(f"P(d_H <= 3 at 5 degrees)  = {binom.cdf(3, 64, p5):.3f}")
print(f"P(d_H <= 3 at 10 degrees) = {binom.cdf(3, 64, 10 / 180):.3f}")
print(f"P(d_H <= 3 at 30 degrees) = {binom.cdf(3, 64, 30 / 180):.6f}")

# %% [markdown]
# ### Play with θ
#
# Drag the slider: for each angle, two vectors with a dozen of the random lines (left), and the Hamming
# distances of 64-bit signatures over 2,000 independent sets of hyperplanes (right) against 64θ/π. Every
# frame is precomputed (seeded), so it works without a kernel.

# %%
widgets.theta_slider(bits=64, trials=2000, seed=0)

# %% [markdown]
# ## (c) Memory and types
#
# Charikar's scheme stores the hyperplanes: 64 vectors as long as the vocabulary. Simhash stores none:
# the hash function *is* the random matrix, computed on demand for each word it meets.

# %%
vocab_size = 1_000_000
print(
    f"explicit hyperplanes for {vocab_size:,} words: 64 x {vocab_size:,} float64 = "
    f"{64 * vocab_size * 8 / 2**20:,.0f} MiB, and a new word needs a new column"
)
print("Simhash: 0 bytes of hyperplanes; the hash of a word gives its 64 coordinates (±1)")
print(f"either way, a document's signature: 64 bits = {64 // 8} bytes")

# %% [markdown]
# ## (d) The junior mistake
#
# Reading d_H as an exact measurement. It is a **random estimate** of 64·θ/π with standard deviation
# √(64·p·(1−p)): at 5° that is 1.78 ± 1.3 bits, so about 10% of true 5° near-duplicates land above k = 3
# and are missed (the binomial above). Two habits follow: pick k from the distribution (the binomial above), not from the
# mean; and, when a bound must hold for certain, use more bits or verify the candidates on the original
# vectors.
#
# ## Summary
#
# - A random hyperplane separates u and v with probability θ/π; 64 of them give E[d_H] = 64θ/π,
#   verified above on Gaussian hyperplanes and on Simhash over real paragraphs.
# - Simhash's hash bits *are* random ±1 hyperplanes (source 001): V = R·w, made on the fly.
# - The session's numbers: 0, 32 and 64·5/180 ≈ 1.78 bits; d_H ~ Binomial(64, θ/π).
#
# ## Questions (answer in your own words)
#
# 1. Why is the probability θ/π and not θ/2π, although a line's normal can point anywhere on the circle?
# 2. Why does adding dimensions not change the θ/π result?
# 3. Simhash's hyperplanes have ±1 coordinates. When could that differ from Gaussian ones?
# 4. Two unrelated English paragraphs are usually at 50–80°, not 90°. Why, and how would you fix it?
