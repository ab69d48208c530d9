"""Bit primitives: the one popcount every Hamming kernel uses, trailing zeros, SWAR constants."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._jit import kernel

__all__ = ["BYTE_HIGH", "BYTE_LANES", "cttz", "popcount"]


def _u64_intrinsic(llvm_name: str, zero_is_poison: bool | None = None):
    """Numba intrinsic: LLVM's bit-counting ``llvm_name`` on a uint64, one instruction on x86-64
    (``llvm.ctpop``: ``popcnt``; ``llvm.cttz``: ``tzcnt``, which gives 64 for 0)."""
    i64 = ir.IntType(64)

    def count(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            if zero_is_poison is None:
                fn = builder.module.declare_intrinsic(llvm_name, [i64])
                return builder.call(fn, [args[0]])
            fn = builder.module.declare_intrinsic(
                llvm_name, [i64], ir.FunctionType(i64, [i64, ir.IntType(1)])
            )
            return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), int(zero_is_poison))])

        return types.uint64(types.uint64), codegen

    count.__name__ = count.__qualname__ = f"_{llvm_name.removeprefix('llvm.')}_u64"
    return intrinsic(count)


_ctpop_u64 = _u64_intrinsic("llvm.ctpop")
_cttz_u64 = _u64_intrinsic("llvm.cttz", zero_is_poison=False)


@kernel(inline=True)
def popcount(x):
    """Number of set bits of a uint64 (the POPCNT primitive every Hamming kernel uses)."""
    return _ctpop_u64(np.uint64(x))


@kernel(inline=True)
def cttz(x):
    """Trailing zero bits of a uint64 (64 for 0)."""
    return _cttz_u64(np.uint64(x))


BYTE_LANES = np.uint64(0x0101010101010101)  # 1 in each byte lane: SWAR counters and broadcasts
BYTE_HIGH = np.uint64(0x8080808080808080)  # the high bit of each byte lane
