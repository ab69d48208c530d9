"""What a test run leaves out when a part's extras are not installed (``make test-lib``: the library
with its own extras, no JupyterLab, no Dask, no grader).

A test file or a module of ``simhash_lab`` (its doctests) is not collected when it imports, at its
top level, a part whose distributions are missing: the course (``simhash_lab.course``: matplotlib,
ipywidgets, Pillow), the grader (``simhash_lab.grading``: nbformat, IPython), Dask
(``simhash_lab.distributed``), or a distribution of another extra (:data:`EXTRAS`). The header of
the end of the run lists what was left out and why. With every extra installed (``make test``) nothing is.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent

#: a part of the package -> the distributions' import names it needs beyond the library
PARTS = {
    "simhash_lab.course": ("matplotlib", "ipywidgets", "PIL"),
    "simhash_lab.grading": ("nbformat", "IPython"),
    "simhash_lab.distributed": ("dask", "distributed", "fsspec"),
}

#: the import names of the distributions of the extras (pyproject.toml): only these are left out
#: for; any other missing import is an error as usual
EXTRAS = {
    "matplotlib", "ipywidgets", "jupyterlab", "ipykernel", "PIL", "datasketch", "jieba", "nbformat",
    "IPython", "dask", "distributed", "fsspec", "s3fs", "pyarrow", "orjson", "simhash", "xxhash",
    "hypothesis", "nbval", "nbclient", "nbconvert", "jupytext", "psutil", "polib", "moto",
    "playwright", "sphinx", "myst_nb", "pandas",
}  # fmt: skip

_left_out: dict[str, str] = {}


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _missing(module: str) -> str | None:
    """The first missing import name ``module`` needs, or None."""
    for part, needs in PARTS.items():
        if module == part or module.startswith(part + "."):
            return next((n for n in needs if not _installed(n)), None)
    top = module.split(".")[0]
    return top if top in EXTRAS and not _installed(top) else None


def _imports(path: Path) -> list[str]:
    """The modules a file imports at its top level (not inside functions)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    found = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]
    return found


def _module_of(path: Path) -> str | None:
    try:
        rel = path.relative_to(ROOT / "simhash_lab")
    except ValueError:
        return None
    return ".".join(("simhash_lab", *rel.with_suffix("").parts)).removesuffix(".__init__")


def pytest_ignore_collect(collection_path: Path, config) -> bool | None:
    path = Path(collection_path)
    if path.suffix != ".py" or path.name == "conftest.py":
        return None
    names = _imports(path)
    own = _module_of(path)
    if own is not None:
        names.append(own)
    for name in names:
        lack = _missing(name)
        if lack is not None:
            _left_out[str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)] = (
                f"{name} needs {lack}"
            )
            return True
    return None


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if _left_out:
        terminalreporter.write_sep("-", f"{len(_left_out)} files left out: their extras are not installed")
        for path, why in sorted(_left_out.items()):
            terminalreporter.write_line(f"{path}: {why}")
