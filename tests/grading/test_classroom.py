"""The classroom: ``simhash-lab assign`` (a variant per student), ``simhash-lab grade --assignment``
(each student's folder graded on that student's variant, a gradebook, feedback files) and the CI
file of a student's repository (its own command, run here).

Only exercises 02 and 03 are released (the ones with answers worked out by hand); the secret is a
fixed file, so the variants are the same on every run.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from simhash_lab.grading import checks, classroom, data

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
    (d / "roster.csv").write_text("id,name,email\nalice,Alice A,a@example.org\nbob,Bob,\ncarol,,\n")
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
    p = _cli([*args, *(x for e in EXS for x in ("--exercise", e)), "--ci", "github"], d, kit)
    assert p.returncode == 0, p.stderr
    return d, json.loads((d / "release" / "assignment.json").read_text())


def _hand_answers(name: str):
    return [a for a in checks.EXERCISES[name].answers if getattr(a, "hand", None) is not None]


def _cells(nb_path: Path):
    return nbformat.read(nb_path, as_version=4).cells


# -- assign ------------------------------------------------------------------------------------------


def test_assign_writes_a_notebook_and_a_solved_copy_per_student_on_their_variant(release):
    d, a = release
    rel = d / "release"
    assert a["exercises"] == EXS and list(a["students"]) == STUDENTS
    assert a["students"]["alice"]["name"] == "Alice A"
    assert SECRET not in (rel / "assignment.json").read_text()  # the secret stays in its file
    key = bytes.fromhex(SECRET)
    seen = set()
    for sid in STUDENTS:
        for e in EXS:
            v = a["students"][sid]["variants"][e]
            assert v == classroom.variant_for(key, e, sid)
            seen.add(v)
            for kind in ("students", "solutions"):
                nb = nbformat.read(rel / kind / sid / f"{e}.ipynb", as_version=4)
                text = json.dumps(nb)
                assert SECRET not in text
                meta = nb.metadata["simhash_lab"]  # the pristine copy's, and whose variant it is
                assert {k: meta[k] for k in ("exercise", "student", "variant")} == {
                    "exercise": e,
                    "student": sid,
                    "variant": v,
                }
                assert meta["lang"] == "en"  # grade and check read the notebook's language
                first = next(c for c in nb.cells if c.cell_type == "code")
                assert f"data.use_variant({v})" in first.source and "setup" in first.metadata["tags"]
                assert all(c.get("outputs", []) == [] for c in nb.cells if c.cell_type == "code")
    assert len(seen) == len(STUDENTS) * len(EXS)  # every student and exercise: its own variant
    # the text shows the student's data: 03's pairs, 02's hashes and accumulators
    (a_, b_), (c_, d_) = data.hamming_pairs(a["students"]["bob"]["variants"]["03_hamming_popcount"])
    md = "".join(
        c.source for c in _cells(rel / "students/bob/03_hamming_popcount.ipynb") if c.cell_type == "markdown"
    )
    assert f"`A = {a_:06b}`, `B = {b_:06b}`" in md and f"`C = {c_:07b}`, `D = {d_:07b}`" in md
    six = data.six_accumulators(a["students"]["carol"]["variants"]["02_simhash_voting"])
    md = "".join(
        c.source for c in _cells(rel / "students/carol/02_simhash_voting.ipynb") if c.cell_type == "markdown"
    )
    assert f"`{list(six)}`" in md and "[13, 108, -22, -5, -32, 55]" not in md
    assert (rel / "students/bob/.github/workflows/grade.yml").is_file()
    assert not (rel / "secret.key").exists()  # --secret: no other secret made


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
    key = tmp_path / "rel" / "secret.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    first = json.loads((tmp_path / "rel" / "assignment.json").read_text())
    assert _cli([*args, "--out", "rel2", "--secret", str(key)], tmp_path, kit).returncode == 0
    assert json.loads((tmp_path / "rel2" / "assignment.json").read_text()) == first


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


# -- grade a class -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded(release, kit, sandbox_ok):
    """alice hands in her solved copies; bob his 02 and alice's solved 03; carol her 03 with two
    wrong functions, and no 02."""
    d, a = release
    rel, sub = d / "release", d / "submissions"
    for sid in STUDENTS:
        (sub / sid).mkdir(parents=True)
    for e in EXS:
        shutil.copy(rel / "solutions/alice" / f"{e}.ipynb", sub / "alice")
    shutil.copy(rel / "solutions/bob/02_simhash_voting.ipynb", sub / "bob")
    shutil.copy(rel / "solutions/alice/03_hamming_popcount.ipynb", sub / "bob")
    nb = nbformat.read(rel / "solutions/carol/03_hamming_popcount.ipynb", as_version=4)
    for c in nb.cells:
        key = kit.role(c).get("answer")
        if key == "popcount_kernighan":  # Kernighan's loop, one too many
            c.source = c.source.replace("return count", "return count + 1")
        elif key == "is_near":  # returns a float, which the grader's hint shows with its hidden input
            c.source = c.source.replace("return count <= k", "return count * 1.0")
    nbformat.write(nb, sub / "carol/03_hamming_popcount.ipynb")
    (sub / "mallory").mkdir()  # not on the roster
    shutil.copy(rel / "solutions/alice/02_simhash_voting.ipynb", sub / "mallory")
    p = _cli(
        [
            "grade",
            "submissions",
            "--assignment",
            "release/assignment.json",
            "--csv",
            "grades.csv",
            "--feedback",
            "fb",
            "--json",
            "grade.json",
        ],
        d,
        kit,
    )
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {(r["id"], r["exercise"]): r for r in csv.DictReader(f) if r["id"] in STUDENTS}
    return d, a, p, rows


def _max(e: str) -> float:
    return float(sum(x.points for x in checks.EXERCISES[e].answers))


def test_each_students_solved_copy_passes_as_that_student(graded):
    d, a, p, rows = graded
    for e in EXS:
        r = rows[("alice", e)]
        assert r["status"] == "passed" and float(r["points"]) == float(r["max_points"]) == _max(e), r
    assert rows[("bob", "02_simhash_voting")]["status"] == "passed"
    assert float(rows[("alice", "total")]["points"]) == _max(EXS[0]) + _max(EXS[1])
    assert p.returncode == 1  # not everyone passed
    assert "alice" in p.stdout and "variant mismatch" in p.stdout


def test_a_classmates_solved_copy_fails_the_hand_computed_answers_and_is_flagged(graded):
    d, a, p, rows = graded
    r = rows[("bob", "03_hamming_popcount")]
    assert r["flag"] == "variant mismatch" and r["status"] == "failed"
    va, vb = (a["students"][s]["variants"]["03_hamming_popcount"] for s in ("alice", "bob"))
    for ans in _hand_answers("03_hamming_popcount"):
        mine, copied = ans.hand(vb), ans.hand(va)
        right = sum(copied[n] == mine[n] for n in ans.names) / len(ans.names)
        assert float(r[ans.key]) == pytest.approx(ans.points * right), ans.key
        assert right < 1, "the fixed secret's variants must differ here"
    for key in ("popcount_kernighan", "is_near"):  # code: still right, its full points
        assert float(r[key]) == checks.CHECKS[key].points


def test_the_gradebook_has_points_per_answer_missing_work_and_totals(graded):
    d, a, p, rows = graded
    r = rows[("carol", "03_hamming_popcount")]
    assert float(r["popcount_kernighan"]) == 0 and float(r["is_near"]) == 0
    hand = sum(x.points for x in _hand_answers("03_hamming_popcount"))
    assert float(r["points"]) == hand and float(r["max_points"]) == _max("03_hamming_popcount")
    m = rows[("carol", "02_simhash_voting")]
    assert m["status"] == "missing" and float(m["points"]) == 0
    total = rows[("carol", "total")]
    assert float(total["points"]) == hand and float(total["max_points"]) == _max(EXS[0]) + _max(EXS[1])
    assert len(rows) == len(STUDENTS) * (len(EXS) + 1)
    with open(d / "grades.csv", newline="", encoding="utf-8") as f:
        others = [r for r in csv.DictReader(f) if r["id"] not in STUDENTS]
    assert [(r["id"], r["exercise"], r["flag"]) for r in others] == [
        ("mallory", "02_simhash_voting", "unknown student")
    ]
    assert not (d / "fb/mallory").exists()


def test_feedback_files_name_each_answer_and_hold_no_hidden_value(graded):
    d, a, p, rows = graded
    fb = (d / "fb/carol/03_hamming_popcount.md").read_text(encoding="utf-8")
    for ans in checks.EXERCISES["03_hamming_popcount"].answers:
        assert f"`{ans.key}`" in fb
    assert "❌ `popcount_kernighan`" in fb and "❌ `is_near`" in fb and "hint: Count the steps" in fb
    # the teacher's hints (--json) name hidden inputs and expected values; the student's file none
    doc = json.loads((d / "grade.json").read_text(encoding="utf-8"))
    carol = next(r for r in doc if r["path"].endswith("carol/03_hamming_popcount.ipynb"))
    hidden = set()
    for c in carol["checks"]:
        if not c["passed"]:
            hidden |= set(re.findall(r"0x[0-9a-f]+|\d{2,}(?:\.\d+)?", c["hint"]))
    assert hidden, "the teacher's hints should hold the hidden values this test looks for"
    words = set(re.findall(r"0x[0-9a-f]+|\d+(?:\.\d+)?", fb))
    assert not hidden & words, hidden & words
    assert "(expected " not in fb and "(got " not in fb and "0x" not in fb
    assert not (d / "fb/carol/02_simhash_voting.md").exists()
    assert (d / "fb/bob/03_hamming_popcount.md").read_text(encoding="utf-8").count(
        "not the notebook released"
    ) == 1


# -- the CI of a student's repository -------------------------------------------------------------------


def _ci_command(workflow: Path) -> str:
    import yaml

    steps = yaml.safe_load(workflow.read_text())["jobs"]["grade"]["steps"]
    return next(s["run"] for s in steps if s.get("name") == "grade")


def test_the_ci_workflows_command_passes_a_solved_folder_and_fails_a_stub(release, kit, sandbox_ok, tmp_path):
    d, a = release
    rel = d / "release"
    cmd = _ci_command(rel / "students/bob/.github/workflows/grade.yml")
    gitlab = classroom.ci_workflow("gitlab")
    assert cmd.strip() in gitlab  # both CIs run the same command
    env = {
        **os.environ,
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
        "PYTHONPATH": os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    for folder, source, want in (("solved", "solutions", 0), ("stub", "students", 1)):
        repo = tmp_path / folder
        repo.mkdir()
        shutil.copy(rel / source / "bob/03_hamming_popcount.ipynb", repo)
        p = subprocess.run(
            ["bash", "-c", cmd], cwd=repo, env=env, capture_output=True, text=True, timeout=900
        )
        assert p.returncode == want, p.stdout + p.stderr
        assert (repo / "grade.txt").read_text().strip() and json.loads((repo / "grade.json").read_text())


def test_a_students_solved_notebook_run_in_a_kernel_passes_its_own_check_cells(release, kit):
    """The released notebook itself (its hidden setup cell first): every check cell prints the pass
    line of that student's variant, which is not the notebook's own."""
    import nbclient

    d, a = release
    v = a["students"]["bob"]["variants"]["03_hamming_popcount"]
    nb = nbformat.read(d / "release/solutions/bob/03_hamming_popcount.ipynb", as_version=4)
    env_path = os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")])
    nb.cells.insert(
        0, nbformat.v4.new_code_cell(f"import sys; sys.path[:0] = {env_path.split(os.pathsep)!r}")
    )
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outs = {}
    for c in nb.cells:
        if "check" in c.metadata.get("tags", []):
            key = c.source.split("checks.")[1].split("(")[0]
            outs[key] = "".join(o.get("text", "") for o in c.outputs if o.get("name") == "stdout")
    try:
        data.use_variant(v)
        want = {k: checks.pass_line(k) for k in outs}
    finally:
        data.use_variant(None)
    assert outs == want and want["xor_AB"] != checks.pass_line("xor_AB")


@pytest.mark.parametrize(
    "extra, word",
    [
        (["--csv", "g.csv"], "need --assignment"),
        (["--assignment", "nope.json"], "--assignment: cannot read"),
        (["--assignment", "bad.json"], "not an assignment.json"),
    ],
)
def test_bad_class_options_are_one_line_and_status_2_before_any_grading(kit, tmp_path, extra, word):
    (tmp_path / "subs").mkdir()
    (tmp_path / "bad.json").write_text('{"version": 1, "students": {"a": {"variants": {"x": "1"}}}}')
    p = _cli(["grade", "subs", *extra], tmp_path, kit)
    assert p.returncode == 2 and word in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_an_answer_with_parts_gets_credit_per_part():
    ans = checks.hamming_by_hand
    v = 12345
    right = ans.hand(v)
    wrong_cd = {**right, "d_CD": right["d_CD"] + 1}
    exported = {k: {"ok": x} for k, x in wrong_cd.items()}
    assert not ans.verdict(exported, v).passed
    assert ans.part_credit(exported, v) == 0.5
    assert ans.part_credit({k: {"ok": x + 1} for k, x in right.items()}, v) == 0
    assert checks.xor_AB.part_credit({"xor_AB": {"ok": 0}}, v) == 0  # one part: all or nothing


def test_the_learners_check_command_judges_a_released_notebook_on_its_own_variant(release, kit):
    """``simhash-lab check`` (the learner's, no sandbox) passes bob's solved copy, on bob's data."""
    d, a = release
    p = _cli(["check", "release/solutions/bob/03_hamming_popcount.ipynb"], d, kit)
    assert p.returncode == 0 and "PASSED" in p.stdout, p.stdout + p.stderr
