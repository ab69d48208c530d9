"""Static checks of an answer's code, and the code its method run executes, read in the grader's process.

A method check ("Kernighan's loop runs once per set bit", "``is_near`` stops after k + 1 differing
bits", "a query reads only its candidates' entries", "Numba really compiled it") is a property of
what the answer's functions *do*, measured on everything they are handed: the lines they execute,
the values their int variables take, which items of the fingerprints and which entries of the
tables they read, what Numba compiled. Each is measured where nothing else of the student's runs:

1. Here, from the notebook's cells as plain Python (IPython's text transformations, made by the
   sandbox's runner before any of the student's code runs there, each cell under a time limit:
   :func:`simhash_lab.grading._runner.to_python`), :func:`method_code` keeps the answer's functions
   and every definition of the student's cells they reach (helpers in cells of their own, the
   other answers they call, the constants and imports they use), and nothing else: no statement
   that only runs (a print, a test call, an experiment).
2. :func:`problems` reads that code for two things only. What the exercise's text forbids in this
   answer (:class:`Rules`: exercise 03 forbids ``bin``, ``str``, text formatting and ready-made
   popcounts in ``popcount_kernighan``); nothing else about how it is spelled: any built-in, any
   module, recursion, comprehensions, ``divmod``, the walrus, ``try``, classes, NumPy are the
   learner's choice. And the **guard**, the same for every measured answer and said in the
   exercises' text: no reaching into the interpreter (``sys``, ``gc``, ``inspect``, ``ctypes``,
   ``getattr``, ``eval``, names and attributes with a leading ``_`` or ``__``, frames and code
   objects) and no keeping values outside the function (``open``, ``os``, setting an attribute
   of a module): the only ways code could change what is measured or carry a value from one call
   to the next.
3. :mod:`simhash_lab.grading._runner` runs exactly that code, in the notebook's sandbox before any
   cell of the notebook runs there, on inputs drawn at grading time; a pure-Python answer's
   definitions run anew before every call (nothing an earlier call wrote is there); what it reads
   is counted by the objects it is handed
   (:class:`~simhash_lab.grading._protocol.Spy`, :class:`~simhash_lab.grading._protocol.SpyTable`).

The learner's check cells run the same :func:`problems` on ``inspect.getsource`` of the answer's
functions and of the functions of theirs those reach, and measure the same things on the same kind
of objects in the kernel (:mod:`simhash_lab.grading.checks._checker`).
"""

from __future__ import annotations

import ast
import dataclasses
import symtable
import textwrap
from collections.abc import Iterable, Sequence

from .._i18n import N_, _

__all__ = [
    "Rules",
    "GUARD_WHY",
    "Definition",
    "definitions",
    "reached",
    "method_code",
    "problems",
    "refused",
    "labelled",
    "is_stated",
    "function_source",
]


@dataclasses.dataclass(frozen=True)
class Rules:
    """What an exercise's text forbids in one answer (stated to the learner there).

    Parameters
    ----------
    why : str
        The text's rule, for the hint.
    names : iterable of str
        Names the answer may not use (``bin``, ``str``, an imported ``popcount``).
    attributes : iterable of str
        Attribute names it may not use (``bit_count``, ``bitwise_count``).
    text : bool
        No turning a value into text: f-strings, ``%`` on a string, ``.format``.
    """

    why: str
    names: frozenset[str] = frozenset()
    attributes: frozenset[str] = frozenset()
    text: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", frozenset(self.names))
        object.__setattr__(self, "attributes", frozenset(self.attributes))


#: Why the guard refuses what it refuses (said in the exercises' text too).
GUARD_WHY = N_(
    "The grader measures what your functions do (the lines they run, the values they take, what they "
    "read): code that reaches into the interpreter (sys, gc, inspect, ctypes, getattr, eval, names "
    "with _ or __) or keeps values outside a function (files, os, an attribute of a module) could "
    "change what is measured, so a measured answer may not use it."
)

#: Modules that reach the interpreter, the process or files (and the grader's own package).
GUARD_MODULES = frozenset(
    """sys gc inspect ctypes _ctypes cffi importlib builtins types threading _thread signal os posix nt
    io _io pathlib shutil tempfile glob fileinput shelve dbm sqlite3 pickle _pickle marshal copyreg
    code codeop dis traceback linecache weakref _weakref pdb bdb trace tracemalloc faulthandler atexit
    site runpy pkgutil zipimport subprocess multiprocessing concurrent asyncio socket resource mmap
    select selectors fcntl pty tty termios ctypeslib IPython ipykernel simhash_lab.grading""".split()
)
#: Built-in names that reach the interpreter, run text as code, or open files.
GUARD_NAMES = frozenset(
    """getattr setattr delattr vars globals locals eval exec compile open breakpoint input help
    memoryview get_ipython exit quit""".split()
)
#: Attributes of frames, code objects, generators and tracebacks, and those that reach raw memory or
#: attributes by name (besides every attribute that starts with ``_``).
GUARD_ATTRIBUTES = frozenset(
    """f_back f_locals f_globals f_builtins f_code f_trace f_lasti gi_frame gi_code gi_yieldfrom
    cr_frame cr_code cr_await cr_origin ag_frame ag_code ag_await tb_frame tb_next func_globals
    func_code func_closure cell_contents ctypeslib ctypes as_strided stride_tricks attrgetter
    methodcaller""".split()
)


#: Longest student cell the grader reads and checks (characters); a longer one is refused.
MAX_SOURCE = 100_000


# -- the code a method run executes --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Definition:
    """A top-level statement of a student's cell that defines names: a ``def``, a ``class``, an
    ``import``, an assignment to names. ``source`` is its text (decorators included), ``cell`` the
    index of its cell among those given, ``line`` its first line there."""

    source: str
    cell: int
    line: int
    defines: frozenset[str]
    uses: frozenset[str]
    functions: frozenset[str]


def _target_names(t: ast.AST) -> set[str] | None:
    if isinstance(t, ast.Name):
        return {t.id}
    if isinstance(t, (ast.Tuple, ast.List)):
        out: set[str] = set()
        for e in t.elts:
            inner = _target_names(e.value if isinstance(e, ast.Starred) else e)
            if inner is None:
                return None
            out |= inner
        return out
    return None


def _defines(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, ast.Import):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name for a in node.names if a.name != "*"}
    if isinstance(node, ast.Assign):
        out: set[str] = set()
        for t in node.targets:
            names = _target_names(t)
            if names is None:
                return set()
            out |= names
        return out
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return {node.target.id} if not isinstance(node, ast.AnnAssign) or node.value is not None else set()
    return set()


def _uses(text: str, node: ast.stmt) -> set[str]:
    """The global names ``node`` reads (its decorators, defaults and module-level expressions, and the
    names its functions and classes look up as globals), from Python's own symbol tables."""
    try:
        top = symtable.symtable(text, "<cell>", "exec")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    out: set[str] = set()

    def visit(t: symtable.SymbolTable) -> None:
        module = t.get_type() == "module"
        for sym in t.get_symbols():
            if sym.is_referenced() and (module or sym.is_global()):
                out.add(sym.get_name())
        for child in t.get_children():
            visit(child)

    visit(top)
    return out


def _segment(lines: list[str], node: ast.stmt) -> tuple[int, str]:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return first, "\n".join(lines[first - 1 : node.end_lineno]) + "\n"


def definitions(cells: Sequence[str]) -> list[Definition]:
    """The definitions of ``cells`` (already plain Python, :func:`~simhash_lab.grading._runner.to_python`),
    in order.

    Raises SyntaxError naming the cell's line when a cell is not Python, or is nested too deeply
    to be read."""
    out = []
    for ci, text in enumerate(cells):
        try:
            tree = ast.parse(text)
        except (RecursionError, MemoryError):
            raise SyntaxError(_("nested too deeply to be checked")) from None
        lines = text.splitlines()
        for node in tree.body:
            names = _defines(node)
            if not names:
                continue
            line, src = _segment(lines, node)
            functions = {node.name} if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else set()
            out.append(
                Definition(src, ci, line, frozenset(names), frozenset(_uses(src, node)), frozenset(functions))
            )
    return out


def reached(defs: Sequence[Definition], names: Iterable[str]) -> list[Definition]:
    """The definitions that define ``names``, and, in turn, every definition of a name they use (a
    helper in a cell of the learner's own, another answer's function, a constant, an import), in
    notebook order: what a call of those names can reach of the student's cells."""
    need = set(names)
    kept: set[int] = set()
    grew = True
    while grew:
        grew = False
        for i, d in enumerate(defs):
            if i not in kept and d.defines & need:
                kept.add(i)
                need |= d.uses
                grew = True
    return [defs[i] for i in sorted(kept)]


def method_code(defs: Sequence[Definition]) -> str:
    """The code of a method run: ``defs`` (see :func:`reached`), one after the other."""
    return "\n\n".join(d.source.rstrip("\n") for d in defs) + "\n"


# -- what the code may not do --------------------------------------------------------------------------


def function_source(fn) -> str | None:
    """The source of ``fn`` (a learner's function in the kernel), dedented; None if unknown."""
    import inspect

    fn = getattr(fn, "py_func", fn)  # a Numba dispatcher: its Python function
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None


def _module_refused(module: str) -> bool:
    parts = module.split(".")
    return any(".".join(parts[: i + 1]) in GUARD_MODULES or p in GUARD_MODULES for i, p in enumerate(parts))


def _self_names(tree: ast.AST) -> set[int]:
    """The ids of the first parameters of the methods of the classes in ``tree`` (``self``): the one
    object whose attributes an answer may set."""
    out: set[int] = set()
    for cls in ast.walk(tree):
        if isinstance(cls, ast.ClassDef):
            for fn in cls.body:
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.args.args:
                    out.add(id(fn))
    return out


def _in_a_module(node: ast.Subscript, imported: set[str]) -> bool:
    """``np.typecodes["x"] = ...``: a subscript of something reached through an imported module's
    attributes (a library's own dict or list, there for the next call)."""
    base, through = node.value, False
    while isinstance(base, (ast.Attribute, ast.Subscript)):
        through = through or isinstance(base, ast.Attribute)
        base = base.value
    return through and isinstance(base, ast.Name) and base.id in imported


def _string_names(tree: ast.AST) -> set[str]:
    """Names ``tree`` binds to a string constant (``FMT = '%x'``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            if type(node.value.value) in (str, bytes):
                out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


class Problem(str):
    """One problem :func:`problems` found; ``stated`` when it breaks the exercise's own rule (the
    hint then quotes the rule, else the guard's reason)."""

    stated = False


def is_stated(problem: str) -> bool:
    """Whether ``problem`` breaks the exercise's stated rule rather than the guard."""
    return bool(getattr(problem, "stated", False))


def _problem(text: str, stated: bool) -> Problem:
    p = Problem(text)
    p.stated = stated
    return p


def problems(source: str, rules: Rules | None = None) -> list[str]:
    """What in ``source`` (one definition, or several) the guard and ``rules`` refuse, one line each,
    ``line N: what`` (numbered from the source's first line); empty when it passes."""
    try:
        return _problems(source, rules)
    except (RecursionError, MemoryError):
        return [_("line 1: the code is nested too deeply to be checked")]


def _problems(source: str, rules: Rules | None) -> list[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        return [_("line {lineno}: not Python ({msg})").format(lineno=e.lineno, msg=e.msg)]
    found: list[tuple[int, str, bool]] = []

    def bad(node: ast.AST, what: str, stated: bool = False) -> None:
        found.append((getattr(node, "lineno", 1), what, stated))

    imported = {
        (a.asname or a.name).split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }
    methods = _self_names(tree)
    selves: set[str] = set()
    for fn in ast.walk(tree):
        if id(fn) in methods:
            selves.add(fn.args.args[0].arg)
    strings = _string_names(tree) if rules is not None and rules.text else set()
    forbidden = rules.names if rules is not None else frozenset()
    forbidden_attrs = rules.attributes if rules is not None else frozenset()
    for node in ast.walk(tree):
        t = type(node)
        if t is ast.Name:
            n = node.id
            if n.startswith("__"):
                bad(node, _("the name `{n}` reaches into the interpreter").format(n=n))
            elif isinstance(node.ctx, ast.Load) and n in GUARD_NAMES:
                bad(node, _("`{n}` reaches into the interpreter").format(n=n))
            elif isinstance(node.ctx, ast.Load) and n in forbidden:
                bad(node, _("`{n}` is not allowed in this answer").format(n=n), True)
        elif (
            t is ast.Subscript and isinstance(node.ctx, (ast.Store, ast.Del)) and _in_a_module(node, imported)
        ):
            bad(node, _("storing into a module's own data keeps a value outside the function"))
        elif t is ast.Attribute:
            a = node.attr
            if a.startswith("_") or a in GUARD_ATTRIBUTES:
                bad(node, _("the attribute `.{a}` reaches into the interpreter").format(a=a))
            elif isinstance(node.ctx, (ast.Store, ast.Del)) and not (
                isinstance(node.value, ast.Name) and node.value.id in selves
            ):
                bad(node, _("setting the attribute `.{a}` keeps a value outside the function").format(a=a))
            elif a in forbidden_attrs:
                bad(node, _("`.{a}` is not allowed in this answer").format(a=a), True)
        elif t in (ast.Import, ast.ImportFrom):
            mod = node.module if t is ast.ImportFrom else None
            if getattr(node, "level", 0):
                bad(node, _("a relative import is not allowed here"))
                continue
            for alias in node.names:
                full = f"{mod}.{alias.name}" if mod else alias.name
                shown = f"from {mod} import {alias.name}" if mod else f"import {alias.name}"
                if alias.name == "*":
                    bad(
                        node, _("`{shown}` is not allowed here: import the names you use").format(shown=shown)
                    )
                elif (
                    _module_refused(full)
                    or alias.name.startswith("_")
                    or alias.name in GUARD_NAMES
                    or any(part in GUARD_ATTRIBUTES for part in full.split("."))
                ):
                    bad(node, _("`{shown}` reaches into the interpreter").format(shown=shown))
                elif mod and (alias.name in forbidden or alias.name in forbidden_attrs):
                    bad(node, _("`{shown}` is not allowed in this answer").format(shown=shown), True)
        elif rules is not None and rules.text:
            if t is ast.JoinedStr:
                bad(node, _("an f-string turns a value into text, which this answer may not do"), True)
            elif t is ast.BinOp and isinstance(node.op, ast.Mod):
                left = node.left
                if (isinstance(left, ast.Constant) and type(left.value) in (str, bytes)) or (
                    isinstance(left, ast.Name) and left.id in strings
                ):
                    bad(
                        node, _("`%` on a string turns a value into text, which this answer may not do"), True
                    )
    found.sort(key=lambda f: (f[0], f[1]))
    out, seen = [], set()
    for line, what, stated in found:
        if (line, what) not in seen:
            seen.add((line, what))
            out.append(_problem(_("line {line}: {what}").format(line=line, what=what), stated))
    return out


def refused(sources: Iterable[tuple[str, str]], rules: Rules | None) -> list[str]:
    """:func:`problems` of each ``(label, source)`` (a definition the answer reaches, and what it
    defines), each line naming where it is (``in `blocks`, line 2: ...``)."""
    out = []
    for label, source in sources:
        for p in problems(source, rules):
            out.append(_problem(_("in {label}, {problem}").format(label=label, problem=p), is_stated(p)))
    return out


def labelled(defs: Sequence[Definition]) -> list[tuple[str, str]]:
    """``(label, source)`` of each definition, for :func:`refused`."""
    return [(", ".join(f"`{n}`" for n in sorted(d.defines)), d.source) for d in defs]
