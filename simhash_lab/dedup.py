"""``simhash-lab dedup PATH...``: find near-duplicate text files.

Every regular file under the paths (folders are walked recursively, in sorted order) is read as
every simhash-lab command reads files (:mod:`simhash_lab._files`: UTF-8, a leading BOM dropped),
fingerprinted (64 bits, the ``--preset`` Simhasher), and put in a
:class:`~simhash_lab.SimhashIndex`; files linked by pairs within Hamming distance ``--k`` form a
group (connected components: two members of a group may be farther apart than k). The groups are
printed, each file with its distance to the group's first file, or written as JSON with ``--json``.

Nothing is modified: files are only opened for reading, and only regular files are opened (never
blocking, at most ``--max-bytes`` read). Every file that is not used is reported on stderr, one line
each, and skipped: binary files (a NUL byte in the first 8 KiB), files that are not UTF-8, files over
``--max-bytes``, and, inside folders, what is not a regular file (FIFOs, sockets, devices, links to
them, broken links, links to folders, which are not followed). Empty (whitespace-only) files are
not grouped. Hidden files and folders (names starting with ".") are skipped inside folders unless
``--hidden``; a path named on the command line is always read. Names are shown escaped on one line
(:func:`~simhash_lab._files.show_name`) and written to JSON as valid UTF-8
(:func:`~simhash_lab._files.json_name`).

Exit status (as ``grep`` and ``diff`` use it):

* 0: no near-duplicates found;
* 1: near-duplicate groups found (and printed);
* 2: trouble: some input could not be read: a PATH named on the command line is missing or is not
  a regular file or folder (a FIFO, a link to a device, a broken link), or a file or folder could
  not be read (permission denied, I/O error); the groups among the files that were read are still
  printed.

A progress bar (tqdm) goes to stderr when stderr is a terminal and the run takes over a second
(``--progress auto``, the default); ``--progress always`` shows it anyway, ``never`` hides it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from . import _files
from ._files import DEFAULT_MAX_BYTES, NotRegularFile, NotText, TooLarge, json_name, reason, walk

__all__ = ["DedupResult", "dedup", "iter_files", "read_text"]

_BATCH = 256
EXIT_NONE, EXIT_FOUND, EXIT_TROUBLE = 0, 1, 2

# A file that is not text, or too large (reported, does not change the exit status)
Skip = (NotText, TooLarge)


def iter_files(
    paths: Iterable[str], hidden: bool = False, errors: list | None = None, skipped: list | None = None
) -> Iterator[str]:
    """Regular files under ``paths``, each once (by real path), folders walked in sorted order.

    The walk is :func:`simhash_lab._files.walk`. What is not a regular file is appended, as
    ``(path, reason)``, to ``errors`` when it was named in ``paths`` or the system refused it
    (missing, permission denied, a folder that cannot be listed), and to ``skipped`` when it was
    found inside a folder (a FIFO, socket or device, a link to one, a broken link, a link to a
    folder, which is not followed).
    """
    seen: set[str] = set()
    for entry in walk(paths, hidden=hidden):
        if entry.kind != "file":
            into = errors if entry.named or entry.kind == "unreadable" else skipped
            if into is not None:
                into.append((entry.path, entry.problem))
            continue
        real = os.path.realpath(entry.path)
        if real not in seen:
            seen.add(real)
            yield entry.path


def read_text(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """The text of ``path`` as every simhash-lab command reads it: :func:`simhash_lab._files.read_text`
    (a regular file, never blocking, at most ``max_bytes``, UTF-8 with a leading BOM dropped).

    Raises
    ------
    NotText, TooLarge
        Binary (a NUL byte in the first 8 KiB), not UTF-8, or larger than ``max_bytes``: skipped.
    NotRegularFile
        It stopped being a regular file since the walk.
    OSError
        The file could not be read.
    """
    return _files.read_text(path, max_bytes, limit_name="--max-bytes")


@dataclass
class DedupResult:
    """What :func:`dedup` found.

    Attributes
    ----------
    paths : list of str
        The files fingerprinted, in the order read (ids of ``fingerprints`` and ``groups``).
    fingerprints : ndarray, shape (n,), uint64
    groups : list of list of int
        Near-duplicate groups (ids into ``paths``), each sorted, groups sorted by first id.
    pairs : ndarray, shape (m, 3), int64
        ``SimhashIndex.pairs()``: rows ``(i, j, d)``.
    skipped : list of (path, reason)
        Not used: not text, too large, or (inside a folder) not a regular file.
    errors : list of (path, reason)
        Could not be read: missing or not-regular paths named in ``paths``, files and folders the
        system refused.
    empty : list of str
        Files with no text (not grouped).
    """

    k: int
    bits: int
    preset: str
    paths: list = field(default_factory=list)
    fingerprints: np.ndarray = field(default_factory=lambda: np.empty(0, np.uint64))
    groups: list = field(default_factory=list)
    pairs: np.ndarray = field(default_factory=lambda: np.empty((0, 3), np.int64))
    skipped: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    empty: list = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        if self.errors:
            return EXIT_TROUBLE
        return EXIT_FOUND if self.groups else EXIT_NONE

    def group_members(self, g: Sequence[int]) -> list[tuple[str, int, int]]:
        """``(path, fingerprint, distance to the group's first file)`` for each member."""
        first = int(self.fingerprints[g[0]])
        return [
            (self.paths[i], int(self.fingerprints[i]), (int(self.fingerprints[i]) ^ first).bit_count())
            for i in g
        ]

    def to_json(self) -> dict:
        width = (self.bits + 3) // 4
        return {
            "k": self.k,
            "bits": self.bits,
            "preset": self.preset,
            "files": len(self.paths),
            "groups": [
                [
                    {"path": json_name(p), "fingerprint": f"{fp:0{width}x}", "distance": d}
                    for p, fp, d in self.group_members(g)
                ]
                for g in self.groups
            ],
            "skipped": [{"path": json_name(p), "reason": r} for p, r in self.skipped],
            "errors": [{"path": json_name(p), "reason": r} for p, r in self.errors],
            "empty": [json_name(p) for p in self.empty],
        }


def dedup(
    paths: Sequence[str],
    k: int = 3,
    preset: str = "default",
    hidden: bool = False,
    max_bytes: int = DEFAULT_MAX_BYTES,
    progress: str = "never",
    report=None,
) -> DedupResult:
    """Fingerprint every text file under ``paths`` and group the near-duplicates within ``k``.

    Parameters
    ----------
    progress : {"auto", "always", "never"}
        A tqdm bar on stderr: "auto" shows it when stderr is a terminal, after one second.
    report : callable, optional
        Called as ``report(path, reason)`` for each file skipped or failing, as it happens.

    Returns
    -------
    DedupResult
    """
    from ._validate import check_int, check_option
    from .index import SimhashIndex
    from .presets import ALL

    check_option("preset", preset, sorted(ALL))
    check_option("progress", progress, ["auto", "always", "never"])
    check_int("max_bytes", max_bytes, 0, 1 << 62)
    hasher = ALL[preset]
    index = SimhashIndex(k=k, bits=hasher.bits)  # validates k first
    res = DedupResult(k=index.k, bits=hasher.bits, preset=preset)
    report = report or (lambda path, reason: None)
    files = list(iter_files(paths, hidden=hidden, errors=res.errors, skipped=res.skipped))
    for p, r in res.errors + res.skipped:
        report(p, r)
    bar = _progress_bar(len(files), progress)

    def say(path, reason):
        if bar is None:
            report(path, reason)
        else:
            with bar.external_write_mode(file=sys.stderr):
                report(path, reason)

    fps: list[np.ndarray] = []
    batch_paths: list[str] = []
    batch_texts: list[str] = []

    def flush():
        if batch_texts:
            fps.append(hasher.fingerprints(batch_texts))
            res.paths.extend(batch_paths)
            batch_paths.clear()
            batch_texts.clear()

    try:
        for path in files:
            try:
                text = read_text(path, max_bytes)
            except Skip as e:
                res.skipped.append((path, reason(e)))
                say(path, reason(e))
            except (OSError, NotRegularFile) as e:
                res.errors.append((path, reason(e)))
                say(path, reason(e))
            else:
                if text.strip():
                    batch_paths.append(path)
                    batch_texts.append(text)
                    if len(batch_texts) >= _BATCH:
                        flush()
                else:
                    res.empty.append(path)
            if bar is not None:
                bar.update(1)
        flush()
    finally:
        if bar is not None:
            bar.close()
    res.fingerprints = np.concatenate(fps) if fps else np.empty(0, np.uint64)
    index.add_many(res.fingerprints)
    res.pairs = index.pairs()
    res.groups = index.groups()
    return res


def _progress_bar(total: int, mode: str):
    if mode == "never" or total == 0:
        return None
    isatty = hasattr(sys.stderr, "isatty") and sys.stderr.isatty()
    if mode == "auto" and not isatty:
        return None
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="file",
        file=sys.stderr,
        delay=0 if mode == "always" else 1.0,
        desc="fingerprinting",
        leave=False,
        dynamic_ncols=True,
    )
