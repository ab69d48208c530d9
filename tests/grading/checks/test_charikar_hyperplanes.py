"""The checks of exercise 04 (simhash_lab.grading.checks.charikar_hyperplanes): a signature may be a
NumPy unsigned int; an int64 that overflowed gets its own hint."""

from __future__ import annotations

from simhash_lab.grading import checks


def test_a_signature_may_be_a_numpy_unsigned_int_as_the_exercise_says(capsys, out_of):
    """Exercise 04 says: an int, a Python int or a NumPy unsigned integer; an int64 that overflowed
    at bit 63 gets its own hint."""
    as_uint64 = (
        "def signature(u, R):\n    sig = np.uint64(0)\n    for i, r in enumerate(R):\n"
        "        if r @ u >= 0:\n            sig |= np.uint64(1) << np.uint64(i)\n    return sig\n"
    )
    out = out_of("signature", as_uint64, "04_charikar_hyperplanes", capsys)
    assert out == checks.pass_line("signature"), out
    as_int64 = as_uint64.replace("np.uint64", "np.int64")
    out = out_of("signature", as_int64, "04_charikar_hyperplanes", capsys)
    assert out.startswith("❌") and "overflowed a signed int64" in out, out
