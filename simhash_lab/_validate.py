"""Input checks shared by the public API: clear errors that name the parameter and what was expected."""

from __future__ import annotations

import math
import numbers
import os
import re
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


def check_fraction(param: str, value: Any) -> float:
    """A number in (0, 1] (a Jaccard threshold, a recall), else a TypeError/ValueError naming ``param``.

    >>> check_fraction("jaccard", 0.8)
    0.8
    >>> check_fraction("recall", 0)
    Traceback (most recent call last):
    ValueError: recall must be in (0, 1], got 0.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{param} must be a number in (0, 1], got {value!r}")
    v = float(value)
    if not 0 < v <= 1:  # NaN too
        raise ValueError(f"{param} must be in (0, 1], got {v}")
    return v


def check_k(k: Any, bits: int) -> int:
    """A Hamming distance ``k`` an index of ``bits``-bit fingerprints can serve: an int in
    [0, bits - 1], else a TypeError/ValueError naming ``k``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an int between 0 and bits-1 ({bits - 1}), got {k!r}")
    k = int(k)
    if not 0 <= k <= bits - 1:
        raise ValueError(f"k must be between 0 and bits-1 ({bits - 1}) for bits={bits}, got {k}")
    return k


def default_memory_budget() -> int:
    """A quarter of this machine's physical memory, in bytes (4 GiB where it cannot be read): the
    default of every ``memory_budget`` (:mod:`simhash_lab.index`, ``dedup_dataset``'s tables).

    Returns
    -------
    int
    """
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
    except (AttributeError, ValueError, OSError):
        return 4 << 30


def check_budget(memory_budget: Any) -> int:
    """Bytes the index's tables may use: an int in [0, 2**62], or None for the default (a quarter
    of the machine's memory, :func:`default_memory_budget`)."""
    if memory_budget is None:
        return default_memory_budget()
    return check_int("memory_budget", memory_budget, 0, 1 << 62)


#: The one unit table of every size option (``--max-bytes``, ``--memory-budget``, ``--max-row-bytes``,
#: ``grade --memory``): binary multiples, case-insensitive, an optional ``B`` or ``iB`` after the letter.
BYTE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_BYTE_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)


def parse_byte_size(param: str, text: str, lo: int = 0, hi: int = (1 << 62) - 1) -> int:
    """Bytes written as an int or with a binary suffix (:data:`BYTE_UNITS`), in [lo, hi], else a
    ValueError naming ``param``.

    >>> parse_byte_size("--max-bytes", "64M"), parse_byte_size("--memory-budget", "1.5GiB")
    (67108864, 1610612736)
    >>> parse_byte_size("--max-bytes", "64X")
    Traceback (most recent call last):
    ValueError: --max-bytes must be a number of bytes, with K, M, G or T for KiB..TiB (2G, 512M), got '64X'
    """
    m = _BYTE_SIZE.fullmatch(text)
    if not m:
        raise ValueError(
            f"{param} must be a number of bytes, with K, M, G or T for KiB..TiB (2G, 512M), got {text!r}"
        )
    n = int(float(m.group(1)) * BYTE_UNITS[m.group(2).lower()])
    if not lo <= n <= hi:
        low = f"at least {_show_bytes(lo)}" if n < lo else f"below {_show_bytes(hi + 1)}"
        raise ValueError(f"{param} must be {low}, got {text!r}")
    return n


def _show_bytes(n: int) -> str:
    for shift, unit in ((60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


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
