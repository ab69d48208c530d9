"""Shingles of str read in place, whose tokens are copied 8 bytes at a time (kernels.verify):
every token length around the word size, every gap between tokens, against xxhash itself."""

import random

import numpy as np
import pytest
import xxhash

from simhash_lab.shingles import Shingler


def _reference(text: str, n: int) -> np.ndarray:
    """Sorted distinct XXH3-64 of the word n-shingles of ``text`` by Python (``\\w+``, lowered)."""
    import regex

    words = regex.findall(r"\w+", text.lower())
    if not words:
        return np.empty(0, np.uint64)
    sh = {" ".join(words[i : i + n]) for i in range(max(len(words) - n + 1, 1))}
    return np.array(sorted(xxhash.xxh3_64_intdigest(s.encode()) for s in sh), np.uint64)


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789é"
    gaps = [" ", ", ", " -- ", "\n\n", "; ", ".  \t ", "!!!!!!!!  ", " " * 17]
    out = []
    for _ in range(150):  # > 64 texts: in threads, chunks of 64
        nwords = rng.randint(1, 60)
        words = ["".join(rng.choice(letters) for _ in range(rng.randint(1, 40))) for _ in range(nwords)]
        parts = [words[0]]
        for w in words[1:]:
            parts += [rng.choice(gaps), w]
        out.append(rng.choice(["", "  ", "¿"]) + "".join(parts) + rng.choice(["", ".", " \n"]))
    return out


@pytest.mark.parametrize("n", [1, 3])
def test_every_token_length_and_gap_gives_the_shingles_of_python(n):
    texts = _texts(n) + ["x" * k for k in range(1, 26)] + [" ".join("y" * k for k in range(1, 26))]
    indptr, data = Shingler(n).sets(texts)
    for i, t in enumerate(texts):
        assert np.array_equal(data[indptr[i] : indptr[i + 1]], _reference(t, n)), (i, t[:80])
