"""Tests for ``distributed``'s shuffle pieces (raw arrays behind a JSON header, in place of .npz) and
for ``local_cluster``'s quiet workers (no profiler, slower monitors when there is no dashboard)."""

import numpy as np
import pytest

pytest.importorskip("distributed")
D = pytest.importorskip("simhash_lab.distributed")
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
    name = f"{path}/sub/0-1{D._PIECE}"
    want = _arrays()
    D._save(fs, name, **want)
    got = D._load(fs, name)
    assert list(got) == list(want)
    for key, a in want.items():
        b = got[key]
        assert b.dtype == a.dtype and b.shape == a.shape, key
        np.testing.assert_array_equal(b, a)
        assert b.flags.writeable and b.flags.aligned, key  # the Numba kernels take them as np.load gave
    b = got["u64"]
    b[0] = 1  # a view of this read's own buffer: nothing else changes
    assert D._load(fs, name)["u64"][0] == want["u64"][0]
    assert list(D._load(fs, name, ("flags", "raw"))) == ["flags", "raw"]
    # every array starts at a multiple of 64 bytes of the file; the file is no larger than that needs
    size = len(fs.cat_file(name))
    body = sum(-(-a.nbytes // 64) * 64 for a in want.values())
    assert body < size <= body + 64 + 64 * 8
    # listed as pieces of their step, by prefix
    assert [p.rsplit("/", 1)[1] for p in D._piece_names(fs, path, "sub", "0-")] == [f"0-1{D._PIECE}"]


def test_a_file_that_is_not_a_piece_is_refused(tmp_path):
    from simhash_lab._storage import filesystem

    fs, path = filesystem(str(tmp_path))
    (tmp_path / f"x{D._PIECE}").write_bytes(b"PK\x03\x04 not a piece")
    with pytest.raises(ValueError, match="not a shuffle piece"):
        D._load(fs, f"{path}/x{D._PIECE}")


def _settings(dask_worker) -> tuple:
    """Whether the worker's profiler runs, and its tick monitor's period (ms)."""
    return "profile" in dask_worker.periodic_callbacks, dask_worker.periodic_callbacks["tick"].callback_time


@pytest.mark.timeout(120)
def test_a_cluster_without_dashboard_runs_no_profiler_and_slower_monitors():
    import dask

    before = dask.config.get("distributed.worker.profile.enabled")
    cluster, client = D.local_cluster(1, processes=False)
    with cluster, client:
        assert set(client.run(_settings).values()) == {(False, 1000)}
    cluster, client = D.local_cluster(1, processes=False, quiet=False)
    with cluster, client:
        ((running, tick),) = client.run(_settings).values()
        assert running and tick < 1000
    # the settings are the cluster's own: distributed's configuration is left as it was
    assert dask.config.get("distributed.worker.profile.enabled") == before
