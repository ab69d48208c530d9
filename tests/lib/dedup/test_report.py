"""The report of a dedup run (simhash_lab.dedup.report, through ``dedup_table(..., report=)``): one page that
opens anywhere (no script, nothing from the network), with the counts of the run, its clusters side
by side with the words that differ marked (deleted struck, inserted marked), the same in Markdown,
and a report name of another format refused before any work."""

from __future__ import annotations

import html
import json
import re

import pytest

from simhash_lab.datasets import DatasetError
from simhash_lab.dedup import dedup_table
from simhash_lab.dedup.report import check_report_name

BASE = " ".join(f"word{i}" for i in range(60))
ROWS = [
    {"id": "a", "text": BASE},
    {"id": "b", "text": BASE.replace("word30", "CHANGED")},  # one word replaced: near a
    {"id": "c", "text": "an unrelated text <b>with markup</b> & an ampersand, nothing like the others"},
    {"id": "d", "text": BASE},  # an exact copy of a
]


@pytest.fixture
def table(tmp_path):
    p = tmp_path / "docs.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return p


def test_the_html_report_is_one_self_contained_page_with_the_clusters(tmp_path, table):
    res = dedup_table(table, id_column="id", jaccard=0.8, k=20, report=tmp_path / "r.html")
    assert res.keep.tolist() == [True, False, True, False]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    assert "<script" not in page.lower() and not re.search(r"(src|href)=[\"']?https?:", page)
    assert f"<p>{html.escape(res.summary())}</p>" in page
    assert "kept a" in page and "dropped b" in page
    assert "<del>word30</del>" in page and "<ins>CHANGED</ins>" in page
    assert "dropped d: identical to the kept text" in page
    assert "<b>with markup</b>" not in page  # the texts are escaped (c is in no cluster anyway)


def test_the_markdown_report_says_the_same(tmp_path, table):
    dedup_table(table, id_column="id", jaccard=0.8, k=20, report=tmp_path / "r.md")
    md = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert md.startswith("# simhash-lab dedup: ") and "| step | what | seconds |" in md
    assert "## Cluster sizes" in md and "## Clusters side by side" in md
    assert "### kept a (3 members)" in md
    assert "~~word30~~" in md and "**CHANGED**" in md and "dropped b: distance" in md
    assert "<" not in md.split("## Clusters side by side")[1]


def test_long_equal_runs_are_elided_around_a_difference(tmp_path, table):
    dedup_table(table, id_column="id", jaccard=0.8, k=20, report=tmp_path / "r.md")
    line = next(ln for ln in (tmp_path / "r.md").read_text(encoding="utf-8").splitlines() if "~~" in ln)
    assert "…" in line and "word0 " not in line and "word18 " in line and "word42" in line


def test_without_a_cluster_the_page_says_so(tmp_path):
    p = tmp_path / "apart.jsonl"
    p.write_text(
        "".join(json.dumps({"text": f"document {i} " + " ".join(f"t{i}x{j}" for j in range(20))}) + "\n"
                for i in range(5)),
        encoding="utf-8",
    )  # fmt: skip
    res = dedup_table(p, jaccard=0.8, k=3, report=tmp_path / "r.html")
    assert res.keep.all()
    assert "<p>no cluster</p>" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, fmt", [("r.html", "html"), ("R.HTM", "html"), ("x/y.md", "md")])
def test_the_format_is_the_names(name, fmt):
    assert check_report_name(name) == fmt


def test_a_report_named_for_another_format_is_refused_before_any_work(tmp_path, table):
    for bad in ("r.pdf", "report"):
        with pytest.raises(DatasetError, match="name it .html or .md"):
            dedup_table(table, jaccard=0.8, k=20, report=tmp_path / bad, output=tmp_path / "kept.jsonl")
        assert not (tmp_path / bad).exists() and not (tmp_path / "kept.jsonl").exists()


HOSTILE = [
    ("doc0", BASE),
    ("evil\n# HEADING <script>alert(1)</script>", BASE.replace("word7", "<img src=x onerror=alert(1)>")),
    (
        "[x](javascript:alert(1)) <img src=x onerror=alert(2)>",
        BASE.replace("word40", "[click](javascript:alert(3))"),
    ),
    ("`code` *em* | pipe", BASE.replace("word50", "\n# another heading\n")),
]


def test_the_markdown_report_escapes_what_others_control(tmp_path):
    """Ids and texts are the data's, not the report's: in Markdown they are escaped as the HTML
    report escapes them (simhash_lab._escape.markdown_text): no raw HTML, no link, no heading of
    their own, however they are spelled (issue 45)."""
    p = tmp_path / "docs <script>.jsonl"
    p.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in HOSTILE), encoding="utf-8")
    res = dedup_table(p, id_column="id", jaccard=0.5, k=30, linkage="star", report=tmp_path / "r.md")
    assert len(res.duplicates) == 3  # every hostile row is shown, dropped for doc0
    md = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "<script" not in md and "<img" not in md and "onerror=" not in md.replace("onerror\\=", "")
    assert "](javascript" not in md and "[click]" not in md and "[x]" not in md
    headings = [line for line in md.splitlines() if line.lstrip().startswith("#")]
    assert all(re.match(r"#{1,3} (simhash-lab dedup: |Cluster sizes|Similarity of|Clusters side|kept )", h)
               for h in headings), headings  # fmt: skip
    assert sum(h.startswith("### kept ") for h in headings) == 1
    assert "evil \\# HEADING &lt;script&gt;" in md  # the id itself, on one line, shown literally
    html_report = tmp_path / "r.html"
    dedup_table(p, id_column="id", jaccard=0.5, k=30, linkage="star", report=html_report)
    assert "<script" not in html_report.read_text(encoding="utf-8")
