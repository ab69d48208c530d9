"""CSV datasets (``.csv``; ``.tsv`` with tabs): a header line names the columns; the standard
:mod:`csv` module reads each record (quoted fields may hold newlines) and the kept records are
written back as the exact text they had, after the header.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import IO

import numpy as np

from .._write import atomic_write
from .source import DatasetError, FileSource

__all__ = ["CsvSource"]


class CsvSource(FileSource):
    """A header line, then one record per row (``.tsv``: tab-separated); kept records are written
    back as the exact text they had.

    Parameters
    ----------
    path : str
        The file (``.tsv``: tab-separated; anything else: commas).
    column : str
        The header's name of the text column.
    id_column, priority_column : str or None
        The header's names of the id and priority columns (None: row numbers as ids, no priorities).
    max_row_bytes : int
        The largest record read, in bytes; a longer one is a :class:`DatasetError`.
    name : str, optional
        The name messages give the file (by default its shown path).
    fs : fsspec filesystem, optional
        Where the file is (default: this machine's files).

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    format = "csv"

    @property
    def delimiter(self) -> str:
        """A tab for a ``.tsv`` file, else a comma."""
        return "\t" if self.path.lower().endswith(".tsv") else ","

    def _records(self):
        """``(row, line number, fields, raw text)`` of every record, after reading the header."""
        limit = self.max_row_bytes
        csv.field_size_limit(max(limit, 131072))
        self.bytes_read = self._shown = 0
        with self._open() as fb:
            f = io.TextIOWrapper(fb, encoding="utf-8-sig", newline="")
            pending: list[str] = []
            size = [0]

            def lines():
                while True:
                    line = f.readline(limit + 1)
                    if not line:
                        return
                    if not pending:
                        size[0] = 0
                    size[0] += len(line)
                    self.bytes_read += len(line)
                    if size[0] > limit:
                        raise self._too_large(f"line {reader.line_num + 1}")
                    pending.append(line)
                    yield line

            reader = csv.reader(lines(), delimiter=self.delimiter, strict=True)
            try:
                try:
                    header = next(reader)
                except StopIteration:
                    raise DatasetError(f"{self.name}: empty: no header line naming the columns") from None
                self.header_raw = "".join(pending)
                pending.clear()
                self.header = header
                for fields in reader:
                    raw = "".join(pending)
                    pending.clear()
                    if not fields and not raw.strip():
                        continue
                    yield reader.line_num, fields, raw
            except UnicodeDecodeError as e:
                raise DatasetError(f"{self.name}: not UTF-8 ({e.reason})") from None
            except csv.Error as e:
                raise DatasetError(f"{self.name}: line {reader.line_num}: not CSV ({e})") from None

    def _columns(self):
        for what, col in (("", self.column), ("id ", self.id_column), ("priority ", self.priority_column)):
            at = [i + 1 for i, h in enumerate(self.header) if h == col]
            if len(at) > 1:
                raise DatasetError(
                    f"{self.name}: the header names the {what}column {col!r} {len(at)} times (columns "
                    f"{', '.join(map(str, at))}): which one is meant is ambiguous; rename the others"
                )
        if self.column not in self.header:
            names = ", ".join(map(repr, self.header[:12]))
            raise DatasetError(f"{self.name}: no column {self.column!r} (the header has {names})")
        ti = self.header.index(self.column)
        ii = pi = None
        if self.id_column is not None:
            if self.id_column not in self.header:
                raise DatasetError(f"{self.name}: no id column {self.id_column!r}")
            ii = self.header.index(self.id_column)
        if self.priority_column is not None:
            if self.priority_column not in self.header:
                raise DatasetError(f"{self.name}: no priority column {self.priority_column!r}")
            pi = self.header.index(self.priority_column)
        return ti, ii, pi

    def _rows(self):
        cols = None
        row = 0
        for lineno, fields, raw in self._records():
            if cols is None:
                cols = self._columns()
            if len(fields) != len(self.header):
                raise DatasetError(
                    f"{self.name}: line {lineno}: {len(fields)} fields, the header has {len(self.header)}"
                )
            prio = None if cols[2] is None else self._priority(fields[cols[2]], f"line {lineno}")
            id_ = self._check_id(fields[cols[1]], f"line {lineno}") if cols[1] is not None else row
            yield row, fields[cols[0]], id_, prio, raw
            row += 1
        if cols is None:
            self._columns()  # a header without rows: still check the columns it names

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """See :meth:`Source.chunks` (ids from the id column are the fields' text)."""
        texts, ids, prio = [], [], []
        want_prio = self.priority_column is not None
        for _, text, id_, p, _ in self._rows():
            texts.append(text)
            ids.append(id_)
            prio.append(p)
            if len(texts) >= rows:
                yield texts, ids, (prio if want_prio else None)
                texts, ids, prio = [], [], []
        if texts:
            yield texts, ids, (prio if want_prio else None)

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`."""
        return self._pick(rows, chunk, ((row, lambda text=text: text) for row, text, *_ in self._rows()))

    def write_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None = None) -> int:
        """See :meth:`Source.write_kept`: the header line, then each kept record as the exact text it had."""

        def write(out: IO[str]) -> int:
            n = 0
            header_done = False
            for row, _, _, _, raw in self._rows():
                if not header_done:
                    out.write(self.header_raw)
                    header_done = True
                if keep[row]:
                    out.write(raw)  # as it was, its line ending (or, on the last line, none) too
                    n += 1
                if progress is not None:
                    progress(1)
            if not header_done:
                out.write(self.header_raw)
            return n

        return atomic_write(path, "w", write, encoding="utf-8", newline="")
