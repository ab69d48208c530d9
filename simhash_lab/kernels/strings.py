"""String kernels: Python ``str`` code units read in place, UTF-8 decode/encode, lowercasing.

A CPython ``str`` keeps its characters as one array of 1-, 2- or 4-byte code units (PEP 393: the
"kind" is the width the widest character needs). Encoding every text to UTF-8 and joining the
results cost more than the rest of the default pipeline, so the fused kernel reads the code units
in place instead, and writes UTF-8 only for the token bytes it hashes.

How: ``str_views`` asks Numba's own C helper ``numba_extract_unicode`` (what Numba calls to unbox
any ``str`` argument) for each text's data pointer, length and kind, holding the GIL. The kernel
then reads those arrays without the GIL. This is safe because Python strings are immutable and the
caller keeps a reference to every text (its own list) until the kernel returns.
``numba_extract_unicode`` is a private helper of Numba: ``pyproject.toml`` bounds ``numba`` to the
releases it was checked against, and ``tests/lib/kernels/test_fingerprint.py`` and
``tests/lib/kernels/test_strings.py`` compare the result with Python's.

The general path works on UTF-8 instead: ``decode_utf8`` / ``put_utf8`` and ``lower_utf8``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import kernel
from .bits import BYTE_HIGH as _HI
from .bits import cttz
from .hashes import read32, read64

_U64 = np.uint64

__all__ = [
    "ascii_block",
    "ascii_spans",
    "decode_utf8",
    "lower_utf8",
    "put_utf8",
    "str_views",
    "unit",
    "unit_bytes",
]


@intrinsic
def _extract_unicode(typingctx, addr):
    """(data address, length, kind) of the str object at address ``addr`` (0 on failure)."""
    if not isinstance(addr, types.Integer):
        return None
    sig = types.UniTuple(types.int64, 3)(addr)

    def codegen(context, builder, signature, args):
        i8p = ir.IntType(8).as_pointer()
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(
            i8p, [i8p, i64.as_pointer(), i32.as_pointer(), i32.as_pointer(), i64.as_pointer()]
        )
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_extract_unicode")
        length = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
        kind = cgutils.alloca_once_value(builder, ir.Constant(i32, 0))
        is_ascii = cgutils.alloca_once_value(builder, ir.Constant(i32, 0))
        hsh = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
        data = builder.call(fn, [builder.inttoptr(args[0], i8p), length, kind, is_ascii, hsh])
        values = [builder.ptrtoint(data, i64), builder.load(length), builder.sext(builder.load(kind), i64)]
        return context.make_tuple(builder, signature.return_type, values)

    return sig, codegen


@intrinsic
def _u8_pointer(typingctx, addr):
    if not isinstance(addr, types.Integer):
        return None
    sig = types.CPointer(types.uint8)(addr)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], ir.IntType(8).as_pointer())

    return sig, codegen


@kernel(nogil=False)  # holds the GIL: the helper may ask CPython to ready a legacy string
def _views(ids, ptrs, lens, kinds):
    for i in range(ids.shape[0]):
        ptr, length, kind = _extract_unicode(ids[i])
        if ptr == 0:
            return i
        ptrs[i] = ptr
        lens[i] = length
        kinds[i] = kind
    return -1


def str_views(items: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data addresses, lengths in code units, kinds 1/2/4) of a list of exact ``str`` objects.

    The addresses are valid while ``items`` holds the strings: keep it alive across the kernel.
    """
    n = len(items)
    ids = np.fromiter(map(id, items), dtype=np.int64, count=n)
    ptrs = np.empty(n, dtype=np.int64)
    lens = np.empty(n, dtype=np.int64)
    kinds = np.empty(n, dtype=np.int64)
    bad = _views(ids, ptrs, lens, kinds)
    if bad >= 0:
        raise MemoryError(f"could not read the characters of texts[{bad}]")
    return ptrs, lens, kinds


@kernel(inline=True)
def unit_bytes(ptr, length, kind):
    """The code units of one string as a uint8 array of ``length * kind`` bytes (no copy)."""
    return carray(_u8_pointer(ptr), (length * kind,))


@kernel(python=False)
def decode_utf8(b, p):
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


@kernel(python=False)
def put_utf8(out, o, cp):
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


@kernel
def lower_utf8(buf, offsets, lower):
    """``str.lower()`` of every document of a UTF-8 batch, by the per-character table ``lower``.

    Returns a new buffer and offsets: lowercase can change a character's UTF-8 length (at most
    from 2 to 3 bytes, so 1.5x the input is enough).
    """
    out = np.empty(buf.shape[0] + buf.shape[0] // 2 + 4, dtype=np.uint8)
    out_off = np.empty_like(offsets)
    o = np.int64(0)
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
                cp, ln = decode_utf8(buf, p)
                lc = np.int64(lower[cp])
                if lc == cp:
                    for i in range(ln):
                        out[o + i] = buf[p + i]
                    o += ln
                else:
                    o = put_utf8(out, o, lc)
                p += ln
    out_off[offsets.shape[0] - 1] = o
    return out, out_off


@kernel(inline=True)
def ascii_block(data, p, kind):
    """Code units p..p+7 packed one per byte lane, and how many of them, from the first, are
    ASCII (8: all; lanes from there on hold junk)."""
    if kind == 1:
        w = read64(data, p)
        return w, np.int64(cttz(w & _HI) >> _U64(3))
    if kind == 2:
        m2 = _U64(0xFF80FF80FF80FF80)
        w0 = read64(data, 2 * p)
        w1 = read64(data, 2 * p + 8)
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
        w = read64(data, 4 * p + 8 * k)
        jk = np.int64(cttz(w & m4) >> _U64(5))
        if run:
            j += jk
            run = jk == 2
        x |= ((w | (w >> _U64(24))) & _U64(0xFFFF)) << _U64(16 * k)
    return x, j


@kernel(inline=True)
def unit(data, p, kind):
    if kind == 1:
        return np.int64(data[np.uintp(p)])
    if kind == 2:
        return np.int64(data[np.uintp(2 * p)]) | (np.int64(data[np.uintp(2 * p + 1)]) << 8)
    return np.int64(read32(data, 4 * p))


@kernel
def ascii_spans(data, starts, ends, out):
    """``out[i]``: the bytes ``data[starts[i]:ends[i]]`` are all ASCII (an Arrow string array's
    values: which of them are their own kind-1 code units), eight bytes at a time."""
    for i in range(starts.shape[0]):
        p = starts[i]
        e = ends[i]
        acc = _U64(0)
        while p + 8 <= e:
            acc |= read64(data, p)
            p += 8
        while p < e:
            acc |= _U64(data[p])
            p += 1
        out[i] = (acc & _HI) == 0
