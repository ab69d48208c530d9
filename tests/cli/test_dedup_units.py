"""``simhash-lab dedup --unit paragraph`` (issue 46, item 5): the kept documents written without
their repeated paragraphs, the duplicates table naming each paragraph's place, the summary saying
what became of the documents; ``--min-kept-words``. In this process (``main``), cheap."""

from __future__ import annotations

import csv
import json

from simhash_lab.cli import main

HEAD = "Example Site\n\nHome | About | Contact\n\n"
FOOT = "\n\nCopyright 2024 Example. All rights reserved.\n"
BODIES = [
    "A first article of its own, with words enough to stand on its own here.",
    "A second article, about something else entirely, also long enough to stay.",
    "Short.",
    "A first article of its own, with words enough to stand on its own here.",
]


def test_paragraph_units_on_the_command_line(tmp_path, capsys):
    p = tmp_path / "pages.jsonl"
    p.write_text(
        "".join(json.dumps({"id": f"page{i}", "text": HEAD + b + FOOT}) + "\n" for i, b in enumerate(BODIES))
    )
    out, dups = tmp_path / "kept.jsonl", tmp_path / "dups.csv"
    code = main(
        [
            "dedup",
            str(p),
            "--id-column",
            "id",
            "--unit",
            "paragraph",
            "--output",
            str(out),
            "--duplicates",
            str(dups),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "16 paragraphs of 4 rows, 10 dropped" in err
    assert (
        "3 rows kept (2 of them without some of their paragraphs), 1 dropped whole (fewer than 1 word left)"
        in err
    )
    kept = [json.loads(x) for x in out.read_text().splitlines()]
    assert [k["id"] for k in kept] == ["page0", "page1", "page2"]
    assert [k["text"] for k in kept] == [HEAD + BODIES[0] + FOOT, BODIES[1] + "\n", BODIES[2] + "\n"]
    with open(dups, newline="") as f:
        table = list(csv.DictReader(f))
    assert [(t["dropped_id"], t["dropped_unit"], t["kept_id"], t["kept_unit"]) for t in table][:4] == [
        ("page1", "0", "page0", "0"),
        ("page1", "1", "page0", "1"),
        ("page1", "3", "page0", "3"),
        ("page2", "0", "page0", "0"),
    ]
    # --min-kept-words: "Short." alone is too little to keep its page
    code = main(["dedup", str(p), "--unit", "paragraph", "--min-kept-words", "5", "--json", "-q"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["documents"]["dropped_whole"] == [2, 3] and doc["documents"]["kept"] == 2
    code = main(["dedup", str(p), "--unit", "line", "-q"])
    assert code == 1 and "(line 1)" in capsys.readouterr().out
