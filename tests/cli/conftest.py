"""Fixtures for the command-line tests: the command run in a subprocess (under a timeout, so a run
that would hang fails instead), and a folder of hostile inputs, all inside tmp_path."""

import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

TIMEOUT = 120  # seconds for one command; a cold Numba cache costs a minute on a busy machine


@dataclass
class Run:
    code: int
    out: bytes
    err: bytes

    @property
    def text(self) -> str:
        """stdout as UTF-8 (strict: invalid output fails the test)."""
        return self.out.decode("utf-8")

    @property
    def errors(self) -> list[str]:
        """stderr's lines (UTF-8, strict)."""
        return [ln for ln in self.err.decode("utf-8").splitlines() if not ln.startswith("STATUS=")]

    def assert_no_traceback(self) -> None:
        err = self.err.decode("utf-8", "replace")
        assert "Traceback" not in err and "Exception ignored" not in err, err


MEMORY_KIB = 4 << 20  # address space of one command: a run that reads /dev/zero fails, alone


def run_cli(*args, env=None, shell_suffix: str = "", timeout: int = TIMEOUT) -> Run:
    """``python -m simhash_lab.cli ARGS`` in a subprocess (bytes in, bytes out), under a timeout
    and a 4 GiB address-space limit (``ulimit -v``), so that a run that would hang or read without
    bound fails alone instead of hanging the suite or taking the machine's memory.

    ``shell_suffix`` is shell text after the command (``">&-"``, ``"| head -0"``); the exit status
    is the command's own (``set -o pipefail`` is not POSIX: a pipeline reports it on stderr as
    ``STATUS=N``, which :attr:`Run.errors` leaves out).
    """
    argv = [sys.executable, "-m", "simhash_lab.cli", *[os.fsencode(a) for a in args]]
    full_env = {**os.environ, **(env or {})}
    command = b'"$@" ' + shell_suffix.encode()
    if "|" in shell_suffix:  # the status of the first command of the pipeline
        command = b'{ "$@"; echo "STATUS=$?" >&2; } ' + shell_suffix.encode()
    script = b"ulimit -v %d || exit 99; " % MEMORY_KIB + command
    p = subprocess.run(
        [b"sh", b"-c", script, b"sh", *argv],
        capture_output=True,
        timeout=timeout,
        env=full_env,
        stdin=subprocess.DEVNULL,
    )
    code = p.returncode
    status = [ln for ln in p.stderr.decode("utf-8", "replace").splitlines() if ln.startswith("STATUS=")]
    if status:
        code = int(status[-1].split("=")[1])
    return Run(code, p.stdout, p.stderr)


@pytest.fixture
def cli():
    """:func:`run_cli`: the command in a subprocess, under a timeout."""
    return run_cli


@dataclass
class Hostile:
    """Paths (str; undecodable bytes held as os.fsdecode holds them) of the hostile inputs."""

    root: str
    good: str  # "rust safe fast"
    bom: str  # the same text after a UTF-8 byte-order mark
    fifo: str
    zero_link: str  # a symbolic link to /dev/zero
    broken_link: str
    folder: str
    folder_link: str  # a symbolic link to a folder
    sparse: str  # 1 GB, sparse: NUL bytes
    sparse_text: str  # 1 GB, sparse, text for its first 16 KiB
    ff_name: str  # a name with byte 0xFF, holding the good text
    newline_name: str  # a name with a newline, holding the good text
    big: str  # 5000 bytes of text


TEXT = "rust safe fast"


@pytest.fixture
def hostile(tmp_path) -> Hostile:
    root = os.fsencode(tmp_path)

    def p(name: bytes) -> str:
        return os.fsdecode(os.path.join(root, name))

    h = Hostile(
        root=str(tmp_path),
        good=p(b"good.txt"),
        bom=p(b"bom.txt"),
        fifo=p(b"fifo"),
        zero_link=p(b"zero"),
        broken_link=p(b"broken"),
        folder=p(b"folder"),
        folder_link=p(b"folder_link"),
        sparse=p(b"sparse.bin"),
        sparse_text=p(b"sparse.txt"),
        ff_name=p(b"bad\xffname.txt"),
        newline_name=p(b"new\nline.txt"),
        big=p(b"big.txt"),
    )
    for path, data in [
        (h.good, TEXT.encode()),
        (h.bom, b"\xef\xbb\xbf" + TEXT.encode()),
        (h.ff_name, TEXT.encode()),
        (h.newline_name, TEXT.encode()),
        (h.big, b"word " * 1000),
    ]:
        with open(os.fsencode(path), "wb") as f:
            f.write(data)
    os.mkfifo(h.fifo)
    os.symlink("/dev/zero", h.zero_link)
    os.symlink(p(b"nowhere"), h.broken_link)
    os.mkdir(h.folder)
    os.symlink(h.folder, h.folder_link)
    with open(h.sparse, "wb") as f:
        f.truncate(1 << 30)
    with open(h.sparse_text, "wb") as f:
        f.write(b"text " * 3277)
        f.truncate(1 << 30)
    return h
