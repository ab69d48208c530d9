"""``simhash-lab`` itself (simhash_lab.cli.main): the subcommands it knows, and how a run ends: a
reader that stops early is status 141 without a traceback, a failing stdout is one line and status
2, Ctrl-C is status 130, a bad command line is argparse's status 2."""

from __future__ import annotations

import pytest

import simhash_lab.cli.warmup as warmup_cli
from simhash_lab.cli import main
from simhash_lab.cli._output import OutputError


def test_every_subcommand_has_its_help(capsys):
    for command in ("fingerprint", "check", "grade", "assign", "dedup", "warmup"):
        with pytest.raises(SystemExit) as e:
            main([command, "--help"])
        assert e.value.code == 0
        assert f"simhash-lab {command}" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["warmup", "--jobs", "many"]])
def test_a_bad_command_line_is_status_2(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and "usage: simhash-lab" in capsys.readouterr().err


@pytest.mark.parametrize(
    "raised, status, line",
    [
        (BrokenPipeError(), 141, None),
        (OutputError("cannot write to standard output: No space left on device"), 2,
         "simhash-lab warmup: cannot write to standard output: No space left on device"),
        (KeyboardInterrupt(), 130, "simhash-lab warmup: interrupted"),
    ],
)  # fmt: skip
def test_how_a_run_ends(monkeypatch, capsys, raised, status, line):
    def command(args):
        raise raised

    monkeypatch.setattr(warmup_cli, "_warmup", command)
    monkeypatch.setattr("simhash_lab.cli._drop_stdout", lambda: None)  # keep pytest's stdout
    assert main(["warmup"]) == status
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err == ("" if line is None else line + "\n")


def test_a_commands_status_is_mains(monkeypatch):
    monkeypatch.setattr(warmup_cli, "_warmup", lambda args: 7)
    assert main(["warmup"]) == 7
