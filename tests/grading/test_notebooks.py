"""Steps 1-3 of grading (simhash_lab.grading._notebooks): the class-folder walk gives every notebook path
one row and opens nothing it should not, unreadable notebooks say why, and bad metadata is ignored,
not trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from simhash_lab.grading import _grader

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.mark.parametrize(
    "name",
    [
        "02_exercise_simhash_voting.ipynb",  # the learner's file as the build names it
        "02_solution_simhash_voting.ipynb",
        "02_simhash_voting.ipynb",  # as every copy was named before: a student's older clone
        "02_EXERCISE_simhash_voting.IPYNB",
        "02_renamed_by_me.ipynb",  # the only exercise of its number
    ],
)
def test_a_file_without_metadata_is_identified_by_any_of_its_names(name):
    """The metadata names the exercise; without it (stripped by another tool), the file's name does,
    in the learners' spelling of today (``NN_exercise_topic``) and of before (``NN_topic``)."""
    from simhash_lab.grading import _notebooks

    assert _grader.identify({}, f"hand-in/{name}", _grader.load_pristine()) == "02_simhash_voting"
    assert _notebooks.exercise_file("02_simhash_voting") == "02_exercise_simhash_voting.ipynb"
    assert _notebooks.exercise_file("02_simhash_voting", "solution") == "02_solution_simhash_voting.ipynb"
    with pytest.raises(ValueError, match="kind must be one of"):
        _notebooks.exercise_file("02_simhash_voting", "answer")
    with pytest.raises(ValueError, match="an exercise's name, NN_topic"):
        _notebooks.exercise_file("simhash_voting")


def test_the_old_and_new_names_of_every_shipped_exercise_grade_alike(tmp_path):
    """A student who cloned before the rename hands in ``exercises/02_simhash_voting.ipynb``: the
    same notebook under either name is the same exercise, and the repository's files are all named
    as the build names them."""
    from simhash_lab.grading import _notebooks

    pristine = _grader.load_pristine()
    for name in pristine:
        shipped = ROOT / "exercises" / _notebooks.exercise_file(name)
        nb = json.loads(shipped.read_text(encoding="utf-8"))
        for path in (shipped, tmp_path / f"{name}.ipynb"):
            assert _grader.identify(nb, str(path), pristine) == name
            stripped = dict(nb, metadata={})
            assert _grader.identify(stripped, str(path), pristine) == name
        assert (ROOT / "exercises" / "solutions" / _notebooks.exercise_file(name, "solution")).is_file()
