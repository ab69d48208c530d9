"""A list of str as a dataset (simhash_lab.datasets.texts.TextsSource): chunks in order with their
ids, rows selected by number, and anything but a sequence of str refused naming the parameter."""

import numpy as np
import pytest

from simhash_lab.datasets import TextsSource


def test_chunks_and_selected_rows():
    src = TextsSource(["a", "b", "c", "d", "e"], ids=["x", "y", "z", "u", "v"])
    assert [(t, i, p) for t, i, p in src.chunks(2)] == [
        (["a", "b"], ["x", "y"], None),
        (["c", "d"], ["z", "u"], None),
        (["e"], ["v"], None),
    ]
    got = list(src.select(np.array([0, 3, 4]), 2))
    assert [(r.tolist(), t) for r, t in got] == [([0, 3], ["a", "d"]), ([4], ["e"])]
    assert [i for _, i, _ in TextsSource(["a", "b", "c"]).chunks(2)] == [[0, 1], [2]]  # positions
    assert src.size_hint() == (5, None) and src.format == "texts"


@pytest.mark.parametrize(
    "texts, ids, error, message",
    [
        ("one text", None, TypeError, "texts must be a sequence of str, got str"),
        (None, None, TypeError, "texts must be a sequence of str, got NoneType"),
        (["a", 3], None, TypeError, r"texts\[1\] must be a str, got int"),
        (["a", "b"], ["x"], ValueError, "ids must have one id per text: 1 ids for 2 texts"),
    ],
)
def test_what_is_not_a_list_of_str_is_refused(texts, ids, error, message):
    with pytest.raises(error, match=message):
        TextsSource(texts, ids)
