"""`simhash-lab fingerprint`: one hex line per file, clear errors, the rest still run."""

import subprocess
import sys

import pytest

from simhash_lab import Simhasher, presets
from simhash_lab.cli import main


def run(*args):
    p = subprocess.run([sys.executable, "-m", "simhash_lab.cli", *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


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


def test_missing_and_binary_files_are_reported_and_the_rest_still_run(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("hello world", encoding="utf-8")
    binary = tmp_path / "img.bin"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("caf\u00e9".encode("latin-1"))
    code, out, err = run("fingerprint", str(tmp_path / "missing.txt"), str(binary), str(latin1), str(good))
    assert code == 1
    assert out.splitlines() == [f"{Simhasher().fingerprint('hello world'):016x}  {good}"]
    lines = err.splitlines()
    assert len(lines) == 3
    assert "missing.txt: No such file or directory" in lines[0]
    assert "img.bin: looks like a binary file" in lines[1]
    assert "latin1.txt: is not UTF-8 text" in lines[2]


@pytest.mark.parametrize(
    "args",
    [
        ["fingerprint", "--bits", "0", "x"],
        ["fingerprint", "--bits", "65", "x"],
        ["fingerprint", "--preset", "nope", "x"],
        ["fingerprint"],
    ],
)
def test_bad_arguments_exit_2(args):
    code, _, err = run(*args)
    assert code == 2 and "usage:" in err
