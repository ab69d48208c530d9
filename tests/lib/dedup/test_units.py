"""Paragraph and line units (issue 46, item 5: ``unit="paragraph"``, ``--unit``): repeated paragraphs
across documents removed, the first copy kept; a document that lost everything, or is left with
fewer than ``min_kept_words`` words, dropped whole, unless it holds a kept copy; the same verified
definition as documents (exact copies, and Jaccard >= the threshold); measured against the rules
written again in plain Python (``benchmarks/_truth.py``); the documents written back, in each
format, without the paragraphs they lost and otherwise byte for byte."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import pathlib

import numpy as np
import pytest

from simhash_lab import dedup_table, dedup_texts
from simhash_lab.dedup.units import cut_text, split

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


truth = _load("_truth")

HEADER = ["Example News", "Home | World | Business | Sport | Weather", "Breaking: read our latest stories"]
FOOTER = ["Copyright 2024 Example News Ltd. All rights reserved.", "Privacy policy | Terms of use | Cookies"]


def pages(n=60, seed=2):
    """Pages of one site: its header and footer around a body of 1 to 3 paragraphs of their own
    (random words), some bodies copied onto a later page, some with one word edited, some short."""
    rng = np.random.default_rng(seed)
    bodies, out = [], []
    for i in range(n):
        r = rng.random()
        if bodies and r < 0.1:
            body = list(bodies[int(rng.integers(len(bodies)))])
        elif bodies and r < 0.2:
            body = list(bodies[int(rng.integers(len(bodies)))])
            j = int(rng.integers(len(body)))
            w = body[j].split()
            w[int(rng.integers(3, len(w) - 3))] = "edited"
            body[j] = " ".join(w)
        elif r < 0.25:
            body = [f"Short note {i}."]
        else:
            body = [" ".join(f"w{int(x)}" for x in rng.integers(0, 3000, int(rng.integers(20, 60))))
                    for _ in range(int(rng.integers(1, 4)))]  # fmt: skip
        bodies.append(body)
        out.append("\n\n".join(HEADER + body + FOOTER) + "\n")
    return out, bodies


def test_split_and_cut():
    text = "  \nhead line\n\nbody a\nbody b\n \n\n foot\n"
    assert [text[a:b] for a, b, _ in split(text, "paragraph")] == ["head line", "body a\nbody b", " foot"]
    assert [text[a:e] for a, _, e in split(text, "paragraph")] == [
        "head line\n\n",
        "body a\nbody b\n \n\n",
        " foot\n",
    ]
    assert [text[a:b].strip() for a, b, _ in split(text, "line")] == ["head line", "body a", "body b", "foot"]
    spans = [(a, e) for a, _, e in split(text, "paragraph")]
    assert cut_text(text, spans[:1]) == "  \nbody a\nbody b\n \n\n foot\n"
    assert cut_text(text, spans[2:]) == "  \nhead line\n\nbody a\nbody b\n"  # ends as the text ended
    assert cut_text(text, spans) == ""
    assert (
        cut_text("a\r\n\r\nb\r\n", [(a, e) for a, _, e in split("a\r\n\r\nb\r\n", "paragraph")][:1])
        == "b\r\n"
    )


def test_the_boilerplate_is_removed_and_every_body_kept():
    texts, bodies = pages()
    want = truth.unit_truth(texts, "paragraph")
    default = dedup_texts(texts, unit="paragraph")  # MinHash bands: 0.99 of the pairs at 0.8
    got = {(int(a), int(b)) for a, b, _ in default.verified_pairs().tolist()}
    assert got <= set(want["pairs"]) and len(got) >= 0.97 * len(want["pairs"])
    res = dedup_texts(texts, unit="paragraph", candidates="index", k=63)  # every pair a candidate
    u = res.units
    assert len(u) == len(want["units"]) and u.doc.tolist() == want["doc_of"]
    got = {(int(a), int(b)) for a, b, _ in res.verified_pairs().tolist()}
    assert got == set(want["pairs"])  # every pair of paragraphs at the threshold, and no other
    dropped = dict(zip(res.duplicates.dropped.tolist(), res.duplicates.kept.tolist()))
    assert dropped == want["dropped"]  # each dropped for the same kept one as the rules say
    assert set(res.whole.tolist()) == want["whole"]
    kept = res.kept_texts(texts)
    paras = [p.strip() for t in kept for p in t.split("\n\n") if p.strip()]
    for shared in HEADER + FOOTER:
        assert paras.count(shared) == 1  # the shared paragraphs once, in the first page
    for body in bodies:  # every body's paragraphs somewhere (an edited one: its near-copy)
        for p in body:
            assert p in paras or any(
                len(truth.truth_set(p) & truth.truth_set(q))
                >= 0.8 * len(truth.truth_set(p) | truth.truth_set(q))
                for q in paras
            )
    assert res.keep[0] and kept[0] == texts[0]  # the first page keeps everything
    # whole documents drop short pages for their header and footer (issue 46's finding)
    whole = dedup_texts(texts)
    assert any(not whole.keep[i] for i, b in enumerate(bodies) if b[0].startswith("Short note"))


def test_a_page_left_with_too_little_is_dropped_whole_unless_it_holds_a_kept_copy():
    body = "Only on page A: a long paragraph with enough words to stand alone here"
    a = f"Shared header of the site\n\n{body}\n"
    b = "Shared header of the site\n\nTiny\n"
    c = a
    res = dedup_texts([a, b, c], unit="paragraph", min_kept_words=5)
    assert res.keep.tolist() == [True, False, False] and res.whole.tolist() == [1, 2]
    assert res.words_left.tolist() == [19, 1, 0]
    res = dedup_texts([b, a], unit="paragraph", min_kept_words=5)  # b holds the header's kept copy
    assert res.keep.tolist() == [True, True] and res.kept_texts([b, a])[1].startswith("Only on page A")
    res = dedup_texts(["one\ntwo\nthree", "two\nfour", "three\none"], unit="line")
    assert res.keep.tolist() == [True, True, False] and res.kept_texts(
        ["one\ntwo\nthree", "two\nfour", "x"]
    ) == [
        "one\ntwo\nthree",
        "four",
    ]


def test_files_written_without_the_lost_paragraphs_in_each_format(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    texts, _ = pages(24, seed=5)
    rows = [{"id": f"p{i}", "text": t, "n": i, "tag": 'a,b"c'} for i, t in enumerate(texts)]
    want = dedup_texts(texts, unit="paragraph")
    kept_texts = want.kept_texts(texts)
    kept_rows = [r for r, k in zip(rows, want.keep) if k]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with open(tmp_path / "d.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, ["id", "text", "n", "tag"])
        w.writeheader()
        w.writerows(rows)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    for fmt in ("jsonl", "csv", "parquet"):
        out = tmp_path / f"k.{fmt}"
        res = dedup_table(tmp_path / f"d.{fmt}", id_column="id", unit="paragraph", output=out,
                          duplicates=tmp_path / f"dups-{fmt}.csv")  # fmt: skip
        assert res.keep.tolist() == want.keep.tolist() and res.written == len(kept_rows)
        if fmt == "jsonl":
            got = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
            lines = (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()
            for r, line in zip(kept_rows, out.read_text(encoding="utf-8").splitlines()):
                if r["n"] not in res.edited:
                    assert line == lines[r["n"]]  # untouched rows byte for byte
        elif fmt == "csv":
            got = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
            for g in got:
                g["n"] = int(g["n"])
        else:
            got = pq.read_table(out).to_pylist()
        assert [g["text"] for g in got] == kept_texts
        assert [{k: v for k, v in g.items() if k != "text"} for g in got] == [
            {k: v for k, v in r.items() if k != "text"} for r in kept_rows
        ]
        with open(tmp_path / f"dups-{fmt}.csv", newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
        assert len(table) == len(res.duplicates)
        for t in table:  # each dropped paragraph: its document, its place, its span there
            doc = texts[int(t["dropped_row"])]
            a, _, e = split(doc, "paragraph")[int(t["dropped_unit"])]
            assert (int(t["dropped_start"]), int(t["dropped_end"])) == (a, e)
            kept_doc = texts[int(t["kept_row"])]
            ka, kb, _ = split(kept_doc, "paragraph")[int(t["kept_unit"])]
            assert kept_doc[ka:kb].strip() == doc[a:e].strip() or t["similarity"] != "1.000000"


def test_the_summary_and_json_say_paragraphs_and_documents():
    texts, _ = pages(30)
    res = dedup_texts(texts, unit="paragraph")
    s = res.summary()
    assert s.startswith(f"{len(res.units)} paragraphs of 30 rows, {len(res.duplicates)} dropped in ")
    kept = int(res.keep.sum())
    assert s.endswith(
        f"; {kept} rows kept ({res.edited.size} of them without some of their paragraphs), "
        f"{res.whole.size} dropped whole (fewer than 1 word left)"
    )
    doc = res.to_json()
    assert doc["unit"] == "paragraph" and doc["units"] == len(res.units)
    assert doc["documents"]["kept"] == kept and len(doc["documents"]["dropped_whole"]) == res.whole.size
    assert all("unit" in m and "row" in m for g in doc["groups"] for m in g)
    assert res.settings["unit"] == "paragraph" and res.settings["min_kept_words"] == 1
    with pytest.raises(ValueError, match="unit"):
        dedup_texts(texts, unit="sentence")
    with pytest.raises(ValueError, match="min_kept_words"):
        dedup_texts(texts, unit="paragraph", min_kept_words=-1)
