"""Tokenizer kernels: text -> token spans -> features (tokens, word shingles, character n-grams).

Two forms of input:

* UTF-8 bytes (the general path): ``tokenize_spans`` finds token byte spans by a per-character
  class table (``simhash_lab._unicode``), ``doc_features`` turns them into features and hashes each;
* ``str`` code units read in place (the fused default path): ``lower_tokenize_str`` lowercases and
  tokenizes eight ASCII units at a time in the byte lanes of a uint64 (SWAR) and writes the tokens'
  UTF-8 into scratch for hashing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._unicode import PYSPACE, RUSTALNUM, RUSTSPACE, WORD
from .bits import BYTE_HIGH as _HI
from .bits import BYTE_LANES as _LANES
from .bits import cttz, popcount
from .hashes import HASH_MD5_FIRST8, HASH_MD5_LAST8, hash_span, xxh3_64
from .strings import ascii_block, decode_utf8, put_utf8, unit

_U64 = np.uint64

# tokenizer kinds
TOK_WORDS = 0  # maximal runs of \w characters


TOK_WHITESPACE = 1  # str.split(): runs of non-space characters


TOK_RUST = 2  # split_whitespace + trim non-alphanumeric at both ends, drop empty


# feature kinds
FEAT_TOKENS = 0


FEAT_SHINGLES = 1  # n consecutive tokens joined by one space


FEAT_CHARGRAMS = 2  # n consecutive code points of the tokens joined by `joiner`


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
            cp, ln = decode_utf8(b, p)
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
    if mode == TOK_WORDS:
        return _tokenize_branchless(b, start, end, table, WORD, True, starts, ends)
    if mode == TOK_WHITESPACE:
        return _tokenize_branchless(b, start, end, table, PYSPACE, False, starts, ends)
    return _tokenize_rust(b, start, end, table, starts, ends)


@njit(cache=True, nogil=True)
def _tokenize_rust(b, start, end, table, starts, ends):
    """Rust's ``split_whitespace``, each word then trimmed of non-alphanumeric characters at both
    ends (``trim_matches(|c: char| !c.is_alphanumeric())``); words left empty are dropped."""
    ntok = 0
    first_an = -1  # start of the current word's first alphanumeric character (-1: none yet)
    last_an = -1  # end of its last one
    p = start
    while p <= end:
        if p == end:  # a space after the text closes its last word
            t, ln = RUSTSPACE, 1
        elif b[p] < 0x80:  # ASCII: most of most texts
            t, ln = table[b[p]], 1
        else:
            cp, ln = decode_utf8(b, p)
            t = table[cp]
        if (t & RUSTSPACE) != 0:
            if first_an >= 0:
                starts[ntok] = first_an
                ends[ntok] = last_an
                ntok += 1
                first_an = -1
        elif (t & RUSTALNUM) != 0:
            if first_an < 0:
                first_an = p
            last_an = p + ln
        p += ln
    return ntok


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
def doc_features(
    b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature, hash_kind, mask, hs, rec, rec_off
):
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


def ascii_map(table, sel, want, lowercase):
    """int16 (128,): each ASCII byte as the fused kernel stores it (lowered when ``lowercase``),
    or -1 when it is not part of a token."""
    amap = np.full(128, -1, dtype=np.int16)
    for c in range(128):
        lc = c | 32 if lowercase and 65 <= c <= 90 else c
        if ((table[lc] & sel) != 0) == want:
            amap[c] = lc
    return amap


_MOVEMASK = _U64(0x0102040810204080)  # (lanes' low bits) * this >> 56: lane i -> bit i


FLAG_PYTHON_LOWER = 1  # the text holds U+0130 or U+03A3: lower it with str.lower() and redo


FLAG_SURROGATE = 2  # the text holds a lone surrogate: it has no UTF-8 form


def ascii_ranges(amap, lowercase):
    """The SWAR form of ``amap``'s token bytes for ``lower_tokenize_str``: uint64 (10,).

    Token bytes (after lowering) as at most four ranges [lo, hi], or the bytes outside tokens as
    ranges and an inverting mask, whichever is shorter; uppercase letters never occur after
    lowering, so they may join either side. Byte lane x is in [lo, hi] when the high bit of
    ``(x + (128 - lo)) & ~(x + (127 - hi))`` is set (x < 128: no carry leaves the lane).
    """
    inside = [bool(amap[c] >= 0) for c in range(128)]
    free = set(range(65, 91)) if lowercase else set()

    def ranges(member):
        out, c = [], 0
        while c < 128:
            if member[c] and c not in free:
                lo = c
                while c + 1 < 128 and (member[c + 1] or c + 1 in free):
                    c += 1
                hi = c
                while hi in free:
                    hi -= 1
                out.append((lo, hi))
            c += 1
        return out

    r_in, r_out = ranges(inside), ranges([not v for v in inside])
    rs, inv = (r_out, 0x8080808080808080) if len(r_out) < len(r_in) else (r_in, 0)
    if len(rs) > 4:
        raise ValueError("the fused tokenizer supports at most 4 ranges of ASCII token bytes")
    lanes = 0x0101010101010101
    consts = []
    for lo, hi in rs + [(128, 127)] * (4 - len(rs)):  # padding ranges match nothing
        consts += [(128 - lo) * lanes, (127 - hi) * lanes]
    consts += [inv, 0x8080808080808080 if lowercase else 0]
    return np.array(consts, dtype=np.uint64)


@njit(cache=True, nogil=True)
def lower_tokenize_str(data, n, kind, ranges, table, sel, want, lower, amap, tok, pos):
    """Lowercase and tokenize the ``n`` code units of width ``kind`` in ``data``, writing UTF-8
    into ``tok``; returns (number of boundaries, flags). Token i is ``tok[pos[2i]:pos[2i+1]]``.

    ``pos`` gets every offset where the state inside/outside a token flips, starting outside.
    Eight ASCII units go at a time: lowered and classified in byte lanes of one uint64 (the
    constants ``ranges``, see ``ascii_ranges``), the flips found as bits and their offsets written
    without a branch per token. Other units go one by one, by the tables ``table`` and ``lower``
    (empty: no lowering); bytes outside tokens are not copied faithfully (never read back).
    ``tok`` needs ``n * min(kind + 1, 4) + 8`` bytes, ``pos`` n + 9 entries.
    """
    lowering = lower.shape[0] > 0
    lo0, hi0, lo1, hi1 = ranges[0], ranges[1], ranges[2], ranges[3]
    lo2, hi2, lo3, hi3 = ranges[4], ranges[5], ranges[6], ranges[7]
    inv, up_mask = ranges[8], ranges[9]
    up_lo = _U64(128 - 65) * _LANES  # A..Z
    up_hi = _U64(127 - 90) * _LANES
    nf = 0
    prev = _U64(0)
    o = 0
    p = 0
    flags = 0
    while p < n:
        if p + 8 <= n:
            x, j = ascii_block(data, p, kind)
            x |= ((x + up_lo) & ~(x + up_hi) & up_mask) >> _U64(2)  # A..Z -> a..z
            for i in range(8):
                tok[np.uintp(o + i)] = np.uint8((x >> _U64(8 * i)) & _U64(0xFF))
            ins = (
                ((x + lo0) & ~(x + hi0))
                | ((x + lo1) & ~(x + hi1))
                | ((x + lo2) & ~(x + hi2))
                | ((x + lo3) & ~(x + hi3))
            )
            valid = (_U64(1) << _U64(j)) - _U64(1) if j < 8 else _U64(0xFF)
            m = ((((ins ^ inv) & _HI) >> _U64(7)) * _MOVEMASK >> _U64(56)) & valid
            shifted = (m << _U64(1)) | prev
            f = (m ^ shifted) & valid  # bit i: lane i differs from the one before
            prev = (shifted >> _U64(j)) & _U64(1)
            cnt = popcount(f)
            for i in range(4):  # at most 4 flips in most blocks: store 4, count cnt
                pos[np.uintp(nf + i)] = o + np.int64(cttz(f))
                f &= f - _U64(1)
            if cnt > 4:
                for i in range(4, 8):
                    pos[np.uintp(nf + i)] = o + np.int64(cttz(f))
                    f &= f - _U64(1)
            nf += np.int64(cnt)
            o += j
            p += j
            if j == 8:
                continue
        # one unit: not ASCII, or among the last 7
        cp = unit(data, p, kind)
        pos[nf] = o
        if cp < 0x80:
            v = amap[cp]
            inside = _U64(v >= 0)
            tok[o] = np.uint8(v)
            o += 1
        else:
            if lowering and (cp == 0x130 or cp == 0x3A3):
                flags |= FLAG_PYTHON_LOWER
            if 0xD800 <= cp < 0xE000:
                flags |= FLAG_SURROGATE
                cp = 0xFFFD
            if lowering:
                cp = np.int64(lower[cp])
            inside = _U64(((table[cp] & sel) != 0) == want)
            if inside:
                o = put_utf8(tok, o, cp)
        nf += np.int64(inside ^ prev)
        prev = inside
        p += 1
    if prev:
        pos[nf] = o
        nf += 1
    return nf, flags


@njit(cache=True, nogil=True)
def record_features(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature, hash_kind, mask):
    """Features of one document with their bytes: (hashes, feature bytes, offsets into them)."""
    nbytes = end - start
    cap = max_features(nbytes)
    hs = np.empty(cap, dtype=np.uint64)
    rec = np.empty(max(1, (nbytes + 1) * (n + 1) * 2 + 8), dtype=np.uint8)
    rec_off = np.zeros(cap + 1, dtype=np.int64)
    nf = doc_features(
        b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature, hash_kind, mask, hs, rec, rec_off
    )
    return hs[:nf].copy(), rec[: rec_off[nf]].copy(), rec_off[: nf + 1].copy()
