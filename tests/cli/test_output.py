"""A command's output (simhash_lab.cli._output): characters the stream cannot hold become \\u
escapes, JSON stays valid UTF-8, a closed or failing stdout is an OutputError, a reader that has
gone is a BrokenPipeError, and a failing stderr loses the line, never the run."""

from __future__ import annotations

import io
import json

import pytest

from simhash_lab.cli import _output as O


class Stream(io.StringIO):
    def __init__(self, encoding: str, fail: BaseException | None = None) -> None:
        super().__init__()
        self._encoding, self._fail = encoding, fail

    @property
    def encoding(self) -> str:
        return self._encoding

    def write(self, text: str) -> int:
        if self._fail is not None:
            raise self._fail
        return super().write(text)


def test_out_writes_what_the_encoding_holds_and_escapes_the_rest(monkeypatch):
    s = Stream("ascii")
    monkeypatch.setattr("sys.stdout", s)
    O.out("caf\u00e9 \U0001f389 ok\n")
    assert s.getvalue() == "caf\\u00e9 \\U0001f389 ok\n"
    u = Stream("utf-8")
    monkeypatch.setattr("sys.stdout", u)
    O.out("caf\u00e9 \U0001f389\n")
    assert u.getvalue() == "caf\u00e9 \U0001f389\n"


@pytest.mark.parametrize("encoding", ["utf-8", "UTF_8", "ascii", "latin-1"])
def test_out_json_is_valid_json_in_any_encoding(monkeypatch, encoding):
    s = Stream(encoding)
    monkeypatch.setattr("sys.stdout", s)
    doc = {"name": "caf\u00e9 \u4f60\u597d", "n": [1, 2]}
    O.out_json(doc)
    text = s.getvalue()
    assert text.endswith("\n") and json.loads(text) == doc
    assert text.isascii() == (encoding.lower().replace("_", "-") != "utf-8")


@pytest.mark.parametrize(
    "stdout, words",
    [
        (None, "standard output is closed"),
        (Stream("utf-8", OSError(28, "No space left on device")), "No space left on device"),
        (Stream("utf-8", ValueError("I/O operation on closed file")), "closed file"),
    ],
)
def test_a_closed_or_failing_stdout_is_an_output_error(monkeypatch, stdout, words):
    monkeypatch.setattr("sys.stdout", stdout)
    with pytest.raises(O.OutputError, match=words):
        O.out("x\n")


def test_a_reader_that_has_gone_is_a_broken_pipe(monkeypatch):
    monkeypatch.setattr("sys.stdout", Stream("utf-8", BrokenPipeError()))
    with pytest.raises(BrokenPipeError):
        O.out("x\n")


def test_err_writes_one_line_and_a_failing_stderr_loses_it_quietly(monkeypatch):
    s = Stream("ascii")
    monkeypatch.setattr("sys.stderr", s)
    O.err("simhash-lab x: caf\u00e9")
    assert s.getvalue() == "simhash-lab x: caf\\u00e9\n"
    for broken in (None, Stream("utf-8", OSError(5, "EIO"))):
        monkeypatch.setattr("sys.stderr", broken)
        O.err("lost")  # no exception
