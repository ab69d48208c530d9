"""The fingerprint pipeline in Numba: tokenize -> features -> hash -> vote -> fingerprint.

Three paths, all with no Python objects in their loops, each a kernel over a range of documents
that writes only their own outputs (``simhash_lab._threads`` runs ranges of a batch in threads):

* the fused path (``fingerprints_str_*``), for word or whitespace tokens with TF weights, the
  default: it reads each ``str``'s code units in place (``kernels.strings``), lowercases and tokenizes
  64 ASCII units at a time in one vector (8 or 16 in the byte lanes of a uint64 for the rest),
  writes the UTF-8 of the tokens into scratch, hashes them sorted by XXH3's size class and counts
  the votes in SWAR lanes (one vector of 8 counters);
* the general path (``fingerprints_*``), for every tokenizer, feature kind and weighting: the
  Python layer encodes the batch as one contiguous UTF-8 buffer plus document offsets, Numba
  lowercases it (``lower_utf8``), and ``doc_sums`` cuts each document into features and votes;
* the token path (``token_fingerprints_*``), for token lists, dicts and (token, weight) pairs given
  by the caller: every token of a batch joined in one ``str`` (one ``"".join``), read in place like
  the fused path's texts, each token's UTF-8 written into scratch and hashed as it is.

Weighted sums never overflow: weights are first multiplied by a power of two small enough
(``vote.weighted_sums``), which leaves the fingerprint as it is (Simhash is scale-invariant).

What a Simhasher is, to the kernels, is one :class:`Pipeline` argument. Every field has the same
Numba type for every Simhasher (a tokenizer kind or a hash is a runtime int, not a compile-time
constant), so each kernel is compiled once and serves every setting.

Votes are counted as in the `simhash` package: ``S[i] = sum of w over features whose hash has bit i``
and ``T = sum of all w``; then the accumulator of the session, ``V[i] = sum of (+w or -w)``, is
``2 S[i] - T`` and bit i of the fingerprint is ``V[i] > 0``. With unit weights the sums are integers
(exact, and the inner loop is a vectorised add of 64 bit-lanes). Features are told apart (binary
weights, weight lookup) by their full 64-bit hash; only the fold reads the low ``bits`` bits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._jit import kernel
from .hashes import HASH_MD5_FIRST8, HASH_MD5_LAST8, HASH_XXH3, hash_span, xxh3_64, xxh3_any_inline
from .strings import put_utf8, unit, unit_bytes
from .tokenize import FEAT_CHARGRAMS, FLAG_SURROGATE, feature_spans, lower_tokenize_str, str_scratch_inline
from .vote import (
    ORDER_SIZE,
    TOKEN_BATCH,
    WEIGHT_BINARY,
    WEIGHT_TF,
    call_hash_batch,
    dedupe,
    fold_bits,
    fold_counts,
    hash_vote_tokens,
    vote_unit,
    weighted_sums,
)

__all__ = [
    "Pipeline",
    "doc_sums",
    "feature_hashes",
    "fingerprints",
    "fingerprints_str",
    "hashed_sums",
    "token_fingerprints",
]

_U64 = np.uint64

# Documents per chunk of the fused and token paths: their scratch (tok, pos, hs, order: about
# 40 KiB for short texts) is allocated once per chunk instead of once per document, sized for the
# chunk's longest text. A batch goes to threads in ranges of whole chunks.
CHUNK = 64

# MD5's scratch: the padded last block of a message is one or two 64-byte blocks.
_MD5_TAIL = 128


_NO_KEYS = np.empty(0, dtype=np.uint64)
_NO_VALUES = np.empty(0, dtype=np.float64)


class Pipeline(NamedTuple):
    """A Simhasher as the kernels read it: one argument instead of eighteen.

    Built once per tokenizer (``simhash_lab.tokenize.Tokenizer.pipeline``, the first eleven
    fields; the others keep their defaults) and once per Simhasher (``Simhasher._pipeline``, the
    tokenizer's with the rest filled in). Every field has one Numba type whatever the settings, so
    each kernel that takes a ``Pipeline`` is compiled once. It is flat, not a tuple of tuples:
    Numba's parallel loops cannot take a tuple nested in a tuple.
    """

    # the tokenizer (``kernels.tokenize``)
    table: np.ndarray  #: uint8 (0x110000,): character classes (``simhash_lab._unicode``)
    tok_kind: int  #: word rule, TOK_*
    feat_kind: int  #: feature rule, FEAT_*
    n: int  #: shingle or n-gram size
    joiner: int  #: byte put between words before n-grams are cut (-1: none)
    empty_feature: bool  #: an empty text still has one feature, "" (n-grams)
    lower: np.ndarray  #: uint32 (0x110000,): ``str.lower()`` per code point; empty: keep case
    sel: int  #: the class bit that decides "inside a token" (words, whitespace)
    want: bool  #: inside a token when that bit is set (words) or clear (whitespace)
    amap: np.ndarray  #: int16 (128,): each ASCII byte as the fused path stores it, -1 outside tokens
    ranges: np.ndarray  #: uint64 (10,): the SWAR form of ``amap`` (``tokenize.ascii_ranges``)
    # the hash, the weights and the width
    hash_kind: int = HASH_XXH3  #: HASH_* of ``kernels.hashes``
    weighting: int = WEIGHT_TF  #: WEIGHT_TF or WEIGHT_BINARY (``kernels.vote``)
    wkeys: np.ndarray = _NO_KEYS  #: uint64 (k,): sorted full hashes of the features given a weight
    wvals: np.ndarray = _NO_VALUES  #: float64 (k,): their weights
    wdefault: float = 1.0  #: the weight of the other features (when k > 0)
    bits: int = 64  #: fingerprint width, 1..64


@kernel
def fingerprints_str(ptrs, lens, kinds, p, hash_fn, out, flags):
    """out[d] = fingerprint of the d-th string (see ``strings.str_views``): word or whitespace
    tokens, lowered when ``p.lower`` is not empty, every occurrence voting once.
    ``hash_fn``: ``vote.hash_batch_address(p.hash_kind)``.
    ``flags[d]`` gets ``lower_tokenize_str``'s flags; the caller redoes the flagged texts.

    Documents go in chunks of ``CHUNK``, each with scratch for its longest text.
    """
    ndocs = ptrs.shape[0]
    for ci in range((ndocs + CHUNK - 1) // CHUNK):
        lo = ci * CHUNK
        hi = min(lo + CHUNK, ndocs)
        tok_size = 1
        pos_size = 1
        for d in range(lo, hi):
            t_need, p_need = str_scratch_inline(lens[d], kinds[d])
            tok_size = max(tok_size, t_need)
            pos_size = max(pos_size, p_need)
        tok = np.empty(tok_size, dtype=np.uint8)
        pos = np.empty(pos_size, dtype=np.int64)
        hs = np.empty(TOKEN_BATCH, dtype=np.uint64)
        order = np.empty(ORDER_SIZE, dtype=np.int64)
        tail = np.empty(_MD5_TAIL, dtype=np.uint8)
        acc = np.empty(64, dtype=np.int64)
        for d in range(lo, hi):
            data = unit_bytes(ptrs[d], lens[d], kinds[d])
            nflips, flags[d] = lower_tokenize_str(data, lens[d], kinds[d], p, tok, pos)
            ntok = nflips // 2
            hash_vote_tokens(tok, pos, ntok, p.hash_kind, hash_fn, hs, order, tail, acc)
            out[d] = fold_counts(acc, ntok, p.bits)


@kernel(inline=True)
def _memo_slot(src, s, e, key, mkeys, mstart, mend, slot_mask):
    """The slot of the open-addressing table that holds the feature src[s:e] (hash ``key``), or
    the empty slot where it goes. A slot matches on the key and then byte by byte."""
    slot = np.int64(key & slot_mask)
    while True:
        q = mstart[slot]
        if q < 0:
            return slot
        if mkeys[slot] == key and mend[slot] - q == e - s:
            same = True
            for t in range(e - s):
                if src[q + t] != src[s + t]:
                    same = False
                    break
            if same:
                return slot
        slot = np.int64((_U64(slot) + _U64(1)) & slot_mask)


@kernel(inline=True)
def feature_hashes(b, start, end, p):
    """(hashes uint64 (>= nf,), nf): the full 64-bit hash of each feature of ``b[start:end]``.

    Character n-grams hashed with MD5 (LEONSIM) are hashed once per distinct gram: repeats (a
    third or more of the 4-grams of prose) reuse the first result, found in an open-addressing
    table keyed by the gram's XXH3 and confirmed byte by byte, so the result is exactly that of
    hashing every gram. The table has a power of two >= 2 nf slots (at most half full).
    """
    src, fs, fe, nf = feature_spans(b, start, end, p)
    hs = np.empty(max(nf, 1), dtype=np.uint64)
    tail = np.empty(_MD5_TAIL, dtype=np.uint8)
    hash_kind = p.hash_kind
    memo = p.feat_kind == FEAT_CHARGRAMS and (hash_kind == HASH_MD5_FIRST8 or hash_kind == HASH_MD5_LAST8)
    cap = 1
    while memo and cap < 2 * nf:
        cap *= 2
    mkeys = np.empty(cap, dtype=np.uint64)
    mstart = np.full(cap, -1, dtype=np.int64)
    mend = np.empty(cap, dtype=np.int64)
    mvals = np.empty(cap, dtype=np.uint64)
    slot_mask = _U64(cap - 1)
    for i in range(nf):
        s = fs[i]
        e = fe[i]
        slot = 0
        if memo:
            key = xxh3_64(src, s, e)
            slot = _memo_slot(src, s, e, key, mkeys, mstart, mend, slot_mask)
            if mstart[slot] >= 0:
                hs[i] = mvals[slot]
                continue
            mkeys[slot] = key
            mstart[slot] = s
            mend[slot] = e
        if hash_kind == HASH_XXH3:  # the leaf kernel: no reference count per feature (hashes.py)
            hs[i] = xxh3_64(src, s, e)
        else:
            hs[i] = hash_span(src, s, e, hash_kind, tail)  # one call site: hash_span is inlined
        if memo:
            mvals[slot] = hs[i]
    return hs, nf


@kernel(python=False)
def hashed_sums(hs, nf, p):
    """Vote sums of the features with full hashes hs[:nf] (one entry per occurrence), weighted by
    ``p`` (counts, binary, or the weights of ``p.wkeys``): (S float64 (64,), total weight T), both
    divided by the same power of two when the weights' sums could overflow (``weighted_sums``).
    ``hs`` is reordered (binary: its distinct values first)."""
    if p.weighting == WEIGHT_BINARY:
        nf = dedupe(hs, nf)
    if p.wkeys.shape[0] == 0:
        return vote_unit(hs, nf).astype(np.float64), np.float64(nf)
    ws = np.empty(max(nf, 1), dtype=np.float64)
    for j in range(nf):
        k = np.searchsorted(p.wkeys, hs[j])
        w = p.wdefault
        if k < p.wkeys.shape[0] and p.wkeys[k] == hs[j]:
            w = p.wvals[k]
        ws[j] = w
    return weighted_sums(hs, ws, nf)


@kernel(python=False)
def doc_sums(b, start, end, p):
    """Vote sums of one document: (S float64 (64,), total weight T)."""
    hs, nf = feature_hashes(b, start, end, p)
    return hashed_sums(hs, nf, p)


@kernel
def fingerprints(buf, offsets, p, out):
    """out[d] = fingerprint of buf[offsets[d]:offsets[d+1]] (UTF-8, lowered by the caller when the
    tokenizer lowers): the general path, for every tokenizer, feature kind and weighting."""
    for d in range(offsets.shape[0] - 1):
        s, total = doc_sums(buf, offsets[d], offsets[d + 1], p)
        out[d] = fold_bits(s, total, p.bits)


@kernel
def hash_spans(buf, offsets, hash_kind):
    """The full 64-bit hash of each item buf[offsets[i]:offsets[i+1]]: uint64 (len(offsets) - 1,)."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    tail = np.empty(_MD5_TAIL, dtype=np.uint8)
    for i in range(out.shape[0]):
        if hash_kind == HASH_XXH3:
            out[i] = xxh3_any_inline(buf, offsets[i], offsets[i + 1])  # inlined: no call per item
        else:
            out[i] = hash_span(buf, offsets[i], offsets[i + 1], hash_kind, tail)
    return out


@kernel
def separator_starts(ptr, n, kind, ntok, sep):
    """Where each of ``ntok`` tokens joined by the code unit ``sep`` starts, in a str of ``n``
    units of width ``kind`` at ``ptr``: int64 (ntok + 1,), the last entry ``n + 1`` (as if one
    more separator followed). The caller has checked that the str holds ntok - 1 separators."""
    data = unit_bytes(ptr, n, kind)
    starts = np.empty(ntok + 1, dtype=np.int64)
    starts[0] = 0
    t = 1
    for u in range(n):
        if unit(data, u, kind) == sep:
            starts[t] = u + 1
            t += 1
    starts[ntok] = n + 1
    return starts


@kernel
def token_fingerprints(ptr, kind, toff, gap, doff, ws, p, hash_fn, out, flags):
    """out[d] = fingerprint of the d-th token list of a batch whose tokens are joined in one str.

    The str's code units (width ``kind``) start at ``ptr`` (``strings.str_views``); token t is
    units toff[t]:toff[t+1] - gap (int64 (T + 1,); ``gap``: the separator's width, 0 or 1),
    document d holds tokens doff[d]:doff[d+1] (int64 (ndocs + 1,)). Tokens are features as they
    are (no tokenizing, no lowering). ``ws`` (float64): empty, and the tokens vote as ``p`` says
    (counts, binary, weights of ``p.wkeys``); or one given weight per token (dicts, (token,
    weight) pairs), each occurrence voting its weight. ``hash_fn``:
    ``vote.hash_batch_address(p.hash_kind)``.
    ``flags[d]`` gets ``FLAG_SURROGATE`` when a token holds a lone surrogate (no UTF-8: the
    caller raises); the token's other units are still hashed, its result is not used.

    Documents go in chunks of ``CHUNK`` like the fused path's (a range of a batch passes
    ``doff[lo:hi + 1]``); each token's UTF-8 is written
    into the chunk's scratch and hashed there (XXH3 sorted by size class, ``hash_vote_tokens``).
    """
    ndocs = doff.shape[0] - 1
    data = unit_bytes(ptr, toff[toff.shape[0] - 1] - gap, kind)
    width = min(kind + 1, 4)  # UTF-8 bytes per unit at most (see ``tokenize.str_scratch``)
    given = ws.shape[0] > 0
    unit_votes = not given and p.weighting == WEIGHT_TF and p.wkeys.shape[0] == 0
    for ci in range((ndocs + CHUNK - 1) // CHUNK):
        lo = ci * CHUNK
        hi = min(lo + CHUNK, ndocs)
        tok_size = 1
        ntok_max = 1
        for d in range(lo, hi):
            tok_size = max(tok_size, width * (toff[doff[d + 1]] - toff[doff[d]]))
            ntok_max = max(ntok_max, doff[d + 1] - doff[d])
        tok = np.empty(tok_size, dtype=np.uint8)
        pos = np.empty(2 * ntok_max, dtype=np.int64)
        hs = np.empty(TOKEN_BATCH if unit_votes else ntok_max, dtype=np.uint64)
        order = np.empty(ORDER_SIZE if unit_votes else 1, dtype=np.int64)
        tail = np.empty(_MD5_TAIL, dtype=np.uint8)
        acc = np.empty(64, dtype=np.int64)
        for d in range(lo, hi):
            t0 = doff[d]
            ntok = doff[d + 1] - t0
            o = np.int64(0)
            flag = np.int64(0)
            for t in range(ntok):
                pos[2 * t] = o
                for u in range(toff[t0 + t], toff[t0 + t + 1] - gap):
                    cp = unit(data, u, kind)
                    if cp < 0x80:
                        tok[o] = np.uint8(cp)
                        o += 1
                    else:
                        if 0xD800 <= cp < 0xE000:
                            flag = FLAG_SURROGATE
                        o = put_utf8(tok, o, cp)
                pos[2 * t + 1] = o
            flags[d] = flag
            if unit_votes:
                hash_vote_tokens(tok, pos, ntok, p.hash_kind, hash_fn, hs, order, tail, acc)
                out[d] = fold_counts(acc, ntok, p.bits)
                continue
            if p.hash_kind == HASH_XXH3:
                for t in range(ntok):
                    hs[t] = xxh3_64(tok, pos[2 * t], pos[2 * t + 1])
            else:
                call_hash_batch(hash_fn, tok, pos, 0, ntok, p.hash_kind, tail, hs)
            if given:
                s, total = weighted_sums(hs, ws[t0 : t0 + ntok], ntok)
            else:
                s, total = hashed_sums(hs, ntok, p)
            out[d] = fold_bits(s, total, p.bits)
