"""The fingerprint pipeline in Numba: tokenize -> features -> hash -> vote -> fingerprint.

Input is UTF-8 bytes (the Python layer lowercases and encodes), so a whole batch of documents is one
contiguous uint8 buffer plus document offsets, and the parallel kernel runs each document in its own
``prange`` iteration with no Python objects in the loop.

Votes are counted as in the `simhash` package: ``S[i] = sum of w over features whose hash has bit i``
and ``T = sum of all w``; then the accumulator of the session, ``V[i] = sum of (+w or -w)``, is
``2 S[i] - T`` and bit i of the fingerprint is ``V[i] > 0``. With unit weights the sums are integers
(exact, and the inner loop is a vectorised add of 64 bit-lanes).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._hashes import hash_span
from ._unicode import PYSPACE, RUSTALNUM, RUSTSPACE, WORD

# tokenizer kinds
TOK_WORDS = 0  # maximal runs of \w characters
TOK_WHITESPACE = 1  # str.split(): runs of non-space characters
TOK_RUST = 2  # split_whitespace + trim non-alphanumeric at both ends, drop empty

# feature kinds
FEAT_TOKENS = 0
FEAT_SHINGLES = 1  # n consecutive tokens joined by one space
FEAT_CHARGRAMS = 2  # n consecutive code points of the tokens joined by `joiner`

# weighting
WEIGHT_TF = 0  # every occurrence votes (weight = count)
WEIGHT_BINARY = 1  # every distinct feature votes once

_U64 = np.uint64


@njit(cache=True, nogil=True, inline="always")
def _decode(b, p):
    """(code point, byte length) of the UTF-8 character starting at b[p] (input is valid UTF-8)."""
    c = np.int64(b[p])
    if c < 0x80:
        return c, 1
    if c < 0xE0:
        return ((c & 0x1F) << 6) | (np.int64(b[p + 1]) & 0x3F), 2
    if c < 0xF0:
        return ((c & 0x0F) << 12) | ((np.int64(b[p + 1]) & 0x3F) << 6) | (np.int64(b[p + 2]) & 0x3F), 3
    return (
        ((c & 0x07) << 18)
        | ((np.int64(b[p + 1]) & 0x3F) << 12)
        | ((np.int64(b[p + 2]) & 0x3F) << 6)
        | (np.int64(b[p + 3]) & 0x3F)
    ), 4


@njit(cache=True, nogil=True)
def tokenize_spans(b, start, end, table, mode, spans):
    """Write token byte spans of ``b[start:end]`` into ``spans`` (int64 (m, 2)); return the count."""
    ntok = 0
    p = start
    in_tok = False
    tok_start = 0
    first_an = -1  # TOK_RUST: start of the first alphanumeric char of the current word
    last_an = -1  # TOK_RUST: end of the last alphanumeric char of the current word
    while p < end:
        cp, ln = _decode(b, p)
        t = table[cp]
        if mode == TOK_WORDS:
            inside = (t & WORD) != 0
        elif mode == TOK_WHITESPACE:
            inside = (t & PYSPACE) == 0
        else:
            inside = (t & RUSTSPACE) == 0
        if inside:
            if not in_tok:
                in_tok = True
                tok_start = p
                first_an = -1
            if mode == TOK_RUST and (t & RUSTALNUM) != 0:
                if first_an < 0:
                    first_an = p
                last_an = p + ln
        elif in_tok:
            in_tok = False
            if mode == TOK_RUST:
                if first_an >= 0:
                    spans[ntok, 0] = first_an
                    spans[ntok, 1] = last_an
                    ntok += 1
            else:
                spans[ntok, 0] = tok_start
                spans[ntok, 1] = p
                ntok += 1
        p += ln
    if in_tok:
        if mode == TOK_RUST:
            if first_an >= 0:
                spans[ntok, 0] = first_an
                spans[ntok, 1] = last_an
                ntok += 1
        else:
            spans[ntok, 0] = tok_start
            spans[ntok, 1] = end
            ntok += 1
    return ntok


@njit(cache=True, nogil=True, inline="always")
def _emit(src, s, e, hash_kind, mask, hs, nf, rec, rec_off):
    """Hash the feature src[s:e] into hs[nf]; when recording, also copy its bytes into ``rec``."""
    hs[nf] = hash_span(src, s, e, hash_kind) & mask
    if rec.shape[0] > 0:
        o = rec_off[nf]
        for i in range(e - s):
            rec[o + i] = src[s + i]
        rec_off[nf + 1] = o + (e - s)


@njit(cache=True, nogil=True)
def doc_features(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature, hash_kind,
                 mask, hs, rec, rec_off):
    """Hashes of every feature of the document ``b[start:end]`` into ``hs``; returns their count.

    ``joiner`` is the byte put between tokens for character n-grams (-1: none). ``empty_feature``:
    a text with no characters still yields one feature, the empty string (the `simhash` package's
    rule). When ``rec`` is non-empty the feature bytes are copied there, delimited by ``rec_off``.
    """
    nbytes = end - start
    spans = np.empty((nbytes // 2 + 1, 2), dtype=np.int64)  # a token and a separator: >= 2 bytes
    ntok = tokenize_spans(b, start, end, table, tok_mode, spans)
    nf = 0
    if feat_mode == FEAT_TOKENS:
        for i in range(ntok):
            _emit(b, spans[i, 0], spans[i, 1], hash_kind, mask, hs, nf, rec, rec_off)
            nf += 1
        return nf
    if feat_mode == FEAT_SHINGLES:
        if ntok == 0:
            return 0
        scratch = np.empty(nbytes + n + 1, dtype=np.uint8)
        m = max(ntok - n + 1, 1)
        for i in range(m):
            ln = 0
            for j in range(i, min(i + n, ntok)):
                if j > i:
                    scratch[ln] = 32
                    ln += 1
                for q in range(spans[j, 0], spans[j, 1]):
                    scratch[ln] = b[q]
                    ln += 1
            _emit(scratch, 0, ln, hash_kind, mask, hs, nf, rec, rec_off)
            nf += 1
        return nf
    # FEAT_CHARGRAMS: the tokens joined by `joiner`, then windows of n code points
    scratch = np.empty(nbytes + ntok + 1, dtype=np.uint8)
    ln = 0
    for j in range(ntok):
        if j > 0 and joiner >= 0:
            scratch[ln] = joiner
            ln += 1
        for q in range(spans[j, 0], spans[j, 1]):
            scratch[ln] = b[q]
            ln += 1
    starts = np.empty(ln + 1, dtype=np.int64)
    nchars = 0
    for q in range(ln):
        if (scratch[q] & 0xC0) != 0x80:
            starts[nchars] = q
            nchars += 1
    starts[nchars] = ln
    if nchars == 0:
        if empty_feature:
            _emit(scratch, 0, 0, hash_kind, mask, hs, nf, rec, rec_off)
            return 1
        return 0
    if nchars <= n:
        _emit(scratch, 0, ln, hash_kind, mask, hs, nf, rec, rec_off)
        return 1
    for i in range(nchars - n + 1):
        _emit(scratch, starts[i], starts[i + n], hash_kind, mask, hs, nf, rec, rec_off)
        nf += 1
    return nf


@njit(cache=True, nogil=True)
def max_features(nbytes):
    """An upper bound on the number of features of a document of ``nbytes`` bytes."""
    return nbytes + 1


@njit(cache=True, nogil=True)
def vote_unit(hs, nf):
    """Counts S[i] of set bit i over hs[:nf] (unit weights); returns int64 (64,)."""
    acc = np.zeros(64, dtype=np.int64)
    for j in range(nf):
        h = hs[j]
        for i in range(64):
            acc[i] += np.int64((h >> _U64(i)) & _U64(1))
    return acc


@njit(cache=True, nogil=True)
def vote_weighted(hs, ws, nf):
    """Weighted sums S[i] = sum(ws[j] for j with bit i of hs[j] set); returns float64 (64,)."""
    acc = np.zeros(64, dtype=np.float64)
    for j in range(nf):
        h = hs[j]
        w = ws[j]
        for i in range(64):
            if (h >> _U64(i)) & _U64(1):
                acc[i] += w
    return acc


@njit(cache=True, nogil=True)
def fold_bits(s, total, bits):
    """Fingerprint from sums: bit i set when V[i] = 2 S[i] - total > 0, for i < bits."""
    fp = _U64(0)
    for i in range(bits):
        if 2 * s[i] - total > 0:
            fp |= _U64(1) << _U64(i)
    return fp


@njit(cache=True, nogil=True)
def _dedupe_sorted(hs, nf):
    """Sort hs[:nf] in place and move the distinct values to the front; return their count."""
    hs[:nf].sort()
    if nf == 0:
        return 0
    u = 1
    for j in range(1, nf):
        if hs[j] != hs[u - 1]:
            hs[u] = hs[j]
            u += 1
    return u


@njit(cache=True, nogil=True)
def doc_sums(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature, hash_kind, mask,
             weighting, wkeys, wvals, wdefault):
    """Vote sums of one document: (S float64 (64,), total weight T, number of features)."""
    cap = max_features(end - start)
    hs = np.empty(cap, dtype=np.uint64)
    no_rec = np.empty(0, dtype=np.uint8)
    no_off = np.empty(0, dtype=np.int64)
    nf = doc_features(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                      hash_kind, mask, hs, no_rec, no_off)
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
def _doc_fingerprint(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                     hash_kind, mask, weighting, wkeys, wvals, wdefault, bits):
    s, total, _ = doc_sums(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                           hash_kind, mask, weighting, wkeys, wvals, wdefault)
    return fold_bits(s, total, bits)


def _fingerprints_impl(buf, offsets, table, tok_mode, feat_mode, n, joiner, empty_feature,
                       hash_kind, mask, weighting, wkeys, wvals, wdefault, bits, out):
    for d in prange(offsets.shape[0] - 1):
        out[d] = _doc_fingerprint(buf, offsets[d], offsets[d + 1], table, tok_mode, feat_mode, n,
                                  joiner, empty_feature, hash_kind, mask, weighting, wkeys, wvals,
                                  wdefault, bits)


# one body, compiled twice: across documents in parallel, and a serial twin for single texts
fingerprints_parallel = njit(cache=True, nogil=True, parallel=True)(_fingerprints_impl)
fingerprints_serial = njit(cache=True, nogil=True)(_fingerprints_impl)


@njit(cache=True, nogil=True)
def hash_spans(buf, offsets, hash_kind, mask):
    """Hash each item buf[offsets[i]:offsets[i+1]]; returns uint64 (len(offsets) - 1,)."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    for i in range(out.shape[0]):
        out[i] = hash_span(buf, offsets[i], offsets[i + 1], hash_kind) & mask
    return out


@njit(cache=True, nogil=True)
def record_features(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                    hash_kind, mask):
    """Features of one document with their bytes: (hashes, feature bytes, offsets into them)."""
    nbytes = end - start
    cap = max_features(nbytes)
    hs = np.empty(cap, dtype=np.uint64)
    rec = np.empty(max(1, (nbytes + 1) * (n + 1) * 2 + 8), dtype=np.uint8)
    rec_off = np.zeros(cap + 1, dtype=np.int64)
    nf = doc_features(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                      hash_kind, mask, hs, rec, rec_off)
    return hs[:nf].copy(), rec[: rec_off[nf]].copy(), rec_off[: nf + 1].copy()
