"""``simhash-lab assign``'s command line (simhash_lab.cli.assign): a bad roster, exercises folder or
option is one line naming it and status 2, and nothing is written. Releasing a class is tested in
tests/grading/test_classroom.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from simhash_lab.cli import main

# the grading extra (make test-lib has none): without it the command says so before anything else
pytest.importorskip("nbformat")

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"


def test_a_missing_roster_is_one_line_and_status_2(tmp_path, capsys):
    out = tmp_path / "release"
    assert main(["assign", str(EXERCISES), "--roster", str(tmp_path / "none.csv"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab assign: ") and err.count("\n") == 1 and "none.csv" in err, err
    assert not out.exists() or not any(out.iterdir())


def test_a_folder_without_exercises_is_one_line_and_status_2(tmp_path, capsys):
    roster = tmp_path / "roster.csv"
    roster.write_text("id\nada\n")
    (tmp_path / "empty").mkdir()
    assert (
        main(["assign", str(tmp_path / "empty"), "--roster", str(roster), "--out", str(tmp_path / "o")]) == 2
    )
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab assign: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("extra, option", [(["--ci", "jenkins"], "--ci"), ([], "--roster")])
def test_a_bad_or_missing_option_is_argparses_status_2_naming_it(tmp_path, capsys, extra, option):
    args = ["assign", str(EXERCISES), "--out", str(tmp_path / "o"), *extra]
    if option != "--roster":
        args += ["--roster", str(tmp_path / "r.csv")]
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2 and option in capsys.readouterr().err


def test_ci_without_a_package_to_install_names_ci_package_and_writes_nothing(tmp_path, capsys, monkeypatch):
    from simhash_lab.grading import classroom

    monkeypatch.setattr(classroom, "default_ci_package", lambda: None)  # not a git checkout with an origin
    roster = tmp_path / "roster.csv"
    roster.write_text("id\nada\n")
    out = tmp_path / "release"
    assert main(["assign", str(EXERCISES), "--roster", str(roster), "--out", str(out), "--ci", "github"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simhash-lab assign: --ci-package") and err.count("\n") == 1, err
    assert not out.exists()
