"""The dedup steps' progress bars move: the candidates step reports bands (or index tables) done
of their total, verification its pairs, in intermediate positions, not only at the end (issue 24,
Build 5). A fake tqdm records every position each bar is drawn at."""

import numpy as np
import pytest

from simhash_lab.dedup import dedup_texts
from simhash_lab.dedup.run import Run
from simhash_lab.dedup.steps import CANDIDATES, Verify


class FakeBar:
    made: list = []

    def __init__(self, total=None, desc="", **kwargs):
        self.total, self.desc, self.n = total, desc, 0
        self.positions = []  # (n, total) after each update
        FakeBar.made.append(self)

    def update(self, n=1):
        self.n += n
        self.positions.append((self.n, self.total))

    def refresh(self):
        pass

    def close(self):
        pass


@pytest.fixture
def bars(monkeypatch):
    import tqdm

    FakeBar.made = []
    monkeypatch.setattr(tqdm, "tqdm", FakeBar)
    return FakeBar.made


def _texts(n=600, seed=2):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(3000)]
    docs = []
    for i in range(n):
        if i > 5 and rng.random() < 0.3:
            w = docs[int(rng.integers(i))].split()
            w[int(rng.integers(len(w)))] = "edited"
            docs.append(" ".join(w))
        else:
            docs.append(" ".join(vocab[j] for j in rng.integers(len(vocab), size=40)))
    return docs


def _bar(bars, desc):
    (bar,) = [b for b in bars if b.desc == desc]
    return bar


def _moves(bar) -> bool:
    """Drawn at a position strictly between 0 and its total, and finished at the total."""
    assert bar.total and bar.positions, (bar.desc, bar.total, bar.positions)
    assert bar.positions[-1][0] == bar.total
    return any(0 < n < total for n, total in bar.positions)


def test_the_candidates_bar_counts_bands(bars):
    res = dedup_texts(_texts(), progress="always")
    assert res.settings["candidates"]["method"] == "minhash bands"
    bar = _bar(bars, "candidates")
    assert bar.total == 3 * res.settings["candidates"]["bands"] + 1 and _moves(bar)


def test_the_candidates_bar_counts_index_tables(monkeypatch):
    """The index's tables, built a few at a time (as at a million rows), counted as they are done."""
    import simhash_lab.index.table as table
    from simhash_lab.settings import DedupSettings

    monkeypatch.setattr(table, "_STREAM_BYTES", 1)
    fps = np.random.default_rng(0).integers(0, 2**63, 20_000, dtype=np.uint64)
    fps[1::2] = fps[::2] ^ np.uint64(3)  # pairs at distance 2
    bar = FakeBar(desc="candidates")
    rows = np.arange(fps.size)
    got = CANDIDATES.within_k(Run(DedupSettings(k=3)), fps, rows, 3, bar)
    assert got.shape[0] >= fps.size // 2
    assert bar.total > 2 and _moves(bar)


def test_the_verify_bar_counts_pairs(bars, monkeypatch):
    monkeypatch.setattr(Verify, "BLOCK", 16)
    res = dedup_texts(_texts(), progress="always")
    bar = _bar(bars, "verify")
    assert res.pairs.shape[0] > 64 and _moves(bar)
    assert bar.total == np.unique(res.pairs[:, :2]).size + res.pairs.shape[0]


def test_no_bar_without_progress(bars):
    dedup_texts(_texts(200))
    assert bars == []


def test_rows_tell_their_size():
    """A task's rows say what they hold (``sys.getsizeof``, which Dask's scheduler reads to run a
    task where its rows are rather than move them): their arrays, sets and keys, not a plain
    object's 50 bytes."""
    import sys

    from simhash_lab.dedup.run import Clock, Rows
    from simhash_lab.dedup.steps import first_read
    from simhash_lab.settings import DedupSettings

    run = Run(DedupSettings())
    rows = Rows(run)
    texts = _texts(300)
    rows.add(first_read(run, texts, 0, "t", Clock()), texts, list(range(len(texts))), None)
    rows.finish()
    held = rows.fps.nbytes + rows.featureless.nbytes + rows.digests.nbytes
    held += sum(p.nbytes + d.nbytes for p, d, _ in rows.sets.chunks) + sum(k.nbytes for k in rows.keys.parts)
    assert sys.getsizeof(rows) >= held > 100_000
