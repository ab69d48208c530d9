# %% [markdown]
# # 07 · Socratic review and glossary
#
# The session's section 5, *Preguntas de Comprensión Profunda y Diagnóstico Socrático*, is an empty
# heading. Here are the questions. Answer each **in your own words, on paper, before** you click to
# unfold the answer. If your answer differs, go back to the notebook named in brackets.

# %% [markdown]
# ## 1. Locality-sensitive hashing [01]
#
# <details><summary><b>1.1</b> A colleague proposes storing the SHA-256 of each article to detect
# reworded copies. What will happen, and why is that SHA-256 working as designed?</summary>
#
# Every rewording, even one comma, changes about half of the 256 bits (the avalanche effect), so no
# reworded copy ever matches: only byte-identical copies are found. That is SHA-256's design goal: an
# attacker must not be able to find inputs with related hashes. Near-duplicate detection needs the
# opposite property: similar inputs, similar hashes.
# </details>
#
# <details><summary><b>1.2</b> State the $(d_1, d_2, p_1, p_2)$-sensitive definition. Why must $d_1 < d_2$ and
# $p_1 > p_2$?</summary>
#
# A family $H$ is $(d_1, d_2, p_1, p_2)$-sensitive if for $h$ drawn from $H$:
# $d(x, y) \le d_1 \Rightarrow P(h(x) = h(y)) \ge p_1$ and
# $d(x, y) \ge d_2 \Rightarrow P(h(x) = h(y)) \le p_2$. If $p_1 \le p_2$, close pairs would collide
# no more often than far pairs and the hash could not tell them apart. The gap $d_1 < d_2$ leaves a
# band of "undecided" distances where nothing is promised.
# </details>
#
# <details><summary><b>1.3</b> One Simhash bit is $(10°, 60°, 0.94, 0.67)$-sensitive. How does an index
# turn such a weak gap into a sharp filter, and how can the same index be called exact?</summary>
#
# By amplification: require $r$ bits to agree together (AND, $p \mapsto p^r$, which pushes far pairs'
# probability towards 0) and accept a match in any of $L$ tables (OR, $q \mapsto 1 - (1 - q)^L$, which
# brings close pairs back towards 1). The block index uses $r = 16$ and $L = 4$: two documents at angle
# $\theta$ become candidates with probability $1 - (1 - p^{16})^4$, $p = 1 - \theta/\pi$. That is a
# statement about *documents*, whose fingerprints are random. Given the *fingerprints*, nothing is
# random: a pair within 3 bits always shares an untouched block (pigeonhole), so it is always a
# candidate, and the popcount check keeps exactly the pairs within 3 bits: exact (notebooks 01 and 05).
# </details>
#
# ## 2. Simhash [02]
#
# <details><summary><b>2.1</b> Replay "rust safe fast" with the hashes 0011, 0101, 0111. What are the
# accumulators and the fingerprint?</summary>
#
# $V_0 = +3$, $V_1 = +1$, $V_2 = +1$, $V_3 = -3$, so the fingerprint is `0111` (bit 3 is 0 because
# every word voted against it).
# </details>
#
# <details><summary><b>2.2</b> One word of weight 1 is replaced by another. Which accumulators can
# flip their bit?</summary>
#
# Only those at $V_i \in \{-1, 0, 1, 2\}$ before the edit. Removing the old word's vote ($\pm 1$)
# and adding the new one's ($\pm 1$) moves every $V_i$ by $-2$, $0$ or $+2$. A 1 (from $V_i > 0$)
# becomes a 0 only if $V_i - 2 \le 0$, so $V_i \in \{1, 2\}$; a 0 (from $V_i \le 0$) becomes a 1
# only if $V_i + 2 > 0$, so $V_i \in \{-1, 0\}$. The set is lopsided because a tie gives 0. Long
# documents have most $|V_i|$ large, hence few flips (notebook 02 measured every flipped bit at one
# of the four values).
# </details>
#
# <details><summary><b>2.3</b> The accumulators $[13, 108, -22, -5, -32, 55]$ cannot come from integer
# weights. Why?</summary>
#
# $V_i = 2 S_i - W$, where $S_i$ is the weight voting $+$ on bit $i$ and $W$ the total weight. With
# integer weights all $V_i$ have the parity of $W$; 13 is odd and 108 is even.
# </details>
#
# <details><summary><b>2.4</b> Source 004 writes those accumulators as <code>110001</code>. Which
# integer is the fingerprint?</summary>
#
# It is 35. The list is $V_0, V_1, \dots, V_5$ and the source writes the signs in the same order, $V_0$
# first. Bit $i$ of the fingerprint comes from $V_i$ (the library, the session's Rust and Python, the
# `simhash` package), and a binary numeral writes bit 0 last: the bits are `0b100011` = 35. Reading
# `110001` as a binary number (49) reverses them.
# </details>
#
# <details><summary><b>2.5</b> Why does IDF weighting push unrelated documents towards 32 bits apart?</summary>
#
# With TF, function words ("the", "is", "of") are heavy and shared by all English texts, so
# unrelated documents' vectors point in similar directions, typically well below 90° apart
# (notebook 04 measured them; only a pair that shares no word at all reaches 90°); and
# counts are never negative, so no two documents can be more than 90° apart anyway. IDF gives words
# found everywhere a weight near 0, so what remains is the content words, which unrelated documents
# do not share: their vectors become nearly orthogonal, and $64 \cdot (\pi/2)/\pi = 32$.
# </details>
#
# <details><summary><b>2.6</b> The session puts the 64 accumulators in a <code>[i64; 64]</code> on the stack. What
# goes wrong with a <code>Vec&lt;i64&gt;</code>, and what is the Python analogue?</summary>
#
# A `Vec` is a heap allocation: a malloc and a free per document (or per token, if created in the
# loop), plus a pointer indirection. The stack array costs nothing to allocate and its 512 bytes stay in
# cache and in vector registers. In Python, a list of 64 ints is 64 pointers to heap objects, and the
# per-bit loop runs in the interpreter: notebook 02 measured it against the compiled loop, orders of
# magnitude slower (the factor depends on the machine).
# </details>
#
# ## 3. Hamming distance and POPCNT [03]
#
# <details><summary><b>3.1</b> Compute $d_H(100111, 101010)$ with XOR.</summary>
#
# $100111 \oplus 101010 = 001101$, which has three 1s: the distance is 3.
# </details>
#
# <details><summary><b>3.2</b> Why does <code>x &amp;= x - 1</code> remove exactly one 1-bit, and why does
# <code>isEqual</code> stop after $n + 1$ steps?</summary>
#
# Subtracting 1 turns the lowest 1-bit into 0 and the 0s below it into 1s; AND with the original keeps
# everything above and clears the rest, so exactly the lowest 1-bit disappears. After $n + 1$
# removals we know the distance exceeds $n$, which is all a threshold test needs, so the loop costs
# at most $n + 1$ steps whatever the distance.
# </details>
#
# <details><summary><b>3.3</b> What does <code>(fp1 ^ fp2).count_ones()</code> compile to on x86-64, and
# why is the naive bit loop slow even in a compiled language?</summary>
#
# An `xor` and a single `popcnt` instruction, no loop and no branch, *when the compiler may use
# `popcnt`*: Rust's default x86-64 target predates it, so you build with `-C target-cpu=native` (or
# `-C target-feature=+popcnt`); otherwise `count_ones()` becomes a short SWAR sequence of shifts,
# masks and a multiplication. The naive loop runs up to 64 iterations with a data-dependent branch
# each, which the CPU mispredicts on random bits.
# </details>
#
# ## 4. Charikar's hyperplanes [04]
#
# <details><summary><b>4.1</b> Why is the probability that a random hyperplane separates $u$ and $v$ equal to
# $\theta/\pi$?</summary>
#
# Project onto the plane spanned by $u$ and $v$: the hyperplane cuts it in a line through the origin
# whose direction is uniform over a half-turn ($\pi$). The line separates $u$ and $v$ exactly when it
# falls inside the angle $\theta$ between them (or its opposite, which is the same line). So the
# probability is $\theta/\pi$.
# </details>
#
# <details><summary><b>4.2</b> Where are Simhash's random hyperplanes?</summary>
#
# In the hash function. Bit $i$ of feature $k$'s hash, with 0 read as $-1$, is coordinate $k$ of the
# $i$-th random vector $r_i$; the accumulator $V_i = \sum_k w_k\, r_i[k]$ is the dot product
# $w \cdot r_i$, and bit $i$ is its sign (source 001). Notebook 04 rebuilt the $64 \times \text{vocabulary}$
# $\pm 1$ matrix and got the library's fingerprint.
# </details>
#
# <details><summary><b>4.3</b> $E[d_H]$ at 5° is $64 \cdot 5/180 \approx 1.78$ bits, below $k = 3$. Are all 5° pairs found
# with $k = 3$?</summary>
#
# No. $d_H \sim \mathrm{Binomial}(64, 5/180)$ with standard deviation about 1.3, so
# $P(d_H \le 3) \approx 0.90$: about one true 5° pair in ten is missed. The threshold must be chosen
# from the distribution, not the mean.
# </details>
#
# <details><summary><b>4.4</b> Why does the plot of real paragraphs in notebook 04 have nothing beyond
# 90°?</summary>
#
# Term counts are never negative, so the dot product of two TF vectors is a sum of non-negative
# products: $\cos\theta \ge 0$ and $\theta \le 90°$ for any two documents. (TF-IDF weights are
# non-negative too.) Only vectors with negative coordinates, such as the random Gaussian ones, reach
# past 90°.
# </details>
#
# <details><summary><b>4.5</b> Random hyperplanes index dense vectors with one hash table keyed on the
# $b$-bit signature. What happens as $b$ grows?</summary>
#
# Buckets shrink (about $n / 2^b$ vectors each for spread-out data), so a query checks fewer
# candidates; but a true neighbour at angle $\theta$ stays in the query's bucket only with
# probability $(1 - \theta/\pi)^b$, so recall falls. More tables with their own hyperplanes bring
# recall back, $1 - (1 - p^b)^L$, at $L$ times the memory (notebook 04 measured both).
# </details>
#
# ## 5. The block index [05]
#
# <details><summary><b>5.1</b> Prove that two 64-bit fingerprints with $d_H \le 3$ agree exactly on at least
# one of four 16-bit blocks.</summary>
#
# The differing bits are at most 3 and each lies in exactly one of the 4 disjoint blocks, so at most
# 3 blocks contain a difference. At least one block contains none: it is identical (pigeonhole principle).
# </details>
#
# <details><summary><b>5.2</b> Why is the session's index exact while LSH is usually probabilistic?</summary>
#
# The pigeonhole argument is a certainty about fingerprints: every pair within $k$ bits shares a
# block, so every true match is a candidate, and candidates are verified exactly with popcount.
# Probabilistic LSH (random bits, random projections, MinHash bands) only makes close items collide
# with high probability. The randomness has not gone away: it sits one step earlier, in the
# fingerprints themselves, whose distance is a random estimate of the documents' angle (1.3 and 4.3
# above).
# </details>
#
# <details><summary><b>5.3</b> At $N = 2^{34}$ random fingerprints, how many candidates does one 16-bit probe
# return, and how do Manku et al. fix it?</summary>
#
# About $2^{34} / 2^{16} = 2^{18} = 262{,}144$ per table, a million per query over 4 tables. Manku's
# permuted tables split into more blocks and keep more bits exact per table ($\binom{6}{3} = 20$
# tables keeping 31–33 bits: about $2^{34} / 2^{31} = 8$ candidates per probe), paying with memory:
# every table stores every fingerprint.
# </details>
#
# <details><summary><b>5.4</b> Why does the session assert <code>threshold &lt;= 3</code>?</summary>
#
# With 4 blocks, 4 differing bits can land one in each block, so no block is intact and the pair is
# never a candidate: the index would silently miss it. $k \le m - 1$ for $m$ blocks.
# </details>
#
# ## 6. Near-duplicates in practice [06]
#
# <!-- The questions on notebook 06 (and their folded answers) go in this section: it is the only part
# of this notebook the author of notebook 06 edits. -->
#
# The numbers question 6.1 is about: the unrelated pairs of the course's two English corpora,
# measured the same way (2,000 random pairs of different documents each; words, TF weights, 64
# bits). Both corpora come from Python's bundled documentation, so the figures depend on your Python
# release, and this cell's output is not checked by the tests; the claim the answer makes is
# checked with `assert`.

# %% tags=["nbval-ignore-output"]
import numpy as np

from simhash_lab import Simhasher, hamming
from simhash_lab.course import compare, corpus, experiments

h = Simhasher()
rng = np.random.default_rng(60)
corpora = {
    _("paragraphs of the manual (notebooks 00-04)"): experiments.paragraphs(),
    _("documents of the manual (notebook 06)"): [d.text for d in corpus.python_docs()],
}
print(
    "{:43s} {:>12s} {:>10s} {:>7s} {:>8s}".format(
        _("unrelated pairs of"), _("median words"), _("mean angle"), "64·θ/π", _("measured")
    )
)
mean_angle = {}
for name, docs in corpora.items():
    X, _ = compare.tf_matrix(docs)
    i, j = experiments.unrelated_pairs(len(docs), 2000, rng)
    theta = np.arccos(np.clip(compare.cosines(X, np.stack([i, j], axis=1)), -1, 1))
    fps = h.fingerprints(docs)
    mean_angle[name] = np.degrees(theta.mean())
    print(
        f"{name:43s} {np.median([len(d.split()) for d in docs]):12.0f} {mean_angle[name]:9.0f}° "
        f"{64 * theta.mean() / np.pi:7.1f} {hamming(fps[i], fps[j]).mean():8.1f} bits"
    )
short, long = mean_angle.values()
assert long < short < 90  # longer documents, smaller angles: the answer to 6.1 says so

# %% [markdown]
# <details><summary><b>6.1</b> On real English text, unrelated documents are fewer than 32 bits apart
# with the default settings. Why, what decides how many, and what does it mean for choosing
# k?</summary>
#
# The expected distance is $64\,\theta/\pi$ for the angle $\theta$ between the documents' weight
# vectors. Term frequencies are never negative, so no two TF vectors are more than 90° apart
# ($E[d_H] \le 32$ for every pair), and every English text weighs the same function words ("the",
# "a", "is", "of") heavily, which pulls unrelated documents' vectors together. How far depends on
# the corpus, and above all on the length of its documents: the count of "the" grows with the
# length, while most other words appear once or twice, and a count enters the vector's length
# squared. So the longer the documents, the more of each vector lies along the same few function
# words, and the smaller the angle between unrelated ones. The table above measured it: the short
# paragraphs of notebooks 00 to 04 are further apart than the longer documents of notebook 06, which
# is why those notebooks print larger distances for unrelated pairs than notebook 06 does. The gap
# between copies and unrelated pairs is therefore narrower than the session's 32 suggests, and how
# narrow depends on your corpus: k must be measured on labelled pairs from it. Binary or TF-IDF
# weights, which silence the function words, move unrelated pairs towards 32.
# </details>
#
# <details><summary><b>6.2</b> Why does one MinHash value agree for two sets with probability equal to
# their Jaccard similarity?</summary>
#
# Under a random order of all elements, the first element of $A \cup B$ is equally likely to be any
# of its $|A \cup B|$ elements. $A$ and $B$ have the same minimum exactly when that element lies in
# both, in $A \cap B$: probability $|A \cap B| / |A \cup B| = J(A, B)$. With $n$ hash functions the
# share of agreements estimates $J$ with standard error $\sqrt{J(1-J)/n}$.
# </details>
#
# <details><summary><b>6.3</b> LSH banding cuts 128 MinHash values into $b = 25$ bands of $r = 5$. What is
# the chance that a pair with Jaccard 0.5 becomes a candidate, and how is this the block index of
# notebook 05 again?</summary>
#
# A band agrees with probability $0.5^5 = 1/32$, so at least one of 25 bands agrees with
# probability $1 - (31/32)^{25} \approx 0.55$; the S-curve $1 - (1 - s^r)^b$ rises steepest near
# $(1/b)^{1/r} \approx 0.53$. The block index is the same AND-OR construction on Simhash bits: a
# block of $r = 16$ bits must agree entirely (AND), in any of $b = 4$ blocks (OR), with
# $s = 1 - \theta/\pi$ the chance that one bit agrees.
# </details>
#
# <details><summary><b>6.4</b> With words and TF weights, why does $k = 3$ flag a short MIT license
# and a long file that bundles it with other licenses?</summary>
#
# Simhash compares the directions of the weight vectors. The long file uses the same legal
# vocabulary in about the same proportions, so its TF vector points almost the same way and the
# fingerprints are a few bits apart, while the sets of 3-word shingles overlap little (a low
# Jaccard: the short file's shingles are a small part of the long file's): containment is not
# resemblance. Word-shingle features with binary weights, a k calibrated
# from the Jaccard threshold, and exact verification of each candidate pair fix it.
# </details>
#
# <details><summary><b>6.5</b> Why must a keep/drop table not be built from connected components of
# the candidate pairs?</summary>
#
# Closeness is not transitive: A near B and B near C does not make A near C. Connected components
# follow every chain, so a group can join documents that have nothing in common (on the license
# files of notebook 06, the largest group joined files whose Jaccard to its first file lies far
# below the threshold; that notebook printed how far on the packages installed there). A
# keep/drop policy must drop each document only for a kept one it is verified to be near, and
# `dedup_texts` asks more by default (complete linkage): every two members of a cluster are a
# verified pair. Every row of the table (dropped, kept, distance, similarity) can be checked.
# </details>
#
# ## 7. Putting it together
#
# <details><summary><b>7.1</b> Walk one new web page through the whole pipeline.</summary>
#
# Tokenize and weight (TF or TF-IDF) → 64 accumulators vote with each token's hash → fingerprint bit
# $i$ = $[V_i > 0]$ → split into blocks, look each block up in its table → verify each candidate with
# $\mathrm{popcount}(fp \oplus \text{candidate}) \le 3$ → report near-duplicates, then insert the
# page's fingerprint into every table.
# </details>

# %% [markdown]
# ## Glossary
#
# The sources use three languages (notebook 00 lists them; their texts are in
# [course/sources](../course/sources/README.md)). Each term is given as the sources write it: the
# Spanish as the session writes it, the Chinese as source 001 (simplified characters) or source 004
# (traditional characters) writes it, marked (001) or (004). A term the sources do not use is
# marked: ‡ in the Spanish column, † in the Chinese one; it is the usual term, given so that you can
# search for it.
#
# | English | Español (the session) | 中文 (sources 001 / 004) | Meaning |
# |---|---|---|---|
# | locality-sensitive hashing (LSH) | Hashing Sensible a la Localidad | 局部敏感性hashing (001); 局部敏感性的hash (004); 局部敏感哈希 † | hashing where close inputs collide more often than far ones |
# | $(d_1, d_2, p_1, p_2)$-sensitive | $(d_1, d_2, p_1, p_2)$-sensible ‡ | (d1,d2,p1,p2)-sensitive (001) | the four-number definition of LSH |
# | avalanche effect | efecto avalancha | 雪崩效应 † | any input change flips about half of a cryptographic hash's bits |
# | near-duplicate | casi-duplicado | 近似重复 † | documents that differ only slightly (source 004 asks whether two documents are 相似, "similar") |
# | de-duplication | deduplicación ‡ | 去重 (004) | finding the near-duplicates of a collection to drop them (004: 海量文本去重, 網頁去重) |
# | approximate nearest neighbours | vecinos más cercanos aproximados | 查找相邻元素 (001); 近似最近邻 † | the search problem LSH solves in sublinear time (001: "finding neighbouring elements") |
# | fingerprint, signature | huella digital; firma ‡ | 签名 (001); 特征字 (004); simhash值 (004) | the $f$-bit (here 64-bit) code of a document |
# | feature, weight | término; peso | 特征 (001); 权重 (001); 關鍵詞 (004); 權重 (004) | what votes, and how loudly (source 004's features are keywords) |
# | keyword extraction | extracción de palabras clave ‡ | 關鍵詞抽取 (004) | choosing a document's weighted words before hashing (segmentation, then weights) |
# | accumulator | acumulador | v的第i个元素 (001); 位的縱向累加 (004) | the running vote sum $V_i$ of one bit (001: "the $i$-th element of $v$"; 004: "adding up the bits column by column") |
# | tokenization, segmentation | tokenización ‡ (the session: tokenizar); segmentación ‡ | 分詞 (004) | cutting text into features (Chinese needs a segmenter) |
# | TF-IDF | TF-IDF | TF-IDF †; 词频-逆文档频率 † | weights: frequent in the document, rare in the collection (the session names it with session 59) |
# | Hamming distance | distancia de Hamming | 汉明距离 (001); 海明距離 (004) | number of differing bit positions |
# | XOR | XOR bit a bit | xor (004); 异或 † | $A \oplus B$: 1 exactly where two bits differ |
# | population count (POPCNT) | Population Count; instrucción POPCNT; contar cuántos bits quedaron en 1 | 二進制中1的個數 (004); count_1 (004); 汉明重量 † | number of 1-bits |
# | random hyperplane | hiperplano aleatorio | 随机超平面 (001) | a flat cut through the origin, with a random normal $r_i$ |
# | random vector | vector aleatorio ‡; vector normal aleatorio | 随机向量 (001) | the random direction $r_i$ drawn for bit $i$: the hyperplane's normal, which source 001 calls simply a random vector |
# | normal vector | vector normal | 法向量 † | the direction perpendicular to a hyperplane |
# | expected value | esperanza matemática | 期望 † | the mean a random quantity takes over many draws: $E[d_H] = 64\,\theta/\pi$ |
# | cosine similarity, angle | similitud coseno; ángulo | 夹角 (001); 余弦相似度 † | how aligned two vectors are: $\cos\theta = u \cdot v / (\lvert u \rvert \lvert v \rvert)$ |
# | dot product | producto punto ‡ | 点积 (001) | $u \cdot r_i$ (the session writes only the formula); its sign gives the bit |
# | dimensionality reduction | reducción de dimensionalidad ‡ | 降维 (001) | many dimensions to $f$ bits (the session speaks of "espacios de altísima dimensionalidad") |
# | pigeonhole principle | Principio del Palomar | 抽屉原理 † | $k$ items in $k + 1$ boxes leave a box empty |
# | block, chunk | bloque; trozo | 分块 † | a run of fingerprint bits used as a table key |
# | shift and mask | corrimiento y máscara | 移位和掩码 † | how a block's bits are taken out of a fingerprint: `(fp >> (chunk * 16)) & 0xFFFF` |
# | hash table, bucket | tablas Hash; cubeta ‡ | hash table (001); 桶 (001) | where the index finds candidates in $O(1)$ |
# | permuted tables | tablas permutadas ‡ | 置换后的有序表 † | Manku et al.'s design: more tables, more bits kept exact |
# | stack | Stack; pila ‡ | 栈 † | a call's fixed-size storage: allocating it is free |
# | heap (memory) | Heap; reserva dinámica; memoria dinámica ‡ | 堆 † | storage allocated at run time (`malloc`/`free`, the session's "reserva dinámica"); not the heap *data structure*, in Spanish *montículo*, which in Chinese is 堆 too (source 001's list of related articles has 堆排序, heapsort) |
# | shingling | shingling ‡ | shingle算法 (004) | sets of overlapping $n$-grams (another near-duplicate method) |
# | amplification (AND, OR) | amplificación ‡ | 放大 † | combining hashes: all of $r$ must agree, any of $L$ tables may match |
# | SWAR (SIMD within a register) | SWAR ‡ | SWAR † | one 64-bit operation on eight bytes (or 32 pairs of bits) at once |
# | Jaccard similarity | similitud de Jaccard ‡ | Jaccard相似度 † | shared features over all features of two sets |
# | precision, recall | precisión ‡; exhaustividad ‡ | 准确率 †; 召回率 † | of the pairs flagged, the share that are near-duplicates; of the near-duplicates, the share flagged (notebook 06) |
# | boilerplate | texto repetitivo ‡ | 样板文字 † | text that many documents share word for word: license terms, page templates |
# | crawler | rastreador ‡ | 爬虫 † | the program that fetches web pages, and sees the same page again and again |
# | MinHash, banding | MinHash ‡; bandas ‡ | 最小哈希 †; 行条 † | the LSH for Jaccard similarity: $b$ bands of $r$ rows (notebook 06); 行条 is the band of the Chinese edition of *Mining of Massive Datasets* |
#
# ‡ The session does not use this Spanish term. † Neither Chinese source uses this term (堆: not in
# this sense). Where a cell mixes languages, that is how the source writes it (source 004 keeps
# "simhash", "xor" and "hash" in English, source 001 "hash table" and "hashing", and the session
# "Stack", "Heap" and "Population Count").
