"""The library's public API is documented the numpydoc way (issue 28, build 6): every public function
and method of the modules a user imports has a ``Parameters`` section when it takes arguments and
a ``Returns`` (or ``Yields``) section when it returns something; a class documents its constructor
in its own docstring (``Parameters``, or ``Attributes`` for a dataclass); numpydoc's validator finds
every parameter named in its function's Parameters section, and nothing else there. ruff's ``D`` and
``ANN`` rules check the rest on the same modules (pyproject.toml)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re

import pytest

PUBLIC = [
    "simhash_lab",
    "simhash_lab.simhasher",
    "simhash_lab.hamming",
    "simhash_lab.geometry",
    "simhash_lab.presets",
    "simhash_lab.tokenize",
    "simhash_lab.index",
    "simhash_lab.index.table",
    "simhash_lab.index.design",
    "simhash_lab.dedup",
    "simhash_lab.dedup.local",
    "simhash_lab.dedup.results",
    "simhash_lab.dedup.report",
    "simhash_lab.settings",
    "simhash_lab.calibration",
    "simhash_lab.datasets",
    "simhash_lab.datasets.source",
    "simhash_lab.datasets.texts",
    "simhash_lab.datasets.jsonl",
    "simhash_lab.datasets.csv",
    "simhash_lab.datasets.parquet",
    "simhash_lab.datasets.arrow",
    "simhash_lab.datasets.files",
    "simhash_lab.chinese",
]


def _sections(doc: str | None) -> set[str]:
    return set(re.findall(r"^\s*(Parameters|Returns|Yields|Attributes)\n\s*-{3,}", doc or "", re.M))


def _public_callables():
    seen = {}
    for name in PUBLIC:
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr)
            if getattr(obj, "__module__", None) not in PUBLIC:
                continue  # documented (and checked) where it is defined
            if inspect.isclass(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
                for k, v in vars(obj).items():
                    f = getattr(v, "__func__", v)
                    if not k.startswith("_") and inspect.isfunction(f):
                        seen[f"{obj.__module__}.{obj.__qualname__}.{k}"] = f
            elif inspect.isfunction(obj):
                seen[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return seen


def _overridden(obj):
    """The method of a base class that the method ``obj`` overrides and whose docstring its own names
    (``See :meth:`Source.chunks```): its sections hold for both. None for anything else."""
    owner_name, _, name = obj.__qualname__.rpartition(".")
    owner = getattr(importlib.import_module(obj.__module__), owner_name, None)
    if not inspect.isclass(owner):
        return None
    for base in owner.__mro__[1:]:
        f = getattr(vars(base).get(name), "__func__", vars(base).get(name))
        if inspect.isfunction(f) and f":meth:`{base.__name__}.{name}`" in (obj.__doc__ or ""):
            return f
    return None


def _missing(obj) -> list[str]:
    have = _sections(obj.__doc__)
    if not inspect.isclass(obj) and (base := _overridden(obj)) is not None:
        have |= _sections(base.__doc__)
    if inspect.isclass(obj):
        if dataclasses.is_dataclass(obj):
            return [] if "Attributes" in have or not dataclasses.fields(obj) else ["Attributes"]
        if obj.__init__ is object.__init__:
            return []
        params = [p for p in inspect.signature(obj.__init__).parameters if p != "self"]
        return ["Parameters"] if params and not {"Parameters", "Attributes"} & have else []
    sig = inspect.signature(obj)
    need = []
    if [p for p in sig.parameters if p not in ("self", "cls")] and "Parameters" not in have:
        need.append("Parameters")
    if (
        sig.return_annotation not in (None, "None", inspect.Signature.empty)
        and not {"Returns", "Yields"} & have
    ):
        need.append("Returns")
    return need


def test_there_is_a_public_api_to_check():
    found = _public_callables()
    assert "simhash_lab.simhasher.Simhasher.fingerprint" in found and len(found) > 40


@pytest.mark.parametrize("name", sorted(_public_callables()))
def test_numpydoc_sections(name):
    assert _missing(_public_callables()[name]) == [], name


def _undocumented(name: str) -> list[str]:
    """numpydoc's own validator (PR01: a parameter not in the Parameters section; PR02: a name there
    that is not a parameter) on a function or method; a method whose docstring points to the one it
    overrides shares that one's sections, and a dataclass lists its fields as Attributes."""
    from numpydoc.validate import validate  # the `test` and `dev` extras install it

    obj = _public_callables()[name]
    if inspect.isclass(obj) or _overridden(obj) is not None:
        return []
    return [f"{code} {msg}" for code, msg in validate(name)["errors"] if code in ("PR01", "PR02")]


@pytest.mark.parametrize("name", sorted(_public_callables()))
def test_every_parameter_is_documented(name):
    assert _undocumented(name) == [], name
