"""``simhash_lab._threads``: ranges of a kernel's input run in threads, each range once."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from simhash_lab._threads import run_items, run_ranges, thread_count

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("n", [1, 2, 7, 64, 1000])
@pytest.mark.parametrize("threads, size, align", [(1, 0, 1), (2, 0, 1), (3, 5, 1), (2, 0, 64), (4, 1, 1)])
def test_every_item_is_in_exactly_one_range(n, threads, size, align):
    seen = [0] * n
    lock = threading.Lock()

    def body(lo, hi):
        assert 0 <= lo < hi <= n
        if align > 1:
            assert lo % align == 0
        with lock:
            for i in range(lo, hi):
                seen[i] += 1

    run_ranges(body, n, threads=threads, size=size, align=align)
    assert seen == [1] * n


def test_ranges_run_on_several_threads_the_calling_one_included():
    idents = set()

    def body(lo, hi):
        idents.add(threading.get_ident())
        time.sleep(0.02)  # releases the GIL, as a nogil kernel does

    run_ranges(body, 8, threads=2, size=1)
    assert len(idents) == 2 and threading.get_ident() in idents


def test_the_first_error_is_raised_and_the_rest_not_started():
    started = []

    def body(lo, hi):
        started.append(lo)
        if lo == 0:
            raise ValueError("range 0")
        time.sleep(0.01)

    with pytest.raises(ValueError, match="range 0"):
        run_ranges(body, 100, threads=2, size=1)
    assert len(started) < 100


def test_over_runs_small_work_in_this_thread_in_one_call():
    calls = []
    run_items(10, lambda lo, hi: calls.append((lo, hi, threading.get_ident())), parallel=False)
    assert calls == [(0, 10, threading.get_ident())]
    run_items(0, lambda lo, hi: calls.append(1), parallel=True)
    run_items(0, lambda lo, hi: calls.append(1), parallel=False)
    assert len(calls) == 1


def test_the_thread_count_is_numbas_and_asking_starts_no_numba_pool():
    code = (
        "from numba.np.ufunc import parallel as P\n"
        "from simhash_lab._threads import thread_count\n"
        "import numba\n"
        "n = thread_count()\n"
        "assert not P._is_initialized, 'the threading layer was started'\n"
        "numba.set_num_threads(1)\n"
        "print(n, thread_count())\n"
    )
    env = {"PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "2", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "1"]
    assert thread_count() >= 1


def test_one_thread_holds_this_thread_alone_and_nests():
    from simhash_lab._threads import one_thread

    seen = {}

    def other():
        seen["other"] = thread_count()

    outside = thread_count()
    with one_thread():
        seen["inside"] = thread_count()
        with one_thread():
            seen["nested"] = thread_count()
        seen["after nested"] = thread_count()
        calls = []
        run_ranges(lambda lo, hi: calls.append(threading.get_ident()), 100, size=10)
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == {"inside": 1, "nested": 1, "after nested": 1, "other": outside}
    assert set(calls) == {threading.get_ident()} and len(calls) == 10  # every range, here
    assert thread_count() == outside


def test_short_switches_shorten_the_interval_and_give_it_back_after_the_last():
    from simhash_lab._threads import SHORT_SWITCH, short_switches

    before = sys.getswitchinterval()
    sys.setswitchinterval(0.004)
    try:
        first = short_switches()
        first.__enter__()
        with short_switches():
            assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH)
        assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH)  # the first still runs
        first.__exit__(None, None, None)
        assert sys.getswitchinterval() == pytest.approx(0.004)
        with pytest.raises(KeyError), short_switches():
            raise KeyError("x")
        assert sys.getswitchinterval() == pytest.approx(0.004)
    finally:
        sys.setswitchinterval(before)


def test_small_pages_turns_numpys_huge_pages_off_within_and_back_after_the_last():
    from numpy._core.multiarray import _set_madvise_hugepage as switch

    from simhash_lab._threads import small_pages

    def now() -> bool:  # the switch's state, read by setting it back to what it was
        was = switch(True)
        switch(was)
        return was

    before = now()
    try:
        switch(True)
        with small_pages():
            assert now() is False
            with small_pages():  # nested (another run on another thread)
                assert now() is False
            assert now() is False  # still within the first
        assert now() is True
        switch(False)
        with small_pages():
            pass
        assert now() is False  # as it was before
    finally:
        switch(before)


def test_a_dedup_run_leaves_numpys_huge_pages_as_they_were(course, monkeypatch):
    from numpy._core.multiarray import _set_madvise_hugepage as switch

    import simhash_lab.dedup as D
    from simhash_lab.dedup.local import LocalExecutor

    seen, real = [], LocalExecutor.read

    def spy(*a, **k):
        was = switch(False)  # what the run set: read, then put back
        switch(was)
        seen.append(was)
        return real(*a, **k)

    monkeypatch.setattr(LocalExecutor, "read", spy)
    before = switch(True)
    try:
        D.dedup_texts([d.text for d in course("corpus").python_docs()[:40]], jaccard=0.8)
        assert seen == [False]  # off within the run
        assert switch(True) is True  # on again after it
    finally:
        switch(before)
