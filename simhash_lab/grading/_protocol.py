"""What crosses between an answer and its judge: plain data, encoded arguments, calls, counts.

The same code runs in three places: the learner's kernel (the check cells' feedback), the sandbox
(:mod:`simhash_lab.grading._runner` exports what the answers define and calls answer functions on
the grader's cases), and the grader (which only ever decodes JSON). Nothing here imports the rest
of simhash_lab; the sandbox sees this file and ``data.py`` of the grading package, nothing else.

Plain data
----------
:func:`plain` turns an answer's value into JSON-able data, or refuses it with :class:`NotPlain`:
exactly ``None``, ``bool``, ``int``, ``float``, ``str``, and ``list``/``tuple``, ``dict`` (also
``defaultdict``, ``OrderedDict``, ``Counter``), ``set``/``frozenset`` of those, NumPy arrays of
numbers and NumPy scalars. A subclass of any of them (a ``str`` whose ``strip()`` lies, an ``int``
whose ``__eq__`` says True) or any other object is refused by its exact type, before any of its
methods is called. Dicts whose keys are not all ``str`` become ``{"$dict": [[key, value], ...]}``,
sets ``{"$set": [...]}``; :func:`unplain` reads those back.

Cases
-----
A case is a list of calls, ``{"calls": [{"fn": NAME, "args": [...], ...}]}``, with arguments in
the encoding of :func:`decode_arg`: plain JSON values, or tagged ``{"$u64": [...]}`` (a uint64
array), ``$i64``, ``$f64`` (nested lists: 2-D), ``$bool``, ``$tuple``, ``$dict``, ``$set``,
``{"$spy": [...]}`` (a list that counts which items are read), ``{"$ref": NAME}`` (what an earlier
call of the case saved, rebuilt from its plain form, so no hidden state travels with it),
``{"$var": NAME}`` (a value of the case's ``vars``, which many calls share). A call
may ``measure`` ``lines`` (Python lines executed in the answer's own code), ``trace`` (the values
its int variables take, in order), ``reads`` (items of its ``$spy`` argument read) and ``numba``
(is the function a Numba dispatcher compiled in nopython mode). :func:`run_case` returns, per
call, ``{"ok": plain}``, ``{"error": "Type: message"}``, ``{"stub": true}`` (it raised
``NotImplementedError``), ``{"bad": why}`` (it returned something that is not plain) or
``{"timeout": true}``, plus the measures asked for.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import re
import signal
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "NotPlain",
    "Spy",
    "CallTimeout",
    "plain",
    "unplain",
    "decode_arg",
    "run_case",
    "type_name",
    "clip",
    "loads_bounded",
    "TooMany",
    "MAX_ITEMS",
]

MAX_ITEMS = 2_000_000  # items in one exported value (a 450-distance array is 450)
MAX_DEPTH = 32
_DICTS = (dict, collections.OrderedDict, collections.defaultdict, collections.Counter)


class NotPlain(ValueError):
    """A value that cannot be exported as plain data; ``str(e)`` says what it is."""


class CallTimeout(BaseException):
    """Raised into an answer function that ran past its time (a BaseException: ``except
    Exception`` in the answer does not swallow it)."""


def type_name(t: type) -> str:
    """``module.Name`` of a type, without calling anything a hostile class could override."""
    try:
        mod = type.__getattribute__(t, "__module__")
        name = type.__getattribute__(t, "__qualname__")
    except Exception:
        return "object of an unknown type"
    mod = mod if isinstance(mod, str) and type(mod) is str else "?"
    name = name if type(name) is str else "?"
    return name if mod == "builtins" else f"{mod}.{name}"


def clip(text: str, limit: int = 300) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_type(t: type) -> str:
    np = sys.modules.get("numpy")
    bases = (bool, int, float, str, list, tuple, dict, set) + ((np.ndarray, np.generic) if np else ())
    try:
        base = next((b for b in bases if issubclass(t, b)), None)
    except Exception:
        base = None
    what = f"a {type_name(t)} object"
    if base is not None and t is not base:
        what += f" (a subclass of {type_name(base)})"
    return what


def plain(x: Any) -> Any:
    """``x`` as plain JSON-able data (see the module docstring), or :class:`NotPlain`."""
    budget = [MAX_ITEMS]
    return _plain(x, budget, 0)


def _plain(x: Any, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise NotPlain(f"too large to export (more than {MAX_ITEMS:,} items)")
    if depth > MAX_DEPTH:
        raise NotPlain(f"nested more than {MAX_DEPTH} levels deep")
    t = type(x)
    if x is None or t is bool or t is str or t is float:
        return x
    if t is int:
        if x.bit_length() > 4096:
            raise NotPlain("an int of more than 4096 bits")
        return x
    if t is list or t is tuple:
        return [_plain(v, budget, depth + 1) for v in x]
    if t in _DICTS:
        items = list(dict.items(x))
        if all(type(k) is str for k, _ in items):
            return {k: _plain(v, budget, depth + 1) for k, v in items}
        return {"$dict": [[_plain(k, budget, depth + 1), _plain(v, budget, depth + 1)] for k, v in items]}
    if t is set or t is frozenset:
        return {"$set": [_plain(v, budget, depth + 1) for v in x]}
    np = sys.modules.get("numpy")
    if np is not None:
        if t is np.ndarray:
            if x.size > budget[0]:
                raise NotPlain(f"an array too large to export ({x.size:,} items)")
            budget[0] -= x.size
            if x.dtype.kind in "biuf":
                return x.tolist()
            if x.dtype.kind == "O":
                return _plain(x.tolist(), budget, depth + 1)
            raise NotPlain(f"a NumPy array of dtype {x.dtype.str}")
        if t in _numpy_scalars(np):
            return _plain(x.item(), budget, depth)
    raise NotPlain(describe_type(t))


_SCALARS: list = []


def _numpy_scalars(np: Any) -> frozenset:
    """NumPy's own scalar types of numbers and bools (exact types: a subclass is not one)."""
    if not _SCALARS:
        kinds = {np.bool_, np.float16, np.float32, np.float64, np.longdouble}
        kinds |= {getattr(np, f"{s}int{b}") for s in ("", "u") for b in (8, 16, 32, 64)}
        _SCALARS.append(frozenset(kinds))
    return _SCALARS[0]


def unplain(x: Any) -> Any:
    """A plain value back as Python data: ``$dict`` to a dict, ``$set`` to a set (lists inside a
    set or a key become tuples, so they hash); anything malformed raises ValueError."""
    t = type(x)
    if x is None or t in (bool, int, float, str):
        return x
    if t is list:
        return [unplain(v) for v in x]
    if t is dict:
        if len(x) == 1 and "$dict" in x:
            pairs = x["$dict"]
            if type(pairs) is not list or any(type(p) is not list or len(p) != 2 for p in pairs):
                raise ValueError("a malformed $dict")
            return {_hashable(unplain(k)): unplain(v) for k, v in pairs}
        if len(x) == 1 and "$set" in x:
            if type(x["$set"]) is not list:
                raise ValueError("a malformed $set")
            return {_hashable(unplain(v)) for v in x["$set"]}
        return {k: unplain(v) for k, v in x.items()}
    raise ValueError(f"not plain data: {type_name(t)}")


def _hashable(v: Any) -> Any:
    if type(v) is list:
        return tuple(_hashable(i) for i in v)
    if type(v) in (dict, set):
        raise ValueError("a dict or set cannot be a key or a set item")
    return v


# -- reading untrusted JSON ----------------------------------------------------------------------------

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKETS = bytes(range(256)).translate(None, b"[]{}")  # (deleting these keeps only brackets)


class TooMany(ValueError):
    """A JSON text with more values than :func:`loads_bounded` was allowed to parse."""


def loads_bounded(data: bytes, *, max_items: int, max_depth: int, max_string: int) -> Any:
    """``json.loads(data)``, only once the text's shape is known to be small: at most ``max_items``
    values (counted from its commas and brackets), nested at most ``max_depth`` deep, no string
    longer than ``max_string`` bytes as written. The shape is read with regular expressions and
    ``bytes`` methods (C speed, no objects made), so a line of millions of ``{}`` costs its bytes,
    never the gigabytes its objects would.

    Raises
    ------
    TooMany
        More than ``max_items`` values (a ValueError).
    ValueError
        Another limit is passed (the message says which), or the text is not JSON.
    """
    if type(data) is not bytes:
        data = bytes(data)
    # upper bounds first (memchr speed): every value but one follows a comma or opens a bracket,
    # and every string has two quotes, so the regular expressions below see at most max_items
    opened = data.count(b",") + data.count(b"[") + data.count(b"{")
    if opened >= max_items or data.count(b'"') > 4 * max_items:
        raise TooMany(f"more than {max_items:,} values")
    bare = _STRING.sub(b"0", data)  # every string as one character
    if b'"' in bare:
        raise ValueError("not JSON (an unterminated string)")
    items = bare.count(b",") + bare.count(b"[") + bare.count(b"{") + 1
    if items > max_items:
        raise TooMany(f"more than {max_items:,} values")
    if len(data) - len(bare) > max_string and any(  # (at most max_items strings to look at)
        m.end() - m.start() > max_string + 2 for m in _STRING.finditer(data)
    ):
        raise ValueError(f"a string longer than {max_string:,} bytes")
    depth = top = 0
    for c in bare.translate(None, _BRACKETS):
        if c == 0x5B or c == 0x7B:  # [ {
            depth += 1
            if depth > top:
                top = depth
                if top > max_depth:
                    raise ValueError(f"nested too deeply (more than {max_depth} levels)")
        else:
            depth -= 1
    return json.loads(data)


# -- arguments ---------------------------------------------------------------------------------------


class Spy:
    """A read-only sequence that remembers which of its items were read.

    ``len``, indexing (ints and slices) and iteration work as on a list; iterating, or anything that
    converts it (``list(spy)``, ``np.asarray(spy)``, ``x in spy``), reads every item.
    """

    __slots__ = ("__items", "__seen")

    def __init__(self, items: Iterable[Any]) -> None:
        self.__items = list(items)
        self.__seen: set[int] = set()

    def __len__(self) -> int:
        return len(self.__items)

    def __getitem__(self, i: Any) -> Any:
        n = len(self.__items)
        if type(i) is slice:
            idx = range(*i.indices(n))
            self.__seen.update(idx)
            return [self.__items[j] for j in idx]
        j = int(i) if type(i) is not int else i
        if -n <= j < n:
            self.__seen.add(j % n)
        return self.__items[j]

    def __iter__(self):
        self.__seen.update(range(len(self.__items)))
        return iter(list(self.__items))

    def __repr__(self) -> str:
        return f"<{len(self.__items)} fingerprints>"

    @staticmethod
    def reads(spy: Spy) -> int:
        """How many different items of ``spy`` were read."""
        return len(spy.__seen)


def decode_arg(v: Any) -> Any:
    """An encoded argument (see the module docstring) as the object the answer receives."""
    t = type(v)
    if t is list:
        return [decode_arg(i) for i in v]
    if t is not dict:
        return v
    if len(v) == 1:
        (tag, body), *_ = v.items()
        if tag in _ARRAYS:
            import numpy as np

            return np.array(body, dtype=_ARRAYS[tag])
        if tag == "$tuple":
            return tuple(decode_arg(i) for i in body)
        if tag == "$spy":
            return Spy(body)
        if tag in ("$dict", "$set"):
            return unplain(v)
    return {k: decode_arg(i) for k, i in v.items()}


_ARRAYS = {"$u64": "uint64", "$i64": "int64", "$f64": "float64", "$bool": "bool"}


# -- running a case ----------------------------------------------------------------------------------


@contextlib.contextmanager
def _time_limit(seconds: float | None):
    """Raise :class:`CallTimeout` into the code after ``seconds`` (main thread only; a no-op
    otherwise or when ``seconds`` is None)."""
    import threading

    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum, frame):
        raise CallTimeout()

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


MAX_TRACED_NAMES = 32  # variables traced per call
MAX_TRACED_VALUES = 256  # values kept per variable


def _count_lines(
    files: frozenset[str], fn: Callable, args: list, trace: dict | None = None
) -> tuple[Any, int]:
    """``fn(*args)`` and the number of line events in code whose file is one of ``files``; with
    ``trace``, also the values the int variables of that code take, in order (``"function:name"``
    -> list of ints, each change once; bounded by :data:`MAX_TRACED_NAMES` and
    :data:`MAX_TRACED_VALUES`)."""
    count = 0

    def record(frame) -> None:
        name = frame.f_code.co_name
        for var, v in frame.f_locals.items():
            if type(v) is not int or v.bit_length() > 64:
                continue
            key = f"{name}:{var}"
            seq = trace.get(key)
            if seq is None:
                if len(trace) >= MAX_TRACED_NAMES:
                    continue
                seq = trace[key] = []
            if (not seq or seq[-1] != v) and len(seq) < MAX_TRACED_VALUES:
                seq.append(v)

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename not in files:
            return None
        if event == "line":
            count += 1
        if trace is not None and event in ("line", "return"):
            record(frame)
        return tracer

    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        out = fn(*args)
    finally:
        sys.settrace(old)
    return out, count


def _numba_state(fn: Any, files: frozenset[str]) -> dict:
    """Is ``fn`` a real Numba dispatcher of the answer's own function, compiled in nopython mode?"""
    dispatcher = sys.modules.get("numba.core.registry")
    cls = getattr(dispatcher, "CPUDispatcher", None) if dispatcher is not None else None
    if cls is None or type(fn) is not cls:
        return {"dispatcher": False, "nopython": 0}
    py = fn.py_func
    own = type(py).__name__ == "function" and py.__code__.co_filename in files if files else True
    return {"dispatcher": bool(own), "nopython": len(fn.nopython_signatures)}


def run_case(
    fns: dict[str, Any],
    case: dict,
    *,
    files: Iterable[str] = (),
    timeout: float | None = None,
    quiet: bool = True,
    fresh: Callable[[], dict[str, Any]] | None = None,
) -> list[dict]:
    """Run the calls of ``case`` on the answer functions ``fns`` (name -> callable).

    Parameters
    ----------
    fns : dict
        The answer's functions by name.
    case : dict
        ``{"calls": [{"fn", "args", "save"?, "measure"?}, ...]}``.
    files : iterable of str
        The source files of the answer's code: ``lines`` counts line events there.
    timeout : float, optional
        Seconds each call may run (:class:`CallTimeout`; main thread only).
    quiet : bool
        Keep the functions' prints and warnings out of the caller's output.
    fresh : callable, optional
        ``fresh()`` -> the functions by name, defined anew: called before every call, so that no
        call starts from what an earlier one left (the grader's method runs).

    Returns
    -------
    list of dict, one per call (see the module docstring).
    """
    files = frozenset(files)
    saved: dict[str, Any] = {}
    shared = case.get("vars") or {}
    results = []
    for call in case["calls"]:
        name = call["fn"]
        if fresh is not None:
            fns = fresh()
        fn = fns.get(name)
        res: dict[str, Any]
        if fn is None or not callable(fn):
            res = {"missing": True}
            results.append(res)
            continue
        args = [_resolve(a, saved, shared) for a in call["args"]]
        measure = set(call.get("measure", ()))
        lines = trace = None
        sink = io.StringIO()
        try:
            with contextlib.ExitStack() as stack:
                if quiet:
                    stack.enter_context(warnings.catch_warnings())
                    warnings.simplefilter("ignore")
                    stack.enter_context(contextlib.redirect_stdout(sink))
                    stack.enter_context(contextlib.redirect_stderr(sink))
                stack.enter_context(_time_limit(timeout))
                if "lines" in measure or "trace" in measure:
                    trace = {} if "trace" in measure else None
                    out, lines = _count_lines(files, fn, args, trace)
                else:
                    out = fn(*args)
            res = {"ok": plain(out)}
        except CallTimeout:
            res = {"timeout": True}
        except NotImplementedError:
            res = {"stub": True}
        except NotPlain as e:
            res = {"bad": str(e)}
        except RecursionError:
            res = {"error": "RecursionError: maximum recursion depth exceeded"}
        except Exception as e:
            res = {"error": exception_text(e)}
        if call.get("save") and "ok" in res:
            saved[call["save"]] = res["ok"]
        if lines is not None:
            res["lines"] = lines
        if trace is not None:
            res["trace"] = trace
        if "reads" in measure:
            spies = [a for a in args if type(a) is Spy]
            res["reads"] = sum(Spy.reads(s) for s in spies)
        if "numba" in measure:
            res["numba"] = _numba_state(fn, files)
        results.append(res)
    return results


def _resolve(a: Any, saved: dict, shared: dict) -> Any:
    """One argument: ``$ref`` (an earlier call's saved result, rebuilt from its plain form), ``$var``
    (a value of the case's ``vars``, decoded afresh), ``$spy`` of a ``$var``, or an encoded value."""
    if type(a) is dict and len(a) == 1:
        (tag, body), *_ = a.items()
        if tag == "$ref":
            return unplain(saved[body]) if body in saved else None
        if tag == "$var":
            return decode_arg(shared[body])
        if tag == "$spy" and type(body) is dict and "$var" in body:
            return Spy(shared[body["$var"]])
    return decode_arg(a)


def exception_text(e: BaseException) -> str:
    """``Type: first line of the message``, bounded, whatever the exception's ``__str__`` does."""
    name = type_name(type(e))
    try:
        msg = BaseException.__str__(e)
    except Exception:
        msg = ""
    msg = msg.strip().splitlines()[0] if msg.strip() else ""
    return clip(f"{name}: {msg}" if msg else name, 240)
