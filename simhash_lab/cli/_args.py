"""Argument types shared by the subcommands: each names its option in the error argparse prints."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .._validate import parse_byte_size


def int_in(name: str, lo: int, hi: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` for an int option ``name`` in ``lo..hi`` (no upper bound when None).

    >>> int_in("--jobs", 1)("2")
    2
    >>> int_in("-k", 0, 63)("64")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: -k must be an int from 0 to 63, got 64
    """
    want = f"an int from {lo} to {hi}" if hi is not None else f"an int of at least {lo}"

    def parse(value: str) -> int:
        try:
            v = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be {want}, got {value!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{name} must be {want}, got {v}")
        return v

    return parse


def byte_size(name: str, lo: int = 0, hi: int = (1 << 62) - 1) -> Callable[[str], int]:
    """An argparse ``type`` for a size option ``name``: bytes, as an int or with a binary suffix
    (``512M``, ``2G``, ``1.5GiB``: :data:`simhash_lab._validate.BYTE_UNITS`, one table for every
    option), in ``lo..hi``.

    >>> byte_size("--max-bytes")("64M")
    67108864
    >>> byte_size("--memory", 64 << 20)("1M")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: --memory must be at least 64 MiB, got '1M'
    """

    def parse(value: str) -> int:
        try:
            return parse_byte_size(name, value, lo, hi)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return parse
