"""dedup_table on threads: a file's chunks read by a thread of their own, each chunk normalised,
digested, fingerprinted and given its band keys whole by one of the chunk threads, the calibration
beside the candidates; the same results and files as on one thread, with the sets held, spilled or
dropped past the budget, and the first bad row still the one named."""

import json
import sys
import threading
import time

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError, JsonlSource
from simhash_lab.dedup import local as D
from simhash_lab.dedup import run as R
from simhash_lab.shingles import ChunkSets, Featurizer


def _corpus(path, n=700):
    base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat number"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            if i % 3 == 0:
                text = f"row {i} on its own, unlike any other"
            elif i % 10 == 1:
                text = f"{base} {i % 40}"  # exact copies of one another
            else:
                text = f"{base} {i % 60} and {i % 7}"
            f.write(json.dumps({"id": f"r{i}", "text": text}) + "\n")


def _run(tmp_path, name, threads, monkeypatch, **kw):
    monkeypatch.setattr(D, "thread_count", lambda: threads)
    monkeypatch.setattr(D, "CHUNK_ROWS", 64)  # many chunks: the threads overlap
    out = tmp_path / name
    out.mkdir()
    res = D.dedup_table(
        str(tmp_path / "docs.jsonl"), column="text", id_column="id", jaccard=0.8,
        output=str(out / "kept.jsonl"), duplicates=str(out / "dups.csv"), **kw,
    )  # fmt: skip
    return res, (out / "kept.jsonl").read_bytes(), (out / "dups.csv").read_bytes()


@pytest.mark.parametrize("where", ["remade", "held", "spilled", "dropped", "hasher"])
def test_two_threads_give_what_one_gives(tmp_path, monkeypatch, where):
    _corpus(tmp_path / "docs.jsonl")
    kw = {}
    if where in ("held", "spilled"):  # the first read keeps the sets (by default it keeps none)
        monkeypatch.setattr(R, "SETS_BUDGET", 1 << 30)
    if where == "spilled":
        monkeypatch.setattr(ChunkSets, "MEMORY", 3000)
    if where == "dropped":  # past the budget: the sets needed are read again
        monkeypatch.setattr(R, "SETS_BUDGET", 5000)
    if where == "hasher":  # a hasher of one's own: no sets kept, the band keys from its features
        kw["hasher"] = "default"
    one, kept1, dups1 = _run(tmp_path, "one", 1, monkeypatch, **kw)
    two, kept2, dups2 = _run(tmp_path, "two", 2, monkeypatch, **kw)
    assert one.settings["candidates"]["method"] == "minhash bands"
    assert (one.settings["features"] == "default") == (where == "hasher")
    assert one.exact > 10 and len(one.duplicates) > 100
    assert kept1 == kept2 and dups1 == dups2
    assert np.array_equal(one.keep, two.keep) and np.array_equal(one.fingerprints, two.fingerprints)
    assert np.array_equal(one.representative, two.representative)
    assert one.summary() == two.summary()
    for name in ("read", "normalise", "exact groups", "fingerprint"):
        assert two.timings[name] >= 0
    assert list(two.timings) == list(one.timings)  # the steps' order, whatever thread began them
    a, b = one.calibration, two.calibration  # on two threads it ran beside
    assert (a.k, a.method, a.sample, a.pairs) == (b.k, b.method, b.sample, b.pairs)
    assert np.array_equal(a.distances, b.distances) and np.array_equal(a.recall_by_k, b.recall_by_k)
    assert sys.getswitchinterval() == pytest.approx(0.005)  # the threads' shorter one given back


@pytest.mark.parametrize("threads", [1, 2])
def test_a_lone_surrogate_is_named_by_its_row_on_threads_too(tmp_path, monkeypatch, threads):
    _corpus(tmp_path / "docs.jsonl", n=300)
    with open(tmp_path / "docs.jsonl", "a", encoding="utf-8") as f:
        f.write('{"id": "bad", "text": "a \\ud800 b"}\n')
    with pytest.raises(DatasetError, match="row 300: the text holds a lone surrogate"):
        _run(tmp_path, "out", threads, monkeypatch)


def test_a_failed_spill_write_is_raised(tmp_path, monkeypatch):
    _corpus(tmp_path / "docs.jsonl")

    def fail(self, indptr, data):
        raise MemoryError("no room for the sets")

    monkeypatch.setattr(ChunkSets, "add", fail)
    monkeypatch.setattr(R, "SETS_BUDGET", 1 << 30)  # the first read keeps the sets
    with pytest.raises(MemoryError, match="no room"):
        _run(tmp_path, "out", 2, monkeypatch)
    names = ("simhash-lab-rows", "simhash-lab-read", "simhash-lab-calibrate")
    assert not [t for t in threading.enumerate() if t.name.startswith(names)]


def test_a_bad_row_before_a_broken_line_is_the_one_named(tmp_path, monkeypatch):
    """A bad text in the last chunk of the first block the reader parses (JsonlSource._BLOCK
    bytes), a broken line in the next block: on one thread the text's chunk is fingerprinted
    before the next block is read; on two the reading thread meets the broken line while that
    chunk is still on a chunk thread, and the earlier row is still the error named."""
    _corpus(tmp_path / "docs.jsonl", n=4000)
    lines = (tmp_path / "docs.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    ends = np.cumsum([len(x.encode()) for x in lines])
    edge = int(np.searchsorted(ends, JsonlSource._BLOCK, "right"))  # the second block's first line
    bad, broken = 64 * (edge // 64) - 3, edge + 2  # in the first block's last whole chunk of 64
    lines[bad] = '{"id": "bad", "text": "a \\ud800 b"}\n'
    lines[broken] = "{not json\n"
    (tmp_path / "docs.jsonl").write_text("".join(lines), encoding="utf-8")
    slow = Featurizer.first_pass  # the fused first read (the default features)

    def late(self, texts, *args):  # the chunk threads fall behind the reading
        time.sleep(0.02)
        return slow(self, texts, *args)

    monkeypatch.setattr(Featurizer, "first_pass", late)
    for threads in (1, 2):
        with pytest.raises(DatasetError, match=f"row {bad}: the text holds a lone surrogate"):
            _run(tmp_path, f"out{threads}", threads, monkeypatch)
    lines[bad] = lines[bad - 1]
    (tmp_path / "docs.jsonl").write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DatasetError, match=f"line {broken + 1}: not JSON"):
        _run(tmp_path, "out3", 2, monkeypatch)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_csv_and_parquet_chunks_on_threads_give_what_one_thread_gives(tmp_path, monkeypatch, fmt):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    _corpus(tmp_path / "docs.jsonl")
    df = pd.read_json(tmp_path / "docs.jsonl", lines=True)
    src = tmp_path / f"docs.{fmt}"
    df.to_csv(src, index=False) if fmt == "csv" else df.to_parquet(src)
    monkeypatch.setattr(D, "CHUNK_ROWS", 64)
    got = []
    for threads in (1, 2):
        monkeypatch.setattr(D, "thread_count", lambda threads=threads: threads)
        out = tmp_path / f"kept{threads}.{fmt}"
        res = D.dedup_table(str(src), column="text", id_column="id", jaccard=0.8, output=str(out))
        got.append((out.read_bytes(), res.keep.tolist(), res.summary()))
    assert got[0] == got[1] and sum(got[0][1]) < len(got[0][1]) - 100
