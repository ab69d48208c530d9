#!/usr/bin/env python
"""``make lab``: JupyterLab serving the repository's root, opened on the map, ``notebooks/00``.

The server's root is the repository, so ``notebooks/`` and ``exercises/`` are both in the file
browser and the navigation links between a notebook and its exercise
(``../exercises/NN_exercise_name.ipynb``) resolve. The browser it starts, and the URL it prints,
open :data:`START` (``LabApp.default_url``), with the file browser in its folder,
``notebooks/``; build and cache folders (``*.egg-info``,
``node_modules``, ...) are hidden. JupyterLab's news toast and update check are off, and so is the
cell toolbar (it sat over the links at the top of a notebook): a settings override the server reads
(``share/jupyter/lab/settings/overrides.d/simhash-lab.json`` in this environment) and the server
options in :data:`OPTIONS`. The browser suite (``tests/browser``) starts its server with
:func:`command` too, so it tests this configuration.

    python tools/lab.py            # what `make lab` runs
    python tools/lab.py --print    # print the command instead of running it
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = "notebooks/00_start_here.ipynb"
#: JupyterLab settings every server of the course starts with: no news toast over the course, no
#: cell toolbar over a cell's first line (a click on a notebook's top link hit "Move this cell
#: down").
OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/cell-toolbar-extension:plugin": {
        "showToolbar": False,
        # showToolbar is read once a notebook opened with the page already has its toolbar: the
        # items, which every open toolbar follows, are taken away too
        "toolbar": [
            {"name": name, "disabled": True}
            for name in (
                "duplicate-cell",
                "move-cell-up",
                "move-cell-down",
                "insert-cell-above",
                "insert-cell-below",
                "delete-cell",
            )
        ],
    },
}
#: Folders and files the file browser does not list (Jupyter's own defaults, and build output).
HIDDEN = [
    "__pycache__",
    "*.pyc",
    "*.pyo",
    ".DS_Store",
    "*~",
    "*.egg-info",
    "node_modules",
    ".ipynb_checkpoints",
]
OPTIONS = [
    "--LabApp.news_url=None",
    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    f"--LabApp.default_url=/lab/tree/{START}",
    "--ContentsManager.hide_globs=" + json.dumps(HIDDEN, separators=(",", ":")),
]


def overrides_path(prefix: str | os.PathLike = sys.prefix) -> Path:
    """Where JupyterLab reads the course's settings overrides in the environment at ``prefix``
    (``overrides.d/`` of its application settings: one file per package, the user's own
    ``overrides.json`` untouched)."""
    return Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "simhash-lab.json"


def write_overrides(prefix: str | os.PathLike = sys.prefix) -> Path:
    """Write :data:`OVERRIDES` where the server of the environment at ``prefix`` reads them (left
    alone when it already holds them)."""
    path = overrides_path(prefix)
    text = json.dumps(OVERRIDES, indent=2) + "\n"
    try:
        if path.read_text(encoding="utf-8") == text:
            return path
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def command(root: str | os.PathLike = ROOT, python: str = sys.executable, extra=()) -> list[str]:
    """The ``jupyter lab`` command line: the repository ``root`` served, the map opened."""
    root = Path(root).resolve()
    cmd = [python, "-m", "jupyterlab", f"--ServerApp.root_dir={root}", *OPTIONS]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers often run as root; JupyterLab refuses unless told
    return [*cmd, *extra, str(root / START)]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    cmd = command()
    if argv == ["--print"]:
        print(shlex.join(cmd))
        return 0
    if argv:
        print("usage: python tools/lab.py [--print]", file=sys.stderr)
        return 2
    write_overrides()
    os.chdir(ROOT)
    os.execv(cmd[0], cmd)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
