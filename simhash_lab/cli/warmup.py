"""``simhash-lab warmup``: compile and cache every kernel now (see :mod:`simhash_lab.warmup`)."""

from __future__ import annotations

import argparse

__all__ = ["add_warmup_parser"]


def _warmup(args: argparse.Namespace) -> int:
    from ..warmup import run

    run(progress=not args.quiet, jobs=args.jobs)
    return 0


def add_warmup_parser(sub) -> None:
    p = sub.add_parser(
        "warmup",
        help="compile and cache every kernel the course, the exercises and the grader use",
        description=(
            "Compile every Numba kernel once and keep it in the on-disk cache, so that no later "
            "run waits for a compile: about 15 s the first time on two idle cores (30 s on one), "
            "a second or two once cached. "
            "`make lab` and `make test` run it after installing."
        ),
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar and no summary line")
    jobs_help = "processes compiling at once (default: idle CPUs, at most 4)"
    p.add_argument("-j", "--jobs", type=int, default=None, help=jobs_help)
    p.set_defaults(func=_warmup)
