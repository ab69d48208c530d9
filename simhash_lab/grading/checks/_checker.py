"""What every checker shares: answers, verdicts, and the helpers that turn a wrong value into a hint.

An exercise module (``checks/hamming_popcount.py`` ...) declares its answers, one per answer cell:

* :class:`Values`: the cell defines values (``d_AB``, ``best_k``); ``judge(values, variant)``
  checks them. ``data=True`` marks values computed from the exercise's data: grading re-runs the
  notebook on a hidden variant of that data (:mod:`simhash_lab.grading.data`), so a value copied
  from a ❌ (or from a classmate) is wrong there.
* :class:`Functions`: the cell defines functions; ``cases(rng)`` gives the calls to make (``rng``
  None: the visible cases of the learner's check cell; a ``random.Random``: hidden cases drawn at
  grading time) and ``judge(case, results)`` checks what came back. A :class:`Method` adds measured
  cases (lines executed, the values of its int variables, items and table entries read, what
  Numba compiled) that hold for any honest implementation, however written, and fail a bypass, and
  the exercise's stated rules (:class:`~simhash_lab.grading._code_checks.Rules`); the guard of
  :mod:`simhash_lab.grading._code_checks` applies to every measured answer.

The same answer object serves every judge, on one path: called from a check cell
(``checks.md5_64(md5_64)``) it runs the visible cases in the learner's kernel through the same
:func:`~simhash_lab.grading._protocol.run_cases` as the sandbox (a call stopped at
``CALL_TIMEOUT``, the answer's later calls not made), the same static checks on the functions it
reaches and the same verdict, and prints one ✅ line (saying, for an answer graded on hidden cases,
that the ✅ is for the cases shown) or a ❌ block, without raising (so Run All goes on); ``simhash-lab
check`` and ``grade`` call :meth:`Values.verdict` / :meth:`Functions.verdict` on data exported from
their runs. Judges only ever see plain data (:func:`~simhash_lab.grading._protocol.plain` and back
through JSON), never the learner's objects.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..._i18n import N_, _, language
from .. import _code_checks, _protocol

__all__ = [
    "Answer",
    "Values",
    "Functions",
    "Method",
    "Verdict",
    "Wrong",
    "Raw",
    "case",
    "copied_hint",
    "data_variants",
    "VISIBLE_VARIANTS",
    "Exercise",
    "call",
    "expect_int",
    "expect_number",
    "expect_bool",
    "int_list",
    "returned",
    "u64",
    "f64",
    "i64",
    "flags",
    "spy",
    "ref",
]

NOT_SHOWN = object()  # Wrong(expected=NOT_SHOWN): the ❌ says what is wrong without the value

#: What a passing check cell adds for an answer graded on cases it cannot show: its ✅ is for the
#: cases here; grading decides on others (the same checks, :mod:`simhash_lab.grading._grader`).
HIDDEN_NOTE = N_("(on the cases shown here; grading runs it on hidden ones too)")


class Wrong(Exception):
    """A wrong answer: a hint, and what was expected and what came back (when they may be shown)."""

    def __init__(
        self, hint: str, expected: Any = NOT_SHOWN, got: Any = NOT_SHOWN, *, missing: bool = False
    ) -> None:
        hint = _(hint)  # a hint marked N_ where it was stored is translated here, when it is shown
        super().__init__(hint)
        self.hint, self.expected, self.got = hint, expected, got
        self.missing = missing  # a name the answer cell did not define (whatever the hint's language)


@dataclasses.dataclass
class Verdict:
    """One answer's result: passed, or the hint (and expected/got when shown) of its first problem."""

    key: str
    passed: bool
    hint: str = ""
    expected: str | None = None
    got: str | None = None
    missing: bool = False  # the answer's name was not defined (its cell raised, or was not run)

    def summary(self) -> str:
        """One line for a table: the hint, then expected/got (if shown)."""
        if self.passed:
            return ""
        parts = []
        if self.expected is not None:
            parts.append(_("expected {value}").format(value=self.expected))
        if self.got is not None:
            parts.append(_("got {value}").format(value=self.got))
        tail = "; ".join(parts)
        return _protocol.clip(f"{self.hint} ({tail})" if tail else self.hint, 400)


def _show(x: Any, limit: int = 160) -> str:
    s = x if isinstance(x, str) and type(x) is str and getattr(x, "_raw", False) else repr(x)
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


class Raw(str):
    """A text shown as it is (not repr'd) in expected/got."""

    _raw = True


def _fmt(x: Any) -> str | None:
    if x is NOT_SHOWN:
        return None
    if type(x) is Raw:
        return _protocol.clip(str(x), 200)
    return _show(x)


# -- answers ---------------------------------------------------------------------------------------


class Answer:
    """One answer cell's checker (see the module docstring). ``key`` is the answer cell's key and the
    check cell's ``checks.KEY(...)``; ``names`` are what the cell defines, in the check call's order."""

    kind = "answer"

    def __init__(
        self,
        key: str,
        title: str,
        passed: str | Callable[[Any], str],
        names: Sequence[str],
        points: float = 1,
    ) -> None:
        self.key, self.title, self._passed, self.names = key, title, passed, tuple(names)
        if not (isinstance(points, (int, float)) and points > 0):
            raise ValueError(f"{key}: points must be a positive number, got {points!r}")
        self.points = points  # what the answer is worth in a gradebook (``simhash-lab grade --csv``)

    @property
    def passed(self) -> str:
        """The pass message; one that names the data is written for the process's variant."""
        if callable(self._passed):
            from .. import data

            return _(self._passed(data.shown_variant()))
        return _(self._passed)

    #: Grading judges this answer on cases the notebook cannot show (hidden inputs, other data):
    #: its check cell's ✅ says so.
    hidden = False

    def pass_line(self, lang: str | None = None) -> str:
        """The exact stdout of a passing check cell (in ``lang``, default the current language):
        ``✅`` and the pass message, and for an answer graded on hidden cases, that it passed the
        cases shown here only."""
        if lang is not None:
            with language(lang):
                return self.pass_line()
        if self.hidden:
            return f"✅ {self.passed} " + _(HIDDEN_NOTE) + "\n"
        return f"✅ {self.passed}\n"

    def render(self, v: Verdict) -> str:
        """What the check cell prints for ``v``."""
        if v.passed:
            return self.pass_line()
        lines = [_("❌ {title}: not yet").format(title=_(self.title))]
        if v.expected is not None:
            lines.append(_("   expected: {value}").format(value=v.expected))
        if v.got is not None:
            lines.append(_("   got:      {value}").format(value=v.got))
        lines.append(_("   hint:     {hint}").format(hint=v.hint))
        return "\n".join(lines) + "\n"

    def _verdict(self, fn: Callable[[], None]) -> Verdict:
        try:
            fn()
        except Wrong as w:
            return Verdict(self.key, False, w.hint, _fmt(w.expected), _fmt(w.got), w.missing)
        except Exception as e:  # data no judge expected (a forged export, say): a failure, not a crash
            return Verdict(
                self.key,
                False,
                _("the answer's results could not be judged ({error})").format(
                    error=_protocol.exception_text(e)
                ),
            )
        return Verdict(self.key, True)

    def __call__(self, *values: Any) -> None:
        """The check cell: judge the learner's values in this kernel; print ✅ or ❌, never raise.

        A check cell calls it without arguments (``checks.xor_AB()``): the answer's names are read
        from the notebook's namespace (the caller's globals), so a name the answer cell has not set
        yet is a ❌ that says so, not a ``NameError`` that stops Run All."""
        if not values and self.names:
            ns = sys._getframe(1).f_globals
            missing = [n for n in self.names if n not in ns]
            if missing:
                v = Verdict(self.key, False, _not_defined(missing[0], self.kind))
                print(self.render(v), end="", flush=True)
                return
            values = tuple(ns[n] for n in self.names)
        if len(values) != len(self.names):
            print(_("❌ {title}: call it as checks.{key}()").format(title=_(self.title), key=self.key))
            return
        try:
            v = self.feedback(*values)
        except KeyboardInterrupt:  # the learner stopped the kernel while the check ran
            v = Verdict(self.key, False, _(INTERRUPTED))
        print(self.render(v), end="", flush=True)

    def feedback(self, *values: Any) -> Verdict:  # pragma: no cover - overridden
        raise NotImplementedError


INTERRUPTED = N_(
    "You stopped the check while it ran your code. A call that takes more than a few seconds is "
    "stopped by the check itself (an endless loop?): look for a loop whose condition never changes."
)


def _not_defined(name: str, kind: str) -> str:
    what = f"def {name}(...)" if kind == "functions" else f"`{name} = ...`"
    return _(
        "`{name}` is not defined: run the answer cell above (it must set {what} without an error; "
        "if it shows an error, fix that first)."
    ).format(name=name, what=what)


#: What :func:`~simhash_lab.grading._protocol.plain` says of ``...``: the untouched stub of a value answer.
_ELLIPSIS = _protocol.describe_type(type(...))


class Values(Answer):
    """An answer cell that defines values.

    Parameters
    ----------
    judge : callable
        ``judge(values, variant)``: ``values`` maps each name to its plain value; raises
        :class:`Wrong`. ``variant`` is the data variant (None: the notebook's own data).
    data : bool
        The values come from the exercise's data: graded on a hidden variant.
    reference : callable, optional
        ``reference(variant)``: the expected values (for ``data`` answers), so the grader picks a
        variant whose answer differs from the visible one.
    hand : callable, optional
        An answer worked out by hand from data the notebook *shows* (a student's variant, see
        ``simhash-lab assign``): ``hand(variant)`` gives the expected values by name. Its ``judge``
        gets the shown variant (None in a kernel: the process's, set by ``data.use_variant``), never
        the hidden one; a gradebook gives partial credit per name; the teacher's solved copy
        writes these values.
    points : number
        What the answer is worth in a gradebook (default 1).
    """

    kind = "values"

    def __init__(
        self,
        key: str,
        title: str,
        passed: str,
        names: Sequence[str],
        judge: Callable[[dict, Any], None],
        *,
        data: bool = False,
        reference: Callable[[Any], Any] | None = None,
        hand: Callable[[Any], dict] | None = None,
        kinds: str = N_("an int, a float, a str, a bool, or a list of them"),
        points: float = 1,
    ) -> None:
        super().__init__(key, title, passed, names, points)
        self.judge, self.data, self.reference, self.kinds = judge, data, reference, kinds
        self.hand = hand
        self.hidden = data  # graded on a hidden variant of the data

    def part_credit(self, exported: dict, variant: Any) -> float:
        """The share of a hand answer's names that are right (each judged with the others set to
        their expected values); 0 for any other answer."""
        if self.hand is None or len(self.names) < 2:
            return 0.0
        expected = {
            n: {"ok": json.loads(json.dumps(_protocol.plain(v)))} for n, v in self.hand(variant).items()
        }
        right = 0
        for name in self.names:
            one = {**expected, name: exported.get(name) if isinstance(exported, dict) else None}
            right += self.verdict(one, variant).passed
        return right / len(self.names)

    def feedback(self, *values: Any) -> Verdict:
        exported = {}
        for name, value in zip(self.names, values):
            if value is ...:
                exported[name] = {"bad": _ELLIPSIS}
                continue
            try:
                exported[name] = {"ok": json.loads(json.dumps(_protocol.plain(value)))}
            except _protocol.NotPlain as e:
                exported[name] = {"bad": str(e)}
        return self.verdict(exported, None)

    def verdict(self, exported: dict, variant: Any) -> Verdict:
        """The verdict on exported values: ``{name: {"ok": plain} | {"bad": why} | {"missing": true}}``."""

        def run() -> None:
            values = {}
            for name in self.names:
                e = exported.get(name) if isinstance(exported, dict) else None
                if not isinstance(e, dict) or "missing" in e or not ({"ok", "bad"} & set(e)):
                    raise Wrong(
                        _(
                            "`{name}` is not defined: run the answer cell (it must set `{name}` "
                            "without an error)."
                        ).format(name=name),
                        missing=True,
                    )
                if "bad" in e and e["bad"] == _ELLIPSIS:
                    raise Wrong(
                        _(
                            "`{name}` is not written yet: replace each `...` in the answer cell above "
                            "with your answer, run the cell, then run this check."
                        ).format(name=name)
                    )
                if "bad" in e:
                    raise Wrong(
                        _("`{name}` must be {kinds}; it is {what}.").format(
                            name=name, kinds=_(self.kinds), what=e["bad"]
                        ),
                        got=Raw(_protocol.clip(str(e["bad"]), 120)),
                    )
                try:
                    values[name] = _protocol.unplain(e["ok"])
                except ValueError as err:
                    raise Wrong(
                        _("`{name}` could not be read: {error}.").format(name=name, error=err)
                    ) from None
            self.judge(values, variant)

        return self._verdict(run)


@dataclasses.dataclass(frozen=True)
class Method:
    """How an answer function must work, beside what it returns: properties of what it does,
    measured on everything it is handed (see :mod:`simhash_lab.grading._code_checks`).

    Parameters
    ----------
    cases : callable
        ``cases(rng)`` -> cases whose calls ``measure`` something (rng None: the visible ones); their
        results are judged by the answer's own judge too (each is a case like the others).
    judge : callable
        ``judge(cases, results)`` raises :class:`Wrong` when the measures show another method; it
        gets the answer's ordinary cases (which may measure too) followed by these.
    rules : Rules, optional
        What the exercise's text forbids in this answer (and only that: the guard of
        :mod:`~simhash_lab.grading._code_checks` applies to every measured answer).
    compiled : bool
        Numba: its definitions run once, not anew before every call (compiling per call would not
        fit; Numba freezes the globals it reads when it compiles).
    """

    cases: Callable[[random.Random | None], list[dict]]
    judge: Callable[[list[dict], list[list[dict]]], None]
    rules: _code_checks.Rules | None = None
    compiled: bool = False


class Functions(Answer):
    """An answer cell that defines functions.

    Parameters
    ----------
    cases : callable
        ``cases(rng)`` -> list of cases (see :func:`call`); rng None gives the visible cases.
    judge : callable
        ``judge(case, results)``: ``results`` has one entry per call of the case; raises
        :class:`Wrong`.
    method : Method, optional
    """

    kind = "functions"
    hidden = True  # graded on inputs drawn at grading time

    def __init__(
        self,
        key: str,
        title: str,
        passed: str,
        names: Sequence[str],
        cases: Callable[[random.Random | None], list[dict]],
        judge: Callable[[dict, list[dict]], None],
        *,
        method: Method | None = None,
        points: float = 1,
    ) -> None:
        super().__init__(key, title, passed, names, points)
        self.cases, self.judge, self.method = cases, judge, method

    def feedback(self, *fns: Any) -> Verdict:
        """The check cell's verdict, in the learner's kernel: the visible cases, and, for a measured
        answer, the same static checks and measures as the grader's method run, on the answer's
        functions and every function of the learner's they reach."""
        by_name = dict(zip(self.names, fns))
        for name, fn in by_name.items():
            if not callable(fn):
                return Verdict(
                    self.key, False, _("Define `{name}` as a function (def {name}(...):).").format(name=name)
                )
        reached = _reached(fns)
        files = {f.__code__.co_filename for f in reached}

        def run(cases: list[dict]) -> list[list[dict]]:
            out = _protocol.run_cases(
                by_name,
                cases,
                files=files,
                timeout=_protocol.CALL_TIMEOUT,
                compiled_timeout=_protocol.COMPILED_TIMEOUT,
            )
            return [_roundtrip(r) for r in out]

        results = run(self.cases(None))
        problems: list[str] = []
        measured: list[list[dict]] = []
        method_cases: list[dict] = []
        if self.method is not None:
            sources = [(f"`{f.__name__}`", _code_checks.function_source(f)) for f in reached]
            problems = _code_checks.refused([(k, s) for k, s in sources if s is not None], self.method.rules)
            if problems:  # as in the grader: refused code is not run, the problem is the verdict
                return self.verdict([], [], problems)
            method_cases = self.method.cases(None)
            measured = run(method_cases)
        return self.verdict(self.cases(None), results, problems, method_cases, measured)

    def verdict(
        self,
        cases: list[dict],
        results: list[list[dict]],
        problems: Sequence[str] = (),
        method_cases: Sequence[dict] = (),
        measured: Sequence[list[dict]] = (),
    ) -> Verdict:
        """The verdict on the results of ``cases`` (and, with a method, on the static problems and the
        measured cases: first their results, judged as the others are, then what was measured)."""

        def run() -> None:
            if len(results) != len(cases):
                raise Wrong(_("the answer's functions were not run on every case (did grading stop?)."))
            for case, res in zip(cases, results):
                if not isinstance(res, list) or len(res) != len(case["calls"]):
                    raise Wrong(_("the answer's functions did not report on every call."))
                self.judge(case, res)
            if self.method is not None:
                if problems:
                    rules = self.method.rules
                    stated = rules is not None and _code_checks.is_stated(problems[0])
                    why = _(rules.why) if stated else _(_code_checks.GUARD_WHY)
                    raise Wrong(f"{problems[0]}. {why}")
                if len(measured) != len(method_cases):
                    raise Wrong(_("the method's measured calls did not all run."))
                for case, res in zip(method_cases, measured):
                    if not isinstance(res, list) or len(res) != len(case["calls"]):
                        raise Wrong(_("the answer's functions did not report on every call."))
                    self.judge(case, res)  # a measured case is a case: its values first
                self.method.judge([*cases, *method_cases], [*results, *measured])

        return self._verdict(run)


def _code_names(code: Any) -> set[str]:
    """The names a code object (and the code nested in it) looks up."""
    out = set(code.co_names)
    for c in code.co_consts:
        if hasattr(c, "co_names"):
            out |= _code_names(c)
    return out


def _reached(fns: Sequence[Any]) -> list[Any]:
    """The Python functions of ``fns`` and every function of the learner's they call (defined in
    the notebook: its helpers, its other answers), as the grader's method run reaches them in the
    notebook's cells (:func:`simhash_lab.grading._code_checks.reached`)."""
    out: list[Any] = []
    todo = list(fns)
    while todo:
        f = todo.pop(0)
        f = getattr(f, "py_func", f)  # a Numba dispatcher: its Python function
        if type(f).__name__ != "function" or any(f is g for g in out):
            continue
        out.append(f)
        g = f.__globals__
        for name in sorted(_code_names(f.__code__)):
            v = g.get(name) if isinstance(g, dict) else None
            py = getattr(v, "py_func", v)
            if type(py).__name__ == "function" and getattr(py, "__module__", None) == g.get("__name__"):
                todo.append(v)
    return out


def _roundtrip(results: list[dict]) -> list[dict]:
    """What the grader would read: the results through JSON (so both paths judge the same data)."""
    return json.loads(json.dumps(results))


def _constants_of(fn: Any) -> list[str]:
    f = getattr(fn, "py_func", fn)
    code, g = getattr(f, "__code__", None), getattr(f, "__globals__", {})
    if code is None:
        return []
    out = []
    for n in code.co_names:
        v = g.get(n) if isinstance(g, dict) else None
        if type(v) in (int, float, str, bool) or (
            type(v) is tuple and all(type(i) in (int, float) for i in v)
        ):
            out.append(n)
    return out


@dataclasses.dataclass(frozen=True)
class Exercise:
    """An exercise's answers, by key, in notebook order.

    ``text``: for answers worked out by hand on data the notebook's text shows, ``text(variant)``
    gives (what the text says of the notebook's own data, what it says for ``variant``) pairs:
    ``simhash-lab assign`` writes each student's notebook with them (see
    :mod:`simhash_lab.grading.classroom`). None: the text shows no data.
    """

    name: str
    answers: tuple[Answer, ...]
    text: Callable[[int], list[tuple[str, str]]] | None = None

    def __post_init__(self) -> None:
        keys = [a.key for a in self.answers]
        if len(set(keys)) != len(keys):
            raise ValueError(f"{self.name}: an answer key is used twice: {keys}")

    def answer(self, key: str) -> Answer | None:
        return next((a for a in self.answers if a.key == key), None)

    def grading_variant(self, rng: random.Random, tries: int = 50, visible: int | None = None) -> int | None:
        """A data variant on which every ``data`` answer differs from the notebook's own data (the
        ``visible`` variant: None, or a student's); None when no answer depends on the data."""
        data = [a for a in self.answers if isinstance(a, Values) and a.data]
        if not data:
            return None
        visible = [a.reference(visible) if a.reference else None for a in data]
        for _try in range(tries):
            seed = rng.getrandbits(62) + 1
            if all(a.reference is None or not _same(a.reference(seed), v) for a, v in zip(data, visible)):
                return seed
        raise RuntimeError(f"{self.name}: no data variant found whose answers differ from the visible ones")


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-6)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


# -- answers computed from the data ------------------------------------------------------------------

#: The data variants a check cell runs a data answer (a function of the exercise's data) on: the
#: notebook's own and one other, so that a function returning a number copied from a ❌ (right only
#: for the notebook's data) is ❌ in the notebook too; grading draws its variants at grading time.
VISIBLE_VARIANTS: tuple[int | None, ...] = (None, 1)


def data_variants(rng: random.Random | None, reference: Callable[[Any], Any], n: int) -> list[int | None]:
    """The data variants of a data answer's cases: :data:`VISIBLE_VARIANTS` for a check cell (rng
    None), else ``n`` drawn now, each one whose ``reference(variant)`` differs from the notebook's
    (so a copied value fails every one of them)."""
    if rng is None:
        return list(VISIBLE_VARIANTS)
    visible, out = reference(None), []
    for _try in range(50 * n):
        v = rng.getrandbits(62) + 2
        if not _same(reference(v), visible):
            out.append(v)
            if len(out) == n:
                break
    return out


def copied_hint(name: str, args: str) -> str:
    """The hint for a data answer that returns the notebook's own result on other data."""
    return _(
        "{name} returns the notebook's own result on other data: compute it from its arguments "
        "({args}); a number copied from a ❌ or an earlier run is right only for the notebook's data."
    ).format(name=name, args=args)


# -- cases ------------------------------------------------------------------------------------------


def call(fn: str, *args: Any, save: str | None = None, measure: Sequence[str] = ()) -> dict:
    """One call of a case: ``fn(*args)`` (arguments in the wire encoding: plain values, :func:`u64`,
    :func:`spy`, :func:`ref` ...)."""
    c: dict[str, Any] = {"fn": fn, "args": list(args)}
    if save:
        c["save"] = save
    if measure:
        c["measure"] = list(measure)
    return c


def case(*calls: dict, **info: Any) -> dict:
    """A case: its calls, and any plain ``info`` the judge needs (labels, the expected value...)."""
    return {"calls": list(calls), **info}


def u64(xs: Sequence[int]) -> dict:
    return {"$u64": [int(x) for x in xs]}


def i64(xs: Sequence[int]) -> dict:
    return {"$i64": [int(x) for x in xs]}


def f64(xs: Any) -> dict:
    return {"$f64": xs.tolist() if hasattr(xs, "tolist") else list(xs)}


def flags(xs: Sequence[bool]) -> dict:
    return {"$bool": [bool(x) for x in xs]}


def spy(xs: Sequence[int]) -> dict:
    return {"$spy": [int(x) for x in xs]}


def ref(name: str) -> dict:
    return {"$ref": name}


def _arg_text(a: Any) -> str:
    if isinstance(a, dict) and len(a) == 1:
        ((tag, body),) = a.items()
        if tag == "$ref":
            return str(body)
        if tag in ("$u64", "$i64", "$f64", "$bool"):
            return f"np.array({_show(body, 60)})"
        if tag == "$spy":
            return f"<{len(body)} fingerprints>"
    if isinstance(a, int) and not isinstance(a, bool) and a > 2**20:
        return hex(a)
    return _show(a, 60)


def _call_text(c: dict) -> str:
    return f"{c['fn']}({', '.join(_arg_text(a) for a in c['args'])})"


# -- what came back ---------------------------------------------------------------------------------


def returned(res: dict, what: str) -> Any:
    """The plain value a call returned, or :class:`Wrong` saying why there is none."""
    if not isinstance(res, dict):
        raise Wrong(_("{what}: no result came back.").format(what=what))
    if "ok" in res:
        try:
            return _protocol.unplain(res["ok"])
        except ValueError as e:
            raise Wrong(
                _("{what} returned something that could not be read ({error}).").format(what=what, error=e)
            ) from None
    if res.get("missing"):
        raise Wrong(
            _("{name} is not defined: run its answer cell (def ...).").format(name=what.split("(")[0])
        )
    if res.get("stub"):
        raise Wrong(
            _(
                "not written yet: put your code in place of `raise NotImplementedError()` in the answer "
                "cell above (or in the function of yours it calls), run the cell, then this check."
            )
        )
    if res.get("interrupted"):
        raise Wrong(_(INTERRUPTED), got=Raw(_("{what}: stopped").format(what=what)))
    if res.get("timeout"):
        after = res.get("after")
        hint = (
            _("{what} timed out after {after:g} s and was stopped (an endless loop?)").format(
                what=what, after=after
            )
            if type(after) in (int, float)
            else _("{what} ran too long and was stopped (an endless loop?)").format(what=what)
        )
        if res.get("skipped"):  # an earlier call of this answer hung: this one was not made
            hint = _(
                "{what} was not run: an earlier call of this answer timed out (an endless loop?)"
            ).format(what=what)
        raise Wrong(hint + ".")
    if "bad" in res:
        raise Wrong(
            _("{what} returned {value}; return plain values (int, float, str, bool, list).").format(
                what=what, value=res["bad"]
            ),
            got=Raw(_protocol.clip(str(res["bad"]), 120)),
        )
    if "error" in res:
        err = str(res["error"])
        hint = _("Your function raised an exception; run it on this input yourself to see where.")
        if err.startswith("ZeroDivisionError"):
            hint = _(
                "Your function divided by zero on this input (a count or a sum is 0 here): give that case "
                "the value the exercise's text defines for it."
            )
        if err.startswith(("numba.core.errors.TypingError", "TypingError")):
            hint = _(
                "Numba could not compile your function: its message (got) names the line and the "
                "types it could not use together. Give each variable one type throughout (a "
                "fingerprint that starts as np.uint64(0) stays uint64)."
            )
        raise Wrong(hint, expected=Raw(_("{what} to return a value").format(what=what)), got=Raw(err))
    raise Wrong(_("{what}: an unreadable result.").format(what=what))


def _kind(x: Any) -> str:
    """ "a bool", "a float"... (the type's name stays Python's)."""
    return _("a bool") if type(x) is bool else _("a {type}").format(type=type(x).__name__)


def expect_int(
    got: Any,
    exp: int,
    what: str,
    hint: str,
    *,
    mistakes: dict[int, str] | None = None,
    show: bool = True,
    shown: Callable[[int], str] = repr,
) -> int:
    """``got`` must be the int ``exp``: the checker helper for "expected an int, known mistakes map to
    hints".

    Parameters
    ----------
    got : plain value
    exp : int
    what : str
        What ``got`` is (``"md5_64('rust')"``), for the messages.
    hint : str
        The hint for a wrong int that is no known mistake.
    mistakes : dict, optional
        A wrong value that a known mistake gives -> the hint that names that mistake.
    show : bool
        Show the expected value in the ❌ (False for answers worked out by hand: showing it would
        give it away).
    shown : callable
        How to write an int (``bin``, ``hex``).
    """
    if type(got) is not int:
        kind = _kind(got)
        raise Wrong(
            _("{what} must be an int; it is {kind}.").format(what=what, kind=kind),
            got=Raw(f"{kind} {_show(got, 60)}"),
        )
    if got != exp:
        hint = (mistakes or {}).get(got, hint)
        raise Wrong(hint, expected=Raw(shown(exp)) if show else NOT_SHOWN, got=Raw(shown(got)))
    return got


def expect_number(
    got: Any,
    exp: float,
    what: str,
    hint: str,
    *,
    tol: float = 1e-9,
    show: bool = True,
    mistakes: Sequence[tuple[float, str]] = (),
) -> float:
    """``got`` must be a number within ``tol`` of ``exp``; a known mistake's value gives its hint."""
    if type(got) not in (int, float):
        kind = _kind(got)
        raise Wrong(
            _("{what} must be a number; it is {kind}.").format(what=what, kind=kind),
            got=Raw(f"{kind} {_show(got, 60)}"),
        )
    if not math.isfinite(got) or not math.isclose(got, exp, rel_tol=0, abs_tol=tol):
        for value, h in mistakes:
            if math.isfinite(got) and math.isclose(got, value, rel_tol=0, abs_tol=tol):
                hint = h
                break
        raise Wrong(hint, expected=Raw(f"{exp:.6g}") if show else NOT_SHOWN, got=Raw(f"{got:.6g}"))
    return float(got)


def int_list(got: Any, what: str, n: int | None = None) -> list[int]:
    """``got`` as a list of ints (of length ``n`` when given), or :class:`Wrong` saying what it is."""
    if type(got) is not list:
        raise Wrong(
            _("Write {what} as a list of ints, e.g. [1, 2, 3].").format(what=what), got=Raw(_show(got, 80))
        )
    if n is not None and len(got) != n:
        raise Wrong(
            _("{what} needs exactly {n} numbers.").format(what=what, n=n),
            got=Raw(_("{n} numbers").format(n=len(got))),
        )
    bad = next((v for v in got if type(v) is not int), None)
    if bad is not None or any(type(v) is not int for v in got):
        raise Wrong(
            _("Every item of {what} must be an int; one is {kind}.").format(what=what, kind=_kind(bad)),
            got=Raw(_show(got, 80)),
        )
    return got


def expect_bool(got: Any, exp: bool, what: str, hint: str) -> bool:
    """``got`` must be the bool ``exp`` (an int 0/1 is not a bool); the value is never shown."""
    if type(got) is not bool:
        raise Wrong(
            _("{what} must be True or False; it is {kind}.").format(what=what, kind=_kind(got)),
            got=Raw(_show(got, 60)),
        )
    if got != exp:
        raise Wrong(hint, got=got)
    return got
