"""simhash-lab: Simhash and locality-sensitive hashing, fast and exact, with a course around it.

>>> from simhash_lab import Simhasher, hamming
>>> h = Simhasher()
>>> hamming(h.fingerprint("simhash finds near duplicates"), h.fingerprint("simhash finds near-duplicates"))
0

The public names load on first use (PEP 562), so that ``import simhash_lab.grading`` or
``simhash_lab.course`` does not load Numba; ``from simhash_lab import Simhasher`` works as usual.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the module that defines it
_EXPORTS = {
    "DedupResult": "dedup",
    "SimhashIndex": "index",
    "Simhasher": "simhasher",
    "TableDesign": "index",
    "Tokenizer": "tokenize",
    "Trace": "simhasher",
    "dedup_files": "dedup",
    "dedup_table": "dedup",
    "dedup_texts": "dedup",
    "design_tables": "index",
    "expected_hamming": "geometry",
    "hyperplane_signatures": "geometry",
    "manku_example_3_1": "index",
}
_SUBMODULES = {"presets"}

# `hamming` is both a submodule and a function: bind the function now (its module is light: it loads
# the Numba kernels on first call), so that importing the submodule later cannot shadow it
from .hamming import hamming, is_near, popcount  # noqa: E402

__all__ = [
    "DedupResult",
    "SimhashIndex",
    "Simhasher",
    "TableDesign",
    "Tokenizer",
    "Trace",
    "dedup_files",
    "dedup_table",
    "dedup_texts",
    "design_tables",
    "expected_hamming",
    "hamming",
    "hyperplane_signatures",
    "is_near",
    "manku_example_3_1",
    "popcount",
    "presets",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # for type checkers and editors: the same names, imported eagerly
    from . import presets
    from .dedup import DedupResult, dedup_files, dedup_table, dedup_texts
    from .geometry import expected_hamming, hyperplane_signatures
    from .index import SimhashIndex, TableDesign, design_tables, manku_example_3_1
    from .simhasher import Simhasher, Trace
    from .tokenize import Tokenizer
