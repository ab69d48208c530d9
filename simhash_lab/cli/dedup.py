"""``simhash-lab dedup PATH...``: the command line of :mod:`simhash_lab.dedup`.

Two inputs:

* **text files** (one or more files or folders, walked recursively): every file that reads as text
  is a document, its path its id (:func:`simhash_lab.dedup.dedup`; what is read, skipped and
  reported is described there and in the README);
* **a dataset** (one ``.jsonl``, ``.csv``/``.tsv`` or ``.parquet`` file, or any file with
  ``--format``): every row is a document, its text in ``--column``, its id in ``--id-column``
  (:func:`simhash_lab.dedup.dedup_table`); ``--output`` gets the kept rows in the input's format,
  ``--duplicates`` the duplicates table.

Every candidate pair is verified by the exact Jaccard similarity (``--jaccard T``, default 0.8)
of the documents' shingles (word 3-shingles, or character 3-grams for text without word spaces:
``--lang``, ``--tokenizer``), ``k`` calibrated on a sample unless ``-k`` is given; the raw Hamming
mode of the first versions (pairs within ``-k`` of the default hasher stand unverified) runs only
as ``--unverified -k K``. Clusters are complete (``--linkage complete``, the default): each dropped
document is verified-near its kept one and every two members of a cluster are a verified pair, so
no cluster holds a pair below the threshold; ``--linkage star`` asks only the first. Featureless
documents (empty, whitespace or punctuation only) are never compared nor grouped: they are listed
apart (text output: after the groups; JSON: ``"featureless"``) and
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
from .._validate import check_fraction
from .._write import OutputError, check_outputs, remove_temporaries_on_signals
from ..datasets import FORMATS, DatasetError, detect_format
from ..dedup import DedupResult, dedup_files, dedup_table
from ..dedup.results import check_duplicates_name, write_duplicates
from ..index.design import MAX_TABLES_FORCED
from ..presets import ALL
from ..settings import DEFAULT_MAX_ROW_BYTES, DedupSettings
from ..simhasher import Simhasher
from ..tokenize import char_ngrams, rust_words, whitespace, word_shingles, words
from ._args import byte_size, int_in
from ._output import err, out, out_json

__all__ = ["add_dedup_parser"]

TOKENIZERS = ("words", "whitespace", "rust_words", "word_shingles", "char_ngrams", "auto", "chars", "jieba")
FEATURE_NAMES = ("auto", "chars", "jieba")  # the run's own shingles; the others make a hasher


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
        for ident in res.featureless_ids:
            lines.append(f"  {show_name(ident) if res.format == 'files' else show_name(str(ident))}")
        lines.append("")
    return "\n".join(lines)


def _hasher(args):
    """The Simhasher the options ask for, or a preset name, or None (the run's own features)."""
    if args.preset is not None and (args.tokenizer is not None or args.weights is not None):
        raise ValueError("--preset sets the tokenizer and weights: give --preset or --tokenizer/--weights")
    if args.preset is not None:
        return args.preset
    if args.tokenizer is not None and args.tokenizer[0] in FEATURE_NAMES:
        if args.weights is not None:
            raise ValueError(f"--weights goes with a hasher's tokenizer, not --tokenizer {args.tokenizer[0]}")
        return None
    if args.tokenizer is None and args.weights is None:
        return None
    if args.tokenizer is not None:
        name, n = args.tokenizer
    elif not args.unverified:
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
    weights = args.weights or ("binary" if not args.unverified else "tf")
    return Simhasher(tokenizer=make(n), weights=weights)


def _settings(args):
    features = "auto"
    char_ngram = 3
    if args.tokenizer is not None and args.tokenizer[0] in FEATURE_NAMES:
        features = args.tokenizer[0]
        if args.tokenizer[1] is not None:
            char_ngram = args.tokenizer[1]
    if args.unverified and args.k is None:
        raise ValueError("--unverified (the raw Hamming mode) needs -k K: every pair within K bits stands")
    if args.jaccard is not None and args.unverified:
        raise ValueError("--jaccard verifies pairs, --unverified does not: give one of them")
    if args.candidates == "bands" and args.k is not None:
        raise ValueError(
            "--candidates bands finds pairs by their shingle sets, not within -k bits: leave -k out "
            "(k is calibrated), or give --candidates index"
        )
    return DedupSettings(
        jaccard=args.jaccard if args.jaccard is not None else 0.8,
        unverified=args.unverified,
        k=args.k,
        recall=args.recall,
        sample=args.sample,
        seed=args.seed,
        features=features,
        char_ngram=char_ngram,
        lang=args.lang,
        hasher=_hasher(args),
        shingle=args.shingle,
        keep=args.keep,
        linkage=args.linkage,
        candidates=args.candidates,
        max_tables=args.max_tables,
        memory_budget=args.memory_budget,
        max_row_bytes=args.max_row_bytes,
        progress=args.progress,
    )


def _is_dataset(args) -> bool:
    if args.format is not None or args.column is not None:
        return True
    if args.paths == ["-"]:
        return True
    return len(args.paths) == 1 and os.path.isfile(args.paths[0]) and detect_format(args.paths[0]) is not None


def _dedup_command(args: argparse.Namespace) -> int:
    def report(path, reason):
        err(f"simhash-lab dedup: {show_name(path)}: {reason}")

    t0 = time.perf_counter()
    remove_temporaries_on_signals()  # a temporary file (an output being written, stdin's copy)
    # goes on SIGTERM and SIGHUP as on Ctrl-C, whichever thread made it
    dataset = _is_dataset(args)
    try:
        s = _settings(args)
        if dataset:
            if len(args.paths) != 1:
                raise DatasetError("a dataset is deduplicated one file at a time: give one PATH")
            res = dedup_table(
                args.paths[0],
                args.column or "text",
                s,
                id_column=args.id_column,
                priority_column=args.priority_column,
                format=args.format,
                output=args.output,
                duplicates=args.duplicates,
                report=args.report,
            )
        else:
            for opt in ("output", "id_column", "priority_column", "report"):
                if getattr(args, opt) is not None:
                    raise ValueError(
                        f"--{opt.replace('_', '-')} is for a dataset (a .jsonl, .csv or .parquet file), "
                        "not for text files"
                    )
            if args.duplicates is not None:
                check_outputs(args.duplicates, what="--duplicates", inputs=args.paths)
                check_duplicates_name(args.duplicates)
            res = dedup_files(args.paths, s, hidden=args.hidden, max_bytes=args.max_bytes, report=report)
            if args.duplicates is not None:
                write_duplicates(args.duplicates, res.duplicates)
    except DatasetError as e:
        err(f"simhash-lab dedup: {' '.join(str(e).split())}")
        return 2
    except (ValueError, TypeError, ImportError) as e:
        err(f"simhash-lab dedup: {' '.join(str(e).split())}")
        return 2
    except MemoryError:
        err(
            "simhash-lab dedup: out of memory (give --memory-budget, or fewer rows at a time: "
            "the near-duplicate pairs of very similar rows can be many)"
        )
        return 2
    except RecursionError:
        err("simhash-lab dedup: the input is nested too deeply to be read")
        return 2
    except OutputError as e:  # an output that cannot be written (named), found before the work
        err(f"simhash-lab dedup: {' '.join(str(e).split())}")
        return 2
    except OSError as e:  # writing an output
        err(f"simhash-lab dedup: {show_name(e.filename or '')}: {e.strerror or e}")
        return 2
    if args.json:
        out_json(res.to_json())
    elif not (dataset and (args.output or args.duplicates or args.report)):
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
            else "; unverified (the raw Hamming mode)"
        )
        exact = f", {res.exact} of them exact copies" if res.exact else ""
        steps = ", ".join(f"{step} {secs:.1f}" for step, secs in res.timings.items())
        secs = f"({time.perf_counter() - t0:.1f} s: {steps})"
        chars = res.chars_note()
        if res.format == "files":
            err(
                f"simhash-lab dedup: {len(res.ids) - res.featureless.size} files fingerprinted, "
                f"{n_groups} group(s) ({n_members} files{exact}) "
                f"{res.found_by}{checked}; {len(res.skipped)} skipped, {res.featureless.size} featureless, "
                f"{len(res.errors)} errors{chars} {secs}"
            )
        else:
            wrote = f"; {res.written} kept rows written to {show_name(args.output)}" if args.output else ""
            err(
                f"simhash-lab dedup: {len(res.ids)} rows, {len(res.duplicates)} dropped{exact} "
                f"in {n_groups} group(s) "
                f"{res.found_by}{checked}; {res.featureless.size} featureless (kept){chars}{wrote} {secs}"
            )
    return res.exit_status


def _fraction(name: str):
    def parse(value: str) -> float:
        try:
            return check_fraction(name, float(value))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number in (0, 1], got {value!r}") from None

    return parse


_memory_budget = byte_size("--memory-budget")


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
    p = subparsers.add_parser(
        "dedup",
        help="find and drop near-duplicates in text files or a dataset (exit 0: none, 1: found, 2: trouble)",
        description="Find near-duplicate documents: the text files under the paths (folders recursively), "
        "or the rows of one dataset file (JSONL, CSV, Parquet; - for JSONL on stdin). Every pair is verified "
        "by default: two documents are near-duplicates when the exact Jaccard similarity of their shingles "
        "(word 3-shingles; character 3-grams for text in a script without word spaces, such as Chinese, "
        "Japanese or Thai) is at least --jaccard (0.8); candidates are the pairs that share a MinHash band "
        "of their shingles (chosen for --recall; --candidates index: every pair within k bits of their "
        "Simhash fingerprints), k calibrated on a sample for --recall. Text is normalised first (NFKC, "
        "invisible format characters such as U+200B dropped) and identical texts are grouped before the "
        "search. Each group keeps its "
        "first document (--keep) and drops the others; every two members of a group are a verified pair "
        "(--linkage). Documents with no word are listed apart, never grouped. Input files are never "
        "modified.",
        epilog="exit status: 0 no near-duplicates, 1 near-duplicates found, 2 trouble: an input could not be "
        "read (a PATH missing or not a regular file or folder, a file or folder unreadable; groups among the "
        "other files are still printed) or a dataset was refused (a missing column, a value that is not "
        "text, a corrupt or empty file: one line naming the file, line or row and column). "
        "Examples: simhash-lab dedup docs.jsonl --column text --id-column id --output kept.jsonl "
        "--duplicates dups.csv --report report.html; Chinese: simhash-lab dedup poems.jsonl --lang zh "
        "--output kept.jsonl (jieba's words with the chinese extra, else characters); the raw Hamming "
        "mode of the first versions: simhash-lab dedup docs/ --unverified -k 3",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders, or one dataset file, or -")
    g = p.add_argument_group("what counts as a near-duplicate")
    g.add_argument(
        "--jaccard",
        type=_fraction("--jaccard"),
        metavar="T",
        help="near-duplicates: exact Jaccard similarity of the shingles >= T (0 < T <= 1; default 0.8)",
    )
    g.add_argument(
        "--unverified",
        action="store_true",
        help="the raw Hamming mode of the first versions: every pair within -k K bits of the default hasher "
        "(words, TF weights) stands, unverified (it over-matches boilerplate); needs -k",
    )
    g.add_argument(
        "-k",
        "--k",
        type=int_in("-k", 0, 63),
        default=None,
        help="largest Hamming distance of a candidate pair (default: calibrated for --recall)",
    )
    g.add_argument("--shingle", type=int_in("--shingle", 1, 64), default=3, help="words per shingle")
    g.add_argument(
        "--recall", type=_fraction("--recall"), default=0.99, help="the recall k is calibrated for"
    )
    g.add_argument(
        "--sample", type=int_in("--sample", 1), default=1000, help="documents the calibration samples"
    )
    g.add_argument("--seed", type=int, default=0, help="the calibration sample's seed")
    g.add_argument(
        "--tokenizer",
        type=_tokenizer,
        default=None,
        help="the shingles: auto (word 3-shingles; character 3-grams for text without word spaces), "
        "chars[:N] "
        "(character N-grams for every document), jieba (jieba's words, the chinese extra); or a hasher's "
        "features: words, whitespace, rust_words, word_shingles:N, char_ngrams:N",
    )
    g.add_argument(
        "--lang",
        choices=["auto", "zh", "ja", "th", "lo", "km", "my", "ko", "en", "words"],
        default=None,
        help="the language of every document: zh (jieba's words when jieba is installed, else characters), "
        "ja, th, lo, km, my (characters), ko, en, words (words); default: detected per document",
    )
    weights = (
        "tf: each occurrence votes; binary: each distinct feature votes once (default: binary, verified)"
    )
    g.add_argument("--weights", choices=["tf", "binary"], default=None, help=weights)
    g.add_argument("--preset", default=None, choices=sorted(ALL), help="a preset hasher instead (64 bits)")
    g.add_argument(
        "--candidates",
        choices=["auto", "index", "bands"],
        default="auto",
        help="how candidate pairs are found: bands (pairs whose shingle sets agree on a MinHash band, "
        "chosen to find a pair at the threshold with --recall; not with -k) or index (every pair "
        "within k bits); auto, the default: bands, or index when -k is given",
    )
    tables = "the most tables the index may build, 1 to 4096 (memory: 12 bytes per document per table)"
    max_tables = int_in("--max-tables", 1, MAX_TABLES_FORCED)
    g.add_argument("--max-tables", type=max_tables, default=None, metavar="N", help=tables)
    g.add_argument(
        "--memory-budget",
        type=_memory_budget,
        default=None,
        metavar="BYTES",
        help="bytes the index's tables may use (-k or --candidates index; 2G, 512M; default: a quarter "
        "of the machine's memory); a small budget means fewer tables and slower candidates. It bounds "
        "nothing else: not the MinHash bands' keys (8 bytes a row per band, 16 bands at the defaults), "
        "the candidate pairs or the shingle sets kept (up to 1 GiB)",
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
        "--report",
        metavar="FILE",
        help="write a report there (.html, or .md): counts and seconds per step, the cluster-size and "
        "similarity histograms, a few clusters side by side with their differences highlighted",
    )
    g.add_argument(
        "--max-row-bytes",
        type=byte_size("--max-row-bytes"),
        default=DEFAULT_MAX_ROW_BYTES,
        metavar="N",
        help="refuse a row (JSONL line, CSV record, Parquet text) larger than this",
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
        "--max-bytes",
        type=byte_size("--max-bytes"),
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="skip larger files",
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
