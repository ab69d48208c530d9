"""Tests for ``simhash-lab dedup``: groups, JSON, skipped and unreadable files, exit status,
progress, and that nothing is modified."""

import csv
import hashlib
import json
import os
import subprocess
import sys

import pytest

from simhash_lab import Simhasher, hamming
from simhash_lab import dedup as dedup_mod
from simhash_lab.cli import main
from simhash_lab.datasets import files as files_mod


@pytest.fixture(scope="module")
def python_docs(course):
    """The course's Python-docs paragraphs (a skip without the course extra)."""
    return course("corpus").python_docs


@pytest.fixture(scope="module")
def texts(python_docs):
    return [d.text for d in python_docs()[:6]]


@pytest.fixture
def tree(tmp_path, texts):
    """a.txt, its copy sub/a_copy.txt, a one-word edit sub/deeper/a_edit.md, three unrelated files,
    a binary, a Latin-1 file, an empty file and a hidden copy."""
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "a.txt").write_text(texts[0])
    (tmp_path / "sub" / "a_copy.txt").write_text(texts[0])
    (tmp_path / "sub" / "deeper" / "a_edit.md").write_text(texts[0].replace(" the ", " a ", 1))
    for i in (1, 2, 3):
        (tmp_path / f"other{i}.txt").write_text(texts[i])
    (tmp_path / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9 cr\xe8me".encode("latin-1"))
    (tmp_path / "empty.txt").write_text("  \n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "b.txt").write_text(texts[4])
    (tmp_path / ".b_copy.txt").write_text(texts[4])
    return tmp_path


def run(capsys, *args):
    code = main(["dedup", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(root):
    return {
        str(p): (p.stat().st_mtime_ns, hashlib.md5(p.read_bytes()).hexdigest())
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_groups_copies_and_edits(tree, capsys):
    before = snapshot(tree)
    code, out, err = run(capsys, tree, "--unverified", "-k", "3")
    assert code == 1
    blocks = [g for g in out.split("\n\n") if g.strip()]
    groups = [g for g in blocks if g.startswith("group ")]
    assert len(groups) == 1
    # the empty file is listed apart, after the groups, never in one
    assert blocks[-1].splitlines() == [
        "featureless: 1 files (no word: never compared nor grouped, kept)",
        f"  {tree / 'empty.txt'}",
    ]
    lines = groups[0].splitlines()
    assert lines[0].startswith("group 1: 3 files")
    paths = [line.split()[-1] for line in lines[1:]]
    assert paths == [
        str(tree / "a.txt"),
        str(tree / "sub" / "a_copy.txt"),
        str(tree / "sub" / "deeper" / "a_edit.md"),
    ]
    d = [int(line.split()[0]) for line in lines[1:]]
    assert d[:2] == [0, 0] and 0 <= d[2] <= 3
    fp = Simhasher().fingerprint((tree / "a.txt").read_text())
    assert lines[1].split()[1] == f"{fp:016x}"
    # skipped files are named on stderr, with a reason; the summary line counts them
    assert f"{tree / 'image.png'}: binary" in err
    assert f"{tree / 'latin1.txt'}: not UTF-8" in err
    assert (
        "6 files fingerprinted, 1 group(s) (3 files, 1 of them exact copies) within k = 3; "
        "unverified (the raw Hamming mode); 2 skipped, 1 featureless, 0 errors" in err
    )
    assert ".hidden" not in out + err and ".b_copy" not in out + err
    assert snapshot(tree) == before  # nothing modified


def test_json_output(tree, capsys):
    code, out, err = run(capsys, tree, "--unverified", "-k", "3", "--json", "-q")
    assert code == 1 and "fingerprinted" not in err
    doc = json.loads(out)
    assert doc["k"] == 3 and doc["bits"] == 64 and doc["preset"] == "default" and doc["files"] == 6
    (group,) = doc["groups"]
    assert [m["path"] for m in group][0] == str(tree / "a.txt")
    assert all(len(m["fingerprint"]) == 16 and m["distance"] <= 3 for m in group)
    assert sorted(s["path"] for s in doc["skipped"]) == [str(tree / "image.png"), str(tree / "latin1.txt")]
    assert doc["errors"] == [] and doc["featureless"] == [str(tree / "empty.txt")]


def test_hidden_files(tree, capsys):
    code, out, _ = run(capsys, tree, "--hidden", "--json", "-q")
    doc = json.loads(out)
    assert code == 1 and len(doc["groups"]) == 2
    assert {m["path"] for m in doc["groups"][0]} == {
        str(tree / ".b_copy.txt"),
        str(tree / ".hidden" / "b.txt"),
    }
    # a hidden file named on the command line is read
    code, out, _ = run(capsys, tree / ".b_copy.txt", tree / ".hidden" / "b.txt", "-q")
    assert code == 1 and ".b_copy.txt" in out


def test_no_duplicates_exit_zero(tree, capsys):
    code, out, err = run(capsys, tree / "other1.txt", tree / "other2.txt", tree / "other3.txt")
    assert (code, out) == (0, "")
    assert "3 files fingerprinted, 0 group(s)" in err
    code, out, _ = run(capsys, tree / "sub" / "deeper", "-q")  # a folder with one file
    assert (code, out) == (0, "")


def test_empty_folder(tmp_path, capsys):
    code, out, _ = run(capsys, tmp_path, "--unverified", "-k", "3", "--json", "-q")
    doc = json.loads(out)
    assert code == 0
    assert {k: doc[k] for k in ("k", "bits", "preset", "jaccard", "calibration", "files", "groups")} == {
        "k": 3,
        "bits": 64,
        "preset": "default",
        "jaccard": None,
        "calibration": None,
        "files": 0,
        "groups": [],
    }
    assert doc["skipped"] == doc["errors"] == doc["featureless"] == []


def test_missing_path_is_trouble_but_groups_still_print(tree, capsys):
    code, out, err = run(capsys, tree, tree / "nope.txt")
    assert code == 2
    assert f"{tree / 'nope.txt'}: No such file or directory" in err
    assert "group 1: 3 files" in out


def test_unreadable_file_is_reported_and_skipped(tree, capsys, monkeypatch):
    real = files_mod.read_text
    locked = str(tree / "other2.txt")

    def read_text(path, max_bytes):
        if path == locked:
            raise PermissionError(13, "Permission denied", path)
        return real(path, max_bytes)

    monkeypatch.setattr(files_mod, "read_text", read_text)
    code, out, err = run(capsys, tree, "--json")
    doc = json.loads(out)
    assert code == 2
    assert doc["errors"] == [{"path": locked, "reason": "Permission denied"}]
    assert f"{locked}: Permission denied" in err
    assert len(doc["groups"]) == 1 and doc["files"] == 5


@pytest.mark.skipif(
    os.geteuid() == 0 if hasattr(os, "geteuid") else True, reason="root reads files whatever their mode"
)
def test_really_unreadable_file(tree, capsys):
    p = tree / "other2.txt"
    p.chmod(0)
    try:
        code, _, err = run(capsys, tree)
    finally:
        p.chmod(0o644)
    assert code == 2 and "Permission denied" in err


def test_same_file_twice_and_symlinks_count_once(tree, capsys):
    (tree / "link.txt").symlink_to(tree / "other1.txt")
    (tree / "broken.txt").symlink_to(tree / "does-not-exist")
    code, out, err = run(capsys, tree / "other1.txt", tree / "other1.txt", tree / "link.txt", "-q")
    assert (code, out) == (0, "")
    code, out, err = run(capsys, tree / "broken.txt")
    assert code == 2 and "broken symbolic link" in err


def test_max_bytes(tree, capsys):
    code, out, err = run(capsys, tree, "--max-bytes", "100", "--json", "-q")
    doc = json.loads(out)
    assert code == 0 and doc["files"] == 0
    assert all(
        "larger than --max-bytes" in s["reason"] or "binary" in s["reason"] or "UTF-8" in s["reason"]
        for s in doc["skipped"]
    )


def test_k_controls_the_groups(tree, texts, capsys):
    fa = Simhasher().fingerprint(texts[0])
    fe = Simhasher().fingerprint((tree / "sub" / "deeper" / "a_edit.md").read_text())
    d = hamming(fa, fe)
    doc = json.loads(run(capsys, tree, "--unverified", "-k", "0", "--json", "-q")[1])
    assert len(doc["groups"][0]) == (3 if d == 0 else 2)
    doc = json.loads(run(capsys, tree, "--unverified", "-k", "40", "--json", "-q")[1])
    assert len(doc["groups"]) == 1 and len(doc["groups"][0]) == 6  # every file within 40 bits: one group


@pytest.mark.parametrize("bad", ["64", "-1", "three"])
def test_bad_k_is_a_usage_error(tree, bad, capsys):
    with pytest.raises(SystemExit) as e:
        main(["dedup", str(tree), "-k", bad])
    assert e.value.code == 2
    assert "k must be" in capsys.readouterr().err


def test_presets(tree, capsys):
    for preset in ("seed_python", "seed_rust", "leonsim"):
        code, out, _ = run(capsys, tree / "a.txt", tree / "sub" / "a_copy.txt", "--preset", preset, "-q")
        assert code == 1 and "group 1: 2 files" in out
    with pytest.raises(SystemExit):
        main(["dedup", str(tree), "--preset", "nope"])


def test_progress_bar(tree, capsys):
    _, _, err = run(capsys, tree, "--progress", "always")
    assert "\rread:" in err and "file" in err
    _, _, err = run(capsys, tree)  # auto: stderr is not a terminal here
    assert "\rread:" not in err
    _, _, err = run(capsys, tree, "--progress", "never")
    assert "\rread:" not in err


def test_library_function(tree):
    res = dedup_mod.dedup_files([str(tree)], unverified=True, k=3)
    assert res.exit_status == 1 and len(res.paths) == 7 and res.fingerprints.dtype.name == "uint64"
    assert res.featureless_ids == [str(tree / "empty.txt")] and res.paths[1] == res.featureless_ids[0]
    assert res.pairs.shape[1] == 3 and res.groups == [
        [0, 5, 6]
    ]  # a.txt, sub/a_copy.txt, sub/deeper/a_edit.md
    assert res.keep.tolist() == [True] * 5 + [False, False]
    with pytest.raises(ValueError, match="preset"):
        dedup_mod.dedup_files([str(tree)], preset="nope")
    with pytest.raises(ValueError, match="k"):
        dedup_mod.dedup_files([str(tree)], k=64)


def test_help_documents_exit_status(capsys):
    with pytest.raises(SystemExit) as e:
        main(["dedup", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "exit status" in out and "1 near-duplicates found" in out


def test_console_script_in_a_subprocess(tree):
    out = subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", "dedup", str(tree), "--json", "-q"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1
    assert len(json.loads(out.stdout)["groups"]) == 1
    assert "\rread:" not in out.stderr  # no bar when stderr is a pipe


# -- hostile inputs: every one reported, nothing blocks, names escaped, JSON valid UTF-8 ------------
# Before: FIFOs, /dev/zero links and broken links under a folder were passed over without a word, a
# /dev/zero link named on the command line was a "broken symbolic link", a FIFO named there was
# "0 errors, exit 0", a name with byte 0xFF gave a traceback (strict stdout) or JSON that was not
# UTF-8, and a newline in a name split the text output.

SKIPPED_IN_A_FOLDER = {
    "fifo": "not a regular file: a FIFO (named pipe)",
    "zero_link": "not a regular file: a symbolic link to a character device (/dev/zero)",
    "broken_link": "broken symbolic link (to {root}/nowhere)",
    "folder_link": "symbolic link to a directory ({root}/folder), not followed",
    "sparse": "binary (a NUL byte at offset 0)",
    "sparse_text": "larger than --max-bytes (1,073,741,824 > 67,108,864 bytes)",
}


@pytest.mark.timeout(300)
def test_hostile_folder_reports_every_entry(hostile, cli):
    r = cli("dedup", hostile.root, "--unverified", "-k", "3")
    r.assert_no_traceback()
    assert r.code == 1  # groups found, nothing that was asked for is unreadable
    lines = r.text.splitlines()
    assert lines[0] == "group 1: 4 files (distance to the first, fingerprint, path)"
    assert [line.split("  ")[-1] for line in lines[1:5]] == [
        f"{hostile.root}/bad\\xffname.txt",
        f"{hostile.root}/bom.txt",
        f"{hostile.root}/good.txt",
        f"{hostile.root}/new\\nline.txt",
    ]
    expected = sorted(
        f"simhash-lab dedup: {getattr(hostile, name)}: {why.format(root=hostile.root)}"
        for name, why in SKIPPED_IN_A_FOLDER.items()
    )
    assert sorted(r.errors[:-1]) == expected
    assert (
        "5 files fingerprinted, 1 group(s) (4 files, 3 of them exact copies) within k = 3; "
        "unverified (the raw Hamming mode); 6 skipped, 0 featureless, 0 errors" in r.errors[-1]
    )


@pytest.mark.timeout(300)
def test_hostile_folder_json_is_utf8(hostile, cli):
    r = cli("dedup", hostile.root, "--unverified", "-k", "3", "--json", "-q")
    r.assert_no_traceback()
    assert r.code == 1 and len(r.errors) == len(SKIPPED_IN_A_FOLDER)  # -q: no summary line
    doc = json.loads(r.text)  # r.text decodes strictly as UTF-8
    assert [m["path"] for m in doc["groups"][0]] == [
        f"{hostile.root}/bad\\xffname.txt",  # the byte that is not UTF-8, as \xff
        hostile.bom,
        hostile.good,
        f"{hostile.root}/new\nline.txt",  # a valid name as it is
    ]
    assert {s["path"]: s["reason"] for s in doc["skipped"]} == {
        getattr(hostile, name): why.format(root=hostile.root) for name, why in SKIPPED_IN_A_FOLDER.items()
    }
    assert doc["errors"] == []


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "name, reason",
    [
        ("zero_link", "not a regular file: a symbolic link to a character device (/dev/zero)"),
        ("fifo", "not a regular file: a FIFO (named pipe)"),
        ("broken_link", "broken symbolic link (to {root}/nowhere)"),
        ("sparse_text", None),  # named or not, a file that is too large is skipped, not an error
    ],
)
def test_named_non_regular_file_is_an_error(hostile, cli, name, reason):
    path = getattr(hostile, name)
    r = cli("dedup", path, hostile.good, hostile.bom)
    r.assert_no_traceback()
    assert "group 1: 2 files" in r.text  # the rest still grouped
    if reason is None:
        assert r.code == 1 and "1 skipped, 0 featureless, 0 errors" in r.errors[-1]
        return
    assert r.code == 2
    assert r.errors[0] == f"simhash-lab dedup: {path}: {reason.format(root=hostile.root)}"
    assert "0 skipped, 0 featureless, 1 errors" in r.errors[-1]


@pytest.mark.timeout(300)
def test_named_folder_link_is_walked(hostile, tmp_path, cli):
    (tmp_path / "folder" / "x.txt").write_text("walked through the link", encoding="utf-8")
    r = cli("dedup", hostile.folder_link, "--json", "-q")
    assert r.code == 0
    assert [e["path"] for e in json.loads(r.text)["featureless"]] == [] and json.loads(r.text)["files"] == 1


@pytest.mark.timeout(300)
def test_strict_ascii_stdout(hostile, tmp_path, cli):
    (tmp_path / "caf\u00e9.txt").write_text("rust safe fast", encoding="utf-8")
    env = {"PYTHONIOENCODING": "ascii"}
    r = cli("dedup", hostile.root, "-q", env=env)
    r.assert_no_traceback()
    assert r.code == 1
    paths = [line.split("  ")[-1] for line in r.out.decode("ascii").splitlines()[1:6]]
    assert paths == [
        f"{tmp_path}/bad\\xffname.txt",
        f"{tmp_path}/bom.txt",
        f"{tmp_path}/caf\\u00e9.txt",
        f"{tmp_path}/good.txt",
        f"{tmp_path}/new\\nline.txt",
    ]
    r = cli("dedup", hostile.root, "-q", "--json", env=env)
    r.assert_no_traceback()
    doc = json.loads(r.out.decode("ascii"))  # ASCII escapes: valid UTF-8 in any locale
    assert f"{tmp_path}/caf\u00e9.txt" in [m["path"] for m in doc["groups"][0]]


@pytest.mark.timeout(300)
def test_reader_that_stops_early_and_closed_stdout(hostile, cli):
    r = cli("dedup", hostile.root, "-q", shell_suffix="| head -0")
    r.assert_no_traceback()
    assert r.code == 141
    r = cli("dedup", hostile.root, "-q", shell_suffix=">&-")
    r.assert_no_traceback()
    assert r.code == 2 and r.errors[-1] == "simhash-lab dedup: standard output is closed"


def test_bad_max_bytes_is_a_usage_error(tree, capsys):
    with pytest.raises(SystemExit) as e:
        main(["dedup", str(tree), "--max-bytes", "-5"])
    assert e.value.code == 2 and "--max-bytes" in capsys.readouterr().err
    with pytest.raises(ValueError, match="max_bytes"):
        dedup_mod.dedup_files([str(tree)], max_bytes=-5)


# -- verified dedup and datasets ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def labelled(course, python_docs):
    return course("corpus").labelled_set(python_docs()[:120], seed=2)


@pytest.fixture
def docs_jsonl(tmp_path, labelled):
    p = tmp_path / "docs.jsonl"
    with open(p, "w", encoding="utf-8") as f:
        for name, text in zip(labelled.names, labelled.docs):
            f.write(json.dumps({"id": name, "text": text, "meta": {"len": len(text)}}) + "\n")
    return p


def test_the_issue_form_works(docs_jsonl, tmp_path, labelled, cli):
    """simhash-lab dedup docs.jsonl --column text --id-column id --jaccard 0.8 --output kept.jsonl
    --duplicates dups.csv"""
    r = cli("dedup", docs_jsonl, "--column", "text", "--id-column", "id", "--jaccard", "0.8",
            "--output", tmp_path / "kept.jsonl", "--duplicates", tmp_path / "dups.csv")  # fmt: skip
    r.assert_no_traceback()
    assert r.code == 1 and r.out == b""
    lines = docs_jsonl.read_bytes().splitlines(keepends=True)
    kept = (tmp_path / "kept.jsonl").read_bytes().splitlines(keepends=True)
    with open(tmp_path / "dups.csv", newline="", encoding="utf-8") as f:
        dups = list(csv.DictReader(f))
    assert list(dups[0])[:4] == ["dropped_id", "kept_id", "distance", "similarity"]
    dropped = {d["dropped_id"] for d in dups}
    assert kept == [ln for ln in lines if json.loads(ln)["id"] not in dropped]  # unchanged, in order
    assert len(kept) + len(dups) == len(lines)
    assert all(float(d["similarity"]) >= 0.8 for d in dups)
    assert any("calibration: k = " in e and "expected recall" in e for e in r.errors)
    summary = r.errors[-1]
    assert f"{len(lines)} rows, {len(dups)} dropped" in summary and "verified at Jaccard >= 0.8" in summary


@pytest.mark.parametrize(
    "shell",
    [
        '"$@" >> "$OUT"; echo "STATUS=$?" >&2',  # appended to what the file holds
        '{ echo held; "$@"; echo "STATUS=$?" >&2; echo after; } > "$OUT"',  # amid the shell's writes
        '{ "$@"; echo "STATUS=$?" >&2; } | cat >> "$OUT"',  # a pipe
    ],
)
def test_output_to_dev_stdout_adds_to_what_the_shell_set_up(docs_jsonl, tmp_path, shell):
    """``--output /dev/stdout`` is written where the shell's descriptor is: reopened by its name it
    started the file anew (``>> log`` lost the log; ``{ echo held; ...; } >`` lost "held")."""
    out = tmp_path / "log.txt"
    out.write_bytes(b"keep\n")
    argv = [sys.executable, "-m", "simhash_lab.cli", "dedup", str(docs_jsonl), "--column", "text",
            "--id-column", "id", "--output", "/dev/stdout", "-q"]  # fmt: skip
    p = subprocess.run(["sh", "-c", shell, "sh", *argv], env={**os.environ, "OUT": str(out)},
                       capture_output=True, timeout=120)  # fmt: skip
    assert p.stderr.decode().splitlines() == ["STATUS=1"]  # groups found, nothing else said (-q)
    got = out.read_bytes()
    lines = docs_jsonl.read_bytes().splitlines(keepends=True)
    head = b"keep\n" if ">>" in shell else b"held\n"
    tail = b"after\n" if "after" in shell else b""
    assert got.startswith(head) and got.endswith(tail)
    kept = got[len(head) : len(got) - len(tail)].splitlines(keepends=True)
    assert 0 < len(kept) < len(lines) and set(kept) <= set(lines)  # whole rows of the input, in order
    assert [lines.index(k) for k in kept] == sorted(lines.index(k) for k in kept)


def test_dataset_groups_on_stdout_and_json(docs_jsonl, capsys):
    code, out, err = run(capsys, docs_jsonl, "--id-column", "id", "--jaccard", "0.8", "-k", "10", "-q")
    assert code == 1 and err == ""
    first = out.splitlines()[0]
    assert (
        first.startswith("group 1: ") and "rows (distance to the first, similarity, fingerprint, id)" in first
    )
    code, out, _ = run(
        capsys, docs_jsonl, "--id-column", "id", "--jaccard", "0.8", "-k", "10", "--json", "-q"
    )
    doc = json.loads(out)
    assert doc["k"] == 10 and doc["jaccard"] == 0.8 and doc["calibration"] is None
    assert doc["settings"]["tokenizer"] == "word_shingles(3)" and doc["settings"]["weights"] == "binary"
    g = doc["groups"][0]
    assert g[0]["kept"] and not g[1]["kept"] and g[1]["similarity"] >= 0.8 and "~near" in g[1]["id"]


@pytest.mark.parametrize(
    "content, args, message",
    [
        ('{"id": 1, "body": "x"}\n', [], "docs.jsonl: line 1: no column 'text'"),
        ('{"id": 1, "text": 3}\n', [], "docs.jsonl: line 1: column 'text' is a number, not text"),
        ('{"id": 1, "text": "x"}\n', ["--id-column", "key"], "docs.jsonl: line 1: no id column 'key'"),
        ("", [], "docs.jsonl: empty: no rows"),
        (
            '{"text": "x"}\n',
            ["--output", "{tmp}/kept.csv"],
            "the kept rows are written in the input's format",
        ),
        (
            '{"text": "x"}\n',
            ["--preset", "leonsim", "--weights", "tf"],
            "give --preset or --tokenizer/--weights",
        ),
    ],
)
def test_bad_datasets_exit_2_with_one_line(tmp_path, cli, content, args, message):
    p = tmp_path / "docs.jsonl"
    p.write_text(content, encoding="utf-8")
    r = cli("dedup", p, *[a.format(tmp=tmp_path) for a in args])
    r.assert_no_traceback()
    assert r.code == 2 and len(r.errors) == 1 and message in r.errors[0], r.errors
    assert r.errors[0].startswith("simhash-lab dedup: ")


def test_corrupt_parquet_and_bad_csv(tmp_path, cli):
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really PAR1")
    r = cli("dedup", tmp_path / "bad.parquet")
    r.assert_no_traceback()
    assert r.code == 2 and "bad.parquet: not a readable Parquet file" in r.errors[0] and len(r.errors) == 1
    (tmp_path / "bad.csv").write_text('id,text\n1,"unclosed\n', encoding="utf-8")
    r = cli("dedup", tmp_path / "bad.csv")
    r.assert_no_traceback()
    assert r.code == 2 and "bad.csv" in r.errors[0] and len(r.errors) == 1


def test_progress_bars_for_each_step(docs_jsonl, tmp_path, capsys):
    _, _, err = run(
        capsys, docs_jsonl, "--jaccard", "0.8", "--output", tmp_path / "k.jsonl", "--progress", "always"
    )
    for step in ("read", "calibrate", "candidates", "verify", "write"):
        assert f"\r{step}:" in err


def test_jaccard_on_folders_cuts_the_boilerplate_chain(tmp_path, capsys, python_docs):
    """Files that share a long licence and little else: words + TF within k = 3 put them in one group;
    verified at Jaccard 0.8 only the real copy is dropped."""
    licence = " ".join(["permission is hereby granted free of charge to any person obtaining a copy"] * 40)
    notes = [python_docs()[i].text[:150] for i in range(4)]
    for i, n in enumerate(notes):
        (tmp_path / f"pkg{i}.txt").write_text(f"{licence}\n\n{n}", encoding="utf-8")
    (tmp_path / "pkg0_copy.txt").write_text(f"{licence}\n\n{notes[0]}", encoding="utf-8")
    code, out, _ = run(capsys, tmp_path, "-q", "--json", "--unverified", "-k", "3")
    loose = json.loads(out)
    assert code == 1 and sum(len(g) for g in loose["groups"]) == 5  # all together, unverified
    code, out, _ = run(
        capsys, tmp_path, "-q", "--json", "--jaccard", "0.8", "--duplicates", tmp_path / "d.csv"
    )
    doc = json.loads(out)
    assert code == 1 and [[m["path"] for m in g] for g in doc["groups"]] == [
        [str(tmp_path / "pkg0.txt"), str(tmp_path / "pkg0_copy.txt")]
    ]
    assert (tmp_path / "d.csv").read_text().splitlines()[1].startswith(f"{tmp_path / 'pkg0_copy.txt'},")


def test_dataset_options_are_refused_for_folders(tree, capsys):
    code, _, err = run(capsys, tree, "--output", "x.jsonl")
    assert code == 2 and "--output is for a dataset" in err


@pytest.mark.parametrize(
    "args, message",
    [
        (["--max-tables", "0"], "argument --max-tables: --max-tables must be an int from 1 to 4096, got 0"),
        (["--max-tables", "5000"], "--max-tables must be an int from 1 to 4096, got 5000"),
        (["--memory-budget", "lots"], "argument --memory-budget: --memory-budget must be a number of bytes"),
        (["--memory-budget=-1G"], "--memory-budget must be a number of bytes"),
        (["--memory-budget", "9000000T"], "--memory-budget must be below 4 EiB"),
    ],
)
def test_index_options_are_refused_by_name(tmp_path, cli, args, message):
    p = tmp_path / "docs.jsonl"
    p.write_text('{"text": "x"}\n', encoding="utf-8")
    r = cli("dedup", p, *args)
    r.assert_no_traceback()
    assert r.code == 2 and message in r.errors[-1], r.errors
    assert r.out == b""


def test_memory_budget_and_max_tables_reach_the_index(tmp_path, cli, capsys, monkeypatch):
    """--memory-budget and --max-tables are the index's: parsed with suffixes and passed on; a
    budget with no room for a table (the linear scan) finds the same groups; bad values are refused
    by name, from Python too, before any work."""
    import simhash_lab.index as ix
    from simhash_lab.cli.dedup import _memory_budget

    assert _memory_budget("512M") == 512 << 20 and _memory_budget("1.5GiB") == 3 << 29
    assert _memory_budget("2g") == 2 << 30 and _memory_budget("1000") == 1000
    base = " ".join(f"w{i}" for i in range(60))
    rows = [{"id": i, "text": base + f" tail{i}"} for i in range(6)] + [{"id": 9, "text": "other words"}]
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    seen = []
    real = ix.SimhashIndex.__init__

    def spy(self, *a, **kw):
        seen.append((kw.get("max_tables"), kw.get("memory_budget")))
        real(self, *a, **kw)

    monkeypatch.setattr(ix.SimhashIndex, "__init__", spy)
    groups = []
    for extra in ([], ["--memory-budget", "0", "--max-tables", "2"]):
        assert main(["dedup", str(p), "--jaccard", "0.8", "-k", "6", "--json", "-q", *extra]) == 1
        groups.append(json.loads(capsys.readouterr().out)["groups"])
    assert seen == [(None, None), (2, 0)]
    assert groups[0] == groups[1] and len(groups[0]) == 1 and len(groups[0][0]) == 6
    r = cli("dedup", p, "--memory-budget", "2G", "--jaccard", "0.8", "-k", "6", "-q")
    assert r.code == 1
    from simhash_lab.dedup import dedup_texts

    with pytest.raises(ValueError, match="memory_budget"):
        dedup_texts(["a b c"], memory_budget=-1)
    with pytest.raises(ValueError, match="max_tables"):
        dedup_texts(["a b c"], max_tables=0)


@pytest.mark.parametrize(
    "args",
    [
        ["--jaccard", "0.8"],
        ["--unverified", "-k", "3"],
        ["--jaccard", "0.5", "--tokenizer", "char_ngrams:3", "-k", "10"],  # n-grams, but no word
    ],
)
def test_featureless_rows_are_listed_apart_never_grouped(tmp_path, cli, args):
    base = " ".join(f"w{i}" for i in range(40))
    texts = ["", base, "   \n", "!!! ???", base, "", "!!! ???", "-- --", base + " end"]
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps({"id": f"r{i}", "text": t}) + "\n" for i, t in enumerate(texts)))
    featureless = [f"r{i}" for i, t in enumerate(texts) if not any(c.isalnum() for c in t)]
    r = cli("dedup", p, "--id-column", "id", "--json", *args)
    assert r.code == 1, r.errors
    doc = json.loads(r.text)
    assert doc["featureless"] == featureless
    members = {m["id"] for g in doc["groups"] for m in g}
    assert members and members.isdisjoint(featureless)
    assert f"{len(featureless)} featureless (kept)" in r.errors[-1]
    r = cli("dedup", p, "--id-column", "id", "--duplicates", tmp_path / "d.csv", "-q", *args)
    with open(tmp_path / "d.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows and not {x["dropped_id"] for x in rows} & set(featureless)
    assert not {x["kept_id"] for x in rows} & set(featureless)
    r = cli("dedup", p, "--id-column", "id", "-q", *args)  # the text output: a list after the groups
    tail = r.text.rstrip("\n").split("\n\n")[-1].splitlines()
    assert tail[0] == f"featureless: {len(featureless)} rows (no word: never compared nor grouped, kept)"
    assert [line.strip() for line in tail[1:]] == featureless
