"""The grader against the second round of attacks (issue 23): method checks padded, state kept
between calls, the grader's process flooded, static analysis made slow, forged messages of the
sandbox, an int turned into text by ``'%x' % x``. (Since issue 43 a method is judged by what it
does; these attacks fail for what they do, or for what the exercise's text forbids.)

Each attack is a notebook (or, where the attack is on one mechanism, a direct call of it) that
passed, or cost the grader what it should not, before; here it must fail, and cost only what the
grader allows. The unit tests below the class run need no sandbox.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

# the cheats of the corpus, each a notebook of its own here: SWAR, a byte table with a decoy loop, hex
# digits, fingerprints kept between calls (a global, a default argument)
from corpus import _HEX as HEX
from corpus import _MEMO as MEMO
from corpus import _NEAR_SWAR as SWAR_NEAR
from corpus import _SEEN as SEEN
from corpus import _SWAR as SWAR
from corpus import _TABLE as TABLE

from simhash_lab.grading import _code_checks, _protocol, _sandbox
from simhash_lab.grading.checks import hamming_popcount

# -- the answers ---------------------------------------------------------------------------------------

# What an answer cell finds of the runner: its channel (gc), the pipes it reads the grader from.
_FIND = """
import gc, json, os, select, signal, stat, fcntl
_ch = next(o for o in gc.get_objects() if type(o).__name__ == "_Channel")
_inputs = [
    fd for fd in range(3, 64)
    if os.path.exists(f"/proc/self/fd/{fd}") and stat.S_ISFIFO(os.fstat(fd).st_mode)
    and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY
]
def _send(msg):
    os.write(_ch.fd, (json.dumps(msg) + "\\n").encode())
"""
# ignores the cell's alarm, says its cell (whichever it is) ended, then takes 3 cell limits and
# answers right
FORGED_END = (
    _FIND
    + """
signal.signal(signal.SIGALRM, signal.SIG_IGN)
for _i in range(12):
    _send({"event": "cell", "i": _i, "phase": "end", "error": None, "seconds": 0.1})
import time
time.sleep(18)
d_AB = 3
d_CD = 2
"""
)
# says the notebook is ready, then reads what the grader sends while the first answer still runs
FORGED_READY = (
    _FIND
    + """
_send({"event": "ready"})
_got = b""
for _ in range(20):
    for _fd in select.select(_inputs, [], [], 0.25)[0]:
        _got += os.read(_fd, 1 << 20)
print("LEAK", len(_got), _got[:2000])
d_AB = 3
d_CD = 2
"""
)
# one line of 63 MB of empty dicts, under the old 64 MiB cap; then 7 lines of 8 MB just under the
# new line limit
FLOOD = (
    _FIND
    + """
_line = b'{"event":"x","p":[' + b"{}," * (21 << 20) + b'{}]}\\n'
os.write(_ch.fd, _line)
d_AB = 3
d_CD = 2
"""
)
FLOOD_SMALL = (
    _FIND
    + """
for _ in range(7):
    os.write(_ch.fd, b'{"event":"x","p":[' + b"{}," * (2_700_000) + b'{}]}\\n')
d_AB = 3
d_CD = 2
"""
)
SLOW_STATIC = "x?\n" * 16000 + "\ndef popcount_kernighan(x):\n    return 0\n"


def _notebooks(kit, d: Path) -> dict[str, Path]:
    sol03 = {k: kit.solution_source("03_hamming_popcount", k) for k in ("hamming_by_hand", "xor_AB")}
    near = kit.solution_source("03_hamming_popcount", "is_near")
    pop = kit.solution_source("03_hamming_popcount", "popcount_kernighan")
    base03 = kit.solution("03_hamming_popcount")
    blocks = kit.solution_source("05_block_index", "blocks")
    base05 = kit.solution("05_block_index")

    def nb03(name, **answers):
        full = {**sol03, "popcount_kernighan": pop, "is_near": near, **answers}
        return kit.with_answers(base03, full, d / f"{name}_03_hamming_popcount.ipynb")

    return {
        "swar": nb03("swar", popcount_kernighan=SWAR, is_near=SWAR_NEAR),
        "table": nb03("table", popcount_kernighan=TABLE),
        "hex": nb03("hex", popcount_kernighan=HEX),
        "seen": kit.with_answers(
            base05, {"blocks": blocks, "block_index": SEEN}, d / "seen_05_block_index.ipynb"
        ),
        "memo": kit.with_answers(
            base05, {"blocks": blocks, "block_index": MEMO}, d / "memo_05_block_index.ipynb"
        ),
        "forged_end": nb03("forged_end", hamming_by_hand=FORGED_END),
        "forged_ready": nb03("forged_ready", hamming_by_hand=FORGED_READY),
        "flood": nb03("flood", hamming_by_hand=FLOOD),
        "flood_small": nb03("flood_small", hamming_by_hand=FLOOD_SMALL),
        "slow_static": nb03("slow_static", popcount_kernighan=SLOW_STATIC),
    }


_RSS = """
import json, resource, sys
from simhash_lab.cli import main
rc = main(sys.argv[1:])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"rc": rc, "maxrss_kib": peak}), file=sys.stderr)
"""


def grade_measured(kit, args: list[str], tmp: Path) -> tuple[int, dict, list[dict], float]:
    """``simhash-lab grade ARGS --json FILE`` in a Python of its own that reports the grader's own
    peak RSS (its process only: the sandboxes are other processes); (status, that report, the
    JSON, wall seconds)."""
    out_json = tmp / "grade.json"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")]),
        "SIMHASH_LAB_ON_COMPILE": "error",
    }
    t0 = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-c", _RSS, "grade", *args, "--json", str(out_json)],
        capture_output=True,
        timeout=1800,
        env=env,
        cwd=tmp,
    )
    wall = time.monotonic() - t0
    report = json.loads(p.stderr.decode("utf-8", "replace").strip().splitlines()[-1])
    doc = json.loads(out_json.read_text(encoding="utf-8")) if out_json.exists() else []
    return p.returncode, report, doc, wall


# -- the class run -------------------------------------------------------------------------------------

CELL_TIMEOUT = 6
TIMEOUT = 90


@pytest.fixture(scope="session")
def attack_run(kit, sandbox_ok, tmp_path_factory):
    d = tmp_path_factory.mktemp("round2")
    attacks = _notebooks(kit, d)
    solutions = [kit.solution("03_hamming_popcount"), kit.solution("05_block_index")]
    files = [*solutions, *attacks.values()]
    args = [*map(str, files), "--jobs", "2", "--cell-timeout", str(CELL_TIMEOUT), "--timeout", str(TIMEOUT)]
    rc, report, doc, wall = grade_measured(kit, args, d)
    return {
        "rc": rc,
        "report": report,
        "results": {r["path"]: r for r in doc},
        "attacks": attacks,
        "solutions": solutions,
        "files": files,
        "wall": wall,
    }


def _checks(run, name) -> dict[str, dict]:
    r = run["results"][str(run["attacks"][name])]
    return {c["name"]: c for c in r["checks"]}


def test_honest_solutions_still_pass(attack_run):
    for path in attack_run["solutions"]:
        r = attack_run["results"][str(path)]
        assert r["status"] == "passed", (path.name, r["first_hint"], r["checks"])


@pytest.mark.parametrize(
    ("attack", "key", "hint"),
    [
        ("swar", "popcount_kernighan", "None of your function's variables does"),
        ("swar", "is_near", "None of your function's variables takes those values"),
        ("table", "popcount_kernighan", "None of your function's variables does"),
        ("hex", "popcount_kernighan", "`%` on a string turns a value into text"),
        # state between calls: every call is made on definitions made anew, so nothing is there
        ("seen", "block_index", "returned no id for any query"),
        ("memo", "block_index", "raised"),
    ],
)
def test_padded_tabled_textual_and_stateful_methods_fail_with_what_was_expected(
    attack_run, attack, key, hint
):
    c = _checks(attack_run, attack)[key]
    assert not c["passed"] and hint in c["hint"], c


def test_a_cell_slow_to_read_fails_alone(attack_run):
    """16,000 lines of ``x?``: IPython's transformations take minutes. The grader's copy runs in a
    child under a limit (see the unit test below); in the sandbox the cell is stopped as a hang."""
    c = _checks(attack_run, "slow_static")["popcount_kernighan"]
    assert not c["passed"] and ("could not be checked" in c["hint"] or "timed out after" in c["hint"]), c


def test_the_other_answers_of_an_attacked_notebook_are_graded(attack_run):
    for attack in ("swar", "table", "hex", "slow_static"):
        by = _checks(attack_run, attack)
        assert by["hamming_by_hand"]["passed"] and by["xor_AB"]["passed"], (attack, by)


def test_a_forged_cell_end_does_not_extend_the_cell(attack_run):
    """The answer ignores its alarm, says its cell ended, and answers right after 3 cell limits:
    before, the grader believed it and the answer passed."""
    c = _checks(attack_run, "forged_end")["hamming_by_hand"]
    assert not c["passed"] and f"timed out after {CELL_TIMEOUT} s" in c["hint"], c


def test_a_forged_ready_gets_no_hidden_case(attack_run):
    r = attack_run["results"][str(attack_run["attacks"]["forged_ready"])]
    leak = next(ln for ln in r["log"].splitlines() if ln.startswith("LEAK "))
    assert leak.startswith("LEAK 0 "), leak  # nothing arrived while the cell ran: no case, no cell
    assert '"calls"' not in r["log"]


def test_a_flood_of_messages_fails_the_answer_that_sent_it(attack_run):
    c = _checks(attack_run, "flood")["hamming_by_hand"]
    assert not c["passed"] and "sent too much to the grader" in c["hint"], c
    by = _checks(attack_run, "flood_small")
    assert all(by[k]["passed"] for k in ("xor_AB", "popcount_kernighan", "is_near")), by


def test_the_grader_stays_bounded_in_memory_and_time(attack_run):
    """The grader's own peak RSS (the sandboxes are other processes), floods included, and the
    run's wall clock inside --timeout x notebooks / jobs (plus the seconds of starting and
    judging)."""
    assert attack_run["report"]["maxrss_kib"] < 1 << 20, attack_run["report"]
    n = len(attack_run["files"])
    assert attack_run["wall"] < TIMEOUT * n / 2 + 60, attack_run["wall"]


# -- the writer at the command line --------------------------------------------------------------------


def _cli(kit, args, tmp, **kw):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "simhash_lab.cli", "grade", *args], capture_output=True, env=env, cwd=tmp, **kw
    )


def _not_a_notebook(tmp: Path) -> Path:
    p = tmp / "broken_03_hamming_popcount.ipynb"
    p.write_text("not json")
    return p


@pytest.mark.parametrize("where", ["folder", "missing folder"])
def test_a_json_that_cannot_be_written_is_refused_before_grading(kit, sandbox_ok, tmp_path, where):
    target = tmp_path if where == "folder" else tmp_path / "missing" / "grades.json"
    p = _cli(kit, [str(kit.solution("03_hamming_popcount")), "--json", str(target)], tmp_path, timeout=60)
    err = p.stderr.decode()
    assert p.returncode == 2 and err.startswith("simhash-lab grade: --json: "), err
    assert ("is a folder" if where == "folder" else "no such folder") in err
    assert p.stdout == b"", "graded before the output was checked"


def test_a_json_naming_a_graded_notebook_is_refused(kit, sandbox_ok, tmp_path):
    nb = tmp_path / "03_hamming_popcount.ipynb"
    nb.write_bytes((kit.solution("03_hamming_popcount")).read_bytes())
    before = nb.read_bytes()
    p = _cli(kit, [str(nb), "--json", str(tmp_path / "." / nb.name)], tmp_path, timeout=60)
    assert p.returncode == 2 and "--json names an input file" in p.stderr.decode(), p.stderr
    assert nb.read_bytes() == before


def test_json_to_dev_full_is_one_line_and_the_device_stays(kit, sandbox_ok, tmp_path):
    import stat

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    p = _cli(kit, [str(_not_a_notebook(tmp_path)), "--json", "/dev/full"], tmp_path, timeout=120)
    err = p.stderr.decode().strip()
    assert (
        p.returncode == 2
        and err == "simhash-lab grade: --json: cannot write /dev/full: No space left on device"
    )
    assert stat.S_ISCHR(os.lstat("/dev/full").st_mode)


def test_json_through_a_link_to_stdout_reaches_the_reader(kit, sandbox_ok, tmp_path):
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    p = _cli(kit, [str(_not_a_notebook(tmp_path)), "--json", str(link)], tmp_path, timeout=120)
    assert p.returncode == 1, p.stderr
    assert link.is_symlink()
    start = p.stdout.index(b"[\n")
    doc = json.loads(p.stdout[start:])
    assert doc[0]["status"] == "not gradable"


def test_json_into_a_fifo_reaches_the_reader(kit, sandbox_ok, tmp_path):
    import stat
    import threading

    fifo = tmp_path / "grades.fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    p = _cli(kit, [str(_not_a_notebook(tmp_path)), "--json", str(fifo)], tmp_path, timeout=120)
    reader.join(30)
    assert p.returncode == 1, p.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(got[0])[0]["status"] == "not gradable"


# -- the mechanisms, directly (no sandbox) -------------------------------------------------------------


@pytest.mark.parametrize(
    "data",
    [
        b'{"event":"x","p":[' + b"{}," * 3_000_000 + b"{}]}",
        b'{"event":"x","p":[' + b'"",' * 3_000_000 + b'""]}',
        b'{"event":"x","p":"' + b"a" * (2 << 20) + b'"}',
        b'{"event":"x","p":' + b"[" * 100 + b"]" * 100 + b"}",
        b'{"event":"x","p":"unterminated}',
    ],
    ids=["dicts", "strings", "long string", "deep", "not json"],
)
def test_a_message_is_shape_checked_before_it_is_parsed(data):
    with pytest.raises(ValueError):
        _protocol.loads_bounded(data, max_items=200_000, max_depth=64, max_string=1 << 20)


def test_a_notebook_file_of_millions_of_values_is_refused_unparsed(tmp_path):
    """A notebook file is read under the same kind of limits: 3 million ``{}`` in a cell's output
    (9 MB on disk, gigabytes as objects) is refused from its shape."""
    from simhash_lab.grading import _grader

    p = tmp_path / "flood_03_hamming_popcount.ipynb"
    flood = b"[" + b"{}," * 3_000_000 + b"{}]"
    p.write_bytes(b'{"cells": [{"cell_type": "code", "source": "", "outputs": ' + flood + b"}]}")
    r = _grader.grade_one(p)
    assert r.status == "not gradable" and "more than 1,000,000 values" in r.first_hint, r.first_hint


def test_a_message_within_the_limits_is_parsed():
    msg = {"event": "export", "key": "k", "results": [[{"ok": [1, 'a"b\\\\', {"$set": [2]}]}]] * 1000}
    data = json.dumps(msg).encode()
    assert _protocol.loads_bounded(data, max_items=200_000, max_depth=64, max_string=1 << 20) == msg


#: What each fake runner starts with: its helpers, and the job read.
_FAKE_HEAD = r"""
import json, os, select, sys, time
inp = sys.stdin.buffer
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n"); sys.stdout.flush()
def waiting(seconds):
    return bool(select.select([inp], [], [], seconds)[0])
job = json.loads(inp.readline())
"""

_FAKE_RUNNER = (
    _FAKE_HEAD
    + r"""
go = json.loads(inp.readline())
print("GO", go, file=sys.stderr, flush=True)
send({"event": "cell", "i": 0, "phase": "start"})
mode = sys.argv[1]
if mode == "ready":
    send({"event": "ready"})
    print("AFTER READY", waiting(1.5), file=sys.stderr, flush=True)
    send({"event": "cell", "i": 0, "phase": "end", "error": None, "token": go["token"]})
    go = json.loads(inp.readline())
    send({"event": "cell", "i": 1, "phase": "start"})
    print("AFTER GO 1", waiting(1.0), file=sys.stderr, flush=True)
    send({"event": "cell", "i": 1, "phase": "end", "error": None, "token": go["token"]})
    print("CASES", inp.readline().decode().strip(), file=sys.stderr, flush=True)
    send({"event": "done"})
elif mode == "end":
    send({"event": "cell", "i": 1, "phase": "end", "error": None, "token": go["token"]})  # not running
    for i in range(3):  # the running one and the others, without the token
        send({"event": "cell", "i": i, "phase": "end", "error": None})
    print("AFTER FORGED ENDS", waiting(1.0), file=sys.stderr, flush=True)
    send({"event": "cell", "i": 0, "phase": "end", "error": None, "token": go["token"]})
    print("NEXT", json.loads(inp.readline())["go"], file=sys.stderr, flush=True)
    send({"event": "cell", "i": 1, "phase": "start"})
    time.sleep(200)  # hangs in cell 1
elif mode == "many":  # each message under the limit of one, together over what a run may cost
    for _ in range(8):
        sys.stdout.write('{"event":"x","p":[' + "0," * 199_000 + '0]}\n'); sys.stdout.flush()
    time.sleep(200)
elif mode == "flood":
    sys.stdout.write('{"event":"x","p":"' + "a" * (9 << 20) + '"}\n'); sys.stdout.flush()
    time.sleep(200)
"""
)


def _fake(tmp_path, source: str, mode: str) -> subprocess.Popen:
    """A fake runner (``source``) started as the sandbox starts the real one, in ``mode``."""
    script = tmp_path / "fake_runner.py"
    script.write_text(source)
    return subprocess.Popen(
        [sys.executable, str(script), mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _fake_run(tmp_path, mode: str, **limits) -> _sandbox.Run:
    proc = _fake(tmp_path, _FAKE_RUNNER, mode)
    lim = _sandbox.Limits(**{"cell_timeout": 2.0, "grace": 1.0, **limits})
    job = {"mode": "notebook", "cells": [{"source": "a"}, {"source": "b"}], "exports": []}
    cases = {"k": [{"calls": [{"fn": "f", "args": [1]}]}]}
    return _sandbox._Watch(proc, job, cases, lim, 120.0, time.monotonic()).run()


def test_the_cases_go_out_when_the_grader_decides_not_on_ready(tmp_path):
    run = _fake_run(tmp_path, "ready")
    log = run.log.splitlines()
    assert "AFTER READY False" in log, run.log  # a ready message released nothing
    assert "AFTER GO 1 False" in log, run.log  # nor did the end of a cell before the last
    cases = next(ln for ln in log if ln.startswith("CASES "))
    assert json.loads(cases[6:]) == {"k": [{"calls": [{"fn": "f", "args": [1]}]}]}
    assert run.killed is None and run.where == ("done", None)


def test_only_the_running_cell_ends_and_only_with_its_token(tmp_path):
    run = _fake_run(tmp_path, "end")
    log = run.log.splitlines()
    assert "AFTER FORGED ENDS False" in log, run.log  # another cell's end, or no token: nothing
    assert "NEXT 1" in log, run.log  # the runner's own end of cell 0 released cell 1
    assert run.killed == "cell" and run.where == ("cell", 1), (run.killed, run.where)


def test_a_line_over_the_message_limit_ends_the_run_unparsed(tmp_path):
    run = _fake_run(tmp_path, "flood", cell_timeout=100.0)
    assert run.killed == "output" and "a message of more than 8 MiB" in run.overflow
    assert all(m.get("event") != "x" for m in run.messages)


def test_what_the_messages_of_one_run_may_cost_is_bounded(tmp_path):
    run = _fake_run(tmp_path, "many", cell_timeout=100.0)  # (the flood, not the clock, ends it)
    assert run.killed == "output" and "more than 1,000,000 values of messages" in run.overflow
    kept = sum(len(m["p"]) for m in run.messages if m.get("event") == "x")
    assert 0 < kept <= _sandbox.Limits().max_run_items


_FAKE_PHASES = (
    _FAKE_HEAD
    + r"""
mode = sys.argv[1]
send({"event": "python", "i": 0, "text": "def f(x):\n    return x\n"})
if mode == "read":  # the second cell is never read
    time.sleep(200)
send({"event": "python", "i": 1, "text": None})
units = json.loads(inp.readline())["units"]
print("UNITS", [u["key"] for u in units], file=sys.stderr, flush=True)
send({"event": "unit", "key": "a", "phase": "start"})
send({"event": "unit", "key": "a", "phase": "end", "error": None})
send({"event": "measuring", "key": "a"})
if mode == "unit":  # hangs in its calls; a second "measuring" asks for more time
    time.sleep(5)
    send({"event": "measuring", "key": "a"})
    time.sleep(200)
send({"event": "measures", "key": "a", "results": [[{"ok": 1}]]})
print("BEFORE MEASURED", waiting(1.0), file=sys.stderr, flush=True)
send({"event": "measured"})
go = json.loads(inp.readline())
# what the notebook's cell could send: measures of its own, for every answer, and the phase's end
for key in ("a", "b"):
    send({"event": "unit", "key": key, "phase": "end", "error": None})
    send({"event": "measures", "key": key, "results": [[{"ok": 2}]]})
send({"event": "measured"})
send({"event": "cell", "i": 0, "phase": "end", "error": None, "token": go["token"]})
print("CASES", inp.readline().decode().strip(), file=sys.stderr, flush=True)
send({"event": "done"})
"""
)


def _fake_phases(tmp_path, mode: str) -> tuple[_sandbox.Run, list]:
    proc = _fake(tmp_path, _FAKE_PHASES, mode)
    lim = _sandbox.Limits(cell_timeout=1.0, grace=0.5, call_timeout=2.0)
    job = {"mode": "notebook", "cells": [{"source": "a"}], "exports": [], "read": [0, 1]}
    seen = []

    def measure(texts):
        seen.append(texts)
        return [{"key": k, "cases": [{"calls": [{"fn": "f", "args": [1]}]}]} for k in ("a", "b")]

    return _sandbox._Watch(proc, job, {}, lim, 120.0, time.monotonic(), measure).run(), seen


def test_measures_are_taken_only_before_the_first_cell_is_released(tmp_path):
    """The measure phase is over before the grader releases the first cell, and whatever arrives
    after that (here: a cell's forged measures for every answer) is never taken for a measure."""
    run, seen = _fake_phases(tmp_path, "forge")
    assert seen == [{0: "def f(x):\n    return x\n", 1: None}]  # the units were asked with the texts
    log = run.log.splitlines()
    assert "UNITS ['a', 'b']" in log and "BEFORE MEASURED False" in log, run.log
    assert [(m["event"], m.get("key")) for m in run.measured] == [
        ("unit", "a"),
        ("unit", "a"),
        ("measuring", "a"),
        ("measures", "a"),
        ("measured", None),
    ]
    assert run.measured[3]["results"] == [[{"ok": 1}]]
    forged = [m for m in run.messages if m["event"] in ("unit", "measures", "measured")]
    assert len(forged) == 5  # seen, in the notebook's messages, and nothing more
    assert run.killed is None and run.where == ("done", None)


def test_a_unit_that_hangs_is_stopped_on_its_own_time_and_gets_no_more(tmp_path):
    """A measured answer's calls have their time from its ``measuring`` message; another one does
    not give more (killed at 5.75 s of calls, not 5 + 5.75)."""
    run, _seen = _fake_phases(tmp_path, "unit")
    assert run.killed == "unit" and run.where == ("unit", "a"), (run.killed, run.where)
    assert run.seconds < 9.5, run.seconds
    assert [m["event"] for m in run.measured][-1] == "measuring" and run.messages == []


def test_a_cell_that_is_never_read_stops_the_run_in_its_read_step(tmp_path):
    run, seen = _fake_phases(tmp_path, "read")
    assert run.killed == "read" and run.where == ("read", 1), (run.killed, run.where)
    assert run.texts == {0: "def f(x):\n    return x\n"} and seen == [] and run.measured == []


# every route from an int to its text: each refused where exercise 03's text forbids it (in
# popcount_kernighan; tests/grading/test_code_checks.py has more)
_TEXT_ROUTES = [
    "'%x' % x",
    "'%d' % (x,)",
    "'%s' % x",
    "b'%x' % x",
    "'{:b}'.format(x)",
    "format(x, 'b')",
    "str(x)",
    "repr(x)",
    "ascii(x)",
    "bin(x)",
    "hex(x)",
    "oct(x)",
    "f'{x:b}'",
    "x.to_bytes(8, 'big').hex()",
    "x.__format__('b')",
    "int.__repr__(x)",
    "FMT % x",
]


@pytest.mark.parametrize("expr", _TEXT_ROUTES)
def test_every_route_from_an_int_to_text_is_refused(expr):
    code = f"FMT = '%x'\n\n\ndef popcount_kernighan(x):\n    s = {expr}\n    return len(s)\n"
    assert _code_checks.problems(code, hamming_popcount._NO_TEXT), expr


def test_strings_are_allowed_as_docstrings_and_error_messages():
    code = textwrap.dedent(
        '''
        def popcount_kernighan(x):
            """Kernighan's loop."""
            if x < 0:
                raise ValueError("x must be >= 0")
            assert x < 2**64, "64 bits"
            count = 0
            while x:
                x &= x - 1
                count += 1
            return count
        '''
    )
    assert _code_checks.problems(code, hamming_popcount._NO_TEXT) == []


@pytest.mark.parametrize(
    "code",
    [
        "SEEN = []\n\ndef f(x):\n    SEEN.append(x)\n    return len(SEEN)\n",
        "SEEN = ({},)\n\ndef f(x):\n    SEEN[0][x] = x\n    return len(SEEN[0])\n",
        "def f(x, memo={}):\n    memo[x] = x\n    return len(memo)\n",
        "def f(x, *, memo=[]):\n    memo.append(x)\n    return len(memo)\n",
        "def f(x, memo=set()):\n    memo.add(x)\n    return len(memo)\n",
        "def f(x):\n    g = lambda y, m=[]: m.append(y) or len(m)\n    return g(x)\n",
    ],
)
def test_module_level_mutables_and_mutable_defaults_keep_nothing_between_calls(code):
    """State between calls is not refused by its spelling: every call of a measured pure-Python answer
    is made on its definitions made anew, so what one call left is not there for the next."""
    compiled = compile(code, "<answer>", "exec")

    def fresh():
        ns = {}
        exec(compiled, ns)
        return {"f": ns["f"]}

    case = {"calls": [{"fn": "f", "args": [i]} for i in range(3)]}
    assert [r["ok"] for r in _protocol.run_case({}, case, fresh=fresh)] == [1, 1, 1]
    assert _code_checks.problems(code) == []


def test_constants_and_immutable_defaults_are_allowed():
    code = (
        "MASK = 0xFFFF\nSHIFTS = (0, 16, 32, 48)\n\ndef f(x, k=3, m=None, t=(1, 2)):\n    return x & MASK\n"
    )
    assert _code_checks.problems(code) == []


def test_fresh_definitions_forget_what_a_call_wrote():
    """The method run's ``fresh``: each call gets the functions defined anew, so a list the first
    call filled is empty for the second."""
    code = compile("SEEN = []\ndef put(x):\n    SEEN.append(x)\n    return len(SEEN)\n", "<answer>", "exec")

    def fresh():
        ns = {}
        exec(code, ns)
        return {"put": ns["put"]}

    case = {"calls": [{"fn": "put", "args": [1]}, {"fn": "put", "args": [2]}]}
    assert [r["ok"] for r in _protocol.run_case(fresh(), case)] == [1, 2]  # one namespace: state
    assert [r["ok"] for r in _protocol.run_case({}, case, fresh=fresh)] == [1, 1]


def _feedback(answer, code: str, name: str, tmp_path):
    """An answer's learner-side verdict on ``code`` defined in a file (so its source is known)."""
    import importlib.util

    path = tmp_path / f"answer_{abs(hash(code))}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return answer.feedback(getattr(mod, name))


_HONEST_POPCOUNT = [
    "def popcount_kernighan(x):\n    count = 0\n    while x:\n        x &= x - 1\n"
    "        count += 1\n    return count\n",
    "def popcount_kernighan(x):\n    n = 0\n    while x != 0:\n        x ^= x & -x\n"
    "        n = n + 1\n    return n\n",
    "def popcount_kernighan(x):\n    c = 0\n    v = x\n    while v:\n        v = v & (v - 1)\n"
    "        c += 1\n    return c\n",
]
_HONEST_NEAR = [
    "def is_near(a, b, k=3):\n    x = a ^ b\n    count = 0\n    while x and count <= k:\n"
    "        x &= x - 1\n        count += 1\n    return count <= k\n",
    "def is_near(a, b, k=3):\n    x = a ^ b\n    count = 0\n    while x:\n        count += 1\n"
    "        if count > k:\n            return False\n        x = x & (x - 1)\n    return True\n",
]


@pytest.mark.parametrize("code", _HONEST_POPCOUNT)
def test_any_honest_kernighan_loop_passes(code, tmp_path):
    v = _feedback(hamming_popcount.popcount_kernighan, code, "popcount_kernighan", tmp_path)
    assert v.passed, v.summary()


@pytest.mark.parametrize("code", _HONEST_NEAR)
def test_any_honest_early_exit_passes(code, tmp_path):
    v = _feedback(hamming_popcount.is_near, code, "is_near", tmp_path)
    assert v.passed, v.summary()


@pytest.mark.parametrize(
    ("answer", "code", "hint"),
    [
        ("popcount_kernighan", SWAR, "None of your function's variables does"),
        ("popcount_kernighan", TABLE, "None of your function's variables does"),
        ("is_near", SWAR_NEAR, "None of your function's variables takes those values"),
        (
            "is_near",
            "def is_near(a, b, k=3):\n    x = a ^ b\n    c = 0\n    while x:\n        x &= x - 1\n"
            "        c += 1\n    return c <= k\n",
            "goes on clearing bits",
        ),
        (
            "is_near",
            "def is_near(a, b, k=3):\n    y = 0\n    while y:\n        y &= y - 1\n    x = a ^ b\n"
            "    c = 0\n    while x:\n        c += x & 1\n        x >>= 1\n"
            "    for _ in range(min(c, k + 1)):\n        pass\n    return c <= k\n",
            "None of your function's variables takes those values",
        ),
    ],
    ids=["swar", "table", "swar near", "no early exit", "bit scan near"],
)
def test_padding_tables_and_swar_fail_with_what_was_expected(answer, code, hint, tmp_path):
    v = _feedback(getattr(hamming_popcount, answer), code, answer, tmp_path)
    assert not v.passed and hint in v.summary(), v.summary()
