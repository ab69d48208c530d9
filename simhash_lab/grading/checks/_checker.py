"""What every checker shares: answers, verdicts, and the helpers that turn a wrong value into a hint.

An exercise module (``checks/hamming_popcount.py`` ...) declares its answers, one per answer cell:

* :class:`Values`: the cell defines values (``d_AB``, ``best_k``); ``judge(values, variant)``
  checks them. ``data=True`` marks values computed from the exercise's data: grading re-runs the
  notebook on a hidden variant of that data (:mod:`simhash_lab.grading.data`), so a value copied
  from a ❌ (or from a classmate) is wrong there.
* :class:`Functions`: the cell defines functions; ``cases(rng)`` gives the calls to make (``rng``
  None: the visible cases of the learner's check cell; a ``random.Random``: hidden cases drawn at
  grading time) and ``judge(case, results)`` checks what came back. A :class:`Method` adds an
  allow-list (:mod:`simhash_lab.grading._code_checks`) and measured cases (lines executed, items read,
  Numba's signatures) that hold for any honest implementation and fail a bypass.

The same answer object serves both paths: called from a check cell (``checks.md5_64(md5_64)``) it
runs the visible cases in the learner's kernel and prints one ✅ line or a ❌ block, without raising
(so Run All goes on); the grader calls :meth:`Values.verdict` / :meth:`Functions.verdict` on data
exported from the sandbox. Judges only ever see plain data (:func:`~simhash_lab.grading._protocol.plain`
and back through JSON), never the learner's objects.
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

            return _(self._passed(data.current_variant()))
        return _(self._passed)

    def pass_line(self, lang: str | None = None) -> str:
        """The exact stdout of a passing check cell (in ``lang``, default the current language)."""
        if lang is not None:
            with language(lang):
                return self.pass_line()
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
        v = self.feedback(*values)
        print(self.render(v), end="", flush=True)

    def feedback(self, *values: Any) -> Verdict:  # pragma: no cover - overridden
        raise NotImplementedError


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
    """How an answer function must work, beside what it returns.

    Parameters
    ----------
    allow : AllowList
        What its code may use (checked on the source, in the grader's process).
    cases : callable
        ``cases(rng)`` -> cases whose calls ``measure`` something (rng None: the visible ones).
    judge : callable
        ``judge(cases, results)`` raises :class:`Wrong` when the measures show a bypass; it gets the
        answer's ordinary cases (which may measure too) followed by these.
    uses : tuple of str
        Functions of other answers it may call (their cells' code is checked and run with it).
    shape : callable, optional
        ``shape(code)`` -> problems of the code's form beside the allow-list, one line each (the
        loop the method needs is there, say); checked with it, in the grader's process.
    """

    allow: _code_checks.AllowList
    cases: Callable[[random.Random | None], list[dict]]
    judge: Callable[[list[dict], list[list[dict]]], None]
    uses: tuple[str, ...] = ()
    shape: Callable[[str], list[str]] | None = None


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
        by_name = dict(zip(self.names, fns))
        for name, fn in by_name.items():
            if not callable(fn):
                return Verdict(
                    self.key, False, _("Define `{name}` as a function (def {name}(...):).").format(name=name)
                )
        used = []  # the other answers' functions it may call (their lines count as its own)
        for f in fns if self.method is not None else ():
            g = getattr(getattr(f, "py_func", f), "__globals__", None)
            used += [g.get(u) for u in self.method.uses] if isinstance(g, dict) else []
        files = {getattr(getattr(f, "py_func", f), "__code__", None) for f in (*fns, *used)}
        files = {c.co_filename for c in files if c is not None}
        results = [_roundtrip(_protocol.run_case(by_name, c, files=files)) for c in self.cases(None)]
        problems: list[str] = []
        measured: list[list[dict]] = []
        method_cases: list[dict] = []
        if self.method is not None:
            for name, fn in by_name.items():
                src = _code_checks.function_source(fn)
                if src is None:
                    continue
                extra = {n: None for n in self.names}
                extra.update({n: None for n in self.method.uses})
                consts = _constants_of(fn)
                problems += [
                    f"{p} (`{name}`)" if f"`{name}`" not in p else p
                    for p in _code_checks.problems(
                        src, self.method.allow, extra_names=extra, constants=consts
                    )
                ]
                if self.method.shape is not None and not problems:
                    problems += self.method.shape(src)
            if not problems:
                method_cases = self.method.cases(None)
                measured = [_roundtrip(_protocol.run_case(by_name, c, files=files)) for c in method_cases]
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
        measured cases)."""

        def run() -> None:
            if len(results) != len(cases):
                raise Wrong(_("the answer's functions were not run on every case (did grading stop?)."))
            for case, res in zip(cases, results):
                if not isinstance(res, list) or len(res) != len(case["calls"]):
                    raise Wrong(_("the answer's functions did not report on every call."))
                self.judge(case, res)
            if self.method is not None:
                if problems:
                    raise Wrong(f"{problems[0]}. {_(self.method.allow.why)}")
                if len(measured) != len(method_cases):
                    raise Wrong(_("the method's measured calls did not all run."))
                for case, res in zip(method_cases, measured):
                    for c, r in zip(case["calls"], res):
                        returned(r, _call_text(c))
                self.method.judge([*cases, *method_cases], [*results, *measured])

        return self._verdict(run)


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
    if res.get("timeout"):
        raise Wrong(_("{what} ran too long and was stopped (an endless loop?).").format(what=what))
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
