"""The one writer of every output file (``grade --json``, ``dedup --output``/``--duplicates``,
:meth:`SimhashIndex.save <simhash_lab.index.SimhashIndex.save>`).

Two calls:

``check_outputs(*paths, what=..., inputs=...)``
    run before any work, so that a bad output is found before the work it would lose: each path's
    folder exists and can be written, the path is not a folder, no two paths (nor an output and an
    input) name one file (same real path, or same device and inode), and an existing file can be
    written. An input is a file, a folder (an existing output inside it would be read as an input,
    then replaced) or a descriptor (``0``: standard input, refused by any name: ``/dev/stdin``,
    ``/dev/fd/0``, ``/proc/self/fd/0``, the file the shell redirected to it). Raises
    :class:`OutputError` naming the option.

``with atomic_output(path, mode) as f:``
    writes ``f`` to ``path``. A regular file (or a new one) is written to a temporary file made by
    :func:`tempfile.mkstemp` beside it (``.NAME.XXXXXXXX.tmp``: unpredictable, created with
    ``O_EXCL``, never a planted link), flushed and fsynced, then renamed over ``path`` with
    :func:`os.replace`: a reader sees the old file or the whole new one, and the temporary file is
    removed on every exit path that runs (an exception, Ctrl-C), and on SIGTERM and SIGHUP too, as
    coreutils' ``sort`` removes its own (:func:`remove_temporaries_on_signals`: the process then
    ends by the signal, as it would have; only a SIGKILL can leave one). An
    existing path that is not a regular file, or a symbolic link (``/dev/stdout`` →
    ``/proc/self/fd/1``, a FIFO, a character device, a link to a file), is opened and written in
    place, never replaced; a name of the process's own descriptor (``/dev/stdout``, ``/dev/fd/N``)
    is written through a copy of that descriptor, where the shell's ``>``, ``>>`` or pipe left it.
    A failed write (a full disk, an I/O error) raises :class:`OutputError` naming the file, and
    nothing half-written is left under the final name (in place, what reached the device is the
    device's).

A command turns :class:`OutputError` into one line on stderr and exit status 2
(:func:`simhash_lab.cli.main`).

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> out = os.path.join(d, "kept.jsonl")
>>> check_outputs(out, what="--output")
>>> with atomic_output(out, "w", encoding="utf-8") as f:
...     _ = f.write("{}\\n")
>>> open(out).read(), sorted(os.listdir(d))
('{}\\n', ['kept.jsonl'])
>>> check_outputs(out, os.path.join(d, ".", "kept.jsonl"), what=("--output", "--duplicates"))
Traceback (most recent call last):
...
simhash_lab._write.OutputError: --output and --duplicates name one file (...kept.jsonl)
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from ._files import show_name

__all__ = [
    "OutputError",
    "Writeback",
    "atomic_output",
    "atomic_write",
    "check_outputs",
    "current_umask",
    "let_go",
    "make_temporary",
    "remove_temporaries_on_signals",
]

PathLike = str | bytes | os.PathLike

# errors that only a write can raise: inside the ``with`` body they are the output's (EBADF: a
# descriptor not open for writing, such as a copy of a read-only standard input)
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS, errno.EBADF})


class OutputError(OSError):
    """An output cannot be written (named in the message): a missing or read-only folder, a folder
    given as a file, two outputs naming one file, a full disk, a closed stdout. ``path`` is the
    file's name (``None`` for stdout)."""

    def __init__(self, message: str, path: PathLike | None = None):
        super().__init__(message)
        self.path = path

    def __str__(self) -> str:
        return self.args[0]


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _in_place(path: PathLike) -> os.stat_result | None:
    """The status of ``path``'s target when ``path`` is written in place (a symbolic link, or an
    existing file that is not a regular file); ``None`` when it is written through a temporary
    file (a regular file, or a new one)."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISLNK(lst.st_mode) and stat.S_ISREG(lst.st_mode):
        return None
    try:
        return os.stat(path)
    except FileNotFoundError:  # a dangling link: written through it (open creates its target)
        return lst


_DESCRIPTOR = re.compile(r"/dev/std(in|out|err)|/(?:dev|proc/self)/fd/(\d+)")


def _descriptor_of(path: PathLike) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdin``, ``/dev/stdout``,
    ``/dev/stderr``, ``/dev/fd/N``, ``/proc/self/fd/N``), or None.

    >>> _descriptor_of("/dev/stdin"), _descriptor_of("/dev//fd/7"), _descriptor_of("out.jsonl")
    (0, 7, None)
    """
    try:
        m = _DESCRIPTOR.fullmatch(os.path.normpath(os.fsdecode(path)))
    except (TypeError, ValueError):
        return None
    if m is None:
        return None
    return {"in": 0, "out": 1, "err": 2}[m.group(1)] if m.group(1) else int(m.group(2))


def _own_descriptor(path: PathLike) -> int | None:
    """The descriptor of this process that ``path`` names (:func:`_descriptor_of`), or None: such
    an output is written through a copy of that descriptor, at its position, as a shell's ``>``,
    ``>>`` or pipe left it. Opened again by its name it would start a file anew (``(echo head;
    simhash-lab dedup d.jsonl --output /dev/stdout) >> log`` lost the whole log; ``--output
    /dev/stdin`` truncated the input it was reading), its own earlier writes on it first
    (Python's ``sys.stdout`` / ``sys.stderr``) flushed so that they stay before.

    >>> _own_descriptor("/dev/stdout"), _own_descriptor("/dev//fd/7"), _own_descriptor("out.jsonl")
    (1, 7, None)
    """
    fd = _descriptor_of(path)
    if fd is None:
        return None
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and stream.fileno() == fd:
                stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, or not a real stream (a notebook's)
            pass
    return fd


# -- temporary files: removed on SIGTERM and SIGHUP as on Ctrl-C ---------------------------------

#: the signals whose default action ends the process, after which the temporary files go
CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))

_TEMPORARIES: set[str | bytes] = set()
_HANDLED: set[int] = set()


def _remove_temporaries(signum: int, frame: Any) -> None:
    """The handler: remove every temporary file still open for writing, then end the process by the
    signal, its action back to the default (what coreutils' ``sort`` does), so that the exit status
    says what ended it."""
    for path in list(_TEMPORARIES):
        with contextlib.suppress(OSError):
            os.unlink(path)
    _TEMPORARIES.clear()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def remove_temporaries_on_signals() -> None:
    """Remove the temporary files of the writes under way (:func:`make_temporary`) when the process gets
    SIGTERM or SIGHUP, then end it by that signal as it would have ended (Ctrl-C's KeyboardInterrupt
    already runs every cleanup). Only for a signal whose action is still the default (a program's
    own handler, or one ignored, ``nohup``, is left alone), from the main thread (the only one that
    may set handlers; elsewhere this does nothing). Called by every command at its start and by
    :func:`make_temporary`; a second call does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in CLEANUP_SIGNALS:
        if sig in _HANDLED:
            continue
        try:
            if signal.getsignal(sig) is signal.SIG_DFL:
                signal.signal(sig, _remove_temporaries)
        except (ValueError, OSError):  # not the main interpreter
            continue
        _HANDLED.add(sig)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """The cleanup signals held back from this thread while a temporary file is made and
    registered (or renamed and let go), so that none is left unregistered between the two."""
    if not hasattr(signal, "pthread_sigmask") or not CLEANUP_SIGNALS:
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, CLEANUP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def make_temporary(**kw: Any) -> tuple[int, str]:
    """:func:`tempfile.mkstemp` (its keywords), the file registered to be removed on SIGTERM and
    SIGHUP (:func:`remove_temporaries_on_signals`) before any signal can come between: ``(fd,
    path)``; its owner calls :func:`let_go` once it is renamed or removed.

    Returns
    -------
    fd : int
    path : str
    """
    remove_temporaries_on_signals()
    with _signals_held():
        fd, path = tempfile.mkstemp(**kw)
        _TEMPORARIES.add(path)
    return fd, path


def let_go(path: str | bytes) -> None:
    """``path`` (made by :func:`make_temporary`) is no longer removed on a signal (renamed into
    place, or removed by its owner)."""
    _TEMPORARIES.discard(path)


def check_outputs(
    *paths: PathLike | None,
    what: str | Sequence[str] | None = None,
    inputs: Sequence[PathLike | int] = (),
) -> None:
    """Check output paths before any work is done; ``None`` paths (an option not given) are skipped.

    Parameters
    ----------
    *paths : str, bytes, os.PathLike or None
        The outputs.
    what : str or sequence of str, optional
        How the messages name each path (``"--json"``); default ``"output"`` followed by its name.
    inputs : sequence of paths or int
        What the run reads: a file (an output naming it is refused), a folder (an existing output
        inside it is refused: it would be read, then replaced) or a descriptor (``0``: standard
        input; an output that names it, or that is the regular file open on it, is refused).

    Raises
    ------
    OutputError
        A path is empty or a folder, its folder is missing or cannot be written, an existing file
        cannot be written, or two paths (or an output and an input) name one file.
    """
    if isinstance(what, str):
        what = [what] * len(paths) if len(paths) != 1 else [what]
    names = list(what) if what is not None else [None] * len(paths)
    if len(names) != len(paths):
        raise ValueError(f"what names {len(names)} outputs, got {len(paths)} paths")
    seen: list[tuple[str, str, tuple[int, int] | None, PathLike]] = []
    for path, name in zip(paths, names):
        if path is None:
            continue
        label = name or f"output {show_name(path)}"
        key = _check_one(path, label)
        for other_label, real, ino, _ in seen:
            if real == key[0] or (ino is not None and ino == key[1]):
                raise OutputError(f"{other_label} and {label} name one file ({show_name(path)})", path)
        seen.append((label, *key, path))
    for item in inputs:
        if isinstance(item, int):
            _check_descriptor_input(item, seen)
            continue
        try:
            real = os.path.realpath(item)
            st = os.stat(item)
            ino = (st.st_dev, st.st_ino)
        except (OSError, ValueError, TypeError):
            continue
        if stat.S_ISDIR(st.st_mode):
            for label, oreal, oino, path in seen:
                if oino is not None and oreal.startswith(os.path.join(os.fsdecode(real), "")):
                    raise OutputError(
                        f"{label} is a file inside the input folder {show_name(item)}: it would be read "
                        "as an input, then replaced",
                        path,
                    )
            continue
        if not stat.S_ISREG(st.st_mode):
            continue  # reading a pipe while writing stdout is no clash
        for label, oreal, oino, _ in seen:
            if oreal == real or oino == ino:
                raise OutputError(f"{label} names an input file ({show_name(item)})", item)


def _check_descriptor_input(fd: int, seen: list) -> None:
    """Refuse an output that is what descriptor ``fd`` (an input: standard input) reads: one
    naming the descriptor (``/dev/stdin``, ``/dev/fd/0``, ``/proc/self/fd/0``), or the regular
    file open on it by another name (``dedup - --output in.jsonl < in.jsonl``)."""
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    what = "standard input" if fd == 0 else f"descriptor {fd}"
    for label, _, oino, path in seen:
        if _descriptor_of(path) == fd:
            raise OutputError(f"{label} names {what} ({show_name(path)}), which the run reads", path)
        if st is not None and stat.S_ISREG(st.st_mode) and oino == (st.st_dev, st.st_ino):
            raise OutputError(f"{label} names the file {what} reads ({show_name(path)}): the input", path)


def _check_one(path: PathLike, label: str) -> tuple[str, tuple[int, int] | None]:
    """Check one output; returns (real path, (device, inode) when it exists)."""
    if not os.fspath(path):
        raise OutputError(f"{label}: expected a file name, got an empty one", path)
    shown = show_name(path)
    real = os.fsdecode(os.path.realpath(path))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except (OSError, ValueError) as e:  # a loop of links, a name too long, a NUL byte
        why = getattr(e, "strerror", None) or e
        raise OutputError(f"{label}: cannot write {shown}: {why}", path) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{label}: {shown} is a folder, expected a file name", path)
        if stat.S_ISSOCK(st.st_mode):
            raise OutputError(f"{label}: {shown} is a socket, which cannot be opened as a file", path)
        if not os.access(path, os.W_OK):
            raise OutputError(f"{label}: cannot write {shown}: permission denied", path)
        if _in_place(path) is not None:
            return real, (st.st_dev, st.st_ino)  # written in place: its folder is not touched
    folder = os.path.dirname(real) or "."
    if not os.path.isdir(folder):
        raise OutputError(f"{label}: cannot write {shown}: no such folder {show_name(folder)}", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        why = f"the folder {show_name(folder)} is not writable"
        raise OutputError(f"{label}: cannot write {shown}: {why}", path)
    return real, None if st is None else (st.st_dev, st.st_ino)


def current_umask() -> int:
    """The process's umask, read without changing it (``/proc/self/status``; else 022)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


@contextlib.contextmanager
def atomic_output(
    path: PathLike,
    mode: str = "w",
    *,
    encoding: str | None = None,
    newline: str | None = None,
    fsync: bool = True,
) -> Iterator[IO[Any]]:
    """Open ``path`` for writing, so that the file is replaced only once it is whole.

    Parameters
    ----------
    path : str, bytes or os.PathLike
        The output.
    mode : {"w", "wb"}
        Text or binary.
    encoding, newline : str, optional
        As for :func:`open` (text mode).
    fsync : bool
        Flush the new file to the disk before it is renamed (and its folder after).

    Yields
    ------
    file object
        Write to it inside the ``with`` block; the file is in place when the block ends without an
        exception, and untouched (the temporary removed) when it raises.

    Raises
    ------
    OutputError
        The file cannot be created or written (a full disk, an I/O error, a missing folder); the
        original exception is its ``__cause__``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    shown = show_name(path)
    kw = {} if mode == "wb" else {"encoding": encoding, "newline": newline}

    def failed(e: OSError) -> OutputError:
        return OutputError(f"cannot write {shown}: {_reason(e)}", path)

    target = _in_place(path)
    if target is not None:
        if stat.S_ISDIR(target.st_mode):
            raise OutputError(f"cannot write {shown}: it is a folder", path)
        try:
            own = _own_descriptor(path)
            if own is None:
                f = open(path, mode, **kw)  # noqa: SIM115 (closed below)
            else:  # written where the descriptor is, never reopened (that would truncate)
                f = os.fdopen(os.dup(own), mode, **kw)
        except OSError as e:
            raise failed(e) from e
        try:
            with _write_errors(failed):
                yield f
            _flush(f, failed, fsync=fsync and stat.S_ISREG(target.st_mode))
        finally:
            with contextlib.suppress(OSError):
                f.close()
        return

    real = os.path.realpath(path)
    folder, base = os.path.split(real)
    try:
        old = os.stat(real)
        perm = stat.S_IMODE(old.st_mode)
    except FileNotFoundError:
        perm = 0o666 & ~current_umask()
    except OSError as e:
        raise failed(e) from e
    if isinstance(base, bytes):
        prefix, suffix = b"." + base[:64] + b".", b".tmp"
    else:
        prefix, suffix = "." + base[:64] + ".", ".tmp"
    try:
        fd, tmp = make_temporary(prefix=prefix, suffix=suffix, dir=folder or None)
    except OSError as e:
        raise failed(e) from e
    done = False
    try:
        try:
            f = os.fdopen(fd, mode, **kw)
        except BaseException:
            os.close(fd)
            raise
        with f:
            with _write_errors(failed):
                yield f
            _flush(f, failed, fsync=fsync, perm=perm)
        try:
            with _signals_held():  # renamed and let go together
                os.replace(tmp, real)
                let_go(tmp)
        except OSError as e:
            raise failed(e) from e
        done = True
        if fsync:
            _fsync_folder(folder)
    finally:
        if not done:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            let_go(tmp)


@contextlib.contextmanager
def _write_errors(failed: Callable[[OSError], OutputError]) -> Iterator[None]:
    """The errors only a write raises (a full disk, an I/O error), from the ``with`` body, as the
    output's :class:`OutputError`; any other error as it is."""
    try:
        yield
    except OSError as e:
        if e.errno in _WRITE_ERRNOS:
            raise failed(e) from e
        raise


def _flush(
    f: IO[Any], failed: Callable[[OSError], OutputError], *, fsync: bool, perm: int | None = None
) -> None:
    """Flush ``f`` (set its permissions, sync it to the disk): any error is the output's."""
    try:
        f.flush()
        if perm is not None:
            os.fchmod(f.fileno(), perm)
        if fsync:
            os.fsync(f.fileno())
    except OSError as e:
        raise failed(e) from e


def atomic_write(path: PathLike, mode: str, write: Callable[[IO[Any]], Any], **kw: Any) -> Any:
    """Call ``write(f)`` on ``path`` opened by :func:`atomic_output` (``kw``: its keywords).

    Parameters
    ----------
    path, mode, **kw
        As for :func:`atomic_output` (``kw``: ``encoding``, ``newline``, ``fsync``).
    write : callable
        Writes the whole output to the file object it is given.

    Returns
    -------
    object
        What ``write`` returned.

    Raises
    ------
    OutputError
        As :func:`atomic_output` raises it.
    """
    with atomic_output(path, mode, **kw) as f:
        return write(f)


def _sync_file_range() -> Callable[[int, int, int, int], int] | None:
    """Linux's ``sync_file_range(2)`` (not in :mod:`os`), through :mod:`ctypes` (which lets go of
    the GIL during the call); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        call = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
    call.restype = ctypes.c_int
    return call


_SYNC_FILE_RANGE = _sync_file_range()
_SYNC_FILE_RANGE_WRITE = 2  # start writing the range's dirty pages; do not wait for them


class Writeback:
    """Starts the device writing a file's new bytes while more are being written, so that the
    fsync at the end (:func:`atomic_output`) waits for the last :data:`STEP` of them only, not for
    the whole file: Linux's ``sync_file_range(fd, ..., SYNC_FILE_RANGE_WRITE)`` every ``STEP``
    bytes, which never waits for the device and changes nothing a reader sees. Nothing elsewhere,
    nor on a file that is not a regular one (a pipe, a terminal); an error of the call is ignored
    (the fsync reports what matters). ``start``: where the bytes this object follows begin (default:
    the file's position; a thread that writes its own part of the file keeps its own
    ``Writeback``).

    Copying 700 MB with ``os.copy_file_range`` then syncing it took 0.5-1.1 s plain and 0.39-0.43 s
    this way (the fsync 0.22-0.28 s, then 0.01 s; AMD EPYC, ext4 on a virtual disk): dirty pages
    piled up no more, and the copy was not held back by them.

    >>> import os, tempfile
    >>> fd, name = tempfile.mkstemp()
    >>> wb = Writeback(fd)
    >>> os.write(fd, b"x" * 10)
    10
    >>> wb.wrote(10)  # fewer than STEP bytes: nothing asked yet
    >>> wb.last
    0
    >>> os.close(fd); os.unlink(name)
    """

    STEP = 1 << 25  # 32 MiB

    def __init__(self, fd: int, start: int | None = None) -> None:
        self.fd = fd
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            if start is None:
                start = os.lseek(fd, 0, os.SEEK_CUR) if regular else 0
        except OSError:
            regular, start = False, 0
        self.start = start
        self.last = start  # bytes before it were handed to the device
        self.on = _SYNC_FILE_RANGE is not None and regular

    def wrote(self, upto: int) -> None:
        """The file's bytes up to ``upto`` (from ``start``) are written."""
        if self.on and upto - self.last >= self.STEP:
            if _SYNC_FILE_RANGE(self.fd, self.last, upto - self.last, _SYNC_FILE_RANGE_WRITE) != 0:
                self.on = False  # refused (a file system without it): the fsync does it all
            self.last = upto


def _fsync_folder(folder: PathLike) -> None:
    """Make the rename durable (best effort: some file systems cannot open or sync a folder)."""
    try:
        fd = os.open(folder or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
