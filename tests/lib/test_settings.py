"""One settings object for every dedup entry point (simhash_lab.settings.DedupSettings): its defaults,
every field checked when it is made with an error naming the field, ``of``/``replace`` overriding
fields and refusing unknown ones, and the JSON form. That every entry point takes it is tested in
tests/lib/test_dedup_languages.py."""

from __future__ import annotations

import dataclasses
import json

import pytest

from simhash_lab import Simhasher
from simhash_lab.settings import DEFAULT_MAX_ROW_BYTES, DedupSettings


def test_the_defaults_are_verified_dedup_at_jaccard_0_8():
    s = DedupSettings()
    assert (s.jaccard, s.unverified, s.k, s.recall, s.sample) == (0.8, False, None, 0.99, 1000)
    assert (s.features, s.shingle, s.char_ngram, s.keep, s.linkage, s.candidates) == (
        "auto", 3, 3, "first", "complete", "auto"
    )  # fmt: skip
    assert s.candidates_method == "bands" and DedupSettings(k=3).candidates_method == "index"
    assert s.max_row_bytes == DEFAULT_MAX_ROW_BYTES == 64 << 20 and s.normalize and s.exact
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.k = 3


def test_numbers_are_normalised():
    s = DedupSettings(jaccard=1, recall=0.5, k=5)
    assert type(s.jaccard) is float and s.jaccard == 1.0 and s.k == 5
    assert DedupSettings(unverified=True, k=0).k == 0


@pytest.mark.parametrize(
    "fields, error, words",
    [
        ({"jaccard": None}, ValueError, "unverified=True and k"),
        ({"jaccard": 0}, ValueError, r"jaccard must be in \(0, 1\], got 0.0"),
        ({"jaccard": 1.5}, ValueError, "jaccard must be in"),
        ({"jaccard": float("nan")}, ValueError, "jaccard must be in"),
        ({"jaccard": "0.8"}, TypeError, "jaccard must be a number"),
        ({"jaccard": True}, TypeError, "jaccard must be a number"),
        ({"recall": 0}, ValueError, "recall must be in"),
        ({"unverified": 1, "k": 3}, TypeError, "unverified must be True or False"),
        ({"unverified": True}, ValueError, "unverified .* needs k"),
        ({"k": 64}, ValueError, "k must be between 0 and 63"),
        ({"k": 3.0}, TypeError, "k must be an int"),
        ({"sample": 0}, ValueError, "sample must be between 1"),
        ({"features": "letters"}, ValueError, "`features` must be one of"),
        ({"lang": "xx"}, ValueError, "`lang` must be one of"),
        ({"shingle": 0}, ValueError, "shingle must be between 1 and 64"),
        ({"char_ngram": 8}, ValueError, "char_ngram must be between 1 and 7"),
        ({"normalize": "yes"}, TypeError, "normalize must be True or False"),
        ({"exact": None}, TypeError, "exact must be True or False"),
        ({"keep": "last"}, ValueError, "`keep` must be one of"),
        ({"linkage": "single"}, ValueError, "`linkage` must be one of"),
        ({"candidates": "lsh"}, ValueError, "`candidates` must be one of"),
        ({"candidates": "bands", "k": 3}, ValueError, "candidates='bands' .* leave k unset"),
        ({"max_tables": 0}, ValueError, "max_tables must be between 1 and 4096"),
        ({"memory_budget": -1}, ValueError, "memory_budget must be between 0"),
        ({"max_row_bytes": 0}, ValueError, "max_row_bytes must be between 1"),
        ({"progress": "sometimes"}, ValueError, "`progress` must be one of"),
        ({"hasher": 3}, TypeError, "hasher must be a Simhasher or a preset name, got int"),
        ({"hasher": "fastest"}, ValueError, "`preset` must be one of"),
    ],
)
def test_every_field_is_checked_when_made_naming_it(fields, error, words):
    with pytest.raises(error, match=words):
        DedupSettings(**fields)


def test_of_and_replace_override_fields_and_refuse_unknown_ones():
    base = DedupSettings(jaccard=0.7, recall=0.95)
    assert DedupSettings.of(None) == DedupSettings()
    assert DedupSettings.of(base) is base
    s = DedupSettings.of(base, recall=0.9, keep="longest")
    assert (s.jaccard, s.recall, s.keep) == (0.7, 0.9, "longest") and base.recall == 0.95
    assert base.replace(k=4) == DedupSettings(jaccard=0.7, recall=0.95, k=4)
    with pytest.raises(TypeError, match="unknown dedup option\\(s\\) jacard, shingles; the options"):
        DedupSettings.of(None, jacard=0.7, shingles=2)
    with pytest.raises(TypeError, match="settings must be a DedupSettings, got dict"):
        DedupSettings.of({"jaccard": 0.7})
    with pytest.raises(ValueError, match="jaccard"):
        base.replace(jaccard=2)  # the replaced object is checked too
    assert "jaccard" in DedupSettings.fields() and len(DedupSettings.fields()) == len(
        dataclasses.fields(DedupSettings)
    )


def test_to_json_names_the_hasher_and_round_trips_through_json():
    assert DedupSettings().to_json()["hasher"] is None
    assert DedupSettings(hasher="leonsim").to_json()["hasher"] == "leonsim"
    named = DedupSettings(hasher=Simhasher(name="mine")).to_json()
    assert named["hasher"] == "mine"
    doc = DedupSettings(jaccard=0.6, k=5, lang="zh").to_json()
    assert json.loads(json.dumps(doc)) == doc and set(doc) == set(DedupSettings.fields())
    assert DedupSettings(**{k: v for k, v in doc.items() if k != "hasher"}) == DedupSettings(
        jaccard=0.6, k=5, lang="zh"
    )
