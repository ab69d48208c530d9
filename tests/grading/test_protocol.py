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
