"""simhash_lab.warmup's steps as data (issue 28): each step names the steps it must start after,
the order honours them, a wrong order is refused, and the course registers its own steps through
an entry point, so the library's warmup never imports the course."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simhash_lab import warmup
from simhash_lab.warmup import Step


def test_every_step_comes_after_the_steps_it_names():
    order = [s.name for s in warmup.all_steps()]
    assert len(order) == len(set(order)) == len(warmup.steps())
    for i, s in enumerate(warmup.all_steps()):
        assert all(order.index(a) < i for a in s.after), s
    assert order[0] == "hash functions and votes"  # the listed order where nothing forbids it


def test_an_after_moves_a_step_and_a_wrong_one_is_refused(monkeypatch):
    def nothing() -> None:
        return None

    monkeypatch.setattr(warmup, "_registered", list)
    monkeypatch.setattr(
        warmup, "STEPS", [Step("b", nothing, after=("a",)), Step("a", nothing), Step("c", nothing)]
    )
    assert [s.name for s in warmup.all_steps()] == ["a", "b", "c"]
    monkeypatch.setattr(warmup, "STEPS", [Step("a", nothing, after=("nope",))])
    with pytest.raises(ValueError, match="'nope', which is no step"):
        warmup.all_steps()
    monkeypatch.setattr(warmup, "STEPS", [Step("a", nothing, after=("b",)), Step("b", nothing, after=("a",))])
    with pytest.raises(ValueError, match="wait for each other"):
        warmup.all_steps()
    monkeypatch.setattr(warmup, "STEPS", [Step("a", nothing), Step("a", nothing)])
    with pytest.raises(ValueError, match="share a name"):
        warmup.all_steps()


def test_the_library_warmup_does_not_import_the_course():
    code = (
        "import sys\n"
        "from simhash_lab import warmup\n"
        "names = [s.name for s in warmup.STEPS]\n"
        "assert not [m for m in sys.modules if m.startswith('simhash_lab.course')], 'imported the course'\n"
        "print(len(names))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    source = open(warmup.__file__, encoding="utf-8").read()
    assert "from .course" not in source and "import course" not in source


def test_the_course_registers_its_loops():
    pytest.importorskip("matplotlib")
    pytest.importorskip("ipywidgets")
    names = [s.name for s in warmup._registered()]
    assert "the course's own loops" in names
    assert "the course's own loops" not in [s.name for s in warmup.STEPS]
