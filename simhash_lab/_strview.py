"""Zero-copy access to Python strings from Numba, for the fused fingerprint kernel.

A CPython ``str`` keeps its characters as one array of 1-, 2- or 4-byte code units (PEP 393: the
"kind" is the width the widest character needs). Encoding every text to UTF-8 and joining the
results cost more than the rest of the default pipeline, so the fused kernel reads the code units
in place instead, and writes UTF-8 only for the token bytes it hashes.

How: ``str_views`` asks Numba's own C helper ``numba_extract_unicode`` (what Numba calls to unbox
any ``str`` argument) for each text's data pointer, length and kind, holding the GIL. The kernel
then reads those arrays without the GIL. This is safe because Python strings are immutable and the
caller keeps a reference to every text (its own list) until the kernel returns.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["str_views", "unit_bytes"]


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
        fnty = ir.FunctionType(i8p, [i8p, i64.as_pointer(), i32.as_pointer(), i32.as_pointer(),
                                     i64.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "numba_extract_unicode")
        length = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
        kind = cgutils.alloca_once_value(builder, ir.Constant(i32, 0))
        is_ascii = cgutils.alloca_once_value(builder, ir.Constant(i32, 0))
        hsh = cgutils.alloca_once_value(builder, ir.Constant(i64, 0))
        data = builder.call(fn, [builder.inttoptr(args[0], i8p), length, kind, is_ascii, hsh])
        values = [builder.ptrtoint(data, i64), builder.load(length),
                  builder.sext(builder.load(kind), i64)]
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


@njit(cache=True)  # holds the GIL: the helper may ask CPython to ready a legacy string
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


@njit(cache=True, nogil=True, inline="always")
def unit_bytes(ptr, length, kind):
    """The code units of one string as a uint8 array of ``length * kind`` bytes (no copy)."""
    return carray(_u8_pointer(ptr), (length * kind,))
