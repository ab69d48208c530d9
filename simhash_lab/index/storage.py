"""The index file format: a versioned, checksummed header and an ``.npz`` payload (never pickle).

The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32, SHA-256 of the
version bytes and the payload) followed by an ``.npz`` payload holding ``meta`` (UTF-8 JSON:
format, version, k, bits, layout, max_tables, n; from version 2 also ``hasher`` and ``keys``),
``fps`` (uint64, every id's fingerprint), ``alive`` (bool) and, from version 2, ``keys`` (UTF-8
JSON: one document key per id) when the index has keys. Tables are rebuilt on load.

Version 2 keeps what a saved index needs to be queried with new text: ``index.hasher`` (the
:class:`~simhash_lab.Simhasher` its fingerprints were made with: built-in tokenizer, hash name,
"tf" or "binary" weights; saved as its settings, rebuilt on load) and ``index.keys`` (a list of str
or int, one per id: a document's name, path or row id), both optional attributes set before
:meth:`~simhash_lab.SimhashIndex.save`::

    index.hasher, index.keys = hasher, ids
    index.save("docs.idx")
    again = SimhashIndex.load("docs.idx")
    [again.keys[i] for i, d in again.query(again.hasher.fingerprint(new_text))]

Version 1 files (no hasher, no keys) still load, with ``hasher`` and ``keys`` None.

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
from .._write import atomic_output
from .design import layout_to_json

__all__ = ["load", "save"]

_MAGIC = b"SIMHASHLAB-INDEX"  # 16 bytes
_FORMAT_VERSION = 2
_READS = (1, 2)  # versions load() reads
_HEADER = struct.Struct("<16sI32s")  # magic, version, sha256(version bytes + payload)


def save(index, path: str | os.PathLike) -> None:
    """Write the index to ``path`` (no pickle; versioned; checksummed).

    The file is a 52-byte header (magic ``SIMHASHLAB-INDEX``, format version as uint32,
    SHA-256 of the version bytes and the payload) followed by an ``.npz`` payload holding
    ``meta`` (UTF-8 JSON: format, version, k, bits, layout, max_tables, n, hasher, keys), ``fps``
    (uint64, every id's fingerprint), ``alive`` (bool) and ``keys`` (JSON, when ``index.keys`` is
    set). Tables are rebuilt on load. The write goes through :func:`simhash_lab._write.atomic_output`:
    a regular file is replaced only once the new one is whole (a temporary file beside it, renamed
    over it), a device, FIFO or link is written in place, never replaced.

    Raises
    ------
    ValueError, TypeError
        ``index.keys`` is not one str or int per id, or ``index.hasher`` cannot be saved (a custom
        tokenizer, hash or weight mapping, or another width than the index's).
    OutputError
        ``path`` cannot be written (a missing folder, a full disk); an OSError, named after the file.
    """
    keys = getattr(index, "keys", None)
    hasher = getattr(index, "hasher", None)
    meta = {
        "format": "simhash-lab index",
        "version": _FORMAT_VERSION,
        "k": index._k,
        "bits": index._bits,
        "layout": layout_to_json(index._layout_request),
        "max_tables": index._max_tables,
        "memory_budget": index._memory_budget,
        "n": index._n,
        "hasher": None if hasher is None else _hasher_to_json(hasher, index._bits),
        "keys": keys is not None,
    }
    members = {
        "meta": np.frombuffer(json.dumps(meta, sort_keys=True).encode(), np.uint8),
        "fps": index._fps[: index._n],
        "alive": index._alive[: index._n],
    }
    if keys is not None:
        members["keys"] = np.frombuffer(_keys_to_json(keys, index._n).encode(), np.uint8)
    buf = io.BytesIO()
    np.savez(buf, **members)
    payload = buf.getvalue()
    version = struct.pack("<I", _FORMAT_VERSION)
    digest = hashlib.sha256(version + payload).digest()
    with atomic_output(os.fspath(path), "wb") as f:
        f.write(_HEADER.pack(_MAGIC, _FORMAT_VERSION, digest))
        f.write(payload)


# what the metadata holds, by version: field -> (accepted JSON types, how the error names them)
_META_FIELDS_V1 = {
    "format": (str, "a str"),
    "version": (int, "an int"),
    "k": (int, "an int"),
    "bits": (int, "an int"),
    "layout": ((str, list), "a str or a list"),
    "max_tables": ((int, type(None)), "an int or null"),
    "n": (int, "an int"),
}
_META_FIELDS = {
    1: _META_FIELDS_V1,
    2: {
        **_META_FIELDS_V1,
        "max_tables": ((int, type(None)), "an int or null"),
        "memory_budget": ((int, type(None)), "an int or null"),
        "hasher": ((dict, type(None)), "an object or null"),
        "keys": (bool, "true or false"),
    },
}
_MEMBERS = {"meta.npy": "|u1", "fps.npy": "<u8", "alive.npy": "|b1", "keys.npy": "|u1"}
# the hasher's settings: field -> (JSON type, how the error names it)
_HASHER_FIELDS = {
    "bits": (int, "an int"),
    "tokenizer": (dict, "an object"),
    "hash": (str, "a str"),
    "weights": (str, "a str"),
    "default_weight": ((int, float), "a number"),
}
_TOKENIZER_FIELDS = {
    "name": (str, "a str"),
    "kind": (int, "an int"),
    "features": (int, "an int"),
    "n": (int, "an int"),
    "joiner": (str, "a str"),
    "lowercase": (bool, "true or false"),
    "empty_feature": (bool, "true or false"),
}
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
    kw = {} if meta["max_tables"] is None else {"max_tables": meta["max_tables"]}
    try:
        index = cls(
            k=meta["k"],
            bits=meta["bits"],
            layout=meta["layout"],
            memory_budget=meta.get("memory_budget"),
            **kw,
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
    index.keys = meta.get("keys")
    index.hasher = meta.get("hasher")
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
    if version not in _READS:
        raise _Bad(
            f"unsupported index format version {version} (this simhash-lab reads versions "
            f"{', '.join(map(str, _READS))})"
        )
    bad = "malformed simhash-lab index payload"
    try:
        zf = zipfile.ZipFile(io.BytesIO(payload))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as e:
        raise _Bad(f"{bad}: not a readable .npz archive ({e})") from None
    names = [i.filename for i in infos]
    allowed = ["alive.npy", "fps.npy", "meta.npy"]
    if sorted(names) != allowed and not (version >= 2 and sorted(names) == sorted([*allowed, "keys.npy"])):
        raise _Bad(f"{bad}: members {names}, expected {allowed}" + (" and keys.npy" if version >= 2 else ""))
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
    has_keys = meta.get("keys", False)
    if has_keys != ("keys.npy" in names):
        raise _Bad(
            f"{bad}: field 'keys' is {json.dumps(has_keys)} but the keys member is "
            f"{'missing' if has_keys else 'there'}"
        )
    meta["keys"] = _parse_keys(member("keys.npy", None).tobytes(), n) if has_keys else None
    if meta.get("hasher") is not None:
        meta["hasher"] = _parse_hasher(meta["hasher"], meta["bits"])
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
    fields = _META_FIELDS[version]
    missing = sorted(set(fields) - set(meta))
    extra = sorted(set(meta) - set(fields))
    if missing or extra:
        raise _Bad(f"{bad}: missing fields {missing}, unexpected fields {extra}")
    for key, (types, what) in fields.items():
        _check_type(meta[key], types, f"{bad}: field {key!r} must be {what}")
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


def _check_type(v, types, message: str) -> None:
    """``v`` has one of the JSON ``types`` (a bool is not an int, an int not a bool)."""
    ok = isinstance(v, bool) if types is bool else (not isinstance(v, bool) and isinstance(v, types))
    if not ok:
        raise _Bad(f"{message}, got {_short(v)}")


def _keys_to_json(keys, n: int) -> str:
    keys = list(keys)
    if len(keys) != n:
        raise ValueError(f"index.keys must hold one key per id: {len(keys)} keys for {n} ids")
    for i, key in enumerate(keys):
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise TypeError(f"index.keys[{i}] must be a str or an int, got {type(key).__name__}")
    try:
        return json.dumps(keys, ensure_ascii=False)
    except (UnicodeEncodeError, ValueError) as e:  # a lone surrogate
        raise ValueError(f"index.keys cannot be saved as UTF-8 JSON: {e}") from None


def _parse_keys(raw: bytes, n: int) -> list:
    bad = "malformed simhash-lab index payload: keys"
    try:
        keys = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _Bad(f"{bad} are not UTF-8 JSON ({e})") from None
    if not isinstance(keys, list) or len(keys) != n:
        raise _Bad(f"{bad} must be a list of {n} keys, got {_short(keys)}")
    for i, key in enumerate(keys):
        _check_type(key, (str, int), f"{bad}[{i}] must be a str or an int")
    return keys


def _hasher_to_json(hasher, bits: int) -> dict:
    from ..simhasher import Simhasher
    from ..tokenize import Tokenizer

    if not isinstance(hasher, Simhasher):
        raise TypeError(f"index.hasher must be a Simhasher, got {type(hasher).__name__}")
    tok = hasher.tokenizer
    if (
        not isinstance(tok, Tokenizer)
        or not isinstance(hasher.hash, str)
        or not isinstance(hasher.weights, str)
    ):
        raise ValueError(
            "index.hasher cannot be saved: only built-in tokenizers, hash names and 'tf' or 'binary' "
            "weights are (a callable or a mapping is code or data the file does not hold)"
        )
    if hasher.bits != bits:
        raise ValueError(
            f"index.hasher makes {hasher.bits}-bit fingerprints, the index holds {bits}-bit ones"
        )
    return {
        "bits": hasher.bits,
        "tokenizer": {
            "name": tok.name,
            "kind": tok.kind,
            "features": tok.features,
            "n": tok.n,
            "joiner": tok.joiner,
            "lowercase": tok.lowercase,
            "empty_feature": tok.empty_feature,
        },
        "hash": hasher.hash,
        "weights": hasher.weights,
        "default_weight": hasher.default_weight,
        "name": hasher.name,
    }


def _parse_hasher(h: dict, bits: int):
    """The Simhasher the ``hasher`` metadata describes, every field checked."""
    from ..kernels import tokenize as K
    from ..simhasher import HASHES, Simhasher
    from ..tokenize import Tokenizer

    bad = "malformed simhash-lab index payload: hasher"
    fields = {**_HASHER_FIELDS, "name": ((str, type(None)), "a str or null")}
    missing, extra = sorted(set(fields) - set(h)), sorted(set(h) - set(fields))
    if missing or extra:
        raise _Bad(f"{bad}: missing fields {missing}, unexpected fields {extra}")
    for key, (types, what) in fields.items():
        _check_type(h[key], types, f"{bad} field {key!r} must be {what}")
    t = h["tokenizer"]
    missing, extra = sorted(set(_TOKENIZER_FIELDS) - set(t)), sorted(set(t) - set(_TOKENIZER_FIELDS))
    if missing or extra:
        raise _Bad(f"{bad}: tokenizer: missing fields {missing}, unexpected fields {extra}")
    for key, (types, what) in _TOKENIZER_FIELDS.items():
        _check_type(t[key], types, f"{bad}: tokenizer field {key!r} must be {what}")
    checks = [
        (h["bits"] == bits, f"bits {h['bits']} differs from the index's {bits}"),
        (h["hash"] in HASHES, f"hash {_short(h['hash'])} is not one of {sorted(HASHES)}"),
        (h["weights"] in ("tf", "binary"), f"weights {_short(h['weights'])} is not 'tf' or 'binary'"),
        (t["kind"] in (K.TOK_WORDS, K.TOK_WHITESPACE, K.TOK_RUST), f"tokenizer kind {t['kind']} is unknown"),
        (
            t["features"] in (K.FEAT_TOKENS, K.FEAT_SHINGLES, K.FEAT_CHARGRAMS),
            f"tokenizer features {t['features']} is unknown",
        ),
        (1 <= t["n"] <= 64, f"tokenizer n {t['n']} is not between 1 and 64"),
        (t["joiner"] in ("", " "), f"tokenizer joiner {_short(t['joiner'])} is not '' or ' '"),
    ]
    for ok, why in checks:
        if not ok:
            raise _Bad(f"{bad}: {why}")
    tok = Tokenizer(
        t["name"], t["kind"], t["features"], t["n"], t["joiner"], t["lowercase"], t["empty_feature"]
    )
    try:
        return Simhasher(
            bits=bits, tokenizer=tok, hash=h["hash"], weights=h["weights"],
            default_weight=h["default_weight"], name=h["name"],
        )  # fmt: skip
    except (TypeError, ValueError) as e:
        raise _Bad(f"{bad}: {e}") from None


def _short(value) -> str:
    """``value`` as the file's JSON writes it, cut to 60 characters."""
    r = json.dumps(value)
    return r if len(r) <= 60 else r[:57] + "..."
