"""XXH3 as each loop over many spans inlines it, bit for bit the ``xxhash`` package's, every length.

``fingerprint.hash_spans`` (``Simhasher``'s features, the benchmark's loop) and the shingle sets
(``verify.shingle_hashes_str``: each size class in a loop of its own) carry their own inlined
copies of XXH3, apart from ``hashes.xxh3_64`` (``test_hashes.py``): each is checked here.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import xxhash

from simhash_lab.kernels.fingerprint import hash_spans
from simhash_lab.kernels.hashes import HASH_XXH3
from simhash_lab.shingles import Shingler

LENGTHS = list(range(0, 1025)) + [1025, 2047, 2048, 2049, 4096 + 17]


@pytest.mark.parametrize("pad", [0, 1, 7])
def test_hash_spans_xxh3_every_length(pad):
    rng = random.Random(3 + pad)
    order = LENGTHS[:]
    rng.shuffle(order)  # lengths mixed, as features are: every size class after every other
    msgs = [rng.randbytes(n) for n in order]
    buf = np.frombuffer(b"\xaa" * pad + b"".join(msgs) + b"\x55" * 3, np.uint8)
    off = np.zeros(len(msgs) + 1, np.int64)
    np.cumsum([len(m) for m in msgs], out=off[1:])
    got = hash_spans(buf, off + pad, HASH_XXH3)
    assert got.tolist() == [xxhash.xxh3_64_intdigest(m) for m in msgs]


def _word(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def test_shingle_hashes_every_shingle_length():
    """Shingles of 5 to 300+ bytes (every class: <= 8, 9-16, 17-128, longer), in mixed order in one
    text and each alone, against XXH3 of the shingle's bytes."""
    rng = random.Random(5)
    texts = []
    for total in range(1, 320):  # one text per length of its single shingle's words
        a = rng.randint(1, max(1, total // 3))
        b = rng.randint(1, max(1, total // 3))
        texts.append(f"{_word(rng, a)} {_word(rng, b)} {_word(rng, max(1, total - a - b))}")
    words = [_word(rng, rng.choice([1, 2, 3, 5, 8, 13, 40, 90])) for _ in range(3000)]
    texts.append(" ".join(words))  # every class mixed within one document
    texts.append(", ".join(words[:500]).upper())  # separators of two bytes; lowered
    ind, dat = Shingler(3).sets(texts)
    for i, t in enumerate(texts):
        w = t.lower().replace(",", "").split()
        sh = {" ".join(w[j : j + 3]) for j in range(max(len(w) - 2, 1))}
        want = sorted(xxhash.xxh3_64_intdigest(s.encode()) for s in sh)
        assert dat[ind[i] : ind[i + 1]].tolist() == want, i
