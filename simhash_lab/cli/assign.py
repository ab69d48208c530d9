"""``simhash-lab assign``: release exercises to a class, one variant per student
(:mod:`simhash_lab.grading.classroom`). Only argparse here: the grader loads when the command runs.

Exit status: 0 when the release was written, 2 on a bad option, roster, secret or output folder.
"""

from __future__ import annotations

import argparse

from ._output import err, out

__all__ = ["add_assign_parser"]


def _assign_command(args: argparse.Namespace) -> int:
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
    n, m = len(a["students"]), len(a["exercises"])
    key = args.secret or f"{args.out}/secret.key"
    out(
        f"released {m} exercises to {n} students in {args.out}/students/ (solved copies in "
        f"{args.out}/solutions/, not executed); the variants are in {args.out}/assignment.json, "
        f"the secret in {key}: keep both to yourself\n"
    )
    return 0


def add_assign_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``assign`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "assign",
        help="release exercise notebooks to a class: one variant of the data per student",
        description="Write, for each student of a roster, the exercise notebooks on that student's "
        "variant of the data (derived from a secret and the student's id), the teacher's solved copy "
        "of each, and assignment.json for `simhash-lab grade --assignment`.",
    )
    p.add_argument("exercises", metavar="EXERCISES", help="folder of exercise notebooks, with solutions/")
    p.add_argument(
        "--roster", required=True, metavar="CSV", help="CSV with an id column (name, email optional)"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="the release folder")
    p.add_argument(
        "--secret",
        metavar="FILE",
        help="a file holding the secret in hex (default DIR/secret.key, made once, mode 0600)",
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
        default="simhash-lab[grading]",
        metavar="REQ",
        help="what the CI file pip-installs (default simhash-lab[grading]; e.g. a pinned version or a "
        "git URL)",
    )
    p.set_defaults(func=_assign_command)
    return p
