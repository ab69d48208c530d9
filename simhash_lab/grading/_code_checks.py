"""Static checks of an answer's code, read from the cell's source in the grader's own process.

A method check ("Kernighan's loop runs once per set bit", "``is_near`` stops after k + 1 differing
bits", "a query reads only its candidates", "Numba really compiled it") needs the answer's function
to run where nothing else of the student's runs, with nothing in reach that could forge what is
measured. So such a function is graded in two steps:

1. Here (IPython's text transformations in a child process under a time and memory limit,
   :func:`to_python_bounded`), :func:`extract` keeps from the answer cell only its definitions
   (``def``, ``import`` of allowed modules, assignments of number constants) and :func:`problems`
   checks them against an :class:`AllowList`: the AST node types of plain arithmetic, comparisons,
   loops and containers; global names from a short list (the builtins the exercise needs, the setup
   cell's imports, the other answers it may call); attributes from a short list of container
   methods (and, on a module, that module's listed attributes); no dunder, no ``import`` inside a
   function, no ``try``, ``with``, ``global``, ``class``, f-strings, generators' frames; no string
   but a docstring or an error's message (every route from an int to its text, ``'%x' % x``
   included, needs one); no list, dict or set outside a function and no mutable default (state
   between calls). This is an allow-list of what is *fair* in the answer (a loop of
   ``x &= x - 1``), not a blocklist of what is dangerous: anything not listed is refused, with the
   line and the name.
2. :mod:`simhash_lab.grading._runner` runs exactly the text that passed, in a fresh sandbox where no
   other code of the student's ran, on inputs drawn at grading time, and measures what the method
   check needs (lines executed in the answer's code, the values its int variables take, items of a
   spy list read, Numba's compiled signatures). A pure-Python answer's definitions run anew before
   every call, so no call starts from what an earlier one left. The code that passed step 1 has no
   way to reach the counters.

The learner's check cells use the same allow-lists on ``inspect.getsource`` of the function, so a
refused construct shows up while working, not first at grading.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Iterable, Mapping

__all__ = [
    "AllowList",
    "Extract",
    "extract",
    "problems",
    "function_source",
    "to_python",
    "to_python_bounded",
]

#: Builtins every allow-list grants besides its own.
BASE_BUILTINS = frozenset({"range", "len", "abs", "min", "max", "int", "bool", "True", "False", "None"})
#: Names an annotation may use (``x: int``, ``-> list[int]``): evaluated at definition, harmless.
ANNOTATION_NAMES = frozenset({"int", "float", "bool", "str", "list", "dict", "tuple", "set", "None"})

_NODES = frozenset(
    {
        ast.Module,
        ast.FunctionDef,
        ast.arguments,
        ast.arg,
        ast.Return,
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.For,
        ast.While,
        ast.If,
        ast.Break,
        ast.Continue,
        ast.Pass,
        ast.Expr,
        ast.BoolOp,
        ast.BinOp,
        ast.UnaryOp,
        ast.Compare,
        ast.Call,
        ast.keyword,
        ast.IfExp,
        ast.Constant,
        ast.Name,
        ast.Load,
        ast.Store,
        ast.Del,
        ast.Delete,
        ast.Subscript,
        ast.Slice,
        ast.Tuple,
        ast.List,
        ast.Set,
        ast.Dict,
        ast.ListComp,
        ast.SetComp,
        ast.DictComp,
        ast.GeneratorExp,
        ast.comprehension,
        ast.Attribute,
        ast.NamedExpr,
        ast.Lambda,
        ast.Raise,
        ast.Assert,
        ast.Starred,
        ast.Import,
        ast.ImportFrom,
        ast.alias,
    }
    | {
        getattr(ast, n)
        for n in (
            "Add Sub Mult Div FloorDiv Mod Pow LShift RShift BitOr BitXor BitAnd MatMult "
            "And Or UAdd USub Not Invert Eq NotEq Lt LtE Gt GtE Is IsNot In NotIn"
        ).split()
    }
)
_WHAT = {
    ast.Try: "`try`",
    ast.With: "`with`",
    ast.Global: "`global`",
    ast.Nonlocal: "`nonlocal`",
    ast.ClassDef: "a class",
    ast.AsyncFunctionDef: "`async def`",
    ast.Await: "`await`",
    ast.Yield: "`yield`",
    ast.YieldFrom: "`yield from`",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
}


@dataclasses.dataclass(frozen=True)
class AllowList:
    """What an answer's code may use.

    Parameters
    ----------
    why : str
        One sentence for the hint: what the exercise asks for and why the rest is refused.
    builtins : iterable of str
        Builtin names allowed besides :data:`BASE_BUILTINS`.
    names : mapping
        Global names the code may read (from the setup cells or other answers): name -> the module
        it is (its attributes are then limited by ``modules``), or None for a function.
    attributes : iterable of str
        Attribute names allowed on any object (``append``, ``get``, ``shape``...).
    modules : mapping
        Module -> the attributes of it the code may use (``{"numpy": {"uint64", ...}}``).
    imports : iterable of str
        Modules the answer cell may import at its top level.
    decorators : iterable of str
        Decorators a function may have, as written (``njit``, ``numba.njit``), with or without a call
        whose arguments are constants.
    """

    why: str
    builtins: frozenset[str] = frozenset()
    names: Mapping[str, str | None] = dataclasses.field(default_factory=dict)
    attributes: frozenset[str] = frozenset()
    modules: Mapping[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    imports: frozenset[str] = frozenset()
    decorators: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for f in ("builtins", "attributes", "imports", "decorators"):
            object.__setattr__(self, f, frozenset(getattr(self, f)))


@dataclasses.dataclass(frozen=True)
class Extract:
    """What :func:`extract` kept of a cell: ``text`` (the code to run), the names it defines,
    and the ``dropped`` top-level statements (their line numbers), which the grader does not run."""

    text: str
    defines: frozenset[str]
    functions: frozenset[str]
    dropped: tuple[int, ...]


def to_python(source: str) -> str:
    """A cell's source as plain Python: IPython's magics and ``!`` lines turned into the calls
    IPython makes of them (a text transformation; nothing runs)."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - IPython is a dependency of the grading extra
        return source
    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


#: Longest answer cell the grader transforms and checks (characters); a longer one is refused.
MAX_SOURCE = 100_000

_CHILD = r"""
import json, os, resource, sys
mem, cpu = int(sys.argv[1]), int(sys.argv[2])
for kind, value in ((resource.RLIMIT_AS, mem), (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_CORE, 0)):
    soft, hard = resource.getrlimit(kind)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (value, value))
sources = json.loads(sys.stdin.buffer.read())
from IPython.core.inputtransformer2 import TransformerManager
out = sys.stdout.buffer
for src in sources:
    try:
        text = TransformerManager().transform_cell(src)
    except Exception:
        text = src
    out.write((json.dumps(text) + "\n").encode())
    out.flush()
"""


def to_python_bounded(
    sources: list[str], *, timeout: float, memory: int = 1 << 30, max_chars: int = MAX_SOURCE
) -> list[str | None]:
    """:func:`to_python` of each source, in a child process of its own under a time and memory
    limit (IPython's transformations of a hostile cell can take minutes: ``'x?\n' * 16000``).

    The child imports only IPython's transformer, lowers its own address space and CPU seconds
    before it reads anything, and is killed at ``timeout`` seconds (wall clock); it runs nothing of
    the sources. A source longer than ``max_chars``, or one the child did not finish, is ``None``.
    """
    import json
    import subprocess
    import sys

    out: list[str | None] = [None] * len(sources)
    todo = [i for i, s in enumerate(sources) if len(s) <= max_chars]
    if not todo or timeout <= 0:
        return out
    cmd = [sys.executable, "-I", "-c", _CHILD, str(int(memory)), str(max(1, int(timeout) + 1))]
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return out
    try:
        data, _ = proc.communicate(json.dumps([sources[i] for i in todo]).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        data, _ = proc.communicate()
    for i, line in zip(todo, data.splitlines()):
        try:
            text = json.loads(line)
        except ValueError:
            break
        if type(text) is str:
            out[i] = text
    return out


def _constant(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp):
        return _constant(node.operand)
    if isinstance(node, ast.BinOp):
        return _constant(node.left) and _constant(node.right)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_constant(e) for e in node.elts)
    return False


def extract(source: str, python: str | None = None) -> Extract:
    """The definitions of an answer cell (``def``, ``import``, ``NAME = constant``), as code.

    ``python`` is the cell already turned into plain Python (:func:`to_python_bounded`, as the
    grader does); by default :func:`to_python` turns it here.

    Raises SyntaxError when the cell is not Python (after IPython's transformations), or is nested
    too deeply to be checked.
    """
    try:
        return _extract(to_python(source) if python is None else python)
    except (RecursionError, MemoryError):
        raise SyntaxError("nested too deeply to be checked") from None


def _extract(text: str) -> Extract:
    tree = ast.parse(text)
    kept, defines, functions, dropped = [], set(), set(), []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            kept.append(node)
            defines.add(node.name)
            functions.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.append(node)
            defines.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif (
            isinstance(node, ast.Assign)
            and all(isinstance(t, ast.Name) for t in node.targets)
            and _constant(node.value)
        ):
            kept.append(node)
            defines.update(t.id for t in node.targets)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring or a bare constant
        else:
            dropped.append(node.lineno)
    text = ast.unparse(ast.Module(body=kept, type_ignores=[])) + "\n"
    return Extract(text, frozenset(defines), frozenset(functions), tuple(dropped))


def function_source(fn) -> str | None:
    """The source of ``fn`` (a learner's function in the kernel), dedented; None if unknown."""
    import inspect

    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: its Python function
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _decorator_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        if any(not _constant(a) for a in node.args) or any(not _constant(k.value) for k in node.keywords):
            return None
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _bound_names(fn: ast.AST) -> set[str]:
    """Every name the function (or a nested scope in it) binds: parameters, targets, defs."""
    out = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not fn:
            out.add(node.name)
    return out


def problems(
    code: str,
    allow: AllowList,
    *,
    extra_names: Mapping[str, str | None] | None = None,
    constants: Iterable[str] = (),
) -> list[str]:
    """What in ``code`` the allow-list refuses, one line each (empty: it passes).

    Parameters
    ----------
    code : str
        Python source: what :func:`extract` kept of an answer cell, or one function's source.
    allow : AllowList
    extra_names : mapping, optional
        More global names, as in ``AllowList.names`` (the learner's other answers, in the kernel).
    constants : iterable of str
        Global names known to hold constants (module-level ``MASK = ...`` of the learner's, seen in
        the kernel).
    """
    try:
        return _problems(code, allow, extra_names, constants)
    except (RecursionError, MemoryError):
        return ["line 1: the code is nested too deeply to be checked"]


def _problems(code, allow, extra_names, constants) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        return [f"line {e.lineno}: not Python ({e.msg})"]
    found: list[tuple[int, str]] = []
    names: dict[str, str | None] = {**dict(allow.names), **dict(extra_names or {})}
    names.update({c: None for c in constants})
    top_functions = set()

    def bad(node: ast.AST, what: str) -> None:
        found.append((getattr(node, "lineno", 0), what))

    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = node.module if isinstance(node, ast.ImportFrom) else None
            for a in node.names:
                full = f"{mod}.{a.name}" if mod else a.name
                root = (mod or a.name).split(".")[0]
                if (
                    getattr(node, "level", 0)
                    or root not in allow.imports
                    or a.name == "*"
                    or a.name.startswith("_")
                ):
                    bad(node, f"`{'from ' + mod + ' ' if mod else ''}import {a.name}` is not allowed here")
                    continue
                alias = a.asname or a.name.split(".")[0]
                if mod is None:
                    names[alias] = a.name if a.asname else root
                elif full in allow.modules:
                    names[alias] = full
                elif a.name in allow.modules.get(mod, ()):
                    names[alias] = None
                else:
                    bad(node, f"`from {mod} import {a.name}` is not allowed here")
        elif isinstance(node, ast.Assign):
            if _mutable(node.value):
                bad(node, _STATE)
            elif not _constant(node.value) or not all(isinstance(t, ast.Name) for t in node.targets):
                bad(node, "only constants (`NAME = 0xFFFF`) may be assigned outside a function here")
            elif not _number(node.value):
                bad(node, _TEXT.format(where="outside a function"))
            for t in node.targets:
                if isinstance(t, ast.Name):
                    if t.id.startswith("__"):
                        bad(t, f"the name `{t.id}` is not allowed")
                    names[t.id] = None
        elif isinstance(node, ast.FunctionDef):
            top_functions.add(node.name)
            names[node.name] = None
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            pass
        else:
            bad(node, f"{_node_name(node)} outside a function is not allowed here")

    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        where = f"in `{fn.name}`"
        local = _bound_names(fn)
        for dec in fn.decorator_list:
            if _decorator_name(dec) not in allow.decorators:
                use = f" (use {_list(allow.decorators)})" if allow.decorators else ""
                bad(dec, f"the decorator `@{ast.unparse(dec)}` is not allowed{use}")
        annotations = set()
        for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg):
            if a is not None and a.annotation is not None:
                annotations.update(id(n) for n in ast.walk(a.annotation))
        if fn.returns is not None:
            annotations.update(id(n) for n in ast.walk(fn.returns))
        decorators = {id(n) for d in fn.decorator_list for n in ast.walk(d)}
        texts = _allowed_texts(fn)
        for node in ast.walk(fn):
            if id(node) in decorators:
                continue
            t = type(node)
            if t is ast.arguments:
                for d in (*node.defaults, *node.kw_defaults):
                    if d is not None and not _number(d):
                        text = _plain_text(d)
                        bad(d, (_TEXT if text else _STATE_DEFAULT).format(where=where))
            elif t is ast.Constant and type(node.value) in (str, bytes) and id(node) not in texts:
                bad(node, _TEXT.format(where=where))
            if t not in _NODES:
                bad(node, f"{_WHAT.get(t, _node_name(node))} is not allowed {where}")
                continue
            if t in (ast.Import, ast.ImportFrom):
                bad(node, f"`import` inside a function is not allowed {where}")
            elif t is ast.FunctionDef and node is not fn and node.decorator_list:
                bad(node, f"a decorated inner function is not allowed {where}")
            elif t is ast.Name:
                n = node.id
                if n.startswith("__"):
                    bad(node, f"the name `{n}` is not allowed {where}")
                elif isinstance(node.ctx, ast.Load) and not (
                    n in local
                    or n in names
                    or n in BASE_BUILTINS
                    or n in allow.builtins
                    or n in _EXCEPTIONS
                    or (id(node) in annotations and n in ANNOTATION_NAMES)
                ):
                    bad(node, f"`{n}` is not allowed {where}")
            elif t is ast.Attribute:
                a = node.attr
                owner = node.value
                module = (
                    names.get(owner.id) if isinstance(owner, ast.Name) and owner.id not in local else None
                )
                if a.startswith("_"):
                    bad(node, f"the attribute `.{a}` is not allowed {where}")
                elif module is not None:
                    if a not in allow.modules.get(module, ()):
                        bad(node, f"`{owner.id}.{a}` is not allowed {where}")
                elif a not in allow.attributes:
                    bad(node, f"the attribute `.{a}` is not allowed {where}")
            elif t is ast.Raise and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if not (isinstance(exc, ast.Name) and exc.id in _EXCEPTIONS):
                    bad(node, f"raise only {_list(_EXCEPTIONS)} {where}")
    found.sort()
    out, seen = [], set()
    for line, what in found:
        if (line, what) not in seen:
            seen.add((line, what))
            out.append(f"line {line}: {what}")
    return out


_EXCEPTIONS = frozenset({"ValueError", "TypeError", "NotImplementedError"})

# State between calls: the grader calls each function on its own, so nothing may carry a value from
# one call to the next (a module-level list a build function fills and a query reads, a ``memo={}``).
_STATE = (
    "a list, dict or set outside a function keeps values between calls, and the grader calls each "
    "function on its own: pass everything a function needs as its arguments (and return what it builds)"
)
_STATE_DEFAULT = (
    "a default that is a list, dict, set or call is one object shared by every call {where} (state "
    "between calls): use None or a number as the default and build the value inside the function"
)
# Every route from an int to text ('%x' % x, '{:b}'.format(x), str(), bin(), format(), f-strings)
# needs a string or a builtin the allow-list does not grant: strings are refused except as a
# docstring or the message of a raise or an assert.
_TEXT = (
    "a string {where} is not allowed here: work on the int's bits with integer operations, not on "
    "its text (str(), '%x' % x, format() and f-strings count digits, not steps)"
)


def _number(node: ast.AST) -> bool:
    """A constant that is a number, a bool or None (or a tuple of those): nothing that can hold state
    or text."""
    if isinstance(node, ast.Constant):
        return node.value is None or type(node.value) in (bool, int, float, complex)
    if isinstance(node, ast.UnaryOp):
        return _number(node.operand)
    if isinstance(node, ast.BinOp):
        return _number(node.left) and _number(node.right)
    if isinstance(node, ast.Tuple):
        return all(_number(e) for e in node.elts)
    return False


def _mutable(node: ast.AST) -> bool:
    return any(isinstance(n, (ast.List, ast.Dict, ast.Set)) for n in ast.walk(node))


def _plain_text(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (str, bytes)


def _allowed_texts(fn: ast.AST) -> set[int]:
    """The ids of the string constants a function may hold: docstrings, the messages of ``raise`` and
    ``assert``."""
    out: set[int] = set()
    for node in ast.walk(fn):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if isinstance(first, ast.Expr) and _plain_text(first.value):
                out.add(id(first.value))
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            out.update(id(n) for a in node.exc.args for n in ast.walk(a) if _plain_text(n))
        if isinstance(node, ast.Assert) and node.msg is not None:
            out.update(id(n) for n in ast.walk(node.msg) if _plain_text(n))
    return out


def _node_name(node: ast.AST) -> str:
    return {ast.Expr: "a statement", ast.AugAssign: "an assignment"}.get(
        type(node), f"`{type(node).__name__}`"
    )


def _list(names: Iterable[str]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names))
