#!/usr/bin/env python
"""The library's own course texts in other languages: ``simhash_lab/locale/<lang>/LC_MESSAGES/``.

What the library writes for the course (plot titles, axis labels and legends it draws, widgets'
readouts, printed lines, the checkers' verdicts and hints) is marked where it is written,
``_("...")``, or ``N_("...")`` for a string stored before it is shown (see
:mod:`simhash_lab._i18n`). This tool keeps one gettext catalogue per language, keyed by the English:

- ``update`` extracts every marked string of ``simhash_lab/`` (by reading the code's syntax tree:
  the first argument of ``_``/``N_`` must be a plain string literal, never an f-string, since the
  key must be the same text at run time), merges it into ``simhash_lab.po`` as gettext's
  ``msgmerge`` does (a string whose English changed keeps its old translation, flagged fuzzy, with
  the old English as ``#| msgid``; a string no longer marked is dropped), and compiles
  ``simhash_lab.mo``, the file the runtime reads with the standard library's :mod:`gettext`;
- ``check`` (exit 1) lists every marked string without a finished translation (missing, empty,
  fuzzy), every translation whose ``{...}`` fields differ from its English, and a ``.mo`` that is
  not the compiled ``.po``; ``tests/tools/test_i18n_library.py`` runs the same check.

Why a compiled ``.mo`` beside the ``.po``: the runtime then needs nothing but :mod:`gettext` (polib
is in the dev extra only), and the ``.po`` stays the reviewed, editable source (Poedit, Lokalize,
``msgfmt -c`` all read it).

    python tools/i18n_library.py update
    python tools/i18n_library.py check
"""

from __future__ import annotations

import argparse
import ast
import difflib
import gettext
import re
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "simhash_lab"
LANGUAGES = ("es",)
MARKERS = ("_", "N_")
HEADER = (
    "simhash-lab's own texts for the course (plots, widgets, experiments, checkers), keyed by the English.\n"
    "Made by `tools/i18n_library.py update` from the strings marked _(...) / N_(...) in simhash_lab/;\n"
    "read at run time from simhash_lab.mo (compiled from this file) by the standard library's gettext."
)
METADATA = {
    "Project-Id-Version": "simhash-lab",
    "Language": "",
    "MIME-Version": "1.0",
    "Content-Type": "text/plain; charset=UTF-8",
    "Content-Transfer-Encoding": "8bit",
    "Plural-Forms": "nplurals=2; plural=(n != 1);",
}


def po_path(lang: str, package: Path = PACKAGE) -> Path:
    return package / "locale" / lang / "LC_MESSAGES" / "simhash_lab.po"


def marked(package: Path = PACKAGE) -> tuple[dict[str, list[str]], list[str]]:
    """Every marked string of ``package``: ``{english: ["path:line", ...]}``, and the problems (a
    marker whose argument is not one plain string literal)."""
    found: dict[str, list[str]] = {}
    problems = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in MARKERS:
                continue
            where = f"{rel}:{node.lineno}"
            args = node.args
            if len(args) != 1 or node.keywords or isinstance(args[0], (ast.JoinedStr, ast.BinOp)):
                problems.append(
                    f"{where}: {node.func.id}(...) needs one string literal (an f-string's text differs "
                    "at run time: write _('... {x} ...').format(x=...))"
                )
                continue
            if not (isinstance(args[0], ast.Constant) and isinstance(args[0].value, str)):
                continue  # _(text): a string marked where it was stored, translated where it is shown
            found.setdefault(args[0].value, []).append(where)
    return found, problems


def _course_i18n():
    """``tools/i18n.py``, the course's catalogue tool (its PO-file checks serve both catalogues)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import i18n
    finally:
        sys.path.pop(0)
    return i18n


def fields(text: str) -> list[str]:
    """The ``{...}`` fields of a ``str.format`` template, sorted (``{{`` is not a field)."""
    try:
        return sorted(
            f"{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}"
            for _, name, spec, conv in string.Formatter().parse(text)
            if name is not None
        )
    except ValueError:
        return ["<not a template>"]


def _is_template(english: str) -> bool:
    return bool(re.search(r"\{[A-Za-z_]\w*[^{}]*\}|\{\}", english))


def update(lang: str, package: Path = PACKAGE) -> tuple[int, int]:
    """Merge the marked strings into ``lang``'s catalogue and compile it; returns (entries, new)."""
    import polib

    found, problems = marked(package)
    if problems:
        raise SystemExit("\n".join(problems))
    path = po_path(lang, package)
    old = polib.pofile(str(path)) if path.exists() else polib.POFile()
    kept = {e.msgid: e for e in old if not e.obsolete}
    po = polib.POFile(wrapwidth=0)
    po.header = HEADER
    po.metadata = dict(METADATA, Language=lang)
    gone = [e for k, e in kept.items() if k not in found and e.msgstr]
    new = 0
    for english, where in sorted(found.items(), key=lambda kv: kv[1][0]):
        entry = polib.POEntry(msgid=english, occurrences=[tuple(w.rsplit(":", 1)) for w in where])
        if _is_template(english):
            entry.flags.append("python-brace-format")
        if english in kept:
            was = kept[english]
            entry.msgstr = was.msgstr
            if "fuzzy" in was.flags:
                entry.flags.append("fuzzy")
                entry.previous_msgid = was.previous_msgid
        else:
            near = difflib.get_close_matches(english, [e.msgid for e in gone], n=1, cutoff=0.6)
            if near:
                was = next(e for e in gone if e.msgid == near[0])
                entry.msgstr, entry.previous_msgid = was.msgstr, was.msgid
                entry.flags.append("fuzzy")
            new += 1
        po.append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    po.save(str(path))
    po.save_as_mofile(str(path.with_suffix(".mo")))
    return len(po), new


def problems(lang: str, package: Path = PACKAGE) -> list[str]:
    """Every marked string not (or no longer) translated into ``lang``, every translation that
    breaks its template, and a compiled catalogue that is not the source's."""
    import polib

    found, out = marked(package)
    path = po_path(lang, package)
    if not path.exists():
        return [*out, f"{path.relative_to(package.parent)}: missing (run tools/i18n_library.py update)"]
    bad = _course_i18n().malformed_lines(path)  # polib would read such a string without its words
    if bad:
        return [*out, *bad]
    po = polib.pofile(str(path))
    entries = {e.msgid: e for e in po if not e.obsolete}
    for english, where in found.items():
        e = entries.get(english)
        short = english if len(english) <= 70 else english[:67] + "..."
        if e is None:
            out.append(f"{where[0]}: not in the {lang} catalogue: {short!r}")
        elif not e.msgstr.strip():
            out.append(f"{where[0]}: not translated into {lang}: {short!r}")
        elif "fuzzy" in e.flags:
            out.append(f"{where[0]}: fuzzy in {lang} (its English changed): {short!r}")
        elif _is_template(english) and fields(english) != fields(e.msgstr):
            out.append(f"{where[0]}: the {lang} translation has other {{...}} fields: {short!r}")
    mo = path.with_suffix(".mo")
    want = {e.msgid: e.msgstr for e in po if e.msgstr and "fuzzy" not in e.flags and not e.obsolete}
    try:
        with mo.open("rb") as f:
            have = {k: v for k, v in gettext.GNUTranslations(f)._catalog.items() if k}
    except (OSError, ValueError) as exc:  # missing, or not a .mo file
        have = {"": str(exc)}
    if have != want:
        out.append(
            f"{mo.relative_to(package.parent)}: not the compiled .po (run tools/i18n_library.py update)"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/i18n_library.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("command", choices=("update", "check"))
    args = ap.parse_args(argv)
    bad = 0
    for lang in LANGUAGES:
        if args.command == "update":
            n, new = update(lang)
            print(f"{po_path(lang).relative_to(ROOT)}: {n} strings, {new} new")
        for p in problems(lang):
            bad += 1
            print(p, file=sys.stderr if args.command == "check" else sys.stdout, flush=True)
    if args.command == "check":
        print(f"{bad} problem(s)" if bad else "every marked string is translated")
    return 1 if bad and args.command == "check" else 0


if __name__ == "__main__":
    sys.exit(main())
