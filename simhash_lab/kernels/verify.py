"""Verification kernels: exact Jaccard similarity of shingle sets, and the keep/drop clustering.

* ``shingle_sets_*``: every document of a UTF-8 batch (``buf``, ``offsets``, as the general
  fingerprint path takes it) cut into word n-shingles (``kernels.tokenize.doc_features``), each
  hashed with XXH3-64, sorted and de-duplicated: the document's shingle set as a sorted uint64 run.
  The sets of a batch come back as CSR arrays ``(indptr (n + 1,), data (nnz,))``.
* ``jaccard_*``: ``|A ∩ B| / |A ∪ B|`` of pairs of sets, the intersection counted by one merge of
  the two sorted runs (no hash tables, no allocation).
* ``star_clusters``: the greedy keep/drop pass over verified pairs (see its docstring).

Two sets are compared through 64-bit hashes, so two different shingles count as one only when
their XXH3 hashes collide (about 2**-64 per pair of shingles).

Kernels never raise user-facing errors: :mod:`simhash_lab.dedup` validates first.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._jit import twins
from .tokenize import FEAT_SHINGLES, doc_features
from .vote import fold_bits, vote_unit

_U64 = np.uint64
_ALL_BITS = _U64(0xFFFFFFFFFFFFFFFF)


def _shingle_sets_impl(buf, offsets, table, tok_mode, n, hash_kind):
    """CSR arrays of the sorted distinct shingle hashes of every document of the batch.

    Each document first gets a slot of ``nbytes + 1`` hashes (at most that many features) in one
    scratch array, filled in parallel; then the runs are packed into ``data``.
    """
    nd = offsets.shape[0] - 1
    scratch = np.empty(offsets[nd] - offsets[0] + nd, dtype=np.uint64)
    counts = np.zeros(nd, dtype=np.int64)
    no_rec = np.empty(0, dtype=np.uint8)
    no_off = np.empty(0, dtype=np.int64)
    for d in prange(nd):
        slot = offsets[d] - offsets[0] + d
        cap = offsets[d + 1] - offsets[d] + 1
        hs = scratch[slot : slot + cap]
        nf = doc_features(
            buf,
            offsets[d],
            offsets[d + 1],
            table,
            tok_mode,
            FEAT_SHINGLES,
            n,
            -1,
            False,
            hash_kind,
            _ALL_BITS,
            hs,
            no_rec,
            no_off,
        )
        hs[:nf].sort()
        u = 0
        for j in range(nf):
            if u == 0 or hs[j] != hs[u - 1]:
                hs[u] = hs[j]
                u += 1
        counts[d] = u
    indptr = np.zeros(nd + 1, dtype=np.int64)
    for d in range(nd):
        indptr[d + 1] = indptr[d] + counts[d]
    data = np.empty(indptr[nd], dtype=np.uint64)
    for d in prange(nd):
        slot = offsets[d] - offsets[0] + d
        for j in range(counts[d]):
            data[indptr[d] + j] = scratch[slot + j]
    return indptr, data


shingle_sets_parallel, shingle_sets_serial = twins(_shingle_sets_impl)


@njit(cache=True, nogil=True, inline="always")
def intersection_size(data, a0, a1, b0, b1):
    """``|A ∩ B|`` of the sorted distinct runs ``data[a0:a1]`` and ``data[b0:b1]`` (one merge)."""
    c = 0
    while a0 < a1 and b0 < b1:
        x = data[a0]
        y = data[b0]
        if x == y:
            c += 1
            a0 += 1
            b0 += 1
        elif x < y:
            a0 += 1
        else:
            b0 += 1
    return c


@njit(cache=True, nogil=True, inline="always")
def jaccard_rows(indptr, data, i, j):
    """Jaccard similarity of the sets of CSR rows ``i`` and ``j``; 0.0 when both are empty."""
    a0, a1, b0, b1 = indptr[i], indptr[i + 1], indptr[j], indptr[j + 1]
    c = intersection_size(data, a0, a1, b0, b1)
    union = (a1 - a0) + (b1 - b0) - c
    return c / union if union > 0 else 0.0


def _jaccard_impl(indptr, data, rows_a, rows_b, out):
    """out[p] = Jaccard similarity of CSR rows ``rows_a[p]`` and ``rows_b[p]``."""
    for p in prange(rows_a.shape[0]):
        out[p] = jaccard_rows(indptr, data, rows_a[p], rows_b[p])


jaccard_parallel, jaccard_serial = twins(_jaccard_impl)


@njit(cache=True, nogil=True)
def star_clusters(order, adj_ptr, adj_nbr, adj_edge, complete, indptr, data, threshold, state, rep, via):
    """The greedy keep/drop pass: every dropped node is verified-near its kept representative.

    Nodes are visited in ``order`` (a permutation of 0..m-1: first seen, longest, or a priority).
    A node not dropped yet is kept, and each of its verified neighbours that is still undecided is
    dropped with it as representative. An undecided neighbour always comes later in the order (an
    earlier one was visited: kept or dropped), so no node is dropped for a node that was itself
    dropped: the clusters are stars around kept nodes and never chain.

    With ``complete``, a neighbour joins only when it is also verified-near (similarity >=
    ``threshold`` on the CSR sets ``indptr``/``data``, rows = nodes) every member that joined
    before it, so that every two members of a cluster are near; one that cannot join stays
    undecided, for a later representative or to be kept itself.

    Parameters
    ----------
    order : int64 (m,)
    adj_ptr, adj_nbr, adj_edge : int64 (m + 1,), (2e,), (2e,)
        Both directions of every verified edge, each node's neighbours in the visiting order.
    state : int8 (m,), output
        1 kept, 2 dropped (0 on entry).
    rep, via : int64 (m,), output
        A dropped node's representative and the edge that links them (-1 for kept nodes).
    """
    m = order.shape[0]
    members = np.empty(m, dtype=np.int64)
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
            if state[v] != 0:
                continue
            ok = True
            if complete:
                for q in range(nm):
                    if jaccard_rows(indptr, data, v, members[q]) < threshold:
                        ok = False
                        break
            if ok:
                state[v] = 2
                rep[v] = u
                via[v] = adj_edge[e]
                members[nm] = v
                nm += 1


def _fold_sets_impl(indptr, data, bits, fps):
    """fps[d] = the fingerprint of CSR row d's sorted distinct hashes with binary weights (every
    hash votes once): what ``kernels.fingerprint.doc_sums`` computes for ``Simhasher(tokenizer=
    word_shingles(n), weights="binary")`` after its dedupe (``vote_unit``, then ``fold_bits``), so
    the shingles of :func:`shingle_sets_parallel` give the fingerprints too, tokenized once."""
    for d in prange(indptr.shape[0] - 1):
        nf = indptr[d + 1] - indptr[d]
        acc = vote_unit(data[indptr[d] : indptr[d + 1]], nf)
        fps[d] = fold_bits(acc.astype(np.float64), np.float64(nf), bits)


fold_sets_parallel, fold_sets_serial = twins(_fold_sets_impl)
