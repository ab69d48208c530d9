"""Every course notebook (found by glob) and one exercise solution, run in JupyterLab in Chromium.

Each test opens the notebook, restarts the kernel and runs all cells, waits for an idle kernel, and
fails on an error output, a widget that is not live, an animation without its player, or an
interaction (slider, Play) that changes nothing on screen. See ``tools/browser_check.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import browser_check  # noqa: E402

sys.path.remove(str(ROOT / "tools"))

NOTEBOOKS = browser_check.discover(ROOT)


def test_every_page_function_is_in_the_script(bc):
    """Each ``_js("name")`` the checker calls is defined in ``browser_check.js``."""
    called = set(re.findall(r'_js\("(\w+)"\)', Path(bc.__file__).read_text(encoding="utf-8")))
    defined = set(re.findall(r"^ {4}(?:async )?(\w+)\(", bc.JS_FILE.read_text(encoding="utf-8"), re.M))
    assert called and called <= defined, called - defined


def test_found_the_course():
    assert any(p.parent.name == "notebooks" for p in NOTEBOOKS), "no notebooks/*.ipynb found"
    assert any(p.parent.name == "solutions" for p in NOTEBOOKS), "no exercise solution found"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS])
def test_notebook_in_jupyterlab(notebook, bc, lab, browser, out_dir, record):
    result = bc.check_notebook(browser, lab, notebook, out_dir)
    record(result)
    print(result.summary())
    assert Path(result.screenshot).is_file(), f"no screenshot at {result.screenshot}"
    assert result.ok, result.summary()


def test_the_checker_sees_failures(bc, lab, browser, tmp_path):
    """A notebook with a dead widget, a widget shown as text, a stopped animation player and an
    error must fail, each for its own reason (so a green run means something)."""
    from nbformat.v4 import new_code_cell, new_notebook

    dead_widget = (
        "from IPython.display import display\n"
        "display({'application/vnd.jupyter.widget-view+json': {'model_id': 'nope', "
        "'version_major': 2, 'version_minor': 0}, 'text/plain': 'IntSlider(value=0)'}, "
        "raw=True)"
    )
    as_text = "print('IntSlider(value=3, max=10)')"
    no_player = 'from IPython.display import HTML\nHTML(\'<div class="animation"><img id="x"></div>\')'
    nb = new_notebook(
        cells=[
            new_code_cell(dead_widget),
            new_code_cell(as_text),
            new_code_cell(no_player),
            new_code_cell("1 / 0"),
            new_code_cell("print('never runs')"),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = lab.add_notebook(nb, "selftest/broken.ipynb")
    result = bc.check_notebook(browser, lab, path, tmp_path, rel="selftest/broken.ipynb")
    print(result.summary())
    problems = "\n".join(result.problems)
    assert not result.ok
    assert "ZeroDivisionError" in problems
    assert "not live" in problems and "model not found" in problems.lower()
    assert "widget shown as text" in problems and "IntSlider(value=3" in problems
    assert "animation without a working player" in problems
    assert Path(result.screenshot).is_file()
