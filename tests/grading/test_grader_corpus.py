"""One verdict everywhere (issue 43): every entry of the corpora (``corpus.py``: honest answers in
many styles, known cheats) through the three judges, in English and in Spanish:

* the notebook's check cells, as a learner's kernel runs them (an IPython shell per notebook, its
  cells in order: setup, given, answers, the learner's own cells, checks);
* ``simhash-lab check``: the grader's steps in the learner's environment, without a sandbox;
* ``simhash-lab grade``: the same steps in the sandbox.

Every honest answer passes all three; every cheat fails ``check`` and ``grade`` (with the hint that
names it, in English), and the check cell never gives it a plain ✅ (a function's ✅ there says that
grading also runs hidden cases). ``check`` and ``grade`` agree on every answer of every notebook.

CI time: ``check`` and ``grade`` run each exercise's notebooks as one batch
(:func:`simhash_lab.grading._grader.grade_batch`: one sandbox for the notebooks, one for the
measured answers) rather than a sandbox per notebook, and the judges run two at a time.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from corpus import HONEST, Own, cheats

from simhash_lab._i18n import language
from simhash_lab.grading import _grader, _sandbox
from simhash_lab.grading.checks import EXERCISES
from simhash_lab.grading.checks._checker import HIDDEN_NOTE, Functions

pytestmark = pytest.mark.usefixtures("sandbox_ok")

LANGS = ("en", "es")


@dataclasses.dataclass
class Entry:
    """One notebook of a corpus: what each answer must do (pass, or fail with a hint fragment)."""

    exercise: str
    lang: str
    name: str
    path: Path
    fails: dict[str, str]  # answer key -> a fragment of its hint (English); the others must pass


def _write(kit, exercise: str, lang: str, answers: dict, dest: Path) -> Path:
    """The learner's exercise notebook in ``lang`` with ``answers`` in place of its stubs; an
    :class:`Own` answer brings cells of the learner's own, put just above its answer cell."""
    base = kit.exercise(exercise, lang)
    nb = nbformat.read(base, as_version=4)
    cells = []
    for c in nb.cells:
        key = kit.role(c).get("answer")
        if key in answers:
            a = answers[key]
            if isinstance(a, Own):
                cells += [nbformat.v4.new_code_cell(src) for src in a.cells]
                a = a.source
            c.source = a
        cells.append(c)
    nb.cells = cells
    dest.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest)
    return dest


def _entries(kit, root: Path, lang: str) -> list[Entry]:
    out = []
    made = cheats()
    for ex, by_key in HONEST.items():
        n = max(len(v) for v in by_key.values())
        for i in range(n):
            answers = {k: v[min(i, len(v) - 1)] for k, v in by_key.items()}
            name = f"honest{i}"
            out.append(
                Entry(ex, lang, name, _write(kit, ex, lang, answers, root / lang / name / f"{ex}.ipynb"), {})
            )
        for j, (name, cheat, fails) in enumerate(made[ex]):
            answers = {k: v[0] for k, v in by_key.items()} | cheat
            path = _write(kit, ex, lang, answers, root / lang / f"cheat{j}" / f"{ex}.ipynb")
            out.append(Entry(ex, lang, name, path, fails))
    return out


# -- the check cells, as a kernel runs them -----------------------------------------------------------

_KERNEL = r"""
import io, json, sys, contextlib
from IPython.core.interactiveshell import InteractiveShell
out = {}
for path in json.loads(sys.argv[1]):
    nb = json.load(open(path, encoding="utf-8"))
    shell = InteractiveShell.instance() if not out else InteractiveShell()
    checks = {}
    for c in nb["cells"]:
        if c["cell_type"] != "code":
            continue
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            shell.run_cell(src, store_history=False)
        meta = c.get("metadata", {}).get("simhash_lab", {})
        if meta.get("role") == "check":
            checks[meta["check"]] = buf.getvalue()
    out[path] = checks
print("@@" + json.dumps(out))
"""


def _kernel(kit, paths: list[Path]) -> dict[str, dict[str, str]]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(kit.ROOT), os.environ.get("PYTHONPATH", "")]),
        "SIMHASH_LAB_ON_COMPILE": "error",
    }
    p = subprocess.run(
        [sys.executable, "-c", _KERNEL, json.dumps([str(x) for x in paths])],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
        cwd=paths[0].parent,
    )
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("@@")), None)
    assert line is not None, (p.stdout[-3000:], p.stderr[-3000:])
    return json.loads(line[2:])


# -- the run --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def judged(kit, tmp_path_factory):
    """Every entry judged three ways: ``{path: {"kernel": {key: output}, "check": GradeResult,
    "grade": GradeResult}}`` (the judges two at a time, each exercise a batch)."""
    root = tmp_path_factory.mktemp("corpus")
    entries = [e for lang in LANGS for e in _entries(kit, root, lang)]
    groups: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        groups.setdefault((e.exercise, e.lang), []).append(e)
    check_limits = dataclasses.replace(_sandbox.Limits(), nproc=1 << 20)  # as `simhash-lab check`
    tasks = []
    for group in groups.values():
        paths = [e.path for e in group]
        tasks.append(("kernel", paths, lambda paths=paths: _kernel(kit, paths)))
        tasks.append(
            (
                "check",
                paths,
                lambda paths=paths: _grader.grade_batch(paths, unsafe=True, limits=check_limits, shown="own"),
            )
        )
        tasks.append(("grade", paths, lambda paths=paths: _grader.grade_batch(paths, unsafe=False)))
    # the slow groups (Numba compiles) first, so the two workers end together
    tasks.sort(key=lambda t: "02_" not in str(t[1][0]))
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda t: (t[0], t[1], t[2]()), tasks))
    out: dict[str, dict] = {str(e.path): {"entry": e} for e in entries}
    for judge, paths, result in done:
        if judge == "kernel":
            for p in paths:
                out[str(p)]["kernel"] = result[str(p)]
        else:
            for p, r in zip(paths, result):
                out[str(p)][judge] = r
    return out


def _ids(judged, honest: bool) -> list:
    return [p for p, v in judged.items() if (not v["entry"].fails) == honest]


def _hidden_note(lang: str) -> str:
    with language(lang):
        from simhash_lab._i18n import _

        return _(HIDDEN_NOTE)


def test_every_honest_answer_passes_every_judge_in_both_languages(judged):
    bad = []
    for p in _ids(judged, True):
        v = judged[p]
        e = v["entry"]
        ex = EXERCISES[e.exercise]
        for judge in ("check", "grade"):
            for c in v[judge].checks:
                if not c.passed:
                    bad.append((e.lang, e.exercise, e.name, judge, c.name, c.hint))
            if len(v[judge].checks) != len(ex.answers):
                bad.append((e.lang, e.exercise, e.name, judge, "not graded", v[judge].first_hint))
        for a in ex.answers:
            line = v["kernel"].get(a.key, "")
            want = a.pass_line(e.lang)
            if line != want:
                bad.append((e.lang, e.exercise, e.name, "kernel", a.key, line.strip()[:300]))
    assert not bad, "\n".join(map(str, bad))


def test_every_cheat_fails_check_and_grade_with_its_hint(judged):
    bad = []
    for p in _ids(judged, False):
        v = judged[p]
        e = v["entry"]
        for judge in ("check", "grade"):
            by = {c.name: c for c in v[judge].checks}
            for key, fragment in e.fails.items():
                c = by.get(key)
                if c is None or c.passed:
                    bad.append((e.lang, e.exercise, e.name, judge, key, "passed"))
                elif e.lang == "en" and fragment and fragment not in c.hint:
                    bad.append((e.lang, e.exercise, e.name, judge, key, c.hint))
            for key, c in by.items():  # the other answers of a cheat's notebook are honest
                if key not in e.fails and not c.passed:
                    bad.append((e.lang, e.exercise, e.name, judge, key, "honest but failed: " + c.hint))
    assert not bad, "\n".join(map(str, bad))


def test_a_cheat_never_gets_a_plain_check_mark_in_the_notebook(judged):
    """The check cell cannot know what grading will find on hidden cases (state kept between calls,
    a number that is right only on the notebook's data): it says ❌, or a ✅ that says so."""
    bad = []
    for p in _ids(judged, False):
        v = judged[p]
        e = v["entry"]
        note = _hidden_note(e.lang)
        for key in e.fails:
            line = v["kernel"].get(key, "")
            if not (line.startswith("❌") or (line.startswith("✅") and note in line)):
                bad.append((e.lang, e.exercise, e.name, key, line))
            if line.startswith("✅") and not isinstance(EXERCISES[e.exercise].answer(key), Functions):
                bad.append((e.lang, e.exercise, e.name, key, "a value answer's ✅ for a cheat"))
    assert not bad, "\n".join(map(str, bad))


def test_check_and_grade_give_the_same_verdict_on_every_answer(judged):
    diff = []
    for v in judged.values():
        a = {c.name: c.passed for c in v["check"].checks}
        b = {c.name: c.passed for c in v["grade"].checks}
        if a != b:
            e = v["entry"]
            diff.append((e.lang, e.exercise, e.name, a, b))
    assert not diff, diff


def test_the_corpora_are_large_enough():
    """At least 8 honest implementations of every answer, and a cheat for every measured one."""
    made = cheats()
    for name, ex in EXERCISES.items():
        for a in ex.answers:
            assert len(HONEST[name][a.key]) >= 8, (name, a.key)
            if getattr(a, "method", None) is not None:
                assert any(a.key in fails for _n, _c, fails in made[name]), (name, a.key)


# -- hand answers computed from the notebook's data, on a student's variant -----------------------------

_FROM_DATA = {
    "02_simhash_voting": {
        "rust_safe_fast_votes": HONEST["02_simhash_voting"]["rust_safe_fast_votes"][4],
        "rust_safe_fast_fingerprint": HONEST["02_simhash_voting"]["rust_safe_fast_fingerprint"][3],
        "six_bit_string": HONEST["02_simhash_voting"]["six_bit_string"][1],
        "six_bit_int": HONEST["02_simhash_voting"]["six_bit_int"][3],
    },
    "03_hamming_popcount": {
        "hamming_by_hand": HONEST["03_hamming_popcount"]["hamming_by_hand"][3],
        "xor_AB": HONEST["03_hamming_popcount"]["xor_AB"][5],
    },
}


def test_hand_answers_computed_from_the_data_functions_pass_on_a_students_variant(kit, tmp_path):
    """Issue 43: hand answers computed in their cell from the notebook's data functions (as its next
    given cell does) were ✅ in the notebook and lost their points in the grade, whose sandbox ran the
    data functions on the hidden variant. The data a student works out by hand follows their
    variant there too; the notebook's own numbers (a classmate's) still fail."""
    from simhash_lab.grading.classroom import personalize

    variant = 0x5EED5EED
    for ex, answers in _FROM_DATA.items():
        honest = {k: v[0] for k, v in HONEST[ex].items()}
        base = personalize(nbformat.read(kit.exercise(ex), as_version=4), ex, "s1", variant, solved=False)
        paths = {}
        for name, chosen in (("computed", honest | answers), ("notebook's numbers", honest)):
            nb = nbformat.from_dict(json.loads(nbformat.writes(base)))
            for c in nb.cells:
                key = kit.role(c).get("answer")
                if key in chosen:
                    c.source = chosen[key]
            paths[name] = tmp_path / name.replace(" ", "_").replace("'", "") / f"{ex}.ipynb"
            paths[name].parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, paths[name])
        for name, path in paths.items():
            r = _grader.grade_one(path, shown={ex: variant})
            by = {c.name: c.passed for c in r.checks}
            if name == "computed":
                assert all(by.values()), (ex, r.checks)
            else:
                assert not any(by[k] for k in answers), (ex, by)
