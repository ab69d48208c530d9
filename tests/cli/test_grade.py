"""``simhash-lab grade``'s command line (simhash_lab.cli.grade): options that cannot go together,
bad values and nothing to grade are one line naming the option and status 2, before any notebook
runs. The grading itself (in the sandbox) is tested in tests/grading/test_grader.py."""

from __future__ import annotations

import pytest

from simhash_lab.cli import main

# the grading extra (make test-lib has none): without it the command says so before anything else
pytest.importorskip("nbformat")
pytest.importorskip("IPython")


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--csv", "x.csv"], "--csv and --feedback need --assignment"),
        (["--feedback", "fb"], "--csv and --feedback need --assignment"),
        (
            ["--assignment", "a.json", "--own-variant"],
            "--own-variant and --assignment cannot be used together",
        ),
    ],
)
def test_options_that_cannot_go_together_are_one_line_and_status_2(tmp_path, capsys, extra, words):
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    assert main(["grade", str(nb), *extra]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"simhash-lab grade: {words}"), err


def test_nothing_to_grade_is_status_2(tmp_path, capsys):
    assert main(["grade", str(tmp_path)]) == 2  # an empty folder
    assert capsys.readouterr().err == "simhash-lab grade: no notebooks found\n"


@pytest.mark.parametrize("option, value", [("--jobs", "0"), ("--jobs", "two")])
def test_a_bad_value_is_argparses_status_2_naming_the_option(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as e:
        main(["grade", str(tmp_path), option, value])
    assert e.value.code == 2 and option in capsys.readouterr().err


def test_an_unknown_exercise_is_one_line_and_status_2(tmp_path, capsys):
    nb = tmp_path / "a.ipynb"
    nb.write_text("{}")
    assert main(["grade", str(nb), "--exercise", "99_nothing", "--unsafe-no-sandbox"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab grade: --exercise") and err.count("\n") == 1, err
