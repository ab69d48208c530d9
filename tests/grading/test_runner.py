"""The sandbox's child process (simhash_lab.grading._runner) through its own interface: a job as one
JSON line on stdin, the measured answers' units on one line after the student's cells were read,
each cell released by a ``{"token": ...}`` line, the cases after ``ready``, the messages as JSON
lines on its stdout; run here as the grader runs it without bubblewrap (``python -I _runner.py``, as
``--unsafe-no-sandbox`` does), so no sandbox is needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import simhash_lab.grading as grading

RUNNER = Path(grading.__file__).with_name("_runner.py")
PKG_PARENT = str(Path(grading.__file__).resolve().parents[2])


def run(job: dict, *after: dict | str, timeout: float = 120) -> tuple[int, list[dict], str]:
    """The runner's exit status, its messages (parsed) and its stderr, for ``job`` and the lines
    sent after it (dicts as JSON lines, strs as they are)."""
    job = {"workdir": "work", "pythonpath": [PKG_PARENT], **job}
    lines = [json.dumps(job)] + [a if isinstance(a, str) else json.dumps(a) for a in after]
    out = subprocess.run(
        [sys.executable, "-I", str(RUNNER)],
        input="".join(line + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=timeout,
        cwd=job.get("cwd"),
    )
    messages = [json.loads(line) for line in out.stdout.decode("ascii").splitlines() if line.strip()]
    return out.returncode, messages, out.stderr.decode("utf-8", "replace")


def events(messages: list[dict]) -> list[str]:
    return [m["event"] + (f":{m['phase']}" if "phase" in m else "") for m in messages]


@pytest.fixture
def method_job(tmp_path):
    """A notebook job of no cells whose measure phase runs what :func:`measure` sends."""
    return {
        "mode": "notebook",
        "workdir": str(tmp_path / "work"),
        "setup": ["BASE = 10\n"],
        "cells": [],
        "exports": [],
        "measure": True,
    }


def unit(**kw) -> dict:
    """One measured answer of a measure phase."""
    return {
        "key": "add",
        "names": ["add"],
        "code": "def add(x):\n    y = x + BASE\n    return y\n",
        "cases": [
            {"calls": [{"fn": "add", "args": [1]}, {"fn": "add", "args": [5], "measure": ["lines"]}]},
            {"calls": [{"fn": "nope", "args": []}]},
        ],
        **kw,
    }


def measure(job: dict, *units: dict) -> tuple[int, list[dict], str]:
    """``run`` of a job of no cells whose measure phase gets ``units``, and then no cases."""
    return run(job, {"units": list(units)}, {})


def measured(msgs: list[dict]) -> dict[str, list]:
    return {m["key"]: m["results"] for m in msgs if m["event"] == "measures"}


MEASURE_PHASE = ["unit:start", "unit:end", "measuring", "measures"]


def test_a_measured_answer_runs_its_definitions_and_reports_each_call(method_job):
    code, msgs, err = measure(method_job, unit())
    assert code == 0, err
    assert events(msgs) == ["started", *MEASURE_PHASE, "measured", "ready", "done"]
    assert msgs[2]["error"] is None
    first, second = measured(msgs)["add"]
    assert first[0] == {"ok": 11}
    assert second == [{"missing": True}]
    assert first[1]["ok"] == 15 and first[1]["lines"] == 2  # the two lines of add's body
    # the definitions were written to a file of their own, in the job's folder
    assert (Path(method_job["workdir"]) / "answer_0.py").read_text() == unit()["code"]


def test_a_method_whose_definitions_fail_reports_the_error_and_still_ends(method_job):
    code, msgs, err = measure(
        method_job, unit(code="def add(x):\n    return x\nraise ValueError('bad decorator')\n")
    )
    assert code == 0, err
    end = next(m for m in msgs if m.get("phase") == "end")
    assert end["error"]["type"] == "ValueError" and "bad decorator" in end["error"]["text"]
    assert measured(msgs) == {"add": None} and msgs[-1] == {"event": "done"}


def test_definitions_that_hang_are_stopped_at_the_cell_limit(method_job):
    code, msgs, err = measure(
        dict(method_job, cell_timeout=0.5),
        unit(key="hang", code="def add(x, y=[0 for _ in iter(int, 1)]):\n    return x\n"),
        unit(),
    )
    assert code == 0, err
    ends = [m for m in msgs if m.get("event") == "unit" and m.get("phase") == "end"]
    assert ends[0]["error"] == {"timeout": True} and ends[1]["error"] is None
    assert measured(msgs)["hang"] is None and measured(msgs)["add"][0][0] == {"ok": 11}


def test_fresh_starts_every_call_from_the_definitions_alone(method_job):
    code = "SEEN = []\ndef add(x):\n    SEEN.append(x)\n    return len(SEEN)\n"
    case = {"calls": [{"fn": "add", "args": [1]}, {"fn": "add", "args": [2]}]}
    results = {}
    for fresh in (False, True):
        rc, msgs, err = measure(method_job, unit(code=code, cases=[case], fresh=fresh))
        assert rc == 0, err
        results[fresh] = [r["ok"] for r in measured(msgs)["add"][0]]
    assert results == {False: [1, 2], True: [1, 1]}  # without fresh the second call saw the first


def test_each_measured_answer_runs_on_its_own_and_a_hang_stops_only_its_own_calls(method_job):
    """Two units: the first hangs on its first call (stopped at the call limit, its later calls not
    made), the second runs in a namespace of its own (it does not see the first's definitions) and
    in a module of its own (``__name__`` is in ``sys.modules``, as a notebook's is)."""
    hang = unit(
        key="hang",
        names=["spin"],
        code="LEFT = 1\ndef spin(x):\n    while True:\n        pass\n",
        cases=[{"calls": [{"fn": "spin", "args": [1]}]}, {"calls": [{"fn": "spin", "args": [2]}]}],
    )
    other = unit(
        key="other",
        names=["look"],
        code="import sys\ndef look(x):\n    return [x + BASE, 'LEFT' in globals(), __name__ in sys.modules]",
        cases=[{"calls": [{"fn": "look", "args": [1]}]}],
    )
    code, msgs, err = measure(dict(method_job, call_timeout=1), hang, other)
    assert code == 0, err
    exports = measured(msgs)
    assert exports["hang"] == [
        [{"timeout": True, "after": 1}],
        [{"timeout": True, "after": 1, "skipped": True}],
    ]
    assert exports["other"] == [[{"ok": [11, False, True]}]]


def test_the_limits_are_lowered_before_any_code_runs(method_job):
    job = dict(method_job, limits={"nofile": 64})
    u = unit(
        code="import resource\ndef add(x):\n    return resource.getrlimit(x)[1]\n",
        cases=[{"calls": [{"fn": "add", "args": [7]}, {"fn": "add", "args": [4]}]}],  # NOFILE, CORE
    )
    import resource

    assert (resource.RLIMIT_NOFILE, resource.RLIMIT_CORE) == (7, 4)  # the numbers the case passes
    code, msgs, err = measure(job, u)
    assert code == 0, err
    assert [r["ok"] for r in measured(msgs)["add"][0]] == [64, 0]  # the hard limits, not just the soft


def test_the_students_cells_are_read_and_measured_before_any_cell_runs(tmp_path):
    """The phases in order: the cells named by ``read`` come back as plain Python (a magic as the
    call IPython makes of it), then the units the grader sends are measured, and only then does the
    first released cell run: a cell that would change what is measured has not run yet."""
    pytest.importorskip("IPython")
    job = notebook_job(
        tmp_path,
        ["BASE = 10", "%time x = 1\nimport builtins\nbuiltins.abs = lambda v: -1", "y = abs(-3)"],
        read=[1, 2],
        measure=True,
        setup=["BASE = 10"],
        exports=[{"key": "v", "kind": "values", "names": ["y"]}],
    )
    u = unit(
        key="size",
        names=["size"],
        code="def size(v):\n    return abs(v)\n",
        cases=[{"calls": [{"fn": "size", "args": [-3]}]}],
    )
    code, msgs, err = run(job, {"units": [u]}, *released(3), {})
    assert code == 0, err
    assert events(msgs) == [
        "started",
        "python",
        "python",
        *MEASURE_PHASE,
        "measured",
        *["cell:start", "cell:end"] * 3,
        "ready",
        "exporting",
        "export",
        "done",
    ]
    texts = {m["i"]: m["text"] for m in msgs if m["event"] == "python"}
    assert (
        texts[1].startswith("get_ipython().run_line_magic('time', 'x = 1')") and texts[2] == "y = abs(-3)\n"
    )
    assert measured(msgs)["size"] == [[{"ok": 3}]]  # the real abs: cell 1 had not run
    assert msgs[-2]["values"]["y"] == {"ok": -1}  # (it ran afterwards, in the notebook's cells)


def test_a_cell_too_slow_to_read_is_none_and_the_next_is_read(tmp_path):
    """IPython's transformations of a hostile cell can take minutes: each cell is read within the
    cell's time limit, and one past it is None."""
    pytest.importorskip("IPython")
    job = notebook_job(tmp_path, ["x?\n" * 16000, "%time 1\n"], read=[0, 1], cell_timeout=1)
    code, msgs, err = run(job)  # stdin ends after the reading: no cell is released
    texts = [m for m in msgs if m["event"] == "python"]
    assert [m["i"] for m in texts] == [0, 1], err
    assert texts[0]["text"] is None and texts[0]["seconds"] < 5
    assert texts[1]["text"].startswith("get_ipython().run_line_magic('time'")


def notebook_job(tmp_path, cells: list[str], **kw) -> dict:
    return {
        "mode": "notebook",
        "workdir": str(tmp_path / "work"),
        "cells": [{"source": s} for s in cells],
        "exports": [],
        **kw,
    }


def released(n: int) -> list[dict]:
    return [{"token": f"t{i}"} for i in range(n)]


def test_a_notebook_runs_each_released_cell_and_exports_the_values(tmp_path):
    pytest.importorskip("IPython")
    job = notebook_job(
        tmp_path,
        ["x = 3", "y = x * 2\nf = len", "1 / 0"],
        exports=[{"key": "vals", "kind": "values", "names": ["x", "y", "f", "z"]}],
    )
    code, msgs, err = run(job, *released(3), {})
    assert code == 0, err
    assert events(msgs) == [
        "started",
        *["cell:start", "cell:end"] * 3,
        "ready",
        "exporting",
        "export",
        "done",
    ]
    ends = [m for m in msgs if m.get("phase") == "end"]
    assert [m["i"] for m in ends] == [0, 1, 2]
    assert [m["token"] for m in ends] == ["t0", "t1", "t2"]  # each end carries its cell's token
    assert ends[0]["error"] is None and ends[1]["error"] is None
    assert ends[2]["error"]["type"] == "ZeroDivisionError"
    values = msgs[-2]["values"]
    assert values["x"] == {"ok": 3} and values["y"] == {"ok": 6}
    assert values["z"] == {"missing": True}
    assert "bad" in values["f"]  # a function is not a plain value


def test_a_cell_past_its_time_is_stopped_and_the_next_still_runs(tmp_path):
    pytest.importorskip("IPython")
    job = notebook_job(tmp_path, ["while True:\n    pass", "done = 1"], cell_timeout=0.5)
    job["exports"] = [{"key": "v", "kind": "values", "names": ["done"]}]
    code, msgs, err = run(job, *released(2), {})
    assert code == 0, err
    ends = [m for m in msgs if m.get("phase") == "end"]
    assert ends[0]["error"] == {"timeout": True} and ends[1]["error"] is None
    assert msgs[-2]["values"]["done"] == {"ok": 1}


def test_answer_functions_get_the_cases_sent_after_ready(tmp_path):
    pytest.importorskip("IPython")
    job = notebook_job(
        tmp_path,
        ["def double(v):\n    return 2 * v"],
        exports=[{"key": "double", "kind": "functions", "names": ["double"]}],
    )
    cases = {"double": [{"calls": [{"fn": "double", "args": [21]}]}]}
    code, msgs, err = run(job, *released(1), cases)
    assert code == 0, err
    assert msgs[-2] == {"event": "export", "key": "double", "results": [[{"ok": 42}]]}


def test_a_cell_is_not_run_before_the_grader_releases_it(tmp_path):
    pytest.importorskip("IPython")
    marker = tmp_path / "ran"
    job = notebook_job(tmp_path, ["x = 1", f"open({str(marker)!r}, 'w').close()"])
    code, msgs, err = run(job, *released(1))  # stdin ends before cell 1 is released
    assert code != 0 and "the grader stopped" in err
    assert events(msgs) == ["started", "cell:start", "cell:end"]
    assert not marker.exists()


def test_an_unknown_mode_exits_with_a_message(tmp_path):
    code, msgs, err = run({"mode": "nope", "workdir": str(tmp_path / "w")})
    assert code != 0 and "unknown mode 'nope'" in err
    assert events(msgs) == ["started"]


def test_a_job_line_larger_than_the_limit_is_refused(tmp_path):
    huge = json.dumps({"mode": "notebook", "pad": "x" * (65 << 20)})  # past the runner's 64 MiB
    out = subprocess.run(
        [sys.executable, "-I", str(RUNNER)], input=huge.encode() + b"\n", capture_output=True, timeout=120
    )
    assert out.returncode != 0 and b"job too large" in out.stderr and out.stdout == b""
