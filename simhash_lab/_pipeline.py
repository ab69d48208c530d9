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

from ._hashes import HASH_MD5_FIRST8, HASH_MD5_LAST8, hash_span, xxh3_64
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
def _tokenize_branchless(b, start, end, table, sel, want, starts, ends):
    """Token spans without a branch per boundary: starts and ends are stored unconditionally and
    their counters advance by 0 or 1 (word boundaries are unpredictable, mispredicts dominated)."""
    n_start = 0
    n_end = 0
    prev = 0
    p = start
    while p < end:
        c = b[p]
        if c < 0x80:
            t = table[c]
            ln = 1
        else:
            cp, ln = _decode(b, p)
            t = table[cp]
        inside = np.int64(((t & sel) != 0) == want)
        starts[n_start] = p  # two arrays: stores to one array could alias and serialise
        ends[n_end] = p
        n_start += inside & (1 - prev)
        n_end += prev & (1 - inside)
        prev = inside
        p += ln
    if prev:
        ends[n_end] = end
        n_end += 1
    return n_end


@njit(cache=True, nogil=True)
def tokenize_spans(b, start, end, table, mode, starts, ends):
    """Token byte spans of ``b[start:end]`` into ``starts``/``ends`` (int64, length >= nbytes // 2 + 2);
    returns the number of tokens."""
    # a character is inside a token when ((class & sel) != 0) == want
    if mode == TOK_WORDS:
        sel, want = WORD, True
    elif mode == TOK_WHITESPACE:
        sel, want = PYSPACE, False
    else:
        sel, want = RUSTSPACE, False
    trim = mode == TOK_RUST
    if not trim:
        return _tokenize_branchless(b, start, end, table, sel, want, starts, ends)
    ntok = 0
    p = start
    in_tok = False
    tok_start = 0
    first_an = -1  # TOK_RUST: start of the first alphanumeric char of the current word
    last_an = -1  # TOK_RUST: end of the last alphanumeric char of the current word
    while p < end:
        c = b[p]
        if c < 0x80:  # ASCII: most of most texts
            t = table[c]
            ln = 1
        else:
            cp, ln = _decode(b, p)
            t = table[cp]
        if ((t & sel) != 0) == want:
            if not in_tok:
                in_tok = True
                tok_start = p
                first_an = -1
            if trim and (t & RUSTALNUM) != 0:
                if first_an < 0:
                    first_an = p
                last_an = p + ln
        elif in_tok:
            in_tok = False
            if not trim:
                starts[ntok] = tok_start
                ends[ntok] = p
                ntok += 1
            elif first_an >= 0:
                starts[ntok] = first_an
                ends[ntok] = last_an
                ntok += 1
        p += ln
    if in_tok:
        if not trim:
            starts[ntok] = tok_start
            ends[ntok] = end
            ntok += 1
        elif first_an >= 0:
            starts[ntok] = first_an
            ends[ntok] = last_an
            ntok += 1
    return ntok


@njit(cache=True, nogil=True, inline="always")
def _put_utf8(out, o, cp):
    """Write code point ``cp`` as UTF-8 at out[o]; return the new end."""
    if cp < 0x80:
        out[o] = cp
        return o + 1
    if cp < 0x800:
        out[o] = 0xC0 | (cp >> 6)
        out[o + 1] = 0x80 | (cp & 0x3F)
        return o + 2
    if cp < 0x10000:
        out[o] = 0xE0 | (cp >> 12)
        out[o + 1] = 0x80 | ((cp >> 6) & 0x3F)
        out[o + 2] = 0x80 | (cp & 0x3F)
        return o + 3
    out[o] = 0xF0 | (cp >> 18)
    out[o + 1] = 0x80 | ((cp >> 12) & 0x3F)
    out[o + 2] = 0x80 | ((cp >> 6) & 0x3F)
    out[o + 3] = 0x80 | (cp & 0x3F)
    return o + 4


@njit(cache=True, nogil=True)
def lower_utf8(buf, offsets, lower):
    """``str.lower()`` of every document of a UTF-8 batch, by the per-character table ``lower``.

    Returns a new buffer and offsets: lowercase can change a character's UTF-8 length (at most
    from 2 to 3 bytes, so 1.5x the input is enough).
    """
    out = np.empty(buf.shape[0] + buf.shape[0] // 2 + 4, dtype=np.uint8)
    out_off = np.empty_like(offsets)
    o = 0
    for d in range(offsets.shape[0] - 1):
        out_off[d] = o
        p = offsets[d]
        end = offsets[d + 1]
        while p < end:
            c = buf[p]
            if c < 0x80:
                out[o] = c | 32 if 65 <= c <= 90 else c
                o += 1
                p += 1
            else:
                cp, ln = _decode(buf, p)
                lc = np.int64(lower[cp])
                if lc == cp:
                    for i in range(ln):
                        out[o + i] = buf[p + i]
                    o += ln
                else:
                    o = _put_utf8(out, o, lc)
                p += ln
    out_off[offsets.shape[0] - 1] = o
    return out, out_off


@njit(cache=True, nogil=True, inline="always")
def _emit(src, s, e, hash_kind, mask, hs, nf, rec, rec_off, tail):
    """Hash the feature src[s:e] into hs[nf]; when recording, also copy its bytes into ``rec``."""
    hs[nf] = hash_span(src, s, e, hash_kind, tail) & mask
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
    tail = np.empty(128, dtype=np.uint8)  # MD5's scratch block
    starts = np.empty(nbytes // 2 + 2, dtype=np.int64)  # a token and a separator: >= 2 bytes
    ends = np.empty(nbytes // 2 + 2, dtype=np.int64)
    ntok = tokenize_spans(b, start, end, table, tok_mode, starts, ends)
    nf = 0
    if feat_mode == FEAT_TOKENS:
        for i in range(ntok):
            _emit(b, starts[i], ends[i], hash_kind, mask, hs, nf, rec, rec_off, tail)
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
                for q in range(starts[j], ends[j]):
                    scratch[ln] = b[q]
                    ln += 1
            _emit(scratch, 0, ln, hash_kind, mask, hs, nf, rec, rec_off, tail)
            nf += 1
        return nf
    # FEAT_CHARGRAMS: the tokens joined by `joiner`, then windows of n code points
    scratch = np.empty(nbytes + ntok + 1, dtype=np.uint8)
    ln = 0
    for j in range(ntok):
        if j > 0 and joiner >= 0:
            scratch[ln] = joiner
            ln += 1
        for q in range(starts[j], ends[j]):
            scratch[ln] = b[q]
            ln += 1
    cstarts = np.empty(ln + 1, dtype=np.int64)
    nchars = 0
    for q in range(ln):
        if (scratch[q] & 0xC0) != 0x80:
            cstarts[nchars] = q
            nchars += 1
    cstarts[nchars] = ln
    if nchars == 0:
        if empty_feature:
            _emit(scratch, 0, 0, hash_kind, mask, hs, nf, rec, rec_off, tail)
            return 1
        return 0
    if nchars <= n:
        _emit(scratch, 0, ln, hash_kind, mask, hs, nf, rec, rec_off, tail)
        return 1
    m = nchars - n + 1
    if rec.shape[0] == 0 and (hash_kind == HASH_MD5_FIRST8 or hash_kind == HASH_MD5_LAST8):
        return _memo_grams(scratch, cstarts, m, n, hash_kind, mask, hs, tail)
    for i in range(m):
        _emit(scratch, cstarts[i], cstarts[i + n], hash_kind, mask, hs, nf, rec, rec_off, tail)
        nf += 1
    return nf


@njit(cache=True, nogil=True)
def _memo_grams(scratch, cstarts, m, n, hash_kind, mask, hs, tail):
    """Hash the m n-grams scratch[cstarts[i]:cstarts[i+n]] with an expensive hash (MD5) once per
    distinct n-gram: repeats (a third or more of the 4-grams of prose) reuse the first result.

    An open-addressing table keyed by the gram's XXH3; a hit is confirmed byte by byte, so the
    result is exactly that of hashing every gram."""
    cap = 16
    while cap < 2 * m:
        cap *= 2
    keys = np.empty(cap, dtype=np.uint64)
    starts = np.full(cap, -1, dtype=np.int64)
    ends = np.empty(cap, dtype=np.int64)
    vals = np.empty(cap, dtype=np.uint64)
    slot_mask = _U64(cap - 1)
    for i in range(m):
        s = cstarts[i]
        e = cstarts[i + n]
        k = xxh3_64(scratch, s, e)
        slot = np.int64(k & slot_mask)
        while True:
            q = starts[slot]
            if q < 0:  # a new gram
                v = hash_span(scratch, s, e, hash_kind, tail)
                keys[slot] = k
                starts[slot] = s
                ends[slot] = e
                vals[slot] = v
                break
            if keys[slot] == k and ends[slot] - q == e - s:
                same = True
                for t in range(e - s):
                    if scratch[q + t] != scratch[s + t]:
                        same = False
                        break
                if same:
                    v = vals[slot]
                    break
            slot = np.int64((_U64(slot) + _U64(1)) & slot_mask)
        hs[i] = v & mask
    return m


@njit(cache=True, nogil=True)
def max_features(nbytes):
    """An upper bound on the number of features of a document of ``nbytes`` bytes."""
    return nbytes + 1


_LANES = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True, inline="always")
def _swar_add(h, c0, c1, c2, c3, c4, c5, c6, c7):
    """Count the bits of ``h`` into byte-lane counters: lane L of c_j counts bit 8L + j."""
    return (c0 + (h & _LANES), c1 + ((h >> _U64(1)) & _LANES), c2 + ((h >> _U64(2)) & _LANES),
            c3 + ((h >> _U64(3)) & _LANES), c4 + ((h >> _U64(4)) & _LANES),
            c5 + ((h >> _U64(5)) & _LANES), c6 + ((h >> _U64(6)) & _LANES),
            c7 + ((h >> _U64(7)) & _LANES))


@njit(cache=True, nogil=True, inline="always")
def _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7):
    """Add the byte-lane counters to acc: lane L of c_j counts bit 8L + j."""
    for lane in range(8):
        sh = _U64(8 * lane)
        acc[8 * lane + 0] += np.int64((c0 >> sh) & _U64(0xFF))
        acc[8 * lane + 1] += np.int64((c1 >> sh) & _U64(0xFF))
        acc[8 * lane + 2] += np.int64((c2 >> sh) & _U64(0xFF))
        acc[8 * lane + 3] += np.int64((c3 >> sh) & _U64(0xFF))
        acc[8 * lane + 4] += np.int64((c4 >> sh) & _U64(0xFF))
        acc[8 * lane + 5] += np.int64((c5 >> sh) & _U64(0xFF))
        acc[8 * lane + 6] += np.int64((c6 >> sh) & _U64(0xFF))
        acc[8 * lane + 7] += np.int64((c7 >> sh) & _U64(0xFF))


@njit(cache=True, nogil=True)
def vote_unit(hs, nf):
    """Counts S[i] of set bit i over hs[:nf] (unit weights); returns int64 (64,).

    SWAR vertical counters: ``c_j += (h >> j) & 0x0101...01`` counts, in byte lane L of c_j, the
    bit 8L + j of every hash, so 8 shift-and-add steps cover all 64 bits of one hash. Lanes are
    flushed every 255 hashes, before a byte can overflow.
    """
    acc = np.zeros(64, dtype=np.int64)
    j = 0
    while j < nf:
        stop = min(j + 255, nf)
        c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = _U64(0)
        for q in range(j, stop):
            c0, c1, c2, c3, c4, c5, c6, c7 = _swar_add(hs[q], c0, c1, c2, c3, c4, c5, c6, c7)
        _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7)
        j = stop
    return acc


def ascii_map(table, sel, want, lowercase):
    """int16 (128,): each ASCII byte as the fused kernel stores it (lowered when ``lowercase``),
    or -1 when it is not part of a token."""
    amap = np.full(128, -1, dtype=np.int16)
    for c in range(128):
        lc = c | 32 if lowercase and 65 <= c <= 90 else c
        if ((table[lc] & sel) != 0) == want:
            amap[c] = lc
    return amap


@njit(cache=True, nogil=True)
def _lower_tokenize(b, start, end, table, sel, want, lower, amap, scratch, starts, ends):
    """Copy ``b[start:end]`` lowered into ``scratch`` and find its tokens there, without a branch
    per byte or per word boundary on ASCII text. Returns the number of tokens; token i is
    ``scratch[starts[i]:ends[i]]``.

    ``amap`` (int16 (128,), see ``ascii_map``) gives each ASCII byte lowered, or -1 outside tokens.
    Characters outside tokens are not copied faithfully (they are never read back).
    """
    lowering = lower.shape[0] > 0
    n_start = 0
    n_end = 0
    prev = 0
    o = 0
    p = start
    while p < end:
        c = b[np.uintp(p)]  # unsigned indices: no negative-index wraparound in the hot loop
        if c < 0x80:
            v = amap[c]
            inside = np.int64(v >= 0)
            scratch[np.uintp(o)] = np.uint8(v)
            ln = 1
        else:
            cp, ln = _decode(b, p)
            if lowering:
                cp = np.int64(lower[cp])
            inside = np.int64(((table[cp] & sel) != 0) == want)
        starts[np.uintp(n_start)] = o  # two arrays: stores to one array could alias and serialise
        ends[np.uintp(n_end)] = o
        n_start += inside & (1 - prev)
        n_end += prev & (1 - inside)
        prev = inside
        if c < 0x80:
            o += 1
        elif inside:
            o = _put_utf8(scratch, o, cp)
        p += ln
    if prev:
        ends[n_end] = o
        n_end += 1
    return n_end


@njit(cache=True, nogil=True)
def fingerprint_words_tf(b, start, end, table, sel, want, lower, amap, hash_kind, mask, bits, tok,
                         tail, acc, starts, ends):
    """The common case, fused: word tokens, every occurrence votes once.

    Lowercase (by the per-character table ``lower``; empty: no lowercasing) and tokenize in one
    branch-light pass into ``tok``, then hash every token and count its bits in SWAR lanes; no
    per-token allocation. Equal to lowering the text, then ``doc_features`` + ``vote_unit`` +
    ``fold_bits``. Scratch from the caller, reused across documents: ``tok`` uint8 of >= 1.5 *
    nbytes + 4, ``starts``/``ends`` int64 of >= nbytes // 2 + 2, ``tail`` uint8 (128,) for MD5,
    ``acc`` int64 (64,).
    """
    ntok = _lower_tokenize(b, start, end, table, sel, want, lower, amap, tok, starts, ends)
    acc[:] = 0
    j = 0
    while j < ntok:
        stop = min(j + 255, ntok)  # flush the byte lanes before one can overflow
        c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = _U64(0)
        for q in range(j, stop):
            h = hash_span(tok, starts[q], ends[q], hash_kind, tail) & mask
            c0, c1, c2, c3, c4, c5, c6, c7 = _swar_add(h, c0, c1, c2, c3, c4, c5, c6, c7)
        _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7)
        j = stop
    return fold_bits(acc, ntok, bits)


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
def is_fused(tok_mode, feat_mode, weighting, n_weight_keys):
    """True when ``fingerprint_words_tf`` computes the fingerprint in one pass."""
    return (feat_mode == FEAT_TOKENS and weighting == WEIGHT_TF and n_weight_keys == 0
            and tok_mode != TOK_RUST)


@njit(cache=True, nogil=True)
def _doc_fingerprint(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                     hash_kind, mask, weighting, wkeys, wvals, wdefault, bits, lower):
    s, total, _ = doc_sums(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                           hash_kind, mask, weighting, wkeys, wvals, wdefault)
    return fold_bits(s, total, bits)


def _fingerprints_impl(buf, offsets, table, tok_mode, feat_mode, n, joiner, empty_feature,
                       hash_kind, mask, weighting, wkeys, wvals, wdefault, bits, lower, amap, out):
    """out[d] = fingerprint of buf[offsets[d]:offsets[d+1]]. ``lower`` and ``amap`` are used by the
    fused path only (see ``is_fused``); for the others the caller lowercases the buffer first.

    Documents go in chunks, one ``prange`` iteration each, so that scratch memory is allocated once
    per chunk rather than once per document; every chunk writes only its own ``out`` entries.
    """
    ndocs = offsets.shape[0] - 1
    fused = is_fused(tok_mode, feat_mode, weighting, wkeys.shape[0])
    sel = WORD if tok_mode == TOK_WORDS else PYSPACE
    chunk = 64
    for ci in prange((ndocs + chunk - 1) // chunk):
        lo = ci * chunk
        hi = min(lo + chunk, ndocs)
        if fused:
            longest = 0
            for d in range(lo, hi):
                longest = max(longest, offsets[d + 1] - offsets[d])
            tok = np.empty(longest + longest // 2 + 4, dtype=np.uint8)
            starts = np.empty(longest // 2 + 2, dtype=np.int64)
            ends = np.empty(longest // 2 + 2, dtype=np.int64)
            tail = np.empty(128, dtype=np.uint8)
            acc = np.empty(64, dtype=np.int64)
            for d in range(lo, hi):
                out[d] = fingerprint_words_tf(buf, offsets[d], offsets[d + 1], table, sel,
                                              tok_mode == TOK_WORDS, lower, amap, hash_kind, mask,
                                              bits, tok, tail, acc, starts, ends)
        else:
            for d in range(lo, hi):
                out[d] = _doc_fingerprint(buf, offsets[d], offsets[d + 1], table, tok_mode,
                                          feat_mode, n, joiner, empty_feature, hash_kind, mask,
                                          weighting, wkeys, wvals, wdefault, bits, lower)


# one body, compiled twice: across documents in parallel, and a serial twin for single texts
fingerprints_parallel = njit(cache=True, nogil=True, parallel=True)(_fingerprints_impl)
fingerprints_serial = njit(cache=True, nogil=True)(_fingerprints_impl)


@njit(cache=True, nogil=True)
def hash_spans(buf, offsets, hash_kind, mask):
    """Hash each item buf[offsets[i]:offsets[i+1]]; returns uint64 (len(offsets) - 1,)."""
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    tail = np.empty(128, dtype=np.uint8)
    for i in range(out.shape[0]):
        out[i] = hash_span(buf, offsets[i], offsets[i + 1], hash_kind, tail) & mask
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
