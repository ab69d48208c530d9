#!/usr/bin/env python
"""The course in other languages: one gettext catalogue per source, keyed by the English text.

The English sources in ``course/`` stay the only sources: code is written once. Each source has a
catalogue per language, in gettext's PO format (what Poedit, Lokalize, Weblate and ``msgfmt`` read),
read and written with ``polib``:

=================================  ================================================================
``course/notebooks/NN_name.py``    ``course/i18n/es/notebooks/NN_name.po``
``course/exercises/NN_name.py``    ``course/i18n/es/exercises/NN_name.po``
=================================  ================================================================

A source's **translatable units** (:func:`units`) are

- the text of every markdown cell, whole (a translator may reorder its sentences freely);
- in code cells, printed prose and plot titles and labels (:func:`literals`).
  The marker exists only in the source: :func:`render` writes the literal without it, in English
  and translated alike, so the generated notebooks need no ``_``. An f-string may be marked,
  ``_(f"{n} edits")``, and its translation must keep the same ``{...}`` fields (so the numbers the
  run computes appear in every language); so may a ``.format`` template, ``_("{n} edits").format(n=n)``.
  The prose arguments of ``print``, of ``set_title``/``set_xlabel``/... and the keywords
  ``title=``, ``xlabel=``, ``label=``, ... (:data:`PROSE_KEYWORDS`) need no marker: a literal
  there is a unit when it holds a letter outside its fields. ``_`` marks the rest (a dict key
  that becomes a legend label: mark each use, one entry translates them all).

An entry's ``msgid`` is the English unit, its ``msgstr`` the translation; its ``#:`` and ``#.``
comments say which cell it came from. When the English of a cell changes, ``update`` (as gettext's
``msgmerge`` does) keeps the old translation beside the new English as a **fuzzy** entry with the
old English as ``#| msgid``; the translator revises it and drops the fuzzy flag. :func:`problems` lists every
unit without a finished translation (missing, fuzzy or empty), with its file and cell, and every
translation that breaks the unit's structure (other ``{...}`` fields, other link targets, other
``<details>`` blocks, a code cell that no longer parses); ``tools/build.py --check`` fails on them.

    python tools/i18n.py update [NN ...]   # create or merge the catalogues from the sources
    python tools/i18n.py check [NN ...]    # exit 1 listing every unit not (or no longer) translated
    python tools/i18n.py stats             # translated / fuzzy / missing per catalogue
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import io
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("es",)
MARKER = "_"  # the function name that marks a literal for translation: _("...")
KINDS = {"course": "notebooks", "exercise": "exercises"}  # source kind -> folder under course/


# -- units ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Unit:
    """One translatable piece of a source.

    ``file`` is the source's path relative to the repository root, ``cell`` the cell's index in the
    source as jupytext reads it (the numbering ``tools/build.py`` uses), ``kind`` ``"markdown"`` or
    ``"code"``, ``text`` the English: a markdown cell's source, or a marked literal's body as
    written between its quotes (escapes and f-string fields included).
    """

    file: str
    cell: int
    kind: str
    text: str

    @property
    def where(self) -> str:
        first = self.text.strip().splitlines()[0] if self.text.strip() else ""
        first = first if len(first) <= 60 else first[:57] + "..."
        return f"{self.file} cell {self.cell} ({self.kind}: {first!r})"


#: Calls whose string-literal arguments are prose, translated without a marker: ``print``'s
#: positional arguments, the first argument of these methods, and these keyword arguments (plot
#: titles, axis and legend labels, a benchmark's unit, an animation's frame caption).
PROSE_CALLS = ("print",)
PROSE_METHODS = ("set_title", "set_xlabel", "set_ylabel", "suptitle")
PROSE_KEYWORDS = ("title", "xlabel", "ylabel", "label", "unit", "description")


@dataclasses.dataclass(frozen=True)
class _Literal:
    """A translatable string literal in a code cell. ``span``: the offsets in the cell's source that
    rendering replaces (the call ``_(...)`` for a marked literal, else the literal itself);
    ``parts``: the literal as written, ``(prefix, quote, body)`` per piece (implicitly joined
    literals have several); ``column``: where the literal starts on its line; ``lines``: how many
    lines its pieces take."""

    span: tuple[int, int]
    parts: tuple[tuple[str, str, str], ...]
    column: int
    lines: int
    marker: bool

    @property
    def text(self) -> str:
        """The unit's English: the bodies of the pieces, joined."""
        return "".join(body for _, _, body in self.parts)

    def write(self, body: str) -> str:
        """The literal with ``body`` as its text, in the first piece's prefix and quotes; spread over
        as many lines as the English takes, broken between words, never inside a ``{...}`` field."""
        prefix = next((p for p, _, b in self.parts if "f" in p.lower()), self.parts[0][0])
        quote = self.parts[0][1]
        if self.lines == 1:
            return prefix + quote + body + quote
        width = max(len(b) for _, _, b in self.parts)
        pieces, line = [], ""
        for atom in _atoms(body):
            if line and not atom.isspace() and len(line) + len(atom) > width:
                pieces.append(line)
                line = atom
            else:
                line += atom
        pieces.append(line)
        return ("\n" + " " * self.column).join(prefix + quote + piece + quote for piece in pieces)


def _atoms(body: str) -> list[str]:
    """``body`` cut where a line may break: runs of spaces, words, and whole ``{...}`` fields
    (nested braces, as in ``{x:{w}s}``, stay inside their field; ``{{`` is text)."""
    atoms, i = [], 0
    while i < len(body):
        if body.startswith(("{{", "}}"), i):
            j = i + 2
        elif body[i] == "{":
            depth, j = 0, i
            while j < len(body):
                depth += {"{": 1, "}": -1}.get(body[j], 0)
                j += 1
                if depth == 0:
                    break
        else:
            space = body[i].isspace()
            j = i + 1
            while j < len(body) and body[j].isspace() == space and body[j] not in "{}":
                j += 1
        atoms.append(body[i:j])
        i = j
    return atoms


def _offsets(source: str) -> list[int]:
    """Offset of the start of each line (1-based line numbers index it from 1)."""
    starts, pos = [0, 0], 0
    for line in source.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def _pieces(segment: str) -> list[tuple[str, str, str]] | None:
    """The pieces ``(prefix, quote, body)`` of a string literal as written (several when literals
    are joined, ``"a" "b"``); None when they cannot be joined into one translatable text: bytes,
    raw and non-raw pieces mixed, or a plain piece with braces beside an f-string."""
    wrapped = "(" + segment + ")"  # inside brackets, pieces on several lines are one expression
    toks = [
        t
        for t in tokenize.generate_tokens(io.StringIO(wrapped).readline)
        if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT)
    ][1:-1]
    lines = _offsets(wrapped)
    fstart = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+: an f-string is many tokens
    spans, depth, begin = [], 0, None
    for t in toks:
        at = lines[t.start[0]] + t.start[1]
        if fstart is not None and t.type == fstart:
            begin = at if depth == 0 else begin
            depth += 1
        elif fstart is not None and t.type == tokenize.FSTRING_END:
            depth -= 1
            if depth == 0:
                spans.append((begin, lines[t.end[0]] + t.end[1]))
        elif depth == 0 and t.type == tokenize.STRING:
            spans.append((at, lines[t.end[0]] + t.end[1]))
        elif depth == 0:
            return None
    out = []
    for x, y in spans:
        text = wrapped[x:y]
        m = re.match(r"([A-Za-z]*)('\'\'|\"\"\"|'|\")", text)
        out.append((m.group(1), m.group(2), text[m.end() : len(text) - len(m.group(2))]))
    kinds = {p.lower() for p, _, _ in out}
    if not out or any("b" in k for k in kinds) or len({"r" in k for k in kinds}) > 1:
        return None
    if any("f" in k for k in kinds) and any("f" not in p.lower() and re.search("[{}]", b) for p, _, b in out):
        return None
    return out


def literals(source: str, where: str = "code cell") -> list[_Literal]:
    """The translatable literals of a code cell's source, in order: every ``_("...")`` (the marker:
    one string literal, plain or f-string, joined pieces allowed), and the prose arguments of
    :data:`PROSE_CALLS`, :data:`PROSE_METHODS` and :data:`PROSE_KEYWORDS` that hold a letter outside
    their ``{...}`` fields. A marker of anything else is an error naming ``where`` (it would not be
    translated); a cell that is not plain Python (IPython magics) has none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        if re.search(rf"\b{MARKER}\(", source):
            raise ValueError(f"{where}: marks a literal but does not parse as Python") from None
        return []
    starts, text_lines = _offsets(source), source.splitlines(keepends=True)

    def at(line: int, col: int) -> int:  # ast's columns count UTF-8 bytes
        return starts[line] + len(text_lines[line - 1].encode()[:col].decode())

    found: dict[tuple[int, int], _Literal] = {}

    def add(node, call=None) -> bool:
        if not isinstance(node, (ast.Constant, ast.JoinedStr)) or (
            isinstance(node, ast.Constant) and not isinstance(node.value, str)
        ):
            return False
        a, b = at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)
        parts = _pieces(source[a:b])
        if parts is None:
            return False
        lit = _Literal(
            (a, b)
            if call is None
            else (at(call.lineno, call.col_offset), at(call.end_lineno, call.end_col_offset)),
            tuple(parts),
            a - starts[node.lineno],
            node.end_lineno - node.lineno + 1,
            call is not None,
        )
        if call is not None or re.search(r"[^\W\d_]", re.sub(r"\\.", "", _FIELD.sub("", lit.text))):
            found[lit.span] = lit
        return True

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if isinstance(func, ast.Name) and name == MARKER:
            if len(node.args) != 1 or node.keywords or not add(node.args[0], node):
                raise ValueError(
                    f"{where}: line {node.lineno}: {MARKER}(...) takes one string literal (str, "
                    "f-string, or pieces of them joined; not bytes, not raw beside non-raw)"
                )
            continue
        if isinstance(func, ast.Name) and name in PROSE_CALLS:
            for arg in node.args:
                add(arg)
        elif isinstance(func, ast.Attribute) and name in PROSE_METHODS and node.args:
            add(node.args[0])
        for kw in node.keywords:
            if kw.arg in PROSE_KEYWORDS:
                add(kw.value)
    return [found[k] for k in sorted(found)]


#: The source folders whose code cells' comments are units (a learner reads them beside the
#: code): the course notebooks and the exercises (their solutions' comments too).
COMMENT_FOLDERS = ("notebooks", "exercises")
_COMMENT = re.compile(r"#+\s*")
#: The comments (their text after ``#``) that are instructions to tools, not prose, and stay as
#: written in every language: linters', type checkers', formatters' and coverage's (``noqa``,
#: ``type:``, ``fmt:``, ``pragma``), and the solution regions' markers ``BEGIN SOLUTION`` and
#: ``END SOLUTION``, which ``tools/build.py`` looks for after translation (nbgrader's, in English).
_TOOL_COMMENT = re.compile(r"(?:noqa|type:|fmt:|pragma)\b|(?:BEGIN|END) SOLUTION$")


@dataclasses.dataclass(frozen=True)
class _Comment:
    """A comment of a code cell: ``span``, the offsets of its text after ``#`` and the spaces that
    follow it (what rendering replaces), and that ``text``."""

    span: tuple[int, int]
    text: str


def comments(source: str) -> list[_Comment]:
    """The comments of a code cell that hold a letter, in order, but instructions to tools
    (:data:`_TOOL_COMMENT`: ``# noqa: ...``, ``### BEGIN SOLUTION``); none in a cell that does not
    tokenize."""
    starts, found = _offsets(source), []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    for t in tokens:
        if t.type != tokenize.COMMENT:
            continue
        lead = _COMMENT.match(t.string).end()
        text = t.string[lead:].rstrip()
        if not re.search(r"[^\W\d_]", text) or _TOOL_COMMENT.match(text):
            continue
        at = starts[t.start[0]] + t.start[1] + lead
        found.append(_Comment((at, at + len(text)), text))
    return found


def _comments_are_units(file: str) -> bool:
    return Path(file).parent.name in COMMENT_FOLDERS


def units(cells, file: str) -> list[Unit]:
    """The translatable units of a source's cells (jupytext's), in order: markdown cells, the
    literals of code cells (:func:`literals`), and in the folders of :data:`COMMENT_FOLDERS` the
    comments of code cells (:func:`comments`)."""
    out = []
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown":
            if cell.source.strip():
                out.append(Unit(file, i, "markdown", cell.source))
        elif cell.cell_type == "code":
            found = [(lit.span, "code", lit.text) for lit in literals(cell.source, f"{file} cell {i}")]
            if _comments_are_units(file):
                found += [(c.span, "comment", c.text) for c in comments(cell.source)]
            out += [Unit(file, i, kind, text) for _, kind, text in sorted(found)]
    return out


def read_cells(path: Path) -> list:
    """A source's cells, read as ``tools/build.py`` reads them (jupytext, percent format)."""
    import jupytext

    return list(jupytext.read(path, fmt="py:percent").cells)


def sources(root: Path = ROOT, only: tuple[str, ...] | list[str] = ()) -> list[Path]:
    """Every source under ``course/`` (notebooks, then exercises), or those whose name starts with
    one of ``only``."""
    return [
        p
        for folder in KINDS.values()
        for p in sorted((root / "course" / folder).glob("[0-9][0-9]_*.py"))
        if not only or any(p.name.startswith(o) for o in only)
    ]


def catalogue_path(source: Path, lang: str, root: Path = ROOT) -> Path:
    """``course/notebooks/NN_name.py`` -> ``course/i18n/LANG/notebooks/NN_name.po``."""
    return root / "course" / "i18n" / lang / source.parent.name / f"{source.stem}.po"


# -- catalogues -------------------------------------------------------------------------------------

HEADER = (
    "The simhash-lab course: the translation of one source of course/, keyed by its English.\n"
    "Made and merged by `tools/i18n.py update`; checked by `tools/i18n.py check`."
)


def _new_catalogue(lang: str):
    import polib

    po = polib.POFile(wrapwidth=0)
    po.header = HEADER
    po.metadata = {
        "Project-Id-Version": "simhash-lab",
        "PO-Revision-Date": "2026-12-01 00:00+0000",
        "Last-Translator": "simhash-lab course",
        "Language-Team": f"simhash-lab course ({lang})",
        "Language": lang,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "Plural-Forms": "nplurals=2; plural=(n != 1);",
    }
    return po


#: A line of a PO file outside comments: a keyword and a whole quoted string, or a whole quoted
#: string continuing the one above. A line break typed inside the quotes (which polib reads
#: without a word, joining the two halves) matches neither.
_PO_LINE = re.compile(r'(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"(?:[^"\\]|\\.)*"\s*')


def malformed_lines(path: Path) -> list[str]:
    """``path:line: why`` for every line of a PO file that is not a comment, a blank line, or a
    keyword with a whole quoted string (what ``msgfmt -c`` calls "end-of-line within string")."""
    found = []
    try:
        name = path.resolve().relative_to(ROOT).as_posix()
    except ValueError:  # a copy of the repository, in tests
        name = str(path)
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip() and not line.startswith("#") and not _PO_LINE.fullmatch(line):
            found.append(
                f"{name}:{n}: not a whole quoted string (a line break typed inside the quotes? "
                f"write \\n and close the quote): {line[:60]!r}"
            )
    return found


def read_catalogue(path: Path):
    """A PO file as a ``polib.POFile`` (None when there is no file); ValueError naming the file and
    line of a string broken across lines (:func:`malformed_lines`), which polib would read without
    the line break and the words around it."""
    import polib

    if not path.exists():
        return None
    bad = malformed_lines(path)
    if bad:
        raise ValueError("; ".join(bad))
    return polib.pofile(str(path), wrapwidth=0)


def write_catalogue(po, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    po.wrapwidth = 0  # a line of text is a line of the file: diffs show what changed
    po.save(str(path))


def _cell_lines(source: Path, n_cells: int) -> list[int]:
    """The line of each cell's ``# %%`` header in a percent-format source (cell index + 1 when the
    headers do not match the cells one to one)."""
    text = source.read_text(encoding="utf-8").splitlines()
    heads = [i for i, line in enumerate(text, 1) if line.startswith("# %%")]
    return heads if len(heads) == n_cells else list(range(1, n_cells + 1))


def template(source: Path, root: Path = ROOT) -> list:
    """The entries a source asks for, in order, translations empty (gettext's ``.pot``); each
    entry's occurrence is the line of its cell's header, its comment the cell."""
    import polib

    rel = source.relative_to(root).as_posix()
    cells = read_cells(source)
    lines = _cell_lines(source, len(cells))
    entries: dict[str, polib.POEntry] = {}
    for u in units(cells, rel):
        if u.text in entries:
            entries[u.text].occurrences.append((rel, str(lines[u.cell])))
            continue
        entries[u.text] = polib.POEntry(
            msgid=u.text,
            msgstr="",
            occurrences=[(rel, str(lines[u.cell]))],
            comment=f"{u.kind} cell {u.cell}",
            flags=["python-brace-format"] if u.kind == "code" and _fields(u.text) else [],
        )
    return list(entries.values())


def _fuzzy(entry) -> bool:
    return "fuzzy" in entry.flags


def update(source: Path, lang: str, root: Path = ROOT) -> dict[str, int]:
    """Create or merge ``source``'s catalogue for ``lang``, as gettext's ``msgmerge`` does: an
    entry whose English is unchanged keeps its translation; a unit whose English changed gets the
    translation of the closest old entry (difflib, ratio >= 0.6), flagged fuzzy, with the old
    English as ``#| msgid``; an entry no unit asks for becomes obsolete (``#~``, kept as translation
    memory) and comes back when its English does. Returns counts of what the catalogue now holds."""
    return merge(catalogue_path(source, lang, root), template(source, root), lang)


def merge(path: Path, wanted: list, lang: str) -> dict[str, int]:
    """Merge the catalogue at ``path`` with the entries ``wanted`` (see :func:`update`)."""
    import difflib

    old = read_catalogue(path) or _new_catalogue(lang)
    current = {e.msgid: e for e in old if not e.obsolete}
    retired = {e.msgid: e for e in old if e.obsolete}
    want_ids = {t.msgid for t in wanted}
    free = {k: e for k, e in current.items() if k not in want_ids and e.msgstr}  # to match fuzzily
    po = _new_catalogue(lang)
    po.header, po.metadata = old.header or HEADER, {**po.metadata, **old.metadata}
    for t in wanted:
        e = current.get(t.msgid)
        if e is None and t.msgid in retired and retired[t.msgid].msgstr:
            e = retired.pop(t.msgid)  # its English is back
            e.obsolete = False
        elif e is None:
            close = difflib.get_close_matches(t.msgid, list(free), n=1, cutoff=0.6)
            if close:
                was = free.pop(close[0])
                t.msgstr = was.msgstr
                t.flags.append("fuzzy")
                t.previous_msgid = was.previous_msgid if _fuzzy(was) and was.previous_msgid else was.msgid
                current.pop(close[0])
            e = t
        e.occurrences, e.comment = t.occurrences, t.comment
        e.flags = [f for f in e.flags if f == "fuzzy"] + [f for f in t.flags if f != "fuzzy"]
        if not _fuzzy(e):
            e.previous_msgid = None
        po.append(e)
    for e in list(current.values()) + list(retired.values()):
        if e.msgid not in want_ids and e.msgstr:
            e.obsolete, e.occurrences = True, []
            po.append(e)
    write_catalogue(po, path)
    return _counts(po)


def _counts(po) -> dict[str, int]:
    live = [e for e in po if not e.obsolete]
    return {
        "translated": sum(bool(e.msgstr) and not _fuzzy(e) for e in live),
        "fuzzy": sum(_fuzzy(e) for e in live),
        "missing": sum(not e.msgstr for e in live),
        "obsolete": sum(e.obsolete for e in po),
    }


# -- what tools/build.py writes itself ----------------------------------------------------------------

#: The last cell of every exercise: how to check the whole notebook; ``{path}`` is the exercise's
#: file, in its language's folder (``exercises/NN_exercise_name.ipynb``, ``exercises/es/...``).
CHECK_NOTE = (
    "**Check the whole notebook** when every check above shows ✅. Save it (Ctrl+S), then in a "
    "terminal, in the repository's folder (where you typed `make lab`; nothing to activate):\n\n"
    "    make check NB={path}\n\n"
    "or `.venv/bin/simhash-lab check {path}`. The check keeps your `answer` cells and the cells "
    "you added, restores every other cell from a pristine copy, runs them all on other data and "
    "inputs drawn now, and prints one line per answer, as the grader does. It is a check, not a "
    "grade: your teacher grades with `simhash-lab grade`, in a sandbox."
)

#: The English texts ``tools/build.py`` writes into every notebook (navigation, the grading note),
#: ``{...}`` placeholders included; their translations are ``course/i18n/LANG/build.po``. The build
#: writes ``message(TEXT, lang).format(...)`` (the English itself for ``lang=None``).
BUILD_MESSAGES = (
    "*simhash-lab course*",
    "*simhash-lab exercises*",
    "Start here: the map",
    "Exercise",
    "Course notebook",
    "*Solutions: every answer filled in and run.*",
    "YOUR CODE HERE",  # the stubs of an exercise's answer cells
    "YOUR CODE HERE: replace each ... with your answer",
    CHECK_NOTE,
)


def build_catalogue_path(lang: str, root: Path = ROOT) -> Path:
    return root / "course" / "i18n" / lang / "build.po"


def update_build(lang: str, root: Path = ROOT) -> dict[str, int]:
    """Create or merge ``build.po`` for ``lang`` from :data:`BUILD_MESSAGES`."""
    import polib

    wanted = [
        polib.POEntry(
            msgid=m,
            msgstr="",
            occurrences=[("tools/build.py", "")],
            comment="written by tools/build.py",
            flags=["python-brace-format"] if _fields(m) else [],
        )
        for m in BUILD_MESSAGES
    ]
    return merge(build_catalogue_path(lang, root), wanted, lang)


def message(text: str, lang: str | None = None, root: Path = ROOT) -> str:
    """``text`` (one of :data:`BUILD_MESSAGES`) in ``lang``; ValueError naming the catalogue when it
    has no finished translation (``problems`` lists every such text)."""
    if text not in BUILD_MESSAGES:
        raise ValueError(f"message: {text[:60]!r} is not one of BUILD_MESSAGES")
    if lang is None:
        return text
    path = build_catalogue_path(lang, root)
    po = read_catalogue(path)
    entries = {e.msgid: e for e in po if not e.obsolete} if po is not None else None
    found, why = _lookup(entries, Unit(path.relative_to(root).as_posix(), 0, "code", text))
    if why:
        raise ValueError(f"message: {path.relative_to(root)}: {text[:60]!r}: {why}")
    return found


def _build_problems(lang: str, root: Path) -> list[str]:
    path = build_catalogue_path(lang, root)
    rel = path.relative_to(root).as_posix()
    po = read_catalogue(path)
    if po is None:
        return [f"{rel}: missing; run `tools/i18n.py update`"]
    entries = {e.msgid: e for e in po if not e.obsolete}
    found = []
    for text in BUILD_MESSAGES:
        _, why = _lookup(entries, Unit(rel, 0, "code", text))
        if why:
            found.append(f"{lang}: {rel} ({text[:60]!r}): {why}")
    return found


# -- applying a catalogue ---------------------------------------------------------------------------

_FIELD = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")  # {x}, {len(a):.1f}; not {{ or }}
_LINK = re.compile(r"\]\(([^)\s]+)")  # markdown link targets
_DETAILS = re.compile(r"</?details>|<summary>")


def _fields(text: str) -> list[str]:
    return sorted(_FIELD.findall(text))


def mismatch(unit: Unit, translation: str) -> str | None:
    """Why ``translation`` cannot stand for ``unit`` (None when it can): code literals keep their
    ``{...}`` fields; markdown keeps its link targets and its folded answers; both begin and end
    with a newline when the English does (gettext's ``msgfmt -c`` rule)."""
    if unit.text.endswith("\n") != translation.endswith("\n") or unit.text.startswith(
        "\n"
    ) != translation.startswith("\n"):
        return "it does not begin and end with a newline where the English does"
    if unit.kind == "comment":
        return "a comment's translation is one line" if "\n" in translation else None
    if unit.kind == "code":
        if _fields(unit.text) != _fields(translation):
            return f"its fields {_fields(translation)} are not the English's {_fields(unit.text)}"
        return None
    if sorted(_LINK.findall(unit.text)) != sorted(_LINK.findall(translation)):
        return "its link targets are not the English's"
    if _DETAILS.findall(unit.text) != _DETAILS.findall(translation):
        return "its <details>/<summary> blocks are not the English's"
    return None


def _lookup(entries: dict | None, unit: Unit) -> tuple[str | None, str | None]:
    """``(translation, problem)`` for a unit, given a catalogue's live entries by msgid: the
    translation when there is a finished one that fits, else None and why not."""
    e = entries.get(unit.text) if entries is not None else None
    if e is None:
        return None, "no translation"
    if _fuzzy(e):
        return None, "fuzzy: the English changed since it was translated" + (
            " (the old English is its #| msgid)" if e.previous_msgid else ""
        )
    if not e.msgstr:
        return None, "empty translation"
    why = mismatch(unit, e.msgstr)
    return (None, f"translation does not fit: {why}") if why else (e.msgstr, None)


def relink(markdown: str, target) -> str:
    """``markdown`` with every relative link target ``](x)`` replaced by ``target(x)`` (links
    with a scheme, ``#anchors`` and absolute paths are left alone): a notebook written one folder
    deeper, as ``notebooks/es/``, points to ``../`` plus what its English points to."""

    def one(m):
        x = m.group(1)
        keep = re.match(r"[a-z][a-z0-9+.-]*:", x) or x.startswith(("#", "/"))
        return m.group(0) if keep else "](" + target(x)

    return _LINK.sub(one, markdown)


def render(cells, catalog=None, file: str = "source", links=None) -> tuple[list, list[str]]:
    """``(cells, problems)``: a copy of a source's cells in the catalogue's language (English when
    ``catalog`` is None), every ``_("...")`` marker removed, its literal kept (translated or not);
    ``links``, if given, rewrites the relative link targets of markdown cells (see :func:`relink`).
    A unit the catalogue cannot translate stays English and is named in ``problems``."""
    out, problems = [], []
    entries = None if catalog is None else {e.msgid: e for e in catalog if not e.obsolete}
    for i, cell in enumerate(cells):
        new = copy.deepcopy(cell)
        where = f"{file} cell {i}"
        if cell.cell_type == "markdown" and catalog is not None and cell.source.strip():
            unit = Unit(file, i, "markdown", cell.source)
            text, why = _lookup(entries, unit)
            if why:
                problems.append(f"{unit.where}: {why}")
            else:
                new.source = text
        if cell.cell_type == "markdown" and links is not None:
            new.source = relink(new.source, links)
        if cell.cell_type == "code":
            src, missing = cell.source, []
            pieces = [(lit.span, "code", lit) for lit in literals(src, where)]
            if _comments_are_units(file):
                pieces += [(c.span, "comment", c) for c in comments(src)]
            for span, kind, piece in sorted(pieces, key=lambda p: p[0], reverse=True):  # from the end:
                unit = Unit(file, i, kind, piece.text)  # earlier offsets stay valid
                text, why = (None, None) if catalog is None else _lookup(entries, unit)
                if why:
                    missing.append(f"{unit.where}: {why}")
                if kind == "comment":
                    if text is not None and text != piece.text:
                        src = src[: span[0]] + " ".join(text.split()) + src[span[1] :]  # one line
                elif (text is not None and text != piece.text) or piece.marker:
                    src = src[: span[0]] + piece.write(piece.text if text is None else text) + src[span[1] :]
            problems += missing[::-1]
            try:
                ast.parse(src)
            except SyntaxError as e:
                if src != cell.source:
                    problems.append(f"{where}: translated cell does not parse ({e.msg}, line {e.lineno})")
            new.source = src
        out.append(new)
    return out, problems


# -- one term per concept ---------------------------------------------------------------------------

#: The library's catalogue, and the folders of the library whose entries the term list checks: the
#: labels of the pictures the course draws, and the grader's texts (the checkers' verdicts and
#: hints a learner reads, the teacher's table and feedback).
LIBRARY_CATALOGUE = "simhash_lab/locale/{lang}/LC_MESSAGES/simhash_lab.po"
LIBRARY_CHECKED = ("simhash_lab/course/", "simhash_lab/grading/")


@dataclasses.dataclass(frozen=True)
class Term:
    """One line of a language's term list (``course/i18n/LANG/terms.txt``): the English concept,
    the term to write, and the words not to write for it."""

    english: str
    term: str
    avoid: tuple[str, ...]

    def pattern(self) -> re.Pattern:
        words = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in self.avoid)
        return re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.I)


def terms_path(lang: str, root: Path = ROOT) -> Path:
    return root / "course" / "i18n" / lang / "terms.txt"


def read_terms(lang: str, root: Path = ROOT) -> list[Term]:
    """The term list of ``lang`` (none when it has no ``terms.txt``); ValueError naming the line
    of a line that is not ``english | term | avoid, avoid``."""
    path = terms_path(lang, root)
    if not path.exists():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("|")]
        if len(cols) != 3 or not all(cols):
            raise ValueError(f"{path.relative_to(root)}:{n}: not `english | term | avoid, avoid`: {line!r}")
        avoid = tuple(w.strip() for w in cols[2].split(",") if w.strip())
        out.append(Term(cols[0], cols[1].replace("‡", "").strip(), avoid))  # ‡: not the session's
    return out


_FENCE = re.compile(r"```.*?```", re.S)
_CODE_SPAN = re.compile(r"`[^`]+`")  # spans may wrap a line
_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$", re.S)
_HTML = re.compile(r"<[^>\n]*>")
_CALL = re.compile(r"\b[\w.]+\([^()\n]*\)")  # SimhashIndex(layout='seed'), P(h(x)): code, math
_SUBSCRIPT = re.compile(r"\b[\w.]+\[[^\[\]\n]*\]")  # weights[j], V[i]: code


def prose(text: str) -> str:
    """What the term list is checked against in a translation: the text without code blocks and
    spans, math, link targets, calls and subscripts written out (``f(x=1)``, ``weights[j]``), HTML
    tags, ``{...}`` fields,
    quotations (lines starting with ``>``), and the first column of a table headed
    "English"/"Inglés" (the glossary's English)."""
    text = _FENCE.sub(" ", text)
    text = _CODE_SPAN.sub(" ", text)
    text = _MATH.sub(" ", text)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    text = _CALL.sub(" ", text)
    text = _SUBSCRIPT.sub(" ", text)
    text = _HTML.sub(" ", text)
    text = _FIELD.sub(" ", text)
    lines, english_first = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            continue
        if line.startswith("|"):
            cells = line.strip().strip("|").split("|")
            english_first = english_first or cells[0].strip() in ("English", "Inglés")
            if english_first:
                line = "|".join(cells[1:])
        else:
            english_first = False
        lines.append(line)
    return "\n".join(lines)


#: Numbers as the session writes them ("1,000 millones", "el 50% de sus bits"): a comma between
#: thousands, a point before decimals, the per cent sign without a space.
NUMBER_RULES = (
    (
        re.compile(r"(?<![\w.,])\d{1,3}(?: \d{3})+(?![\w.,])"),
        "a space between thousands (the course writes 10,000)",
    ),
    (
        re.compile(r"(?<![\w.,$])(?!(?:19|20)\d\d\b|[01]+\b)\d{4,}(?![\w.,])"),
        "a number of 4+ digits without commas (10,000; years and bit strings apart)",
    ),
    (re.compile(r"\d\s%"), "a space before % (the course writes 50%)"),
)


def term_problems(
    root: Path = ROOT, languages=LANGUAGES, only: tuple[str, ...] | list[str] = ()
) -> list[str]:
    """One line per word of a term list's third column (:func:`read_terms`), and per number written
    against :data:`NUMBER_RULES`, in the finished translations of the catalogues of the course's
    notebooks and exercises (those whose source name starts with one of ``only``, or all), of
    ``build.po`` (with no ``only``) and of the library's entries in :data:`LIBRARY_CHECKED`, outside
    what :func:`prose` drops."""
    found = []
    for lang in languages:
        terms = read_terms(lang, root)
        checks = [(t.pattern(), f"write {t.term!r} for {t.english!r}") for t in terms]
        checks += list(NUMBER_RULES)
        catalogues = [catalogue_path(p, lang, root) for p in sources(root, only)]  # notebooks, exercises
        if not only:
            catalogues += [build_catalogue_path(lang, root), root / LIBRARY_CATALOGUE.format(lang=lang)]
        for path in catalogues:
            if not path.exists():
                continue
            rel = path.relative_to(root).as_posix()
            library = rel == LIBRARY_CATALOGUE.format(lang=lang)
            try:
                catalogue = read_catalogue(path)
            except Exception:  # unreadable: problems() names it, with why
                continue
            for e in catalogue:
                if e.obsolete or not e.msgstr or _fuzzy(e):
                    continue
                if library and not any(f.startswith(LIBRARY_CHECKED) for f, _ in e.occurrences):
                    continue
                text = prose(e.msgstr)
                where = e.comment or ":".join(e.occurrences[0]) if e.occurrences else ""
                for pattern, why in checks:
                    for m in pattern.finditer(text):
                        found.append(f"{lang}: {rel} ({where}): {m.group(0)!r}: {why}")
    return found


# -- the check tools/build.py --check calls ---------------------------------------------------------


def problems(root: Path = ROOT, only: tuple[str, ...] | list[str] = (), languages=LANGUAGES) -> list[str]:
    """One line per unit of the sources (all, or those whose name starts with one of ``only``) that
    a language's catalogue does not translate, or no longer translates: no catalogue, no entry,
    fuzzy (the English changed), empty, or a translation that does not fit the unit (see
    :func:`mismatch`); with no ``only``, also each of :data:`BUILD_MESSAGES` that ``build.po`` does
    not translate. Entries no cell asks for are not problems (``update`` makes them obsolete).
    ``tools/build.py --check`` prints each line and fails when there is one."""
    found = [p for lang in languages for p in _build_problems(lang, root)] if not only else []
    for source in sources(root, only):
        rel = source.relative_to(root).as_posix()
        cells = read_cells(source)
        wanted = {u.text for u in units(cells, rel)}
        for lang in languages:
            path = catalogue_path(source, lang, root)
            cat_rel = path.relative_to(root).as_posix()
            try:
                catalog = read_catalogue(path)
            except Exception as e:  # a PO file that does not parse
                found.append(f"{cat_rel}: unreadable ({type(e).__name__}: {e})"[:300])
                continue
            if catalog is None:
                found.append(f"{rel}: no {lang} catalogue ({cat_rel}); run `tools/i18n.py update`")
                continue
            _, missing = render(cells, catalog, rel)
            if any(e.msgid not in wanted for e in catalog if not e.obsolete):  # translations of older English
                hint = "; run `tools/i18n.py update` (it marks the older English's translation fuzzy)"
                missing = [p + hint if p.endswith("no translation") else p for p in missing]
            found += [f"{lang}: {p}" for p in missing]
    return found + term_problems(root, languages, only)


# -- the command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/i18n.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("command", choices=("update", "check", "stats"))
    ap.add_argument("only", nargs="*", metavar="NN", help="only sources whose name starts with NN")
    ap.add_argument("--lang", action="append", choices=LANGUAGES, help="a language (default: all)")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # a copy, in tests
    args = ap.parse_args(argv)
    root, langs = args.root.resolve(), tuple(args.lang or LANGUAGES)
    chosen = sources(root, args.only)
    if args.only and not chosen:
        ap.error(f"no source in course/ starts with {' or '.join(args.only)}")
    try:
        if args.command == "check":
            found = problems(root, args.only, langs)
            for p in found:
                print("UNTRANSLATED", p)
            print(f"{len(chosen)} sources checked in {', '.join(langs)}, {len(found)} problems")
            return 1 if found else 0
        for lang in langs if args.command == "update" and not args.only else ():
            counts = update_build(lang, root)
            print(
                f"{build_catalogue_path(lang, root).relative_to(root)}: "
                + ", ".join(f"{v} {k}" for k, v in counts.items())
            )
        for source in chosen:
            for lang in langs:
                path = catalogue_path(source, lang, root)
                if args.command == "update":
                    counts = update(source, lang, root)
                else:
                    cat = read_catalogue(path)
                    counts = _counts(cat) if cat is not None else {"no catalogue": 1}
                print(f"{path.relative_to(root)}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    except ValueError as e:  # a marker the tool cannot read: say where
        print(f"tools/i18n.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
