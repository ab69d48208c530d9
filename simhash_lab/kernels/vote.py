"""Voting kernels: feature hashes -> the accumulators -> the fingerprint.

Votes are counted as in the `simhash` package: ``S[i] = sum of w over features whose hash has bit i``
and ``T = sum of all w``; then the accumulator of the session, ``V[i] = sum of (+w or -w)``, is
``2 S[i] - T`` and bit i of the fingerprint is ``V[i] > 0``. With unit weights the sums are integers
(exact, and the inner loop is a vectorised add of 64 bit-lanes: ``count_bits``).

Hashes arrive whole (64 bits): features are told apart by their full hash, and only the fold reads
the low ``bits`` bits, so a narrow fingerprint is the low bits of the wide one (bit i's vote sees
only bit i of each hash). Counts are int64 and weighted sums float64, each with its own fold, so
that every kernel here has one compiled specialisation.
"""

from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._jit import c_address, kernel
from .bits import BYTE_LANES as _LANES
from .hashes import HASH_XXH3, hash_span, xxh3_1to3, xxh3_4to8, xxh3_9to16, xxh3_any_inline

_U64 = np.uint64

# weighting
WEIGHT_TF = 0  # every occurrence votes (weight = count)


WEIGHT_BINARY = 1  # every distinct feature votes once


@kernel(inline=True)
def _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7):
    """Add the byte-lane counters to acc (int64 (64,)): lane L of c_j counts bit 8L + j."""
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


@intrinsic
def _swar_counts(typingctx, hs, lo, hi):
    """The byte-lane counters of hs[lo:hi] (hi - lo <= 255): (c_0, ..., c_7), lane L of c_j
    counting bit 8L + j (``c_j += (h >> j) & 0x0101...01`` for each hash h), in one loop whose 8
    counters are the lanes of one LLVM vector <8 x i64>: each hash is broadcast, shifted by 0..7
    lane by lane, masked and added, 4 vector instructions where the scalar form takes 24 (one
    AVX-512 register; two AVX2 ones on a CPU without AVX-512: LLVM lowers it for the host). No
    bounds check."""
    if not (isinstance(hs, types.Array) and hs.dtype == types.uint64):
        return None
    sig = types.UniTuple(types.uint64, 8)(hs, lo, hi)

    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        vt = ir.VectorType(i64, 8)
        arr = context.make_array(signature.args[0])(context, builder, args[0])
        lo = context.cast(builder, args[1], signature.args[1], types.intp)
        hi = context.cast(builder, args[2], signature.args[2], types.intp)
        acc = cgutils.alloca_once_value(builder, ir.Constant(vt, [0] * 8))
        shifts = ir.Constant(vt, list(range(8)))
        lanes = ir.Constant(vt, [int(_LANES)] * 8)
        first = ir.Constant(ir.VectorType(i32, 8), [0] * 8)
        with cgutils.for_range_slice(builder, lo, hi, ir.Constant(i64, 1), inc=True) as (i, _):
            h = builder.load(builder.gep(arr.data, [i]))
            one = builder.insert_element(ir.Constant(vt, ir.Undefined), h, ir.Constant(i32, 0))
            hv = builder.shuffle_vector(one, ir.Constant(vt, ir.Undefined), first)
            builder.store(builder.add(builder.load(acc), builder.and_(builder.lshr(hv, shifts), lanes)), acc)
        total = builder.load(acc)
        out = [builder.extract_element(total, ir.Constant(i32, k)) for k in range(8)]
        return context.make_tuple(builder, signature.return_type, out)

    return sig, codegen


@kernel(python=False)
def count_bits(hs, nf, acc):
    """acc[i] += how many of hs[:nf] have bit i set (acc: int64 (64,)).

    SWAR vertical counters: ``c_j += (h >> j) & 0x0101...01`` counts, in byte lane L of c_j, the
    bit 8L + j of every hash, so 8 shift-and-add steps cover all 64 bits of one hash (the 8 in
    one vector step, ``_swar_counts``). Lanes are flushed every 255 hashes, before a byte (which
    counts to 255) can overflow.
    """
    j = 0
    while j < nf:
        stop = min(j + 255, nf)
        c0, c1, c2, c3, c4, c5, c6, c7 = _swar_counts(hs, j, stop)
        _flush_lanes(acc, c0, c1, c2, c3, c4, c5, c6, c7)
        j = stop


@kernel
def vote_unit(hs, nf):
    """Counts S[i] of set bit i over hs[:nf] (unit weights); returns int64 (64,)."""
    acc = np.zeros(64, dtype=np.int64)
    count_bits(hs, nf, acc)
    return acc


# Tokens hashed per batch by ``hash_vote_tokens``: 16 whole SWAR flushes of 255 hashes, so only a
# batch's last flush is partial, and 4080 hashes (32 KiB) stay in the L1/L2 cache between the
# hashing loop and ``count_bits``. ``hs`` holds one batch; ``order`` holds the batch's token
# numbers once per XXH3 size class (any class may take the whole batch): 4 batches.
TOKEN_BATCH = 16 * 255
ORDER_SIZE = 4 * TOKEN_BATCH


# The hashes other than XXH3 (XXH64, MD5, SipHash: the presets') are compiled on first use only:
# a kernel that hashes tokens calls them through ``hash_batch``'s C entry point, whose address the
# Python layer passes in (``hash_batch_address``), one call per batch of tokens. A direct call
# would compile all of them, and type and optimise them inlined, with every kernel that might
# call them: about a third of a first default ``fingerprints``' compile time.

#: ``hash_batch``'s C signature: (tok, its length, pos, lo, hi, hash kind, tail, hs) -> hi - lo
HASH_BATCH_SIG = types.int64(
    types.CPointer(types.uint8),
    types.int64,
    types.CPointer(types.int64),
    types.int64,
    types.int64,
    types.int64,
    types.CPointer(types.uint8),
    types.CPointer(types.uint64),
)


@kernel(c_entry=True)
def hash_batch(tok_p, ntok_bytes, pos_p, lo, hi, hash_kind, tail_p, hs_p):
    """hs[t - lo] = hash ``hash_kind`` of token ``tok[pos[2t]:pos[2t+1]]`` for t in [lo, hi), any
    hash kind (``hashes.hash_span``); called through its address (``call_hash_batch``)."""
    tok = carray(tok_p, ntok_bytes)
    pos = carray(pos_p, 2 * hi)
    tail = carray(tail_p, 128)
    hs = carray(hs_p, hi - lo)
    for t in range(lo, hi):
        hs[t - lo] = hash_span(tok, pos[2 * t], pos[2 * t + 1], hash_kind, tail)
    return hi - lo


@functools.cache
def _hash_batch_address() -> int:
    return c_address(hash_batch, HASH_BATCH_SIG)


def hash_batch_address(hash_kind: int) -> int:
    """What the kernels that hash tokens take as ``hash_fn``: 0 for XXH3 (hashed inline, nothing
    else to compile), else the address of ``hash_batch`` in this process (compiled or loaded on
    the first call)."""
    return 0 if hash_kind == HASH_XXH3 else _hash_batch_address()


@intrinsic
def call_hash_batch(typingctx, hash_fn, tok, pos, lo, hi, hash_kind, tail, hs):
    """``hash_batch(tok, pos, lo, hi, hash_kind, tail, hs)`` through its address ``hash_fn``
    (``hash_batch_address``): a call the caller's compile does not type or optimise. The arrays
    are passed as their data pointers; ``tail`` holds at least 128 bytes, ``hs`` ``hi - lo``
    hashes. Returns ``hi - lo``."""
    arrays = (tok, pos, tail, hs)
    want = (types.uint8, types.int64, types.uint8, types.uint64)
    if not all(isinstance(a, types.Array) and a.dtype == d for a, d in zip(arrays, want)):
        return None
    sig = types.int64(hash_fn, tok, pos, lo, hi, hash_kind, tail, hs)

    def codegen(context, builder, signature, args):
        fn_a, tok_a, pos_a, lo_a, hi_a, kind_a, tail_a, hs_a = args
        ty = signature.args
        i64 = ir.IntType(64)
        tok_s = context.make_array(ty[1])(context, builder, tok_a)
        pos_s = context.make_array(ty[2])(context, builder, pos_a)
        tail_s = context.make_array(ty[6])(context, builder, tail_a)
        hs_s = context.make_array(ty[7])(context, builder, hs_a)
        fnty = ir.FunctionType(i64, [context.get_value_type(a) for a in HASH_BATCH_SIG.args])
        fn = builder.inttoptr(context.cast(builder, fn_a, ty[0], types.int64), fnty.as_pointer())
        ints = [
            context.cast(builder, v, t, types.int64)
            for v, t in ((lo_a, ty[3]), (hi_a, ty[4]), (kind_a, ty[5]))
        ]
        return builder.call(fn, [tok_s.data, tok_s.nitems, pos_s.data, *ints, tail_s.data, hs_s.data])

    return sig, codegen


@kernel
def hash_vote_tokens(tok, pos, ntok, hash_kind, hash_fn, hs, order, tail, acc):
    """acc[i] = how many of the ``ntok`` tokens ``tok[pos[2t]:pos[2t+1]]`` hash with bit i set.

    Tokens go in batches of ``TOKEN_BATCH`` (``hs``: one batch, ``order``: ``ORDER_SIZE``). With
    XXH3 a batch is first sorted by XXH3's size class (1-3, 4-8, 9-16, more bytes), so that each
    class's loop runs without a mispredicted branch per token; votes are sums, so the order does
    not change them. Any other hash goes through ``hash_fn`` (``hash_batch_address(hash_kind)``),
    a batch a call. ``tail``: MD5's scratch (128 bytes, see ``hashes.md5_pair``).
    """
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
            for k in range(3 * nb, c3):  # XXH3 inlined: no call per long token
                t = order[k]
                hs[w] = xxh3_any_inline(tok, pos[2 * t], pos[2 * t + 1])
                w += 1
        else:
            call_hash_batch(hash_fn, tok, pos, b0, b1, hash_kind, tail, hs)
        count_bits(hs, nb, acc)


@kernel(python=False)
def vote_weighted(hs, ws, nf):
    """Weighted sums S[i] = sum(ws[j] for j with bit i of hs[j] set); returns float64 (64,)."""
    acc = np.zeros(64, dtype=np.float64)
    for j in range(nf):
        h = hs[j]
        w = ws[j]
        for i in range(64):  # branch-free (vectorised): + w or + 0.0, the same sums in the same order
            acc[i] += w * np.float64((h >> _U64(i)) & _U64(1))
    return acc


@kernel(inline=True)
def fold_counts(counts, n, bits):
    """Fingerprint from unit-weight counts (int64 (64,), n features): bit i set when
    V[i] = 2 S[i] - n > 0, for i < bits."""
    fp = _U64(0)
    for i in range(bits):
        if 2 * counts[i] - n > 0:
            fp |= _U64(1) << _U64(i)
    return fp


@kernel(python=False)
def fold_bits(s, total, bits):
    """Fingerprint from sums (float64 (64,), float64): bit i set when V[i] = 2 S[i] - total > 0,
    for i < bits."""
    fp = _U64(0)
    for i in range(bits):
        if 2 * s[i] - total > 0:
            fp |= _U64(1) << _U64(i)
    return fp


@kernel(python=False)
def dedupe(hs, nf):
    """Move the distinct values of hs[:nf] to the front (in order of first appearance); return
    their count. (Binary weights: every distinct feature votes once.) A fresh table each call
    (``dedupe_in``)."""
    cap = table_size(nf)
    return dedupe_in(hs, nf, np.zeros(cap, dtype=np.uint64), cap)


@kernel(inline=True)
def table_size(nf):
    """The slots of ``dedupe_in``'s table for ``nf`` values: the power of two >= 2 nf (at least 2)."""
    cap = 2
    while cap < 2 * nf:
        cap *= 2
    return cap


@kernel(inline=True)
def dedupe_in(hs, nf, table, cap):
    """``dedupe`` in the caller's table: ``table[:cap]`` (``cap = table_size(nf)``) is cleared
    here, so a loop over many documents allocates nothing.

    An open-addressing set of a power of two >= 2 nf slots (at most half full) indexed by each
    value's low bits (the values are hashes, already uniform): O(nf), no sort. 0 marks an empty
    slot, so the value 0 is tracked on its own."""
    table[:cap] = 0
    slot_mask = _U64(cap - 1)
    seen_zero = False
    u = 0
    for j in range(nf):
        h = hs[j]
        if h == 0:
            if seen_zero:
                continue
            seen_zero = True
        else:
            slot = h & slot_mask
            while table[slot] != 0 and table[slot] != h:
                slot = (slot + _U64(1)) & slot_mask
            if table[slot] == h:
                continue
            table[slot] = h
        hs[u] = h
        u += 1
    return u


# float64's largest finite value
_DBL_MAX = np.finfo(np.float64).max


@kernel
def overflow_scale(ws, nf):
    """The power of two (float64, 1.0 when none is needed) that ``ws[:nf]`` are multiplied by so
    that no sum ``weighted_sums`` forms, nor ``2 S[i] - T``, can overflow: ``4 * nf * max|w| <=
    DBL_MAX`` afterwards.

    Simhash is scale-invariant (every bit compares ``2 S[i]`` with ``T``), and multiplying by a
    power of two is exact (short of underflow to subnormals, which only weights more than 2**-1000
    times the largest can reach), so the fingerprint is the one of the unscaled weights."""
    amax = 0.0
    for j in range(nf):
        amax = max(amax, abs(ws[j]))
    limit = _DBL_MAX / (4.0 * max(nf, 1))
    scale = 1.0
    while amax * scale > limit:
        scale *= 0.5
    return scale


@kernel(python=False)
def weighted_sums(hs, ws, nf):
    """(S float64 (64,), T float64) of features with hashes hs[:nf] and weights ws[:nf], both
    divided by ``1 / overflow_scale(ws, nf)`` (a power of two: the fingerprint is unchanged) so
    that none of the sums overflows, however large the finite weights."""
    scale = overflow_scale(ws, nf)
    w = np.empty(max(nf, 1), dtype=np.float64)
    total = 0.0
    for j in range(nf):
        w[j] = ws[j] * scale
        total += w[j]
    return vote_weighted(hs, w, nf), total


@kernel
def fold_weighted(hs, ws, bits):
    """The fingerprint of features with hashes ``hs`` (uint64 (m,)) and weights ``ws`` (float64
    (m,)): what the Python layer calls for custom hashes and traces."""
    s, total = weighted_sums(hs, ws, hs.shape[0])
    return fold_bits(s, total, bits)
