"""The checkers in the learner's kernel, the plain-data format and the allow-lists: no sandbox, fast.

Every check here runs the same code the grader runs on exported data; the sandboxed runs are in
``test_grading.py``.
"""

from __future__ import annotations

import collections
import hashlib
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from simhash_lab.grading import _code_checks, _protocol, checks, data
from simhash_lab.grading.checks import CHECKS, EXERCISES
from simhash_lab.grading.checks._checker import Functions, Values

SOLUTIONS = Path(__file__).resolve().parents[2] / "exercises" / "solutions"

# -- check cells: one line, never a raise ------------------------------------------------------------


def test_a_pass_prints_exactly_the_pass_line(capsys):
    assert checks.rust_safe_fast_votes([3, 1, 1, -3]) is None
    assert capsys.readouterr().out == checks.pass_line("rust_safe_fast_votes")


def test_a_wrong_answer_prints_a_verdict_and_does_not_raise(capsys):
    checks.rust_safe_fast_votes([-3, 1, 1, 3])  # Run All goes on past a ❌
    out = capsys.readouterr().out
    assert out.startswith("❌ rust_safe_fast_votes: not yet") and "hint:" in out and "backwards" in out


_BY_HAND = {  # answers worked out by hand, and what they are: a ❌ must never show them
    "rust_safe_fast_votes": ([[0, 0, 0, 0]], ["3, 1, 1, -3", "[3, 1, 1, -3]"]),
    "rust_safe_fast_fingerprint": ([0b1110], ["0b0111", "= 7"]),
    "six_bit_string": (["100011"], ["110001"]),
    "six_bit_int": ([0b110001], ["35", "100011"]),
    "hamming_by_hand": ([0, 0], ["3", "2"]),
    "xor_AB": ([0b101111], ["0b001101", "13"]),
    "pigeonhole": ([0, False], ["True", " 1"]),
    "ideal_flips": ([0.5], ["32"]),
}


@pytest.mark.parametrize("name", sorted(_BY_HAND))
def test_hints_of_answers_by_hand_do_not_give_them_away(name, capsys):
    values, answer = _BY_HAND[name]
    CHECKS[name](*values)
    out = capsys.readouterr().out
    assert out.startswith("❌") and "expected:" not in out
    shown = out.split("got:", 1)[-1].split("hint:", 1)[1] if "got:" in out else out.split("hint:", 1)[1]
    for text in answer:
        assert text not in shown, (name, text, out)


def test_the_six_bit_hint_explains_the_bit_order_without_the_answer(capsys):
    checks.six_bit_int(0b110001)
    out = capsys.readouterr().out
    assert "V[i] is bit i" in out and "writes bit 0 last" in out
    assert "100011" not in out and "35" not in out and "backwards" not in out
    checks.six_bit_int(0b100011)
    assert "35 = 0b100011" in capsys.readouterr().out  # the ✅ says it all, once it is earned


def _solutions() -> dict[str, dict]:
    """Every answer's solution, from the solved notebooks' answer cells, run here."""
    import nbformat

    out = {}
    for name in EXERCISES:
        nb = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
        ns: dict = {}
        for c in nb.cells:
            role = c.metadata.get("simhash_lab", {}).get("role")
            if c.cell_type == "code" and role in ("setup", "given", "answer"):
                exec(c.source, ns)
        out[name] = ns
    return out


@pytest.fixture(scope="module")
def solved():
    return _solutions()


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_every_solution_passes_its_checks_in_the_kernel(solved, name, capsys):
    ns = solved[name]
    for a in EXERCISES[name].answers:
        v = a.feedback(*(ns[n] for n in a.names))
        assert v.passed, (a.key, v)


def _lying_str():
    class Liar(str):
        def strip(self, *a):
            return _Equal()

        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    return Liar("nonsense")


class _Equal:
    def __eq__(self, other):
        return True

    def __iter__(self):
        return iter([_Equal()] * 4)

    def __len__(self):
        return 4


class _Int(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize(
    "name, values",
    [
        ("six_bit_string", [_lying_str()]),
        ("rust_safe_fast_votes", [_Equal()]),
        ("rust_safe_fast_votes", [collections.UserList([3, 1, 1, -3])]),
        ("rust_safe_fast_fingerprint", [_Int(0)]),
        ("six_bit_int", [_Equal()]),
        ("six_bit_int", [True]),
        ("best_k", [4.0]),
        ("xor_AB", [np.array([13])]),
        ("md5_64", [lambda t: _Equal()]),
        ("md5_64", [lambda t: _Int(0)]),
    ],
)
def test_lying_objects_are_refused_by_their_type(name, values, capsys):
    v = CHECKS[name].feedback(*values)
    assert not v.passed, v


def test_a_fake_numba_object_is_not_numba(solved):
    real = solved["02_simhash_voting"]["simhash_numba"]

    class Fake:
        py_func = real.py_func
        nopython_signatures = ["x"]

        def __call__(self, *a):
            return real(*a)

    v = checks.simhash_numba.feedback(Fake())
    assert not v.passed and "njit" in v.hint


# -- method checks: honest implementations pass, bypasses fail ----------------------------------------


def _src(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).lstrip("\n")


_KERNIGHAN = """
    def popcount_kernighan(x):
        c = 0
        while x:
            x &= x - 1
            c += 1
        return c
"""
_HONEST = {
    "popcount_kernighan": [
        _src(_KERNIGHAN),
        _src("""
            def popcount_kernighan(x):
                if x == 0:
                    return 0
                return 1 + popcount_kernighan(x & (x - 1))
        """),
        _src("""
            def popcount_kernighan(x: int) -> int:
                n = 0
                while x != 0:
                    x = x & (x - 1)
                    n = n + 1
                return n
        """),
    ],
    "is_near": [
        _src("""
            def is_near(a, b, k=3):
                x = a ^ b
                c = 0
                while x and c <= k:
                    x &= x - 1
                    c += 1
                return c <= k
        """),
        _src("""
            def is_near(a, b, k=3):
                x, c = a ^ b, 0
                while x:
                    x &= x - 1
                    c += 1
                    if c > k:
                        return False
                return True
        """),
    ],
}
_BYPASS = {
    "popcount_kernighan": [
        ("def popcount_kernighan(x):\n    return bin(x).count('1')\n", "`bin` is not allowed"),
        ("def popcount_kernighan(x):\n    return x.bit_count()\n", "`.bit_count` is not allowed"),
        (
            _src("""
                def popcount_kernighan(x):
                    for _ in range(x.bit_count()):
                        pass
                    return x.bit_count()
            """),
            "`.bit_count` is not allowed",
        ),
        ("def popcount_kernighan(x):\n    return f'{x:b}'.count('1')\n", "f-string"),
        (
            _src("""
                def popcount_kernighan(x):
                    c = 0
                    while x:
                        c += x & 1
                        x >>= 1
                    return c
            """),
            "junior",
        ),
        (
            _src("""
                def popcount_kernighan(x):
                    c = 0
                    for i in range(64):
                        if (x >> i) & 1:
                            c += 1
                    return c
            """),
            "junior",
        ),
        (
            _src("""
                def popcount_kernighan(x):
                    x = x - ((x >> 1) & 0x5555555555555555)
                    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
                    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
                    return ((x * 0x0101010101010101) & (2**64 - 1)) >> 56
            """),
            "one loop step per set bit",
        ),
    ],
    "is_near": [
        ("def is_near(a, b, k=3):\n    return bin(a ^ b).count('1') <= k\n", "`bin` is not allowed"),
        ("def is_near(a, b, k=3):\n    return (a ^ b).bit_count() <= k\n", "`.bit_count` is not allowed"),
        (
            _src("""
                def is_near(a, b, k=3):
                    x, c = a ^ b, 0
                    while x:
                        x &= x - 1
                        c += 1
                    return c <= k
            """),
            "as soon as the count exceeds k",
        ),
        (
            _src("""
                def is_near(a, b, k=3):
                    c = 0
                    for i in range(64):
                        if ((a ^ b) >> i) & 1:
                            c += 1
                            if c > k:
                                return False
                    return True
            """),
            "stop as soon as the count exceeds k",
        ),
    ],
}


def _compiled(src: str, name: str, tmp_path):
    path = tmp_path / f"{name}_{hashlib.md5(src.encode()).hexdigest()[:8]}.py"
    path.write_text(src)
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    return ns[name], src


def _method_verdict(name: str, src: str, tmp_path):
    """What the grader decides on a method answer from its source: the allow-list, then the cases
    and the measured cases run on the extracted code (here in this process, as the sandbox would)."""
    answer = CHECKS[name]
    ex = _code_checks.extract(src)
    problems = _code_checks.problems(ex.text, answer.method.allow)
    fn, _ = _compiled(ex.text, name, tmp_path)
    files = {fn.__code__.co_filename}
    rng = random.Random(5)
    cases, mcases = answer.cases(rng), answer.method.cases(rng)
    res = [json.loads(json.dumps(_protocol.run_case({name: fn}, c, files=files))) for c in cases]
    mres = [json.loads(json.dumps(_protocol.run_case({name: fn}, c, files=files))) for c in mcases]
    return answer.verdict(cases, res, problems, mcases, mres)


@pytest.mark.parametrize("name, src", [(n, s) for n, ss in _HONEST.items() for s in ss])
def test_honest_methods_pass(name, src, tmp_path):
    v = _method_verdict(name, src, tmp_path)
    assert v.passed, v


@pytest.mark.parametrize("name, src, why", [(n, s, w) for n, ss in _BYPASS.items() for s, w in ss])
def test_bypasses_fail_the_method_check(name, src, why, tmp_path):
    v = _method_verdict(name, src, tmp_path)
    assert not v.passed and why in v.hint, v


def test_a_query_that_scans_every_fingerprint_fails(capsys):
    from simhash_lab import hamming

    def build(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j in range(4):
                tables[j].setdefault((fp >> (16 * j)) & 0xFFFF, []).append(i)
        return tables

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(fps) if hamming(f, q) <= k]

    v = checks.block_index.feedback(build, query)
    assert not v.passed and "read fps[id] only" in v.hint


def test_tables_that_smuggle_the_fingerprints_fail():
    def build(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j in range(4):
                tables[j].setdefault((fp >> (16 * j)) & 0xFFFF, []).append(i)
        return [*tables, {"all": list(fps)}]

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(tables[4]["all"]) if bin(f ^ q).count("1") <= k]

    v = checks.block_index.feedback(build, query)
    assert not v.passed and "4 tables" in v.hint


def test_a_spy_cannot_be_read_or_reset_by_an_allowed_answer():
    src = "def query(tables, fps, q, k):\n    fps._Spy__seen.clear()\n    return []\n"
    assert any("`._Spy__seen`" in p for p in _code_checks.problems(src, CHECKS["block_index"].method.allow))


# -- the allow-list itself -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src",
    [
        "def f(x):\n    import os\n    return 0\n",
        "def f(x):\n    return x.__class__\n",
        "def f(x):\n    return getattr(x, 'y')\n",
        "def f(x):\n    try:\n        return 1\n    except Exception:\n        return 0\n",
        "def f(x):\n    with x:\n        return 1\n",
        "def f(x):\n    global y\n    return 1\n",
        "def f(x):\n    return eval('1')\n",
        "def f(x):\n    return [1 for _ in ()].__iter__\n",
        "def f(x):\n    yield 1\n",
        "def f(x, y=print('at definition')):\n    return 0\n",
        "@print\ndef f(x):\n    return 0\n",
        "class A:\n    pass\n",
        "import os\ndef f(x):\n    return 0\n",
        "X = open('/etc/passwd')\ndef f(x):\n    return 0\n",
        "def f(x):\n    return (lambda: 0).__code__\n",
        "def f(x):\n    e = None\n    return e.__traceback__.tb_frame\n",
        "def f(x):\n    return '{0.__class__}'.format(x)\n",
    ],
)
def test_the_allow_list_refuses(src):
    assert _code_checks.problems(src, CHECKS["popcount_kernighan"].method.allow)


def test_extract_keeps_definitions_and_constants_only():
    ex = _code_checks.extract(
        "MASK = (1 << 64) - 1\nprint('hi')\nimport numpy as np\ndef f(x):\n    return x & MASK\nf(3)\n"
    )
    assert "print" not in ex.text and "f(3)" not in ex.text.splitlines()
    assert ex.functions == {"f"} and {"MASK", "np", "f"} <= ex.defines and ex.dropped == (2, 6)


def test_extract_reads_ipython_syntax():
    ex = _code_checks.extract("%timeit 1 + 1\ndef f(x):\n    return x\n")
    assert ex.functions == {"f"}


# -- plain data --------------------------------------------------------------------------------------------


def test_plain_keeps_plain_data_and_numpy():
    x = {"a": [1, 2.5, "s", None, True], "b": np.arange(3), "c": np.float64(1.5), "d": (1, 2)}
    assert _protocol.plain(x) == {"a": [1, 2.5, "s", None, True], "b": [0, 1, 2], "c": 1.5, "d": [1, 2]}
    assert _protocol.unplain(_protocol.plain({1: [2]})) == {1: [2]}
    assert _protocol.unplain(_protocol.plain(collections.defaultdict(list, {3: [4]}))) == {3: [4]}
    assert _protocol.unplain(_protocol.plain({1, 2})) == {1, 2}


@pytest.mark.parametrize(
    "x, what",
    [
        (_lying_str(), "subclass of str"),
        (_Int(3), "subclass of int"),
        (_Equal(), "_Equal object"),
        (np.array(["a"]), "dtype"),
        (2**5000, "4096 bits"),
        (collections.UserList([1]), "UserList"),
        (type("M", (np.ndarray,), {})((2,)), "subclass"),
    ],
)
def test_plain_refuses_everything_else(x, what):
    with pytest.raises(_protocol.NotPlain, match=re.escape(what) if "subclass" not in what else what):
        _protocol.plain(x)


def test_a_hostile_type_name_does_not_crash_the_refusal():
    class Meta(type):
        def __getattribute__(cls, name):
            raise RuntimeError("no")

    Hostile = Meta("Hostile", (), {})
    with pytest.raises(_protocol.NotPlain):
        _protocol.plain(Hostile())


# -- data and variants -----------------------------------------------------------------------------------


def test_the_notebooks_data_is_deterministic_and_fresh():
    a, b = data.near_dup_corpus(), data.near_dup_corpus()
    assert a[0] == b[0] and np.array_equal(a[1], b[1]) and np.array_equal(a[2], b[2])
    a[0][0] = "changed"
    assert data.near_dup_corpus()[0][0] != "changed"
    u, v = data.hyperplane_pair()
    assert np.isclose(np.degrees(np.arccos(u @ v / np.linalg.norm(u) / np.linalg.norm(v))), 30.0)
    assert len(data.avalanche_pairs()) == 40
    assert all(a != b and len(a) == len(b) for a, b in data.avalanche_pairs())


def test_variants_are_other_data_of_the_same_kind():
    for v in (1, 2**61 + 5):
        u, w = data.hyperplane_pair(variant=v)
        assert np.isclose(np.degrees(np.arccos(u @ w / np.linalg.norm(u) / np.linalg.norm(w))), 30.0)
        assert not np.allclose(u, data.hyperplane_pair()[0])
        assert data.avalanche_pairs(variant=v) != data.avalanche_pairs()
        docs, pairs, labels = data.near_dup_corpus(variant=v)
        assert len(docs) == 450 and pairs.shape == (450, 2) and labels.sum() == 150
        assert docs != data.near_dup_corpus()[0]
    try:
        data.use_variant(3)
        assert data.avalanche_pairs() == data.avalanche_pairs(variant=3)
    finally:
        data.use_variant(None)
    assert data.avalanche_pairs() == data.avalanche_pairs(variant=None)


def _references():
    """Each answer computed from the data: its reference on a variant (None: the notebook's data),
    and a learner's function that returns the notebook's own result whatever it is given."""
    from simhash_lab.grading.checks import charikar_hyperplanes as ch
    from simhash_lab.grading.checks import lsh_vs_crypto as lc
    from simhash_lab.grading.checks import near_duplicates as nd

    return {
        "crypto_flips": lc._crypto_reference,
        "simhash_flips": lc._simhash_reference,
        "mean_hamming": ch._mean_reference,
        "pair_distances": nd._distances,
        "best_k": nd._best_k,
    }


DATA_ANSWERS = sorted(_references())


@pytest.mark.parametrize("key", DATA_ANSWERS)
def test_a_value_copied_from_the_notebook_is_a_cross_in_the_notebook(key, solved, capsys):
    """A function that returns the number a ❌ showed (right for the notebook's data only) is ❌ in
    the notebook too, with the hint that names the cause; the computed answer is ✅."""
    ref = _references()[key]
    copied = ref(None)
    ns = {key: lambda *args: np.array(copied) if key == "pair_distances" else copied}
    exec(f"checks.{key}()", {"checks": checks, **ns})
    out = capsys.readouterr().out
    assert out.startswith(f"❌ {key}: not yet") and "the notebook's own result on other data" in out, out
    capsys.readouterr()
    exec(f"checks.{key}()", {**solved[EXERCISES_OF[key]], "checks": checks})
    assert capsys.readouterr().out == checks.pass_line(key)


EXERCISES_OF = {a.key: name for name, ex in EXERCISES.items() for a in ex.answers}


@pytest.mark.parametrize("key", DATA_ANSWERS)
def test_every_case_of_a_data_answer_but_the_first_is_other_data(key):
    """Visible cases: the notebook's data, then a variant whose answer differs; hidden cases (drawn at
    grading time): variants whose answers all differ from the notebook's."""
    ref = _references()[key]
    visible = CHECKS[key].cases(None)
    assert [c["variant"] for c in visible][0] is None and len(visible) >= 2
    for c in [*visible[1:], *CHECKS[key].cases(random.Random(3))]:
        assert c["variant"] is not None and ref(c["variant"]) != ref(None), (key, c["variant"])


def test_best_k_varies_across_variants():
    from simhash_lab.grading.checks.near_duplicates import _best_k

    ks = {_best_k(v) for v in range(1, 9)}
    assert len(ks) >= 3
    hidden = [c["variant"] for s in range(3) for c in CHECKS["best_k"].cases(random.Random(s))]
    assert len(hidden) == 9 and _best_k(None) not in {_best_k(v) for v in hidden}


# -- the registry ------------------------------------------------------------------------------------------


def test_one_checker_module_per_exercise_and_every_answer_registered():
    import importlib

    for name, ex in EXERCISES.items():
        mod = importlib.import_module(f"simhash_lab.grading.checks.{name[3:]}")
        assert mod.EXERCISE is ex
        for a in ex.answers:
            assert CHECKS[a.key] is a and getattr(checks, a.key) is a
            assert isinstance(a, (Values, Functions))


def test_run_all_goes_past_a_wrong_answer(tmp_path):
    """A learner's Run All: a wrong answer prints ❌ in its check cell and the notebook runs on."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(SOLUTIONS / "03_hamming_popcount.ipynb", as_version=4)
    for c in nb.cells:
        if c.get("metadata", {}).get("simhash_lab", {}).get("answer") == "xor_AB":
            c.source = "xor_AB = 0b101111"
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute(cwd=str(tmp_path))
    outs = {
        c.metadata["simhash_lab"]["check"]: "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if c.get("metadata", {}).get("simhash_lab", {}).get("role") == "check"
    }
    assert outs["xor_AB"].startswith("❌ xor_AB: not yet")
    assert outs["is_near"] == checks.pass_line("is_near")  # the cells after it ran


# -- the learner's path: Run All, missing answers, hints that name the cause ------------------------------

EXERCISE_FILES = Path(__file__).resolve().parents[2] / "exercises"


def _check_outputs(nb) -> dict[str, str]:
    return {
        c.metadata["simhash_lab"]["check"]: "".join(o.get("text", "") for o in c.outputs)
        for c in nb.cells
        if c.get("metadata", {}).get("simhash_lab", {}).get("role") == "check"
    }


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_run_all_on_an_untouched_exercise_runs_to_the_end_with_a_cross_per_check(name, tmp_path):
    """The student's file as shipped: no cell raises (allow_errors=False), every check cell prints a
    ❌ that says the answer is not written yet."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(EXERCISE_FILES / f"{name}.ipynb", as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=False).execute(cwd=str(tmp_path))
    outs = _check_outputs(nb)
    assert sorted(outs) == sorted(a.key for a in EXERCISES[name].answers)
    for key, out in outs.items():
        assert out.startswith("❌") and "not written yet" in out and "Traceback" not in out, (key, out)


@pytest.mark.parametrize("key", sorted(CHECKS))
def test_a_check_cell_whose_answer_is_missing_prints_a_cross(key, capsys):
    """The answer cell was never run (or stopped before it set its names): ❌, not a NameError."""
    exec(f"checks.{key}()", {"checks": checks})
    out = capsys.readouterr().out
    assert out.startswith("❌") and "is not defined: run the answer cell above" in out, out


def _out_of(key: str, src: str, name: str, capsys, check: str | None = None) -> str:
    """What ``checks.KEY()`` prints after the solution's cells run with ``src`` in place of
    ``key``'s answer (in one namespace, as in a kernel: the other answers call what ``src`` defines)."""
    import nbformat

    nb = nbformat.read(SOLUTIONS / f"{name}.ipynb", as_version=4)
    ns: dict = {}
    for c in nb.cells:
        meta = c.metadata.get("simhash_lab", {})
        if c.cell_type == "code" and meta.get("role") in ("setup", "given", "answer"):
            exec(src if meta.get("answer") == key else c.source, ns)
    capsys.readouterr()
    exec(f"checks.{check or key}()", ns)
    return capsys.readouterr().out


def test_is_near_on_a_full_popcount_blames_the_missing_early_exit(capsys):
    out = _out_of(
        "is_near",
        "def is_near(a, b, k=3):\n    return popcount_kernighan(a ^ b) <= k\n",
        "03_hamming_popcount",
        capsys,
    )
    assert out.startswith("❌") and "not allowed" not in out and "stop as soon as the count exceeds k" in out
    assert "count <= k" not in out, out  # the cause, not the solution's loop condition


@pytest.mark.parametrize("key", ["popcount_kernighan", "is_near"])
def test_an_untouched_method_answer_is_not_written_yet_not_a_hint_about_its_form(key, capsys):
    args = "x" if key == "popcount_kernighan" else "a, b, k=3"
    stub = f'def {key}({args}):\n    """Your code."""\n    raise NotImplementedError()\n'
    out = _out_of(key, stub, "03_hamming_popcount", capsys)
    assert out.startswith(f"❌ {key}") and "not written yet" in out, out
    assert "x &= x - 1" not in out and "while x" not in out, out  # no method handed over


def test_wrong_blocks_are_blamed_not_a_right_build_tables(capsys):
    out = _out_of(
        "blocks",
        "def blocks(fp):\n    return [(fp >> (16 * j)) & 0xFF for j in range(4)]\n",
        "05_block_index",
        capsys,
    )
    assert out.startswith("❌ blocks: not yet"), out
    out = _out_of(
        "blocks",
        "def blocks(fp):\n    return [(fp >> (16 * j)) & 0xFF for j in range(4)]\n",
        "05_block_index",
        capsys,
        check="block_index",
    )
    assert out.startswith("❌") and "your blocks() is wrong" in out and "Table 0" not in out, out


@pytest.mark.parametrize("key", ["simhash_py", "simhash_numba"])
def test_a_reversed_bit_order_gets_its_own_hint(key, capsys):
    src = {
        "simhash_py": "def simhash_py(features, bits=64):\n"
        "    V = [0] * bits\n"
        "    for h, w in features:\n"
        "        for i in range(bits):\n"
        "            V[i] += w if (h >> (bits - 1 - i)) & 1 else -w\n"
        "    return sum(1 << i for i in range(bits) if V[i] > 0)\n",
        "simhash_numba": "@njit\ndef simhash_numba(hashes, weights, bits):\n"
        "    V = np.zeros(64)\n"
        "    for j in range(hashes.shape[0]):\n"
        "        for i in range(bits):\n"
        "            if (hashes[j] >> np.uint64(bits - 1 - i)) & np.uint64(1):\n"
        "                V[i] += weights[j]\n"
        "            else:\n"
        "                V[i] -= weights[j]\n"
        "    fp = np.uint64(0)\n"
        "    for i in range(bits):\n"
        "        if V[i] > 0:\n"
        "            fp |= np.uint64(1) << np.uint64(i)\n"
        "    return fp\n",
    }[key]
    out = _out_of(key, src, "02_simhash_voting", capsys)
    assert out.startswith("❌") and "reverse order" in out, out


def test_hints_say_what_to_fix_without_the_solution_line(capsys):
    out = _out_of(
        "pair_distances",
        "def pair_distances(docs, pairs):\n    return np.zeros(len(pairs), dtype=int)\n",
        "06_near_duplicates",
        capsys,
    )
    assert out.startswith("❌") and "fps[pairs[:, 0]]" not in out and "hamming(" not in out, out
    out = _out_of(
        "is_near",
        "def is_near(a, b, k=3):\n    x, n = a ^ b, 0\n    while x:\n        x &= x - 1\n        n += 1\n"
        "    return n <= k\n",
        "03_hamming_popcount",
        capsys,
    )
    assert out.startswith("❌") and "while x and" not in out and "count <= k" not in out, out


def test_a_signature_may_be_a_numpy_unsigned_int_as_the_exercise_says(capsys):
    """Exercise 04 says: an int, a Python int or a NumPy unsigned integer; an int64 that overflowed
    at bit 63 gets its own hint."""
    as_uint64 = (
        "def signature(u, R):\n    sig = np.uint64(0)\n    for i, r in enumerate(R):\n"
        "        if r @ u >= 0:\n            sig |= np.uint64(1) << np.uint64(i)\n    return sig\n"
    )
    out = _out_of("signature", as_uint64, "04_charikar_hyperplanes", capsys)
    assert out == checks.pass_line("signature"), out
    as_int64 = as_uint64.replace("np.uint64", "np.int64")
    out = _out_of("signature", as_int64, "04_charikar_hyperplanes", capsys)
    assert out.startswith("❌") and "overflowed a signed int64" in out, out
