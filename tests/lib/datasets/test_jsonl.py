"""JSONL read in blocks (datasets.JsonlSource): rows across block boundaries, blank lines, CRLF, a
last line without newline, orjson in bulk or line by line, and the kept rows written byte for byte.
Every test runs twice: blocks read by the compiled scanner (kernels.jsonl), and by orjson alone."""

import csv
import json

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError, JsonlSource
from simhash_lab.dedup import dedup_table, dedup_texts


def _lines(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        rec = {"id": f"d{i}" if i % 5 else i, "text": "w" * (i % 37) + f" é {i}"}
        raw = json.dumps(rec, ensure_ascii=i % 2 == 0).encode()
        out.append(raw + (b"\r\n" if i % 7 == 0 else b"\n"))
        if i % 11 == 0:
            out.append(b"   \n" if i % 2 else b"\n")  # blank lines: passed over, not rows
    return out


@pytest.fixture(autouse=True, params=["scanner", "orjson"])
def reader(request, monkeypatch):
    """Which reader reads the blocks: the compiled scanner (whatever the file's size), or orjson."""
    monkeypatch.setattr(JsonlSource, "_SCAN_MIN", 0 if request.param == "scanner" else 1 << 62)
    monkeypatch.setattr(JsonlSource, "_SCAN_COMPILE", 0)  # compiled here if the cache has it not
    return request.param


@pytest.fixture(params=[64, 1000, 1 << 18])
def small_blocks(request, monkeypatch):
    monkeypatch.setattr(JsonlSource, "_BLOCK", request.param)
    return request.param


@pytest.mark.parametrize("ends", [b"", b"\n"])
def test_rows_across_blocks_and_kept_rows_byte_for_byte(tmp_path, small_blocks, ends):
    lines = _lines(300)
    lines[-1] = lines[-1].rstrip(b"\r\n") + ends  # the last line: with or without its newline
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"".join(lines))
    rows = [ln for ln in lines if ln.strip()]
    src = JsonlSource(str(path), "text", "id")
    got = [(t, i) for texts, ids, _ in src.chunks(25) for t, i in zip(texts, ids)]
    assert got == [(json.loads(r)["text"], json.loads(r)["id"]) for r in rows]
    assert [len(texts) for texts, _, _ in src.chunks(25)] == [25] * 12
    keep = np.random.default_rng(0).random(len(rows)) < 0.5
    keep[-1] = True
    out = tmp_path / "kept.jsonl"
    assert src.write_kept(str(out), keep) == int(keep.sum())
    assert out.read_bytes() == b"".join(r for r, k in zip(rows, keep) if k)


def test_a_line_orjson_refuses_is_read_by_json_and_others_are_named(tmp_path, small_blocks):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "a b", "v": NaN}\n' + b'{"text": "c d"}\n' * 30)
    src = JsonlSource(str(path), "text", None)
    texts = [t for ts, _, _ in src.chunks(8) for t in ts]
    assert texts == ["a b"] + ["c d"] * 30
    path.write_bytes(b'{"text": "c d"}\n' * 30 + b'\n{"body": "x"}\n')
    with pytest.raises(DatasetError, match="line 32: no column 'text'"):
        list(JsonlSource(str(path), "text", None).chunks(8))


def test_a_line_longer_than_max_row_bytes_is_named(tmp_path, small_blocks):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "a"}\n' * 40 + b'{"text": "' + b"x" * 3000 + b'"}\n')
    with pytest.raises(DatasetError, match="line 41: larger than max_row_bytes"):
        list(JsonlSource(str(path), "text", None, max_row_bytes=2000).chunks(8))


def test_jsonl_in_and_out(tmp_path, rows, write_jsonl):
    src = tmp_path / "docs.jsonl"
    write_jsonl(src, rows)
    res = dedup_table(src, "text", id_column="id", jaccard=0.8, k=12, output=tmp_path / "kept.jsonl",
                      duplicates=tmp_path / "dups.csv")  # fmt: skip
    lines = src.read_bytes().splitlines(keepends=True)
    kept = (tmp_path / "kept.jsonl").read_bytes().splitlines(keepends=True)
    assert kept == [ln for ln, k in zip(lines, res.keep) if k]  # unchanged, in input order
    assert res.written == len(kept) < len(lines)
    want = dedup_texts([r["text"] for r in rows], jaccard=0.8, k=12)
    assert np.array_equal(res.keep, want.keep)
    with open(tmp_path / "dups.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == ["dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row"]
    assert [(t["dropped_id"], t["kept_id"]) for t in table] == [
        (f"r{d}", f"r{k}") for d, k in zip(want.duplicates.dropped.tolist(), want.duplicates.kept.tolist())
    ]
    assert all(float(t["similarity"]) >= 0.8 for t in table)


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"id": 1, "body": "x"}\n', "line 1: no column 'text'"),
        ('{"id": 1, "text": "ok"}\n{"id": 2, "text": 7}\n', "line 2: column 'text' is a number, not text"),
        ('{"id": 1, "text": null}\n', "line 1: column 'text' is null, not text"),
        ('{"id": 1, "text": "ok"}\nnot json\n', "line 2: not JSON (Expecting value at column 1: 'not json')"),
        # the decoder's message whole: where, and what is there (not "... starting at")
        (
            '{"text": "ok"}\n{"text": "cut\n',
            "line 2: not JSON (Unterminated string starting at column 10: '\"cut')",
        ),
        ('{"text": "a" "b"}\n', "line 1: not JSON (Expecting ',' delimiter at column 14: '\"b\"}')"),
        ("[1, 2]\n", "line 1: a list, not a JSON object"),
        ("", "empty: no rows"),
        ("\n\n", "empty: no rows"),
    ],
)
def test_bad_jsonl_is_one_line_naming_it(tmp_path, content, message):
    p = tmp_path / "docs.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(DatasetError) as e:
        dedup_table(p, "text", jaccard=0.8, output=tmp_path / "kept.jsonl")
    assert message in str(e.value) and str(p) in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "kept.jsonl").exists()  # nothing written


def test_jsonl_with_a_byte_order_mark_and_bad_utf8(tmp_path):
    p = tmp_path / "bom.jsonl"
    p.write_bytes(b'\xef\xbb\xbf{"text": "a b c d e"}\n{"text": "a b c d e"}\n')
    res = dedup_table(p, jaccard=0.8, k=3, output=tmp_path / "k.jsonl")
    assert res.keep.tolist() == [True, False]
    assert (tmp_path / "k.jsonl").read_bytes() == b'\xef\xbb\xbf{"text": "a b c d e"}\n'
    p.write_bytes(b'{"text": "ok"}\n{"text": "caf\xe9"}\n')
    with pytest.raises(DatasetError, match="line 2: not UTF-8"):
        dedup_table(p)


def test_a_long_line_is_put_together_once_not_a_block_at_a_time(tmp_path, monkeypatch):
    """A line longer than a block is kept as its blocks and joined once, when it ends: reading it
    is linear in its length (before, ``rest += block`` copied the line so far for every block: a
    128 MiB line took 5.5 times a 64 MiB one; ``benchmarks/bench_long_line.py`` times it)."""
    from simhash_lab.datasets.jsonl import Pieces

    monkeypatch.setattr(JsonlSource, "_BLOCK", 64)
    text = "word " * 20_000  # 100 KB: 1,600 blocks
    p = tmp_path / "long.jsonl"
    p.write_text(
        json.dumps({"text": "short"}) + "\n" + json.dumps({"text": text}) + "\n" + '{"text": "tail"}\n'
    )
    joined = []
    join = Pieces.join

    def spy(self, tail=b""):
        out = join(self, tail)
        joined.append((len(self.parts), len(out)))
        return out

    monkeypatch.setattr(Pieces, "join", spy)
    got = [t for texts, _, _ in JsonlSource(str(p), "text", None).chunks(10) for t in texts]
    assert got == ["short", text, "tail"]
    long = [j for j in joined if j[1] > len(text)]
    assert len(long) == 1 and long[0][0] > 1000  # one join, of its blocks
    src = JsonlSource(str(p), "text", None, max_row_bytes=50_000)
    with pytest.raises(DatasetError, match="line 2: larger than max_row_bytes"):
        list(src.chunks(10))


def _read(path, *columns, scan: bool):
    """Every row's (text, id, priority) and the rows' places, read by the scanner or by orjson."""
    import sys

    old = JsonlSource._SCAN_MIN, JsonlSource._SCAN_COMPILE, sys.getrecursionlimit()
    JsonlSource._SCAN_MIN, JsonlSource._SCAN_COMPILE = (0 if scan else 1 << 62), 0
    sys.setrecursionlimit(5000)  # the repr of an id nested 1,000 deep
    try:
        src = JsonlSource(str(path), *columns)
        rows = [r for texts, ids, prio in src.chunks(7) for r in zip(texts, ids, prio or [None] * len(ids))]
        return [tuple((type(v), repr(v)) for v in r) for r in rows], src._spans, src._linenos
    except DatasetError as e:
        return str(e), None, None
    finally:
        JsonlSource._SCAN_MIN, JsonlSource._SCAN_COMPILE = old[:2]
        sys.setrecursionlimit(old[2])


@pytest.mark.parametrize("loader", ["orjson", "json"])
def test_the_scanner_reads_what_orjson_reads_with_the_same_messages(
    tmp_path, small_blocks, loader, monkeypatch
):
    """A fuzz corpus (every escape, unicode, nested values, key orders, whitespace, CRLF, blank
    lines, ids of every kind, a column given twice) read both ways: the same rows, ids, priorities
    and places; then with each odd line (NaN, a lone surrogate, a missing column, a text that is
    not a string, bad UTF-8, not JSON...) put in: the same rows, or the same message. With orjson
    and without it (the standard json then reads what the scanner leaves: ids such as 2**64)."""
    import importlib.util
    from pathlib import Path

    from simhash_lab.datasets import jsonl

    if loader == "json":
        monkeypatch.setattr(jsonl, "_ORJSON", None)
    # the scanner's own fuzz corpus and odd lines (tests/lib/kernels/test_jsonl.py)
    spec = importlib.util.spec_from_file_location(
        "scanner_tests", Path(__file__).parents[1] / "kernels/test_jsonl.py"
    )
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    good = [ln for ln in fuzz._corpus(600, seed=3) if isinstance(fuzz._reference(ln, "id", "p"), tuple)]
    lines = [ln + (b"\r\n" if i % 9 == 0 else b"\n") + (b"\n \t\n" if i % 13 == 0 else b"")
             for i, ln in enumerate(good)]  # fmt: skip
    path = tmp_path / "fuzz.jsonl"
    for odd in [None, *fuzz.ODD[::3]]:
        body = list(lines)
        if odd is not None:
            body.insert(200, odd + b"\n")
        path.write_bytes(b"".join(body))
        for columns in (("text", "id"), ("text", None), ("text", "id", "p")):
            a, b = _read(path, *columns, scan=True), _read(path, *columns, scan=False)
            assert a[0] == b[0], (odd, columns)
            if odd is None:
                assert isinstance(a[0], list) and len(a[0]) == len(good) > 400
            if isinstance(a[0], list):
                assert all(np.array_equal(x, y) for x, y in zip(a[1], b[1])) and np.array_equal(a[2], b[2])


def test_stdin_select_and_kept_rows_after_a_scanned_read(tmp_path):
    """Standard input spooled and scanned; then the wanted rows read again at their places
    (``os.pread``) and the kept rows copied byte for byte."""
    import io

    from simhash_lab.datasets.jsonl import StdinSource

    lines = _lines(200)
    rows = [ln for ln in lines if ln.strip()]
    src = StdinSource("text", "id", None, 1 << 20, stream=io.BytesIO(b"".join(lines)))
    try:
        got = [(t, i) for texts, ids, _ in src.chunks(16) for t, i in zip(texts, ids)]
        assert got == [(json.loads(r)["text"], json.loads(r)["id"]) for r in rows]
        want = np.array([3, 4, 50, 199])
        picked = [t for _, texts in src.select(want, 3) for t in texts]
        assert picked == [json.loads(rows[r])["text"] for r in want.tolist()]
        keep = np.arange(len(rows)) % 3 == 0
        out = tmp_path / "kept.jsonl"
        assert src.write_kept(str(out), keep) == int(keep.sum())
        assert out.read_bytes() == b"".join(r for r, k in zip(rows, keep) if k)
    finally:
        src.close()


def test_a_first_read_compiles_no_scanner_for_a_file_below_a_gib(tmp_path):
    """A new process with an empty kernel cache (no warmup) reads a 9 MiB file by orjson, compiling
    nothing; once the scanner is compiled (here, by a call), the same file is read by it."""
    import os
    import subprocess
    import sys

    path = tmp_path / "d.jsonl"
    path.write_bytes(
        b"".join(json.dumps({"id": i, "text": "word " * 20}).encode() + b"\n" for i in range(80_000))
    )
    code = f"""
import json
from simhash_lab.datasets import JsonlSource
from simhash_lab.kernels import _jit
from simhash_lab.kernels.jsonl import scan_rows
src = JsonlSource({str(path)!r}, "text", "id")
n = sum(len(t) for t, _, _ in src.chunks(8192))
first = (n, len(_jit.MISSES), _jit.is_cached(scan_rows), src._scan_names() is None)
from simhash_lab.warmup import _jsonl
_jsonl()  # the warmup's step: the scanner compiled
print(json.dumps([*first, _jit.is_cached(scan_rows), src._scan_names() is None]))
"""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == [80_000, 0, False, True, True, False]


def test_rows_the_scanner_flags_everywhere_are_read_as_before(tmp_path, small_blocks):
    """A NaN in every row (json.dumps writes float('nan') so): the scanner flags each line, reads
    a first alone, the rest of a block as before, and after four such blocks leaves the file to
    orjson; the rows and places are the same."""
    path = tmp_path / "nan.jsonl"
    path.write_bytes(b"".join(b'{"id": %d, "text": "t %d", "score": NaN}\n' % (i, i) for i in range(300)))
    a, b = _read(path, "text", "id", scan=True), _read(path, "text", "id", scan=False)
    assert a[0] == b[0] == [((str, repr(f"t {i}")), (int, str(i)), (type(None), "None")) for i in range(300)]
    assert all(np.array_equal(x, y) for x, y in zip(a[1], b[1])) and np.array_equal(a[2], b[2])
