"""The shuffle's files: the pieces a Dask task writes for the tasks of the next step, and the ids
they carry.

MapReduce's map outputs: a task writes its pieces for every destination of a step as one file,
``{run}/{step}/{task}.pieces`` (:func:`save_pieces`): a header, an index of where each
destination's piece lies, then the pieces, each a few arrays in their memory layout at 64-byte
boundaries (:func:`piece_buffers`: no archive, no checksum, no copy into one buffer first); a
reader reads its index entries and its piece only (:func:`read_pieces`). A single piece can also
be a file of its own (:func:`save_piece`, :func:`load_piece`). Every file is named by the task
that writes it and written whole (:mod:`simhash_lab._storage`), so a task run again writes the
same file.

Ids travel as one Arrow string array's offsets and bytes when every id is a ``str``
(:func:`ids_columns`, :func:`ids_at`), else as JSON (:func:`ids_bytes`, :func:`ids_of`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .. import _storage

__all__ = [
    "PIECE",
    "PIECES",
    "id_strings",
    "ids_at",
    "ids_bytes",
    "ids_columns",
    "ids_of",
    "load_piece",
    "parse_piece",
    "piece_buffers",
    "read_pieces",
    "save_piece",
    "save_pieces",
]

PIECE = ".piece"  # a file of one piece (see _save)
PIECES = ".pieces"  # a task's file of pieces for a step's destinations (see save_pieces)
_MAGIC = b"SHLPIECE"
_MAGIC_MANY = b"SHLPIECS"
_ALIGN = 64


def piece_buffers(arrays: dict) -> list:
    """The bytes of one piece, as buffers: ``SHLPIECE``, the header's length (uint64,
    little-endian), the header (JSON: each array's name, dtype and shape), then each array's bytes
    as they are in memory, each at a multiple of 64 bytes from the piece's start: no archive, no
    checksum, no copy into one buffer first (what ``np.savez`` costs: a CRC32 of every byte and two
    copies)."""
    cols = [(name, np.require(a, requirements="C")) for name, a in arrays.items()]  # 0-d stays 0-d
    head = json.dumps([[name, a.dtype.str, list(a.shape)] for name, a in cols]).encode()
    start = len(_MAGIC) + 8 + len(head)
    pad = -start % _ALIGN
    buffers: list = [_MAGIC, np.uint64(len(head) + pad).astype("<u8").tobytes(), head + b" " * pad]
    for _, a in cols:
        raw = a.reshape(-1).view(np.uint8)
        buffers.append(memoryview(raw))
        if -raw.size % _ALIGN:
            buffers.append(bytes(-raw.size % _ALIGN))
    return buffers


def save_piece(sfs: Any, path: str, **arrays: np.ndarray) -> None:
    """Write ``arrays`` as one piece, the whole file (:func:`piece_buffers`)."""
    _storage.put_buffers(sfs, path, piece_buffers(arrays))


def parse_piece(buf: bytearray, where: str, keys: Sequence[str] | None = None) -> dict:
    """The arrays of the piece in ``buf`` (``keys`` only, or all), writable views of it."""
    if bytes(buf[: len(_MAGIC)]) != _MAGIC:
        raise ValueError(f"{where}: not a shuffle piece")
    hl = int(np.frombuffer(buf, "<u8", 1, len(_MAGIC))[0])
    pos = len(_MAGIC) + 8 + hl
    out = {}
    for name, dt, shape in json.loads(bytes(buf[len(_MAGIC) + 8 : pos])):
        dtype = np.dtype(dt)
        count = int(np.prod(shape, dtype=np.int64))
        size = count * dtype.itemsize
        if keys is None or name in keys:
            a = np.frombuffer(buf, dtype, count, pos) if count else np.empty(0, dtype)
            out[name] = a.reshape(tuple(shape))
        pos += size + (-size % _ALIGN)
    return out


def load_piece(sfs: Any, path: str, keys: Sequence[str] | None = None) -> dict:
    """The arrays of a piece :func:`_save` wrote (``keys`` only, or all), writable, as views of
    the bytes read (one read, no copy)."""
    return parse_piece(_storage.read_buffer(sfs, path), path, keys)


def save_pieces(sfs: Any, run: str, step: str, src: int, n_dest: int, pieces: dict) -> None:
    """Write task ``src``'s pieces of ``step`` (``{destination: {name: array}}``, destinations
    below ``n_dest``) as one file, ``{step}/{src}.pieces``: ``SHLPIECS``, ``n_dest`` (uint64,
    little-endian), the index (``n_dest + 1`` uint64 byte offsets: destination ``d``'s piece is
    the bytes ``[index[d], index[d + 1])`` of the file, none when they are equal), then the pieces
    (:func:`piece_buffers`), each at a multiple of 64 bytes. A reader reads the index entries of
    its destination, then its piece only (:func:`_pieces`): a step writes a file a task where a
    file a piece made partitions x reducers of them (at 64 partitions, 4,096 a step, each
    reducer's listing scanning them all: at 1M rows the workers spent 6-14 s of system time
    against 2.1-2.5 s this way, ``benchmarks/results/2026-12-04-dask-files.md``)."""
    head = len(_MAGIC_MANY) + 8 * (n_dest + 2)
    head += -head % _ALIGN
    index = np.full(n_dest + 1, head, np.uint64)
    buffers: list = []
    at = head
    for d in range(n_dest):
        index[d] = at
        if d in pieces:
            for b in piece_buffers(pieces[d]):
                buffers.append(b)
                at += len(b) if isinstance(b, bytes) else b.nbytes
    index[n_dest] = at
    top = [_MAGIC_MANY, np.uint64(n_dest).astype("<u8").tobytes(), index.astype("<u8").tobytes()]
    top.append(bytes(head - len(_MAGIC_MANY) - 8 * (n_dest + 2)))
    _storage.put_buffers(sfs, _storage.join(sfs, run, step, f"{src}{PIECES}"), top + buffers)


def read_pieces(
    sfs: Any, run: str, step: str, dest: int | None, keys: Sequence[str] | None = None
) -> list[dict]:
    """The pieces for destination ``dest`` (None: every destination) in the files of ``step``
    (:func:`save_pieces`), in the order of the files' names, then of destinations (``keys``
    only, or all arrays): of each file, the index entries of ``dest`` and its piece are read."""
    out = []
    top = len(_MAGIC_MANY) + 8
    for name in _storage.list_files(sfs, _storage.join(sfs, run, step), "", PIECES):
        with _storage.read_ranges(sfs, name) as read:
            head = read(0, top)
            if len(head) < top or bytes(head[: len(_MAGIC_MANY)]) != _MAGIC_MANY:
                raise ValueError(f"{name}: not a file of shuffle pieces")
            n = int(np.frombuffer(head, "<u8", 1, len(_MAGIC_MANY))[0])
            lo, hi = (0, n) if dest is None else (int(dest), int(dest) + 1)
            if not 0 <= lo <= hi <= n:
                raise ValueError(f"{name}: no destination {dest} (the file has {n})")
            raw = read(top + 8 * lo, top + 8 * (hi + 1))
            if len(raw) < 8 * (hi - lo + 1):
                raise ValueError(f"{name}: not a file of shuffle pieces (its index is cut short)")
            index = np.frombuffer(raw, "<u8").astype(np.int64)
            if index[-1] > index[0]:
                buf = memoryview(read(int(index[0]), int(index[-1])))
                if buf.nbytes < index[-1] - index[0]:
                    raise ValueError(f"{name}: not a file of shuffle pieces (its pieces are cut short)")
                for a, b in zip((index[:-1] - index[0]).tolist(), (index[1:] - index[0]).tolist()):
                    if b > a:
                        out.append(parse_piece(buf[a:b], name, keys))
    return out


def ids_bytes(ids: Iterable[Any]) -> np.ndarray:
    """Ids of any JSON-able kind as the bytes of one JSON list (uint8), read back by :func:`ids_of`."""
    return np.frombuffer(json.dumps(list(ids), default=str).encode(), np.uint8)


def ids_of(raw: np.ndarray) -> list:
    """The ids :func:`ids_bytes` wrote."""
    return json.loads(raw.tobytes().decode()) if raw.size else []


def id_strings(ids: list) -> Any:
    """The ids as one Arrow string array when every one is a ``str`` (a string id column), else
    None: those travel as JSON (:func:`ids_bytes`), as any other ids do."""
    import pyarrow as pa  # the datasets extra: imported where it is used

    if not ids or set(map(type, ids)) != {str}:
        return None
    try:
        return pa.array(ids, pa.large_string())
    except (pa.ArrowException, UnicodeError):  # a lone surrogate: not UTF-8
        return None


def ids_columns(ids: list, strings: Any, rows: np.ndarray) -> dict:
    """The ids of ``rows`` as a piece's arrays: ``id_off`` and ``id_utf8`` (the strings' offsets
    and bytes, taken in Arrow: no Python object a row) when ``strings`` holds them, else ``ids``
    (JSON); read back by :func:`ids_at`."""
    if strings is None:
        return {"ids": ids_bytes([ids[i] for i in rows.tolist()])}
    import pyarrow as pa

    got = strings.take(pa.array(rows, pa.int64()))
    off = np.frombuffer(got.buffers()[1], np.int64, len(got) + 1, got.offset * 8)
    data = got.buffers()[2]
    utf8 = np.frombuffer(data, np.uint8) if data is not None else np.empty(0, np.uint8)
    return {"id_off": off - off[0], "id_utf8": utf8[off[0] : off[-1]]}


def ids_at(got: list[dict], at: np.ndarray) -> list:
    """The ids at positions ``at`` of the pieces ``got`` put end to end (as
    :func:`ids_columns` wrote them): only those decoded where every piece holds strings."""
    if got and all("id_off" in x for x in got):
        import pyarrow as pa

        parts = [
            pa.LargeStringArray.from_buffers(
                x["id_off"].size - 1, pa.py_buffer(x["id_off"]), pa.py_buffer(x["id_utf8"])
            )
            for x in got
        ]
        return pa.concat_arrays(parts).take(pa.array(at, pa.int64())).to_pylist()
    every = [
        v
        for x in got
        for v in (ids_of(x["ids"]) if "ids" in x else ids_at([x], np.arange(x["id_off"].size - 1)))
    ]
    return [every[i] for i in at.tolist()]
