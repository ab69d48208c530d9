"""Tests for ``distributed``'s shuffle pieces (raw arrays behind a JSON header, in place of .npz; a
task's pieces of a step in one file behind an index of their places) and
for ``local_cluster``'s quiet workers (no profiler, slower monitors when there is no dashboard)."""

import numpy as np
import pytest

pytest.importorskip("distributed")
D = pytest.importorskip("simhash_lab.distributed.pieces")
fsspec = pytest.importorskip("fsspec")


def _arrays() -> dict:
    return {
        "u64": np.arange(5, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15),
        "strided": np.arange(12, dtype=np.int64).reshape(3, 4)[:, 1:],  # not contiguous
        "flags": np.array([True, False, True]),
        "empty2d": np.empty((0, 3), np.int16),
        "scalar": np.array(7, np.int64),
        "raw": np.frombuffer(b'["a", 1]', np.uint8),
        "f64": np.array([0.5, np.nan, -1e300]),
    }


@pytest.mark.parametrize("where", ["local", "memory"])
def test_a_piece_gives_back_every_array_as_it_was_and_writable(tmp_path, where):
    if where == "local":
        from simhash_lab._storage import filesystem

        fs, path = filesystem(str(tmp_path))
    else:
        fs, path = fsspec.filesystem("memory"), f"/pieces-{tmp_path.name}"
    name = f"{path}/sub/0-1{D.PIECE}"
    want = _arrays()
    D.save_piece(fs, name, **want)
    got = D.load_piece(fs, name)
    assert list(got) == list(want)
    for key, a in want.items():
        b = got[key]
        assert b.dtype == a.dtype and b.shape == a.shape, key
        np.testing.assert_array_equal(b, a)
        assert b.flags.writeable and b.flags.aligned, key  # the Numba kernels take them as np.load gave
    b = got["u64"]
    b[0] = 1  # a view of this read's own buffer: nothing else changes
    assert D.load_piece(fs, name)["u64"][0] == want["u64"][0]
    assert list(D.load_piece(fs, name, ("flags", "raw"))) == ["flags", "raw"]
    # every array starts at a multiple of 64 bytes of the file; the file is no larger than that needs
    size = len(fs.cat_file(name))
    body = sum(-(-a.nbytes // 64) * 64 for a in want.values())
    assert body < size <= body + 64 + 64 * 8


def _fs(tmp_path, where):
    if where == "local":
        from simhash_lab._storage import filesystem

        return filesystem(str(tmp_path))
    return fsspec.filesystem("memory"), f"/pieces-{tmp_path.name}"


@pytest.mark.parametrize("where", ["local", "memory"])
def test_a_step_is_one_file_a_task_and_each_reader_gets_its_own_pieces(tmp_path, where):
    fs, run = _fs(tmp_path, where)

    def piece(src, dest):
        return {
            "src": np.array([src]),
            "dest": np.full(dest + 1, dest, np.int64),
            "x": np.arange(src * 10 + dest),
        }

    D.save_pieces(fs, run, "map", 0, 3, {0: piece(0, 0), 2: piece(0, 2)})
    D.save_pieces(fs, run, "map", 1, 3, {1: piece(1, 1), 2: piece(1, 2)})
    D.save_pieces(fs, run, "map", 2, 3, {})  # a task with nothing to send still writes its file
    from simhash_lab._storage import list_files

    assert [n.rsplit("/", 1)[1] for n in list_files(fs, f"{run}/map", "", D.PIECES)] == [
        f"{i}{D.PIECES}" for i in range(3)
    ]

    def seen(got):
        return [(int(g["src"][0]), int(g["dest"][0])) for g in got]

    assert seen(D.read_pieces(fs, run, "map", 0)) == [(0, 0)]
    assert seen(D.read_pieces(fs, run, "map", 1)) == [(1, 1)]
    assert seen(D.read_pieces(fs, run, "map", 2)) == [(0, 2), (1, 2)]
    assert seen(D.read_pieces(fs, run, "map", None)) == [(0, 0), (0, 2), (1, 1), (1, 2)]
    for dest in (2, None):
        for g in D.read_pieces(fs, run, "map", dest):
            src, d = int(g["src"][0]), int(g["dest"][0])
            np.testing.assert_array_equal(g["x"], np.arange(src * 10 + d))
            assert g["dest"].size == d + 1 and g["x"].flags.writeable
    assert [list(g) for g in D.read_pieces(fs, run, "map", 2, ("x",))] == [["x"], ["x"]]
    assert D.read_pieces(fs, run, "left", 0) == []  # a step nobody wrote to
    with pytest.raises(ValueError, match="no destination 3"):
        D.read_pieces(fs, run, "map", 3)


def test_a_cut_or_foreign_file_of_pieces_is_refused(tmp_path):
    fs, run = _fs(tmp_path, "local")
    D.save_pieces(fs, run, "map", 0, 4, {3: {"x": np.arange(100)}})
    name = tmp_path / "map" / f"0{D.PIECES}"
    whole = name.read_bytes()
    name.write_bytes(whole[:20])  # the index cut short
    for dest in (3, None):
        with pytest.raises(ValueError, match="cut short"):
            D.read_pieces(fs, run, "map", dest)
    name.write_bytes(whole[:-8])  # the last piece cut short
    with pytest.raises(ValueError, match="pieces are cut short"):
        D.read_pieces(fs, run, "map", 3)
    name.write_bytes(b"PK\x03\x04" + whole[4:])
    with pytest.raises(ValueError, match="not a file of shuffle pieces"):
        D.read_pieces(fs, run, "map", 3)


def test_a_file_that_is_not_a_piece_is_refused(tmp_path):
    from simhash_lab._storage import filesystem

    fs, path = filesystem(str(tmp_path))
    (tmp_path / f"x{D.PIECE}").write_bytes(b"PK\x03\x04 not a piece")
    with pytest.raises(ValueError, match="not a shuffle piece"):
        D.load_piece(fs, f"{path}/x{D.PIECE}")
