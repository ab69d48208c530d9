"""A class: one notebook per student and exercise, graded each on its own variant, with a gradebook.

``simhash-lab assign exercises/ --roster roster.csv --out release/`` writes::

    release/secret.key                  the secret (hex, mode 0600): the teacher's, never released
    release/assignment.json             each student's variant of each exercise (no secret in it)
    release/students/<id>/NN_name.ipynb what a student gets: their variant of the data
    release/solutions/<id>/NN_name.ipynb the teacher's solved copy of that variant (not executed)

A student's variant of an exercise is ``HMAC-SHA256(secret, "NN_name:<id>")`` read as an int
(62 bits, so never one of the notebooks' own variants None and 1): the same secret (``--secret
FILE``) gives the same variants again, for a student who joins late. The student's notebook carries
it twice: in its metadata (``simhash_lab.variant`` and ``.student``) and in a first, hidden setup
cell that calls :func:`simhash_lab.grading.data.use_variant`, so the data functions, the numbers the
text shows and the learner's own check cells are all that student's. The answers worked out by
hand (declared with ``hand=`` in :mod:`simhash_lab.grading.checks`) are judged on that variant, so
a classmate's fail; the answers computed by code are graded on a hidden variant, as always.

``simhash-lab grade submissions/ --assignment release/assignment.json --csv grades.csv --feedback
feedback/`` grades ``submissions/<id>/*.ipynb`` each on the variant of the folder's student (a
notebook whose own variant differs is flagged and graded on the folder's), and writes the
gradebook (:func:`write_gradebook`) and one Markdown feedback file per student and exercise
(:func:`write_feedback`).
"""

from __future__ import annotations

import copy
import csv
import hashlib
import hmac
import io
import json
import os
import re
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .._escape import csv_rows
from .._write import atomic_output
from ._notebooks import META, cell_meta, cell_source
from ._report import GradeResult, safe_text

__all__ = [
    "AssignError",
    "assign",
    "read_assignment",
    "read_roster",
    "student_of",
    "variant_for",
    "write_feedback",
    "write_gradebook",
    "gradebook_rows",
    "ci_workflow",
]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
VERSION = 1


class AssignError(ValueError):
    """A roster, secret or assignment that cannot be used; the message names it."""


# -- the roster and the secret ----------------------------------------------------------------------


def read_roster(path: str | os.PathLike) -> list[dict[str, str]]:
    """The students of a roster CSV: an ``id`` column (a safe folder name: letters, digits, ``.``,
    ``_``, ``-``, not starting with ``.``; unique), optional ``name`` and ``email``."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise AssignError(f"--roster: cannot read {path}: {e}") from None
    if not rows or "id" not in (rows[0].keys() if rows else ()):
        raise AssignError(f"--roster: {path} needs a header row with an `id` column and one row per student")
    seen: set[str] = set()
    out = []
    for n, row in enumerate(rows, start=2):
        sid = (row.get("id") or "").strip()
        if not _ID.fullmatch(sid):
            raise AssignError(
                f"--roster: line {n}: id {sid!r} is not a safe folder name (letters, digits, . _ -; "
                "at most 64, not starting with . or -)"
            )
        if sid in seen:
            raise AssignError(f"--roster: line {n}: id {sid!r} is used twice")
        seen.add(sid)
        out.append({"id": sid, "name": (row.get("name") or "").strip()})
    return out


def read_secret(path: str | os.PathLike) -> bytes:
    try:
        text = Path(path).read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, ValueError) as e:
        raise AssignError(f"--secret: cannot read a hex secret from {path}: {e}") from None
    if len(key) < 16:
        raise AssignError(f"--secret: {path} holds {len(key)} bytes; at least 16 are needed")
    return key


def variant_for(secret: bytes, exercise: str, student: str) -> int:
    """A student's variant of an exercise: HMAC-SHA256(secret, "exercise:student") as a 62-bit int,
    plus 2 (never None or 1, the notebooks' own variants)."""
    digest = hmac.new(secret, f"{exercise}:{student}".encode(), hashlib.sha256).digest()
    return (int.from_bytes(digest[:8], "big") >> 2) + 2


# -- a student's notebook ---------------------------------------------------------------------------


def _replacements(exercise: str, variant: int) -> list[tuple[str, str]]:
    """What a notebook's text says of the data worked out by hand, and what it says for ``variant``
    (the exercise's ``text``, declared beside its checkers)."""
    from .checks import EXERCISES

    ex = EXERCISES.get(exercise)
    return ex.text(variant) if ex is not None and ex.text is not None else []


def _setup_cell(variant: int) -> dict:
    import nbformat

    cell = nbformat.v4.new_code_cell(
        "# Your own variant of this exercise's data (grading uses it too): please leave this cell.\n"
        f"from simhash_lab.grading import data\n\ndata.use_variant({variant})"
    )
    cell.metadata.update(
        {
            "tags": ["setup"],
            "editable": False,
            "deletable": False,
            "jupyter": {"source_hidden": True},
            META: {"role": "setup", "variant": variant},
        }
    )
    return cell


def _solution_source(values: dict) -> str:
    lines = "\n".join(f"{k} = {v!r}" for k, v in values.items())
    return f"### BEGIN SOLUTION\n{lines}\n### END SOLUTION"


def personalize(nb: Any, exercise: str, student: str, variant: int, *, solved: bool) -> Any:
    """A copy of ``nb`` for ``student``: their variant in the metadata and a first hidden setup cell,
    the text's hand-worked data replaced by theirs, outputs cleared; ``solved``: the hand answers'
    cells hold the variant's values."""
    from .checks import EXERCISES

    nb = copy.deepcopy(nb)
    nb.metadata.setdefault(META, {}).update({"exercise": exercise, "student": student, "variant": variant})
    reps = _replacements(exercise, variant)
    found = {old: False for old, _ in reps}
    hand = {a.key: a for a in EXERCISES[exercise].answers if getattr(a, "hand", None) is not None}
    for cell in nb.cells:
        src = cell_source(cell)
        for old, new in reps:
            if old in src:
                found[old] = True
                src = src.replace(old, new)
        key = cell_meta(cell).get("answer")
        if solved and key in hand:
            src = _solution_source(hand[key].hand(variant))
        cell.source = src
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    missing = [old for old, ok in found.items() if not ok]
    if missing:  # the exercise's text changed: a student would see the notebook's own data
        raise AssignError(
            f"{exercise}: the notebook no longer says {missing[0]!r}; update its checkers' EXERCISE text"
        )
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
    nb.cells.insert(first, _setup_cell(variant))
    return nb


# -- assign -----------------------------------------------------------------------------------------


def _exercises_in(folder: Path) -> dict[str, Path]:
    from .checks import EXERCISES

    out = {p.stem: p for p in sorted(folder.glob("[0-9][0-9]_*.ipynb")) if p.stem in EXERCISES}
    if not out:
        raise AssignError(f"EXERCISES: no exercise notebook (NN_name.ipynb) in {folder}")
    return out


def assign(
    exercises: str | os.PathLike,
    roster: str | os.PathLike,
    out: str | os.PathLike,
    *,
    secret: str | os.PathLike | None = None,
    only: Sequence[str] | None = None,
    ci: str | None = None,
    ci_package: str = "simhash-lab[grading]",
) -> dict:
    """Write a release (see the module docstring); returns the assignment. ``exercises`` holds the
    stub notebooks and ``solutions/`` the solved ones (as the repository's ``exercises/``);
    ``secret`` a file with the secret in hex (default: ``OUT/secret.key``, made when missing)."""
    import nbformat

    if ci is not None:
        ci_workflow(ci, ci_package)  # a bad --ci or --ci-package before anything is written
    src = Path(exercises)
    found = _exercises_in(src)
    if only:
        unknown = [e for e in only if e not in found]
        if unknown:
            raise AssignError(f"--exercise: {unknown[0]!r} is not in {src}; there: {', '.join(found)}")
        found = {e: found[e] for e in only}
    solved_dir = src / "solutions"
    missing = [e for e in found if not (solved_dir / f"{e}.ipynb").is_file()]
    if missing:
        raise AssignError(f"EXERCISES: no solved copy {solved_dir / (missing[0] + '.ipynb')}")
    students = read_roster(roster)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    key_path = Path(secret) if secret is not None else out / "secret.key"
    if secret is None and not key_path.exists():
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32) + "\n")
    key = read_secret(key_path)
    assignment: dict[str, Any] = {
        "version": VERSION,
        "exercises": list(found),
        "students": {},
    }
    for s in students:
        variants = {e: variant_for(key, e, s["id"]) for e in found}
        assignment["students"][s["id"]] = {"name": s["name"], "variants": variants}
        for e, path in found.items():
            for kind, base, solved in (
                ("students", path, False),
                ("solutions", solved_dir / f"{e}.ipynb", True),
            ):
                nb = personalize(nbformat.read(base, as_version=4), e, s["id"], variants[e], solved=solved)
                dest = out / kind / s["id"] / f"{e}.ipynb"
                dest.parent.mkdir(parents=True, exist_ok=True)
                with atomic_output(dest, "w", encoding="utf-8") as f:
                    nbformat.write(nb, f)
    with atomic_output(out / "assignment.json", "w", encoding="utf-8") as f:
        json.dump(assignment, f, indent=1)
        f.write("\n")
    if ci:
        for s in students:
            path = out / "students" / s["id"] / _CI_PATH[ci]
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_output(path, "w", encoding="utf-8") as f:
                f.write(ci_workflow(ci, ci_package))
    return assignment


def read_assignment(path: str | os.PathLike) -> dict:
    """An ``assignment.json`` written by :func:`assign`, checked."""
    try:
        a = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise AssignError(f"--assignment: cannot read {path}: {e}") from None
    ok = (
        isinstance(a, dict)
        and a.get("version") == VERSION
        and isinstance(a.get("students"), dict)
        and all(
            isinstance(v, dict)
            and isinstance(v.get("variants"), dict)
            and all(type(x) is int for x in v["variants"].values())
            for v in a["students"].values()
        )
    )
    if not ok:
        raise AssignError(f"--assignment: {path} is not an assignment.json written by simhash-lab assign")
    return a


def student_of(root: str | os.PathLike, path: str | os.PathLike) -> str | None:
    """The student id of a submission: the first folder of ``path`` under ``root``."""
    try:
        rel = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return None
    return rel.parts[0] if len(rel.parts) >= 2 else None


# -- the gradebook and the feedback ------------------------------------------------------------------


def _points(r: GradeResult) -> tuple[dict[str, float], float, float]:
    from .checks import EXERCISES

    ex = EXERCISES.get(r.exercise or "")
    if ex is None:
        return {}, 0.0, 0.0
    by_key = {c.name: c for c in r.checks}
    per = {}
    for a in ex.answers:
        c = by_key.get(a.key)
        per[a.key] = round(a.points * (c.credit if c is not None else 0.0), 3)
    return per, round(sum(per.values()), 3), float(sum(a.points for a in ex.answers))


def gradebook_rows(
    results: Sequence[tuple[str, GradeResult | None, str]], assignment: dict
) -> tuple[list[str], list[list[Any]]]:
    """The gradebook: a header and one row per (student, exercise, result or None when missing), then
    a total row per student; ``results`` items are ``(student, result, exercise)``."""
    from .checks import EXERCISES

    exercises = list(assignment.get("exercises") or [])
    keys = [a.key for e in exercises if e in EXERCISES for a in EXERCISES[e].answers]
    header = ["id", "name", "exercise", "status", "points", "max_points", "flag", *keys]
    rows = []
    totals: dict[str, list[float]] = {}
    for sid, r, exercise in results:
        name = (assignment["students"].get(sid) or {}).get("name", "")
        if r is None:
            ex = EXERCISES.get(exercise)
            mx = float(sum(a.points for a in ex.answers)) if ex else 0.0
            per, pts, status, flag = {}, 0.0, "missing", ""
        else:
            per, pts, mx = _points(r)
            status, flag = r.status, r.flag
        if sid in assignment["students"]:  # a folder of no student of the roster: its rows, no total
            t = totals.setdefault(sid, [0.0, 0.0])
            t[0] += pts
            t[1] += mx
        rows.append([sid, name, exercise, status, pts, mx, flag, *[per.get(k, "") for k in keys]])
    for sid, (pts, mx) in totals.items():
        name = (assignment["students"].get(sid) or {}).get("name", "")
        rows.append([sid, name, "total", "", round(pts, 3), mx, "", *[""] * len(keys)])
    return header, rows


def write_gradebook(path: str | os.PathLike, header: list[str], rows: list[list[Any]]) -> None:
    buf = io.StringIO()
    csv_rows(buf, [header, *rows])  # a student's text never starts a formula or a row in a spreadsheet
    with atomic_output(path, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())


def feedback_text(sid: str, r: GradeResult) -> str:
    """A student's Markdown feedback on one notebook: each answer, its points, and the hint (never
    a hidden input or a value computed from one, see ``_grader._public_hint``)."""
    from .checks import EXERCISES

    ex = EXERCISES.get(r.exercise or "")
    per, pts, mx = _points(r)
    lines = [f"# {r.exercise or 'unknown exercise'}: feedback for {sid}", ""]
    if r.status == "not gradable":
        lines += ["Not gradable: " + safe_text(r.first_hint), ""]
    else:
        lines += [f"**{pts:g} of {mx:g} points** ({r.checks_passed} of {len(r.checks)} answers passed)", ""]
    by_key = {c.name: c for c in r.checks}
    for a in ex.answers if ex else ():
        c = by_key.get(a.key)
        mark = "✅" if c is not None and c.passed else "❌"
        lines.append(f"- {mark} `{a.key}` ({a.title}): {per.get(a.key, 0):g} / {a.points:g}")
        if c is not None and not c.passed and c.feedback:
            lines.append(f"  - hint: {safe_text(c.feedback)}")
    if r.flag:
        lines += [
            "",
            f"Note: {r.flag}: this is not the notebook released to you; it was graded on your data.",
        ]
    return "\n".join(lines) + "\n"


def write_feedback(
    folder: str | os.PathLike, results: Sequence[tuple[str, GradeResult | None, str]], students: Sequence[str]
) -> None:
    """``folder/<id>/NN_name.md`` for each graded notebook of a student of ``students`` (a file of an
    unknown student or exercise gets none: the teacher's table lists it)."""
    from .checks import EXERCISES

    for sid, r, exercise in results:
        if r is None or sid not in students or exercise not in EXERCISES:
            continue
        dest = Path(folder) / sid / f"{exercise}.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(dest, "w", encoding="utf-8") as f:
            f.write(feedback_text(sid, r))


def class_results(
    root: str | os.PathLike, results: Sequence[GradeResult], assignment: dict
) -> list[tuple[str, GradeResult | None, str]]:
    """``(student, result, exercise)`` for every graded file under ``root`` whose folder is a
    student's, and ``(student, None, exercise)`` for each exercise a student did not hand in."""
    out = []
    handed: set[tuple[str, str]] = set()
    for r in results:
        sid = student_of(root, r.path)
        if sid is None or sid not in assignment["students"]:
            r.flag = r.flag or "unknown student"
            out.append((sid or "?", r, r.exercise or "?"))
            continue
        if (sid, r.exercise or "?") in handed:  # two files of one exercise: both rows, flagged
            r.flag = r.flag or "handed in twice"
        out.append((sid, r, r.exercise or "?"))
        handed.add((sid, r.exercise or "?"))
    for sid in assignment["students"]:
        for e in assignment.get("exercises") or []:
            if (sid, e) not in handed:
                out.append((sid, None, e))
    return sorted(out, key=lambda t: (t[0], t[2]))


def format_class_table(rows: Sequence[tuple[str, GradeResult | None, str]]) -> str:
    table = [("student", "exercise", "points", "result", "flag / first hint")]
    for sid, r, exercise in rows:
        if r is None:
            table.append((sid, exercise, "0", "missing", "not handed in"))
            continue
        _, pts, mx = _points(r)
        word = {"passed": "passed", "failed": "FAILED"}.get(r.status, "NOT GRADABLE")
        tail = "; ".join(x for x in (r.flag, "" if r.passed else r.first_hint) if x)
        table.append((safe_text(sid, 64), exercise, f"{pts:g}/{mx:g}", word, safe_text(tail, 200)))
    widths = [max(len(row[i]) for row in table) for i in range(4)]
    lines = ["  ".join(row[i].ljust(widths[i]) for i in range(4)) + "  " + row[4] for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 10)
    return "\n".join(line.rstrip() for line in lines)


# -- CI for a student's repository ------------------------------------------------------------------

_CI_PATH = {"github": ".github/workflows/grade.yml", "gitlab": ".gitlab-ci.yml"}

#: The command a student's CI runs, in the repository's root: grade every notebook there, write the
#: table and the JSON; its status fails the run when an answer fails.
CI_COMMAND = (
    "simhash-lab grade --own-variant *.ipynb --json grade.json > grade.txt; "
    "status=$?; cat grade.txt; exit $status"
)


def ci_workflow(kind: str, package: str = "simhash-lab[grading]") -> str:
    """A CI file for a student's repository (``github``: GitHub Actions, ``gitlab``: GitLab CI) that
    installs ``package`` (pip's requirement: simhash-lab with the grading extra, or a pinned one)
    and bubblewrap, compiles the kernels once (``simhash-lab warmup``), grades the notebooks in the
    sandbox, and fails when an answer fails, with the table as the job's summary and the JSON as an
    artifact."""
    if not package.strip() or "'" in package or "\n" in package:
        raise AssignError(f"--ci-package must be one pip requirement without quotes, got {package!r}")
    pkg = package.strip()
    if kind == "github":
        return f"""name: grade
on: [push, pull_request]
jobs:
  grade:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: install
        run: |
          sudo apt-get update && sudo apt-get install -y bubblewrap
          # Ubuntu 24.04 stops unprivileged user namespaces, which bubblewrap needs
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
          pip install '{pkg}'
          simhash-lab warmup
      - name: grade
        shell: bash
        run: |
          {CI_COMMAND}
      - name: summary
        if: always()
        shell: bash
        run: |
          {{ echo '```'; cat grade.txt; echo '```'; }} >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        if: always()
        with:
          name: grade
          path: |
            grade.txt
            grade.json
"""
    if kind == "gitlab":
        return f"""grade:
  image: python:3.12
  before_script:
    - apt-get update && apt-get install -y bubblewrap
    - pip install '{pkg}'
    - simhash-lab warmup
  script:
    - |
      {CI_COMMAND}
  artifacts:
    when: always
    paths:
      - grade.txt
      - grade.json
"""
    raise AssignError(f"--ci must be github or gitlab, got {kind!r}")
