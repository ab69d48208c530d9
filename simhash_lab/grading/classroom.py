"""A class: one notebook per student and exercise, each on its own variant, graded into a gradebook.

The teacher's week
------------------
``simhash-lab assign exercises/ --roster roster.csv --out release/`` writes::

    release/handout/<id>/NN_exercise_name.ipynb   what a student gets: their variant of the data
    release/handout/<id>/.github/workflows/...    with --ci: the CI file of their repository
    release/private/secret.key                    the secret (hex, mode 0600): never handed out
    release/private/assignment.json               the exercises, the roster, each student's variants
    release/private/solutions/<id>/NN_solution_name.ipynb  the teacher's solved copy of that variant
    release/private/gradebook.db                  made by the first ``grade`` (:mod:`.gradebook`)

so ``release/handout/`` can be handed out whole, and nothing of ``release/private/`` is in it.

``simhash-lab grade submissions/ --assignment release/private/assignment.json`` grades a class
(``submissions/<id>/``: a folder per student), ``grade submissions/s18 --assignment ...`` one
student (a folder named after a roster id, with no student folders in it), into the gradebook
beside the assignment (``--gradebook`` names another); every other student's grades stay as they
were. :func:`grade_class` does it, step by step:

1. **Collect** (:mod:`.staging`): every notebook of each student folder is copied into a private
   staging folder (regular files only, no link followed, size-limited, names normalised) and only
   the copy is read from then on.
2. **Sort**: each copy is read (bounded) and identified by its metadata or name. Only the
   assignment's exercises count: another exercise, a file of no known exercise, a link, a Jupyter
   autosave copy, a folder not on the roster are listed with the reason and not graded. Of the
   copies of one exercise, one counts, by a named rule (``latest`` by default: the latest
   submission time; ``earliest``; ``best``: all are graded, the highest points count); the others
   are listed as not counted ("an older copy"). A submission's time is the file's modification
   time, or the time an LMS export gives (:func:`read_times`). With a deadline, a copy handed in
   later loses ``late_penalty`` of its points per day started, and one past ``late_limit`` days
   does not count.
3. **Grade** the copies that count (:func:`simhash_lab.grading._grader.grade`), each on its
   student's variant.
4. **Record** the run in the gradebook, in one transaction (:meth:`.Gradebook.record`): the
   earlier counted copy of each exercise graded again stops counting and stays in the file.

The table (:func:`format_class_table`), the CSV, Canvas and Moodle exports and the feedback files
(:func:`write_feedback`) are then views of the gradebook; overrides (``simhash-lab override``)
live in it and survive every re-grade.

A student's variant of an exercise is ``HMAC-SHA256(secret, "NN_name:<id>")`` read as an int
(62 bits, so never one of the notebooks' own variants None and 1): the same secret (``--secret
FILE``, or ``release/private/secret.key`` when it exists) gives the same variants again, for a
student who joins late. The student's notebook carries it twice: in its metadata
(``simhash_lab.variant`` and ``.student``) and in a first, hidden setup cell that calls
:func:`simhash_lab.grading.data.use_variant`, so the data functions, the numbers the text shows and
the learner's own check cells are all that student's. The answers worked out by hand (declared with
``hand=`` in :mod:`simhash_lab.grading.checks`) are judged on that variant, so a classmate's fail;
the answers computed by code are graded on a hidden variant, as always.
"""

from __future__ import annotations

import copy
import csv
import dataclasses
import hashlib
import hmac
import json
import math
import os
import re
import secrets
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .._escape import markdown_text
from .._files import show_name
from .._i18n import _, language
from .._write import atomic_output
from . import gradebook as gbmod
from ._notebooks import META, cell_meta, cell_source, exercise_file, file_kind, language_of
from ._report import GradeResult, safe_text

__all__ = [
    "RULES",
    "AssignError",
    "ClassRun",
    "LatePolicy",
    "assign",
    "ci_workflow",
    "default_ci_package",
    "feedback_text",
    "find_students",
    "format_class_table",
    "grade_class",
    "locate",
    "read_assignment",
    "read_roster",
    "read_times",
    "variant_for",
    "write_feedback",
]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
VERSION = 2  # of assignment.json: 2 keeps the roster's email, SIS id and login; 1 is still read
RULES = ("latest", "earliest", "best")
HANDOUT, PRIVATE = "handout", "private"


class AssignError(ValueError):
    """A roster, secret, assignment or option that cannot be used; the message names it."""


# -- the roster and the secret ----------------------------------------------------------------------

#: Roster columns (header names, any case) and the field each fills.
ROSTER_COLUMNS = {
    "id": "id",
    "name": "name",
    "email": "email",
    "sis_id": "sis_id",
    "sis user id": "sis_id",
    "sis_user_id": "sis_id",
    "login": "login",
    "sis login id": "login",
    "sis_login_id": "login",
}


def read_roster(path: str | os.PathLike) -> list[dict[str, str]]:
    """The students of a roster CSV: an ``id`` column (a safe folder name: letters, digits, ``.``,
    ``_``, ``-``, not starting with ``.``; unique), optional ``name``, ``email``, ``sis_id`` (the
    LMS's SIS user id, for the Canvas and Moodle exports) and ``login`` (Canvas's SIS login id)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise AssignError(f"--roster: cannot read {show_name(path)}: {e}") from None
    header = [ROSTER_COLUMNS.get(h.strip().lower(), "") for h in rows[0]] if rows else []
    if "id" not in header or len(rows) < 2:
        raise AssignError(
            f"--roster: {show_name(path)} needs a header row with an `id` column and one row per student"
        )
    seen: set[str] = set()
    out = []
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        rec = {"id": "", "name": "", "email": "", "sis_id": "", "login": ""}
        for field, value in zip(header, row):
            if field and not rec[field]:
                rec[field] = " ".join(value.split())
        sid = rec["id"]
        if not _ID.fullmatch(sid):
            raise AssignError(
                f"--roster: line {n}: id {sid!r} is not a safe folder name (letters, digits, . _ -; "
                "at most 64, not starting with . or -)"
            )
        if sid in seen:
            raise AssignError(f"--roster: line {n}: id {sid!r} is used twice")
        seen.add(sid)
        out.append(rec)
    return out


def read_secret(path: str | os.PathLike) -> bytes:
    try:
        text = Path(path).read_text(encoding="ascii").strip()
        key = bytes.fromhex(text)
    except (OSError, ValueError) as e:
        raise AssignError(f"--secret: cannot read a hex secret from {show_name(path)}: {e}") from None
    if len(key) < 16:
        raise AssignError(f"--secret: {show_name(path)} holds {len(key)} bytes; at least 16 are needed")
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


def _setup_cell(variant: int, lang: str = "en") -> dict:
    """The hidden first cell of a student's copy, its comment in the notebook's ``lang``."""
    import nbformat

    with language(lang):
        note = _("Your own variant of this exercise's data (grading uses it too): please leave this cell.")
    cell = nbformat.v4.new_code_cell(
        f"# {note}\nfrom simhash_lab.grading import data\n\ndata.use_variant({variant})"
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
    found = {old: False for old, _new in reps}
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
    nb.cells.insert(first, _setup_cell(variant, language_of(nb)))
    return nb


# -- assign -----------------------------------------------------------------------------------------


def _exercises_in(folder: Path) -> dict[str, Path]:
    """The exercises' student notebooks in ``folder``, by exercise: each named as a learner's file
    (``NN_exercise_topic.ipynb``), or as every file was named before (``NN_topic.ipynb``: an older
    checkout's ``exercises/``), never a solution's."""
    from .checks import EXERCISES

    out: dict[str, Path] = {}
    for p in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        found = file_kind(p.name)
        if found is None or found[0] not in EXERCISES or found[1] == "solution":
            continue
        if found[0] not in out or p.name == exercise_file(found[0]):  # the learner's name first
            out[found[0]] = p
    if not out:
        raise AssignError(f"EXERCISES: no exercise notebook (NN_exercise_name.ipynb) in {show_name(folder)}")
    return out


def _solved_in(folder: Path, exercise: str) -> Path:
    """The solved copy of ``exercise`` in ``folder`` (``NN_solution_topic.ipynb``, or an older
    checkout's ``NN_topic.ipynb``); the first name when neither is there."""
    named = folder / exercise_file(exercise, "solution")
    older = folder / f"{exercise}.ipynb"
    return older if not named.is_file() and older.is_file() else named


def assign(
    exercises: str | os.PathLike,
    roster: str | os.PathLike,
    out: str | os.PathLike,
    *,
    secret: str | os.PathLike | None = None,
    only: Sequence[str] | None = None,
    ci: str | None = None,
    ci_package: str | None = None,
) -> dict:
    """Write a release (see the module docstring); returns the assignment. ``exercises`` holds the
    stub notebooks and ``solutions/`` the solved ones (as the repository's ``exercises/``);
    ``secret`` a file with the secret in hex (default: ``OUT/private/secret.key``, made when
    missing); ``ci_package``: what the CI file installs (default :func:`default_ci_package`)."""
    import nbformat

    out = Path(out)
    if ci is not None:
        ci_package = ci_package or default_ci_package()
        if ci_package is None:
            raise AssignError(
                "--ci-package: this simhash-lab is not a git checkout with an `origin` remote, so there is "
                "no "
                "default; say where the CI installs simhash-lab from, e.g. --ci-package "
                "'simhash-lab[grading] @ git+https://github.com/YOU/simhash-lab@v1.0'"
            )
        ci_workflow(ci, ci_package)  # a bad --ci or --ci-package before anything is written
    if secret is None and (out / "secret.key").exists() and not (out / PRIVATE / "secret.key").exists():
        raise AssignError(
            f"--out: {show_name(out)} is a release of an older simhash-lab (its secret is "
            f"{show_name(out / 'secret.key')}): pass --secret {show_name(out / 'secret.key')} to keep its "
            "variants"
        )
    src = Path(exercises)
    found = _exercises_in(src)
    if only:
        unknown = [e for e in only if e not in found]
        if unknown:
            raise AssignError(
                f"--exercise: {unknown[0]!r} is not in {show_name(src)}; there: {', '.join(found)}"
            )
        found = {e: found[e] for e in only}
    solved_dir = src / "solutions"
    solved = {e: _solved_in(solved_dir, e) for e in found}
    missing = [e for e in found if not solved[e].is_file()]
    if missing:
        raise AssignError(f"EXERCISES: no solved copy {show_name(solved[missing[0]])}")
    students = read_roster(roster)
    private = out / PRIVATE
    private.mkdir(parents=True, exist_ok=True, mode=0o700)
    key_path = Path(secret) if secret is not None else private / "secret.key"
    if secret is None and not key_path.exists():
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32) + "\n")
    key = read_secret(key_path)
    assignment: dict[str, Any] = {"version": VERSION, "exercises": list(found), "students": {}}
    if ci:
        assignment["ci"] = {"kind": ci, "package": ci_package}
    for s in students:
        variants = {e: variant_for(key, e, s["id"]) for e in found}
        assignment["students"][s["id"]] = {
            **{k: s[k] for k in ("name", "email", "sis_id", "login")},
            "variants": variants,
        }
        for e, path in found.items():
            for dest_dir, base, kind in (
                (out / HANDOUT, path, "exercise"),
                (private / "solutions", solved[e], "solution"),
            ):
                nb = nbformat.read(base, as_version=4)
                nb = personalize(nb, e, s["id"], variants[e], solved=kind == "solution")
                dest = dest_dir / s["id"] / exercise_file(e, kind)
                dest.parent.mkdir(parents=True, exist_ok=True)
                with atomic_output(dest, "w", encoding="utf-8") as f:
                    nbformat.write(nb, f)
    with atomic_output(private / "assignment.json", "w", encoding="utf-8") as f:
        json.dump(assignment, f, indent=1)
        f.write("\n")
    if ci:
        text = ci_workflow(ci, ci_package)
        for s in students:
            path = out / HANDOUT / s["id"] / _CI_PATH[ci]
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_output(path, "w", encoding="utf-8") as f:
                f.write(text)
    return assignment


def read_assignment(path: str | os.PathLike) -> dict:
    """An ``assignment.json`` written by :func:`assign` (``path`` may name the release folder), checked."""
    path = _assignment_file(path)
    try:
        a = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise AssignError(f"--assignment: cannot read {show_name(path)}: {e}") from None
    ok = (
        isinstance(a, dict)
        and a.get("version") in (1, VERSION)
        and isinstance(a.get("exercises"), list)
        and all(isinstance(e, str) for e in a["exercises"])
        and isinstance(a.get("students"), dict)
        and all(
            isinstance(v, dict)
            and isinstance(v.get("variants"), dict)
            and all(type(x) is int for x in v["variants"].values())
            for v in a["students"].values()
        )
    )
    if not ok:
        raise AssignError(
            f"--assignment: {show_name(path)} is not an assignment.json written by simhash-lab assign"
        )
    for s in a["students"].values():
        for k in ("name", "email", "sis_id", "login"):
            s[k] = s.get(k) if isinstance(s.get(k), str) else ""
    return a


def _assignment_file(path: str | os.PathLike) -> Path:
    p = Path(path)
    if p.is_dir():
        for cand in (p / PRIVATE / "assignment.json", p / "assignment.json"):
            if cand.is_file():
                return cand
    return p


@dataclasses.dataclass
class Located:
    """Where a class's assignment and gradebook are, and what no output may be inside."""

    assignment: dict
    gradebook: str
    release: str | None  # the release folder (no output goes in it but the gradebook)


def locate(assignment: str | os.PathLike | None, gradebook: str | os.PathLike | None) -> Located:
    """The assignment and the gradebook of a class, as ``grade`` and ``override`` find them:
    ``assignment`` (``release/private/assignment.json``, or the release folder) and the gradebook
    beside it (``gradebook.db``) unless ``gradebook`` names another; or, with ``gradebook`` alone,
    the assignment stored in it."""
    if assignment is not None:
        path = _assignment_file(assignment)
        a = read_assignment(path)
        folder = path.resolve().parent
        release = folder.parent if folder.name == PRIVATE else folder
        gb = os.fspath(gradebook) if gradebook is not None else str(folder / "gradebook.db")
        return Located(a, gb, str(release))
    if gradebook is None:
        raise AssignError("--assignment or --gradebook: say which class (the release's assignment.json)")
    with gbmod.Gradebook(gradebook, create=False) as gb:
        a = gb.assignment
    if a is None:
        raise AssignError(
            f"--gradebook: {show_name(gradebook)} holds no assignment yet (grade a class first)"
        )
    folder = Path(gradebook).resolve().parent  # release/private/gradebook.db: its release is known
    return Located(a, os.fspath(gradebook), str(folder.parent) if folder.name == PRIVATE else None)


def exercise_points(names: Sequence[str]) -> list[tuple[str, list[tuple[str, float, str]]]]:
    """``(exercise, [(answer key, points, title), ...])`` for the gradebook, from the checkers."""
    from .checks import EXERCISES

    unknown = [e for e in names if e not in EXERCISES]
    if unknown:
        raise AssignError(f"--assignment: exercise {unknown[0]!r} is not one this simhash-lab knows")
    return [(e, [(a.key, float(a.points), a.title) for a in EXERCISES[e].answers]) for e in names]


def open_gradebook(located: Located, *, create: bool = True) -> gbmod.Gradebook:
    """The class's gradebook, its assignment stored or brought up to date."""
    gb = gbmod.Gradebook(located.gradebook, create=create)
    try:
        gb.set_assignment(located.assignment, exercise_points(located.assignment["exercises"]))
    except BaseException:
        gb.close()
        raise
    return gb


# -- which folders are whose --------------------------------------------------------------------------


def find_students(
    folders: Sequence[str | os.PathLike], roster: Sequence[str]
) -> tuple[list[tuple[str, str]], list[str], bool]:
    """``[(student, folder)]`` to grade, the notebook files lying loose in a class folder, and
    whether a class folder was given (then a student of the roster without a folder there handed in
    nothing).

    A folder named after a roster id, with no folder of another roster id in it, is that student's
    (``grade submissions/s18``); any other folder is a class folder, each of its subfolders (or
    links to one: collection refuses them) a student's, named by its name, on the roster or not.
    """
    ids = set(roster)
    out: dict[str, str] = {}
    loose: list[str] = []
    whole = False

    def add(sid: str, path: str) -> None:
        if sid in out:
            raise AssignError(
                f"NOTEBOOK: the folder of {show_name(sid)} is given twice ({show_name(out[sid])}, "
                f"{show_name(path)})"
            )
        out[sid] = path

    for top in folders:
        top = os.fspath(top)
        if not os.path.isdir(top):
            raise AssignError(
                f"NOTEBOOK: {show_name(top)} is not a folder (with --assignment, give folders of submissions)"
            )
        try:
            entries = sorted(os.scandir(top), key=lambda e: e.name)
        except OSError as e:
            raise AssignError(f"NOTEBOOK: cannot list {show_name(top)}: {e.strerror or e}") from None
        subdirs = [e for e in entries if e.is_dir(follow_symlinks=False) or e.is_symlink()]
        name = os.path.basename(os.path.normpath(top))
        if name in ids and not any(e.name in ids for e in subdirs):
            add(name, top)
            continue
        whole = True
        for e in entries:
            if e.is_dir(follow_symlinks=False) or (e.is_symlink() and not e.name.lower().endswith(".ipynb")):
                add(e.name, e.path)
            elif e.name.lower().endswith(".ipynb"):
                loose.append(e.path)
    return list(out.items()), loose, whole


# -- submission times and the late policy ------------------------------------------------------------


def parse_time(text: str, what: str) -> datetime:
    """An ISO 8601 time (``2026-12-10T23:59``, ``...Z``, ``...+01:00``); without a zone, this
    machine's local time."""
    t = text.strip()
    if t.endswith(("Z", "z")):
        t = t[:-1] + "+00:00"
    try:
        d = datetime.fromisoformat(t)
    except ValueError:
        raise AssignError(
            f"{what}: expected an ISO 8601 time such as 2026-12-10T23:59, got {text!r}"
        ) from None
    return d.astimezone() if d.tzinfo is None else d


def read_times(path: str | os.PathLike) -> dict[tuple[str, str | None], datetime]:
    """Submission times from an LMS export: a CSV with an ``id`` column (the roster's ids), a
    ``submitted_at`` column (ISO 8601) and, optionally, an ``exercise`` column; returns
    ``{(id, exercise or None): time}``."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise AssignError(f"--submitted-at: cannot read {show_name(path)}: {e}") from None
    if not rows or not {"id", "submitted_at"} <= set(rows[0]):
        raise AssignError(f"--submitted-at: {show_name(path)} needs `id` and `submitted_at` columns")
    out = {}
    for n, row in enumerate(rows, start=2):
        when = (row.get("submitted_at") or "").strip()
        if not when:
            continue
        out[((row.get("id") or "").strip(), (row.get("exercise") or "").strip() or None)] = parse_time(
            when, f"--submitted-at: line {n}"
        )
    return out


@dataclasses.dataclass(frozen=True)
class LatePolicy:
    """A deadline, the share of points taken off per day started after it (``penalty``, 0..1), and
    the days after it past which a copy does not count (``limit``; None: any time)."""

    deadline: datetime | None = None
    penalty: float = 0.0
    limit: float | None = None

    def days_late(self, when: datetime | None) -> int:
        if self.deadline is None or when is None or when <= self.deadline:
            return 0
        return math.ceil((when - self.deadline).total_seconds() / 86400)

    def too_late(self, when: datetime | None) -> bool:
        if self.deadline is None or self.limit is None or when is None:
            return False
        return when > self.deadline + timedelta(days=self.limit)

    def penalty_for(self, days: int) -> float:
        return min(1.0, max(0.0, self.penalty * days))


# -- grading a class ------------------------------------------------------------------------------------


@dataclasses.dataclass
class ClassRun:
    """What :func:`grade_class` did: the run's id, its students (each folder's, on the roster or not;
    with a class folder, every student of the roster too: one without a folder handed in nothing),
    the submissions recorded, the results of the files graded (their paths the original ones), the
    loose files, the seconds it took, and each student folder collected."""

    run: int
    students: list[str]
    submissions: list[gbmod.Submission]
    results: list[GradeResult]
    loose: list[str]
    seconds: float
    folders: dict[str, str]  # student -> the folder collected


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


def _iso(t: datetime | None) -> str | None:
    return None if t is None else t.astimezone(timezone.utc).isoformat(timespec="seconds")


def grade_class(
    folders: Sequence[str | os.PathLike],
    located: Located,
    gb: gbmod.Gradebook,
    *,
    rule: str = "latest",
    late: LatePolicy | None = None,
    times: dict[tuple[str, str | None], datetime] | None = None,
    max_bytes: int | None = None,
    grade: Callable[..., list[GradeResult]] | None = None,
    **grade_options: Any,
) -> ClassRun:
    """Collect, sort, grade and record a class's (or some students') folders (see the module
    docstring). ``grade_options`` go to :func:`simhash_lab.grading._grader.grade` (``jobs``,
    ``timeout``, ``unsafe`` ...); ``grade`` replaces it (tests)."""
    from . import staging
    from ._grader import load_pristine
    from ._notebooks import NotGradable, identify, language_of, read_notebook

    if rule not in RULES:
        raise AssignError(f"--rule must be one of {', '.join(RULES)}, got {rule!r}")
    if grade is None:
        from ._grader import grade
    t0 = time.monotonic()
    started = gbmod.now()
    late = late or LatePolicy()
    times = times or {}
    assignment = located.assignment
    roster = list(assignment["students"])
    assigned = list(assignment["exercises"])
    targets, loose, whole = find_students(folders, roster)
    pristine = load_pristine()
    subs: list[gbmod.Submission] = []
    staged_of: dict[int, str] = {}  # id(submission) -> its staged copy
    when_of: dict[int, datetime | None] = {}

    def when(s: gbmod.Submission, mtime: float | None) -> datetime | None:
        """A submission's time: the LMS export's for (student, exercise) or the student, else the
        file's modification time."""
        t = times.get((s.student, s.exercise)) or times.get((s.student, None))
        if t is None and mtime is not None:
            t = datetime.fromtimestamp(mtime, timezone.utc)
        when_of[id(s)] = t
        s.submitted_at = _iso(t)
        return t

    with staging.Staging(**({"max_bytes": max_bytes} if max_bytes else {})) as stage:
        for sid, folder in targets:
            for c in stage.collect(sid, folder):
                s = gbmod.Submission(sid, c.path or ".", None, "not graded", sha256=c.sha256, size=c.size)
                subs.append(s)
                if c.mtime is not None:
                    s.submitted_at = _iso(datetime.fromtimestamp(c.mtime, timezone.utc))
                if c.problem is not None or sid not in assignment["students"]:
                    # listed, never read: its exercise as its name says, for the table
                    s.exercise = identify({}, os.path.basename(c.path), pristine)
                    s.why = c.problem or _("its folder is not a student of the roster: not graded")
                    continue
                try:
                    nb = read_notebook(c.staged)
                except NotGradable as e:
                    s.exercise = identify({}, os.path.basename(c.path), pristine)
                    s.status, s.first_hint = "not gradable", str(e)
                    when(s, c.mtime)
                    if s.exercise is None:
                        s.why = _("not a notebook ({why})").format(why=e)
                    elif s.exercise not in assigned:
                        s.why = _("{exercise} is not in this assignment: not graded").format(
                            exercise=s.exercise
                        )
                    continue
                s.lang = language_of(nb)
                s.exercise = identify(nb, os.path.basename(c.staged), pristine)
                if s.exercise is None:
                    s.status = "not gradable"
                    s.why = _("cannot tell which exercise it is (its metadata and name name none)")
                    continue
                if s.exercise not in assigned:
                    s.why = _("{exercise} is not in this assignment: not graded").format(exercise=s.exercise)
                    continue
                staged_of[id(s)] = c.staged
                if late.too_late(when(s, c.mtime)):
                    s.why = _(
                        "handed in after the last day accepted ({days:g} days after the deadline)"
                    ).format(days=late.limit)
                    del staged_of[id(s)]
        # one counts per (student, exercise): the rule picks among the readable copies
        groups: dict[tuple[str, str], list[gbmod.Submission]] = {}
        for s in subs:
            if s.exercise in assigned and s.student in assignment["students"] and not s.why:
                groups.setdefault((s.student, s.exercise), []).append(s)
        to_grade: list[gbmod.Submission] = []
        for _key, copies in groups.items():
            readable = [s for s in copies if id(s) in staged_of]
            pool = readable or copies
            order = sorted(
                pool, key=lambda s: (when_of.get(id(s)) or datetime.min.replace(tzinfo=timezone.utc), s.path)
            )
            if rule == "best" and readable:
                to_grade += readable
                continue
            pick = order[-1] if rule in ("latest", "best") else order[0]
            pick.counted = True
            if id(pick) in staged_of:
                to_grade.append(pick)
            for s in copies:
                if s is pick:
                    continue
                if s not in pool:
                    s.why = _("not a notebook: another copy of this exercise counts")
                elif rule == "earliest":
                    s.why = _("a later copy: the earliest counts (rule: earliest)")
                else:
                    s.why = _("an older copy: the latest counts (rule: latest)")
        by_path = {staged_of[id(s)]: s for s in to_grade}
        variants = {sid: v.get("variants") for sid, v in assignment["students"].items()}
        owner = {staged_of[id(s)]: s.student for s in to_grade}
        results = (
            grade(list(by_path), shown=lambda p: variants.get(owner.get(p, "")), **grade_options)
            if by_path
            else []
        )
    for r in results:
        s = by_path.get(r.path)
        if s is None:
            continue
        per, pts, _mx = _points(r)
        s.status, s.points = r.status, pts
        s.flag, s.first_hint, s.notes, s.lang, s.seconds = (
            r.flag,
            r.first_hint,
            list(r.notes),
            r.lang,
            r.seconds,
        )
        s.answers = [
            gbmod.AnswerGrade(c.name, c.passed, c.credit, per.get(c.name, 0.0), c.hint, c.feedback)
            for c in r.checks
        ]
        r.path = os.path.join(dict(targets)[s.student], s.path)  # the teacher's name for it
    for s in subs:
        days = late.days_late(when_of.get(id(s))) if s.exercise in assigned else 0
        s.late_days, s.penalty = days, late.penalty_for(days)
    if rule == "best":  # every readable copy was graded: the most points (after a late penalty) count
        for copies in groups.values():
            readable = [s for s in copies if id(s) in staged_of]
            if not readable:  # (no notebook among them: the latest counted, above)
                continue
            pick = max(
                readable, key=lambda s: ((s.points or 0.0) * (1 - s.penalty), s.submitted_at or "", s.path)
            )
            pick.counted = True
            for s in copies:
                if s is not pick:
                    s.why = (
                        _("fewer points than another copy: the best counts (rule: best)")
                        if s in readable
                        else _("not a notebook: another copy of this exercise counts")
                    )
    for s in subs:
        if s.counted and not s.why:
            continue
        s.counted = False
    run = gb.record(
        subs,
        folders=[os.fspath(f) for f in folders],
        rule=rule,
        deadline=_iso(late.deadline),
        late_penalty=late.penalty,
        late_days=late.limit,
        started=started,
        version=_version(),
    )
    graded = [sid for sid, _f in targets]
    absent = [sid for sid in roster if sid not in dict(targets)] if whole else []
    return ClassRun(
        run,
        graded + absent,  # a class folder's run covers the whole roster: absent is handed in nothing
        subs,
        results,
        loose,
        time.monotonic() - t0,
        dict(targets),
    )


def _version() -> str:
    from .. import __version__

    return __version__


# -- the teacher's table -------------------------------------------------------------------------------


def _word(status: str) -> str:
    return {
        "passed": _("passed"),
        "failed": _("FAILED"),
        "not gradable": _("NOT GRADABLE"),
        "missing": _("missing"),
    }.get(status, status)


def cell_note(c: gbmod.Cell, run: int | None = None) -> str:
    """What the table says after a grade: the file, flag, first hint, late days, overrides."""
    parts = []
    sub = c.submission
    if sub is not None:
        name = show_name(sub.path)
        if c.others:
            name += " " + _("({n} more not counted)").format(n=len(c.others))
        if run is not None and sub.run != run:
            name += " " + _("(graded in an earlier run)")
        parts.append(name)
        if sub.flag:
            parts.append(sub.flag)
        if sub.late_days:
            parts.append(
                _("{days} days late: -{pct:g} %").format(days=sub.late_days, pct=round(sub.penalty * 100, 1))
            )
        if sub.status != "passed" and sub.first_hint:
            parts.append(sub.first_hint)
    elif c.others:
        parts.append(_("no copy counts (listed below)"))
    else:
        parts.append(_("not handed in"))
    for o in c.overrides:
        parts.append(
            _("override #{id} ({what} = {points:g}): {comment}").format(
                id=o["id"], what=o["answer"] or _("exercise"), points=o["points"], comment=o["comment"]
            )
        )
    return "; ".join(parts)


def format_class_table(
    gb: gbmod.Gradebook, done: ClassRun | None = None, students: Sequence[str] | None = None
) -> str:
    """The teacher's table: for each student of the run (or ``students``), each assigned exercise
    (points of the maximum, result, the file that counts and why it lost points), each file of the
    run that does not count (and why), and the total; then the files of folders not on the roster."""
    roster = [s["id"] for s in gb.students()]
    wanted = set(done.students if done is not None else students if students is not None else roster)
    mine = [sid for sid in roster if sid in wanted]
    cells = gb.cells(mine)
    totals = gb.totals(cells)
    run = done.run if done is not None else None
    listed = [s for s in (done.submissions if done is not None else []) if not s.counted]
    rows = [(_("student"), _("exercise"), _("points"), _("result"), _("file / why"))]
    for sid in mine:
        for c in (c for c in cells if c.student == sid):
            rows.append(
                (sid, c.exercise, f"{c.points:g}/{c.max_points:g}", _word(c.status), cell_note(c, run))
            )
        for s in (s for s in listed if s.student == sid):
            rows.append((sid, s.exercise or "?", "-", _("not counted"), f"{show_name(s.path)}: {s.why}"))
        pts, mx = totals[sid]
        rows.append((sid, _("total"), f"{pts:g}/{mx:g}", "", ""))
    for s in (s for s in listed if s.student not in wanted or s.student not in roster):
        rows.append(
            (show_name(s.student), s.exercise or "?", "-", _("not graded"), f"{show_name(s.path)}: {s.why}")
        )
    for p in done.loose if done is not None else []:
        rows.append(("?", "?", "-", _("not graded"), f"{show_name(p)}: " + _("not in a student's folder")))
    rows = [tuple(safe_text(x, 64) for x in r[:4]) + (safe_text(r[4], 300),) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 10)
    return "\n".join(line.rstrip() for line in lines)


def class_passed(gb: gbmod.Gradebook, students: Sequence[str]) -> bool:
    """Every assigned exercise of ``students`` (those on the roster) counted, passed, unflagged."""
    return all(c.status == "passed" and not c.flag for c in gb.cells(students))


# -- the student's feedback -------------------------------------------------------------------------------


def feedback_text(
    c: gbmod.Cell, titles: dict[str, str] | None = None, maxima: dict[str, float] | None = None
) -> str:
    """A student's Markdown feedback on one exercise: each answer, its points, the hint (never a
    hidden input or a value computed from one, see ``_grader._public_hint``), the late penalty,
    the teacher's overrides and the copies that did not count. Everything that came from the
    student or a run of their code (file names, hints quoting an exception) is escaped
    (:func:`simhash_lab._escape.markdown_text`): no link, image or HTML can come from it."""
    sub = c.submission
    with language(sub.lang if sub is not None else "en"):
        return _feedback_text(c, titles or {}, maxima)


def _feedback_text(c: gbmod.Cell, titles: dict[str, str], maxima: dict[str, float] | None) -> str:
    sub = c.submission
    lines = [
        _("# {exercise}: feedback for {student}").format(
            exercise=c.exercise, student=markdown_text(c.student)
        ),
        "",
    ]
    answers = {a.key: a for a in sub.answers} if sub is not None else {}
    if sub is None:
        lines += [
            _("Not handed in.") if not c.others else _("Nothing you handed in counts (below: why)."),
            "",
        ]
    elif sub.status == "not gradable":
        lines += [_("Not gradable: {why}").format(why=markdown_text(sub.first_hint, 400)), ""]
    passed = sum(a.passed for a in answers.values())
    lines += [
        _("**{points:g} of {max_points:g} points** ({passed} of {n} answers passed)").format(
            points=c.points, max_points=c.max_points, passed=passed, n=len(c.answers)
        ),
        "",
    ]
    overridden = {o["answer"]: o for o in c.overrides}
    maxima = maxima or {}
    for key, pts in c.answers.items():
        a = answers.get(key)
        mark = "✅" if a is not None and a.passed else "❌"
        title = titles.get(key, "")
        named = title and title.replace(" ", "_").lower() != key.lower()
        line = (
            f"- {mark} `{key}`" + (f" ({_(title)})" if named else "") + f": {pts:g} / {maxima.get(key, 0):g}"
        )
        if key in overridden:
            line += " " + _("(set by your teacher)")
        lines.append(line)
        if a is not None and not a.passed and a.feedback:
            lines.append("  - " + _("hint: {hint}").format(hint=markdown_text(a.feedback, 400)))
    if sub is not None and sub.late_days:
        lines += [
            "",
            _("Handed in {days} days after the deadline: {pct:g} % of the points taken off.").format(
                days=sub.late_days, pct=round(sub.penalty * 100, 1)
            ),
        ]
    for o in c.overrides:
        what = _("this exercise") if not o["answer"] else f"`{o['answer']}`"
        lines += [
            "",
            _("Your teacher set {what} to {points:g} points: {comment}").format(
                what=what, points=o["points"], comment=markdown_text(o["comment"], 1000)
            ),
        ]
    lines.append("")
    if sub is not None:
        lines.append(_("Graded: {file}.").format(file=markdown_text(sub.path, 200)))
    if c.others:
        for s in c.others:
            text = (
                _("also handed in, not counted: {file} ({why})")
                if sub is not None
                else _("handed in, not counted: {file} ({why})")
            )
            lines.append("- " + text.format(file=markdown_text(s.path, 200), why=markdown_text(s.why, 200)))
    if sub is not None and sub.flag == "variant mismatch":
        lines += [
            "",
            _(
                "Note: this notebook's data is not the variant released to you (another student's, or "
                "none); it was graded on your data."
            ),
        ]
    return "\n".join(lines) + "\n"


def write_feedback(
    gb: gbmod.Gradebook, folder: str | os.PathLike, students: Sequence[str] | None = None
) -> int:
    """``folder/<id>/NN_name.md`` for each exercise of each roster student (of ``students``) that
    was handed in or has an override; returns how many were written."""
    from .checks import CHECKS

    titles = {k: getattr(v, "title", "") for k, v in CHECKS.items()}
    maxima = {k: p for _n, _m, answers in gb.exercises() for k, p, _t in answers}
    n = 0
    for c in gb.cells(students):
        if c.submission is None and not c.overrides and not c.others:
            continue
        dest = Path(folder) / c.student / f"{c.exercise}.md"
        dest.parent.mkdir(parents=True, exist_ok=True)
        with atomic_output(dest, "w", encoding="utf-8") as f:
            f.write(feedback_text(c, titles, maxima))
        n += 1
    return n


# -- CI for a student's repository ------------------------------------------------------------------

_CI_PATH = {"github": ".github/workflows/grade.yml", "gitlab": ".gitlab-ci.yml"}

#: The grade step of a student's CI, in the repository's root: grade every notebook there, keep
#: the table, print it to the job's log whatever the result, then end with the grade's status (a
#: failing answer fails the job). It runs the same under ``bash -e``: the status is caught, not fatal.
CI_GRADE = (
    "status=0\n"
    "simhash-lab grade --own-variant --json grade.json -- *.ipynb > grade.txt 2>&1 || status=$?\n"
    "cat grade.txt\n"
    'exit "$status"\n'
)


def default_ci_package() -> str | None:
    """What a student's CI installs when the teacher does not say: this simhash-lab's own git
    checkout, ``simhash-lab[grading] @ git+URL@COMMIT`` (its ``origin`` remote, made an https URL,
    at the commit checked out), or None when it is not one."""
    here = Path(__file__).resolve().parent
    try:

        def git(*args: str) -> str:
            return subprocess.run(
                ["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10, check=True
            ).stdout.strip()

        url = git("remote", "get-url", "origin")
        commit = git("rev-parse", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.fullmatch(r"(?:ssh://)?git@([^:/]+)[:/](.+)", url)
    if m:
        url = f"https://{m.group(1)}/{m.group(2)}"
    if not url.startswith(("https://", "http://")) or not re.fullmatch(r"[0-9a-f]{40}", commit):
        return None
    return f"simhash-lab[grading] @ git+{url}@{commit}"


def ci_workflow(kind: str, package: str) -> str:
    """A CI file for a student's repository (``github``: GitHub Actions, ``gitlab``: GitLab CI) that
    installs bubblewrap and ``package`` (what ``pip install`` is given: a requirement with a git
    URL, a wheel's path or URL, a pinned version on an index), compiles the kernels once
    (``simhash-lab warmup``), grades the notebooks in the sandbox (:data:`CI_GRADE`: the table in
    the job's log whatever the result), and fails when an answer fails; the table is the job's
    summary and the JSON an artifact."""
    if not isinstance(package, str) or not package.strip() or not package.isprintable():
        raise AssignError(f"--ci-package must be one line, what pip installs, got {package!r}")
    install = f"python -m pip install {shlex.quote(package.strip())}\nsimhash-lab warmup\n"

    def block(text: str, indent: int) -> str:
        return "".join(" " * indent + line + "\n" for line in text.splitlines())

    if kind == "github":
        return (
            "name: grade\n"
            "on: [push, pull_request, workflow_dispatch]\n"
            "jobs:\n"
            "  grade:\n"
            "    runs-on: ubuntu-latest\n"
            "    steps:\n"
            "      - uses: actions/checkout@v4\n"
            "      - uses: actions/setup-python@v5\n"
            "        with:\n"
            '          python-version: "3.12"\n'
            "      - name: sandbox\n"
            "        run: |\n"
            "          sudo apt-get update && sudo apt-get install -y bubblewrap\n"
            "          # Ubuntu 24.04 stops unprivileged user namespaces, which bubblewrap needs\n"
            "          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true\n"
            "      - name: install\n"
            "        shell: bash\n"
            "        run: |\n" + block(install, 10) + "      - name: grade\n"
            "        shell: bash\n"
            "        run: |\n" + block(CI_GRADE, 10) + "      - name: summary\n"
            "        if: always()\n"
            "        shell: bash\n"
            "        run: |\n"
            "          if [ -f grade.txt ]; then\n"
            "            { echo '```'; cat grade.txt; echo '```'; } >> \"$GITHUB_STEP_SUMMARY\"\n"
            "          fi\n"
            "      - uses: actions/upload-artifact@v4\n"
            "        if: always()\n"
            "        with:\n"
            "          name: grade\n"
            "          path: |\n"
            "            grade.txt\n"
            "            grade.json\n"
        )
    if kind == "gitlab":
        return (
            "grade:\n"
            "  image: python:3.12\n"
            "  before_script:\n"
            "    - apt-get update && apt-get install -y bubblewrap\n"
            "    - |\n" + block(install, 6) + "  script:\n"
            "    - |\n" + block(CI_GRADE, 6) + "  artifacts:\n"
            "    when: always\n"
            "    paths:\n"
            "      - grade.txt\n"
            "      - grade.json\n"
        )
    raise AssignError(f"--ci must be github or gitlab, got {kind!r}")
