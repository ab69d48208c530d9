"""simhash_lab._write: outputs checked before the work, written whole or not at all, and never a
device, FIFO or link replaced by a regular file."""

from __future__ import annotations

import errno
import os
import stat
import threading

import pytest

from simhash_lab import _write
from simhash_lab._write import OutputError, atomic_output, check_outputs


def _files(folder):
    return sorted(os.listdir(folder))


# -- atomic_output: regular files ------------------------------------------------------------------


def test_new_file_is_written_whole_with_the_umask_mode(tmp_path):
    p = tmp_path / "out.json"
    old = os.umask(0o027)
    try:
        with atomic_output(p, "w", encoding="utf-8") as f:
            f.write("héllo\n")
            assert _files(tmp_path) != ["out.json"]  # the temporary, not the final name, while writing
            assert not p.exists()
    finally:
        os.umask(old)
    assert p.read_text(encoding="utf-8") == "héllo\n"
    assert _files(tmp_path) == ["out.json"]
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_existing_file_keeps_its_mode_and_is_replaced(tmp_path):
    p = tmp_path / "out.bin"
    p.write_bytes(b"old")
    p.chmod(0o600)
    with atomic_output(p, "wb") as f:
        f.write(b"new")
    assert p.read_bytes() == b"new"
    assert stat.S_IMODE(p.stat().st_mode) == 0o600


@pytest.mark.parametrize("exc", [RuntimeError, KeyboardInterrupt])
def test_an_exception_leaves_the_old_file_and_no_temporary(tmp_path, exc):
    p = tmp_path / "out.json"
    p.write_text("old")
    with pytest.raises(exc), atomic_output(p) as f:
        f.write("half")
        raise exc()
    assert p.read_text() == "old"
    assert _files(tmp_path) == ["out.json"]


def test_a_full_disk_is_an_output_error_naming_the_file_and_nothing_half_written(tmp_path, monkeypatch):
    p = tmp_path / "kept.jsonl"
    p.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_write.os, "fsync", full)
    full_disk = r"cannot write .*kept\.jsonl: No space left on device"
    with pytest.raises(OutputError, match=full_disk) as e, atomic_output(p) as f:
        f.write("x" * 100_000)
    assert e.value.path == p
    assert p.read_text() == "old"
    assert _files(tmp_path) == ["kept.jsonl"]


def test_a_write_error_inside_the_block_is_an_output_error(tmp_path):
    p = tmp_path / "out"
    with pytest.raises(OutputError, match="No space left"), atomic_output(p) as f:
        f.write("x")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert _files(tmp_path) == []


def test_other_errors_inside_the_block_pass_through(tmp_path):
    with pytest.raises(FileNotFoundError), atomic_output(tmp_path / "out"):
        open(tmp_path / "missing-input")
    assert _files(tmp_path) == []


def test_a_planted_link_at_the_old_predictable_temporary_name_is_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    p = tmp_path / "out.json"
    (tmp_path / f"out.json.tmp-{os.getpid()}").symlink_to(victim)
    with atomic_output(p) as f:
        f.write("results")
    assert victim.read_text() == "precious"
    assert p.read_text() == "results"


def test_the_temporary_is_hidden_and_unpredictable(tmp_path, monkeypatch):
    seen = []
    with atomic_output(tmp_path / "out.json") as f:
        seen = _files(tmp_path)
        f.write("x")
    with atomic_output(tmp_path / "out.json") as f:
        seen += _files(tmp_path)
    tmps = [n for n in seen if n != "out.json"]
    assert len(tmps) == 2 and tmps[0] != tmps[1]
    assert all(n.startswith(".out.json.") and n.endswith(".tmp") for n in tmps)


# -- atomic_output: written in place ---------------------------------------------------------------


def test_a_symlink_is_written_through_and_kept(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    with atomic_output(link) as f:
        f.write("new")
    assert link.is_symlink() and target.read_text() == "new"


def test_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    with atomic_output(fifo, "wb") as f:
        f.write(b"through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_character_device_is_written_in_place_and_a_full_one_is_an_output_error():
    with atomic_output(os.devnull, "wb") as f:
        f.write(b"gone")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with pytest.raises(OutputError, match="/dev/full: No space left"), atomic_output("/dev/full") as f:
        f.write("x")
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_dev_stdout_as_a_link_to_proc_self_fd_is_written_to_the_reader(tmp_path):
    r, w = os.pipe()
    link = tmp_path / "stdout"
    link.symlink_to(f"/proc/self/fd/{w}")
    with atomic_output(link, "wb") as f:
        f.write(b"to the reader")
    os.close(w)
    with os.fdopen(r, "rb") as rf:
        assert rf.read() == b"to the reader"
    assert link.is_symlink()


def test_bad_mode_and_a_folder_are_refused(tmp_path):
    with pytest.raises(ValueError, match="mode"), atomic_output(tmp_path / "x", "a"):
        pass
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "d")
    with pytest.raises(OutputError, match="folder"), atomic_output(tmp_path / "link"):
        pass


# -- check_outputs ---------------------------------------------------------------------------------


def test_check_accepts_new_and_existing_files_and_skips_none(tmp_path):
    (tmp_path / "old").write_text("x")
    check_outputs(tmp_path / "new", None, tmp_path / "old", what=("--output", "--json", "--duplicates"))
    check_outputs(os.devnull, what="--json")


def test_check_refuses_a_folder_and_a_missing_folder(tmp_path):
    with pytest.raises(OutputError, match=r"^--json: .* is a folder"):
        check_outputs(tmp_path, what="--json")
    with pytest.raises(OutputError, match=r"^--json: cannot write .*: no such folder"):
        check_outputs(tmp_path / "missing" / "out.json", what="--json")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="--json: cannot write .*: Not a directory"):
        check_outputs(tmp_path / "file" / "out.json", what="--json")


def test_check_refuses_two_names_of_one_file(tmp_path):
    a = tmp_path / "a.jsonl"
    what = ("--output", "--duplicates")
    with pytest.raises(OutputError, match="--output and --duplicates name one file"):
        check_outputs(a, tmp_path / "." / "a.jsonl", what=what)  # same real path, not there yet
    a.write_text("x")
    (tmp_path / "hard").hardlink_to(a)
    with pytest.raises(OutputError, match="name one file"):
        check_outputs(a, tmp_path / "hard", what=what)  # same inode
    (tmp_path / "soft").symlink_to(a)
    with pytest.raises(OutputError, match="name one file"):
        check_outputs(tmp_path / "soft", a, what=what)


def test_check_refuses_an_output_naming_an_input(tmp_path):
    src = tmp_path / "docs.jsonl"
    src.write_text("{}\n")
    with pytest.raises(OutputError, match="--output names an input file"):
        check_outputs(tmp_path / "docs.jsonl", what="--output", inputs=[src])
    check_outputs(tmp_path / "kept.jsonl", what="--output", inputs=[src, tmp_path / "missing"])


def test_check_refuses_a_socket_and_an_empty_name(tmp_path):
    import socket

    path = tmp_path / "s"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(os.fspath(path))
        with pytest.raises(OutputError, match="socket"):
            check_outputs(path, what="--json")
    finally:
        s.close()
    with pytest.raises(OutputError, match="empty"):
        check_outputs("", what="--json")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes any folder")
def test_check_refuses_a_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="not writable"):
            check_outputs(ro / "out.json", what="--json")
    finally:
        ro.chmod(0o700)


def test_output_error_is_an_os_error_with_its_message():
    e = OutputError("cannot write x: No space left on device", "x")
    assert isinstance(e, OSError) and str(e) == "cannot write x: No space left on device" and e.path == "x"


# -- the index's save goes through the writer -------------------------------------------------------


def _index():
    import numpy as np

    from simhash_lab import SimhashIndex

    index = SimhashIndex(k=3)
    index.add_many(np.array([1, 2, 3 << 40], dtype=np.uint64))
    return index


def test_index_save_to_a_link_keeps_the_link_and_a_full_disk_is_an_output_error(tmp_path):
    from simhash_lab import SimhashIndex

    index = _index()
    real = tmp_path / "real.idx"
    real.write_bytes(b"old")
    link = tmp_path / "link.idx"
    link.symlink_to(real)
    index.save(link)
    assert link.is_symlink() and SimhashIndex.load(real).query(1) == index.query(1)
    if os.path.exists("/dev/full"):
        with pytest.raises(OutputError, match="/dev/full"):
            index.save("/dev/full")
        assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)
    with pytest.raises(OutputError, match="missing"):
        index.save(tmp_path / "missing" / "x.idx")
    assert sorted(os.listdir(tmp_path)) == ["link.idx", "real.idx"]


# -- Writeback: the device started on a big output's bytes as they come ----------------------------


def test_writeback_asks_the_kernel_every_step_from_its_start_and_changes_no_byte(tmp_path, monkeypatch):
    asked = []
    real = _write._SYNC_FILE_RANGE

    def spy(fd, offset, length, flags):
        asked.append((offset, length, flags))
        return real(fd, offset, length, flags) if real is not None else 0

    monkeypatch.setattr(_write, "_SYNC_FILE_RANGE", spy)
    monkeypatch.setattr(_write.Writeback, "STEP", 1000)
    p = tmp_path / "out.bin"
    with open(p, "wb") as f:
        f.write(b"h" * 100)
        f.flush()
        wb = _write.Writeback(f.fileno())  # from the file's position
        assert (wb.on, wb.start) == (True, 100)
        for i in range(25):
            os.write(f.fileno(), bytes([i]) * 100)
            wb.wrote(100 + 100 * (i + 1))
    assert asked == [(100, 1000, 2), (1100, 1000, 2)]  # SYNC_FILE_RANGE_WRITE, never a wait
    assert p.read_bytes() == b"h" * 100 + b"".join(bytes([i]) * 100 for i in range(25))


def test_writeback_leaves_a_pipe_alone_and_stops_when_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(_write, "_SYNC_FILE_RANGE", lambda *a: -1)  # a file system without it
    monkeypatch.setattr(_write.Writeback, "STEP", 10)
    r, w = os.pipe()
    try:
        assert not _write.Writeback(w).on  # no lseek on a pipe, nothing asked
    finally:
        os.close(r), os.close(w)
    with open(tmp_path / "f", "wb") as f:
        wb = _write.Writeback(f.fileno(), start=0)
        wb.wrote(20)
        assert not wb.on  # refused once: never asked again


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/dev//stdout"])
def test_a_name_of_the_process_own_descriptor_is_written_at_its_position(tmp_path, name):
    """Reopened by name, ``/dev/stdout`` on a file the shell opened with ``>>`` (or wrote to
    first) was truncated; a copy of descriptor 1 writes where it stands, after Python's own
    buffered prints."""
    import subprocess
    import sys

    code = (
        "import sys; from simhash_lab._write import atomic_output\n"
        "print('printed first')\n"
        f"with atomic_output({name!r}, 'w', encoding='utf-8') as f:\n"
        "    f.write('written\\n')\n"
        "print('printed after')\n"
    )
    out = tmp_path / "log"
    out.write_bytes(b"held\n")
    with open(out, "ab") as log:
        subprocess.run([sys.executable, "-c", code], stdout=log, check=True, timeout=60)
    assert out.read_text() == "held\nprinted first\nwritten\nprinted after\n"
    assert _files(tmp_path) == ["log"]


# -- standard input by any name, an input folder (issue 45) -------------------------------------

_STDIN_CHECKS = r"""
import sys
from simhash_lab._write import OutputError, check_outputs
for out in sys.argv[1:]:
    try:
        check_outputs(out, what="--output", inputs=[0])
        print("accepted", out)
    except OutputError as e:
        print("refused", out, "|", e)
"""


def test_an_output_that_is_standard_input_by_any_name_is_refused(tmp_path):
    """Standard input read (``inputs=[0]``), the file redirected to it is refused as an output by
    its own name and by every name of the descriptor; other files, and /dev/stdout, are not."""
    import subprocess
    import sys

    src = tmp_path / "in.jsonl"
    src.write_text('{"text": "x"}\n')
    names = [
        str(src),
        "/dev/stdin",
        "/dev/fd/0",
        "/proc/self/fd/0",
        str(tmp_path / "other.jsonl"),
        "/dev/stdout",
    ]
    with open(src, "rb") as stdin:
        p = subprocess.run(
            [sys.executable, "-c", _STDIN_CHECKS, *names], stdin=stdin, capture_output=True, timeout=60
        )
    got = p.stdout.decode().splitlines()
    assert [line.split()[0] for line in got] == ["refused"] * 4 + ["accepted"] * 2, got
    assert "the file standard input reads" in got[0] and "names standard input (/dev/stdin)" in got[1]
    assert src.read_text() == '{"text": "x"}\n'  # nothing touched
    # through a pipe: its names still refused; the file is no longer what it reads
    argv = [sys.executable, "-c", _STDIN_CHECKS, "/dev/stdin", str(src)]
    p = subprocess.run(argv, stdin=subprocess.PIPE, capture_output=True, timeout=60)
    assert [line.split()[0] for line in p.stdout.decode().splitlines()] == ["refused", "accepted"]


def test_an_existing_output_inside_an_input_folder_is_refused(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.txt").write_text("a text")
    with pytest.raises(OutputError, match="inside the input folder"):
        check_outputs(str(tmp_path / "docs" / "a.txt"), what="--duplicates", inputs=[str(tmp_path / "docs")])
    check_outputs(str(tmp_path / "docs" / "new.csv"), inputs=[str(tmp_path / "docs")])  # made after the read
    check_outputs(str(tmp_path / "dups.csv"), inputs=[str(tmp_path / "docs")])


def test_a_copy_of_a_read_only_descriptor_is_an_output_error_naming_it(tmp_path):
    """``--output /dev/fd/N`` on a descriptor open for reading only: refused by the system, told as
    the output's error (before: "simhash-lab dedup: : Bad file descriptor")."""
    src = tmp_path / "ro.txt"
    src.write_text("kept")
    fd = os.open(src, os.O_RDONLY)
    try:
        with pytest.raises(OutputError, match=f"cannot write /dev/fd/{fd}"):
            with atomic_output(f"/dev/fd/{fd}", "w") as f:
                f.write("x" * 100_000)
    finally:
        os.close(fd)
    assert src.read_text() == "kept"


# -- temporary files on SIGTERM and SIGHUP, as on Ctrl-C (issue 45) -------------------------------

_MID_WRITE = r"""
import os, signal, sys, time
from simhash_lab._write import atomic_write
if sys.argv[2] == "ignored":
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # nohup: the program's choice is kept

def write(f):
    f.write("x" * 100_000)
    f.flush()
    print("ready", flush=True)
    time.sleep(30)

atomic_write(sys.argv[1], "w", write)
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_mid_write_removes_the_temporary_and_ends_the_process_by_it(tmp_path, sig):
    """A real signal while the file is being written: the temporary goes (as on Ctrl-C), the old
    file stays, and the process ends by the signal (its exit status says so), as coreutils' sort."""
    import signal
    import subprocess
    import sys

    out = tmp_path / "kept.jsonl"
    out.write_text("old\n")
    p = subprocess.Popen([sys.executable, "-c", _MID_WRITE, str(out), "default"], stdout=subprocess.PIPE)
    try:
        assert p.stdout.readline() == b"ready\n"
        assert len(list(tmp_path.glob(".kept.jsonl.*.tmp"))) == 1  # mid-write
        p.send_signal(getattr(signal, sig))
        assert p.wait(timeout=60) == -getattr(signal, sig)
    finally:
        p.kill()
    assert sorted(x.name for x in tmp_path.iterdir()) == ["kept.jsonl"] and out.read_text() == "old\n"


def test_a_signal_the_program_ignores_stays_ignored(tmp_path):
    import signal
    import subprocess
    import sys

    p = subprocess.Popen(
        [sys.executable, "-c", _MID_WRITE, str(tmp_path / "k"), "ignored"], stdout=subprocess.PIPE
    )
    try:
        assert p.stdout.readline() == b"ready\n"
        p.send_signal(signal.SIGHUP)
        with pytest.raises(subprocess.TimeoutExpired):
            p.wait(timeout=1)  # still writing
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=60) == -signal.SIGTERM
    finally:
        p.kill()
    assert sorted(x.name for x in tmp_path.iterdir()) == []
