"""The JSONL scanner (kernels.jsonl.scan_rows) against orjson, line by line, on a fuzz corpus: every
line it does not flag gives the same text, id and priority as orjson's dict would (the same
Python objects, types included), and every line orjson refuses, or that lacks a column, or whose
text is not a string, is flagged (then read as before, by orjson and json)."""

from __future__ import annotations

import json
import random

import numpy as np
import orjson
import pytest

from simhash_lab.datasets import DatasetError, JsonlSource
from simhash_lab.datasets.source import check_priority
from simhash_lab.kernels.jsonl import MAX_DEPTH, scan_block

_CHARS = (
    list("abc xyz09") + ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "'"]
    + ["é", "ß", "ж", "中", "\u2028", "\ufeff", "\uffff", "😀", "\U0010ffff", "\U00010000"]
)  # fmt: skip


def _string(rng: random.Random, s: str) -> str:
    """``s`` as a JSON string literal, each character written one of the ways JSON allows."""
    out = ['"']
    for ch in s:
        c = ord(ch)
        short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
        r = rng.random()
        if ch in short and r < 0.7:
            out.append(short[ch])
        elif ch == "/" and r < 0.5:
            out.append("\\/")
        elif c < 0x20 or ch in '"\\' or r < 0.3:  # \uXXXX (a surrogate pair above the BMP)
            units = [c] if c < 0x10000 else [0xD800 + ((c - 0x10000) >> 10), 0xDC00 + ((c - 0x10000) & 0x3FF)]
            out.extend(f"\\u{u:04X}" if rng.random() < 0.5 else f"\\u{u:04x}" for u in units)
        else:
            out.append(ch)
    return "".join(out) + '"'


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_CHARS) for _ in range(rng.randrange(0, 40)))


_NUMBERS = [
    0, -0.0, 1, -1, 7, 2**31, 2**53 + 1, 10**17, 10**18 - 1, 10**18, -(10**18), 2**63 - 1, 2**63, 2**64 - 1,
    2**64, -(2**63), -(2**63) - 1, 10**30, 1.5, -2.25, 1e-7, 1e22, 1.5e307, 5e-324, 0.1,
]  # fmt: skip


def _value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth < 4 and r < 0.15:
        return {_text(rng): _value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}
    if depth < 4 and r < 0.3:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if r < 0.55:
        return _text(rng)
    if r < 0.85:
        return rng.choice(_NUMBERS)
    return rng.choice([True, False, None])


def _dump(rng: random.Random, v, ws: bool) -> str:
    """``v`` as JSON with random whitespace (space, tab, CR) between tokens and random escapes."""

    def sp() -> str:
        return "".join(rng.choice(" \t\r") for _ in range(rng.randrange(0, 3))) if ws else ""

    if isinstance(v, dict):
        items = (f"{sp()}{_string(rng, k)}{sp()}:{sp()}{_dump(rng, x, ws)}{sp()}" for k, x in v.items())
        return "{" + ",".join(items) + "}"
    if isinstance(v, list):
        return "[" + ",".join(sp() + _dump(rng, x, ws) + sp() for x in v) + "]"
    if isinstance(v, str):
        return _string(rng, v)
    if isinstance(v, float):
        return rng.choice([repr(v), f"{v:.17e}", f"{v:E}"]) if v == v and abs(v) < 1e300 else repr(v)
    return json.dumps(v)


def _corpus(n: int, seed: int = 0) -> list[bytes]:
    """Lines of JSON objects: the text column among other keys (in any order, nested values before
    and after it), sometimes an id and a priority of any kind, written by json.dumps (ASCII and
    not) or with random whitespace and escapes; some without a column, with a text that is not a
    string, with a key twice."""
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        rec = {}
        keys = ["text", "id", "p", "meta", "a", "t", "text2", "i"]
        rng.shuffle(keys)
        for k in keys:
            if k == "text":
                rec[k] = _text(rng) if rng.random() < 0.93 else _value(rng)
            elif k in ("id", "p") and rng.random() < 0.05:
                continue
            elif k == "p":
                rec[k] = rng.choice(_NUMBERS[:20] + ["2.5", "x", None, True])
            else:
                rec[k] = _value(rng)
        mode = i % 4
        if mode == 0:
            line = json.dumps(rec)
        elif mode == 1:
            line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        else:
            line = _dump(rng, rec, ws=mode == 3)
        if rng.random() < 0.03:  # a column given twice: orjson keeps the last
            k = rng.choice(["text", "id", "p"])
            line = line[:-1] + (", " if len(rec) else "") + f'"{k}": {json.dumps(_value(rng))}' + "}"
        lines.append(line.encode("utf-8", "surrogatepass"))
    return lines


_BAD_IDS = [
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"1.7976931348623157e308",
    b"01",
    b"1.",
    b".5",
    b"+1",
]
_BAD_IDS += [b"1,", b"tru", b'"\\ud83d"', b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)]
_BAD_TEXTS = [
    b"\\ud800",
    b"\\udc00",
    b"\\ud800\\u0041",
    b"\\ud800\\ud800",
    b"\\x41",
    b"\\u00G1",
    b"a\tb",
    b"a\x00",
]
_BAD_TEXTS += [b"\xc0\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\xff"]  # not UTF-8
_BAD_VALUES = [b"1e999", b"-", b"[1 2]", b'{"k" 1}', b"{1: 1}", b"nul", b'"\xc3"', b"[1,]", b'{"a":1,}']
ODD = (  # lines this scanner must flag (orjson refuses them, or it is not sure of them)
    [b'{"text": "a", "id": %s}' % v for v in _BAD_IDS]
    + [b'{"text": "%s", "id": 1}' % t for t in _BAD_TEXTS]
    + [b'{"text": "a", "id": 1, "x": %s}' % v for v in _BAD_VALUES]
    + [b'\xef\xbb\xbf{"text": "a", "id": 1}', b'{"text": "a" "id": 1}', b"{'text': 'a', 'id': 1}"]
    + [b'{"text": "a", "id": 1} x', b'{"text": "a", "id": 1}}', b'{"text": "a", "id": 1', b'{"text": "a']
    + [b'[{"text": "a", "id": 1}]', b'"text"', b"1", b"{}", b'{"id": 1}', b'{"text": 1, "id": 1}']
    + [
        b'{"text": null, "id": 1}',
        b'{"text": ["a"], "id": 1}',
        b'{"text": "a"}',
        b'\x0b{"text": "a", "id": 1}',
    ]
    + [
        b'{"text": "a", "id": 1, "text": "b"}',
        b'{"text": "a", "id": 1, "id": 2}',
        b'{"text": "a", "id": 1}\x0c',
    ]
    + [b'{"text": "a", "\\u0069d": 1, "id": 2}']
)


def _reference(raw: bytes, idc: str | None, pc: str | None):
    """(text, id, priority) as orjson's dict gives them (the priority as the reader checks it), each
    as (type, repr); None where the line is not an object orjson reads with a str text and the
    columns asked for; "refused" for a priority that is not a finite number."""
    try:
        rec = orjson.loads(raw)
    except ValueError:
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("text"), str):
        return None
    if (idc is not None and idc not in rec) or (pc is not None and pc not in rec):
        return None
    prio = None
    if pc is not None:  # what the reader makes of it (JsonlSource._priority): a float, or refused
        try:
            prio = check_priority(rec[pc], "f", "line 1", pc)
        except DatasetError:
            return "refused"
    try:
        return tuple((type(v), repr(v)) for v in (rec["text"], rec.get(idc), prio))
    except RecursionError:  # nested deeper than repr goes (orjson reads 1024 levels)
        return "deep"


def _scanner(tmp_path, idc, pc, monkeypatch):
    monkeypatch.setattr(JsonlSource, "_SCAN_MIN", 0)
    monkeypatch.setattr(JsonlSource, "_SCAN_COMPILE", 0)
    f = tmp_path / "empty.jsonl"
    f.write_bytes(b"")
    src = JsonlSource(str(f), "text", idc, pc)
    names = src._scan_names()
    scratch = [np.empty(0, np.uint8), None]
    assert names is not None

    def scan(raw: bytes):
        got = scan_block(raw, 1, names, scratch)
        if got[1]:  # flagged
            return None
        assert got[0] == 1 and got[5].tolist() == [True]
        texts, ids, prio = src._values(1, memoryview(raw), got, 1)
        values = (texts[0], ids[0] if ids else None, prio[0] if prio else None)
        return tuple((type(v), repr(v)) for v in values)

    return scan


@pytest.mark.parametrize("idc, pc", [("id", None), (None, None), ("meta", "p"), ("id", "p")])
def test_the_scanner_gives_what_orjson_gives_or_flags_the_line(tmp_path, monkeypatch, idc, pc):
    scan = _scanner(tmp_path, idc, pc, monkeypatch)
    read = flagged_ok = 0
    for raw in _corpus(3000) + ODD:
        want = _reference(raw, idc, pc)
        try:
            got = scan(raw)
        except DatasetError as e:  # a priority that is not a finite number: the message _slow gives
            assert want == "refused" and "line 1: priority column 'p' is" in str(e), raw
            continue
        if got is None:
            flagged_ok += want is not None
            continue
        assert want is not None, raw
        assert got == want, raw
        read += 1
    if idc == "id":  # every odd line lacks "p"; with no id column some are right (a key twice, not a column)
        assert [raw for raw in ODD if scan(raw) is not None] == []
    # the scanner reads the common lines (escapes, unicode, nested values) itself: it flags only
    # the duplicate keys and the rare numbers among the lines orjson reads
    assert read > 2000 and flagged_ok < 0.06 * (read + flagged_ok), (read, flagged_ok)


def test_every_escape_and_ids_of_every_kind(tmp_path, monkeypatch):
    scan = _scanner(tmp_path, "id", None, monkeypatch)
    text = "".join(chr(c) for c in range(0, 0x800)) + "😀\U0010ffff\u2028 end"
    for ensure_ascii in (True, False):
        for ident in [0, -1, 10**17, 10**18 - 1, 10**18, 2**63, 2**64, 10**30, -0.0, 1.5, 1e22, "doc 1",
                      "é😀", "", True, None, [1, {"a": "b"}], {"x": [None]}]:  # fmt: skip
            raw = json.dumps({"id": ident, "text": text}, ensure_ascii=ensure_ascii).encode()
            got = scan(raw)
            assert got is not None and got == _reference(raw, "id", None), (ident, ensure_ascii)
    assert scan(b'{"text":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00","id":"\\u0041"}') == (
        (str, repr('"\\/\b\f\n\r\té😀')), (str, "'A'"), (type(None), "None"))  # fmt: skip
    assert scan(b' \t{ "id" : 1 , "\\u0074ext" : "a" }\r') == ((str, "'a'"), (int, "1"), (type(None), "None"))


def test_blank_lines_and_spans_of_a_block_and_a_flagged_line_read_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(JsonlSource, "_SCAN_MIN", 0)
    monkeypatch.setattr(JsonlSource, "_SCAN_COMPILE", 0)
    f = tmp_path / "x.jsonl"
    f.write_bytes(b"")
    src = JsonlSource(str(f), "text", "id")
    whole = b'{"text": "a", "id": 1}\r\n\n \t\x0b\x0c\r\n{"text": "b", "id": NaN}\n{"text": "c", "id": 3}\n\n'
    assert scan_block(whole, 7, src._scan_names(), [np.empty(0, np.uint8), None])[:2] == (4, True)  # NaN
    got = src._scanned(1, whole, 7, src._scan_names(), [np.empty(0, np.uint8), None, 0], 0)
    starts, ends, is_row, texts, ids, prio = got
    lines = whole.split(b"\n")
    assert [whole[s:e] for s, e in zip(starts.tolist(), ends.tolist())] == lines
    assert is_row.tolist() == [bool(x) and not x.isspace() for x in lines]
    assert texts == ["a", "b", "c"] and ids[0] == 1 and ids[1] != ids[1] and ids[2] == 3 and prio is None
    # from a second flagged line, the rest of the block by orjson in bulk: the same rows
    whole = b"\n".join(
        [
            b'{"text": "t%d", "id": %d, "x": NaN}' % (i, i)
            if i % 3
            else b'{"text": "t%d", "id": %d}' % (i, i)
            for i in range(9)
        ]
    )
    starts, ends, is_row, texts, ids, prio = src._scanned(
        1, whole, 9, src._scan_names(), [np.empty(0, np.uint8), None, 0], 0
    )
    assert texts == [f"t{i}" for i in range(9)] and ids == list(range(9)) and is_row.all()
    assert [whole[s:e] for s, e in zip(starts.tolist(), ends.tolist())] == whole.split(b"\n")


def test_the_output_buffer_is_big_enough_with_bounds_checked(tmp_path):
    """The output buffer (len(block) + 8 bytes, written 8 at a time) and the arrays, with Numba's
    bounds checks on, in a process with its own cache (checked code must not land in the shared
    one): the corpus in one block, and each line alone."""
    import os
    import subprocess
    import sys

    longest = [b'{"text":"' + b"a" * 997 + b'"}', b'{"text":"' + b"\\uD83D\\uDE00" * 99 + b'"}']
    lines = _corpus(400, seed=1) + ODD + longest  # the output nearly as long as the line
    (tmp_path / "lines.json").write_text(json.dumps([x.decode("latin-1") for x in lines]))
    script = r"""
import json, sys
import numpy as np
from simhash_lab.kernels.jsonl import MAX_DEPTH, scan_rows
lines = [x.encode("latin-1") for x in json.load(open(sys.argv[1]))]
names = [np.frombuffer(n, np.uint8) for n in (b"text", b"id", b"p")]
def run(whole):
    n = whole.count(b"\n") + 1
    a = [np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.uint8), np.empty((n, 4), np.int64),
         np.empty(n, np.int8), np.empty((n, 4), np.int64), np.empty(n, np.int64), np.empty((n, 2), np.int64)]
    return scan_rows(np.frombuffer(whole, np.uint8), *names, *a, np.empty(len(whole) + 8, np.uint8),
                     np.empty(MAX_DEPTH + 1, np.uint8))
ok = [raw for raw in lines if not run(raw)[3]]
print(len(ok), run(b"\n".join(ok))[3])
"""
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "lines.json")], env=env,
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    read, flagged = map(int, out.stdout.split())
    assert read > 300 and flagged == 0
