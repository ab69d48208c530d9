"""A dataset in parts: a folder of Parquet, JSONL or CSV files (or several such files) read as one
dataset, the parts in order, their rows numbered across them, as
:func:`simhash_lab.distributed.dedup_dataset` reads its partitions: ``simhash-lab dedup data/parts/``,
``dedup_table("data/parts/")``.

:func:`find_parts` lists a folder's parts as ``dedup_dataset`` lists a folder's partitions: every
file under it (subfolders too) whose name ends as a dataset format's (:data:`~.source.FORMATS`),
sorted by path, names starting with ``.`` or ``_`` left out with what is under them (pyarrow's
rule: ``_SUCCESS``, ``_metadata``, ``.part-0.crc``). :class:`PartsSource` reads them; the kept rows
of each part are written, in its own format, to a file of the same name in the output folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .._files import show_name
from .source import FORMATS, DatasetError, FileSource, Source, detect_format

__all__ = ["PartsSource", "find_parts", "split_folder"]

#: every dataset format's file name endings
PART_ENDINGS = tuple(e for ends in FORMATS.values() for e in ends)


def _ignored(rel: str) -> bool:
    return any(part.startswith((".", "_")) for part in rel.replace("\\", "/").split("/") if part)


def split_folder(folder: str) -> tuple[list[str], list[str]]:
    """``(parts, others)``: the files under ``folder`` whose names end as a dataset format's, and
    the other files, each sorted by path; names starting with ``.`` or ``_`` (and what is under
    them) are in neither.

    Parameters
    ----------
    folder : str

    Returns
    -------
    tuple of (list of str, list of str)
    """
    parts, others = [], []
    for top, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not _ignored(d)]
        for name in files:
            path = os.path.join(top, name)
            if _ignored(os.path.relpath(path, folder)):
                continue
            (parts if name.lower().endswith(PART_ENDINGS) else others).append(path)
    return sorted(parts), sorted(others)


def find_parts(folder: str, format: str | None = None) -> list[str]:
    """The parts of a folder (:func:`split_folder`), sorted by path; with ``format``, those of that
    format only.

    Parameters
    ----------
    folder : str
    format : str, optional
        ``"jsonl"``, ``"csv"`` or ``"parquet"``.

    Returns
    -------
    list of str

    Raises
    ------
    DatasetError
        The folder holds no part (of that format).
    """
    parts, _ = split_folder(folder)
    if format is not None:
        parts = [p for p in parts if detect_format(p) == format]
    if not parts:
        ends = ", ".join(FORMATS[format] if format else PART_ENDINGS)
        what = f"{format} file ({ends})" if format else f"dataset file ({ends})"
        raise DatasetError(f"{show_name(folder)}: holds no {what} to read")
    return parts


class PartsSource(Source):
    """Several dataset files read as one dataset, in order: every row of the first, then of the
    next...; without an id column the ids are the row numbers across all of them (as
    ``dedup_dataset`` numbers them).

    Parameters
    ----------
    parts : sequence of FileSource
        The parts, in order (each of its own format).
    name : str
        How messages name the whole (the folder).
    root : str, optional
        The folder the output's names are made from (each part's path relative to it); by default
        the parts' common folder.

    Attributes
    ----------
    sizes : list of int
        Rows of each part, once the first read has gone through them.
    """

    format = "parts"

    def __init__(self, parts: Sequence[FileSource], name: str, root: str | None = None) -> None:
        if not parts:
            raise DatasetError(f"{name}: no part to read")
        self.parts = list(parts)
        self.name = name
        self.path = None  # no one file: the inputs are the parts' (``inputs``)
        self.fs = None
        if root is None:
            root = os.path.commonpath([os.path.dirname(os.path.abspath(p.path)) for p in parts])
        self.root = root
        self.priority_column = self.parts[0].priority_column
        self.id_column = self.parts[0].id_column
        self.sizes: list[int] = []
        self._at = 0

    @property
    def inputs(self) -> list[str]:
        """The parts' paths (what an output may not name)."""
        return [p.path for p in self.parts]

    def size_hint(self) -> tuple[int | None, str | None]:
        """See :meth:`Source.size_hint`: rows, their total unknown (the parts' formats count differently)."""
        return None, None

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """See :meth:`Source.chunks`: each part's chunks in turn (a chunk never spans two parts)."""
        sizes = []
        start = 0
        for part in self.parts:
            n = 0
            for texts, ids, prio in part.chunks(rows):
                if self.id_column is None:
                    ids = list(range(start + n, start + n + len(texts)))
                n += len(texts)
                yield texts, ids, prio
            sizes.append(n)
            start += n
        self.sizes = sizes

    def _offsets(self) -> np.ndarray:
        if len(self.sizes) != len(self.parts):
            raise DatasetError(f"{self.name}: the parts are read again before they were read once")
        return np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`: each part's wanted rows from that part."""
        rows = np.asarray(rows, np.int64)
        off = self._offsets()
        which = np.searchsorted(off, rows, side="right") - 1
        for f in np.unique(which).tolist():
            for local, texts in self.parts[f].select(rows[which == f] - off[f], chunk):
                yield local + off[f], texts

    def output_files(self, folder: str) -> list[str]:
        """Where each part's kept rows go: the file of the same name (relative to :attr:`root`) in
        ``folder``."""
        return [os.path.join(folder, os.path.relpath(p.path, self.root)) for p in self.parts]

    def check_output(self, path: str) -> None:
        """See :meth:`Source.check_output`: the output of parts is a folder (not a file, nor named
        as one of the formats), none of whose files would be a part."""
        if detect_format(path) is not None or (os.path.exists(path) and not os.path.isdir(path)):
            raise DatasetError(
                f"{show_name(path)}: the kept rows of a dataset in parts are written to a folder, each "
                "part's to a file of its name: name a folder"
            )
        mine = {os.path.realpath(p) for p in self.inputs}
        for out in self.output_files(path):
            if os.path.realpath(out) in mine:
                raise DatasetError(f"{show_name(out)}: the output would overwrite the input")

    def write_kept(
        self,
        path: str,
        keep: np.ndarray,
        progress: Callable[[int], object] | None = None,
        edits: dict | None = None,
    ) -> int:
        """See :meth:`Source.write_kept`: each part's kept rows to its file in the folder ``path``
        (made when missing), in its own format; ``edits`` (row: new text) across all parts."""
        off = self._offsets()
        n = 0
        for f, (part, out) in enumerate(zip(self.parts, self.output_files(path))):
            os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
            lo, hi = int(off[f]), int(off[f + 1])
            mine = None
            if edits:
                mine = {r - lo: t for r, t in edits.items() if lo <= r < hi}
            args = (out, keep[lo:hi], progress) + ((mine,) if mine else ())
            n += part.write_kept(*args)
        return n

    def close(self) -> None:
        """See :meth:`Source.close`."""
        for part in self.parts:
            part.close()
