"""JSONL rows read in place: each line's text column (and id and priority columns) found in a
block's raw bytes, its string unescaped into one UTF-8 buffer, every other value validated and
skipped without being built.

``scan_rows`` is a JSON parser for exactly the lines it is sure of: an object on one line whose
keys are strings, the text column a string, no column given twice, every byte valid UTF-8, every
string free of raw control characters and lone surrogate escapes, numbers that orjson reads
without an error (at most 64 characters, finite beyond doubt), nesting at most
``MAX_DEPTH`` deep. Anything else (a line that is not an object, a missing column, ``NaN``, a
byte order mark, a deeper nesting, a rare number) stops the scan there and is flagged: that line
then goes through orjson and the standard :mod:`json`, as before, with the messages that name the
line, and the scan goes on after it (``simhash_lab.datasets.jsonl``). So the scanner never
decides what a line means where orjson would decide otherwise; it only does the common case
without building a dict.

The input is a read-only view of the block's bytes (``np.frombuffer`` of a ``bytes``): one
specialisation, the same in every call.
"""

from __future__ import annotations

import numpy as np

from ._jit import kernel
from .bits import BYTE_HIGH as _HI
from .bits import BYTE_LANES as _LO
from .bits import cttz
from .hashes import read64, write64

_U64 = np.uint64
_QUOTE = _LO * _U64(0x22)
_BACKSLASH = _LO * _U64(0x5C)
_SPACE = _LO * _U64(0x20)

__all__ = ["ID_INT", "ID_RAW", "ID_STR", "MAX_DEPTH", "column_names", "scan_block", "scan_rows"]

#: Nesting depth from which a line is flagged (orjson refuses 1024 levels).
MAX_DEPTH = 1000

#: The kinds of an id: a string (code point span in the output), an int that fits 18 digits
#: (its value), anything else (its raw byte span, parsed by the caller's JSON loader).
ID_STR, ID_INT, ID_RAW = 0, 1, 2


@kernel(inline=True)
def _byte(buf, i):
    """The byte at ``i``, or -1 past the end of the block."""
    if i < buf.shape[0]:
        return np.int64(buf[i])
    return np.int64(-1)


@kernel(inline=True)
def _ws(buf, i):
    """The first position from ``i`` that is not JSON whitespace on a line (space, tab, CR)."""
    while True:
        c = _byte(buf, i)
        if c == 32 or c == 9 or c == 13:
            i += 1
        else:
            return i


@kernel(inline=True)
def _hex4(buf, i):
    """The value of the four hex digits at ``i``, or -1."""
    v = np.int64(0)
    for j in range(4):
        c = _byte(buf, i + j)
        if 48 <= c <= 57:
            d = c - 48
        elif 97 <= c <= 102:
            d = c - 87
        elif 65 <= c <= 70:
            d = c - 55
        else:
            return np.int64(-1)
        v = v * 16 + d
    return v


@kernel(inline=True)
def _string(buf, i, out, o, cp):
    """The JSON string whose opening quote is before ``i``, unescaped to UTF-8 at ``out[o]``:
    ``(position after its closing quote, o after it, cp after it)`` (``cp`` counts code points),
    or a position of -1 for a string this scanner is not sure of."""
    n = buf.shape[0]
    while True:
        while i + 8 <= n:  # eight bytes at a time, until a quote, a backslash, a control or non-ASCII byte
            w = read64(buf, i)
            q = w ^ _QUOTE
            b = w ^ _BACKSLASH
            stop = ((q - _LO) & ~q) | ((b - _LO) & ~b) | ((w - _SPACE) & ~w) | w
            write64(out, o, w)
            stop &= _HI
            if stop:
                k = np.int64(cttz(stop) >> _U64(3))
                o += k
                i += k
                cp += k
                break
            o += 8
            i += 8
            cp += 8
        if i >= n:
            return np.int64(-1), o, cp
        c = buf[i]
        if c == 34:  # "
            return i + 1, o, cp
        if c == 92:  # \
            e = _byte(buf, i + 1)
            i += 2
            if e == 34 or e == 92 or e == 47:
                out[o] = e
            elif e == 110:
                out[o] = 10
            elif e == 116:
                out[o] = 9
            elif e == 114:
                out[o] = 13
            elif e == 98:
                out[o] = 8
            elif e == 102:
                out[o] = 12
            elif e == 117:  # \uXXXX
                v = _hex4(buf, i)
                if v < 0:
                    return np.int64(-1), o, cp
                i += 4
                if 0xD800 <= v < 0xDC00:  # a high surrogate: its low half must follow
                    if _byte(buf, i) != 92 or _byte(buf, i + 1) != 117:
                        return np.int64(-1), o, cp
                    w = _hex4(buf, i + 2)
                    if w < 0xDC00 or w >= 0xE000:
                        return np.int64(-1), o, cp
                    v = 0x10000 + ((v - 0xD800) << 10) + (w - 0xDC00)
                    i += 6
                elif 0xDC00 <= v < 0xE000:
                    return np.int64(-1), o, cp
                if v < 0x80:  # the code point as UTF-8
                    out[o] = v
                    o += 1
                elif v < 0x800:
                    out[o] = 0xC0 | (v >> 6)
                    out[o + 1] = 0x80 | (v & 0x3F)
                    o += 2
                elif v < 0x10000:
                    out[o] = 0xE0 | (v >> 12)
                    out[o + 1] = 0x80 | ((v >> 6) & 0x3F)
                    out[o + 2] = 0x80 | (v & 0x3F)
                    o += 3
                else:
                    out[o] = 0xF0 | (v >> 18)
                    out[o + 1] = 0x80 | ((v >> 12) & 0x3F)
                    out[o + 2] = 0x80 | ((v >> 6) & 0x3F)
                    out[o + 3] = 0x80 | (v & 0x3F)
                    o += 4
                cp += 1
                continue
            else:
                return np.int64(-1), o, cp
            o += 1
            cp += 1
        elif c < 32:
            return np.int64(-1), o, cp
        elif c < 128:
            out[o] = c
            o += 1
            cp += 1
            i += 1
        else:  # a UTF-8 sequence, checked as Python's decoder checks it: no overlong form, no
            # surrogate, nothing above U+10FFFF
            lo, hi = 0x80, 0xBF
            if c < 0xC2 or c > 0xF4:
                return np.int64(-1), o, cp
            if c < 0xE0:
                k = 2
            elif c < 0xF0:
                k = 3
                if c == 0xE0:
                    lo = 0xA0
                elif c == 0xED:
                    hi = 0x9F
            else:
                k = 4
                if c == 0xF0:
                    lo = 0x90
                elif c == 0xF4:
                    hi = 0x8F
            d = _byte(buf, i + 1)
            if d < lo or d > hi:
                return np.int64(-1), o, cp
            for j in range(2, k):
                d = _byte(buf, i + j)
                if d < 0x80 or d > 0xBF:
                    return np.int64(-1), o, cp
            for j in range(k):
                out[o + j] = buf[i + j]
            o += k
            i += k
            cp += 1


@kernel(inline=True)
def _number(buf, i):
    """The JSON number at ``i``: ``(position after it, kind, value)``; kind 1: an int of at most
    18 digits (``value``), 2: another number orjson reads, -1: not a number this scanner is sure
    of (bad grammar, more than 64 characters, an exponent of five digits or more, or one that may
    make it infinite: its integer digits plus a positive exponent above 308)."""
    start = i
    neg = False
    c = _byte(buf, i)
    if c == 45:
        neg = True
        i += 1
        c = _byte(buf, i)
    v = np.int64(0)
    digits = 0
    if c == 48:
        i += 1
        digits = 1
        c = _byte(buf, i)
        if 48 <= c <= 57:
            return i, -1, v
    elif 49 <= c <= 57:
        while 48 <= c <= 57:
            if digits < 18:
                v = v * 10 + (c - 48)
            digits += 1
            i += 1
            c = _byte(buf, i)
    else:
        return i, -1, v
    kind = 1 if digits <= 18 else 2
    if c == 46:  # .
        i += 1
        c = _byte(buf, i)
        if not 48 <= c <= 57:
            return i, -1, v
        while 48 <= c <= 57:
            i += 1
            c = _byte(buf, i)
        kind = 2
    if c == 101 or c == 69:  # e E
        i += 1
        c = _byte(buf, i)
        negexp = c == 45
        if c == 43 or c == 45:
            i += 1
            c = _byte(buf, i)
        e = 0
        ed = 0
        while 48 <= c <= 57:
            if ed < 5:
                e = e * 10 + (c - 48)
            ed += 1
            i += 1
            c = _byte(buf, i)
        if ed == 0 or ed > 4 or (not negexp and digits + e > 308):  # may be infinite: orjson refuses
            return i, -1, v
        kind = 2
    if i - start > 64:
        return i, -1, v
    return i, kind, -v if neg else v


@kernel(inline=True)
def _key(buf, i, out, o):
    """An object's key at ``i`` (its opening quote), then ``:``: ``(position of the value, the
    key's length)``, the key unescaped at ``out[o]`` (scratch: nothing is kept), or -1."""
    if _byte(buf, i) != 34:
        return np.int64(-1), 0
    j, o2, _ = _string(buf, i + 1, out, o, 0)
    if j < 0:
        return np.int64(-1), 0
    j = _ws(buf, j)
    if _byte(buf, j) != 58:  # :
        return np.int64(-1), 0
    return _ws(buf, j + 1), o2 - o


@kernel(inline=True)
def _skip(buf, i, out, o, stack):
    """One JSON value at ``i`` validated and passed over: the position after it, or -1. Strings
    are unescaped to ``out[o]`` as scratch (nothing is kept). One call site of each helper (an
    object's key is read as a string, then its colon), so that each is inlined once."""
    depth = 0
    key = False  # the value at i is an object's key
    while True:
        c = _byte(buf, i)
        if key and c != 34:
            return np.int64(-1)
        if c == 123 or c == 91:  # { [
            depth += 1
            if depth > MAX_DEPTH:
                return np.int64(-1)
            stack[depth] = c
            i = _ws(buf, i + 1)
            if _byte(buf, i) != c + 2:  # not } or ]: a key or a value next
                key = c == 123
                continue
            i += 1  # empty
            depth -= 1
        elif c == 34:
            i, _, _ = _string(buf, i + 1, out, o, 0)
            if i < 0:
                return np.int64(-1)
            if key:
                i = _ws(buf, i)
                if _byte(buf, i) != 58:  # :
                    return np.int64(-1)
                i = _ws(buf, i + 1)
                key = False
                continue
        elif c == 45 or 48 <= c <= 57:
            i, kind, _ = _number(buf, i)
            if kind < 0:
                return np.int64(-1)
        elif c == 116 or c == 110:  # true null
            if c == 116:
                ok = _byte(buf, i + 1) == 114 and _byte(buf, i + 2) == 117 and _byte(buf, i + 3) == 101
            else:
                ok = _byte(buf, i + 1) == 117 and _byte(buf, i + 2) == 108 and _byte(buf, i + 3) == 108
            if not ok:
                return np.int64(-1)
            i += 4
        elif c == 102:  # false
            if not (
                _byte(buf, i + 1) == 97 and _byte(buf, i + 2) == 108 and _byte(buf, i + 3) == 115
                and _byte(buf, i + 4) == 101
            ):  # fmt: skip
                return np.int64(-1)
            i += 5
        else:
            return np.int64(-1)
        while True:  # after a value: the end of its container, or the next value
            if depth == 0:
                return i
            i = _ws(buf, i)
            c = _byte(buf, i)
            if c == 44:  # ,
                i = _ws(buf, i + 1)
                key = stack[depth] == 123
                break
            if c == stack[depth] + 2:  # } or ]
                depth -= 1
                i += 1
                continue
            return np.int64(-1)


@kernel(inline=True)
def _is(out, o, n, name):
    """Whether the ``n`` bytes at ``out[o]`` are ``name``."""
    if n != name.shape[0]:
        return False
    for j in range(n):
        if out[o + j] != name[j]:
            return False
    return True


@kernel
def scan_rows(buf, col, idc, pc, line_s, line_e, is_row, txt, idk, ida, idv, pra, out, stack):
    """The rows of ``buf`` (whole JSONL lines, ``\\n`` between them): ``(rows, lines, out bytes,
    flagged)``; ``flagged`` 1: the line numbered ``lines - 1`` is one this scanner is not sure
    of, and the scan stopped there (the caller reads the block another way).

    ``col``, ``idc``, ``pc``: the UTF-8 names of the text, id and priority columns, three
    different names (``idc``, ``pc`` empty: not asked). For each line, ``line_s``/``line_e``: its
    first byte and the byte after it (its ``\\n`` or the block's end); ``is_row``: 0 for a blank
    line (empty or whitespace only, as ``bytes.isspace`` says). For each row: ``txt`` (n, 4): its
    text's span in code points of ``out[:out bytes]`` decoded, then its UTF-8 bytes' span in
    ``out`` (the same length: an ASCII text); ``idk``: its id's kind (``ID_STR``: spans ``ida`` as
    the text's; ``ID_INT``: ``idv``; ``ID_RAW``: ``ida[:, :2]`` is the value's bytes in ``buf``);
    ``pra``: its priority's bytes in ``buf``. ``out``: at least
    ``len(buf) + 8`` bytes; ``stack``: ``MAX_DEPTH + 1`` bytes of scratch."""
    want_id = idc.shape[0] > 0
    want_p = pc.shape[0] > 0
    o = np.int64(0)
    cp = np.int64(0)
    row = 0
    line = 0
    i = np.int64(0)
    while True:
        line_s[line] = i
        i = _ws(buf, i)
        c = _byte(buf, i)
        if c == 10 or c == -1:
            is_row[line] = 0
        elif c == 123:  # {
            got_t = got_i = got_p = False
            i = _ws(buf, i + 1)
            c = _byte(buf, i)
            if c == 125:
                return row, line + 1, o, 1  # {}: no text column
            while True:
                i, klen = _key(buf, i, out, o)
                if i < 0:
                    return row, line + 1, o, 1
                c = _byte(buf, i)
                which = 0  # the key's column: 1 text, 2 id, 3 priority, 0 another
                if _is(out, o, klen, col):
                    which = 1
                    dup = got_t
                    got_t = True
                elif want_id and _is(out, o, klen, idc):
                    which = 2
                    dup = got_i
                    got_i = True
                elif want_p and _is(out, o, klen, pc):
                    which = 3
                    dup = got_p
                    got_p = True
                else:
                    dup = False
                if dup or (which == 1 and c != 34):
                    return row, line + 1, o, 1
                if which == 1 or (which == 2 and c == 34):  # a string kept: one call site
                    start = cp
                    bstart = o
                    i, o, cp = _string(buf, i + 1, out, o, cp)
                    if which == 1:
                        txt[row, 0] = start
                        txt[row, 1] = cp
                        txt[row, 2] = bstart
                        txt[row, 3] = o
                    else:
                        idk[row] = ID_STR
                        ida[row, 0] = start
                        ida[row, 1] = cp
                        ida[row, 2] = bstart
                        ida[row, 3] = o
                else:  # any other value: validated and passed over, its bytes' span kept
                    start = i
                    kind = ID_RAW
                    v = np.int64(0)
                    if which == 2 and (c == 45 or 48 <= c <= 57):
                        i, kind, v = _number(buf, i)
                        if kind < 0:
                            return row, line + 1, o, 1
                        kind = ID_INT if kind == 1 else ID_RAW
                    else:
                        i = _skip(buf, i, out, o, stack)
                    if which == 2:
                        idk[row] = kind
                        idv[row] = v
                        ida[row, 0] = start
                        ida[row, 1] = i
                    elif which == 3:
                        pra[row, 0] = start
                        pra[row, 1] = i
                if i < 0:
                    return row, line + 1, o, 1
                i = _ws(buf, i)
                c = _byte(buf, i)
                if c == 44:  # ,
                    i = _ws(buf, i + 1)
                elif c == 125:  # }
                    i = _ws(buf, i + 1)
                    break
                else:
                    return row, line + 1, o, 1
            c = _byte(buf, i)
            if (c != 10 and c != -1) or not got_t or (want_id and not got_i) or (want_p and not got_p):
                return row, line + 1, o, 1
            is_row[line] = 1
            row += 1
        else:  # blank only if every byte is whitespace to bytes.isspace (\v and \f too)
            while c == 32 or 9 <= c <= 13 and c != 10:
                i += 1
                c = _byte(buf, i)
            if c != 10 and c != -1:
                return row, line + 1, o, 1
            is_row[line] = 0
        line_e[line] = i
        line += 1
        if c == -1:
            return row, line, o, 0
        i += 1


def column_names(column: str, id_column: str | None, priority_column: str | None) -> list | None:
    """The three columns' names as :func:`scan_block` takes them (UTF-8, read-only arrays; an
    empty one for a column not asked for), or None when the scanner cannot read them: two
    columns of one name, a name that is not UTF-8 (a lone surrogate)."""
    names = [column, id_column or "", priority_column or ""]
    given = [n for n in names if n]
    if len(set(given)) != len(given):
        return None
    try:
        return [np.frombuffer(n.encode("utf-8"), np.uint8) for n in names]
    except UnicodeEncodeError:
        return None


def scan_block(whole, n: int, names: list, scratch: list):
    """:func:`scan_rows` over ``whole`` (``bytes`` or a memoryview of them: ``n`` lines), its
    arrays made here (the reader and the warmup call it alike: one compiled specialisation):
    ``(lines, flagged, out bytes, line starts, line ends, is_row, txt, idk, ida, idv, pra,
    out)``: ``lines`` scanned (when ``flagged``, the last of them is the line flagged, its
    start in ``line starts``, nothing else of it kept), the per-row arrays cut to the rows read.
    ``scratch``: ``[out, stack, ...]``, reused from block to block (``[np.empty(0, np.uint8),
    None]`` at first; what follows is the caller's)."""
    if scratch[0].shape[0] < len(whole) + 8:
        scratch[0] = np.empty(2 * len(whole) + 8, np.uint8)
        scratch[1] = np.empty(MAX_DEPTH + 1, np.uint8)
    out, stack = scratch[0], scratch[1]
    starts, ends, idv = np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64)
    is_row, idk = np.empty(n, np.uint8), np.empty(n, np.int8)
    txt, ida, pra = np.empty((n, 4), np.int64), np.empty((n, 4), np.int64), np.empty((n, 2), np.int64)
    buf = np.frombuffer(whole, np.uint8)
    r, lines, used, flagged = scan_rows(
        buf, *names, starts, ends, is_row, txt, idk, ida, idv, pra, out, stack
    )
    return (
        lines,
        bool(flagged),
        used,
        starts,
        ends,
        is_row.view(np.bool_),
        txt[:r],
        idk[:r],
        ida[:r],
        idv[:r],
        pra[:r],
        out,
    )
