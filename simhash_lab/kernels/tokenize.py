"""Tokenizer kernels: text -> token spans -> features (tokens, word shingles, character n-grams).

Two forms of input:

* UTF-8 bytes (the general path): ``tokenize_spans`` finds token byte spans by a per-character
  class table (``simhash_lab._unicode``), ``feature_spans`` turns them into features (byte spans,
  never copies), which ``kernels.fingerprint`` hashes and ``record_features`` returns as bytes;
* ``str`` code units read in place (the fused default path): ``lower_tokenize_str`` lowercases and
  tokenizes 64 ASCII units at a time in one vector (``_block64``: LLVM's vector instructions, one
  or two AVX-512 registers where the CPU has them, more narrower ones where not), or eight at a
  time in the byte lanes of a uint64 (SWAR), and writes the tokens' UTF-8 into scratch for hashing.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .._unicode import RUSTALNUM, RUSTSPACE
from ._jit import kernel
from .bits import BYTE_HIGH as _HI
from .bits import BYTE_LANES as _LANES
from .bits import cttz, popcount
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


@kernel(inline=True)
def _tokenize_branchless(b, start, end, table, sel, want, starts, ends):
    """Token spans without a branch per boundary: starts and ends are stored unconditionally and
    their counters advance by 0 or 1 (word boundaries are unpredictable, mispredicts dominated).

    The unconditional stores write one entry past the last token: ``starts``/``ends`` need
    (number of tokens) + 1 entries."""
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


def span_capacity(nbytes: int) -> int:
    """Entries ``tokenize_spans`` may write for ``nbytes`` bytes: a token has >= 1 byte and two
    tokens are >= 1 byte apart, so there are at most (nbytes + 1) // 2 <= nbytes // 2 + 1 tokens,
    and the branch-free tokenizer stores one entry past the last (``tests/lib/kernels/test_bounds.py``)."""
    return nbytes // 2 + 2


_span_capacity = kernel(inline=True)(span_capacity)


@kernel(inline=True)
def tokenize_spans(b, start, end, p, starts, ends):
    """Token byte spans of ``b[start:end]`` into ``starts``/``ends`` (int64, at least
    ``span_capacity(end - start)`` entries) by the word rule of ``p`` (a ``Pipeline``); returns
    the number of tokens."""
    if p.tok_kind == TOK_RUST:
        return _tokenize_rust(b, start, end, p.table, starts, ends)
    return _tokenize_branchless(b, start, end, p.table, p.sel, p.want, starts, ends)


@kernel(inline=True)
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


@kernel(python=False)
def feature_spans(b, start, end, p):
    """The features of the document ``b[start:end]`` by the tokenizer of ``p`` (a ``Pipeline``) as
    byte spans: (src, fs, fe, nf), feature i being ``src[fs[i]:fe[i]]`` for i < nf. Nothing is
    copied per feature.

    Tokens are spans of ``b`` itself. For word shingles and character n-grams ``src`` is a new
    buffer holding the tokens joined by one space (shingles) or by ``p.joiner`` (n-grams): in
    it a shingle of n words is one contiguous span, and so is a gram of n characters. A text with
    fewer than n words or characters has one feature, itself; an empty text has none, or the
    empty feature with ``p.empty_feature`` (n-grams: the `simhash` package's rule).
    """
    nbytes = end - start
    cap = _span_capacity(nbytes)
    starts = np.empty(cap, dtype=np.int64)
    ends = np.empty(cap, dtype=np.int64)
    ntok = tokenize_spans(b, start, end, p, starts, ends)
    if p.feat_kind == FEAT_TOKENS:
        return b, starts, ends, ntok
    # Tokens joined: the separators between tokens in b are >= 1 byte each and a joiner is at most
    # 1 byte, so the joined text is never longer than the document.
    sep = 32 if p.feat_kind == FEAT_SHINGLES else p.joiner
    src = np.empty(max(nbytes, 1), dtype=np.uint8)
    ln = 0
    for j in range(ntok):
        if j > 0 and sep >= 0:
            src[ln] = sep
            ln += 1
        s0 = ln
        for q in range(starts[j], ends[j]):
            src[ln] = b[q]
            ln += 1
        starts[j] = s0  # token j, now in src
        ends[j] = ln
    n = p.n
    if p.feat_kind == FEAT_SHINGLES:
        m = max(ntok - n + 1, 1) if ntok > 0 else 0
        for i in range(m):  # shingle i: tokens i .. i+n-1; reads ends[>= i], not yet rewritten
            ends[i] = ends[min(i + n, ntok) - 1]
        return src, starts, ends, m
    # character n-grams: cs[c] is where character c starts in src (cs[nchars] = ln)
    cs = np.empty(ln + 1, dtype=np.int64)
    nchars = 0
    for q in range(ln):
        if (src[q] & 0xC0) != 0x80:
            cs[nchars] = q
            nchars += 1
    cs[nchars] = ln
    if nchars == 0:
        m = 1 if p.empty_feature else 0
    else:
        m = max(nchars - n + 1, 1)
    ge = np.empty(max(m, 1), dtype=np.int64)
    for i in range(m):  # gram i: characters i .. i+n-1 (the empty feature: cs[0] = 0 = ln)
        ge[i] = cs[min(i + n, nchars)]
    return src, cs, ge, m


@kernel
def record_features(b, start, end, p):
    """The features of ``b[start:end]`` as bytes: (uint8 concatenation, int64 offsets (nf + 1,))."""
    src, fs, fe, nf = feature_spans(b, start, end, p)
    off = np.zeros(nf + 1, dtype=np.int64)
    for i in range(nf):
        off[i + 1] = off[i] + (fe[i] - fs[i])
    rec = np.empty(max(off[nf], 1), dtype=np.uint8)
    for i in range(nf):
        o = off[i]
        for q in range(fs[i], fe[i]):
            rec[o + q - fs[i]] = src[q]
    return rec, off


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


def str_scratch(n: int, kind: int) -> tuple[int, int]:
    """(bytes of ``tok``, entries of ``pos``) that ``lower_tokenize_str`` needs for ``n`` code
    units of width ``kind``.

    ``tok``: a unit is written as one byte (ASCII, in or out of tokens) or, inside a token, as the
    UTF-8 of its lowercase: at most 2 bytes for a 1-byte unit (Latin-1 lowers within U+00FF), 3
    for a 2-byte one (the BMP lowers within the BMP; a lone surrogate becomes U+FFFD), 4 for a
    4-byte one, so ``o <= w * p`` after p units, w = min(kind + 1, 4). A block of b units (64, 16
    or 8) stores b bytes at o only while p + b <= n, so it ends at w * (n - b) + b <= w * n.
    ``pos``: every unit flips the state at most once, so after p units at most p flips are
    stored; a block of b units stores its flips in rounds of 8 (4 for 8 units), at most b
    entries from there (p + b <= n: the last at n - 1), and the closing flip of a final token is
    entry n. (Checked with bounds checks on in ``tests/lib/kernels/test_bounds.py``.)
    """
    return max(n * min(kind + 1, 4), 1), n + 1


str_scratch_inline = kernel(inline=True)(str_scratch)


@kernel(inline=True)
def _lower_classify(x, up_mask, lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, inv, four):
    """Eight ASCII byte lanes lowered (A..Z -> a..z where ``up_mask`` says) and the lanes inside a
    token as the bits of a byte: ranges 2 and 3 are tested only when ``four`` (loop-invariant)."""
    x |= ((x + _UP_LO) & ~(x + _UP_HI) & up_mask) >> _U64(2)
    ins = ((x + lo0) & ~(x + hi0)) | ((x + lo1) & ~(x + hi1))
    if four:
        ins |= ((x + lo2) & ~(x + hi2)) | ((x + lo3) & ~(x + hi3))
    return x, (((ins ^ inv) & _HI) >> _U64(7)) * _MOVEMASK >> _U64(56)


@kernel(inline=True)
def _store8(tok, o, x):
    for i in range(8):  # LLVM merges these into one 8-byte store
        tok[np.uintp(o + i)] = np.uint8((x >> _U64(8 * i)) & _U64(0xFF))


@kernel(inline=True)
def _store_flips(pos, nf, o, f, k):
    """pos[nf:] gets o + the offset of each set bit of ``f``; returns nf + their count. ``k``
    stores whatever the count (a block of 8 lanes has at most 4 flips most of the time, one of 16
    at most 8), then ``k`` more if needed (one mispredicted branch in a rare block), and so on."""
    cnt = np.int64(popcount(f))
    q = nf
    while True:
        for i in range(k):
            pos[np.uintp(q + i)] = o + np.int64(cttz(f))
            f &= f - _U64(1)
        q += k
        if q - nf >= cnt:
            return nf + cnt


def _block64(width: int):
    """An intrinsic ``(data, p, tok, o, los, spans, inv, up) -> (inside, non_ascii)`` over the 64
    code units of ``width`` bytes at unit ``p`` of ``data``: bit i of ``non_ascii`` is set when
    unit p + i is not ASCII; the units' low bytes, lowered when ``up`` (A..Z -> a..z), are
    stored at tok[o:o + 64] (one unaligned store; junk where a unit is not ASCII, which the
    caller then writes again), and bit i of ``inside`` is set when lowered byte i is in one of
    the four ranges [los[r], los[r] + spans[r]], the whole mask inverted when ``inv``.

    Written in LLVM's vector IR on 64 lanes, not in x86 instructions: LLVM lowers it to what the
    CPU it compiles for has (the kernels are compiled for the host, and Numba's cache is kept per
    CPU model and features): AVX-512BW compares into mask registers, or AVX2 / SSE2 halves. No
    bounds check: the caller has checked p + 64 <= the units and leaves 64 bytes of ``tok``."""

    @intrinsic
    def block(typingctx, data, p, tok, o, los, spans, inv, up):
        if not (isinstance(data, types.Array) and isinstance(tok, types.Array)):
            return None
        sig = types.UniTuple(types.uint64, 2)(data, p, tok, o, los, spans, inv, up)

        def codegen(context, builder, signature, args):
            i8, i32, i64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
            vt = ir.VectorType(ir.IntType(8 * width), 64)
            bt = ir.VectorType(i8, 64)
            zeros = ir.Constant(ir.VectorType(i32, 64), [0] * 64)

            def const(v):
                return ir.Constant(bt, [v] * 64)

            def splat(v, ty):
                one = builder.insert_element(ir.Constant(bt, ir.Undefined), builder.trunc(context.cast(
                    builder, v, ty, types.int64), i8), ir.Constant(i32, 0))  # fmt: skip
                return builder.shuffle_vector(one, ir.Constant(bt, ir.Undefined), zeros)

            sa = signature.args
            src = context.make_array(sa[0])(context, builder, args[0])
            dst = context.make_array(sa[2])(context, builder, args[2])
            at = builder.mul(context.cast(builder, args[1], sa[1], types.intp), ir.Constant(i64, width))
            x = builder.load(builder.bitcast(builder.gep(src.data, [at]), vt.as_pointer()), align=1)
            high = builder.icmp_unsigned(">", x, ir.Constant(vt, [127] * 64))
            xb = builder.trunc(x, bt) if width > 1 else x
            upper = builder.icmp_unsigned("<=", builder.sub(xb, const(65)), const(25))
            upper = builder.and_(upper, builder.icmp_unsigned("!=", splat(args[7], sa[7]), const(0)))
            low = builder.select(upper, builder.or_(xb, const(32)), xb)
            ins = None
            for r in range(4):
                lo = splat(builder.extract_value(args[4], r), sa[4][r])
                span = splat(builder.extract_value(args[5], r), sa[5][r])
                c = builder.icmp_unsigned("<=", builder.sub(low, lo), span)
                ins = c if ins is None else builder.or_(ins, c)
            ins = builder.xor(ins, builder.icmp_unsigned("!=", splat(args[6], sa[6]), const(0)))
            to = builder.gep(dst.data, [context.cast(builder, args[3], sa[3], types.intp)])
            builder.store(low, builder.bitcast(to, bt.as_pointer()), align=1)
            out = [builder.bitcast(ins, i64), builder.bitcast(high, i64)]
            return context.make_tuple(builder, signature.return_type, out)

        return sig, codegen

    return block


_block64_1 = _block64(1)
_block64_2 = _block64(2)
_block64_4 = _block64(4)


@kernel(inline=True)
def _byte_range(lo_c, hi_c):
    """(lo, span) of the range [lo, hi] whose SWAR constants are lo_c, hi_c (``ascii_ranges``):
    a padding range (lo > hi) becomes (255, 0), which no ASCII byte is in."""
    lo = np.int64(128) - np.int64(lo_c & _U64(0xFF))
    hi = np.int64(127) - np.int64(hi_c & _U64(0xFF))
    if lo > hi:
        return np.int64(255), np.int64(0)
    return lo, hi - lo


_UP_LO = _U64(128 - 65) * _LANES  # A..Z
_UP_HI = _U64(127 - 90) * _LANES


@kernel(python=False)
def lower_tokenize_str(data, n, kind, p, tok, pos):
    """Lowercase and tokenize the ``n`` code units of width ``kind`` in ``data``, writing UTF-8
    into ``tok``; returns (number of boundaries, flags). Token i is ``tok[pos[2i]:pos[2i+1]]``.

    ``pos`` gets every offset where the state inside/outside a token flips, starting outside.
    64 ASCII units go at a time, lowered and classified in one vector (``_block64``); the last
    63 units, and those of a block holding other units up to the first of them, go 16 or 8 ASCII
    units at a time in the byte lanes of a uint64 (the constants ``p.ranges``, see
    ``ascii_ranges``); the flips are found as bits and their offsets written without a branch per
    token. Other units go one by one, by the tables ``p.table`` and ``p.lower`` (empty: no
    lowering); bytes outside tokens are not copied faithfully (never read back). ``tok`` and
    ``pos`` need ``str_scratch(n, kind)`` entries.
    """
    ranges, table, lower, amap, sel, want = p.ranges, p.table, p.lower, p.amap, p.sel, p.want
    lowering = lower.shape[0] > 0
    lo0, hi0, lo1, hi1 = ranges[0], ranges[1], ranges[2], ranges[3]
    lo2, hi2, lo3, hi3 = ranges[4], ranges[5], ranges[6], ranges[7]
    inv, up_mask = ranges[8], ranges[9]
    four = lo2 != 0  # a padding range is (0, 0) (``ascii_ranges``): the default words use two
    r0, r1, r2, r3 = (
        _byte_range(lo0, hi0),
        _byte_range(lo1, hi1),
        _byte_range(lo2, hi2),
        _byte_range(lo3, hi3),
    )
    los, spans = (r0[0], r1[0], r2[0], r3[0]), (r0[1], r1[1], r2[1], r3[1])
    vinv, vup = np.int64(inv != _U64(0)), np.int64(up_mask != _U64(0))
    # int64 zeros, not literals: a literal 0 passed to a kernel would compile another version of it
    nf = np.int64(0)
    prev = _U64(0)
    o = np.int64(0)
    p = np.int64(0)
    flags = np.int64(0)
    retry = np.int64(0)  # the 64-unit step is tried from this unit on (past a non-ASCII unit)
    while p < n:
        if p + 64 <= n and p >= retry:  # one vector, one flip mask of 64 bits (~20 flips in prose)
            if kind == 1:
                m, na = _block64_1(data, p, tok, o, los, spans, vinv, vup)
            elif kind == 2:
                m, na = _block64_2(data, p, tok, o, los, spans, vinv, vup)
            else:
                m, na = _block64_4(data, p, tok, o, los, spans, vinv, vup)
            if na == _U64(0):
                f = m ^ ((m << _U64(1)) | prev)  # bit i: unit i differs from unit i - 1
                prev = m >> _U64(63)
                nf = _store_flips(pos, nf, o, f, 8)
                o += 64
                p += 64
                continue
            retry = p + np.int64(cttz(na)) + 1
        if p + 16 <= n:  # 16 units: two blocks' lanes, one flip mask of 16 bits
            x0, j0 = ascii_block(data, p, kind)
            x1, j1 = ascii_block(data, p + 8, kind)
            if j0 + j1 == 16:
                x0, m0 = _lower_classify(x0, up_mask, lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, inv, four)
                x1, m1 = _lower_classify(x1, up_mask, lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, inv, four)
                _store8(tok, o, x0)
                _store8(tok, o + 8, x1)
                m = m0 | (m1 << _U64(8))
                f = (m ^ ((m << _U64(1)) | prev)) & _U64(0xFFFF)  # bit i: lane i differs from lane i - 1
                prev = m >> _U64(15)
                nf = _store_flips(pos, nf, o, f, 8)
                o += 16
                p += 16
                continue
        if p + 8 <= n:
            x, j = ascii_block(data, p, kind)
            x, m = _lower_classify(x, up_mask, lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3, inv, four)
            _store8(tok, o, x)
            valid = (_U64(1) << _U64(j)) - _U64(1) if j < 8 else _U64(0xFF)
            m &= valid
            shifted = (m << _U64(1)) | prev
            f = (m ^ shifted) & valid  # bit i: lane i differs from the one before
            prev = (shifted >> _U64(j)) & _U64(1)
            nf = _store_flips(pos, nf, o, f, 4)
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
