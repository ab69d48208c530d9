"""Tests for ``distributed.dedup_dataset``: the same decisions as ``dedup_table`` on the same rows,
from local files, fsspec URLs (``memory://``, ``file://``), a local S3 endpoint (moto's server),
and with a worker process killed during the candidate step."""

import json
import os
import signal
import socket
import unicodedata
import uuid

import numpy as np
import pytest

dask = pytest.importorskip("dask")
pa = pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed")
import pyarrow.parquet as pq  # noqa: E402

from simhash_lab import Simhasher  # noqa: E402
from simhash_lab.dedup import dedup_table  # noqa: E402
from simhash_lab.settings import DedupSettings  # noqa: E402

S = DedupSettings()  # the defaults every entry point shares


def one_process(path, **kw):
    """``dedup_table`` with the shared defaults (jaccard, recall), as ``dedup_dataset`` has them."""
    return dedup_table(path, id_column="id", **{"jaccard": S.jaccard, "recall": S.recall, **kw})


def corpus(n=1500, words=60, copies=0.2, seed=3):
    """Documents of ``words`` words (Python's docs' vocabulary); a share are copies of an earlier
    document with one to three words replaced: near-duplicates at Jaccard 0.7 to 0.95."""
    from simhash_lab.course.corpus import python_docs

    vocab = sorted({w.lower() for d in python_docs() for w in d.text.split() if w.isalpha()})
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        if i > 10 and rng.random() < copies:
            w = docs[int(rng.integers(i))].split()
            for p in rng.choice(words, int(rng.integers(1, 4)), replace=False).tolist():
                w[p] = vocab[int(rng.integers(len(vocab)))]
        else:
            w = [vocab[int(j)] for j in rng.integers(len(vocab), size=words)]
        docs.append(" ".join(w))
    return docs


@pytest.fixture(scope="module")
def texts():
    from simhash_lab.course.corpus import labelled_set, python_docs

    return labelled_set(python_docs()[:120], seed=1).docs


@pytest.fixture(scope="module")
def big():
    return corpus()


def _rows(texts):
    return [{"id": f"doc{i}", "text": t, "n": i} for i, t in enumerate(texts)]


def _partitioned(tmp_path, texts, n_parts, fmt):
    rows = _rows(texts)
    bounds = np.linspace(0, len(rows), n_parts + 1).astype(int)
    paths = []
    for p in range(n_parts):
        part = rows[bounds[p] : bounds[p + 1]]
        path = tmp_path / f"in-{n_parts}-{p}.{fmt}"
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        else:
            pq.write_table(pa.Table.from_pylist(part), path)
        paths.append(str(path))
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths, rows, whole


def _read_output(out_dir, fs=None):
    if fs is None:
        import fsspec

        fs = fsspec.filesystem("file")
        out_dir = str(out_dir)
    kept = []
    for name in sorted(fs.glob(out_dir.rstrip("/") + "/part-*.parquet")):
        with fs.open(name, "rb") as f:
            kept.extend(pq.read_table(f).to_pylist())
    with fs.open(out_dir.rstrip("/") + "/duplicates.parquet", "rb") as f:
        dups = pq.read_table(f).to_pylist()
    return kept, dups


def _same_as(want, rows, kept, dups):
    """The kept rows and the duplicates table of one process (``want``) and of Dask are equal."""
    assert kept == [r for r, k in zip(rows, want.keep) if k]
    assert [(d["dropped_id"], d["kept_id"], d["distance"]) for d in dups] == [
        (a, b, c) for a, b, c, _ in want.duplicates.rows()
    ]
    np.testing.assert_allclose([d["similarity"] for d in dups], want.duplicates.similarity)
    assert [(d["dropped_row"], d["kept_row"]) for d in dups] == list(
        zip(want.duplicates.dropped.tolist(), want.duplicates.kept.tolist())
    )


def _cluster(processes=False):
    pytest.importorskip("distributed")
    return D.local_cluster(2, processes=processes)


@pytest.mark.parametrize("fmt, keep", [("jsonl", "first"), ("parquet", "longest")])
def test_dedup_dataset_equals_the_single_machine_result(tmp_path, texts, fmt, keep):
    paths, rows, whole = _partitioned(tmp_path, texts, 3, fmt)
    want = one_process(whole, k=10, keep=keep)
    assert len(want.duplicates) > 10
    got = D.dedup_dataset(
        paths, tmp_path / "out", DedupSettings(k=10, keep=keep), id_column="id", scheduler="sync"
    )
    kept, dups = _read_output(tmp_path / "out")
    _same_as(want, rows, kept, dups)
    assert got["rows"] == len(rows) and got["dropped"] == len(want.duplicates) and got["k"] == 10
    assert got["kept"] == len(kept) and not (tmp_path / "out" / "_shuffle").exists()
    assert got["calibration"] is None


def test_default_arguments_make_the_single_machine_decision(tmp_path, big):
    """k calibrated on the same seeded sample, drawn across all partitions, as one process draws
    it: the same k, the same kept rows, the same duplicates table (issue 24, item 3)."""
    paths, rows, whole = _partitioned(tmp_path, big, 4, "parquet")
    want = one_process(whole)
    assert want.calibration.method == "sample" and len(want.duplicates) > 100
    cluster, client = _cluster()
    with cluster, client:
        got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", n_reducers=3)
    assert got["k"] == want.k and got["calibration"] == want.calibration.summary()
    _same_as(want, rows, *_read_output(tmp_path / "out"))
    for seed, sample in ((5, 300), (1, 50)):  # another sample: still the one process's k
        w = one_process(whole, seed=seed, sample=sample)
        g = D.dedup_dataset(
            paths, tmp_path / f"o{seed}", id_column="id", seed=seed, sample=sample, scheduler="sync"
        )
        assert g["k"] == w.k and g["calibration"] == w.calibration.summary()


def test_layouts_do_not_change_the_decision(tmp_path, big):
    paths, rows, whole = _partitioned(tmp_path, big[:600], 3, "jsonl")
    want = one_process(whole, k=8)
    for layout in ("auto", "blocks", ("permuted", 10)):
        out = tmp_path / f"out-{layout}"
        D.dedup_dataset(paths, out, id_column="id", k=8, layout=layout, scheduler="sync")
        _same_as(want, rows, *_read_output(out))


def test_graph_grows_linearly_with_partitions(tmp_path, texts):
    sizes = {}
    for n in (2, 4, 8):
        paths, _, _ = _partitioned(tmp_path, texts, n, "jsonl")
        graph = D.dedup_dataset(paths, tmp_path / f"out{n}", jaccard=0.8, k=6, task_bytes=0, compute=False)
        sizes[n] = len(dict(graph.__dask_graph__()))
    per_partition = (sizes[4] - sizes[2]) / 2
    assert sizes[8] - sizes[4] == 4 * per_partition  # linear: no partitions x reducers tasks
    assert per_partition <= 13  # with the exact-groups reducer and the count of rows by characters


def test_bad_input(tmp_path):
    with pytest.raises(ValueError, match="partitions"):
        D.dedup_dataset([], tmp_path / "out")
    with pytest.raises(ValueError, match="keep"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", keep="shortest")
    with pytest.raises(ValueError, match="no file matches"):
        D.dedup_dataset(str(tmp_path / "none-*.parquet"), tmp_path / "out")
    with pytest.raises(ValueError, match="holds no"):
        D.dedup_dataset(str(tmp_path), tmp_path / "out")
    with pytest.raises(ValueError, match="cannot open"):
        D.dedup_dataset("nosuchprotocol://bucket/x.parquet", tmp_path / "out")
    with pytest.raises(TypeError, match="storage_options"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", storage_options="key=1")
    with pytest.raises(ValueError, match="jaccard"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", jaccard=None)
    with pytest.raises(TypeError, match="unknown dedup option"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", calibrate_on=2)
    with pytest.raises(ValueError, match="unverified"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", unverified=True, k=3)
    with pytest.raises(ValueError, match="features"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", features="letters")
    with pytest.raises(ValueError, match="k"):
        D.dedup_dataset(["x.jsonl"], tmp_path / "out", hasher=Simhasher(bits=16), k=20)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "part-00000.parquet").write_bytes(b"")
    with pytest.raises(ValueError, match="replace the partition"):
        D.dedup_dataset(str(tmp_path / "x" / "*.parquet"), tmp_path / "x")
    with pytest.raises(ValueError, match="one filesystem"):
        D.dedup_dataset([str(tmp_path / "a.jsonl"), "memory://b.jsonl"], tmp_path / "out")


def test_an_output_folder_holding_parts_is_refused_unless_overwrite(tmp_path, big):
    """An earlier run's parts in the output folder (fewer rows, other files): refused before any
    work (before, a reader of ``out/part-*.parquet`` got the other run's rows too); with
    ``overwrite=True`` they are removed first, as Spark and pyarrow's write_dataset do; a part to
    remove that is a partition read is refused even then (issue 45)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, _, _ = _partitioned(tmp_path / "a", big[:300], 3, "parquet")
    second, rows, whole = _partitioned(tmp_path / "b", big[300:500], 1, "parquet")
    out = tmp_path / "out"
    D.dedup_dataset(first, out, id_column="id", scheduler="sync")
    assert len(list(out.glob("part-*.parquet"))) == 3
    (out / "notes.txt").write_text("mine")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir())
    with pytest.raises(ValueError, match=r"holds 4 part files of an earlier run .*overwrite=True"):
        D.dedup_dataset(second, out, id_column="id", scheduler="sync")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in out.iterdir()) == before  # untouched
    with pytest.raises(TypeError, match="overwrite"):
        D.dedup_dataset(second, out, id_column="id", scheduler="sync", overwrite="yes")
    got = D.dedup_dataset(second, out, id_column="id", scheduler="sync", overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["duplicates.parquet", "notes.txt", "part-00000.parquet"]
    assert got["rows"] == len(rows)
    _same_as(one_process(whole), rows, *_read_output(out))
    with pytest.raises(ValueError, match="replace the partition"):  # the earlier part is read now
        D.dedup_dataset([str(out / "part-00000.parquet"), *second], out, id_column="id", overwrite=True)
    assert (out / "part-00000.parquet").exists()


# -- fsspec URLs ------------------------------------------------------------------------------------


def _upload(fs, root, texts, n_parts):
    rows = _rows(texts)
    bounds = np.linspace(0, len(rows), n_parts + 1).astype(int)
    for p in range(n_parts):
        with fs.open(f"{root}/in/part-{p:03d}.parquet", "wb") as f:
            pq.write_table(pa.Table.from_pylist(rows[bounds[p] : bounds[p + 1]]), f)
    return rows


def test_urls_glob_folder_and_file(tmp_path, texts):
    """memory:// partitions by glob and by folder, output and scratch on it; file:// URLs."""
    fsspec = pytest.importorskip("fsspec")
    mem = fsspec.filesystem("memory")
    root = f"/t-{uuid.uuid4().hex[:8]}"
    rows = _upload(mem, root, texts, 3)
    mem.pipe(f"{root}/in/_SUCCESS", b"")  # a marker file: not a partition of the folder
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    want = one_process(whole)
    for source in (f"memory://{root}/in/*.parquet", f"memory://{root}/in/"):
        out = f"memory://{root}/out-{len(source)}/"
        got = D.dedup_dataset(source, out, id_column="id", scheduler="sync")
        assert got["k"] == want.k
        _same_as(want, rows, *_read_output(out.removeprefix("memory://"), mem))
        left = mem.find(root)
        assert not [p for p in left if ".tmp" in p or "_shuffle" in p], left
    # a scratch folder of the user's: only this run's folder in it is removed
    D.dedup_dataset(
        f"memory://{root}/in/*.parquet", f"memory://{root}/o3", id_column="id", k=6,
        scratch=f"memory://{root}/scratch", scheduler="sync",
    )  # fmt: skip
    assert mem.exists(f"{root}/scratch") and not mem.find(f"{root}/scratch")
    paths, rows, whole = _partitioned(tmp_path, texts, 2, "jsonl")
    got = D.dedup_dataset(
        [f"file://{p}" for p in paths], f"file://{tmp_path}/out", id_column="id", k=10, scheduler="sync"
    )
    _same_as(one_process(whole, k=10), rows, *_read_output(tmp_path / "out"))


def test_a_failed_write_leaves_nothing(tmp_path):
    """The staged writer: the final name appears whole or not at all, on every filesystem."""
    fsspec = pytest.importorskip("fsspec")
    from simhash_lab import _storage

    mem = fsspec.filesystem("memory")
    root = f"/w-{uuid.uuid4().hex[:8]}"
    mem.mkdir(root)
    for fs, folder in ((mem, root), (fsspec.filesystem("file"), str(tmp_path))):
        target = _storage.join(fs, folder, "x.parquet")
        with pytest.raises(RuntimeError), _storage.staged_file(fs, target) as local:
            with open(local, "wb") as f:
                f.write(b"half")
            raise RuntimeError("killed mid-write")
        assert not fs.exists(target) and not fs.ls(folder, detail=False)
        _storage.put_bytes(fs, target, b"whole")
        assert fs.cat_file(target) == b"whole" and fs.ls(folder, detail=False) == [
            fs.ls(folder, detail=False)[0]
        ]


def test_local_writes_get_the_permissions_of_a_new_file(tmp_path):
    """A staged local output (named by a library: Parquet) and bytes written through
    ``_write.atomic_output`` get what a new file gets (0666 less the umask), not mkstemp's 0600,
    and leave no temporary file."""
    from simhash_lab import _storage
    from simhash_lab._write import current_umask

    fs = _storage.filesystem(str(tmp_path))[0]
    staged, raw = str(tmp_path / "a.parquet"), str(tmp_path / "sub" / "b.npz")
    with _storage.staged_file(fs, staged) as local:
        pq.write_table(pa.table({"x": [1]}), local)
    _storage.put_bytes(fs, raw, b"whole")
    for path in (staged, raw):
        assert os.stat(path).st_mode & 0o777 == 0o666 & ~current_umask()
    assert sorted(os.listdir(tmp_path)) == ["a.parquet", "sub"] and os.listdir(tmp_path / "sub") == ["b.npz"]


# -- a local S3 endpoint ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """moto's S3 server on 127.0.0.1 (a thread of this process: it stops with the test), and the
    storage_options that reach it."""
    pytest.importorskip("s3fs")
    server_mod = pytest.importorskip("moto.server")
    for var in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    port = _free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield {
            "key": "testing",
            "secret": "testing",
            "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "eu-west-1"},
        }
    finally:
        server.stop()


@pytest.mark.timeout(300)
def test_on_a_local_s3_endpoint(tmp_path, big, s3):
    import s3fs

    fs = s3fs.S3FileSystem(**s3)
    bucket = f"b-{uuid.uuid4().hex[:8]}"
    fs.mkdir(bucket)
    rows = _upload(fs, bucket, big[:900], 3)
    paths, _, whole = _partitioned(tmp_path, big[:900], 3, "parquet")
    cluster, client = _cluster()
    with cluster, client:
        got = D.dedup_dataset(
            f"s3://{bucket}/in/*.parquet", f"s3://{bucket}/out/", id_column="id", storage_options=s3
        )
        local = D.dedup_dataset(paths, tmp_path / "out", id_column="id")
    want = one_process(whole)
    assert got == local and got["k"] == want.k and got["dropped"] > 30
    fs.invalidate_cache()
    kept, dups = _read_output(f"{bucket}/out", fs)
    assert (kept, dups) == _read_output(tmp_path / "out")
    _same_as(want, rows, kept, dups)
    names = fs.find(bucket)
    assert not [n for n in names if ".tmp" in n or "_shuffle" in n], names


# -- a worker lost mid-run --------------------------------------------------------------------------


def _kill_once(flag):
    """A worker plugin: the first worker to start a candidate (reduce) task kills its own process
    with SIGKILL, once in the cluster's life (``flag``, created exclusively, records its pid)."""
    from distributed import WorkerPlugin

    class KillOnce(WorkerPlugin):
        name = "kill-once"

        def transition(self, key, start, finish, **kwargs):
            name = key[0] if isinstance(key, tuple) else key
            if finish != "executing" or not str(name).startswith(("table_reduce", "band_reduce")):
                return
            try:
                fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)

    return KillOnce()


@pytest.mark.timeout(300)
def test_a_worker_killed_during_the_candidate_step(tmp_path, big):
    paths, rows, whole = _partitioned(tmp_path, big[:900], 3, "parquet")
    want = one_process(whole)
    flag = str(tmp_path / "killed")
    cluster, client = _cluster(processes=True)
    with cluster, client:
        before = set(client.run(os.getpid).values())
        client.register_plugin(_kill_once(flag))
        got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", n_reducers=4)
        after = set(client.run(os.getpid).values())
    killed = int(open(flag).read())
    assert killed in before and killed not in after  # a worker did die, mid-step, and was replaced
    assert got["k"] == want.k and got["dropped"] == len(want.duplicates)
    _same_as(want, rows, *_read_output(tmp_path / "out"))
    assert not (tmp_path / "out" / "_shuffle").exists()


def test_local_cluster_never_warns_of_a_busy_port(recwarn):
    """Notebook 08's cluster: no dashboard, and its HTTP server never asks for a port in use."""
    pytest.importorskip("distributed")
    import warnings

    with socket.socket() as busy:
        busy.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            busy.bind(("", 8787))
            busy.listen()
        except OSError:
            pass  # someone else holds it: the same test
        warnings.simplefilter("always")
        cluster, client = D.local_cluster(1, processes=False)
        with cluster, client:
            assert client.submit(sum, [1, 2]).result() == 3
    assert not [w for w in recwarn if "already in use" in str(w.message)], [str(w.message) for w in recwarn]


@pytest.mark.timeout(300)
def test_warmup_workers_runs_the_warmup_on_every_worker():
    pytest.importorskip("distributed")
    cluster, client = D.local_cluster(2, processes=False)
    with cluster, client:
        got = D.warmup_workers(client)
        assert set(got) == set(client.scheduler_info()["workers"])
        for status, line in got.values():
            assert status == 0 and "kernels compiled" in line and line.startswith("simhash-lab warmup: 0 ")


# -- one decision everywhere: normalisation, character shingles, exact groups (issue 24, item 3) ---

ZWSP = "\u200b"
# common Han characters, hiragana, Thai letters: made in the test, no corpus needed
HAN = [chr(c) for c in range(0x4E00, 0x4E00 + 400)]
KANA = [chr(c) for c in range(0x3041, 0x3094)]
THAI = [chr(c) for c in range(0x0E01, 0x0E2F)]


def _unspaced_doc(rng, alphabet, n=40):
    """A text without word spaces: ``n`` characters, a full stop (，or 。) every 8 to 12."""
    out, run = [], 0
    for c in rng.integers(len(alphabet), size=n).tolist():
        out.append(alphabet[c])
        run += 1
        if run >= int(rng.integers(8, 13)):
            out.append("，" if rng.random() < 0.7 else "。")
            run = 0
    return "".join(out)


def _edit_chars(rng, text, alphabet, edits):
    chars = list(text)
    pos = [i for i, ch in enumerate(chars) if ch not in "，。"]
    for i in rng.choice(pos, edits, replace=False).tolist():
        chars[i] = alphabet[int(rng.integers(len(alphabet)))]
    return "".join(chars)


def _chinese(n=240, seed=5):
    """Chinese rows: a third near-copies of an earlier row with 1 to 3 characters replaced (around
    the 0.8 threshold of character 3-grams), a few exact copies."""
    rng = np.random.default_rng(seed)
    docs = []
    for i in range(n):
        r = rng.random()
        if i > 5 and r < 0.33:
            docs.append(_edit_chars(rng, docs[int(rng.integers(i))], HAN, int(rng.integers(1, 4))))
        elif i > 5 and r < 0.4:
            docs.append(docs[int(rng.integers(i))])
        else:
            docs.append(_unspaced_doc(rng, HAN))
    return docs


def _fullwidth(word):
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in word)


def _invisible(n=300, seed=7):
    """English rows and copies that differ only by U+200B inside words or by full-width (NFKC)
    letters: exact copies once normalised; some with a word replaced too (near-copies)."""
    rng = np.random.default_rng(seed)
    base = corpus(n, words=40, copies=0.15, seed=seed)
    docs = []
    for i, t in enumerate(base):
        r = rng.random()
        if i > 5 and r < 0.3:
            w = docs[int(rng.integers(i))].split()
            for p in rng.choice(len(w), 4, replace=False).tolist():
                w[p] = ZWSP.join(w[p]) if rng.random() < 0.5 else _fullwidth(w[p])
            if rng.random() < 0.3:
                w[int(rng.integers(len(w)))] = "replaced"
            docs.append(" ".join(w))
        else:
            docs.append(t)
    return docs


def _copies_across(n=300, seed=11):
    """Many exact copies of a few rows, spread over every partition, and near-copies of those rows
    (so a representative is itself dropped for an earlier row, and its copies follow it)."""
    rng = np.random.default_rng(seed)
    docs = corpus(n, words=50, copies=0.1, seed=seed)
    heads = [0, 1, 2]
    for h in heads:  # a near-copy of each head, early: the head's copies go where the head goes
        w = docs[h].split()
        w[5] = "changed"
        docs[3 + h] = " ".join(w)
    for i in rng.choice(np.arange(10, n), n // 4, replace=False).tolist():
        h = heads[int(rng.integers(len(heads)))]
        docs[i] = docs[h] if rng.random() < 0.7 else docs[h].replace(" ", " " + ZWSP, 1)
    return docs


def _scripts(n=320, seed=13):
    """A mix of scripts: English word rows, Chinese, Japanese (kana and Han), Thai, and rows of
    English with a Chinese phrase; near-copies and exact copies in each."""
    rng = np.random.default_rng(seed)
    english = corpus(n, words=45, copies=0.0, seed=seed)
    docs = []
    for i in range(n):
        kind = int(rng.integers(5))
        if i > 8 and rng.random() < 0.35:
            src = docs[int(rng.integers(i))]
            if rng.random() < 0.3:
                docs.append(src)
            elif src.isascii() or " " in src:
                w = src.split()
                w[int(rng.integers(len(w)))] = "edited"
                docs.append(" ".join(w))
            else:
                docs.append(_edit_chars(rng, src, HAN, 1))
        elif kind == 0:
            docs.append(english[i])
        elif kind == 1:
            docs.append(_unspaced_doc(rng, HAN))
        elif kind == 2:
            docs.append(_unspaced_doc(rng, KANA + HAN[:100], 45))
        elif kind == 3:
            docs.append(_unspaced_doc(rng, THAI, 45))
        else:
            docs.append(english[i][:120] + " " + _unspaced_doc(rng, HAN, 12))
    return docs


@pytest.fixture(scope="module")
def client():
    cluster, client = _cluster()
    with cluster, client:
        yield client


def _parity(tmp_path, texts, n_parts, fmt="parquet", **kw):
    """``dedup_dataset`` with default arguments (but ``kw``) on ``n_parts`` partitions against
    ``dedup_table`` on the same rows: the same k, kept rows, duplicates table and counts."""
    paths, rows, whole = _partitioned(tmp_path, texts, n_parts, fmt)
    want = one_process(whole, **kw)
    got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", n_reducers=n_parts - 1 or 1, **kw)
    _same_as(want, rows, *_read_output(tmp_path / "out"))
    assert got["k"] == want.k and got["calibration"] == want.calibration.summary()
    assert got["dropped"] == len(want.duplicates) and got["exact"] == want.exact
    assert got["by_chars"] == want.by_chars
    return want


def test_chinese_rows_are_shingled_by_characters_on_dask(tmp_path, client):
    texts = _chinese()
    want = _parity(tmp_path, texts, 3)
    assert want.by_chars == len(texts) and want.exact > 0
    # the decision is character 3-grams': a near-copy with one character replaced is dropped
    assert len(want.duplicates) - want.exact > 20


def test_invisible_edits_are_exact_copies_on_dask(tmp_path, client):
    texts = _invisible()
    want = _parity(tmp_path, texts, 4, fmt="jsonl")
    norm = [unicodedata.normalize("NFKC", t.replace(ZWSP, "")) for t in texts]
    first: dict = {}
    copies = [i for i, t in enumerate(norm) if first.setdefault(t, i) != i]
    hidden = [i for i in copies if texts[i] != texts[first[norm[i]]]]  # copies only once normalised
    assert len(hidden) > 20 and not want.keep[hidden].any() and want.exact >= len(copies)


@pytest.mark.parametrize("keep", ["first", "longest"])
def test_exact_copies_across_partitions(tmp_path, client, keep):
    texts = _copies_across()
    want = _parity(tmp_path, texts, 4, keep=keep)
    assert want.exact >= len(texts) // 4 - 3
    # a representative dropped for a near-copy takes its copies with it (distance > 0 rows)
    reps_dropped = {int(k) for k in want.duplicates.kept.tolist()} & {3, 4, 5, 0, 1, 2}
    assert reps_dropped


def test_a_mix_of_scripts(tmp_path, client):
    texts = _scripts()
    want = _parity(tmp_path, texts, 3)
    assert 0 < want.by_chars < len(texts) and want.exact > 0


def test_no_id_column_numbers_rows_across_partitions(tmp_path, client):
    """Without an id column the duplicates table's ids are row numbers across all partitions, as
    ``dedup_table`` numbers them (not each partition's own)."""
    texts = _copies_across(200, seed=2)
    paths, rows, whole = _partitioned(tmp_path, texts, 3, "parquet")
    want = dedup_table(whole)
    got = D.dedup_dataset(paths, tmp_path / "out")
    kept, dups = _read_output(tmp_path / "out")
    _same_as(want, rows, kept, dups)
    assert got["k"] == want.k and max(d["dropped_id"] for d in dups) > len(texts) // 3


@pytest.mark.parametrize(
    "kw", [{"features": "chars", "char_ngram": 4}, {"normalize": False}, {"exact": False}]
)
def test_settings_beyond_the_defaults_on_dask(tmp_path, client, kw):
    """features, char_ngram, normalize and exact are used as dedup_table uses them."""
    texts = _scripts(160, seed=3) + _invisible(80, seed=4)
    want = _parity(tmp_path, texts, 2, **kw)
    assert want.exact == 0 if "exact" in kw else want.exact > 0


def test_each_step_of_the_shuffles_writes_one_file_a_task(tmp_path, big, monkeypatch):
    """A step's pieces go out as one file a task (its pieces for every destination behind an
    index), not a file a piece: at 6 partitions and 6 reducers, 6 files a step where a file a
    piece made up to 36 (and at 64 partitions 4,096, each reducer's listing scanning them all)."""
    from collections import Counter

    from simhash_lab import _storage

    texts = big[:600] + big[:150]  # exact copies too: the copies step has pieces
    paths, rows, whole = _partitioned(tmp_path, texts, 6, "jsonl")
    written = []
    put = _storage.put_buffers
    monkeypatch.setattr(
        _storage, "put_buffers", lambda fs, path, bufs: (written.append(path), put(fs, path, bufs))
    )
    scratch = tmp_path / "scratch"
    D.dedup_dataset(paths, tmp_path / "out", id_column="id", scratch=str(scratch), scheduler="sync")
    steps = Counter(
        os.path.relpath(p, scratch).split(os.sep)[1] for p in written if p.startswith(str(scratch))
    )
    assert set(steps) >= {"exact", "copies", "map", "left", "right", "verified"}, steps
    assert all(n <= 6 for n in steps.values()), steps
    kept, dups = _read_output(tmp_path / "out")
    _same_as(one_process(whole), rows, kept, dups)


@pytest.mark.timeout(300)
def test_a_failed_run_leaves_no_scratch_behind_even_from_tasks_still_running(tmp_path, big):
    """A bad row fails its partition's task at once while another partition's task is still
    running (a started task is not stopped); what that one writes afterwards goes too: the error
    comes back once the run's tasks have stopped, and the run's scratch folder is removed."""
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps(r) + "\n" for r in _rows(big * 20)), encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "text": "one"}\n{"id": "y", "te', encoding="utf-8")
    scratch = tmp_path / "scratch"
    cluster, client = _cluster()
    with cluster, client:
        with pytest.raises(Exception, match="bad.jsonl: line 2: not JSON"):
            D.dedup_dataset([str(bad), str(good)], tmp_path / "out", id_column="id", scratch=str(scratch))
        assert client.run(lambda dask_worker: len(dask_worker.state.executing)) == dict.fromkeys(
            client.scheduler_info()["workers"], 0
        )
    assert not list(scratch.rglob("*")), sorted(map(str, scratch.rglob("*")))
    assert not (tmp_path / "out").exists()  # nor the output folder it made, empty


# -- many small files: consecutive files read by one task -------------------------------------------


def _fp_tasks(graph) -> int:
    from dask.utils import key_split

    return sum(1 for key in dict(graph.__dask_graph__()) if key_split(key) == "read_part")


def _uneven(tmp_path, texts, sizes, fmt):
    """Partitions of ``sizes`` rows each (uneven, one of them empty), and the whole."""
    rows = _rows(texts)
    assert sum(sizes) == len(rows)
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    paths = []
    for p in range(len(sizes)):
        part = rows[bounds[p] : bounds[p + 1]]
        path = tmp_path / f"in-{p:02d}.{fmt}"
        if fmt == "jsonl":
            path.write_text("".join(json.dumps(r) + "\n" for r in part), encoding="utf-8")
        else:
            pq.write_table(pa.Table.from_pylist(part, schema=pa.schema([
                ("id", pa.string()), ("text", pa.string()), ("n", pa.int64())])), path)  # fmt: skip
        paths.append(str(path))
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return paths, rows, whole


@pytest.mark.parametrize("fmt, sets", [("jsonl", "kept"), ("parquet", "kept"), ("jsonl", "read again")])
def test_small_files_read_together_make_the_same_decisions(tmp_path, big, fmt, sets, monkeypatch):
    """Files read by one task (``task_bytes``) are still the same rows in the same order: the same
    k, kept rows and duplicates table as ``dedup_table`` and as a task a file, each file's kept
    rows in its own ``part-NNNNN.parquet``, and a task a run of files in the graph; the rows'
    shingle sets kept from the fingerprinting or (no memory for them) read again from the files."""
    if sets == "read again":
        monkeypatch.setattr("simhash_lab.dedup.run.SETS_BUDGET", 0)
    texts = big[:900] + big[:150] + big[900:1000]  # exact copies across files and tasks
    sizes = [40, 200, 10, 150, 0, 300, 5, 95, 100, 60, 90, 100]
    paths, rows, whole = _uneven(tmp_path, texts, sizes, fmt)
    want = one_process(whole)
    assert want.exact > 100 and len(want.duplicates) - want.exact > 50
    on_disk = [os.path.getsize(p) for p in paths]
    outputs = {}
    for label, tb, n_tasks in (
        ("a file", 0, len(paths)),
        ("runs", int(2.5 * np.median(on_disk)), None),
        ("one", 1 << 40, 1),
    ):
        graph = D.dedup_dataset(paths, tmp_path / "graph", id_column="id", task_bytes=tb, compute=False)
        got_tasks = _fp_tasks(graph)
        if n_tasks is None:
            assert 1 < got_tasks < len(paths) - 3, got_tasks
        else:
            assert got_tasks == n_tasks, (label, got_tasks)
        out = tmp_path / f"out-{tb}"
        got = D.dedup_dataset(paths, out, id_column="id", task_bytes=tb, scheduler="sync")
        assert got["k"] == want.k and got["calibration"] == want.calibration.summary()
        assert got["dropped"] == len(want.duplicates) and got["exact"] == want.exact
        _same_as(want, rows, *_read_output(out))
        names = sorted(os.listdir(out))
        assert names == ["duplicates.parquet"] + [f"part-{p:05d}.parquet" for p in range(len(paths))]
        outputs[label] = [pq.read_table(out / n).to_pylist() for n in names[1:]]
        cut = np.concatenate([[0], np.cumsum(sizes)])
        for p, kept in enumerate(outputs[label]):  # each file's own kept rows
            assert kept == [r for r, k in zip(rows[cut[p] : cut[p + 1]], want.keep[cut[p] : cut[p + 1]]) if k]
    assert outputs["a file"] == outputs["runs"] == outputs["one"]
    # no id column: the row numbers across all files, however they are grouped
    plain = dedup_table(whole)
    got = D.dedup_dataset(paths, tmp_path / "plain", task_bytes=1 << 40, scheduler="sync")
    assert got["dropped"] == len(plain.duplicates)
    _same_as(plain, rows, *_read_output(tmp_path / "plain"))


def test_by_default_a_task_reads_a_run_of_small_files(tmp_path, client):
    """Without ``task_bytes`` the files' bytes go to four tasks a worker thread: 32 files of equal
    size on 2 worker threads are 8 tasks (a task a file had each step's fixed costs 32 times), on
    the synchronous scheduler 4."""
    texts = [f"{t[:180]:<180}" for t in corpus(320, words=40, copies=0.3, seed=9)]
    rows = [{"id": f"doc{i:04d}", "text": t} for i, t in enumerate(texts)]
    paths = []
    for p in range(32):
        path = tmp_path / f"in-{p:02d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows[p * 10 : p * 10 + 10]), encoding="utf-8")
        paths.append(str(path))
    assert len({os.path.getsize(p) for p in paths}) == 1
    assert sum(client.nthreads().values()) == 2
    graph = D.dedup_dataset(paths, tmp_path / "graph", id_column="id", compute=False)
    assert _fp_tasks(graph) == 8
    graph = D.dedup_dataset(paths, tmp_path / "graph", id_column="id", compute=False, task_bytes=0)
    assert _fp_tasks(graph) == 32
    graph = D.dedup_dataset(paths, tmp_path / "graph", id_column="id", compute=False, scheduler="sync")
    assert _fp_tasks(graph) == 4  # one thread
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = D.dedup_dataset(paths, tmp_path / "out", id_column="id")
    want = one_process(whole)
    assert got["k"] == want.k and len(want.duplicates) > 10
    _same_as(want, rows, *_read_output(tmp_path / "out"))


def test_an_error_in_a_run_of_files_names_its_file_and_line(tmp_path, big):
    """A bad row in the third of four files one task reads: the error names that file and its own
    line, not the task's; a missing file is named before any folder is made."""
    paths, _, _ = _partitioned(tmp_path, big[:400], 4, "jsonl")
    lines = open(paths[2], encoding="utf-8").read().splitlines(keepends=True)
    lines[2] = '{"id": "x", "text": \n'
    with open(paths[2], "w", encoding="utf-8") as f:
        f.writelines(lines)
    out = tmp_path / "out"
    with pytest.raises(Exception, match=f"{paths[2]}: line 3: not JSON") as e:
        D.dedup_dataset(paths, out, id_column="id", task_bytes=1 << 40, k=5, scheduler="sync")
    assert type(e.value).__name__ == "DatasetError"
    assert not out.exists()
    missing = str(tmp_path / "gone.jsonl")
    with pytest.raises(Exception, match=f"{missing}: No such file or directory"):
        D.dedup_dataset([paths[0], missing], out, id_column="id", scheduler="sync")
    assert not out.exists()
    with pytest.raises(ValueError, match="task_bytes"):
        D.dedup_dataset(paths, out, task_bytes=-1, scheduler="sync")
    assert not out.exists()
