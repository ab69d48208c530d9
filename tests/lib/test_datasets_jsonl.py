"""JSONL read in blocks (datasets.JsonlSource): rows across block boundaries, blank lines, CRLF, a
last line without newline, orjson in bulk or line by line, and the kept rows written byte for byte."""

import json

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError, JsonlSource


def _lines(n: int) -> list[bytes]:
    out = []
    for i in range(n):
        rec = {"id": f"d{i}" if i % 5 else i, "text": "w" * (i % 37) + f" é {i}"}
        raw = json.dumps(rec, ensure_ascii=i % 2 == 0).encode()
        out.append(raw + (b"\r\n" if i % 7 == 0 else b"\n"))
        if i % 11 == 0:
            out.append(b"   \n" if i % 2 else b"\n")  # blank lines: passed over, not rows
    return out


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
