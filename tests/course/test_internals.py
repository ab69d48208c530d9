"""The course's public look inside the library (simhash_lab.course.internals): the compiled vote loop
against NumPy, its two allocation patterns, and the machine code of a Hamming distance."""

import platform

import numpy as np
import pytest

from simhash_lab.course import internals


def test_vote_counts_against_numpy():
    rng = np.random.default_rng(8)
    hs = rng.integers(0, 2**64, size=1000, dtype=np.uint64)
    want = ((hs[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).sum(axis=0)
    got = internals.vote_counts(hs)
    assert got.dtype == np.int64 and got.shape == (64,) and (got == want).all()
    assert (internals.vote_counts([3, 5, 7])[:4] == [3, 2, 2, 0]).all()
    assert (internals.vote_counts(np.array([], dtype=np.uint64)) == 0).all()


@pytest.mark.parametrize(
    "bad,error,words",
    [
        (np.zeros((2, 2), dtype=np.uint64), ValueError, "hashes must be one-dimensional"),
        ([1.5, 2.0], TypeError, "hashes must be unsigned 64-bit integers"),
        ([-1, 2], ValueError, "hashes must be non-negative"),
    ],
)
def test_vote_counts_names_bad_input(bad, error, words):
    with pytest.raises(error) as e:
        internals.vote_counts(bad)
    assert words in str(e.value)


def test_the_two_allocation_patterns_vote_alike():
    rng = np.random.default_rng(9)
    hs = rng.integers(0, 2**64, size=300, dtype=np.uint64)
    v = 2 * internals.vote_counts(hs) - len(hs)
    assert (internals.vote_alloc_once(hs) == v).all() and (internals.vote_alloc_per_token(hs) == v).all()


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="x86-64 listing")
def test_hamming_asm_is_the_compiled_function_itself():
    flags = open("/proc/cpuinfo").read() if platform.system() == "Linux" else ""
    asm = internals.hamming_asm()
    lines = asm.splitlines()
    assert lines[-1].startswith("ret") and not any(x.startswith(".") for x in lines)
    assert any(x.startswith("xor") for x in lines)
    assert any(x.startswith("mov") and "(%rdi)" in x for x in lines)  # the result is stored
    if " popcnt" in flags:
        assert any(x.startswith("popcnt") for x in lines)
    assert "PyArg_UnpackTuple" in internals.hamming_asm(full=True) and "PyArg" not in asm
