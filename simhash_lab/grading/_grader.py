"""``simhash-lab grade``: grade exercise notebooks, trusting nothing that runs in the student's process.

How a notebook is graded, step by step
--------------------------------------
1-3. **Collect, read, assemble** (:mod:`simhash_lab.grading._notebooks`): every ``*.ipynb`` path
   under the given folders is one row; a file is read only if it is a regular file (no FIFO,
   device, link out of the folder) and is a notebook; the notebook to run is the pristine copy
   shipped in ``simhash_lab/grading/pristine/`` with the file's ``answer`` cells put in, and
   nothing else of the file.
4. **Run** (:mod:`simhash_lab.grading._sandbox`, :mod:`simhash_lab.grading._runner`): the assembled
   cells run in a bubblewrap sandbox on a variant of the exercise's data drawn now
   (:mod:`simhash_lab.grading.data`), each cell released by the grader and timed on its clock;
   afterwards, and only when the grader has seen the last cell end, the answer functions get
   inputs drawn now too (hidden: they appear nowhere in the notebook or the package). The sandbox exports
   each answer's values and the functions' outputs as JSON. An answer that hangs the notebook is
   stopped; the notebook runs again with that answer's stub, so the later answers are still graded.
5. **Method runs**: an answer whose *method* is checked (Kernighan's loop, ``is_near``'s early exit,
   the index's candidate reads, Numba) is extracted from its cell (IPython's transformations in a
   child process under a time and memory limit), checked against an allow-list and the method's
   shape here (:mod:`simhash_lab.grading._code_checks`) and run again in a sandbox of its own where no
   other code of the student's runs, which measures what the method check needs (lines, the values
   of its int variables, reads); a pure-Python answer is defined anew before every call, so no call
   starts from what an earlier one left.
6. **Judge**, here, in the grader's process: each message was size- and shape-limited before it
   was parsed, so what a notebook costs the grader is bounded whatever it sends; each answer's
   exports go to its checker
   (:mod:`simhash_lab.grading.checks`) as plain data, never as the student's objects; the expected
   values are computed here for the variant and the hidden inputs, and never enter the sandbox.

Why this and not a lint: any measurement taken in a process that runs the student's code can be
forged by that code (a checker replaced, an input transformer installed, a fake Numba object, a
counter read and reset). So the only things that decide a grade are those the student's process
cannot forge: its outputs on inputs it could not know in advance, checked outside; a static check
of the answer's source, done outside; and counts taken in a clean sandbox that runs nothing but the
allow-listed definitions. The learner's own check cells in JupyterLab run the same checkers in the
kernel, for feedback only.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .._i18n import LANGUAGES, _, language
from . import _code_checks, _protocol, _sandbox
from ._notebooks import (
    META,
    Item,
    NotGradable,
    assemble,
    cell_meta,
    cell_source,
    collect,
    identify,
    language_of,
    load_pristine,
    read_notebook,
)
from ._report import CheckResult, GradeResult

__all__ = [
    "META",
    "Item",
    "assemble",
    "collect",
    "grade",
    "grade_one",
    "identify",
    "load_pristine",
    "read_notebook",
]


# -- 4-6. run and judge ----------------------------------------------------------------------------


@dataclasses.dataclass
class _Plan:
    """One notebook's grading: its cells, its answers, the variant and the hidden cases."""

    exercise: Any  # checks._checker.Exercise
    cells: list[dict]  # {"role", "key", "source", "stub"} for every code cell but the checks
    variant: int | None
    cases: dict[str, list[dict]]  # answer key -> hidden cases (functions)
    method_cases: dict[str, list[dict]]  # answer key -> hidden measured cases (methods)
    python: dict[str, str | None] = dataclasses.field(default_factory=dict)  # answer key -> plain Python
    shown: int | None = None  # the variant the notebook shows (a student's, ``simhash-lab assign``)


def _plan(exercise: Any, nb: Any, roles: list[dict], rng: random.Random, shown: int | None = None) -> _Plan:
    from .checks._checker import Functions

    cells = []
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell, role in zip(code, roles):
        if role["role"] != "check":
            cells.append({"role": role["role"], "key": role["answer"], "source": cell_source(cell)})
    variant = exercise.grading_variant(rng, visible=shown)
    cases, method_cases = {}, {}
    for a in exercise.answers:
        if isinstance(a, Functions):
            cases[a.key] = a.cases(rng)
            if a.method is not None:
                method_cases[a.key] = a.method.cases(rng)
    return _Plan(exercise, cells, variant, cases, method_cases, shown=shown)


def _stub_of(pristine_nb: dict, key: str) -> str:
    for cell in pristine_nb.get("cells", []):
        if cell_meta(cell).get("answer") == key:
            return cell_source(cell)
    return "raise NotImplementedError()"


_NAME = re.compile(r"[A-Za-z_]\w*")


def _defined_names(python: str | None) -> set[str]:
    """Names a cell (already plain Python, see :func:`_to_python`) defines at its top level."""
    if python is None:
        return set()
    try:
        import ast

        tree = ast.parse(python)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return set()
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        for t in getattr(node, "targets", [getattr(node, "target", None)]):
            for n in ast.walk(t) if t is not None else ():
                if isinstance(n, ast.Name):
                    out.add(n.id)
    return out


@dataclasses.dataclass
class _Outcome:
    """What the runs of a notebook gave, per answer key: exports, errors, timeouts."""

    exports: dict[str, dict] = dataclasses.field(default_factory=dict)
    errors: dict[str, dict] = dataclasses.field(default_factory=dict)  # answer key -> its cell's error
    stopped: dict[str, str] = dataclasses.field(default_factory=dict)  # answer key -> why it was stopped
    not_run: set[str] = dataclasses.field(default_factory=set)  # answer keys the run never reached
    notes: list[str] = dataclasses.field(default_factory=list)
    log: str = ""


def _run_notebook(
    plan: _Plan, pristine_nb: dict, limits: _sandbox.Limits, unsafe: bool, slot: int, t_end: float
) -> _Outcome:
    """Run the assembled cells and the exports; after a hang, run again with the culprit stubbed."""
    from .checks._checker import Functions

    out = _Outcome()
    cells = [dict(c) for c in plan.cells]
    skipped: set[int] = set()
    exports = [
        {"key": a.key, "kind": "values" if a.kind == "values" else "functions", "names": list(a.names)}
        for a in plan.exercise.answers
        if not (isinstance(a, Functions) and a.method is not None)
    ]
    answer_cell = {c["key"]: i for i, c in enumerate(cells) if c["role"] == "answer"}
    wanted = {e["key"] for e in exports}
    for _attempt in range(len(cells) + 2):
        left = t_end - time.monotonic()
        if left < 5:
            out.notes.append(
                _("the notebook's time limit ({timeout:g} s) ran out").format(timeout=limits.timeout)
            )
            break
        job = {
            "mode": "notebook",
            "variant": plan.variant,
            "cells": [{"source": "pass" if i in skipped else c["source"]} for i, c in enumerate(cells)],
            "exports": [e for e in exports if e["key"] not in out.stopped],
            "cell_timeout": limits.cell_timeout,
            "call_timeout": limits.call_timeout,
        }
        cases = {k: v for k, v in plan.cases.items() if k not in out.stopped}
        run = _sandbox.run(job, limits=limits, wall=left, cases=cases, unsafe=unsafe, slot=slot)
        out.log = run.log
        for m in run.messages:
            ev = m.get("event")
            if (
                ev == "cell"
                and m.get("phase") == "end"
                and type(m.get("i")) is int
                and 0 <= m["i"] < len(cells)
            ):
                c = cells[m["i"]]
                err = m.get("error")
                if c["role"] == "answer" and isinstance(err, dict):
                    out.errors[c["key"]] = err
                    if err.get("timeout"):
                        out.stopped.setdefault(
                            c["key"],
                            f"ran longer than {limits.cell_timeout:g} s and was stopped (an endless loop?)",
                        )
            elif ev == "export" and m.get("key") in wanted:  # (only the keys asked for are kept)
                out.exports[m["key"]] = m
        done = any(m.get("event") == "done" for m in run.messages)
        if done:
            return out
        # it ended early: find what was running, stub it, and go again
        where = run.where
        why = (
            _("ran longer than {cell_timeout:g} s and was stopped (an endless loop?)").format(
                cell_timeout=limits.cell_timeout
            )
            if run.killed in ("cell", "export")
            else _("ended the notebook's Python (a crash, os._exit, or too much memory)")
            if run.killed is None
            else _("sent too much to the grader ({v0})").format(v0=run.overflow or "too many messages")
            if run.killed == "output"
            else _("was running when the notebook's time limit ({timeout:g} s) ran out").format(
                timeout=limits.timeout
            )
        )
        culprits = []
        if where and where[0] == "export" and isinstance(where[1], str):
            # its function hung on a hidden input: the notebook runs again without that export
            out.stopped.setdefault(where[1], why)
            continue
        if where and where[0] == "cell" and type(where[1]) is int and 0 <= where[1] < len(cells):
            i = where[1]
            if cells[i]["role"] == "answer":
                culprits = [cells[i]["key"]]
            else:  # a given cell that calls an answer's code: stub the answers it uses
                used = set(_NAME.findall(cells[i]["source"]))
                culprits = [
                    c["key"]
                    for c in cells[:i]
                    if c["role"] == "answer"
                    and c["key"] not in out.stopped
                    and _defined_names(plan.python.get(c["key"])) & used
                ]
                if not culprits:
                    skipped.add(i)
                    out.notes.append(
                        _("a given cell (code cell {v0}) {why}; it was skipped").format(v0=i + 1, why=why)
                    )
        if not culprits and not (where and where[0] == "cell" and where[1] in skipped):
            if where and where[0] in ("export", "done"):
                out.notes.append(_("while the answers were exported, something {why}").format(why=why))
                return out
            out.notes.append(_("the notebook could not run: something {why}").format(why=why))
            return out
        for key in culprits:
            out.stopped.setdefault(key, why)
            cells[answer_cell[key]]["source"] = _stub_of(pristine_nb, key)
    return out


def _method_code(plan: _Plan, answer: Any) -> tuple[str | None, list[str]]:
    """The code a method run executes for ``answer`` (its cell's definitions and those of the answers
    it uses), and the allow-list's problems with it."""
    by_key = {c["key"]: c["source"] for c in plan.cells if c["role"] == "answer"}
    wanted = [answer.key]
    for used in answer.method.uses:
        for key, src in by_key.items():
            if key != answer.key and key not in wanted and plan.python.get(key) is not None:
                try:
                    if used in _code_checks.extract(src, plan.python[key]).functions:
                        wanted.append(key)
                except SyntaxError:
                    pass
    order = [c["key"] for c in plan.cells if c["role"] == "answer" and c["key"] in wanted]
    texts, problems = [], []
    defined = set()
    for key in order:
        if plan.python.get(key) is None:
            problems.append(
                _(
                    "answer `{key}` could not be checked: its cell is longer than {MAX_SOURCE:,} "
                    "characters, or too slow to read (IPython's transformations)"
                ).format(key=key, MAX_SOURCE=_code_checks.MAX_SOURCE)
            )
            continue
        try:
            ex = _code_checks.extract(by_key[key], plan.python[key])
        except SyntaxError as e:
            problems.append(
                _("answer `{key}`, line {lineno}: not Python ({msg})").format(
                    key=key, lineno=e.lineno, msg=e.msg
                )
            )
            continue
        texts.append((key, ex))
        defined |= ex.functions
    extra = {n: None for n in defined}
    for key, ex in sorted(texts, key=lambda t: t[0] != answer.key):  # the answer's own problems first
        for p in _code_checks.problems(ex.text, answer.method.allow, extra_names=extra):
            problems.append(p if key == answer.key else f"answer `{key}`, {p}")
    missing = [n for n in answer.names if n not in defined]
    if missing and not problems:
        problems.append(_("`{v0}` is not defined with def in its answer cell").format(v0=missing[0]))
    if answer.method.shape is not None and not problems:
        problems += answer.method.shape(next(ex.text for key, ex in texts if key == answer.key))
    return "".join(ex.text for _key, ex in texts), problems


def _to_python(plan: _Plan, limits: _sandbox.Limits, t_end: float) -> None:
    """The answer cells as plain Python, into ``plan.python``: IPython's transformations, in a child
    process under a time and memory limit (:func:`_code_checks.to_python_bounded`), never here."""
    answers = [c for c in plan.cells if c["role"] == "answer"]
    left = t_end - time.monotonic() - 5
    texts = _code_checks.to_python_bounded(
        [c["source"] for c in answers],
        timeout=min(limits.cell_timeout, max(0.0, left)),
        memory=min(limits.memory, 1 << 30),
    )
    plan.python = {c["key"]: t for c, t in zip(answers, texts)}


def _run_method(
    plan: _Plan, answer: Any, code: str, limits: _sandbox.Limits, unsafe: bool, slot: int, t_end: float
) -> tuple[list | None, str | None]:
    """Run ``code`` alone in a fresh sandbox on the answer's hidden cases (measured); returns
    ``(results per case or None, why it failed)``."""
    cases = plan.cases[answer.key] + plan.method_cases.get(answer.key, [])
    job = {
        "mode": "method",
        "key": answer.key,
        "variant": plan.variant,
        "setup": [c["source"] for c in plan.cells if c["role"] == "setup"],
        "code": code,
        "names": list(answer.names),
        "cases": cases,
        "call_timeout": limits.call_timeout,
        # no state between calls: pure Python runs anew before each call (Numba's globals are
        # frozen when it compiles, and compiling per call would not fit the time)
        "fresh": not answer.method.allow.decorators,
    }
    left = t_end - time.monotonic()
    if left < 5:
        return None, _("not run") + ": " + _("the notebook's time limit ({timeout:g} s) ran out").format(
            timeout=limits.timeout
        )
    run = _sandbox.run(job, limits=limits, wall=min(left, limits.cell_timeout * 4), unsafe=unsafe, slot=slot)
    for m in run.messages:
        if m.get("event") == "cell" and m.get("phase") == "end" and isinstance(m.get("error"), dict):
            e = m["error"]
            return None, _("its definitions raised {v0}").format(v0=e.get("text", "an error")) if not e.get(
                "timeout"
            ) else (_("its definitions ran too long"))
        if m.get("event") == "export" and m.get("key") == answer.key:
            return m.get("results"), None
    if run.killed:
        return None, _("ran longer than {cell_timeout:g} s and was stopped (an endless loop?)").format(
            cell_timeout=limits.cell_timeout
        )
    return None, _("stopped before it reported (it crashed Python or used too much memory)")


def _judge(plan: _Plan, outcome: _Outcome, method_runs: dict) -> list[CheckResult]:
    from .checks._checker import Functions, Verdict

    results = []
    for a in plan.exercise.answers:
        credit = 0.0
        if a.key in outcome.stopped:
            v = Verdict(a.key, False, _("answer `{key}` {why}").format(key=a.key, why=outcome.stopped[a.key]))
        elif isinstance(a, Functions) and a.method is not None:
            res, problems, why = method_runs.get(a.key, (None, [], _("not run")))
            if problems:
                v = a.verdict([], [], problems)
            elif res is None:
                v = Verdict(a.key, False, _("answer `{key}` {why}").format(key=a.key, why=why))
                if why.startswith(_("not run")):
                    outcome.not_run.add(a.key)
            else:
                n = len(plan.cases[a.key])
                v = a.verdict(
                    plan.cases[a.key],
                    res[:n],
                    (),
                    plan.method_cases.get(a.key, []),
                    res[n:],
                )
        elif isinstance(a, Functions):
            exp = outcome.exports.get(a.key)
            res = exp.get("results") if isinstance(exp, dict) else None
            if not isinstance(res, list):
                outcome.not_run.add(a.key)
                v = Verdict(
                    a.key,
                    False,
                    _("answer `{key}` was not run (the notebook stopped before it)").format(key=a.key),
                )
            else:
                v = a.verdict(plan.cases[a.key], res)
        else:
            exp = outcome.exports.get(a.key)
            values = exp.get("values") if isinstance(exp, dict) else None
            if not isinstance(values, dict):
                outcome.not_run.add(a.key)
                v = Verdict(
                    a.key,
                    False,
                    _("answer `{key}` was not run (the notebook stopped before it)").format(key=a.key),
                )
            else:
                # an answer worked out by hand is judged on the data the notebook shows; the others
                # on the hidden variant the notebook ran on
                variant = plan.shown if getattr(a, "hand", None) is not None else plan.variant
                v = a.verdict(values, variant)
                err = outcome.errors.get(a.key)
                if not v.passed and isinstance(err, dict) and v.missing:
                    v = Verdict(a.key, False, _cell_error_hint(a.key, err))
                elif not v.passed:
                    credit = a.part_credit(values, variant)
        results.append(
            CheckResult(
                a.key,
                v.passed,
                "" if v.passed else _protocol.clip(v.summary(), 400),
                credit=credit,
                feedback="" if v.passed else _public_hint(a, v),
            )
        )
    return results


_CALL = re.compile(r"\b([A-Za-z_]\w*)\((?:[^()]|\([^()]*\))*\)")
_LONG_NUMBER = re.compile(r"-?\b(?:0[xXbBoO][0-9a-fA-F_]+|\d[\d_.eE+-]{3,})\b")


def _public_hint(answer: Any, v: Any) -> str:
    """``v``'s hint for a student's feedback: never the expected or returned values, and, unless the
    answer is judged on data the notebook shows, no call's arguments or long number (a hidden input,
    or a value computed from one)."""
    hint = str(v.hint)
    if getattr(answer, "hand", None) is None:
        hint = _CALL.sub(lambda m: f"{m.group(1)}(...)", hint)
        hint = _LONG_NUMBER.sub("N", hint)
    return _protocol.clip(hint, 400)


def _cell_error_hint(key: str, err: dict) -> str:
    if err.get("timeout"):
        return _("answer `{key}` ran too long and was stopped").format(key=key)
    text = str(err.get("text", ""))
    if text.startswith("NotImplementedError"):
        return _("answer `{key}` is not written yet (it still raises NotImplementedError)").format(key=key)
    return _("answer `{key}` raised {text}").format(key=key, text=text)


def grade_one(
    path: str | os.PathLike,
    *,
    pristine: dict | None = None,
    pristines: dict[str, dict] | None = None,
    limits: _sandbox.Limits | None = None,
    exercise: str | None = None,
    unsafe: bool = False,
    slot: int = 0,
    seed: int | None = None,
    problem: str | None = None,
    note: str | None = None,
    shown: dict[str, int] | str | None = None,
) -> GradeResult:
    """Grade one notebook file (see the module docstring); never raises for a bad file.

    ``seed`` fixes the hidden variant and cases (tests only; by default they are drawn from the
    system's randomness); ``problem`` is the reason :func:`collect` found the file unreadable,
    ``note`` what it found worth telling (a link). ``shown`` maps exercises to the variant the
    student was given (``simhash-lab assign``): the answers worked out by hand are judged on it,
    whatever variant the notebook's own metadata names (a different one is noted and flagged);
    ``"own"``: on the variant the notebook's metadata names (a student's own CI: feedback only).

    The notebook's language (its metadata's ``simhash_lab.lang``, :func:`language_of`) picks the
    pristine copy (``pristines[lang]``, default :func:`load_pristine` in that language; ``pristine``,
    when given, is used whatever the language) and the language of the verdicts and hints; the
    checks and points are the same in every language.
    """
    from .checks import EXERCISES

    t0 = time.monotonic()
    limits = limits or _sandbox.Limits()
    p = os.fsdecode(os.fspath(path))
    res = GradeResult(p, None, "not gradable")
    if note:
        res.notes.append(note)

    def done(hint: str | None = None) -> GradeResult:
        if hint is not None:
            res.first_hint = _protocol.clip(hint, 400)
        res.seconds = time.monotonic() - t0
        return res

    if problem is not None:
        return done(problem)
    try:
        nb = read_notebook(p)
    except NotGradable as e:
        return done(str(e))
    lang = language_of(nb)
    res.lang = lang
    if pristine is None:
        pristine = (pristines or {}).get(lang) if pristines is not None else load_pristine(lang=lang)
        if not pristine and lang != "en":  # no copy in this language: the English one, same checks
            pristine = (pristines or {}).get("en") if pristines is not None else load_pristine()
            res.notes.append(
                _("no {lang} pristine copy: its answers were graded in the English notebook").format(
                    lang=lang
                )
            )
    pristine = pristine or {}
    with language(lang):  # its verdicts and hints in the notebook's language
        res.exercise = identify(nb, p, pristine, exercise)
        by_name = identify({}, p, pristine)
        if exercise is None and res.exercise and by_name and by_name != res.exercise:
            res.notes.append(
                _("graded as {exercise}, as its metadata says; its file name says {by_name}").format(
                    exercise=res.exercise, by_name=by_name
                )
            )
        if res.exercise is None or res.exercise not in EXERCISES:
            return done(
                _(
                    "cannot tell which exercise this is (no simhash_lab exercise in its metadata and "
                    "an unknown file name); known: {v0}"
                ).format(v0=", ".join(sorted(pristine)))
            )
        ex = EXERCISES[res.exercise]
        shown_variant = None
        if shown == "own":  # a student's own check (their CI): the variant their notebook names
            said = cell_meta(nb).get("variant")
            shown_variant = said if type(said) is int else None
        elif shown is not None:
            shown_variant = shown.get(res.exercise)
            said = cell_meta(nb).get("variant")
            if said != shown_variant:
                res.flag = "variant mismatch"
                res.notes.append(
                    _(
                        "its notebook is not the one released to this student (its variant {v0}); graded "
                        "on this student's"
                    ).format(v0=said if type(said) is int else "is missing")
                )
        rng = random.Random(seed) if seed is not None else random.SystemRandom()
        try:
            assembled, roles, found = assemble(pristine[res.exercise], nb)
        except Exception as e:  # a pristine copy the grader cannot use: not the student's fault
            return done(
                _("the pristine copy of {exercise} is broken ({name__}: {e})").format(
                    exercise=res.exercise, name__=type(e).__name__, e=e
                )
            )
        plan = _plan(ex, assembled, roles, rng, shown_variant)
        t_end = t0 + limits.timeout
        _to_python(plan, limits, t_end)
        outcome = _run_notebook(plan, pristine[res.exercise], limits, unsafe, slot, t_end)
        method_runs = {}
        for a in ex.answers:
            method = getattr(a, "method", None)
            if method is None:
                continue
            code, problems = _method_code(plan, a)
            if problems:
                method_runs[a.key] = (None, problems, None)
                continue
            results, why = _run_method(plan, a, code, limits, unsafe, slot, t_end)
            method_runs[a.key] = (results, [], why)
        res.checks = _judge(plan, outcome, method_runs)
        res.status = "passed" if res.checks and all(c.passed for c in res.checks) else "failed"
        res.log = outcome.log[-20000:]
        res.notes += outcome.notes
        failed = [c for c in res.checks if not c.passed]
        hint = f"{failed[0].name}: {failed[0].hint}" if failed else None
        if outcome.notes and (hint is None or failed[0].name in outcome.not_run):
            hint = "; ".join(outcome.notes) + (f"; {hint}" if hint else "")
        return done(hint)


def grade(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    cell_timeout: float | None = None,
    timeout: float | None = None,
    memory: int | None = None,
    jobs: int = 1,
    exercise: str | None = None,
    pristine_dir: str | os.PathLike | None = None,
    unsafe: bool = False,
    seed: int | None = None,
    shown: Any = None,
) -> list[GradeResult]:
    """Grade notebooks: one :class:`GradeResult` per path :func:`collect` finds, in its order.

    Parameters
    ----------
    paths : path or list of paths
        Notebook files, or folders (every ``*.ipynb`` under them).
    cell_timeout, timeout : float, optional
        Seconds one cell (or one answer's export) may run, and the whole notebook (every run of it);
        defaults: :class:`~simhash_lab.grading._sandbox.Limits`.
    memory : int, optional
        Bytes of address space each sandboxed process may use (default 2 GiB).
    jobs : int
        Notebooks graded at the same time.
    exercise : str, optional
        Grade every file as this exercise (default: from each file's metadata or name).
    unsafe : bool
        Run the notebooks without the sandbox (``--unsafe-no-sandbox``).
    seed : int, optional
        Fix the hidden variants and cases (tests); by default each notebook gets fresh ones.
    shown : callable, optional
        ``shown(path)``: the variants, by exercise, released to the student whose file it is (see
        :mod:`simhash_lab.grading.classroom`), or None; ``"own"``: each notebook's own.

    Raises
    ------
    SandboxUnavailable
        bubblewrap cannot run here and ``unsafe`` is False.
    ValueError
        ``exercise`` is not one of the exercises.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    base = _sandbox.Limits()
    limits = dataclasses.replace(
        base,
        cell_timeout=base.cell_timeout if cell_timeout is None else float(cell_timeout),
        timeout=base.timeout if timeout is None else float(timeout),
        memory=base.memory if memory is None else int(memory),
    )
    pristines = {lang: load_pristine(pristine_dir, lang) for lang in LANGUAGES}
    pristine = pristines["en"]
    if exercise is not None and exercise not in pristine:
        raise ValueError(f"exercise must be one of {', '.join(sorted(pristine))}; got {exercise!r}")
    if not unsafe:
        why = _sandbox.availability()
        if why is not None:
            raise _sandbox.SandboxUnavailable(why)
    items = collect(paths)
    slots = list(range(max(1, jobs)))
    lock = threading.Lock()

    def one(i_item: tuple[int, Item]) -> GradeResult:
        i, item = i_item
        with lock:
            slot = slots.pop()
        try:
            s = None if seed is None else seed + i
            return grade_one(
                item.path,
                pristines=pristines,
                limits=limits,
                exercise=exercise,
                unsafe=unsafe,
                slot=slot,
                seed=s,
                problem=item.problem,
                note=item.note,
                shown=shown if shown is None or shown == "own" else shown(item.path),
            )
        except Exception as e:  # a bug of the grader's must not lose the other rows
            r = GradeResult(item.path, None, "not gradable")
            r.first_hint = (
                f"the grader failed on this file ({type(e).__name__}: {_protocol.clip(str(e), 200)})"
            )
            return r
        finally:
            with lock:
                slots.append(slot)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, enumerate(items)))
