"""``simhash-lab dedup`` on hostile data (issue 24, item 4): each case reproduced on a corpus made
here, with the answer a user expects: one line naming the file, line or row and column, exit 2,
never a traceback, never exit 1 (which means "groups found"), and no output left behind."""

import csv
import io
import json
import math
import sys

import numpy as np
import pytest

from simhash_lab.cli import main

BASE = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door"


def run(capsys, *args):
    code = main(["dedup", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def jsonl(path, rows, end="\n"):
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + end, encoding="utf-8")
    return path


def one_line_exit_2(code, err, *needles):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in lines[0], lines[0]


def test_output_and_duplicates_naming_one_file_are_refused_before_any_work(tmp_path, capsys):
    """Before: "202 kept rows written" while the file held only the duplicates table."""
    src = jsonl(tmp_path / "docs.jsonl", [{"text": BASE}, {"text": BASE}])
    x = tmp_path / "x.jsonl"
    code, _, err = run(capsys, src, "--output", x, "--duplicates", x)
    one_line_exit_2(code, err, "--output and --duplicates name one file")
    assert not x.exists()
    code, _, err = run(capsys, src, "--output", src)
    one_line_exit_2(code, err, "input")
    assert src.read_text(encoding="utf-8").count("\n") == 2


def test_100000_identical_rows_one_kept_no_candidate_pair(tmp_path, capsys):
    """Before: 20,000 identical rows gave 199,990,000 candidate pairs and a MemoryError traceback.
    The exact groups come first: one representative goes on, and no pair is ever made."""
    n = 100_000
    src = tmp_path / "same.jsonl"
    src.write_text(f'{{"text": "{BASE}"}}\n' * n, encoding="utf-8")
    code, out, err = run(capsys, src, "--json", "-q")
    doc = json.loads(out)
    assert code == 1 and doc["candidates"] == 0 and doc["exact_copies"] == n - 1
    assert doc["dropped"] == n - 1 and len(doc["groups"]) == 1 and len(doc["groups"][0]) == n


def test_deep_json_in_an_unused_field_is_one_line(tmp_path, capsys):
    src = tmp_path / "deep.jsonl"
    src.write_text(f'{{"text": "{BASE}"}}\n{{"text": "x", "meta": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    code, _, err = run(capsys, src)
    one_line_exit_2(code, err, "deep.jsonl: line 2:", "nested too deeply")


def test_max_row_bytes_refuses_a_huge_line_without_reading_it(tmp_path, capsys):
    src = jsonl(tmp_path / "big.jsonl", [{"text": BASE}, {"text": "word " * 50_000}])
    code, _, err = run(capsys, src, "--max-row-bytes", "64K")
    one_line_exit_2(code, err, "big.jsonl: line 2:", "--max-row-bytes 65536")
    csvp = tmp_path / "big.csv"
    csvp.write_text("id,text\n1," + BASE + "\n2," + "word " * 50_000 + "\n")
    code, _, err = run(capsys, csvp, "--max-row-bytes", "64K")
    one_line_exit_2(code, err, "big.csv: line 3:", "--max-row-bytes")


def test_two_text_columns_are_ambiguous(tmp_path, capsys):
    """Before: a CSV with two `text` columns silently used the first."""
    src = tmp_path / "two.csv"
    src.write_text(f"id,text,text\n1,{BASE},other\n2,{BASE},more\n")
    code, _, err = run(capsys, src, "--output", tmp_path / "k.csv")
    one_line_exit_2(code, err, "two.csv", "'text' 2 times (columns 2, 3)", "ambiguous")
    assert not (tmp_path / "k.csv").exists()


def test_formula_like_ids_are_escaped_in_the_csv_table(tmp_path, capsys):
    ids = ['=HYPERLINK("http://x","click")', "+1+1", "@SUM(A1)", "-5", "plain"]
    rows = [{"id": i, "text": BASE} for i in ids]
    src = jsonl(tmp_path / "f.jsonl", rows)
    dups = tmp_path / "d.csv"
    code, _, _ = run(capsys, src, "--id-column", "id", "--duplicates", dups, "-q")
    assert code == 1
    table = list(csv.DictReader(io.StringIO(dups.read_text())))
    assert [r["dropped_id"] for r in table] == ["'+1+1", "'@SUM(A1)", "-5", "plain"]
    assert {r["kept_id"] for r in table} == {'\'=HYPERLINK("http://x","click")'}


def test_nan_ids_give_strict_json(tmp_path, capsys):
    src = tmp_path / "nan.jsonl"
    src.write_text(f'{{"id": NaN, "text": "{BASE}"}}\n{{"id": 2, "text": "{BASE}"}}\n')
    dups = tmp_path / "d.jsonl"
    code, out, _ = run(capsys, src, "--id-column", "id", "--duplicates", dups, "-q")
    assert code == 1

    def strict(s):
        return json.loads(s, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))

    (rec,) = [strict(line) for line in dups.read_text().splitlines()]
    assert rec["kept_id"] is None and rec["dropped_id"] == 2
    code, out, _ = run(capsys, src, "--id-column", "id", "--json", "-q")
    assert strict(out)["groups"][0][0]["id"] is None


def test_a_lone_surrogate_id_names_the_file_and_leaves_no_output(tmp_path, capsys):
    src = tmp_path / "s.jsonl"
    src.write_text(f'{{"id": "a\\ud800", "text": "{BASE}"}}\n{{"id": "b", "text": "{BASE}"}}\n')
    out = tmp_path / "k.jsonl"
    code, _, err = run(capsys, src, "--id-column", "id", "--output", out, "--duplicates", tmp_path / "d.csv")
    one_line_exit_2(code, err, "s.jsonl: line 1: id column 'id' holds a lone surrogate")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_dictionary_encoded_parquet_text_is_read(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    texts = [BASE, BASE.replace("warm", "soft"), "an unrelated line about cooking rice and beans", BASE]
    plain = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"text": texts}), plain)
    dic = tmp_path / "dict.parquet"
    pq.write_table(pa.table({"text": pa.array(texts).dictionary_encode()}), dic)
    assert pa.types.is_dictionary(pq.read_schema(dic).field("text").type)
    docs = []
    for p in (plain, dic):
        code, out, _ = run(capsys, p, "--json", "-q", "-k", "20", "--output", tmp_path / f"k-{p.name}")
        assert code == 1
        docs.append(json.loads(out)["groups"] if out else None)
    kept = [pq.read_table(tmp_path / f"k-{p.name}").column("text").to_pylist() for p in (plain, dic)]
    assert kept[0] == kept[1] == texts[:3]


def test_duplicates_named_xlsx_is_refused_before_any_work(tmp_path, capsys):
    """Before: `--duplicates x.xlsx` wrote CSV under that name."""
    src = jsonl(tmp_path / "docs.jsonl", [{"text": BASE}, {"text": BASE}])
    code, _, err = run(capsys, src, "--duplicates", tmp_path / "x.xlsx", "--output", tmp_path / "k.jsonl")
    one_line_exit_2(code, err, "x.xlsx", "CSV, JSONL or Parquet", ".csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.jsonl"]


@pytest.mark.parametrize("end", ["", "\n"])
def test_the_last_line_keeps_its_newline_or_its_lack_of_one(tmp_path, capsys, end):
    src = jsonl(tmp_path / "docs.jsonl", [{"text": "first text of words here and more"}, {"text": BASE}], end)
    out = tmp_path / "k.jsonl"
    assert run(capsys, src, "--output", out, "-q")[0] == 0
    assert out.read_bytes() == src.read_bytes()
    c = tmp_path / "docs.csv"
    c.write_bytes(
        b"id,text\r\n1,first text of words here\r\n2," + BASE.encode() + end.replace("\n", "\r\n").encode()
    )
    out = tmp_path / "k.csv"
    assert run(capsys, c, "--output", out, "-q")[0] == 0
    assert out.read_bytes() == c.read_bytes()


def test_out_of_memory_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    from simhash_lab.dedup.steps import Candidates

    def boom(*a, **kw):
        raise MemoryError

    monkeypatch.setattr(Candidates, "within_k", boom)
    src = jsonl(tmp_path / "docs.jsonl", [{"text": BASE}, {"text": BASE + " more"}])
    code, _, err = run(capsys, src, "-k", "3")
    one_line_exit_2(code, err, "out of memory")


def test_stdin_gives_what_the_file_gives(tmp_path, capsys, monkeypatch):
    rows = [{"id": i, "text": BASE + (" tail" if i % 3 else "")} for i in range(9)]
    rows.append({"id": 99, "text": "something else entirely, words of its own"})
    src = jsonl(tmp_path / "docs.jsonl", rows)
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    assert run(capsys, src, "--id-column", "id", "--output", a, "-q")[0] == 1
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(src.read_bytes())))
    assert run(capsys, "-", "--id-column", "id", "--output", b, "-q")[0] == 1
    assert a.read_bytes() == b.read_bytes() and a.read_bytes().count(b"\n") == 2


def test_the_report_shows_steps_histograms_and_highlighted_differences(tmp_path, capsys):
    words = [f"w{i}" for i in range(200)]
    rng = np.random.default_rng(0)
    rows = []
    for c in range(4):
        base = list(rng.choice(words, 60))
        rows.append({"id": f"c{c}", "text": " ".join(base)})
        for e in range(1 + c):
            w = list(base)
            w[int(rng.integers(60))] = "EDITED"
            rows.append({"id": f"c{c}e{e}", "text": " ".join(w)})
    src = jsonl(tmp_path / "docs.jsonl", rows)
    rep = tmp_path / "r.html"
    code, _, _ = run(capsys, src, "--id-column", "id", "--report", rep, "-q", "--jaccard", "0.7")
    assert code == 1
    page = rep.read_text(encoding="utf-8")
    for step in ("read", "normalise", "exact groups", "fingerprint", "calibrate", "candidates", "verify"):
        assert f"<td>{step}</td>" in page
    assert "Cluster sizes" in page and "Jaccard similarity of the candidate pairs" in page
    assert "<ins>EDITED</ins>" in page and "<del>" in page
    md = tmp_path / "r.md"
    assert run(capsys, src, "--report", md, "-q", "--jaccard", "0.7")[0] == 1
    assert "**EDITED**" in md.read_text(encoding="utf-8")
    code, _, err = run(capsys, src, "--report", tmp_path / "r.pdf")
    one_line_exit_2(code, err, "r.pdf", ".html or .md")


def test_unverified_needs_k_and_is_the_only_unverified_mode(tmp_path, capsys):
    src = jsonl(tmp_path / "docs.jsonl", [{"text": BASE}, {"text": BASE}])
    code, _, err = run(capsys, src, "--unverified")
    one_line_exit_2(code, err, "--unverified", "-k")
    code, out, _ = run(capsys, src, "--json", "-q")
    doc = json.loads(out)
    assert doc["jaccard"] == 0.8 and doc["calibration"]["target_recall"] == 0.99
    assert not math.isnan(doc["jaccard"])


def test_chinese_on_the_command_line_is_said_in_the_summary(tmp_path, capsys):
    poem = "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。床前明月光，疑是地上霜。举头望明月，低头思故乡。"
    rows = [
        {"text": poem},
        {"text": poem.replace("花", "叶")},
        {"text": "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。"},
    ]
    src = jsonl(tmp_path / "zh.jsonl", rows)
    code, _, err = run(capsys, src, "--output", tmp_path / "k.jsonl")
    assert code == 1 and "3 rows in a script without word spaces" in err and "(3-grams)" in err
    assert (tmp_path / "k.jsonl").read_text(encoding="utf-8").count("\n") == 2
    code, _, err = run(capsys, src, "--lang", "en", "-q", "--json")
    assert code == 0  # by words a clause is one word: the edit hides the copy
    with pytest.raises(SystemExit):
        main(["dedup", "--help"])
    assert "Chinese" in capsys.readouterr().out


def test_the_bars_move_to_a_known_total(tmp_path, capsys, monkeypatch):
    import simhash_lab.dedup.run as d

    seen = []
    close = d._Bars.close

    def spy(self):
        if self.current is not None:
            seen.append((self.current.desc, self.current.n, self.current.total))
        close(self)

    monkeypatch.setattr(d._Bars, "close", spy)
    src = jsonl(tmp_path / "docs.jsonl", [{"text": BASE + f" w{i} and more words"} for i in range(50)])
    code, _, err = run(capsys, src, "--progress", "always", "-q", "--output", tmp_path / "k.jsonl")
    bars = {desc: (n, total) for desc, n, total in seen}
    assert bars["read"] == (src.stat().st_size, src.stat().st_size)
    assert bars["verify"][0] == bars["verify"][1] > 0
    assert bars["write"] == (50, 50)
    assert "\rread:" in err


def test_orjson_and_json_read_the_same_rows(tmp_path, monkeypatch):
    import simhash_lab.datasets as D
    import simhash_lab.datasets.jsonl as J

    if J._ORJSON is None:
        pytest.skip("orjson is not installed")
    src = tmp_path / "docs.jsonl"
    src.write_text(
        '{"id": 1, "text": "caf\\u00e9 \\ud83d\\ude00 text"}\n{"id": NaN, "text": "b", "x": 1e400}\n'
        '{"id": [1, {"a": null}], "text": "\\u00e9t\\u00e9"}\n',
        encoding="utf-8",
    )
    fast = list(D.open_dataset(src, "text", "id").chunks(10))
    monkeypatch.setattr(J, "_ORJSON", None)
    slow = list(D.open_dataset(src, "text", "id").chunks(10))
    assert fast[0][0] == slow[0][0] == ["caf\u00e9 \U0001f600 text", "b", "\u00e9t\u00e9"]
    ids_f, ids_s = fast[0][1], slow[0][1]
    assert ids_f[0] == ids_s[0] == 1 and ids_f[2] == ids_s[2] == [1, {"a": None}]
    assert math.isnan(ids_f[1]) and math.isnan(ids_s[1])


# -- the input by any name; temporary files on signals (issue 45) --------------------------------


def test_standard_input_is_never_the_output(tmp_path, cli):
    """``dedup - --output in.jsonl < in.jsonl`` replaced the input, ``--output /dev/stdin``
    truncated it: every name of what standard input reads is refused before any work, one line,
    exit 2, the input untouched; /dev/stdout still gets the kept rows."""
    import shlex

    src = jsonl(tmp_path / "in.jsonl", [{"id": i, "text": BASE + f" w{i % 3}"} for i in range(12)])
    before = src.read_bytes()
    redirect = f"< {shlex.quote(str(src))}"
    for args in (
        ["-", "--output", str(src)],
        ["-", "--duplicates", str(src)],
        [str(src), "--output", "/dev/stdin"],
    ):
        got = cli("dedup", *args, "--id-column", "id", shell_suffix=redirect)
        assert got.code == 2 and len(got.errors) == 1 and "input" in got.errors[0], got.errors
        assert src.read_bytes() == before
    for name in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
        got = cli("dedup", "-", "--output", name, "--id-column", "id", shell_suffix=redirect)
        assert got.code == 2 and got.errors == [
            f"simhash-lab dedup: --output names standard input ({name}), which the run reads"
        ]
        assert src.read_bytes() == before
    got = cli("dedup", "-", "--output", "/dev/stdout", "--id-column", "id", "-q", shell_suffix=redirect)
    assert got.code == 1 and got.out and got.out in before and src.read_bytes() == before


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_stdins_copy_goes_on_a_signal(tmp_path, sig):
    """Standard input is copied to a private temporary file before the run: a signal while it is
    being read ends the command by that signal and removes the copy (as Ctrl-C does)."""
    import os
    import signal
    import subprocess
    import time

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen(
        [sys.executable, "-m", "simhash_lab.cli", "dedup", "-", "--output", str(tmp_path / "k.jsonl")],
        stdin=subprocess.PIPE, env={**os.environ, "TMPDIR": str(tmp)},
    )  # fmt: skip
    try:
        p.stdin.write(json.dumps({"text": BASE}).encode() + b"\n")
        p.stdin.flush()
        deadline = time.monotonic() + 60
        while not list(tmp.glob("simhash-lab-stdin-*")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp.glob("simhash-lab-stdin-*"))  # being copied
        p.send_signal(getattr(signal, sig))
        assert p.wait(timeout=60) == -getattr(signal, sig)
    finally:
        p.kill()
        p.stdin.close()
    assert list(tmp.iterdir()) == [] and not (tmp_path / "k.jsonl").exists()
