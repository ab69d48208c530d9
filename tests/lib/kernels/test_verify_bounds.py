"""The shingle kernels' scratch (``verify.shingle_hashes_str``: the size classes' lists, the sort's
buffer and counters; ``verify.doc_shingle_hashes``; ``sort.sort_hashes``) is big enough: run with
``NUMBA_BOUNDSCHECK=1`` (a subprocess with its own empty cache, as ``test_bounds.py``) on the texts
that reach each bound: a shingle per word ("a a a ..."), runs of 63, 64 and 65 shingles (the
sort's size classes), words of every XXH3 size class, lowercase that grows in UTF-8, astral
characters. A counter array one entry short must fail there, so the check can fail.
"""

from __future__ import annotations

import textwrap

SCRIPT = textwrap.dedent(
    r"""
    import numpy as np
    from simhash_lab.shingles import Shingler
    from simhash_lab.simhasher import utf8_batch
    from simhash_lab.kernels.sort import sort_hashes

    texts = ["", "a", "a b", "a b c"]
    for n in (1, 2, 3, 62, 63, 64, 65, 66, 127, 128, 129, 300, 4100):
        texts.append("a " * n)
        texts.append(" ".join(f"w{i}" for i in range(n)))
        texts.append(" ".join(("x" * (1 + i % 150)) for i in range(n)))  # every size class
    texts += ["Ⱥ" * 333, "ⱥȺ " * 100, "\U00010400 " * 70, "İ b c d " * 20, "x" * 5000]
    for n in (1, 2, 3, 5):
        sh = Shingler(n)
        sh.sets(texts)  # from str in place
        sh.sets([t for t in texts if "İ" not in t] * 2)
        sh._sets(*utf8_batch(texts, True))  # the UTF-8 batch
    # the check itself: a counter array one entry short must fail (2 m + 1 is tight at a power of 2)
    m = 128
    a = np.random.default_rng(0).integers(0, 2**64, m, dtype=np.uint64)
    try:
        sort_hashes(a, np.empty(m, np.uint64), np.empty(2 * m, np.int64), m)
    except IndexError:
        print("short buffer caught")
    print("bounds ok")
    """
)


def test_shingle_scratch_bounds_hold_with_bounds_checks_on(run_bounds_checked):
    run_bounds_checked(SCRIPT)
