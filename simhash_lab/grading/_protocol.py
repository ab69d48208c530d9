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
(is the function a Numba dispatcher of the answer's own, compiled in nopython mode, with no
object-mode block). :func:`run_case` returns, per
call, ``{"ok": plain}``, ``{"error": "Type: message"}``, ``{"stub": true}`` (it raised
``NotImplementedError``), ``{"bad": why}`` (it returned something that is not plain) or
``{"timeout": true}``, plus the measures asked for.
"""

from __future__ import annotations

import collections
import collections.abc
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
    "run_cases",
    "SpyTable",
    "spy_tables",
    "type_name",
    "clip",
    "loads_bounded",
    "TooMany",
    "MAX_ITEMS",
]

#: Seconds one call of an answer may run, in the learner's kernel and in the grader's sandbox
#: (``simhash_lab.grading._sandbox.Limits.call_timeout``): an answer stops at its first call past it.
CALL_TIMEOUT = 10.0
#: Seconds a call of Numba-compiled code may run in the learner's kernel before the kernel is ended
#: (no signal stops compiled code: a loop there would hang the kernel for good), first compile included.
COMPILED_TIMEOUT = 120.0
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
        default = _default_name(x) if t is collections.defaultdict else None
        if default is None and all(type(k) is str for k, _ in items):
            return {k: _plain(v, budget, depth + 1) for k, v in items}
        out = {"$dict": [[_plain(k, budget, depth + 1), _plain(v, budget, depth + 1)] for k, v in items]}
        if default is not None:
            out["$default"] = default
        return out
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


#: The factories a ``defaultdict`` keeps across the wire (by name), so an answer that returned one gets
#: one back (``tables[j][b]`` of a missing ``b`` is ``[]`` there, as in the answer's own process).
_FACTORIES = {f.__name__: f for f in (list, set, dict, tuple, frozenset, int, float, str, bool)}


def _default_name(d: collections.defaultdict) -> str | None:
    """The name of ``d``'s factory when it makes one of :data:`_FACTORIES`' empty values (``list`` or
    ``lambda: []``), else None (the dict crosses as a plain dict)."""
    f = d.default_factory
    if f is None:
        return None
    for name, g in _FACTORIES.items():
        if f is g:
            return name
    try:
        v = f()
    except Exception:
        return None
    t = type(v)
    return t.__name__ if t in _FACTORIES.values() and not v else None


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
        if "$dict" in x and (len(x) == 1 or (len(x) == 2 and x.get("$default") in _FACTORIES)):
            pairs = x["$dict"]
            if type(pairs) is not list or any(type(p) is not list or len(p) != 2 for p in pairs):
                raise ValueError("a malformed $dict")
            d = {_hashable(unplain(k)): unplain(v) for k, v in pairs}
            return collections.defaultdict(_FACTORIES[x["$default"]], d) if "$default" in x else d
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

    def __reduce_ex__(self, protocol: Any) -> tuple:  # copy, pickle: every item read, a plain list
        return (list, (list(self),))

    @staticmethod
    def reads(spy: Spy) -> int:
        """How many different items of ``spy`` were read."""
        return len(spy.__seen)

    @staticmethod
    def read(spy: Spy) -> list[int]:
        """The indices of the items of ``spy`` that were read, in order."""
        return sorted(spy.__seen)


class SpyTable(collections.abc.Mapping):
    """A read-only mapping (one of an answer's tables, handed back to it) that remembers which of its
    entries were read: looking a key up (``t[b]``, ``t.get(b)``, ``b in t``) reads that entry;
    iterating it (``keys``, ``values``, ``items``, ``dict(t)``) reads them all; ``len`` reads none.
    Built from a ``defaultdict``, a missing key gives its factory's empty value, as there. ``extra``,
    ``(key, id)``: the entry of ``key`` lists ``id`` too (in its own copy of the table)."""

    __slots__ = ("__data", "__seen", "__default")

    def __init__(self, data: dict, extra: tuple | None = None) -> None:
        self.__default = data.default_factory if type(data) is collections.defaultdict else None
        if extra is not None:
            key, ident = extra
            data = dict(data)
            v = data.get(key, [])
            data[key] = v + [ident] if type(v) is list else v | {ident} if type(v) is set else (*v, ident)
        self.__data = data
        self.__seen: set = set()

    def __getitem__(self, key: Any) -> Any:
        self.__seen.add(_hashable_key(key))
        if key in self.__data or self.__default is None:
            v = self.__data[key]
            return type(v)(v) if type(v) in (list, set) else v  # its own copy: the next call's is intact
        return self.__default()

    def __contains__(self, key: object) -> bool:
        self.__seen.add(_hashable_key(key))
        return key in self.__data

    def __iter__(self):
        self.__seen.update(self.__data)
        return iter(list(self.__data))

    def __len__(self) -> int:
        return len(self.__data)

    def __repr__(self) -> str:
        return f"<a table of {len(self.__data)} keys>"

    def __reduce_ex__(self, protocol: Any) -> tuple:  # copy, pickle: every entry read, a plain dict
        return (dict, (dict(self.items()),))

    @staticmethod
    def read(table: SpyTable) -> list:
        """The keys of ``table`` whose entries were read."""
        return list(table.__seen)


def _hashable_key(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        return repr(type(key))
    return key


def spy_tables(tables: Any, plant: Any = None) -> Any:
    """``tables`` (an answer's own, rebuilt from its plain form) with each table a :class:`SpyTable`:
    a list or tuple of dicts, or a dict of dicts, as the answer returned them; anything else as it is
    (the answer's judge has refused it already). ``plant``, ``[id, keys]``: table j also lists ``id``
    under ``keys[j]`` (a bait a scan finds, see ``checks.block_index``)."""
    ident, keys = plant if type(plant) is list and len(plant) == 2 and type(plant[1]) is list else (None, [])

    def spied(j: Any, t: Any) -> Any:
        if not isinstance(t, dict):
            return t
        extra = (keys[j], ident) if ident is not None and type(j) is int and 0 <= j < len(keys) else None
        return SpyTable(t, extra)

    if type(tables) in (list, tuple):
        return type(tables)(spied(j, t) for j, t in enumerate(tables))
    if isinstance(tables, dict):
        return {j: spied(j, t) for j, t in tables.items()}
    return tables


#: Entries (or items) of a measured read listed per call; beyond it only their number is sent.
MAX_LISTED_READS = 64


def _reads(args: list) -> dict:
    """What a call read of its spied arguments: ``ids`` (the items of its :class:`Spy` arguments) and
    ``entries`` (``[table, key]`` of its :class:`SpyTable` arguments), each listed up to
    :data:`MAX_LISTED_READS` and counted in ``n_ids`` / ``n_entries``."""
    ids: set[int] = set()
    entries: list = []
    for a in args:
        if type(a) is Spy:
            ids.update(Spy.read(a))
        tables = a.items() if isinstance(a, dict) else enumerate(a) if type(a) in (list, tuple) else ()
        for j, t in tables:
            if type(t) is SpyTable:
                entries += [[j, k] for k in SpyTable.read(t)]
    listed = []
    for j, k in entries[:MAX_LISTED_READS]:
        try:
            listed.append([plain(j), plain(k)])
        except NotPlain:
            listed.append([plain(j) if type(j) is int else None, None])
    return {"ids": sorted(ids), "n_ids": len(ids), "entries": listed, "n_entries": len(entries)}


def decode_arg(v: Any) -> Any:
    """An encoded argument (see the module docstring) as the object the answer receives."""
    t = type(v)
    if t is list:
        return [decode_arg(i) for i in v]
    if t is not dict:
        return v
    if "$dict" in v and "$default" in v and len(v) == 2:
        return unplain(v)
    if len(v) == 1:
        (tag, body), *_ = v.items()
        if tag in _ARRAYS:
            import numpy as np

            return np.array(body, dtype=_ARRAYS[tag])
        if tag == "$tuple":
            return tuple(decode_arg(i) for i in body)
        if tag == "$spy":
            return Spy(body)
        if tag == "$spytables":
            if type(body) is dict and "of" in body:
                return spy_tables(decode_arg(body["of"]), body.get("plant"))
            return spy_tables(decode_arg(body))
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
    np = sys.modules.get("numpy")
    np_ints = (
        frozenset(t for t in _numpy_scalars(np) if t is not np.bool_ and np.dtype(t).kind in "iu")
        if np
        else ()
    )

    def record(frame) -> None:
        name = frame.f_code.co_name
        for var, v in frame.f_locals.items():
            if type(v) in np_ints:
                v = int(v)
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


def _is_dispatcher(fn: Any) -> bool:
    registry = sys.modules.get("numba.core.registry")
    cls = getattr(registry, "CPUDispatcher", None) if registry is not None else None
    return cls is not None and type(fn) is cls


@contextlib.contextmanager
def _hard_limit(seconds: float):
    """End this process after ``seconds`` (faulthandler's watchdog thread needs no GIL: it fires in
    the middle of compiled code, printing where every thread is); cancelled when the block ends."""
    import faulthandler

    out = sys.__stderr__  # the process's own stderr (a kernel shows it), not a redirection
    try:
        faulthandler.dump_traceback_later(seconds, exit=True, file=out)
    except (AttributeError, ValueError, OSError, io.UnsupportedOperation):
        yield  # no descriptor to write to: the call runs unguarded, as before
        return
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def _numba_state(fn: Any, files: frozenset[str]) -> dict:
    """Is ``fn`` a real Numba dispatcher of the answer's own function, compiled in nopython mode?"""
    dispatcher = sys.modules.get("numba.core.registry")
    cls = getattr(dispatcher, "CPUDispatcher", None) if dispatcher is not None else None
    if cls is None or type(fn) is not cls:
        return {"dispatcher": False, "nopython": 0}
    py = fn.py_func
    own = type(py).__name__ == "function" and py.__code__.co_filename in files if files else True
    # blocks of Python inside it (``with objmode(...)``): lifted out of what Numba compiled
    lifted = sum(len(getattr(cres, "lifted", ()) or ()) for cres in fn.overloads.values())
    return {"dispatcher": bool(own), "nopython": len(fn.nopython_signatures), "lifted": lifted}


def run_case(
    fns: dict[str, Any],
    case: dict,
    *,
    files: Iterable[str] = (),
    timeout: float | None = None,
    quiet: bool = True,
    fresh: Callable[[], dict[str, Any]] | None = None,
    compiled_timeout: float | None = None,
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
    compiled_timeout : float, optional
        The learner's kernel: seconds after which a call of a Numba-compiled function (which no
        signal interrupts) ends the process, through :func:`faulthandler.dump_traceback_later`,
        whose message names the function; the kernel restarts, where it would hang for good. (In
        the grader's sandbox the watchdog outside ends it.)

    Returns
    -------
    list of dict, one per call (see the module docstring).
    """
    files = frozenset(files)
    saved: dict[str, Any] = {}
    shared = case.get("vars") or {}
    cache: dict = {}  # what several calls of the case decode once (saved tables)
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
        args = [_resolve(a, saved, shared, cache) for a in call["args"]]
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
                if compiled_timeout and _is_dispatcher(fn):
                    stack.enter_context(_hard_limit(compiled_timeout))
                if "lines" in measure or "trace" in measure:
                    trace = {} if "trace" in measure else None
                    out, lines = _count_lines(files, fn, args, trace)
                else:
                    out = fn(*args)
            res = {"ok": plain(out)}
        except CallTimeout:
            res = {"timeout": True, "after": timeout}
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
            res["reads"] = _reads(args)
        if "numba" in measure:
            res["numba"] = _numba_state(fn, files)
        results.append(res)
    return results


def run_cases(fns: dict[str, Any], cases: list[dict], **kw: Any) -> list[list[dict]]:
    """:func:`run_case` of each case in turn, until a call runs past its time: the calls of the
    cases after it are not made (``{"timeout": true, "skipped": true}``), so an answer that hangs
    costs one call's time, not one per case. Every place that runs an answer on cases (the check
    cell, the sandbox's exports and method runs) runs them through here.

    In the learner's kernel (``kw["timeout"]`` set, the main thread) a ``KeyboardInterrupt`` (the
    learner's interrupt) stops the answer the same way, as ``{"interrupted": true}``."""
    out: list[list[dict]] = []
    stopped: dict | None = None
    for case in cases:
        if stopped is not None:
            out.append([dict(stopped, skipped=True) for _ in case["calls"]])
            continue
        try:
            res = run_case(fns, case, **kw)
        except KeyboardInterrupt:
            res = [{"interrupted": True}] + [{"interrupted": True, "skipped": True}] * (
                len(case["calls"]) - 1
            )
        out.append(res)
        hung = next((r for r in res if r.get("timeout") or r.get("interrupted")), None)
        if hung is not None:
            stopped = {k: v for k, v in hung.items() if k in ("timeout", "after", "interrupted")}
    return out


def _resolve(a: Any, saved: dict, shared: dict, cache: dict) -> Any:
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
        if tag == "$spytables":
            # the tables an earlier call saved, decoded once a case (each table is read through a
            # SpyTable, which hands out copies of its lists, so no call changes them for the next),
            # and the id planted in them, if any
            of, plant = (
                (body.get("of"), body.get("plant")) if type(body) is dict and "of" in body else (body, None)
            )
            key = json.dumps(of, sort_keys=True)
            if key not in cache:
                cache[key] = _resolve(of, saved, shared, cache)
            return spy_tables(cache[key], plant)
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
