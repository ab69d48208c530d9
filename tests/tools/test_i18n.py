"""The course in Spanish, ``tools/i18n.py``: the units of a source, the catalogues keyed by the
English, rendering, and the check ``tools/build.py --check`` calls (a unit missing, fuzzy or no
longer matching its English is named with its file and cell)."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SOURCE = """# %% [markdown]
# # 01 · A title
#
# Some prose, and a [link](02_next.ipynb).

# %%
n = 3
print(_(f"{n} edits, {n / 2:.1f} each"))
label = _("bits that differ")
other = "not marked"
plot(n, title=f"{n} bits", xlabel="{x}")
print(
    f"a long line of {n} words, "
    f"split in two"
)

# %% [markdown]
# <details><summary>Answer</summary>
#
# Folded.
# </details>
"""

SPANISH = {
    "# 01 · A title\n\nSome prose, and a [link](02_next.ipynb).": (
        "# 01 · Un título\n\nAlgo de prosa, y un [enlace](02_next.ipynb)."
    ),
    "{n} edits, {n / 2:.1f} each": "{n} ediciones, {n / 2:.1f} cada una",
    "bits that differ": "bits que difieren",
    "{n} bits": "{n} bits",
    "a long line of {n} words, split in two": "una línea larga de {n} palabras, partida en dos o más",
    "<details><summary>Answer</summary>\n\nFolded.\n</details>": (
        "<details><summary>Respuesta</summary>\n\nPlegada.\n</details>"
    ),
}


@pytest.fixture
def repo(tmp_path):
    """A repository root with one course source (and an empty exercises folder)."""
    (tmp_path / "course" / "notebooks").mkdir(parents=True)
    (tmp_path / "course" / "exercises").mkdir()
    (tmp_path / "course" / "notebooks" / "01_x.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def _translate(i18n, root: Path, translations: dict[str, str]) -> Path:
    """Fill the catalogue of 01_x with ``translations`` (as a translator would), unflagging fuzzy."""
    src = root / "course" / "notebooks" / "01_x.py"
    path = i18n.catalogue_path(src, "es", root)
    cat = i18n.read_catalogue(path)
    for e in cat:
        if e.msgid in translations:
            e.msgstr = translations[e.msgid]
            e.flags = [f for f in e.flags if f != "fuzzy"]
            e.previous_msgid = None
    i18n.write_catalogue(cat, path)
    return path


def test_units_are_markdown_cells_and_marked_literals(i18n, repo):
    src = repo / "course" / "notebooks" / "01_x.py"
    units = i18n.units(i18n.read_cells(src), "course/notebooks/01_x.py")
    assert [(u.cell, u.kind, u.text) for u in units] == [
        (0, "markdown", next(iter(SPANISH))),
        (1, "code", "{n} edits, {n / 2:.1f} each"),
        (1, "code", "bits that differ"),
        (1, "code", "{n} bits"),  # a plot keyword: no marker needed; xlabel="{x}" holds no word
        (1, "code", "a long line of {n} words, split in two"),  # joined pieces: one unit
        (2, "markdown", "<details><summary>Answer</summary>\n\nFolded.\n</details>"),
    ]
    assert units[1].where.startswith("course/notebooks/01_x.py cell 1 (code: ")


@pytest.mark.parametrize(
    "code, why",
    [
        ("x = _(name)", "takes one string literal"),
        ('x = _(r"a" "b")', "not raw beside non-raw"),
        ('x = _("{a}" f"{b}")', "takes one string literal"),
        ('x = _(b"bytes")', "takes one string literal"),
        ('x = _("a", "b")', "takes one string literal"),
        ('%time x = _("a")', "does not parse"),
    ],
)
def test_a_marker_that_cannot_be_translated_is_an_error_naming_its_cell(i18n, code, why):
    with pytest.raises(ValueError, match=rf"^here: .*{why}"):
        i18n.literals(code, "here")


def test_render_strips_the_markers_and_translates(i18n, repo):
    src = repo / "course" / "notebooks" / "01_x.py"
    cells = i18n.read_cells(src)
    english, problems = i18n.render(cells)
    assert problems == []
    code = english[1].source
    assert "_(" not in code and 'print(f"{n} edits, {n / 2:.1f} each")' in code
    assert 'label = "bits that differ"' in code and 'other = "not marked"' in code
    assert code.split("label = ")[1] == cells[1].source.split("label = _(")[1].replace('")', '"', 1)
    assert english[0].source == cells[0].source

    i18n.update(src, "es", repo)
    _translate(i18n, repo, SPANISH)
    spanish, problems = i18n.render(cells, i18n.read_catalogue(i18n.catalogue_path(src, "es", repo)))
    assert problems == []
    assert spanish[0].source == SPANISH[cells[0].source]
    code = spanish[1].source
    ast.parse(code)
    assert 'print(f"{n} ediciones, {n / 2:.1f} cada una")' in code and 'label = "bits que difieren"' in code
    # the joined literal keeps its shape: pieces on their own lines at its indent, as long as the
    # English's, broken between words
    call = ast.parse(code).body[-1].value
    literal = ast.get_source_segment(code, call.args[0])
    assert eval("(" + literal + ")", {"n": 3}) == "una línea larga de 3 palabras, partida en dos o más"
    pieces = literal.splitlines()
    assert len(pieces) > 1 and all(p.startswith('    f"') or p.startswith('f"') for p in pieces)
    assert max(len(p.strip()) for p in pieces) <= len('f"a long line of {n} words, "') + 1  # + a space
    assert cells[1].source.count("_(") == 2  # the source's cells are not changed


def test_links_are_rewritten_for_a_deeper_folder(i18n):
    md = "[next](02_b.ipynb), [src](../course/sources/README.md), [web](https://x.org/a), [here](#top)"
    deeper = i18n.relink(md, lambda t: t if t.endswith(".ipynb") and "/" not in t else "../" + t)
    assert deeper == (
        "[next](02_b.ipynb), [src](../../course/sources/README.md), [web](https://x.org/a), [here](#top)"
    )
    cells = [type("Cell", (), {"cell_type": "markdown", "source": md})()]
    (out,), problems = i18n.render(cells, links=lambda t: "../" + t)
    assert problems == [] and out.source.startswith("[next](../02_b.ipynb)") and "(#top)" in out.source


def test_check_names_each_unit_missing_fuzzy_or_broken(i18n, repo):
    src = repo / "course" / "notebooks" / "01_x.py"
    (none,) = i18n.problems(repo, ["01"])
    assert none.startswith("course/notebooks/01_x.py: no es catalogue (course/i18n/es/notebooks/01_x.po)")
    assert i18n.update(src, "es", repo) == {"translated": 0, "fuzzy": 0, "missing": 6, "obsolete": 0}
    found = i18n.problems(repo, ["01"])
    assert len(found) == 6 and all("empty translation" in p for p in found)
    assert [p.split(" (")[0] for p in found] == ["es: course/notebooks/01_x.py cell " + c for c in "011112"]

    _translate(i18n, repo, SPANISH)
    assert i18n.problems(repo, ["01"]) == []

    # the English of cell 0 changes: before `update` its translation is missing, after it fuzzy
    src.write_text(SOURCE.replace("Some prose", "Some new prose"), encoding="utf-8")
    (before,) = i18n.problems(repo, ["01"])
    assert before.startswith("es: course/notebooks/01_x.py cell 0 (markdown: ") and "no translation" in before
    assert i18n.update(src, "es", repo)["fuzzy"] == 1
    (after,) = i18n.problems(repo, ["01"])
    assert after.startswith("es: course/notebooks/01_x.py cell 0 (markdown: ") and "fuzzy" in after
    cat = i18n.read_catalogue(i18n.catalogue_path(src, "es", repo))
    (msg,) = [e for e in cat if "Some new prose" in e.msgid]
    assert "fuzzy" in msg.flags and msg.msgstr == SPANISH[next(iter(SPANISH))]
    assert msg.previous_msgid == next(iter(SPANISH))  # the old English, for the translator

    # a translator revises it; translations that break their unit are reported
    broken = {
        msg.msgid: msg.msgstr.replace("(02_next.ipynb)", "(02_otro.ipynb)"),
        "{n} edits, {n / 2:.1f} each": "{m} ediciones",
        "<details><summary>Answer</summary>\n\nFolded.\n</details>": "Plegada.",
    }
    _translate(i18n, repo, broken)
    found = i18n.problems(repo, ["01"])
    assert len(found) == 3, found
    assert "cell 0" in found[0] and "link targets" in found[0]
    assert "cell 1" in found[1] and "fields ['m']" in found[1]
    assert "cell 2" in found[2] and "<details>" in found[2]


def test_a_catalogue_that_does_not_parse_is_named(i18n, repo):
    path = i18n.catalogue_path(repo / "course" / "notebooks" / "01_x.py", "es", repo)
    path.parent.mkdir(parents=True)
    path.write_text('msgid "a"\nmsgstr "b"\nmsgstr "c"\n', encoding="utf-8")  # two msgstr
    (found,) = i18n.problems(repo, ["01"])
    assert found.startswith("course/i18n/es/notebooks/01_x.po: unreadable")


def test_a_translation_keeps_the_newlines_around_its_english(i18n):
    unit = i18n.Unit("f.py", 3, "markdown", "Some text\n")
    assert i18n.mismatch(unit, "Algo de texto\n") is None
    assert "newline" in i18n.mismatch(unit, "Algo de texto")


def test_update_revives_an_obsolete_entry_whose_english_comes_back(i18n, repo):
    src = repo / "course" / "notebooks" / "01_x.py"
    i18n.update(src, "es", repo)
    _translate(i18n, repo, SPANISH)
    src.write_text(SOURCE.replace('label = _("bits that differ")\n', ""), encoding="utf-8")
    assert i18n.update(src, "es", repo) == {"translated": 5, "fuzzy": 0, "missing": 0, "obsolete": 1}
    src.write_text(SOURCE, encoding="utf-8")  # the marker is back
    assert i18n.update(src, "es", repo) == {"translated": 6, "fuzzy": 0, "missing": 0, "obsolete": 0}
    assert i18n.problems(repo, ["01"]) == []


def test_command_line_check_exits_1_on_a_problem(i18n, repo):
    def run(*argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = i18n.main([*argv, "--root", str(repo)])
        return rc, out.getvalue()

    rc, out = run("check", "01")
    assert rc == 1 and out.startswith("UNTRANSLATED course/notebooks/01_x.py: no es catalogue")
    assert run("update")[0] == 0
    _translate(i18n, repo, SPANISH)
    assert run("check", "01") == (0, "1 sources checked in es, 0 problems\n")
    rc, out = run("check")  # all sources: build.po too, still untranslated
    assert rc == 1 and out.count("UNTRANSLATED es: course/i18n/es/build.po") == len(i18n.BUILD_MESSAGES)


def test_build_messages_come_from_build_po(i18n, repo):
    with pytest.raises(ValueError, match="not one of BUILD_MESSAGES"):
        i18n.message("Anything else", "es", repo)
    assert i18n.message("Exercise", None, repo) == "Exercise"
    first, second = i18n.problems(repo)
    assert first == "course/i18n/es/build.po: missing; run `tools/i18n.py update`"
    assert second.startswith("course/notebooks/01_x.py: no es catalogue")
    i18n.update_build("es", repo)
    with pytest.raises(ValueError, match=r"build.po: 'Exercise': empty translation"):
        i18n.message("Exercise", "es", repo)
    path = i18n.build_catalogue_path("es", repo)
    po = i18n.read_catalogue(path)
    for e in po:
        e.msgstr = e.msgid.replace("{path}", "{ruta}")
    i18n.write_catalogue(po, path)
    assert i18n.message("Exercise", "es", repo) == "Exercise"
    (broken,) = [p for p in i18n.problems(repo) if "build.po" in p]
    assert "Check the whole notebook" in broken and "fields ['ruta', 'ruta']" in broken


def test_the_course_build_messages_are_translated(i18n):
    assert i18n.message("Start here: the map", "es") != "Start here: the map"
    grade = i18n.message(i18n.BUILD_MESSAGES[-1], "es").format(
        path="exercises/es/01_exercise_lsh_vs_crypto.ipynb"
    )
    assert "make check NB=exercises/es/01_exercise_lsh_vs_crypto.ipynb" in grade


def test_committed_catalogues_translate_their_sources(i18n):
    """Every source that has a Spanish catalogue is fully translated, for its English as it is now."""
    names = [p.name[:2] for p in i18n.sources() if i18n.catalogue_path(p, "es").exists()]
    assert names, "no catalogue in course/i18n/es"
    found = [p for p in i18n.problems(ROOT, sorted(set(names))) if "no es catalogue" not in p]
    assert found == [], "\n".join(found)


def test_english_render_of_the_course_is_its_source(i18n):
    """Without a catalogue, rendering changes only the cells that hold a ``_()`` marker: the English
    notebooks the build writes stay as they are."""
    for path in i18n.sources():
        cells = i18n.read_cells(path)
        rendered, problems = i18n.render(cells)
        assert problems == []
        for cell, out in zip(cells, rendered):
            if cell.cell_type != "code" or not any(lit.marker for lit in i18n.literals(cell.source)):
                assert out.source == cell.source, path
            else:
                assert "_(" not in out.source, path


# -- a line break typed inside a string -------------------------------------------------------------


def test_a_line_break_inside_a_string_is_named_with_its_line(i18n, repo):
    """A string of a PO file broken by a raw line break (issue 47: '... un concepto,' then the next
    line) is refused with its file and line, not read without the break and the words around it."""
    path = i18n.catalogue_path(repo / "course" / "notebooks" / "01_x.py", "es", repo)
    path.parent.mkdir(parents=True)
    path.write_text('msgid "a, b"\nmsgstr "un concepto,\n"\n"con el mismo"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"01_x.po:2: not a whole quoted string"):
        i18n.read_catalogue(path)
    (found,) = i18n.problems(repo, ["01"])
    assert found.startswith("course/i18n/es/notebooks/01_x.po: unreadable") and ":2:" in found
    path.write_text('msgid "a, b"\nmsgstr "un concepto,\\n"\n"con el mismo"\n', encoding="utf-8")
    assert [e.msgstr for e in i18n.read_catalogue(path)] == ["un concepto,\ncon el mismo"]


def test_every_catalogue_of_the_repository_is_well_formed(i18n):
    files = sorted((ROOT / "course" / "i18n").rglob("*.po")) + sorted((ROOT / "simhash_lab").rglob("*.po"))
    assert len(files) >= 17
    assert [line for f in files for line in i18n.malformed_lines(f)] == []


# -- comments of a notebook's code cells ---------------------------------------------------------


COMMENTED = """# %%
import numpy as np  # noqa: F401

x = 3  # three edits, one per word
# the votes of every word
y = x + 1  # 4
"""


def test_a_notebooks_comments_are_units_and_are_translated(i18n, repo):
    for folder in ("notebooks", "exercises"):
        (repo / "course" / folder / "02_c.py").write_text(COMMENTED, encoding="utf-8")
    nb = i18n.units(i18n.read_cells(repo / "course" / "notebooks" / "02_c.py"), "course/notebooks/02_c.py")
    assert [(u.kind, u.text) for u in nb] == [
        ("comment", "three edits, one per word"),
        ("comment", "the votes of every word"),
    ]  # not "noqa: F401", not "4"
    src = repo / "course" / "notebooks" / "02_c.py"
    i18n.update(src, "es", repo)
    path = i18n.catalogue_path(src, "es", repo)
    cat = i18n.read_catalogue(path)
    spanish = {
        "three edits, one per word": "tres ediciones,\nuna por palabra",
        "the votes of every word": "x",
    }
    for e in cat:
        e.msgstr = spanish[e.msgid]
    i18n.write_catalogue(cat, path)
    (broken,) = [p for p in i18n.problems(repo, ["02"]) if "exercises" not in p]
    assert "one line" in broken  # a comment's translation is one line
    spanish["three edits, one per word"] = "tres ediciones, una por palabra"
    for e in cat:
        e.msgstr = spanish[e.msgid].replace("x", "los votos de cada palabra")
    i18n.write_catalogue(cat, path)
    assert [p for p in i18n.problems(repo, ["02"]) if "exercises" not in p] == []
    (cell,), _ = i18n.render(i18n.read_cells(src), i18n.read_catalogue(path), "course/notebooks/02_c.py")
    assert cell.source == (
        "import numpy as np  # noqa: F401\n\nx = 3  # tres ediciones, una por palabra\n"
        "# los votos de cada palabra\ny = x + 1  # 4"
    )


SOLVED = """
# %% simhash_lab={"answer": "f"} tags=["answer"]
def f(x):
    ### BEGIN SOLUTION
    return x + 1  # one more
    ### END SOLUTION
"""


def test_an_exercises_comments_are_units_but_its_solution_markers_are_not(i18n, repo):
    """Issue 47: the Spanish exercises kept their comments in English. An exercise's comments are
    units, its solutions' included; the markers ``### BEGIN/END SOLUTION``, which tools/build.py
    looks for after translation, are not: they stay as written."""
    src = repo / "course" / "exercises" / "02_c.py"
    src.write_text(COMMENTED + SOLVED, encoding="utf-8")
    rel = "course/exercises/02_c.py"
    assert [(u.kind, u.text) for u in i18n.units(i18n.read_cells(src), rel)] == [
        ("comment", "three edits, one per word"),
        ("comment", "the votes of every word"),
        ("comment", "one more"),
    ]
    i18n.update(src, "es", repo)
    path = i18n.catalogue_path(src, "es", repo)
    cat = i18n.read_catalogue(path)
    spanish = {
        "three edits, one per word": "tres ediciones, una por palabra",
        "the votes of every word": "los votos de cada palabra",
        "one more": "uno más",
    }
    assert sorted(e.msgid for e in cat) == sorted(spanish)
    for e in cat:
        e.msgstr = spanish[e.msgid]
    i18n.write_catalogue(cat, path)
    assert i18n.problems(repo, ["02"]) == []
    cells, problems = i18n.render(i18n.read_cells(src), i18n.read_catalogue(path), rel)
    assert problems == []
    assert cells[1].source == (
        "def f(x):\n    ### BEGIN SOLUTION\n    return x + 1  # uno más\n    ### END SOLUTION"
    )


# -- one Spanish term per concept -------------------------------------------------------------------


def test_the_term_list_names_each_word_to_avoid_outside_code_math_and_quotations(i18n, repo):
    terms = i18n.terms_path("es", repo)
    terms.parent.mkdir(parents=True)
    terms.write_text(
        "# a comment\nbucket | cubeta ‡ | bucket, buckets\nunrelated | no relacionado | sin relación\n",
        encoding="utf-8",
    )
    assert [t.term for t in i18n.read_terms("es", repo)] == ["cubeta", "no relacionado"]
    src = repo / "course" / "notebooks" / "01_x.py"
    i18n.update(src, "es", repo)
    prose = (
        "# 01 · Un título\n\nUn bucket, y dos `buckets` en código, $bucket$ en matemática,\n"
        "> y un bucket citado\n\ntextos sin\nrelación: [enlace](02_next.ipynb), 10 000 y 12000 y 50 %."
    )
    _translate(i18n, repo, {**SPANISH, next(iter(SPANISH)): prose})
    found = i18n.term_problems(repo, ("es",), ["01"])
    assert [f.split("): ", 1)[1] for f in found] == [
        "'bucket': write 'cubeta' for 'bucket'",
        "'sin\\nrelación': write 'no relacionado' for 'unrelated'",
        "'10 000': a space between thousands (the course writes 10,000)",
        "'12000': a number of 4+ digits without commas (10,000; years and bit strings apart)",
        "'0 %': a space before % (the course writes 50%)",
    ]
    assert all(f.startswith("es: course/i18n/es/notebooks/01_x.po (markdown cell 0)") for f in found)
    assert found == [p for p in i18n.problems(repo, ["01"])]  # `tools/i18n.py check` fails on them
    terms.write_text("bucket | cubeta\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"terms.txt:1: not `english \| term \| avoid"):
        i18n.read_terms("es", repo)


def test_the_term_list_checks_an_exercises_catalogue_too(i18n, repo):
    """An exercise's Spanish (its text, the sentences its cells print) is checked as a notebook's is."""
    i18n.terms_path("es", repo).parent.mkdir(parents=True)
    i18n.terms_path("es", repo).write_text("recall | exhaustividad ‡ | recall\n", encoding="utf-8")
    src = repo / "course" / "exercises" / "02_ex.py"
    src.write_text(
        '# %% [markdown]\n# # 02 · Recall\n\n# %%\nprint("recall of `recall`")\n', encoding="utf-8"
    )
    i18n.update(src, "es", repo)
    path = i18n.catalogue_path(src, "es", repo)
    cat = i18n.read_catalogue(path)
    for e in cat:
        e.msgstr = {"# 02 · Recall": "# 02 · Exhaustividad", "recall of `recall`": "el recall de `recall`"}[
            e.msgid
        ]
    i18n.write_catalogue(cat, path)
    found = i18n.term_problems(repo, ("es",), ["02"])
    assert [f.split("): ", 1)[1] for f in found] == ["'recall': write 'exhaustividad' for 'recall'"], found
    assert found[0].startswith("es: course/i18n/es/exercises/02_ex.po (code cell 1)"), found


def test_the_term_list_checks_the_graders_hints_in_the_librarys_catalogue(i18n, repo):
    """The library's entries of the grader (``simhash_lab/grading/``: a checker's hint, the teacher's
    table) and of the course's pictures are checked against the term list, as the notebooks are; a
    code name written out (``weights[j]``, a call) is code; the library's other texts are not the
    course's."""
    import polib

    terms = i18n.terms_path("es", repo)
    terms.parent.mkdir(parents=True)
    terms.write_text(
        "feature (what votes) | término | feature, features\narray | arreglo ‡ | array, arrays\n"
        "weight | peso | weight, weights\n",
        encoding="utf-8",
    )
    po = polib.POFile()
    for where, english, spanish in [
        ("simhash_lab/grading/checks/simhash_voting.py", "Sum every feature.", "Suma cada feature."),
        ("simhash_lab/grading/checks/near_duplicates.py", "An array of ints.", "Un array de ints."),
        ("simhash_lab/grading/classroom.py", "weights", "los pesos"),
        (
            "simhash_lab/grading/checks/simhash_voting.py",
            "Add weights[j] to V[i].",
            "Suma weights[j] a V[i].",
        ),
        ("simhash_lab/course/plot.py", "features", "features"),
        ("simhash_lab/dedup.py", "features", "features"),
    ]:
        po.append(polib.POEntry(msgid=english, msgstr=spanish, occurrences=[(where, "1")]))
    path = repo / i18n.LIBRARY_CATALOGUE.format(lang="es")
    path.parent.mkdir(parents=True)
    po.save(str(path))
    found = [f.split(" (", 1)[1] for f in i18n.term_problems(repo, ("es",))]
    feature = "write 'término' for 'feature (what votes)'"
    assert found == [
        f"simhash_lab/grading/checks/simhash_voting.py:1): 'feature': {feature}",
        "simhash_lab/grading/checks/near_duplicates.py:1): 'array': write 'arreglo' for 'array'",
        f"simhash_lab/course/plot.py:1): 'features': {feature}",
    ]


def test_the_librarys_course_and_grading_texts_use_the_term_list(i18n):
    """The repository's own catalogue: every hint and label a learner or a teacher reads in Spanish
    writes the course's term for each concept."""
    found = [p for p in i18n.term_problems(ROOT, ("es",)) if i18n.LIBRARY_CATALOGUE.format(lang="es") in p]
    assert found == [], "\n".join(found)


def test_the_glossary_gives_each_terms_spanish(i18n):
    """The glossary of notebook 07 (its Spanish column) writes, for each concept of the term list
    it has a row for, the term the list names."""
    import jupytext

    cells = jupytext.read(ROOT / "course" / "notebooks" / "07_review.py").cells
    table = next(c.source for c in cells if "## Glossary" in c.source)
    catalogue = i18n.read_catalogue(i18n.catalogue_path(ROOT / "course" / "notebooks" / "07_review.py", "es"))
    spanish = next(e.msgstr for e in catalogue if e.msgid == table)
    rows = {}  # each English name of a row (a row may name two: "hash table, bucket") -> its Spanish
    for r in spanish.splitlines():
        if r.startswith("| ") and r.count("|") >= 5:
            english, es = (c.strip() for c in r.strip("|").split("|")[:2])
            rows.update({name.strip(): es for name in english.split(",")})
    terms = i18n.read_terms("es")
    checked = [(t, rows[t.english.split(" (")[0]]) for t in terms if t.english.split(" (")[0] in rows]
    assert len(checked) >= 10, [t.english for t, _ in checked]
    wrong = [f"{t.english}: {es!r} lacks {t.term!r}" for t, es in checked if t.term.split(" (")[0] not in es]
    assert not wrong, "\n".join(wrong)
