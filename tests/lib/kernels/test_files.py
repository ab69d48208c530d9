"""kernels.files.copy_runs: runs of one file's bytes copied to their places in another by
copy_file_range, many runs a call; where it stops, and what it says when a call fails or the
source ends early."""

import os

import numpy as np
import pytest

from simhash_lab.kernels import files as K

pytestmark = pytest.mark.skipif(not K.AVAILABLE, reason="no copy_file_range in the C library")


@pytest.fixture
def pair(tmp_path):
    data = bytes(range(256)) * 64  # 16 KiB
    (tmp_path / "src").write_bytes(data)
    src = os.open(tmp_path / "src", os.O_RDONLY)
    dst = os.open(tmp_path / "dst", os.O_RDWR | os.O_CREAT, 0o600)
    yield data, src, dst, tmp_path / "dst"
    os.close(src)
    os.close(dst)


def _runs(bounds, base=0):
    s = np.array([a for a, _ in bounds], np.int64)
    e = np.array([b for _, b in bounds], np.int64)
    return s, e, np.concatenate([[0], np.cumsum(e - s)]).astype(np.int64) + base


def test_runs_are_copied_to_their_places_and_stop_at_upto(pair):
    data, src, dst, path = pair
    bounds = [(0, 10), (100, 4196), (4196, 4200), (9000, 16384)]
    s, e, at = _runs(bounds, base=3)
    os.pwrite(dst, b"abc", 0)  # what the output held before its place stays
    pos = np.zeros(2, np.int64)
    assert K.copy_runs(src, dst, s, e, at, 0, 4, int(at[2]), pos) == (2, K.COPIED)  # run 2 starts at upto
    assert path.read_bytes() == b"abc" + data[0:10] + data[100:4196]
    assert K.copy_runs(src, dst, s, e, at, 2, 4, 1 << 62, pos) == (4, K.COPIED)
    assert path.read_bytes() == b"abc" + b"".join(data[a:b] for a, b in bounds)
    assert os.lseek(dst, 0, os.SEEK_CUR) == 0  # offsets given: the output's position unmoved
    assert K.copy_runs(src, dst, s, e, at, 4, 4, 1 << 62, pos) == (4, K.COPIED)  # no runs: nothing


def test_a_source_that_ends_early_and_a_failed_call_say_where(pair, tmp_path):
    data, src, dst, path = pair
    s, e, at = _runs([(0, 5), (16000, 16500)])  # the second run goes past the source's end (16384)
    pos = np.zeros(2, np.int64)
    assert K.copy_runs(src, dst, s, e, at, 0, 2, 1 << 62, pos) == (1, K.SHORT)
    assert pos.tolist() == [16384, 5 + 384]  # where it ended: its bytes so far in place
    assert path.read_bytes() == data[:5] + data[16000:]
    ro = os.open(path, os.O_RDONLY)  # an output not open for writing: the call fails (EBADF)
    try:
        assert K.copy_runs(src, ro, s, e, at, 0, 2, 1 << 62, pos) == (0, K.FAILED)
        assert pos.tolist() == [0, 0]
        with pytest.raises(OSError):  # the caller's call made again says why
            os.copy_file_range(src, ro, 5, 0, 0)
    finally:
        os.close(ro)
