"""A table in memory as a dataset: a pyarrow Table, a pandas DataFrame, a polars frame or a Hugging
Face ``datasets.Dataset`` (as Arrow): :class:`ArrowSource`. The same rows as a file of them give the
same decisions; the kept rows are taken with the keep mask, never written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ..settings import DEFAULT_MAX_ROW_BYTES
from .parquet import arrow_texts
from .source import DatasetError, Source, check_priority, need_pyarrow

__all__ = ["ArrowSource", "as_arrow"]


class ArrowSource(Source):
    """A table in memory: a pyarrow Table, a pandas DataFrame or a Hugging Face ``datasets.Dataset``
    (as Arrow); the same rows as a file of them give the same decisions.

    Parameters
    ----------
    table : pyarrow.Table
        The rows (:func:`open_dataset` converts a DataFrame or a ``datasets.Dataset``).
    column : str
        The text column (string, large string or dictionary-encoded text).
    id_column, priority_column : str or None
        The id and priority columns (None: row numbers as ids, no priorities).
    max_row_bytes : int
        The largest text, in UTF-8 bytes; a longer one is a :class:`DatasetError` when read.
    name : str
        The name messages give the table.

    Raises
    ------
    DatasetError
        A column that is missing or named twice, or a text column that is not text.
    """

    format = "table"

    def __init__(
        self,
        table: Any,
        column: str,
        id_column: str | None = None,
        priority_column: str | None = None,
        max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
        name: str = "<table>",
    ) -> None:
        self.table = table
        self.name = name
        self.column, self.id_column, self.priority_column = column, id_column, priority_column
        self.max_row_bytes = max_row_bytes
        self.total = table.num_rows
        import pyarrow as pa

        names = table.column_names
        for what, col in (("", column), ("id ", id_column), ("priority ", priority_column)):
            if col is None:
                continue
            if names.count(col) > 1:
                raise DatasetError(f"{name}: {names.count(col)} columns are named {col!r}: ambiguous")
            if col not in names:
                raise DatasetError(
                    f"{name}: no {what}column {col!r} (columns: {', '.join(map(repr, names[:12]))})"
                )
        t = table.schema.field(column).type
        if pa.types.is_dictionary(t):
            t = t.value_type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view"):
            raise DatasetError(f"{name}: column {column!r} is {t}, not text")

    def _col(self, name: str, lo: int, hi: int) -> Any:
        return self.table.column(name).slice(lo, hi - lo).combine_chunks()

    def utf8_chunks(self, rows: int) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.utf8_chunks`: the texts of the table's string array in place."""
        return self.chunks(rows, utf8=True)

    def chunks(self, rows: int, utf8: bool = False) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.chunks` (``utf8``: :meth:`utf8_chunks`)."""
        for lo in range(0, self.total, rows):
            hi = min(lo + rows, self.total)
            texts = arrow_texts(
                self._col(self.column, lo, hi), lo, self.name, self.column, self.max_row_bytes, utf8
            )
            ids = (
                list(range(lo, hi))
                if self.id_column is None
                else self._col(self.id_column, lo, hi).to_pylist()
            )
            prio = None
            if self.priority_column is not None:
                vals = self._col(self.priority_column, lo, hi).to_pylist()
                prio = [
                    check_priority(v, self.name, f"row {lo + i}", self.priority_column)
                    for i, v in enumerate(vals)
                ]
            yield texts, ids, prio

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select` (``take`` on the text column)."""
        import pyarrow as pa

        col = self.table.column(self.column)
        for lo in range(0, rows.size, chunk):
            r = rows[lo : lo + chunk]
            part = col.take(pa.array(r)).combine_chunks()
            yield r, arrow_texts(part, 0, self.name, self.column, self.max_row_bytes)

    def write_kept(
        self,
        path: str,
        keep: np.ndarray,
        progress: Callable[[int], object] | None = None,
        edits: dict | None = None,
    ) -> int:
        """Refused (see :meth:`Source.write_kept`): a table in memory is filtered by the keep mask."""
        raise DatasetError(
            f"{self.name}: the kept rows of a table in memory are not written to a file: take them "
            "with the keep mask (df[res.keep], table.filter(res.keep))"
        )

    def check_output(self, path: str) -> None:
        """See :meth:`Source.check_output`: any output is refused, as :meth:`write_kept` refuses it."""
        self.write_kept(path, None)


def as_arrow(data: Any) -> Any:
    """A pyarrow Table for a DataFrame, a Table or a ``datasets.Dataset``; None for anything else.

    Parameters
    ----------
    data : object
        What :func:`~simhash_lab.datasets.open_dataset` was given.

    Returns
    -------
    pyarrow.Table or None

    Raises
    ------
    TypeError
        A ``datasets`` object of several splits, or a stream (read twice here).
    """
    mod = type(data).__module__.split(".")[0]
    if mod not in ("pandas", "pyarrow", "datasets", "polars"):
        return None
    pa = need_pyarrow()
    if isinstance(data, pa.Table):
        return data
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data])
    if mod == "pandas":
        return pa.Table.from_pandas(data, preserve_index=False)
    if mod == "datasets":
        kind = type(data).__name__
        if isinstance(data, dict):  # DatasetDict, IterableDatasetDict: several splits
            first = next(iter(data), "train")
            raise TypeError(f"data is a {kind} of splits {list(data)}: pass one split, e.g. data[{first!r}]")
        if "Iterable" in kind:
            raise TypeError(
                f"data is an {kind} (a stream; its rows are read twice here): make it a Dataset "
                "first, e.g. datasets.Dataset.from_list(list(stream))"
            )
        inner = getattr(data, "data", None)
        table = getattr(inner, "table", inner)
        if isinstance(table, pa.Table):
            if getattr(data, "_indices", None) is not None:  # a selection or shuffle: its rows, in order
                table = data.with_format("arrow")[:]
            return table
    if hasattr(data, "to_arrow"):
        return data.to_arrow()
    return None
