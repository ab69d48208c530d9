"""``simhash-lab assign``: release exercises to a class, one variant per student
(:mod:`simhash_lab.grading.classroom`). Only argparse here: the grader loads when the command runs.

Exit status: 0 when the release was written, 2 on a bad option, roster, secret or output folder.
"""

from __future__ import annotations

import argparse

from .._i18n import LANGUAGES, _, counted, set_language
from ._output import err, out

__all__ = ["add_assign_parser"]


def _assign_command(args: argparse.Namespace) -> int:
    if args.lang:
        set_language(args.lang)
    try:
        import nbformat  # noqa: F401

        from ..grading.classroom import AssignError, assign
    except ImportError as e:
        err(
            f"simhash-lab assign: needs the grading extra ({e.name} is missing): "
            "pip install 'simhash-lab[grading]'"
        )
        return 2
    try:
        a = assign(
            args.exercises,
            args.roster,
            args.out,
            secret=args.secret,
            only=args.exercise or None,
            ci=args.ci,
            ci_package=args.ci_package,
        )
    except AssignError as e:
        err(f"simhash-lab assign: {e}")
        return 2
    except OSError as e:  # an output folder that cannot be written
        err(f"simhash-lab assign: --out: {e}")
        return 2
    from .._files import show_name

    n, m = len(a["students"]), len(a["exercises"])
    rel = show_name(args.out.rstrip("/"))
    exercises = counted(m, _("1 exercise"), _("{n} exercises"))
    students = counted(n, _("1 student"), _("{n} students"))
    out(
        _(
            "released {exercises} to {students}: hand out each {rel}/handout/<id>/ (nothing else); "
            "{rel}/private/ is yours alone (assignment.json, {key}, solutions/, and the gradebook "
            "`simhash-lab grade` writes there)"
        ).format(
            exercises=exercises,
            students=students,
            rel=rel,
            key=show_name(args.secret) if args.secret else "secret.key",
        )
        + "\n"
    )
    if args.ci:
        out(_("each handout's CI installs: {package}").format(package=a["ci"]["package"]) + "\n")
    return 0


def add_assign_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``assign`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "assign",
        help="release exercise notebooks to a class: one variant of the data per student",
        description="Write, for each student of a roster, the exercise notebooks on that student's "
        "variant of the data (derived from a secret and the student's id) in OUT/handout/<id>/, and "
        "in OUT/private/ the teacher's solved copy of each, the secret and assignment.json for "
        "`simhash-lab grade --assignment`.",
    )
    p.add_argument("exercises", metavar="EXERCISES", help="folder of exercise notebooks, with solutions/")
    p.add_argument(
        "--roster",
        required=True,
        metavar="CSV",
        help="CSV with an id column (a folder name) and, optionally, name, email, sis_id (the LMS's SIS "
        "user id) and login (Canvas's SIS login id) for the Canvas and Moodle exports",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the release folder")
    p.add_argument(
        "--secret",
        metavar="FILE",
        help="a file holding the secret in hex (default DIR/private/secret.key, made once, mode 0600; "
        "the same secret gives the same variants, for a student who joins late)",
    )
    p.add_argument(
        "--exercise", action="append", metavar="NAME", help="release only this exercise (repeatable)"
    )
    p.add_argument(
        "--ci",
        choices=("github", "gitlab"),
        help="also write a CI file into each student's folder that grades their notebooks on push",
    )
    p.add_argument(
        "--ci-package",
        default=None,
        metavar="REQ",
        help="what the CI file pip-installs: a requirement with a git URL (default: this simhash-lab's "
        "own checkout, 'simhash-lab[grading] @ git+<its origin>@<its commit>'), a wheel's URL, or a "
        "version on an index your students' CI reaches",
    )
    p.add_argument("--lang", choices=LANGUAGES, help="the language of the messages (default en)")
    p.set_defaults(func=_assign_command)
    return p
