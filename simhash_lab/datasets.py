"""Datasets in and out of :func:`simhash_lab.dedup_table`: JSONL, CSV and Parquet, read in chunks.

A dataset is read several times, never held whole: once to fingerprint every row, then only the
rows that need their text again (the calibration sample and the candidate pairs, for exact
Jaccard), then once more to write the rows that are kept. Memory is a few bytes per row (the
fingerprint, the id) plus one chunk of text at a time, whatever the file's size.

* **JSONL** (``.jsonl``, ``.ndjson``): one JSON object per line (blank lines are passed over);
  parsed by the standard :mod:`json`; kept rows are written back byte for byte, as they were.
* **CSV** (``.csv``; ``.tsv`` with tabs): a header line names the columns; the standard :mod:`csv`
  module reads each record (quoted fields may hold newlines) and the kept records are written
  back as the exact text they had, after the header.
* **Parquet** (``.parquet``, ``.pq``): read in record batches, only the columns needed, by pyarrow
  (``pip install 'simhash-lab[datasets]'``); kept rows are written with the input's schema.

Every file is opened as :mod:`simhash_lab._files` opens files (regular files only, never
blocking). A file that changes between two reads is refused. Every problem with the input is a
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

import csv
import io
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ._files import NotRegularFile, open_regular, show_name

__all__ = [
    "FORMATS",
    "DatasetError",
    "Source",
    "TextsSource",
    "JsonlSource",
    "CsvSource",
    "ParquetSource",
    "detect_format",
    "open_dataset",
    "write_duplicates",
]

EXTRA_HINT = "pip install 'simhash-lab[datasets]'"

#: file name endings of each dataset format
FORMATS = {
    "jsonl": (".jsonl", ".ndjson"),
    "csv": (".csv", ".tsv"),
    "parquet": (".parquet", ".pq"),
}


class DatasetError(ValueError):
    """A dataset that cannot be read as asked: ``str(e)`` is one line naming the file and where."""


def detect_format(path: str) -> str | None:
    """``"jsonl"``, ``"csv"`` or ``"parquet"`` from the file name's ending, else None."""
    low = os.fspath(path).lower()
    for fmt, ends in FORMATS.items():
        if low.endswith(ends):
            return fmt
    return None


def _pyarrow():
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise DatasetError(f"Parquet needs pyarrow, part of the `datasets` extra: {EXTRA_HINT}") from None
    return pyarrow


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


class Source:
    """Rows of text with ids, readable again: what :func:`simhash_lab.dedup.dedup_table` reads.

    Subclasses give :meth:`chunks` (every row, in order), :meth:`select` (some rows, by number) and
    :meth:`write_kept` (the rows a mask keeps, in the input's format).
    """

    format = "texts"
    name = "<texts>"

    priority_column: str | None = None

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """``(texts, ids, priorities)`` of every row, in order, ``rows`` at a time (priorities:
        None without a priority column)."""
        raise NotImplementedError

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """``(row numbers, texts)`` of the rows ``rows`` (sorted, distinct), about ``chunk`` at a time."""
        raise NotImplementedError

    def write_kept(self, path: str, keep: np.ndarray, progress=None) -> int:
        """Write the rows where ``keep`` is True to ``path``, unchanged, in input order; returns how many."""
        raise DatasetError(f"{self.name}: the kept rows of {self.format} input cannot be written to a file")

    def check_output(self, path: str) -> None:
        """Refuse an output that is the input, or named for another format."""
        fmt = detect_format(path)
        if fmt is not None and fmt != self.format and self.format in FORMATS:
            raise DatasetError(
                f"{show_name(path)}: the kept rows are written in the input's format ({self.format}): "
                f"name the output {FORMATS[self.format][0]}"
            )


class TextsSource(Source):
    """A sequence of str held in memory (ids: positions, or the ``ids`` given)."""

    def __init__(self, texts: Sequence[str], ids: Sequence | None = None, param: str = "texts") -> None:
        if texts is None or isinstance(texts, (str, bytes)):
            raise TypeError(f"{param} must be a sequence of str, got {type(texts).__name__}")
        self.texts = list(texts)
        for i, t in enumerate(self.texts):
            if not isinstance(t, str):
                raise TypeError(f"{param}[{i}] must be a str, got {type(t).__name__}")
        if ids is not None:
            ids = list(ids)
            if len(ids) != len(self.texts):
                raise ValueError(f"ids must have one id per text: {len(ids)} ids for {len(self.texts)} texts")
        self.ids = ids

    def chunks(self, rows):
        for s in range(0, len(self.texts), rows):
            end = min(s + rows, len(self.texts))
            ids = self.ids[s:end] if self.ids is not None else list(range(s, end))
            yield self.texts[s:end], ids, None

    def select(self, rows, chunk):
        for s in range(0, rows.size, chunk):
            r = rows[s : s + chunk]
            yield r, [self.texts[i] for i in r.tolist()]


# -- files: read again only while unchanged ---------------------------------------------------


class _FileSource(Source):
    def __init__(
        self, path: str, column: str, id_column: str | None, priority_column: str | None = None
    ) -> None:
        self.path = os.fspath(path)
        self.name = show_name(self.path)
        if not isinstance(column, str) or not column:
            raise TypeError(f"column must be a non-empty str, got {column!r}")
        if id_column is not None and (not isinstance(id_column, str) or not id_column):
            raise TypeError(f"id_column must be a non-empty str or None, got {id_column!r}")
        if priority_column is not None and (not isinstance(priority_column, str) or not priority_column):
            raise TypeError(f"priority_column must be a non-empty str or None, got {priority_column!r}")
        self.column = column
        self.id_column = id_column
        self.priority_column = priority_column
        self._stamp = None

    def _priority(self, value, where: str) -> float:
        """A row's priority: a finite number (in CSV, a field that parses as one)."""
        v = value
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                v = None
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or v != v
            or v in (float("inf"), float("-inf"))
        ):
            raise DatasetError(
                f"{self.name}: {where}: priority column {self.priority_column!r} is {_kind(value)}"
                f"{' ' + repr(value) if isinstance(value, str) else ''}, not a finite number"
            )
        return float(v)

    def _open(self):
        try:
            f = open_regular(self.path)
        except NotRegularFile as e:
            raise DatasetError(f"{self.name}: {e}") from None
        except OSError as e:
            raise DatasetError(f"{self.name}: {e.strerror or e}") from None
        st = os.fstat(f.fileno())
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._stamp is None:
            self._stamp = stamp
        elif stamp != self._stamp:
            f.close()
            raise DatasetError(f"{self.name}: the file changed while it was being deduplicated")
        return f

    def check_output(self, path: str) -> None:
        super().check_output(path)
        if os.path.exists(path) and os.path.exists(self.path) and os.path.samefile(path, self.path):
            raise DatasetError(f"{show_name(path)}: the output would overwrite the input")

    def _pick(self, rows, chunk, records):
        """``(rows, texts)`` chunks of the wanted rows (sorted), read in one pass over ``records``:
        ``(row, text())`` pairs in file order, the text parsed only for a wanted row."""
        want = rows.tolist()
        if not want:
            return
        w = 0
        got, texts = [], []
        for row, text in records:
            if row != want[w]:
                continue
            got.append(row)
            texts.append(text())
            w += 1
            if len(texts) >= chunk or w == len(want):
                yield np.array(got, np.int64), texts
                got, texts = [], []
                if w == len(want):
                    return
        raise DatasetError(f"{self.name}: the file changed while it was being deduplicated (rows missing)")


def _atomic_write(path: str, mode: str, write, **kw) -> Any:
    """Call ``write(f)`` on a temporary file beside ``path``, then rename it over ``path``."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, mode, **kw) as f:
            result = write(f)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return result


# -- JSONL -------------------------------------------------------------------------------------


_DECODER = json.JSONDecoder()


class JsonlSource(_FileSource):
    """One JSON object per line; ``column`` holds the text (a str), ``id_column`` the id (any value;
    row numbers from 0 when None)."""

    format = "jsonl"

    def _records(self):
        """``(row, line number, raw bytes)`` of every non-blank line."""
        with self._open() as f:
            row = 0
            for lineno, raw in enumerate(f, 1):
                if raw.isspace() or not raw:
                    continue
                yield row, lineno, raw
                row += 1

    def _parse(self, lineno: int, raw: bytes):
        try:
            rec = json.loads(raw)
        except UnicodeDecodeError as e:
            raise DatasetError(
                f"{self.name}: line {lineno}: not UTF-8 ({e.reason} at byte {e.start})"
            ) from None
        except ValueError as e:
            raise DatasetError(f"{self.name}: line {lineno}: not JSON ({getattr(e, 'msg', e)})") from None
        if not isinstance(rec, dict):
            raise DatasetError(f"{self.name}: line {lineno}: {_kind(rec)}, not a JSON object")
        try:
            text = rec[self.column]
        except KeyError:
            keys = ", ".join(map(repr, list(rec)[:8]))
            raise DatasetError(
                f"{self.name}: line {lineno}: no column {self.column!r} (the object has {keys or 'no keys'})"
            ) from None
        if not isinstance(text, str):
            raise DatasetError(
                f"{self.name}: line {lineno}: column {self.column!r} is {_kind(text)}, not text"
            )
        return rec, text

    def chunks(self, rows):
        texts, ids = [], []
        pc = self.priority_column
        prio = [] if pc is not None else None
        idc = self.id_column
        for row, lineno, raw in self._records():
            rec, text = self._parse(lineno, raw)
            if idc is not None:
                if idc not in rec:
                    raise DatasetError(f"{self.name}: line {lineno}: no id column {idc!r}")
                ids.append(rec[idc])
            else:
                ids.append(row)
            if pc is not None:
                if pc not in rec:
                    raise DatasetError(f"{self.name}: line {lineno}: no priority column {pc!r}")
                prio.append(self._priority(rec[pc], f"line {lineno}"))
            texts.append(text)
            if len(texts) >= rows:
                yield texts, ids, prio
                texts, ids = [], []
                prio = [] if pc is not None else None
        if texts:
            yield texts, ids, prio

    def select(self, rows, chunk):
        records = ((row, lambda lineno=lineno, raw=raw: self._parse(lineno, raw)[1])
                   for row, lineno, raw in self._records())  # fmt: skip
        return self._pick(rows, chunk, records)

    def write_kept(self, path, keep, progress=None):
        def write(out):
            n = 0
            for row, _, raw in self._records():
                if keep[row]:
                    out.write(raw if raw.endswith(b"\n") else raw + b"\n")
                    n += 1
                if progress is not None:
                    progress(1)
            return n

        return _atomic_write(path, "wb", write)


# -- CSV ---------------------------------------------------------------------------------------


class CsvSource(_FileSource):
    """A header line, then one record per row (``.tsv``: tab-separated); kept records are written
    back as the exact text they had."""

    format = "csv"

    def __init__(self, path, column, id_column, priority_column=None):
        super().__init__(path, column, id_column, priority_column)
        self.delimiter = "\t" if self.path.lower().endswith(".tsv") else ","

    def _records(self):
        """``(row, line number, fields, raw text)`` of every record, after reading the header."""
        with self._open() as fb:
            f = io.TextIOWrapper(fb, encoding="utf-8-sig", newline="")
            pending: list[str] = []

            def lines():
                for line in f:
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
            yield row, fields[cols[0]], (fields[cols[1]] if cols[1] is not None else row), prio, raw
            row += 1
        if cols is None:
            self._columns()  # a header without rows: still check the columns it names

    def chunks(self, rows):
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

    def select(self, rows, chunk):
        return self._pick(rows, chunk, ((row, lambda text=text: text) for row, text, *_ in self._rows()))

    def write_kept(self, path, keep, progress=None):
        def write(out):
            n = 0
            header_done = False
            for row, _, _, _, raw in self._rows():
                if not header_done:
                    out.write(self.header_raw)
                    header_done = True
                if keep[row]:
                    eol = "\r\n" if self.header_raw.endswith("\r\n") else "\n"
                    out.write(raw if raw.endswith(("\n", "\r")) else raw + eol)
                    n += 1
                if progress is not None:
                    progress(1)
            if not header_done:
                out.write(self.header_raw)
            return n

        return _atomic_write(path, "w", write, encoding="utf-8", newline="")


# -- Parquet -----------------------------------------------------------------------------------


class ParquetSource(_FileSource):
    """A Parquet file, read in record batches of only the columns needed (pyarrow)."""

    format = "parquet"

    def _file(self):
        pa = _pyarrow()
        import pyarrow.parquet as pq

        f = self._open()
        try:
            pf = pq.ParquetFile(f)
        except (pa.ArrowException, OSError, ValueError) as e:
            f.close()
            raise DatasetError(f"{self.name}: not a readable Parquet file ({_first_line(e)})") from None
        names = pf.schema_arrow.names
        if self.column not in names:
            f.close()
            raise DatasetError(
                f"{self.name}: no column {self.column!r} (columns: {', '.join(map(repr, names[:12]))})"
            )
        t = pf.schema_arrow.field(self.column).type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view"):
            f.close()
            raise DatasetError(f"{self.name}: column {self.column!r} is {t}, not text")
        for what, col in (("id", self.id_column), ("priority", self.priority_column)):
            if col is not None and col not in names:
                f.close()
                raise DatasetError(f"{self.name}: no {what} column {col!r}")
        return f, pf

    def _batches(self, columns, rows):
        pa = _pyarrow()
        f, pf = self._file()
        with f:
            try:
                yield from pf.iter_batches(batch_size=rows, columns=columns)
            except (pa.ArrowException, OSError) as e:
                raise DatasetError(f"{self.name}: not a readable Parquet file ({_first_line(e)})") from None

    def _texts(self, col, start: int) -> list[str]:
        if col.null_count:
            i = start + int(np.flatnonzero(np.asarray(col.is_null()))[0])
            raise DatasetError(f"{self.name}: row {i}: column {self.column!r} is null, not text")
        return col.to_pylist()

    def chunks(self, rows):
        cols = [self.column]
        for c in (self.id_column, self.priority_column):
            if c is not None and c not in cols:
                cols.append(c)
        start = 0
        for b in self._batches(cols, rows):
            texts = self._texts(b.column(0), start)
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

    def select(self, rows, chunk):
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

    def write_kept(self, path, keep, progress=None):
        pa = _pyarrow()
        import pyarrow.parquet as pq

        f, pf = self._file()
        schema = pf.schema_arrow
        f.close()

        def write(out):
            n = 0
            start = 0
            with pq.ParquetWriter(out, schema) as w:
                for b in self._batches(None, 65536):
                    m = keep[start : start + b.num_rows]
                    start += b.num_rows
                    if m.any():
                        w.write_batch(b.filter(pa.array(m)))
                        n += int(m.sum())
                    if progress is not None:
                        progress(b.num_rows)
            return n

        return _atomic_write(path, "wb", write)


def _first_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def open_dataset(
    path: str,
    column: str = "text",
    id_column: str | None = None,
    format: str | None = None,
    priority_column: str | None = None,
) -> Source:
    """The :class:`Source` for a JSONL, CSV or Parquet file (``format`` from its name when None).

    Raises
    ------
    DatasetError
        The format cannot be told from the name, or is not one of ``FORMATS``.
    """
    fmt = format or detect_format(path)
    if fmt is None:
        raise DatasetError(
            f"{show_name(path)}: cannot tell the format from the name: give --format "
            f"(one of {', '.join(FORMATS)}) or name it {', '.join(e for v in FORMATS.values() for e in v)}"
        )
    if fmt not in FORMATS:
        raise DatasetError(f"The value for `format` must be one of {list(FORMATS)}, but {fmt!r} was passed.")
    cls = {"jsonl": JsonlSource, "csv": CsvSource, "parquet": ParquetSource}[fmt]
    return cls(path, column, id_column, priority_column)


# -- the duplicates table ----------------------------------------------------------------------

DUPLICATE_COLUMNS = ("dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row")


def write_duplicates(path: str, table, format: str | None = None) -> None:
    """Write a :class:`~simhash_lab.dedup.Duplicates` table: CSV (default), JSONL or Parquet by the
    name's ending. Columns: ``dropped_id, kept_id, distance, similarity, dropped_row, kept_row``
    (``similarity`` empty / null when it was not computed)."""
    fmt = format or detect_format(path) or "csv"
    rows = zip(
        table.dropped_id,
        table.kept_id,
        table.distance.tolist(),
        table.similarity.tolist(),
        table.dropped.tolist(),
        table.kept.tolist(),
    )
    if fmt == "parquet":
        pa = _pyarrow()
        import pyarrow.parquet as pq

        sim = [None if s != s else s for s in table.similarity.tolist()]
        data = pa.table(
            {
                "dropped_id": list(table.dropped_id),
                "kept_id": list(table.kept_id),
                "distance": pa.array(table.distance, pa.int64()),
                "similarity": pa.array(sim, pa.float64()),
                "dropped_row": pa.array(table.dropped, pa.int64()),
                "kept_row": pa.array(table.kept, pa.int64()),
            }
        )
        _atomic_write(path, "wb", lambda f: pq.write_table(data, f))
        return
    if fmt == "jsonl":

        def write(f):
            for d, k, dist, sim, dr, kr in rows:
                rec = dict(zip(DUPLICATE_COLUMNS, (d, k, dist, None if sim != sim else sim, dr, kr)))
                f.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")

        _atomic_write(path, "w", write, encoding="utf-8")
        return

    def write_csv(f):
        w = csv.writer(f, delimiter="\t" if path.lower().endswith(".tsv") else ",", lineterminator="\n")
        w.writerow(DUPLICATE_COLUMNS)
        for d, k, dist, sim, dr, kr in rows:
            w.writerow((d, k, dist, "" if sim != sim else f"{sim:.6f}", dr, kr))

    _atomic_write(path, "w", write_csv, encoding="utf-8", newline="")
