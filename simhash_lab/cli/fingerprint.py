"""``simhash-lab fingerprint FILE...``: one hex fingerprint per file.

Each FILE is read as :func:`simhash_lab._files.read_text` reads it (the same reading as
``simhash-lab dedup``): regular files only, never blocking, at most ``--max-bytes``, UTF-8 with a
leading BOM dropped. A file that cannot be fingerprinted is one line on stderr with the reason, and
the others are still fingerprinted. Names are shown escaped (:func:`simhash_lab._files.show_name`).

Exit status: 0 every file was fingerprinted; 2 some file could not be (or the output could not be
written; a bad option is a usage error, also 2).
"""

from __future__ import annotations

import argparse

from .._files import DEFAULT_MAX_BYTES, Refused, read_text, reason, show_name
from ..presets import ALL
from ._args import byte_size
from ._output import err, out

__all__ = ["add_fingerprint_parser", "byte_count"]

EXIT_OK, EXIT_TROUBLE = 0, 2


def _fingerprint(args: argparse.Namespace) -> int:
    from ..simhasher import Simhasher

    base = ALL[args.preset]
    h = (
        base
        if args.bits == 64
        else Simhasher(bits=args.bits, tokenizer=base.tokenizer, hash=base.hash, weights=base.weights)
    )
    width = (args.bits + 3) // 4
    status = EXIT_OK
    for path in args.files:
        try:
            fp = h.fingerprint(read_text(path, args.max_bytes, limit_name="--max-bytes"))
        except (OSError, Refused) as e:
            err(f"simhash-lab fingerprint: {show_name(path)}: {reason(e)}")
            status = EXIT_TROUBLE
            continue
        out(f"{fp:0{width}x}  {show_name(path)}\n")
    return status


byte_count = byte_size("--max-bytes")  # argparse type of ``--max-bytes`` (one unit table: 64M, 2G)


def add_fingerprint_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``fingerprint`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "fingerprint",
        help="print one fingerprint (hex) per file",
        description="Print one hex fingerprint and the name of each FILE (UTF-8 text; a leading BOM is "
        "dropped). Files that cannot be read as text are reported on stderr, one line each, and the "
        "others are still fingerprinted.",
        epilog="exit status: 0 every file was fingerprinted, 2 some file could not be read (not a "
        "regular file, missing, unreadable, binary, not UTF-8, over --max-bytes)",
    )
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--bits", type=int, default=64, choices=range(1, 65), metavar="{1..64}")
    p.add_argument("--preset", default="default", choices=sorted(ALL))
    p.add_argument(
        "--max-bytes",
        type=byte_count,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"refuse files larger than N bytes (default {DEFAULT_MAX_BYTES})",
    )
    p.set_defaults(func=_fingerprint)
    return p
