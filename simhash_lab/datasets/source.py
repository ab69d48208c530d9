"""What every dataset reader shares: :class:`Source` (rows of text with ids, readable again),
:class:`FileSource` (a file, local or in an fsspec filesystem, read again only while unchanged),
:class:`DatasetError`, the formats' names (:data:`FORMATS`, :func:`detect_format`) and
:func:`prefetch` (the next chunk read by a thread of its own).

Each format is a module of its own beside this one: :mod:`.jsonl` (and stdin), :mod:`.csv`,
:mod:`.parquet`, :mod:`.arrow` (a table in memory), :mod:`.texts` (a list of str), :mod:`.files`
(the text files under folders).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .._files import NotRegularFile, open_regular, show_name
from ..settings import DEFAULT_MAX_ROW_BYTES

__all__ = [
    "EXTRA_HINT",
    "FORMATS",
    "DatasetError",
    "FileSource",
    "Source",
    "check_priority",
    "cut_text",
    "detect_format",
    "prefetch",
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


def need_pyarrow() -> Any:
    """The ``pyarrow`` module (with ``pyarrow.parquet`` loaded), or a DatasetError naming the extra."""
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise DatasetError(f"Parquet needs pyarrow, part of the `datasets` extra: {EXTRA_HINT}") from None
    return pyarrow


def kind_of(value: Any) -> str:
    """What a value is, for a message: "null", "a number", "a list"..."""
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


def check_priority(value: Any, name: str, where: str, column: str | None) -> float:
    """A row's priority: a finite number (in CSV, a field that parses as one), else a
    DatasetError naming the file, the row and the column.

    Parameters
    ----------
    value : object
        The priority column's value.
    name, where, column : str
        The file's name, the row's place (``"line 3"``, ``"row 2"``) and the column's name.

    Returns
    -------
    float
    """
    v = value
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            v = None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
        raise DatasetError(
            f"{name}: {where}: priority column {column!r} is {kind_of(value)}"
            f"{' ' + repr(value) if isinstance(value, str) else ''}, not a finite number"
        )
    return float(v)


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

    def utf8_chunks(self, rows: int) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """:meth:`chunks`, the texts of a chunk either a list of ``str`` or, from a reader that
        finds them as UTF-8 bytes (JSONL's scanner, an Arrow string array), a
        :class:`~simhash_lab.datasets.utf8.Utf8Texts`: its ASCII texts left where they are, no
        ``str`` made for them (what the dedup's first read takes: issue 48). Here: :meth:`chunks`.

        Parameters
        ----------
        rows : int
            Rows per chunk (the last chunk may have fewer).

        Yields
        ------
        texts : list of str or Utf8Texts
            The chunk's texts (a sequence of ``str`` either way).
        ids : list
            Their ids (the id column's values, or row numbers from 0).
        priorities : list of float or None
            Their priorities, None without a priority column.

        Raises
        ------
        DatasetError
            A row that cannot be read, as :meth:`chunks` says it.
        """
        return self.chunks(rows)

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

    def write_kept(
        self,
        path: str,
        keep: np.ndarray,
        progress: Callable[[int], object] | None = None,
        edits: dict | None = None,
    ) -> int:
        """Write the rows where ``keep`` is True to ``path``, unchanged, in input order; returns how many.

        Parameters
        ----------
        path : str
            The output file, written by :func:`simhash_lab._write.atomic_output`.
        keep : ndarray, shape (n,), bool
            One flag per row of the input.
        progress : callable, optional
            Called with the number of rows passed over since its last call.
        edits : dict, optional
            ``{row: [(start, end), ...]}``: rows written with those spans of their text cut
            (:func:`cut_text`; ``unit="paragraph"`` or ``"line"``), the
            rest of the row as it was.

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


# -- files: read again only while unchanged ---------------------------------------------------


class FileSource(Source):
    """A dataset file, read again only while unchanged: a local path (opened as
    :mod:`simhash_lab._files` opens files: a regular file, never blocking; stamped by its inode,
    size and modification time), or a path in an fsspec filesystem ``fs`` (stamped by its
    ``ukey``: ETag, checksum). The same parsing and checks either way.

    Parameters
    ----------
    path : str
        The file (a path in ``fs`` when given).
    column : str
        The text column.
    id_column, priority_column : str or None
        The id and priority columns (None: row numbers as ids, no priorities).
    max_row_bytes : int
        The largest row read, in bytes.
    name : str, optional
        The name messages give the file (by default its shown path, or its URL in ``fs``).
    fs : fsspec filesystem, optional
        Where the file is (default: this machine's files).

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    def __init__(
        self,
        path: str,
        column: str,
        id_column: str | None,
        priority_column: str | None = None,
        max_row_bytes: int = DEFAULT_MAX_ROW_BYTES,
        name: str | None = None,
        fs: Any = None,
    ) -> None:
        self.path = os.fspath(path)
        self.fs = fs
        self.name = name or (show_name(self.path) if fs is None else fs.unstrip_protocol(self.path))
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

    def size_hint(self) -> tuple[int | None, str | None]:
        """See :meth:`Source.size_hint`: the file's bytes (the bar counts bytes read)."""
        try:
            return os.stat(self.path).st_size, "B"
        except OSError:
            return None, None

    def progress_step(self, rows: int) -> int:
        """See :meth:`Source.progress_step`: the bytes read since the last call."""
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
        return check_priority(value, self.name, where, self.priority_column)

    def _open(self):
        """The file, opened for reading; refused when it changed since it was first opened."""
        if self.fs is not None:
            try:
                stamp = self.fs.ukey(self.path)
                f = self.fs.open(self.path, "rb")
            except FileNotFoundError:
                raise DatasetError(f"{self.name}: no such file") from None
            except OSError as e:
                raise DatasetError(f"{self.name}: {e.strerror or e}") from None
        else:
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
        """See :meth:`Source.check_output` (the input itself refused too)."""
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


def cut_text(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the ``spans`` (``(start, end)``, sorted, apart): what a document keeps of
    itself (``unit=`` in :mod:`simhash_lab.dedup.units`; every format's ``write_kept`` applies
    it). When its last unit goes, the whitespace left at its end is what the text ended with.

    Parameters
    ----------
    text : str
        A document's text.
    spans : list of (int, int)
        The ``(start, end)`` character spans to remove, sorted and apart.

    Returns
    -------
    str
        The text without them.

    >>> cut_text("head\\n\\nbody\\n\\nfoot\\n", [(0, 6), (12, 17)])
    'body\\n'
    """
    if not spans:
        return text
    out, at = [], 0
    for a, b in spans:
        out.append(text[at:a])
        at = b
    out.append(text[at:])
    kept = "".join(out)
    if spans[-1][1] >= len(text):  # the last unit went: end as the text ended
        tail = text[len(text.rstrip()) :]
        kept = kept.rstrip() + tail if kept.strip() else ""
    return kept


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
