"""The ``simhash-lab`` command.

simhash-lab fingerprint FILE... [--bits N] [--preset NAME] [--max-bytes N]
simhash-lab check NOTEBOOK...
simhash-lab grade NOTEBOOK... [--assignment FILE --csv FILE --canvas FILE --moodle FILE --feedback DIR]
simhash-lab assign EXERCISES --roster CSV --out DIR [--ci github|gitlab]
simhash-lab override STUDENT EXERCISE POINTS --comment TEXT --assignment FILE
simhash-lab dedup PATH... [-k K] [--json]
simhash-lab warmup

No run ends in a traceback over its output: a reader that stops early (``| head``) ends the run
quietly with status 141, as a program stopped by SIGPIPE; a closed or failing stdout is one line on
stderr and status 2; Ctrl-C is status 130.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ._output import OutputError, err, flush
from .assign import add_assign_parser
from .check import add_check_parser
from .dedup import add_dedup_parser
from .fingerprint import add_fingerprint_parser
from .grade import add_grade_parser
from .override import add_override_parser
from .warmup import add_warmup_parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="simhash-lab", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    add_fingerprint_parser(sub)
    add_check_parser(sub)
    add_grade_parser(sub)
    add_assign_parser(sub)
    add_override_parser(sub)
    add_dedup_parser(sub)
    add_warmup_parser(sub)

    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        flush()
    except BrokenPipeError:
        _drop_stdout()
        return 141
    except OutputError as e:
        err(f"simhash-lab {args.command}: {e}")
        _drop_stdout()
        return 2
    except KeyboardInterrupt:
        err(f"simhash-lab {args.command}: interrupted")
        return 130
    return status


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except (AttributeError, OSError, ValueError):
        pass
