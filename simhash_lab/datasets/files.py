"""The text files under folders as a dataset: a document per file that reads as text, its path its
id (:func:`simhash_lab.dedup.dedup_files`, ``simhash-lab dedup docs/``).

:func:`iter_files` walks the paths (:func:`simhash_lab._files.walk`), :func:`read_text` reads one
file as every simhash-lab command reads it, and :class:`FilesSource` reads them in chunks: a file
that is not text or too large is *skipped*, one that cannot be read is an *error*; both are
listed (``skipped``, ``errors``) and told as they happen, never a reason to stop.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from .. import _files
from .._files import DEFAULT_MAX_BYTES, NotRegularFile, NotText, TooLarge, reason, walk
from .source import DatasetError, Source

__all__ = ["BATCH", "FilesSource", "iter_files", "read_text"]

BATCH = 256  # files per chunk

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

    Parameters
    ----------
    paths : iterable of str
        Files and folders.
    hidden : bool
        Also walk hidden files and folders (names starting with ``.``).
    errors, skipped : list, optional
        Where to append ``(path, reason)`` for what is not read.

    Yields
    ------
    str
        The path of each regular file.
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

    Parameters
    ----------
    path : str
    max_bytes : int
        The largest file read.

    Returns
    -------
    str

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


class FilesSource(Source):
    """The text files ``files``: a document per file that reads as text, its path its id.

    Parameters
    ----------
    files : list of str
        The files (:func:`iter_files`), in order.
    max_bytes : int
        The largest file read; a larger one is skipped.
    say : callable, optional
        Called as ``say(path, reason)`` for each file skipped or failing, as it happens.

    Attributes
    ----------
    ids : list of str
        The files read as text, in order: row ``i``'s path is ``ids[i]``.
    skipped, errors : list of (path, reason)
        The files skipped (not text, too large) and those that could not be read.
    """

    format = "files"
    name = "files"

    def __init__(
        self, files: list[str], max_bytes: int, say: Callable[[str, str], object] | None = None
    ) -> None:
        self.files = files
        self.max_bytes = max_bytes
        self.say = say or (lambda path, why: None)
        self.total = len(files)
        self.ids: list[str] = []
        self.skipped: list[tuple[str, str]] = []
        self.errors: list[tuple[str, str]] = []

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, None]]:
        """See :meth:`Source.chunks`: at most ``min(rows, BATCH)`` files a chunk."""
        texts, ids = [], []
        for path in self.files:
            try:
                text = read_text(path, self.max_bytes)
            except Skip as e:
                self.skipped.append((path, reason(e)))
                self.say(path, reason(e))
                continue
            except (OSError, NotRegularFile) as e:
                self.errors.append((path, reason(e)))
                self.say(path, reason(e))
                continue
            texts.append(text)
            ids.append(path)
            self.ids.append(path)
            if len(texts) >= min(rows, BATCH):
                yield texts, ids, None
                texts, ids = [], []
        if texts:
            yield texts, ids, None

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`: each file read again (a DatasetError when it no longer can be)."""
        for s in range(0, rows.size, min(chunk, BATCH)):
            r = rows[s : s + min(chunk, BATCH)]
            texts = []
            for i in r.tolist():
                path = self.ids[i]
                try:
                    texts.append(read_text(path, self.max_bytes))
                except (OSError, _files.Refused) as e:
                    raise DatasetError(
                        f"{_files.show_name(path)}: could not be read again: {reason(e)}"
                    ) from None
            yield r, texts
