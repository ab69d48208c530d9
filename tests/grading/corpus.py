# ruff: noqa: E501  (the corpora are learners' code, written as they would)
"""The corpora of issue 43: honest answers in many styles (every one must get full marks) and known
cheats (every one must fail the answer it cheats), for every answer of every exercise.

A module beside the tests (like ``liars.py``; ``tests/grading/conftest.py`` puts this folder on
``sys.path``), read by ``test_grader_corpus.py``, which runs every entry through the notebook's
check cells, ``simhash-lab check`` and ``simhash-lab grade``, in English and in Spanish.

An entry is an answer cell's source, or an :class:`Own` (the answer cell, and cells of the learner's
own put just above it: a helper, an import). ``HONEST[exercise][key]`` lists at least 8
independent correct implementations of each answer, in different styles (the ones issues 43 and 47
report as refused among them); notebook *i* of an exercise takes the *i*-th of each answer (the
last one again where an answer has fewer). ``CHEATS[exercise]`` lists notebooks, each an honest
notebook with some answers replaced by cheats: ``(name, {key: source}, {key: hint fragment})``,
the keys that must fail and a fragment of the hint each must give (empty: any hint).
"""

from __future__ import annotations

import dataclasses
import textwrap


@dataclasses.dataclass(frozen=True)
class Own:
    """An answer cell's source with cells of the learner's own above it."""

    source: str
    cells: tuple[str, ...]


def _s(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def own(source: str, *cells: str) -> Own:
    return Own(_s(source), tuple(_s(c) for c in cells))


# -- 01 ---------------------------------------------------------------------------------------------

_01 = {
    "md5_64": [
        _s("""
            def md5_64(text: str) -> int:
                return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:16], 16)
        """),
        _s("""
            def md5_64(text):
                return int.from_bytes(hashlib.md5(text.encode()).digest()[:8], "big")
        """),
        _s("""
            import struct

            def md5_64(text):
                (value,) = struct.unpack(">Q", hashlib.md5(text.encode("utf-8")).digest()[:8])
                return value
        """),
        _s("""
            def md5_64(text):
                return int(hashlib.md5(bytes(text, "utf-8")).hexdigest(), 16) >> 64
        """),
        _s("""
            def md5_64(text):
                v = 0
                for byte in hashlib.md5(text.encode("utf-8")).digest()[:8]:
                    v = (v << 8) | byte
                return v
        """),
        own(
            """
            def md5_64(text):
                return int(first_hex(text, 16), 16)
            """,
            """
            def first_hex(text, n):
                return hashlib.new("md5", text.encode("utf-8")).hexdigest()[:n]
            """,
        ),
        _s("""
            import numpy as np

            def md5_64(text):
                return int(np.frombuffer(hashlib.md5(text.encode()).digest()[:8], dtype=">u8")[0])
        """),
        _s("""
            from functools import reduce

            md5_64 = lambda text: reduce(lambda a, b: a * 256 + b, hashlib.md5(text.encode()).digest()[:8], 0)
        """),
        _s("""
            import codecs

            def md5_64(text):
                digest = hashlib.md5(text.encode("utf-8")).digest()
                return int(codecs.encode(digest[:8], "hex"), 16)
        """),
    ],
    "ideal_flips": [
        "ideal_flips = 64 * 0.5\n",
        "ideal_flips = 32\n",
        "ideal_flips = 32.0\n",
        "ideal_flips = 64 / 2\n",
        "ideal_flips = sum(0.5 for _bit in range(64))\n",
        "import numpy as np\n\nideal_flips = float(np.full(64, 0.5).sum())\n",
        "ideal_flips = 64 * (1 / 2)\n",
        "ideal_flips = 2**5\n",
        "from fractions import Fraction\n\nideal_flips = float(64 * Fraction(1, 2))\n",
    ],
    "crypto_flips": [
        _s("""
            def crypto_flips(pairs) -> float:
                return sum(hamming(md5_64(a), md5_64(b)) for a, b in pairs) / len(pairs)
        """),
        _s("""
            import statistics

            def crypto_flips(pairs):
                return statistics.mean(hamming(md5_64(a), md5_64(b)) for a, b in pairs)
        """),
        _s("""
            import numpy as np

            def crypto_flips(pairs):
                return float(np.mean([hamming(md5_64(a), md5_64(b)) for a, b in pairs]))
        """),
        _s("""
            def crypto_flips(pairs):
                total = 0
                n = 0
                for a, b in pairs:
                    total += bin(md5_64(a) ^ md5_64(b)).count("1")
                    n += 1
                return total / n
        """),
        own(
            """
            def crypto_flips(pairs):
                return sum(distance(a, b) for a, b in pairs) / len(pairs)
            """,
            """
            def distance(a, b):
                return (md5_64(a) ^ md5_64(b)).bit_count()
            """,
        ),
        _s("""
            def crypto_flips(pairs):
                return sum(map(lambda p: hamming(md5_64(p[0]), md5_64(p[1])), pairs)) / len(pairs)
        """),
        _s("""
            def crypto_flips(pairs):
                firsts, seconds = zip(*pairs)
                ds = [hamming(x, y) for x, y in zip(map(md5_64, firsts), map(md5_64, seconds))]
                return sum(ds) / len(ds)
        """),
        _s("""
            def crypto_flips(pairs):
                def total(rest):
                    if not rest:
                        return 0
                    (a, b), *others = rest
                    return hamming(md5_64(a), md5_64(b)) + total(others)
                return total(list(pairs)) / len(pairs)
        """),
    ],
    "simhash_flips": [
        _s("""
            def simhash_flips(pairs) -> float:
                h = Simhasher()
                return sum(hamming(h.fingerprint(a), h.fingerprint(b)) for a, b in pairs) / len(pairs)
        """),
        _s("""
            import numpy as np

            def simhash_flips(pairs):
                h = Simhasher()
                fa = h.fingerprints([a for a, _ in pairs])
                fb = h.fingerprints([b for _, b in pairs])
                return float(np.mean(hamming(fa, fb)))
        """),
        _s("""
            def simhash_flips(pairs):
                total = 0
                for a, b in pairs:
                    total += hamming(Simhasher().fingerprint(a), Simhasher().fingerprint(b))
                return total / len(pairs)
        """),
        _s("""
            import statistics
            from simhash_lab import presets

            def simhash_flips(pairs):
                fp = presets.DEFAULT.fingerprint
                return statistics.fmean(bin(fp(a) ^ fp(b)).count("1") for a, b in pairs)
        """),
        own(
            """
            def simhash_flips(pairs):
                return mean_distance(pairs, Simhasher().fingerprint)
            """,
            """
            def mean_distance(pairs, fingerprint):
                return sum(hamming(fingerprint(a), fingerprint(b)) for a, b in pairs) / len(pairs)
            """,
        ),
        _s("""
            def simhash_flips(pairs):
                h = Simhasher(bits=64)
                fps = h.fingerprints([t for pair in pairs for t in pair])
                return float(hamming(fps[0::2], fps[1::2]).sum()) / len(pairs)
        """),
        _s("""
            def simhash_flips(pairs):
                h = Simhasher()
                ds = list(map(lambda p: int(h.fingerprint(p[0]) ^ h.fingerprint(p[1])).bit_count(), pairs))
                return sum(ds) / len(ds)
        """),
        _s("""
            def simhash_flips(pairs):
                hasher = Simhasher()
                seen = {}
                def fp(text):
                    if text not in seen:
                        seen[text] = hasher.fingerprint(text)
                    return seen[text]
                return sum(hamming(fp(a), fp(b)) for a, b in pairs) / len(pairs)
        """),
    ],
}

# -- 02 ---------------------------------------------------------------------------------------------

_02 = {
    "rust_safe_fast_votes": [
        "V_rust_safe_fast = [3, 1, 1, -3]\n",
        "V_rust_safe_fast = (3, 1, 1, -3)\n",
        _s("""
            V_rust_safe_fast = [0, 0, 0, 0]
            for h in data.rust_safe_fast_hashes().values():
                for i in range(4):
                    V_rust_safe_fast[i] += 1 if (h >> i) & 1 else -1
        """),
        _s("""
            _hashes = list(data.rust_safe_fast_hashes().values())
            V_rust_safe_fast = [sum(1 if h >> i & 1 else -1 for h in _hashes) for i in range(4)]
        """),
        _s("""
            V_rust_safe_fast = [
                int(v) for v in Simhasher(bits=4, hash=data.rust_safe_fast_hashes()).accumulators("rust safe fast")
            ]
        """),
        _s("""
            _bits = np.array([[(h >> i) & 1 for i in range(4)] for h in data.rust_safe_fast_hashes().values()])
            V_rust_safe_fast = (2 * _bits - 1).sum(axis=0).tolist()
        """),
        "V_rust_safe_fast = [1 + 1 + 1, 1 - 1 + 1, -1 + 1 + 1, -1 - 1 - 1]\n",
        own(
            "V_rust_safe_fast = votes(data.rust_safe_fast_hashes().values(), 4)\n",
            """
            def votes(hashes, bits):
                return [sum(1 if (h >> i) & 1 else -1 for h in hashes) for i in range(bits)]
            """,
        ),
    ],
    "rust_safe_fast_fingerprint": [
        "fp_rust_safe_fast = 0b0111\n",
        "fp_rust_safe_fast = 7\n",
        "fp_rust_safe_fast = sum(1 << i for i, v in enumerate(V_rust_safe_fast) if v > 0)\n",
        "fp_rust_safe_fast = Simhasher(bits=4, hash=data.rust_safe_fast_hashes()).fingerprint('rust safe fast')\n",
        "fp_rust_safe_fast = int('0111', 2)\n",
        "fp_rust_safe_fast = 0x7\n",
        _s("""
            fp_rust_safe_fast = 0
            for i, v in enumerate(V_rust_safe_fast):
                if v > 0:
                    fp_rust_safe_fast |= 1 << i
        """),
        "fp_rust_safe_fast = int(''.join('1' if v > 0 else '0' for v in reversed(V_rust_safe_fast)), 2)\n",
    ],
    "six_bit_string": [
        "six_bits = '110001'\n",
        "six_bits = ''.join('1' if v > 0 else '0' for v in data.six_accumulators())\n",
        "six_bits = '0b110001'\n",
        "six_bits = str(110001)\n",
        "six_bits = ''.join(map(lambda v: '1' if v > 0 else '0', [13, 108, -22, -5, -32, 55]))\n",
        "six_bits = ''.join(str(int(v > 0)) for v in data.SIX_ACCUMULATORS)\n",
        "six_bits = ''.join(np.where(np.array(data.six_accumulators()) > 0, '1', '0'))\n",
        "six_bits = ' 110001 '\n",
    ],
    "six_bit_int": [
        "six_bit_fp = 0b100011\n",
        "six_bit_fp = 35\n",
        "six_bit_fp = int(six_bits.strip().removeprefix('0b')[::-1], 2)\n",
        "six_bit_fp = sum(2**i for i, v in enumerate(data.six_accumulators()) if v > 0)\n",
        "six_bit_fp = 0x23\n",
        "six_bit_fp = 1 + 2 + 32\n",
        "from functools import reduce\n\nsix_bit_fp = reduce(lambda acc, v: acc * 2 + (v > 0), reversed(data.six_accumulators()), 0)\n",
        "six_bit_fp = int(np.sum((np.array(data.six_accumulators()) > 0) * 2 ** np.arange(6)))\n",
    ],
    "simhash_py": [
        _s("""
            def simhash_py(features, bits=64):
                V = [0.0] * bits
                for h, w in features:
                    for i in range(bits):
                        V[i] += w if (h >> i) & 1 else -w
                fp = 0
                for i in range(bits):
                    if V[i] > 0:
                        fp |= 1 << i
                return fp
        """),
        _s("""
            def simhash_py(features, bits=64):
                V = [sum(w if (h >> i) & 1 else -w for h, w in features) for i in range(bits)]
                return sum(1 << i for i, v in enumerate(V) if v > 0)
        """),
        _s("""
            from collections import defaultdict

            def simhash_py(features, bits=64):
                V = defaultdict(float)
                for h, w in features:
                    for i in range(bits):
                        V[i] += w * (1 if h >> i & 1 else -1)
                return sum(2**i for i in range(bits) if V[i] > 0)
        """),
        _s("""
            def simhash_py(features, bits=64):
                V = [0] * bits
                for h, w in features:
                    for i, digit in enumerate(reversed(format(h, f"0{bits}b"))):
                        V[i] += w if digit == "1" else -w
                return int("".join("1" if v > 0 else "0" for v in reversed(V)) or "0", 2)
        """),
        own(
            """
            def simhash_py(features, bits=64):
                V = [0.0] * bits
                for h, w in features:
                    vote(V, h, w)
                return fingerprint_of(V)
            """,
            """
            def vote(V, h, w):
                for i in range(len(V)):
                    V[i] += w if (h >> i) & 1 else -w


            def fingerprint_of(V):
                return sum(1 << i for i, v in enumerate(V) if v > 0)
            """,
        ),
        _s("""
            def simhash_py(features, bits=64):
                if not features:
                    return 0
                H = np.array([[(h >> i) & 1 for i in range(bits)] for h, _ in features], dtype=np.float64)
                W = np.array([w for _, w in features], dtype=np.float64)
                V = ((2 * H - 1) * W[:, None]).sum(axis=0)
                return sum(1 << i for i in range(bits) if V[i] > 0)
        """),
        _s("""
            def simhash_py(features, bits=64):
                V = [0.0] * bits
                for h, w in features:
                    i = 0
                    while i < bits:
                        h, bit = divmod(h, 2)
                        V[i] = V[i] + w if bit else V[i] - w
                        i += 1
                fp = 0
                for i in reversed(range(bits)):
                    fp = fp * 2 + (V[i] > 0)
                return fp
        """),
        _s("""
            from functools import reduce

            def simhash_py(features, bits=64):
                def add(V, feature):
                    h, w = feature
                    return [v + (w if h >> i & 1 else -w) for i, v in enumerate(V)]
                V = reduce(add, features, [0.0] * bits)
                return reduce(lambda fp, i: fp | (V[i] > 0) << i, range(bits), 0)
        """),
    ],
    "simhash_numba": [
        _s("""
            @njit
            def simhash_numba(hashes, weights, bits):
                V = np.zeros(64, dtype=np.float64)
                one = np.uint64(1)
                for j in range(hashes.shape[0]):
                    h, w = hashes[j], weights[j]
                    for i in range(bits):
                        if (h >> np.uint64(i)) & one:
                            V[i] += w
                        else:
                            V[i] -= w
                fp = np.uint64(0)
                for i in range(bits):
                    if V[i] > 0:
                        fp |= one << np.uint64(i)
                return fp
        """),
        _s("""
            import numba

            @numba.njit
            def simhash_numba(hashes, weights, bits):
                V = np.zeros(bits)
                for h, w in zip(hashes, weights):
                    for i in range(bits):
                        V[i] += w if (h >> np.uint64(i)) & np.uint64(1) else -w
                fp = np.uint64(0)
                for i in range(bits):
                    if V[i] > 0:
                        fp += np.uint64(1) << np.uint64(i)
                return fp
        """),
        _s("""
            from numba import jit

            @jit(nopython=True)
            def simhash_numba(hashes, weights, bits):
                V = np.empty(64)
                V[:] = 0.0
                n = len(hashes)
                j = 0
                while j < n:
                    for i in range(bits):
                        bit = (hashes[j] >> np.uint64(i)) & np.uint64(1)
                        V[i] += weights[j] * (2.0 * bit - 1.0)
                    j += 1
                fp = np.uint64(0)
                for i in range(bits - 1, -1, -1):
                    fp = fp * np.uint64(2) + np.uint64(V[i] > 0)
                return fp
        """),
        own(
            """
            @njit
            def simhash_numba(hashes, weights, bits):
                V = np.zeros(64)
                for j in range(hashes.shape[0]):
                    vote_nb(V, hashes[j], weights[j], bits)
                return to_fingerprint(V, bits)
            """,
            """
            @njit
            def vote_nb(V, h, w, bits):
                for i in range(bits):
                    if (h >> np.uint64(i)) & np.uint64(1):
                        V[i] += w
                    else:
                        V[i] -= w


            @njit
            def to_fingerprint(V, bits):
                fp = np.uint64(0)
                for i in range(bits):
                    if V[i] > 0:
                        fp |= np.uint64(1) << np.uint64(i)
                return fp
            """,
        ),
        _s("""
            @njit("uint64(uint64[:], float64[:], int64)")
            def simhash_numba(hashes, weights, bits):
                V = np.zeros(64)
                for j in range(hashes.shape[0]):
                    for i in range(bits):
                        if (hashes[j] >> np.uint64(i)) & np.uint64(1):
                            V[i] += weights[j]
                        else:
                            V[i] -= weights[j]
                fp = np.uint64(0)
                for i in range(bits):
                    if V[i] > 0:
                        fp |= np.uint64(1) << np.uint64(i)
                return fp
        """),
        _s("""
            @njit(cache=False)
            def simhash_numba(hashes, weights, bits):
                positive = np.zeros(64)
                negative = np.zeros(64)
                for j in range(hashes.shape[0]):
                    for i in range(bits):
                        if (hashes[j] >> np.uint64(i)) & np.uint64(1) == np.uint64(1):
                            positive[i] += weights[j]
                        else:
                            negative[i] += weights[j]
                fp = np.uint64(0)
                for i in range(bits):
                    if positive[i] > negative[i]:
                        fp |= np.uint64(1) << np.uint64(i)
                return fp
        """),
        _s("""
            @njit
            def simhash_numba(hashes, weights, bits):
                V = np.zeros(64)
                mask = np.uint64(1)
                for i in range(bits):
                    for j in range(hashes.shape[0]):
                        V[i] += weights[j] if hashes[j] & mask else -weights[j]
                    mask = mask << np.uint64(1)
                fp = np.uint64(0)
                bit = np.uint64(1)
                for i in range(bits):
                    if V[i] > 0.0:
                        fp = fp | bit
                    bit = bit << np.uint64(1)
                return fp
        """),
        _s("""
            @njit
            def simhash_numba(hashes, weights, bits):
                signs = np.zeros((hashes.shape[0], 64))
                for j in range(hashes.shape[0]):
                    for i in range(bits):
                        signs[j, i] = 1.0 if (hashes[j] >> np.uint64(i)) & np.uint64(1) else -1.0
                V = (signs * weights.reshape(-1, 1)).sum(axis=0) if hashes.shape[0] else np.zeros(64)
                fp = np.uint64(0)
                for i in range(bits):
                    if V[i] > 0:
                        fp |= np.uint64(1) << np.uint64(i)
                return fp
        """),
    ],
}

# -- 03 ---------------------------------------------------------------------------------------------

_03 = {
    "hamming_by_hand": [
        "d_AB = 3\nd_CD = 2\n",
        "d_AB, d_CD = 3, 2\n",
        "d_AB = bin(0b100111 ^ 0b101010).count('1')\nd_CD = bin(0b1011101 ^ 0b1001001).count('1')\n",
        _s("""
            from simhash_lab.grading import data

            (a, b), (c, d) = data.hamming_pairs()
            d_AB = (a ^ b).bit_count()
            d_CD = (c ^ d).bit_count()
        """),
        "from simhash_lab import hamming\n\nd_AB = hamming(0b100111, 0b101010)\nd_CD = hamming(0b1011101, 0b1001001)\n",
        "d_AB = sum(x != y for x, y in zip('100111', '101010'))\nd_CD = sum(x != y for x, y in zip('1011101', '1001001'))\n",
        "d_AB = 1 + 1 + 1  # columns 0, 2, 3\nd_CD = 1 + 1\n",
        own(
            "d_AB = differing('100111', '101010')\nd_CD = differing('1011101', '1001001')\n",
            """
            def differing(a, b):
                return len([1 for x, y in zip(a, b) if x != y])
            """,
        ),
    ],
    "xor_AB": [
        "xor_AB = 0b001101\n",
        "xor_AB = 13\n",
        "xor_AB = 0b100111 ^ 0b101010\n",
        "xor_AB = int('001101', 2)\n",
        "xor_AB = 0xD\n",
        "from simhash_lab.grading import data\n\n(_a, _b), _ = data.hamming_pairs()\nxor_AB = _a ^ _b\n",
        "xor_AB = int(''.join('1' if x != y else '0' for x, y in zip('100111', '101010')), 2)\n",
        "xor_AB = 0b1101\n",
    ],
    "popcount_kernighan": [
        _s("""
            def popcount_kernighan(x: int) -> int:
                count = 0
                while x:
                    x &= x - 1
                    count += 1
                return count
        """),
        # issue 43: the step in the condition, with the walrus
        _s("""
            def popcount_kernighan(x):
                count = 1 if x else 0
                while (x := x & (x - 1)) != 0:
                    count += 1
                return count
        """),
        _s("""
            def popcount_kernighan(x):
                n = 0
                while x > 0:
                    x -= x & -x
                    n = n + 1
                return n
        """),
        _s("""
            def popcount_kernighan(x):
                if x == 0:
                    return 0
                return 1 + popcount_kernighan(x & (x - 1))
        """),
        _s("""
            import itertools

            def popcount_kernighan(x):
                for steps in itertools.count():
                    if not x:
                        break
                    x ^= x & -x
                else:
                    steps = -1
                return steps
        """),
        own(
            """
            def popcount_kernighan(x):
                return sum(1 for _ in lowest_bits(x))
            """,
            """
            def lowest_bits(x):
                while x:
                    low = x & -x
                    yield low
                    x = x ^ low
            """,
        ),
        _s("""
            import numpy as np

            def popcount_kernighan(x):
                v = np.uint64(x)
                c = 0
                while v:
                    v &= v - np.uint64(1)
                    c += 1
                return c
        """),
        _s("""
            def popcount_kernighan(x):
                count = 0
                while True:
                    if x == 0:
                        return count
                    x, count = x & (x - 1), count + 1
        """),
        own(
            """
            def popcount_kernighan(x):
                c = 0
                while x:
                    x = clear_lowest(x)
                    c += 1
                return c
            """,
            """
            def clear_lowest(x):
                return x & (x - 1)
            """,
        ),
    ],
    "is_near": [
        _s("""
            def is_near(a: int, b: int, k: int = 3) -> bool:
                x = a ^ b
                count = 0
                while x and count <= k:
                    x &= x - 1
                    count += 1
                return count <= k
        """),
        _s("""
            def is_near(a, b, k=3):
                x, c = a ^ b, 0
                while x:
                    x &= x - 1
                    c += 1
                    if c > k:
                        return False
                return True
        """),
        _s("""
            def is_near(a, b, k=3):
                x = a ^ b
                if x == 0:
                    return True
                if k == 0:
                    return False
                return is_near(x & (x - 1), 0, k - 1)
        """),
        _s("""
            def is_near(a, b, k=3):
                x = a ^ b
                for _ in range(k):
                    if not x:
                        return True
                    x -= x & -x
                return x == 0
        """),
        own(
            """
            def is_near(a, b, k=3):
                return differing_bits(a ^ b, k + 1) <= k
            """,
            """
            def differing_bits(x, limit):
                n = 0
                while x and n < limit:
                    x &= x - 1
                    n += 1
                return n
            """,
        ),
        _s("""
            import numpy as np

            def is_near(a, b, k=3):
                x = np.uint64(a) ^ np.uint64(b)
                steps = 0
                while x != 0:
                    if steps == k:
                        return False
                    x &= x - np.uint64(1)
                    steps += 1
                return True
        """),
        _s("""
            def is_near(a, b, k=3):
                x = a ^ b
                seen = 0
                while (x := x & (x - 1) if seen else x) and seen <= k:
                    seen += 1
                return seen <= k
        """),
        _s("""
            def is_near(a, b, k=3):
                x = a ^ b
                budget = k
                while x:
                    if budget < 0:
                        break
                    x &= x - 1
                    budget -= 1
                return budget >= 0
        """),
    ],
}

# -- 04 ---------------------------------------------------------------------------------------------

_04 = {
    "signature": [
        _s("""
            def signature(u, R) -> int:
                sig = 0
                for i, r in enumerate(R):
                    if r @ u >= 0:
                        sig |= 1 << i
                return sig
        """),
        _s("""
            def signature(u, R):
                return sum(1 << int(i) for i in np.nonzero(R @ u >= 0)[0])
        """),
        _s("""
            def signature(u, R):
                dots = np.dot(R, u)
                return int("".join("1" if d >= 0 else "0" for d in dots[::-1]) or "0", 2)
        """),
        _s("""
            def signature(u, R):
                sig = 0
                for i in range(R.shape[0] - 1, -1, -1):
                    sig = sig * 2 + int(float(np.dot(R[i], u)) >= 0)
                return sig
        """),
        own(
            """
            def signature(u, R):
                return bits_to_int(R @ u >= 0)
            """,
            """
            def bits_to_int(flags):
                return sum(2**i for i, f in enumerate(flags) if f)
            """,
        ),
        _s("""
            from functools import reduce

            def signature(u, R):
                return reduce(lambda s, i: s | (1 << i) if sum(R[i] * u) >= 0 else s, range(len(R)), 0)
        """),
        _s("""
            def signature(u, R):
                sig = np.uint64(0)
                for i in range(len(R)):
                    if R[i].dot(u) >= 0:
                        sig |= np.uint64(1) << np.uint64(i)
                return sig
        """),
        _s("""
            import math

            def signature(u, R):
                out = 0
                for i, row in enumerate(R.tolist()):
                    if math.fsum(a * b for a, b in zip(row, u.tolist())) >= 0:
                        out += 2**i
                return out
        """),
    ],
    "estimate_theta": [
        "def estimate_theta(d, bits=64):\n    return np.pi * d / bits\n",
        "import math\n\ndef estimate_theta(d, bits=64):\n    return math.pi * d / bits\n",
        "def estimate_theta(d, bits=64):\n    return d / bits * np.pi\n",
        "import math\n\ndef estimate_theta(d, bits=64):\n    return math.radians(180 * d / bits)\n",
        "def estimate_theta(d, bits=64):\n    return float(np.deg2rad(180.0 * d / bits))\n",
        "import math\n\nestimate_theta = lambda d, bits=64: math.tau * d / (2 * bits)\n",
        "def estimate_theta(d, bits=64):\n    return np.arccos(-1.0) * d / bits\n",
        "def estimate_theta(d, bits=64):\n    fraction = d / bits\n    return fraction * 3.141592653589793\n",
    ],
    "mean_hamming": [
        _s("""
            def mean_hamming(u, v) -> float:
                ds = []
                for seed in range(200):
                    s = hyperplane_signatures(np.stack([u, v]), 64, seed)
                    ds.append(hamming(int(s[0]), int(s[1])))
                return sum(ds) / len(ds)
        """),
        _s("""
            def mean_hamming(u, v):
                X = np.stack([u, v])
                return float(np.mean([hamming(*(int(s) for s in hyperplane_signatures(X, 64, seed))) for seed in range(200)]))
        """),
        _s("""
            def mean_hamming(u, v):
                total = 0
                for seed in range(200):
                    R = hyperplanes(u.shape[0], 64, seed)
                    total += hamming(signature(u, R), signature(v, R))
                return total / 200
        """),
        _s("""
            import statistics

            def mean_hamming(u, v):
                def d(seed):
                    a, b = hyperplane_signatures(np.vstack([u, v]), 64, seed)
                    return bin(int(a) ^ int(b)).count("1")
                return statistics.mean(d(seed) for seed in range(200))
        """),
        own(
            """
            def mean_hamming(u, v):
                return average(distance_for(u, v, seed) for seed in range(200))
            """,
            """
            def distance_for(u, v, seed):
                s = hyperplane_signatures(np.stack([u, v]), 64, seed)
                return hamming(int(s[0]), int(s[1]))


            def average(values):
                values = list(values)
                return sum(values) / len(values)
            """,
        ),
        _s("""
            def mean_hamming(u, v):
                sigs = [hyperplane_signatures(np.stack([u, v]), 64, seed) for seed in range(200)]
                return float(hamming(np.array([s[0] for s in sigs]), np.array([s[1] for s in sigs])).mean())
        """),
        _s("""
            def mean_hamming(u, v):
                seed, total = 0, 0
                while seed < 200:
                    s = hyperplane_signatures(np.stack([u, v]), 64, seed)
                    total += (int(s[0]) ^ int(s[1])).bit_count()
                    seed += 1
                return total / seed
        """),
        _s("""
            def mean_hamming(u, v):
                return sum(map(lambda seed: hamming(*map(int, hyperplane_signatures(np.stack([u, v]), 64, seed))), range(200))) / 200
        """),
    ],
}

# -- 05 ---------------------------------------------------------------------------------------------

_INDEX = _s("""
    def build_tables(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables


    def query(tables, fps, q, k):
        candidates = set()
        for j, b in enumerate(blocks(q)):
            candidates.update(tables[j].get(b, []))
        return sorted(i for i in candidates if hamming(fps[i], q) <= k)
""")

_05 = {
    "blocks": [
        _s("""
            def blocks(fp: int) -> list[int]:
                return [(fp >> (16 * j)) & 0xFFFF for j in range(4)]
        """),
        # issue 43: divmod
        _s("""
            def blocks(fp):
                out = []
                for _ in range(4):
                    fp, low = divmod(fp, 1 << 16)
                    out.append(low)
                return out
        """),
        # issue 47: NumPy in blocks
        _s("""
            import numpy as np

            def blocks(fp):
                v = np.uint64(fp)
                return [int((v >> np.uint64(16 * j)) & np.uint64(0xFFFF)) for j in range(4)]
        """),
        _s("""
            import struct

            def blocks(fp):
                return list(struct.unpack("<4H", fp.to_bytes(8, "little")))
        """),
        _s("""
            def blocks(fp):
                h = f"{fp:016x}"
                return [int(h[12:16], 16), int(h[8:12], 16), int(h[4:8], 16), int(h[0:4], 16)]
        """),
        _s("""
            MASK = 0xFFFF

            def blocks(fp):
                return [fp & MASK, fp >> 16 & MASK, fp >> 32 & MASK, fp >> 48 & MASK]
        """),
        _s("""
            def blocks(fp):
                if fp < 1 << 16:
                    return [fp, 0, 0, 0]
                out = blocks(fp >> 16)
                return [fp & 0xFFFF] + out[:3]
        """),
        own(
            """
            def blocks(fp):
                return [chunk(fp, j) for j in range(4)]
            """,
            """
            def chunk(fp, j):
                return (fp >> (j * 16)) % 65536
            """,
        ),
    ],
    "pigeonhole": [
        "min_equal_blocks = 1\nk4_can_miss = True\n",
        "min_equal_blocks = 4 - 3\nk4_can_miss = 4 >= 4\n",
        "min_equal_blocks, k4_can_miss = 1, True\n",
        "min_equal_blocks = int(True)\nk4_can_miss = bool(1)\n",
        "min_equal_blocks = max(0, 4 - 3)\nk4_can_miss = not False\n",
        "import numpy as np\n\nmin_equal_blocks = int(np.int64(1))\nk4_can_miss = bool(np.True_)\n",
        "blocks_count = 4\nmin_equal_blocks = blocks_count - 3\nk4_can_miss = 4 == blocks_count\n",
        "min_equal_blocks = len([b for b in range(4) if b >= 3])\nk4_can_miss = True\n",
    ],
    "block_index": [
        _INDEX,
        # issue 47: a dict of 4 defaultdicts, and bin(...).count('1') in query
        _s("""
            from collections import defaultdict

            def build_tables(fps):
                tables = {j: defaultdict(list) for j in range(4)}
                for i, fp in enumerate(fps):
                    for j, b in enumerate(blocks(fp)):
                        tables[j][b].append(i)
                return tables


            def query(tables, fps, q, k):
                found = set()
                for j, b in enumerate(blocks(q)):
                    for i in tables[j][b]:
                        if bin(fps[i] ^ q).count("1") <= k:
                            found.add(i)
                return sorted(found)
        """),
        _s("""
            def build_tables(fps):
                tables = ({}, {}, {}, {})
                for i, fp in enumerate(fps):
                    for j, b in enumerate(blocks(fp)):
                        tables[j].setdefault(b, set()).add(i)
                return tables


            def query(tables, fps, q, k):
                keys = blocks(q)
                cands = set().union(*(tables[j].get(keys[j], ()) for j in range(4)))
                return sorted(i for i in cands if (fps[i] ^ q).bit_count() <= k)
        """),
        _s("""
            def build_tables(fps):
                tables = [dict() for _ in range(4)]
                for i in range(len(fps)):
                    bs = blocks(fps[i])
                    for j in range(4):
                        if bs[j] not in tables[j]:
                            tables[j][bs[j]] = []
                        tables[j][bs[j]].append(i)
                return tables


            def query(tables, fps, q, k):
                out = []
                seen = set()
                qb = blocks(q)
                for j in range(4):
                    if qb[j] in tables[j]:
                        for i in tables[j][qb[j]]:
                            if i not in seen:
                                seen.add(i)
                                if hamming(fps[i], q) <= k:
                                    out.append(i)
                out.sort()
                return out
        """),
        own(
            """
            def build_tables(fps):
                return [group_by_block(fps, j) for j in range(4)]


            def query(tables, fps, q, k):
                return sorted(i for i in candidates(tables, q) if hamming(fps[i], q) <= k)
            """,
            """
            def group_by_block(fps, j):
                table = {}
                for i, fp in enumerate(fps):
                    table.setdefault(blocks(fp)[j], []).append(i)
                return table


            def candidates(tables, q):
                found = set()
                for j, b in enumerate(blocks(q)):
                    found |= set(tables[j].get(b, []))
                return found
            """,
        ),
        _s("""
            import itertools

            def build_tables(fps):
                tables = []
                for j in range(4):
                    pairs = sorted((blocks(fp)[j], i) for i, fp in enumerate(fps))
                    tables.append({b: [i for _, i in grp] for b, grp in itertools.groupby(pairs, key=lambda p: p[0])})
                return tables


            def query(tables, fps, q, k):
                ids = {i for j, b in enumerate(blocks(q)) for i in tables[j].get(b, [])}
                return [i for i in sorted(ids) if hamming(fps[i], q) <= k]
        """),
        _s("""
            from collections import defaultdict

            def build_tables(fps):
                tables = [defaultdict(list) for _ in range(4)]
                for i, fp in enumerate(fps):
                    for j, b in enumerate(blocks(fp)):
                        tables[j][b].append(i)
                return tables


            def query(tables, fps, q, k):
                ids = []
                for j, b in enumerate(blocks(q)):
                    try:
                        ids += tables[j][b]
                    except KeyError:
                        pass
                near = [i for i in set(ids) if hamming(fps[i], q) <= k]
                near.sort()
                return near
        """),
        _s("""
            def build_tables(fps):
                tables = [{}, {}, {}, {}]
                for i, fp in enumerate(fps):
                    j = 0
                    for b in blocks(fp):
                        tables[j][b] = tables[j].get(b, []) + [i]
                        j += 1
                return tables


            def query(tables, fps, q, k):
                found = []
                for table, b in zip(tables, blocks(q)):
                    found.extend(table.get(b, []))
                return sorted({i for i in found if sum(1 for bit in range(64) if (fps[i] ^ q) >> bit & 1) <= k})
        """),
    ],
}

# -- 06 ---------------------------------------------------------------------------------------------

_06 = {
    "pair_distances": [
        _s("""
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(docs)
                return hamming(fps[pairs[:, 0]], fps[pairs[:, 1]])
        """),
        _s("""
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(docs)
                return [hamming(int(fps[i]), int(fps[j])) for i, j in pairs]
        """),
        _s("""
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(docs)
                return np.bitwise_count(fps[pairs[:, 0]] ^ fps[pairs[:, 1]]).astype(np.int64)
        """),
        _s("""
            def pair_distances(docs, pairs):
                fps = [int(f) for f in Simhasher().fingerprints(docs)]
                out = []
                for row in pairs:
                    out.append(bin(fps[row[0]] ^ fps[row[1]]).count("1"))
                return np.array(out)
        """),
        own(
            """
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(list(docs))
                return [distance(fps, i, j) for i, j in pairs.tolist()]
            """,
            """
            def distance(fps, i, j):
                return int(hamming(fps[i], fps[j]))
            """,
        ),
        _s("""
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(docs)
                left, right = pairs.T
                return hamming(fps[left], fps[right]).tolist()
        """),
        _s("""
            def pair_distances(docs, pairs):
                h = Simhasher()
                fps = h.fingerprints(docs)
                return np.fromiter((hamming(fps[i], fps[j]) for i, j in zip(pairs[:, 0], pairs[:, 1])), dtype=np.int64)
        """),
        _s("""
            def pair_distances(docs, pairs):
                fps = Simhasher().fingerprints(docs)
                ds = np.zeros(len(pairs), dtype=np.int64)
                for n in range(len(pairs)):
                    ds[n] = int(fps[pairs[n][0]] ^ fps[pairs[n][1]]).bit_count()
                return ds
        """),
    ],
    "precision_recall": [
        _s("""
            def precision_recall(distances, labels, k):
                flagged = np.asarray(distances) <= k
                labels = np.asarray(labels, dtype=bool)
                tp = int(np.sum(flagged & labels))
                precision = tp / flagged.sum() if flagged.sum() else 1.0
                recall = tp / labels.sum()
                return float(precision), float(recall)
        """),
        _s("""
            def precision_recall(distances, labels, k):
                tp = fp = fn = 0
                for d, dup in zip(distances, labels):
                    if d <= k and dup:
                        tp += 1
                    elif d <= k:
                        fp += 1
                    elif dup:
                        fn += 1
                precision = tp / (tp + fp) if tp + fp else 1.0
                return precision, tp / (tp + fn)
        """),
        _s("""
            def precision_recall(distances, labels, k):
                flagged = {i for i, d in enumerate(distances) if d <= k}
                real = {i for i, l in enumerate(labels) if l}
                precision = len(flagged & real) / len(flagged) if flagged else 1.0
                return [precision, len(flagged & real) / len(real)]
        """),
        _s("""
            def precision_recall(distances, labels, k):
                d = np.array(distances)
                l = np.array(labels).astype(bool)
                n_flagged = np.count_nonzero(d <= k)
                tp = np.count_nonzero((d <= k) & l)
                return (tp / n_flagged if n_flagged > 0 else 1.0), tp / np.count_nonzero(l)
        """),
        own(
            """
            def precision_recall(distances, labels, k):
                tp, flagged, real = counts(distances, labels, k)
                return ratio(tp, flagged, 1.0), ratio(tp, real, 1.0)
            """,
            """
            def counts(distances, labels, k):
                pairs = list(zip(distances, labels))
                return (
                    sum(1 for d, l in pairs if d <= k and l),
                    sum(1 for d, _ in pairs if d <= k),
                    sum(1 for _, l in pairs if l),
                )


            def ratio(a, b, empty):
                return a / b if b else empty
            """,
        ),
        _s("""
            def precision_recall(distances, labels, k):
                flags = [bool(d <= k) for d in distances]
                tp = sum(f and bool(l) for f, l in zip(flags, labels))
                try:
                    precision = tp / sum(flags)
                except ZeroDivisionError:
                    precision = 1.0
                return precision, tp / sum(map(bool, labels))
        """),
        _s("""
            def precision_recall(distances, labels, k):
                flagged = np.flatnonzero(np.asarray(distances) <= k)
                positives = np.flatnonzero(np.asarray(labels))
                tp = np.intersect1d(flagged, positives).size
                return (tp / flagged.size if flagged.size else 1.0, tp / positives.size)
        """),
        _s("""
            import pandas as pd

            def precision_recall(distances, labels, k):
                df = pd.DataFrame({"d": distances, "dup": np.asarray(labels, dtype=bool)})
                flagged = df[df.d <= k]
                precision = float(flagged.dup.mean()) if len(flagged) else 1.0
                return precision, float(df[df.dup].d.le(k).mean())
        """),
    ],
    "best_k": [
        _s("""
            def best_k(distances, labels) -> int:
                f1 = []
                for k in range(65):
                    p, r = precision_recall(distances, labels, k)
                    f1.append(2 * p * r / (p + r) if p + r else 0.0)
                return int(np.argmax(f1))
        """),
        _s("""
            def best_k(distances, labels):
                best, best_f = 0, -1.0
                for k in range(65):
                    p, r = precision_recall(distances, labels, k)
                    f = 2 * p * r / (p + r) if p + r > 0 else 0.0
                    if f > best_f:
                        best, best_f = k, f
                return best
        """),
        # issue 43: a helper in a cell of the learner's own
        own(
            """
            def best_k(distances, labels):
                return max(range(65), key=lambda k: (f1(distances, labels, k), -k))
            """,
            """
            def f1(distances, labels, k):
                p, r = precision_recall(distances, labels, k)
                return 2 * p * r / (p + r) if p + r else 0.0
            """,
        ),
        _s("""
            def best_k(distances, labels):
                scores = {}
                for k in range(65):
                    p, r = precision_recall(distances, labels, k)
                    scores[k] = 0.0 if p + r == 0 else 2 * p * r / (p + r)
                top = max(scores.values())
                return min(k for k, s in scores.items() if s == top)
        """),
        _s("""
            def best_k(distances, labels):
                def f1(k):
                    p, r = precision_recall(distances, labels, k)
                    return 2 * p * r / (p + r) if (p + r) else 0.0
                values = [f1(k) for k in range(65)]
                return values.index(max(values))
        """),
        _s("""
            def best_k(distances, labels):
                pr = np.array([precision_recall(distances, labels, k) for k in range(65)], dtype=float)
                p, r = pr[:, 0], pr[:, 1]
                with np.errstate(invalid="ignore", divide="ignore"):
                    f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
                return int(np.flatnonzero(f1 == f1.max())[0])
        """),
        _s("""
            def best_k(distances, labels):
                ranked = sorted(range(65), key=lambda k: -harmonic(*precision_recall(distances, labels, k)))
                return ranked[0]


            def harmonic(p, r):
                return 2 * p * r / (p + r) if p + r else 0.0
        """),
        _s("""
            import statistics

            def best_k(distances, labels):
                best = None
                for k in range(65):
                    p, r = precision_recall(distances, labels, k)
                    f = statistics.harmonic_mean([p, r]) if p and r else 0.0
                    if best is None or f > best[0] + 1e-12:
                        best = (f, k)
                return best[1]
        """),
    ],
}

HONEST: dict[str, dict[str, list[str | Own]]] = {
    "01_lsh_vs_crypto": _01,
    "02_simhash_voting": _02,
    "03_hamming_popcount": _03,
    "04_charikar_hyperplanes": _04,
    "05_block_index": _05,
    "06_near_duplicates": _06,
}

# -- the cheats -------------------------------------------------------------------------------------

_SWAR = _s("""
    def popcount_kernighan(x):
        x = x - ((x >> 1) & 0x5555555555555555)
        x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
        c = ((x * 0x0101010101010101) & 0xFFFFFFFFFFFFFFFF) >> 56
        for _ in range(c):
            pass
        return c
""")
_TABLE = _s(f"""
    T = {tuple(bin(i).count("1") for i in range(256))!r}


    def popcount_kernighan(x):
        y = 0
        while y:
            y &= y - 1
        c = 0
        v = x
        while v:
            c += T[v & 255]
            v >>= 8
        for _ in range(c):
            pass
        return c
""")
_SCAN = _s("""
    def popcount_kernighan(x):
        c = 0
        for i in range(64):
            if x >> i & 1:
                c += 1
        y = x
        while y:
            y &= y - 1
        return c
""")
_DECOY_BIN = _s("""
    def popcount_kernighan(x):
        c = bin(x).count("1")
        while x:
            x &= x - 1
        return c
""")
_HEX = _s("""
    def popcount_kernighan(x):
        bits = {"0": 0, "1": 1, "2": 1, "3": 2, "4": 1, "5": 2, "6": 2, "7": 3,
                "8": 1, "9": 2, "a": 2, "b": 3, "c": 2, "d": 3, "e": 3, "f": 4}
        c = 0
        for ch in "%x" % x:
            c += bits[ch]
        while x:
            x &= x - 1
        return c
""")
_UNTRACED = _s("""
    import sys

    def popcount_kernighan(x):
        sys.settrace(None)
        c = 0
        for i in range(64):
            c += x >> i & 1
        return c
""")
_NEAR_FULL = _s("""
    def is_near(a, b, k=3):
        x = a ^ b
        c = 0
        while x:
            x &= x - 1
            c += 1
        return c <= k
""")
_NEAR_SWAR = _s("""
    def is_near(a, b, k=3):
        x = a ^ b
        x = x - ((x >> 1) & 0x5555555555555555)
        x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
        d = ((x * 0x0101010101010101) & 0xFFFFFFFFFFFFFFFF) >> 56
        for _ in range(min(d, k + 1)):
            pass
        return d <= k
""")
_NEAR_VIA_POPCOUNT = _s("""
    def is_near(a, b, k=3):
        return popcount_kernighan(a ^ b) <= k
""")

_BUILD = _s("""
    def build_tables(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables
""")
_LINEAR = _BUILD + _s("""


    def query(tables, fps, q, k):
        return [i for i, f in enumerate(fps) if hamming(f, q) <= k]
""")
# issue 43: the fingerprints rebuilt from the tables' keys, all compared; fps never read
_TABLE_SCAN = _BUILD + _s("""


    def query(tables, fps, q, k):
        rebuilt = {}
        for j in range(4):
            for b, ids in tables[j].items():
                for i in ids:
                    rebuilt[i] = rebuilt.get(i, 0) | (b << (16 * j))
        return sorted(i for i, f in rebuilt.items() if hamming(f, q) <= k)
""")
_FORMAT_FIELD = _BUILD + _s("""


    def query(tables, fps, q, k):
        items = [int(t) for t in "{0._Spy__items}".format(fps).strip("[]").split(",")]
        return [i for i, f in enumerate(items) if hamming(f, q) <= k]
""")
_FORMAT_TABLES = _BUILD + _s("""


    import ast

    def query(tables, fps, q, k):
        rebuilt = {}
        for j in range(4):
            for b, ids in ast.literal_eval("{0._SpyTable__data}".format(tables[j])).items():
                for i in ids:
                    rebuilt[i] = rebuilt.get(i, 0) | (b << (16 * j))
        return sorted(i for i, f in rebuilt.items() if hamming(f, q) <= k)
""")
_COPY = _BUILD + _s("""


    import copy

    def query(tables, fps, q, k):
        return [i for i, f in enumerate(copy.copy(fps)) if hamming(f, q) <= k]
""")
_SEEN = _s("""
    SEEN = []


    def build_tables(fps):
        SEEN[:] = list(fps)
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables


    def query(tables, fps, q, k):
        return [i for i, f in enumerate(SEEN) if hamming(f, q) <= k]
""")
_MEMO = _s("""
    def build_tables(fps, memo={}):
        if fps is None:
            return memo[0]
        memo[0] = list(fps)
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables


    def query(tables, fps, q, k):
        return [i for i, f in enumerate(build_tables(None)) if hamming(f, q) <= k]
""")
_MODULE_STATE = _s("""
    import numpy as np

    def build_tables(fps):
        np.seen_fps = list(fps)
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables


    def query(tables, fps, q, k):
        return [i for i, f in enumerate(np.seen_fps) if hamming(f, q) <= k]
""")
_SPY_RESET = _BUILD + _s("""


    def query(tables, fps, q, k):
        items = object.__getattribute__(fps, "_Spy__items")
        object.__getattribute__(fps, "_Spy__seen").clear()
        return [i for i, f in enumerate(items) if bin(f ^ q).count("1") <= k]
""")
_SMUGGLE = _s("""
    def build_tables(fps):
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables + [{"all": list(fps)}]


    def query(tables, fps, q, k):
        return [i for i, f in enumerate(tables[4]["all"]) if hamming(f, q) <= k]
""")
_FILE_STATE = _s("""
    import json

    def build_tables(fps):
        with open("/tmp/fps.json", "w") as f:
            json.dump(list(fps), f)
        tables = [{} for _ in range(4)]
        for i, fp in enumerate(fps):
            for j, b in enumerate(blocks(fp)):
                tables[j].setdefault(b, []).append(i)
        return tables


    def query(tables, fps, q, k):
        with open("/tmp/fps.json") as f:
            return [i for i, x in enumerate(json.load(f)) if hamming(x, q) <= k]
""")
_KEY_SCAN = _BUILD + _s("""


    def query(tables, fps, q, k):
        found = set()
        for j, b in enumerate(blocks(q)):
            for key in tables[j]:
                if key == b:
                    found.update(tables[j][key])
        return sorted(i for i in found if hamming(fps[i], q) <= k)
""")


_NO_WEIGHTS_PY = _s("""
    def simhash_py(features, bits=64):
        V = [0] * bits
        for h, _w in features:
            for i in range(bits):
                V[i] += 1 if (h >> i) & 1 else -1
        return sum(1 << i for i in range(bits) if V[i] > 0)
""")
_NO_WEIGHTS_NB = _s("""
    @njit
    def simhash_numba(hashes, weights, bits):
        V = np.zeros(64)
        for j in range(hashes.shape[0]):
            for i in range(bits):
                V[i] += 1.0 if (hashes[j] >> np.uint64(i)) & np.uint64(1) else -1.0
        fp = np.uint64(0)
        for i in range(bits):
            if V[i] > 0:
                fp |= np.uint64(1) << np.uint64(i)
        return fp
""")
_BEST_K_GE = _s("""
    def best_k(distances, labels):
        best, bk = -1.0, 0
        for k in range(65):
            p, r = precision_recall(distances, labels, k)
            f = 2 * p * r / (p + r) if p + r else 0.0
            if f >= best:
                best, bk = f, k
        return bk
""")
_BEST_K_NO_GUARD = _s("""
    def best_k(distances, labels):
        f1 = []
        for k in range(65):
            p, r = precision_recall(distances, labels, k)
            f1.append(2 * p * r / (p + r))
        return int(np.argmax(f1))
""")


def _copied(name: str, value: object, args: str) -> str:
    return f"def {name}({args}):\n    return {value!r}\n"


def _visible(name: str):
    """What a ❌ shows (or a classmate could pass on) for the notebook's own data."""
    from simhash_lab.grading.checks import charikar_hyperplanes, lsh_vs_crypto, near_duplicates

    return {
        "crypto_flips": lambda: lsh_vs_crypto._crypto_reference(None),
        "simhash_flips": lambda: lsh_vs_crypto._simhash_reference(None),
        "mean_hamming": lambda: charikar_hyperplanes._mean_reference(None),
        "pair_distances": lambda: near_duplicates._distances(None),
        "best_k": lambda: near_duplicates._best_k(None),
    }[name]()


def _md5_table() -> str:
    """An md5_64 that is a table of the check cell's inputs (right there, 0 elsewhere)."""
    from simhash_lab.grading.checks import lsh_vs_crypto

    table = {t: lsh_vs_crypto._md5_64(t) for t in lsh_vs_crypto._VISIBLE}
    return f"def md5_64(text):\n    return {table!r}.get(text, 0)\n"


def cheats() -> dict[str, list[tuple[str, dict[str, str], dict[str, str]]]]:
    """``CHEATS``, made when asked (some copy the values a ❌ would show for the notebook's data)."""
    return {
        "01_lsh_vs_crypto": [
            (
                "copied",
                {
                    "md5_64": _md5_table(),
                    "crypto_flips": _copied("crypto_flips", _visible("crypto_flips"), "pairs"),
                    "simhash_flips": _copied("simhash_flips", _visible("simhash_flips"), "pairs"),
                },
                {
                    "md5_64": "",
                    "crypto_flips": "notebook's own result",
                    "simhash_flips": "notebook's own result",
                },
            ),
            # issue 47: 128 * 0.5 was told "not every bit flips"
            (
                "128 bits",
                {"ideal_flips": "ideal_flips = 128 * 0.5\n"},
                {"ideal_flips": "128 bits (MD5's whole digest)"},
            ),
        ],
        "02_simhash_voting": [
            (
                "not numba",
                {
                    "simhash_numba": _s("""
                        def simhash_numba(hashes, weights, bits):
                            return np.uint64(simhash_py(list(zip(hashes.tolist(), weights.tolist())), bits))
                    """),
                },
                {"simhash_numba": "@njit"},
            ),
            (
                "object mode inside",
                {
                    "simhash_numba": _s("""
                        from numba import objmode

                        @njit
                        def simhash_numba(hashes, weights, bits):
                            with objmode(fp="uint64"):
                                fp = simhash_py(list(zip(hashes.tolist(), weights.tolist())), bits)
                            return fp
                    """),
                },
                {"simhash_numba": "objmode"},
            ),
            (
                "forceobj",
                {
                    "simhash_numba": _s("""
                        from numba import jit

                        @jit(forceobj=True)
                        def simhash_numba(hashes, weights, bits):
                            return simhash_py(list(zip(hashes.tolist(), weights.tolist())), bits)
                    """),
                },
                {"simhash_numba": ""},
            ),
            # issue 47: forgotten weights were blamed on uint64/int64
            (
                "weights forgotten",
                {"simhash_py": _NO_WEIGHTS_PY, "simhash_numba": _NO_WEIGHTS_NB},
                {"simhash_py": "every weight 1", "simhash_numba": "every weight 1"},
            ),
        ],
        "03_hamming_popcount": [
            (
                "swar",
                {"popcount_kernighan": _SWAR, "is_near": _NEAR_SWAR},
                {"popcount_kernighan": "None of your", "is_near": "None of your"},
            ),
            (
                "table",
                {"popcount_kernighan": _TABLE, "is_near": _NEAR_FULL},
                {"popcount_kernighan": "None of your", "is_near": "goes on clearing"},
            ),
            (
                "scan",
                {"popcount_kernighan": _SCAN, "is_near": _NEAR_VIA_POPCOUNT},
                {"popcount_kernighan": "", "is_near": ""},
            ),
            ("decoy bin", {"popcount_kernighan": _DECOY_BIN}, {"popcount_kernighan": "`bin` is not allowed"}),
            ("hex", {"popcount_kernighan": _HEX}, {"popcount_kernighan": "turns a value into text"}),
            (
                "untraced",
                {"popcount_kernighan": _UNTRACED},
                {"popcount_kernighan": "`import sys` reaches into the interpreter"},
            ),
            # issue 47: a correct is_near must pass although popcount_kernighan uses bin
            (
                "bin popcount, honest is_near",
                {"popcount_kernighan": "def popcount_kernighan(x):\n    return bin(x).count('1')\n"},
                {"popcount_kernighan": "`bin` is not allowed"},
            ),
            (
                "bit_count",
                {"popcount_kernighan": "def popcount_kernighan(x):\n    return x.bit_count()\n"},
                {"popcount_kernighan": "`.bit_count` is not allowed"},
            ),
            # issue 47: `while x > 1` was told it is "another method"
            (
                "while x > 1",
                {
                    "popcount_kernighan": "def popcount_kernighan(x):\n    c = 0\n    while x > 1:\n        x &= x - 1\n        c += 1\n    return c\n"
                },
                {"popcount_kernighan": "One set bit too few"},
            ),
        ],
        "04_charikar_hyperplanes": [
            (
                "copied",
                {"mean_hamming": _copied("mean_hamming", _visible("mean_hamming"), "u, v")},
                {"mean_hamming": "notebook's own result"},
            ),
        ],
        "05_block_index": [
            ("linear", {"block_index": _LINEAR}, {"block_index": "no candidate of q"}),
            ("table scan", {"block_index": _TABLE_SCAN}, {"block_index": "no candidate of q"}),
            # reads no counter sees: a format string's field, a copy (what they read is bait)
            ("format field", {"block_index": _FORMAT_FIELD}, {"block_index": "no candidate of q"}),
            ("format field tables", {"block_index": _FORMAT_TABLES}, {"block_index": "no candidate of q"}),
            ("copy", {"block_index": _COPY}, {"block_index": "no candidate of q"}),
            ("key scan", {"block_index": _KEY_SCAN}, {"block_index": "reads other entries of the tables"}),
            ("seen", {"block_index": _SEEN}, {"block_index": ""}),
            ("memo", {"block_index": _MEMO}, {"block_index": ""}),
            (
                "module state",
                {"block_index": _MODULE_STATE},
                {"block_index": "keeps a value outside the function"},
            ),
            ("spy reset", {"block_index": _SPY_RESET}, {"block_index": "reaches into the interpreter"}),
            ("smuggle", {"block_index": _SMUGGLE}, {"block_index": "4 tables"}),
            ("file state", {"block_index": _FILE_STATE}, {"block_index": "reaches into the interpreter"}),
            # issue 47: wrong answers accepted, or told the wrong cause
            (
                "unsorted",
                {
                    "block_index": _INDEX.replace(
                        "return sorted(i for i in candidates if",
                        "return list(i for i in sorted(candidates, reverse=True) if",
                    )
                },
                {"block_index": "not as the sorted list"},
            ),
            ("< k", {"block_index": _INDEX.replace("<= k", "< k")}, {"block_index": "not < k"}),
        ],
        "06_near_duplicates": [
            (
                "copied",
                {
                    "pair_distances": _copied("pair_distances", _visible("pair_distances"), "docs, pairs"),
                    "best_k": _copied("best_k", _visible("best_k"), "distances, labels"),
                },
                {"pair_distances": "notebook's own result", "best_k": ""},
            ),
            # issue 47: wrong answers accepted
            ("best_k >=", {"best_k": _BEST_K_GE}, {"best_k": "return the smallest of them"}),
            ("F1 without its guard", {"best_k": _BEST_K_NO_GUARD}, {"best_k": "divided by zero"}),
        ],
    }
