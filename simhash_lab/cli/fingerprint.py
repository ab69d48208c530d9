"""``simhash-lab fingerprint FILE...``: one hex fingerprint per file."""

from __future__ import annotations

import argparse
import sys

from ..presets import ALL

__all__ = ["add_fingerprint_parser"]


def _fingerprint(args: argparse.Namespace) -> int:
    from ..simhasher import Simhasher

    base = ALL[args.preset]
    h = (
        base
        if args.bits == 64
        else Simhasher(bits=args.bits, tokenizer=base.tokenizer, hash=base.hash, weights=base.weights)
    )
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


def add_fingerprint_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``fingerprint`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser("fingerprint", help="print one fingerprint (hex) per file")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--bits", type=int, default=64, choices=range(1, 65), metavar="{1..64}")
    p.add_argument("--preset", default="default", choices=sorted(ALL))
    p.set_defaults(func=_fingerprint)
    return p
