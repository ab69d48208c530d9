"""Steps 1-3 of grading: collect the files of a class run, read each notebook, assemble it.

1. **Collect** (:func:`collect`): every path under the given folders whose name ends in ``.ipynb``
   (any case, hidden files and subfolders included) is one row. FIFOs, devices and broken links
   are refused without being opened, links out of the folder without being read (a link inside it
   is graded, with a note), folders named ``*.ipynb`` are rows too; :mod:`simhash_lab._files` does
   the opening.
2. **Read** (:func:`read_notebook`): at most 32 MiB of JSON that is a notebook (a dict with a list
   of cells); metadata of the wrong type is ignored rather than trusted; :func:`identify` takes the
   exercise from ``metadata.simhash_lab.exercise``, else the file name.
3. **Assemble** (:func:`assemble`): the pristine student notebook shipped in
   ``simhash_lab/grading/pristine/`` with the source of each of the file's ``answer`` cells put in
   (matched by key, then by cell id), and the student's cells of their own (code cells that are
   none of the pristine copy's: a helper, an experiment), each after the pristine cell it follows.
   Nothing else of the file is used: not its copies of the setup, given and check cells, not its
   outputs, tags or metadata.

Steps 4-6 (read and measure, run, judge) are in :mod:`simhash_lab.grading._grader`.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from .. import _files
from .._i18n import LANGUAGES
from . import _protocol

__all__ = [
    "META",
    "Item",
    "NotGradable",
    "FILE_KINDS",
    "assemble",
    "collect",
    "exercise_file",
    "exercise_named",
    "file_kind",
    "identify",
    "language_of",
    "load_pristine",
    "read_notebook",
]

META = "simhash_lab"  # our key in notebook and cell metadata
MAX_NOTEBOOK_BYTES = 32 << 20
MAX_NOTEBOOK_VALUES = 1_000_000  # JSON values of one notebook file (a course notebook has thousands)
_SUFFIX = ".ipynb"


class NotGradable(Exception):
    """A file that cannot be graded; ``str(e)`` is the reason, one line."""


# -- pristine notebooks ----------------------------------------------------------------------------


def _pristine_dir() -> Path:
    return Path(str(resources.files("simhash_lab.grading") / "pristine"))


def load_pristine(directory: str | os.PathLike | None = None, lang: str = "en") -> dict[str, dict]:
    """The pristine student notebooks (as JSON dicts), by exercise name (``"02_simhash_voting"``),
    in ``lang``: English in the folder itself, another language in its ``<lang>/`` subfolder
    (``pristine/es/``: the same exercises, checks and points, with Spanish prose)."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {list(LANGUAGES)}, got {lang!r}")
    d = Path(directory) if directory is not None else _pristine_dir()
    d = d if lang == "en" else d / lang
    out = {}
    for p in sorted(d.glob("*.ipynb")):
        nb = json.loads(p.read_text(encoding="utf-8"))
        name = cell_meta(nb).get("exercise")
        out[name if isinstance(name, str) else p.stem] = nb
    return out


def language_of(nb: Any) -> str:
    """The language a notebook is written in: its metadata's ``simhash_lab.lang`` when that is one
    of the course's languages, else English (what ``tools/build.py`` writes; a file whose metadata
    was stripped is graded in English, on the same checks)."""
    lang = cell_meta(nb).get("lang")
    return lang if isinstance(lang, str) and lang in LANGUAGES else "en"


def cell_meta(obj: Any) -> dict:
    """``obj.metadata.simhash_lab`` when every step of it is a dict, else {}."""
    md = obj.get("metadata") if isinstance(obj, dict) else None
    ours = md.get(META) if isinstance(md, dict) else None
    return ours if isinstance(ours, dict) else {}


def cell_source(cell: dict) -> str:
    s = cell.get("source", "")
    if isinstance(s, list):
        return "".join(x for x in s if isinstance(x, str))
    return s if isinstance(s, str) else ""


# -- a learner's file names ---------------------------------------------------------------------------

#: The kinds of a learner's copy of an exercise, each named in its file's name right after the
#: exercise's number: ``02_exercise_simhash_voting.ipynb``, ``02_solution_simhash_voting.ipynb``.
#: JupyterLab's tab shows a file's name, cut after about twenty characters, so the kind comes before
#: the topic: the tabs of an exercise and of its solution tell themselves from their course
#: notebook's (``02_simhash_voting.ipynb``) however narrow a tab is.
FILE_KINDS = ("exercise", "solution")
_NAMED = re.compile(r"(\d\d)_(?:(exercise|solution)_)?(.+)")


def exercise_file(name: str, kind: str = "exercise") -> str:
    """The file name of exercise ``name`` (``02_simhash_voting``) of ``kind`` (:data:`FILE_KINDS`):
    ``02_exercise_simhash_voting.ipynb``.

    >>> exercise_file("02_simhash_voting"), exercise_file("05_block_index", "solution")
    ('02_exercise_simhash_voting.ipynb', '05_solution_block_index.ipynb')
    """
    if kind not in FILE_KINDS:
        raise ValueError(f"kind must be one of {list(FILE_KINDS)}, got {kind!r}")
    m = re.fullmatch(r"(\d\d)_(.+)", name)
    if m is None:
        raise ValueError(f"name must be an exercise's name, NN_topic, got {name!r}")
    return f"{m.group(1)}_{kind}_{m.group(2)}{_SUFFIX}"


def file_kind(path: str | os.PathLike) -> tuple[str, str | None] | None:
    """``(name, kind)`` of a learner's file by its name alone: ``02_exercise_simhash_voting.ipynb``
    is ``("02_simhash_voting", "exercise")``; a name of before the kinds were in it
    (``02_simhash_voting.ipynb``, what a student who cloned earlier still has) is
    ``("02_simhash_voting", None)``; a name that is no ``NN_...`` is None. (Whether ``name`` is an
    exercise is the caller's to know.)

    >>> file_kind("exercises/es/02_solution_simhash_voting.ipynb"), file_kind("02_simhash_voting.ipynb")
    (('02_simhash_voting', 'solution'), ('02_simhash_voting', None))
    """
    base = os.path.basename(os.fsdecode(os.fspath(path)))
    stem = base[: -len(_SUFFIX)] if _is_notebook_name(base) else base
    m = _NAMED.fullmatch(stem)
    if m is None:
        return None
    return f"{m.group(1)}_{m.group(3)}", m.group(2)


def exercise_named(path: str | os.PathLike, known: Iterable[str]) -> str | None:
    """The exercise among ``known`` that a file's name names, in any of its spellings
    (:func:`file_kind`), or None."""
    known = set(known)
    found = file_kind(path)
    if found is not None and found[0] in known:
        return found[0]
    base = os.path.basename(os.fsdecode(os.fspath(path)))
    stem = base[: -len(_SUFFIX)] if _is_notebook_name(base) else base
    return stem if stem in known else None  # a topic that itself starts with exercise_ or solution_


# -- 1. collect --------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Item:
    """One row of a class run: a path, and why it cannot be read when it cannot."""

    path: str
    problem: str | None = None
    note: str | None = None


def _is_notebook_name(path: str) -> bool:
    return path.lower().endswith(_SUFFIX)


def _inside(path: str, folder: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def collect(paths: Iterable[str | os.PathLike]) -> list[Item]:
    """The rows of a run: each named file, and every ``*.ipynb`` (any case) under each named folder.

    Folders are walked with hidden files and subfolders; a link is followed only to a regular file
    inside the folder it was found in (a link out of it, to a device, or broken, is a row that says
    so, and nothing is read). A named path that is missing or not a regular file is a row too.
    """
    items: list[Item] = []
    for top in paths:
        top_s = os.fsdecode(os.fspath(top))
        if os.path.isdir(top_s):  # folders named *.ipynb are rows too (walk() goes into them)
            for folder, dirs, _ in os.walk(top_s):
                items += [
                    Item(os.path.join(folder, d), "a directory, not a notebook file")
                    for d in sorted(dirs)
                    if _is_notebook_name(d) and not os.path.islink(os.path.join(folder, d))
                ]
        for e in _files.walk([top_s], hidden=True):
            if not e.named and not _is_notebook_name(e.path):
                continue
            if e.kind != "file":
                items.append(Item(e.path, e.problem or "cannot be read"))
            elif not e.named and os.path.islink(e.path) and not _inside(e.path, top_s):
                target = _files.show_name(os.path.realpath(e.path))
                items.append(Item(e.path, f"a symbolic link out of the folder (to {target}), not read"))
            elif os.path.islink(e.path):
                target = _files.show_name(os.path.realpath(e.path))
                items.append(Item(e.path, note=f"a symbolic link to {target}"))
            else:
                items.append(Item(e.path))
    return items


# -- 2. read -----------------------------------------------------------------------------------------


def read_notebook(path: str, max_bytes: int = MAX_NOTEBOOK_BYTES) -> dict:
    """The notebook at ``path`` as a JSON dict with a list of cells, or :class:`NotGradable`."""
    try:
        raw = _files.read_bytes(path, max_bytes, limit_name=f"{max_bytes >> 20} MiB")
    except (_files.Refused, OSError) as e:
        raise NotGradable(_files.reason(e)) from None
    try:
        raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise NotGradable(f"not UTF-8 (byte {raw[e.start]:#04x} at offset {e.start})") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:  # its shape first: 32 MiB of `{},` would be gigabytes of objects here
        nb = _protocol.loads_bounded(raw, max_items=MAX_NOTEBOOK_VALUES, max_depth=64, max_string=max_bytes)
    except RecursionError:
        raise NotGradable("not a notebook: JSON nested too deeply") from None
    except json.JSONDecodeError as e:
        raise NotGradable(f"not JSON ({_protocol.clip(str(e), 120)})") from None
    except ValueError as e:  # its shape: too many values, too deep, a string too long
        raise NotGradable(f"not a notebook: {_protocol.clip(str(e), 120)}") from None
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise NotGradable("not a notebook: no list of cells")
    return nb


def identify(nb: dict, path: str, pristine: dict, exercise: str | None = None) -> str | None:
    """Which exercise ``nb`` is: ``exercise`` if given, else its metadata, else its file name (any of
    its spellings, :func:`exercise_named`; else the only exercise of its ``NN_`` number)."""
    if exercise:
        return exercise if exercise in pristine else None
    name = cell_meta(nb).get("exercise")
    if isinstance(name, str) and name in pristine:
        return name
    named = exercise_named(path, pristine)
    if named is not None:
        return named
    m = re.match(r"(\d\d)_", os.path.basename(path))
    if m:
        same = [k for k in pristine if k.startswith(m.group(0))]
        if len(same) == 1:
            return same[0]
    return None


# -- 3. assemble -------------------------------------------------------------------------------------


def _answers_of(nb: dict) -> tuple[dict[str, list[dict]], dict[str, dict]]:
    by_key: dict[str, list[dict]] = {}
    by_id: dict[str, dict] = {}
    for cell in nb.get("cells", []):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        key = cell_meta(cell).get("answer")
        if isinstance(key, str):
            by_key.setdefault(key, []).append(cell)
        if isinstance(cell.get("id"), str):
            by_id[cell["id"]] = cell
    return by_key, by_id


def _own_cells(pristine: dict, graded: dict) -> dict[str | None, list[str]]:
    """The student's cells of their own in ``graded``: code cells that are none of the pristine
    copy's (no role in our metadata, no id of a pristine cell), each under the pristine cell it
    follows (its answer key or id; None: before any, so after the setup)."""
    ids = {c.get("id") for c in pristine.get("cells", []) if isinstance(c, dict) and c.get("id")}
    keys = {cell_meta(c).get("answer") for c in pristine.get("cells", []) if isinstance(c, dict)}
    out: dict[str | None, list[str]] = {}
    anchor: str | None = None
    for cell in graded.get("cells", []):
        if not isinstance(cell, dict):
            continue
        meta = cell_meta(cell)
        if meta.get("answer") in keys and meta.get("answer") is not None:
            anchor = "answer:" + meta["answer"]
        elif isinstance(cell.get("id"), str) and cell["id"] in ids:
            anchor = "id:" + cell["id"]
        elif cell.get("cell_type") == "code" and not meta.get("role") and cell_source(cell).strip():
            out.setdefault(anchor, []).append(cell_source(cell))
    return out


def assemble(pristine: dict, graded: dict) -> tuple[Any, list[dict], dict[str, str]]:
    """The notebook to run: pristine cells, with the graded file's answer sources put in, and the
    student's cells of their own (helpers, experiments) each after the pristine cell it follows in
    the file.

    Returns ``(notebook, roles, found)``: the notebook (an nbformat node), ``roles[i]`` for its i-th
    code cell (``role``: "setup", "given", "answer", "own" or "check"; ``answer`` or ``check``: the
    key), and, per answer key, where its source came from ("key", "id" or "stub").
    """
    import nbformat

    nb = nbformat.from_dict(copy.deepcopy(pristine))
    by_key, by_id = _answers_of(graded)
    own = _own_cells(pristine, graded)
    roles, found = [], {}
    cells = []

    def add_own(anchor: str | None) -> None:
        for src in own.pop(anchor, []):
            cells.append(nbformat.v4.new_code_cell(src))
            roles.append({"role": "own", "answer": None, "check": None})

    setup_done = False
    for cell in nb.cells:
        if cell.cell_type != "code":
            cells.append(cell)
            if cell.get("id"):
                add_own("id:" + cell["id"])
            continue
        cell.outputs, cell.execution_count = [], None
        meta = cell_meta(cell)
        role = meta.get("role", "given")
        if not setup_done and role != "setup":
            add_own(None)  # cells before any pristine one: after the setup
            setup_done = True
        if role == "answer":
            key = meta["answer"]
            cands = by_key.get(key, [])
            same_id = [c for c in cands if c.get("id") == cell.get("id")]
            src = None
            if same_id:
                src, found[key] = same_id[0], "key"
            elif cands:
                src, found[key] = cands[0], "key"
            elif cell.get("id") in by_id and not cell_meta(by_id[cell["id"]]).get("role"):
                src, found[key] = by_id[cell["id"]], "id"
            else:
                found[key] = "stub"
            if src is not None:
                cell.source = cell_source(src)
        cells.append(cell)
        roles.append({"role": role, "answer": meta.get("answer"), "check": meta.get("check")})
        add_own("answer:" + meta["answer"] if role == "answer" else None)
        if cell.get("id"):
            add_own("id:" + cell["id"])
    for anchor in list(own):  # anchored to nothing the pristine copy has: at the end
        add_own(anchor)
    nb.cells = cells
    return nb, roles, found
