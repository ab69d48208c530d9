"""Reading the files a user names, safely: one mechanism for every part of simhash-lab that does.

Used by ``simhash-lab fingerprint`` (:mod:`simhash_lab.cli.fingerprint`), ``simhash-lab dedup``
(the file walk and reading of :mod:`simhash_lab.dedup`, the messages of :mod:`simhash_lab.cli.dedup`),
:meth:`SimhashIndex.load <simhash_lab.SimhashIndex.load>` (:mod:`simhash_lab.index.storage`), and
the grader's class folders (:mod:`simhash_lab.grading`). What it promises:

* **Only regular files are opened.** FIFOs, sockets, devices and directories are refused with a
  one-line reason (:class:`NotRegularFile`) before anything is opened, and the open itself is
  non-blocking and checked again with ``fstat`` (a file swapped for a FIFO in between cannot block).
  Symbolic links are followed only to regular files; a link to a device or a broken link says so.
* **Nothing is read unbounded.** :func:`read_text` and :func:`read_bytes` read at most ``max_bytes``
  (:class:`TooLarge` past it, whatever the file claims or grows to); :func:`read_text` looks at the
  first 8 KiB before anything else, so a 1 GB sparse file is called binary after one small read.
* **One text decoding**: UTF-8, a leading byte-order mark dropped (``utf-8-sig``), so every command
  reads a file with a BOM as the same text; anything else is :class:`NotText`.
* **One way to show a file name** in text output, :func:`show_name` (escaped, always one line), and
  one way to put it in JSON, :func:`json_name` (always valid UTF-8).
* :func:`walk` lists the files under folders, in sorted order, and says what every other entry is.

Errors: :class:`Refused` (a ``ValueError``; ``str(e)`` is a one-line reason without the file's
name) for files that are not usable as they are; ``OSError`` for the system's own failures (missing,
permission denied, I/O error). :func:`reason` turns either into the one-line reason callers print
after the name, as ``f"{show_name(path)}: {reason(e)}"``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import BinaryIO, Literal

__all__ = [
    "DEFAULT_MAX_BYTES",
    "SNIFF_BYTES",
    "Entry",
    "NotRegularFile",
    "NotText",
    "Refused",
    "TooLarge",
    "decode_text",
    "json_name",
    "open_regular",
    "read_bytes",
    "read_text",
    "reason",
    "show_name",
    "walk",
]

DEFAULT_MAX_BYTES = 64 << 20
SNIFF_BYTES = 8192  # a NUL byte in this many leading bytes makes a file binary

PathLike = str | bytes | os.PathLike


class Refused(ValueError):
    """A file that is not read as it is; ``str(e)`` is a one-line reason, without the file's name."""


class NotRegularFile(Refused):
    """Not a regular file: a FIFO, socket, device, directory, or a link to one; a broken link."""


class NotText(Refused):
    """Binary (a NUL byte near the start), UTF-16, or not valid UTF-8."""


class TooLarge(Refused):
    """Larger than the ``max_bytes`` the caller allows."""


# -- names -----------------------------------------------------------------------------------------

_SHORT = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _fspath(path: PathLike) -> str:
    return os.fsdecode(path)


def show_name(path: PathLike) -> str:
    """A file name for text output: printable, on one line, and unambiguous.

    Printable characters are kept (``é``, ``你``); a backslash is doubled; ``\\n``, ``\\r``, ``\\t``
    are written as those escapes; other characters that ``str.isprintable`` refuses (controls,
    line and paragraph separators, format characters such as U+202E, lone surrogates) as
    ``\\xNN`` (below U+0080), ``\\uNNNN`` or ``\\UNNNNNNNN``; a byte of the name that is not UTF-8
    (``os.fsdecode`` holds it as U+DC80..U+DCFF) as ``\\xNN`` with NN >= 80, which no character
    is written as. So every name shows as one line, and two different names never show alike.

    Parameters
    ----------
    path : str, bytes or os.PathLike

    Returns
    -------
    str

    Examples
    --------
    >>> show_name("caf\\u00e9.txt"), show_name("two\\nlines"), show_name(b"bad\\xffname")
    ('café.txt', 'two\\\\nlines', 'bad\\\\xffname')
    """
    s = _fspath(path)
    if s.isprintable() and "\\" not in s:
        return s
    out = []
    for ch in s:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            c = ord(ch)
            if c < 0x80:
                out.append(f"\\x{c:02x}")
            elif 0xDC80 <= c <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
                out.append(f"\\x{c - 0xDC00:02x}")
            elif c <= 0xFFFF:
                out.append(f"\\u{c:04x}")
            else:
                out.append(f"\\U{c:08x}")
    return "".join(out)


def json_name(path: PathLike) -> str:
    """A file name for JSON output: a str that encodes to valid UTF-8.

    A name that is valid UTF-8 is returned as it is (``json`` escapes its control characters), so
    ``open(doc["path"])`` opens it. A byte that is not UTF-8 is written as the four characters
    ``\\xNN`` (as :func:`show_name` writes it), and a lone surrogate of a ``str`` path as
    ``\\udNNN``: such a name is shown, but cannot be opened from the JSON as it is.

    Examples
    --------
    >>> json_name("caf\\u00e9.txt"), json_name("two\\nlines"), json_name(b"bad\\xffname")
    ('café.txt', 'two\\nlines', 'bad\\\\xffname')
    """
    s = _fspath(path)
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        pass
    out = []
    for ch in s:
        c = ord(ch)
        if 0xDC80 <= c <= 0xDCFF:
            out.append(f"\\x{c - 0xDC00:02x}")
        elif 0xD800 <= c <= 0xDFFF:
            out.append(f"\\u{c:04x}")
        else:
            out.append(ch)
    return "".join(out)


def reason(exc: BaseException) -> str:
    """The one-line reason of a :class:`Refused` or ``OSError``, without the file's name."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return " ".join(str(exc).split()) or type(exc).__name__


# -- what a path is --------------------------------------------------------------------------------

_KINDS = [
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
]


def _what(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return f"a special file (mode {stat.S_IFMT(mode):#o})"


def _stat_regular(path: str) -> os.stat_result:
    """``os.stat(path)`` if it is a regular file (following links), else :class:`NotRegularFile`."""
    try:
        st = os.stat(path)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ELOOP) and os.path.islink(path):
            if e.errno == errno.ELOOP:
                raise NotRegularFile("symbolic link loop (too many levels of symbolic links)") from None
            raise NotRegularFile(f"broken symbolic link (to {show_name(os.readlink(path))})") from None
        raise
    if not stat.S_ISREG(st.st_mode):
        what = _what(st.st_mode)
        if os.path.islink(path):
            what = f"a symbolic link to {what} ({show_name(os.path.realpath(path))})"
        raise NotRegularFile(f"not a regular file: {what}")
    return st


def _opener(path: str, flags: int) -> int:
    flags |= os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # it changed since we looked
            raise NotRegularFile(f"not a regular file: {_what(st.st_mode)}")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: PathLike) -> BinaryIO:
    """Open ``path`` for reading in binary mode if it is a regular file, without ever blocking.

    Links are followed only to regular files. The type is checked before opening (a device is
    never opened) and again on the open descriptor, which is opened with ``O_NONBLOCK`` so that a
    FIFO swapped in between cannot block.

    Returns
    -------
    io.BufferedReader

    Raises
    ------
    NotRegularFile
        A FIFO, socket, device or directory, a link to one, a broken link or a link loop.
    OSError
        The system's own errors: no such file, permission denied, ...
    """
    return _open(path, buffering=-1)


# -- reading ---------------------------------------------------------------------------------------


def _open(path: PathLike, buffering: int) -> BinaryIO:
    p = _fspath(path)
    _stat_regular(p)
    return open(p, "rb", buffering=buffering, opener=_opener)


def _too_large(size: int, max_bytes: int, limit_name: str) -> TooLarge:
    return TooLarge(f"larger than {limit_name} ({size:,} > {max_bytes:,} bytes)")


def _fill(f, buf: bytearray, got: int) -> int:
    """Read from the unbuffered ``f`` into ``buf[got:]`` until it is full or the file ends."""
    with memoryview(buf) as view:
        while got < len(buf):
            n = f.readinto(view[got:])
            if not n:
                break
            got += n
    return got


def _read(f, max_bytes: int, limit_name: str, sniff: bool) -> bytearray:
    """At most ``max_bytes`` of the unbuffered ``f`` (one byte more is :class:`TooLarge`), after
    :func:`_sniff` of the first 8 KiB when ``sniff``; fstat's size is only a hint (files grow,
    /proc files say 0), so the read is bounded by ``max_bytes`` whatever it says."""
    size = os.fstat(f.fileno()).st_size
    head = bytearray()
    if sniff:
        head = bytearray(min(SNIFF_BYTES, max_bytes + 1))
        del head[_fill(f, head, 0) :]
        _sniff(head)
    if size > max_bytes:
        raise _too_large(size, max_bytes, limit_name)
    got = len(head)
    buf = bytearray(max(size, got) + 1)  # one byte past the end: EOF, or a file that grew
    buf[:got] = head
    got = _fill(f, buf, got)
    while got == len(buf) and got <= max_bytes:  # it grew: on, a MiB at a time
        buf.extend(bytes(min(1 << 20, max_bytes + 1 - got)))
        got = _fill(f, buf, got)
    if got > max_bytes:
        raise TooLarge(f"larger than {limit_name} ({max_bytes:,} bytes; it grew while being read)")
    del buf[got:]
    return buf


def _check_limit(max_bytes: int, limit_name: str) -> int:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise ValueError(f"{limit_name} must be a non-negative int, got {max_bytes!r}")
    return max_bytes


def read_bytes(path: PathLike, max_bytes: int = DEFAULT_MAX_BYTES, *, limit_name: str = "max_bytes") -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Parameters
    ----------
    path : str, bytes or os.PathLike
    max_bytes : int
        The largest file read; a larger one is refused before it is read.
    limit_name : str
        How the limit is named in the reason (``"--max-bytes"`` on the command line).

    Raises
    ------
    NotRegularFile, TooLarge
        See :func:`open_regular`; over ``max_bytes``.
    OSError
        The file could not be opened or read.
    """
    _check_limit(max_bytes, limit_name)
    with _open(path, buffering=0) as f:
        return bytes(_read(f, max_bytes, limit_name, sniff=False))


_BOM = b"\xef\xbb\xbf"


def decode_text(raw: bytes | bytearray) -> str:
    """The text of a file's bytes: UTF-8, a leading byte-order mark dropped (``utf-8-sig``).

    Raises
    ------
    NotText
        Not valid UTF-8 (the reason gives the first bad byte and its offset).
    """
    start = 3 if raw[:3] == _BOM else 0
    with memoryview(raw) as view:
        try:
            return str(view[start:], "utf-8")
        except UnicodeDecodeError as e:
            at = start + e.start
            raise NotText(f"not UTF-8 text (byte {raw[at]:#04x} at offset {at})") from None


def _sniff(head: bytes | bytearray) -> None:
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise NotText("UTF-16 text (it starts with a UTF-16 byte-order mark); only UTF-8 is read")
    nul = head.find(b"\0")
    if nul >= 0:
        raise NotText(f"binary (a NUL byte at offset {nul})")


def read_text(path: PathLike, max_bytes: int = DEFAULT_MAX_BYTES, *, limit_name: str = "max_bytes") -> str:
    """The text of the regular file ``path``: at most ``max_bytes``, UTF-8 (a leading BOM dropped).

    The first 8 KiB are read first: a NUL byte there makes the file binary, whatever its size, and
    nothing more is read. Then a file over ``max_bytes`` is refused, and the rest read, bounded.

    Parameters
    ----------
    path : str, bytes or os.PathLike
    max_bytes : int
    limit_name : str
        How the limit is named in the reason (``"--max-bytes"`` on the command line).

    Returns
    -------
    str

    Raises
    ------
    NotRegularFile, NotText, TooLarge
        Not a regular file (:func:`open_regular`); binary, UTF-16 or not UTF-8; over ``max_bytes``.
    OSError
        The file could not be opened or read.
    """
    _check_limit(max_bytes, limit_name)
    with _open(path, buffering=0) as f:
        raw = _read(f, max_bytes, limit_name, sniff=True)
    return decode_text(raw)


# -- walking folders -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One path met by :func:`walk`.

    Attributes
    ----------
    path : str
        As given, or joined under its folder (bytes that are not UTF-8 held as ``os.fsdecode``
        holds them: show it with :func:`show_name` or :func:`json_name`).
    named : bool
        Given by the caller (on the command line), not found inside a folder.
    kind : {"file", "not_regular", "unreadable"}
        A regular file (to read); not one (``problem`` says what it is: a FIFO, a socket, a device,
        a link to one, a broken link, a link to a directory inside a folder, which is not followed);
        or the system refused (missing, permission denied on the file or folder, I/O error).
    problem : str or None
        The one-line reason, for the last two kinds.
    """

    path: str
    named: bool
    kind: Literal["file", "not_regular", "unreadable"] = "file"
    problem: str | None = None


def _classify(path: str, named: bool) -> Entry | None:
    """The entry for ``path`` (not a plain folder entry); None for a folder to walk."""
    try:
        _stat_regular(path)
    except NotRegularFile as e:
        if os.path.isdir(path):
            if named:
                return None
            # only a link reaches here: walk() itself recurses into folders
            target = show_name(os.path.realpath(path))
            return Entry(path, named, "not_regular", f"symbolic link to a directory ({target}), not followed")
        return Entry(path, named, "not_regular", str(e))
    except OSError as e:
        return Entry(path, named, "unreadable", reason(e))
    return Entry(path, named)


def walk(paths: Iterable[PathLike], *, hidden: bool = False) -> Iterator[Entry]:
    """Every path under ``paths``, files and folders, as :class:`Entry` objects, in sorted order.

    A path named in ``paths`` is taken as it is (a hidden one too; a link to a folder is walked). In
    a folder: its files in sorted order, then its folders in sorted order, each walked the same way;
    names starting with ``.`` are left out unless ``hidden``; links to folders are not followed
    (an entry says so), so no walk can loop. Nothing is opened but the folders.

    Parameters
    ----------
    paths : iterable of str, bytes or os.PathLike
    hidden : bool

    Yields
    ------
    Entry
        ``kind == "file"`` for every regular file (links to regular files included), and one entry
        for every other thing met, with its reason; a folder that cannot be listed is one
        ``"unreadable"`` entry.
    """
    for top in paths:
        top = _fspath(top)
        entry = _classify(top, named=True)
        if entry is not None:
            yield entry
            continue
        stack = [(top, True)]
        while stack:
            folder, named = stack.pop()
            try:
                with os.scandir(folder) as it:
                    items = sorted(it, key=lambda d: d.name)
            except OSError as e:
                yield Entry(folder, named, "unreadable", reason(e))
                continue
            subfolders = []
            for item in items:
                if not hidden and item.name.startswith("."):
                    continue
                try:
                    if item.is_dir(follow_symlinks=False):
                        subfolders.append(item.path)
                        continue
                    if item.is_file(follow_symlinks=False):
                        yield Entry(item.path, False)
                        continue
                except OSError as e:
                    yield Entry(item.path, False, "unreadable", reason(e))
                    continue
                yield _classify(item.path, named=False)  # a link or a special file
            stack.extend((sub, False) for sub in reversed(subfolders))
