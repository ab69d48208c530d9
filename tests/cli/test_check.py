"""``simhash-lab check``: the learner's check of an exercise, in the learner's own environment (no
sandbox, so no bubblewrap on PATH needed), with the grader's table, saying that it is not a grade."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[2]


def test_a_solved_exercise_passes_without_bubblewrap_on_path(cli, tmp_path):
    empty = tmp_path / "bin"  # a PATH with a shell and nothing else: no bwrap, no activated venv
    empty.mkdir()
    (empty / "sh").symlink_to("/bin/sh")
    r = cli(
        "check",
        str(ROOT / "exercises/solutions/03_solution_hamming_popcount.ipynb"),
        env={"PATH": str(empty)},
    )
    r.assert_no_traceback()
    assert r.code == 0, (r.text, r.err)
    assert "PASSED: 4/4" in r.text and "not a grade" in r.text and "simhash-lab grade" in r.text


def test_an_untouched_exercise_fails_with_the_hint_of_each_answer(cli):
    r = cli("check", str(ROOT / "exercises/03_exercise_hamming_popcount.ipynb"))
    r.assert_no_traceback()
    assert r.code == 1 and "❌ hamming_by_hand" in r.text and "not written yet" in r.text, r.text
    assert "not a grade" in r.text
    for key in ("popcount_kernighan", "is_near"):  # a stub is unwritten, not a loop of the wrong form
        line = next(x for x in r.text.splitlines() if x.strip().startswith(f"❌ {key}"))
        assert "not written yet" in line and "while x" not in line, line


def test_nothing_to_check_is_status_2(cli, tmp_path):
    r = cli("check", str(tmp_path))
    assert r.code == 2 and "no notebooks found" in r.err.decode()


def _overview_rows(text: str) -> dict[str, str]:
    return {
        line.split()[0]: line for line in text.splitlines() if line[:2].isdigit() and "_" in line.split()[0]
    }


def test_a_folder_of_exercises_gets_an_overview_of_the_six(cli, tmp_path):
    """Issue 47: ``simhash-lab check exercises/``: one line per exercise, its answers passed of its
    total and the next step; the folder's own notebooks, not its subfolders' (solutions, es/)."""
    import shutil

    folder = tmp_path / "exercises"
    shutil.copytree(ROOT / "exercises", folder, ignore=shutil.ignore_patterns("es", "solutions"))
    shutil.copy(
        ROOT / "exercises/solutions/03_solution_hamming_popcount.ipynb",
        folder / "03_exercise_hamming_popcount.ipynb",
    )
    (folder / "solutions").mkdir()
    shutil.copy(ROOT / "exercises/solutions/05_solution_block_index.ipynb", folder / "solutions")
    r = cli("check", str(folder))
    r.assert_no_traceback()
    assert r.code == 1, (r.text, r.err)
    rows = _overview_rows(r.text)
    names = sorted(p.stem for p in (ROOT / "course" / "exercises").glob("[0-9][0-9]_*.py"))
    assert sorted(rows) == names, r.text  # each by its exercise's name, whatever its file's
    assert "4/4" in rows["03_hamming_popcount"] and "✅" in rows["03_hamming_popcount"]
    assert "0/4" in rows["01_lsh_vs_crypto"] and "not written yet" in rows["01_lsh_vs_crypto"]
    assert "1 of 6 complete" in r.text and "not a grade" in r.text
