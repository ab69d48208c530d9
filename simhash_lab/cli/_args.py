"""Argument types shared by the subcommands: each names its option in the error argparse prints."""

from __future__ import annotations

import argparse
from collections.abc import Callable


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
