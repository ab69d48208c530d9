"""Run pytest + nbval on one assembled notebook and write what happened to each cell as JSON.

The grader runs this file in a subprocess, loaded by path (so the pytest process does not import
numba or the library)::

    python _report.py REPORT.json -- PYTEST_ARGS...

It writes ``{"exitstatus": int, "cells": {"3": {"outcome": ..., "text": ...}}, "errors": [...]}``.
Only the subprocess's exit status decides pass or fail; this report only explains it.
"""

from __future__ import annotations

import json
import re
import sys

_CELL = re.compile(r"::Cell (\d+)$")


def _clip(text: str, head: int = 2000, tail: int = 4000) -> str:
    """The start (nbval's message) and the end (the exception) of a long failure text."""
    return text if len(text) <= head + tail else text[:head] + "\n[...]\n" + text[-tail:]


class Reporter:
    def __init__(self, path: str) -> None:
        self.path = path
        self.cells: dict[str, dict] = {}
        self.errors: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:  # noqa: ANN001 (pytest hook)
        m = _CELL.search(report.nodeid)
        if not m:
            return
        if report.when != "call" and not report.failed:
            return
        entry = {
            "outcome": report.outcome,
            "when": report.when,
            "xfail": bool(getattr(report, "wasxfail", "")),
            "text": _clip(report.longreprtext or ""),
        }
        prev = self.cells.get(m.group(1))
        if prev is None or prev["outcome"] != "failed":  # keep the first failure of a cell
            self.cells[m.group(1)] = entry

    def pytest_collectreport(self, report) -> None:  # noqa: ANN001 (pytest hook)
        if report.failed:
            self.errors.append((report.longreprtext or "collection failed")[-3000:])

    def pytest_sessionfinish(self, session, exitstatus) -> None:  # noqa: ANN001 (pytest hook)
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump({"exitstatus": int(exitstatus), "cells": self.cells, "errors": self.errors}, f)


def main(argv: list[str]) -> int:
    report, sep, *args = argv
    assert sep == "--"
    import pytest

    return int(pytest.main(args, plugins=[Reporter(report)]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
