"""A class's grades in one SQLite file: the gradebook (the standard library's :mod:`sqlite3`, as
nbgrader keeps its own).

What it holds (schema version :data:`SCHEMA_VERSION`, tables made by :data:`MIGRATIONS`):

``assignment``
    the release's ``assignment.json`` (exercises, students, their variants; never the secret);
``student``
    the roster: id, name, email, SIS id, SIS login, in the roster's order;
``exercise`` / ``answer``
    the assignment's exercises in order, each answer's points (the maximum of an exercise is the sum
    of its answers', stored when the assignment is);
``run``
    one row per ``simhash-lab grade`` run: when, which folders, the rule that picked the counted
    copy, the deadline and late policy;
``submission``
    every file a run collected, graded or not: its student folder, its path there, its SHA-256, its
    time, the exercise it is, its status, points before any penalty or override, the late days and
    penalty, the first hint and notes, whether it is the one that **counts** for its (student,
    exercise), and why not when it is not (an older copy, not assigned, a link refused ...);
``answer_grade``
    per graded submission and answer: passed, credit, points, the teacher's hint and the student's;
``override``
    a teacher's points for a student's exercise or one answer, with a comment; they are keyed by
    (student, exercise, answer), not by a submission, so a re-grade keeps them.

Nothing is deleted: a new run adds its submissions, and for each (student, exercise) it handed in
a copy of, the earlier counted one stops counting (``superseded`` names the run) and stays, with its
answers, in the file. :meth:`Gradebook.cells` computes each grade from the assignment's own list:
one cell per roster student and assigned exercise (the counted submission, else "missing"), its
answers' points with the answer overrides put in, less the late penalty, or the exercise override
when there is one; the maximum is the assignment's. A total is the sum of those cells, never of
submission rows. The CSV, Canvas and Moodle exports (:func:`write_csv`, :func:`write_canvas`,
:func:`write_moodle`) are views of it, every cell through :func:`simhash_lab._escape.csv_rows`.

Concurrency: every change is one ``BEGIN IMMEDIATE`` transaction (a second writer waits, up to
``timeout`` seconds), so two ``grade`` runs on one gradebook both land whole. Opening a file made by
a newer simhash-lab (a higher schema version) is refused rather than guessed at; an older one is
brought up to date by the pending migrations, in one transaction.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from .._escape import csv_rows
from .._files import json_name, show_name
from .._write import atomic_output

__all__ = [
    "APPLICATION_ID",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "AnswerGrade",
    "Cell",
    "Gradebook",
    "GradebookError",
    "Submission",
    "write_canvas",
    "write_csv",
    "write_moodle",
]

#: ``PRAGMA application_id`` of a simhash-lab gradebook ("SHLG"), so another SQLite file is not
#: mistaken for one.
APPLICATION_ID = 0x53484C47

#: ``MIGRATIONS[i]`` takes a gradebook from schema version ``i`` to ``i + 1`` (a list of statements,
#: run in one transaction with the version change). Append, never edit: a released step is history.
MIGRATIONS: list[list[str]] = [
    [
        """CREATE TABLE assignment (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            document TEXT NOT NULL,
            stored TEXT NOT NULL
        )""",
        """CREATE TABLE student (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL DEFAULT '',
            email TEXT NOT NULL DEFAULT '',
            sis_id TEXT NOT NULL DEFAULT '',
            login TEXT NOT NULL DEFAULT '',
            position INTEGER NOT NULL,
            enrolled INTEGER NOT NULL DEFAULT 1
        )""",
        """CREATE TABLE exercise (
            name TEXT PRIMARY KEY,
            position INTEGER NOT NULL,
            max_points REAL NOT NULL
        )""",
        """CREATE TABLE answer (
            exercise TEXT NOT NULL REFERENCES exercise(name),
            key TEXT NOT NULL,
            position INTEGER NOT NULL,
            points REAL NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (exercise, key)
        )""",
        """CREATE TABLE run (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started TEXT NOT NULL,
            finished TEXT NOT NULL,
            folders TEXT NOT NULL,
            rule TEXT NOT NULL,
            deadline TEXT,
            late_penalty REAL NOT NULL DEFAULT 0,
            late_days REAL,
            version TEXT NOT NULL DEFAULT ''
        )""",
        """CREATE TABLE submission (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run INTEGER NOT NULL REFERENCES run(id),
            student TEXT NOT NULL,
            path TEXT NOT NULL,
            exercise TEXT,
            status TEXT NOT NULL,
            counted INTEGER NOT NULL DEFAULT 0,
            why TEXT NOT NULL DEFAULT '',
            superseded INTEGER REFERENCES run(id),
            sha256 TEXT,
            size INTEGER,
            submitted_at TEXT,
            flag TEXT NOT NULL DEFAULT '',
            points REAL,
            late_days INTEGER NOT NULL DEFAULT 0,
            penalty REAL NOT NULL DEFAULT 0,
            first_hint TEXT NOT NULL DEFAULT '',
            notes TEXT NOT NULL DEFAULT '[]',
            lang TEXT NOT NULL DEFAULT 'en',
            seconds REAL NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX submission_of ON submission (student, exercise, counted)",
        """CREATE TABLE answer_grade (
            submission INTEGER NOT NULL REFERENCES submission(id),
            key TEXT NOT NULL,
            passed INTEGER NOT NULL,
            credit REAL NOT NULL,
            points REAL NOT NULL,
            hint TEXT NOT NULL DEFAULT '',
            feedback TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (submission, key)
        )""",
        """CREATE TABLE override (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            student TEXT NOT NULL,
            exercise TEXT NOT NULL,
            answer TEXT NOT NULL DEFAULT '',
            points REAL NOT NULL,
            comment TEXT NOT NULL DEFAULT '',
            created TEXT NOT NULL,
            removed TEXT
        )""",
        "CREATE INDEX override_of ON override (student, exercise, answer)",
    ],
]
SCHEMA_VERSION = len(MIGRATIONS)

STATUSES = ("passed", "failed", "not gradable", "not graded")


class GradebookError(ValueError):
    """A gradebook that cannot be used as asked (the message names the file or the parameter)."""


def now() -> str:
    """The time now, ISO 8601 in UTC to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclasses.dataclass
class AnswerGrade:
    """One answer of a graded submission."""

    key: str
    passed: bool
    credit: float
    points: float
    hint: str = ""  # the teacher's (may quote hidden inputs)
    feedback: str = ""  # the student's (no hidden input or value)


@dataclasses.dataclass
class Submission:
    """One file a run collected, as the gradebook records it."""

    student: str  # the folder's name (a roster id, or not)
    path: str  # where it was, relative to the student's folder
    exercise: str | None  # the exercise it is (None: unknown)
    status: str  # one of STATUSES
    counted: bool = False  # the copy that counts for (student, exercise)
    why: str = ""  # why it does not count, or was refused
    sha256: str | None = None
    size: int | None = None
    submitted_at: str | None = None  # ISO 8601 (UTC)
    flag: str = ""
    points: float | None = None  # graded, before a late penalty or an override
    late_days: int = 0
    penalty: float = 0.0  # the share of the points a late penalty takes off (0..1)
    first_hint: str = ""
    notes: list[str] = dataclasses.field(default_factory=list)
    lang: str = "en"
    seconds: float = 0.0
    answers: list[AnswerGrade] = dataclasses.field(default_factory=list)
    id: int | None = None  # the row's id, once recorded
    run: int | None = None
    superseded: int | None = None


@dataclasses.dataclass
class Cell:
    """One grade: a roster student's assigned exercise, computed (see the module docstring)."""

    student: str
    exercise: str
    status: str  # the counted submission's status, or "missing"
    points: float  # final: answer overrides in, late penalty off, or the exercise override
    max_points: float  # the assignment's
    answers: dict[str, float]  # answer key -> final points (overrides in, before the late penalty)
    submission: Submission | None  # the counted one
    others: list[Submission]  # the copies of the counted one's run (or the latest run) that do not count
    overrides: list[dict]  # the active overrides of this cell, oldest first
    graded_points: float | None  # as graded, before penalty and overrides (None: missing)

    @property
    def flag(self) -> str:
        return self.submission.flag if self.submission is not None else ""


def _student_name(text: str) -> str:
    """A folder name as stored: valid UTF-8 (a byte that is not becomes ``\\xNN``)."""
    return json_name(text)


class Gradebook:
    """A gradebook file (see the module docstring).

    Parameters
    ----------
    path : str or os.PathLike
        The SQLite file.
    create : bool
        Make it when it does not exist (else :class:`GradebookError`).
    timeout : float
        Seconds a write waits for another process's transaction to end.
    """

    def __init__(self, path: str | os.PathLike, *, create: bool = True, timeout: float = 120.0):
        self.path = os.fspath(path)
        shown = show_name(self.path)
        if not create and not os.path.exists(self.path):
            raise GradebookError(f"--gradebook: no gradebook at {shown} (grade a class first)")
        if os.path.isdir(self.path):
            raise GradebookError(f"--gradebook: {shown} is a folder, expected a file")
        folder = os.path.dirname(os.path.abspath(self.path))
        if not os.path.isdir(folder):
            raise GradebookError(f"--gradebook: cannot make {shown}: no such folder {show_name(folder)}")
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise GradebookError(f"--gradebook: cannot open {shown}: {e}") from None
        try:
            self._db.execute("PRAGMA foreign_keys = ON")
            self._db.execute("PRAGMA schema_version").fetchone()  # reads the header: not SQLite fails here
            self._migrate()
        except sqlite3.DatabaseError as e:
            self._db.close()
            raise GradebookError(f"--gradebook: {shown} is not a gradebook ({e})") from None
        except BaseException:
            self._db.close()
            raise

    # -- the file ------------------------------------------------------------------------------------

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before anything is read (``BEGIN IMMEDIATE``); SQLite's own
        errors (a locked file past the timeout, a full disk, a damaged file) become
        :class:`GradebookError` naming the file, and nothing of the transaction is kept."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise GradebookError(f"--gradebook: cannot write {show_name(self.path)}: {e}") from None
        try:
            yield self._db
        except BaseException as exc:
            self._db.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise GradebookError(f"--gradebook: {show_name(self.path)}: {exc}") from None
            raise
        try:
            self._db.execute("COMMIT")
        except sqlite3.Error as e:
            raise GradebookError(f"--gradebook: cannot write {show_name(self.path)}: {e}") from None

    def _migrate(self) -> None:
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            app = db.execute("PRAGMA application_id").fetchone()[0]
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            shown = show_name(self.path)
            if tables and app != APPLICATION_ID:
                raise GradebookError(
                    f"--gradebook: {shown} is an SQLite file, but not a simhash-lab gradebook"
                )
            if version > len(MIGRATIONS):
                raise GradebookError(
                    f"--gradebook: {shown} has schema version {version}, newer than this simhash-lab's "
                    f"{len(MIGRATIONS)}: grade with the simhash-lab that made it, or a newer one"
                )
            for n, step in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in step:
                    try:
                        db.execute(statement)
                    except sqlite3.Error as e:  # the transaction is rolled back: the file is as it was
                        raise GradebookError(
                            f"--gradebook: cannot bring {shown} to schema version {n}: {e}"
                        ) from None
            if version < len(MIGRATIONS):
                db.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
                db.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    @property
    def version(self) -> int:
        """The file's schema version."""
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    # -- the assignment ------------------------------------------------------------------------------

    @property
    def assignment(self) -> dict | None:
        """The assignment stored (``assignment.json``'s content), or None before the first run."""
        row = self._db.execute("SELECT document FROM assignment WHERE id = 1").fetchone()
        return json.loads(row[0]) if row else None

    def set_assignment(self, assignment: dict, exercises: Sequence[tuple[str, Sequence[tuple]]]) -> None:
        """Store the assignment, its roster, and ``exercises``: ``[(name, [(key, points, title),
        ...]), ...]`` in the assignment's order.

        A gradebook holds one assignment: the same again (a roster grown by late joiners, the
        existing students' variants unchanged, the same exercises) updates it; another is refused.
        """
        names = [e for e, _ in exercises]
        with self._write() as db:  # read and written in one transaction: two runs cannot race here
            row = db.execute("SELECT document FROM assignment WHERE id = 1").fetchone()
            old = json.loads(row[0]) if row else None
            if old is not None:
                same_exercises = list(old.get("exercises") or []) == names
                kept = all(  # a student who left the roster keeps their grades, out of the exports
                    assignment["students"][sid].get("variants") == s.get("variants")
                    for sid, s in (old.get("students") or {}).items()
                    if sid in assignment["students"]
                )
                if not (same_exercises and kept):
                    why = (
                        f"exercises {', '.join(old.get('exercises') or [])}"
                        if not same_exercises
                        else "other students' variants (another secret)"
                    )
                    raise GradebookError(
                        f"--gradebook: {show_name(self.path)} holds the grades of another assignment "
                        f"({why}); give another --gradebook for this one"
                    )
            db.execute(
                "INSERT OR REPLACE INTO assignment (id, document, stored) VALUES (1, ?, ?)",
                (json.dumps(assignment, sort_keys=True), now()),
            )
            db.execute("UPDATE student SET enrolled = 0")
            for i, (sid, s) in enumerate(assignment["students"].items()):
                db.execute(
                    "INSERT INTO student (id, name, email, sis_id, login, position, enrolled) "
                    "VALUES (?, ?, ?, ?, ?, ?, 1) "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name, email = excluded.email, "
                    "sis_id = excluded.sis_id, login = excluded.login, position = excluded.position, "
                    "enrolled = 1",
                    (sid, s.get("name", ""), s.get("email", ""), s.get("sis_id", ""), s.get("login", ""), i),
                )
            for i, (name, answers) in enumerate(exercises):
                total = float(sum(p for _, p, *_ in answers))
                db.execute(
                    "INSERT INTO exercise (name, position, max_points) VALUES (?, ?, ?) ON CONFLICT (name) "
                    "DO UPDATE SET position = excluded.position, max_points = excluded.max_points",
                    (name, i, total),
                )
                for j, (key, points, *rest) in enumerate(answers):
                    db.execute(
                        "INSERT OR REPLACE INTO answer (exercise, key, position, points, title) VALUES "
                        "(?, ?, ?, ?, ?)",
                        (name, key, j, float(points), rest[0] if rest else ""),
                    )

    def students(self) -> list[dict]:
        """The roster (of the assignment stored last), in its order: ``{"id", "name", "email", "sis_id",
        "login"}``."""
        cur = self._db.execute(
            "SELECT id, name, email, sis_id, login FROM student WHERE enrolled = 1 ORDER BY position, id"
        )
        return [dict(zip(("id", "name", "email", "sis_id", "login"), row)) for row in cur]

    def exercises(self) -> list[tuple[str, float, list[tuple[str, float, str]]]]:
        """The assignment's exercises in order: ``(name, max_points, [(key, points, title), ...])``."""
        out = []
        for name, mx in self._db.execute(
            "SELECT name, max_points FROM exercise ORDER BY position"
        ).fetchall():
            answers = self._db.execute(
                "SELECT key, points, title FROM answer WHERE exercise = ? ORDER BY position", (name,)
            ).fetchall()
            out.append((name, mx, [tuple(a) for a in answers]))
        return out

    # -- runs ------------------------------------------------------------------------------------------

    def record(
        self,
        submissions: Sequence[Submission],
        *,
        folders: Sequence[str] = (),
        rule: str = "latest",
        deadline: str | None = None,
        late_penalty: float = 0.0,
        late_days: float | None = None,
        started: str | None = None,
        version: str = "",
    ) -> int:
        """Add one run's submissions, in one transaction; returns the run's id.

        For every (student, exercise) of which a submission here is counted, the submission that
        counted before stops counting (``superseded`` = this run): it stays in the file.
        """
        seen: set[tuple[str, str | None]] = set()
        for s in submissions:
            if s.status not in STATUSES:
                raise GradebookError(f"status must be one of {STATUSES}, got {s.status!r}")
            if s.counted:
                if s.exercise is None or (s.student, s.exercise) in seen:
                    raise GradebookError(
                        f"one submission counts per (student, exercise): {s.student!r}, {s.exercise!r} has "
                        "two or none"
                    )
                seen.add((s.student, s.exercise))
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO run (started, finished, folders, rule, deadline, late_penalty, late_days, "
                "version) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    started or now(),
                    now(),
                    json.dumps([json_name(f) for f in folders]),
                    rule,
                    deadline,
                    float(late_penalty),
                    late_days,
                    version,
                ),
            )
            run = cur.lastrowid
            counted = {(s.student, s.exercise) for s in submissions if s.counted}
            for student, exercise in sorted(counted, key=str):
                db.execute(
                    "UPDATE submission SET counted = 0, superseded = ? WHERE student = ? AND exercise = ? "
                    "AND counted = 1",
                    (run, _student_name(student), exercise),
                )
            for s in submissions:
                cur = db.execute(
                    "INSERT INTO submission (run, student, path, exercise, status, counted, why, sha256, "
                    "size, submitted_at, flag, points, late_days, penalty, first_hint, notes, lang, seconds) "
                    "VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        run,
                        _student_name(s.student),
                        json_name(s.path),
                        s.exercise,
                        s.status,
                        int(bool(s.counted)),
                        json_name(s.why),
                        s.sha256,
                        s.size,
                        s.submitted_at,
                        json_name(s.flag),
                        s.points,
                        int(s.late_days),
                        float(s.penalty),
                        json_name(s.first_hint),
                        json.dumps([json_name(n) for n in s.notes]),
                        s.lang,
                        float(s.seconds),
                    ),
                )
                s.id, s.run = cur.lastrowid, run
                for a in s.answers:
                    db.execute(
                        "INSERT INTO answer_grade (submission, key, passed, credit, points, hint, feedback) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (
                            s.id,
                            a.key,
                            int(bool(a.passed)),
                            float(a.credit),
                            float(a.points),
                            json_name(a.hint),
                            json_name(a.feedback),
                        ),
                    )
        return run

    def runs(self) -> list[dict]:
        """Every run, oldest first."""
        cols = (
            "id",
            "started",
            "finished",
            "folders",
            "rule",
            "deadline",
            "late_penalty",
            "late_days",
            "version",
        )
        cur = self._db.execute(f"SELECT {', '.join(cols)} FROM run ORDER BY id")
        return [dict(zip(cols, row)) for row in cur]

    _SUB_COLS = (
        "id",
        "run",
        "student",
        "path",
        "exercise",
        "status",
        "counted",
        "why",
        "superseded",
        "sha256",
        "size",
        "submitted_at",
        "flag",
        "points",
        "late_days",
        "penalty",
        "first_hint",
        "notes",
        "lang",
        "seconds",
    )

    def _submissions(self, where: str, args: tuple) -> list[Submission]:
        cur = self._db.execute(
            f"SELECT {', '.join(self._SUB_COLS)} FROM submission WHERE {where} ORDER BY id", args
        )
        out = []
        for row in cur.fetchall():
            d = dict(zip(self._SUB_COLS, row))
            d["counted"] = bool(d["counted"])
            d["notes"] = json.loads(d["notes"])
            s = Submission(**d)
            s.answers = [
                AnswerGrade(k, bool(p), c, pts, h, f)
                for k, p, c, pts, h, f in self._db.execute(
                    "SELECT key, passed, credit, points, hint, feedback FROM answer_grade "
                    "WHERE submission = ?",
                    (s.id,),
                )
            ]
            out.append(s)
        return out

    def submissions(self, student: str | None = None, run: int | None = None) -> list[Submission]:
        """Every submission recorded (of ``student``, of ``run``), in the order recorded."""
        where, args = ["1"], []
        if student is not None:
            where.append("student = ?")
            args.append(_student_name(student))
        if run is not None:
            where.append("run = ?")
            args.append(run)
        return self._submissions(" AND ".join(where), tuple(args))

    # -- overrides ------------------------------------------------------------------------------------

    def _answer_points(self, exercise: str) -> dict[str, float]:
        return dict(
            self._db.execute("SELECT key, points FROM answer WHERE exercise = ?", (exercise,)).fetchall()
        )

    def add_override(
        self, student: str, exercise: str, points: float, comment: str, answer: str | None = None
    ) -> int:
        """A teacher's ``points`` for ``student``'s ``exercise`` (or one ``answer`` of it), with a
        ``comment``; it replaces an earlier one of the same (student, exercise, answer) and survives
        every re-grade. Returns its id."""
        roster = {s["id"] for s in self.students()}
        if student not in roster:
            raise GradebookError(f"STUDENT: {student!r} is not on the roster")
        maxes = {name: mx for name, mx, _ in self.exercises()}
        if exercise not in maxes:
            raise GradebookError(f"EXERCISE: {exercise!r} is not assigned; assigned: {', '.join(maxes)}")
        limit = maxes[exercise]
        if answer:
            answers = self._answer_points(exercise)
            if answer not in answers:
                raise GradebookError(
                    f"--answer: {exercise} has no answer {answer!r}; its answers: {', '.join(answers)}"
                )
            limit = answers[answer]
        if not isinstance(points, (int, float)) or not (0 <= points <= limit):
            raise GradebookError(f"POINTS must be a number from 0 to {limit:g}, got {points!r}")
        if not isinstance(comment, str) or not comment.strip():
            raise GradebookError("--comment: say why the points change (it is shown to the student)")
        with self._write() as db:
            stamp = now()
            db.execute(
                "UPDATE override SET removed = ? WHERE student = ? AND exercise = ? AND answer = ? "
                "AND removed IS NULL",
                (stamp, student, exercise, answer or ""),
            )
            cur = db.execute(
                "INSERT INTO override (student, exercise, answer, points, comment, created) VALUES "
                "(?, ?, ?, ?, ?, ?)",
                (student, exercise, answer or "", float(points), comment.strip(), stamp),
            )
            return cur.lastrowid

    def remove_override(self, override_id: int) -> dict:
        """Withdraw an override (it stays in the file, marked removed); returns it."""
        with self._write() as db:
            row = db.execute(
                "SELECT id FROM override WHERE id = ? AND removed IS NULL", (override_id,)
            ).fetchone()
            if row is None:
                raise GradebookError(f"--remove: no active override #{override_id}")
            db.execute("UPDATE override SET removed = ? WHERE id = ?", (now(), override_id))
        return self.overrides(active=False, ids=[override_id])[0]

    def overrides(
        self, student: str | None = None, *, active: bool = True, ids: Iterable[int] | None = None
    ) -> list[dict]:
        """Overrides (``active``: not removed), oldest first."""
        cols = ("id", "student", "exercise", "answer", "points", "comment", "created", "removed")
        where, args = ["1"], []
        if active:
            where.append("removed IS NULL")
        if student is not None:
            where.append("student = ?")
            args.append(student)
        if ids is not None:
            ids = list(ids)
            where.append(f"id IN ({', '.join('?' * len(ids))})")
            args += ids
        cur = self._db.execute(
            f"SELECT {', '.join(cols)} FROM override WHERE {' AND '.join(where)} ORDER BY id", tuple(args)
        )
        return [dict(zip(cols, row)) for row in cur]

    # -- the grades -------------------------------------------------------------------------------------

    def cells(self, students: Iterable[str] | None = None) -> list[Cell]:
        """Every grade of the roster (or of ``students`` of it), student by student in the roster's
        order, each student's exercises in the assignment's order (see the module docstring)."""
        roster = [s["id"] for s in self.students()]
        if students is not None:
            wanted = set(students)
            roster = [s for s in roster if s in wanted]
        exercises = self.exercises()
        overrides: dict[tuple[str, str], list[dict]] = {}
        for o in self.overrides():
            overrides.setdefault((o["student"], o["exercise"]), []).append(o)
        out = []
        for sid in roster:
            subs = self._submissions("student = ? AND exercise IS NOT NULL", (sid,))
            for name, mx, answers in exercises:
                mine = [s for s in subs if s.exercise == name]
                counted = [s for s in mine if s.counted]
                sub = counted[-1] if counted else None
                if sub is not None:  # the copies of its run that did not count
                    others = [s for s in mine if s.run == sub.run and s is not sub]
                else:  # nothing counts: what the latest run found of it, and why it did not count
                    last = max((s.run for s in mine), default=None)
                    others = [s for s in mine if s.run == last]
                ovs = overrides.get((sid, name), [])
                out.append(_cell(sid, name, mx, answers, sub, others, ovs))
        return out

    def totals(self, cells: Sequence[Cell] | None = None) -> dict[str, tuple[float, float]]:
        """Each roster student's ``(points, max_points)``: the sum of their cells over the assignment's
        exercises (a missing exercise counts 0 of its maximum)."""
        cells = self.cells() if cells is None else cells
        out: dict[str, list[float]] = {}
        for c in cells:
            t = out.setdefault(c.student, [0.0, 0.0])
            t[0] += c.points
            t[1] += c.max_points
        return {sid: (round(p, 3), round(m, 3)) for sid, (p, m) in out.items()}


def _cell(
    sid: str,
    name: str,
    mx: float,
    answers: list[tuple[str, float, str]],
    sub: Submission | None,
    others: list[Submission],
    ovs: list[dict],
) -> Cell:
    graded = {a.key: a.points for a in sub.answers} if sub is not None else {}
    per = {key: float(graded.get(key, 0.0)) for key, _p, _t in answers}
    by_answer = {o["answer"]: o for o in ovs}
    for key in per:
        if key in by_answer:
            per[key] = float(by_answer[key]["points"])
    penalty = sub.penalty if sub is not None else 0.0
    points = sum(per.values()) * (1.0 - penalty)
    if "" in by_answer:  # the exercise's own override: the teacher's final word
        points = float(by_answer[""]["points"])
    graded_points = None if sub is None else float(sub.points or 0.0)
    return Cell(
        student=sid,
        exercise=name,
        status=sub.status if sub is not None else "missing",
        points=round(min(max(points, 0.0), mx), 3),
        max_points=mx,
        answers={k: round(v, 3) for k, v in per.items()},
        submission=sub,
        others=others,
        overrides=ovs,
        graded_points=graded_points,
    )


# -- exports -------------------------------------------------------------------------------------------


def _write_rows(path: str | os.PathLike, rows: list[list[Any]], *, bom: bool) -> None:
    buf = io.StringIO()
    csv_rows(buf, rows)  # every cell that could start a formula or a row is prefixed and quoted
    with atomic_output(path, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        f.write(buf.getvalue())


def _num(x: float | None) -> Any:
    """A number for a CSV cell: an int when it is one (``7``, not ``7.0``), else rounded to 3 places."""
    if x is None:
        return ""
    x = round(float(x), 3)
    return int(x) if x.is_integer() else x


def _other_files(c: Cell) -> str:
    return "; ".join(f"{s.path} ({s.why})" for s in c.others)


def csv_table(gb: Gradebook) -> tuple[list[str], list[list[Any]]]:
    """The gradebook as a table: a row per roster student and assigned exercise, then the
    student's total row; the header first."""
    exercises = gb.exercises()
    keys = [k for _n, _m, answers in exercises for k, _p, _t in answers]
    header = [
        "id",
        "name",
        "email",
        "sis_id",
        "exercise",
        "status",
        "points",
        "max_points",
        "graded_points",
        "late_days",
        "late_penalty",
        "override",
        "flag",
        "file",
        "sha256",
        "submitted_at",
        "not_counted",
        *keys,
    ]
    students = {s["id"]: s for s in gb.students()}
    cells = gb.cells()
    totals = gb.totals(cells)
    rows: list[list[Any]] = []
    by_student: dict[str, list[Cell]] = {}
    for c in cells:
        by_student.setdefault(c.student, []).append(c)
    for sid, mine in by_student.items():
        s = students[sid]
        who = [sid, s["name"], s["email"], s["sis_id"]]
        for c in mine:
            sub = c.submission
            ov = "; ".join(
                f"{o['answer'] or 'exercise'} = {o['points']:g}: {o['comment']}" for o in c.overrides
            )
            rows.append(
                [
                    *who,
                    c.exercise,
                    c.status,
                    _num(c.points),
                    _num(c.max_points),
                    _num(c.graded_points),
                    sub.late_days if sub is not None else "",
                    _num(sub.penalty) if sub is not None else "",
                    ov,
                    c.flag,
                    sub.path if sub is not None else "",
                    (sub.sha256 or "") if sub is not None else "",
                    (sub.submitted_at or "") if sub is not None else "",
                    _other_files(c),
                    *[_num(c.answers.get(k)) for k in keys],
                ]
            )
        pts, mx = totals[sid]
        rows.append([*who, "total", "", _num(pts), _num(mx), *[""] * (len(header) - 8)])
    return header, rows


def write_csv(gb: Gradebook, path: str | os.PathLike) -> None:
    """The gradebook as CSV (:func:`csv_table`; UTF-8, rows ending CR LF, every cell escaped)."""
    header, rows = csv_table(gb)
    _write_rows(path, [header, *rows], bom=False)


def _lms_rows(gb: Gradebook) -> list[tuple[dict, float, float, list[Cell]]]:
    cells = gb.cells()
    totals = gb.totals(cells)
    out = []
    for s in gb.students():
        mine = [c for c in cells if c.student == s["id"]]
        pts, mx = totals.get(s["id"], (0.0, sum(m for _n, m, _a in gb.exercises())))
        out.append((s, pts, mx, mine))
    return out


def write_canvas(gb: Gradebook, path: str | os.PathLike, column: str = "simhash-lab") -> list[str]:
    """A Canvas gradebook import (Grades > Import): ``Student, ID, SIS User ID, SIS Login ID,
    Section`` and one column ``column`` with each student's total, after a ``Points Possible`` row;
    UTF-8 with a byte-order mark, as Canvas writes its own exports. Canvas matches a row by its SIS
    User ID (the roster's ``sis_id``) or SIS Login ID (``login``); returns the ids of students it
    cannot match (neither given)."""
    rows = _lms_rows(gb)
    mx = rows[0][2] if rows else 0.0
    table: list[list[Any]] = [
        ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", column],
        ["Points Possible", "", "", "", "", _num(mx)],
    ]
    unmatched = []
    for s, pts, _mx, _cells in rows:
        if not (s["sis_id"] or s["login"]):
            unmatched.append(s["id"])
        table.append([s["name"] or s["id"], "", s["sis_id"], s["login"], "", _num(pts)])
    _write_rows(path, table, bom=True)
    return unmatched


def write_moodle(gb: Gradebook, path: str | os.PathLike, column: str = "simhash-lab") -> list[str]:
    """A Moodle grade import (Grades > Import > CSV file): ``Full name, Email address, ID number``,
    ``column`` with each student's total and a ``Feedback`` column (each exercise's points); UTF-8
    with a byte-order mark (Moodle drops it). Map "Email address" or "ID number" (the roster's
    ``sis_id``) to the user when importing; returns the ids of students with neither."""
    table: list[list[Any]] = [["Full name", "Email address", "ID number", column, "Feedback"]]
    unmatched = []
    for s, pts, mx, cells in _lms_rows(gb):
        if not (s["email"] or s["sis_id"]):
            unmatched.append(s["id"])
        feedback = "; ".join(f"{c.exercise}: {c.points:g}/{c.max_points:g}" for c in cells)
        table.append(
            [s["name"] or s["id"], s["email"], s["sis_id"], _num(pts), f"{feedback} (total {pts:g}/{mx:g})"]
        )
    _write_rows(path, table, bom=True)
    return unmatched
