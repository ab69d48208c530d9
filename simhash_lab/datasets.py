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
import math
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._escape import csv_rows
from ._files import NotRegularFile, open_regular, show_name
from ._threads import thread_count
from ._write import Writeback, atomic_write
from .settings import DEFAULT_MAX_ROW_BYTES

if TYPE_CHECKING:
    from .dedup import Duplicates

__all__ = [
    "FORMATS",
    "DatasetError",
    "Source",
    "TextsSource",
    "JsonlSource",
    "CsvSource",
    "ParquetSource",
    "ArrowSource",
    "StdinSource",
    "check_duplicates_name",
    "detect_format",
    "open_dataset",
    "duplicates_arrow",
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
    """A dataset that cannot be read as asked: ``str(e)`` is one line naming the file and where.

    Parameters
    ----------
    message : str
        The line: the file's shown name, where (line, row, column), what is wrong.
    """


def detect_format(path: str | os.PathLike[str]) -> str | None:
    """``"jsonl"``, ``"csv"`` or ``"parquet"`` from the file name's ending, else None.

    Parameters
    ----------
    path : str or os.PathLike
        A file name; only its ending counts, in any case (``.JSONL`` is JSONL).

    Returns
    -------
    str or None
        The key of :data:`FORMATS` whose endings the name has; None for any other name.
    """
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

    def size_hint(self) -> tuple[int | None, str | None]:
        """``(total, unit)`` of the first read's progress bar (None: rows, unknown total).

        Returns
        -------
        tuple of (int or None, str or None)
            The total (rows here: the ``total`` attribute where a subclass sets one) and its unit
            (None: rows; ``"B"``: bytes).
        """
        total = getattr(self, "total", None)
        return total, None

    def progress_step(self, rows: int) -> int:
        """How far the bar of :meth:`size_hint` moved with the last chunk of ``rows`` rows.

        Parameters
        ----------
        rows : int
            Rows in the chunk just read.

        Returns
        -------
        int
            The step in the unit of :meth:`size_hint` (here ``rows`` itself).
        """
        return rows

    def close(self) -> None:
        """Release what the source holds (a spooled stdin)."""

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """``(texts, ids, priorities)`` of every row, in order, ``rows`` at a time (priorities:
        None without a priority column).

        Parameters
        ----------
        rows : int
            Rows per chunk (the last chunk may have fewer).

        Yields
        ------
        texts : list of str
            The chunk's texts.
        ids : list
            Their ids (the id column's values, or row numbers from 0).
        priorities : list of float or None
            Their priorities, None without a priority column.

        Raises
        ------
        DatasetError
            A row that cannot be read (a subclass names the file, line or row, and column).
        """
        raise NotImplementedError

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """``(row numbers, texts)`` of the rows ``rows`` (sorted, distinct), about ``chunk`` at a time.

        Parameters
        ----------
        rows : ndarray, shape (m,), int64
            Row numbers, sorted and distinct.
        chunk : int
            About how many rows to yield at a time.

        Yields
        ------
        rows : ndarray, int64
            The row numbers of this part, in order.
        texts : list of str
            Their texts.

        Raises
        ------
        DatasetError
            The file changed since the first read.
        """
        raise NotImplementedError

    def write_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None = None) -> int:
        """Write the rows where ``keep`` is True to ``path``, unchanged, in input order; returns how many.

        Parameters
        ----------
        path : str
            The output file, written by :func:`simhash_lab._write.atomic_output`.
        keep : ndarray, shape (n,), bool
            One flag per row of the input.
        progress : callable, optional
            Called with the number of rows passed over since its last call.

        Returns
        -------
        int
            How many rows were written.

        Raises
        ------
        DatasetError
            The source cannot be written to a file (here: always; file sources override this).
        """
        raise DatasetError(f"{self.name}: the kept rows of {self.format} input cannot be written to a file")

    def check_output(self, path: str) -> None:
        """Refuse an output that is the input, or named for another format.

        Parameters
        ----------
        path : str
            The output file :meth:`write_kept` would write.

        Raises
        ------
        DatasetError
            ``path`` ends as another format's file (``out.csv`` for JSONL input), or (a file
            source) names the input itself.
        """
        fmt = detect_format(path)
        if fmt is not None and fmt != self.format and self.format in FORMATS:
            raise DatasetError(
                f"{show_name(path)}: the kept rows are written in the input's format ({self.format}): "
                f"name the output {FORMATS[self.format][0]}"
            )


class TextsSource(Source):
    """A sequence of str held in memory (ids: positions, or the ``ids`` given).

    Parameters
    ----------
    texts : sequence of str
        The rows' texts.
    ids : sequence, optional
        One id per text; by default the positions 0, 1, 2, ...
    param : str
        The name error messages give ``texts``.

    Raises
    ------
    TypeError
        ``texts`` is a str, bytes or None, or holds something other than a str.
    ValueError
        ``ids`` does not have one id per text.
    """

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
        self.total = len(self.texts)

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, None]]:
        """See :meth:`Source.chunks` (priorities: always None)."""
        for s in range(0, len(self.texts), rows):
            end = min(s + rows, len(self.texts))
            ids = self.ids[s:end] if self.ids is not None else list(range(s, end))
            yield self.texts[s:end], ids, None

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select`."""
        for s in range(0, rows.size, chunk):
            r = rows[s : s + chunk]
            yield r, [self.texts[i] for i in r.tolist()]


# -- files: read again only while unchanged ---------------------------------------------------


class _FileSource(Source):
    def __init__(
        self,
        path: str,
        column: str,
        id_column: str | None,
        priority_column: str | None = None,
        max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
        name: str | None = None,
    ) -> None:
        self.path = os.fspath(path)
        self.name = name or show_name(self.path)
        self.max_row_bytes = max_row_bytes
        self.bytes_read = 0
        self._shown = 0
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

    def size_hint(self):
        try:
            return os.stat(self.path).st_size, "B"
        except OSError:
            return None, None

    def progress_step(self, rows: int) -> int:
        step = self.bytes_read - self._shown
        self._shown = self.bytes_read
        return step

    def _too_large(self, where: str) -> DatasetError:
        return DatasetError(
            f"{self.name}: {where}: larger than max_row_bytes (--max-row-bytes {self.max_row_bytes})"
        )

    def _check_id(self, value: Any, where: str) -> Any:
        """An id that can be written: a str with a lone surrogate is refused here, before any work."""
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise DatasetError(
                    f"{self.name}: {where}: id column {self.id_column!r} holds a lone surrogate, not text"
                ) from None
        return value

    def _priority(self, value: Any, where: str) -> float:
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

    def _pick(
        self, rows: np.ndarray, chunk: int, records: Iterable[tuple[int, Callable[[], str]]]
    ) -> Iterator[tuple[np.ndarray, list[str]]]:
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


def prefetch(chunks: Iterable[Any]) -> Iterator[Any]:
    """The items of the iterator ``chunks``, the next one made by a thread of its own while the
    caller works on this one (reading and parsing hold the GIL; the kernels that follow release
    it). An exception from ``chunks`` is raised here, in the caller's thread, as it was raised;
    a caller that stops early stops the thread at its next item.

    Parameters
    ----------
    chunks : iterable
        What to read ahead, one item at a time (a :meth:`Source.chunks` iterator).

    Yields
    ------
    object
        The items of ``chunks``, in order.

    Raises
    ------
    BaseException
        Whatever iterating ``chunks`` raised, when the caller reaches that item.
    """
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    done = object()

    def work() -> None:
        try:
            for item in chunks:
                while not stop.is_set():
                    try:
                        q.put((item, None), timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            q.put((done, None))
        except BaseException as e:  # noqa: BLE001 -- handed to the caller's thread
            q.put((done, e))

    t = threading.Thread(target=work, name="simhash-lab-read", daemon=True)
    t.start()
    try:
        while True:
            item, err = q.get()
            if item is done:
                if err is not None:
                    raise err
                return
            yield item
    finally:
        stop.set()
        t.join(timeout=5)


# -- JSONL -------------------------------------------------------------------------------------


def _json_loads():
    """The ``loads`` of orjson when it is installed (3-4x the standard module), else None."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


_ORJSON = _json_loads()


def _empty_file(fd: int) -> bool:
    """Whether ``fd`` is an empty regular file at its start, not opened to append: an output the
    rows may be copied to at their places (not a pipe, nor what ``>>`` or a shell's earlier
    writes hold, when the output is ``/dev/stdout``)."""
    import fcntl

    st = os.fstat(fd)
    return (
        stat.S_ISREG(st.st_mode) and st.st_size == 0 and os.lseek(fd, 0, os.SEEK_CUR) == 0
        and not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
    )  # fmt: skip


class JsonlSource(_FileSource):
    """One JSON object per line; ``column`` holds the text (a str), ``id_column`` the id (any value;
    row numbers from 0 when None). Lines are parsed by orjson when it is installed (the standard
    :mod:`json` for what orjson refuses: ``NaN``, a lone surrogate escape).

    Parameters
    ----------
    path : str
        The file.
    column : str
        The key of the text (a str) in each object.
    id_column, priority_column : str or None
        The keys of the id (any value) and the priority (a finite number); None: row numbers from 0
        as ids, no priorities.
    max_row_bytes : int
        The longest line read, in bytes (its line end not counted); a longer one is a
        :class:`DatasetError`.
    name : str, optional
        The name messages give the file (by default its shown path).

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    format = "jsonl"

    _BLOCK = 1 << 18  # bytes read at a time (a block's lines and records stay in the cache)

    def _blocks(self):
        """``(line number of the first, lines, last_ends, offset)`` for each block of the file read
        ``_BLOCK`` bytes at a time: its whole lines, each without its ``\\n`` (a ``\\r`` before it
        stays); ``last_ends`` is False only for a last line that has no newline; ``offset``: the
        byte where the first line starts. A line longer than ``max_row_bytes`` (not counting its
        line end) is refused without being read whole."""
        limit = self.max_row_bytes
        self.bytes_read = self._shown = 0
        with self._open() as f:
            lineno = 1
            rest = b""
            at = 0  # the byte where ``rest`` starts
            while True:
                block = f.read(self._BLOCK)
                if not block:
                    if rest:
                        yield lineno, [rest], False, at
                    return
                self.bytes_read += len(block)
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest += block
                    if len(rest) > limit and len(rest.rstrip(b"\r")) > limit:
                        raise self._too_large(f"line {lineno}")
                    continue
                whole = rest + block[:cut] if rest else block[:cut]
                lines = whole.split(b"\n")
                rest = block[cut + 1 :]
                if max(map(len, lines)) > limit:
                    for i, raw in enumerate(lines):
                        if len(raw) > limit and len(raw.rstrip(b"\r")) > limit:
                            raise self._too_large(f"line {lineno + i}")
                if len(rest) > limit and len(rest.rstrip(b"\r")) > limit:
                    raise self._too_large(f"line {lineno + len(lines)}")
                yield lineno, lines, True, at
                lineno += len(lines)
                at += len(whole) + 1

    @staticmethod
    def _body(lines: list) -> list:
        """The lines that are rows: not blank (empty or only whitespace)."""
        return [raw for raw in lines if raw and not raw.isspace()]

    def _records(self):
        """``(row, line number, raw bytes)`` of every non-blank line (without its ``\\n``), each
        at most ``max_row_bytes``."""
        row = 0
        for lineno, lines, _, _ in self._blocks():
            for i, raw in enumerate(lines):
                if raw and not raw.isspace():
                    yield row, lineno + i, raw
                    row += 1

    def _parse(self, lineno: int, raw: bytes):
        rec = None
        if _ORJSON is not None:
            try:
                rec = _ORJSON(raw)
            except ValueError:
                rec = None
        if rec is None:
            try:
                rec = json.loads(raw)
            except UnicodeDecodeError as e:
                raise DatasetError(
                    f"{self.name}: line {lineno}: not UTF-8 ({e.reason} at byte {e.start})"
                ) from None
            except ValueError as e:
                raise DatasetError(f"{self.name}: line {lineno}: not JSON ({getattr(e, 'msg', e)})") from None
            except RecursionError:
                raise DatasetError(
                    f"{self.name}: line {lineno}: not JSON this program can read (nested too deeply)"
                ) from None
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

    def _fast(self, body: list):
        """``(texts, ids)`` of a block's rows by orjson in bulk (no priority column), or None when
        any row needs :meth:`_slow` (orjson refuses it, or it lacks a column or its text is not a
        str): then the rows go one by one, with the messages that name the line. What orjson
        parses holds no lone surrogate, so its ids need no check."""
        if _ORJSON is None or self.priority_column is not None:
            return None
        col, idc = self.column, self.id_column
        try:
            recs = list(map(_ORJSON, body))
            texts = [r[col] for r in recs]
            ids = [r[idc] for r in recs] if idc is not None else None
        except (ValueError, KeyError, TypeError):
            return None
        if set(map(type, texts)) - {str} or set(map(type, recs)) - {dict}:
            return None
        return texts, ids

    def _slow(self, lineno: int, lines: list, row: int):
        """``(texts, ids, prio)`` of a block's rows, one line at a time."""
        texts, ids = [], []
        pc = self.priority_column
        prio = [] if pc is not None else None
        idc = self.id_column
        for i, raw in enumerate(lines):
            if not raw or raw.isspace():
                continue
            where = lineno + i
            rec, text = self._parse(where, raw)
            if idc is not None:
                if idc not in rec:
                    raise DatasetError(f"{self.name}: line {where}: no id column {idc!r}")
                ids.append(self._check_id(rec[idc], f"line {where}"))
            else:
                ids.append(row)
            if pc is not None:
                if pc not in rec:
                    raise DatasetError(f"{self.name}: line {where}: no priority column {pc!r}")
                prio.append(self._priority(rec[pc], f"line {where}"))
            texts.append(text)
            row += 1
        return texts, ids, prio

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """See :meth:`Source.chunks`: each block of lines parsed by :meth:`_fast`, else :meth:`_slow`."""
        texts, ids = [], []
        prio = [] if self.priority_column is not None else None
        row = 0
        self._spans = None
        starts: list[np.ndarray] = []  # each row's bytes in the file (its line end included)
        ends: list[np.ndarray] = []
        for lineno, lines, last_ends, at in self._blocks():
            body = self._body(lines)
            lens = np.fromiter(map(len, lines), np.int64, len(lines))
            s = np.empty(len(lines), np.int64)
            s[0] = at
            np.cumsum(lens[:-1] + 1, out=s[1:])
            s[1:] += at
            e = s + lens + 1
            if not last_ends:
                e[-1] -= 1
            if len(body) != len(lines):  # blank lines are not rows
                is_row = np.fromiter((bool(raw) and not raw.isspace() for raw in lines), np.bool_, len(lines))
                s, e = s[is_row], e[is_row]
            starts.append(s)
            ends.append(e)
            got = self._fast(body)
            if got is not None:
                t, i = got
                p = None
                if i is None:
                    i = list(range(row, row + len(t)))
            else:
                t, i, p = self._slow(lineno, lines, row)
            row += len(t)
            texts.extend(t)
            ids.extend(i)
            if prio is not None:
                prio.extend(p)
            while len(texts) >= rows:
                yield texts[:rows], ids[:rows], prio[:rows] if prio is not None else None
                del texts[:rows], ids[:rows]
                if prio is not None:
                    del prio[:rows]
        # the whole file was read: where each row lies, for write_kept (the file's stamp, checked
        # when it is opened again, says it is the same file)
        self._spans = (
            np.concatenate(starts) if starts else np.empty(0, np.int64),
            np.concatenate(ends) if ends else np.empty(0, np.int64),
        )
        if texts:
            yield texts, ids, prio

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select` (only the wanted lines are parsed)."""
        records = ((row, lambda lineno=lineno, raw=raw: self._parse(lineno, raw)[1])
                   for row, lineno, raw in self._records())  # fmt: skip
        return self._pick(rows, chunk, records)

    def write_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None = None) -> int:
        """See :meth:`Source.write_kept`: the kept rows as they were, each with its line end (the
        file's last line: as it ends), blank lines left out. After a whole first read
        (:meth:`chunks`) the rows' places in the file are known: each run of consecutive kept rows
        is copied by the kernel (``os.copy_file_range``; where the output refuses it, read and
        written); else runs of kept rows are found by NumPy in blocks of the file and written as
        slices of it, never split into lines."""
        keep = np.asarray(keep, np.bool_)
        spans = getattr(self, "_spans", None)
        if spans is not None and spans[0].shape[0] == keep.shape[0]:
            return atomic_write(path, "wb", lambda out: self._copy_kept(out, keep, spans, progress))
        return self._scan_kept(path, keep, progress)

    _COPY = 1 << 24  # bytes per read when the output refuses copy_file_range

    def _copy_kept(
        self, out: IO[bytes], keep: np.ndarray, spans: tuple, progress: Callable[[int], object] | None
    ) -> int:
        """The kept rows' runs of bytes (``spans``: each row's start and end in the file) copied
        from the file into ``out``, in order; returns the rows written."""
        import errno

        starts, ends = spans
        rows = np.flatnonzero(keep)
        n = int(rows.size)
        if n:
            s, e = starts[rows], ends[rows]
            brk = np.flatnonzero(s[1:] != e[:-1]) + 1  # a dropped row or a blank line between
            first = np.concatenate([[0], brk])
            last = np.concatenate([brk - 1, [n - 1]])
            run_s, run_e = s[first].tolist(), e[last].tolist()
            upto = (rows[last] + 1).tolist()  # rows passed over once each run is written
        else:
            run_s = run_e = upto = []
        halves = n and int((ends[rows] - starts[rows]).sum()) >= self._SPLIT and thread_count() > 1
        refused = {errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF, errno.EPERM}
        refused |= {getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
        copy = hasattr(os, "copy_file_range")
        changed = DatasetError(f"{self.name}: the file changed while it was being deduplicated")
        out.flush()
        dst = out.fileno()
        with self._open() as f:
            src = f.fileno()
            if copy and halves and _empty_file(dst):
                try:  # two threads, each its half of the runs at its place in the output
                    self._copy_halves(src, dst, run_s, run_e, changed)
                    if progress is not None:
                        progress(int(keep.shape[0]))
                    return n
                except OSError as err:
                    if err.errno not in refused:
                        raise
                    os.ftruncate(dst, 0)  # from the start, one run after another
            shown = 0
            wb, put = Writeback(dst), 0  # from the output's position
            for a, b, r in zip(run_s, run_e, upto):
                while a < b:
                    if copy:
                        try:
                            got = os.copy_file_range(src, dst, b - a, a)
                        except OSError as err:
                            if err.errno not in refused:
                                raise
                            copy = False  # the bytes so far are in place: read and write the rest
                            continue
                        put += got
                        wb.wrote(wb.start + put)
                    else:
                        buf = os.pread(src, min(b - a, self._COPY), a)
                        got = len(buf)
                        out.write(buf)
                    if got == 0:
                        raise changed
                    a += got
                if progress is not None and r - shown >= 65536:
                    progress(r - shown)
                    shown = r
        if progress is not None and keep.shape[0] > shown:
            progress(int(keep.shape[0]) - shown)
        return n

    _SPLIT = 1 << 26  # kept bytes from which two threads copy them (700 MB: 0.70 -> 0.55 s, AMD EPYC)

    @staticmethod
    def _copy_halves(
        src: int, dst: int, run_s: list, run_e: list, changed: Exception
    ) -> None:  # fmt: skip
        """The runs copied by the kernel in two halves of their bytes, the second by a thread of
        its own, each run to its place in the output (its offset); the output's position left at
        its end."""
        from concurrent.futures import ThreadPoolExecutor

        size = np.array(run_e, np.int64) - np.array(run_s, np.int64)
        at = np.concatenate([[0], np.cumsum(size)]).tolist()  # each run's place in the output
        cut = max(1, int(np.searchsorted(at, at[-1] // 2)))

        def copy(lo: int, hi: int) -> None:
            wb = Writeback(dst, at[lo])  # this half's bytes handed to the device as they come
            for a, b, o in zip(run_s[lo:hi], run_e[lo:hi], at[lo:hi]):
                while a < b:
                    got = os.copy_file_range(src, dst, b - a, a, o)
                    if got == 0:
                        raise changed
                    a, o = a + got, o + got
                wb.wrote(o)

        os.ftruncate(dst, at[-1])
        with ThreadPoolExecutor(1, "simhash-lab-copy") as pool:
            second = pool.submit(copy, cut, len(run_s))
            try:
                copy(0, cut)
            finally:
                second.exception()  # both halves end before anything is raised or returned
            second.result()
        os.lseek(dst, at[-1], os.SEEK_SET)

    def _scan_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None) -> int:
        """:meth:`write_kept` without the rows' places: the file read again in blocks."""
        space = np.zeros(256, np.bool_)
        space[list(b" \t\n\r\x0b\x0c")] = True  # what bytes.isspace() calls whitespace

        def rows_of(buf: bytes, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
            """Which of the lines ``buf[starts[i]:ends[i]]`` are rows (not blank)."""
            first = np.frombuffer(buf, np.uint8)[np.minimum(starts, len(buf) - 1)]
            row_line = (ends > starts) & ~space[first]
            for i in np.flatnonzero((ends > starts) & space[first]).tolist():
                row_line[i] = not buf[starts[i] : ends[i]].isspace()
            return np.flatnonzero(row_line)

        def write(out: IO[bytes]) -> int:
            n = row = 0
            with self._open() as f:
                rest = b""  # the start of a line that goes on in the next block
                while True:
                    block = f.read(16 * self._BLOCK)
                    nl = np.flatnonzero(np.frombuffer(block, np.uint8) == 10)
                    if block and not nl.size:
                        rest += block
                        continue
                    # the line begun in ``rest`` (or the last one, without newline), alone
                    head = rest + block[: nl[0] + 1] if nl.size else rest
                    if head:
                        body = head.rstrip(b"\n")
                        if body and not body.isspace():
                            if keep[row]:
                                out.write(head)
                                n += 1
                            row += 1
                            if progress is not None:
                                progress(1)
                    if not block:
                        return n
                    rest = block[nl[-1] + 1 :]
                    starts, ends = nl[:-1] + 1, nl[1:]  # the block's other whole lines
                    lines = rows_of(block, starts, ends)
                    kept = lines[keep[row : row + lines.size]]
                    row += lines.size
                    if kept.size:  # runs of consecutive kept lines: one slice of the block each
                        brk = np.flatnonzero(np.diff(kept) != 1)
                        a = kept[np.concatenate([[0], brk + 1])]
                        b = kept[np.concatenate([brk, [kept.size - 1]])]
                        view = memoryview(block)
                        for x, y in zip(starts[a].tolist(), (ends[b] + 1).tolist()):
                            out.write(view[x:y])
                        n += int(kept.size)
                    if progress is not None:
                        progress(int(lines.size))

        return atomic_write(path, "wb", write)


# -- CSV ---------------------------------------------------------------------------------------


class CsvSource(_FileSource):
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

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    format = "csv"

    def __init__(
        self,
        path: str,
        column: str,
        id_column: str | None,
        priority_column: str | None = None,
        max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
        name: str | None = None,
    ) -> None:
        super().__init__(path, column, id_column, priority_column, max_row_bytes, name)
        self.delimiter = "\t" if self.path.lower().endswith(".tsv") else ","

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


# -- Parquet -----------------------------------------------------------------------------------


def _arrow_texts(col: Any, start: int, name: str, column: str, limit: int) -> list[str]:
    """The texts of an Arrow text column (dictionary-encoded too), each at most ``limit`` bytes."""
    import pyarrow as pa
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
    return col.to_pylist()


class ParquetSource(_FileSource):
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
        pa = _pyarrow()
        import pyarrow.parquet as pq

        f = self._open()
        try:
            pf = pq.ParquetFile(f)
        except (pa.ArrowException, OSError, ValueError) as e:
            f.close()
            raise DatasetError(f"{self.name}: not a readable Parquet file ({_first_line(e)})") from None
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

    def _batches(self, columns: list[str] | None, rows: int) -> Iterator[Any]:
        pa = _pyarrow()
        f, pf = self._file()
        with f:
            try:
                yield from pf.iter_batches(batch_size=rows, columns=columns)
            except (pa.ArrowException, OSError) as e:
                raise DatasetError(f"{self.name}: not a readable Parquet file ({_first_line(e)})") from None

    def _texts(self, col: Any, start: int) -> list[str]:
        return _arrow_texts(col, start, self.name, self.column, self.max_row_bytes)

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """See :meth:`Source.chunks`: record batches of ``rows`` rows, only the columns needed."""
        cols = [self.column]
        for c in (self.id_column, self.priority_column):
            if c is not None and c not in cols:
                cols.append(c)
        start = 0
        for b in self._batches(cols, rows):
            self.bytes_read = 0
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

    def write_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None = None) -> int:
        """See :meth:`Source.write_kept`: the kept rows, every column, with the input's schema."""
        pa = _pyarrow()
        import pyarrow.parquet as pq

        f, pf = self._file()
        schema = pf.schema_arrow
        f.close()

        def write(out: IO[bytes]) -> int:
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

        return atomic_write(path, "wb", write)


def _first_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


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

    def chunks(self, rows: int) -> Iterator[tuple[list[str], list, list | None]]:
        """See :meth:`Source.chunks`."""
        for lo in range(0, self.total, rows):
            hi = min(lo + rows, self.total)
            texts = _arrow_texts(
                self._col(self.column, lo, hi), lo, self.name, self.column, self.max_row_bytes
            )
            ids = (
                list(range(lo, hi))
                if self.id_column is None
                else self._col(self.id_column, lo, hi).to_pylist()
            )
            prio = None
            if self.priority_column is not None:
                vals = self._col(self.priority_column, lo, hi).to_pylist()
                prio = [_FileSource._priority(self, v, f"row {lo + i}") for i, v in enumerate(vals)]
            yield texts, ids, prio

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select` (``take`` on the text column)."""
        import pyarrow as pa

        col = self.table.column(self.column)
        for lo in range(0, rows.size, chunk):
            r = rows[lo : lo + chunk]
            part = col.take(pa.array(r)).combine_chunks()
            yield r, _arrow_texts(part, 0, self.name, self.column, self.max_row_bytes)

    def write_kept(self, path: str, keep: np.ndarray, progress: Callable[[int], object] | None = None) -> int:
        """Refused (see :meth:`Source.write_kept`): a table in memory is filtered by the keep mask."""
        raise DatasetError(
            f"{self.name}: the kept rows of a table in memory are not written to a file: take them "
            "with the keep mask (df[res.keep], table.filter(res.keep))"
        )

    def check_output(self, path: str) -> None:
        """See :meth:`Source.check_output`: any output is refused, as :meth:`write_kept` refuses it."""
        self.write_kept(path, None)


def _as_arrow(data: Any):
    """A pyarrow Table for a DataFrame, a Table or a ``datasets.Dataset``; None for anything else."""
    mod = type(data).__module__.split(".")[0]
    if mod not in ("pandas", "pyarrow", "datasets", "polars"):
        return None
    pa = _pyarrow()
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


class StdinSource(JsonlSource):
    """JSONL on standard input, spooled once to a private temporary file (read again from there).

    Parameters
    ----------
    column : str
        The text's key.
    id_column, priority_column : str or None
        The id's and the priority's keys (None: row numbers as ids, no priorities).
    max_row_bytes : int
        The longest line read, in bytes.
    stream : binary file, optional
        What to read instead of ``sys.stdin.buffer``.
    """

    def __init__(
        self,
        column: str,
        id_column: str | None,
        priority_column: str | None,
        max_row_bytes: int,
        stream: IO[bytes] | None = None,
    ) -> None:
        import shutil
        import sys
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix="simhash-lab-stdin-", suffix=".jsonl")
        self._tmp = tmp
        try:
            with os.fdopen(fd, "wb") as out:
                src = stream if stream is not None else sys.stdin.buffer
                shutil.copyfileobj(src, out, 1 << 20)
        except BaseException:
            os.unlink(tmp)
            raise
        super().__init__(tmp, column, id_column, priority_column, max_row_bytes, name="<stdin>")

    def close(self) -> None:
        """Remove the spooled copy (a second call does nothing)."""
        if self._tmp is not None and os.path.exists(self._tmp):
            os.unlink(self._tmp)
        self._tmp = None


def open_dataset(
    path: str | os.PathLike[str] | Any,
    column: str = "text",
    id_column: str | None = None,
    format: str | None = None,
    priority_column: str | None = None,
    max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
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
    table = None if isinstance(path, (str, bytes, os.PathLike)) else _as_arrow(path)
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
    return cls(path, column, id_column, priority_column, max_row_bytes)


# -- the duplicates table ----------------------------------------------------------------------

DUPLICATE_COLUMNS = ("dropped_id", "kept_id", "distance", "similarity", "dropped_row", "kept_row")


def check_duplicates_name(path: str) -> str:
    """The duplicates table's format from its name: ``.csv``/``.tsv``, ``.jsonl``, ``.parquet``, or
    CSV for a name without an ending (``/dev/stdout``); any other ending (``.xlsx``) is refused.

    Parameters
    ----------
    path : str
        The duplicates table's file name.

    Returns
    -------
    str
        ``"csv"``, ``"jsonl"`` or ``"parquet"``.

    Raises
    ------
    DatasetError
        The name ends in something else.
    """
    fmt = detect_format(path)
    if fmt is None:
        ext = os.path.splitext(os.path.basename(os.fspath(path)))[1]
        if ext:
            raise DatasetError(
                f"{show_name(path)}: the duplicates table is written as CSV, JSONL or Parquet, not {ext}: "
                f"name it .csv, .tsv, .jsonl or .parquet"
            )
        fmt = "csv"
    return fmt


def json_value(value: Any) -> Any:
    """A value strict JSON can hold: a float that is NaN or infinite becomes null (also inside
    lists and objects).

    Parameters
    ----------
    value : object
        A value for :func:`json.dumps`.

    Returns
    -------
    object
        ``value`` with every NaN or infinite float replaced by None (tuples become lists).

    Examples
    --------
    >>> json_value([1.0, float("nan"), {"x": float("inf")}])
    [1.0, None, {'x': None}]
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    return value


def duplicates_arrow(path: str, table: Duplicates) -> Any:
    """The duplicates table as the pyarrow Table its Parquet file holds.

    Parameters
    ----------
    path : str
        The Parquet file (named in the message).
    table : Duplicates
        The table.

    Returns
    -------
    pyarrow.Table

    Raises
    ------
    DatasetError
        Ids of several kinds that no one Arrow type holds (say int and str: JSONL ids can be any
        JSON value), or no pyarrow.
    """
    pa = _pyarrow()
    cols = {}
    for name, ids in (("dropped_id", table.dropped_id), ("kept_id", table.kept_id)):
        try:
            cols[name] = pa.array(list(ids))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            kinds = ", ".join(sorted({_kind(v) for v in ids}))
            raise DatasetError(
                f"{show_name(path)}: the ids are of several kinds ({kinds}) and a Parquet column "
                f"holds one: name the duplicates table .csv or .jsonl, or give ids of one kind"
            ) from None
    sim = [None if s != s else s for s in table.similarity.tolist()]
    return pa.table(
        {
            **cols,
            "distance": pa.array(table.distance, pa.int64()),
            "similarity": pa.array(sim, pa.float64()),
            "dropped_row": pa.array(table.dropped, pa.int64()),
            "kept_row": pa.array(table.kept, pa.int64()),
        }
    )


def write_duplicates(path: str, table: Duplicates, format: str | None = None, arrow: Any = None) -> None:
    """Write a :class:`~simhash_lab.dedup.Duplicates` table: CSV (default), JSONL or Parquet by the
    name's ending. Columns: ``dropped_id, kept_id, distance, similarity, dropped_row, kept_row``
    (``similarity`` empty / null when it was not computed). CSV cells that a spreadsheet would run
    as a formula are escaped, and rows end in CR LF (:mod:`simhash_lab._escape`); JSONL is strict
    JSON (:func:`json_value`).

    Parameters
    ----------
    path : str
        The output file (``.tsv``: tab-separated CSV), written by
        :func:`simhash_lab._write.atomic_output`.
    table : Duplicates
        The table to write.
    format : str, optional
        ``"csv"``, ``"jsonl"`` or ``"parquet"``; by default from the name
        (:func:`check_duplicates_name`).
    arrow : pyarrow.Table, optional
        For Parquet, the table :func:`duplicates_arrow` made already.

    Raises
    ------
    DatasetError
        The name's ending is not a table format, or Parquet without pyarrow or with ids of
        several kinds (:func:`duplicates_arrow`).
    simhash_lab._write.OutputError
        The file cannot be written.
    """
    fmt = format or check_duplicates_name(path)
    rows = zip(
        table.dropped_id,
        table.kept_id,
        table.distance.tolist(),
        table.similarity.tolist(),
        table.dropped.tolist(),
        table.kept.tolist(),
    )
    if fmt == "parquet":
        import pyarrow.parquet as pq

        data = arrow if arrow is not None else duplicates_arrow(path, table)
        atomic_write(path, "wb", lambda f: pq.write_table(data, f))
        return
    if fmt == "jsonl":

        def write(f: IO[str]) -> None:
            for d, k, dist, sim, dr, kr in rows:
                rec = dict(
                    zip(DUPLICATE_COLUMNS, (json_value(d), json_value(k), dist, json_value(sim), dr, kr))
                )
                f.write(json.dumps(rec, ensure_ascii=False, allow_nan=False, default=str) + "\n")

        atomic_write(path, "w", write, encoding="utf-8")
        return

    def write_csv(f: IO[str]) -> None:
        body = ((d, k, dist, "" if sim != sim else f"{sim:.6f}", dr, kr) for d, k, dist, sim, dr, kr in rows)
        csv_rows(f, [DUPLICATE_COLUMNS, *body], delimiter="\t" if path.lower().endswith(".tsv") else ",")

    atomic_write(path, "w", write_csv, encoding="utf-8", newline="")
