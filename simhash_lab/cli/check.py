"""``simhash-lab check``: a learner checks an exercise notebook as the grader will, without a sandbox.

Like ``otter check`` or ``nbgrader validate``: the notebook's answer cells, with every other cell
restored from the pristine copy, run in a subprocess of this Python (the learner's own environment,
no bubblewrap, so it works on macOS too), on data and inputs drawn now; the answers are judged
outside that process and the same table as ``simhash-lab grade`` is printed. It is feedback, not a
grade: the teacher grades with ``simhash-lab grade``, in a sandbox.

Given one notebook, it prints each answer's ✅ or ❌ with its hint. Given a folder (``simhash-lab
check exercises/``, or ``exercises/es/``), it checks the notebooks in that folder (not its
subfolders: the solutions, another language) and prints an overview, one line per exercise: the
answers passed of its total, and the next step (the first hint), in the notebooks' language.

Exit status: 0 when every answer passed, 1 when one did not (or the file could not be checked),
2 when nothing was checked (no notebook found, a bad option).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor

from .._i18n import LANGUAGES, N_, _, language
from ._output import err, out

__all__ = ["add_check_parser"]

NOT_A_GRADE = N_(
    "This was a check in your own environment, not a grade: your teacher grades with "
    "`simhash-lab grade`, in a sandbox, on other data and inputs."
)


def _check_command(args: argparse.Namespace) -> int:
    try:
        import IPython  # noqa: F401  (what the notebook runs in)
        import nbformat  # noqa: F401

        from ..grading._grader import collect, grade_one, load_pristine
        from ..grading._report import format_detail, report_language
        from ..grading._sandbox import Limits
    except ImportError as e:  # the grading extra is not installed
        err(
            f"simhash-lab check: checking needs the grading extra ({e.name} is missing): "
            "pip install 'simhash-lab[grading]'"
        )
        return 2
    pristines = {lang: load_pristine(lang=lang) for lang in LANGUAGES}
    if args.exercise is not None and args.exercise not in pristines["en"]:
        err(
            f"simhash-lab check: --exercise must be one of {', '.join(sorted(pristines['en']))}; "
            f"got {args.exercise!r}"
        )
        return 2
    # The grader's limits, but the process count: outside the sandbox's own uid, every process and
    # thread of the learner's session counts against RLIMIT_NPROC.
    limits = dataclasses.replace(Limits(), nproc=1 << 20)
    items = []
    for path in args.notebooks:
        found = collect([path])
        if os.path.isdir(path):  # a folder of exercises: its own notebooks, not its subfolders'
            top = os.path.realpath(path)
            found = [i for i in found if os.path.dirname(os.path.realpath(i.path)) == top]
        items += found

    def one(item):
        return grade_one(
            item.path,
            pristines=pristines,
            limits=limits,
            exercise=args.exercise,
            unsafe=True,
            problem=item.problem,
            note=item.note,
            shown="own",  # a notebook released to a student (simhash-lab assign): on their data
        )

    with ThreadPoolExecutor(max_workers=2) as pool:  # each notebook runs in a process of its own
        results = list(pool.map(one, items))
    if not results:
        err("simhash-lab check: no notebooks found")
        return 2
    if len(results) == 1 and not any(os.path.isdir(p) for p in args.notebooks):
        out(format_detail(results[0]) + "\n")
    else:
        out(overview(results, args.notebooks) + "\n\n")
    with language(report_language(results)):
        out(_(NOT_A_GRADE) + "\n")
    return 0 if all(r.passed for r in results) else 1


def overview(results, where) -> str:
    """One line per exercise: its answers passed of its total and the next step (its first hint),
    headed by how many are complete, in the notebooks' language."""
    from .._files import show_name
    from ..grading._report import report_language, safe_text

    with language(report_language(results)):
        done = sum(r.passed for r in results)
        rows = [(_("exercise"), _("answers"), _("next step"))]
        for r in results:
            answers = f"{r.checks_passed}/{len(r.checks)}" if r.checks else "-"
            step = "✅" if r.passed else safe_text(r.first_hint, 110)
            rows.append((r.exercise or show_name(r.path), answers, step))
        widths = [max(len(row[i]) for row in rows) for i in range(2)]
        lines = [
            _("Your exercises ({where}): {done} of {n} complete").format(
                where=", ".join(map(str, where)), done=done, n=len(results)
            ),
            "",
        ]
        for j, row in enumerate(rows):
            lines.append(f"{row[0].ljust(widths[0])}  {row[1].ljust(widths[1])}  {row[2]}".rstrip())
            if j == 0:
                lines.append(f"{'-' * widths[0]}  {'-' * widths[1]}  {'-' * 10}")
        return "\n".join(lines)


def add_check_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``check`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "check",
        help="check your exercise notebook as the grader will (in your environment; not a grade)",
        description="Check exercise notebooks the way `simhash-lab grade` does (only the answer "
        "cells are taken, every other cell comes from the pristine copy; data and inputs are drawn "
        "now and the answers are judged outside the notebook's process), but in your own "
        "environment, without a sandbox: feedback, not a grade. Run it from the repository's "
        "folder: `make check NB=exercises/01_exercise_lsh_vs_crypto.ipynb` or "
        "`.venv/bin/simhash-lab check exercises/01_exercise_lsh_vs_crypto.ipynb`.",
    )
    p.add_argument(
        "notebooks",
        nargs="+",
        metavar="NOTEBOOK",
        help="your exercise notebook, or a folder of them (exercises/: an overview of your progress)",
    )
    p.add_argument("--exercise", metavar="NAME", help="check every file as this exercise")
    p.set_defaults(func=_check_command)
    return p
