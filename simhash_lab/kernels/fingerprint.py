"""The fingerprint pipeline in Numba: tokenize -> features -> hash -> vote -> fingerprint.

Two paths, both with no Python objects in their loops and run across documents with ``prange``:

* the fused path (``fingerprints_str_*``), for word or whitespace tokens with TF weights, the
  default: it reads each ``str``'s code units in place (``kernels.strings``), lowercases and tokenizes
  eight ASCII units at a time in the byte lanes of a uint64, writes the UTF-8 of the tokens into
  scratch, hashes them sorted by XXH3's size class and counts the votes in SWAR lanes;
* the general path (``fingerprints_*``), for every tokenizer, feature kind and weighting: the
  Python layer encodes the batch as one contiguous UTF-8 buffer plus document offsets, Numba
  lowercases it (``lower_utf8``), and ``doc_sums`` cuts each document into features and votes.

Votes are counted as in the `simhash` package: ``S[i] = sum of w over features whose hash has bit i``
and ``T = sum of all w``; then the accumulator of the session, ``V[i] = sum of (+w or -w)``, is
``2 S[i] - T`` and bit i of the fingerprint is ``V[i] > 0``. With unit weights the sums are integers
(exact, and the inner loop is a vectorised add of 64 bit-lanes).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._jit import twins
from .hashes import hash_span
from .strings import unit_bytes
from .tokenize import FEAT_TOKENS, TOK_RUST, doc_features, lower_tokenize_str, max_features
from .vote import (
    _TOKEN_BATCH,
    WEIGHT_BINARY,
    WEIGHT_TF,
    _dedupe_sorted,
    fold_bits,
    hash_vote_tokens,
    vote_unit,
    vote_weighted,
)

_U64 = np.uint64


def _fingerprints_str_impl(
    ptrs, lens, kinds, ranges, table, sel, want, lower, amap, hash_kind, mask, bits, out, flags
):
    """out[d] = fingerprint of the d-th string (see ``strings.str_views``): word or whitespace
    tokens, lowered by ``lower`` (empty: not lowered), every occurrence voting once.
    ``flags[d]`` gets ``lower_tokenize_str``'s flags; the caller redoes the flagged texts.

    Documents go in chunks, one ``prange`` iteration each, so that scratch memory is allocated once
    per chunk rather than once per document; every chunk writes only its own entries.
    """
    ndocs = ptrs.shape[0]
    chunk = 64
    for ci in prange((ndocs + chunk - 1) // chunk):
        lo = ci * chunk
        hi = min(lo + chunk, ndocs)
        longest = 0
        widest = 0
        for d in range(lo, hi):
            longest = max(longest, lens[d])
            widest = max(widest, lens[d] * min(kinds[d] + 1, 4))
        tok = np.empty(widest + 8, dtype=np.uint8)
        pos = np.empty(longest + 9, dtype=np.int64)
        hs = np.empty(_TOKEN_BATCH, dtype=np.uint64)
        order = np.empty(4 * _TOKEN_BATCH, dtype=np.int64)
        tail = np.empty(128, dtype=np.uint8)
        acc = np.empty(64, dtype=np.int64)
        for d in range(lo, hi):
            data = unit_bytes(ptrs[d], lens[d], kinds[d])
            nflips, flags[d] = lower_tokenize_str(
                data, lens[d], kinds[d], ranges, table, sel, want, lower, amap, tok, pos
            )
            ntok = nflips // 2
            hash_vote_tokens(tok, pos, ntok, hash_kind, mask, hs, order, tail, acc)
            out[d] = fold_bits(acc, ntok, bits)


# one body, compiled twice (each with its own cache entry): across documents in parallel, and a
# serial twin for single texts
fingerprints_str_parallel, fingerprints_str_serial = twins(_fingerprints_str_impl)


@njit(cache=True, nogil=True)
def doc_sums(
    b,
    start,
    end,
    table,
    tok_mode,
    feat_mode,
    n,
    joiner,
    empty_feature,
    hash_kind,
    mask,
    weighting,
    wkeys,
    wvals,
    wdefault,
):
    """Vote sums of one document: (S float64 (64,), total weight T, number of features)."""
    cap = max_features(end - start)
    hs = np.empty(cap, dtype=np.uint64)
    no_rec = np.empty(0, dtype=np.uint8)
    no_off = np.empty(0, dtype=np.int64)
    nf = doc_features(
        b,
        start,
        end,
        table,
        tok_mode,
        feat_mode,
        n,
        joiner,
        empty_feature,
        hash_kind,
        mask,
        hs,
        no_rec,
        no_off,
    )
    if weighting == WEIGHT_BINARY:
        nf = _dedupe_sorted(hs, nf)
    if wkeys.shape[0] == 0:
        acc = vote_unit(hs, nf)
        return acc.astype(np.float64), np.float64(nf), nf
    ws = np.empty(nf, dtype=np.float64)
    total = 0.0
    for j in range(nf):
        k = np.searchsorted(wkeys, hs[j])
        w = wdefault
        if k < wkeys.shape[0] and wkeys[k] == hs[j]:
            w = wvals[k]
        ws[j] = w
        total += w
    return vote_weighted(hs, ws, nf), total, nf


@njit(cache=True, nogil=True)
def is_fused(tok_mode, feat_mode, weighting, n_weight_keys):
    """True when ``fingerprints_str_*`` compute the fingerprint straight from the strings."""
    return feat_mode == FEAT_TOKENS and weighting == WEIGHT_TF and n_weight_keys == 0 and tok_mode != TOK_RUST


@njit(cache=True, nogil=True)
def _doc_fingerprint(
    b,
    start,
    end,
    table,
    tok_mode,
    feat_mode,
    n,
    joiner,
    empty_feature,
    hash_kind,
    mask,
    weighting,
    wkeys,
    wvals,
    wdefault,
    bits,
):
    s, total, _ = doc_sums(
        b,
        start,
        end,
        table,
        tok_mode,
        feat_mode,
        n,
        joiner,
        empty_feature,
        hash_kind,
        mask,
        weighting,
        wkeys,
        wvals,
        wdefault,
    )
    return fold_bits(s, total, bits)


def _fingerprints_impl(
    buf,
    offsets,
    table,
    tok_mode,
    feat_mode,
    n,
    joiner,
    empty_feature,
    hash_kind,
    mask,
    weighting,
    wkeys,
    wvals,
    wdefault,
    bits,
    out,
):
    """out[d] = fingerprint of buf[offsets[d]:offsets[d+1]] (UTF-8, lowered by the caller when the
    tokenizer lowers): the general path, for every tokenizer, feature kind and weighting."""
    for d in prange(offsets.shape[0] - 1):
        out[d] = _doc_fingerprint(
            buf,
            offsets[d],
            offsets[d + 1],
            table,
            tok_mode,
            feat_mode,
            n,
            joiner,
            empty_feature,
            hash_kind,
            mask,
            weighting,
            wkeys,
            wvals,
            wdefault,
            bits,
        )


# one body, compiled twice (each with its own cache entry): across documents in parallel, and a
# serial twin for single texts
fingerprints_parallel, fingerprints_serial = twins(_fingerprints_impl)


@njit(cache=True, nogil=True)
def hash_spans(buf, offsets, hash_kind, mask):
    """Hash each item buf[offsets[i]:offsets[i+1]]; returns uint64 (len(offsets) - 1,)."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    tail = np.empty(128, dtype=np.uint8)
    for i in range(out.shape[0]):
        out[i] = hash_span(buf, offsets[i], offsets[i + 1], hash_kind, tail) & mask
    return out
