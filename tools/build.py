#!/usr/bin/env python
"""Build every course notebook and exercise from its source in ``course/``, navigation included.

Every source is a Python file in jupytext's percent format, read with jupytext (so any editor and
``jupytext --to ipynb`` read it too), and gives:

=================================  ================================================================
``course/notebooks/NN_name.py``    ``notebooks/NN_name.ipynb``, executed, outputs stored
``course/exercises/NN_name.py``    ``exercises/NN_exercise_name.ipynb``: the student version, every
                                   ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region (nbgrader's
                                   markers) replaced by a stub (``raise NotImplementedError()`` in
                                   a function, ``NAME = ...`` at the top level);
                                   ``simhash_lab/grading/pristine/NN_name.ipynb``: the same file,
                                   shipped in the package (``simhash-lab grade`` restores every cell
                                   but the answers from it);
                                   ``exercises/solutions/NN_solution_name.ipynb``: the solution,
                                   executed
=================================  ================================================================

A learner's files of an exercise name their kind after the number
(:func:`simhash_lab.grading._notebooks.exercise_file`): JupyterLab's tab shows the file name, cut
after about twenty characters, and the tabs of a notebook, its exercise and the solution must tell
themselves apart. The exercise itself is ``NN_name`` everywhere else (its metadata, the grader's
pristine copy, its checkers).

**Languages** (:data:`LANGS`): the same files again in each other language, in a ``LANG/`` folder
beside the English ones (``notebooks/es/``, ``exercises/es/``, ``exercises/es/solutions/``,
``simhash_lab/grading/pristine/es/``), the prose and printed or plotted labels translated by the
source's gettext catalogue ``course/i18n/LANG/`` (``tools/i18n.py``: keyed by the English, a
missing, fuzzy or broken unit named with its source's file and cell), relative links to notebooks
pointing to the language's files, ``set_language(LANG)`` at the top of the first code cell (the
library's own labels and the checkers' hints follow), and this tool's own texts (navigation, stubs,
the check note) from ``course/i18n/LANG/build.po``. Such a file is not written while a unit of it
is untranslated. Every generated notebook carries ``metadata.simhash_lab`` ``{"lang", "source",
"generated"}``: its language, the source it came from, and that it is not to be edited. (Not
jupytext's ``formats`` pairing: JupyterLab with jupytext would then write a learner's edits of an
exercise back into its source.)

A cell of an exercise has a **role**, given by a cell tag in its header; see :data:`ROLES` (adding
a role is adding one entry there)::

    # %% [markdown]                                          text
    # %% tags=["setup"]                                      imports; locked in JupyterLab
    # %%                                                     a given cell (data, helpers); locked
    # %% simhash_lab={"answer": "is_near"} tags=["answer"]   the learner's cell, found by its key
    # %% tags=["check"]                                      one `checks.NAME(...)` call; locked

Other tags pass through (``nbval-ignore-output``: nbval does not compare that cell's output). The
generated cells carry their role in ``metadata.simhash_lab`` (``role``, and ``answer`` or
``check``/``expect``), which the grader reads.

Every notebook gets a navigation line at its top and bottom (cells tagged ``navigation``, generated
here, never typed): previous, the map or the paired notebook, next, in file-name order, then the
same file in each other language.

Execution: one notebook at a time, with nbclient, in a kernel of *this* Python (``sys.executable``,
not whatever kernelspec is installed as ``python3``), this repository first on ``PYTHONPATH``,
fixed ``PYTHONHASHSEED``, widget state stored (widgets render without a kernel), each cell's stream
outputs merged into one (as nbval compares them), in the folder the notebook is written to. A
notebook that takes longer than ``--budget`` seconds fails the build.

    python tools/build.py                 # everything (minutes: every notebook runs)
    python tools/build.py 02 04           # the files whose source name starts with 02 or 04, in
                                          # every language
    python tools/build.py 03 --lang es    # only the Spanish files of 03
    python tools/build.py --exercises 03  # only exercise 03 (student, pristine, solution)
    python tools/build.py --notebooks 03  # only notebook 03 (both languages)
    python tools/build.py --no-execute    # structure only, outputs left empty (fast)
    python tools/build.py --refresh       # seconds: prose, navigation and closing notes written into
                                          # the committed files, outputs kept (nothing runs)
    python tools/build.py --check         # seconds: exit 1, listing every committed file that
                                          # differs from its source (cells, sources, metadata,
                                          # tags, navigation) and every unit a catalogue does
                                          # not translate; outputs are nbval's job
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import functools
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jupytext
import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import i18n  # noqa: E402  (tools/i18n.py: the catalogues of the other languages)

sys.path.pop(0)
META = "simhash_lab"  # our key in notebook and cell metadata (the grader reads it)
NAV_TAG = "navigation"
START = "00_start_here"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# Cell metadata jupytext keeps only to write the text file back the same (blank lines between cells)
JUPYTEXT_KEYS = ("cell_marker", "lines_to_next_cell", "lines_to_end_of_cell_marker")
# Notebook metadata that running a notebook writes (so --check does not compare it)
EXECUTION_KEYS = ("language_info", "widgets")
HASH_SEED = "0"
#: The languages the course is built in: the sources' own first, then each with catalogues in
#: ``course/i18n/LANG/`` (``tools/i18n.py``); a language's files go to a ``LANG/`` folder beside
#: the English ones.
SOURCE_LANG = "en"
LANGS = (SOURCE_LANG, *i18n.LANGUAGES)
#: Put at the top of the first code cell of every notebook in another language: the library's own
#: labels, widgets, animations and the checkers' hints follow (``simhash_lab.course.set_language``).
SET_LANGUAGE = 'from simhash_lab.course import set_language\n\nset_language("{lang}")  # {comment}\n\n'
SET_LANGUAGE_COMMENT = {"es": "etiquetas, widgets y pistas de simhash-lab en español"}
GENERATED = "generated by tools/build.py from its source; do not edit: edit the source and rebuild"
#: The link in a notebook's navigation line to the same notebook in another language.
LANGUAGE_NAMES = {"en": "English", "es": "Español"}
CELL_TIMEOUT = 600  # seconds one cell may run (a cold Numba compile takes minutes)

_BEGIN = re.compile(r"^(\s*)### BEGIN SOLUTION\s*$")
_END = re.compile(r"^\s*### END SOLUTION\s*$")
_CHECK_CALL = re.compile(r"\bchecks\.(\w+)\(")


# -- where things are -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Layout:
    """The source and output folders under one repository root (a temporary copy in tests), for
    one language: the English ones, or a ``LANG/`` folder in each (``notebooks/es/``,
    ``exercises/es/``, ``exercises/es/solutions/``, ``simhash_lab/grading/pristine/es/``)."""

    root: Path = ROOT
    lang: str = SOURCE_LANG

    def __call__(self, lang: str) -> Layout:
        """The same root, for ``lang``."""
        return dataclasses.replace(self, lang=lang)

    def _in(self, folder: Path) -> Path:
        return folder if self.lang == SOURCE_LANG else folder / self.lang

    @property
    def course_sources(self) -> Path:
        return self.root / "course" / "notebooks"

    @property
    def exercise_sources(self) -> Path:
        return self.root / "course" / "exercises"

    @property
    def notebooks(self) -> Path:
        return self._in(self.root / "notebooks")

    @property
    def exercises(self) -> Path:
        return self._in(self.root / "exercises")

    @property
    def solutions(self) -> Path:
        return self.exercises / "solutions"

    @property
    def pristine(self) -> Path:
        return self._in(self.root / "simhash_lab" / "grading" / "pristine")

    def output_dirs(self) -> list[Path]:
        """The folders of this language."""
        return [self.notebooks, self.exercises, self.solutions, self.pristine]

    def all_output_dirs(self) -> list[Path]:
        """The folders of every language in :data:`LANGS`."""
        return [d for lang in LANGS for d in self(lang).output_dirs()]


def file_name(name: str, kind: str) -> str:
    """The file a source ``name`` gives, by ``kind``: ``course`` (``NN_name.ipynb``), or a learner's
    ``exercise`` or ``solution`` file (``NN_exercise_name.ipynb``, ``NN_solution_name.ipynb``)."""
    from simhash_lab.grading._notebooks import exercise_file

    return f"{name}.ipynb" if kind == "course" else exercise_file(name, kind)


# -- reading a source -------------------------------------------------------------------------------


@dataclasses.dataclass
class Source:
    """One source file, read: its cells (jupytext's), name (``NN_name``) and title (first heading)."""

    path: Path
    kind: str  # "course" or "exercise"
    cells: list
    lang: str = SOURCE_LANG  # the language of ``cells`` (see :func:`translated`)
    untranslated: tuple[str, ...] = ()  # the units ``cells`` leaves in English, one line each

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def title(self) -> str:
        for cell in self.cells:
            if cell.cell_type == "markdown":
                for line in cell.source.splitlines():
                    if line.startswith("# "):
                        return line[2:].strip()
        return self.name


def read_source(path: Path, kind: str) -> Source:
    """The cells of a percent-format source, as jupytext reads them, without jupytext's own
    bookkeeping metadata."""
    nb = jupytext.read(path, fmt="py:percent")
    for cell in nb.cells:
        for key in JUPYTEXT_KEYS:
            cell.metadata.pop(key, None)
    return Source(path, kind, list(nb.cells))


def read_sources(layout: Layout) -> list[Source]:
    """Every source, course notebooks first, each kind in file-name order."""
    return [
        read_source(p, kind)
        for kind, folder in (("course", layout.course_sources), ("exercise", layout.exercise_sources))
        for p in sorted(folder.glob("[0-9][0-9]_*.py"))
    ]


def translated(src: Source, layout: Layout) -> Source:
    """``src`` in ``layout.lang``: its cells rendered with the language's catalogue (``tools/i18n.py``:
    every ``_()`` marker removed; English when ``lang`` is the sources' own), every relative link
    of its markdown pointing from the language's folder to the language's notebooks and exercises
    (other files stay where they are), and, in another language, :data:`SET_LANGUAGE` at the top
    of its first code cell. A unit the catalogue does not translate stays English and is listed
    in ``untranslated`` (``--check`` fails on it; the build does not write the file)."""
    rel = src.path.resolve().relative_to(layout.root).as_posix()
    if layout.lang == SOURCE_LANG:
        cells, problems = i18n.render(src.cells, None, rel)
        return dataclasses.replace(src, cells=cells, untranslated=tuple(problems))
    catalogue = i18n.catalogue_path(src.path, layout.lang, layout.root)
    cat_rel = catalogue.relative_to(layout.root).as_posix()
    try:
        catalog = i18n.read_catalogue(catalogue)
    except Exception as e:  # a PO file that does not parse
        catalog, problems = None, [f"{cat_rel}: unreadable ({type(e).__name__}: {e})"[:300]]
    else:
        problems = [] if catalog is not None else [f"{rel}: no {layout.lang} catalogue ({cat_rel})"]
    english = Layout(layout.root)
    here = english.notebooks if src.kind == "course" else english.exercises
    there = layout.notebooks if src.kind == "course" else layout.exercises

    def link(target: str) -> str:
        path, hash_, anchor = target.partition("#")
        full = Path(os.path.normpath(here / path))
        for a, b in zip(english.output_dirs(), layout.output_dirs()):
            if full.parent == a and full.suffix == ".ipynb":
                full = b / full.name
                break
        return Path(os.path.relpath(full, there)).as_posix() + hash_ + anchor

    if catalog is None:
        cells, _ = i18n.render(src.cells, None, rel, links=link)
    else:
        cells, more = i18n.render(src.cells, catalog, rel, links=link)
        problems += [f"{layout.lang}: {p}" for p in more]
    first = next((c for c in cells if c.cell_type == "code"), None)
    if first is not None:
        comment = SET_LANGUAGE_COMMENT.get(layout.lang, "")
        first.source = SET_LANGUAGE.format(lang=layout.lang, comment=comment) + first.source
    return dataclasses.replace(src, cells=cells, lang=layout.lang, untranslated=tuple(problems))


# -- cell roles in exercises ------------------------------------------------------------------------


def _check_meta(source: str, where: str) -> dict:
    """A check cell is one call ``checks.NAME(...)`` with a registered NAME (it prints ✅ or ❌ and
    never raises, so Run All goes on); the generated cell records NAME and the exact line the
    checker prints on a pass."""
    from simhash_lab.grading.checks import CHECKS, pass_line

    calls = _CHECK_CALL.findall(source)
    if len(calls) != 1 or calls[0] not in CHECKS or not source.lstrip().startswith("checks."):
        raise ValueError(f"{where}: a check cell is one call `checks.NAME(...)` with a known NAME")
    return {"check": calls[0], "expect": pass_line(calls[0])}


@dataclasses.dataclass(frozen=True)
class Role:
    """What a role makes of an exercise's code cell.

    Parameters
    ----------
    tag : str or None
        The cell tag that gives a cell this role in the source (kept in the generated cell); None for
        the role of a code cell without a role tag.
    cell_id : str
        The generated cell's id, formatted with ``n`` (a counter shared by the roles with the same
        ``counter``) and the cell's ``simhash_lab`` metadata; ``_`` become ``-``.
    counter : str
        Roles that number their cells together.
    editable : bool
        False: locked in JupyterLab (``metadata.editable = false``); no role's cells are deletable.
    extra_tags : tuple of str
        Tags every cell of the role gets besides its own.
    keys : tuple of str
        ``simhash_lab`` metadata the source must give (the answer's key).
    solution : bool
        The cell holds a BEGIN/END SOLUTION region (required); other roles may not hold one.
    derive : callable, optional
        ``derive(student_source, where) -> dict``: more ``simhash_lab`` metadata, from the source.
    """

    tag: str | None
    cell_id: str
    counter: str
    editable: bool = False
    extra_tags: tuple[str, ...] = ()
    keys: tuple[str, ...] = ()
    solution: bool = False
    derive: Callable[[str, str], dict] | None = None


#: role name -> what it means. What a learner prints in an answer cell is not graded (nbval ignores
#: its output); the check cells assert.
ROLES: dict[str, Role] = {
    "setup": Role(tag="setup", cell_id="setup-{n:02d}", counter="code"),
    "given": Role(tag=None, cell_id="given-{n:02d}", counter="code"),
    "answer": Role(
        tag="answer",
        cell_id="answer-{answer}",
        counter="answer",
        editable=True,
        extra_tags=("nbval-ignore-output",),
        keys=("answer",),
        solution=True,
    ),
    "check": Role(tag="check", cell_id="check-{n:02d}-{check}", counter="check", derive=_check_meta),
}
_BY_TAG = {r.tag: name for name, r in ROLES.items() if r.tag}
_UNTAGGED = next(name for name, r in ROLES.items() if r.tag is None)


def _role_of(cell, where: str) -> str:
    found = [_BY_TAG[t] for t in cell.metadata.get("tags", []) if t in _BY_TAG]
    if len(found) > 1:
        raise ValueError(f"{where}: a cell has one role, this one has {found}")
    return found[0] if found else _UNTAGGED


def split_solution(
    source: str, where: str, lang: str = SOURCE_LANG, root: Path = ROOT
) -> tuple[str, str, bool]:
    """``(student source, solution source, had a region)``. In the student's, a region inside a
    function becomes ``# YOUR CODE HERE`` / ``raise NotImplementedError()`` at its indent (it raises
    only when the function is called, and the check cell turns that into a ❌); a region at the top
    level of the cell becomes ``NAME = ...`` for every name it assigns (a stub that runs, so Run
    All never stops on an untouched exercise: the check cell says "not written yet"). In the
    solution's, only the marker lines go. The stub's comment is in ``lang``."""
    student, solution, inside, found = [], [], False, False
    region: list[str] = []
    indent = ""
    for line in source.splitlines():
        begin = _BEGIN.match(line)
        if begin:
            if inside:
                raise ValueError(f"{where}: nested BEGIN SOLUTION")
            inside = found = True
            indent, region = begin.group(1), []
        elif _END.match(line):
            if not inside:
                raise ValueError(f"{where}: END SOLUTION without BEGIN")
            inside = False
            student += _stub(indent, region, where, lang, root)
        else:
            solution.append(line)
            if inside:
                region.append(line)
            else:
                student.append(line)
    if inside:
        raise ValueError(f"{where}: BEGIN SOLUTION without END")
    return "\n".join(student), "\n".join(solution), found


def _stub(
    indent: str, region: list[str], where: str, lang: str = SOURCE_LANG, root: Path = ROOT
) -> list[str]:
    """What a solution region becomes in the student's version (see :func:`split_solution`)."""
    if indent:
        return [f"{indent}# {_message('YOUR CODE HERE', lang, root)}", f"{indent}raise NotImplementedError()"]
    import ast

    try:
        tree = ast.parse("\n".join(region))
    except SyntaxError as e:
        raise ValueError(f"{where}: the solution region is not Python ({e.msg})") from None
    names: list[str] = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for t in targets:
            if isinstance(t, ast.Name) and t.id not in names:
                names.append(t.id)
    if not names or len(names) != len(tree.body):
        raise ValueError(
            f"{where}: a solution region at the top level of a cell must be assignments `NAME = ...` "
            "only (its stub sets each NAME to `...`); put code that computes from the data in a function"
        )
    note = _message("YOUR CODE HERE: replace each ... with your answer", lang, root)
    return [f"# {note}", *(f"{n} = ..." for n in names)]


# -- building notebooks -----------------------------------------------------------------------------


def _new_notebook(cells: list, extra_meta: dict | None = None) -> nbformat.NotebookNode:
    nb = new_notebook(cells=cells)
    nb.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}, **(extra_meta or {})}
    return nb


def course_notebook(src: Source) -> nbformat.NotebookNode:
    """A course notebook: the source's cells, ids ``NN-iii`` (stable, so rebuilds diff cleanly)."""
    cells = []
    for i, cell in enumerate(src.cells):
        if _BEGIN.search(cell.source) or _END.search(cell.source):
            raise ValueError(f"{src.path.name} cell {i}: solution regions belong in exercises")
        new = copy.deepcopy(cell)
        new["id"] = f"{src.name[:2]}-{i:03d}"
        cells.append(new)
    return _new_notebook(cells)


def exercise_notebooks(src: Source, root: Path = ROOT) -> tuple[nbformat.NotebookNode, nbformat.NotebookNode]:
    """The ``(student, solution)`` notebooks of an exercise, unexecuted (see :data:`ROLES`), in
    ``src.lang`` (the note at the end names the file in that language's folder under ``root``)."""
    student, solution = [], []
    counters: dict[str, int] = {}
    ids: dict[str, int] = {}
    for i, cell in enumerate(src.cells):
        where = f"{src.path.name} cell {i}"
        if cell.cell_type != "code":
            if set(cell.metadata.get("tags", [])) & set(_BY_TAG) or META in cell.metadata:
                raise ValueError(f"{where}: only code cells have roles")
            counters["markdown"] = n = counters.get("markdown", 0) + 1
            for out in (student, solution):
                out.append(
                    new_markdown_cell(cell.source, id=f"md-{n:02d}", metadata=copy.deepcopy(cell.metadata))
                )
            continue
        name = _role_of(cell, where)
        role = ROLES[name]
        where += f" ({name})"
        given = dict(cell.metadata.get(META, {}))
        if sorted(given) != sorted(role.keys):
            raise ValueError(
                f"{where}: {META} metadata must have the keys {list(role.keys)}, got {list(given)}"
            )
        s_src, sol_src, region = split_solution(cell.source, where, src.lang, root)
        if region != role.solution:
            raise ValueError(
                f"{where}: "
                + ("needs a BEGIN/END SOLUTION region" if role.solution else "holds a solution region")
            )
        from simhash_lab._i18n import language

        with language(src.lang):  # a check's pass line: the one its notebook's language prints
            meta = {"role": name, **given, **(role.derive(s_src, where) if role.derive else {})}
        counters[role.counter] = n = counters.get(role.counter, 0) + 1
        cid = role.cell_id.format(n=n, **meta).replace("_", "-")[:64]
        if cid in ids:  # the grader finds answers by key, then by id: both must be unique
            raise ValueError(f"{where}: cell id {cid!r} is used twice (cells {ids[cid]} and {i}: {given})")
        ids[cid] = i
        tags = list(cell.metadata.get("tags", []))
        tags += [t for t in role.extra_tags if t not in tags]
        md = {k: copy.deepcopy(v) for k, v in cell.metadata.items() if k not in ("tags", META)}
        md.update({"deletable": False, META: meta})
        if not role.editable:
            md["editable"] = False
        if tags:
            md["tags"] = tags
        for out, text in ((student, s_src), (solution, sol_src)):
            out.append(new_code_cell(text, id=cid, metadata=copy.deepcopy(md)))
    if not counters.get(ROLES["answer"].counter):
        raise ValueError(f"{src.path.name}: an exercise needs at least one answer cell")
    note = check_note(src.name, src.lang, root)
    meta = {META: {"exercise": src.name}}
    return tuple(
        _new_notebook([*cells, new_markdown_cell(note, id=NOTE_ID)], meta) for cells in (student, solution)
    )


def check_note(name: str, lang: str = SOURCE_LANG, root: Path = ROOT) -> str:
    """The last cell of an exercise: the command that checks the whole notebook, typed in a plain
    shell in the repository's folder (``make check`` finds ``.venv`` itself, on Linux and macOS),
    naming the exercise's file in ``lang`` (:data:`tools.i18n.CHECK_NOTE`, translated)."""
    path = (Layout(root, lang).exercises / file_name(name, "exercise")).relative_to(root).as_posix()
    return _message(i18n.CHECK_NOTE, lang, root).format(path=path)


def _message(text: str, lang: str, root: Path) -> str:
    """One of ``tools/i18n.py``'s ``BUILD_MESSAGES`` in ``lang``."""
    return i18n.message(text, None if lang == SOURCE_LANG else lang, root)


# -- navigation -------------------------------------------------------------------------------------


def navigation_line(
    src: Source, sources: list[Source], solution: bool = False, layout: Layout | None = None
) -> str:
    """Previous and next of the same kind, in file-name order, and between them the map (course
    notebooks) and the paired notebook of the same number (``NN_``) of the other kind, all in
    ``src.lang``; last, the same file in each other language of :data:`LANGS`. ``sources``: the
    sources in ``src.lang``."""
    layout = (layout or Layout())(src.lang)
    msg = functools.partial(_message, lang=src.lang, root=layout.root)

    kind = "course" if src.kind == "course" else "solution" if solution else "exercise"

    def folder(lay: Layout) -> Path:
        return lay.notebooks if kind == "course" else lay.solutions if solution else lay.exercises

    here = folder(layout)

    def to(path: Path) -> str:
        return Path(os.path.relpath(path, here)).as_posix()

    same = [s for s in sources if s.kind == src.kind]
    i = same.index(src)
    parts = [f"[← {same[i - 1].title}]({file_name(same[i - 1].name, kind)})"] if i > 0 else []
    pair = [s for s in sources if s.kind != src.kind and s.name[:3] == src.name[:3]]
    if src.kind == "course":
        if src.name != START and any(s.name == START for s in same):
            parts.append(f"[{msg('Start here: the map')}]({START}.ipynb)")
        if pair:
            parts.append(f"[{msg('Exercise')}]({to(layout.exercises / file_name(pair[0].name, 'exercise'))})")
    elif pair:
        parts.append(
            f"[{msg('Course notebook')}]({to(layout.notebooks / file_name(pair[0].name, 'course'))})"
        )
    if i + 1 < len(same):
        parts.append(f"[{same[i + 1].title} →]({file_name(same[i + 1].name, kind)})")
    others = [
        f"[{LANGUAGE_NAMES.get(lang, lang)}]({to(folder(layout(lang)) / file_name(src.name, kind))})"
        for lang in LANGS
        if lang != src.lang
    ]
    label = msg("*simhash-lab course*" if src.kind == "course" else "*simhash-lab exercises*")
    line = f"{label} · " + " | ".join(parts) + "".join(f" · {o}" for o in others)
    return line + (f"  \n{msg('*Solutions: every answer filled in and run.*')}" if solution else "")


_MAP_ROW = re.compile(r"^\| (\d\d) \|")


def map_problems(sources: list[Source]) -> list[str]:
    """The map of ``00_start_here`` (its table, one row ``| NN | ...`` per course notebook) against
    the course sources: one line per notebook without its row (or whose row does not link it), per
    row without a notebook, and when the rows are out of order. What a row says a learner will see
    and measure is written by hand; that every notebook has one is checked here."""
    course = [s for s in sources if s.kind == "course"]
    start = next((s for s in course if s.name == START), None)
    if start is None:
        return []
    rows = [
        line
        for cell in start.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if _MAP_ROW.match(line)
    ]
    where = f"course/notebooks/{START}.py"
    by_number = {_MAP_ROW.match(r).group(1): r for r in rows}
    found = []
    for s in course:
        row = by_number.get(s.name[:2])
        if row is None:
            title = s.title.split(" · ", 1)[-1]
            found.append(
                f"{where}: the map has no row for {s.name}; add `| {s.name[:2]} | [{title}]({s.name}.ipynb) "
                "| what you will see | what you will measure |` (tools/new_concept.py does)"
            )
        elif s.name != START and f"]({s.name}.ipynb)" not in row:
            found.append(f"{where}: the map's row {s.name[:2]} does not link {s.name}.ipynb")
    numbers = {s.name[:2] for s in course}
    found += [f"{where}: the map's row {n} names no notebook" for n in by_number if n not in numbers]
    if [_MAP_ROW.match(r).group(1) for r in rows] != sorted(by_number):
        found.append(f"{where}: the map's rows are not in the notebooks' order")
    return found


def add_navigation(nb: nbformat.NotebookNode, line: str) -> nbformat.NotebookNode:
    """Put ``line`` at the top and bottom of ``nb`` (replacing the navigation cells it has)."""
    nb.cells = [c for c in nb.cells if NAV_TAG not in c.metadata.get("tags", [])]
    for pos, where in ((0, "top"), (len(nb.cells) + 1, "bottom")):
        nb.cells.insert(pos, new_markdown_cell(line, id=f"nav-{where}", metadata={"tags": [NAV_TAG]}))
    return nb


# -- the plan: every file from every source ---------------------------------------------------------


@dataclasses.dataclass
class Target:
    """One file to write: its content before execution, and the folder to run it in (None: the
    file is not executed)."""

    path: Path
    nb: nbformat.NotebookNode
    source: Source
    run_in: Path | None


def generated_meta(src: Source, root: Path) -> dict:
    """What every generated notebook carries in ``metadata.simhash_lab``: its language, the source
    it was generated from (relative to the repository), and that it is generated."""
    return {
        "lang": src.lang,
        "source": src.path.resolve().relative_to(root).as_posix(),
        "generated": GENERATED,
    }


def plan(layout: Layout, langs: tuple[str, ...] | list[str] = LANGS) -> list[Target]:
    """Every file the sources give in each of ``langs``, built in memory (not executed),
    navigation included."""
    english = read_sources(layout)
    targets = []
    for lang in langs:
        here = layout(lang)
        sources = [translated(s, here) for s in english]
        for src in sources:
            meta = generated_meta(src, layout.root)
            if src.kind == "course":
                nb = add_navigation(course_notebook(src), navigation_line(src, sources, layout=here))
                nb.metadata.setdefault(META, {}).update(meta)
                targets.append(Target(here.notebooks / f"{src.name}.ipynb", nb, src, here.notebooks))
                continue
            student, solution = exercise_notebooks(src, layout.root)
            add_navigation(student, navigation_line(src, sources, layout=here))
            add_navigation(solution, navigation_line(src, sources, solution=True, layout=here))
            for nb in (student, solution):
                nb.metadata[META].update(meta)
            targets += [
                Target(here.exercises / file_name(src.name, "exercise"), student, src, None),
                Target(here.pristine / f"{src.name}.ipynb", copy.deepcopy(student), src, None),
                Target(here.solutions / file_name(src.name, "solution"), solution, src, here.solutions),
            ]
    for t in targets:
        nbformat.validate(t.nb)
    return targets


def select(targets: list[Target], only: list[str]) -> list[Target]:
    """The targets whose source name starts with one of ``only`` (all when empty)."""
    return [t for t in targets if not only or any(t.source.name.startswith(o) for o in only)]


def untranslated(targets: list[Target]) -> list[str]:
    """One line per unit a target leaves in English (its file, the source's file and cell, why),
    each unit once however many files show it."""
    seen: dict[str, None] = {}
    for t in targets:
        for p in t.source.untranslated:
            seen.setdefault(p, None)
    return list(seen)


# -- --check: committed files against their sources -------------------------------------------------


def structure(nb) -> tuple:
    """What --check compares: notebook metadata (less what execution writes), and each cell's id,
    type, source and metadata (tags included); not outputs or execution counts."""
    meta = {k: v for k, v in nb.get("metadata", {}).items() if k not in EXECUTION_KEYS}
    cells = [
        (c.get("id"), c.get("cell_type"), _text(c.get("source", "")), c.get("metadata", {}))
        for c in nb.get("cells", [])
    ]
    return _canonical(meta), [(i, t, s, _canonical(m)) for i, t, s, m in cells]


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else source


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)


def difference(fresh, committed) -> str | None:
    """The first way ``committed`` differs from ``fresh`` in :func:`structure`, in words; None if
    they agree."""
    (m1, c1), (m2, c2) = structure(fresh), structure(committed)
    if m1 != m2:
        return f"notebook metadata differs: source gives {m1}, file has {m2}"
    for i, (a, b) in enumerate(zip(c1, c2)):
        for what, x, y in zip(("id", "cell type", "source", "metadata"), a, b):
            if x != y:
                return f"cell {i} ({a[0]}): {what} differs: {_first_difference(x, y)}"
    if len(c1) != len(c2):
        return f"{len(c2)} cells, the source gives {len(c1)}"
    return None


def _first_difference(fresh: str, committed: str) -> str:
    """Where two texts first differ: the line, and both texts around that place."""
    a, b = fresh.splitlines(), committed.splitlines()
    n = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    x, y = (lines[n] if n < len(lines) else "<end>" for lines in (a, b))
    col = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    start = max(0, col - 40)
    cut = "..." if start else ""
    return f"line {n + 1}: source gives {cut + x[start : col + 60]!r}, file has {cut + y[start : col + 60]!r}"


def stale(layout: Layout, targets: list[Target], complete: bool = True) -> list[str]:
    """One line per committed file that differs from what its source gives, is missing, or (when
    ``complete``, i.e. every target was built) has no source at all."""
    problems = []
    for t in targets:
        rel = t.path.relative_to(layout.root)
        if not t.path.exists():
            problems.append(f"{rel}: missing")
            continue
        try:
            committed = nbformat.read(t.path, as_version=4)
        except Exception as e:  # not JSON, not a notebook
            problems.append(f"{rel}: unreadable ({type(e).__name__}: {e})"[:300])
            continue
        why = difference(t.nb, committed)
        if why:
            problems.append(f"{rel}: {why}")
    if complete:
        expected = {t.path for t in targets}
        for d in layout.all_output_dirs():
            for p in sorted(d.glob("*.ipynb")):
                if p not in expected:
                    problems.append(f"{p.relative_to(layout.root)}: no source in course/")
    return problems


# -- execution --------------------------------------------------------------------------------------


def _kernel_manager(root: Path):
    """A kernel manager for a kernel of this Python, whatever kernelspec is installed as ``python3``:
    ``root`` first on its PYTHONPATH, a fixed hash seed, inline figures."""
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    spec = KernelSpec(
        argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        display_name=f"simhash-lab build ({sys.executable})",
        language="python",
        env={
            "PYTHONHASHSEED": HASH_SEED,
            "PYTHONPATH": path,
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
        },
    )

    class ThisPython(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return spec

    return KernelManager(kernel_name="simhash-lab-build", kernel_spec_manager=ThisPython())


#: Seconds a code cell may run without showing progress (the first code cell, the imports, is
#: exempt: notebook 00 says how long it takes).
CELL_BUDGET = 5.0


def execute(
    nb: nbformat.NotebookNode, cwd: Path, root: Path, cell_timeout: float, seconds: dict | None = None
) -> float:
    """Run ``nb`` in place, top to bottom, in a fresh kernel started in ``cwd``; raise on the first
    error. Returns the seconds it took; ``seconds``, if given, gets each code cell's, by index."""
    from nbclient import NotebookClient

    km = _kernel_manager(root)
    started: dict[int, float] = {}

    def start(cell, cell_index, **_):
        started[cell_index] = time.perf_counter()

    def done(cell, cell_index, **_):
        if seconds is not None and cell_index in started:
            seconds[cell_index] = time.perf_counter() - started[cell_index]

    client = NotebookClient(
        nb,
        km=km,
        timeout=cell_timeout,
        allow_errors=False,
        record_timing=False,
        store_widget_state=True,
        coalesce_streams=True,  # one stdout output per cell, however the kernel chunked it
        resources={"metadata": {"path": str(cwd)}},
        on_cell_start=start,
        on_cell_complete=done,
    )
    t0 = time.perf_counter()
    try:
        client.execute()
    finally:
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    return time.perf_counter() - t0


def silent_slow_cells(nb: nbformat.NotebookNode, seconds: dict, budget: float = CELL_BUDGET) -> list[str]:
    """``cell N took 7.3 s`` for each code cell but the first that ran longer than ``budget`` and
    showed no progress: its stdout does not hold the mark an erased line of progress leaves
    (``simhash_lab.course.widgets.Progress``)."""
    from simhash_lab.course.widgets import PROGRESS_MARK

    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    out = []
    for i in code[1:]:
        if seconds.get(i, 0.0) <= budget:
            continue
        streams = [o for o in nb.cells[i].get("outputs", []) if o.get("name") == "stdout"]
        if not any(PROGRESS_MARK in o.get("text", "") for o in streams):
            out.append(f"cell {i} ({nb.cells[i].get('id')}) took {seconds[i]:.1f} s and showed no progress")
    return out


def check_outputs(nb: nbformat.NotebookNode, where: str) -> None:
    """Each executed check cell printed exactly its pass line and nothing else."""
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get(META, {})
        if meta.get("role") != "check":
            continue
        out = [(o.get("output_type"), o.get("name"), o.get("text")) for o in cell.outputs]
        if out != [("stream", "stdout", meta["expect"])]:
            raise RuntimeError(f"{where}: check {meta['check']} printed {out}, expected {meta['expect']!r}")


# -- the command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/build.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("only", nargs="*", metavar="NN", help="build only sources whose name starts with NN")
    kind = ap.add_mutually_exclusive_group()
    kind.add_argument(
        "--exercises", action="store_true", help="only the exercises (student, pristine and solved files)"
    )
    kind.add_argument("--notebooks", action="store_true", help="only the course notebooks")
    ap.add_argument("--no-execute", action="store_true", help="write the files without running them")
    ap.add_argument("--check", action="store_true", help="compare the committed files with the sources")
    ap.add_argument(
        "--refresh",
        action="store_true",
        help="run nothing: write the navigation lines, closing notes and markdown cells as the sources "
        "give them now into the committed files whose code cells match (outputs kept)",
    )
    ap.add_argument(
        "--lang",
        action="append",
        choices=LANGS,
        help="only this language (repeatable; default: every language, " + ", ".join(LANGS) + ")",
    )
    ap.add_argument("--budget", type=float, default=60.0, help="seconds a notebook may take (default 60)")
    ap.add_argument(
        "--cell-budget",
        type=float,
        default=CELL_BUDGET,
        help=f"seconds a notebook's cell may run without showing progress (default {CELL_BUDGET:g})",
    )
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # a copy, in tests
    args = ap.parse_args(argv)
    if args.budget <= 0 or args.cell_budget <= 0:
        ap.error(f"--budget and --cell-budget must be positive, got {args.budget} and {args.cell_budget}")
    layout = Layout(args.root.resolve())
    try:
        # the map first: a notebook without its row is named before anything else is planned
        problems = map_problems(read_sources(layout))
        for p in problems:
            print(f"tools/build.py: {p}", file=sys.stderr)
        if problems:
            return 2
        targets = plan(layout)
    except ValueError as e:  # a source (or a marker in it) the build cannot read: say where, write nothing
        print(f"tools/build.py: {e}", file=sys.stderr)
        return 2
    chosen = select(targets, args.only)
    if args.exercises or args.notebooks:
        chosen = [t for t in chosen if t.source.kind == ("exercise" if args.exercises else "course")]
    if args.lang:
        chosen = [t for t in chosen if t.source.lang in args.lang]
    if (args.only or args.exercises or args.notebooks) and not chosen:
        ap.error(f"no source in course/ starts with {' or '.join(args.only)}")
    subset = bool(args.only or args.exercises or args.notebooks or args.lang)
    if args.check:
        problems = stale(layout, chosen, complete=not subset)
        missing = untranslated(chosen)
        langs = [lang for lang in args.lang or LANGS if lang != SOURCE_LANG]
        if not (args.only or args.exercises):  # tools/build.py's own texts (navigation, notes)
            missing += [
                p for p in i18n.problems(layout.root, (), langs) if p not in missing and "build.po" in p
            ]
        # the term list (course/i18n/LANG/terms.txt) and the number format, notebooks and exercises
        missing += [p for p in i18n.term_problems(layout.root, langs, args.only) if p not in missing]
        for p in missing:
            print("UNTRANSLATED", p)
        for p in problems:
            print("STALE", p)
        print(
            f"{len(chosen)} files checked, {len(problems)} stale, {len(missing)} untranslated"
            + ("; rebuild with `make notebooks` (python tools/build.py)" if problems else "")
            + ("; translate with `tools/i18n.py update` and course/i18n/README.md" if missing else "")
        )
        return 1 if problems or missing else 0
    if args.refresh:  # nothing runs: every file gets the cells no run changes
        _refresh_navigation(layout, chosen)
        return 0
    status = _build(layout, chosen, args)
    built = {t.path for t in chosen}
    _refresh_navigation(layout, [t for t in targets if t.path not in built])
    return status


def warm_kernels(root: Path) -> None:
    """Run ``simhash-lab warmup`` for the checkout at ``root`` (every kernel compiled once, into its
    cache) before any notebook runs, so that no notebook's time is a compiler's: a second or two
    when the cache is warm, minutes the first time. Compiling is its job, so a
    ``SIMHASH_LAB_ON_COMPILE`` policy of the caller (``error`` in ``make test``) does not apply to it."""
    env = {k: v for k, v in os.environ.items() if k != "SIMHASH_LAB_ON_COMPILE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH", "")) if p)
    print("warming the kernels first (simhash-lab warmup):", flush=True)
    import subprocess

    subprocess.run([sys.executable, "-m", "simhash_lab.cli", "warmup"], cwd=root, env=env, check=True)


def _build(layout: Layout, targets: list[Target], args: argparse.Namespace) -> int:
    """Write (and run) ``targets``; a file in another language with a unit its catalogue does not
    translate is not written (it would show English): each such unit is named, and the exit
    status is 1. Before the first notebook runs, the kernels are warmed (:func:`warm_kernels`)."""
    slow, total, refused = [], 0.0, []
    for d in layout.all_output_dirs():
        d.mkdir(parents=True, exist_ok=True)
    if not args.no_execute and any(t.run_in is not None and not t.source.untranslated for t in targets):
        warm_kernels(layout.root)
    for t in targets:
        rel = t.path.relative_to(layout.root)
        if t.source.untranslated:
            refused.append(str(rel))
            continue
        secs = None
        if t.run_in is not None and not args.no_execute:
            cells: dict[int, float] = {}
            secs = execute(t.nb, t.run_in, layout.root, cell_timeout=CELL_TIMEOUT, seconds=cells)
            check_outputs(t.nb, str(rel))
            total += secs
            if secs > args.budget:
                slow.append(f"{rel} took {secs:.1f} s (budget {args.budget:g} s)")
            if t.source.kind == "course":  # a learner waits on each of these cells
                slow += [f"{rel}: {c}" for c in silent_slow_cells(t.nb, cells, args.cell_budget)]
        nbformat.validate(t.nb)
        nbformat.write(t.nb, t.path)
        print(
            f"{rel}: {len(t.nb.cells)} cells" + ("" if secs is None else f", ran in {secs:.1f} s"), flush=True
        )
    if not args.no_execute:
        print(f"total {total:.1f} s")
    for s in slow:
        print("TOO SLOW:", s, file=sys.stderr)
    if refused:
        for p in untranslated([t for t in targets if t.source.untranslated]):
            print("UNTRANSLATED", p, file=sys.stderr)
        print("NOT WRITTEN (untranslated; see course/i18n/README.md): " + ", ".join(refused), file=sys.stderr)
    return 1 if slow or refused else 0


#: The id of the cell the build writes at the end of every exercise (:func:`check_note`).
NOTE_ID = "grade-note"


def _written_by_build(cell) -> bool:
    """A cell the build writes itself, from its own texts (``course/i18n/LANG/build.po``): the
    navigation lines and an exercise's closing note."""
    return NAV_TAG in cell.metadata.get("tags", []) or cell.get("id") == NOTE_ID


def _unexecuted(cell) -> bool:
    """A cell whose content no run changes: the build's own (:func:`_written_by_build`) and every
    markdown cell (a number a notebook computes is a code cell's output, never its markdown)."""
    return _written_by_build(cell) or cell.get("cell_type") == "markdown"


def _refresh_navigation(layout: Layout, targets: list[Target]) -> None:
    """Files not rebuilt this time keep their outputs but get the cells no run changes as the
    sources, their catalogues and ``build.po`` give them now (:func:`_unexecuted`: a notebook added
    or renamed changes its neighbours' navigation lines; a revised translation of the closing note
    changes every exercise's last cell; a link in a notebook's prose to a renamed file); a file that
    differs from its source in more than those cells (a code cell, a cell added) is left alone
    (``--check`` reports it)."""
    for t in targets:
        if not t.path.exists():
            continue
        committed = nbformat.read(t.path, as_version=4)
        if difference(t.nb, committed) is None:
            continue
        fresh = {c.get("id"): c for c in t.nb.cells if _unexecuted(c)}
        updated = copy.deepcopy(committed)
        updated.cells = [
            copy.deepcopy(fresh.get(c.get("id"), c)) if _unexecuted(c) else c for c in updated.cells
        ]
        if difference(t.nb, updated) is None:
            nbformat.write(updated, t.path)
            print(f"{t.path.relative_to(layout.root)}: the cells no run changes updated", flush=True)


if __name__ == "__main__":
    sys.exit(main())
