"""``simhash-lab dedup``: every input read or refused (issue 46). A folder of Parquet, JSONL or CSV
parts is one dataset, read in order as ``dedup_dataset`` reads it; a path that does not exist, a
file of no known kind, a folder with nothing to read, datasets beside text files: one line, exit 2,
before any work (no summary, nothing written); ids that name two rows warned of, or refused with
``--unique-ids``; ``--help`` says each default once. In this process (``main``), cheap."""

from __future__ import annotations

import csv
import json
import re

import pytest

from simhash_lab import dedup_table
from simhash_lab.cli import main

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

BASE = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"


def run(capsys, *args):
    code = main(["dedup", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def rows(n: int, part: int) -> list[dict]:
    """Rows of one part: a copy of BASE, a one-word edit of it, and texts of their own."""
    out = [{"id": f"p{part}-0", "text": BASE}, {"id": f"p{part}-1", "text": BASE.replace("warm", "soft")}]
    out += [
        {"id": f"p{part}-{i}", "text": f"part {part} row {i} says something of its own"} for i in range(2, n)
    ]
    return out


@pytest.fixture
def parts(tmp_path):
    """A folder of three parts (Parquet, JSONL, CSV), a Spark-style _SUCCESS and a hidden file,
    which are not parts; and the same rows as one JSONL file."""
    d = tmp_path / "parts"
    d.mkdir()
    every = []
    r0, r1, r2 = rows(4, 0), rows(3, 1), rows(3, 2)
    pq.write_table(pa.Table.from_pylist(r0), d / "part-0.parquet")
    (d / "part-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in r1), encoding="utf-8")
    with open(d / "part-2.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["id", "text"])
        w.writeheader()
        w.writerows(r2)
    (d / "_SUCCESS").write_text("")
    (d / ".part-0.parquet.crc").write_bytes(b"\0\1")
    every = r0 + r1 + r2
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in every), encoding="utf-8")
    return d, whole, every


def test_a_folder_of_parts_is_one_dataset_read_in_order(parts, tmp_path, capsys):
    folder, whole, every = parts
    code, out, err = run(capsys, folder, "--id-column", "id", "--json", "-q")
    want = dedup_table(whole, id_column="id")  # the same rows as one file: the same decisions
    assert code == 1
    doc = json.loads(out)
    assert doc["rows"] == len(every) and doc["dropped"] == len(want.duplicates)
    assert [[m["id"] for m in g] for g in doc["groups"]] == [[want.ids[r] for r in g] for g in want.groups]
    # the kept rows of each part to a file of its name in the output folder, in its own format
    code, _, err = run(capsys, folder, "--id-column", "id", "--output", tmp_path / "kept", "-q")
    assert code == 1, err
    names = sorted(p.name for p in (tmp_path / "kept").iterdir())
    assert names == ["part-0.parquet", "part-1.jsonl", "part-2.csv"]
    kept = pq.read_table(tmp_path / "kept" / "part-0.parquet").column("id").to_pylist()
    kept += [json.loads(x)["id"] for x in (tmp_path / "kept" / "part-1.jsonl").read_text().splitlines()]
    with open(tmp_path / "kept" / "part-2.csv", newline="") as f:
        kept += [r["id"] for r in csv.DictReader(f)]
    assert kept == [i for i, k in zip(want.ids, want.keep.tolist()) if k]
    # the output folder may not be the input's (its files would replace the parts)
    code, out, err = run(capsys, folder, "--output", folder, "-q")
    assert (code, out) == (2, "") and "would overwrite the input" in err
    # several dataset files: one dataset, in the order given; without an id column the rows are
    # numbered across them
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(json.dumps({"text": BASE}) + "\n")
    b.write_text(json.dumps({"text": "another text"}) + "\n" + json.dumps({"text": BASE}) + "\n")
    code, out, _ = run(capsys, a, b, "--json", "-q")
    assert code == 1 and [[m["id"] for m in g] for g in json.loads(out)["groups"]] == [[0, 2]]


def test_inputs_refused_before_any_work(parts, tmp_path, capsys):
    """Each: exit 2, one line on stderr naming the path and what is wrong, no summary, no output."""
    folder, whole, _ = parts
    (tmp_path / "empty").mkdir()
    (tmp_path / "bins").mkdir()
    (tmp_path / "bins" / "a.bin").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (tmp_path / "data.bin").write_bytes((folder / "part-0.parquet").read_bytes())
    (tmp_path / "notes.txt").write_text("a text file")
    cases = [
        ([tmp_path / "nope.jsonl"], "nope.jsonl: no such file or folder"),
        ([tmp_path / "nope"], "nope: no such file or folder"),
        ([tmp_path / "empty"], "empty: nothing to read: no file in it"),
        ([tmp_path / "bins"], "bins: nothing to read: 1 file, none of them text nor a dataset part"),
        ([tmp_path / "image.png"], "image.png: neither text (binary (a NUL byte at offset 8)) nor a dataset"),
        ([tmp_path / "data.bin"], "data.bin: a Parquet file by its bytes, not by its name: name it .parquet"),
        ([tmp_path / "notes.txt", whole], "is read as text files and"),
        ([whole, "-"], "- (standard input) is read alone"),
        ([folder, "--format", "jsonl", "--column", "nope"], "part-1.jsonl: line 1: no column 'nope'"),
    ]
    for args, message in cases:
        out_file = tmp_path / ("kept" if args[0] == folder else "kept.jsonl")
        code, out, err = run(capsys, *args, "--output", out_file) if "-" not in args else run(capsys, *args)
        lines = err.splitlines()
        assert (code, out) == (2, ""), (args, err)
        assert message in lines[-1] and "dropped" not in err and "calibration" not in err, (args, err)
        assert not out_file.exists()
    # --format on a folder: its parts of that format, the others named in one line
    code, out, err = run(capsys, folder, "--format", "jsonl", "--id-column", "id", "--json", "-q")
    assert code == 0 and json.loads(out)["rows"] == 3  # the one-word edit is below 0.8
    assert err.splitlines() == [
        f"simhash-lab dedup: {folder}: 2 files left out, not jsonl parts (part-0.parquet, part-2.csv)"
    ]


def test_parquet_among_text_files_is_said_what_reads_it(tmp_path, parts, capsys):
    folder, _, _ = parts
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    (mixed / "p.parquet").write_bytes((folder / "part-0.parquet").read_bytes())
    (mixed / "README.md").write_text("a readme")
    code, _, err = run(capsys, mixed, "-q")
    assert code == 0
    assert "p.parquet: binary (a NUL byte at offset" in err
    assert (
        "a parquet file among text files, not read (a folder of such files alone, or --format parquet" in err
    )


def test_duplicate_ids_are_warned_or_refused(tmp_path, capsys):
    p = tmp_path / "docs.jsonl"
    texts = [("a", BASE), ("b", "another text here"), ("a", "a third text"), ("b", BASE)]
    p.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in texts))
    code, _, err = run(capsys, p, "--id-column", "id", "-q", "--output", tmp_path / "k.jsonl")
    assert code == 1
    assert err.splitlines() == [
        f"simhash-lab dedup: warning: {p}: id column 'id': 2 rows have the id of an earlier row (the first: "
        "'a', rows 0 and 2): the duplicates table names rows by id, so two rows share a name there (its "
        "dropped_row and kept_row columns tell them apart); unique_ids=True (--unique-ids) refuses such a "
        "dataset"
    ]
    (tmp_path / "k.jsonl").unlink()
    code, out, err = run(capsys, p, "--id-column", "id", "--unique-ids", "--output", tmp_path / "k.jsonl")
    assert (code, out) == (2, "") and not (tmp_path / "k.jsonl").exists()
    assert err.splitlines()[-1].endswith("; unique_ids (--unique-ids) refuses it")
    code, _, err = run(capsys, p, "-q")  # no id column: row numbers, nothing to warn of
    assert code == 1 and err == ""


def test_help_says_each_default_once(capsys):
    with pytest.raises(SystemExit):
        main(["dedup", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    text = text[text.index("-h, --help") : text.index("exit status:")]  # the options' help
    assert "(default: None)" not in text and "(default: False)" not in text
    for option in re.split(r" (?=--?[a-z])", text):  # each option's help: "default" said at most once
        assert option.count("default:") <= 1, option
    assert "--column COLUMN the column holding the text (default: text) --id-column" in text
    assert "larger than this (default: 64M)" in text
