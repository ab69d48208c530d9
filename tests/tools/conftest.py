"""The tools under ``tools/`` are scripts, not a package: each test module loads the one it tests
afresh (module scope) under a private name, and drops it after."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(request, script: str):
    name = f"simhash_lab_tool_{script}_{request.module.__name__.rpartition('.')[2]}"
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{script}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up there
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(name, None)


@pytest.fixture(scope="module")
def build(request):
    """``tools/build.py`` as a module."""
    yield from _load(request, "build")


@pytest.fixture(scope="module")
def i18n(request):
    """``tools/i18n.py`` as a module."""
    yield from _load(request, "i18n")


@pytest.fixture(scope="module")
def i18n_library(request):
    """``tools/i18n_library.py`` as a module."""
    yield from _load(request, "i18n_library")


@pytest.fixture(scope="module")
def lab(request):
    """``tools/lab.py`` as a module."""
    yield from _load(request, "lab")
