"""``simhash-lab override``: a teacher's own points in a class's gradebook
(:mod:`simhash_lab.grading.gradebook`), with a comment the student sees in their feedback.

::

    simhash-lab override STUDENT EXERCISE POINTS --comment TEXT [--answer KEY] --assignment release/
    simhash-lab override --list [STUDENT] --assignment release/
    simhash-lab override --remove ID --assignment release/
    simhash-lab override --from overrides.csv --assignment release/   # id,exercise,points,comment,answer

An override is kept by (student, exercise, answer), not by a submission: every later ``grade`` of
that student keeps it. A new one for the same (student, exercise, answer) replaces the old (which
stays in the gradebook, marked removed). EXERCISE is its name or its number (``03``).

Exit status: 0 when done, 2 on a bad option, student, exercise, points or file (nothing changed:
a ``--from`` file is checked whole before any of it is stored).
"""

from __future__ import annotations

import argparse
import csv

from .._i18n import LANGUAGES, _, set_language
from ._output import err, out

__all__ = ["add_override_parser"]


def _exercise(name: str, assigned: list[str]) -> str:
    if name in assigned:
        return name
    same = [e for e in assigned if e.split("_", 1)[0] == name]
    return same[0] if len(same) == 1 else name


def _points(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"POINTS must be a number, got {text!r}") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"POINTS must be a number, got {text!r}")
    return v


def _describe(o: dict) -> str:
    what = o["exercise"] + (f" `{o['answer']}`" if o["answer"] else "")
    return _("#{id} {student} {what} = {points:g}: {comment} ({created})").format(
        id=o["id"],
        student=o["student"],
        what=what,
        points=o["points"],
        comment=o["comment"],
        created=o["created"],
    )


def _override_command(args: argparse.Namespace) -> int:
    import sqlite3

    try:
        return _override(args)
    except sqlite3.Error as e:  # a gradebook SQLite cannot read (damaged, locked past the timeout)
        err(f"simhash-lab override: --gradebook: {e}")
        return 2


def _override(args: argparse.Namespace) -> int:
    if args.lang:
        set_language(args.lang)
    from ..grading import classroom
    from ..grading import gradebook as gbmod
    from ..grading._report import safe_text

    modes = [args.list is not None, args.remove is not None, args.from_csv is not None, bool(args.target)]
    if sum(modes) != 1:
        err("simhash-lab override: give STUDENT EXERCISE POINTS, or one of --list, --remove, --from")
        return 2
    if args.target and len(args.target) != 3:
        err("simhash-lab override: give STUDENT EXERCISE POINTS (three values)")
        return 2
    try:
        located = classroom.locate(args.assignment, args.gradebook)
        gb = classroom.open_gradebook(located, create=False)
    except (classroom.AssignError, gbmod.GradebookError) as e:
        err(f"simhash-lab override: {e}")
        return 2
    assigned = list(located.assignment["exercises"])
    with gb:
        try:
            if args.list is not None:
                rows = gb.overrides(args.list or None)
                for o in rows:
                    out(safe_text(_describe(o), 2000) + "\n")
                if not rows:
                    out(_("no overrides") + "\n")
                return 0
            if args.remove is not None:
                o = gb.remove_override(args.remove)
                out(_("removed: {override}").format(override=safe_text(_describe(o), 2000)) + "\n")
                return 0
            if args.from_csv is not None:
                todo = _read_csv(args.from_csv, assigned, gb)
            else:
                student, exercise, points = args.target
                todo = [
                    (student, _exercise(exercise, assigned), _points(points), args.comment or "", args.answer)
                ]
                _check(gb, *todo[0])
        except (ValueError, OSError) as e:
            err(f"simhash-lab override: {e}")
            return 2
        for student, exercise, points, comment, answer in todo:
            before = next(c for c in gb.cells([student]) if c.exercise == exercise)
            gb.add_override(student, exercise, points, comment, answer)
            after = next(c for c in gb.cells([student]) if c.exercise == exercise)
            out(
                safe_text(
                    _("{student} {exercise}: {before:g} -> {after:g} of {max_points:g} ({comment})").format(
                        student=student,
                        exercise=exercise + (f" `{answer}`" if answer else ""),
                        before=before.points,
                        after=after.points,
                        max_points=after.max_points,
                        comment=comment,
                    ),
                    2000,
                )
                + "\n"
            )
    return 0


def _check(gb, student: str, exercise: str, points: float, comment: str, answer: str | None) -> None:
    """The checks :meth:`Gradebook.add_override` makes, made before anything is stored."""
    from ..grading.gradebook import GradebookError

    if student not in {s["id"] for s in gb.students()}:
        raise GradebookError(f"STUDENT: {student!r} is not on the roster")
    exercises = {name: (mx, {k: p for k, p, _t in answers}) for name, mx, answers in gb.exercises()}
    if exercise not in exercises:
        raise GradebookError(f"EXERCISE: {exercise!r} is not assigned; assigned: {', '.join(exercises)}")
    mx, answers = exercises[exercise]
    if answer:
        if answer not in answers:
            raise GradebookError(
                f"--answer: {exercise} has no answer {answer!r}; its answers: {', '.join(answers)}"
            )
        mx = answers[answer]
    if not 0 <= points <= mx:
        raise GradebookError(f"POINTS must be a number from 0 to {mx:g}, got {points:g}")
    if not comment.strip():
        raise GradebookError("--comment: say why the points change (it is shown to the student)")


def _read_csv(path: str, assigned: list[str], gb) -> list[tuple]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise ValueError(f"--from: cannot read {path}: {e}") from None
    need = {"id", "exercise", "points", "comment"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(
            f"--from: {path} needs the columns {', '.join(sorted(need))} (and optionally answer)"
        )
    todo = []
    for n, row in enumerate(rows, start=2):
        try:
            item = (
                (row["id"] or "").strip(),
                _exercise((row["exercise"] or "").strip(), assigned),
                _points((row["points"] or "").strip()),
                (row["comment"] or "").strip(),
                (row.get("answer") or "").strip() or None,
            )
            _check(gb, *item)
        except ValueError as e:
            raise ValueError(f"--from: {path}, line {n}: {e}") from None
        todo.append(item)
    return todo


def add_override_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``override`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "override",
        help="set a student's points for an exercise (or one answer) by hand, with a comment",
        description="A teacher's points in a class's gradebook: they replace the graded points of a "
        "student's exercise (or of one answer, --answer), survive every re-grade, and show in the "
        "exports and, with the comment, in the student's feedback.",
    )
    p.add_argument(
        "target", nargs="*", metavar="STUDENT EXERCISE POINTS", help="whose exercise, and its points"
    )
    p.add_argument("--comment", metavar="TEXT", help="why (required; the student reads it in their feedback)")
    p.add_argument("--answer", metavar="KEY", help="set one answer's points, not the whole exercise's")
    p.add_argument("--list", nargs="?", const="", metavar="STUDENT", help="list the overrides (of STUDENT)")
    p.add_argument("--remove", type=int, metavar="ID", help="withdraw override ID (from --list)")
    p.add_argument(
        "--from",
        dest="from_csv",
        metavar="CSV",
        help="set many: a CSV with columns id, exercise, points, comment and optionally answer",
    )
    p.add_argument(
        "--assignment",
        metavar="FILE",
        help="the release's private/assignment.json (or the release folder): the gradebook beside it",
    )
    p.add_argument(
        "--gradebook", metavar="FILE", help="the class's gradebook (default: beside the assignment)"
    )
    p.add_argument("--lang", choices=LANGUAGES, help="the language of the messages (default en)")
    p.set_defaults(func=_override_command)
    return p
