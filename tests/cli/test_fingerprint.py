"""`simhash-lab fingerprint`: one hex line per file, a one-line reason for every file it cannot
read, the rest still fingerprinted, meaningful exit codes, never a hang or a traceback."""

import json
import os

import pytest

from simhash_lab import Simhasher, presets
from simhash_lab._files import show_name
from simhash_lab.cli import main

TEXT = "rust safe fast"
FP = f"{Simhasher().fingerprint(TEXT):016x}"
pytestmark = pytest.mark.timeout(300)


def test_fingerprint_files(tmp_path, capsys):
    a = tmp_path / "a.txt"
    a.write_text("rust safe fast", encoding="utf-8")
    b = tmp_path / "b.txt"
    b.write_text("\u4f60\u597d\u4e16\u754c \U0001f389", encoding="utf-8")
    assert main(["fingerprint", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        f"{Simhasher().fingerprint('rust safe fast'):016x}  {a}",
        f"{Simhasher().fingerprint(b.read_text(encoding='utf-8')):016x}  {b}",
    ]


def test_preset_and_bits(tmp_path, capsys):
    a = tmp_path / "a.txt"
    a.write_text("rust safe fast", encoding="utf-8")
    assert main(["fingerprint", "--preset", "seed_rust", str(a)]) == 0
    assert capsys.readouterr().out.split()[0] == f"{13163702389499390377:016x}"
    assert main(["fingerprint", "--bits", "16", str(a)]) == 0
    assert capsys.readouterr().out.split()[0] == f"{Simhasher(bits=16).fingerprint('rust safe fast'):04x}"
    assert main(["fingerprint", "--preset", "leonsim", str(a)]) == 0
    assert int(capsys.readouterr().out.split()[0], 16) == presets.LEONSIM.fingerprint("rust safe fast")


def test_missing_and_binary_files_are_reported_and_the_rest_still_run(tmp_path, cli):
    good = tmp_path / "good.txt"
    good.write_text("hello world", encoding="utf-8")
    binary = tmp_path / "img.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\u00e9".encode("latin-1"))
    utf16 = tmp_path / "utf16.txt"
    utf16.write_text("hello world", encoding="utf-16")
    r = cli("fingerprint", tmp_path / "missing.txt", binary, latin1, utf16, good)
    assert r.code == 2
    assert r.text.splitlines() == [f"{Simhasher().fingerprint('hello world'):016x}  {good}"]
    assert r.errors == [
        f"simhash-lab fingerprint: {tmp_path / 'missing.txt'}: No such file or directory",
        f"simhash-lab fingerprint: {binary}: binary (a NUL byte at offset 8)",
        f"simhash-lab fingerprint: {latin1}: not UTF-8 text (byte 0xe9 at offset 3)",
        f"simhash-lab fingerprint: {utf16}: UTF-16 text (it starts with a UTF-16 byte-order mark); "
        "only UTF-8 is read",
    ]


# each hostile input named before a good file: its one-line reason on stderr, the good file still
# fingerprinted, exit 2; before this module's fixes the FIFO hung forever, the /dev/zero link died
# with MemoryError, the sparse file was read whole (1 GB) before being called binary
REFUSED = {
    "fifo": "not a regular file: a FIFO (named pipe)",
    "zero_link": "not a regular file: a symbolic link to a character device (/dev/zero)",
    "broken_link": "broken symbolic link (to {root}/nowhere)",
    "folder": "not a regular file: a directory",
    "folder_link": "not a regular file: a symbolic link to a directory ({root}/folder)",
    "sparse": "binary (a NUL byte at offset 0)",
    "sparse_text": "larger than --max-bytes (1,073,741,824 > 67,108,864 bytes)",
    "big": "larger than --max-bytes (5,000 > 4,096 bytes)",  # with --max-bytes 4096
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_hostile_input_is_one_line_and_the_rest_still_run(hostile, cli, name):
    path = getattr(hostile, name)
    r = cli("fingerprint", *(["--max-bytes", "4096"] if name == "big" else []), path, hostile.good)
    r.assert_no_traceback()
    assert r.code == 2
    assert r.text == f"{FP}  {hostile.good}\n"
    assert r.errors == [f"simhash-lab fingerprint: {path}: {REFUSED[name].format(root=hostile.root)}"]


def test_names_are_escaped_on_one_line(hostile, cli):
    r = cli("fingerprint", hostile.ff_name, hostile.newline_name, hostile.good)
    r.assert_no_traceback()
    assert r.code == 0 and r.err == b""
    assert r.text.splitlines() == [
        f"{FP}  {hostile.root}/bad\\xffname.txt",
        f"{FP}  {hostile.root}/new\\nline.txt",
        f"{FP}  {hostile.good}",
    ]
    # the name of a file that could not be read is escaped the same way on stderr
    os.remove(os.fsencode(hostile.ff_name))
    r = cli("fingerprint", hostile.ff_name)
    assert r.code == 2 and r.errors == [
        f"simhash-lab fingerprint: {hostile.root}/bad\\xffname.txt: No such file or directory"
    ]


def test_every_hostile_input_in_one_run(hostile, cli):
    order = ["fifo", "zero_link", "ff_name", "broken_link", "folder", "sparse", "newline_name", "big", "good"]
    r = cli("fingerprint", "--max-bytes", "4096", *[getattr(hostile, n) for n in order])
    r.assert_no_traceback()
    assert r.code == 2
    assert [line.split("  ", 1)[1] for line in r.text.splitlines()] == [
        show_name(hostile.ff_name),
        show_name(hostile.newline_name),
        hostile.good,
    ]
    assert len(r.errors) == 6 and all(line.startswith("simhash-lab fingerprint: ") for line in r.errors)


def test_strict_ascii_stdout(hostile, tmp_path, cli):
    cafe = tmp_path / "caf\u00e9.txt"
    cafe.write_text(TEXT, encoding="utf-8")
    r = cli(
        "fingerprint", cafe, hostile.ff_name, tmp_path / "gon\u00e9.txt", env={"PYTHONIOENCODING": "ascii"}
    )
    r.assert_no_traceback()
    assert r.code == 2
    assert r.out.decode("ascii").splitlines() == [
        f"{FP}  {tmp_path}/caf\\u00e9.txt",  # a character the stream cannot hold: \uNNNN
        f"{FP}  {tmp_path}/bad\\xffname.txt",  # a byte that is not UTF-8: \xNN
    ]
    assert (
        r.err.decode("ascii")
        == f"simhash-lab fingerprint: {tmp_path}/gon\\u00e9.txt: No such file or directory\n"
    )


def test_reader_that_stops_early(hostile, cli):
    files = [hostile.good] * 3000  # more than a pipe's buffer
    r = cli("fingerprint", *files, shell_suffix="| head -0")
    r.assert_no_traceback()
    assert r.code == 141  # as a program stopped by SIGPIPE
    r = cli("fingerprint", *files, shell_suffix="| head -1")
    r.assert_no_traceback()
    assert r.code == 141 and r.text == f"{FP}  {hostile.good}\n"


def test_closed_stdout(hostile, cli):
    r = cli("fingerprint", hostile.good, shell_suffix=">&-")
    r.assert_no_traceback()
    assert r.code == 2 and r.errors == ["simhash-lab fingerprint: standard output is closed"]


def test_full_stdout(hostile, cli):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    r = cli("fingerprint", hostile.good, shell_suffix=">/dev/full")
    r.assert_no_traceback()
    assert r.code == 2 and r.errors == [
        "simhash-lab fingerprint: cannot write to standard output: No space left on device"
    ]


@pytest.mark.parametrize("preset", ["default", "seed_python", "seed_rust", "leonsim"])
def test_a_bom_is_dropped_as_dedup_drops_it(hostile, capsys, preset):
    """The two commands read a file with a UTF-8 byte-order mark as the same text (before, with
    seed_python, `fingerprint` hashed the BOM into the first word)."""
    expected = f"{presets.ALL[preset].fingerprint(TEXT):016x}"
    assert main(["fingerprint", "--preset", preset, hostile.bom, hostile.good]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [expected, expected]
    assert main(["dedup", "--preset", preset, "--json", "-q", hostile.bom, hostile.good]) == 1
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    assert [m["fingerprint"] for m in group] == [expected, expected]


@pytest.mark.parametrize(
    "args",
    [
        ["fingerprint", "--bits", "0", "x"],
        ["fingerprint", "--bits", "65", "x"],
        ["fingerprint", "--preset", "nope", "x"],
        ["fingerprint", "--max-bytes", "-1", "x"],
        ["fingerprint", "--max-bytes", "lots", "x"],
        ["fingerprint"],
    ],
)
def test_bad_arguments_exit_2(args, cli):
    r = cli(*args)
    assert r.code == 2 and b"usage:" in r.err
