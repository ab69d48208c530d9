"""Input checks shared by the public API: clear errors that name the parameter and what was expected."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np


def check_option(param: str, value: Any, options: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``options``, else raise a ValueError naming ``param``."""
    options = list(options)
    if value not in options:
        raise ValueError(f"The value for `{param}` must be one of {options}, but {value!r} was passed.")
    return value


def check_int(param: str, value: Any, lo: int, hi: int) -> int:
    """An int in [lo, hi] (bools and floats are refused), else a TypeError/ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{param} must be an int between {lo} and {hi}, got {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise ValueError(f"{param} must be between {lo} and {hi}, got {value}")
    return value


def check_weight(param: str, value: Any) -> float:
    """A finite real weight, else a TypeError/ValueError naming ``param``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{param} must be a finite number, got {value!r}")
    try:
        value = float(value)
    except OverflowError:
        raise ValueError(
            f"{param} is too large for a float64 weight (|w| < 2**1024), got about "
            f"{'-' if value < 0 else ''}2**{abs(int(value)).bit_length() - 1}"
        ) from None
    if not math.isfinite(value):
        raise ValueError(f"{param} must be finite, got {value}")
    return value


def plain_weights(values: list) -> np.ndarray | None:
    """``values`` as float64 (n,) when they are all finite plain ints and floats (one C-speed
    pass to check, one to convert), else None: the caller then checks them one by one."""
    if set(map(type, values)) <= {float, int}:
        try:
            out = np.fromiter(values, dtype=np.float64, count=len(values))
        except OverflowError:
            return None
        if np.isfinite(out).all():
            return out
    return None


def check_weights(values: list, features: list, param: str) -> np.ndarray:
    """Given weights as float64 (n,), one per feature; the first bad one is a TypeError/ValueError
    naming the feature and ``param``. Plain ints and floats are converted in one pass."""
    out = plain_weights(values)
    if out is not None:
        return out
    return np.fromiter(
        (check_weight(f"the weight of {f!r} in {param}", w) for f, w in zip(features, values)),
        dtype=np.float64,
        count=len(values),
    )


def as_text(value: Any, param: str) -> str:
    """A str from a str or UTF-8 bytes; anything else is a TypeError naming ``param``."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(
                f"{param} is bytes that are not valid UTF-8 (byte {e.start}: {e.reason}); "
                "decode it yourself with the right encoding"
            ) from None
    raise TypeError(f"{param} must be a str (or UTF-8 bytes), got {type(value).__name__}")


def utf8(text: str, param: str) -> bytes:
    """``text`` encoded as UTF-8; a lone surrogate is a ValueError naming ``param``."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"{param} contains a lone surrogate {text[e.start]!r} at index {e.start}, "
            "which is not text and has no UTF-8 form"
        ) from None


def as_fingerprints(value: Any, param: str, bits: int = 64) -> np.ndarray | int:
    """A Python int, or a uint64 array, holding fingerprints 0 <= fp < 2**bits."""
    limit = 1 << bits
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        v = int(value)
        if not 0 <= v < limit:
            raise ValueError(f"{param} must be in [0, 2**{bits}), got {v}")
        return v
    if value is None:
        raise TypeError(f"{param} must be an int or an array of ints, got None")
    arr = np.asarray(value)
    if arr.dtype == np.uint64:
        pass
    elif arr.dtype.kind in "iu":
        if arr.size and arr.min() < 0:
            raise ValueError(f"{param} must be non-negative fingerprints, found {arr.min()}")
        arr = arr.astype(np.uint64)
    elif arr.dtype == object and all(isinstance(x, numbers.Integral) for x in arr.flat):
        if arr.size and (min(arr.flat) < 0 or max(arr.flat) >= limit):
            raise ValueError(f"{param} must hold fingerprints in [0, 2**{bits})")
        arr = arr.astype(np.uint64)
    else:
        raise TypeError(f"{param} must hold unsigned integer fingerprints, got dtype {arr.dtype}")
    if bits < 64 and arr.size and int(arr.max()) >= limit:
        raise ValueError(f"{param} must hold fingerprints in [0, 2**{bits}), found {int(arr.max())}")
    return arr
