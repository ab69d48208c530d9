"""What every reader shares (simhash_lab.datasets.source): prefetch, the next chunk made by a thread
while the caller works on this one; a priority column's values, finite numbers or one line naming
the row."""

import threading
import time

import pytest

from simhash_lab.datasets import DatasetError, prefetch
from simhash_lab.dedup import dedup_table


def test_items_in_order_and_an_error_raised_in_the_callers_thread_after_them():
    def chunks():
        yield from range(5)
        raise DatasetError("data.jsonl: line 6: not JSON")

    got = []
    with pytest.raises(DatasetError, match="line 6: not JSON"):
        for x in prefetch(chunks()):
            got.append(x)
    assert got == [0, 1, 2, 3, 4]


def test_a_caller_that_stops_early_stops_the_thread():
    made = []

    def chunks():
        for i in range(1000):
            made.append(i)
            yield i

    it = prefetch(chunks())
    assert next(it) == 0
    it.close()
    time.sleep(0.3)
    assert len(made) <= 3
    assert not [t for t in threading.enumerate() if t.name == "simhash-lab-read"]


def test_priority_column(tmp_path, write_jsonl):
    base = " ".join(f"w{i}" for i in range(50))
    write_jsonl(
        tmp_path / "p.jsonl", [{"text": base, "p": 1}, {"text": base, "p": 3}, {"text": base, "p": 2}]
    )
    res = dedup_table(tmp_path / "p.jsonl", priority_column="p", jaccard=0.9, k=5)
    assert res.keep.tolist() == [False, True, False]
    write_jsonl(tmp_path / "q.jsonl", [{"text": base, "p": "high"}])
    with pytest.raises(DatasetError, match="line 1: priority column 'p' is a str"):
        dedup_table(tmp_path / "q.jsonl", priority_column="p", jaccard=0.9, k=5)
