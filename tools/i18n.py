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
- in code cells, the string literals marked ``_("...")``: plot titles and labels, printed prose.
  The marker exists only in the source: :func:`render` writes the literal without it, in English
  and translated alike, so the generated notebooks need no ``_``. An f-string may be marked,
  ``_(f"{n} edits")``, and its translation must keep the same ``{...}`` fields (so the numbers the
  run computes appear in every language); so may a ``.format`` template, ``_("{n} edits").format(n=n)``.

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


@dataclasses.dataclass(frozen=True)
class _Literal:
    """A marked literal in a code cell, as offsets into the cell's source: the call ``_(...)``
    from ``start`` to ``end``, the literal (prefix and quotes included) ``literal``, the text
    between its quotes ``body``."""

    start: int
    literal: tuple[int, int]
    body: tuple[int, int]
    end: int


def _offsets(source: str) -> list[int]:
    """Offset of the start of each line (1-based line numbers index it from 1)."""
    starts, pos = [0, 0], 0
    for line in source.splitlines(keepends=True):
        pos += len(line)
        starts.append(pos)
    return starts


def marked_literals(source: str, where: str = "code cell") -> list[_Literal]:
    """Every ``_("...")`` call in a code cell's source whose only argument is one string literal
    (plain or f-string, any quotes, any prefix but bytes). A ``_(...)`` of anything else, or of
    several implicitly joined literals, is an error naming ``where``: the marker would not be
    translated. A cell that is not plain Python (IPython magics) has no markers."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        if re.search(rf"\b{MARKER}\(", source):
            raise ValueError(f"{where}: marks a literal but does not parse as Python") from None
        return []
    lines = _offsets(source)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == MARKER):
            continue
        arg = node.args[0] if len(node.args) == 1 and not node.keywords else None
        if not isinstance(arg, (ast.Constant, ast.JoinedStr)) or (
            isinstance(arg, ast.Constant) and not isinstance(arg.value, str)
        ):
            raise ValueError(f"{where}: line {node.lineno}: {MARKER}(...) takes one string literal")
        a, b = lines[arg.lineno] + arg.col_offset, lines[arg.end_lineno] + arg.end_col_offset
        body = _literal_body(source[a:b])
        if body is None:
            raise ValueError(
                f"{where}: line {node.lineno}: {MARKER}(...) takes one string literal, not several joined"
            )
        start = lines[node.lineno] + node.col_offset
        end = lines[node.end_lineno] + node.end_col_offset
        found.append(_Literal(start, (a, b), (a + body[0], a + body[1]), end))
    return sorted(found, key=lambda lit: lit.start)


def _literal_body(segment: str) -> tuple[int, int] | None:
    """``(start, end)`` of the text between the quotes of ``segment``, one string literal as
    written; None when it is several literals joined (``"a" "b"``)."""
    toks = [
        t
        for t in tokenize.generate_tokens(io.StringIO(segment).readline)
        if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER, tokenize.COMMENT)
    ]
    fstart = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+: f-strings are several tokens
    if fstart is not None and toks and toks[0].type == fstart:
        depth, ends = 0, 0
        for t in toks:
            depth += t.type == fstart
            if t.type == tokenize.FSTRING_END:
                depth -= 1
                ends += depth == 0
        if ends != 1 or toks[-1].type != tokenize.FSTRING_END:
            return None
    elif len(toks) != 1 or toks[0].type != tokenize.STRING:
        return None
    m = re.match(r"[A-Za-z]*('''|\"\"\"|'|\")", segment)
    quote = m.group(1)
    return m.end(), len(segment) - len(quote)


def units(cells, file: str) -> list[Unit]:
    """The translatable units of a source's cells (jupytext's), in order."""
    out = []
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown":
            if cell.source.strip():
                out.append(Unit(file, i, "markdown", cell.source))
        elif cell.cell_type == "code":
            for lit in marked_literals(cell.source, f"{file} cell {i}"):
                out.append(Unit(file, i, "code", cell.source[lit.body[0] : lit.body[1]]))
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


def read_catalogue(path: Path):
    """A PO file as a ``polib.POFile`` (None when there is no file)."""
    import polib

    return polib.pofile(str(path), wrapwidth=0) if path.exists() else None


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
    import difflib

    path = catalogue_path(source, lang, root)
    old = read_catalogue(path) or _new_catalogue(lang)
    current = {e.msgid: e for e in old if not e.obsolete}
    retired = {e.msgid: e for e in old if e.obsolete}
    wanted = template(source, root)
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


# -- applying a catalogue ---------------------------------------------------------------------------

_FIELD = re.compile(r"(?<!\{)\{([^{}]*)\}(?!\})")  # {x}, {len(a):.1f}; not {{ or }}
_LINK = re.compile(r"\]\(([^)\s]+)")  # markdown link targets
_DETAILS = re.compile(r"</?details>|<summary>")


def _fields(text: str) -> list[str]:
    return sorted(_FIELD.findall(text))


def mismatch(unit: Unit, translation: str) -> str | None:
    """Why ``translation`` cannot stand for ``unit`` (None when it can): code literals keep their
    ``{...}`` fields; markdown keeps its link targets and its folded answers."""
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


def render(cells, catalog=None, file: str = "source") -> tuple[list, list[str]]:
    """``(cells, problems)``: a copy of a source's cells in the catalogue's language (English when
    ``catalog`` is None), every ``_("...")`` marker removed, its literal kept (translated or not).
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
        elif cell.cell_type == "code":
            src = cell.source
            for lit in reversed(marked_literals(src, where)):
                body = src[lit.body[0] : lit.body[1]]
                if catalog is not None:
                    unit = Unit(file, i, "code", body)
                    text, why = _lookup(entries, unit)
                    if why:
                        problems.append(f"{unit.where}: {why}")
                    else:
                        body = text
                literal = src[lit.literal[0] : lit.body[0]] + body + src[lit.body[1] : lit.literal[1]]
                src = src[: lit.start] + literal + src[lit.end :]
            try:
                ast.parse(src)
            except SyntaxError as e:
                if src != cell.source:
                    problems.append(f"{where}: translated cell does not parse ({e.msg}, line {e.lineno})")
            new.source = src
        out.append(new)
    return out, problems


# -- the check tools/build.py --check calls ---------------------------------------------------------


def problems(root: Path = ROOT, only: tuple[str, ...] | list[str] = (), languages=LANGUAGES) -> list[str]:
    """One line per unit of the sources (all, or those whose name starts with one of ``only``) that
    a language's catalogue does not translate, or no longer translates: no catalogue, no entry,
    fuzzy (the English changed), empty, or a translation that does not fit the unit (see
    :func:`mismatch`). Entries no cell asks for are not problems (``update`` makes them obsolete).
    ``tools/build.py --check`` prints each line and fails when there is one."""
    found = []
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
    return found


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
