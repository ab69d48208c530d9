"""The ``simhash-lab`` command.

simhash-lab fingerprint FILE... [--bits N] [--preset NAME]
simhash-lab grade NOTEBOOK...
simhash-lab dedup PATH... [-k K] [--json]
simhash-lab warmup
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .dedup import add_dedup_parser
from .fingerprint import add_fingerprint_parser
from .grade import add_grade_parser
from .warmup import add_warmup_parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="simhash-lab", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    add_fingerprint_parser(sub)
    add_grade_parser(sub)
    add_dedup_parser(sub)
    add_warmup_parser(sub)

    args = parser.parse_args(argv)
    return args.func(args)
