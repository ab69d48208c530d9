"""``simhash-lab dedup PATH...``: the command line of :func:`simhash_lab.dedup.dedup` (see there for
what it reads, what it reports and its exit status)."""

from __future__ import annotations

import argparse
import time

from .._files import DEFAULT_MAX_BYTES, show_name
from ..dedup import DedupResult, dedup
from ._output import err, out, out_json
from .fingerprint import byte_count

__all__ = ["add_dedup_parser"]


def _format_text(res: DedupResult) -> str:
    width = (res.bits + 3) // 4
    lines = []
    for n, g in enumerate(res.groups, 1):
        lines.append(f"group {n}: {len(g)} files (distance to the first, fingerprint, path)")
        for path, fp, d in res.group_members(g):
            lines.append(f"  {d:2d}  {fp:0{width}x}  {show_name(path)}")
        lines.append("")
    return "\n".join(lines)


def _dedup_command(args: argparse.Namespace) -> int:
    def report(path, reason):
        err(f"simhash-lab dedup: {show_name(path)}: {reason}")

    t0 = time.perf_counter()
    res = dedup(
        args.paths,
        k=args.k,
        preset=args.preset,
        hidden=args.hidden,
        max_bytes=args.max_bytes,
        progress=args.progress,
        report=report,
    )
    if args.json:
        out_json(res.to_json())
    else:
        out(_format_text(res))
    if not args.quiet:
        n_dup = sum(len(g) for g in res.groups)
        err(
            f"simhash-lab dedup: {len(res.paths)} files fingerprinted, {len(res.groups)} group(s) "
            f"({n_dup} files) within k = {res.k}; {len(res.skipped)} skipped, {len(res.empty)} empty, "
            f"{len(res.errors)} errors ({time.perf_counter() - t0:.1f} s)"
        )
    return res.exit_status


def _k(value: str) -> int:
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"k must be an int between 0 and 63, got {value!r}") from None
    if not 0 <= k <= 63:
        raise argparse.ArgumentTypeError(f"k must be between 0 and 63, got {k}")
    return k


def add_dedup_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``dedup`` to the ``simhash-lab`` command's subparsers."""
    from ..presets import ALL

    p = subparsers.add_parser(
        "dedup",
        help="group near-duplicate text files (exit 0: none, 1: found, 2: trouble)",
        description="Fingerprint every text file under the paths (folders recursively) and print "
        "groups of near-duplicates: files within Hamming distance k of another member. "
        "Nothing is modified. Binary, non-UTF-8 and oversized files, and what is not a regular file "
        "inside a folder (FIFOs, devices, broken links), are reported on stderr and skipped.",
        epilog="exit status: 0 no near-duplicates, 1 near-duplicates found, 2 some input could not "
        "be read: a PATH missing or not a regular file or folder, a file or folder unreadable "
        "(groups among the other files are still printed)",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("-k", "--k", type=_k, default=3, help="largest Hamming distance of a near-duplicate pair")
    p.add_argument("--preset", default="default", choices=sorted(ALL), help="the Simhasher (64 bits)")
    p.add_argument("--json", action="store_true", help="write the result as JSON to stdout")
    p.add_argument("--hidden", action="store_true", help="also read hidden files and folders inside folders")
    p.add_argument(
        "--max-bytes", type=byte_count, default=DEFAULT_MAX_BYTES, metavar="N", help="skip larger files"
    )
    p.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bar on stderr (auto: when stderr is a terminal and the run is long)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    p.set_defaults(func=_dedup_command)
    return p
