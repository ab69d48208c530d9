# %% [markdown]
# # 04 · Charikar's hyperplanes: why Hamming distance measures angle
#
# **The proof behind Simhash.** A random hyperplane separates two vectors with probability $\theta/\pi$,
# so 64 of them give $E[d_H] = 64\,\theta/\pi$. We watch a line sweep the circle, see a plane in 3-D,
# find the hyperplanes hidden inside Simhash's hash bits, verify the formula on random vectors and on
# real documents, and see what more bits gain and cost when random hyperplanes index dense vectors.

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import binom

from simhash_lab import Simhasher, expected_hamming, hamming, hyperplane_signatures
from simhash_lab.course import animate, experiments, plot, widgets
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
# > aleatorio $r_i$ en el espacio vectorial continuo.* (the session)
#
# ## (b) Definition and proof
#
# Bit $i$ of vector $u$ is $h_i(u) = 1$ if $u \cdot r_i \ge 0$, else 0, with $r_i$ a random
# direction (the normal of the $i$-th hyperplane). Two vectors at angle $\theta$ get different bits
# exactly when the hyperplane perpendicular to $r_i$ falls inside the angle between them. In the
# plane, the line's direction is uniform over a half-turn of $\pi$ radians (a line and its opposite
# are the same line), and it separates $u$ and $v$ on an arc of $\theta$ of them, so
#
# $$P\big(h_i(u) \ne h_i(v)\big) = \frac{\theta}{\pi}, \qquad
#   E[d_H] = \sum_{i=1}^{64} P\big(h_i(u) \ne h_i(v)\big) = 64\,\frac{\theta}{\pi}.$$
#
# (In more dimensions, project onto the plane of $u$ and $v$: the hyperplane cuts that plane in a line
# whose direction is still uniform, so nothing changes.) Watch it: first one line turns through 180°
# (it separates $u$ and $v$ only while inside their angle), then random lines, with the running
# fraction of separating ones approaching $\theta/\pi$. As opened, the animation plays by itself; run
# the cell for ▶ and a slider.

# %%
animate.show(animate.hyperplane_sweep(np.radians(60), n_random=1000, seed=0))

# %% [markdown]
# The same in 3-D: the hyperplane is a plane through the origin, its normal $r$ drawn at random. What
# decides the bit is the **side** of the plane each vector is on, the sign of $r \cdot u$ and
# $r \cdot v$ (dashed: each tip's drop to the plane). The black line is where the plane cuts the
# plane of $u$ and $v$: the line of the 2-D picture above. On the left it passes between $u$ and $v$
# (through the orange arc), so the plane separates them; on the right it does not.

# %%
u3, v3 = np.array([1.0, 0.2, 0.1]), np.array([0.6, 0.9, 0.2])
fig = plt.figure(figsize=(12, 5.5))
for k, normal in enumerate([[-0.5, 0.7, 0.6], [0.1, 0.2, 1.0]]):
    plot.hyperplane_3d(u3, v3, normal, ax=fig.add_subplot(1, 2, k + 1, projection="3d"))
fig.tight_layout()
plt.show()
theta3 = np.degrees(angle(u3, v3))
print(
    f"angle between u and v: {theta3:.1f} degrees, so a random plane separates them with P = {theta3 / 180:.3f}"
)

# %% [markdown]
# ✏️ **With your calculator**: the angle printed above is close to 45°. What fraction of random planes
# separate $u$ and $v$? (About 45/180 = 0.25: one plane in four.)
#
# ### Simhash's hash bits are hidden hyperplanes
#
# Simhash never draws a random vector. Source 001 explains where they are:
#
# > 在simhash中并没有直接产生用于分割空间的随机向量,而是间接产生的:第k个特征的hash签名的第i位拿出来,如果为0,则改为-1,如果为1则不变,作为第i个随机向量的第k维。 (source 001)
#
# "Take bit $i$ of feature $k$'s hash; turn 0 into $-1$: that is coordinate $k$ of the $i$-th random
# vector." So $r_i = (\pm 1$ for each word of the vocabulary$)$, and the accumulator
# $V_i = \sum_k w_k\, r_i[k] = w \cdot r_i$: a dot product with a random $\pm 1$ vector. Let us build
# those vectors explicitly and check that they give exactly the library's fingerprint:

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
# hash function instead of stored. (Two small differences from the textbook: the coordinates are
# $\pm 1$ instead of Gaussian, and a tie $V_i = 0$ gives 0, while the $h_i(u)$ above uses $\ge 0$.
# Neither changes the picture for real documents, as we measure next.)
#
# ## Verifying $E[d_H] = 64\,\theta/\pi$
#
# ### 1. Random vectors, Gaussian hyperplanes
#
# 3,000 pairs of 300-dimensional vectors at angles spread over 0–180°; 64 Gaussian hyperplanes
# (`hyperplane_signatures(X, bits=64, seed=1)`: one random normal per bit, the same for every row)
# sign them; we compare the measured Hamming distance with $64\,\theta/\pi$.


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
# cover small angles too, `experiments.document_angles` also pairs paragraphs with copies in which a
# random fraction (0 to 90%) of the words was replaced. For each pair: the angle of the TF vectors
# ($\theta = \arccos$ of the cosine) and the Hamming distance of the 64-bit Simhash fingerprints.

# %%
docs = experiments.paragraphs()
theta_docs, d_docs, unrelated = experiments.document_angles(
    h, docs, n_rewritten=800, n_unrelated=400, seed=60
)
print(f"{len(d_docs)} pairs of paragraphs, {unrelated.sum()} of them unrelated")

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
    impossible_beyond=90,
    title="Real paragraphs, 64-bit Simhash (TF)",
)
fig.tight_layout()
plt.show()

# %%
slope_g = (d_gauss * thetas).sum() / (thetas**2).sum() * np.pi
slope_d = (d_docs * theta_docs).sum() / (theta_docs**2).sum() * np.pi
print(
    f"least-squares d_H = b * theta/pi:  Gaussian b = {slope_g:.1f}, Simhash on documents b = {slope_d:.1f}, theory 64"
)
deg_unrelated = np.degrees(theta_docs[unrelated])
print(
    f"unrelated paragraphs: angle median {np.median(deg_unrelated):.0f} degrees, "
    f"10% to 90% of them between {np.percentile(deg_unrelated, 10):.0f} and {np.percentile(deg_unrelated, 90):.0f}, "
    f"largest {deg_unrelated.max():.1f}"
)
at_90 = np.isclose(theta_docs[unrelated], np.pi / 2)  # cosine 0: the two paragraphs share no word
print(
    f"{at_90.sum()} of the {unrelated.sum()} unrelated pairs share no word at all and sit at exactly 90 degrees"
)
assert abs(slope_g - 64) < 2 and abs(slope_d - 64) < 6
assert theta_docs.max() <= np.pi / 2 + 1e-9  # TF vectors never pass 90 degrees

# %% [markdown]
# Both clouds follow the dashed theory line, and the band ($\pm 1$ standard deviation) is what a
# $\mathrm{Binomial}(64, \theta/\pi)$ predicts: each bit is an independent coin with bias
# $p = \theta/\pi$, so $\mathrm{sd} = \sqrt{64\,p\,(1-p)}$.
#
# The right-hand plot is empty past 90°, and that is not a lack of data. TF vectors are counts, never
# negative, so the dot product of two documents is a sum of non-negative terms: $\cos\theta \ge 0$,
# hence $\theta \le 90°$ for *any* two documents. A pair reaches 90° only when its two paragraphs
# share no word at all (the last line above counts them). Unrelated paragraphs that share words sit
# below 90°, typically well below (the median and the percentiles printed above), because English
# paragraphs share "the", "is", "a", "of", the heaviest coordinates of every TF vector. That is why
# unrelated paragraphs differ in fewer than 32 bits on average (notebook 02 measured it, and how IDF
# weights move them towards 32). How far below depends on the corpus: the longer the documents, the
# more of each TF vector's length sits on the same few function words (notebook 07 compares the
# course's two corpora).
#
# ### The session's numbers
#
# > *Si dos documentos son idénticos: $\theta = 0 \implies d_H = 0$. Si dos documentos son ortogonales:
# > $\theta = \pi/2 \implies d_H = 32$ bits. Si dos documentos son casi-duplicados ($\theta \approx 5°$):
# > $d_H \approx 64 \times 5/180 \approx 1.77 \le 3$ bits.* (the session)

# %%
for name, th in [
    (_("identical"), 0.0),
    (_("orthogonal"), np.pi / 2),
    (_("near-duplicate, 5°"), np.radians(5)),
]:
    e = expected_hamming(th, bits=64)
    print(f"{name:20s} E[d_H] = 64 * {np.degrees(th):5.1f}/180 = {e:6.3f} bits")

# %% [markdown]
# $64 \times 5 / 180 = 1.777\ldots$, which the session truncates to 1.77 (rounded, 1.78). The expected
# value is not the whole story: at 5°, how often does the distance stay within the usual threshold
# $k = 3$? $d_H \sim \mathrm{Binomial}(64, \theta/\pi)$:

# %%
for deg in (5, 10, 30):
    p = deg / 180
    sd = np.sqrt(64 * p * (1 - p))
    print(
        f"{deg:2d} degrees: E[d_H] = {64 * p:5.2f} ± {sd:.2f} bits,  P(d_H <= 3) = {binom.cdf(3, 64, p):.6f},"
        f"  missed with k = 3: {1 - binom.cdf(3, 64, p):.1%}"
    )

# %% [markdown]
# ### Play with $\theta$
#
# For each angle: two vectors with a dozen of the random lines (left), and the Hamming distances of
# 64-bit signatures over 2,000 independent sets of hyperplanes (right) against $64\,\theta/\pi$. Every
# frame is precomputed (seeded). As opened it cycles through the angles by itself; after a run, drag
# the slider to stop on one.

# %%
widgets.theta_slider(bits=64, trials=2000, seed=0)

# %% [markdown]
# ## Random hyperplanes on dense vectors: how many bits?
#
# Simhash hashes sparse text. Random hyperplanes work on any vectors, and they are a common way to
# index **dense** ones (embeddings of text or images, a few hundred dimensions): draw $b$ Gaussian
# normals, keep each vector's $b$-bit signature, put it in a hash table keyed on the signature. A
# query looks only at its own bucket. How many bits? Pinecone's article on random projection shows
# the trade-off on a real data set; here `experiments.dense_tradeoff` measures it on vectors in 128
# dimensions crowded around 100 centres, as embeddings crowd in some directions, with 100 queries
# that each have 10 true neighbours planted at 5°–30° among them (the cell prints how many vectors
# are stored, the planted ones included).
#
# - **Buckets** (one table keyed on all $b$ bits): a true neighbour at angle $\theta$ lands in the
#   query's bucket only if all $b$ bits agree, $p^b$ with $p = 1 - \theta/\pi$; $L$ tables with
#   hyperplanes of their own raise that to $1 - (1 - p^b)^L$ (notebook 01's amplification), at $L$
#   times the memory.
# - **Ranking** (no buckets; what Faiss's `IndexLSH` does): compare the query's signature with every
#   stored one and return the 10 closest in Hamming distance. Each extra bit makes that distance a
#   better estimate of the angle, but every query scans all signatures.

# %%
n_vectors, n_queries, n_true = 20_000, 100, 10
tradeoff = experiments.dense_tradeoff(
    n=n_vectors, dim=128, clusters=100, queries=n_queries, k=n_true, seed=60
)
print(
    f"{int(tradeoff['n']):,} vectors stored: {n_vectors:,} around the centres "
    f"and {n_queries * n_true:,} planted neighbours"
)
plot.dense_tradeoff(tradeoff)
plt.tight_layout()
plt.show()
print(" bits | candidates, 1 table | recall, 1 table | recall, 4 tables | recall, ranking all")
for c, b in enumerate(tradeoff["bits"]):
    print(
        f" {b:4d} | {tradeoff['candidates'][0, c]:19.1f} | {tradeoff['bucket_recall'][0, c]:15.2f} |"
        f" {tradeoff['bucket_recall'][1, c]:16.2f} | {tradeoff['ranking_recall'][c]:.2f}"
    )
assert np.all(np.diff(tradeoff["candidates"][0]) <= 0) and np.all(
    np.diff(tradeoff["ranking_recall"]) >= -0.02
)
assert np.abs(tradeoff["bucket_recall"] - tradeoff["bucket_recall_theory"]).max() < 0.1

# %% [markdown]
# With few bits a bucket holds thousands of vectors: the table saves almost nothing over a scan. With
# many bits buckets hold one vector or none, and the true neighbours are no longer in them: recall
# falls as $p^b$ (the measured points follow the predicted lines). Several tables buy recall back at
# the same bucket size, paying memory; ranking by Hamming distance reaches high recall with enough
# bits, paying a scan of every signature. That is the trade-off every LSH index tunes (bits per
# table, number of tables). The block index of notebook 05 escapes it for fingerprints: it keys
# each table on 16 bits of a 64-bit fingerprint and then checks the whole distance, and the
# pigeonhole principle makes it **exact** for every pair within $k$ bits.
#
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
# Reading $d_H$ as an exact measurement. It is a **random estimate** of $64\,\theta/\pi$ with
# standard deviation $\sqrt{64\,p\,(1-p)}$: the binomial cell above prints it for 5°, and the share of
# true 5° near-duplicates that land above $k = 3$ and are missed. Two habits follow: pick $k$ from the
# distribution, not from the mean; and, when a bound must hold for certain, use more bits or verify
# the candidates on the original vectors.
#
# ## Summary
#
# - A random hyperplane separates $u$ and $v$ with probability $\theta/\pi$; 64 of them give
#   $E[d_H] = 64\,\theta/\pi$, verified above on Gaussian hyperplanes and on Simhash over real
#   paragraphs.
# - Simhash's hash bits *are* random $\pm 1$ hyperplanes (source 001): $V = R\,w$, made on the fly.
# - Term counts are never negative, so documents are never more than 90° apart; shared function words
#   keep unrelated ones typically well below (only pairs that share no word reach 90°).
# - The session's numbers: 0, 32 and $64 \cdot 5/180 \approx 1.78$ bits; $d_H \sim
#   \mathrm{Binomial}(64, \theta/\pi)$.
# - On dense vectors, bits per table trade candidates for recall; more tables buy recall with memory.
#
# ## Questions (answer in your own words, then unfold)
#
# <details><summary><b>1.</b> Why is the probability $\theta/\pi$ and not $\theta/2\pi$, although a line's normal can
# point anywhere on the circle?</summary>
#
# A normal $r$ and its opposite $-r$ give the same line, so the line's direction is uniform over a
# half-turn, $\pi$. Counted with normals instead: $r$ separates $u$ and $v$ when it falls in an arc
# of $\theta$ *or* in the opposite arc, $2\theta$ out of $2\pi$: the same $\theta/\pi$.
# </details>
#
# <details><summary><b>2.</b> Why does adding dimensions not change the $\theta/\pi$ result?</summary>
#
# Only the component of $r$ in the plane of $u$ and $v$ decides the signs of $r \cdot u$ and
# $r \cdot v$. For a Gaussian $r$ that component is a 2-D Gaussian, whose direction is uniform, so the
# 2-D argument applies unchanged in any dimension (the Gaussian experiment above used 300).
# </details>
#
# <details><summary><b>3.</b> Simhash's hyperplanes have $\pm 1$ coordinates. When could that differ from
# Gaussian ones?</summary>
#
# A $\pm 1$ vector's direction is not exactly uniform: with few features (a short text) only $2^m$
# sign patterns exist, and the projections onto the $u$–$v$ plane are lumpy, so the probability can
# differ from $\theta/\pi$; ties ($V_i = 0$) also happen with integer weights. With many features of
# comparable weight the projection is close to Gaussian (central limit theorem) and the formula
# holds, as the real paragraphs above show. A document dominated by one or two heavy features is the
# bad case.
# </details>
#
# <details><summary><b>4.</b> Unrelated English paragraphs are typically well below 90° apart (the
# angles measured above). Why, and how would you fix it?</summary>
#
# Their TF vectors share the heaviest coordinates, function words such as "the", "is", "of"; and
# counts are never negative, so no pair can pass 90° in the first place. Weight the features by IDF
# (notebook 02), which gives words found in every document a weight near zero, or drop stop words;
# then unrelated texts approach 90° and 32 bits.
# </details>
#
# <details><summary><b>5.</b> An index keys one table on 32-bit signatures of dense vectors. Recall is
# too low. What are the two ways out, and what does each cost?</summary>
#
# Fewer bits per table (bigger buckets: more candidates to check per query), or more tables with
# their own hyperplanes (recall $1 - (1 - p^b)^L$: $L$ times the memory and $L$ lookups). Ranking all
# signatures by Hamming distance avoids buckets but scans everything.
# </details>
