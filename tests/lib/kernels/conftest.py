"""Shared by the kernels' tests: running a script with Numba's bounds checks on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def run_bounds_checked(tmp_path):
    """``run(script)``: the script in a subprocess with ``NUMBA_BOUNDSCHECK=1`` and its own empty
    cache (bounds-checked code must not land in the shared cache); asserts it exits 0 and prints
    exactly "short buffer caught" then "bounds ok" (its own buffer made one entry short failed, so
    the check can fail)."""

    def run(script: str) -> None:
        env = dict(
            os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT)
        )
        env.pop("SIMHASH_LAB_ON_COMPILE", None)
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600
        )
        assert out.returncode == 0, out.stderr[-3000:]
        assert out.stdout.split() == ["short", "buffer", "caught", "bounds", "ok"], out.stdout

    return run
