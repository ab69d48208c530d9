"""The classroom (simhash_lab.grading.classroom): ``simhash-lab assign`` (a variant per student, the
handout apart from the teacher's private files), and how a class's folders become grades: which
files count (the assignment's exercises, one copy each by a named rule, a deadline), whose folder
is whose, re-grading one student, the teacher's table, the student's feedback, the CI file.

The grading itself is replaced here by a stand-in that reads the points a test notebook declares
(so these tests need no sandbox); the whole class in the sandbox, hostile, is
``test_classroom_hostile.py``, and the CI file run as written ``test_classroom_ci.py``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from simhash_lab.grading import checks, classroom, data
from simhash_lab.grading import gradebook as G
from simhash_lab.grading._notebooks import exercise_file
from simhash_lab.grading._report import CheckResult, GradeResult

EXS = ["02_simhash_voting", "03_hamming_popcount"]
SECRET = "5ec2e7" * 8  # 24 bytes of hex: a fixed secret, so the variants are fixed
STUDENTS = ["alice", "bob", "carol"]


def _cli(args: list[str], cwd: Path, kit) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")]),
        "SIMHASH_LAB_ON_COMPILE": "error",
    }
    return subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=1800,
    )


@pytest.fixture(scope="module")
def release(kit, tmp_path_factory):
    d = tmp_path_factory.mktemp("release")
    (d / "roster.csv").write_text(
        "ID,Name,Email,SIS User ID\nalice,Alice A,a@example.org,S-1\nbob,Bob,,\ncarol,,c@example.org,\n"
    )
    (d / "secret.hex").write_text(SECRET + "\n")
    args = [
        "assign",
        str(kit.EXERCISES),
        "--roster",
        "roster.csv",
        "--out",
        "release",
        "--secret",
        "secret.hex",
    ]
    ci = ["--ci", "github", "--ci-package", "simhash-lab[grading] @ git+https://example.org/lab.git@v1"]
    p = _cli([*args, *(x for e in EXS for x in ("--exercise", e)), *ci], d, kit)
    assert p.returncode == 0, p.stderr
    assert "handout" in p.stdout and "git+https://example.org/lab.git@v1" in p.stdout
    return d, json.loads((d / "release" / "private" / "assignment.json").read_text())


def _hand_answers(name: str):
    return [a for a in checks.EXERCISES[name].answers if getattr(a, "hand", None) is not None]


def _cells(nb_path: Path):
    return nbformat.read(nb_path, as_version=4).cells


# -- assign ------------------------------------------------------------------------------------------


def test_the_handout_holds_each_students_notebooks_and_nothing_private(release):
    d, a = release
    rel = d / "release"
    assert sorted(p.name for p in rel.iterdir()) == ["handout", "private"]
    handout = sorted(str(p.relative_to(rel / "handout")) for p in (rel / "handout").rglob("*") if p.is_file())
    assert handout == sorted(
        [f"{s}/{exercise_file(e)}" for s in STUDENTS for e in EXS]
        + [f"{s}/.github/workflows/grade.yml" for s in STUDENTS]
    )
    for p in (rel / "handout").rglob("*"):  # no secret, variant table or solution in what is handed out
        if p.is_file():
            text = p.read_text(encoding="utf-8")
            assert SECRET not in text and '"variants"' not in text and "### BEGIN SOLUTION" not in text, p
    private = sorted(str(p.relative_to(rel / "private")) for p in (rel / "private").rglob("*") if p.is_file())
    assert private == sorted(
        ["assignment.json", *(f"solutions/{s}/{exercise_file(e, 'solution')}" for s in STUDENTS for e in EXS)]
    )
    assert a["students"]["alice"] | {"variants": None} == {
        "name": "Alice A",
        "email": "a@example.org",
        "sis_id": "S-1",
        "login": "",
        "variants": None,
    }
    assert a["students"]["carol"]["email"] == "c@example.org" and a["ci"]["kind"] == "github"


def test_assign_writes_a_notebook_and_a_solved_copy_per_student_on_their_variant(release):
    d, a = release
    rel = d / "release"
    assert a["exercises"] == EXS and list(a["students"]) == STUDENTS
    assert SECRET not in (rel / "private/assignment.json").read_text()  # the secret stays in its file
    key = bytes.fromhex(SECRET)
    seen = set()
    for sid in STUDENTS:
        for e in EXS:
            v = a["students"][sid]["variants"][e]
            assert v == classroom.variant_for(key, e, sid)
            seen.add(v)
            for base, kind in (("handout", "exercise"), ("private/solutions", "solution")):
                nb = nbformat.read(rel / base / sid / exercise_file(e, kind), as_version=4)
                assert SECRET not in json.dumps(nb)
                meta = nb.metadata["simhash_lab"]
                assert {k: meta[k] for k in ("exercise", "student", "variant")} == {
                    "exercise": e,
                    "student": sid,
                    "variant": v,
                }
                assert meta["lang"] == "en"
                first = next(c for c in nb.cells if c.cell_type == "code")
                assert f"data.use_variant({v})" in first.source and "setup" in first.metadata["tags"]
                assert all(c.get("outputs", []) == [] for c in nb.cells if c.cell_type == "code")
    assert len(seen) == len(STUDENTS) * len(EXS)
    (a_, b_), (c_, d_) = data.hamming_pairs(a["students"]["bob"]["variants"]["03_hamming_popcount"])
    md = "".join(
        c.source
        for c in _cells(rel / "handout/bob/03_exercise_hamming_popcount.ipynb")
        if c.cell_type == "markdown"
    )
    assert f"`A = {a_:06b}`, `B = {b_:06b}`" in md and f"`C = {c_:07b}`, `D = {d_:07b}`" in md
    six = data.six_accumulators(a["students"]["carol"]["variants"]["02_simhash_voting"])
    md = "".join(
        c.source
        for c in _cells(rel / "handout/carol/02_exercise_simhash_voting.ipynb")
        if c.cell_type == "markdown"
    )
    assert f"`{list(six)}`" in md and "[13, 108, -22, -5, -32, 55]" not in md
    assert not (rel / "private/secret.key").exists()  # --secret: no other secret made


def test_a_made_secret_is_the_teachers_alone_and_gives_the_same_variants_again(kit, tmp_path):
    (tmp_path / "r.csv").write_text("id\ns1\n")
    args = [
        "assign",
        str(kit.EXERCISES),
        "--roster",
        "r.csv",
        "--out",
        "rel",
        "--exercise",
        "03_hamming_popcount",
    ]
    assert _cli(args, tmp_path, kit).returncode == 0
    key = tmp_path / "rel" / "private" / "secret.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "rel" / "private").stat().st_mode) == 0o700
    first = json.loads((tmp_path / "rel/private/assignment.json").read_text())
    (tmp_path / "r.csv").write_text("id\ns1\ns2\n")  # a late joiner: the same secret, the same variants
    assert _cli(args, tmp_path, kit).returncode == 0
    again = json.loads((tmp_path / "rel/private/assignment.json").read_text())
    assert again["students"]["s1"] == first["students"]["s1"] and "s2" in again["students"]
    old = tmp_path / "old"  # a release of the earlier layout: its secret is not silently replaced
    old.mkdir()
    (old / "secret.key").write_text(SECRET)
    p = _cli([*args[:5], "old", *args[6:]], tmp_path, kit)
    assert p.returncode == 2 and "--secret" in p.stderr and not (old / "private").exists()


def test_assign_reads_an_older_checkouts_exercises_and_writes_todays_names(kit, tmp_path):
    """An ``exercises/`` folder of before the learners' files named their kind (``03_topic.ipynb``,
    ``solutions/03_topic.ipynb``) is released as today's (``03_exercise_topic.ipynb`` handed out,
    ``03_solution_topic.ipynb`` kept); a solution's file in the folder is never handed out."""
    import shutil

    old = tmp_path / "exercises"
    (old / "solutions").mkdir(parents=True)
    shutil.copy(kit.exercise("03_hamming_popcount"), old / "03_hamming_popcount.ipynb")
    shutil.copy(kit.solution("03_hamming_popcount"), old / "solutions" / "03_hamming_popcount.ipynb")
    shutil.copy(
        kit.solution("05_block_index"), old / "05_solution_block_index.ipynb"
    )  # a solution, misplaced
    (tmp_path / "r.csv").write_text("id\ns1\n")
    a = classroom.assign(old, tmp_path / "r.csv", tmp_path / "rel")
    assert a["exercises"] == ["03_hamming_popcount"]
    files = sorted(p.relative_to(tmp_path / "rel").as_posix() for p in (tmp_path / "rel").rglob("*.ipynb"))
    assert files == [
        "handout/s1/03_exercise_hamming_popcount.ipynb",
        "private/solutions/s1/03_solution_hamming_popcount.ipynb",
    ]


def test_a_students_setup_cell_speaks_the_language_of_their_notebook(kit):
    """Issue 47: the comment of the hidden setup cell ``assign`` adds is in the notebook's language
    (a Spanish exercise's was English); the cell and its metadata are the same in both."""
    firsts = {}
    for lang, folder in (("en", kit.ROOT / "exercises"), ("es", kit.ROOT / "exercises" / "es")):
        nb = nbformat.read(folder / exercise_file("03_hamming_popcount"), as_version=4)
        out = classroom.personalize(nb, "03_hamming_popcount", "s1", 7, solved=False)
        setup = next(c for c in out.cells if c.cell_type == "code")
        assert setup.metadata["simhash_lab"] == {"role": "setup", "variant": 7}, lang
        first, *rest = setup.source.splitlines()
        assert rest == ["from simhash_lab.grading import data", "", "data.use_variant(7)"], lang
        firsts[lang] = first
    assert firsts["en"].startswith("# Your own variant of this exercise's data (grading uses it too)")
    assert firsts["es"].startswith("# Tu propia variante de los datos de este ejercicio")


@pytest.mark.parametrize(
    "roster, word",
    [("id\n../x\n", "not a safe folder name"), ("id\na\na\n", "used twice"), ("name\nA\n", "`id` column")],
)
def test_a_bad_roster_is_one_line_naming_it_and_status_2(kit, tmp_path, roster, word):
    (tmp_path / "r.csv").write_text(roster)
    p = _cli(["assign", str(kit.EXERCISES), "--roster", "r.csv", "--out", "rel"], tmp_path, kit)
    assert p.returncode == 2 and "--roster" in p.stderr and word in p.stderr and "Traceback" not in p.stderr


def test_the_check_cells_judge_the_students_variant_in_their_kernel(release, capsys):
    """In a student's kernel (the setup cell ran ``use_variant``), their solved values pass and a
    classmate's fail (where the two variants' answers differ)."""
    d, a = release
    try:
        for e in EXS:
            for sid in STUDENTS:
                data.use_variant(a["students"][sid]["variants"][e])
                other = a["students"][STUDENTS[(STUDENTS.index(sid) + 1) % 3]]["variants"][e]
                for ans in _hand_answers(e):
                    mine, theirs = ans.hand(None), ans.hand(other)
                    ans(*mine.values())
                    assert capsys.readouterr().out == ans.pass_line()
                    if theirs != mine:
                        ans(*theirs.values())
                        assert "not yet" in capsys.readouterr().out
    finally:
        data.use_variant(None)


def test_an_answer_with_parts_gets_credit_per_part():
    ans = checks.hamming_by_hand
    v = 12345
    right = ans.hand(v)
    exported = {k: {"ok": x} for k, x in {**right, "d_CD": right["d_CD"] + 1}.items()}
    assert not ans.verdict(exported, v).passed
    assert ans.part_credit(exported, v) == 0.5
    assert ans.part_credit({k: {"ok": x + 1} for k, x in right.items()}, v) == 0
    assert checks.xor_AB.part_credit({"xor_AB": {"ok": 0}}, v) == 0  # one part: all or nothing


# -- which files count: grade_class with a stand-in grader ----------------------------------------------

ASSIGNED = ["03_hamming_popcount", "05_block_index"]  # 7 + 3 points
T0 = 1_800_000_000  # file times, seconds since the epoch


def _assignment(ids=("alice", "bob", "carol", "dave")) -> dict:
    return {
        "version": 2,
        "exercises": ASSIGNED,
        "students": {
            s: {
                "name": s.title(),
                "email": "",
                "sis_id": "",
                "login": "",
                "variants": {e: 100 * k + i for i, e in enumerate(ASSIGNED)},
            }
            for k, s in enumerate(ids)
        },
    }


def _nb(
    path: Path, exercise: str | None, credit: float = 1.0, *, t: float = T0, raw: bytes | None = None
) -> Path:
    """A notebook the stand-in grades: its exercise (metadata) and the share of each answer's points."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = path.parts
    student = parts[parts.index("subs") + 1] if "subs" in parts else None
    meta = {"simhash_lab": {"exercise": exercise, "credit": credit, "student": student}} if exercise else {}
    path.write_bytes(raw if raw is not None else json.dumps({"cells": [], "metadata": meta}).encode())
    os.utime(path, (t, t))
    return path


class StandIn:
    """Grades each notebook by the credit it declares; remembers what it was asked to grade and
    the variants it was told."""

    def __init__(self):
        self.calls: list[list[str]] = []
        self.shown: dict[str, dict] = {}

    def __call__(self, paths, *, shown=None, **options):
        self.calls.append(list(paths))
        out = []
        for p in paths:
            meta = json.loads(Path(p).read_text())["metadata"]["simhash_lab"]
            e, credit = meta["exercise"], meta["credit"]
            self.shown[p] = (meta["student"], shown(p))
            cs = [CheckResult(a.key, credit == 1, credit=credit) for a in checks.EXERCISES[e].answers]
            out.append(
                GradeResult(p, e, "passed" if credit == 1 else "failed", cs, "" if credit == 1 else "wrong")
            )
        return out


def _run(tmp_path, folders, *, ids=("alice", "bob", "carol", "dave"), stand_in=None, **kw):
    located = classroom.Located(_assignment(ids), str(tmp_path / "g.db"), None)
    stand_in = stand_in or StandIn()
    with classroom.open_gradebook(located) as gb:
        done = classroom.grade_class([str(f) for f in folders], located, gb, grade=stand_in, **kw)
        cells = {(c.student, c.exercise): c for c in gb.cells()}
        stand_in.table = classroom.format_class_table(gb, done)
        return done, cells, gb.totals(), stand_in


def _listed(done, student):
    return {s.path: s.why for s in done.submissions if s.student == student and not s.counted}


def test_only_the_assignments_exercises_count_one_copy_each_the_latest(tmp_path):
    subs = tmp_path / "subs"
    _nb(subs / "alice/03_hamming_popcount.ipynb", "03_hamming_popcount")
    _nb(subs / "alice/05_block_index.ipynb", "05_block_index")
    _nb(subs / "alice/exercises/solutions/01_lsh_vs_crypto.ipynb", "01_lsh_vs_crypto")  # not assigned
    _nb(subs / "alice/05_renamed.ipynb", "01_lsh_vs_crypto")  # its metadata names another exercise
    for name, credit, t in (
        ("03 (1).ipynb", 0, 1),
        ("old/03_hamming_popcount.ipynb", 0, 2),
        (".hidden/03_hamming_popcount.ipynb", 0, 3),
        ("03_hamming_popcount.ipynb", 1, 4),
    ):
        _nb(subs / "bob" / name, "03_hamming_popcount", credit, t=T0 + t)
    _nb(subs / "bob/05_block_index.ipynb", "05_block_index", 0)
    _nb(subs / "carol/03_old.ipynb", "03_hamming_popcount", 1, t=T0)  # an old and a new 03: the new counts
    _nb(subs / "carol/03_new.ipynb", "03_hamming_popcount", 0.5, t=T0 + 60)
    done, cells, totals, grader = _run(tmp_path, [subs])
    assert totals == {"alice": (10, 10), "bob": (7, 10), "carol": (3.5, 10), "dave": (0, 10)}
    unassigned = "01_lsh_vs_crypto is not in this assignment: not graded"
    assert _listed(done, "alice") == {
        "exercises/solutions/01_lsh_vs_crypto.ipynb": unassigned,
        "05_renamed.ipynb": unassigned,
    }
    assert set(_listed(done, "bob")) == {
        "03 (1).ipynb",
        "old/03_hamming_popcount.ipynb",
        ".hidden/03_hamming_popcount.ipynb",
    }
    assert all("an older copy" in w for w in _listed(done, "bob").values())
    assert cells[("bob", "03_hamming_popcount")].submission.path == "03_hamming_popcount.ipynb"
    assert len(cells[("bob", "03_hamming_popcount")].others) == 3
    assert cells[("dave", "05_block_index")].status == "missing"
    assert done.students == ["alice", "bob", "carol", "dave"]  # dave, with no folder, is in the run's table
    assert re.search(r"^dave +05_block_index +0/3 +missing +not handed in$", grader.table, re.M), grader.table
    assert sum(len(c) for c in grader.calls) == 5  # only the copies that count are graded
    variants = {s: v["variants"] for s, v in _assignment()["students"].items()}
    assert len(grader.shown) == 5
    for _path, (student, shown) in grader.shown.items():  # each on its own student's variants
        assert shown == variants[student]


@pytest.mark.parametrize("rule, want", [("earliest", 7), ("best", 7), ("latest", 3.5)])
def test_the_rule_names_which_copy_counts(tmp_path, rule, want):
    _nb(tmp_path / "subs/carol/a.ipynb", "03_hamming_popcount", 1, t=T0)
    _nb(tmp_path / "subs/carol/b.ipynb", "03_hamming_popcount", 0.5, t=T0 + 60)
    _nb(tmp_path / "subs/carol/c.ipynb", "03_hamming_popcount", 0, t=T0 + 30)
    done, cells, totals, grader = _run(tmp_path, [tmp_path / "subs"], rule=rule)
    assert totals["carol"] == (want, 10)
    assert sum(len(c) for c in grader.calls) == (3 if rule == "best" else 1)
    assert len(_listed(done, "carol")) == 2 and all(rule in w for w in _listed(done, "carol").values())


def test_the_best_rule_with_a_broken_copy_counts_one_and_says_why_for_each(tmp_path):
    _nb(tmp_path / "subs/carol/03_hamming_popcount.ipynb", None, raw=b"{broken", t=T0 + 90)  # latest
    _nb(tmp_path / "subs/carol/a.ipynb", "03_hamming_popcount", 0.5, t=T0)
    _nb(tmp_path / "subs/carol/b.ipynb", "03_hamming_popcount", 1, t=T0 + 30)
    _nb(tmp_path / "subs/dave/03_hamming_popcount.ipynb", None, raw=b"{broken", t=T0)  # nothing else
    _nb(tmp_path / "subs/dave/03_hamming_popcount (2).ipynb", None, raw=b"{also", t=T0 + 5)
    done, cells, totals, _g = _run(tmp_path, [tmp_path / "subs"], rule="best")
    assert cells[("carol", "03_hamming_popcount")].submission.path == "b.ipynb" and totals["carol"][0] == 7
    assert _listed(done, "carol") == {
        "03_hamming_popcount.ipynb": "not a notebook: another copy of this exercise counts",
        "a.ipynb": "fewer points than another copy: the best counts (rule: best)",
    }
    dave = cells[("dave", "03_hamming_popcount")]
    assert dave.status == "not gradable" and dave.submission.path == "03_hamming_popcount (2).ipynb"
    assert len(dave.others) == 1


def test_a_deadline_takes_a_share_per_day_late_and_refuses_past_its_limit(tmp_path):
    from datetime import datetime, timedelta, timezone

    deadline = datetime.fromtimestamp(T0, timezone.utc)
    _nb(tmp_path / "subs/alice/03_hamming_popcount.ipynb", "03_hamming_popcount", 1, t=T0 - 10)  # on time
    _nb(
        tmp_path / "subs/bob/03_hamming_popcount.ipynb", "03_hamming_popcount", 1, t=T0 + 2.5 * 86400
    )  # 3 days
    _nb(tmp_path / "subs/carol/03_a.ipynb", "03_hamming_popcount", 0.5, t=T0 + 3600)  # 1 day
    _nb(tmp_path / "subs/carol/03_b.ipynb", "03_hamming_popcount", 1, t=T0 + 9 * 86400)  # past the limit
    late = classroom.LatePolicy(deadline, 0.1, 5)
    done, cells, totals, _g = _run(tmp_path, [tmp_path / "subs"], late=late)
    assert totals["alice"] == (7, 10)
    bob = cells[("bob", "03_hamming_popcount")]
    assert bob.submission.late_days == 3 and bob.points == pytest.approx(7 * 0.7)
    carol = cells[("carol", "03_hamming_popcount")]
    assert carol.submission.path == "03_a.ipynb" and carol.points == pytest.approx(3.5 * 0.9)
    assert "after the last day accepted" in _listed(done, "carol")["03_b.ipynb"]
    # an LMS export's times win over the files' own (here: bob on time after all)
    times = {("bob", None): deadline - timedelta(hours=1)}
    (tmp_path / "again").mkdir()
    done, cells, totals, _g = _run(tmp_path / "again", [tmp_path / "subs"], late=late, times=times)
    assert cells[("bob", "03_hamming_popcount")].points == 7


def test_a_file_that_is_not_a_notebook_counts_only_when_nothing_else_does(tmp_path):
    _nb(tmp_path / "subs/alice/03_hamming_popcount.ipynb", None, raw=b"{not json")
    _nb(tmp_path / "subs/bob/03_hamming_popcount.ipynb", None, raw=b"{not json", t=T0 + 5)
    _nb(tmp_path / "subs/bob/03_hamming_popcount (2).ipynb", "03_hamming_popcount", 1, t=T0)
    _nb(tmp_path / "subs/carol/mystery.ipynb", None)  # a notebook of no exercise
    done, cells, totals, _g = _run(tmp_path, [tmp_path / "subs"])
    alice = cells[("alice", "03_hamming_popcount")]
    assert (
        alice.status == "not gradable"
        and "not JSON" in alice.submission.first_hint
        and totals["alice"][0] == 0
    )
    assert totals["bob"] == (7, 10) and "not a notebook" in _listed(done, "bob")["03_hamming_popcount.ipynb"]
    assert "cannot tell which exercise" in _listed(done, "carol")["mystery.ipynb"]


def test_folders_not_on_the_roster_loose_files_and_links_are_listed_not_graded(tmp_path):
    subs = tmp_path / "subs"
    _nb(subs / "alice/05_block_index.ipynb", "05_block_index")
    _nb(subs / "mallory/03_hamming_popcount.ipynb", "03_hamming_popcount")
    _nb(subs / "\r=1+1/03_hamming_popcount.ipynb", "03_hamming_popcount")
    _nb(subs / "loose.ipynb", "03_hamming_popcount")
    (subs / "carol").mkdir()
    (subs / "carol/05_block_index.ipynb").symlink_to(subs / "alice/05_block_index.ipynb")
    (subs / "dave").symlink_to(subs / "alice")
    done, cells, totals, grader = _run(tmp_path, [subs])
    assert [p for c in grader.calls for p in c] and len(grader.calls[0]) == 1  # alice's 05 only
    assert totals == {"alice": (3, 10), "bob": (0, 10), "carol": (0, 10), "dave": (0, 10)}
    assert "not a student of the roster" in _listed(done, "mallory")["03_hamming_popcount.ipynb"]
    assert "not a student of the roster" in _listed(done, "\r=1+1")["03_hamming_popcount.ipynb"]
    assert "symbolic link" in _listed(done, "carol")["05_block_index.ipynb"]
    assert "symbolic link" in _listed(done, "dave")["."]
    assert done.loose == [str(subs / "loose.ipynb")]
    table = grader.table
    assert "\\r=1+1" in table and "\r" not in table and "loose.ipynb" in table
    assert cells[("carol", "05_block_index")].others[0].why.startswith("a symbolic link")


def test_re_grading_one_student_leaves_every_other_grade_as_it_was(tmp_path):
    subs = tmp_path / "subs"
    for i, sid in enumerate(("alice", "bob", "carol", "dave")):
        _nb(subs / sid / "03_hamming_popcount.ipynb", "03_hamming_popcount", [1, 0.5, 0, 1][i])
        _nb(subs / sid / "05_block_index.ipynb", "05_block_index", [1, 1, 0, 0][i])
    located = classroom.Located(_assignment(), str(tmp_path / "g.db"), None)
    with classroom.open_gradebook(located) as gb:
        classroom.grade_class([str(subs)], located, gb, grade=StandIn())
        gb.add_override("carol", "05_block_index", 2, "the idea is right")
        before = {(c.student, c.exercise): (c.points, c.submission.id) for c in gb.cells()}
        _nb(subs / "bob" / "03_hamming_popcount.ipynb", "03_hamming_popcount", 1)  # bob's fixed notebook
        grader = StandIn()
        done = classroom.grade_class([str(subs / "bob")], located, gb, grade=grader)  # one student's folder
        after = {(c.student, c.exercise): (c.points, c.submission.id) for c in gb.cells()}
        assert done.students == ["bob"] and sum(len(c) for c in grader.calls) == 2
        assert {k: v for k, v in after.items() if k[0] != "bob"} == {
            k: v for k, v in before.items() if k[0] != "bob"
        }
        assert (
            after[("bob", "03_hamming_popcount")][0] == 7 and before[("bob", "03_hamming_popcount")][0] == 3.5
        )
        assert after[("carol", "05_block_index")][0] == 2  # the override, kept
        classroom.grade_class([str(subs / "carol")], located, gb, grade=StandIn())  # carol re-graded: still 2
        assert next(c for c in gb.cells(["carol"]) if c.exercise == "05_block_index").points == 2
        assert len(gb.submissions()) == 12  # 8, then 2 and 2 more: nothing lost


def test_find_students_tells_a_class_folder_from_one_students(tmp_path):
    for sid in ("alice", "bob"):
        (tmp_path / "subs" / sid).mkdir(parents=True)
    (tmp_path / "regrade" / "bob").mkdir(parents=True)
    roster = ["alice", "bob"]
    assert classroom.find_students([tmp_path / "subs"], roster)[0] == [
        ("alice", str(tmp_path / "subs/alice")),
        ("bob", str(tmp_path / "subs/bob")),
    ]
    assert classroom.find_students([tmp_path / "regrade/bob/"], roster) == (
        [("bob", str(tmp_path / "regrade/bob/"))],
        [],
        False,  # one student's folder: the others are not part of the run
    )
    assert classroom.find_students([tmp_path / "subs"], roster)[2] is True
    with pytest.raises(classroom.AssignError, match="given twice"):
        classroom.find_students([tmp_path / "subs", tmp_path / "regrade/bob"], roster)
    with pytest.raises(classroom.AssignError, match="not a folder"):
        classroom.find_students([tmp_path / "nothing"], roster)


# -- the student's feedback and the CI file -----------------------------------------------------------


def test_feedback_escapes_what_the_student_controls(tmp_path):
    evil = "<img src=x onerror=alert(1)> [click](javascript:alert(1)) ![t](http://track/x.png) `code` # H"
    sub = G.Submission(
        "bob",
        f"{evil}.ipynb",
        "03_hamming_popcount",
        "failed",
        counted=True,
        points=0,
        flag="variant mismatch",
        answers=[
            G.AnswerGrade("is_near", False, 0, 0, hint=evil, feedback=f"answer `is_near` raised {evil}")
        ],
    )
    other = G.Submission("bob", f"old/{evil}.ipynb", "03_hamming_popcount", "not graded", why="an older copy")
    cell = G.Cell(
        "bob",
        "03_hamming_popcount",
        "failed",
        0,
        7,
        {"is_near": 0, "xor_AB": 0},
        sub,
        [other],
        [{"id": 1, "answer": "", "points": 1, "comment": evil}],
        0,
    )
    text = classroom.feedback_text(cell)
    for bad in ("<img", "](", "![", "<", "`code`", "\n# H"):
        assert bad not in text, bad
    assert "&lt;img src\\=x onerror\\=alert\\(1\\)&gt;" in text and "not the variant released to you" in text
    assert "this is not the notebook released to you" not in text


def test_the_ci_workflows_print_the_table_whatever_the_result_and_install_what_the_teacher_says():
    import yaml

    pkg = "simhash-lab[grading] @ git+https://example.org/x/simhash-lab.git@abc"
    gh = yaml.safe_load(classroom.ci_workflow("github", pkg))
    steps = {s.get("name"): s for s in gh["jobs"]["grade"]["steps"]}
    assert steps["install"]["run"].splitlines()[0] == "python -m pip install '" + pkg + "'"
    assert steps["grade"]["run"] == classroom.CI_GRADE and steps["grade"]["shell"] == "bash"
    gl = yaml.safe_load(classroom.ci_workflow("gitlab", pkg))
    assert gl["grade"]["script"] == [classroom.CI_GRADE]
    assert gl["grade"]["before_script"][1] == steps["install"]["run"]
    for bad in ("", "x\ny", "a\x1b[31m"):
        with pytest.raises(classroom.AssignError, match="--ci-package"):
            classroom.ci_workflow("github", bad)
    quoted = yaml.safe_load(classroom.ci_workflow("github", "x'; rm -rf ~; echo '"))
    run = {s.get("name"): s for s in quoted["jobs"]["grade"]["steps"]}["install"]["run"]
    assert run.splitlines()[0] == "python -m pip install 'x'\"'\"'; rm -rf ~; echo '\"'\"''"


@pytest.mark.parametrize("shell", [["bash", "--noprofile", "--norc", "-eo", "pipefail"], ["bash"]])
def test_the_grade_step_prints_the_table_and_keeps_the_status_under_bash_e(tmp_path, shell):
    """The grade step as written, with a stand-in ``simhash-lab`` that prints a table and fails."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    fake = bin_ / "simhash-lab"
    fake.write_text("#!/bin/sh\necho 'the table: 1 of 2 notebooks passed'\necho '{}' > grade.json\nexit 1\n")
    fake.chmod(0o755)
    script = tmp_path / "step.sh"
    script.write_text(classroom.CI_GRADE)
    p = subprocess.run(
        [*shell, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}"},
    )
    assert p.returncode == 1 and "the table: 1 of 2 notebooks passed" in p.stdout


def test_assign_without_a_ci_package_and_no_git_origin_says_how_to_name_one(kit, tmp_path, monkeypatch):
    monkeypatch.setattr(classroom, "default_ci_package", lambda: None)
    (tmp_path / "r.csv").write_text("id\ns1\n")
    with pytest.raises(classroom.AssignError, match="--ci-package"):
        classroom.assign(kit.EXERCISES, tmp_path / "r.csv", tmp_path / "rel", ci="github")
    assert not (tmp_path / "rel").exists()


def test_the_default_ci_package_is_this_checkouts_origin_at_its_commit(tmp_path, monkeypatch):
    real = subprocess.run

    def fake(cmd, *a, **k):
        if cmd[:2] == ["git", "-C"] and cmd[3:] == ["remote", "get-url", "origin"]:
            return subprocess.CompletedProcess(cmd, 0, "git@github.com:teacher/simhash-lab.git\n", "")
        if cmd[:2] == ["git", "-C"] and cmd[3:] == ["rev-parse", "HEAD"]:
            return subprocess.CompletedProcess(cmd, 0, "a" * 40 + "\n", "")
        return real(cmd, *a, **k)

    monkeypatch.setattr(classroom.subprocess, "run", fake)
    assert classroom.default_ci_package() == (
        "simhash-lab[grading] @ git+https://github.com/teacher/simhash-lab.git@" + "a" * 40
    )
