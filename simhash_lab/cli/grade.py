"""``simhash-lab grade``: the command line of the grader (:mod:`simhash_lab.grading`, the ``grading``
extra). Only argparse here: the grader, nbformat and nbval load when the command runs."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

__all__ = ["add_grade_parser"]


def _grade_command(args: argparse.Namespace) -> int:
    try:
        from ..grading._grader import format_detail, format_table, grade
    except ImportError as e:  # the grading extra is not installed
        print(
            f"simhash-lab grade: the grader needs the grading extra ({e.name} is missing): "
            "pip install 'simhash-lab[grading]'",
            file=sys.stderr,
        )
        return 2

    results = grade(
        args.notebooks,
        cell_timeout=args.cell_timeout,
        timeout=args.timeout,
        jobs=args.jobs,
        exercise=args.exercise,
    )
    if not results:
        print("simhash-lab grade: no notebooks found", file=sys.stderr)
        return 2
    if len(results) == 1:
        print(format_detail(results[0]))
    else:
        print(format_table(results))
    if args.json:
        Path(args.json).write_text(json.dumps([r.to_dict() for r in results], indent=1, ensure_ascii=False))
    if args.verbose:
        for r in results:
            print(f"\n===== pytest log: {r.path} =====\n{r.log}")
    return 0 if all(r.passed for r in results) else 1


def add_grade_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``grade`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "grade",
        help="grade exercise notebooks with nbval (exit 0 only when every check passes)",
        description="Grade exercise notebooks: only their `answer` cells are taken; every other cell "
        "is restored from the pristine copy shipped with simhash-lab, then nbval runs it. "
        "Several files (or a folder) print a class table.",
    )
    p.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="notebook files or folders of them")
    p.add_argument(
        "--cell-timeout",
        type=float,
        default=120,
        metavar="S",
        help="seconds one cell may run before it fails (default 120)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=600,
        metavar="S",
        help="wall-clock seconds per notebook, kernel start included (default 600)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=max(1, min(4, (os.cpu_count() or 2) // 2)),
        metavar="N",
        help="notebooks graded in parallel",
    )
    p.add_argument("--exercise", metavar="NAME", help="grade every file as this exercise")
    p.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    p.add_argument("--verbose", "-v", action="store_true", help="print pytest's log for each notebook")
    p.set_defaults(func=_grade_command)
    return p
