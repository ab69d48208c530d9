"""Datasets in and out of :func:`simhash_lab.dedup_table`: JSONL, CSV and Parquet, read in chunks.

A dataset is read several times, never held whole: once to fingerprint every row, then only the
rows that need their text again (the calibration sample and the candidate pairs, for exact
Jaccard), then once more to write the rows that are kept. Memory is a few bytes per row (the
fingerprint, the id) plus one chunk of text at a time, whatever the file's size.

* **JSONL** (``.jsonl``, ``.ndjson``): one JSON object per line (blank lines are passed over);
  read in blocks, parsed by orjson a block at a time when it is installed (the standard
  :mod:`json` for a line orjson refuses); kept rows are written back byte for byte, as they were.
* **CSV** (``.csv``; ``.tsv`` with tabs): a header line names the columns; the standard :mod:`csv`
  module reads each record (quoted fields may hold newlines) and the kept records are written
  back as the exact text they had, after the header.
* **Parquet** (``.parquet``, ``.pq``): read in record batches, only the columns needed, by pyarrow
  (``pip install 'simhash-lab[datasets]'``); kept rows are written with the input's schema.

One module a format: :mod:`.jsonl` (and stdin), :mod:`.csv`, :mod:`.parquet`, :mod:`.arrow` (a
table in memory), :mod:`.texts` (a list of str), :mod:`.files` (the text files under folders); what
they share is in :mod:`.source`. :func:`open_dataset` picks one. Every file is opened as
:mod:`simhash_lab._files` opens files (regular files only, never blocking), or through fsspec. A
file that changes between two reads is refused. Every problem with the input is a
:class:`DatasetError` whose message is one line naming the file and, where there is one, the line,
row and column.

>>> import json, os, tempfile
>>> d = tempfile.mkdtemp()
>>> path = os.path.join(d, "docs.jsonl")
>>> with open(path, "w") as f:
...     for i, t in enumerate(["a b c d", "x y", "a b c d"]):
...         print(json.dumps({"id": f"doc{i}", "text": t}), file=f)
>>> src = open_dataset(path, column="text", id_column="id")
>>> [(texts, ids) for texts, ids, _ in src.chunks(2)]
[(['a b c d', 'x y'], ['doc0', 'doc1']), (['a b c d'], ['doc2'])]
"""

from __future__ import annotations

import os
from typing import Any

from .._files import show_name
from ..settings import DEFAULT_MAX_ROW_BYTES
from .arrow import ArrowSource, as_arrow
from .csv import CsvSource
from .files import FilesSource, iter_files, read_text
from .jsonl import JsonlSource, StdinSource
from .parquet import ParquetSource
from .source import FORMATS, DatasetError, FileSource, Source, detect_format, prefetch
from .texts import TextsSource

__all__ = [
    "FORMATS",
    "ArrowSource",
    "CsvSource",
    "DatasetError",
    "FileSource",
    "FilesSource",
    "JsonlSource",
    "ParquetSource",
    "Source",
    "StdinSource",
    "TextsSource",
    "detect_format",
    "iter_files",
    "open_dataset",
    "prefetch",
    "read_text",
]


def open_dataset(
    path: str | os.PathLike[str] | Any,
    column: str = "text",
    id_column: str | None = None,
    format: str | None = None,
    priority_column: str | None = None,
    max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
    fs: Any = None,
) -> Source:
    """The :class:`Source` for a JSONL, CSV or Parquet file (``format`` from its name when None),
    ``"-"`` (JSONL on stdin), or a table in memory (pandas DataFrame, pyarrow Table,
    ``datasets.Dataset``).

    Parameters
    ----------
    path : str, os.PathLike or table
        A file name, ``"-"`` for JSONL on standard input, or a pandas DataFrame, pyarrow Table or
        ``datasets.Dataset`` (polars too, through its ``to_arrow``).
    column : str
        The text column (JSON key, CSV header name, table column).
    id_column : str, optional
        The id column; by default ids are row numbers from 0.
    format : str, optional
        ``"jsonl"``, ``"csv"`` or ``"parquet"``; by default from the file name's ending.
    priority_column : str, optional
        A column of finite numbers: the higher, the likelier the row is kept.
    max_row_bytes : int
        The largest row read, in bytes; a larger one is a :class:`DatasetError`.
    fs : fsspec filesystem, optional
        Where the file is (``path`` a path in it), for a file another machine stores
        (:func:`simhash_lab.distributed.dedup_dataset`'s partitions); default this machine's files.

    Returns
    -------
    Source
        A :class:`JsonlSource`, :class:`CsvSource`, :class:`ParquetSource`, :class:`StdinSource`
        or :class:`ArrowSource`.

    Raises
    ------
    TypeError
        ``path`` is neither a file name nor a table, or a column name is not a non-empty str
        (files).
    DatasetError
        The format cannot be told from the name, or is not one of ``FORMATS``; standard input with
        a format other than JSONL; Parquet or a table without pyarrow; a table without one of the
        columns, or with one named twice.
    """
    table = None if isinstance(path, (str, bytes, os.PathLike)) else as_arrow(path)
    if table is not None:
        return ArrowSource(
            table, column, id_column, priority_column, max_row_bytes, name=f"<{type(path).__name__}>"
        )
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"data must be a file name, '-', a pandas DataFrame, a pyarrow Table or a datasets.Dataset, "
            f"got {type(path).__name__}"
        )
    path = os.fspath(path)
    if path == "-":
        if format not in (None, "jsonl"):
            raise DatasetError(f"<stdin>: standard input is read as JSONL, not {format}")
        return StdinSource(column, id_column, priority_column, max_row_bytes)
    fmt = format or detect_format(path)
    if fmt is None:
        raise DatasetError(
            f"{show_name(path)}: cannot tell the format from the name: give --format "
            f"(one of {', '.join(FORMATS)}) or name it {', '.join(e for v in FORMATS.values() for e in v)}"
        )
    if fmt not in FORMATS:
        raise DatasetError(f"The value for `format` must be one of {list(FORMATS)}, but {fmt!r} was passed.")
    cls = {"jsonl": JsonlSource, "csv": CsvSource, "parquet": ParquetSource}[fmt]
    return cls(path, column, id_column, priority_column, max_row_bytes, fs=fs)
