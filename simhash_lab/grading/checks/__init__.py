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

=====================================  ===============================================================
``checks/lsh_vs_crypto.py``            01: ``md5_64``, ``ideal_flips``, ``crypto_flips``, ``simhash_flips``
``checks/simhash_voting.py``           02: ``rust_safe_fast_votes``, ``rust_safe_fast_fingerprint``,
                                       ``six_bit_string``, ``six_bit_int``, ``simhash_py``, ``simhash_numba``
``checks/hamming_popcount.py``         03: ``hamming_by_hand``, ``xor_AB``, ``popcount_kernighan``,
                                       ``is_near``
``checks/charikar_hyperplanes.py``     04: ``signature``, ``estimate_theta``, ``mean_hamming``
``checks/block_index.py``              05: ``blocks``, ``pigeonhole``, ``block_index``
``checks/near_duplicates.py``          06: ``pair_distances``, ``precision_recall``, ``best_k``
``checks/_checker.py``                    answers, verdicts, ``expect_int`` and the other helpers
=====================================  ===============================================================

>>> from simhash_lab.grading import checks
>>> checks.xor_AB(0b001101)
✅ A ^ B = 0b001101: a 1 exactly where A and B differ.
>>> checks.xor_AB(0b101111)  # doctest: +ELLIPSIS
❌ xor_AB: not yet
   got:      0b101111
   hint:     That is A | B (OR); XOR is 1 only where exactly one of the two bits is 1.
"""

from __future__ import annotations

from . import block_index as _block_index
from . import charikar_hyperplanes as _charikar_hyperplanes
from . import hamming_popcount as _hamming_popcount
from . import lsh_vs_crypto as _lsh_vs_crypto
from . import near_duplicates as _near_duplicates
from . import simhash_voting as _simhash_voting
from ._checker import Answer, Exercise, Functions, Values, Verdict

#: Every exercise, by notebook name (``"03_hamming_popcount"``).
EXERCISES: dict[str, Exercise] = {
    m.EXERCISE.name: m.EXERCISE
    for m in (
        _lsh_vs_crypto,
        _simhash_voting,
        _hamming_popcount,
        _charikar_hyperplanes,
        _block_index,
        _near_duplicates,
    )
}

#: Every checker a check cell may call, by name (the answer cell's key).
CHECKS: dict[str, Answer] = {a.key: a for ex in EXERCISES.values() for a in ex.answers}
globals().update(CHECKS)

__all__ = ["CHECKS", "EXERCISES", "Answer", "Exercise", "Functions", "Values", "Verdict", "pass_line"]
__all__ += sorted(CHECKS)


def pass_line(name: str) -> str:
    """The exact stdout of a passing check cell that calls checker ``name``."""
    return CHECKS[name].pass_line()
