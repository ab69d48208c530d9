"""Names that were renamed to say what they are (issue 28): the old public names still work, with
a DeprecationWarning naming the new one, and give what the new names give."""

from __future__ import annotations

import numpy as np
import pytest

from simhash_lab import _threads, dedup_files, dedup_texts
from simhash_lab import dedup as dedup_mod
from simhash_lab.calibration import calibrate
from simhash_lab.kernels import verify as V
from simhash_lab.shingles import recommended_hasher

TEXTS = [
    "the quick brown fox jumps over the lazy dog near the river bank today",
    "the quick brown fox jumps over the lazy dog near the river bank today!",
    "   ",
    "an entirely different sentence about simhash and locality sensitive hashing",
]


def test_dedup_is_dedup_files_with_a_warning(tmp_path):
    for i, t in enumerate(TEXTS):
        (tmp_path / f"{i}.txt").write_text(t)
    new = dedup_files([str(tmp_path)])
    with pytest.warns(DeprecationWarning, match=r"dedup\(\) is now dedup_files\(\)"):
        old = dedup_mod.dedup([str(tmp_path)])
    assert old.ids == new.ids and (old.keep == new.keep).all() and not new.keep.all()
    assert new.featureless_ids == [str(tmp_path / "2.txt")]


def test_empty_is_featureless_ids_with_a_warning():
    res = dedup_texts(TEXTS)
    assert res.featureless_ids == [2] and res.to_json()["featureless"] == [2]
    with pytest.warns(DeprecationWarning, match="featureless_ids"):
        assert res.empty == res.featureless_ids


def test_the_threshold_is_jaccard_everywhere():
    h = recommended_hasher()
    fps = h.fingerprints(TEXTS)
    cal = calibrate(TEXTS, fps, jaccard=0.8)
    assert cal.jaccard == 0.8 and cal.to_json()["jaccard"] == 0.8
    with pytest.warns(DeprecationWarning, match="jaccard"):
        old = calibrate(TEXTS, fps, threshold=0.8)
    assert old.k == cal.k
    with pytest.warns(DeprecationWarning, match=r"Calibration\.jaccard"):
        assert cal.threshold == 0.8
    with pytest.raises(TypeError, match="jaccard"):
        calibrate(TEXTS, fps)  # no threshold at all: the error names the new name


def test_jaccard_all_pairs_takes_jaccard():
    pytest.importorskip("matplotlib")  # the course extra (make test-lib has none)
    from simhash_lab.course import compare

    new = compare.jaccard_all_pairs(TEXTS, n=2, jaccard=0.5)
    with pytest.warns(DeprecationWarning, match="jaccard="):
        old = compare.jaccard_all_pairs(TEXTS, n=2, min_similarity=0.5)
    assert np.array_equal(old[0], new[0]) and new[0].tolist() == [[0, 1]]


def test_old_private_names_are_the_new_objects():
    assert V.star_clusters is V.greedy_clusters  # complete linkage too, the default
    assert _threads.over is _threads.run_items
