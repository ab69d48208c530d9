"""``simhash-lab override`` (simhash_lab.cli.override): a teacher's points in a class's gradebook,
set, listed, withdrawn, or read from a CSV; a bad student, exercise, answer, points or file is one
line naming it and status 2, and changes nothing. That an override survives re-grades is tested
in tests/grading/test_gradebook.py and test_classroom.py."""

from __future__ import annotations

import json

import pytest

from simhash_lab.cli import main

pytest.importorskip("nbformat")


@pytest.fixture
def release(tmp_path):
    from simhash_lab.grading import classroom
    from simhash_lab.grading import gradebook as G

    rel = tmp_path / "release" / "private"
    rel.mkdir(parents=True)
    a = {
        "version": 2,
        "exercises": ["03_hamming_popcount", "05_block_index"],
        "students": {
            s: {"name": s, "variants": {"03_hamming_popcount": 5, "05_block_index": 6}} for s in ("ada", "bo")
        },
    }
    (rel / "assignment.json").write_text(json.dumps(a))
    with classroom.open_gradebook(classroom.locate(rel / "assignment.json", None)) as gb:
        answers = [
            G.AnswerGrade(k, p > 0, 1.0 if p else 0.0, p) for k, p in (("hamming_by_hand", 2), ("xor_AB", 0))
        ]
        gb.record(
            [
                G.Submission(
                    "ada",
                    "03.ipynb",
                    "03_hamming_popcount",
                    "failed",
                    counted=True,
                    points=2,
                    answers=answers,
                )
            ]
        )
    return tmp_path / "release"


def _cells(release):
    from simhash_lab.grading import gradebook as G

    with G.Gradebook(release / "private" / "gradebook.db", create=False) as gb:
        return {(c.student, c.exercise): c.points for c in gb.cells()}, gb.overrides(active=False)


def test_an_override_sets_points_shows_the_change_and_is_listed_and_removed(release, capsys):
    assert (
        main(["override", "ada", "03", "6.5", "--comment", "is_near was right", "--assignment", str(release)])
        == 0
    )
    assert capsys.readouterr().out == "ada 03_hamming_popcount: 2 -> 6.5 of 7 (is_near was right)\n"
    args = ["override", "ada", "03_hamming_popcount", "1", "--answer", "xor_AB", "--comment", "<b>ok</b>"]
    assert main([*args, "--assignment", str(release)]) == 0
    capsys.readouterr()
    cells, overrides = _cells(release)
    assert cells[("ada", "03_hamming_popcount")] == 6.5 and len(overrides) == 2
    assert main(["override", "--list", "ada", "--assignment", str(release)]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 2 and listed[0].startswith("#1 ada 03_hamming_popcount = 6.5: is_near was right")
    assert main(["override", "--remove", "1", "--assignment", str(release)]) == 0
    assert capsys.readouterr().out.startswith("removed: #1 ada")
    cells, overrides = _cells(release)
    assert cells[("ada", "03_hamming_popcount")] == 3 and overrides[0]["removed"]  # 2 graded + xor_AB's 1


def test_a_csv_of_overrides_is_checked_whole_before_any_is_stored(release, tmp_path, capsys):
    good = (
        "id,exercise,points,comment,answer\nada,05,2,handed in by mail,\n"
        "bo,03_hamming_popcount,1,partial,xor_AB\n"
    )
    (tmp_path / "o.csv").write_text(good + "bo,05,9,too many,\n")
    assert main(["override", "--from", str(tmp_path / "o.csv"), "--assignment", str(release)]) == 2
    err = capsys.readouterr().err
    assert "line 4" in err and "POINTS must be a number from 0 to 3" in err and err.count("\n") == 1
    assert _cells(release)[1] == []  # nothing of it stored
    (tmp_path / "o.csv").write_text(good)
    assert main(["override", "--from", str(tmp_path / "o.csv"), "--assignment", str(release)]) == 0
    cells, overrides = _cells(release)
    assert cells[("ada", "05_block_index")] == 2 and cells[("bo", "03_hamming_popcount")] == 1
    assert len(overrides) == 2


@pytest.mark.parametrize(
    "args, word",
    [
        (["zed", "03", "1", "--comment", "x"], "STUDENT"),
        (["ada", "01", "1", "--comment", "x"], "EXERCISE"),
        (["ada", "03", "8", "--comment", "x"], "POINTS must be a number from 0 to 7"),
        (["ada", "03", "nan", "--comment", "x"], "POINTS must be a number"),
        (["ada", "03", "1"], "--comment"),
        (["ada", "03", "1", "--comment", "x", "--answer", "nope"], "--answer"),
        (["ada", "03"], "three values"),
        ([], "give STUDENT EXERCISE POINTS"),
        (["--remove", "9"], "no active override #9"),
    ],
)
def test_a_bad_override_is_one_line_naming_it_and_changes_nothing(release, capsys, args, word):
    assert main(["override", *args, "--assignment", str(release)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab override: ") and word in err and err.count("\n") == 1, err
    assert _cells(release)[1] == []


def test_no_gradebook_yet_is_one_line(tmp_path, capsys):
    rel = tmp_path / "release" / "private"
    rel.mkdir(parents=True)
    (rel / "assignment.json").write_text(
        json.dumps({"version": 2, "exercises": ["03_hamming_popcount"], "students": {"a": {"variants": {}}}})
    )
    assert (
        main(["override", "a", "03", "1", "--comment", "x", "--assignment", str(tmp_path / "release")]) == 2
    )
    assert "no gradebook" in capsys.readouterr().err and not (rel / "gradebook.db").exists()
