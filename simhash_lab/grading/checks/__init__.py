"""The exercises' checkers: one module per exercise, named after it without its number.

A check cell is one call, ``checks.NAME()``: it reads the answer's names from the notebook (a name
not set yet is a ❌ too), judges the answer in the learner's kernel and prints one line,
``✅ <message>``, or a ❌ block that a learner can act on::

    ❌ md5_64: not yet
       expected: 13163702389499390377
       got:      9217391838298471117
       hint:     You took the last 16 hex digits; the seed takes the first 16 ([:16]).

It never raises, so Run All goes on past a wrong answer. That verdict is feedback only:
``simhash-lab grade`` judges the same answers again, in its own process, from what a sandboxed run
of the notebook exported, on cases the notebook does not show (see :mod:`simhash_lab.grading`).
The answers worked out by hand are never shown in a ❌.

Every module here not named ``_*`` is an exercise's, found by this package (nothing to register):
it defines ``EXERCISE``, an :class:`Exercise` named after its notebook (``"03_hamming_popcount"``)
whose answers give the checkers' names (each used once in the course). ``checks/_checker.py`` holds
the answers, verdicts, ``expect_int`` and the other helpers.

>>> from simhash_lab.grading import checks
>>> [a.key for a in checks.EXERCISES["04_charikar_hyperplanes"].answers]
['signature', 'estimate_theta', 'mean_hamming']

>>> checks.xor_AB(0b001101)
✅ A ^ B = 0b001101: a 1 exactly where A and B differ.
>>> checks.xor_AB(0b101111)  # doctest: +ELLIPSIS
❌ xor_AB: not yet
   got:      0b101111
   hint:     That is A | B (OR); XOR is 1 only where exactly one of the two bits is 1.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._checker import Answer, Exercise, Functions, Values, Verdict


def _discover() -> dict[str, Exercise]:
    """Every exercise module of this package (a name without a leading ``_``), by its
    ``EXERCISE.name``, in notebook order."""
    found: dict[str, Exercise] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        ex = getattr(module, "EXERCISE", None)
        if not isinstance(ex, Exercise):
            raise ImportError(
                f"{module.__name__}: an exercise's checker module defines EXERCISE = Exercise(...); "
                "a helper module's name starts with _"
            )
        if ex.name in found:
            raise ImportError(f"{module.__name__}: exercise {ex.name!r} is defined twice")
        found[ex.name] = ex
    return dict(sorted(found.items()))


#: Every exercise, by notebook name (``"03_hamming_popcount"``), in notebook order.
EXERCISES: dict[str, Exercise] = _discover()

#: Every checker a check cell may call, by name (the answer cell's key).
CHECKS: dict[str, Answer] = {}
for _answer in (a for ex in EXERCISES.values() for a in ex.answers):
    if CHECKS.setdefault(_answer.key, _answer) is not _answer:
        raise ImportError(f"the answer key {_answer.key!r} is used by two exercises")
del _answer
globals().update(CHECKS)

__all__ = ["CHECKS", "EXERCISES", "Answer", "Exercise", "Functions", "Values", "Verdict", "pass_line"]
__all__ += sorted(CHECKS)


def pass_line(name: str, lang: str | None = None) -> str:
    """The exact stdout of a passing check cell that calls checker ``name`` (in ``lang``: a
    Spanish notebook's check prints its Spanish line)."""
    return CHECKS[name].pass_line(lang)
