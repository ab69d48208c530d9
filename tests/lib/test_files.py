"""simhash_lab._files: what every command that reads a user's files relies on (regular files only,
never blocking, bounded reads, one decoding, one way to show a name)."""

import os
import tracemalloc

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simhash_lab import _files
from simhash_lab._files import (
    NotRegularFile,
    NotText,
    TooLarge,
    json_name,
    open_regular,
    read_bytes,
    read_text,
    show_name,
    walk,
)

pytestmark = pytest.mark.timeout(120)  # a read that blocks fails instead of hanging


# -- names -----------------------------------------------------------------------------------------

names = st.one_of(st.binary(min_size=1, max_size=40), st.text(max_size=40))


@given(names)
def test_show_name_is_one_printable_line(name):
    shown = show_name(name)
    assert shown.isprintable()  # so no newline, carriage return or control character
    shown.encode("utf-8")  # no lone surrogate left


@given(names, names)
def test_show_name_never_shows_two_names_alike(a, b):
    if os.fsdecode(a) != os.fsdecode(b):
        assert show_name(a) != show_name(b)


@given(names)
def test_json_name_is_valid_utf8_and_keeps_utf8_names(name):
    s = json_name(name)
    s.encode("utf-8")
    decoded = os.fsdecode(name)
    try:
        decoded.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert s == decoded  # a name that is UTF-8 is kept exactly: open(doc["path"]) opens it


@pytest.mark.parametrize(
    "name, shown, in_json",
    [
        ("plain.txt", "plain.txt", "plain.txt"),
        ("caf\u00e9 \u4f60\u597d.txt", "caf\u00e9 \u4f60\u597d.txt", "caf\u00e9 \u4f60\u597d.txt"),
        ("new\nline", "new\\nline", "new\nline"),
        ("tab\tand\rcr", "tab\\tand\\rcr", "tab\tand\rcr"),
        ("back\\slash", "back\\\\slash", "back\\slash"),
        ("bell\x07", "bell\\x07", "bell\x07"),
        ("nel\x85", "nel\\u0085", "nel\x85"),  # a character: \u, never \x >= 80
        (b"byte\x85", "byte\\x85", "byte\\x85"),  # a byte that is not UTF-8: \x
        ("rlo\u202etxt.exe", "rlo\\u202etxt.exe", "rlo\u202etxt.exe"),
        ("line\u2028sep", "line\\u2028sep", "line\u2028sep"),
        ("lone\ud800", "lone\\ud800", "lone\\ud800"),
        ("emoji\U0001f389", "emoji\U0001f389", "emoji\U0001f389"),
    ],
)
def test_names(name, shown, in_json):
    assert show_name(name) == shown
    assert json_name(name) == in_json


# -- what is refused, and how ----------------------------------------------------------------------


@pytest.fixture
def odd(tmp_path):
    """A text file, a FIFO, links to /dev/zero and nowhere, a folder, a link loop."""
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfrust safe fast")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "folder").mkdir()
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    return tmp_path


@pytest.mark.parametrize(
    "name, reason",
    [
        ("fifo", "not a regular file: a FIFO (named pipe)"),
        ("zero", "not a regular file: a symbolic link to a character device (/dev/zero)"),
        ("broken", "broken symbolic link (to {root}/nowhere)"),
        ("folder", "not a regular file: a directory"),
        ("loop1", "symbolic link loop (too many levels of symbolic links)"),
    ],
)
@pytest.mark.parametrize("read", [read_text, read_bytes, open_regular])
def test_not_regular_files_are_refused(odd, name, reason, read, memory_cap):
    with pytest.raises(NotRegularFile) as e:
        read(odd / name)
    assert str(e.value) == reason.format(root=odd)
    assert isinstance(e.value, ValueError)


def test_dev_null_and_missing(odd, memory_cap):
    with pytest.raises(NotRegularFile, match="not a regular file: a character device"):
        read_text("/dev/null")
    with pytest.raises(FileNotFoundError):
        read_text(odd / "missing")


def test_a_fifo_swapped_in_after_the_check_cannot_block(odd, monkeypatch):
    """The type is checked again on the descriptor, which is opened non-blocking."""
    monkeypatch.setattr(_files, "_stat_regular", lambda path: None)  # as if it were a file when looked at
    with pytest.raises(NotRegularFile, match="a FIFO"):
        read_text(odd / "fifo")


def test_bom_is_dropped_once(odd):
    assert read_text(odd / "a.txt") == "rust safe fast"
    (odd / "two.txt").write_bytes(b"\xef\xbb\xbf\xef\xbb\xbfx")
    assert read_text(odd / "two.txt") == "\ufeffx"  # only a leading BOM is the file's, the rest is text
    assert read_bytes(odd / "a.txt") == b"\xef\xbb\xbfrust safe fast"


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary (a NUL byte at offset 8)"),
        (b"caf\xe9", "not UTF-8 text (byte 0xe9 at offset 3)"),
        ("hi".encode("utf-16"), "UTF-16 text (it starts with a UTF-16 byte-order mark); only UTF-8 is read"),
        (b"x" * 9000 + b"\0", None),  # a NUL past the sniffed 8 KiB is text (U+0000)
    ],
)
def test_not_text(tmp_path, data, reason):
    p = tmp_path / "f"
    p.write_bytes(data)
    if reason is None:
        assert read_text(p) == data.decode()
        return
    with pytest.raises(NotText) as e:
        read_text(p)
    assert str(e.value) == reason


def traced_peak(fn, *args, **kw):
    tracemalloc.start()
    try:
        try:
            fn(*args, **kw)
        except ValueError as e:
            exc = e
        else:
            exc = None
        return tracemalloc.get_traced_memory()[1], exc
    finally:
        tracemalloc.stop()


def test_sparse_gigabyte_is_called_binary_after_8_kib(tmp_path, memory_cap):
    p = tmp_path / "sparse"
    with open(p, "wb") as f:
        f.truncate(1 << 30)
    for limit in (1 << 20, 2 << 30):  # under and over the file's size
        peak, exc = traced_peak(read_text, p, limit)
        assert isinstance(exc, NotText) and str(exc) == "binary (a NUL byte at offset 0)"
        assert peak < 1 << 20


def test_too_large_is_refused_before_reading(tmp_path, memory_cap):
    p = tmp_path / "sparse.txt"
    with open(p, "wb") as f:
        f.write(b"text " * 4000)
        f.truncate(1 << 30)
    peak, exc = traced_peak(read_text, p, 64 << 20, limit_name="--max-bytes")
    assert (
        isinstance(exc, TooLarge) and str(exc) == "larger than --max-bytes (1,073,741,824 > 67,108,864 bytes)"
    )
    assert peak < 1 << 20
    peak, exc = traced_peak(read_bytes, p, 1000)
    assert isinstance(exc, TooLarge) and str(exc) == "larger than max_bytes (1,073,741,824 > 1,000 bytes)"
    assert peak < 1 << 20


def test_limits_are_exact(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x" * 100)
    assert read_text(p, 100) == "x" * 100 and read_bytes(p, 100) == b"x" * 100
    with pytest.raises(TooLarge):
        read_text(p, 99)
    p.write_bytes(b"")
    assert read_text(p, 0) == "" and read_bytes(p, 0) == b""
    with pytest.raises(ValueError, match="max_bytes must be a non-negative int, got -1"):
        read_text(p, -1)
    with pytest.raises(ValueError, match="max_bytes must be a non-negative int, got 1.5"):
        read_bytes(p, 1.5)


def test_a_file_larger_than_it_says_is_read_bounded(tmp_path, monkeypatch):
    """fstat's size is a hint (a file can grow; /proc files say 0): the read stops at max_bytes + 1."""
    p = tmp_path / "f"
    p.write_bytes(b"y" * 5000)
    real = os.fstat

    def small_fstat(fd):
        st = real(fd)
        return os.stat_result((*st[:6], 10, *st[7:]))  # st_size = 10

    monkeypatch.setattr(_files.os, "fstat", small_fstat)
    assert read_text(p, 5000) == "y" * 5000
    with pytest.raises(TooLarge, match="it grew while being read"):
        read_text(p, 4999)
    with pytest.raises(TooLarge, match="it grew while being read"):
        read_bytes(p, 100)


# -- walking folders -------------------------------------------------------------------------------


def test_walk_says_what_every_entry_is(odd):
    (odd / "folder" / "b.txt").write_text("b")
    (odd / "folder" / ".hidden.txt").write_text("h")
    (odd / "folder_link").symlink_to(odd / "folder")
    (odd / "a_link.txt").symlink_to(odd / "a.txt")
    got = [(os.path.relpath(e.path, odd), e.named, e.kind) for e in walk([odd])]
    assert got == [
        ("a.txt", False, "file"),
        ("a_link.txt", False, "file"),
        ("broken", False, "not_regular"),
        ("fifo", False, "not_regular"),
        ("folder_link", False, "not_regular"),  # not followed: no walk can loop
        ("loop1", False, "not_regular"),
        ("loop2", False, "not_regular"),
        ("zero", False, "not_regular"),
        ("folder/b.txt", False, "file"),
    ]
    problems = {os.path.basename(e.path): e.problem for e in walk([odd]) if e.problem}
    assert problems["folder_link"] == f"symbolic link to a directory ({odd}/folder), not followed"
    assert problems["zero"] == "not a regular file: a symbolic link to a character device (/dev/zero)"
    assert [os.path.basename(e.path) for e in walk([odd / "folder"], hidden=True)] == [".hidden.txt", "b.txt"]


def test_walk_named_paths(odd):
    got = [(e.path, e.named, e.kind, e.problem) for e in walk([odd / "fifo", odd / "missing", odd / "a.txt"])]
    assert got == [
        (str(odd / "fifo"), True, "not_regular", "not a regular file: a FIFO (named pipe)"),
        (str(odd / "missing"), True, "unreadable", "No such file or directory"),
        (str(odd / "a.txt"), True, "file", None),
    ]
    (odd / "folder" / "x").write_text("x")
    (odd / "folder_link").symlink_to(odd / "folder")
    assert [e.path for e in walk([odd / "folder_link"])] == [
        str(odd / "folder_link" / "x")
    ]  # named: followed


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists folders whatever their mode")
def test_walk_unlistable_folder(tmp_path):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked").chmod(0)
    try:
        got = [(e.kind, e.problem) for e in walk([tmp_path])]
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert got == [("unreadable", "Permission denied")]


def test_walk_deep_tree_does_not_recurse(tmp_path):
    folders = [str(tmp_path)]
    for _ in range(1100):  # deeper than Python's recursion limit
        folders.append(os.path.join(folders[-1], "d"))
        os.mkdir(folders[-1])
    leaf = os.path.join(folders[-1], "f.txt")
    with open(leaf, "w") as f:
        f.write("deep")
    try:
        assert [e.kind for e in walk([tmp_path])] == ["file"]
    finally:  # removed here: shutil.rmtree (pytest's clean-up) recurses and would fail on it
        os.remove(leaf)
        for d in reversed(folders[1:]):
            os.rmdir(d)
