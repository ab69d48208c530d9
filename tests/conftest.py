"""Shared fixtures: texts with the corner cases every fingerprinting test should meet, and the
course's modules for the tests that measure on its data (skipped without the course extra)."""

import importlib
import random
import re

import numpy as np
import pytest

EDGE_TEXTS = [
    "",
    " ",
    "\t\n  \r\n",
    "a",
    "one",
    "rust safe fast",
    "hello world",
    "Hello, World! Hello again, world.",
    "!!! ... ??? ---",
    "the the the the the the the the the the the the the the the the the the",
    "\u4f60\u597d\u4e16\u754c\uff0c\u8fd9\u662f\u4e00\u4e2a\u6d4b\u8bd5\u3002",  # Chinese
    "simhash\u662fgoogle\u7528\u6765\u5904\u7406\u6d77\u91cf\u6587\u672c\u53bb\u91cd\u7684\u7b97\u6cd5",
    "\U0001f389 emoji \U0001f389 party \U0001f468\u200d\U0001f469\u200d\U0001f467 family \u2764\ufe0f",
    "\u0130stanbul \u039f\u0394\u039f\u03a3 \u03a3\u03a3 stra\u00dfe \u1e9e KELVIN \u212a",
    "e\u0301te\u0301 cafe\u0301 na\u00efve",  # combining marks
    "\u0939\u093f\u0902\u0926\u0940 \u092d\u093e\u0937\u093e",  # Hindi: words end in vowel signs
    "\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",  # Arabic
    "zero\u200bwidth no\u00a0break ideographic\u3000space",
    "file\x1csep\x1dgroup\x1erecord\x1funit",  # Python isspace, not Unicode White_Space
    "\u00bd \u00b2 \u2463 \u2167 numbers",
    "__init__ snake_case CamelCase 3.14 1,000 e-mail",
    "...rust!! \u00a1fast! \u2014 'quoted' \u00abguillemets\u00bb",
    "Le\u00e7on: \u00ab Bonjour \u00bb, dit-il \u2014 \u00e0 l'\u00e9cole.",
]


def _doc_paragraphs(limit=60):
    from pydoc_data.topics import topics

    paras = []
    for key in sorted(topics):
        for p in re.split(r"\n\s*\n", topics[key]):
            if len(p.split()) > 8:
                paras.append(p)
    random.Random(0).shuffle(paras)
    return paras[:limit]


@pytest.fixture(scope="session")
def course():
    """``course("corpus")``: the module ``simhash_lab.course.corpus``, or a skip where the course
    extra is not installed (``make test-lib`` installs the library's extras only). Any other
    ImportError is raised: a broken course fails, it is not skipped."""

    def load(name: str):
        try:
            return importlib.import_module(f"simhash_lab.course.{name}")
        except ImportError as e:
            if "needs the course extra" not in str(e):
                raise
            pytest.skip(f"simhash_lab.course.{name}: the course extra is not installed")

    return load


@pytest.fixture(scope="session")
def texts():
    """Edge cases, real prose from Python's docs, and a few long documents."""
    prose = _doc_paragraphs()
    return EDGE_TEXTS + prose + [" ".join(prose[:20]), "\n\n".join(prose[20:40]) * 3]


@pytest.fixture
def leonsim_int64(monkeypatch):
    """The package's bit arrays widened to int64: on numpy 2 its uint8 array times a weight over
    255 overflows (its issue #74), so the comparison would be against a bug."""
    import simhash as leonsim

    orig = leonsim.Simhash._bitarray_from_bytes
    monkeypatch.setattr(
        leonsim.Simhash, "_bitarray_from_bytes", staticmethod(lambda b: orig(b).astype(np.int64))
    )
    return leonsim
