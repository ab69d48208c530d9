"""Parquet datasets (``.parquet``, ``.pq``): read in record batches of only the columns needed, by
pyarrow (``pip install 'simhash-lab[datasets]'``); kept rows written with the input's schema. A
row group that could only hold a row larger than ``max_row_bytes`` is refused from the file's
footer, before any of it is read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

import numpy as np

from .._write import atomic_write
from .source import DatasetError, FileSource, cut_text, need_pyarrow
from .utf8 import Utf8Texts

__all__ = ["ParquetSource", "arrow_texts", "in_place"]


def arrow_texts(
    col: Any, start: int, name: str, column: str, limit: int, utf8: bool = False
) -> Sequence[str]:
    """The texts of an Arrow text column (dictionary-encoded too), each at most ``limit`` bytes.

    Parameters
    ----------
    col : pyarrow.Array
        The column's values (string, large string, string view or dictionary-encoded text).
    start : int
        The row number of its first value (for the message).
    name, column : str
        The dataset's and the column's names (for the message).
    limit : int
        The most UTF-8 bytes a text may have (``max_row_bytes``).
    utf8 : bool
        Texts of a string or large string array as a :class:`~simhash_lab.datasets.utf8.Utf8Texts`
        of its buffers (:func:`in_place`), else (and for a string view) a list of str.

    Returns
    -------
    list of str, or Utf8Texts

    Raises
    ------
    DatasetError
        A null, or a text larger than ``limit``.
    """
    pa = need_pyarrow()
    import pyarrow.compute as pc

    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode() if hasattr(col, "dictionary_decode") else col.cast(col.type.value_type)
    if col.null_count:
        i = start + int(np.flatnonzero(np.asarray(col.is_null()))[0])
        raise DatasetError(f"{name}: row {i}: column {column!r} is null, not text")
    if len(col):
        lens = np.asarray(pc.binary_length(col))
        if int(lens.max()) > limit:
            i = start + int(np.argmax(lens > limit))
            raise DatasetError(
                f"{name}: row {i}: column {column!r} is larger than max_row_bytes (--max-row-bytes {limit})"
            )
    if utf8 and (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        return in_place(col)
    return col.to_pylist()


def in_place(col: Any) -> Utf8Texts:
    """The texts of a string or large string array without nulls (a slice too) as a
    :class:`~simhash_lab.datasets.utf8.Utf8Texts` of its own buffers: an ASCII value read where it
    is (its offsets give its bytes), the others made by ``to_pylist`` as before.

    Parameters
    ----------
    col : pyarrow.Array
        A string or large string array without nulls, at any offset (a slice).

    Returns
    -------
    Utf8Texts
        Its values, holding ``col`` (its buffers) while a row points into them.
    """
    import pyarrow as pa

    from ..kernels.strings import ascii_spans

    n = len(col)
    _, offsets, data = col.buffers()
    wide = np.int64 if pa.types.is_large_string(col.type) else np.int32
    off = np.frombuffer(offsets, wide)[col.offset : col.offset + n + 1].astype(np.int64)
    buf = np.frombuffer(data if data is not None and data.size else bytes(1), np.uint8)  # read-only
    starts, ends = off[:-1], off[1:]
    ascii = np.empty(n, np.bool_)
    ascii_spans(buf, starts, ends, ascii)
    return Utf8Texts.of_buffer(
        buf, starts, ends, ascii, lambda rows: col.take(pa.array(rows)).to_pylist(), owner=col
    )


class ParquetSource(FileSource):
    """A Parquet file, read in record batches of only the columns needed (pyarrow).

    Parameters
    ----------
    path : str
        The file.
    column : str
        The text column (string, large string or dictionary-encoded text).
    id_column, priority_column : str or None
        The id and priority columns (None: row numbers as ids, no priorities).
    max_row_bytes : int
        The largest text, in UTF-8 bytes; a longer one is a :class:`DatasetError` when read.
    name : str, optional
        The name messages give the file (by default its shown path).
    fs : fsspec filesystem, optional
        Where the file is (default: this machine's files).

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    format = "parquet"

    def size_hint(self) -> tuple[None, None]:
        """See :meth:`Source.size_hint`: ``(None, None)``, the bar counts rows, its total unknown."""
        return None, None

    def progress_step(self, rows: int) -> int:
        """See :meth:`Source.progress_step`: ``rows``, the bar counts rows."""
        return rows

    def _file(self):
        pa = need_pyarrow()
        import pyarrow.parquet as pq

        f = self._open()
        try:
            pf = pq.ParquetFile(f)
        except (pa.ArrowException, OSError, ValueError) as e:
            f.close()
            raise DatasetError(f"{self.name}: not a readable Parquet file ({first_line(e)})") from None
        names = pf.schema_arrow.names
        for col in {self.column, self.id_column, self.priority_column} - {None}:
            if names.count(col) > 1:
                f.close()
                raise DatasetError(
                    f"{self.name}: {names.count(col)} columns are named {col!r}: which one is meant is "
                    "ambiguous"
                )
        if self.column not in names:
            f.close()
            raise DatasetError(
                f"{self.name}: no column {self.column!r} (columns: {', '.join(map(repr, names[:12]))})"
            )
        t = pf.schema_arrow.field(self.column).type
        if pa.types.is_dictionary(t):  # dictionary-encoded text: its values are the texts
            t = t.value_type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view"):
            f.close()
            raise DatasetError(f"{self.name}: column {self.column!r} is {t}, not text")
        for what, col in (("id", self.id_column), ("priority", self.priority_column)):
            if col is not None and col not in names:
                f.close()
                raise DatasetError(f"{self.name}: no {what} column {col!r}")
        return f, pf

    #: bytes a row group's column chunks may hold beyond ``max_row_bytes`` a row (page headers,
    #: repetition and definition levels)
    _SLACK = 1 << 20

    def _check_sizes(self, pf: Any, columns: list[str] | None) -> None:
        """Refuse, from the footer alone (before any page is read or inflated), a row group whose
        column chunks to be read hold, uncompressed, more than ``max_row_bytes`` for each of its
        rows: one of its rows is then larger than that (a 33 KB file holding a 1 GiB text was
        refused only once inflated, at 2.4 GB of peak memory)."""
        md = pf.metadata
        want = None if columns is None else set(columns)
        for g in range(md.num_row_groups):
            rg = md.row_group(g)
            size = 0
            for c in range(rg.num_columns):
                chunk = rg.column(c)
                if want is None or chunk.path_in_schema.split(".")[0] in want:
                    size += int(chunk.total_uncompressed_size)
            rows = int(rg.num_rows)
            if size > self.max_row_bytes * max(rows, 1) + self._SLACK:
                first = sum(int(md.row_group(h).num_rows) for h in range(g))
                which = (
                    "every column"
                    if columns is None
                    else ("column " if len(columns) == 1 else "columns ") + ", ".join(map(repr, columns))
                )
                raise DatasetError(
                    f"{self.name}: row group {g} (rows {first}-{first + max(rows, 1) - 1}) holds {size:,} "
                    f"bytes of {which} uncompressed for {rows:,} row{'s' if rows != 1 else ''}: a row is "
                    f"larger than max_row_bytes (--max-row-bytes {self.max_row_bytes}); refused unread"
                )

    def _batches(self, columns: list[str] | None, rows: int) -> Iterator[Any]:
        pa = need_pyarrow()
        f, pf = self._file()
        with f:
            try:
                self._check_sizes(pf, columns)
            except BaseException:
                f.close()
                raise
            try:
                yield from pf.iter_batches(batch_size=rows, columns=columns)
            except (pa.ArrowException, OSError) as e:
                raise DatasetError(f"{self.name}: not a readable Parquet file ({first_line(e)})") from None

    def _texts(self, col: Any, start: int, utf8: bool = False) -> Sequence[str]:
        return arrow_texts(col, start, self.name, self.column, self.max_row_bytes, utf8)

    def utf8_chunks(self, rows: int) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.utf8_chunks`: the texts of the batch's string array in place."""
        return self.chunks(rows, utf8=True)

    def chunks(self, rows: int, utf8: bool = False) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.chunks`: record batches of ``rows`` rows, only the columns needed
        (``utf8``: :meth:`utf8_chunks`)."""
        cols = [self.column]
        for c in (self.id_column, self.priority_column):
            if c is not None and c not in cols:
                cols.append(c)
        start = 0
        for b in self._batches(cols, rows):
            self.bytes_read = 0
            texts = self._texts(b.column(0), start, utf8)
            if self.id_column is None:
                ids = list(range(start, start + b.num_rows))
            else:
                ids = b.column(cols.index(self.id_column)).to_pylist()
            prio = None
            if self.priority_column is not None:
                vals = b.column(cols.index(self.priority_column)).to_pylist()
                prio = [self._priority(v, f"row {start + i}") for i, v in enumerate(vals)]
            start += b.num_rows
            yield texts, ids, prio

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`: the text column only, in batches of at least 1024 rows."""
        start = 0
        w = 0
        for b in self._batches([self.column], max(chunk, 1024)):
            end = start + b.num_rows
            stop = int(np.searchsorted(rows, end))
            if stop > w:
                local = rows[w:stop] - start
                col = b.column(0).take(local)
                yield rows[w:stop], self._texts(col, start)
                w = stop
            start = end
            if w == rows.size:
                return
        if w < rows.size:
            raise DatasetError(
                f"{self.name}: the file changed while it was being deduplicated (rows missing)"
            )

    def write_kept(
        self,
        path: str,
        keep: np.ndarray,
        progress: Callable[[int], object] | None = None,
        edits: dict | None = None,
    ) -> int:
        """See :meth:`Source.write_kept`: the kept rows, every column, with the input's schema;
        a row in ``edits`` (row: the spans of its text to cut,
        :func:`~simhash_lab.datasets.source.cut_text`) with its text cut."""
        pa = need_pyarrow()
        import pyarrow.parquet as pq

        f, pf = self._file()
        schema = pf.schema_arrow
        f.close()
        edits = edits or {}
        at = schema.get_field_index(self.column)

        def edited(b: Any, start: int) -> Any:
            mine = [r - start for r in edits if start <= r < start + b.num_rows]
            if not mine:
                return b
            texts = b.column(at).to_pylist()
            for r in mine:
                texts[r] = cut_text(texts[r], edits[r + start])
            col = pa.array(texts, pa.large_string()).cast(schema.field(at).type)
            return pa.RecordBatch.from_arrays([col if i == at else b.column(i) for i in range(b.num_columns)],
                                              schema=b.schema)  # fmt: skip

        def write(out: IO[bytes]) -> int:
            n = 0
            start = 0
            with pq.ParquetWriter(out, schema) as w:
                for b in self._batches(None, 65536):
                    m = keep[start : start + b.num_rows]
                    b = edited(b, start)
                    start += b.num_rows
                    if m.any():
                        w.write_batch(b.filter(pa.array(m)))
                        n += int(m.sum())
                    if progress is not None:
                        progress(b.num_rows)
            return n

        return atomic_write(path, "wb", write)


def first_line(e: BaseException) -> str:
    """The first line of an exception's message (its type's name when it has none)."""
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__
