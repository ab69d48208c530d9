"""Where compiled kernels and the character tables are kept (simhash_lab._cache.cache_dir): beside
the sources when that folder can be written, under NUMBA_CACHE_DIR when it is set, else in the
user's cache folder; one folder for both the kernels and simhash_lab._unicode's tables."""

import os

from numba.core import config

from simhash_lab import _cache, _unicode
from simhash_lab.kernels import _jit


def test_beside_the_sources_when_they_can_be_written(tmp_path):
    src = tmp_path / "kernels"
    src.mkdir()
    assert _cache.cache_dir.__wrapped__(str(src)) == str(src / "__pycache__")


def test_numba_cache_dir_wins(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", str(tmp_path / "numba"))
    got = _cache.cache_dir.__wrapped__(str(tmp_path / "kernels"))
    assert got.startswith(str(tmp_path / "numba") + os.sep)


def test_the_users_cache_when_the_sources_cannot_be_written(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "CACHE_DIR", "")
    monkeypatch.setattr(_cache, "writable", lambda path: False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    got = _cache.cache_dir.__wrapped__(str(tmp_path / "read-only" / "kernels"))
    assert got.startswith(str(tmp_path / "xdg" / "simhash_lab") + os.sep)


def test_writable_is_a_folder_that_exists_or_could_be_made(tmp_path):
    assert _cache.writable(str(tmp_path)) and _cache.writable(str(tmp_path / "not" / "yet"))


def test_one_folder_for_the_kernels_and_the_tables():
    assert _jit.cache_dir is _cache.cache_dir and _unicode.cache_dir is _cache.cache_dir
    assert _cache.KERNELS.name == "kernels" and (_cache.KERNELS / "_jit.py").is_file()
