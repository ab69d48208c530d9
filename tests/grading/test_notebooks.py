"""Steps 1-3 of grading (simhash_lab.grading._notebooks): the class-folder walk gives every notebook path
one row and opens nothing it should not, unreadable notebooks say why, and bad metadata is ignored,
not trusted."""

from __future__ import annotations

import os

import pytest

from simhash_lab.grading import _grader


def test_collect_gives_every_notebook_path_one_item_and_reads_nothing(tmp_path):
    cls = tmp_path / "class"
    (cls / "sub" / "deeper").mkdir(parents=True)
    (cls / "sub" / "deeper" / "x.IpYnB").write_text("{}")
    (cls / ".hidden.ipynb").write_text("{}")
    (cls / "folder.ipynb").mkdir()
    (cls / "readme.md").write_text("")
    os.mkfifo(cls / "pipe.ipynb")
    os.symlink("/dev/zero", cls / "zero.ipynb")
    os.symlink(tmp_path / "nowhere", cls / "broken.ipynb")
    (tmp_path / "outside.ipynb").write_text("{}")
    os.symlink(tmp_path / "outside.ipynb", cls / "out.ipynb")
    items = {
        os.path.relpath(i.path, cls): i.problem for i in _grader.collect([cls, tmp_path / "missing.ipynb"])
    }
    assert set(items) == {
        "sub/deeper/x.IpYnB",
        ".hidden.ipynb",
        "folder.ipynb",
        "pipe.ipynb",
        "zero.ipynb",
        "broken.ipynb",
        "out.ipynb",
        "../missing.ipynb",
    }
    assert items["sub/deeper/x.IpYnB"] is None and items[".hidden.ipynb"] is None
    assert "FIFO" in items["pipe.ipynb"] and "character device" in items["zero.ipynb"]
    assert "broken" in items["broken.ipynb"] and "out of the folder" in items["out.ipynb"]
    assert "directory" in items["folder.ipynb"] and "No such file" in items["../missing.ipynb"]


@pytest.mark.parametrize(
    "content, why",
    [
        (b"{ nope", "not JSON"),
        (b"[1, 2]", "not a notebook"),
        (b'{"cells": 5}', "not a notebook"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    ],
)
def test_unreadable_notebooks_say_why(tmp_path, content, why):
    p = tmp_path / "x.ipynb"
    p.write_bytes(content)
    r = _grader.grade_one(p)
    assert r.status == "not gradable" and why in r.first_hint, r.first_hint


def test_bad_metadata_is_ignored_not_trusted(tmp_path):
    nb = {
        "cells": [{"cell_type": "code", "metadata": "x", "source": 5}, "not a cell"],
        "metadata": {"simhash_lab": "x"},
    }
    assert _grader.identify(nb, "03_hamming_popcount.ipynb", _grader.load_pristine()) == "03_hamming_popcount"
    assert _grader.identify(nb, "mine.ipynb", _grader.load_pristine()) is None
    pristine = _grader.load_pristine()["03_hamming_popcount"]
    _, roles, found = _grader.assemble(pristine, nb)
    assert set(found.values()) == {"stub"} and [r["role"] for r in roles].count("answer") == 4
