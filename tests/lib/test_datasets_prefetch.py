"""datasets.prefetch: the next chunk made by a thread while the caller works on this one."""

import threading
import time

import pytest

from simhash_lab.datasets import DatasetError, prefetch


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
