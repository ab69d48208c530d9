"""``simhash-lab grade``: the command line of the grader (:mod:`simhash_lab.grading`, the ``grading``
extra). Only argparse here: the grader loads when the command runs.

Two uses:

* notebooks: ``grade NOTEBOOK...`` grades files or folders of them and prints a table;
* a class (:mod:`simhash_lab.grading.classroom`), with ``--assignment`` (or ``--gradebook``):
  ``grade submissions/`` grades every student's folder, ``grade submissions/s18`` one student,
  into the class's gradebook, every other grade kept; with no folder it only writes the exports
  (``--csv``, ``--canvas``, ``--moodle``, ``--feedback``) from the gradebook.

Exit status: 0 when every notebook passed (a class: every assigned exercise of every student graded
here handed in, passed and unflagged; exports alone: written), 1 when one failed or could not be
graded, 2 when nothing was graded (no notebook found, no sandbox, a bad option, an output that
cannot be written or that names a file inside the submissions or the release: checked before any
notebook runs).
"""

from __future__ import annotations

import argparse
import os

from .._i18n import LANGUAGES, _, counted, set_language
from .._write import OutputError, check_outputs
from ._args import byte_size, int_in
from ._output import err, out

__all__ = ["add_grade_parser", "default_jobs"]

_size = byte_size("--memory", lo=64 << 20)  # address space per sandboxed process
_max_size = byte_size("--max-size", lo=1 << 10)


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity): notebooks graded at the same time."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def _percent(text: str) -> float:
    try:
        v = float(text.strip().rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage, got {text!r}") from None
    if not 0 <= v <= 100:
        raise argparse.ArgumentTypeError(f"expected a percentage from 0 to 100, got {text!r}")
    return v / 100


def _days(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of days, got {text!r}") from None
    if not 0 <= v < 10_000:
        raise argparse.ArgumentTypeError(f"expected a number of days of at least 0, got {text!r}")
    return v


def _inside(path: str, folder: str) -> bool:
    p, f = os.path.realpath(path), os.path.realpath(folder)
    return p == f or p.startswith(f.rstrip(os.sep) + os.sep)


def _check_not_inside(outputs: list[tuple[str, str | None]], folders: list[tuple[str, str]]) -> None:
    """No output (``(option, path)``) inside a folder that is read (``(what, folder)``): a class
    could put a file or link there, or the output would replace a submission or the release."""
    from .._files import show_name

    for option, path in outputs:
        if path is None:
            continue
        for what, folder in folders:
            if _inside(path, folder):
                raise OutputError(
                    f"{option}: {show_name(path)} is inside {what} {show_name(folder)}: write it elsewhere"
                )


def _grade_command(args: argparse.Namespace) -> int:
    if args.lang:
        set_language(args.lang)
    try:
        import IPython  # noqa: F401  (what the sandbox runs the notebook in)
        import nbformat  # noqa: F401

        from ..grading._grader import grade
        from ..grading._report import format_detail, format_table, log_section, write_json
        from ..grading._sandbox import SandboxUnavailable
    except ImportError as e:  # the grading extra is not installed
        err(
            f"simhash-lab grade: the grader needs the grading extra ({e.name} is missing): "
            "pip install 'simhash-lab[grading]'"
        )
        return 2
    klass = args.assignment is not None or args.gradebook is not None
    exports = (args.csv, args.canvas, args.moodle, args.feedback)
    if any(x is not None for x in exports) and not klass:
        err("simhash-lab grade: --csv, --canvas, --moodle and --feedback need --assignment (or --gradebook)")
        return 2
    class_only = {
        "--rule": args.rule is not None,
        "--deadline": args.deadline is not None,
        "--late-penalty": args.late_penalty is not None,
        "--late-limit": args.late_limit is not None,
        "--submitted-at": args.submitted_at is not None,
    }
    if not klass and any(class_only.values()):
        err(f"simhash-lab grade: {next(k for k, v in class_only.items() if v)} needs --assignment")
        return 2
    if klass and args.own_variant:
        err("simhash-lab grade: --own-variant and --assignment cannot be used together")
        return 2
    if klass and args.exercise:
        err(
            "simhash-lab grade: --exercise and --assignment cannot be used together (a class's files say "
            "their exercise)"
        )
        return 2
    if (args.late_penalty is not None or args.late_limit is not None) and args.deadline is None:
        err("simhash-lab grade: --late-penalty and --late-limit need --deadline")
        return 2
    if not args.notebooks and not klass:
        err("simhash-lab grade: give NOTEBOOK files or folders (or --assignment with exports to write)")
        return 2
    if not args.notebooks and args.json:
        err("simhash-lab grade: --json holds the notebooks graded now: give NOTEBOOK folders")
        return 2
    if klass:
        import sqlite3

        try:
            return _class_command(args, grade, log_section, write_json, SandboxUnavailable)
        except sqlite3.Error as e:  # a gradebook SQLite cannot read (damaged, locked past the timeout)
            err(f"simhash-lab grade: --gradebook: {e}")
            return 2
    shown = "own" if args.own_variant else None
    try:  # before any work: a --json that cannot be written must not lose a class's grades
        check_outputs(args.json, what="--json", inputs=args.notebooks)
        _check_not_inside(
            [("--json", args.json)], [("the folder graded", f) for f in args.notebooks if os.path.isdir(f)]
        )
    except OutputError as e:
        err(f"simhash-lab grade: {e}")
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
        return _no_sandbox(e)
    if not results:
        err("simhash-lab grade: no notebooks found")
        return 2
    out((format_detail(results[0]) if len(results) == 1 else format_table(results)) + "\n")
    if args.verbose:
        for r in results:
            out(log_section(r.path, r.log))
    if args.json:
        try:
            write_json(results, args.json)
        except OutputError as e:  # a full disk, an I/O error: nothing half-written is left
            err(f"simhash-lab grade: --json: {e}")
            return 2
    return 0 if all(r.passed for r in results) else 1


def _class_command(args, grade, log_section, write_json, SandboxUnavailable) -> int:  # noqa: N803
    from ..grading import classroom
    from ..grading import gradebook as gbmod

    try:
        located = classroom.locate(args.assignment, args.gradebook)
        late = classroom.LatePolicy(
            classroom.parse_time(args.deadline, "--deadline") if args.deadline else None,
            args.late_penalty or 0.0,
            args.late_limit,
        )
        times = classroom.read_times(args.submitted_at) if args.submitted_at else None
    except (classroom.AssignError, gbmod.GradebookError) as e:
        err(f"simhash-lab grade: {e}")
        return 2
    outputs = [
        ("--json", args.json),
        ("--csv", args.csv),
        ("--canvas", args.canvas),
        ("--moodle", args.moodle),
    ]
    read = [("the submissions folder", f) for f in args.notebooks]
    if located.release is not None:
        read.append(("the release", located.release))
    try:  # before any work: an output that cannot be written must not lose a class's grades
        check_outputs(*(p for _o, p in outputs), what=tuple(o for o, _p in outputs), inputs=args.notebooks)
        _check_not_inside([*outputs, ("--feedback", args.feedback)], read)
        _check_not_inside([("--gradebook", located.gradebook)], read[: len(args.notebooks)])
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
        gb = classroom.open_gradebook(located, create=bool(args.notebooks))
    except (classroom.AssignError, gbmod.GradebookError) as e:
        err(f"simhash-lab grade: {e}")
        return 2
    with gb:
        done = None
        if args.notebooks:
            try:
                done = classroom.grade_class(
                    args.notebooks,
                    located,
                    gb,
                    rule=args.rule or "latest",
                    late=late,
                    times=times,
                    max_bytes=args.max_size,
                    cell_timeout=args.cell_timeout,
                    timeout=args.timeout,
                    memory=args.memory,
                    jobs=args.jobs,
                    unsafe=args.unsafe_no_sandbox,
                )
            except (classroom.AssignError, gbmod.GradebookError) as e:
                err(f"simhash-lab grade: {e}")
                return 2
            except SandboxUnavailable as e:
                return _no_sandbox(e)
        out(classroom.format_class_table(gb, done) + "\n")
        if done is not None:
            n_graded = len(done.results)
            out(
                "\n"
                + _(
                    "{graded} graded for {students} in {seconds:.1f} s ({jobs} at a time); "
                    "gradebook: {gradebook}"
                ).format(
                    graded=counted(n_graded, _("1 notebook"), _("{n} notebooks")),
                    students=counted(len(done.folders), _("1 student folder"), _("{n} student folders")),
                    seconds=done.seconds,
                    jobs=args.jobs,
                    gradebook=_shown(located.gradebook),
                )
                + "\n"
            )
        try:
            if args.csv:
                gbmod.write_csv(gb, args.csv)
            for option, path, write in (
                ("--canvas", args.canvas, gbmod.write_canvas),
                ("--moodle", args.moodle, gbmod.write_moodle),
            ):
                if path:
                    unmatched = write(gb, path, args.lms_column)
                    if unmatched:
                        err(
                            _(
                                "simhash-lab grade: {option}: {n} students have no id the LMS matches "
                                "(roster: {which}): {ids}"
                            ).format(
                                option=option,
                                n=len(unmatched),
                                which="sis_id, login" if option == "--canvas" else "email, sis_id",
                                ids=", ".join(unmatched[:10]) + (" ..." if len(unmatched) > 10 else ""),
                            )
                        )
            if args.feedback:
                classroom.write_feedback(gb, args.feedback, done.students if done is not None else None)
        except OutputError as e:
            err(f"simhash-lab grade: {e}")
            return 2
        if args.verbose and done is not None:
            for r in done.results:
                out(log_section(r.path, r.log))
        if args.json and done is not None:
            try:
                write_json(done.results, args.json)
            except OutputError as e:
                err(f"simhash-lab grade: --json: {e}")
                return 2
        if done is None:
            return 0
        roster = set(located.assignment["students"])
        mine = [s for s in done.students if s in roster]
        ok = classroom.class_passed(gb, mine) and len(mine) == len(done.students) and not done.loose
        return 0 if ok else 1


def _no_sandbox(e: Exception) -> int:
    err(
        f"simhash-lab grade: refusing to run student code unsandboxed: {e}; "
        "--unsafe-no-sandbox runs it anyway, with your rights"
    )
    return 2


def _shown(path: str) -> str:
    from .._files import show_name

    return show_name(path)


def add_grade_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``grade`` to the ``simhash-lab`` command's subparsers."""
    jobs = default_jobs()
    p = subparsers.add_parser(
        "grade",
        help="grade exercise notebooks in a sandbox (exit 0 only when every answer passes)",
        description="Grade exercise notebooks: only their answer cells are taken, every other cell "
        "comes from the pristine copy shipped with simhash-lab; the notebook runs in a bubblewrap "
        "sandbox on data and inputs drawn at grading time, and the answers are judged outside it. "
        "Several files (or a folder) print a table. With --assignment, a class: SUBMISSIONS/<id>/ "
        "folders (or one student's folder, named after their id) are collected, graded into the "
        "class's gradebook (every other grade kept) and exported.",
    )
    p.add_argument(
        "notebooks",
        nargs="*",
        metavar="NOTEBOOK",
        help="notebook files or folders of them; with --assignment, a class's folder of student folders, "
        "or student folders (none: only write the exports)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int_in("--jobs", 1),
        default=jobs,
        metavar="N",
        help=f"notebooks graded at the same time, each in its own sandbox (default: the cores this process "
        f"may use, {jobs} here); each takes up to --memory",
    )
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds for one notebook, every run of it included (default 240); past it the notebook's "
        "answers not yet judged fail",
    )
    p.add_argument(
        "--cell-timeout",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds one cell (or one answer's export) may run before it is stopped (default 30)",
    )
    p.add_argument(
        "--memory",
        type=_size,
        default=None,
        metavar="SIZE",
        help="address space of each sandboxed process, e.g. 2G (default 2G)",
    )
    p.add_argument("--exercise", metavar="NAME", help="grade every file as this exercise")
    p.add_argument(
        "--json",
        metavar="FILE",
        help="also write the results as JSON (UTF-8; a file is replaced atomically, a device or pipe "
        "written in place)",
    )
    k = p.add_argument_group("a class (simhash-lab assign)")
    k.add_argument(
        "--assignment",
        metavar="FILE",
        help="the release's private/assignment.json (or the release folder): NOTEBOOK folders are "
        "graded each on its student's variants, into the gradebook beside it",
    )
    k.add_argument(
        "--gradebook",
        metavar="FILE",
        help="the class's gradebook, an SQLite file (default: gradebook.db beside the assignment); "
        "alone, it names the class too",
    )
    k.add_argument(
        "--rule",
        choices=("latest", "earliest", "best"),
        default=None,
        help="which copy counts when a student hands in several of one exercise (default latest: the "
        "latest time; best: all are graded, the most points count); the others are listed",
    )
    k.add_argument(
        "--deadline",
        metavar="WHEN",
        help="ISO 8601 time (local unless it says a zone), e.g. 2026-12-10T23:59",
    )
    k.add_argument(
        "--late-penalty",
        type=_percent,
        metavar="PCT",
        help="percent of an exercise's points taken off per day (started) after --deadline (default 0: "
        "late copies are marked only)",
    )
    k.add_argument(
        "--late-limit",
        type=_days,
        metavar="DAYS",
        help="a copy handed in more than DAYS after --deadline does not count (listed)",
    )
    k.add_argument(
        "--submitted-at",
        metavar="CSV",
        help="submission times from an LMS export (columns id, submitted_at, optional exercise) "
        "instead of the files' modification times",
    )
    k.add_argument(
        "--max-size",
        type=_max_size,
        default=None,
        metavar="SIZE",
        help="a notebook larger than this is listed, not read (default 32M)",
    )
    k.add_argument(
        "--csv", metavar="FILE", help="write the gradebook: a row per student and exercise, and totals"
    )
    k.add_argument("--canvas", metavar="FILE", help="write a Canvas gradebook import (UTF-8 with BOM)")
    k.add_argument("--moodle", metavar="FILE", help="write a Moodle grade import (UTF-8 with BOM)")
    k.add_argument(
        "--lms-column",
        default="simhash-lab",
        metavar="NAME",
        help="the grade column of --canvas and --moodle (default simhash-lab)",
    )
    k.add_argument(
        "--feedback",
        metavar="DIR",
        help="write DIR/<id>/NN_name.md per student and exercise (no hidden values; escaped)",
    )
    p.add_argument(
        "--own-variant",
        action="store_true",
        help="judge the answers worked out by hand on the variant each notebook names (a student's own "
        "CI: feedback, not a grade)",
    )
    p.add_argument("--lang", choices=LANGUAGES, help="the language of the table and messages (default en)")
    p.add_argument("--verbose", "-v", action="store_true", help="print each notebook's sandbox log")
    p.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the notebooks without bubblewrap: student code then runs with your rights",
    )
    p.set_defaults(func=_grade_command)
    return p
