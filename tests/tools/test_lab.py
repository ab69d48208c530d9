"""``tools/lab.py``, make lab's server: the course opened on notebook 00, also from the address the
server prints; build folders out of the file browser; no news toast and no cell toolbar over the
links at the top of a notebook (settings in an overrides file of its own). The browser suite
(``tests/browser``) runs this server and checks what a learner sees."""

from __future__ import annotations

import json


def test_the_server_opens_the_map_and_hides_build_folders(lab, tmp_path):
    cmd = lab.command(tmp_path, "python")
    assert cmd[-1] == str(tmp_path.resolve() / "notebooks" / "00_start_here.ipynb")
    assert f"--ServerApp.root_dir={tmp_path.resolve()}" in cmd
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in cmd  # the printed address
    hidden = json.loads(
        next(a for a in cmd if a.startswith("--ContentsManager.hide_globs=")).split("=", 1)[1]
    )
    assert {"*.egg-info", "__pycache__", "node_modules"} <= set(hidden)


def test_the_overrides_take_the_news_and_the_cell_toolbar_away(lab, tmp_path):
    path = lab.write_overrides(tmp_path)
    assert path == tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.d" / "simhash-lab.json"
    written = json.loads(path.read_text(encoding="utf-8"))
    toolbar = written["@jupyterlab/cell-toolbar-extension:plugin"]
    assert toolbar["showToolbar"] is False and all(item["disabled"] for item in toolbar["toolbar"])
    assert {item["name"] for item in toolbar["toolbar"]} >= {"move-cell-down", "delete-cell"}
    assert written["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    before = path.stat().st_mtime_ns
    assert lab.write_overrides(tmp_path) == path and path.stat().st_mtime_ns == before  # left alone
