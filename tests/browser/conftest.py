"""The browser suite: JupyterLab in headless Chromium (``make test-browser``).

It needs Debian's Chromium and Playwright (the ``browser`` extra), and takes minutes, so its tests
carry the ``browser`` marker, which the default options deselect (``-m "not browser"`` in
``pyproject.toml``); ``make test-browser`` runs them with ``-m browser``. Screenshots go to
``artifacts/browser/`` (``SIMHASH_LAB_BROWSER_OUT`` overrides).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.browser)


def _bc():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import browser_check
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return browser_check


@pytest.fixture(scope="session")
def bc():
    """The shared implementation, ``tools/browser_check.py``."""
    return _bc()


@pytest.fixture(scope="session")
def out_dir(bc, request):
    out = Path(os.environ.get("SIMHASH_LAB_BROWSER_OUT", bc.DEFAULT_OUT)).resolve()
    out.mkdir(parents=True, exist_ok=True)
    request.config.stash[_OUT] = out
    return out


@pytest.fixture(scope="session")
def lab(bc):
    """``jupyter lab`` on a free localhost port, stopped (with its kernels) whatever happens."""
    bc._terminate_cleanly()  # a SIGTERM from a CI timeout still runs the finalizers
    server = bc.LabServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(bc):
    """Debian's Chromium, headless, through Playwright; closed whatever happens."""
    pytest.importorskip("playwright", reason="pip install -e '.[browser]'")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    try:
        b = bc.launch_browser(pw)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


_OUT = pytest.StashKey[Path]()
_RESULTS = pytest.StashKey[list]()


@pytest.fixture
def record(request):
    """Keep a notebook's result for the summary at the end of the run."""
    results = request.config.stash.setdefault(_RESULTS, [])
    return results.append


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    results = config.stash.get(_RESULTS, [])
    if not results:
        return
    tr = terminalreporter
    out = config.stash.get(_OUT, None)
    lines = ["cell numbers are 0-based positions in the file"] + [r.summary() for r in results]
    tr.section("the course in JupyterLab (headless Chromium)")
    for line in lines:
        tr.write_line(line)
    if out is not None:
        (out / "summary.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        tr.write_line(f"screenshots and summary.txt: {out}")
