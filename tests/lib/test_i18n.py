"""``simhash_lab._i18n``: the language of the library's own course texts (set, read, refused, scoped,
inherited by a fresh process from ``SIMHASH_LAB_LANG``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from simhash_lab import _i18n


@pytest.fixture(autouse=True)
def _english_after():
    yield
    _i18n.set_language("en")


def test_set_and_get_language():
    assert _i18n.get_language() == "en"
    _i18n.set_language("es")
    assert _i18n.get_language() == "es"
    assert _i18n._("not run") == "no se ejecutó"
    _i18n.set_language("en")
    assert _i18n._("not run") == "not run"


@pytest.mark.parametrize("bad", ["fr", "ES", "", None, 1])
def test_unknown_language_is_refused_naming_the_parameter(bad):
    with pytest.raises(ValueError, match=r"lang must be one of \['en', 'es'\]"):
        _i18n.set_language(bad)
    assert _i18n.get_language() == "en"


def test_language_block_restores_the_previous_language():
    _i18n.set_language("es")
    with _i18n.language("en"):
        assert _i18n._("not run") == "not run"
    assert _i18n.get_language() == "es"
    with pytest.raises(RuntimeError), _i18n.language("en"):
        raise RuntimeError
    assert _i18n.get_language() == "es"


def test_course_exports_the_setter(course):
    course("corpus")  # skipped without the course extra
    import simhash_lab.course as package

    package.set_language("es")
    assert package.get_language() == "es" == _i18n.get_language()


def test_a_fresh_process_starts_in_the_environment_language():
    code = "from simhash_lab import _i18n; print(_i18n.get_language(), _i18n._('not run'))"
    env = {**os.environ, "SIMHASH_LAB_LANG": "es"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "es no se ejecutó"
