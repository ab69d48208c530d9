"""The index file format: a versioned, checksummed header and an ``.npz`` payload (never pickle).

The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32, SHA-256 of the
version bytes and the payload) followed by an ``.npz`` payload holding ``meta`` (UTF-8 JSON:
format, version, k, bits, layout, max_tables, n), ``fps`` (uint64, every id's fingerprint) and
``alive`` (bool). Tables are rebuilt on load.

:func:`load` trusts nothing in the file, the checksum included (anyone can re-seal one): it opens
only regular files (:func:`simhash_lab._files.open_regular`), checks every size a member declares
against the file and the metadata before allocating anything, and the type of every metadata
field. Every bad file is a ``ValueError`` that names the file and the problem.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct
import zipfile

import numpy as np

from .._files import NotRegularFile, open_regular, show_name
from .design import _layout_to_json

__all__ = ["load", "save"]

_MAGIC = b"SIMHASHLAB-INDEX"  # 16 bytes
_FORMAT_VERSION = 1
_HEADER = struct.Struct("<16sI32s")  # magic, version, sha256(version bytes + payload)


def save(index, path: str | os.PathLike) -> None:
    """Write the index to ``path`` (no pickle; versioned; checksummed).

    The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32,
    SHA-256 of the version bytes and the payload) followed by an ``.npz`` payload holding
    ``meta`` (UTF-8 JSON: format, version, k, bits, layout, max_tables, n), ``fps`` (uint64,
    every id's fingerprint) and ``alive`` (bool). Tables are rebuilt on load. The write is
    atomic (a temporary file renamed over ``path``).
    """
    meta = {
        "format": "simhash-lab index",
        "version": _FORMAT_VERSION,
        "k": index._k,
        "bits": index._bits,
        "layout": _layout_to_json(index._layout_request),
        "max_tables": index._max_tables,
        "memory_budget": index._memory_budget,
        "n": index._n,
    }
    buf = io.BytesIO()
    np.savez(
        buf,
        meta=np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8),
        fps=index._fps[: index._n],
        alive=index._alive[: index._n],
    )
    payload = buf.getvalue()
    version = struct.pack("<I", _FORMAT_VERSION)
    digest = hashlib.sha256(version + payload).digest()
    path = os.fspath(path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(_HEADER.pack(_MAGIC, _FORMAT_VERSION, digest))
            f.write(payload)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


# what the metadata holds: field -> (accepted JSON types, how the error names them)
_META_FIELDS = {
    "format": (str, "a str"),
    "version": (int, "an int"),
    "k": (int, "an int"),
    "bits": (int, "an int"),
    "layout": ((str, list), "a str or a list"),
    "max_tables": ((int, type(None)), "an int or null"),
    "n": (int, "an int"),
}
# fields a file may leave out (written by newer versions of save): field -> (types, name, default)
_OPTIONAL_FIELDS = {
    "memory_budget": ((int, type(None)), "an int or null", None),
}
_MEMBERS = {"meta.npy": "|u1", "fps.npy": "<u8", "alive.npy": "|b1"}
_MAX_META = 1 << 16  # bytes of JSON metadata; ours is about 120


class _Bad(Exception):
    """A problem with the file, said without its name (load() adds it)."""


def load(cls, path: str | os.PathLike):
    """Read an index written by :meth:`save`.

    Only a regular file is opened (never blocking: a FIFO or a link to a device is refused), and
    every size the file declares is checked before anything is allocated: the payload's members
    must be stored uncompressed, as :func:`save` writes them, each ``.npy`` header must declare the
    dtype and the shape ``(n,)`` that the metadata's ``n`` implies and hold exactly that many bytes;
    every metadata field must have its type (``"k": "3"``, ``"n": 2.0``, ``"n": true`` are refused).

    Raises
    ------
    ValueError
        If the file is not a regular file, not a simhash-lab index, has an unsupported version, is
        truncated or altered (its checksum does not match), or its payload does not describe a
        valid index; the message names the file and the problem.
    OSError
        If the file does not exist or cannot be read.
    """
    where = show_name(path)
    try:
        f = open_regular(path)
    except NotRegularFile as e:
        raise ValueError(f"{where}: {e}; an index file is a regular file") from None
    with f:
        header = f.read(_HEADER.size)
        if len(header) == _HEADER.size and header.startswith(_MAGIC):  # else nothing more is read
            payload = f.read()
        else:
            payload = b""
    try:
        meta, fps, alive = _parse(header, payload)
    except _Bad as e:
        raise ValueError(f"{where}: {e}") from None
    n = meta["n"]
    try:
        index = cls(
            k=meta["k"],
            bits=meta["bits"],
            layout=meta["layout"],
            max_tables=meta["max_tables"],
            memory_budget=meta["memory_budget"],
        )
        fps = index._check_fps(fps, "fps (in the file)")
        index._reserve(n)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{where}: malformed simhash-lab index payload: {e}") from None
    index._fps[:n] = fps
    index._alive[:n] = alive
    index._n = n
    index._n_alive = int(np.count_nonzero(alive))
    index._dirty = True
    return index


def _parse(header: bytes, payload: bytes) -> tuple[dict, np.ndarray, np.ndarray]:
    """The metadata (checked, layout as a tuple), fingerprints and alive flags of an index file."""
    if len(header) < _HEADER.size:
        raise _Bad(f"truncated simhash-lab index file ({len(header)} bytes)")
    magic, version, digest = _HEADER.unpack(header)
    if magic != _MAGIC:
        raise _Bad("not a simhash-lab index file (bad magic bytes)")
    h = hashlib.sha256(header[16:20])
    h.update(payload)
    if h.digest() != digest:
        raise _Bad("checksum mismatch: the index file is corrupt or truncated")
    if version != _FORMAT_VERSION:
        raise _Bad(
            f"unsupported index format version {version} (this simhash-lab reads version {_FORMAT_VERSION})"
        )
    bad = "malformed simhash-lab index payload"
    try:
        zf = zipfile.ZipFile(io.BytesIO(payload))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as e:
        raise _Bad(f"{bad}: not a readable .npz archive ({e})") from None
    names = [i.filename for i in infos]
    if sorted(names) != sorted(_MEMBERS):
        raise _Bad(f"{bad}: members {names}, expected {sorted(_MEMBERS)}")
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED:
            raise _Bad(f"{bad}: member {info.filename} is compressed (simhash-lab writes them stored)")
        if info.file_size != info.compress_size or info.file_size > len(payload):
            raise _Bad(
                f"{bad}: member {info.filename} declares {info.file_size:,} bytes "
                f"in a payload of {len(payload):,}"
            )

    def member(name: str, n: int | None) -> np.ndarray:
        try:
            raw = zf.read(name)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError) as e:
            raise _Bad(f"{bad}: member {name}: {e}") from None
        return _npy(raw, name, _MEMBERS[name], n)

    meta_bytes = member("meta.npy", None)
    if meta_bytes.size > _MAX_META:
        raise _Bad(f"{bad}: {meta_bytes.size:,} bytes of metadata (at most {_MAX_META:,})")
    meta = _check_meta(meta_bytes.tobytes(), version)
    n = meta["n"]
    if 9 * n > len(payload):  # 8 bytes of fingerprint and 1 flag per id
        raise _Bad(f"{bad}: metadata declares n = {n:,} ids, more than a {len(payload):,}-byte payload holds")
    fps = member("fps.npy", n)
    flags = member("alive.npy", n).view(np.uint8)
    if flags.size and int(flags.max()) > 1:
        raise _Bad(f"{bad}: alive holds a byte that is not 0 or 1")
    return meta, fps, flags.view(np.bool_)


def _npy(raw: bytes, name: str, descr: str, n: int | None) -> np.ndarray:
    """The 1-D array in the ``.npy`` bytes ``raw``, its header checked before any allocation: dtype
    ``descr``, shape ``(n,)`` (any length when ``n`` is None), exactly that many bytes of data."""
    fmt = np.lib.format
    bad = f"malformed simhash-lab index payload: member {name}"
    buf = io.BytesIO(raw)
    try:
        version = fmt.read_magic(buf)
        if version == (1, 0):
            shape, _, dtype = fmt.read_array_header_1_0(buf)  # (fortran order: the same for 1-D)
        elif version == (2, 0):
            shape, _, dtype = fmt.read_array_header_2_0(buf)
        else:
            raise ValueError(f"npy format version {version}")
    except (ValueError, TypeError, SyntaxError, EOFError) as e:
        raise _Bad(f"{bad}: not a .npy array header ({' '.join(str(e).split())})") from None
    want = np.dtype(descr)
    if dtype != want:
        raise _Bad(f"{bad}: dtype {dtype.str}, expected {want.str}")
    if len(shape) != 1 or (n is not None and shape[0] != n):
        raise _Bad(f"{bad}: shape {shape}, expected ({'n' if n is None else n},)")
    offset = buf.tell()
    if len(raw) - offset != shape[0] * want.itemsize:
        raise _Bad(
            f"{bad}: shape {shape} needs {shape[0] * want.itemsize:,} bytes, it holds {len(raw) - offset:,}"
        )
    return np.frombuffer(raw, dtype=want, count=shape[0], offset=offset)


def _check_meta(raw: bytes, version: int) -> dict:
    """The metadata JSON, every field of its type; ``layout`` as :class:`SimhashIndex` takes it."""
    bad = "malformed simhash-lab index payload: metadata"
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _Bad(f"{bad} is not UTF-8 JSON ({e})") from None
    if not isinstance(meta, dict):
        raise _Bad(f"{bad} must be a JSON object, got {type(meta).__name__}")
    missing = sorted(set(_META_FIELDS) - set(meta))
    extra = sorted(set(meta) - set(_META_FIELDS) - set(_OPTIONAL_FIELDS))
    if missing or extra:
        raise _Bad(f"{bad}: missing fields {missing}, unexpected fields {extra}")
    for key, (_, _, default) in _OPTIONAL_FIELDS.items():
        meta.setdefault(key, default)
    fields = {**_META_FIELDS, **{k: v[:2] for k, v in _OPTIONAL_FIELDS.items()}}
    for key, (types, what) in fields.items():
        v = meta[key]
        if isinstance(v, bool) or not isinstance(v, types):
            raise _Bad(f"{bad}: field {key!r} must be {what}, got {_short(v)}")
    if meta["format"] != "simhash-lab index":
        raise _Bad(f"{bad}: field 'format' is {_short(meta['format'])}, not 'simhash-lab index'")
    if meta["version"] != version:
        raise _Bad(f"{bad}: field 'version' is {meta['version']}, the header says {version}")
    if meta["n"] < 0:
        raise _Bad(f"{bad}: field 'n' must be >= 0, got {meta['n']}")
    layout = meta["layout"]
    if isinstance(layout, list):
        if not (
            layout
            and isinstance(layout[0], str)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in layout[1:])
        ):
            raise _Bad(
                f"{bad}: field 'layout' must be a name and ints, like [\"permuted\", 4], got {_short(layout)}"
            )
        meta["layout"] = tuple(layout)
    return meta


def _short(value) -> str:
    """``value`` as the file's JSON writes it, cut to 60 characters."""
    r = json.dumps(value)
    return r if len(r) <= 60 else r[:57] + "..."
