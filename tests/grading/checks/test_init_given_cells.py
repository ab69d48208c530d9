"""No given cell prints an answer the learner is asked for (issue 43): in every exercise, in both
languages, neither the stored outputs nor the outputs of a fresh run of the given cells (the
learner's file as shipped, and a student's variant released by ``simhash-lab assign``) hold an
expected answer: a hand answer's value, a value answer's, or what an answer function returns on the
notebook's data.

A value "is printed" when the output holds it in a form a learner could copy: a list as consecutive
numbers (``[ 3.  1.  1. -3.]``), an int in decimal (10 or more) or as a binary numeral of three digits
or more (``0b111``), a float to the precision its check asks, a string of four characters or more.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from simhash_lab.grading._notebooks import exercise_file
from simhash_lab.grading.checks import EXERCISES, Functions, Values
from simhash_lab.grading.classroom import personalize

ROOT = Path(__file__).resolve().parents[3]
LANGS = {"en": ROOT / "exercises", "es": ROOT / "exercises" / "es"}
VARIANT = 0x5EED5EED  # a student's variant of every exercise (as ``simhash-lab assign`` draws them)

_NUMBER = re.compile(r"-?0[bB][01]+|-?0[xX][0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _numbers(text: str) -> list[tuple[str, float]]:
    out = []
    for tok in _NUMBER.findall(text):
        t = tok.lower().lstrip("-")
        v = int(t, 2) if t.startswith("0b") else int(t, 16) if t.startswith("0x") else float(t)
        out.append((tok, -v if tok.startswith("-") else v))
    return out


def printed(text: str, value: object) -> bool:
    """Whether ``text`` shows ``value`` in a form a learner could copy (see the module docstring)."""
    nums = _numbers(text)
    if type(value) is bool or value is None:
        return False
    if type(value) is str:
        v = value.strip().removeprefix("0b")
        return len(v) >= 4 and v in text
    if type(value) in (list, tuple):
        if len(value) < 3 or any(type(v) not in (int, float) for v in value):
            return False
        vals = [v for _tok, v in nums]
        n = len(value)
        return any(
            all(abs(a - b) < 1e-9 for a, b in zip(vals[i : i + n], value)) for i in range(len(vals) - n + 1)
        )
    if type(value) is int:
        binary = f"{abs(value):b}"
        for tok, v in nums:
            if tok.lower().lstrip("-").startswith("0b") and v == value and len(binary) >= 3:
                return True
            if abs(value) >= 10 and v == value and "." not in tok:
                return True
        return False
    if type(value) is float:
        return any(abs(v - value) <= 1e-9 and "." in tok for tok, v in nums)
    return False


def test_the_test_sees_the_answer_exercise_02_used_to_print():
    """What 02's given cell printed before (issue 43): the votes and the fingerprint of part 1."""
    old = "[ 3.  1.  1. -3.] 0b111\n"
    assert printed(old, [3, 1, 1, -3]) and printed(old, 7)
    assert printed("[-1, 1, 1, -1] 0b110", [-1, 1, 1, -1]) and printed("0b110", 6)
    assert not printed("sentences of 7 to 11 words; 40 pairs", 3) and not printed("MD5: 31.88", 31.875)


def _expected(name: str, variant: int | None) -> dict[str, object]:
    """What the learner is asked for in exercise ``name`` on ``variant`` (None: the notebook's own
    data): the values of its value answers, and what its answer functions return on the cases the
    notebook shows (None only: a student's notebook shows other hand data, not other cases)."""
    out: dict[str, object] = {}
    for a in EXERCISES[name].answers:
        if isinstance(a, Values):
            if a.hand is not None:
                out.update({f"{a.key}.{k}": v for k, v in a.hand(variant).items()})
        elif isinstance(a, Functions) and variant is None:
            from simhash_lab.grading.checks import charikar_hyperplanes, lsh_vs_crypto, near_duplicates

            refs = {
                "crypto_flips": lambda: lsh_vs_crypto._crypto_reference(None),
                "simhash_flips": lambda: lsh_vs_crypto._simhash_reference(None),
                "mean_hamming": lambda: charikar_hyperplanes._mean_reference(None),
                "pair_distances": lambda: near_duplicates._distances(None)[:20],
            }
            if a.key in refs:
                out[a.key] = refs[a.key]()
    if variant is None:
        out.update({"ideal_flips": 32.0, "min_equal_blocks": 1})
    return out


def _given_outputs(nb) -> list[str]:
    return [
        "".join(
            o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"]) for o in c.outputs
        )
        for c in nb.cells
        if c.cell_type == "code" and c.metadata.get("simhash_lab", {}).get("role") == "given"
    ]


_RUN = r"""
import io, json, sys, contextlib
from IPython.core.interactiveshell import InteractiveShell
out = {}
for path in json.loads(sys.argv[1]):
    nb = json.load(open(path, encoding="utf-8"))
    shell = InteractiveShell.instance() if not out else InteractiveShell()
    given = []
    for c in nb["cells"]:
        if c["cell_type"] != "code" or c["metadata"].get("simhash_lab", {}).get("role") == "check":
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            shell.run_cell("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
        if c["metadata"].get("simhash_lab", {}).get("role") == "given":
            given.append(buf.getvalue())
    out[path] = given
print("@@" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    """The given cells' outputs of a fresh run of each learner's file (unanswered), as shipped and
    as released to a student on :data:`VARIANT`, in both languages."""
    d = tmp_path_factory.mktemp("given")
    paths = {}
    for lang, folder in LANGS.items():
        for name in EXERCISES:
            nb = nbformat.read(folder / exercise_file(name), as_version=4)
            p = d / lang / "own" / f"{name}.ipynb"
            p.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, p)
            paths[(lang, name, None)] = p
            q = d / lang / "student" / f"{name}.ipynb"
            q.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(personalize(nb, name, "s1", VARIANT, solved=False), q)
            paths[(lang, name, VARIANT)] = q
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env["SIMHASH_LAB_ON_COMPILE"] = "error"
    p = subprocess.run(
        [sys.executable, "-c", _RUN, json.dumps([str(x) for x in paths.values()])],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=d,
    )
    line = next((ln for ln in p.stdout.splitlines() if ln.startswith("@@")), None)
    assert line is not None, (p.stdout[-3000:], p.stderr[-3000:])
    got = json.loads(line[2:])
    return {k: got[str(v)] for k, v in paths.items()}


@pytest.mark.parametrize("lang", sorted(LANGS))
@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_no_given_cell_prints_an_answer(fresh, lang, name):
    found = []
    for variant in (None, VARIANT):
        expected = _expected(name, variant)
        for i, text in enumerate(fresh[(lang, name, variant)]):
            found += [(variant, i, key, text) for key, v in expected.items() if printed(text, v)]
    stored = nbformat.read(LANGS[lang] / exercise_file(name), as_version=4)
    solved = nbformat.read(LANGS[lang] / "solutions" / exercise_file(name, "solution"), as_version=4)
    values = {k: v for k, v in _expected(name, None).items() if "." in k or k in ("ideal_flips",)}
    for label, nb, wanted in (("stored", stored, _expected(name, None)), ("solution", solved, values)):
        # a solution's given cells may print what its own functions return; never a value answer
        for i, text in enumerate(_given_outputs(nb)):
            found += [(label, i, key, text) for key, v in wanted.items() if printed(text, v)]
    assert not found, found


def test_the_fresh_runs_ran_every_given_cell(fresh):
    for (lang, name, _variant), outs in fresh.items():
        n = sum(
            1
            for c in nbformat.read(LANGS[lang] / exercise_file(name), as_version=4).cells
            if c.cell_type == "code" and c.metadata.get("simhash_lab", {}).get("role") == "given"
        )
        assert len(outs) == n and not any("Traceback" in o for o in outs), (lang, name, outs)
