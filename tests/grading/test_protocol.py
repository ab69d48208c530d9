"""Plain data (simhash_lab.grading._protocol): what crosses from the sandbox to the grader keeps plain
data and NumPy, and refuses everything else, lying objects included, by its type."""

from __future__ import annotations

import collections
import re

import numpy as np
import pytest
from liars import AlwaysEqual, EqualInt, lying_str

from simhash_lab.grading import _protocol


def test_plain_keeps_plain_data_and_numpy():
    x = {"a": [1, 2.5, "s", None, True], "b": np.arange(3), "c": np.float64(1.5), "d": (1, 2)}
    assert _protocol.plain(x) == {"a": [1, 2.5, "s", None, True], "b": [0, 1, 2], "c": 1.5, "d": [1, 2]}
    assert _protocol.unplain(_protocol.plain({1: [2]})) == {1: [2]}
    assert _protocol.unplain(_protocol.plain(collections.defaultdict(list, {3: [4]}))) == {3: [4]}
    assert _protocol.unplain(_protocol.plain({1, 2})) == {1, 2}


@pytest.mark.parametrize(
    "x, what",
    [
        (lying_str(), "subclass of str"),
        (EqualInt(3), "subclass of int"),
        (AlwaysEqual(), "AlwaysEqual object"),
        (np.array(["a"]), "dtype"),
        (2**5000, "4096 bits"),
        (collections.UserList([1]), "UserList"),
        (type("M", (np.ndarray,), {})((2,)), "subclass"),
    ],
)
def test_plain_refuses_everything_else(x, what):
    with pytest.raises(_protocol.NotPlain, match=re.escape(what) if "subclass" not in what else what):
        _protocol.plain(x)


def test_a_hostile_type_name_does_not_crash_the_refusal():
    class Meta(type):
        def __getattribute__(cls, name):
            raise RuntimeError("no")

    Hostile = Meta("Hostile", (), {})
    with pytest.raises(_protocol.NotPlain):
        _protocol.plain(Hostile())


def test_a_defaultdict_crosses_with_its_factory():
    """An answer's ``defaultdict(list)`` (or ``lambda: []``) comes back one: ``t[b]`` of a missing
    key is ``[]`` there as in the answer's own process (issue 47)."""
    for d in (collections.defaultdict(list, {3: [4]}), collections.defaultdict(lambda: [], {3: [4]})):
        back = _protocol.unplain(_protocol.plain(d))
        assert type(back) is collections.defaultdict and back[3] == [4] and back[9] == []
    other = collections.defaultdict(lambda: [1], {3: [4]})  # a factory whose value is not empty
    assert type(_protocol.unplain(_protocol.plain(other))) is dict


def test_a_spied_table_counts_the_entries_read():
    plain = _protocol.plain([{1: [0, 1], 2: [2]}, collections.defaultdict(list, {5: [3]})])
    case = {
        "vars": {},
        "calls": [
            {"fn": "look", "args": [{"$spytables": plain}, 1], "measure": ["reads"]},
            {"fn": "scan", "args": [{"$spytables": plain}], "measure": ["reads"]},
            {"fn": "grow", "args": [{"$spytables": plain}], "measure": ["reads"]},
            {"fn": "look", "args": [{"$spytables": plain}, 1], "measure": ["reads"]},
        ],
    }

    def look(tables, b):
        return [tables[0].get(b, []), tables[1][7], len(tables[0]), 2 in tables[0]]

    def scan(tables):
        return sorted(k for t in tables for k in t)

    def grow(tables):  # an answer that changes a list it read: the next call's are intact
        tables[0][1].append(99)
        return 0

    res = _protocol.run_case({"look": look, "scan": scan, "grow": grow}, case)
    assert res[0]["ok"] == [[0, 1], [], 2, True]
    assert sorted(map(tuple, res[0]["reads"]["entries"])) == [(0, 1), (0, 2), (1, 7)]
    assert res[1]["reads"]["n_entries"] == 3 and res[1]["reads"]["n_ids"] == 0
    assert res[3]["ok"][0] == [0, 1]


def test_a_spy_lists_the_items_read():
    case = {"calls": [{"fn": "f", "args": [{"$spy": [10, 20, 30, 40]}], "measure": ["reads"]}]}
    (res,) = _protocol.run_case({"f": lambda fps: fps[3] + fps[1] + fps[-1]}, case)
    assert res["ok"] == 100 and res["reads"]["ids"] == [1, 3] and res["reads"]["n_ids"] == 2


def test_an_answer_stops_at_its_first_call_past_the_time_limit():
    import time

    calls = []

    def slow(x):
        calls.append(x)
        while x:
            time.sleep(0.01)
        return x

    cases = [{"calls": [{"fn": "f", "args": [v]}]} for v in (0, 1, 0, 1)]
    t0 = time.monotonic()
    res = _protocol.run_cases({"f": slow}, cases, timeout=0.3)
    assert time.monotonic() - t0 < 3
    assert res[0] == [{"ok": 0}] and res[1] == [{"timeout": True, "after": 0.3}]
    assert res[2] == res[3] == [{"timeout": True, "after": 0.3, "skipped": True}]
    assert calls == [0, 1]  # the calls after the hang were not made


def test_numpy_ints_are_traced_as_ints():
    np_ = pytest.importorskip("numpy")

    def f(x):
        v = np_.uint64(x)
        while v:
            v &= v - np_.uint64(1)
        return 0

    case = {"calls": [{"fn": "f", "args": [0b1011], "measure": ["trace"]}]}
    (res,) = _protocol.run_case({"f": f}, case, files=[f.__code__.co_filename])
    assert res["trace"]["f:v"] == [0b1011, 0b1010, 0b1000, 0]
