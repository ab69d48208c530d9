"""The fingerprint pipeline in Numba: tokenize -> features -> hash -> vote -> fingerprint.

Two paths, both with no Python objects in their loops and run across documents with ``prange``:

* the fused path (``fingerprints_str_*``), for word or whitespace tokens with TF weights, the
  default: it reads each ``str``'s code units in place (``_strview``), lowercases and tokenizes
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

from ._bits import cttz, popcount
from ._hashes import (HASH_MD5_FIRST8, HASH_MD5_LAST8, HASH_XXH3, _read32, _read64, hash_span,
                      xxh3_1to3, xxh3_4to8, xxh3_9to16, xxh3_64)
from ._strview import unit_bytes
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
            cp, ln = _decode(b, p)
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
def count_bits(hs, nf, acc):
    """acc[i] += how many of hs[:nf] have bit i set (acc: int64 (64,)).

    SWAR vertical counters: ``c_j += (h >> j) & 0x0101...01`` counts, in byte lane L of c_j, the
    bit 8L + j of every hash, so 8 shift-and-add steps cover all 64 bits of one hash. Lanes are
    flushed every 255 hashes, before a byte can overflow.
    """
    j = 0
    while j < nf:
        stop = min(j + 255, nf)
        c0 = c1 = c2 = c3 = c4 = c5 = c6 = c7 = _U64(0)
        for q in range(j, stop):
            c0, c1, c2, c3, c4, c5, c6, c7 = _swar_add(hs[q], c0, c1, c2, c3, c4, c5, c6, c7)
        _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7)
        j = stop


@njit(cache=True, nogil=True)
def vote_unit(hs, nf):
    """Counts S[i] of set bit i over hs[:nf] (unit weights); returns int64 (64,)."""
    acc = np.zeros(64, dtype=np.int64)
    count_bits(hs, nf, acc)
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


# ---------------------------------------------------------------- the fused path on Python strs
# Word or whitespace tokens, every occurrence votes once: the common case, run straight from the
# code units of each ``str`` (see ``_strview``), eight units at a time while they are ASCII.

_HI = _U64(0x8080808080808080)  # the high bit of each byte lane
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


@njit(cache=True, nogil=True, inline="always")
def _ascii_block(data, p, kind):
    """Code units p..p+7 packed one per byte lane, and how many of them, from the first, are
    ASCII (8: all; lanes from there on hold junk)."""
    if kind == 1:
        w = _read64(data, p)
        return w, np.int64(cttz(w & _HI) >> _U64(3))
    if kind == 2:
        m2 = _U64(0xFF80FF80FF80FF80)
        w0 = _read64(data, 2 * p)
        w1 = _read64(data, 2 * p + 8)
        j0 = np.int64(cttz(w0 & m2) >> _U64(4))
        j1 = np.int64(cttz(w1 & m2) >> _U64(4))
        x0 = (w0 | (w0 >> _U64(8))) & _U64(0x0000FFFF0000FFFF)
        x0 = (x0 | (x0 >> _U64(16))) & _U64(0xFFFFFFFF)
        x1 = (w1 | (w1 >> _U64(8))) & _U64(0x0000FFFF0000FFFF)
        x1 = (x1 | (x1 >> _U64(16))) & _U64(0xFFFFFFFF)
        return x0 | (x1 << _U64(32)), j0 + (j1 if j0 == 4 else 0)
    m4 = _U64(0xFFFFFF80FFFFFF80)
    x = _U64(0)
    j = 0
    run = True
    for k in range(4):
        w = _read64(data, 4 * p + 8 * k)
        jk = np.int64(cttz(w & m4) >> _U64(5))
        if run:
            j += jk
            run = jk == 2
        x |= ((w | (w >> _U64(24))) & _U64(0xFFFF)) << _U64(16 * k)
    return x, j


@njit(cache=True, nogil=True, inline="always")
def _unit(data, p, kind):
    if kind == 1:
        return np.int64(data[np.uintp(p)])
    if kind == 2:
        return np.int64(data[np.uintp(2 * p)]) | (np.int64(data[np.uintp(2 * p + 1)]) << 8)
    return np.int64(_read32(data, 4 * p))


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
            x, j = _ascii_block(data, p, kind)
            x |= ((x + up_lo) & ~(x + up_hi) & up_mask) >> _U64(2)  # A..Z -> a..z
            for i in range(8):
                tok[np.uintp(o + i)] = np.uint8((x >> _U64(8 * i)) & _U64(0xFF))
            ins = (((x + lo0) & ~(x + hi0)) | ((x + lo1) & ~(x + hi1))
                   | ((x + lo2) & ~(x + hi2)) | ((x + lo3) & ~(x + hi3)))
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
        cp = _unit(data, p, kind)
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
                o = _put_utf8(tok, o, cp)
        nf += np.int64(inside ^ prev)
        prev = inside
        p += 1
    if prev:
        pos[nf] = o
        nf += 1
    return nf, flags


_TOKEN_BATCH = 16 * 255  # tokens hashed per batch: a whole number of SWAR flushes


@njit(cache=True, nogil=True)
def hash_vote_tokens(tok, pos, ntok, hash_kind, mask, hs, order, tail, acc):
    """acc[i] = how many of the ``ntok`` tokens ``tok[pos[2t]:pos[2t+1]]`` hash with bit i set.

    Tokens go in batches of ``_TOKEN_BATCH`` (``hs`` and ``order`` hold one batch, ``order`` four
    times over). With XXH3 a batch is first sorted by XXH3's size class (1-3, 4-8, 9-16, more
    bytes), so that each class's loop runs without a mispredicted branch per token; votes are
    sums, so the order does not change them.
    """
    acc[:] = 0
    for b0 in range(0, ntok, _TOKEN_BATCH):
        b1 = min(b0 + _TOKEN_BATCH, ntok)
        nb = b1 - b0
        if hash_kind == HASH_XXH3:
            c0, c1, c2, c3 = 0, nb, 2 * nb, 3 * nb
            for t in range(b0, b1):  # branch-free scatter into four lists
                ln = pos[2 * t + 1] - pos[2 * t]
                order[c0] = t
                order[c1] = t
                order[c2] = t
                order[c3] = t
                c0 += ln <= 3
                c1 += (ln > 3) & (ln <= 8)
                c2 += (ln > 8) & (ln <= 16)
                c3 += ln > 16
            w = 0
            for k in range(0, c0):
                t = order[k]
                hs[w] = xxh3_1to3(tok, pos[2 * t], pos[2 * t + 1]) & mask
                w += 1
            for k in range(nb, c1):
                t = order[k]
                hs[w] = xxh3_4to8(tok, pos[2 * t], pos[2 * t + 1]) & mask
                w += 1
            for k in range(2 * nb, c2):
                t = order[k]
                hs[w] = xxh3_9to16(tok, pos[2 * t], pos[2 * t + 1]) & mask
                w += 1
            for k in range(3 * nb, c3):
                t = order[k]
                hs[w] = xxh3_64(tok, pos[2 * t], pos[2 * t + 1]) & mask
                w += 1
        else:
            for t in range(b0, b1):
                hs[t - b0] = hash_span(tok, pos[2 * t], pos[2 * t + 1], hash_kind, tail) & mask
        count_bits(hs, nb, acc)


def _fingerprints_str_impl(ptrs, lens, kinds, ranges, table, sel, want, lower, amap, hash_kind,
                           mask, bits, out, flags):
    """out[d] = fingerprint of the d-th string (see ``_strview.str_views``): word or whitespace
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
            nflips, flags[d] = lower_tokenize_str(data, lens[d], kinds[d], ranges, table, sel,
                                                  want, lower, amap, tok, pos)
            ntok = nflips // 2
            hash_vote_tokens(tok, pos, ntok, hash_kind, mask, hs, order, tail, acc)
            out[d] = fold_bits(acc, ntok, bits)


# one body, compiled twice: across documents in parallel, and a serial twin for single texts
fingerprints_str_parallel = njit(cache=True, nogil=True, parallel=True)(_fingerprints_str_impl)
fingerprints_str_serial = njit(cache=True, nogil=True)(_fingerprints_str_impl)


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
    """True when ``fingerprints_str_*`` compute the fingerprint straight from the strings."""
    return (feat_mode == FEAT_TOKENS and weighting == WEIGHT_TF and n_weight_keys == 0
            and tok_mode != TOK_RUST)


@njit(cache=True, nogil=True)
def _doc_fingerprint(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                     hash_kind, mask, weighting, wkeys, wvals, wdefault, bits):
    s, total, _ = doc_sums(b, start, end, table, tok_mode, feat_mode, n, joiner, empty_feature,
                           hash_kind, mask, weighting, wkeys, wvals, wdefault)
    return fold_bits(s, total, bits)


def _fingerprints_impl(buf, offsets, table, tok_mode, feat_mode, n, joiner, empty_feature,
                       hash_kind, mask, weighting, wkeys, wvals, wdefault, bits, out):
    """out[d] = fingerprint of buf[offsets[d]:offsets[d+1]] (UTF-8, lowered by the caller when the
    tokenizer lowers): the general path, for every tokenizer, feature kind and weighting."""
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
