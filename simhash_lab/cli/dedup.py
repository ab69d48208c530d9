"""``simhash-lab dedup PATH...``: the command line of :mod:`simhash_lab.dedup`.

Two inputs:

* **text files** (one or more files or folders, walked recursively): every file that reads as text
  is a document, its path its id (:func:`simhash_lab.dedup.dedup`; what is read, skipped and
  reported is described there and in the README);
* **a dataset** (one ``.jsonl``, ``.csv``/``.tsv`` or ``.parquet`` file, or any file with
  ``--format``; a folder whose files are all such parts, or several such files: one dataset read
  in order): every row is a document, its text in ``--column``, its id in ``--id-column``
  (:func:`simhash_lab.dedup.dedup_table`); ``--output`` gets the kept rows in the input's format
  (a folder for parts: each part's to a file of its name), ``--duplicates`` the duplicates table.

A PATH that does not exist, a named file that is neither text nor a dataset, a folder with nothing
to read, or datasets beside text files: one line on stderr and exit 2 before any work.

Every candidate pair is verified by the exact Jaccard similarity (``--jaccard T``, default 0.8)
of the documents' shingles (word 3-shingles, and character 3-grams over the runs of a script
without word spaces: ``--lang``, ``--tokenizer``), ``k`` calibrated on a sample unless ``-k`` is
given; ``--unit paragraph`` (or ``line``) deduplicates each document's paragraphs instead; the raw Hamming
mode of the first versions (pairs within ``-k`` of the default hasher stand unverified) runs only
as ``--unverified -k K``. Clusters are complete (``--linkage complete``, the default): each dropped
document is verified-near its kept one and every two members of a cluster are a verified pair, so
no cluster holds a pair below the threshold; ``--linkage star`` asks only the first. Featureless
documents (empty, whitespace, punctuation or emoji only) are never compared by shingles: they are
listed apart (text output: after the groups; JSON: ``"featureless"``) and kept unless an exact copy
of an earlier one.

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
import warnings
from typing import Any

from .._files import (
    DEFAULT_MAX_BYTES,
    SNIFF_BYTES,
    Refused,
    TooLarge,
    open_regular,
    read_text,
    reason,
    show_name,
    walk,
)
from .._i18n import counted
from .._validate import check_fraction
from .._write import OutputError, check_outputs, remove_temporaries_on_signals
from ..datasets import FORMATS, DatasetError, detect_format, find_parts, split_folder
from ..dedup import DedupResult, dedup_files, dedup_table
from ..dedup.results import DuplicateIdsWarning, check_duplicates_name, write_duplicates
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
    u = res.units
    lines = []
    for n, g in enumerate(res.groups, 1):
        each = what if u is None else f"{u.unit}s"
        members = counted(len(g), f"1 {each[:-1]}", "{n} " + each)
        lines.append(f"group {n}: {members} ({head}{'path' if res.format == 'files' else 'id'})")
        for r, (ident, fp, d, s) in zip(g, res.group_members(g)):
            name = show_name(ident) if res.format == "files" else show_name(str(ident))
            if u is not None:  # which of its document's units
                name += f" ({u.unit} {int(u.index[r]) + 1})"
            sim = f"  {s:.3f}" if verified else ""
            lines.append(f"  {d:2d}{sim}  {fp:0{width}x}  {name}")
        lines.append("")
    if res.featureless.size:
        lines.append(
            f"featureless: {counted(int(res.featureless.size), f'1 {what[:-1]}', '{n} ' + what)} (no word: "
            "compared by their exact text alone, kept unless a copy of an earlier one, in a group above)"
        )
        for ident in res.featureless_ids:
            lines.append(f"  {show_name(ident) if res.format == 'files' else show_name(str(ident))}")
        lines.append("")
    return "\n".join(lines)


def _bands(value: str) -> tuple[int, int]:
    """``--bands BxR``: ``(B, R)``, 1-1024 bands of 1-64 rows."""
    import argparse

    b, x, r = value.lower().partition("x")
    if not (x and b.isdigit() and r.isdigit() and 1 <= int(b) <= 1024 and 1 <= int(r) <= 64):
        raise argparse.ArgumentTypeError(
            f"--bands must be BxR, 1 to 1024 bands of 1 to 64 rows (25x8), got {value!r}"
        )
    return int(b), int(r)


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
        unit=args.unit,
        min_kept_words=args.min_kept_words,
        candidates=args.candidates,
        bands=args.bands,
        max_tables=args.max_tables,
        memory_budget=args.memory_budget,
        max_row_bytes=args.max_row_bytes,
        unique_ids=args.unique_ids,
        progress=args.progress,
    )


def _inputs(args: argparse.Namespace) -> tuple[bool, Any]:
    """What the PATHs are, found before any work: ``(True, data)`` for a dataset (one file, ``-``,
    or a list of files: a folder's parts, or several files, read in order as one dataset), or
    ``(False, paths)`` for text files. A PATH that does not exist, a file of no known kind (neither
    a dataset by its name or ``--format``, nor text), a folder with nothing to read, or datasets
    beside text files: a DatasetError (one line, exit 2) before anything is read.

    A folder is a dataset when every file under it (names starting with ``.`` or ``_`` left out,
    as pyarrow leaves them) is a Parquet, JSONL or CSV part, or when ``--format`` or ``--column``
    says so (then its parts of that format: the others are named in one line on stderr);
    else its files are text documents."""
    paths = list(args.paths)
    if paths == ["-"]:
        return True, "-"
    if "-" in paths:
        raise DatasetError("- (standard input) is read alone: give it as the only PATH")
    said_dataset = args.format is not None or args.column is not None
    data: list[str] = []
    texts: list[str] = []
    for p in paths:
        if not os.path.lexists(p):
            raise DatasetError(f"{show_name(p)}: no such file or folder")
        if os.path.isdir(p):
            parts, others = split_folder(p)
            if said_dataset:
                fmt = args.format
                mine = [x for x in parts if fmt is None or detect_format(x) == fmt]
                left = others + [x for x in parts if x not in mine]
                if not mine:
                    find_parts(p, fmt)  # raises, naming what the folder lacks
                if left:
                    shown = ", ".join(show_name(os.path.relpath(x, p)) for x in left[:3])
                    err(
                        f"simhash-lab dedup: {show_name(p)}: {counted(len(left), '1 file', '{n} files')} "
                        f"left out, not {fmt or 'dataset'} parts ({shown}{', ...' if len(left) > 3 else ''})"
                    )
                data += mine
            elif parts and not others:
                data += parts
            else:
                _something_to_read(p, args)
                texts.append(p)
            continue
        entry = next(walk([p]))
        if entry.kind != "file":
            raise DatasetError(f"{show_name(p)}: {entry.problem}")
        if args.format is not None or detect_format(p) is not None:
            data.append(p)
            continue
        why = _not_text(p)
        if why is not None:
            raise DatasetError(f"{show_name(p)}: {_no_known_kind(p, why)}")
        texts.append(p)
    if data and texts:
        raise DatasetError(
            f"{show_name(texts[0])} is read as text files and {show_name(data[0])} as a dataset: give "
            "dataset files (or folders of them) or text files, not both"
        )
    if data:  # one PATH as it is (a folder: its parts named from it); several: their files in order
        return True, paths[0] if len(paths) == 1 else data
    return False, paths


def _warning_line(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning of the run as one line on stderr (no file and line of the library)."""
    err(f"simhash-lab dedup: warning: {' '.join(str(message).split())}")


def _not_text(path: str) -> str | None:
    """Why a file does not read as text (binary, UTF-16, not UTF-8, unreadable), or None when it
    does: its first 8 KiB looked at, as reading it looks first (a larger file whose start is text
    is text here; one too large for --max-bytes is skipped later, as it always was)."""
    try:
        read_text(path, SNIFF_BYTES)
    except TooLarge:
        return None
    except (OSError, Refused) as e:
        return reason(e)
    return None


def _no_known_kind(path: str, why: str) -> str:
    """Why a named file is read neither as text nor as a dataset, and what would read it."""
    try:
        with open_regular(path) as f:
            head = f.read(4)
    except OSError:
        head = b""
    ends = ", ".join(e for v in FORMATS.values() for e in v)
    if head == b"PAR1":
        return "a Parquet file by its bytes, not by its name: name it .parquet or give --format parquet"
    return f"neither text ({why}) nor a dataset by its name ({ends}); give --format if it is one"


def _something_to_read(folder: str, args: argparse.Namespace) -> None:
    """Refuse a folder of text files where no file reads as text (empty, or binaries only): the
    files are looked at in order until one reads (most folders: the first)."""
    seen = 0
    first = None
    for entry in walk([folder], hidden=args.hidden):
        if entry.kind != "file":
            continue
        seen += 1
        why = _not_text(entry.path)
        if why is None:
            return
        first = first or f"{show_name(entry.path)}: {why}"
    if not seen:
        raise DatasetError(f"{show_name(folder)}: nothing to read: no file in it")
    raise DatasetError(
        f"{show_name(folder)}: nothing to read: {counted(seen, '1 file', '{n} files')}, none of them text "
        f"nor a dataset part (first: {first})"
    )


def _dedup_command(args: argparse.Namespace) -> int:
    with warnings.catch_warnings():  # the run's warnings (duplicate ids): one line each, as they come
        warnings.showwarning = _warning_line
        warnings.simplefilter("always", DuplicateIdsWarning)
        return _run_command(args)


def _run_command(args: argparse.Namespace) -> int:
    def report(path, reason):
        err(f"simhash-lab dedup: {show_name(path)}: {reason}")

    t0 = time.perf_counter()
    remove_temporaries_on_signals()  # a temporary file (an output being written, stdin's copy)
    # goes on SIGTERM and SIGHUP as on Ctrl-C, whichever thread made it
    try:
        s = _settings(args)
        dataset, data = _inputs(args)
        if dataset:
            res = dedup_table(
                data,
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
            res = dedup_files(data, s, hidden=args.hidden, max_bytes=args.max_bytes, report=report)
            if args.duplicates is not None:
                write_duplicates(args.duplicates, res.duplicates_table())
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
        err(f"simhash-lab dedup: {_summary_line(res, args, time.perf_counter() - t0)}")
    return res.exit_status


def _summary_line(res: DedupResult, args: argparse.Namespace, seconds: float) -> str:
    """The summary on stderr: each count with its noun in the number it has ("1 group")."""
    n_groups = len(res.groups)
    n_members = sum(len(g) for g in res.groups)
    n_cand = int(res.pairs.shape[0])
    checked = (
        f"; verified at Jaccard >= {res.jaccard:g}: {res.verified} of "
        + counted(n_cand, "1 candidate pair", "{n} candidate pairs")
        if res.jaccard is not None
        else "; unverified (the raw Hamming mode)"
    )
    exact = counted(res.exact, ", 1 of them an exact copy", ", {n} of them exact copies") if res.exact else ""
    steps = ", ".join(f"{step} {secs:.1f}" for step, secs in res.timings.items())
    secs = f"({seconds:.1f} s: {steps})"
    chars = res.chars_note()
    groups = counted(n_groups, "1 group", "{n} groups")
    if res.format == "files":
        members = counted(n_members, "1 file", "{n} files")
        return (
            f"{counted(len(res.ids) - res.featureless.size, '1 file', '{n} files')} fingerprinted, "
            f"{groups} ({members}{exact}) {res.found_by}{checked}; {len(res.skipped)} skipped, "
            f"{res.featureless_note()}, {counted(len(res.errors), '1 error', '{n} errors')}{chars} {secs}"
        )
    wrote = (
        f"; {counted(res.written, '1 kept row', '{n} kept rows')} written to {show_name(args.output)}"
        if args.output
        else ""
    )
    rows = counted(len(res.ids), "1 row", "{n} rows")
    if res.units is not None:  # the units are what is counted, of the documents
        rows = res.units_note(rows)
    return (
        f"{rows}, {len(res.duplicates)} dropped{exact} in {groups} "
        f"{res.found_by}{checked}; {res.featureless_note()}{chars}{res.documents_note()}{wrote} {secs}"
    )


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


class _DefaultsOnce(argparse.HelpFormatter):
    """Each option's default said once: added as "(default: X)" where its help does not say it
    already (the size options say theirs in their own units: 64M) and there is one to say (not
    None, not a flag's False). argparse's ``ArgumentDefaultsHelpFormatter`` added it to
    every option, after help that said it: "(default: text) (default: None)"."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        d = action.default
        if "default" in text or d is None or d is False or d is argparse.SUPPRESS:
            return text
        if not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


def add_dedup_parser(subparsers) -> argparse.ArgumentParser:
    """Add ``dedup`` to the ``simhash-lab`` command's subparsers."""
    p = subparsers.add_parser(
        "dedup",
        help="find and drop near-duplicates in text files or a dataset (exit 0: none, 1: found, 2: trouble)",
        description="Find near-duplicate documents: the text files under the paths (folders recursively), "
        "or the rows of one dataset (a JSONL, CSV or Parquet file, a folder of such parts; - for JSONL on "
        "stdin). Every pair is verified by default: two documents are near-duplicates when the exact "
        "Jaccard similarity of their shingles "
        "(word 3-shingles; character 3-grams over the runs of a script without word spaces, such as Chinese, "
        "Japanese or Thai) is at least --jaccard (0.8); candidates are the pairs that share a MinHash band "
        "of their shingles (chosen for --recall; --candidates index: every pair within k bits of their "
        "Simhash fingerprints), k calibrated on a sample for --recall. Text is normalised first (NFKC, "
        "invisible format characters such as U+200B dropped) and identical texts are grouped before the "
        "search. Each group keeps its "
        "first document (--keep) and drops the others; every two members of a group are a verified pair "
        "(--linkage). Documents with no word are listed apart, grouped only with identical ones. --unit "
        "paragraph removes repeated paragraphs instead of whole documents. Input files are never modified.",
        epilog="exit status: 0 no near-duplicates, 1 near-duplicates found, 2 trouble: a PATH refused before "
        "any work (missing, of no known kind, a folder with nothing to read: one line naming it), a file "
        "inside a folder unreadable (named; groups among the other files are still printed) or a dataset "
        "refused (a missing column, a value that is not text, a corrupt or empty file, ids that name two "
        "rows with --unique-ids: one line naming the file, line or row and column). "
        "Examples: simhash-lab dedup docs.jsonl --column text --id-column id --output kept.jsonl "
        "--duplicates dups.csv --report report.html; Chinese: simhash-lab dedup poems.jsonl --lang zh "
        "--output kept.jsonl (jieba's words with the chinese extra, else characters); the raw Hamming "
        "mode of the first versions: simhash-lab dedup docs/ --unverified -k 3",
        formatter_class=_DefaultsOnce,
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
    g.add_argument(
        "--bands",
        type=_bands,
        default=None,
        metavar="BxR",
        help="MinHash bands pinned: B bands of R rows (25x8; default: chosen from candidate pairs counted "
        "on the input's first 10,000 rows, see settings.candidates of --json)",
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
        "nothing else: not the MinHash bands' keys (8 bytes a row per band, at most 32 bands unless "
        "--bands), "
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
    g = p.add_argument_group("paragraphs and lines")
    g.add_argument(
        "--unit",
        choices=["document", "paragraph", "line"],
        default="document",
        help="what is deduplicated: whole documents, or each document's paragraphs (runs of lines "
        "between blank lines) or lines: a paragraph that repeats an earlier one (the same text, or "
        "Jaccard >= T) is removed from its document (--output writes the documents without them; "
        "--duplicates lists each with its place), the first copy kept",
    )
    g.add_argument(
        "--min-kept-words",
        type=int_in("--min-kept-words", 0),
        default=1,
        metavar="N",
        help="with --unit paragraph or line: a document that lost some of its units is kept only when N "
        "words or more are left (a document that holds a kept copy is always kept)",
    )
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
        "similarity histograms, the pairs nearest the threshold on both sides (dropped just above it, kept "
        "apart just below) and the clusters that tell most, side by side with their differences highlighted",
    )
    g.add_argument(
        "--unique-ids",
        action="store_true",
        help="refuse (exit 2, nothing written) a dataset whose --id-column names two rows or more; "
        "without it such ids are warned of on stderr and the run goes on",
    )
    g.add_argument(
        "--max-row-bytes",
        type=byte_size("--max-row-bytes"),
        default=DEFAULT_MAX_ROW_BYTES,
        metavar="N",
        help="refuse a row (JSONL line, CSV record, Parquet text) larger than this (default: 64M)",
    )
    g.add_argument(
        "--duplicates",
        metavar="FILE",
        help="write the duplicates table there (.csv, .jsonl or .parquet): dropped_id, kept_id, distance, "
        "similarity, dropped_row, kept_row (with --unit paragraph or line also dropped_unit, kept_unit, "
        "dropped_start, dropped_end: each unit's place)",
    )
    g = p.add_argument_group("text files")
    g.add_argument("--hidden", action="store_true", help="also read hidden files and folders inside folders")
    g.add_argument(
        "--max-bytes",
        type=byte_size("--max-bytes"),
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help="skip larger files (default: 64M)",
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
