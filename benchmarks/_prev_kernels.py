"""Kernels of earlier rounds, kept as peers: each benchmark section runs today's kernel beside the
one it replaced, in the same process (the figures of one round against another are on different
loads; a ratio in one run is not).

Copies, compiled here with plain ``numba.njit`` (no cache: a few seconds at first use):

* ``shingle_hashes_str_20261201``: ``kernels.verify.shingle_hashes_str`` as of 2026-12-01 (one
  hash loop with the size test inside, ``sort_u64``'s buckets with an insertion sort each, the
  8-byte join);
* ``hash_spans_20261201``: ``kernels.fingerprint.hash_spans`` as of 2026-12-01 (a call of
  ``xxh3_64`` per span);
* ``fingerprints_str_20261201``: the fused default path (``kernels.fingerprint.fingerprints_str``)
  as of 2026-12-01, its tokens over 16 bytes hashed by a call of ``xxh3_64`` each, its scan
  ``lower_tokenize_str_20261201`` (one 8-unit block at a time);
* ``scan_docs(scan)``: a kernel running only a scan over a batch (the scan's share, timed alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simhash_lab.kernels.bits import BYTE_HIGH as _HI
from simhash_lab.kernels.bits import BYTE_LANES as _LANES
from simhash_lab.kernels.bits import cttz, popcount
from simhash_lab.kernels.fingerprint import _MD5_TAIL, CHUNK
from simhash_lab.kernels.hashes import (
    HASH_XXH3,
    hash_span,
    read64,
    write64,
    xxh3_1to3,
    xxh3_4to8,
    xxh3_9to16,
    xxh3_17to128_inline,
    xxh3_64,
)
from simhash_lab.kernels.sort import sort_u64
from simhash_lab.kernels.strings import ascii_block, put_utf8, unit, unit_bytes
from simhash_lab.kernels.tokenize import _MOVEMASK, FLAG_PYTHON_LOWER, FLAG_SURROGATE, str_scratch_inline
from simhash_lab.kernels.vote import ORDER_SIZE, TOKEN_BATCH, count_bits, fold_counts

STR_CHUNK = 64
_U64 = np.uint64


@njit(nogil=True)
def hash_spans_20261201(buf, offsets):
    out = np.empty(offsets.shape[0] - 1, dtype=np.uint64)
    for i in range(out.shape[0]):
        out[i] = xxh3_64(buf, offsets[i], offsets[i + 1])
    return out


@njit(nogil=True)
def shingle_hashes_str_20261201(ptrs, lens, kinds, p, n, slots, scratch, counts, flags, at):
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
        tok = np.empty(tok_size + 8, dtype=np.uint8)  # + 8: the copy below reads words
        pos = np.empty(pos_size, dtype=np.int64)
        joined = np.empty(tok_size + pos_size + 8, dtype=np.uint8)  # + 8: and writes them
        ws = np.empty(pos_size, dtype=np.int64)
        tmp = np.empty(most, dtype=np.uint64)
        for d in range(lo, hi):
            data = unit_bytes(ptrs[d], lens[d], kinds[d])
            nflips, flags[d] = lower_tokenize_str_20261201(data, lens[d], kinds[d], p, tok, pos)
            ntok = nflips // 2
            at[d] = w
            if ntok == 0:
                counts[d] = 0
                continue
            o = np.int64(0)
            for t in range(ntok):  # the tokens joined by one space, copied 8 bytes at a time
                ws[t] = o
                s = pos[2 * t]
                ln = pos[2 * t + 1] - s
                for q in range(0, ln, 8):  # the last word spills junk past the token: overwritten
                    write64(joined, o + q, read64(tok, s + q))  # by the space and what follows
                o += ln
                joined[o] = 32
                o += 1
            ws[ntok] = o
            m = max(ntok - n + 1, 1)
            s0 = w
            for i in range(m):
                a = ws[i]
                e = ws[min(i + n, ntok)] - 1
                if 16 < e - a <= 128:  # most shingles: inline, no call per shingle
                    scratch[s0 + i] = xxh3_17to128_inline(joined, a, e)
                else:
                    scratch[s0 + i] = xxh3_64(joined, a, e)
            out = scratch[s0 : s0 + m]
            sort_u64(out, tmp, m)
            u = 1
            for j in range(1, m):
                if out[j] != out[u - 1]:
                    out[u] = out[j]
                    u += 1
            counts[d] = u
            w += u


@njit(nogil=True)
def hash_vote_tokens_20261201(tok, pos, ntok, hash_kind, hs, order, tail, acc):
    acc[:] = 0
    for b0 in range(0, ntok, TOKEN_BATCH):
        b1 = min(b0 + TOKEN_BATCH, ntok)
        nb = b1 - b0
        if hash_kind == HASH_XXH3:
            c0, c1, c2, c3 = 0, nb, 2 * nb, 3 * nb
            for t in range(b0, b1):  # branch-free scatter into four lists
                ln = pos[2 * t + 1] - pos[2 * t]
                order[c0] = t
                order[c1] = t
                order[c2] = t
                order[c3] = t
                c0 += (ln > 0) & (ln <= 3)
                c1 += (ln > 3) & (ln <= 8)
                c2 += (ln > 8) & (ln <= 16)
                c3 += (ln > 16) | (ln == 0)  # the empty token (given token lists): xxh3_64
            w = 0
            for k in range(0, c0):
                t = order[k]
                hs[w] = xxh3_1to3(tok, pos[2 * t], pos[2 * t + 1])
                w += 1
            for k in range(nb, c1):
                t = order[k]
                hs[w] = xxh3_4to8(tok, pos[2 * t], pos[2 * t + 1])
                w += 1
            for k in range(2 * nb, c2):
                t = order[k]
                hs[w] = xxh3_9to16(tok, pos[2 * t], pos[2 * t + 1])
                w += 1
            for k in range(3 * nb, c3):
                t = order[k]
                hs[w] = xxh3_64(tok, pos[2 * t], pos[2 * t + 1])
                w += 1
        else:
            for t in range(b0, b1):
                hs[t - b0] = hash_span(tok, pos[2 * t], pos[2 * t + 1], hash_kind, tail)
        count_bits(hs, nb, acc)


@njit(nogil=True)
def lower_tokenize_str_20261201(data, n, kind, p, tok, pos):
    """``kernels.tokenize.lower_tokenize_str`` as of 2026-12-01: one 8-unit block at a time, the
    four ranges tested whatever the tokenizer, four flips stored, four more if ``cnt > 4``."""
    ranges, table, lower, amap, sel, want = p.ranges, p.table, p.lower, p.amap, p.sel, p.want
    lowering = lower.shape[0] > 0
    lo0, hi0, lo1, hi1 = ranges[0], ranges[1], ranges[2], ranges[3]
    lo2, hi2, lo3, hi3 = ranges[4], ranges[5], ranges[6], ranges[7]
    inv, up_mask = ranges[8], ranges[9]
    up_lo = _U64(128 - 65) * _LANES  # A..Z
    up_hi = _U64(127 - 90) * _LANES
    # int64 zeros, not literals: a literal 0 passed to a kernel would compile another version of it
    nf = np.int64(0)
    prev = _U64(0)
    o = np.int64(0)
    p = np.int64(0)
    flags = np.int64(0)
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


@njit(nogil=True)
def fingerprints_str_20261201(ptrs, lens, kinds, p, out, flags):
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
            nflips, flags[d] = lower_tokenize_str_20261201(data, lens[d], kinds[d], p, tok, pos)
            ntok = nflips // 2
            hash_vote_tokens_20261201(tok, pos, ntok, p.hash_kind, hs, order, tail, acc)
            out[d] = fold_counts(acc, ntok, p.bits)


def scan_docs(scan):
    """A kernel that runs ``scan`` (a ``lower_tokenize_str``) over every document of a batch and
    nothing else, with scratch for the longest: the scan's share of the fused path, timed alone."""

    @njit(nogil=True)
    def run(ptrs, lens, kinds, p):
        longest = 0
        for d in range(ptrs.shape[0]):
            longest = max(longest, lens[d])
        tok_n, pos_n = str_scratch_inline(longest, 4)
        tok = np.empty(tok_n, dtype=np.uint8)
        pos = np.empty(pos_n, dtype=np.int64)
        total = 0
        for d in range(ptrs.shape[0]):
            nflips, _ = scan(unit_bytes(ptrs[d], lens[d], kinds[d]), lens[d], kinds[d], p, tok, pos)
            total += nflips
        return total

    return run
