"""``distributed.dedup_dataset(candidates="bands")``: the MinHash bands on Dask (each partition's
band keys shuffled by their value, the pairs of each bucket routed to the verifier) make exactly
the decisions of ``dedup_table(candidates="bands")`` on the same rows (issue 25, Build 1)."""

import importlib.util
import pathlib

import numpy as np
import pytest

pytest.importorskip("dask")
pytest.importorskip("pyarrow")
D = pytest.importorskip("simhash_lab.distributed")

from simhash_lab.candidates import BandKeys, bucket_pairs  # noqa: E402
from simhash_lab.dedup import dedup_table  # noqa: E402
from simhash_lab.settings import DedupSettings  # noqa: E402
from simhash_lab.shingles import Shingler  # noqa: E402


def _load_dataset_tests():
    """The corpora and helpers of ``test_executor.py`` (one definition of each)."""
    path = pathlib.Path(__file__).with_name("test_executor.py")
    spec = importlib.util.spec_from_file_location("_distributed_dataset_corpora", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


T = _load_dataset_tests()
S = DedupSettings()


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("distributed")
    cluster, client = D.local_cluster(2, processes=False)
    with cluster, client:
        yield client


def _parity(tmp_path, texts, n_parts, n_reducers, fmt="parquet", **kw):
    """``dedup_dataset(candidates="bands")`` on ``n_parts`` partitions against ``dedup_table`` with
    the same settings on the same rows: the same k, kept rows, duplicates table and counts."""
    kw = {"candidates": "bands", **kw}
    paths, rows, whole = T._partitioned(tmp_path, texts, n_parts, fmt)
    want = dedup_table(whole, id_column="id", **kw)
    assert want.settings["candidates"]["method"] == "minhash bands"
    got = D.dedup_dataset(paths, tmp_path / "out", id_column="id", n_reducers=n_reducers, **kw)
    T._same_as(want, rows, *T._read_output(tmp_path / "out"))
    assert got["k"] == want.k and got["dropped"] == len(want.duplicates)
    assert got["exact"] == want.exact and got["by_chars"] == want.by_chars
    assert got["verified"] == int(np.count_nonzero(want.similarity >= want.jaccard))
    return want


@pytest.mark.parametrize("n_parts, n_reducers", [(4, 3), (3, 1), (2, 5)])
def test_bands_on_dask_make_the_single_machine_decision(tmp_path, client, n_parts, n_reducers):
    want = _parity(tmp_path, T.corpus(1200, seed=4), n_parts, n_reducers)
    assert len(want.duplicates) - want.exact > 100


def test_chinese_rows_on_dask_with_bands(tmp_path, client):
    texts = T._chinese()
    want = _parity(tmp_path, texts, 3, 2)
    assert want.by_chars == len(texts) and len(want.duplicates) - want.exact > 20


@pytest.mark.parametrize("keep", ["first", "longest"])
def test_exact_groups_across_partitions_with_bands(tmp_path, client, keep):
    texts = T._copies_across()
    want = _parity(tmp_path, texts, 4, 3, keep=keep)
    assert want.exact >= len(texts) // 4 - 3
    assert {int(k) for k in want.duplicates.kept.tolist()} & {0, 1, 2, 3, 4, 5}


def test_a_mix_of_scripts_with_bands(tmp_path, client):
    want = _parity(tmp_path, T._scripts(), 3, 3, fmt="jsonl")
    assert 0 < want.by_chars < 320 and want.exact > 0


def test_bucket_pairs_are_the_pairs_of_the_bands_split_anyhow():
    """The reduce step: the pairs of the keys of several bands, split over buckets in any way that
    keeps a band's equal keys together, are the one-process pairs of those bands."""
    texts = T.corpus(400, seed=9)
    keys = BandKeys(0.8, 0.99)
    keys.add(*Shingler(3).sets(texts))
    raw = np.concatenate(keys.parts, axis=1)
    n = raw.shape[1]
    want = keys.pairs(np.ones(n, np.bool_), np.zeros(n, np.uint64))
    assert want.shape[0] > 20
    docbits = max(1, (n - 1).bit_length())
    low = np.uint64((1 << docbits) - 1)
    band, col = np.nonzero(np.ones_like(raw, np.bool_))
    numbered = (raw[band, col] & ~low) | col.astype(np.uint64)
    bucket = ((raw[band, col] >> np.uint64(40)) + band.astype(np.uint64)) % np.uint64(3)
    got = np.concatenate([bucket_pairs(band[bucket == b], numbered[bucket == b], docbits) for b in range(3)])
    got = np.unique(got)
    assert got.tolist() == ((want[:, 0] << 32) | want[:, 1]).astype(np.uint64).tolist()
    # one bucket holding every band: the same pairs, already distinct
    assert bucket_pairs(band, numbered, docbits).tolist() == got.tolist()


@pytest.mark.parametrize("n_reducers", [1, 3, 8])
def test_a_band_is_split_as_numbered_keys_by_reducer_in_their_order(n_reducers):
    """The map step's kernel (``split_band``) against NumPy: each key numbered, the keys of rows
    without shingles (top bit) left out, the rest by reducer ``((key >> 32) * R >> 32) + band``
    mod R, stable."""
    from simhash_lab.candidates import split_band

    rng = np.random.default_rng(n_reducers)
    docbits, band = 20, 5
    keys = rng.integers(0, 1 << 63, 5000, dtype=np.uint64) | (rng.random(5000) < 0.1).astype(np.uint64) << 63
    keys[:50] = keys[50]  # equal keys: one reducer
    numbers = rng.permutation(1 << docbits)[: keys.size].astype(np.uint64)
    low = np.uint64((1 << docbits) - 1)
    numbered = (keys & ~low) | numbers
    kept = numbered[numbered >> np.uint64(63) == 0]
    r_big, shift = np.uint64(n_reducers), np.uint64(32)
    bucket = ((((kept >> shift) * r_big) >> shift) + np.uint64(band)) % r_big
    want = kept[np.argsort(bucket, kind="stable")]
    out, cuts = np.empty(keys.size, np.uint64), np.empty(n_reducers + 1, np.int64)
    split_band(keys, numbers, docbits, band, out, cuts)
    assert cuts.tolist() == [0, *np.cumsum(np.bincount(bucket.astype(np.int64), minlength=n_reducers))]
    assert out[: cuts[-1]].tolist() == want.tolist()
    assert 0 < cuts[-1] < keys.size


class _Priorities:
    """A scheduler plugin: the priority of every task the scheduler sends to a worker."""

    name = "test-priorities"

    def __init__(self):
        self.seen = {}

    async def start(self, scheduler):
        self.scheduler = scheduler

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "processing":
            self.seen[key] = self.scheduler.tasks[key].priority


def test_the_calibration_comes_last_in_the_workers_queues(tmp_path, client):
    """With ``candidates="bands"`` nothing waits for the calibration (k is only reported): its
    tasks, and only they, run at a priority below the pipeline's, so they fill idle slots."""
    from dask.utils import key_split
    from distributed.diagnostics.plugin import SchedulerPlugin

    plugin = type("P", (_Priorities, SchedulerPlugin), {})()
    client.register_plugin(plugin)
    try:
        paths, _, _ = T._partitioned(tmp_path, T.corpus(300, seed=2), 3, "parquet")
        D.dedup_dataset(paths, tmp_path / "out", candidates="bands")
        seen = client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.plugins[plugin.name].seen)
    finally:
        client.unregister_scheduler_plugin(plugin.name)
    by_name = {}
    for key, priority in seen.items():
        by_name.setdefault(key_split(key), set()).add(priority[0])
    low = {"cal_draw", "cal_scan", "cal_measure", "k_of"}
    assert low <= set(by_name) and {"read_part", "band_map", "cluster_all", "write_part"} <= set(by_name)
    assert all(by_name[n] == {1} for n in low)  # the scheduler's first element: minus the user's
    assert all(p == {0} for n, p in by_name.items() if n not in low)
