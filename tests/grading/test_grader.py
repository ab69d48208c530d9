"""`simhash-lab grade` against hostile notebooks: one notebook per attack class of issue 13.

Every notebook here is graded in the real sandbox, through the real command line, in a few class
runs shared by the tests (a fixture each): the solutions and the untouched student versions with the
attacks; a second run after the write attacks; the class-folder oddities; the hangs. Each attack is
a *wrong* notebook (its answers are stubs or wrong values) plus code that tries to make it pass or to
reach outside the sandbox; it must fail, and leave the installed package byte-identical.

Hermetic: the tests look only at their own files (tmp_path) and at processes whose command line holds
a uuid of their own.
"""

from __future__ import annotations

import json
import os
import stat
import time
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("sandbox_ok")

TOKEN = f"simhash-lab-attack-{uuid.uuid4().hex}"


def _visible(name: str):
    """What a ❌ shows (or a classmate could pass on) for the notebook's own data."""
    from simhash_lab.grading.checks import charikar_hyperplanes, lsh_vs_crypto, near_duplicates

    return {
        "crypto_flips": lsh_vs_crypto._crypto_reference(None),
        "simhash_flips": lsh_vs_crypto._simhash_reference(None),
        "mean_d": charikar_hyperplanes._mean_reference(None),
        "distances": near_duplicates._distances(None),
        "best_k": near_duplicates._best_k(None),
    }[name]


# -- the attacks ---------------------------------------------------------------------------------------


def _tampering(kit, d: Path) -> Path:
    """01, wrong: replaces the checkers, the data, the library's functions and the export code in its
    process, and writes forged results to every descriptor it has."""
    forged = json.dumps(
        {
            "event": "export",
            "key": "crypto_flips",
            "values": {"crypto_flips": {"ok": _visible("crypto_flips")}},
        }
    )
    src = f"""
import json, os, sys
import simhash_lab, simhash_lab.hamming
from simhash_lab.grading import checks, data
for name in list(vars(checks)):
    if not name.startswith("__"):
        setattr(checks, name, lambda *a, **k: True)
data.avalanche_pairs = lambda *a, **k: [("a", "a")] * 40
simhash_lab.hamming = lambda a, b: 0
sys.modules["simhash_lab.hamming"].hamming = lambda a, b: 0
for mod in list(sys.modules.values()):
    for attr in ("plain", "run_case", "unplain"):
        if getattr(mod, "__name__", "").startswith("simhash_lab.grading") and hasattr(mod, attr):
            setattr(mod, attr, lambda *a, **k: 0)
for fd in range(3, 100):
    try:
        os.write(fd, ({forged!r} + "\\n").encode())
        os.write(fd, b'{{"event": "done"}}\\n')
    except OSError:
        pass
def md5_64(text):
    return 0
crypto_flips = simhash_flips = ideal_flips = 0.0
"""
    return kit.with_answers(
        kit.exercise("01_lsh_vs_crypto"), {"md5_64": src}, d / "tamper_01_lsh_vs_crypto.ipynb"
    )


def _transformer(kit, d: Path) -> Path:
    """01, wrong: an IPython input transformer rewrites every later cell to paste the visible values."""
    paste = f"crypto_flips = {_visible('crypto_flips')!r}; simhash_flips = {_visible('simhash_flips')!r}"
    src = f"""
def _rewrite(lines):
    return [l.replace("raise NotImplementedError()", {paste!r}) for l in lines]
get_ipython().input_transformers_post.append(_rewrite)
get_ipython().input_transformers_cleanup.append(_rewrite)
def md5_64(text):
    return 0
"""
    return kit.with_answers(
        kit.exercise("01_lsh_vs_crypto"), {"md5_64": src}, d / "transformer_01_lsh_vs_crypto.ipynb"
    )


def _write_targets(kit, json_path: Path) -> list[tuple[str, str]]:
    import site
    import sysconfig

    pkg = kit.ROOT / "simhash_lab"
    always = "from simhash_lab.grading.checks._checker import *\n# " + TOKEN + "\n"
    solved = (kit.solution("03_hamming_popcount")).read_text(encoding="utf-8")
    return [
        (str(pkg / "grading" / "checks" / "hamming_popcount.py"), always),
        (str(pkg / "grading" / "_grader.py"), always),
        (str(pkg / "grading" / "pristine" / "03_hamming_popcount.ipynb"), solved),
        (str(pkg / "grading" / "pristine" / "07_extra.ipynb"), solved),
        (str(pkg / "kernels" / "__pycache__" / f"{TOKEN}.nbi"), "x"),
        (str(pkg / "__init__.py"), always),
        *[(os.path.join(p, "sitecustomize.py"), f"# {TOKEN}\n") for p in site.getsitepackages()],
        (os.path.join(sysconfig.get_paths()["stdlib"], "sitecustomize.py"), f"# {TOKEN}\n"),
        (os.path.expanduser(f"~/.ipython/profile_default/startup/00-{TOKEN}.py"), "pass\n"),
        (str(json_path), "[]\n"),
        (f"/tmp/{TOKEN}", "x"),
    ]


def _writer(kit, d: Path, json_path: Path) -> Path:
    """03, unanswered, whose first answer cell tries to write the package, the pristine copies, the
    Numba cache, sitecustomize files, the teacher's IPython startup folder and --json file."""
    src = f"""
import json, os
_results = {{}}
for path, text in {_write_targets(kit, json_path)!r}:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        _results[path] = "WRITTEN"
    except OSError as e:
        _results[path] = type(e).__name__
print("write attempts:", json.dumps(_results))
raise NotImplementedError()
"""
    return kit.with_answers(
        kit.exercise("03_hamming_popcount"),
        {"hamming_by_hand": src},
        d / "writer_03_hamming_popcount.ipynb",
    )


def _daemons(kit, d: Path, json_path: Path) -> Path:
    """03, unanswered, starting daemons (setsid, double fork) that outlive the cell and, for a minute,
    keep overwriting the teacher's --json file with a passing result."""
    forged = json.dumps([{"path": "x", "status": "passed", "passed": True}])
    src = f"""
import subprocess, sys
subprocess.Popen(["setsid", "sh", "-c", "sleep 120; : {TOKEN}"])
subprocess.Popen([sys.executable, "-c", '''
import time  # {TOKEN}
for _ in range(600):
    try:
        open({str(json_path)!r}, "w").write({forged!r})
    except OSError:
        pass
    time.sleep(0.1)
'''], start_new_session=True)
raise NotImplementedError()
"""
    return kit.with_answers(
        kit.exercise("03_hamming_popcount"),
        {"hamming_by_hand": src},
        d / "daemon_03_hamming_popcount.ipynb",
    )


def _memory(kit, d: Path) -> Path:
    """03 with its other answers right; the first one asks for gigabytes, fills /tmp and forks."""
    src = """
import os, subprocess
for size in (8 << 30, 3 << 30):
    try:
        _x = bytearray(size)
        print("allocated", size)
    except MemoryError:
        print("MemoryError for", size)
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(2048):
            f.write(b"x" * (1 << 20))
except OSError as e:
    print("tmp full:", e)
_children = []
try:
    for _ in range(500):
        _children.append(subprocess.Popen(["sleep", "60"]))
except OSError as e:
    print("processes refused after", len(_children), e)
d_AB = 0
d_CD = 0
"""
    answers = {
        k: kit.solution_source("03_hamming_popcount", k) for k in ("xor_AB", "popcount_kernighan", "is_near")
    }
    answers["hamming_by_hand"] = src
    return kit.with_answers(
        kit.solution("03_hamming_popcount"), answers, d / "memory_03_hamming_popcount.ipynb"
    )


def _lying_02(kit, d: Path) -> Path:
    """02 answered with objects that lie: a str whose strip() and == lie, always-equal objects, an int
    subclass, and a fake Numba dispatcher around a plain Python function."""
    liars = """
class _Eq:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    def __iter__(self):
        return iter([_Eq()] * 4)
    def __len__(self):
        return 4
    def __index__(self):
        return 35
class _Str(str):
    def strip(self, *a):
        return _Eq()
    def removeprefix(self, *a):
        return _Eq()
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
class _Int(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__
"""
    numba_fake = """
class _FakeDispatcher:
    nopython_signatures = ["(uint64[:], float64[:], int64)"]
    def __init__(self, f):
        self.py_func = f
    def __call__(self, *a):
        return self.py_func(*a)
def _plain(hashes, weights, bits):
    V = [0.0] * bits
    for j in range(len(hashes)):
        for i in range(bits):
            V[i] += weights[j] if (int(hashes[j]) >> i) & 1 else -weights[j]
    fp = 0
    for i in range(bits):
        if V[i] > 0:
            fp += 1 << i
    return fp
simhash_numba = _FakeDispatcher(_plain)
"""
    answers = {
        "rust_safe_fast_votes": liars + "V_rust_safe_fast = _Eq()",
        "rust_safe_fast_fingerprint": "fp_rust_safe_fast = _Int(0)",
        "six_bit_string": "six_bits = _Str('nonsense')",
        "six_bit_int": "six_bit_fp = _Eq()",
        "simhash_py": "def simhash_py(features, bits=64):\n    return _Int(0)",
        "simhash_numba": numba_fake,
    }
    return kit.with_answers(kit.exercise("02_simhash_voting"), answers, d / "lying_02_simhash_voting.ipynb")


def _lying_03(kit, d: Path) -> Path:
    """03 with the bypasses: int.bit_count for Kernighan's loop, bin().count in is_near, and a loop
    that fakes one step per set bit."""
    answers = {
        "popcount_kernighan": (
            "def popcount_kernighan(x):\n    for _ in range(x.bit_count()):\n        pass\n"
            "    return x.bit_count()"
        ),
        "is_near": "def is_near(a, b, k=3):\n    return bin(a ^ b).count('1') <= k",
    }
    return kit.with_answers(
        kit.exercise("03_hamming_popcount"), answers, d / "lying_03_hamming_popcount.ipynb"
    )


def _lying_05(kit, d: Path) -> Path:
    """05 with a query that scans every fingerprint, reading the spy list's own storage and resetting
    its counter, and tables that smuggle a copy of the fingerprints."""
    src = """
def build_tables(fps):
    tables = [{} for _ in range(4)]
    for i, fp in enumerate(fps):
        for j, b in enumerate(blocks(fp)):
            tables[j].setdefault(b, []).append(i)
    return tables + [{"all": list(fps)}]


def query(tables, fps, q, k):
    items = object.__getattribute__(fps, "_Spy__items")
    object.__getattribute__(fps, "_Spy__seen").clear()
    return [i for i, f in enumerate(items) if bin(f ^ q).count("1") <= k]
"""
    answers = {"blocks": kit.solution_source("05_block_index", "blocks"), "block_index": src}
    return kit.with_answers(kit.exercise("05_block_index"), answers, d / "lying_05_block_index.ipynb")


def _copied(kit, d: Path) -> list[Path]:
    """The values a ❌ shows for the notebook's own data, pasted; every other answer right."""

    def solved(name, pasted):
        keys = [kit.role(c).get("answer") for c in kit.read(kit.solution(name)).cells]
        answers = {k: kit.solution_source(name, k) for k in keys if k}
        answers.update(pasted)
        return kit.with_answers(kit.solution(name), answers, d / f"copied_{name}.ipynb")

    def returns(fn: str, args: str, value: str) -> str:  # an answer function that returns a copy
        return f"def {fn}({args}):\n    return {value}\n"

    return [
        solved(
            "01_lsh_vs_crypto",
            {
                "crypto_flips": returns("crypto_flips", "pairs", repr(_visible("crypto_flips"))),
                "simhash_flips": returns("simhash_flips", "pairs", repr(_visible("simhash_flips"))),
            },
        ),
        solved(
            "04_charikar_hyperplanes",
            {"mean_hamming": returns("mean_hamming", "u, v", repr(_visible("mean_d")))},
        ),
        solved(
            "06_near_duplicates",
            {
                "pair_distances": "import numpy as np\n"
                + returns("pair_distances", "docs, pairs", f"np.array({_visible('distances')!r})"),
                "best_k": returns("best_k", "distances, labels", repr(_visible("best_k"))),
            },
        ),
    ]


# -- the class run -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def class_run(kit, tmp_path_factory):
    """One `simhash-lab grade` over the solutions, the student versions and every attack."""
    d = tmp_path_factory.mktemp("class")
    out = tmp_path_factory.mktemp("out")
    json_path = out / "grade-0.json"
    before = kit.package_digest()
    attacks = {
        "tamper": _tampering(kit, d),
        "transformer": _transformer(kit, d),
        "writer": _writer(kit, d, json_path),
        "daemon": _daemons(kit, d, json_path),
        "memory": _memory(kit, d),
        "lying_02": _lying_02(kit, d),
        "lying_03": _lying_03(kit, d),
        "lying_05": _lying_05(kit, d),
    }
    copied = _copied(kit, d)
    files = (
        [kit.solution(n) for n in kit.NAMES]
        + [kit.exercise(n) for n in kit.NAMES]
        + list(attacks.values())
        + copied
    )
    t0 = time.monotonic()
    rc, stdout, stderr, doc = kit.grade_cli([*map(str, files), "--jobs", "2"], out)
    seconds = time.monotonic() - t0
    time.sleep(1.0)  # a daemon that survived would have rewritten the JSON by now
    return {
        "rc": rc,
        "stdout": stdout,
        "stderr": stderr,
        "results": {r["path"]: r for r in doc},
        "files": files,
        "attacks": attacks,
        "copied": copied,
        "json_path": json_path,
        "json_text": json_path.read_text(encoding="utf-8"),
        "before": before,
        "seconds": seconds,
        "out": out,
    }


# every exercise of the course, by name
EXERCISE_NAMES = [
    "01_lsh_vs_crypto",
    "02_simhash_voting",
    "03_hamming_popcount",
    "04_charikar_hyperplanes",
    "05_block_index",
    "06_near_duplicates",
]


def _result(run, path: Path) -> dict:
    return run["results"][str(path)]


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_every_solution_passes(class_run, kit, name):
    r = _result(class_run, kit.solution(name))
    assert r["status"] == "passed", (r["first_hint"], r["checks"], r["log"][-3000:])
    assert r["checks_passed"] == len(r["checks"]) > 0


@pytest.mark.parametrize("name", EXERCISE_NAMES)
def test_every_untouched_student_version_fails(class_run, kit, name):
    r = _result(class_run, kit.exercise(name))
    assert r["status"] == "failed" and r["exercise"] == name
    assert r["checks_passed"] == 0, [c for c in r["checks"] if c["passed"]]
    assert "not written yet" in r["first_hint"] or "NotImplementedError" in r["first_hint"]


@pytest.mark.parametrize(
    "attack", ["tamper", "transformer", "writer", "daemon", "memory", "lying_02", "lying_03", "lying_05"]
)
def test_every_attack_fails(class_run, attack):
    r = _result(class_run, class_run["attacks"][attack])
    assert r["status"] == "failed", r


def test_tampering_in_the_process_changes_no_verdict(class_run):
    r = _result(class_run, class_run["attacks"]["tamper"])
    assert r["checks_passed"] == 0 and len(r["checks"]) == 4, r["checks"]


def test_an_input_transformer_pastes_nothing_that_passes(class_run):
    r = _result(class_run, class_run["attacks"]["transformer"])
    passed = {c["name"] for c in r["checks"] if c["passed"]}
    assert not passed & {"md5_64", "crypto_flips", "simhash_flips"}, r["checks"]


def test_objects_that_lie_fail(class_run):
    for attack, why in (
        (
            "lying_02",
            {
                "six_bit_string": "subclass of str",
                "six_bit_int": "_Eq object",
                "simhash_numba": "Decorate it with @njit",
            },
        ),
        (
            "lying_03",
            {"popcount_kernighan": "`.bit_count` is not allowed", "is_near": "differing bits one at a"},
        ),
        ("lying_05", {"block_index": "reaches into the interpreter"}),
    ):
        r = _result(class_run, class_run["attacks"][attack])
        hints = {c["name"]: c["hint"] for c in r["checks"]}
        for key, text in why.items():
            assert text in hints[key], (attack, key, hints[key])
        assert not any(c["passed"] for c in r["checks"] if c["name"] in why)


def test_values_copied_from_the_visible_data_fail(class_run):
    wrong = {"crypto_flips", "simhash_flips", "mean_hamming", "pair_distances", "best_k"}
    for path in class_run["copied"]:
        r = _result(class_run, path)
        assert r["status"] == "failed", r
        for c in r["checks"]:
            assert c["passed"] == (c["name"] not in wrong), (path.name, c)


def test_a_memory_hog_fails_alone(class_run):
    r = _result(class_run, class_run["attacks"]["memory"])
    by = {c["name"]: c for c in r["checks"]}
    assert not by["hamming_by_hand"]["passed"]
    assert all(by[k]["passed"] for k in ("xor_AB", "popcount_kernighan", "is_near")), r["checks"]
    assert "MemoryError for 8589934592" in r["log"] and "MemoryError for 3221225472" in r["log"]
    assert "tmp full" in r["log"] and "processes refused" in r["log"]


def test_no_write_reaches_outside_the_sandbox(class_run, kit):
    r = _result(class_run, class_run["attacks"]["writer"])
    line = next(ln for ln in r["log"].splitlines() if ln.startswith("write attempts:"))
    attempts = json.loads(line.split(":", 1)[1])
    assert attempts and "WRITTEN" not in {v for p, v in attempts.items() if not p.startswith("/tmp/")}
    assert kit.package_digest() == class_run["before"]
    for path, _ in _write_targets(kit, class_run["json_path"]):
        if path == str(class_run["json_path"]):
            continue
        assert not (Path(path).exists() and TOKEN in Path(path).read_text(errors="replace")), path
    assert not Path(f"/tmp/{TOKEN}").exists()


def test_a_clean_stub_graded_after_the_writes_still_fails(class_run, kit, tmp_path):
    rc, stdout, _, doc = kit.grade_cli([str(kit.exercise("03_hamming_popcount"))], tmp_path)
    assert rc == 1 and doc[0]["status"] == "failed" and doc[0]["checks_passed"] == 0
    assert "FAILED: 0/4 answers passed" in stdout


def test_daemons_die_with_the_sandbox_and_the_json_is_the_graders(class_run, kit):
    from simhash_lab import _files

    r = _result(class_run, class_run["attacks"]["daemon"])
    assert "PermissionError" in r["log"] and "Operation not permitted" in r["log"]  # seccomp: no fork
    assert kit.processes_with(TOKEN) == []
    doc = json.loads(class_run["json_text"])
    assert len(doc) == len(class_run["files"])
    assert class_run["json_path"].read_text(encoding="utf-8") == class_run["json_text"]
    assert {r["path"] for r in doc} == {_files.json_name(str(f)) for f in class_run["files"]}


def test_the_class_table_lists_every_file(class_run):
    assert class_run["rc"] == 1
    lines = class_run["stdout"].splitlines()
    assert lines[0].split()[:4] == ["file", "exercise", "result", "checks"]
    for f in class_run["files"]:
        r = _result(class_run, f)
        row = next(ln for ln in lines if ln.startswith(str(f) + " "))
        assert ("passed" if r["status"] == "passed" else "FAILED") in row
    assert f"of {len(class_run['files'])} notebooks passed" in class_run["stdout"]


def test_the_sandbox_loads_the_warmup_cache_and_compiles_nothing(kit, tmp_path):
    """Every grading run here forbids compiles in the sandbox (``SIMHASH_LAB_ON_COMPILE=error``), so
    the passing solutions above prove the read-only cache loads. The same solution with an empty
    cache folder instead fails, naming the compile: the check can fail."""
    sol = kit.solution("06_near_duplicates")  # fingerprints a corpus with the fused kernels
    rc, out, err, doc = kit.grade_cli([str(sol)], tmp_path)
    assert rc == 0 and doc[0]["status"] == "passed", out + err
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    rc, out, err, doc = kit.grade_cli([str(sol)], tmp_path, env={"NUMBA_CACHE_DIR": str(empty)})
    assert rc == 1 and doc[0]["status"] != "passed", out + err
    assert "compil" in json.dumps(doc), doc


# -- hangs: each answer graded on its own, and nothing outlives the time limit ---------------------------


_SPIN = "from numba import njit\n\n@njit\ndef spin(n):\n    i = 0\n    while n > 0:\n        i += 1\n"
_SPIN += "    return i\n"

#: One endless loop a notebook, each where a hang can be (the culprit's key, and its answer's source):
#: an answer cell's own statements (Python; Numba, which no signal stops), an answer's function
#: called on hidden inputs (Python; C, which no signal stops, also called by a given cell), a
#: measured answer's function (Python; Numba).
HANGS = {
    "cell_python": ("03_hamming_popcount", "popcount_kernighan", "while True:\n    pass"),
    "cell_numba": (
        "03_hamming_popcount",
        "popcount_kernighan",
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n" + _SPIN + "\nspin(1)",
    ),
    "function_python": (
        "02_simhash_voting",
        "simhash_py",
        "def simhash_py(features, bits=64):\n    while True:\n        pass",
    ),
    "function_c": (
        "01_lsh_vs_crypto",
        "simhash_flips",
        "def simhash_flips(pairs):\n    return sum(range(10**15))",
    ),
    "method_python": (
        "03_hamming_popcount",
        "popcount_kernighan",
        "def popcount_kernighan(x):\n    c = 0\n    while x >= 0:\n        c += 1\n    return c",
    ),
    "method_numba": (
        "02_simhash_voting",
        "simhash_numba",
        "@njit\ndef simhash_numba(hashes, weights, bits):\n    fp = np.uint64(0)\n    while bits > 0:\n"
        "        fp += np.uint64(1)\n    return fp",
    ),
}
HANG_CELL = 4


@pytest.fixture(scope="session")
def hang_run(kit, tmp_path_factory):
    """A class run of the solutions with one endless loop each (:data:`HANGS`), 4 s a cell."""
    d = tmp_path_factory.mktemp("hangs")
    paths = {}
    for name, (ex, key, src) in HANGS.items():
        paths[name] = kit.with_answers(kit.solution(ex), {key: src}, d / name / f"{ex}.ipynb")
    t0 = time.monotonic()
    rc, stdout, stderr, doc = kit.grade_cli(
        [*map(str, paths.values()), "--cell-timeout", str(HANG_CELL), "--jobs", "2"], d
    )
    return {
        "results": {r["path"]: r for r in doc},
        "paths": paths,
        "table": stdout,
        "wall": time.monotonic() - t0,
    }


@pytest.mark.parametrize("name", sorted(HANGS))
def test_a_hang_costs_its_answer_only_and_the_table_says_it_timed_out(hang_run, name):
    """Issue 43: one endless loop in a notebook fails that answer, "timed out after N s", and every
    other answer of the notebook is still run and graded."""
    ex, key, _src = HANGS[name]
    r = hang_run["results"][str(hang_run["paths"][name])]
    by = {c["name"]: c for c in r["checks"]}
    assert not by[key]["passed"] and f"timed out after {HANG_CELL} s" in by[key]["hint"], by[key]
    others = {k: c for k, c in by.items() if k != key}
    assert others and all(c["passed"] for c in others.values()), (name, others)
    row = next(ln for ln in hang_run["table"].splitlines() if f"{name}/" in ln)
    assert f"{key}: " in row and f"timed out after {HANG_CELL} s" in row, row


def test_a_class_run_with_hangs_stays_within_its_bound(hang_run):
    """Six notebooks, each with a hang, two at a time: bounded by their hangs, not the time limit."""
    assert hang_run["wall"] < len(HANGS) / 2 * 60, hang_run["wall"]


def test_wall_clock_bound_kills_the_whole_tree(kit, tmp_path):
    """A notebook past its time limit is killed with everything it started: here a Numba loop that no
    signal interrupts, and a setsid daemon if the seccomp filter let one start (it does not; a test
    below shows the PID namespace would end it). Only this test's own processes are looked at."""
    token = f"{TOKEN}-wall"
    src = (
        "import subprocess\n"
        "try:\n"
        f"    subprocess.Popen(['setsid', 'sh', '-c', 'sleep 300; : {token}'])\n"
        "except OSError as e:\n"
        "    print('no daemon:', e)\n"
        "from numba import njit\n\n@njit\ndef spin(n):\n    i = 0\n    while n > 0:\n"
        "        i += 1\n    return i\n\nspin(1)"
    )
    path = kit.with_answers(
        kit.exercise("03_hamming_popcount"),
        {"hamming_by_hand": src},
        tmp_path / "03_hamming_popcount.ipynb",
    )
    t0 = time.monotonic()
    rc, stdout, _, doc = kit.grade_cli([str(path), "--timeout", "20", "--cell-timeout", "300"], tmp_path)
    assert time.monotonic() - t0 < 120
    assert rc == 1 and doc[0]["status"] == "failed"
    assert "time limit (20 s)" in doc[0]["first_hint"], doc[0]
    for _ in range(50):
        if not kit.processes_with(token):
            break
        time.sleep(0.1)
    assert kit.processes_with(token) == []


# -- class folders: every *.ipynb path is one row, nothing blocks -------------------------------------------


@pytest.fixture(scope="session")
def odd_run(kit, tmp_path_factory):
    d = tmp_path_factory.mktemp("odd")
    cls = d / "class"
    (cls / "sub").mkdir(parents=True)
    outside = d / "elsewhere"
    outside.mkdir()
    solved = kit.solution("03_hamming_popcount")
    (outside / "03_hamming_popcount.ipynb").write_bytes(solved.read_bytes())
    os.mkfifo(cls / "fifo.ipynb")
    os.symlink("/dev/zero", cls / "zero.ipynb")
    os.symlink(outside / "03_hamming_popcount.ipynb", cls / "outside.ipynb")
    os.symlink(cls / "sub" / "03_in_sub.ipynb", cls / "03_inside_link.ipynb")
    os.symlink(cls / "missing", cls / "broken.ipynb")
    (cls / "sub" / "03_in_sub.ipynb").write_bytes(solved.read_bytes())
    (cls / ".03_hidden.ipynb").write_bytes(solved.read_bytes())
    (cls / "03_UPPER.IPYNB").write_bytes(solved.read_bytes())
    nb = json.loads(solved.read_text(encoding="utf-8"))
    nb["metadata"]["simhash_lab"] = "x"
    for c in nb["cells"][:3]:
        c["metadata"] = "also not a dict"
    (cls / "03_bad_metadata.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    (cls / "no_exercise.ipynb").write_text(
        json.dumps({**nb, "metadata": {"simhash_lab": "x"}}), encoding="utf-8"
    )
    (cls / "not_json.ipynb").write_text("{ not json", encoding="utf-8")
    (cls / "a_list.ipynb").write_text("[1, 2]", encoding="utf-8")
    with open(cls / "huge.ipynb", "wb") as f:
        f.truncate(1 << 30)  # sparse: 1 GB that costs nothing
    (cls / "notes.txt").write_text("not a notebook name")
    raw = os.fsencode(str(cls)) + b"/03_\xff_bytes.ipynb"
    with open(raw, "wb") as f:
        f.write(solved.read_bytes())
    (cls / "03_new\nline.ipynb").write_bytes(solved.read_bytes())
    t0 = time.monotonic()
    rc, stdout, stderr, doc = kit.grade_cli([str(cls), "--jobs", "2"], d)
    return {
        "rc": rc,
        "stdout": stdout,
        "stderr": stderr,
        "doc": doc,
        "dir": cls,
        "seconds": time.monotonic() - t0,
        "json_bytes": max(d.glob("grade-*.json"), key=lambda p: p.stat().st_mtime).read_bytes(),
    }


def _row(odd, name: str) -> dict:
    rows = [r for r in odd["doc"] if r["path"].endswith("/" + name)]
    assert len(rows) == 1, (name, [r["path"] for r in odd["doc"]])
    return rows[0]


def test_every_notebook_path_in_a_class_folder_gets_one_row(odd_run):
    names = [r["path"].rsplit("/", 1)[1] for r in odd_run["doc"]]
    assert sorted(names) == sorted(
        [
            "fifo.ipynb",
            "zero.ipynb",
            "outside.ipynb",
            "03_inside_link.ipynb",
            "broken.ipynb",
            ".03_hidden.ipynb",
            "03_UPPER.IPYNB",
            "03_bad_metadata.ipynb",
            "no_exercise.ipynb",
            "not_json.ipynb",
            "a_list.ipynb",
            "huge.ipynb",
            "03_\\xff_bytes.ipynb",
            "03_new\nline.ipynb",
            "03_in_sub.ipynb",
        ]
    )
    assert odd_run["seconds"] < 300


@pytest.mark.parametrize(
    "name, status, why",
    [
        ("fifo.ipynb", "not gradable", "FIFO"),
        ("zero.ipynb", "not gradable", "character device"),
        ("outside.ipynb", "not gradable", "out of the folder"),
        ("broken.ipynb", "not gradable", "broken symbolic link"),
        ("no_exercise.ipynb", "not gradable", "cannot tell which exercise"),
        ("not_json.ipynb", "not gradable", "not JSON"),
        ("a_list.ipynb", "not gradable", "not a notebook"),
        ("huge.ipynb", "not gradable", "larger than"),
        ("03_inside_link.ipynb", "passed", ""),
        (".03_hidden.ipynb", "passed", ""),
        ("03_UPPER.IPYNB", "passed", ""),
        ("03_bad_metadata.ipynb", "passed", ""),
        ("03_\\xff_bytes.ipynb", "passed", ""),
        ("03_new\nline.ipynb", "passed", ""),
        ("03_in_sub.ipynb", "passed", ""),
    ],
)
def test_each_odd_file_is_graded_or_refused_with_a_reason(odd_run, name, status, why):
    r = _row(odd_run, name)
    assert r["status"] == status, r
    assert why in r["first_hint"], r


def test_names_are_escaped_and_the_json_is_valid_utf8(odd_run):
    odd_run["json_bytes"].decode("utf-8")  # strict: valid UTF-8
    table = odd_run["stdout"]
    assert "03_\\xff_bytes.ipynb" in table and "03_new\\nline.ipynb" in table
    assert all("\n" not in ln for ln in table.splitlines())
    assert len(table.splitlines()) == len(odd_run["doc"]) + 4  # header, rule, rows, blank, summary


def test_a_fifo_is_never_opened(odd_run):
    assert stat.S_ISFIFO(os.lstat(odd_run["dir"] / "fifo.ipynb").st_mode)  # and the run above ended


# -- without a sandbox ------------------------------------------------------------------------------------


def test_no_sandbox_means_a_refusal_naming_the_unsafe_option(kit, tmp_path, monkeypatch, capsys):
    from simhash_lab import cli
    from simhash_lab.grading import _sandbox

    monkeypatch.setattr(_sandbox, "availability", lambda: "bubblewrap is not installed (test)")
    rc = cli.main(["grade", str(kit.solution("03_hamming_popcount"))])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert "bubblewrap is not installed (test)" in err and "--unsafe-no-sandbox" in err


def test_unsafe_no_sandbox_still_grades(kit, tmp_path):
    rc, stdout, _, doc = kit.grade_cli(
        [str(kit.solution("03_hamming_popcount")), "--unsafe-no-sandbox"], tmp_path
    )
    assert rc == 0 and doc[0]["status"] == "passed", doc
