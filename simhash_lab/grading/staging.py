"""Collecting a class's submissions, as Gradescope does: every file handed in is copied into a
private staging folder before anything reads it, and only the copy is graded.

:class:`Staging` is that folder (``mkdtemp``: mode 0700, removed when the ``with`` block ends);
:meth:`Staging.collect` walks one student's folder and copies each ``*.ipynb`` (any case) in it:

* **Regular files only, no link followed.** The walk holds each folder open and opens every name
  relative to it with ``O_NOFOLLOW`` (a folder swapped for a link between two steps is not
  entered), and a file with ``O_NOFOLLOW | O_NONBLOCK`` and checks it with ``fstat``: a symbolic link
  (to a classmate's file, to the release's solutions), a FIFO, a device or a socket is listed with
  its reason and never read; a link to a folder is not entered. What was graded is the copy taken
  at that moment, so a file swapped for a link afterwards changes nothing.
* **Size-limited**: at most ``max_bytes`` (32 MiB) are read of a file; a larger one is listed.
* **Names normalised**: the copy is named ``NNNNN/<name>`` with the name NFKC-normalised and
  every character but ``A-Z a-z 0-9 . _ -`` replaced by ``_`` (so ``03 (1).ipynb`` is
  ``03__1_.ipynb``, still named after its exercise); the original path stays in
  :attr:`Collected.path` for the teacher's table.
* **Bounded**: at most ``max_files`` notebooks of one student and folders ``max_depth`` deep.
* Jupyter's autosave copies (``.ipynb_checkpoints/``) are listed, not collected.

Each file's SHA-256, size and modification time are those of the bytes copied.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import re
import shutil
import stat
import tempfile
import unicodedata
from pathlib import Path

from .._files import show_name
from .._i18n import N_, _

__all__ = ["Collected", "Staging", "safe_name"]

MAX_BYTES = 32 << 20  # as the grader reads a notebook (_notebooks.MAX_NOTEBOOK_BYTES)
MAX_FILES = 200
MAX_DEPTH = 12
CHECKPOINTS = ".ipynb_checkpoints"
_SUFFIX = ".ipynb"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclasses.dataclass
class Collected:
    """One notebook found in a student's folder: its private copy, or why there is none."""

    student: str  # the student folder's name
    path: str  # where it was, relative to the student's folder ("/"-separated, as found)
    staged: str | None = None  # the private copy
    size: int | None = None
    sha256: str | None = None
    mtime: float | None = None  # the file's modification time (seconds since the epoch)
    problem: str | None = None  # why it was not collected


def safe_name(name: str) -> str:
    """A file name made safe for the staging folder: NFKC, only ``A-Z a-z 0-9 . _ -`` (others
    ``_``), no leading dot, at most 100 characters before ``.ipynb``.

    >>> safe_name("03 (1).ipynb"), safe_name(".hidden.IPYNB"), safe_name("ｆｕｌｌ\\u202e.ipynb")
    ('03__1_.ipynb', 'hidden.ipynb', 'full_.ipynb')
    """
    n = _UNSAFE.sub("_", unicodedata.normalize("NFKC", name))
    stem = n[: -len(_SUFFIX)] if n.lower().endswith(_SUFFIX) else n
    stem = stem.lstrip(".") or "notebook"
    return stem[:100] + _SUFFIX


def _is_notebook(name: str) -> bool:
    return name.lower().endswith(_SUFFIX)


class Staging:
    """A private staging folder (see the module docstring), removed when the ``with`` block ends.

    Parameters
    ----------
    max_bytes : int
        Bytes read of one file at most; a larger file is listed, not collected.
    max_files : int
        Notebooks of one student at most; the rest are listed.
    """

    def __init__(self, *, max_bytes: int = MAX_BYTES, max_files: int = MAX_FILES):
        self.max_bytes = int(max_bytes)
        self.max_files = int(max_files)
        self.root: str | None = None
        self._n = 0

    def __enter__(self) -> Staging:
        self.root = tempfile.mkdtemp(prefix="simhash-lab-staging-")  # mode 0700
        return self

    def __exit__(self, *exc: object) -> None:
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None

    def collect(self, student: str, folder: str | os.PathLike) -> list[Collected]:
        """Copy every notebook of ``student``'s ``folder`` into the staging folder; one
        :class:`Collected` per notebook found (collected or not), in sorted path order."""
        if self.root is None:
            raise RuntimeError("Staging.collect outside its with block")
        folder = os.fspath(folder)
        out: list[Collected] = []
        if os.path.islink(folder):
            target = show_name(os.readlink(folder))
            return [
                Collected(
                    student,
                    "",
                    problem=_("the folder is a symbolic link (to {target}): not followed").format(
                        target=target
                    ),
                )
            ]
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            return [
                Collected(student, "", problem=_("cannot open the folder: {why}").format(why=e.strerror or e))
            ]
        try:
            self._walk(fd, "", 0, student, out)
        finally:
            os.close(fd)
        return out

    # -- the walk ---------------------------------------------------------------------------------------

    def _walk(self, dfd: int, prefix: str, depth: int, student: str, out: list[Collected]) -> None:
        try:
            names = sorted(os.listdir(dfd))
        except OSError as e:
            out.append(
                Collected(
                    student,
                    prefix or ".",
                    problem=_("cannot list the folder: {why}").format(why=e.strerror or e),
                )
            )
            return
        for name in names:
            rel = prefix + name
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except OSError as e:
                if _is_notebook(name):
                    out.append(Collected(student, rel, problem=e.strerror or str(e)))
                continue
            if stat.S_ISLNK(st.st_mode):
                self._link(dfd, name, rel, student, out)
            elif stat.S_ISDIR(st.st_mode):
                if _is_notebook(name):
                    out.append(Collected(student, rel, problem=_("a folder, not a notebook file")))
                    continue
                if depth + 1 >= MAX_DEPTH:
                    out.append(
                        Collected(
                            student,
                            rel + "/",
                            problem=_("folders nested more than {n} deep: not read").format(n=MAX_DEPTH),
                        )
                    )
                    continue
                try:
                    sub = os.open(
                        name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dfd
                    )
                except OSError as e:  # swapped for a link or a file since it was listed: not entered
                    out.append(
                        Collected(
                            student, rel + "/", problem=_("not read: {why}").format(why=e.strerror or e)
                        )
                    )
                    continue
                try:
                    self._walk(sub, rel + "/", depth + 1, student, out)
                finally:
                    os.close(sub)
            elif _is_notebook(name):
                out.append(self._copy(dfd, name, rel, student, out))

    def _link(self, dfd: int, name: str, rel: str, student: str, out: list[Collected]) -> None:
        try:
            target = os.readlink(name, dir_fd=dfd)
        except OSError:
            target = "?"
        try:
            is_dir = stat.S_ISDIR(os.stat(name, dir_fd=dfd).st_mode)
        except OSError:
            is_dir = False
        if _is_notebook(name) or is_dir:
            what = (
                _("a symbolic link to a folder (to {target}), not followed: only files handed in are graded")
                if is_dir
                else _("a symbolic link (to {target}), not followed: only files handed in are graded")
            )
            out.append(
                Collected(
                    student,
                    rel,
                    problem=what.format(target=show_name(target)),
                )
            )

    def _copy(self, dfd: int, name: str, rel: str, student: str, out: list[Collected]) -> Collected:
        if CHECKPOINTS in rel.split("/")[:-1]:
            return Collected(
                student, rel, problem=_("a Jupyter autosave copy (.ipynb_checkpoints), not a submission")
            )
        if sum(1 for c in out if c.student == student and c.staged) >= self.max_files:
            return Collected(
                student,
                rel,
                problem=_("more than {n} notebooks in one folder: not read").format(n=self.max_files),
            )
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(name, flags, dir_fd=dfd)
        except OSError as e:  # ELOOP: swapped for a link since it was listed
            why = _("a symbolic link, not followed") if e.errno == errno.ELOOP else (e.strerror or str(e))
            return Collected(student, rel, problem=why)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return Collected(student, rel, problem=_kind(st.st_mode))
            if st.st_size > self.max_bytes:
                return Collected(student, rel, size=st.st_size, problem=self._too_large())
            data = _read_at_most(fd, self.max_bytes + 1)
        except OSError as e:
            return Collected(student, rel, problem=e.strerror or str(e))
        finally:
            os.close(fd)
        if len(data) > self.max_bytes:
            return Collected(student, rel, problem=self._too_large())
        self._n += 1
        dest = Path(self.root) / f"{self._n:05d}" / safe_name(name)
        dest.parent.mkdir(mode=0o700)
        wfd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(wfd, "wb") as f:
            f.write(data)
        return Collected(
            student,
            rel,
            staged=str(dest),
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            mtime=st.st_mtime,
        )

    def _too_large(self) -> str:
        return _("larger than {n} MiB: not read").format(n=self.max_bytes >> 20)


def _read_at_most(fd: int, n: int) -> bytes:
    chunks, left = [], n
    while left > 0:
        b = os.read(fd, min(left, 1 << 20))
        if not b:
            break
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _kind(mode: int) -> str:
    for test, what in (
        (stat.S_ISFIFO, N_("a FIFO (named pipe), not a notebook file: not read")),
        (stat.S_ISSOCK, N_("a socket, not a notebook file: not read")),
        (stat.S_ISCHR, N_("a character device, not a notebook file: not read")),
        (stat.S_ISBLK, N_("a block device, not a notebook file: not read")),
    ):
        if test(mode):
            return _(what)
    return _("not a regular file: not read")
