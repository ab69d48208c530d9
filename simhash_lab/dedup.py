"""``simhash-lab dedup PATH...``: find near-duplicate text files.

Every regular file under the paths (folders are walked recursively, in sorted order) is read as
UTF-8, fingerprinted (64 bits, the ``--preset`` Simhasher), and put in a
:class:`~simhash_lab.SimhashIndex`; files linked by pairs within Hamming distance ``--k`` form a
group (connected components: two members of a group may be farther apart than k). The groups are
printed, each file with its distance to the group's first file, or written as JSON with ``--json``.

Nothing is modified: files are only opened for reading. Files that cannot be used are reported on
stderr and skipped: binary files (a NUL byte in the first 8 KiB), files that are not UTF-8, files
over ``--max-bytes``. Empty (whitespace-only) files are not grouped. Hidden files and folders (names
starting with ".") are skipped inside folders unless ``--hidden``; a path named on the command line
is always read.

Exit status (as ``grep`` and ``diff`` use it):

* 0: no near-duplicates found;
* 1: near-duplicate groups found (and printed);
* 2: trouble: a PATH does not exist or a file could not be read (permission denied, I/O error); the
  groups among the files that were read are still printed.

A progress bar (tqdm) goes to stderr when stderr is a terminal and the run takes over a second
(``--progress auto``, the default); ``--progress always`` shows it anyway, ``never`` hides it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["DedupResult", "dedup", "iter_files", "read_text"]

_SNIFF = 8192
_BATCH = 256
EXIT_NONE, EXIT_FOUND, EXIT_TROUBLE = 0, 1, 2


class Skip(Exception):
    """A file that is not text (reported, does not change the exit status)."""


def iter_files(paths: Iterable[str], hidden: bool = False, errors: list | None = None) -> Iterator[str]:
    """Regular files under ``paths``, each once (by real path), folders walked in sorted order.

    A path that does not exist is appended to ``errors`` as ``(path, reason)``.
    """
    seen: set[str] = set()
    for top in paths:
        if not os.path.lexists(top):
            if errors is not None:
                errors.append((top, "No such file or directory"))
            continue
        if not os.path.isdir(top):
            cands: Iterable[str] = [top]
        else:

            def walk(top=top):
                for root, dirs, files in os.walk(
                    top,
                    onerror=lambda e: (
                        errors is not None and errors.append((e.filename or top, e.strerror or str(e)))
                    ),
                ):
                    dirs[:] = sorted(d for d in dirs if hidden or not d.startswith("."))
                    for f in sorted(files):
                        if hidden or not f.startswith("."):
                            yield os.path.join(root, f)

            cands = walk()
        for path in cands:
            if not os.path.isfile(path):  # FIFOs, sockets, devices, broken links
                if os.path.islink(path) and errors is not None and path == top:
                    errors.append((path, "broken symbolic link"))
                continue
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                yield path


def read_text(path: str, max_bytes: int = 64 << 20) -> str:
    """The UTF-8 text of ``path`` (a leading BOM dropped).

    Raises
    ------
    Skip
        Binary (a NUL byte in the first 8 KiB), not UTF-8, or larger than ``max_bytes``.
    OSError
        The file could not be read.
    """
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > max_bytes:
            raise Skip(f"larger than --max-bytes ({size:,} > {max_bytes:,} bytes)")
        raw = f.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise Skip(f"larger than --max-bytes ({max_bytes:,} bytes)")
    if b"\0" in raw[:_SNIFF]:
        raise Skip("binary (contains NUL bytes)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Skip(f"not UTF-8 text (byte {e.start})") from None


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
        Not text; skipped.
    errors : list of (path, reason)
        Missing paths and unreadable files.
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
                    {"path": p, "fingerprint": f"{fp:0{width}x}", "distance": d}
                    for p, fp, d in self.group_members(g)
                ]
                for g in self.groups
            ],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "errors": [{"path": p, "reason": r} for p, r in self.errors],
            "empty": list(self.empty),
        }


def dedup(
    paths: Sequence[str],
    k: int = 3,
    preset: str = "default",
    hidden: bool = False,
    max_bytes: int = 64 << 20,
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
    from ._validate import check_option
    from .index import SimhashIndex
    from .presets import ALL

    check_option("preset", preset, sorted(ALL))
    check_option("progress", progress, ["auto", "always", "never"])
    hasher = ALL[preset]
    index = SimhashIndex(k=k, bits=hasher.bits)  # validates k first
    res = DedupResult(k=index.k, bits=hasher.bits, preset=preset)
    report = report or (lambda path, reason: None)
    files = list(iter_files(paths, hidden=hidden, errors=res.errors))
    for p, r in res.errors:
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
                res.skipped.append((path, str(e)))
                say(path, str(e))
            except OSError as e:
                reason = e.strerror or str(e)
                res.errors.append((path, reason))
                say(path, reason)
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
