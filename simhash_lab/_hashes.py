"""Token hash kernels: XXH64 (the default), MD5 (first or last 8 bytes) and SipHash-1-3.

Every hash here is a pure function of the token's UTF-8 bytes, so fingerprints are the same in every
process and on every machine (never Python's salted ``hash()``).

Why XXH64 is the default: Simhash needs each of the 64 output bits of the token hash to behave like an
independent fair coin (each bit is one random hyperplane, see notebook 04). XXH64 passes SMHasher's
avalanche and bit-independence tests, has a published specification and a reference implementation on
PyPI (``xxhash``) that the tests compare against bit for bit, and costs a few nanoseconds for a word.
MD5 and SipHash-1-3 are here only because the presets must reproduce programs that use them.

All arithmetic is on uint64 with explicit casts: in Numba, mixing uint64 and a plain int literal
would silently produce a float64.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "HASH_XXH64",
    "HASH_MD5_FIRST8",
    "HASH_MD5_LAST8",
    "HASH_SIP13_RUST_STR",
    "hash_span",
    "xxh64",
    "md5_pair",
    "siphash13",
]

# hash kinds (integers so that one compiled kernel serves them all)
HASH_XXH64 = 0  # XXH64, seed 0, over the UTF-8 bytes
HASH_MD5_FIRST8 = 1  # int(md5(b).hexdigest()[:16], 16): the seed's SimhashPython
HASH_MD5_LAST8 = 2  # int.from_bytes(md5(b).digest()[-8:], "big"): the `simhash` package
HASH_SIP13_RUST_STR = 3  # Rust DefaultHasher over a &str: SipHash-1-3, keys (0, 0), bytes + 0xFF

_U64 = np.uint64
_M32 = _U64(0xFFFFFFFF)

# ---------------------------------------------------------------------------------------- XXH64
_P1 = _U64(0x9E3779B185EBCA87)
_P2 = _U64(0xC2B2AE3D27D4EB4F)
_P3 = _U64(0x165667B19E3779F9)
_P4 = _U64(0x85EBCA77C2B2AE63)
_P5 = _U64(0x27D4EB2F165667C5)


@njit(cache=True, nogil=True, inline="always")
def _rotl64(x, r):
    return (x << _U64(r)) | (x >> _U64(64 - r))


@njit(cache=True, nogil=True, inline="always")
def _read64(b, p):
    return (
        _U64(b[p])
        | (_U64(b[p + 1]) << _U64(8))
        | (_U64(b[p + 2]) << _U64(16))
        | (_U64(b[p + 3]) << _U64(24))
        | (_U64(b[p + 4]) << _U64(32))
        | (_U64(b[p + 5]) << _U64(40))
        | (_U64(b[p + 6]) << _U64(48))
        | (_U64(b[p + 7]) << _U64(56))
    )


@njit(cache=True, nogil=True, inline="always")
def _read32(b, p):
    return (
        _U64(b[p])
        | (_U64(b[p + 1]) << _U64(8))
        | (_U64(b[p + 2]) << _U64(16))
        | (_U64(b[p + 3]) << _U64(24))
    )


@njit(cache=True, nogil=True, inline="always")
def _xxh_round(acc, lane):
    acc = acc + lane * _P2
    acc = _rotl64(acc, 31)
    return acc * _P1


@njit(cache=True, nogil=True, inline="always")
def _xxh_merge(h, v):
    h = h ^ _xxh_round(_U64(0), v)
    return h * _P1 + _P4


@njit(cache=True, nogil=True)
def xxh64(b, start, end, seed):
    """XXH64 of ``b[start:end]`` (uint8 array) with a uint64 ``seed``."""
    n = end - start
    p = start
    seed = _U64(seed)
    if n >= 32:
        v1 = seed + _P1 + _P2
        v2 = seed + _P2
        v3 = seed
        v4 = seed - _P1
        limit = end - 32
        while p <= limit:
            v1 = _xxh_round(v1, _read64(b, p))
            v2 = _xxh_round(v2, _read64(b, p + 8))
            v3 = _xxh_round(v3, _read64(b, p + 16))
            v4 = _xxh_round(v4, _read64(b, p + 24))
            p += 32
        h = _rotl64(v1, 1) + _rotl64(v2, 7) + _rotl64(v3, 12) + _rotl64(v4, 18)
        h = _xxh_merge(h, v1)
        h = _xxh_merge(h, v2)
        h = _xxh_merge(h, v3)
        h = _xxh_merge(h, v4)
    else:
        h = seed + _P5
    h = h + _U64(n)
    while p + 8 <= end:
        h = h ^ _xxh_round(_U64(0), _read64(b, p))
        h = _rotl64(h, 27) * _P1 + _P4
        p += 8
    if p + 4 <= end:
        h = h ^ (_read32(b, p) * _P1)
        h = _rotl64(h, 23) * _P2 + _P3
        p += 4
    while p < end:
        h = h ^ (_U64(b[p]) * _P5)
        h = _rotl64(h, 11) * _P1
        p += 1
    h = h ^ (h >> _U64(33))
    h = h * _P2
    h = h ^ (h >> _U64(29))
    h = h * _P3
    h = h ^ (h >> _U64(32))
    return h


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


@njit(cache=True, nogil=True, inline="always")
def _rotl32(x, s):
    return ((x << _U64(s)) | (x >> _U64(32 - s))) & _M32


@njit(cache=True, nogil=True)
def _md5_block(blk, q, st):
    """One MD5 compression of the 64 bytes ``blk[q:q+64]`` into state ``st`` (4 x uint64 holding u32)."""
    w = np.empty(16, dtype=np.uint64)
    for i in range(16):
        w[i] = _read32(blk, q + 4 * i)
    a = st[0]
    b = st[1]
    c = st[2]
    d = st[3]
    for i in range(64):
        if i < 16:
            f = (b & c) | ((~b) & d)
        elif i < 32:
            f = (d & b) | ((~d) & c)
        elif i < 48:
            f = b ^ c ^ d
        else:
            f = c ^ (b | ((~d) & _M32))
        f = (f + a + _MD5_K[i] + w[_MD5_G[i]]) & _M32
        a = d
        d = c
        c = b
        b = (b + _rotl32(f, _MD5_S[i])) & _M32
    st[0] = (st[0] + a) & _M32
    st[1] = (st[1] + b) & _M32
    st[2] = (st[2] + c) & _M32
    st[3] = (st[3] + d) & _M32


@njit(cache=True, nogil=True, inline="always")
def _bswap32(x):
    return (
        ((x & _U64(0xFF)) << _U64(24))
        | ((x & _U64(0xFF00)) << _U64(8))
        | ((x >> _U64(8)) & _U64(0xFF00))
        | ((x >> _U64(24)) & _U64(0xFF))
    )


@njit(cache=True, nogil=True)
def md5_pair(b, start, end):
    """MD5 of ``b[start:end]``; returns (first 8 bytes, last 8 bytes), each as a big-endian uint64."""
    st = np.empty(4, dtype=np.uint64)
    st[0] = _U64(0x67452301)
    st[1] = _U64(0xEFCDAB89)
    st[2] = _U64(0x98BADCFE)
    st[3] = _U64(0x10325476)
    n = end - start
    p = start
    while p + 64 <= end:
        _md5_block(b, p, st)
        p += 64
    tail = np.zeros(128, dtype=np.uint8)
    r = end - p
    for i in range(r):
        tail[i] = b[p + i]
    tail[r] = 0x80
    total = 64 if r < 56 else 128
    bitlen = _U64(n) * _U64(8)
    for i in range(8):
        tail[total - 8 + i] = np.uint8((bitlen >> _U64(8 * i)) & _U64(0xFF))
    _md5_block(tail, 0, st)
    if total == 128:
        _md5_block(tail, 64, st)
    first = (_bswap32(st[0]) << _U64(32)) | _bswap32(st[1])
    last = (_bswap32(st[2]) << _U64(32)) | _bswap32(st[3])
    return first, last


# ----------------------------------------------------------------------------------- SipHash-1-3
@njit(cache=True, nogil=True, inline="always")
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


@njit(cache=True, nogil=True, inline="always")
def _byte_or_ff(b, i, end):
    # the message is b[start:end] followed by one virtual byte (0xFF when `ff`)
    return _U64(b[i]) if i < end else _U64(0xFF)


@njit(cache=True, nogil=True)
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
            m = _read64(b, p)
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


@njit(cache=True, nogil=True)
def hash_span(b, start, end, kind):
    """Hash ``b[start:end]`` (UTF-8 bytes of one feature) with the hash ``kind`` (a HASH_* constant)."""
    if kind == HASH_XXH64:
        return xxh64(b, start, end, 0)
    if kind == HASH_MD5_FIRST8:
        return md5_pair(b, start, end)[0]
    if kind == HASH_MD5_LAST8:
        return md5_pair(b, start, end)[1]
    return siphash13(b, start, end, 0, 0, True)
