"""``simhash-lab dedup PATH...``: the command line of :mod:`simhash_lab.dedup`.

Two inputs:

* **text files** (one or more files or folders, walked recursively): every file that reads as text
  is a document, its path its id (:func:`simhash_lab.dedup.dedup`; what is read, skipped and
  reported is described there and in the README);
* **a dataset** (one ``.jsonl``, ``.csv``/``.tsv`` or ``.parquet`` file, or any file with
  ``--format``): every row is a document, its text in ``--column``, its id in ``--id-column``
  (:func:`simhash_lab.dedup.dedup_table`); ``--output`` gets the kept rows in the input's format,
  ``--duplicates`` the duplicates table.

``--jaccard T`` verifies every candidate pair by the exact Jaccard similarity of the documents'
word shingles, with the recommended hasher (word 3-shingles, binary weights) and ``k`` calibrated
on a sample unless ``-k`` is given; without it, pairs within ``-k`` (default 3) of the default
hasher stand unverified. Clusters are complete (``--linkage complete``, the default): each dropped
document is verified-near its kept one and every two members of a cluster are a verified pair, so
no cluster holds a pair below the threshold; ``--linkage star`` asks only the first. Featureless
documents (empty, whitespace or punctuation only) are never compared nor grouped: they are listed
apart (text output: after the groups; JSON: ``"empty"`` for files, ``"featureless"`` for rows) and
kept.

Exit status (as ``grep`` and ``diff`` use it): 0 no near-duplicates, 1 some found (and dropped),
2 trouble: an input could not be read (the groups among the files that were read are still
printed), or a dataset was refused (a missing column, a value that is not text, a corrupt or empty
file: one line on stderr naming it, no output written).
"""

from __future__ import annotations

import argparse
import os
import re
import time

from .._files import DEFAULT_MAX_BYTES, show_name
from ..datasets import FORMATS, DatasetError, detect_format
from ..dedup import DedupResult, dedup, dedup_table
from ._args import int_in
from ._output import err, out, out_json
from .fingerprint import byte_count

__all__ = ["add_dedup_parser"]

TOKENIZERS = ("words", "whitespace", "rust_words", "word_shingles", "char_ngrams")


def _format_text(res: DedupResult) -> str:
    width = (res.bits + 3) // 4
    verified = res.jaccard is not None
    head = (
        "distance to the first, similarity, fingerprint, "
        if verified
        else "distance to the first, fingerprint, "
    )
    what = "files" if res.format == "files" else "rows"
    lines = []
    for n, g in enumerate(res.groups, 1):
        lines.append(f"group {n}: {len(g)} {what} ({head}{'path' if res.format == 'files' else 'id'})")
        for ident, fp, d, s in res.group_members(g):
            name = show_name(ident) if res.format == "files" else show_name(str(ident))
            sim = f"  {s:.3f}" if verified else ""
            lines.append(f"  {d:2d}{sim}  {fp:0{width}x}  {name}")
        lines.append("")
    if res.featureless.size:
        lines.append(
            f"featureless: {res.featureless.size} {what} (no word: never compared nor grouped, kept)"
        )
        for ident in res.empty:
            lines.append(f"  {show_name(ident) if res.format == 'files' else show_name(str(ident))}")
        lines.append("")
    return "\n".join(lines)


def _hasher(args):
    """The Simhasher the options ask for, or a preset name, or None (the library's default)."""
    from ..simhasher import Simhasher
    from ..tokenize import char_ngrams, rust_words, whitespace, word_shingles, words

    if args.preset is not None and (args.tokenizer is not None or args.weights is not None):
        raise ValueError("--preset sets the tokenizer and weights: give --preset or --tokenizer/--weights")
    if args.preset is not None:
        return args.preset
    if args.tokenizer is None and args.weights is None:
        return None
    if args.tokenizer is not None:
        name, n = args.tokenizer
    elif args.jaccard is not None:
        name, n = "word_shingles", args.shingle
    else:
        name, n = "words", None
    make = {
        "words": lambda n: words(),
        "whitespace": lambda n: whitespace(),
        "rust_words": lambda n: rust_words(),
        "word_shingles": lambda n: word_shingles(3 if n is None else n),
        "char_ngrams": lambda n: char_ngrams(4 if n is None else n),
    }[name]
    weights = args.weights or ("binary" if args.jaccard is not None else "tf")
    return Simhasher(tokenizer=make(n), weights=weights)


def _is_dataset(args) -> bool:
    if args.format is not None or args.column is not None:
        return True
    return len(args.paths) == 1 and os.path.isfile(args.paths[0]) and detect_format(args.paths[0]) is not None


def _dedup_command(args: argparse.Namespace) -> int:
    def report(path, reason):
        err(f"simhash-lab dedup: {show_name(path)}: {reason}")

    t0 = time.perf_counter()
    common = dict(
        jaccard=args.jaccard,
        shingle=args.shingle,
        recall=args.recall,
        sample=args.sample,
        keep=args.keep,
        linkage=args.linkage,
        seed=args.seed,
        max_tables=args.max_tables,
        memory_budget=args.memory_budget,
        progress=args.progress,
    )
    dataset = _is_dataset(args)
    try:
        hasher = _hasher(args)
        if dataset:
            if len(args.paths) != 1:
                raise DatasetError("a dataset is deduplicated one file at a time: give one PATH")
            res = dedup_table(
                args.paths[0],
                args.column or "text",
                id_column=args.id_column,
                priority_column=args.priority_column,
                format=args.format,
                output=args.output,
                duplicates=args.duplicates,
                k=args.k,
                hasher=hasher,
                **common,
            )
        else:
            for opt in ("output", "id_column", "priority_column"):
                if getattr(args, opt) is not None:
                    raise ValueError(
                        f"--{opt.replace('_', '-')} is for a dataset (a .jsonl, .csv or .parquet file), "
                        "not for text files"
                    )
            res = dedup(
                args.paths,
                k=args.k,
                hasher=hasher,
                hidden=args.hidden,
                max_bytes=args.max_bytes,
                report=report,
                **common,
            )
            if args.duplicates is not None:
                from ..datasets import write_duplicates

                write_duplicates(args.duplicates, res.duplicates)
    except DatasetError as e:
        err(f"simhash-lab dedup: {e}")
        return 2
    except (ValueError, TypeError) as e:
        err(f"simhash-lab dedup: {' '.join(str(e).split())}")
        return 2
    except OSError as e:  # writing an output
        err(f"simhash-lab dedup: {show_name(e.filename or '')}: {e.strerror or e}")
        return 2
    if args.json:
        out_json(res.to_json())
    elif not (dataset and (args.output or args.duplicates)):
        out(_format_text(res))
    if not args.quiet:
        if res.calibration is not None:
            err(f"simhash-lab dedup: calibration: {res.calibration.summary()}")
        n_groups = len(res.groups)
        n_members = sum(len(g) for g in res.groups)
        checked = (
            f"; verified at Jaccard >= {res.jaccard:g}: "
            f"{res.verified} of {res.pairs.shape[0]} candidate pairs"
            if res.jaccard is not None
            else ""
        )
        steps = ", ".join(f"{step} {secs:.1f}" for step, secs in res.timings.items())
        secs = f"({time.perf_counter() - t0:.1f} s: {steps})"
        if res.format == "files":
            err(
                f"simhash-lab dedup: {len(res.ids) - len(res.empty)} files fingerprinted, "
                f"{n_groups} group(s) ({n_members} files) "
                f"within k = {res.k}{checked}; {len(res.skipped)} skipped, {len(res.empty)} empty, "
                f"{len(res.errors)} errors {secs}"
            )
        else:
            wrote = f"; {res.written} kept rows written to {show_name(args.output)}" if args.output else ""
            err(
                f"simhash-lab dedup: {len(res.ids)} rows, {len(res.duplicates)} dropped "
                f"in {n_groups} group(s) "
                f"within k = {res.k}{checked}; {res.featureless.size} featureless (kept){wrote} {secs}"
            )
    return res.exit_status


def _fraction(name: str):
    def parse(value: str) -> float:
        try:
            v = float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number in (0, 1], got {value!r}") from None
        if not 0 < v <= 1:
            raise argparse.ArgumentTypeError(f"{name} must be in (0, 1], got {value}")
        return v

    return parse


_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _memory_budget(value: str) -> int:
    """``--memory-budget``: bytes, as an int or with a binary suffix (``512M``, ``2G``, ``1.5GiB``)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*", value, re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(
            f"--memory-budget must be a number of bytes, with K, M, G or T for KiB..TiB (2G, 512M), "
            f"got {value!r}"
        )
    n = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if n >= 1 << 62:
        raise argparse.ArgumentTypeError(f"--memory-budget must be below 4 EiB, got {value!r}")
    return n


def _tokenizer(value: str) -> tuple[str, int | None]:
    m = re.fullmatch(r"([a-z_]+)(?:[(:](\d+)\)?)?", value.strip())
    if not m or m.group(1) not in TOKENIZERS:
        raise argparse.ArgumentTypeError(
            f"tokenizer must be one of {', '.join(TOKENIZERS)} (shingles and n-grams take a size: "
            f"word_shingles:3, char_ngrams:4), got {value!r}"
        )
    n = int(m.group(2)) if m.group(2) else None
    if n is not None and not 1 <= n <= 64:
        raise argparse.ArgumentTypeError(f"the tokenizer's size must be between 1 and 64, got {n}")
    return m.group(1), n


def add_dedup_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``dedup`` to the ``simhash-lab`` command's subparsers."""
    from ..index.design import MAX_TABLES_FORCED
    from ..presets import ALL

    p = subparsers.add_parser(
        "dedup",
        help="find and drop near-duplicates in text files or a dataset (exit 0: none, 1: found, 2: trouble)",
        description="Find near-duplicate documents: the text files under the paths (folders recursively), "
        "or the rows of one dataset file (JSONL, CSV, Parquet). Simhash finds candidate pairs within k bits; "
        "with --jaccard each candidate is verified by the exact Jaccard similarity of word shingles and k is "
        "calibrated on a sample. Each group keeps its first document (--keep) and drops the others; every "
        "two members of a group are a verified pair (--linkage). Documents with no word are listed apart, "
        "never grouped. Input files are never modified.",
        epilog="exit status: 0 no near-duplicates, 1 near-duplicates found, 2 trouble: an input could not be "
        "read (a PATH missing or not a regular file or folder, a file or folder unreadable; groups among the "
        "other files are still printed) or a dataset was refused (a missing column, a value that is not "
        "text, "
        "a corrupt or empty file). Example: simhash-lab dedup docs.jsonl --column text --id-column id "
        "--jaccard 0.8 --output kept.jsonl --duplicates dups.csv",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders, or one dataset file")
    g = p.add_argument_group("what counts as a near-duplicate")
    g.add_argument(
        "--jaccard",
        type=_fraction("--jaccard"),
        metavar="T",
        help="verify each candidate: exact Jaccard similarity of word shingles >= T (0 < T <= 1); "
        "also makes the recommended hasher (word shingles, binary weights) the default and calibrates k",
    )
    g.add_argument(
        "-k",
        "--k",
        type=int_in("-k", 0, 63),
        default=None,
        help="largest Hamming distance of a candidate pair (default: calibrated with --jaccard, else 3)",
    )
    g.add_argument("--shingle", type=int_in("--shingle", 1), default=3, help="words per shingle")
    g.add_argument(
        "--recall", type=_fraction("--recall"), default=0.95, help="the recall k is calibrated for"
    )
    g.add_argument(
        "--sample", type=int_in("--sample", 1), default=1000, help="documents the calibration samples"
    )
    g.add_argument("--seed", type=int, default=0, help="the calibration sample's seed")
    g.add_argument(
        "--tokenizer",
        type=_tokenizer,
        default=None,
        help="the hasher's features: words, whitespace, rust_words, word_shingles:N, char_ngrams:N "
        "(default: word_shingles:3 with --jaccard, else words)",
    )
    weights = (
        "tf: each occurrence votes; binary: each distinct feature votes once (default: binary with --jaccard)"
    )
    g.add_argument("--weights", choices=["tf", "binary"], default=None, help=weights)
    g.add_argument("--preset", default=None, choices=sorted(ALL), help="a preset hasher instead (64 bits)")
    tables = "the most tables the index may build, 1 to 4096 (memory: 12 bytes per document per table)"
    max_tables = int_in("--max-tables", 1, MAX_TABLES_FORCED)
    g.add_argument("--max-tables", type=max_tables, default=None, metavar="N", help=tables)
    g.add_argument(
        "--memory-budget",
        type=_memory_budget,
        default=None,
        metavar="BYTES",
        help="bytes the index's tables may use (2G, 512M; default: a quarter of the machine's memory); "
        "a small budget means fewer tables and slower candidates",
    )
    g = p.add_argument_group("which one is kept")
    g.add_argument(
        "--keep", choices=["first", "longest"], default="first", help="keep the first or the longest"
    )
    g.add_argument("--priority-column", metavar="COLUMN", help="keep the row with the highest value first")
    linkage = (
        "complete: every two members of a group are a verified pair (no pair in a group below the "
        "threshold); star: each dropped document is verified-near its kept one only"
    )
    g.add_argument("--linkage", choices=["complete", "star"], default="complete", help=linkage)
    g = p.add_argument_group("datasets")
    g.add_argument("--column", metavar="COLUMN", help="the column holding the text (default: text)")
    g.add_argument("--id-column", metavar="COLUMN", help="the column of ids (default: row numbers from 0)")
    g.add_argument("--format", choices=sorted(FORMATS), help="the dataset's format (default: from the name)")
    g.add_argument(
        "--output", metavar="FILE", help="write the kept rows there, unchanged, in the input's format"
    )
    g.add_argument(
        "--duplicates",
        metavar="FILE",
        help="write the duplicates table there (.csv, .jsonl or .parquet): dropped_id, kept_id, distance, "
        "similarity, dropped_row, kept_row",
    )
    g = p.add_argument_group("text files")
    g.add_argument("--hidden", action="store_true", help="also read hidden files and folders inside folders")
    g.add_argument(
        "--max-bytes", type=byte_count, default=DEFAULT_MAX_BYTES, metavar="N", help="skip larger files"
    )
    p.add_argument("--json", action="store_true", help="write the result as JSON to stdout")
    p.add_argument(
        "--progress",
        choices=["auto", "always", "never"],
        default="auto",
        help="progress bars on stderr (auto: when stderr is a terminal and a step is long)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no summary line on stderr")
    p.set_defaults(func=_dedup_command)
    return p
