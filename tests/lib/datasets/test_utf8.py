"""Texts read in place (``datasets.utf8.Utf8Texts``): the first read of ASCII texts left in the
reader's buffer against the same texts as ``str``, bit for bit; JSONL (the scanner), Parquet and a
table in memory through ``dedup_table`` with and without it: the same kept rows, the same
duplicates table byte for byte, the same errors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from simhash_lab.datasets import JsonlSource
from simhash_lab.datasets.utf8 import Utf8Texts, text_lengths
from simhash_lab.dedup import dedup_table
from simhash_lab.dedup.run import Clock, Run
from simhash_lab.dedup.steps import Read, first_read
from simhash_lab.kernels.strings import ascii_spans
from simhash_lab.settings import DedupSettings

ODD = [
    "😀 emoji 😀 text here and there again",
    "El niño comió mañana en la ciudad de México con su familia",
    "我们今天去北京看长城",
    "İstanbul ΣΊΣΥΦΟΣ word ΌΣΟΣ end",
    "",
    "   \t  ",
    "one",
    "ﬁne ligature ＦＵＬＬ width here",
    "zero\u200bwidth space text and more",
    "Latin-1 café crème brûlée",
    "ASCII only, Mixed Case: Punctuation!! and 1234 numbers",
]


def _corpus(n: int, seed: int, odd: list[str]) -> list[str]:
    rng = np.random.default_rng(seed)
    words = "the quick brown fox jumps over a lazy dog alpha beta gamma delta Epsilon ZETA eta".split()
    out: list[str] = []
    for i in range(n):
        if odd and i % 9 == 0:
            out.append(odd[i % len(odd)])
        elif i > 20 and i % 4 == 0:
            out.append(out[int(rng.integers(len(out)))])  # exact and near copies
        else:
            out.append(" ".join(rng.choice(words, int(rng.integers(1, 60)))))
    return out


def _in_buffer(texts: list[str]) -> Utf8Texts:
    """``texts`` as a reader leaves them: their UTF-8 one after another in one buffer."""
    enc = [t.encode("utf-8") for t in texts]
    ends = np.cumsum([len(e) for e in enc]).astype(np.int64)
    starts = ends - np.array([len(e) for e in enc], np.int64)
    buf = np.frombuffer(b"".join(enc) + b"\0" * 8, np.uint8)
    ascii = np.empty(len(texts), np.bool_)
    ascii_spans(buf, starts, ends, ascii)
    assert ascii.tolist() == [t.isascii() for t in texts]
    return Utf8Texts.of_buffer(buf, starts, ends, ascii, lambda rows: [texts[i] for i in rows.tolist()])


def test_a_chunk_in_place_is_the_sequence_of_its_texts():
    texts = _corpus(200, 3, ODD)
    u = _in_buffer(texts)
    assert len(u) == 200 and list(u) == texts and u[5] == texts[5] and u[-1] == texts[-1]
    assert list(u[10:50]) == texts[10:50] and list(u[::7]) == texts[::7]
    both = Utf8Texts.concat([u[:30], Utf8Texts.of_strs(texts[30:60]), u[60:]])
    assert list(both) == texts and both.inbuf.sum() == sum(t.isascii() for t in texts) - sum(
        t.isascii() for t in texts[30:60]
    )
    assert text_lengths(u).tolist() == [len(t) for t in texts] == text_lengths(texts).tolist()
    assert u.str_rows().tolist() == [i for i, t in enumerate(texts) if not t.isascii()]
    # a slice holds only the buffers its rows point into (a reader's rows held back for its next
    # chunk do not hold every block before them)
    one, two = _in_buffer(texts[:100]), _in_buffer(texts[100:])
    joined = Utf8Texts.concat([one, two])
    assert len(joined.keep) == 2 and list(joined) == texts
    assert [k[0] for k in joined[120:].keep] == [two.keep[0][0]] and list(joined[120:]) == texts[120:]
    assert len(joined[90:110].keep) == 2 and list(joined[90:110]) == texts[90:110]
    z = np.zeros(2, np.int64)
    empty = Utf8Texts.of_buffer(np.empty(0, np.uint8), z, z, np.ones(2, np.bool_), None)  # no bytes at all
    assert list(empty) == ["", ""] and (empty.views()[0] != 0).all()


SETTINGS = [
    {},
    {"features": "words"},
    {"exact": False},
    {"candidates": "index", "k": 3},
    {"normalize": False},
    {"shingle": 2},
]


@pytest.mark.parametrize(
    "options", SETTINGS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default"
)
@pytest.mark.parametrize("kept", [False, True], ids=["no sets", "sets kept"])
def test_the_first_read_of_texts_in_place_is_the_first_read_of_str_bit_for_bit(options, kept):
    # without a text of a script without word spaces (the fused pass), and with one (the steps
    # one by one); the sets kept as a Dask task keeps them, or not
    for odd in (ODD[:2] + ODD[3:], ODD):
        texts = _corpus(300, 1, odd)
        run = Run(DedupSettings(**options), sets_budget=(1 << 30) if kept else 0)
        a = first_read(run, texts, 0, "t", Clock())
        b = first_read(run, _in_buffer(texts), 0, "t", Clock())
        for field in ("fps", "chars", "indptr", "data", "featureless", "digests", "keys", "sizes"):
            x, y = getattr(a, field), getattr(b, field)
            assert (x is None) == (y is None), field
            if x is not None:
                assert x.dtype == y.dtype and np.array_equal(x, y), field


def _dedup(path, in_place: bool, monkeypatch, tmp_path, tag: str, **kw):
    """dedup_table of ``path`` with the first read in place or not: its kept rows' and
    duplicates table's bytes, or the error's message."""
    monkeypatch.setattr(Read, "in_place", Read.in_place if in_place else (lambda self, run: False))
    out, dup = tmp_path / f"kept-{tag}{path.suffix}", tmp_path / f"dup-{tag}.csv"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if path.suffix == ".arrow":
                import pyarrow.feather as feather

                res = dedup_table(feather.read_table(str(path)), "text", duplicates=dup, **kw)
                return res.keep.tolist(), dup.read_bytes()
            res = dedup_table(path, "text", output=out, duplicates=dup, **kw)
    except ValueError as e:
        return str(e).replace(str(tmp_path), "")
    return res.keep.tolist(), out.read_bytes(), dup.read_bytes()


def _both(path, monkeypatch, tmp_path, **kw):
    real = Read.in_place
    got = _dedup(path, True, monkeypatch, tmp_path, "bytes", **kw)
    monkeypatch.setattr(Read, "in_place", real)
    want = _dedup(path, False, monkeypatch, tmp_path, "str", **kw)
    assert got == want
    return got


def test_jsonl_read_in_place_decides_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr(JsonlSource, "_SCAN_MIN", 0)  # the compiled scanner, however small the file
    monkeypatch.setattr(JsonlSource, "_SCAN_COMPILE", 0)
    texts = _corpus(3000, 2, ODD[:2] + ODD[3:])
    lines = [json.dumps({"id": f"d{i}", "text": t}, ensure_ascii=i % 2 == 0) for i, t in enumerate(texts)]
    lines[7] = '{"id": "d7", "text": NaN}'.replace("NaN", '"a line the scanner flags", "x": NaN')
    lines.insert(100, "   ")  # a blank line
    f = tmp_path / "in.jsonl"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    seen = []
    real = Read.chunks

    def chunks(self, run, source, rows, utf8=False):
        for c in real(self, run, source, rows, utf8):
            seen.append(type(c[0]).__name__)
            yield c

    monkeypatch.setattr(Read, "chunks", chunks)
    keep, kept, dup = _both(f, monkeypatch, tmp_path, id_column="id", keep="longest")
    assert "Utf8Texts" in seen and "list" in seen  # both paths taken
    assert 0 < sum(keep) < len(texts) and dup.count(b"\n") > 100
    # ids of every kind (str with escapes and not ASCII, int, float, a list) beside the texts
    kinds = [lambda i: i, lambda i: f"dé{i}", lambda i: [i, "x"], lambda i: f'q"\\{i}', lambda i: i + 0.5]
    m = tmp_path / "ids.jsonl"
    m.write_text("".join(json.dumps({"id": kinds[i % 5](i), "text": t}) + "\n" for i, t in enumerate(texts)))
    mixed = _both(m, monkeypatch, tmp_path, id_column="id")
    assert "dé" in mixed[2].decode() and "q" in mixed[2].decode()
    # a Chinese row in a chunk (its steps one by one), priorities; a lone surrogate: one message
    g = tmp_path / "odd.jsonl"
    g.write_text("".join(json.dumps({"text": t, "p": i % 3}) + "\n" for i, t in enumerate(texts[:900] + ODD)))
    _both(g, monkeypatch, tmp_path, priority_column="p")
    h = tmp_path / "bad.jsonl"
    h.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[:500]) + '{"text": "a \\ud800 b"}\n')
    assert "row 500: the text holds a lone surrogate" in _both(h, monkeypatch, tmp_path)
    for value, said in (("5", "is a number, not text"), ("null", "is null, not text")):
        h.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts[:300]) + f'{{"text": {value}}}\n')
        assert f"line 301: column 'text' {said}" in _both(h, monkeypatch, tmp_path)


def test_parquet_and_tables_read_in_place_decide_as_before(tmp_path, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.feather as feather
    import pyarrow.parquet as pq

    texts = _corpus(3000, 4, ODD[:2] + ODD[3:])
    for typ in (pa.string(), pa.large_string()):
        t = pa.table({"id": [f"d{i}" for i in range(len(texts))], "text": pa.array(texts, typ)})
        f = tmp_path / f"in-{typ}.parquet"
        pq.write_table(t, f, row_group_size=1000)
        keep, kept, dup = _both(f, monkeypatch, tmp_path, id_column="id")
        assert 0 < sum(keep) < len(texts)
        # in memory: several chunks (a chunk of rows cut across them: a slice at an offset)
        chunked = pa.Table.from_batches(t.slice(0, 1500).to_batches() + t.slice(1500).to_batches())
        g = tmp_path / f"in-{typ}.arrow"
        feather.write_feather(chunked, g, chunksize=700)
        assert _both(g, monkeypatch, tmp_path, id_column="id")[0] == keep
    # dictionary-encoded text in memory (decoded to a string array, read in place)
    table = pa.table({"text": pa.array(texts[:2000]).dictionary_encode()})
    got = dedup_table(table, "text").keep.tolist()
    monkeypatch.setattr(Read, "in_place", lambda self, run: False)
    assert dedup_table(table, "text").keep.tolist() == got and 0 < sum(got) < 2000
    monkeypatch.undo()
    # a null, a column that is not text, odd texts and a Chinese row: the same as before
    bad = [
        pa.table({"text": pa.array(texts[:20] + [None] + texts[20:40])}),
        pa.table({"text": pa.array(list(range(30)))}),
        pa.table({"text": pa.array(texts[:500] + ODD)}),
    ]
    said = []
    for i, t in enumerate(bad):
        f = tmp_path / f"bad{i}.parquet"
        pq.write_table(t, f)
        said.append(_both(f, monkeypatch, tmp_path))
    assert "row 20: column 'text' is null" in said[0] and "not text" in said[1]


def test_an_arrow_string_array_is_read_in_place_at_its_offset():
    pa = pytest.importorskip("pyarrow")
    from simhash_lab.datasets.parquet import in_place

    texts = _corpus(400, 5, ODD)
    run = Run(DedupSettings())
    for typ in (pa.string(), pa.large_string()):
        arr = pa.array(texts, typ)
        cases = [arr, arr.slice(37, 200), arr.slice(399), arr.slice(5, 0), pa.array(["", ""], typ)]
        cases.append(pa.chunked_array([arr.slice(0, 50), arr.slice(300)]).combine_chunks())
        for col in cases:
            u = in_place(col)
            want = col.to_pylist()
            assert list(u) == want and u.inbuf.tolist() == [t.isascii() for t in want]
        col = arr.slice(9, 300)
        a = first_read(run, col.to_pylist(), 0, "t", Clock())
        b = first_read(run, in_place(col), 0, "t", Clock())
        assert np.array_equal(a.fps, b.fps) and np.array_equal(a.digests, b.digests)
