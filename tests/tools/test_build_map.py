"""The map of ``00_start_here`` against the course sources (``tools/build.py``'s ``map_problems``): a
course notebook without its row, a row without its notebook, a row that links another file, and
rows out of order are each named, and the build refuses to run while one is."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

MAP = """# %% [markdown]
# # 00 · Start here
#
# | # | Notebook | You will see | You will measure |
# |---|---|---|---|
{rows}
"""


def _course(tmp: Path, rows: list[str], names: list[str]) -> Path:
    folder = tmp / "course" / "notebooks"
    folder.mkdir(parents=True)
    (folder / "00_start_here.py").write_text(MAP.format(rows="\n".join(f"# {r}" for r in rows)))
    for name in names:
        (folder / f"{name}.py").write_text(f"# %% [markdown]\n# # {name[:2]} · {name[3:].title()}\n")
    (tmp / "course" / "exercises").mkdir()
    return tmp


ROW00 = "| 00 | Start here (this page) | the tools | one word |"
ROW01 = "| 01 | [One](01_one.ipynb) | a | b |"
ROW02 = "| 02 | [Two](02_two.ipynb) | a | b |"


def test_a_complete_map_has_no_problem(build, tmp_path):
    root = _course(tmp_path, [ROW00, ROW01, ROW02], ["01_one", "02_two"])
    assert build.map_problems(build.read_sources(build.Layout(root))) == []


@pytest.mark.parametrize(
    "rows, names, expected",
    [
        ([ROW00, ROW01], ["01_one", "02_two"], "no row for 02_two; add `| 02 | [Two](02_two.ipynb) |"),
        ([ROW00, ROW01, ROW02], ["01_one"], "the map's row 02 names no notebook"),
        ([ROW00, ROW01.replace("01_one", "01_old"), ROW02], ["01_one", "02_two"], "row 01 does not link"),
        ([ROW00, ROW02, ROW01], ["01_one", "02_two"], "not in the notebooks' order"),
    ],
)
def test_each_problem_is_named(build, tmp_path, rows, names, expected):
    root = _course(tmp_path, rows, names)
    (problem,) = build.map_problems(build.read_sources(build.Layout(root)))
    assert problem.startswith("course/notebooks/00_start_here.py: ") and expected in problem


def test_the_build_refuses_to_run_without_the_row(build, tmp_path):
    root = _course(tmp_path, [ROW00, ROW01], ["01_one", "02_two"])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        rc = build.main(["--check", "--root", str(root)])
    assert rc == 2 and "no row for 02_two" in err.getvalue()
