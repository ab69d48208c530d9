"""Writing a command's output so that no file name, locale or closed stream gives a traceback.

File names are escaped before they get here (:func:`simhash_lab._files.show_name`); what is left
is the stream: a character its encoding cannot hold (``PYTHONIOENCODING=ascii``, a C locale) is
written as a ``\\uNNNN`` escape, JSON is UTF-8 (or pure ASCII when stdout cannot take UTF-8), and a
closed or failing stdout becomes :class:`~simhash_lab._write.OutputError` (as an output file that
cannot be written does, :mod:`simhash_lab._write`), which :func:`simhash_lab.cli.main` turns
into one line on stderr and an exit status. A reader that stops early (``| head``) raises
``BrokenPipeError``, which ``main`` treats as the end of the run, as other Unix tools do.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from .._write import OutputError  # (one class for stdout and for output files)

__all__ = ["OutputError", "err", "flush", "out", "out_json"]


def _write(stream: TextIO, text: str) -> None:
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:  # (stderr would write \\xNN escapes of its own: make them ours)
        text = _encodable(text, encoding)
    stream.write(text)


def _encodable(text: str, encoding: str) -> str:
    """``text`` with each character ``encoding`` cannot hold written ``\\uNNNN`` (``\\UNNNNNNNN``),
    never ``\\xNN``, which :func:`~simhash_lab._files.show_name` keeps for bytes that are not UTF-8."""
    out = []
    for ch in text:
        try:
            ch.encode(encoding)
            out.append(ch)
        except UnicodeEncodeError:
            c = ord(ch)
            out.append(f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}")
    return "".join(out)


def out(text: str) -> None:
    """Write ``text`` to stdout.

    Raises
    ------
    BrokenPipeError
        The reader has gone (``| head``).
    OutputError
        stdout is closed or failed (``>&-``, a full disk).
    """
    if sys.stdout is None:
        raise OutputError("standard output is closed")
    _guard(_write, sys.stdout, text)


def flush() -> None:
    """Flush stdout (its buffer is where a closed or full output shows); errors as :func:`out`."""
    if sys.stdout is not None:
        _guard(sys.stdout.flush)


def _guard(fn, *args) -> None:
    try:
        fn(*args)
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as e:  # ValueError: the stream was closed by someone
        raise OutputError(f"cannot write to standard output: {getattr(e, 'strerror', None) or e}") from None


def out_json(doc: Any) -> None:
    """Write ``doc`` as indented JSON and a newline to stdout: UTF-8, or ASCII escapes when stdout's
    encoding is not UTF-8 (either way valid UTF-8 bytes)."""
    enc = (getattr(sys.stdout, "encoding", None) or "").lower().replace("_", "-")
    out(json.dumps(doc, indent=2, ensure_ascii=enc not in ("utf-8", "utf8")) + "\n")


def err(line: str) -> None:
    """Write one line to stderr; a closed or failing stderr loses the line, never the run."""
    if sys.stderr is None:
        return
    try:
        _write(sys.stderr, line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
