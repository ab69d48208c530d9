"""The index file format: a versioned, checksummed header and an ``.npz`` payload (never pickle).

The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32, SHA-256 of the
version bytes and the payload) followed by an ``.npz`` payload holding ``meta`` (UTF-8 JSON:
format, version, k, bits, layout, max_tables, n), ``fps`` (uint64, every id's fingerprint) and
``alive`` (bool). Tables are rebuilt on load.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import struct

import numpy as np

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


def load(cls, path: str | os.PathLike):
    """Read an index written by :meth:`save`.

    Raises
    ------
    ValueError
        If the file is not a simhash-lab index, has an unsupported version, or is truncated or
        altered (its checksum does not match).
    """
    with open(path, "rb") as f:
        data = f.read()
    where = os.fspath(path)
    if len(data) < _HEADER.size:
        raise ValueError(f"{where}: truncated simhash-lab index file ({len(data)} bytes)")
    magic, version, digest = _HEADER.unpack_from(data)
    if magic != _MAGIC:
        raise ValueError(f"{where}: not a simhash-lab index file (bad magic bytes)")
    payload = data[_HEADER.size :]
    if hashlib.sha256(data[16:20] + payload).digest() != digest:
        raise ValueError(f"{where}: checksum mismatch: the index file is corrupt or truncated")
    if version != _FORMAT_VERSION:
        raise ValueError(
            f"{where}: unsupported index format version {version} "
            f"(this simhash-lab reads version {_FORMAT_VERSION})"
        )
    try:
        with np.load(io.BytesIO(payload), allow_pickle=False) as z:
            meta = json.loads(bytes(z["meta"]).decode("utf-8"))
            fps = np.asarray(z["fps"])
            alive = np.asarray(z["alive"])
        k, bits, n = meta["k"], meta["bits"], meta["n"]
        layout = meta["layout"]
        layout = tuple(layout) if isinstance(layout, list) else layout
        max_tables = meta["max_tables"]
        ok = (
            meta.get("format") == "simhash-lab index"
            and meta.get("version") == version
            and fps.dtype == np.uint64
            and alive.dtype == np.bool_
            and fps.shape == alive.shape == (n,)
        )
    except Exception as exc:  # a payload that passed the checksum but is not ours
        raise ValueError(f"{where}: malformed simhash-lab index payload: {exc}") from None
    if not ok:
        raise ValueError(f"{where}: malformed simhash-lab index payload (fields do not agree)")
    index = cls(k=k, bits=bits, layout=layout, max_tables=max_tables)
    index._check_fps(fps, "fps (in the file)")
    index._reserve(n)
    index._fps[:n] = fps
    index._alive[:n] = alive
    index._n = n
    index._n_alive = int(alive.sum())
    index._dirty = True
    return index
