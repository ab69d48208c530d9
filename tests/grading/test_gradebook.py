"""The class's gradebook (simhash_lab.grading.gradebook): its schema and migrations, runs that add
and never lose, totals from the assignment's own list, overrides that survive re-grades, exports a
spreadsheet reads as data, and two processes writing at once. No sandbox: submissions are made here."""

from __future__ import annotations

import csv
import io
import multiprocessing
import sqlite3

import pytest

from simhash_lab._escape import FORMULA_STARTS
from simhash_lab.grading import gradebook as G

EXERCISES = [("03_x", [("a", 2.0, "A"), ("b", 1.0, "B")]), ("05_y", [("c", 3.0, "C")])]
HOSTILE = ["=1+1", "\r=1+1", '\t=HYPERLINK("http://evil")', "+cmd", "-2+3", "@SUM(A1)", "a\nb", "ok"]


def _assignment(ids, names=None) -> dict:
    names = names or {}
    return {
        "version": 2,
        "exercises": [e for e, _a in EXERCISES],
        "students": {
            sid: {
                "name": names.get(sid, sid.title()),
                "email": f"{sid}@x.org",
                "sis_id": f"S-{sid}",
                "login": "",
                "variants": {e: 7 + i for i, (e, _a) in enumerate(EXERCISES)},
            }
            for sid in ids
        },
    }


def _book(path, ids=("alice", "bob", "carol"), names=None) -> G.Gradebook:
    gb = G.Gradebook(path)
    gb.set_assignment(_assignment(ids, names), EXERCISES)
    return gb


def _sub(student, exercise, points_by_key, *, counted=True, path=None, **kw) -> G.Submission:
    """A graded submission: each answer passed when it has all its points."""
    maxima = {k: p for k, p, _t in dict(EXERCISES)[exercise]}
    answers = [G.AnswerGrade(k, p == maxima[k], p / maxima[k], p) for k, p in points_by_key.items()]
    status = "passed" if answers and all(a.passed for a in answers) else "failed"
    return G.Submission(
        student,
        path or f"{exercise}.ipynb",
        exercise,
        status,
        counted=counted,
        points=sum(points_by_key.values()),
        answers=answers,
        **kw,
    )


def _cell(gb, student, exercise):
    return next(c for c in gb.cells([student]) if c.exercise == exercise)


# -- the file ------------------------------------------------------------------------------------------


def test_a_new_gradebook_is_at_the_schema_version_with_its_tables(tmp_path):
    with G.Gradebook(tmp_path / "g.db") as gb:
        assert gb.version == G.SCHEMA_VERSION
    db = sqlite3.connect(tmp_path / "g.db")
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {
        "assignment",
        "student",
        "exercise",
        "answer",
        "run",
        "submission",
        "answer_grade",
        "override",
    } <= tables
    assert db.execute("PRAGMA application_id").fetchone()[0] == G.APPLICATION_ID


def test_an_older_file_is_migrated_keeping_its_grades_and_a_failed_step_changes_nothing(
    tmp_path, monkeypatch
):
    path = tmp_path / "g.db"
    with _book(path) as gb:
        gb.record([_sub("alice", "03_x", {"a": 2.0, "b": 1.0})])
    step = [
        "ALTER TABLE submission ADD COLUMN reviewer TEXT NOT NULL DEFAULT ''",
        "CREATE TABLE note (x TEXT)",
    ]
    monkeypatch.setattr(G, "MIGRATIONS", [*G.MIGRATIONS, step])
    with G.Gradebook(path) as gb:  # brought from version 1 to 2
        assert gb.version == len(G.MIGRATIONS) == 2
        assert _cell(gb, "alice", "03_x").points == 3
    cols = [r[1] for r in sqlite3.connect(path).execute("PRAGMA table_info(submission)")]
    assert "reviewer" in cols
    bad = ["CREATE TABLE later (x TEXT)", "INSERT INTO nowhere VALUES (1)"]  # fails half-way
    monkeypatch.setattr(G, "MIGRATIONS", [*G.MIGRATIONS, bad])
    with pytest.raises(G.GradebookError):
        G.Gradebook(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2  # rolled back whole
    assert not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'later'").fetchone()
    db.close()
    monkeypatch.setattr(G, "MIGRATIONS", G.MIGRATIONS[:-1])
    with G.Gradebook(path.with_name("fresh.db")) as gb:  # a new file gets every step
        assert gb.version == 2
    assert sqlite3.connect(path.with_name("fresh.db")).execute("SELECT count(*) FROM note").fetchone() == (0,)


def test_a_newer_or_foreign_file_is_refused_naming_it(tmp_path):
    newer = tmp_path / "newer.db"
    G.Gradebook(newer).close()
    db = sqlite3.connect(newer)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(G.GradebookError, match="schema version 99, newer"):
        G.Gradebook(newer)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.close()
    with pytest.raises(G.GradebookError, match="not a simhash-lab gradebook"):
        G.Gradebook(other)
    text = tmp_path / "notes.txt"
    text.write_text("not sqlite at all " * 100)
    with pytest.raises(G.GradebookError, match="not a gradebook"):
        G.Gradebook(text)
    assert text.read_text().startswith("not sqlite")  # left as it was
    with pytest.raises(G.GradebookError, match="no gradebook"):
        G.Gradebook(tmp_path / "missing.db", create=False)
    assert not (tmp_path / "missing.db").exists()


def test_another_assignment_is_refused_and_a_grown_roster_is_taken(tmp_path):
    with _book(tmp_path / "g.db") as gb:
        other = _assignment(["alice"])
        other["students"]["alice"]["variants"]["03_x"] = 12345
        with pytest.raises(G.GradebookError, match="another assignment"):
            gb.set_assignment(other, EXERCISES)
        with pytest.raises(G.GradebookError, match="another assignment"):
            gb.set_assignment(_assignment(["alice"]), EXERCISES[:1])
        gb.set_assignment(_assignment(["alice", "bob", "carol", "dave"]), EXERCISES)  # a late joiner
        assert [s["id"] for s in gb.students()] == ["alice", "bob", "carol", "dave"]
        gb.record([_sub("carol", "03_x", {"a": 2.0, "b": 0.0})])
        gb.set_assignment(_assignment(["alice", "bob", "dave"]), EXERCISES)  # carol left the class
        assert [s["id"] for s in gb.students()] == ["alice", "bob", "dave"]
        assert len(gb.submissions("carol")) == 1  # her grades stay in the file


# -- runs and totals -------------------------------------------------------------------------------------


def test_totals_are_the_assignments_exercises_never_a_sum_of_rows(tmp_path):
    with _book(tmp_path / "g.db") as gb:
        gb.record(
            [
                _sub("alice", "03_x", {"a": 2.0, "b": 1.0}),
                _sub("alice", "05_y", {"c": 3.0}),
                # an unassigned exercise and a classmate's-style extra copy: listed, never added
                G.Submission(
                    "alice", "01_z.ipynb", "01_z", "passed", points=4.0, why="not in this assignment"
                ),
                _sub(
                    "alice",
                    "03_x",
                    {"a": 2.0, "b": 1.0},
                    counted=False,
                    path="03 (1).ipynb",
                    why="older copy",
                ),
                _sub("bob", "03_x", {"a": 0.0, "b": 1.0}),
            ]
        )
        totals = gb.totals()
        assert totals == {"alice": (6.0, 6.0), "bob": (1.0, 6.0), "carol": (0.0, 6.0)}
        bob05 = _cell(gb, "bob", "05_y")
        assert bob05.status == "missing" and bob05.points == 0 and bob05.max_points == 3
        alice03 = _cell(gb, "alice", "03_x")
        assert [s.path for s in alice03.others] == ["03 (1).ipynb"]
        with pytest.raises(G.GradebookError, match="one submission counts"):
            gb.record([_sub("bob", "03_x", {"a": 2.0}), _sub("bob", "03_x", {"a": 1.0}, path="b.ipynb")])
        assert gb.totals()["bob"] == (1.0, 6.0)  # the refused run left nothing


def test_a_new_run_replaces_only_what_it_graded_and_loses_nothing(tmp_path):
    with _book(tmp_path / "g.db") as gb:
        first = gb.record(
            [
                _sub("alice", "03_x", {"a": 2.0, "b": 1.0}),
                _sub("bob", "03_x", {"a": 0.0, "b": 0.0}),
                _sub("bob", "05_y", {"c": 3.0}),
            ]
        )
        before = {(c.student, c.exercise): c.points for c in gb.cells()}
        second = gb.record(
            [_sub("bob", "03_x", {"a": 2.0, "b": 0.0}, path="fixed.ipynb")]
        )  # re-grade bob's 03
        after = {(c.student, c.exercise): c.points for c in gb.cells()}
        changed = {k for k in after if after[k] != before[k]}
        assert changed == {("bob", "03_x")} and after[("bob", "03_x")] == 2
        assert _cell(gb, "bob", "05_y").submission.run == first  # not re-graded: its grade stays
        old = [s for s in gb.submissions("bob") if s.exercise == "03_x"]
        assert [(s.path, s.counted, s.superseded) for s in old] == [
            ("03_x.ipynb", False, second),
            ("fixed.ipynb", True, None),
        ]
        assert old[0].answers and old[0].points == 0  # the earlier grade, answers and all, kept


def test_a_late_penalty_takes_its_share_and_an_exercise_override_is_final(tmp_path):
    with _book(tmp_path / "g.db") as gb:
        gb.record([_sub("alice", "03_x", {"a": 2.0, "b": 1.0}, late_days=2, penalty=0.2)])
        assert _cell(gb, "alice", "03_x").points == pytest.approx(2.4)
        gb.add_override("alice", "03_x", 1.0, "b given back", answer="b")
        assert _cell(gb, "alice", "03_x").points == pytest.approx(2.4)  # 1 of 1 already: no change
        gb.add_override("alice", "03_x", 3.0, "the deadline was moved for her")
        assert _cell(gb, "alice", "03_x").points == 3.0


# -- overrides -----------------------------------------------------------------------------------------


def test_overrides_replace_survive_re_grades_and_can_be_removed(tmp_path):
    with _book(tmp_path / "g.db") as gb:
        gb.record([_sub("bob", "03_x", {"a": 0.0, "b": 1.0})])
        first = gb.add_override("bob", "03_x", 1.5, "right idea", answer="a")
        assert _cell(gb, "bob", "03_x").points == 2.5
        gb.add_override("bob", "03_x", 2.0, "fully right on a second look", answer="a")  # replaces the first
        assert _cell(gb, "bob", "03_x").points == 3.0
        gb.record([_sub("bob", "03_x", {"a": 0.0, "b": 0.0}, path="again.ipynb")])  # a re-grade
        c = _cell(gb, "bob", "03_x")
        assert c.points == 2.0 and c.answers == {"a": 2.0, "b": 0.0} and len(c.overrides) == 1
        ex = gb.add_override("bob", "05_y", 1.0, "handed in by mail")  # no submission at all
        assert _cell(gb, "bob", "05_y").points == 1.0 and gb.totals()["bob"] == (3.0, 6.0)
        gb.remove_override(ex)
        assert _cell(gb, "bob", "05_y").points == 0
        every = gb.overrides(active=False)
        assert [o["id"] for o in every] == [first, first + 1, ex] and every[0]["removed"]
        with pytest.raises(G.GradebookError, match="no active override"):
            gb.remove_override(ex)


@pytest.mark.parametrize(
    "args, word",
    [
        (("zed", "03_x", 1.0, "c"), "STUDENT"),
        (("bob", "01_z", 1.0, "c"), "EXERCISE"),
        (("bob", "03_x", 4.0, "c"), "POINTS must be a number from 0 to 3"),
        (("bob", "03_x", -1.0, "c"), "POINTS"),
        (("bob", "03_x", float("nan"), "c"), "POINTS"),
        (("bob", "03_x", 1.0, "  "), "--comment"),
        (("bob", "03_x", 1.0, "c", "nope"), "--answer"),
        (("bob", "03_x", 2.0, "c", "b"), "from 0 to 1"),
    ],
)
def test_a_bad_override_names_its_parameter_and_changes_nothing(tmp_path, args, word):
    with _book(tmp_path / "g.db") as gb:
        with pytest.raises(G.GradebookError, match=word):
            gb.add_override(*args)
        assert gb.overrides(active=False) == []


# -- exports -----------------------------------------------------------------------------------------


def _read(path, bom):
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == bom
    text = raw.decode("utf-8-sig")
    assert text.endswith("\r\n")
    return list(csv.reader(io.StringIO(text, newline="")))


def _unprefix(cell: str) -> str:
    return cell[1:] if cell[:2] in {"'" + c for c in FORMULA_STARTS} else cell


def test_exports_keep_a_hostile_class_as_text_row_by_row(tmp_path):
    ids = [f"s{i}" for i in range(len(HOSTILE))]
    names = dict(zip(ids, HOSTILE))
    with _book(tmp_path / "g.db", ids, names) as gb:
        subs = []
        for i, sid in enumerate(ids):
            subs.append(_sub(sid, "03_x", {"a": 2.0 * (i % 2), "b": 1.0}, path=HOSTILE[i] + ".ipynb"))
            subs.append(G.Submission(sid, "=cmd|' /C calc'!A0.ipynb", "01_z", "not graded", why="=2+2"))
        gb.record(subs)
        gb.add_override("s1", "05_y", 1.0, '=HYPERLINK("http://x") \r\n@evil')
        G.write_csv(gb, tmp_path / "g.csv")
        G.write_canvas(gb, tmp_path / "canvas.csv", "lab 3")
        G.write_moodle(gb, tmp_path / "moodle.csv", "lab 3")
        totals = gb.totals()
    rows = _read(tmp_path / "g.csv", bom=False)
    header, body = rows[0], rows[1:]
    assert len(body) == len(ids) * (len(EXERCISES) + 1)
    for row in rows:
        assert len(row) == len(header)
        for cell in row:  # nothing a spreadsheet runs
            assert not cell.startswith(FORMULA_STARTS) or cell.lstrip("+-").replace(".", "").isdigit(), row
    by = {(r[0], r[4]): dict(zip(header, r)) for r in body}
    for i, sid in enumerate(ids):
        assert _unprefix(by[(sid, "03_x")]["name"]) == HOSTILE[i]  # the text itself, kept
        assert _unprefix(by[(sid, "03_x")]["file"]) == HOSTILE[i] + ".ipynb"
        assert float(by[(sid, "total")]["points"]) == totals[sid][0]
        assert float(by[(sid, "total")]["max_points"]) == 6
    assert _unprefix(by[("s1", "05_y")]["override"]).endswith('=HYPERLINK("http://x") \r\n@evil')
    canvas = _read(tmp_path / "canvas.csv", bom=True)
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "lab 3"]
    assert canvas[1][0] == "Points Possible" and canvas[1][5] == "6"
    assert [(_unprefix(r[0]), r[2], float(r[5])) for r in canvas[2:]] == [
        (HOSTILE[i], f"S-{sid}", totals[sid][0]) for i, sid in enumerate(ids)
    ]
    moodle = _read(tmp_path / "moodle.csv", bom=True)
    assert moodle[0] == ["Full name", "Email address", "ID number", "lab 3", "Feedback"]
    assert [(r[1], float(r[3])) for r in moodle[1:]] == [(f"{sid}@x.org", totals[sid][0]) for sid in ids]
    for path in ("canvas.csv", "moodle.csv"):
        for row in _read(tmp_path / path, bom=True):
            assert not any(c.startswith(FORMULA_STARTS) for c in row), row


def test_an_export_says_which_students_the_lms_cannot_match(tmp_path):
    a = _assignment(["alice", "bob"])
    a["students"]["bob"].update(sis_id="", email="")
    with G.Gradebook(tmp_path / "g.db") as gb:
        gb.set_assignment(a, EXERCISES)
        assert G.write_canvas(gb, tmp_path / "c.csv") == ["bob"]
        assert G.write_moodle(gb, tmp_path / "m.csv") == ["bob"]


# -- two writers ----------------------------------------------------------------------------------------


def _writer(path: str, student: str, n: int) -> None:
    for i in range(n):
        with G.Gradebook(path, timeout=60) as gb:
            gb.set_assignment(_assignment(["alice", "bob", "carol"]), EXERCISES)
            gb.record(
                [
                    _sub(student, "03_x", {"a": 2.0, "b": 1.0}, path=f"{i}.ipynb"),
                    _sub("carol", "05_y", {"c": float(i % 4)}, path=f"{student}-{i}.ipynb"),
                ]
            )


def test_two_processes_grading_into_one_gradebook_both_land_whole(tmp_path):
    path = str(tmp_path / "g.db")
    _book(path).close()
    ctx = multiprocessing.get_context("spawn")
    n = 25
    procs = [ctx.Process(target=_writer, args=(path, sid, n)) for sid in ("alice", "bob")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    with G.Gradebook(path) as gb:
        assert len(gb.runs()) == 2 * n
        subs = gb.submissions()
        assert len(subs) == 4 * n and all(len(s.answers) == (2 if s.exercise == "03_x" else 1) for s in subs)
        for sid, ex in (("alice", "03_x"), ("bob", "03_x"), ("carol", "05_y")):  # one counts, the last run's
            counted = [s for s in subs if (s.student, s.exercise) == (sid, ex) and s.counted]
            last = max(s.run for s in subs if (s.student, s.exercise) == (sid, ex))
            assert len(counted) == 1 and counted[0].run == last
        assert gb.totals()["alice"] == gb.totals()["bob"] == (3.0, 6.0)
