"""Collection into a private staging folder (simhash_lab.grading.staging): regular files copied,
links and special files listed and never read, sizes bounded, names normalised."""

from __future__ import annotations

import hashlib
import os
import stat

import pytest

from simhash_lab.grading.staging import Staging, safe_name


def _by_path(found):
    return {c.path: c for c in found}


def test_every_notebook_is_copied_privately_with_its_hash_size_and_time(tmp_path):
    me = tmp_path / "alice"
    (me / "old" / "deeper").mkdir(parents=True)
    (me / ".hidden").mkdir()
    files = {
        "03_hamming_popcount.ipynb": b'{"cells": []}',
        "03 (1).IPYNB": b'{"cells": [1]}',
        "old/deeper/03_hamming_popcount.ipynb": b"old",
        ".hidden/x.ipynb": b"hidden",
    }
    for rel, data in files.items():
        (me / rel).write_bytes(data)
    os.utime(me / "03 (1).IPYNB", (1_000_000_000, 1_000_000_000))
    (me / "notes.txt").write_text("not a notebook: not listed")
    with Staging() as st:
        root = st.root
        assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
        found = _by_path(st.collect("alice", me))
        assert set(found) == set(files)
        for rel, data in files.items():
            c = found[rel]
            assert c.problem is None and c.student == "alice"
            assert open(c.staged, "rb").read() == data  # noqa: SIM115
            assert c.sha256 == hashlib.sha256(data).hexdigest() and c.size == len(data)
            assert os.path.dirname(os.path.dirname(c.staged)) == root
            assert stat.S_IMODE(os.stat(c.staged).st_mode) == 0o600
        assert found["03 (1).IPYNB"].mtime == 1_000_000_000
        assert os.path.basename(found["03 (1).IPYNB"].staged) == "03__1_.ipynb"
        (me / "03_hamming_popcount.ipynb").write_bytes(b"changed after collection")
        assert open(found["03_hamming_popcount.ipynb"].staged, "rb").read() == b'{"cells": []}'  # noqa: SIM115
    assert not os.path.exists(root)  # removed with its copies


def test_links_are_listed_and_never_followed(tmp_path):
    alice, carol, release = tmp_path / "alice", tmp_path / "carol", tmp_path / "release"
    for d in (alice, carol, release / "solutions"):
        d.mkdir(parents=True)
    (alice / "05_block_index.ipynb").write_bytes(b"alice's")
    (release / "solutions" / "05.ipynb").write_bytes(b"the solution")
    (carol / "05_block_index.ipynb").symlink_to(alice / "05_block_index.ipynb")
    (carol / "03.ipynb").symlink_to(release / "solutions" / "05.ipynb")
    (carol / "theirs").symlink_to(alice)  # a link to a whole folder
    (carol / "broken.ipynb").symlink_to(tmp_path / "nothing")
    with Staging() as st:
        found = _by_path(st.collect("carol", carol))
        assert set(found) == {"05_block_index.ipynb", "03.ipynb", "theirs", "broken.ipynb"}
        for c in found.values():
            assert c.staged is None and c.sha256 is None and "symbolic link" in c.problem, c
        assert "alice" in found["05_block_index.ipynb"].problem  # the teacher sees whose
        assert "folder" in found["theirs"].problem
        (tmp_path / "linked").symlink_to(alice)  # a student folder that is itself a link
        [only] = st.collect("linked", tmp_path / "linked")
        assert only.staged is None and "symbolic link" in only.problem


def test_special_files_large_files_and_autosaves_are_listed_not_read(tmp_path):
    me = tmp_path / "bob"
    (me / ".ipynb_checkpoints").mkdir(parents=True)
    os.mkfifo(me / "fifo.ipynb")  # opening it for reading would block: it is never opened
    (me / "big.ipynb").write_bytes(b"x" * 2048)
    (me / "ok.ipynb").write_bytes(b"x" * 1024)
    (me / "dir.ipynb").mkdir()
    (me / ".ipynb_checkpoints" / "ok-checkpoint.ipynb").write_bytes(b"autosave")
    with Staging(max_bytes=1024) as st:
        found = _by_path(st.collect("bob", me))
    assert "FIFO" in found["fifo.ipynb"].problem
    assert "larger than" in found["big.ipynb"].problem and found["big.ipynb"].staged is None
    assert found["ok.ipynb"].problem is None
    assert "folder" in found["dir.ipynb"].problem
    assert "autosave" in found[".ipynb_checkpoints/ok-checkpoint.ipynb"].problem


def test_a_folder_of_many_notebooks_is_bounded(tmp_path):
    me = tmp_path / "eve"
    me.mkdir()
    for i in range(7):
        (me / f"{i:02d}.ipynb").write_bytes(b"{}")
    with Staging(max_files=5) as st:
        found = st.collect("eve", me)
    assert sum(c.staged is not None for c in found) == 5
    assert sum("more than 5" in (c.problem or "") for c in found) == 2


@pytest.mark.parametrize(
    "name, safe",
    [
        ("03_hamming_popcount.ipynb", "03_hamming_popcount.ipynb"),
        ("03 (1).ipynb", "03__1_.ipynb"),
        ("..\\..\\x.ipynb", "_.._x.ipynb"),
        ("\r=1+1.ipynb", "_=1_1.ipynb".replace("=", "_")),
        ("é\u202e.ipynb", "__.ipynb"),
        ("." * 300 + ".ipynb", "notebook.ipynb"),
    ],
)
def test_names_are_normalised(name, safe):
    assert safe_name(name) == safe
