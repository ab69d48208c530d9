"""``simhash-lab grade``'s command line (simhash_lab.cli.grade): options that cannot go together,
bad values, nothing to grade and outputs that would land inside what is graded are one line naming
the option and status 2, before any notebook runs; the exports of a class's gradebook need no
grading. The grading itself (in the sandbox) is tested in tests/grading/."""

from __future__ import annotations

import csv
import json
import os

import pytest

from simhash_lab.cli import main

# the grading extra (make test-lib has none): without it the command says so before anything else
pytest.importorskip("nbformat")
pytest.importorskip("IPython")


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--csv", "x.csv"], "--csv, --canvas, --moodle and --feedback need --assignment"),
        (["--feedback", "fb"], "--csv, --canvas, --moodle and --feedback need --assignment"),
        (["--canvas", "c.csv"], "--csv, --canvas, --moodle and --feedback need --assignment"),
        (["--deadline", "2026-12-10"], "--deadline needs --assignment"),
        (
            ["--assignment", "a.json", "--own-variant"],
            "--own-variant and --assignment cannot be used together",
        ),
        (["--assignment", "a.json", "--exercise", "03_hamming_popcount"], "--exercise and --assignment"),
        (
            ["--assignment", "a.json", "--late-penalty", "10"],
            "--late-penalty and --late-limit need --deadline",
        ),
    ],
)
def test_options_that_cannot_go_together_are_one_line_and_status_2(tmp_path, capsys, extra, words):
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    assert main(["grade", str(nb), *extra]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"simhash-lab grade: {words}"), err


def test_nothing_to_grade_is_status_2(tmp_path, capsys):
    assert main(["grade", str(tmp_path)]) == 2  # an empty folder
    assert capsys.readouterr().err == "simhash-lab grade: no notebooks found\n"
    assert main(["grade"]) == 2
    assert "give NOTEBOOK" in capsys.readouterr().err


@pytest.mark.parametrize(
    "option, value", [("--jobs", "0"), ("--jobs", "two"), ("--late-penalty", "120"), ("--timeout", "-1")]
)
def test_a_bad_value_is_argparses_status_2_naming_the_option(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as e:
        main(["grade", str(tmp_path), option, value])
    assert e.value.code == 2 and option in capsys.readouterr().err


def test_an_unknown_exercise_is_one_line_and_status_2(tmp_path, capsys):
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    assert main(["grade", str(nb), "--exercise", "99_nothing", "--unsafe-no-sandbox"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab grade: --exercise") and err.count("\n") == 1, err


def test_jobs_default_to_the_cores_and_jobs_and_timeout_are_documented(capsys):
    from simhash_lab.cli.grade import default_jobs

    assert default_jobs() == len(os.sched_getaffinity(0))
    with pytest.raises(SystemExit):
        main(["grade", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"the cores this process may use, {default_jobs()} here" in text
    assert "seconds for one notebook, every run of it included (default 240)" in text


# -- a class: outputs and exports ---------------------------------------------------------------------


@pytest.fixture
def klass(tmp_path):
    """A release (private/assignment.json), a submissions folder with alice's notebook, and the
    notebook's bytes, to see that nothing touched it."""
    rel = tmp_path / "release" / "private"
    rel.mkdir(parents=True)
    a = {
        "version": 2,
        "exercises": ["03_hamming_popcount"],
        "students": {
            "alice": {
                "name": "=Alice",
                "email": "a@x.org",
                "sis_id": "S1",
                "variants": {"03_hamming_popcount": 5},
            },
            "bob": {"name": "Bob", "variants": {"03_hamming_popcount": 6}},
        },
    }
    (rel / "assignment.json").write_text(json.dumps(a))
    nb = tmp_path / "subs" / "alice" / "03_hamming_popcount.ipynb"
    nb.parent.mkdir(parents=True)
    nb.write_text('{"cells": []}')
    return tmp_path, nb, nb.read_bytes()


@pytest.mark.parametrize(
    "option, where",
    [
        ("--json", "subs/alice/03_hamming_popcount.ipynb"),
        ("--json", "subs/alice/new.json"),
        ("--csv", "subs/grades.csv"),
        ("--canvas", "release/handout.csv"),
        ("--moodle", "release/private/assignment.json"),
        ("--feedback", "subs/fb"),
        ("--gradebook", "subs/alice/gradebook.db"),
    ],
)
def test_an_output_inside_the_submissions_or_the_release_is_refused_before_grading(
    klass, capsys, option, where
):
    d, nb, before = klass
    args = ["grade", str(d / "subs"), "--assignment", str(d / "release"), option, str(d / where)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"simhash-lab grade: {option}") and "inside" in err and err.count("\n") == 1, err
    assert nb.read_bytes() == before and not (d / "release/private/gradebook.db").exists()
    assert sorted(p.name for p in (d / "subs" / "alice").iterdir()) == ["03_hamming_popcount.ipynb"]


def test_an_output_linked_into_the_submissions_is_refused(klass, capsys):
    d, nb, before = klass
    (d / "out.json").symlink_to(nb)
    assert (
        main(["grade", str(d / "subs" / "alice"), "--json", str(d / "out.json"), "--unsafe-no-sandbox"]) == 2
    )
    assert "--json" in capsys.readouterr().err and nb.read_bytes() == before


def test_the_exports_are_views_of_the_gradebook_without_grading(klass, capsys):
    from simhash_lab.grading import classroom
    from simhash_lab.grading import gradebook as G

    d, nb, before = klass
    assert main(["grade", "--assignment", str(d / "release"), "--csv", str(d / "g.csv")]) == 2
    assert "no gradebook" in capsys.readouterr().err  # nothing graded yet: nothing to export
    located = classroom.locate(d / "release", None)
    with classroom.open_gradebook(located) as gb:
        keys = (("hamming_by_hand", 2), ("xor_AB", 1), ("popcount_kernighan", 2), ("is_near", 0))
        answers = [G.AnswerGrade(k, p > 0, 1.0 if p else 0.0, p) for k, p in keys]
        sub = G.Submission(
            "alice", "03.ipynb", "03_hamming_popcount", "failed", counted=True, points=5, answers=answers
        )
        gb.record([sub])
    args = ["--csv", str(d / "g.csv"), "--canvas", str(d / "c.csv"), "--moodle", str(d / "m.csv")]
    assert main(["grade", "--gradebook", str(d / "release/private/gradebook.db"), *args]) == 0
    out, err = capsys.readouterr()
    assert "alice" in out and "5/7" in out and "bob" in out and "missing" in out
    assert "--canvas: 1 students have no id the LMS matches" in err and "bob" in err
    with open(d / "g.csv", newline="", encoding="utf-8") as f:
        rows = {(r["id"], r["exercise"]): r for r in csv.DictReader(f)}
    assert rows[("alice", "total")]["points"] == "5" and rows[("alice", "total")]["name"] == "'=Alice"
    assert rows[("bob", "03_hamming_popcount")]["status"] == "missing"
    assert (d / "c.csv").read_bytes().startswith(b"\xef\xbb\xbfStudent,ID,SIS User ID")
    # named by its gradebook alone, the class's release is still known: no export goes inside it
    gradebook = str(d / "release/private/gradebook.db")
    assert main(["grade", "--gradebook", gradebook, "--csv", str(d / "release/grades.csv")]) == 2
    assert "inside the release" in capsys.readouterr().err and not (d / "release/grades.csv").exists()
