"""``simhash-lab grade``: grade exercise notebooks, trusting nothing that runs in the student's process.

How a notebook is graded, step by step
--------------------------------------
1-3. **Collect, read, assemble** (:mod:`simhash_lab.grading._notebooks`): every ``*.ipynb`` path
   under the given folders is one row; a file is read only if it is a regular file (no FIFO,
   device, link out of the folder) and is a notebook; the notebook to run is the pristine copy
   shipped in ``simhash_lab/grading/pristine/`` with the file's ``answer`` cells put in, and the
   student's cells of their own (helpers, experiments) where they stand; nothing else of the file.
4. **Read and measure**, in the notebook's sandbox (:mod:`simhash_lab.grading._sandbox`,
   :mod:`simhash_lab.grading._runner`), before any of its cells runs there: the student's cells
   come back as plain Python (IPython's transformations, each cell under a time limit; nothing
   runs), and an answer whose *method* is checked (Kernighan's loop, ``is_near``'s early exit, the
   index's reads, Numba) is a unit of the measure phase, each with its own time. Its code is its
   functions and every definition of the student's cells they reach, taken here from those texts
   and checked for what the exercise's text forbids and for the guard (nothing that reaches into
   the interpreter or keeps values outside a function: :mod:`simhash_lab.grading._code_checks`);
   the sandbox measures what it does on hidden inputs (the lines it runs, the values its int
   variables take, what it reads of the fingerprints and the tables it is handed, what Numba
   compiled); a pure-Python answer is defined anew before every call, so no call starts from what
   an earlier one left. The process has then run nothing of the student's but those definitions,
   and the grader takes measures only from the messages that reach it before it releases the
   first cell: nothing a cell does can change or forge one.
5. **Run**: the assembled cells run, in the same sandbox, on a variant of the exercise's data drawn
   now (:mod:`simhash_lab.grading.data`; the data worked out by hand is the student's shown
   variant), each cell released by the grader and timed on its clock; afterwards, and only when
   the grader has seen the last cell end, the answer functions get inputs drawn now too (hidden:
   they appear nowhere in the notebook or the package), each answer with its own time. The
   sandbox exports each answer's values and the functions' outputs as JSON. A hang or a crash
   costs its answer only: an answer stops at its first call past the call limit ("timed out after
   N s"); one that hangs the sandbox is stopped, and the notebook runs again without it (a
   measured answer not measured again, an answer cell replaced by its stub).
6. **Judge**, here, in the grader's process: each message was size- and shape-limited before it
   was parsed, so what a notebook costs the grader is bounded whatever it sends; each answer's
   exports go to its checker (:mod:`simhash_lab.grading.checks`, the same verdicts the notebook's
   check cells print) as plain data, never as the student's objects; the expected values are
   computed here for the variant and the hidden inputs, and never enter the sandbox.

Why this and not a lint: any measurement taken in a process that runs the student's code can be
forged by that code (a checker replaced, an input transformer installed, a fake Numba object, a
counter read and reset). So the only things that decide a grade are those the student's process
cannot forge: its outputs on inputs it could not know in advance, checked outside; a static check
of the answer's source for what its text forbids and what could reach the measures, done outside;
and measures taken in a sandbox that has run nothing but the answer's definitions yet. The
learner's own check cells in JupyterLab run the same checkers and measures in the kernel, on the
cases the notebook shows, for feedback: a function's ✅ there says that grading runs hidden ones.
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
    "grade_batch",
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
    cells: list[dict]  # {"role", "key", "source"} for every code cell but the checks
    variant: int | None
    cases: dict[str, list[dict]]  # answer key -> hidden cases (functions)
    method_cases: dict[str, list[dict]]  # answer key -> hidden measured cases (methods)
    python: dict[int, str | None] = dataclasses.field(default_factory=dict)  # student cell -> plain Python
    shown: int | None = None  # the variant the notebook shows (a student's, ``simhash-lab assign``)


#: The roles of the cells that hold the student's code: the answers and cells of their own.
_STUDENTS = ("answer", "own")


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


@dataclasses.dataclass
class _Outcome:
    """What the runs of a notebook gave, per answer key: exports, errors, timeouts."""

    exports: dict[str, dict] = dataclasses.field(default_factory=dict)
    errors: dict[str, dict] = dataclasses.field(default_factory=dict)  # answer key -> its cell's error
    stopped: dict[str, str] = dataclasses.field(default_factory=dict)  # answer key -> why it was stopped
    not_run: set[str] = dataclasses.field(default_factory=set)  # answer keys the run never reached
    notes: list[str] = dataclasses.field(default_factory=list)
    log: str = ""


def _timed_out(seconds: float, where: str = "") -> str:
    return (
        _("timed out after {seconds:g} s on a hidden input and was stopped (an endless loop?)")
        if where == "input"
        else _("timed out after {seconds:g} s and was stopped (an endless loop?)")
    ).format(seconds=seconds)


def _run_notebooks(
    plans: list[_Plan], pristine_nb: dict, limits: _sandbox.Limits, unsafe: bool, slot: int, t_end: float
) -> tuple[list[_Outcome], list[dict[str, tuple]]]:
    """Steps 4-5 of ``plans`` in one sandbox (each notebook in a namespace of its own: a class run
    grades one notebook a sandbox; a batch of trusted notebooks, :func:`grade_batch`, several): the
    student's cells read as Python, the measured answers measured, then the cells and their exports
    (see :mod:`simhash_lab.grading._runner`); after a hang or a crash, run again without the culprit
    (a measured answer not measured again, a cell stubbed or skipped), so the other answers are
    still graded. Returns each plan's outcome and its measured answers (:class:`_Measures`)."""
    from .checks._checker import Functions

    outs = [_Outcome() for _p in plans]
    measures = _Measures(plans, limits)
    cells = [dict(c, ns=n) for n, p in enumerate(plans) for c in p.cells]
    at = [(n, i) for n, p in enumerate(plans) for i in range(len(p.cells))]
    # the student's cells, read as Python in the sandbox's first phase (one longer than the grader
    # checks is not read: None)
    to_read = [g for g, c in enumerate(cells) if c["role"] in _STUDENTS]
    for g in to_read:
        if len(cells[g]["source"]) > _code_checks.MAX_SOURCE:
            plans[at[g][0]].python[at[g][1]] = None
    to_read = [g for g in to_read if len(cells[g]["source"]) <= _code_checks.MAX_SOURCE]
    setup = [c["source"] for c in plans[0].cells if c["role"] == "setup"] if plans else []
    skipped: set[int] = set()
    exports = [
        {
            "key": f"{n}:{a.key}",
            "ns": n,
            "kind": "values" if a.kind == "values" else "functions",
            "names": list(a.names),
        }
        for n, p in enumerate(plans)
        for a in p.exercise.answers
        if not (isinstance(a, Functions) and a.method is not None)
    ]
    answer_cell = {(c["ns"], c["key"]): i for i, c in enumerate(cells) if c["role"] == "answer"}

    def split(key: str) -> tuple[int, str] | None:
        n, _sep, k = key.partition(":")
        return (int(n), k) if n.isdigit() and int(n) < len(plans) and _sep else None

    def read(texts: dict[int, str | None]) -> None:  # what the first phase gave, into each plan
        for g in to_read:
            n, i = at[g]
            text = texts.get(g)
            plans[n].python[i] = text if type(text) is str else None

    def units(texts: dict[int, str | None]) -> list[dict]:  # the sandbox's measure phase starts
        read(texts)
        return measures.pending()

    stopped = lambda n, k: k in outs[n].stopped  # noqa: E731
    for _attempt in range(len(cells) + len(measures.answers) + 3):
        left = t_end - time.monotonic()
        if left < 5:
            ran_out = _("the notebook's time limit ({timeout:g} s) ran out").format(timeout=limits.timeout)
            measures.not_run(ran_out)
            for o in outs:
                o.notes.append(ran_out)
            break
        wanted = [e for e in exports if not stopped(*split(e["key"]))]
        job = {
            "mode": "notebook",
            "variant": plans[0].variant,
            "shown": plans[0].shown,
            "read": to_read,
            "max_text": limits.max_string,
            "setup": setup,
            "cells": [
                {"source": "pass" if i in skipped else c["source"], "ns": c["ns"]}
                for i, c in enumerate(cells)
            ],
            "exports": wanted,
            "cell_timeout": limits.cell_timeout,
            "call_timeout": limits.call_timeout,
        }
        cases = {
            e["key"]: plans[e["ns"]].cases.get(split(e["key"])[1], [])
            for e in wanted
            if e["kind"] == "functions"
        }
        measure = units if to_read or measures.pending() else None
        run = _sandbox.run(
            job, limits=limits, wall=left, cases=cases, measure=measure, unsafe=unsafe, slot=slot
        )
        if to_read:  # read once: a cell the run did not read (too slow, too big) is not read again
            read(run.texts)
            to_read = []
        measures.absorb(run)
        for o in outs:
            o.log = run.log
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
                    outs[c["ns"]].errors[c["key"]] = err
                    if err.get("timeout"):
                        outs[c["ns"]].stopped.setdefault(c["key"], _timed_out(limits.cell_timeout))
            elif (
                ev == "export" and isinstance(m.get("key"), str) and any(e["key"] == m["key"] for e in wanted)
            ):
                n, k = split(m["key"])
                outs[n].exports[k] = m
        if any(m.get("event") == "done" for m in run.messages):
            return outs, measures.out
        # it ended early: find what was running, stub it, and go again
        where = run.where
        if where and where[0] in ("read", "unit"):
            # before any cell: a cell that could not be read is None (read above), a measured answer
            # that hung or crashed is that answer's; the run goes again without it
            if where[0] == "unit":
                measures.stopped(where[1], run)
            continue
        why = (
            _timed_out(limits.cell_timeout)
            if run.killed == "cell"
            else _timed_out(limits.call_timeout, "input")
            if run.killed == "export"
            else _("ended the notebook's Python (a crash, os._exit, or too much memory)")
            if run.killed is None
            else _("sent too much to the grader ({v0})").format(v0=run.overflow or "too many messages")
            if run.killed == "output"
            else _("was running when the notebook's time limit ({timeout:g} s) ran out").format(
                timeout=limits.timeout
            )
        )
        culprits: list[tuple[int, str]] = []
        if where and where[0] == "export" and isinstance(where[1], str) and split(where[1]):
            # its function hung on a hidden input (or crashed): the notebook runs again without that export
            n, k = split(where[1])
            outs[n].stopped.setdefault(k, why)
            continue
        if where and where[0] == "cell" and type(where[1]) is int and 0 <= where[1] < len(cells):
            i = where[1]
            n, _local = at[i]
            if cells[i]["role"] == "answer":
                culprits = [(n, cells[i]["key"])]
            else:
                # a given cell (or one of the student's own) that hung or crashed, maybe in an answer's
                # function it calls: it is skipped, and each answer is still judged on its own calls
                skipped.add(i)
                outs[n].notes.append(
                    _("a given cell (code cell {v0}) {why}; it was skipped").format(v0=at[i][1] + 1, why=why)
                    if cells[i]["role"] != "own"
                    else _("a cell of your own (code cell {v0}) {why}; it was skipped").format(
                        v0=at[i][1] + 1, why=why
                    )
                )
        if not culprits and not (where and where[0] == "cell" and where[1] in skipped):
            for o in outs:
                if where and where[0] in ("export", "done"):
                    o.notes.append(_("while the answers were exported, something {why}").format(why=why))
                else:
                    o.notes.append(_("the notebook could not run: something {why}").format(why=why))
            return outs, measures.out
        for n, key in culprits:
            outs[n].stopped.setdefault(key, why)
            cells[answer_cell[(n, key)]]["source"] = _stub_of(pristine_nb, key)
    return outs, measures.out


def _students_cells(plan: _Plan) -> tuple[list[str], list[int]]:
    """The student's cells of ``plan`` as plain Python (those the grader could read), and their indices."""
    idx = [i for i, c in enumerate(plan.cells) if c["role"] in _STUDENTS and plan.python.get(i) is not None]
    return [plan.python[i] for i in idx], idx


def _method_unit(plan: _Plan, answer: Any) -> tuple[str | None, list[str]]:
    """The code of ``answer``'s method run (its functions and every definition of the student's cells
    they reach, :func:`_code_checks.reached`), and what the guard and the exercise's rules refuse
    in it."""
    own = next(
        (i for i, c in enumerate(plan.cells) if c["role"] == "answer" and c["key"] == answer.key), None
    )
    if own is not None and plan.python.get(own) is None:
        return None, [
            _(
                "answer `{key}` could not be checked: its cell is longer than {MAX_SOURCE:,} "
                "characters, or too slow to read (IPython's transformations)"
            ).format(key=answer.key, MAX_SOURCE=_code_checks.MAX_SOURCE)
        ]
    defs: list = []
    texts, idx = _students_cells(plan)
    for i, text in zip(idx, texts):
        try:
            defs += _code_checks.definitions([text])
        except SyntaxError as e:
            if i == own:
                return None, [
                    _("answer `{key}`, line {lineno}: not Python ({msg})").format(
                        key=answer.key, lineno=e.lineno, msg=e.msg
                    )
                ]
            # a cell of the student's own that is not Python defines nothing (as in the notebook)
    reached = _code_checks.reached(defs, answer.names)
    defined = {n for d in reached for n in d.defines}
    missing = [n for n in answer.names if n not in defined]
    problems = _code_checks.refused(_code_checks.labelled(reached), answer.method.rules)
    if missing and not problems:
        return None, [_("`{v0}` is not defined in your cells").format(v0=missing[0])]
    return _code_checks.method_code(reached), problems


class _Measures:
    """Step 4 of the notebooks of one sandbox: their measured answers. Each is a unit of the run's
    measure phase (:mod:`simhash_lab.grading._runner`), built once the student's cells have been
    read (:func:`_method_unit`: an answer the guard or the exercise's rules refuse is not run);
    ``out[n][key]`` is ``(results or None, problems, why)`` for answer ``key`` of plan ``n``."""

    def __init__(self, plans: list[_Plan], limits: _sandbox.Limits) -> None:
        self.plans, self.limits = plans, limits
        self.answers = [(n, a) for n, p in enumerate(plans) for a in p.exercise.answers if _measured(a)]
        self.units: list[dict] | None = None  # built at the first measure phase
        self.out: list[dict[str, tuple]] = [{} for _p in plans]

    def _decided(self, key: str) -> bool:
        n, _sep, k = key.partition(":")
        return k in self.out[int(n)]

    def _set(self, key: str, value: tuple) -> None:
        n, _sep, k = key.partition(":")
        self.out[int(n)].setdefault(k, value)

    def pending(self) -> list[dict]:
        """The units still to measure (all of them, built from the plans' texts, the first time)."""
        if self.units is None:
            self.units = []
            for n, a in self.answers:
                plan = self.plans[n]
                code, problems = _method_unit(plan, a)
                if problems or code is None:
                    self.out[n][a.key] = (None, problems, None)
                    continue
                self.units.append(
                    {
                        "key": f"{n}:{a.key}",
                        "code": code,
                        "names": list(a.names),
                        "cases": plan.cases[a.key] + plan.method_cases.get(a.key, []),
                        # no state between calls: pure Python runs anew before each call (Numba's
                        # globals are frozen when it compiles, and compiling per call would not fit)
                        "fresh": not a.method.compiled,
                    }
                )
        return [u for u in self.units if not self._decided(u["key"])]

    def absorb(self, run: _sandbox.Run) -> None:
        """What the run's measure phase reported of each unit (only its messages: none sent after the
        first cell was released is in ``run.measured``)."""
        keys = {u["key"] for u in self.units or ()}
        for m in run.measured:
            key = m.get("key")
            if not isinstance(key, str) or key not in keys or self._decided(key):
                continue
            if m.get("event") == "unit" and m.get("phase") == "end" and isinstance(m.get("error"), dict):
                e = m["error"]
                why = (
                    _("its definitions raised {v0}").format(v0=e.get("text", "an error"))
                    if not e.get("timeout")
                    else _("its definitions ran too long")
                )
                self._set(key, (None, [], why))
            elif m.get("event") == "measures" and isinstance(m.get("results"), list):
                self._set(key, (m["results"], [], None))

    def stopped(self, culprit: Any, run: _sandbox.Run) -> None:
        """The run ended while measuring: the unit that was running (or the first not measured) is
        over, the others are measured in the next run."""
        rest = self.pending()
        if not rest:
            return
        first = next((u for u in rest if u["key"] == culprit), rest[0])
        why = (
            _("sent too much to the grader ({v0})").format(v0=run.overflow or "too many messages")
            if run.killed == "output"
            else _timed_out(self.limits.call_timeout)
            if run.killed
            else _("stopped before it reported (it crashed Python or used too much memory)")
        )
        self._set(first["key"], (None, [], why))

    def not_run(self, why: str) -> None:
        """The time ran out: every answer not measured yet is "not run"."""
        for n, a in self.answers:
            self.out[n].setdefault(a.key, (None, [], _("not run") + ": " + why))


def _measured(answer: Any) -> bool:
    """Is ``answer``'s method checked (a measured answer, run in the measure phase)?"""
    return getattr(answer, "method", None) is not None


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


@dataclasses.dataclass
class _Job:
    """One notebook on its way through :func:`grade_one` (or a batch): its result so far, and its
    plan once it has one."""

    res: GradeResult
    t0: float
    lang: str
    plan: _Plan | None = None
    pristine: dict | None = None

    def done(self, hint: str | None = None) -> GradeResult:
        if hint is not None:
            self.res.first_hint = _protocol.clip(hint, 400)
        self.res.seconds = time.monotonic() - self.t0
        return self.res


def _prepare(
    path: str | os.PathLike,
    *,
    pristine: dict | None,
    pristines: dict[str, dict] | None,
    exercise: str | None,
    seed: int | None,
    problem: str | None,
    note: str | None,
    shown: dict[str, int] | str | None,
    limits: _sandbox.Limits,
) -> _Job:
    """Steps 2-3 of one notebook and its plan (or its result, when it cannot be graded)."""
    from .checks import EXERCISES

    t0 = time.monotonic()
    p = os.fsdecode(os.fspath(path))
    res = GradeResult(p, None, "not gradable")
    job = _Job(res, t0, "en")
    if note:
        res.notes.append(note)
    if problem is not None:
        job.done(problem)
        return job
    try:
        nb = read_notebook(p)
    except NotGradable as e:
        job.done(str(e))
        return job
    lang = language_of(nb)
    res.lang = job.lang = lang
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
            job.done(
                _(
                    "cannot tell which exercise this is (no simhash_lab exercise in its metadata and "
                    "an unknown file name); known: {v0}"
                ).format(v0=", ".join(sorted(pristine)))
            )
            return job
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
            job.done(
                _("the pristine copy of {exercise} is broken ({name__}: {e})").format(
                    exercise=res.exercise, name__=type(e).__name__, e=e
                )
            )
            return job
        job.plan = _plan(ex, assembled, roles, rng, shown_variant)
        job.pristine = pristine[res.exercise]
    return job


def _finish(job: _Job, outcome: _Outcome, method_runs: dict) -> GradeResult:
    """Step 6 of one notebook: judge, and the result."""
    res = job.res
    with language(job.lang):
        res.checks = _judge(job.plan, outcome, method_runs)
        res.status = "passed" if res.checks and all(c.passed for c in res.checks) else "failed"
        res.log = outcome.log[-20000:]
        res.notes += outcome.notes
        failed = [c for c in res.checks if not c.passed]
        hint = f"{failed[0].name}: {failed[0].hint}" if failed else None
        if outcome.notes and (hint is None or failed[0].name in outcome.not_run):
            hint = "; ".join(outcome.notes) + (f"; {hint}" if hint else "")
        return job.done(hint)


def _run(jobs: list[_Job], limits: _sandbox.Limits, unsafe: bool, slot: int) -> list[GradeResult]:
    """Steps 4-6 of ``jobs`` (one notebook, or a batch of the same exercise and language): one
    sandbox run (the student's cells read, the measured answers, the cells, the exports; again
    without a culprit after a hang), then the judging."""
    todo = [j for j in jobs if j.plan is not None]
    if todo:
        t_end = min(j.t0 for j in todo) + limits.timeout * len(todo)
        plans = [j.plan for j in todo]
        with language(todo[0].lang):
            outcomes, measured = _run_notebooks(plans, todo[0].pristine, limits, unsafe, slot, t_end)
        for j, outcome, runs in zip(todo, outcomes, measured):
            _finish(j, outcome, runs)
    return [j.res for j in jobs]


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
    limits = limits or _sandbox.Limits()
    job = _prepare(
        path,
        pristine=pristine,
        pristines=pristines,
        exercise=exercise,
        seed=seed,
        problem=problem,
        note=note,
        shown=shown,
        limits=limits,
    )
    return _run([job], limits, unsafe, slot)[0]


def grade_batch(
    paths: Sequence[str | os.PathLike],
    *,
    limits: _sandbox.Limits | None = None,
    unsafe: bool = False,
    slot: int = 0,
    seed: int = 0,
    shown: dict[str, int] | str | None = None,
) -> list[GradeResult]:
    """Grade notebooks of one exercise and language together: every step of :func:`grade_one`, the
    same hidden variant and cases for all, but their notebook runs in **one** sandbox (each in a
    namespace of its own) and their measured answers in one more. For many notebooks of trusted
    code (the grader's own tests: the corpora of honest and dishonest answers), never for a class:
    notebooks in one batch share a process, so one could reach another.

    Raises ValueError when the notebooks are not all of one exercise and one language."""
    limits = limits or _sandbox.Limits()
    pristines = {lang: load_pristine(lang=lang) for lang in LANGUAGES}
    jobs = [
        _prepare(
            p,
            pristine=None,
            pristines=pristines,
            exercise=None,
            seed=seed,
            problem=None,
            note=None,
            shown=shown,
            limits=limits,
        )
        for p in paths
    ]
    kinds = {(j.res.exercise, j.lang) for j in jobs if j.plan is not None}
    if len(kinds) > 1:
        raise ValueError(f"a batch is of one exercise and one language; got {sorted(map(str, kinds))}")
    return _run(jobs, limits, unsafe, slot)


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
        Seconds one cell may run (and one call of an answer, at most; an answer stops at its first
        call past it), and the whole notebook (every run of it); defaults:
        :class:`~simhash_lab.grading._sandbox.Limits`.
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
        # one call of an answer may not take longer than a cell
        call_timeout=base.call_timeout
        if cell_timeout is None
        else min(base.call_timeout, float(cell_timeout)),
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
