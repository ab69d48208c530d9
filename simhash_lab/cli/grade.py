"""``simhash-lab grade``: the command line of the grader (:mod:`simhash_lab.grading`, the ``grading``
extra). Only argparse here: the grader loads when the command runs.

Exit status: 0 when every notebook passed, 1 when one failed or could not be graded, 2 when nothing
was graded (no notebook found, no sandbox, a bad option, a ``--json`` that cannot be written: checked
before any notebook runs) or the ``--json`` file could not be written. With ``--assignment`` (a
class, :mod:`simhash_lab.grading.classroom`): 0 only when every student handed in every exercise and
each passed unflagged.
"""

from __future__ import annotations

import argparse
import os

from .. import _files
from .._write import OutputError, check_outputs
from ._args import byte_size, int_in
from ._output import err, out

__all__ = ["add_grade_parser"]

_size = byte_size("--memory", lo=64 << 20)  # address space per sandboxed process


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def _grade_command(args: argparse.Namespace) -> int:
    try:
        import IPython  # noqa: F401  (what the sandbox runs the notebook in)
        import nbformat  # noqa: F401

        from ..grading._grader import grade
        from ..grading._report import format_detail, format_table, safe_log, write_json
        from ..grading._sandbox import SandboxUnavailable
    except ImportError as e:  # the grading extra is not installed
        err(
            f"simhash-lab grade: the grader needs the grading extra ({e.name} is missing): "
            "pip install 'simhash-lab[grading]'"
        )
        return 2
    if (args.csv or args.feedback) and not args.assignment:
        err("simhash-lab grade: --csv and --feedback need --assignment (the release's assignment.json)")
        return 2
    if args.assignment and args.own_variant:
        err("simhash-lab grade: --own-variant and --assignment cannot be used together")
        return 2
    assignment = shown = None
    if args.assignment:
        from ..grading import classroom

        if len(args.notebooks) != 1 or not os.path.isdir(args.notebooks[0]):
            err(
                "simhash-lab grade: with --assignment, give one folder of submissions "
                "(SUBMISSIONS/<id>/*.ipynb)"
            )
            return 2
        try:
            assignment = classroom.read_assignment(args.assignment)
        except classroom.AssignError as e:
            err(f"simhash-lab grade: {e}")
            return 2
        root = args.notebooks[0]

        def shown(path: str) -> dict | None:
            sid = classroom.student_of(root, path)
            return (assignment["students"].get(sid) or {}).get("variants") if sid else None

    elif args.own_variant:
        shown = "own"
    try:  # before any work: a --json that cannot be written must not lose a class's grades
        check_outputs(args.json, args.csv, what=("--json", "--csv"), inputs=args.notebooks)
        if args.feedback:
            os.makedirs(args.feedback, exist_ok=True)
            if not os.access(args.feedback, os.W_OK | os.X_OK):
                raise OutputError(f"--feedback: cannot write in {args.feedback}")
    except OutputError as e:
        err(f"simhash-lab grade: {e}")
        return 2
    except OSError as e:
        err(f"simhash-lab grade: --feedback: {e}")
        return 2
    try:
        results = grade(
            args.notebooks,
            cell_timeout=args.cell_timeout,
            timeout=args.timeout,
            memory=args.memory,
            jobs=args.jobs,
            exercise=args.exercise,
            unsafe=args.unsafe_no_sandbox,
            shown=shown,
        )
    except ValueError as e:  # an unknown --exercise
        err(f"simhash-lab grade: --{e}")
        return 2
    except SandboxUnavailable as e:
        err(
            f"simhash-lab grade: refusing to run student code unsandboxed: {e}; "
            "--unsafe-no-sandbox runs it anyway, with your rights"
        )
        return 2
    if not results and assignment is None:
        err("simhash-lab grade: no notebooks found")
        return 2
    if assignment is not None:
        rows = classroom.class_results(args.notebooks[0], results, assignment)
        out(classroom.format_class_table(rows) + "\n")
        try:
            if args.csv:
                classroom.write_gradebook(args.csv, *classroom.gradebook_rows(rows, assignment))
            if args.feedback:
                classroom.write_feedback(args.feedback, rows, list(assignment["students"]))
        except OutputError as e:
            err(f"simhash-lab grade: {e}")
            return 2
    else:
        out((format_detail(results[0]) if len(results) == 1 else format_table(results)) + "\n")
    if args.verbose:
        for r in results:
            out(f"\n===== sandbox log: {_files.show_name(r.path)} =====\n{safe_log(r.log)}\n")
    if args.json:
        try:
            write_json(results, args.json)
        except OutputError as e:  # a full disk, an I/O error: nothing half-written is left
            err(f"simhash-lab grade: --json: {e}")
            return 2
    if assignment is not None:
        return 0 if all(r is not None and r.passed and not r.flag for _, r, _e in rows) else 1
    return 0 if all(r.passed for r in results) else 1


def add_grade_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``grade`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "grade",
        help="grade exercise notebooks in a sandbox (exit 0 only when every answer passes)",
        description="Grade exercise notebooks: only their answer cells are taken, every other cell "
        "comes from the pristine copy shipped with simhash-lab; the notebook runs in a bubblewrap "
        "sandbox on data and inputs drawn at grading time, and the answers are judged outside it. "
        "Several files (or a folder) print a class table.",
    )
    p.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="notebook files or folders of them")
    p.add_argument(
        "--cell-timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds one cell (or one answer's export) may run before it is stopped (default 30)",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds for one notebook, every run of it included (default 240)",
    )
    p.add_argument(
        "--memory",
        type=_size,
        default=None,
        metavar="SIZE",
        help="address space of each sandboxed process, e.g. 2G (default 2G)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int_in("--jobs", 1),
        default=max(1, min(4, (os.cpu_count() or 2) // 2)),
        metavar="N",
        help="notebooks graded at the same time",
    )
    p.add_argument("--exercise", metavar="NAME", help="grade every file as this exercise")
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the results as JSON (UTF-8; a file is replaced atomically, a device or pipe "
        "written in place)",
    )
    p.add_argument(
        "--assignment",
        metavar="FILE",
        help="a class: the release's assignment.json (from simhash-lab assign); NOTEBOOK is then one "
        "folder with a subfolder per student id, each notebook graded on that student's variant",
    )
    p.add_argument(
        "--csv",
        metavar="FILE",
        help="with --assignment: write the gradebook (a row per student and exercise)",
    )
    p.add_argument(
        "--feedback",
        metavar="DIR",
        help="with --assignment: write DIR/<id>/NN_name.md per student and exercise (no hidden values)",
    )
    p.add_argument(
        "--own-variant",
        action="store_true",
        help="judge the answers worked out by hand on the variant each notebook names (a student's own "
        "CI: feedback, not a grade)",
    )
    p.add_argument("--verbose", "-v", action="store_true", help="print each notebook's sandbox log")
    p.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the notebooks without bubblewrap: student code then runs with your rights",
    )
    p.set_defaults(func=_grade_command)
    return p
