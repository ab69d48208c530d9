"""The input checks the public API shares (simhash_lab._validate): each accepts what it documents,
returns it in one type, and refuses the rest with an error of the right type that names the
parameter."""

from __future__ import annotations

import numpy as np
import pytest

from simhash_lab import _validate as V


def test_check_option_returns_the_value_or_names_the_parameter():
    assert V.check_option("keep", "first", ("first", "longest")) == "first"
    with pytest.raises(ValueError, match=r"`keep` must be one of \['first', 'longest'\], but 'x'"):
        V.check_option("keep", "x", iter(["first", "longest"]))


@pytest.mark.parametrize("value", [0, 5, 64, np.int64(7), np.uint8(3)])
def test_check_int_accepts_integers_in_range_as_int(value):
    got = V.check_int("k", value, 0, 64)
    assert type(got) is int and got == int(value)


@pytest.mark.parametrize(
    "value, error, words",
    [
        (True, TypeError, "k must be an int between 0 and 63, got True"),
        (3.0, TypeError, "got 3.0"),
        ("3", TypeError, "got '3'"),
        (None, TypeError, "got None"),
        (-1, ValueError, "k must be between 0 and 63, got -1"),
        (64, ValueError, "got 64"),
    ],
)
def test_check_int_refuses_bools_floats_and_out_of_range(value, error, words):
    with pytest.raises(error, match=words):
        V.check_int("k", value, 0, 63)


def test_check_weight_is_a_finite_float():
    assert V.check_weight("w", 3) == 3.0 and type(V.check_weight("w", np.float32(0.5))) is float
    for bad in (True, np.bool_(False), "1", None, 1j):
        with pytest.raises(TypeError, match="w must be a finite number"):
            V.check_weight("w", bad)
    for bad in (float("inf"), float("nan"), -float("inf")):
        with pytest.raises(ValueError, match="w must be finite"):
            V.check_weight("w", bad)
    with pytest.raises(ValueError, match=r"too large for a float64 weight .* about -2\*\*2000"):
        V.check_weight("w", -(2**2000))


def test_plain_weights_converts_plain_numbers_in_one_pass_or_gives_none():
    assert V.plain_weights([1, 2.5, -3]).tolist() == [1.0, 2.5, -3.0]
    assert V.plain_weights([]).tolist() == []
    assert V.plain_weights([1, True]) is None  # a bool: checked one by one
    assert V.plain_weights([1, np.float64(2)]) is None
    assert V.plain_weights([1, float("inf")]) is None
    assert V.plain_weights([2**2000]) is None


def test_check_weights_names_the_feature_of_the_first_bad_weight():
    assert V.check_weights([1, 2], ["a", "b"], "weights").tolist() == [1.0, 2.0]
    assert V.check_weights([np.float32(1), np.int8(2)], ["a", "b"], "weights").tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="the weight of 'b' in weights must be a finite number"):
        V.check_weights([1, "2", None], ["a", "b", "c"], "weights")
    with pytest.raises(ValueError, match="the weight of 'c' in texts\\[3\\] must be finite"):
        V.check_weights([1, 2, float("nan")], ["a", "b", "c"], "texts[3]")


def test_as_text_takes_str_and_utf8_bytes():
    assert V.as_text("héllo", "text") == "héllo"
    for b in (b"h\xc3\xa9llo", bytearray(b"h\xc3\xa9llo"), memoryview(b"h\xc3\xa9llo")):
        assert V.as_text(b, "text") == "héllo"
    with pytest.raises(ValueError, match=r"texts\[2\] is bytes that are not valid UTF-8 \(byte 1"):
        V.as_text(b"a\xffb", "texts[2]")
    with pytest.raises(TypeError, match="text must be a str \\(or UTF-8 bytes\\), got int"):
        V.as_text(3, "text")


def test_utf8_names_a_lone_surrogate_and_its_index():
    assert V.utf8("日本", "t") == "日本".encode()
    with pytest.raises(ValueError, match=r"t contains a lone surrogate '\\udc00' at index 4"):
        V.utf8("abcd\udc00", "t")


def test_as_fingerprints_takes_ints_and_integer_arrays():
    assert V.as_fingerprints(5, "fp") == 5 and type(V.as_fingerprints(np.uint64(5), "fp")) is int
    arr = V.as_fingerprints([1, 2, 2**62], "fps")
    assert arr.dtype == np.uint64 and arr.tolist() == [1, 2, 2**62]
    assert V.as_fingerprints(np.array([3, 4], np.int32), "fps").dtype == np.uint64
    big = np.array([1, 2**64 - 1], dtype=object)  # Python ints past int64
    assert V.as_fingerprints(big, "fps").tolist() == [1, 2**64 - 1]
    assert V.as_fingerprints([63], "fps", bits=6).tolist() == [63]


@pytest.mark.parametrize(
    "value, bits, error, words",
    [
        (-1, 64, ValueError, r"fp must be in \[0, 2\*\*64\), got -1"),
        (2**64, 64, ValueError, "got 18446744073709551616"),
        (64, 6, ValueError, r"in \[0, 2\*\*6\), got 64"),
        (True, 64, TypeError, "dtype bool"),
        (None, 64, TypeError, "fp must be an int or an array of ints, got None"),
        ([1, -2], 64, ValueError, "non-negative fingerprints, found -2"),
        ([1, 2**64], 64, ValueError, r"fingerprints in \[0, 2\*\*64\)"),
        ([1.5], 64, TypeError, "unsigned integer fingerprints, got dtype float64"),
        (["1"], 64, TypeError, "got dtype <U1"),
        ([1, 64], 6, ValueError, r"in \[0, 2\*\*6\), found 64"),
    ],
)
def test_as_fingerprints_refuses_the_rest_naming_the_parameter(value, bits, error, words):
    with pytest.raises(error, match=words):
        V.as_fingerprints(value, "fp", bits=bits)
