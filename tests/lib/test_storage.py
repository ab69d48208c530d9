"""Where the Dask pipeline reads and writes (simhash_lab._storage): any fsspec URL or plain path, the
partitions of a glob, a folder or a list, and writes that leave an object whole or nothing, on the
local filesystem and on fsspec's in-memory one (which stands for an object store). The pipeline
itself on these is tested in tests/lib/test_distributed_dataset.py."""

from __future__ import annotations

import os
import uuid

import pytest

pytest.importorskip("fsspec")

from simhash_lab import _storage as S  # noqa: E402


@pytest.fixture
def mem():
    """A fresh folder of the in-memory filesystem: (fs, its path, its URL)."""
    url = f"memory://simhash-lab-test-{uuid.uuid4().hex}"
    fs, path = S.filesystem(url)
    fs.mkdir(path)
    yield fs, path, url
    S.remove_tree(fs, path)


def test_filesystem_opens_urls_and_plain_paths(tmp_path):
    fs, path = S.filesystem(str(tmp_path))
    assert S.is_local(fs) and path == str(tmp_path)
    fs, path = S.filesystem(f"file://{tmp_path}")
    assert S.is_local(fs) and path == str(tmp_path)
    fs, path = S.filesystem("memory://a/b")
    assert not S.is_local(fs) and path == "/a/b" and S.url_of(fs, path) == "memory:///a/b"
    assert S.join(fs, "/a/", "b", "c.npz") == "/a/b/c.npz"
    assert S.join(S.filesystem(str(tmp_path))[0], str(tmp_path), "x") == os.path.join(str(tmp_path), "x")


@pytest.mark.parametrize(
    "url, options, error, words",
    [
        ("", None, S.StorageError, "out must be a non-empty path or URL"),
        ("nosuchprotocol://x", None, S.StorageError, "out: cannot open 'nosuchprotocol://x'"),
        ("memory://x", ["not", "a dict"], TypeError, "storage_options must be a dict, got list"),
    ],
)
def test_bad_urls_and_options_name_the_parameter(url, options, error, words):
    with pytest.raises(error, match=words):
        S.filesystem(url, options, param="out")


def test_put_bytes_writes_whole_objects_and_hides_nothing(mem, tmp_path):
    fs, path, _ = mem
    target = S.join(fs, path, "sub", "part-0.npz")
    S.put_bytes(fs, target, b"first")
    S.put_bytes(fs, target, b"second")  # a task run twice writes the same object again
    assert S.read_bytes(fs, target) == b"second"
    assert [p.rsplit("/", 1)[1] for p in fs.find(path)] == ["part-0.npz"]  # no temporary key left
    local = tmp_path / "out" / "part-0.npz"
    S.put_bytes(S.filesystem(str(local))[0], str(local), b"local")
    assert local.read_bytes() == b"local" and os.listdir(local.parent) == ["part-0.npz"]


@pytest.mark.parametrize("where", ["memory", "local"])
def test_a_staged_file_that_raises_leaves_nothing_anywhere(mem, tmp_path, where):
    fs, path, _ = mem
    if where == "local":
        fs, path = S.filesystem(str(tmp_path / "out"))
    target = S.join(fs, path, "kept.parquet")
    with pytest.raises(RuntimeError, match="half way"):
        with S.staged_file(fs, target) as name:
            with open(name, "wb") as f:
                f.write(b"half")
            raise RuntimeError("half way")
    assert not fs.exists(target) and not os.path.exists(name)
    assert [p for p in fs.find(path)] == []
    with S.staged_file(fs, target) as name:
        with open(name, "wb") as f:
            f.write(b"whole")
    assert S.read_bytes(fs, target) == b"whole" and not os.path.exists(name)
    if where == "local":  # the mode a new file gets, not mkstemp's 0600
        from simhash_lab._write import current_umask

        assert os.stat(target).st_mode & 0o777 == 0o666 & ~current_umask()


def test_expand_partitions_of_a_glob_a_folder_a_file_and_a_list(mem):
    fs, path, url = mem
    for name in ("b.parquet", "a.jsonl", "c.ndjson", "d.pq", "notes.txt", ".hidden.parquet", "_tmp/x.jsonl"):
        S.put_bytes(fs, S.join(fs, path, name), b"x")
    _, found = S.expand_partitions(url)  # a folder: its partition files, not hidden, sorted
    assert [p.rsplit("/", 1)[1] for p in found] == ["a.jsonl", "b.parquet", "c.ndjson", "d.pq"]
    _, found = S.expand_partitions(f"{url}/*.parquet")  # a glob: hidden names left out, as a shell does
    assert [p.rsplit("/", 1)[1] for p in found] == ["b.parquet"]
    _, found = S.expand_partitions(f"{url}/.*.parquet")  # unless the pattern spells the dot
    assert [p.rsplit("/", 1)[1] for p in found] == [".hidden.parquet"]
    _, found = S.expand_partitions([f"{url}/d.pq", f"{url}/a.jsonl"])  # a list: in its order
    assert [p.rsplit("/", 1)[1] for p in found] == ["d.pq", "a.jsonl"]
    _, found = S.expand_partitions(f"{url}/notes.txt")  # one file named: taken as it is
    assert len(found) == 1


@pytest.mark.parametrize(
    "partitions, error, words",
    [
        ([], S.StorageError, "at least one file"),
        (3, TypeError, "partitions must be a path, a URL or a sequence of them, got int"),
        ("{url}/*.parquet", S.StorageError, "no file matches"),
        ("{url}", S.StorageError, "holds no .parquet, .pq, .jsonl, .ndjson file"),
        (["{url}/a.jsonl", "/tmp/b.jsonl"], S.StorageError, "all be on one filesystem"),
    ],
)
def test_bad_partitions_are_named(mem, partitions, error, words):
    fs, path, url = mem
    S.put_bytes(fs, S.join(fs, path, "notes.txt"), b"x")
    if isinstance(partitions, str):
        partitions = partitions.format(url=url)
    elif isinstance(partitions, list):
        partitions = [p.format(url=url) for p in partitions]
    with pytest.raises(error, match=words):
        S.expand_partitions(partitions)


def test_list_files_sees_what_others_wrote_and_remove_empty_keeps_what_is_full(mem):
    fs, path, _ = mem
    folder = S.join(fs, path, "scratch")
    assert S.list_files(fs, folder, "pairs-") == []  # no folder yet
    for name in ("pairs-1.npz", "pairs-0.npz", "other-0.npz", "pairs-2.txt"):
        S.put_bytes(fs, S.join(fs, folder, name), b"x")
    assert [p.rsplit("/", 1)[1] for p in S.list_files(fs, folder, "pairs-")] == ["pairs-0.npz", "pairs-1.npz"]
    S.remove_empty(fs, folder)
    assert fs.exists(folder)  # not empty: kept
    S.remove_tree(fs, folder)
    assert not fs.exists(folder)
    S.remove_tree(fs, folder)  # already gone: nothing to say
