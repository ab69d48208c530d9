"""JSONL datasets (``.jsonl``, ``.ndjson``): one JSON object per line, blank lines passed over;
read in blocks, parsed by orjson a block at a time when it is installed (the standard :mod:`json`
for a line orjson refuses); kept rows written back byte for byte, as they were. Standard input
(``"-"``) is JSONL too: :class:`StdinSource` spools it once to a private temporary file.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO

import numpy as np

from .._write import Writeback, atomic_write, let_go, make_temporary
from ..kernels import files as _files
from .source import DatasetError, FileSource, cut_text, kind_of
from .utf8 import Utf8Texts

__all__ = ["JsonlSource", "StdinSource"]

# the compiled copy of runs of bytes (None: no copy_file_range in the C library)
_COPY_RUNS = _files.copy_runs if _files.AVAILABLE else None
_COPIED, _SHORT = _files.COPIED, _files.SHORT


def _json_loads():
    """The ``loads`` of orjson when it is installed (3-4x the standard module), else None."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


_ORJSON = _json_loads()


def _near(doc: str, pos: int, width: int = 24) -> str:
    """What a JSON line holds at ``pos``, for a message: up to ``width`` characters from there, as
    a Python literal (its quotes and escapes say where it ends), or "the end of the line"."""
    rest = doc[pos : pos + width].rstrip("\r\n")
    return repr(rest + ("..." if len(doc) - pos > width else "")) if rest else "the end of the line"


def _at_places(fd: int) -> bool:
    """Whether ``fd`` is a regular file not opened to append: an output the runs may be copied
    to at their offsets, from its position on (what it holds before stays)."""
    import fcntl  # POSIX only: imported where it is used

    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
    except OSError:
        return False


def _copied_runs(
    src: int, dst: int, run_s: np.ndarray, run_e: np.ndarray, at: np.ndarray, lo: int, hi: int,
    wb: Writeback, changed: Exception, chunk: Callable[[int], object] | None = None,
) -> tuple[int, tuple[int, int] | None]:  # fmt: skip
    """The runs ``lo`` to ``hi`` of ``src`` (``[run_s[i], run_e[i])``) copied to ``dst`` at
    ``at[i]`` by the compiled copy (:func:`simhash_lab.kernels.files.copy_runs`: no GIL from the
    first run to the last), one call for every ``wb.STEP`` bytes, each call's bytes handed to the
    device (``wb``) and ``chunk(i)`` called (the runs before ``i`` written). Returns ``(i,
    resume)``: ``i == hi`` (all copied, ``resume`` None), or the run in which a call failed and
    ``resume``, where it goes on (its source and output offsets): the caller copies the rest one
    call a run, which raises the error (or finds the output refuses the copy). The source ended
    early: ``changed``."""
    pos = np.zeros(2, np.int64)
    i = lo
    while i < hi:
        j, status = _COPY_RUNS(src, dst, run_s, run_e, at, i, hi, int(at[i]) + wb.STEP, pos)
        if status == _SHORT:
            raise changed
        if status != _COPIED:
            return j, (int(pos[0]), int(pos[1]))
        wb.wrote(int(at[j]))
        if chunk is not None:
            chunk(j)
        i = j
    return hi, None


#: an output too small for any block: the scan after one whose texts are read in place allocates
#: its own (``kernels.jsonl.scan_block``), the texts keep theirs
_NO_OUTPUT = np.empty(0, np.uint8)


class Pieces:
    """The bytes of a line begun in earlier blocks, kept as the blocks they came in and joined
    once, when the line ends: reading a line of n bytes costs O(n), where appending each block to
    one ``bytes`` copied the line so far every time (a 128 MiB line took 5.5 times a 64 MiB one).

    >>> p = Pieces(b"ab")
    >>> p.append(b"cd\\r")
    >>> len(p), p.longer_than(4), p.longer_than(3), p.join(b"e")
    (5, False, True, b'abcd\\re')
    """

    def __init__(self, first: bytes = b"") -> None:
        self.parts = [first] if first else []
        self.size = len(first)

    def __len__(self) -> int:
        return self.size

    def append(self, block: bytes) -> None:
        """Add the next block's bytes."""
        self.parts.append(block)
        self.size += len(block)

    def longer_than(self, limit: int) -> bool:
        """More than ``limit`` bytes, not counting the ``\\r`` they end with (a CR LF's CR)."""
        if self.size <= limit:
            return False
        crs = 0
        for part in reversed(self.parts):
            kept = len(part.rstrip(b"\r"))
            crs += len(part) - kept
            if kept:
                break
        return self.size - crs > limit

    def join(self, tail: bytes = b"") -> bytes:
        """The bytes so far, then ``tail``, as one ``bytes``."""
        return b"".join([*self.parts, tail]) if self.parts else tail


class JsonlSource(FileSource):
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
    fs : fsspec filesystem, optional
        Where the file is (default: this machine's files).

    Raises
    ------
    TypeError
        A column name that is not a non-empty str.
    """

    format = "jsonl"

    _BLOCK = 1 << 18  # bytes read at a time (a block's lines and records stay in the cache)

    def _wholes(self):
        """``(line number of the first, whole, lines, last_ends, offset)`` for each block of the
        file read ``_BLOCK`` bytes at a time: ``whole``, its whole lines as one ``bytes`` (or a
        memoryview of one), a
        ``\\n`` between two (the last one's ``\\n`` not in it; a ``\\r`` before a ``\\n`` stays);
        ``lines``: how many; ``last_ends`` is False only for a last line that has no newline;
        ``offset``: the byte where the first line starts. A line longer than ``max_row_bytes``
        (not counting its line end) is refused without being read whole."""
        limit = self.max_row_bytes
        self.bytes_read = self._shown = 0
        with self._open() as f:
            lineno = 1
            rest = Pieces()  # the start of a line that goes on in the next block
            at = 0  # the byte where ``rest`` starts
            while True:
                block = f.read(self._BLOCK)
                if not block:
                    if rest:
                        yield lineno, rest.join(), 1, False, at
                    return
                self.bytes_read += len(block)
                cut = block.rfind(b"\n")
                if cut < 0:
                    rest.append(block)
                    if rest.longer_than(limit):
                        raise self._too_large(f"line {lineno}")
                    continue
                view = memoryview(block)[:cut]  # joined to ``rest`` without a copy of its own
                whole = rest.join(view) if rest else view
                n = int(np.count_nonzero(np.frombuffer(whole, np.uint8) == 10)) + 1  # 4x bytes.count
                rest = Pieces(block[cut + 1 :])
                if len(whole) > limit:  # a line may be longer than the limit
                    lines = bytes(whole).split(b"\n")
                    for i, raw in enumerate(lines):
                        if len(raw) > limit and len(raw.rstrip(b"\r")) > limit:
                            raise self._too_large(f"line {lineno + i}")
                if rest.longer_than(limit):
                    raise self._too_large(f"line {lineno + n}")
                yield lineno, whole, n, True, at
                lineno += n
                at += len(whole) + 1

    def _blocks(self):
        """``(line number of the first, lines, last_ends, offset)`` for each block of
        :meth:`_wholes`: its lines, each without its ``\\n`` (a ``\\r`` before it stays)."""
        for lineno, whole, _, last_ends, at in self._wholes():
            yield lineno, bytes(whole).split(b"\n"), last_ends, at

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

    def records(self) -> Iterator[tuple[dict, str]]:
        """``(object, text)`` of every row, in order: each line's whole object (every column).

        Yields
        ------
        object : dict
        text : str

        Raises
        ------
        DatasetError
            A line that is not a JSON object with the text column.
        """
        for _, lineno, raw in self._records():
            yield self._parse(lineno, raw)

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
            except json.JSONDecodeError as e:  # its msg without the place, which str(e) words for a file
                raise DatasetError(
                    f"{self.name}: line {lineno}: not JSON ({e.msg.removesuffix(' at')} at column {e.colno}: "
                    f"{_near(e.doc, e.pos)})"
                ) from None
            except ValueError as e:
                raise DatasetError(f"{self.name}: line {lineno}: not JSON ({e})") from None
            except RecursionError:
                raise DatasetError(
                    f"{self.name}: line {lineno}: not JSON this program can read (nested too deeply)"
                ) from None
        if not isinstance(rec, dict):
            raise DatasetError(f"{self.name}: line {lineno}: {kind_of(rec)}, not a JSON object")
        try:
            text = rec[self.column]
        except KeyError:
            keys = ", ".join(map(repr, list(rec)[:8]))
            raise DatasetError(
                f"{self.name}: line {lineno}: no column {self.column!r} (the object has {keys or 'no keys'})"
            ) from None
        if not isinstance(text, str):
            raise DatasetError(
                f"{self.name}: line {lineno}: column {self.column!r} is {kind_of(text)}, not text"
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

    #: Files from this many bytes on are read by the compiled scanner (:meth:`_scanned`), when it
    #: is compiled (``simhash-lab warmup``; loading it costs about 10 ms, what orjson takes for
    #: 8 MiB); a smaller file by orjson alone.
    _SCAN_MIN = 1 << 23
    #: ... and from this many bytes on even when it is not (it compiles in about 3 s of CPU, once,
    #: saved to the cache: a tenth of the time a dedup of 1 GiB takes).
    _SCAN_COMPILE = 1 << 30

    def _scan_names(self) -> list | None:
        """The columns' names for the scanner (:func:`~simhash_lab.kernels.jsonl.column_names`),
        or None when the scanner is not used: a file smaller than ``_SCAN_MIN`` (or of unknown
        size), or than ``_SCAN_COMPILE`` while the scanner is not compiled; names it cannot take;
        Numba's compiler disabled (``NUMBA_DISABLE_JIT``)."""
        from numba.core import config

        from ..kernels._jit import is_cached
        from ..kernels.jsonl import column_names, scan_rows

        names = column_names(self.column, self.id_column, self.priority_column)
        if config.DISABLE_JIT or names is None:
            return None
        try:
            size = self.fs.size(self.path) if self.fs is not None else os.stat(self.path).st_size
        except (OSError, ValueError):
            return None
        if size is None or size < self._SCAN_MIN:
            return None
        return names if size >= self._SCAN_COMPILE or is_cached(scan_rows) else None

    def _parsed(self, lineno: int, whole: bytes, at: int, row: int, utf8: bool = False):
        """``(starts, ends, is_row, texts, ids, prio)`` of the lines ``whole`` (the first numbered
        ``lineno``, its first byte at ``at`` in the file, its first row ``row``) parsed by orjson in
        bulk (:meth:`_fast`), else one by one (:meth:`_slow`): each line's first byte and the byte
        after it (its ``\\n``, not counted), whether it is a row, its rows' values (``ids`` None
        without an id column)."""
        lines = whole.split(b"\n")
        lens = np.fromiter(map(len, lines), np.int64, len(lines))
        s = np.empty(len(lines), np.int64)
        s[0] = at
        np.cumsum(lens[:-1] + 1, out=s[1:])
        s[1:] += at
        body = self._body(lines)
        if len(body) != len(lines):  # blank lines are not rows
            is_row = np.fromiter((bool(x) and not x.isspace() for x in lines), np.bool_, len(lines))
        else:
            is_row = np.ones(len(lines), np.bool_)
        got = self._fast(body)
        if got is not None:
            t, i = got
            p = None
        else:
            t, i, p = self._slow(lineno, lines, row)
            i = i if self.id_column is not None else None
        return s, s + lens, is_row, Utf8Texts.of_strs(t) if utf8 else t, i, p

    def _scanned(
        self,
        lineno: int,
        whole: bytes | memoryview,
        n: int,
        names: list,
        scratch: list,
        row: int,
        utf8: bool = False,
    ):
        """``(starts, ends, is_row, texts, ids, prio)`` of a block's ``n`` lines ``whole`` read
        by the compiled scanner (:func:`simhash_lab.kernels.jsonl.scan_block`): each line's start
        and end in ``whole``, whether it is a row (not blank), and its rows' values, the same
        objects as orjson gives (``ids`` None without an id column). A line the scanner is not
        sure of is read alone as before (:meth:`_slow`: orjson, then json; the same results and
        messages), and the scan goes on after it; from a second such line in the block, the
        rest of the block is read as before (:meth:`_parsed`: a file whose every row has a NaN
        costs what it cost). ``row``: the block's first row; ``scratch``: the output buffer, the
        nesting stack (reused from block to block) and how many blocks in a row were read as
        before. ``utf8``: the texts as a :class:`~simhash_lab.datasets.utf8.Utf8Texts` (ASCII
        texts left in the scanner's output, no ``str`` made for them)."""
        from ..kernels.jsonl import scan_block

        view = whole if isinstance(whole, memoryview) else memoryview(whole)
        parts = []
        at = line = flags = 0  # where the lines not read yet start: their byte, their index in the block
        raw = None
        while True:
            got = scan_block(view[at:], n - line, names, scratch)
            k, flagged, _, s, e, is_row = got[:6]
            ok = k - 1 if flagged else k  # the lines read (before the one flagged)
            texts, ids, prio = self._values(lineno + line, view[at:], got, ok, utf8)
            if utf8:  # the texts point into the output: the next scan writes a fresh one
                scratch[0] = _NO_OUTPUT
            parts.append((s[:ok] + at, e[:ok] + at, is_row[:ok], texts, ids, prio))
            row += len(texts)
            if not flagged:
                break
            if raw is None:
                raw = bytes(whole)
            a = at + int(s[ok])
            flags += 1
            if flags > 1:  # more than one: the rest of the block as before (orjson in bulk)
                parts.append(self._parsed(lineno + line + ok, raw[a:], a, row, utf8))
                scratch[2] += 1
                break
            b = raw.find(b"\n", a)
            b = len(raw) if b < 0 else b
            texts, ids, prio = self._slow(lineno + line + ok, [raw[a:b]], row)
            ids = ids if self.id_column is not None else None
            texts = Utf8Texts.of_strs(texts) if utf8 else texts
            parts.append((np.array([a]), np.array([b]), np.array([bool(texts)]), texts, ids, prio))
            row += len(texts)
            line += ok + 1
            if b == len(raw):
                break
            at = b + 1
        if flags < 2:
            scratch[2] = 0  # blocks in a row read as before
        if len(parts) == 1:
            return parts[0]
        texts, ids = [], [] if self.id_column is not None else None
        prio = [] if self.priority_column is not None else None
        for _, _, _, t, i, p in parts:
            if utf8:
                texts.append(t)
            else:
                texts.extend(t)
            if ids is not None:
                ids.extend(i)
            if prio is not None:
                prio.extend(p)
        cat = [np.concatenate([part[j] for part in parts]) for j in range(3)]
        return cat[0], cat[1], cat[2], Utf8Texts.concat(texts) if utf8 else texts, ids, prio

    def _values(self, lineno: int, view: memoryview, got: tuple, ok: int, utf8: bool = False) -> tuple:
        """``(texts, ids, prio)`` of the rows :func:`~simhash_lab.kernels.jsonl.scan_block` read
        (``got``) from the first ``ok`` lines of ``view`` (line numbers from ``lineno``): one
        decode of its output for every text and str id,
        then a ``str`` slice a row; other ids and the priorities from their bytes by orjson (the
        standard json where it is not installed), as :meth:`_slow` would read them. ``utf8``: the
        texts as a :class:`~simhash_lab.datasets.utf8.Utf8Texts` of the output's bytes (the
        caller gives the next scan a fresh output): an ASCII text (as many code points as bytes)
        read in place, another one decoded from its bytes (the ``str`` the slice would be)."""
        from ..kernels.jsonl import ID_INT, ID_STR

        _, _, used, _, _, is_row, txt, idk, ida, idv, pra, out = got
        is_row = is_row[:ok]
        big = None
        if utf8:
            buf = out[:used]  # the scan's own output: the caller gives the next scan another
            mv = memoryview(buf)
            ascii = (txt[:, 1] - txt[:, 0]) == (txt[:, 3] - txt[:, 2])
            texts = Utf8Texts.of_buffer(
                buf, txt[:, 2], txt[:, 3], ascii,
                lambda rows: [str(mv[a:b], "utf-8") for a, b in txt[rows, 2:].tolist()],
            )  # fmt: skip
        else:
            big = str(memoryview(out)[:used], "utf-8")
            texts = [big[a:b] for a, b in zip(txt[:, 0].tolist(), txt[:, 1].tolist())]
        loads = _ORJSON or json.loads
        ids = prio = None
        if self.id_column is not None and big is None and (idk == ID_STR).any():
            # utf8: the str ids' bytes gathered and decoded once, not the whole output (the texts')
            s = idk == ID_STR
            bl = np.where(s, ida[:, 3] - ida[:, 2], 0)
            cl = np.where(s, ida[:, 1] - ida[:, 0], 0)
            idx = np.arange(int(bl.sum())) + np.repeat(ida[:, 2] - (np.cumsum(bl) - bl), bl)
            big = str(out[idx].tobytes(), "utf-8")
            ida = ida.copy()  # each str id's span in code points of ``big``
            ida[s, 1] = np.cumsum(cl)[s]
            ida[s, 0] = ida[s, 1] - cl[s]
        if self.id_column is not None:
            a, b = ida[:, 0].tolist(), ida[:, 1].tolist()
            if (idk == ID_STR).all():
                ids = [big[x:y] for x, y in zip(a, b)]
            elif (idk == ID_INT).all():
                ids = idv.tolist()
            else:
                ids = [
                    big[x:y] if k == ID_STR else v if k == ID_INT else loads(bytes(view[x:y]))
                    for k, v, x, y in zip(idk.tolist(), idv.tolist(), a, b)
                ]
        if self.priority_column is not None:
            at = (np.flatnonzero(is_row) + lineno).tolist()
            prio = [
                self._priority(loads(bytes(view[x:y])), f"line {ln}")
                for ln, x, y in zip(at, pra[:, 0].tolist(), pra[:, 1].tolist())
            ]
        return texts, ids, prio

    def chunks(self, rows: int, utf8: bool = False) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.chunks`: each block of lines read by the compiled scanner
        (:meth:`_scanned`, a file of at least ``_SCAN_MIN`` bytes; a line it flags by
        :meth:`_slow`), else parsed by :meth:`_fast`, else :meth:`_slow` (:meth:`_parsed`).
        ``utf8``: see :meth:`Source.utf8_chunks`."""
        texts: list = []  # utf8: the blocks' Utf8Texts not yielded yet, else their texts
        held = 0  # utf8: the rows in them
        ids = []
        prio = [] if self.priority_column is not None else None
        row = 0
        self._spans = self._linenos = None
        starts: list[np.ndarray] = []  # each row's bytes in the file (its line end included)
        ends: list[np.ndarray] = []
        linenos: list[np.ndarray] = []  # and its line number (for select's messages)
        names = self._scan_names()
        scratch = [np.empty(0, np.uint8), None, 0]
        for lineno, whole, n, last_ends, at in self._wholes():
            if scratch[2] >= 4:  # four blocks in a row read as before: the scanner left for this file
                names = None
            if names is not None:
                s, e, is_row, t, i, p = self._scanned(lineno, whole, n, names, scratch, row, utf8)
                s += at
                e += at
            else:
                s, e, is_row, t, i, p = self._parsed(lineno, bytes(whole), at, row, utf8)
            e += 1  # a row's bytes with its line end
            if i is None:
                i = list(range(row, row + len(t)))
            if not last_ends:
                e[-1] -= 1
            ln = np.arange(lineno, lineno + n, dtype=np.int64)
            if not is_row.all():
                s, e, ln = s[is_row], e[is_row], ln[is_row]
            starts.append(s)
            ends.append(e)
            linenos.append(ln)
            row += len(t)
            if utf8:
                texts.append(t)
                held += len(t)
            else:
                texts.extend(t)
            ids.extend(i)
            if prio is not None:
                prio.extend(p)
            if utf8 and held >= rows:
                texts = [Utf8Texts.concat(texts)]
            while (held if utf8 else len(texts)) >= rows:
                if utf8:
                    yield texts[0][:rows], ids[:rows], prio[:rows] if prio is not None else None
                    texts = [texts[0][rows:]]
                    held -= rows
                else:
                    yield texts[:rows], ids[:rows], prio[:rows] if prio is not None else None
                    del texts[:rows]
                del ids[:rows]
                if prio is not None:
                    del prio[:rows]
        # the whole file was read: where each row lies, for write_kept (the file's stamp, checked
        # when it is opened again, says it is the same file)
        self._spans = (
            np.concatenate(starts) if starts else np.empty(0, np.int64),
            np.concatenate(ends) if ends else np.empty(0, np.int64),
        )
        self._linenos = np.concatenate(linenos) if linenos else np.empty(0, np.int64)
        if utf8 and held:
            yield Utf8Texts.concat(texts), ids, prio
        elif texts and not utf8:
            yield texts, ids, prio

    def utf8_chunks(self, rows: int) -> Iterator[tuple[Sequence[str], list, list | None]]:
        """See :meth:`Source.utf8_chunks`: the scanner's texts (:meth:`_values`)."""
        return self.chunks(rows, utf8=True)

    def select(self, rows: np.ndarray, chunk: int) -> Iterator[tuple[np.ndarray, list[str]]]:
        """See :meth:`Source.select` (only the wanted lines are parsed). After a whole first read
        (:meth:`chunks`) the rows' places in the file are known: only the wanted lines are read
        (1M rows, a fifth of them wanted: no scan of the other 600 MB), else the file is scanned."""
        spans = getattr(self, "_spans", None)
        known = spans is not None and getattr(self, "_linenos", None) is not None
        if known and self.fs is None and rows.size and int(rows[-1]) < spans[0].shape[0]:
            return self._select_places(rows, chunk, spans[0], spans[1])
        records = ((row, lambda lineno=lineno, raw=raw: self._parse(lineno, raw)[1])
                   for row, lineno, raw in self._records())  # fmt: skip
        return self._pick(rows, chunk, records)

    def _select_places(
        self, rows: np.ndarray, chunk: int, starts: np.ndarray, ends: np.ndarray
    ) -> Iterator[tuple[np.ndarray, list[str]]]:
        """:meth:`select` by the rows' places: each wanted line read where it lies (``os.pread``)
        and parsed, ``chunk`` rows at a time; the file refused if it changed since the first read."""
        with self._open() as f:
            fd = f.fileno()
            for lo in range(0, rows.size, chunk):
                r = rows[lo : lo + chunk]
                texts = []
                for s, e, ln in zip(starts[r].tolist(), ends[r].tolist(), self._linenos[r].tolist()):
                    raw = os.pread(fd, e - s, s)
                    if len(raw) != e - s:
                        raise DatasetError(f"{self.name}: the file changed while it was being deduplicated")
                    texts.append(self._parse(ln, raw[:-1] if raw.endswith(b"\n") else raw)[1])
                yield r, texts

    def write_kept(
        self,
        path: str,
        keep: np.ndarray,
        progress: Callable[[int], object] | None = None,
        edits: dict | None = None,
    ) -> int:
        """See :meth:`Source.write_kept`: the kept rows as they were, each with its line end (the
        file's last line: as it ends), blank lines left out; a row in ``edits`` (row: the spans
        of its text to cut, :func:`~simhash_lab.datasets.source.cut_text`) is written again as the same
        object with its text cut (:meth:`_edit_kept`). After a whole first read
        (:meth:`chunks`) the rows' places in the file are known: each run of consecutive kept rows
        is copied by the kernel (``os.copy_file_range``; where the output refuses it, read and
        written); else runs of kept rows are found by NumPy in blocks of the file and written as
        slices of it, never split into lines."""
        keep = np.asarray(keep, np.bool_)
        if edits:
            return atomic_write(path, "wb", lambda out: self._edit_kept(out, keep, progress, edits))
        spans = getattr(self, "_spans", None)
        if spans is not None and spans[0].shape[0] == keep.shape[0]:
            return atomic_write(path, "wb", lambda out: self._copy_kept(out, keep, spans, progress))
        return self._scan_kept(path, keep, progress)

    def _edit_kept(
        self, out: IO[bytes], keep: np.ndarray, progress: Callable[[int], object] | None, edits: dict
    ) -> int:
        """The kept rows, line by line: each as it was, or (``edits``) its object written again
        with its text cut, its keys in their order, as JSON (``ensure_ascii=False``), its line end
        kept."""
        row = n = 0
        for lineno, lines, last_ends, _ in self._blocks():
            for i, raw in enumerate(lines):
                if not raw or raw.isspace():
                    continue
                if keep[row]:
                    end = b"\n" if last_ends or i < len(lines) - 1 else b""
                    if row in edits:
                        rec = self._parse(lineno + i, raw)[0]
                        rec[self.column] = cut_text(rec[self.column], edits[row])
                        cr = b"\r" if raw.endswith(b"\r") else b""
                        raw = json.dumps(rec, ensure_ascii=False).encode("utf-8", "surrogatepass") + cr
                    out.write(raw + end)
                    n += 1
                row += 1
            if progress is not None:
                progress(len(lines))
        return n

    _COPY = 1 << 24  # bytes per read when the output refuses copy_file_range

    def _copy_kept(
        self, out: IO[bytes], keep: np.ndarray, spans: tuple, progress: Callable[[int], object] | None
    ) -> int:
        """The kept rows' runs of bytes (``spans``: each row's start and end in the file) copied
        from the file into ``out``, in order; returns the rows written. Into a regular file, the
        runs are copied by one compiled call for every :attr:`Writeback.STEP` bytes of them
        (:func:`_copied_runs`), which holds no GIL: a Python thread beside it (the duplicates
        table) runs meanwhile; else, or from a run the compiled copy could not copy, one
        ``os.copy_file_range`` a run, and where the output refuses that, reads and writes.

        One thread copies: two halves copied by two threads at their places took as long (1M rows,
        720 MB kept, ext4: a buffered write holds the file's inode lock, so the halves' copies
        took turns) and 0.09 s more CPU; what the second thread gained before was the Python
        between one run's call and the next, which the compiled copy no longer has
        (``benchmarks/results/2026-12-07-write-overlap.md``)."""
        starts, ends = spans
        rows = np.flatnonzero(keep)
        n = int(rows.size)
        if n:
            s, e = starts[rows], ends[rows]
            brk = np.flatnonzero(s[1:] != e[:-1]) + 1  # a dropped row or a blank line between
            first = np.concatenate([[0], brk])
            last = np.concatenate([brk - 1, [n - 1]])
            run_s, run_e = s[first].astype(np.int64), e[last].astype(np.int64)
            upto = (rows[last] + 1).tolist()  # rows passed over once each run is written
        else:
            run_s = run_e = np.empty(0, np.int64)
            upto = []
        refused = {errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF, errno.EPERM}
        refused |= {getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}
        copy = hasattr(os, "copy_file_range")
        changed = DatasetError(f"{self.name}: the file changed while it was being deduplicated")
        out.flush()
        dst = out.fileno()
        with self._open() as f:
            src = f.fileno()
            shown = 0
            wb, put = Writeback(dst), 0  # from the output's position
            i, resume = 0, None
            if copy and run_s.size and _COPY_RUNS is not None and _at_places(dst):
                at = np.concatenate([[0], np.cumsum(run_e - run_s)]) + wb.start  # each run's place

                def chunk(j: int) -> None:
                    nonlocal shown
                    if progress is not None and j and upto[j - 1] > shown:
                        progress(upto[j - 1] - shown)
                        shown = upto[j - 1]

                i, resume = _copied_runs(src, dst, run_s, run_e, at, 0, run_s.size, wb, changed, chunk)
                if i < run_s.size:  # a call failed in run i: from there, one call a run (it says why)
                    put = int(resume[1]) - wb.start
                    os.lseek(dst, int(resume[1]), os.SEEK_SET)
                else:
                    os.lseek(dst, int(at[-1]), os.SEEK_SET)
            for k, (a, b, r) in enumerate(zip(run_s[i:].tolist(), run_e[i:].tolist(), upto[i:])):
                if k == 0 and resume is not None:
                    a = int(resume[0])
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
                rest = Pieces()  # the start of a line that goes on in the next block
                while True:
                    block = f.read(16 * self._BLOCK)
                    nl = np.flatnonzero(np.frombuffer(block, np.uint8) == 10)
                    if block and not nl.size:
                        rest.append(block)
                        continue
                    # the line begun in ``rest`` (or the last one, without newline), alone
                    head = rest.join(block[: nl[0] + 1] if nl.size else b"")
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
                    rest = Pieces(block[nl[-1] + 1 :])
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
        # a private temporary file, removed by close() or, should SIGTERM or SIGHUP end the run
        # first, by the writer's signal handler (simhash_lab._write.make_temporary)
        fd, tmp = make_temporary(prefix="simhash-lab-stdin-", suffix=".jsonl")
        self._tmp = tmp
        try:
            with os.fdopen(fd, "wb") as out:
                src = stream if stream is not None else sys.stdin.buffer
                shutil.copyfileobj(src, out, 1 << 20)
        except BaseException:
            os.unlink(tmp)
            let_go(tmp)
            raise
        super().__init__(tmp, column, id_column, priority_column, max_row_bytes, name="<stdin>")

    def close(self) -> None:
        """Remove the spooled copy (a second call does nothing)."""
        if self._tmp is not None:
            if os.path.exists(self._tmp):
                os.unlink(self._tmp)
            let_go(self._tmp)
        self._tmp = None
