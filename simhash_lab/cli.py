"""The ``simhash-lab`` command.

    simhash-lab fingerprint FILE... [--bits N] [--preset NAME]
    simhash-lab grade NOTEBOOK...
    simhash-lab dedup PATH... [-k K] [--json]
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .presets import ALL


def _fingerprint(args: argparse.Namespace) -> int:
    from .simhasher import Simhasher

    base = ALL[args.preset]
    h = base if args.bits == 64 else Simhasher(bits=args.bits, tokenizer=base.tokenizer,
                                                 hash=base.hash, weights=base.weights)
    width = (args.bits + 3) // 4
    status = 0
    for path in args.files:
        try:
            with open(path, "rb") as f:
                raw = f.read()
            if b"\0" in raw[:8192]:
                raise ValueError("looks like a binary file (it contains NUL bytes)")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"is not UTF-8 text (byte {e.start})") from None
            fp = h.fingerprint(text)
        except (OSError, ValueError) as e:
            msg = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            print(f"simhash-lab: {path}: {msg}", file=sys.stderr)
            status = 1
            continue
        print(f"{fp:0{width}x}  {path}")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="simhash-lab", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("fingerprint", help="print one fingerprint (hex) per file")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--bits", type=int, default=64, choices=range(1, 65), metavar="{1..64}")
    p.add_argument("--preset", default="default", choices=sorted(ALL))
    p.set_defaults(func=_fingerprint)

    from .dedup import add_dedup_parser
    from .grading import add_grade_parser

    add_grade_parser(sub)
    add_dedup_parser(sub)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
