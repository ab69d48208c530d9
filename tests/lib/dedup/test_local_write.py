"""dedup_table's write step: with threads, the duplicates table is written beside the kept rows;
the files are the same as on one thread, and a failure of either is raised."""

import json

import pytest

from simhash_lab.dedup import local as D


def corpus(path, n=400):
    base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat number"
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            text = f"{base} {i % 60} and {i % 7}" if i % 3 else f"row {i} on its own, unlike any other"
            f.write(json.dumps({"id": f"r{i}", "text": text}) + "\n")


def run(tmp_path, name, threads, monkeypatch):
    monkeypatch.setattr(D, "thread_count", lambda: threads)
    out = tmp_path / name
    out.mkdir()
    res = D.dedup_table(
        str(tmp_path / "docs.jsonl"), column="text", id_column="id", jaccard=0.8, k=12,
        output=str(out / "kept.jsonl"), duplicates=str(out / "dups.csv"),
    )  # fmt: skip
    return res, (out / "kept.jsonl").read_bytes(), (out / "dups.csv").read_bytes()


def test_the_files_are_the_same_on_one_thread_and_two(tmp_path, monkeypatch):
    corpus(tmp_path / "docs.jsonl")
    one, kept1, dups1 = run(tmp_path, "one", 1, monkeypatch)
    two, kept2, dups2 = run(tmp_path, "two", 2, monkeypatch)
    assert len(one.duplicates) > 100 and one.written == two.written == int(one.keep.sum())
    assert kept1 == kept2 and dups1 == dups2
    assert dups1.decode().count("\n") == len(one.duplicates) + 1


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failed_table_write_is_raised(tmp_path, monkeypatch, threads):
    corpus(tmp_path / "docs.jsonl")

    def fail(path, table, *rest, **kw):
        raise OSError("disk full")

    monkeypatch.setattr(D, "write_duplicates", fail)
    with pytest.raises(OSError, match="disk full"):
        run(tmp_path, "out", threads, monkeypatch)


@pytest.mark.parametrize("threads", [1, 2])
def test_ids_of_several_kinds_refused_for_parquet_before_anything_is_written(tmp_path, monkeypatch, threads):
    """JSONL ids may be any JSON value; a Parquet column holds one type: a one-line error naming
    the table, before the kept rows are written; CSV and JSONL tables take them as they are."""
    pytest.importorskip("pyarrow")
    text = "the same words in every row of this little file, so that each is a copy"
    rows = [{"id": i if i % 2 else f"r{i}", "text": text} for i in range(6)]
    (tmp_path / "m.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(D, "thread_count", lambda: threads)
    kw = dict(column="text", id_column="id", jaccard=0.8, output=str(tmp_path / "k.jsonl"))
    with pytest.raises(D.DatasetError, match=r"d\.parquet: the ids are of several kinds \(a number, a str\)"):
        D.dedup_table(str(tmp_path / "m.jsonl"), duplicates=str(tmp_path / "d.parquet"), **kw)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.jsonl"]  # nothing written
    res = D.dedup_table(str(tmp_path / "m.jsonl"), duplicates=str(tmp_path / "d.jsonl"), **kw)
    got = [json.loads(x) for x in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [g["dropped_id"] for g in got] == [1, "r2", 3, "r4", 5] and len(res.duplicates) == 5
