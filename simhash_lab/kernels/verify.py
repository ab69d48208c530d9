"""Verification kernels: exact Jaccard similarity of shingle sets, and the keep/drop clustering.

* ``shingle_hashes`` and ``pack_sets``: every document of a UTF-8 batch (``buf``, ``offsets``, as the general
  fingerprint path takes it) cut into word n-shingles (the features of ``word_shingles(n)``), each
  hashed with XXH3-64 where it lies in one space-joined copy of the words, sorted
  (``sort.sort_hashes``) and de-duplicated: the document's shingle set as a sorted uint64 run.
  The sets of a batch come back as CSR arrays ``(indptr (n + 1,), data (nnz,))``.
* ``jaccard``: ``|A ∩ B| / |A ∪ B|`` of pairs of sets, the intersection counted by one merge of
  the two sorted runs (no hash tables, no allocation), stopped once the pair cannot reach a
  threshold (the calibration keeps only the pairs that do; 0.0 lets every merge finish).
* ``greedy_clusters``: the greedy keep/drop pass over verified pairs, star or complete linkage (see
  its docstring; ``star_clusters`` is its old name).

Two sets are compared through 64-bit hashes, so two different shingles count as one only when
their XXH3 hashes collide (about 2**-64 per pair of shingles).

Each kernel over many items (documents, pairs, queries) takes a range of them and writes only their
outputs: ``simhash_lab._threads`` runs ranges of a large batch in threads.
Kernels never raise user-facing errors: :mod:`simhash_lab.dedup` validates first.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import popcount
from .hashes import read64, write64, xxh3_9to16_inline, xxh3_17to128_inline, xxh3_64
from .sort import sort_hashes, sort_u64  # noqa: F401 - sort_u64: imported from here by older code
from .strings import unit_bytes
from .tokenize import lower_tokenize_str, str_scratch_inline, tokenize_spans
from .vote import fold_counts, vote_unit

_U64 = np.uint64
_ALL_BITS = _U64(0xFFFFFFFFFFFFFFFF)


@kernel(python=False)
def _word_spans(b, start, end, p):
    nbytes = end - start
    starts = np.empty(nbytes // 2 + 2, dtype=np.int64)
    ends = np.empty(nbytes // 2 + 2, dtype=np.int64)
    ntok = tokenize_spans(b, start, end, p, starts, ends)
    return starts, ends, ntok


@kernel(python=False)
def doc_shingle_hashes(b, start, end, p, n, out):
    """The sorted distinct XXH3 hashes of the word ``n``-shingles of ``b[start:end]`` into ``out``
    (capacity >= the number of shingles, ``max(words - n + 1, 1)``); returns their count.

    A shingle's bytes are its words joined by one space, the feature ``kernels.tokenize.doc_features``
    makes for ``FEAT_SHINGLES`` (a document with fewer words is one shingle of all of them), so the
    hashes are the same; the words are copied once, space-separated, and each shingle is hashed
    where it lies in that copy."""
    starts, ends, ntok = _word_spans(b, start, end, p)
    if ntok == 0:
        return 0
    joined = np.empty(end - start + ntok + 1, dtype=np.uint8)
    ws = np.empty(ntok + 1, dtype=np.int64)
    o = 0
    for t in range(ntok):
        ws[t] = o
        for q in range(starts[t], ends[t]):
            joined[o] = b[q]
            o += 1
        joined[o] = 32
        o += 1
    ws[ntok] = o
    m = max(ntok - n + 1, 1)
    for i in range(m):
        out[i] = xxh3_64(joined, ws[i], ws[min(i + n, ntok)] - 1)
    big = m >= 64  # below 64 keys: an insertion sort, no scratch
    tmp = np.empty(m if big else 0, dtype=np.uint64)
    sort_hashes(out, tmp, np.empty(2 * m + 1 if big else 0, dtype=np.int64), m)
    u = 1
    for j in range(1, m):
        if out[j] != out[u - 1]:
            out[u] = out[j]
            u += 1
    return u


@kernel
def shingle_hashes(buf, offsets, p, n, slots, scratch, counts):
    """The sorted distinct shingle hashes of each document of a batch (or of a range of it:
    ``offsets[lo:hi + 1]``, ``slots[lo:hi + 1]``, ``counts[lo:hi]``): document ``d``'s go to
    ``scratch[slots[d]:slots[d + 1]]`` (room for as many as it can have shingles:
    ``shingle_slots``), their number to ``counts[d]``."""
    for d in range(offsets.shape[0] - 1):
        s0 = slots[d]
        s1 = slots[d + 1]
        if s1 > s0:
            counts[d] = doc_shingle_hashes(buf, offsets[d], offsets[d + 1], p, n, scratch[s0:s1])


@kernel(inline=True)
def str_shingle_hashes(data, ln, kind, p, n, tok, pos, joined, ws, order, out, o0):
    """The XXH3 hashes of the word ``n``-shingles of one text's ``ln`` code units of width
    ``kind`` (``data``, read in place), in no particular order, written to ``out[o0:o0 + m]``;
    returns ``(m, flags)`` (m = 0: no word). The text is lowered and tokenized by
    ``tokenize.lower_tokenize_str`` (``flags``: its), the tokens' UTF-8 joined by one space and
    each shingle hashed where it lies, by XXH3's size class. Scratch: ``tok``, ``pos``
    (``str_scratch``), ``joined`` (``tok`` + ``pos`` + 16 bytes), ``ws`` (``pos``'s entries),
    ``order`` (3 per shingle). The one shingle hasher of ``shingle_hashes_str`` and of the
    fused pass (``kernels.fused``)."""
    nflips, flag = lower_tokenize_str(data, ln, kind, p, tok, pos)
    ntok = nflips // 2
    if ntok == 0:
        return 0, flag
    o = np.int64(0)
    for t in range(ntok):  # the tokens joined by one space, copied 8 bytes at a time
        ws[t] = o
        s = pos[2 * t]
        ln = pos[2 * t + 1] - s
        # 16 bytes whatever the length (most words: no branch on it), then the rest; the
        # junk copied past the token is overwritten by the space and what follows
        write64(joined, o, read64(tok, s))
        write64(joined, o + 8, read64(tok, s + 8))
        for q in range(16, ln, 8):
            write64(joined, o + q, read64(tok, s + q))
        o += ln
        joined[o] = 32
        o += 1
    ws[ntok] = o
    m = max(ntok - n + 1, 1)
    # XXH3 by size class, each class in a loop of its own: three-word shingles fall on both
    # sides of 16 bytes about equally, so one loop with the size test in it would mispredict
    # every other shingle. The order of the hashes is free (sorted or counted next).
    c9, c17, cx = 0, m, 2 * m
    for i in range(m):  # branch-free scatter of shingle numbers into three lists
        ln = ws[min(i + n, ntok)] - 1 - ws[i]
        order[c9] = i
        order[c17] = i
        order[cx] = i
        mid = (ln > 16) & (ln <= 128)
        short = (ln > 8) & (ln <= 16)
        c9 += short
        c17 += mid
        cx += 1 - (short | mid)
    h = o0
    for k in range(0, c9):
        i = order[k]
        out[h] = xxh3_9to16_inline(joined, ws[i], ws[min(i + n, ntok)] - 1)
        h += 1
    for k in range(m, c17):
        i = order[k]
        out[h] = xxh3_17to128_inline(joined, ws[i], ws[min(i + n, ntok)] - 1)
        h += 1
    for k in range(2 * m, cx):
        i = order[k]
        out[h] = xxh3_64(joined, ws[i], ws[min(i + n, ntok)] - 1)
        h += 1
    return m, flag


# Documents per chunk of ``shingle_hashes_str``: its scratch is allocated once per chunk, sized
# for the chunk's longest text (a batch goes to threads in ranges of whole chunks).
STR_CHUNK = 64


@kernel
def shingle_hashes_str(ptrs, lens, kinds, p, n, slots, scratch, counts, flags, at):
    """``shingle_hashes`` straight from ``str`` objects (``strings.str_views``: their code units
    read in place): each text lowered and tokenized as the fused fingerprint path does it, eight
    ASCII units at a time, non-ASCII units in the same pass (``tokenize.lower_tokenize_str``);
    the tokens' UTF-8 joined by one space and each shingle hashed where it lies, sorted and
    de-duplicated into ``scratch[at[d]:]``, their number into ``counts[d]``. ``slots``: room
    for (units + 1) // 2 + 1 shingles per text; the texts' sets are packed one after another from
    ``slots[0]`` (``at[d] <= slots[d]``, so a set never reaches the next text's room), so the
    scratch a range touches is about the size of its sets, not of its room (a fresh page costs a
    fault and a zeroing: 12-20 ns per shingle when the room, 4 times the sets, was touched).
    ``flags[d]``: lower_tokenize_str's (the caller redoes a text whose lowercase needs Python, and
    refuses a lone surrogate).

    Scratch (tokens, flips, the joined words, the size classes' lists, the sort's buffer and
    counters) is allocated once per chunk of ``STR_CHUNK`` texts, not per text."""
    ndocs = ptrs.shape[0]
    w = slots[0]  # where the next text's set goes
    for ci in range((ndocs + STR_CHUNK - 1) // STR_CHUNK):
        lo = ci * STR_CHUNK
        hi = min(lo + STR_CHUNK, ndocs)
        tok_size = 1
        pos_size = 1
        most = 1
        for d in range(lo, hi):
            t_need, p_need = str_scratch_inline(lens[d], kinds[d])
            tok_size = max(tok_size, t_need)
            pos_size = max(pos_size, p_need)
            most = max(most, slots[d + 1] - slots[d])
        tok = np.empty(tok_size + 16, dtype=np.uint8)  # + 16: the copy below reads 16 bytes
        pos = np.empty(pos_size, dtype=np.int64)
        joined = np.empty(tok_size + pos_size + 16, dtype=np.uint8)  # + 16: and writes them
        ws = np.empty(pos_size, dtype=np.int64)
        tmp = np.empty(most, dtype=np.uint64)
        count = np.empty(2 * most + 1, dtype=np.int64)
        order = np.empty(3 * most, dtype=np.int64)
        for d in range(lo, hi):
            data = unit_bytes(ptrs[d], lens[d], kinds[d])
            at[d] = w
            m, flags[d] = str_shingle_hashes(
                data, lens[d], kinds[d], p, n, tok, pos, joined, ws, order, scratch, w
            )
            if m == 0:
                counts[d] = 0
                continue
            s0 = w
            out = scratch[s0 : s0 + m]
            sort_hashes(out, tmp, count, m)
            u = 1
            last = out[0]
            for j in range(1, m):  # distinct values, branch-free (a repeat is overwritten next);
                x = out[j]  # the last value in a register, not read back from what was stored
                out[u] = x
                u += x != last
                last = x
            counts[d] = u
            w += u


def shingle_slots(offsets: np.ndarray) -> np.ndarray:
    """Where each document's room in the scratch of ``shingle_hashes`` starts (int64 (n + 1,)): a
    word and a separator take at least 2 bytes, so a document of ``b`` bytes has at most
    ``(b + 1) // 2 + 1`` shingles."""
    slots = np.zeros(offsets.shape[0], dtype=np.int64)
    np.cumsum((np.diff(offsets) + 1) // 2 + 1, out=slots[1:])
    return slots


@kernel
def pack_sets(scratch, slots, counts):
    """CSR arrays ``(indptr, data)`` of the sets ``shingle_hashes`` left in ``scratch``: set d is
    ``scratch[slots[d]:slots[d] + counts[d]]`` (``shingle_hashes_str``: pass its ``at``)."""
    nd = counts.shape[0]
    indptr = np.zeros(nd + 1, dtype=np.int64)
    for d in range(nd):
        indptr[d + 1] = indptr[d] + counts[d]
    data = np.empty(indptr[nd], dtype=np.uint64)
    for d in range(nd):
        for j in range(counts[d]):
            data[indptr[d] + j] = scratch[slots[d] + j]
    return indptr, data


@kernel
def compact_sets(scratch, at, counts):
    """Move the sets ``shingle_hashes_str`` left in ``scratch`` (set d at ``at[d]``, ``counts[d]``
    long, in order, ``at[d]`` at or after the end of set d - 1) down to one run from 0; returns the
    CSR ``indptr``. The caller then shrinks ``scratch`` to ``indptr[-1]`` and has the CSR ``data``
    without a copy into fresh memory (``pack_sets``). A set already in place (every set of a batch
    shingled as one range) is not touched."""
    nd = counts.shape[0]
    indptr = np.empty(nd + 1, dtype=np.int64)
    o = np.int64(0)
    for d in range(nd):
        indptr[d] = o
        a = at[d]
        c = counts[d]
        if a != o:
            for j in range(c):  # forward: o <= a, so a set never overwrites what is still to move
                scratch[o + j] = scratch[a + j]
        o += c
    indptr[nd] = o
    return indptr


@kernel
def word_counts(buf, offsets, p, out):
    """out[d] = the number of words of document d (the words its shingles are made of; 0: it has no
    shingle, so nothing to verify against)."""
    for d in range(offsets.shape[0] - 1):
        out[d] = _word_spans(buf, offsets[d], offsets[d + 1], p)[2]


@kernel(inline=True)
def jaccard_rows_at_least(indptr, data, i, j, threshold):
    """Jaccard similarity of CSR rows ``i`` and ``j`` when it is at least ``threshold``; otherwise
    -1.0, often without finishing the merge.

    ``J = c / (a + b - c) >= t`` holds when the elements found in one run only (``a + b - 2c``)
    are at most ``(a + b)(1 - t) / (1 + t)``; the merge stops as soon as more have been seen. The
    bound is loosened by one element and a relative 1e-9, so a pair at the threshold is always
    merged to the end and gets its similarity ``c / (a + b - c)``.

    The size filter comes first, from the same bound: at least ``|a - b|`` elements are in one
    run only, and ``|a - b| > (a + b)(1 - t) / (1 + t)`` is exactly ``min(a, b) / max(a, b) < t``
    (``J <= min / max``), so such a pair is not merged at all (:func:`size_passes` is the same
    test on arrays, before the sets are made)."""
    a0, a1, b0, b1 = indptr[i], indptr[i + 1], indptr[j], indptr[j + 1]
    na = a1 - a0
    nb = b1 - b0
    if na + nb == 0:
        return 0.0 if threshold <= 0.0 else -1.0
    allowed = (na + nb) * (1.0 - threshold) / (1.0 + threshold) * (1.0 + 1e-9) + 1.0
    if abs(na - nb) > allowed:
        return -1.0
    c = 0
    miss = 0
    while a0 < a1 and b0 < b1:
        x = data[a0]
        y = data[b0]
        if x == y:
            c += 1
            a0 += 1
            b0 += 1
        else:
            miss += 1
            if miss > allowed:
                return -1.0
            if x < y:
                a0 += 1
            else:
                b0 += 1
    union = na + nb - c
    sim = c / union
    return sim if sim >= threshold else -1.0


def size_passes(na: np.ndarray, nb: np.ndarray, threshold: float) -> np.ndarray:
    """Which pairs of sets of sizes ``na``, ``nb`` can reach Jaccard ``threshold`` by their sizes
    alone (bool): ``min / max >= t``, loosened as :func:`jaccard_rows_at_least` loosens it (one
    element and a relative 1e-9), so a pair it drops the kernel would drop too, and a pair at the
    threshold always passes. Two empty sets pass at a threshold of 0 only.

    >>> size_passes(np.array([10, 10, 10, 7, 0]), np.array([12, 13, 14, 10, 0]), 0.8).tolist()
    [True, True, False, False, False]

    (10 of 13: 0.77, kept by the slack of one element; the merge then finds it below 0.8.)
    """
    na = np.asarray(na, np.int64)
    nb = np.asarray(nb, np.int64)
    s = (na + nb).astype(np.float64)
    allowed = s * (1.0 - threshold) / (1.0 + threshold) * (1.0 + 1e-9) + 1.0
    ok = np.abs(na - nb) <= allowed
    if threshold > 0.0:
        ok &= s > 0
    return ok


@kernel
def copy_runs(src, starts, ptr, out):
    """``out[ptr[i]:ptr[i + 1]] = src[starts[i]:starts[i] + ptr[i + 1] - ptr[i]]`` for each run
    ``i``: CSR rows of a chunk's ``data`` gathered into their places in a store's (no index array
    of every element, no second copy)."""
    for i in range(starts.shape[0]):
        o = ptr[i]
        s = starts[i]
        for x in range(ptr[i + 1] - o):
            out[o + x] = src[s + x]


@kernel
def jaccard(indptr, data, rows_a, rows_b, threshold, out):
    """out[p] = :func:`jaccard_rows_at_least` of CSR rows ``rows_a[p]`` and ``rows_b[p]``: their
    Jaccard similarity, or -1.0 below ``threshold`` (0.0: every pair gets its similarity)."""
    for p in range(rows_a.shape[0]):
        out[p] = jaccard_rows_at_least(indptr, data, rows_a[p], rows_b[p], threshold)


@kernel
def greedy_clusters(order, adj_ptr, adj_nbr, adj_edge, complete, state, rep, via):
    """The greedy keep/drop pass: every dropped node is verified-near its kept representative.

    Nodes are visited in ``order`` (a permutation of 0..m-1: first seen, longest, or a priority).
    A node not dropped yet is kept, and each of its verified neighbours that is still undecided is
    dropped with it as representative. An undecided neighbour always comes later in the order (an
    earlier one was visited: kept or dropped), so no node is dropped for a node that was itself
    dropped: the clusters are stars around kept nodes and never chain.

    With ``complete``, a neighbour joins only when it is also a verified neighbour of every member
    that joined before it: every two members of a cluster are then a verified pair (a clique of the
    graph). One that cannot join stays undecided, for a later representative or to be kept itself.
    Each member's neighbours are counted once (``hits[v]``: members ``v`` is adjacent to), so the
    pass stays linear in the edges.

    Parameters
    ----------
    order : int64 (m,)
    adj_ptr, adj_nbr, adj_edge : int64 (m + 1,), (2e,), (2e,)
        Both directions of every verified edge, each node's neighbours in the visiting order.
    complete : bool
    state : int8 (m,), output
        1 kept, 2 dropped (0 on entry).
    rep, via : int64 (m,), output
        A dropped node's representative and the edge that links them (-1 for kept nodes).
    """
    m = order.shape[0]
    hits = np.zeros(m if complete else 0, dtype=np.int64)
    for pos in range(m):
        u = order[pos]
        if state[u] != 0:
            continue
        state[u] = 1
        rep[u] = -1
        via[u] = -1
        nm = 0
        for e in range(adj_ptr[u], adj_ptr[u + 1]):
            v = adj_nbr[e]
            if state[v] != 0 or (complete and hits[v] != nm):
                continue
            state[v] = 2
            rep[v] = u
            via[v] = adj_edge[e]
            nm += 1
            if complete:
                for f in range(adj_ptr[v], adj_ptr[v + 1]):
                    hits[adj_nbr[f]] += 1
        if complete and nm:
            for e in range(adj_ptr[u], adj_ptr[u + 1]):  # reset: every member's neighbours
                v = adj_nbr[e]
                if rep[v] == u and state[v] == 2:
                    for f in range(adj_ptr[v], adj_ptr[v + 1]):
                        hits[adj_nbr[f]] = 0


star_clusters = greedy_clusters  # the old name: it does complete linkage too (the default)


@kernel
def fold_sets(indptr, data, bits, fps):
    """fps[d] = the fingerprint of CSR row d's sorted distinct hashes with binary weights (every
    hash votes once): what ``kernels.fingerprint.doc_sums`` computes for ``Simhasher(tokenizer=
    word_shingles(n), weights="binary")`` after its dedupe (``vote_unit``, then ``fold_bits``), so
    the shingles of :func:`shingle_hashes` give the fingerprints too, tokenized once. (A range of
    rows: ``indptr[lo:hi + 1]``, ``fps[lo:hi]``.)"""
    for d in range(indptr.shape[0] - 1):
        nf = indptr[d + 1] - indptr[d]
        acc = vote_unit(data[indptr[d] : indptr[d + 1]], nf)
        fps[d] = fold_counts(acc, nf, bits)  # fold_bits' test on the exact integer counts


@kernel
def neighbours(queries, fps, k, counts, out_ids, out_d, fill):
    """For each query, the positions in ``fps`` within Hamming distance ``k``: a linear popcount
    scan. Called twice: ``fill=False`` counts into ``counts``; ``fill=True`` writes the CSR rows
    (``counts`` then holds each query's start) into ``out_ids`` / ``out_d``."""
    for q in range(queries.shape[0]):
        x = queries[q]
        c = 0
        o = counts[q] if fill else 0
        for i in range(fps.shape[0]):
            d = popcount(x ^ fps[i])
            if d <= k:
                if fill:
                    out_ids[o + c] = i
                    out_d[o + c] = d
                c += 1
        if not fill:
            counts[q] = c
