"""Token hash kernels: XXH3-64 (the default), XXH64, MD5 (first or last 8 bytes) and SipHash-1-3.

Every hash here is a pure function of the token's UTF-8 bytes, so fingerprints are the same in every
process and on every machine (never Python's salted ``hash()``).

Why XXH3-64 (seed 0) is the default: Simhash needs each of the 64 output bits of the token hash to
behave like an independent fair coin (each bit is one random hyperplane, see notebook 04). XXH3 passes
SMHasher's avalanche and bit-independence tests, has a published specification and a reference
implementation on PyPI (``xxhash``) that the tests compare against bit for bit, and is built for short
inputs: a word of 4 to 8 bytes costs two loads, two multiplies and no loop or length-dependent branch
beyond its size class, about three times faster than XXH64 on words. MD5 and SipHash-1-3 are here
only because the presets must reproduce the programs that use them.

All arithmetic is on uint64 with explicit casts: in Numba, mixing uint64 and a plain int literal
would silently produce a float64.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._jit import kernel

__all__ = [
    "HASH_XXH3",
    "HASH_XXH64",
    "HASH_MD5_FIRST8",
    "HASH_MD5_LAST8",
    "HASH_SIP13_RUST_STR",
    "hash_span",
    "xxh3_64",
    "xxh64",
    "md5_pair",
    "siphash13",
]

# hash kinds (integers so that one compiled kernel serves them all)
HASH_XXH64 = 0  # XXH64, seed 0, over the UTF-8 bytes
HASH_MD5_FIRST8 = 1  # int(md5(b).hexdigest()[:16], 16): the seed's SimhashPython
HASH_MD5_LAST8 = 2  # int.from_bytes(md5(b).digest()[-8:], "big"): the `simhash` package
HASH_SIP13_RUST_STR = 3  # Rust DefaultHasher over a &str: SipHash-1-3, keys (0, 0), bytes + 0xFF
HASH_XXH3 = 4  # XXH3-64, seed 0, default secret, over the UTF-8 bytes

_U64 = np.uint64
_M32 = _U64(0xFFFFFFFF)

# ---------------------------------------------------------------------------------------- XXH64
PRIME64_1 = _U64(0x9E3779B185EBCA87)
PRIME64_2 = _U64(0xC2B2AE3D27D4EB4F)
PRIME64_3 = _U64(0x165667B19E3779F9)
PRIME64_4 = _U64(0x85EBCA77C2B2AE63)
PRIME64_5 = _U64(0x27D4EB2F165667C5)


@kernel(inline=True)
def _rotl64(x, r):
    return (x << _U64(r)) | (x >> _U64(64 - r))


def _unaligned_load(nbits: int):
    """An intrinsic ``(b, p) -> uint64``: the little-endian ``nbits``-bit word at byte ``p`` of the
    uint8 array ``b``, as one unaligned load (a ``bswap`` after it on a big-endian host).

    An intrinsic, not a kernel: it is no call, so a hash that reads its input this way calls
    nothing, and Numba's reference-count pruning removes the count up and down of the array it
    takes (a call that passes an array on keeps that pair: two atomic operations per hash, which
    cost more than XXH3 itself on short inputs). No bounds check, as for any Numba indexing."""

    @intrinsic
    def load(typingctx, b, p):
        if not (isinstance(b, types.Array) and b.dtype == types.uint8 and isinstance(p, types.Integer)):
            return None

        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            pos = context.cast(builder, args[1], signature.args[1], types.intp)
            addr = builder.gep(ary.data, [pos])
            word = ir.IntType(nbits)
            value = builder.load(builder.bitcast(addr, word.as_pointer()), align=1)
            if sys.byteorder != "little":
                value = builder.call(builder.module.declare_intrinsic("llvm.bswap", [word]), [value])
            return builder.zext(value, ir.IntType(64)) if nbits < 64 else value

        return types.uint64(b, p), codegen

    return load


read64 = _unaligned_load(64)
read32 = _unaligned_load(32)


@intrinsic
def write64(typingctx, b, p, v):
    """``b[p:p + 8] = v`` as little-endian bytes, one unaligned store (the inverse of ``read64``;
    a ``bswap`` before it on a big-endian host). No bounds check: the caller leaves room."""
    if not (
        isinstance(b, types.Array)
        and b.dtype == types.uint8
        and isinstance(p, types.Integer)
        and v == types.uint64
    ):
        return None

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        pos = context.cast(builder, args[1], signature.args[1], types.intp)
        addr = builder.gep(ary.data, [pos])
        word = ir.IntType(64)
        value = args[2]
        if sys.byteorder != "little":
            value = builder.call(builder.module.declare_intrinsic("llvm.bswap", [word]), [value])
        builder.store(value, builder.bitcast(addr, word.as_pointer()), align=1)
        return context.get_dummy_value()

    return types.none(b, p, v), codegen


@kernel(inline=True)
def _xxh_round(acc, lane):
    acc = acc + lane * PRIME64_2
    acc = _rotl64(acc, 31)
    return acc * PRIME64_1


@kernel(inline=True)
def _xxh_merge(h, v):
    h = h ^ _xxh_round(_U64(0), v)
    return h * PRIME64_1 + PRIME64_4


@kernel(python=False)
def xxh64(b, start, end, seed):
    """XXH64 of ``b[start:end]`` (uint8 array) with a uint64 ``seed``."""
    n = end - start
    p = start
    seed = _U64(seed)
    if n >= 32:
        v1 = seed + PRIME64_1 + PRIME64_2
        v2 = seed + PRIME64_2
        v3 = seed
        v4 = seed - PRIME64_1
        limit = end - 32
        while p <= limit:
            v1 = _xxh_round(v1, read64(b, p))
            v2 = _xxh_round(v2, read64(b, p + 8))
            v3 = _xxh_round(v3, read64(b, p + 16))
            v4 = _xxh_round(v4, read64(b, p + 24))
            p += 32
        h = _rotl64(v1, 1) + _rotl64(v2, 7) + _rotl64(v3, 12) + _rotl64(v4, 18)
        h = _xxh_merge(h, v1)
        h = _xxh_merge(h, v2)
        h = _xxh_merge(h, v3)
        h = _xxh_merge(h, v4)
    else:
        h = seed + PRIME64_5
    h = h + _U64(n)
    while p + 8 <= end:
        h = h ^ _xxh_round(_U64(0), read64(b, p))
        h = _rotl64(h, 27) * PRIME64_1 + PRIME64_4
        p += 8
    if p + 4 <= end:
        h = h ^ (read32(b, p) * PRIME64_1)
        h = _rotl64(h, 23) * PRIME64_2 + PRIME64_3
        p += 4
    while p < end:
        h = h ^ (_U64(b[p]) * PRIME64_5)
        h = _rotl64(h, 11) * PRIME64_1
        p += 1
    h = h ^ (h >> _U64(33))
    h = h * PRIME64_2
    h = h ^ (h >> _U64(29))
    h = h * PRIME64_3
    h = h ^ (h >> _U64(32))
    return h


# ----------------------------------------------------------------------------------------- XXH3
# the default 192-byte secret of the XXH3 specification
_XXH3_SECRET = np.frombuffer(
    bytes.fromhex(
        "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
        "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
        "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
        "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
        "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
        "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
    ),
    dtype=np.uint8,
)


def _sw(offset: int, nbytes: int = 8) -> int:
    return int.from_bytes(_XXH3_SECRET[offset : offset + nbytes].tobytes(), "little")


# the little-endian 64-bit word of the secret at every byte offset: a kernel reads a word of the
# secret as one load, and the secret is never passed to a kernel (a global array is read-only, so
# it would compile every reader a second time)
_SECRET64 = np.array([_sw(o) for o in range(_XXH3_SECRET.size - 7)], dtype=np.uint64)


_X3_FLIP_0 = _U64(_sw(56) ^ _sw(64))
_X3_FLIP_1TO3 = _U64(_sw(0, 4) ^ _sw(4, 4))
_X3_FLIP_4TO8 = _U64(_sw(8) ^ _sw(16))
_X3_FLIP_9TO16_LO = _U64(_sw(24) ^ _sw(32))
_X3_FLIP_9TO16_HI = _U64(_sw(40) ^ _sw(48))
_PMX1 = _U64(0x165667919E3779F9)
_PMX2 = _U64(0x9FB21C651E98DF25)
_P32_1 = _U64(0x9E3779B1)
_P32_2 = _U64(0x85EBCA77)
_P32_3 = _U64(0xC2B2AE3D)


@intrinsic
def mul128_fold64(typingctx, a, b):
    """The 128-bit product of two uint64, folded: low half XOR high half (one ``mul`` on x86-64)."""
    if a != types.uint64 or b != types.uint64:
        return None
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        p = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        lo = builder.trunc(p, ir.IntType(64))
        hi = builder.trunc(builder.lshr(p, ir.Constant(i128, 64)), ir.IntType(64))
        return builder.xor(lo, hi)

    return sig, codegen


@kernel(inline=True)
def xxh64_avalanche(h):
    h = h ^ (h >> _U64(33))
    h = h * PRIME64_2
    h = h ^ (h >> _U64(29))
    h = h * PRIME64_3
    return h ^ (h >> _U64(32))


@kernel(inline=True)
def _xxh3_avalanche(h):
    h = h ^ (h >> _U64(37))
    h = h * _PMX1
    return h ^ (h >> _U64(32))


@kernel(inline=True)
def _mix16c(b, p, s_lo, s_hi):
    """XXH3's mix of the 16 bytes b[p:p+16] with the secret words s_lo, s_hi."""
    return mul128_fold64(read64(b, p) ^ s_lo, read64(b, p + 8) ^ s_hi)


@kernel(inline=True)
def _xxh3_stripe(a0, a1, a2, a3, a4, a5, a6, a7, b, p, so):
    """One 64-byte stripe b[p:p+64] into the 8 accumulators (values: no array, no allocation),
    with the secret from offset so. Lane i adds its word to accumulator i ^ 1 and the product of
    the halves of (word ^ secret) to accumulator i."""
    q = np.uintp(so)
    v0 = read64(b, p)
    v1 = read64(b, p + 8)
    v2 = read64(b, p + 16)
    v3 = read64(b, p + 24)
    v4 = read64(b, p + 32)
    v5 = read64(b, p + 40)
    v6 = read64(b, p + 48)
    v7 = read64(b, p + 56)
    k0 = v0 ^ _SECRET64[q]
    k1 = v1 ^ _SECRET64[q + np.uintp(8)]
    k2 = v2 ^ _SECRET64[q + np.uintp(16)]
    k3 = v3 ^ _SECRET64[q + np.uintp(24)]
    k4 = v4 ^ _SECRET64[q + np.uintp(32)]
    k5 = v5 ^ _SECRET64[q + np.uintp(40)]
    k6 = v6 ^ _SECRET64[q + np.uintp(48)]
    k7 = v7 ^ _SECRET64[q + np.uintp(56)]
    return (
        a0 + v1 + (k0 & _M32) * (k0 >> _U64(32)),
        a1 + v0 + (k1 & _M32) * (k1 >> _U64(32)),
        a2 + v3 + (k2 & _M32) * (k2 >> _U64(32)),
        a3 + v2 + (k3 & _M32) * (k3 >> _U64(32)),
        a4 + v5 + (k4 & _M32) * (k4 >> _U64(32)),
        a5 + v4 + (k5 & _M32) * (k5 >> _U64(32)),
        a6 + v7 + (k6 & _M32) * (k6 >> _U64(32)),
        a7 + v6 + (k7 & _M32) * (k7 >> _U64(32)),
    )


@kernel(inline=True)
def _xxh3_scramble(a, i):
    a = a ^ (a >> _U64(47))
    a = a ^ _SECRET64[np.uintp(128 + 8 * i)]
    return a * _P32_1


@kernel(inline=True)
def _x3_long(b, start, n):
    """More than 240 bytes: 64-byte stripes, 16 to a block, the 8 accumulators as scalars."""
    a0, a1, a2, a3 = _P32_3, PRIME64_1, PRIME64_2, PRIME64_3
    a4, a5, a6, a7 = PRIME64_4, _P32_2, PRIME64_5, _P32_1
    nblocks = (n - 1) >> 10  # blocks of 1024 bytes: 16 stripes, (192 - 64) / 8
    for blk in range(nblocks):
        q = start + (blk << 10)
        for s in range(16):
            a0, a1, a2, a3, a4, a5, a6, a7 = _xxh3_stripe(
                a0, a1, a2, a3, a4, a5, a6, a7, b, q + 64 * s, 8 * s
            )
        a0 = _xxh3_scramble(a0, 0)
        a1 = _xxh3_scramble(a1, 1)
        a2 = _xxh3_scramble(a2, 2)
        a3 = _xxh3_scramble(a3, 3)
        a4 = _xxh3_scramble(a4, 4)
        a5 = _xxh3_scramble(a5, 5)
        a6 = _xxh3_scramble(a6, 6)
        a7 = _xxh3_scramble(a7, 7)
    q = start + (nblocks << 10)
    nstripes = ((n - 1) - (nblocks << 10)) >> 6
    for s in range(nstripes):
        a0, a1, a2, a3, a4, a5, a6, a7 = _xxh3_stripe(a0, a1, a2, a3, a4, a5, a6, a7, b, q + 64 * s, 8 * s)
    a0, a1, a2, a3, a4, a5, a6, a7 = _xxh3_stripe(a0, a1, a2, a3, a4, a5, a6, a7, b, start + n - 64, 121)
    h = _U64(n) * PRIME64_1
    h += mul128_fold64(a0 ^ _SECRET64[11], a1 ^ _SECRET64[19])
    h += mul128_fold64(a2 ^ _SECRET64[27], a3 ^ _SECRET64[35])
    h += mul128_fold64(a4 ^ _SECRET64[43], a5 ^ _SECRET64[51])
    h += mul128_fold64(a6 ^ _SECRET64[59], a7 ^ _SECRET64[67])
    return _xxh3_avalanche(h)


@kernel(inline=True)
def _x3_1to3(b, start, end):
    n = end - start
    c = (
        _U64(b[np.uintp(end - 1)])
        | (_U64(n) << _U64(8))
        | (_U64(b[np.uintp(start)]) << _U64(16))
        | (_U64(b[np.uintp(start + (n >> 1))]) << _U64(24))
    )
    return xxh64_avalanche(c ^ _X3_FLIP_1TO3)


@kernel(inline=True)
def _x3_4to8(b, start, end):
    x = (read32(b, end - 4) | (read32(b, start) << _U64(32))) ^ _X3_FLIP_4TO8
    x = x ^ (_rotl64(x, 49) ^ _rotl64(x, 24))
    x = x * _PMX2
    x = x ^ ((x >> _U64(35)) + _U64(end - start))
    x = x * _PMX2
    return x ^ (x >> _U64(28))


@kernel(inline=True)
def xxh3_9to16_inline(b, start, end):
    lo = read64(b, start) ^ _X3_FLIP_9TO16_LO
    hi = read64(b, end - 8) ^ _X3_FLIP_9TO16_HI
    sw = (
        ((lo & _U64(0xFF)) << _U64(56))
        | ((lo & _U64(0xFF00)) << _U64(40))
        | ((lo & _U64(0xFF0000)) << _U64(24))
        | ((lo & _U64(0xFF000000)) << _U64(8))
        | ((lo >> _U64(8)) & _U64(0xFF000000))
        | ((lo >> _U64(24)) & _U64(0xFF0000))
        | ((lo >> _U64(40)) & _U64(0xFF00))
        | (lo >> _U64(56))
    )
    return _xxh3_avalanche(_U64(end - start) + sw + hi + mul128_fold64(lo, hi))


@kernel(inline=True)
def xxh3_17to128_inline(b, start, end):
    """The specification's nested size tests, unrolled; each secret word a constant. Over 64
    bytes the fourth pair of mixes is computed whatever the length and kept by a mask (its bytes
    b[start+48:start+64] and b[end-64:end-48] lie inside the input from 65 bytes on): a random
    length in 65-128 no longer costs a mispredicted ``n > 96`` (9.3 -> 7.7 ns, C 10.7).
    (Nested ifs only: an ``elif`` here made Numba count the array's references per hash.)"""
    n = end - start
    acc = _U64(n) * PRIME64_1
    if n > 32:
        if n > 64:
            keep = _U64(0) - _U64(n > 96)
            acc += _mix16c(b, start + 48, _SECRET64[96], _SECRET64[104]) & keep
            acc += _mix16c(b, end - 64, _SECRET64[112], _SECRET64[120]) & keep
            acc += _mix16c(b, start + 32, _SECRET64[64], _SECRET64[72])
            acc += _mix16c(b, end - 48, _SECRET64[80], _SECRET64[88])
        acc += _mix16c(b, start + 16, _SECRET64[32], _SECRET64[40])
        acc += _mix16c(b, end - 32, _SECRET64[48], _SECRET64[56])
    acc += _mix16c(b, start, _SECRET64[0], _SECRET64[8])
    acc += _mix16c(b, end - 16, _SECRET64[16], _SECRET64[24])
    return _xxh3_avalanche(acc)


@kernel(inline=True)
def _mix16_kept(b, p, fallback, so, keep):
    """``_mix16c`` of b[p:p+16] with the secret from byte ``so`` when ``keep``, else 0 (reading
    b[fallback:fallback+16] instead, so that a dropped round reads inside the input): no branch."""
    q = fallback + ((p - fallback) & -np.int64(keep))
    return _mix16c(b, q, _SECRET64[so], _SECRET64[so + 8]) & (_U64(0) - _U64(keep))


@kernel(inline=True)
def _x3_129to240(b, start, end):
    """129-240 bytes: 8 rounds, an avalanche, then rounds 8 .. n // 16 - 1 (0 to 7 of them) and the
    last 16 bytes. The 7 optional rounds are all computed, each kept by a mask, a dropped one
    reading b[start:start+16] instead (always inside the input): no loop whose exit is
    mispredicted at every other length (20.8 -> 15.5 ns at random lengths, C 19.2). Written out,
    not a loop: a loop here made Numba count the array's references per round."""
    n = end - start
    nr = n >> 4
    acc = _U64(n) * PRIME64_1
    acc += _mix16c(b, start, _SECRET64[0], _SECRET64[8])
    acc += _mix16c(b, start + 16, _SECRET64[16], _SECRET64[24])
    acc += _mix16c(b, start + 32, _SECRET64[32], _SECRET64[40])
    acc += _mix16c(b, start + 48, _SECRET64[48], _SECRET64[56])
    acc += _mix16c(b, start + 64, _SECRET64[64], _SECRET64[72])
    acc += _mix16c(b, start + 80, _SECRET64[80], _SECRET64[88])
    acc += _mix16c(b, start + 96, _SECRET64[96], _SECRET64[104])
    acc += _mix16c(b, start + 112, _SECRET64[112], _SECRET64[120])
    acc = _xxh3_avalanche(acc)
    acc += _mix16_kept(b, start + 128, start, 3, nr > 8)
    acc += _mix16_kept(b, start + 144, start, 19, nr > 9)
    acc += _mix16_kept(b, start + 160, start, 35, nr > 10)
    acc += _mix16_kept(b, start + 176, start, 51, nr > 11)
    acc += _mix16_kept(b, start + 192, start, 67, nr > 12)
    acc += _mix16_kept(b, start + 208, start, 83, nr > 13)
    acc += _mix16_kept(b, start + 224, start, 99, nr > 14)
    acc += _mix16c(b, end - 16, _SECRET64[119], _SECRET64[127])
    return _xxh3_avalanche(acc)


# Each size class is a kernel of its own (``vote.hash_vote_tokens`` calls the short ones in
# loops of one class each) and ``xxh3_64`` takes any length. Each is a leaf: every helper it uses
# is inlined into it at Numba's level and reads with the load intrinsics, so it calls nothing and
# Numba prunes the reference counting of its array argument. (A kernel that called another with
# the array would count it up and down on every call: 20 ns per hash measured on 17-128 bytes,
# four times XXH3's own work; each kernel is loaded from the cache as machine code, which LLVM
# cannot inline into its callers.)
@kernel(python=False)
def xxh3_1to3(b, start, end):
    """XXH3-64 of b[start:end] for 1 to 3 bytes."""
    return _x3_1to3(b, start, end)


@kernel(python=False)
def xxh3_4to8(b, start, end):
    """XXH3-64 of b[start:end] for 4 to 8 bytes."""
    return _x3_4to8(b, start, end)


@kernel(python=False)
def xxh3_9to16(b, start, end):
    """XXH3-64 of b[start:end] for 9 to 16 bytes."""
    return xxh3_9to16_inline(b, start, end)


@kernel
def xxh3_17to128(b, start, end):
    """XXH3-64 of b[start:end] for 17 to 128 bytes."""
    return xxh3_17to128_inline(b, start, end)


@kernel(inline=True)
def xxh3_any_inline(b, start, end):
    """XXH3-64 of any length, inlined into a loop over many spans (``fingerprint.hash_spans``):
    no call per span. Elsewhere ``xxh3_64``, its one compiled form."""
    n = end - start
    if n <= 16:
        if n > 8:
            h = xxh3_9to16_inline(b, start, end)
        elif n >= 4:
            h = _x3_4to8(b, start, end)
        elif n > 0:
            h = _x3_1to3(b, start, end)
        else:
            h = xxh64_avalanche(_X3_FLIP_0)
    elif n <= 128:
        h = xxh3_17to128_inline(b, start, end)
    elif n <= 240:
        h = _x3_129to240(b, start, end)
    else:
        h = _x3_long(b, start, n)
    return h


@kernel(python=False)
def xxh3_64(b, start, end):
    """XXH3-64 (seed 0, default secret) of ``b[start:end]`` (uint8 array), any length."""
    return xxh3_any_inline(b, start, end)


# ------------------------------------------------------------------------------------------ MD5
_MD5_K = np.array(
    [int(abs(__import__("math").sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)], dtype=np.uint64
)
_MD5_S = np.array(
    [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4, dtype=np.int64
)
_MD5_G = np.array(
    [i for i in range(16)]
    + [(5 * i + 1) % 16 for i in range(16, 32)]
    + [(3 * i + 5) % 16 for i in range(32, 48)]
    + [(7 * i) % 16 for i in range(48, 64)],
    dtype=np.int64,
)


@kernel(inline=True)
def _rotl32(x, s):
    return ((x << _U64(s)) | (x >> _U64(32 - s))) & _M32


@kernel(python=False)
def _md5_block(blk, q, a0, b0, c0, d0):
    """One MD5 compression of the 64 bytes ``blk[q:q+64]``; state as four uint64 holding u32."""
    a = a0
    b = b0
    c = c0
    d = d0
    for i in range(16):
        f = (b & c) | ((~b) & d)
        f = (f + a + _MD5_K[i] + read32(blk, q + 4 * _MD5_G[i])) & _M32
        a, d, c, b = d, c, b, (b + _rotl32(f, _MD5_S[i])) & _M32
    for i in range(16, 32):
        f = (d & b) | ((~d) & c)
        f = (f + a + _MD5_K[i] + read32(blk, q + 4 * _MD5_G[i])) & _M32
        a, d, c, b = d, c, b, (b + _rotl32(f, _MD5_S[i])) & _M32
    for i in range(32, 48):
        f = b ^ c ^ d
        f = (f + a + _MD5_K[i] + read32(blk, q + 4 * _MD5_G[i])) & _M32
        a, d, c, b = d, c, b, (b + _rotl32(f, _MD5_S[i])) & _M32
    for i in range(48, 64):
        f = c ^ (b | ((~d) & _M32))
        f = (f + a + _MD5_K[i] + read32(blk, q + 4 * _MD5_G[i])) & _M32
        a, d, c, b = d, c, b, (b + _rotl32(f, _MD5_S[i])) & _M32
    return (a0 + a) & _M32, (b0 + b) & _M32, (c0 + c) & _M32, (d0 + d) & _M32


@kernel(inline=True)
def _bswap32(x):
    return (
        ((x & _U64(0xFF)) << _U64(24))
        | ((x & _U64(0xFF00)) << _U64(8))
        | ((x >> _U64(8)) & _U64(0xFF00))
        | ((x >> _U64(24)) & _U64(0xFF))
    )


@kernel(python=False)
def md5_pair(b, start, end, tail):
    """MD5 of ``b[start:end]``; returns (first 8 bytes, last 8 bytes), each as a big-endian uint64.

    ``tail`` is a scratch uint8 array of at least 128 bytes (for the padded last block), passed in
    so that hashing millions of short features allocates nothing.
    """
    a = _U64(0x67452301)
    bb = _U64(0xEFCDAB89)
    c = _U64(0x98BADCFE)
    d = _U64(0x10325476)
    n = end - start
    p = start
    while p + 64 <= end:
        a, bb, c, d = _md5_block(b, p, a, bb, c, d)
        p += 64
    r = end - p
    total = 64 if r < 56 else 128
    # the padded last block(s), written as 32-bit words (little-endian hosts): the block function
    # reads them back as words, which store-to-load forwarding serves at once (byte stores read
    # back as words would stall)
    tw = tail.view(np.uint32)
    full = r // 4
    for i in range(full):
        tw[i] = np.uint32(read32(b, p + 4 * i))
    x = _U64(0x80) << _U64(8 * (r % 4))
    for k in range(r % 4):
        x |= _U64(b[p + 4 * full + k]) << _U64(8 * k)
    tw[full] = np.uint32(x)
    for i in range(full + 1, total // 4 - 2):
        tw[i] = 0
    bitlen = _U64(n) * _U64(8)
    tw[total // 4 - 2] = np.uint32(bitlen & _M32)
    tw[total // 4 - 1] = np.uint32(bitlen >> _U64(32))
    a, bb, c, d = _md5_block(tail, np.int64(0), a, bb, c, d)
    if total == 128:
        a, bb, c, d = _md5_block(tail, np.int64(64), a, bb, c, d)
    first = (_bswap32(a) << _U64(32)) | _bswap32(bb)
    last = (_bswap32(c) << _U64(32)) | _bswap32(d)
    return first, last


# ----------------------------------------------------------------------------------- SipHash-1-3
@kernel(python=False)
def _sipround(v0, v1, v2, v3):
    v0 = v0 + v1
    v1 = _rotl64(v1, 13)
    v1 = v1 ^ v0
    v0 = _rotl64(v0, 32)
    v2 = v2 + v3
    v3 = _rotl64(v3, 16)
    v3 = v3 ^ v2
    v0 = v0 + v3
    v3 = _rotl64(v3, 21)
    v3 = v3 ^ v0
    v2 = v2 + v1
    v1 = _rotl64(v1, 17)
    v1 = v1 ^ v2
    v2 = _rotl64(v2, 32)
    return v0, v1, v2, v3


@kernel(inline=True)
def _byte_or_ff(b, i, end):
    # the message is b[start:end] followed by one virtual byte (0xFF when `ff`)
    return _U64(b[i]) if i < end else _U64(0xFF)


@kernel(python=False)
def siphash13(b, start, end, k0, k1, append_ff):
    """SipHash-1-3 of ``b[start:end]`` (plus one 0xFF byte when ``append_ff``) with keys k0, k1.

    ``append_ff=True`` with keys (0, 0) is Rust's ``DefaultHasher::new()`` fed a ``&str``.
    """
    k0 = _U64(k0)
    k1 = _U64(k1)
    v0 = k0 ^ _U64(0x736F6D6570736575)
    v1 = k1 ^ _U64(0x646F72616E646F6D)
    v2 = k0 ^ _U64(0x6C7967656E657261)
    v3 = k1 ^ _U64(0x7465646279746573)
    vend = end + (1 if append_ff else 0)
    n = vend - start
    p = start
    while p + 8 <= vend:
        if p + 8 <= end:
            m = read64(b, p)
        else:
            m = _U64(0)
            for i in range(8):
                m |= _byte_or_ff(b, p + i, end) << _U64(8 * i)
        v3 = v3 ^ m
        v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
        v0 = v0 ^ m
        p += 8
    m = _U64(n & 0xFF) << _U64(56)
    i = 0
    while p < vend:
        m |= _byte_or_ff(b, p, end) << _U64(8 * i)
        p += 1
        i += 1
    v3 = v3 ^ m
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0 = v0 ^ m
    v2 = v2 ^ _U64(0xFF)
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sipround(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@kernel(inline=True)
def hash_span(b, start, end, kind, tail):
    """Hash ``b[start:end]`` (UTF-8 bytes of one feature) with the hash ``kind`` (a HASH_* constant).

    ``tail``: uint8 scratch of >= 128 bytes, used by MD5 only. Inlined into its callers (the loops
    over features): a call that is not inlined costs a reference count up and down on each array
    argument, per feature."""
    if kind == HASH_XXH3:
        return xxh3_64(b, start, end)
    if kind == HASH_XXH64:
        return xxh64(b, start, end, _U64(0))
    if kind == HASH_MD5_FIRST8 or kind == HASH_MD5_LAST8:
        first, last = md5_pair(b, start, end, tail)
        return first if kind == HASH_MD5_FIRST8 else last
    return siphash13(b, start, end, _U64(0), _U64(0), True)
