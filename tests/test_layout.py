"""The tests mirror the package (tests/README.md): every module of simhash_lab/ has a test file of its
name where the rule puts it, or is on one of the two lists below, each entry with its reason.

    simhash_lab/X.py                 ->  tests/lib/test_X.py
    simhash_lab/kernels/X.py         ->  tests/lib/kernels/test_X.py   (index/ likewise)
    simhash_lab/cli/X.py             ->  tests/cli/test_X.py           (grading/, course/ likewise)
    simhash_lab/grading/checks/X.py  ->  tests/grading/checks/test_X.py
    a leading underscore is dropped  (_files.py -> test_files.py); __init__.py -> test_init.py

More files per module are welcome beside it, named ``test_X_<aspect>.py``.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "simhash_lab"
TESTS = ROOT / "tests"

# Subpackages with a test folder of their own at the top of tests/ (each with its own conftest);
# every other module's tests live under tests/lib/.
TOP_LEVEL = ("cli", "grading", "course")

# Modules that have no test file on purpose: nothing of their own to test.
NO_TESTS = {
    # `python -m simhash_lab.cli`: three lines that call main(); every CLI test runs through it.
    "cli/__main__.py": "the entry point, run by every test in tests/cli (conftest.run_cli)",
    # docstring only: the kernels' map and decorator policy
    "kernels/__init__.py": "a docstring, no code",
    # re-exports of design and table (tested in tests/lib/index/test_design.py, test_table.py)
    "index/__init__.py": "re-exports only",
    # the map of the steps and re-exports of local, results (tested in tests/lib/dedup/); its
    # example runs as a doctest
    "dedup/__init__.py": "re-exports only",
    # re-exports of batch, cluster, executor (tested in tests/lib/distributed/)
    "distributed/__init__.py": "re-exports only",
    # the extra's import-time check is tested in tests/lib/test_init.py
    # (test_the_course_without_its_extra_says_what_to_install)
    "course/__init__.py": "an import guard, tested in tests/lib/test_init.py",
    # lazy names; that importing it loads no Numba is tested in tests/lib/test_init.py
    "grading/__init__.py": "lazy re-exports, tested in tests/lib/test_init.py",
}

# Modules that should have a test file and do not yet: a debt, not a design. Each entry names where
# the module is tested today, if anywhere. Remove an entry when its file is written (the test below
# fails on an entry that has a test file, so this list only shrinks).
NOT_YET: dict[str, str] = {}


def expected_test_file(module: Path) -> Path:
    """Where the test file of ``module`` (a path under simhash_lab/) lives, by the rule above."""
    rel = module.relative_to(PACKAGE)
    parts = rel.parts[:-1]
    name = "init" if rel.stem == "__init__" else rel.stem.lstrip("_")
    folder = TESTS.joinpath(*parts) if parts and parts[0] in TOP_LEVEL else TESTS.joinpath("lib", *parts)
    return folder / f"test_{name}.py"


def modules() -> dict[str, Path]:
    return {
        p.relative_to(PACKAGE).as_posix(): p
        for p in sorted(PACKAGE.rglob("*.py"))
        if "__pycache__" not in p.parts and not any(part.startswith(".") for part in p.parts)
    }


def test_the_rule_maps_modules_to_test_files():
    assert expected_test_file(PACKAGE / "calibration.py") == TESTS / "lib" / "test_calibration.py"
    assert expected_test_file(PACKAGE / "kernels" / "vote.py") == TESTS / "lib" / "kernels" / "test_vote.py"
    assert expected_test_file(PACKAGE / "_files.py") == TESTS / "lib" / "test_files.py"
    assert expected_test_file(PACKAGE / "cli" / "dedup.py") == TESTS / "cli" / "test_dedup.py"
    assert expected_test_file(PACKAGE / "grading" / "checks" / "__init__.py") == (
        TESTS / "grading" / "checks" / "test_init.py"
    )
    assert expected_test_file(PACKAGE / "__init__.py") == TESTS / "lib" / "test_init.py"


def test_every_module_has_a_test_file_of_its_name():
    missing = []
    for rel, path in modules().items():
        if rel in NO_TESTS or rel in NOT_YET:
            continue
        want = expected_test_file(path)
        if not want.is_file():
            missing.append(f"simhash_lab/{rel}: no {want.relative_to(ROOT)}")
    assert not missing, (
        "modules without a test file of their name (write it, or add the module to NO_TESTS or "
        "NOT_YET in tests/test_layout.py with the reason):\n  " + "\n  ".join(missing)
    )


def test_the_lists_name_existing_modules_and_shrink():
    known = modules()
    stale = [rel for rel in (*NO_TESTS, *NOT_YET) if rel not in known]
    assert not stale, f"listed in tests/test_layout.py but not a module (renamed or removed?): {stale}"
    done = [rel for rel in NOT_YET if expected_test_file(known[rel]).is_file()]
    assert not done, f"these have a test file now: remove them from NOT_YET in tests/test_layout.py: {done}"
    both = sorted(set(NO_TESTS) & set(NOT_YET))
    assert not both, f"on both lists: {both}"


# Extras `make test-lib` leaves out (.venv-lib installs the library's extras only): a test file of
# tests/lib or tests/cli that imports one of these at its top fails to collect there, and stops the
# whole run. A test that measures on the course's data takes the `course` fixture (tests/conftest.py),
# which skips it where the extra is missing.
NOT_IN_TEST_LIB = ("simhash_lab.course",)


def _top_level_imports(path: Path) -> list[str]:
    import ast

    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    return names


def test_the_library_tests_import_no_course_at_their_top():
    bad = []
    for folder in ("lib", "cli"):
        for path in sorted((TESTS / folder).rglob("*.py")):
            hits = [n for n in _top_level_imports(path) if n.startswith(NOT_IN_TEST_LIB)]
            if hits:
                bad.append(f"{path.relative_to(ROOT)}: {sorted(set(hits))}")
    assert not bad, (
        "imported at the top of a test that make test-lib runs without the course extra (take the "
        "`course` fixture instead):\n  " + "\n  ".join(bad)
    )


def _private_uses(path: Path) -> list[str]:
    """``from M import _x`` and ``m._x`` in one module of the package, where ``_x`` belongs to another
    module of the package (a private module itself, ``from . import _files``, is fine: its name says
    where it lives)."""
    import ast

    rel = path.relative_to(ROOT).with_suffix("")
    package = list(rel.parts[:-1])  # the package a relative import starts from
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, aliases = [], set()

    def target(node: ast.ImportFrom) -> list[str] | None:
        if node.level:
            base = package[: len(package) - node.level + 1]
            return base + (node.module.split(".") if node.module else [])
        if node.module and node.module.split(".")[0] == "simhash_lab":
            return node.module.split(".")
        return None

    def is_module(parts: list[str]) -> bool:
        p = ROOT.joinpath(*parts)
        return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (mod := target(node)) is not None:
            for a in node.names:
                if is_module([*mod, a.name]):
                    aliases.add(a.asname or a.name)
                elif a.name.startswith("_") and a.name != "_" and not a.name.startswith("__"):
                    found.append(f"{rel}.py: from {'.'.join(mod)} import {a.name}")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "simhash_lab" and a.asname:
                    aliases.add(a.asname)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(f"{rel}.py:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_private_name_is_used_outside_its_module():
    """A name with a leading underscore is its module's own (issue 28): what another module needs gets
    a public name where it is defined (a private module such as ``_write.py`` may hold public names)."""
    found = [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in _private_uses(path)]
    assert not found, "private names used outside their module:\n  " + "\n  ".join(found)


# -- the import graph: no circle ----------------------------------------------------------------


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of simhash_lab and the modules of simhash_lab it imports, wherever the import
    is (at the top, inside a function, under ``if TYPE_CHECKING``): a lazy import is an arrow too
    (an import moved into a function to dodge a circle is still the circle). ``from .pkg import
    name`` is the module ``pkg.name`` when there is one, else ``pkg``."""
    import ast

    mods = {_module_name(p): p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}

    def resolve(name: str) -> str | None:
        parts = name.split(".")
        while parts:
            if ".".join(parts) in mods:
                return ".".join(parts)
            parts.pop()
        return None

    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                out |= {resolve(a.name) for a in node.names if a.name.split(".")[0] == "simhash_lab"}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                elif node.module and node.module.split(".")[0] == "simhash_lab":
                    mod = node.module
                else:
                    continue
                out |= {
                    resolve(f"{mod}.{a.name}") if f"{mod}.{a.name}" in mods else resolve(mod)
                    for a in node.names
                }
        graph[name] = out - {None, name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_circles_are_found():
    """The check itself: a circle of three and one of two are found, a tree is not."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert circles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_no_import_circle_inside_the_package():
    """No module of simhash_lab imports, directly or through others, a module that imports it
    (issue 45): the layers stand on each other, never on what stands on them."""
    graph = import_graph()
    assert graph["simhash_lab.dedup.local"] >= {"simhash_lab.dedup.steps", "simhash_lab.datasets"}  # read
    found = circles(graph)
    assert not found, (
        "import circles inside simhash_lab (module -> the modules of the circle it imports):\n"
        + "\n".join(f"  {c}: " + "; ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c) for c in found)
    )
