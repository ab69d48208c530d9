"""The text files under folders as a dataset (simhash_lab.datasets.files): each file once, in order;
what is not text or too large skipped, what cannot be read an error, each told as it happens and
listed; a file gone before it is read again, one line naming it."""

import numpy as np
import pytest

from simhash_lab.datasets import DatasetError, FilesSource, iter_files


def test_every_file_that_reads_as_text_is_a_row(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "a.txt").write_text("alpha text", encoding="utf-8")
    (tmp_path / "b" / "c.txt").write_text("gamma text", encoding="utf-8")
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01binary")
    (tmp_path / "big.txt").write_text("x" * 100, encoding="utf-8")
    errors, skipped, told = [], [], []
    files = list(iter_files([str(tmp_path), str(tmp_path / "missing.txt")], errors=errors, skipped=skipped))
    assert [e[0] for e in errors] == [str(tmp_path / "missing.txt")]
    src = FilesSource(files, max_bytes=50, say=lambda path, why: told.append(path))
    chunks = list(src.chunks(8192))
    texts = [t for c in chunks for t in c[0]]
    assert texts == ["alpha text", "gamma text"]
    want = [str(tmp_path / "a.txt"), str(tmp_path / "b" / "c.txt")]
    assert src.ids == want == [i for c in chunks for i in c[1]]
    assert sorted(p for p, _ in src.skipped) == sorted([str(tmp_path / "big.txt"), str(tmp_path / "bin.dat")])
    assert sorted(told) == sorted(p for p, _ in src.skipped) and src.errors == []
    assert [(r.tolist(), t) for r, t in src.select(np.array([1]), 10)] == [([1], ["gamma text"])]


def test_a_file_gone_before_it_is_read_again_is_named(tmp_path):
    (tmp_path / "a.txt").write_text("alpha", encoding="utf-8")
    src = FilesSource([str(tmp_path / "a.txt")], max_bytes=1 << 20)
    list(src.chunks(10))
    (tmp_path / "a.txt").unlink()
    with pytest.raises(DatasetError, match="a.txt: could not be read again"):
        list(src.select(np.array([0]), 10))
