"""Plain paths in ``simhash_lab._storage``: relative paths and globs are made absolute on the client,
so workers started in another folder (``dask worker`` from any shell, as the README's cluster
section has them) read and write the same files; the result is the one-process result."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("fsspec")
from simhash_lab._storage import expand_partitions, filesystem  # noqa: E402


def test_relative_paths_and_globs_are_absolute_on_the_client(tmp_path, monkeypatch):
    (tmp_path / "in").mkdir()
    for name in ("b.jsonl", "a.jsonl", ".hidden.jsonl"):
        (tmp_path / "in" / name).write_text('{"text": "x"}\n')
    monkeypatch.chdir(tmp_path)
    fs, path = filesystem("out/", param="output")
    assert path == str(tmp_path / "out")
    for given in ("in/*.jsonl", "in", "./in/"):
        _, paths = expand_partitions(given)
        assert paths == [str(tmp_path / "in" / "a.jsonl"), str(tmp_path / "in" / "b.jsonl")], given


def test_workers_in_another_folder_read_and_write_the_clients_relative_paths(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from simhash_lab import distributed as D
    from simhash_lab.dedup import dedup_table

    rng = np.random.default_rng(7)
    vocab = [f"w{i}" for i in range(500)]
    texts = [" ".join(rng.choice(vocab, 50)) for _ in range(90)]
    for _ in range(50):  # near-copies: one word replaced
        w = texts[int(rng.integers(90))].split()
        w[int(rng.integers(50))] = "edited"
        texts.append(" ".join(w))
    rows = [{"id": f"doc{i}", "text": t} for i, t in enumerate(texts)]
    (tmp_path / "in").mkdir()
    for p, part in enumerate((rows[:70], rows[70:])):
        pq.write_table(pa.Table.from_pylist(part), tmp_path / "in" / f"part-{p}.parquet")
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows))
    want = dedup_table(whole, id_column="id")
    assert (~want.keep).sum() >= 20
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cluster, client = D.local_cluster(2)  # worker processes, each with its own working folder
    try:
        client.run(os.chdir, str(elsewhere))
        assert set(client.run(os.getcwd).values()) == {str(elsewhere)}
        monkeypatch.chdir(tmp_path)
        summary = D.dedup_dataset("in/*.parquet", "out", id_column="id")
    finally:
        client.close()
        cluster.close()
    assert not any(elsewhere.iterdir())  # nothing written where the workers run
    kept = [
        r for f in sorted((tmp_path / "out").glob("part-*.parquet")) for r in pq.read_table(f).to_pylist()
    ]
    assert summary["k"] == want.k
    assert kept == [r for r, k in zip(rows, want.keep) if k]
    dups = pq.read_table(tmp_path / "out" / "duplicates.parquet").to_pylist()
    assert [(d["dropped_id"], d["kept_id"]) for d in dups] == [
        (a, b) for a, b, _, _ in want.duplicates.rows()
    ]


def test_a_glob_leaves_out_hidden_names_as_the_shell_does(tmp_path):
    """Before: ``in/*.parquet`` also gave ``in/._part-0.parquet`` (macOS's AppleDouble file), which
    the shell's glob and the folder form leave out."""
    (tmp_path / "in" / ".cache").mkdir(parents=True)
    for name in ("part-0.jsonl", "._part-0.jsonl", ".cache/part-1.jsonl"):
        (tmp_path / "in" / name).write_text('{"text": "x"}\n')
    base = str(tmp_path / "in")
    assert expand_partitions(base + "/*.jsonl")[1] == [base + "/part-0.jsonl"]
    assert expand_partitions(base + "/**/*.jsonl")[1] == [base + "/part-0.jsonl"]
    assert expand_partitions(base)[1] == [base + "/part-0.jsonl"]
    assert expand_partitions(base + "/._*.jsonl")[1] == [base + "/._part-0.jsonl"]  # spelled out
    assert expand_partitions(base + "/.cache/*.jsonl")[1] == [base + "/.cache/part-1.jsonl"]
