"""Where :func:`simhash_lab.distributed.dedup_dataset` reads and writes: any fsspec URL.

Partitions, the output folder and the scratch folder of the shuffles are fsspec URLs (``s3://``,
``gs://``, ``abfs://``, ``hdfs://``, ``memory://``, ``file://``) or plain paths, opened with the
``storage_options`` the user passes (as fsspec and pyarrow take them). The filesystem object is what
travels to the workers (fsspec filesystems pickle as their protocol and options).

Writes never leave a half-written object under its final name, as :mod:`simhash_lab._write` does
for local files:

* local paths: bytes through :func:`simhash_lab._write.atomic_output` (the one writer of every
  output file); a file another library writes by name (Parquet) is a temporary file beside the
  target (:func:`tempfile.mkstemp`: unpredictable, ``O_EXCL``), given the permissions a new file
  gets (the umask's) and renamed over the target with :func:`os.replace`; it is removed on every
  exit path that runs;
* other filesystems: the bytes go to a temporary key beside the target (``.NAME.<random>.tmp``,
  which no reader lists), then :meth:`fs.mv <fsspec.spec.AbstractFileSystem.mv>` commits it under
  the final name (on an object store a copy: an object is seen whole or not at all), and the
  temporary key is removed on every exit path that runs.

Every write of a task is keyed by the task (its partition or reducer number), never appended to,
so a task run twice (a worker lost, the task retried) writes the same objects again.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator, Sequence

from ._write import atomic_output, current_umask, let_go, make_temporary

__all__ = [
    "StorageError",
    "filesystem",
    "expand_partitions",
    "is_local",
    "join",
    "staged_file",
    "put_bytes",
    "put_buffers",
]

FSSPEC_HINT = "pip install 'simhash-lab[dask]'"
#: file name endings a folder URL's partitions may have
PARTITION_ENDINGS = (".parquet", ".pq", ".jsonl", ".ndjson")
_GLOB_CHARS = "*?["


class StorageError(ValueError):
    """A URL that cannot be used as asked: ``str(e)`` is one line naming the parameter and the URL."""


def _fsspec():
    try:
        import fsspec
    except ImportError:
        raise ImportError(f"URLs need fsspec, part of the `dask` extra: {FSSPEC_HINT}") from None
    return fsspec


def filesystem(url, storage_options: dict | None = None, param: str = "path"):
    """``(fs, path)`` for a URL or a plain path: the fsspec filesystem and the path inside it."""
    fsspec = _fsspec()
    url = os.fspath(url)
    if not isinstance(url, str) or not url:
        raise StorageError(f"{param} must be a non-empty path or URL, got {url!r}")
    if storage_options is not None and not isinstance(storage_options, dict):
        raise TypeError(f"storage_options must be a dict, got {type(storage_options).__name__}")
    try:
        fs, path = fsspec.core.url_to_fs(url, **(storage_options or {}))
    except (ImportError, ValueError) as e:  # an unknown protocol, or its package missing
        raise StorageError(f"{param}: cannot open {url!r}: {e}") from None
    return fs, path


def is_local(fs) -> bool:
    from fsspec.implementations.local import LocalFileSystem

    return isinstance(fs, LocalFileSystem)


def join(fs, folder: str, *names: str) -> str:
    """``folder/name/...`` in ``fs``'s separator (``/`` everywhere but local Windows paths)."""
    if is_local(fs):
        return os.path.join(folder, *names)
    return "/".join([folder.rstrip("/"), *names])


def url_of(fs, path: str) -> str:
    """The URL of ``path`` in ``fs`` (a plain path for the local filesystem), for messages."""
    return path if is_local(fs) else fs.unstrip_protocol(path)


def expand_partitions(partitions, storage_options: dict | None = None):
    """``(fs, [paths])``: the partition files of a glob URL, a folder URL, one file URL or a
    sequence of those (all on one filesystem), in order (a glob's and a folder's files sorted by
    name; a glob's: not the names starting with "." its pattern does not spell, as in a shell; a
    folder's: the files ending in .parquet, .pq, .jsonl or .ndjson, not hidden)."""
    if isinstance(partitions, (str, os.PathLike)):
        items = [os.fspath(partitions)]
    elif isinstance(partitions, Sequence) and not isinstance(partitions, bytes):
        items = [os.fspath(p) for p in partitions]
    else:
        raise TypeError(
            f"partitions must be a path, a URL or a sequence of them, got {type(partitions).__name__}"
        )
    if not items:
        raise StorageError("partitions must name at least one file")
    fs = None
    paths: list[str] = []
    for item in items:
        f, path = filesystem(item, storage_options, "partitions")
        if fs is None:
            fs = f
        elif type(f) is not type(fs) or f.storage_options != fs.storage_options:
            raise StorageError(f"partitions must all be on one filesystem: {items[0]!r} and {item!r} are not")
        if any(c in path for c in _GLOB_CHARS):
            found = sorted(p for p in fs.glob(path) if fs.isfile(p) and not _dot_hidden(path, p))
            if not found:
                raise StorageError(f"partitions: no file matches {item!r}")
            paths.extend(found)
        elif len(items) == 1 and fs.isdir(path):
            found = sorted(
                p
                for p in fs.find(path)
                if p.lower().endswith(PARTITION_ENDINGS) and not _hidden(p[len(path) :])
            )
            if not found:
                raise StorageError(
                    f"partitions: the folder {item!r} holds no {', '.join(PARTITION_ENDINGS)} file"
                )
            paths.extend(found)
        else:
            paths.append(path)
    return fs, paths


def _dot_hidden(pattern: str, path: str) -> bool:
    """Whether a glob's match is a hidden name the shell's glob would not give: a name starting
    with "." (macOS's ``._part-0.parquet``, a staged write's ``.NAME.<random>.tmp``) is matched only
    by a pattern part that starts with "." too (fsspec's glob matches it with ``*``)."""
    pat = [x for x in pattern.replace("\\", "/").split("/") if x]
    got = [x for x in path.replace("\\", "/").split("/") if x]
    start = next((i for i, x in enumerate(pat) if any(c in x for c in _GLOB_CHARS)), len(pat))
    deep = "**" in pat[start:]
    for i in range(start, len(got)):
        part = "" if deep or i >= len(pat) else pat[i]
        if got[i].startswith(".") and not part.startswith("."):
            return True
    return False


def _hidden(rel: str) -> bool:
    return any(part.startswith((".", "_")) for part in rel.replace("\\", "/").split("/") if part)


def put_bytes(fs, path: str, data: bytes) -> None:
    """Write ``data`` as ``path``: whole, or not at all."""
    put_buffers(fs, path, [data])


def put_buffers(fs, path: str, buffers: Sequence) -> None:
    """Write the bytes of ``buffers`` (bytes or buffer objects: memoryviews of arrays), one after
    the other, as ``path``: whole, or not at all; each buffer is written as it is, not copied
    into one first."""
    if is_local(fs):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with atomic_output(path, "wb", fsync=False) as f:  # scratch and small outputs: no fsync
            for b in buffers:
                f.write(b)
        return
    with staged_file(fs, path) as local:
        with open(local, "wb") as f:
            for b in buffers:
                f.write(b)


@contextlib.contextmanager
def staged_file(fs, path: str) -> Iterator[str]:
    """A local file name to write; when the block ends without an exception it becomes ``path`` in
    ``fs``, whole (see the module docstring), and when it raises nothing is left anywhere."""
    folder, base = _split(fs, path)
    if is_local(fs):
        os.makedirs(folder or ".", exist_ok=True)
        fd, tmp = make_temporary(prefix=f".{base[:64]}.", suffix=".tmp", dir=folder or None)
        os.close(fd)
        try:
            yield tmp
            os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp's 0600 is not what a new output gets
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            let_go(tmp)
        return
    fd, tmp = make_temporary(prefix=f".{base[:64]}.", suffix=".tmp")
    os.close(fd)
    key = f"{folder}/.{base[:64]}.{uuid.uuid4().hex}.tmp" if folder else f".{base}.{uuid.uuid4().hex}.tmp"
    try:
        yield tmp
        fs.put_file(tmp, key)
        try:
            fs.mv(key, path)
        finally:
            with contextlib.suppress(FileNotFoundError, OSError):
                if fs.exists(key):
                    fs.rm_file(key)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        let_go(tmp)


def _split(fs, path: str) -> tuple[str, str]:
    if is_local(fs):
        return os.path.split(path)
    folder, _, base = path.rstrip("/").rpartition("/")
    return folder, base


def read_bytes(fs, path: str) -> bytes:
    with fs.open(path, "rb") as f:
        return f.read()


def read_buffer(fs, path: str) -> bytearray:
    """The bytes of ``path`` in a bytearray (writable: arrays made on it can be written to); a
    local file is read into it directly, with no intermediate copy."""
    with read_ranges(fs, path) as read:
        return read(0)


@contextlib.contextmanager
def read_ranges(fs, path: str) -> Iterator[Callable[..., bytearray]]:
    """``read(start, end=None)``: the bytes ``[start, end)`` of ``path`` (``end`` None: to the
    end of the file) in a bytearray (writable), fewer where the file ends first; a local file is
    opened once for every read within, each read straight into its bytearray (unbuffered
    ``readinto``), other filesystems are asked for the range."""
    if is_local(fs):
        with open(path, "rb", buffering=0) as f:

            def read(start: int, end: int | None = None) -> bytearray:
                if end is None:
                    end = os.fstat(f.fileno()).st_size
                buf = bytearray(max(0, end - start))
                view, got = memoryview(buf), 0
                f.seek(start)
                while got < len(buf):
                    n = f.readinto(view[got:])
                    if not n:
                        break
                    got += n
                return buf if got == len(buf) else buf[:got]

            yield read
        return
    yield lambda start, end=None: bytearray(fs.cat_file(path, start=start, end=end))


def list_files(fs, folder: str, prefix: str, suffix: str = ".npz") -> list[str]:
    """The files directly in ``folder`` whose names start with ``prefix`` and end in ``suffix``
    (temporary keys are hidden: never listed), sorted; a listing cache is dropped first, so that
    what other workers wrote is seen."""
    fs.invalidate_cache(folder)
    try:
        names = fs.ls(folder, detail=False)
    except FileNotFoundError:
        return []
    out = []
    for p in names:
        base = p.rstrip("/").rpartition("/")[2] if not is_local(fs) else os.path.basename(p)
        if base.startswith(prefix) and base.endswith(suffix):
            out.append(p)
    return sorted(out)


def remove_tree(fs, folder: str) -> None:
    with contextlib.suppress(FileNotFoundError, OSError):
        if fs.exists(folder):
            fs.rm(folder, recursive=True)


def remove_empty(fs, folder: str) -> None:
    """Remove ``folder`` when it holds nothing (object stores have no empty folders)."""
    with contextlib.suppress(FileNotFoundError, OSError):
        if fs.exists(folder) and not fs.ls(folder, detail=False):
            fs.rmdir(folder)
