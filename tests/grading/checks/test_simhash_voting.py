"""The checks of exercise 02 (simhash_lab.grading.checks.simhash_voting): the six-bit hint, a fake
Numba object, a reversed bit order."""

from __future__ import annotations

import pytest

from simhash_lab.grading import checks


def test_the_six_bit_hint_explains_the_bit_order_without_the_answer(capsys):
    checks.six_bit_int(0b110001)
    out = capsys.readouterr().out
    assert "V[i] is bit i" in out and "writes bit 0 last" in out
    assert "100011" not in out and "35" not in out and "backwards" not in out
    checks.six_bit_int(0b100011)
    assert "35 = 0b100011" in capsys.readouterr().out  # the ✅ says it all, once it is earned


def test_a_fake_numba_object_is_not_numba(solved):
    real = solved["02_simhash_voting"]["simhash_numba"]

    class Fake:
        py_func = real.py_func
        nopython_signatures = ["x"]

        def __call__(self, *a):
            return real(*a)

    v = checks.simhash_numba.feedback(Fake())
    assert not v.passed and "njit" in v.hint


@pytest.mark.parametrize("key", ["simhash_py", "simhash_numba"])
def test_a_reversed_bit_order_gets_its_own_hint(key, capsys, out_of):
    src = {
        "simhash_py": "def simhash_py(features, bits=64):\n"
        "    V = [0] * bits\n"
        "    for h, w in features:\n"
        "        for i in range(bits):\n"
        "            V[i] += w if (h >> (bits - 1 - i)) & 1 else -w\n"
        "    return sum(1 << i for i in range(bits) if V[i] > 0)\n",
        "simhash_numba": "@njit\ndef simhash_numba(hashes, weights, bits):\n"
        "    V = np.zeros(64)\n"
        "    for j in range(hashes.shape[0]):\n"
        "        for i in range(bits):\n"
        "            if (hashes[j] >> np.uint64(bits - 1 - i)) & np.uint64(1):\n"
        "                V[i] += weights[j]\n"
        "            else:\n"
        "                V[i] -= weights[j]\n"
        "    fp = np.uint64(0)\n"
        "    for i in range(bits):\n"
        "        if V[i] > 0:\n"
        "            fp |= np.uint64(1) << np.uint64(i)\n"
        "    return fp\n",
    }[key]
    out = out_of(key, src, "02_simhash_voting", capsys)
    assert out.startswith("❌") and "reverse order" in out, out
