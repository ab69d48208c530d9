"""``simhash-lab warmup`` (simhash_lab.cli.warmup): its help, and a quiet run that succeeds."""

from __future__ import annotations

import pytest


def test_the_cli_runs_the_warmup():
    from simhash_lab.cli import main

    with pytest.raises(SystemExit):
        main(["warmup", "--help"])
    assert main(["warmup", "--quiet"]) == 0
