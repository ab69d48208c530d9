#!/usr/bin/env python
"""Create every piece of a new course concept, in the places the build, the grader and the tests
find them:

    python tools/new_concept.py NAME [--number NN] [--title TITLE] [--title-es TITULO]

=============================================  ========================================================
``course/notebooks/NN_NAME.py``                the notebook source: the four parts, one measured cell
``course/exercises/NN_NAME.py``                the exercise source: its data, one answer
                                               (``NAME_set_bits``) with its solution and its check
``simhash_lab/grading/checks/NAME.py``         the checker, found by ``checks`` (no list to extend)
``simhash_lab/grading/data.py``                + ``NAME_fingerprints(variant)``, the exercise's data
                                               (the one grading module the sandbox holds)
``tests/grading/checks/test_NAME.py``          the checker's test: right, wrong and copied answers
``course/i18n/es/{notebooks,exercises}/...``   the Spanish catalogues, the template text translated
``simhash_lab/locale/es/.../simhash_lab.po``   + the checker's texts in Spanish (and the ``.mo``)
``course/notebooks/00_start_here.py``          + the concept's row in the map (and in Spanish): the one
                                               registration line, checked by ``tools/build.py``
=============================================  ========================================================

The fresh concept builds and passes as it is; then replace the template text and the toy answer
with the concept's own, and rebuild (the lines it prints at the end). NN defaults to the number
after the last course notebook. Bad input (a NAME that is not a lower-case identifier, or is used
already, a taken NN) exits with status 2 and a message naming it; nothing is written.
"""

from __future__ import annotations

import argparse
import importlib.util
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = "00_start_here"
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_ROW = re.compile(r"^\| (\d\d) \|")
_DATA_END = "#: The public names:"  # the data functions go above this line of data.py


class ConceptError(ValueError):
    """A NAME or NN the scaffold refuses; the message names the parameter."""


# -- the templates ------------------------------------------------------------------------------------
# Everything here is English course text with its Spanish beside it (SPANISH), so that the fresh
# concept's catalogues are complete. Placeholders: {nn}, {name}, {title}, {title_es}.

NOTEBOOK = """# %% [markdown]
# # {nn} · {title}
#
# **What this concept is, in one sentence, and what you will do with it.** It is told in the
# session's four parts, and then measured.

# %% [markdown]
# ## (a) Intuition
#
# The idea in plain words, with an example to work on paper.

# %% [markdown]
# ## (b) Definition, step by step
#
# The definition, one step at a time. The cell below measures it with the library.

# %%
from simhash_lab import Simhasher, hamming

h = Simhasher()
a, b = h.fingerprint("rust is safe and fast"), h.fingerprint("rust is safe and quick")
print(f"{{hamming(a, b)}} bits differ between the two fingerprints")

# %% [markdown]
# ## (c) Memory and types
#
# What it costs in memory, and the types that hold it.

# %% [markdown]
# ## (d) The typical junior mistake
#
# The mistake, and how to see it.
"""

EXERCISE = """# %% [markdown]
# # Exercises {nn} · {title}
#
# Pencil first, then code. A ❌ never stops Run All; grading runs your answers on other data (see
# exercise 01).

# %% tags=["setup"]
from simhash_lab.grading import checks, data

# %%
fps = data.{name}_fingerprints()
print(f"{{len(fps)}} fingerprints, the first is {{fps[0]:#018x}}")

# %% [markdown]
# ## 1. Count the set bits
#
# Write `{name}_set_bits(fps)`: how many bits are 1 in all the fingerprints of `fps` together (a
# list of ints below $2^{{64}}$). The check calls it on the data above and on other data.


# %% simhash_lab={{"answer": "{name}_set_bits"}} tags=["answer"]
def {name}_set_bits(fps: list[int]) -> int:
    ### BEGIN SOLUTION
    return sum(bin(f).count("1") for f in fps)
    ### END SOLUTION


# %% tags=["check"]
checks.{name}_set_bits()
"""

SPANISH = {
    # the notebook
    "# {nn} · {title}\n\n**What this concept is, in one sentence, and what you will do with it.** It is "
    "told in the\nsession's four parts, and then measured.": "# {nn} · {title_es}\n\n**Qué es este concepto, "
    "en una frase, y qué harás con él.** Se cuenta en las\ncuatro partes de la sesión, y después se mide.",
    "## (a) Intuition\n\nThe idea in plain words, with an example to work on paper.": "## (a) En palabras "
    "simples (intuición)\n\nLa idea en palabras simples, con un ejemplo para hacer en papel.",
    "## (b) Definition, step by step\n\nThe definition, one step at a time. The cell below measures it "
    "with the library.": "## (b) Definición técnica paso a paso\n\nLa definición, un paso cada vez. La "
    "celda de abajo la mide con la biblioteca.",
    "{{hamming(a, b)}} bits differ between the two fingerprints": "{{hamming(a, b)}} bits difieren entre "
    "las dos huellas",
    "## (c) Memory and types\n\nWhat it costs in memory, and the types that hold it.": "## (c) Memoria y "
    "tipos\n\nLo que cuesta en memoria, y los tipos que lo guardan.",
    "## (d) The typical junior mistake\n\nThe mistake, and how to see it.": "## (d) Error típico de "
    "Junior\n\nEl error, y cómo verlo.",
    # the exercise
    "# Exercises {nn} · {title}\n\nPencil first, then code. A ❌ never stops Run All; grading runs your "
    "answers on other data (see\nexercise 01).": "# Ejercicios {nn} · {title_es}\n\nPrimero lápiz, "
    "después código. Un ❌ nunca detiene Run All; la calificación ejecuta tus\nrespuestas con otros "
    "datos (ver el ejercicio 01).",
    "{{len(fps)}} fingerprints, the first is {{fps[0]:#018x}}": "{{len(fps)}} huellas, la primera es "
    "{{fps[0]:#018x}}",
    "## 1. Count the set bits\n\nWrite `{name}_set_bits(fps)`: how many bits are 1 in all the fingerprints "
    "of `fps` together (a\nlist of ints below $2^{{64}}$). The check calls it on the data above and on "
    "other data.": "## 1. Cuenta los bits a 1\n\nEscribe `{name}_set_bits(fps)`: cuántos bits valen 1 en "
    "todas las huellas de `fps` juntas (una\nlista de ints menores que $2^{{64}}$). La comprobación la "
    "llama con los datos de arriba y con otros datos.",
}

#: The checker's texts (``_()``/``N_()`` in CHECKER) in Spanish: entries of the library's catalogue,
#: ``simhash_lab/locale/es/LC_MESSAGES/simhash_lab.po`` (``tools/i18n_library.py``).
SPANISH_LIBRARY = {
    "the notebook's fingerprints": "las huellas del cuaderno",
    "other fingerprints (another variant)": "otras huellas (otra variante)",
    "{{call}} on {{which}}": "{{call}} con {{which}}",
    "That counts the 0 bits; count the 1 bits.": "Eso cuenta los bits en 0; cuenta los bits en 1.",
    "Count the 1 bits of each fingerprint (bin(f).count('1')) and add the counts up.": (
        "Cuenta los bits en 1 de cada huella (bin(f).count('1')) y suma las cuentas."
    ),
    "{name}_set_bits counts the set bits of every fingerprint.": (
        "{name}_set_bits cuenta los bits en 1 de todas las huellas."
    ),
}

MAP_ROW = "| {nn} | [{title}]({nn}_{name}.ipynb) | what you will see | what you will measure |"
MAP_ROW_ES = "| {nn} | [{title_es}]({nn}_{name}.ipynb) | lo que verás | lo que medirás |"

DATA = '''


# -- exercise {nn}_{name} ---------------------------------------------------------------------------


def {name}_fingerprints(variant: int | None = None) -> list[int]:
    """12 random 64-bit fingerprints (exercise {nn}), Python ints; a variant gives 12 others."""
    rng = _rng(_pick(variant), {nn_int}, "{name}")
    return [rng.getrandbits(64) for _ in range(12)]

'''

CHECKER = '''"""Checkers of exercise {nn}, {title}: ``{name}_set_bits(fps)``, the set bits of the exercise's
fingerprints (:func:`simhash_lab.grading.data.{name}_fingerprints`), checked on the notebook's data
and on another variant, so a number copied from a ❌ fails."""

from __future__ import annotations

import random

from ..._i18n import N_, _
from .. import data
from ._checker import Exercise, Functions, call, case, copied_hint, data_variants, expect_int, returned

__all__ = ["EXERCISE", "{name}_set_bits"]


def _reference(variant: int | None) -> int:
    return sum(bin(f).count("1") for f in data.{name}_fingerprints(variant))


def _cases(rng: random.Random | None) -> list[dict]:
    return [
        case(call("{name}_set_bits", data.{name}_fingerprints(v)), variant=v)
        for v in data_variants(rng, _reference, 3)
    ]


def _judge(c: dict, res: list[dict]) -> None:
    variant = c["variant"]
    fps = data.{name}_fingerprints(variant)
    if variant is None:
        which = _("the notebook's fingerprints")
    else:
        which = _("other fingerprints (another variant)")
    what = _("{{call}} on {{which}}").format(call="{name}_set_bits(fps)", which=which)
    exp = _reference(variant)
    mistakes = {{64 * len(fps) - exp: _("That counts the 0 bits; count the 1 bits.")}}
    if variant is not None:
        mistakes.setdefault(_reference(None), copied_hint("{name}_set_bits", "fps"))
    hint = _("Count the 1 bits of each fingerprint (bin(f).count('1')) and add the counts up.")
    expect_int(returned(res[0], what), exp, what, hint, mistakes=mistakes)


{name}_set_bits = Functions(
    "{name}_set_bits",
    "{name}_set_bits",
    N_("{name}_set_bits counts the set bits of every fingerprint."),
    ["{name}_set_bits"],
    _cases,
    _judge,
)

EXERCISE = Exercise("{nn}_{name}", ({name}_set_bits,))
'''

TEST = '''"""The checker of exercise {nn} (``simhash_lab/grading/checks/{name}.py``): the solution passes on
the notebook's data and on other variants; a wrong answer gets its hint, a copied number fails."""

from __future__ import annotations

from simhash_lab.grading import checks, data


def _solution(fps: list[int]) -> int:
    return sum(bin(f).count("1") for f in fps)


def test_the_exercise_is_found_by_its_notebook_name():
    assert [a.key for a in checks.EXERCISES["{nn}_{name}"].answers] == ["{name}_set_bits"]


def test_the_solution_passes(capsys):
    checks.{name}_set_bits(_solution)
    assert capsys.readouterr().out == checks.pass_line("{name}_set_bits")


def test_counting_the_zeros_gets_its_hint():
    v = checks.{name}_set_bits.feedback(lambda fps: sum(64 - bin(f).count("1") for f in fps))
    assert not v.passed and "counts the 0 bits" in v.hint


def test_a_number_copied_from_the_notebook_fails_on_other_data():
    n = _solution(data.{name}_fingerprints())
    v = checks.{name}_set_bits.feedback(lambda fps: n)
    assert not v.passed and "copied" in v.hint
'''


# -- the steps -----------------------------------------------------------------------------------------


def _i18n(root: Path):
    """``tools/i18n.py`` of the checkout at ``root``, as a module."""
    spec = importlib.util.spec_from_file_location("simhash_lab_i18n_tool", root / "tools" / "i18n.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


def _numbers(folder: Path) -> dict[str, str]:
    return {p.name[:2]: p.stem for p in folder.glob("[0-9][0-9]_*.py")}


def plan(root: Path, name: str, number: str | None, title: str | None, title_es: str | None) -> dict:
    """Validate the parameters against the checkout; returns the template fields."""
    if not _NAME.match(name) or keyword.iskeyword(name):
        raise ConceptError(f"NAME must be a lower-case Python identifier (letters, digits, _), got {name!r}")
    course = _numbers(root / "course" / "notebooks")
    exercises = _numbers(root / "course" / "exercises")
    taken = sorted({s for s in (*course.values(), *exercises.values()) if s[3:] == name})
    if taken or (root / "simhash_lab" / "grading" / "checks" / f"{name}.py").exists():
        raise ConceptError(f"NAME {name!r} is used already ({', '.join(taken) or f'checks/{name}.py'})")
    if number is None:
        number = f"{max(int(n) for n in course) + 1:02d}" if course else "01"
    if not re.fullmatch(r"\d\d", number) or number == "00":
        raise ConceptError(f"--number must be two digits from 01 to 99, got {number!r}")
    if number in course or number in exercises:
        raise ConceptError(f"--number {number} is taken by {course.get(number) or exercises[number]}")
    title = title or name.replace("_", " ").capitalize()
    if "\n" in title or "|" in title or not title.strip():
        raise ConceptError(f"--title must be one line without '|', got {title!r}")
    return {
        "nn": number,
        "nn_int": int(number),
        "name": name,
        "title": title.strip(),
        "title_es": (title_es or title).strip(),
    }


def _insert_row(lines: list[str], row: str, nn: str, prefix: str = "") -> list[str]:
    """``lines`` with ``row`` among the map's rows (``prefix`` + ``| NN | ...``), in number order."""
    rows = [
        i
        for i, line in enumerate(lines)
        if _ROW.match(line[len(prefix) :] if line.startswith(prefix) else "")
    ]
    if not rows:
        raise ConceptError(f"no map in {START} (a table of rows `| NN | ...`) to add the row to")
    before = [i for i in rows if _ROW.match(lines[i][len(prefix) :]).group(1) < nn]
    at = (before[-1] if before else rows[0] - 1) + 1
    return [*lines[:at], prefix + row, *lines[at:]]


def add_map_row(root: Path, f: dict, i18n) -> list[Path]:
    """The concept's row in the map of 00, in its source and in every catalogue of it."""
    source = root / "course" / "notebooks" / f"{START}.py"
    cells = i18n.read_cells(source)
    old = next(
        (
            c.source
            for c in cells
            if c.cell_type == "markdown" and any(map(_ROW.match, c.source.splitlines()))
        ),
        None,
    )
    if old is None:
        raise ConceptError(f"no map in {START} (a table of rows `| NN | ...`) to add the row to")
    new = "\n".join(_insert_row(old.splitlines(), MAP_ROW.format(**f), f["nn"])) + "\n" * old.endswith("\n")
    changed = [source]
    for lang in i18n.LANGUAGES:
        path = i18n.catalogue_path(source, lang, root)
        po = i18n.read_catalogue(path)
        entry = po.find(old) if po is not None else None
        if entry is None or not entry.msgstr or "fuzzy" in entry.flags:
            print(
                f"  {path.relative_to(root)}: the map is not translated yet; left for `tools/i18n.py update`"
            )
            continue
        entry.msgid = new
        lines = entry.msgstr.splitlines()
        entry.msgstr = "\n".join(
            _insert_row(lines, MAP_ROW_ES.format(**f), f["nn"])
        ) + "\n" * entry.msgstr.endswith("\n")
        i18n.write_catalogue(po, path)
        changed.append(path)
    text = source.read_text(encoding="utf-8").splitlines(keepends=True)
    plain = [line.rstrip("\n") for line in text]
    rows = _insert_row(plain, MAP_ROW.format(**f), f["nn"], prefix="# ")
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return changed


def translate(root: Path, sources: list[Path], f: dict, i18n) -> list[Path]:
    """Create the catalogues of the new sources and fill in the template text's translations."""
    spanish = {en.format(**f): es.format(**f) for en, es in SPANISH.items()}
    written = []
    for source in sources:
        i18n.update(source, "es", root)
        path = i18n.catalogue_path(source, "es", root)
        po = i18n.read_catalogue(path)
        for entry in po:
            if not entry.obsolete and not entry.msgstr and entry.msgid in spanish:
                entry.msgstr = spanish[entry.msgid]
        i18n.write_catalogue(po, path)
        written.append(path)
    return written


def translate_library(root: Path, f: dict) -> list[Path]:
    """The checker's texts in the library's catalogue: merged from the code (``tools/i18n_library.py
    update``), translated (:data:`SPANISH_LIBRARY`), compiled."""
    spec = importlib.util.spec_from_file_location(
        "simhash_lab_i18n_library_tool", root / "tools" / "i18n_library.py"
    )
    lib = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = lib
    spec.loader.exec_module(lib)
    package = root / "simhash_lab"
    spanish = {en.format(**f): es.format(**f) for en, es in SPANISH_LIBRARY.items()}
    lib.update("es", package)
    import polib

    path = lib.po_path("es", package)
    po = polib.pofile(str(path), wrapwidth=0)
    for entry in po:
        if entry.msgid in spanish and (not entry.msgstr or "fuzzy" in entry.flags):
            entry.msgstr = spanish[entry.msgid]
            entry.flags = [x for x in entry.flags if x != "fuzzy"]
            entry.previous_msgid = None
    po.save(str(path))
    lib.update("es", package)  # compiles the .mo from the translated .po
    return [path, path.with_suffix(".mo")]


def create(root: Path, f: dict) -> list[Path]:
    """Write every piece; returns the files created or changed."""
    i18n = _i18n(root)
    name, nn = f["name"], f["nn"]
    notebook = root / "course" / "notebooks" / f"{nn}_{name}.py"
    exercise = root / "course" / "exercises" / f"{nn}_{name}.py"
    checker = root / "simhash_lab" / "grading" / "checks" / f"{name}.py"
    test = root / "tests" / "grading" / "checks" / f"test_{name}.py"
    data = root / "simhash_lab" / "grading" / "data.py"
    text = data.read_text(encoding="utf-8")
    if _DATA_END not in text:
        raise ConceptError(f"{data.relative_to(root)} has no line {_DATA_END!r} to put the data above")
    start = (root / "course" / "notebooks" / f"{START}.py").read_text(encoding="utf-8").splitlines()
    if not any(_ROW.match(line[2:]) for line in start if line.startswith("# ")):
        raise ConceptError(f"no map in {START} (a table of rows `| NN | ...`) to add the row to")
    for path, template in ((notebook, NOTEBOOK), (exercise, EXERCISE), (checker, CHECKER), (test, TEST)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**f), encoding="utf-8")
    head, tail = text.split(_DATA_END, 1)
    data.write_text(head.rstrip("\n") + DATA.format(**f) + "\n" + _DATA_END + tail, encoding="utf-8")
    changed = [notebook, exercise, checker, data, test]
    changed += translate(root, [notebook, exercise], f, i18n)
    changed += translate_library(root, f)
    changed += add_map_row(root, f, i18n)
    return changed


def next_steps(nn: str, name: str) -> list[str]:
    """The commands that build and check a fresh concept, as CONTRIBUTING gives them (step 2)."""
    return [
        f".venv/bin/python tools/build.py 00 {nn}",
        f".venv/bin/python -m pytest -q tests/grading/checks/test_{name}.py"
        " tests/grading/checks/test_checker_spanish.py",
        ".venv/bin/python tools/build.py --check",
        f".venv/bin/python tools/i18n.py check 00 {nn}",
        ".venv/bin/python tools/i18n_library.py check",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/new_concept.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("name", metavar="NAME", help="the concept's name, a lower-case identifier (parity)")
    ap.add_argument("--number", metavar="NN", help="its place in the course (default: after the last)")
    ap.add_argument("--title", help="its title (default: NAME, capitalised)")
    ap.add_argument("--title-es", help="its Spanish title (default: the title)")
    args = ap.parse_args(argv)
    try:
        fields = plan(ROOT, args.name, args.number, args.title, args.title_es)
    except ConceptError as e:
        ap.error(str(e))  # exit status 2
    try:
        changed = create(ROOT, fields)
    except ConceptError as e:
        print(f"tools/new_concept.py: {e}", file=sys.stderr)
        return 2
    nn, name = fields["nn"], fields["name"]
    print(f"concept {nn}_{name}: created or changed")
    for path in changed:
        print(f"  {path.relative_to(ROOT)}")
    print('next (CONTRIBUTING.md, "Adding a concept"):')
    for line in next_steps(nn, name):
        print(f"  {line}")
    print(
        "then make it the concept's own: the text of both sources, the answer and its checker, its data,\n"
        f"its row in the map of {START}.py; after each English edit `tools/i18n.py update 00 {nn}` (and\n"
        "`tools/i18n_library.py update` for the checker's texts) and the Spanish beside it; a new kernel\n"
        "gets its test, a warmup step, and `@kernel` (CONTRIBUTING)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
