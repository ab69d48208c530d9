"""JsonlSource.write_kept after a whole first read: the kept rows' bytes copied by the kernel
(copy_file_range: the compiled copy of many runs a call, else os.copy_file_range a run) from the
places the read recorded, the same bytes as the block scan, and read + write where the output
refuses the copy."""

import errno
import json
import os

import numpy as np
import pytest

from simhash_lab import _write
from simhash_lab._write import OutputError
from simhash_lab.datasets import DatasetError, JsonlSource
from simhash_lab.datasets import jsonl as J
from simhash_lab.kernels import files as K


def _file(path, n=500, last_newline=True):
    parts = []
    for i in range(n):
        raw = json.dumps({"id": f"d{i}", "text": f"row {i} " + "é" * (i % 5)}, ensure_ascii=i % 2 == 0)
        parts.append(raw.encode() + (b"\r\n" if i % 9 == 0 else b"\n"))
        if i % 13 == 0:
            parts.append(b" \t\n" if i % 2 else b"\n")  # blank lines: not rows, left out
    if not last_newline:
        parts[-1] = parts[-1].rstrip(b"\r\n")
    path.write_bytes(b"".join(parts))
    return [p for p in parts if p.strip()]


@pytest.fixture
def asked(monkeypatch):
    """The writeback asked of the kernel (``Writeback``, every 97 bytes here), its calls kept."""
    real, calls = _write._SYNC_FILE_RANGE, []

    def spy(fd, offset, length, flags):
        calls.append((offset, length))
        return real(fd, offset, length, flags) if real is not None else 0

    monkeypatch.setattr(_write, "_SYNC_FILE_RANGE", spy)
    monkeypatch.setattr(_write.Writeback, "STEP", 97)
    return calls


@pytest.fixture(params=["compiled copy fails", "one call a run"])
def engine(request, monkeypatch):
    """Where os.copy_file_range (made to refuse or fail below) is called: after the compiled copy
    of the runs (``_COPY_RUNS``) failed in a run, from that run on, as it is for a real error (the
    call made again says why); or from the first run, where there is no compiled copy."""
    if request.param == "one call a run":
        monkeypatch.setattr(J, "_COPY_RUNS", None)
    else:
        calls = []

        def fails(src, dst, run_s, run_e, at, lo, hi, upto, pos):
            """The compiled copy, failing in the second run of its first call, in every later one."""
            if calls:
                pos[:] = run_s[lo], at[lo]
                return lo, K.FAILED
            calls.append(lo)
            j, status = K.copy_runs(src, dst, run_s, run_e, at, lo, min(hi, lo + 1), upto, pos)
            if j < hi:
                pos[:] = run_s[j], at[j]
                return j, K.FAILED
            return j, status

        monkeypatch.setattr(J, "_COPY_RUNS", fails)
    return request.param


def _read(path):
    src = JsonlSource(str(path), "text", "id")
    rows = sum(len(t) for t, _, _ in src.chunks(64))
    return src, rows


@pytest.mark.parametrize("last_newline", [True, False])
@pytest.mark.parametrize("share", [0.0, 0.3, 0.9, 1.0])
def test_the_copy_writes_what_the_scan_writes(tmp_path, last_newline, share, asked):
    rows = _file(tmp_path / "d.jsonl", last_newline=last_newline)
    src, n = _read(tmp_path / "d.jsonl")
    assert n == len(rows) and src._spans[0].shape == (n,)
    keep = np.random.default_rng(1).random(n) < share
    copied, scanned = tmp_path / "copied.jsonl", tmp_path / "scanned.jsonl"
    steps = []
    assert src.write_kept(str(copied), keep, steps.append) == int(keep.sum())
    assert sum(steps) == n
    fresh = JsonlSource(str(tmp_path / "d.jsonl"), "text", "id")  # never read: the block scan
    assert getattr(fresh, "_spans", None) is None
    assert fresh.write_kept(str(scanned), keep) == int(keep.sum())
    want = b"".join(r for r, k in zip(rows, keep) if k)
    assert copied.read_bytes() == scanned.read_bytes() == want
    # the copy's bytes went to the device in steps of at least 97, none asked twice, none past its end
    spans = sorted(asked)
    assert all(n >= 97 for _, n in spans) and all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))
    assert bool(spans) == (len(want) > 2000) and (not spans or spans[-1][0] + spans[-1][1] <= len(want))


@pytest.mark.parametrize("after", [0, 3])
def test_an_output_that_refuses_the_copy_is_written_by_reads(tmp_path, monkeypatch, after, engine):
    rows = _file(tmp_path / "d.jsonl")
    src, n = _read(tmp_path / "d.jsonl")
    real = os.copy_file_range
    calls = []

    def refuse(src_fd, dst_fd, count, offset_src=None, offset_dst=None):
        calls.append(count)
        if len(calls) > after:
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real(src_fd, dst_fd, count, offset_src, offset_dst)

    monkeypatch.setattr(os, "copy_file_range", refuse)
    monkeypatch.setattr(JsonlSource, "_COPY", 7)  # reads smaller than a row: a run in pieces
    keep = np.arange(n) % 4 != 1
    out = tmp_path / "kept.jsonl"
    assert src.write_kept(str(out), keep) == int(keep.sum())
    assert out.read_bytes() == b"".join(r for r, k in zip(rows, keep) if k)
    assert len(calls) == after + 1  # refused once, then read and written to the end


def test_a_write_error_of_the_copy_is_the_outputs(tmp_path, monkeypatch, engine):
    _file(tmp_path / "d.jsonl")
    src, n = _read(tmp_path / "d.jsonl")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "copy_file_range", full)
    with pytest.raises(OutputError, match="No space left"):
        src.write_kept(str(tmp_path / "kept.jsonl"), np.ones(n, bool))
    assert not (tmp_path / "kept.jsonl").exists()


def test_a_file_that_changed_since_the_read_is_refused(tmp_path):
    _file(tmp_path / "d.jsonl")
    src, n = _read(tmp_path / "d.jsonl")
    with open(tmp_path / "d.jsonl", "ab") as f:
        f.write(b'{"id": "x", "text": "more"}\n')
    with pytest.raises(DatasetError, match="changed while it was being deduplicated"):
        src.write_kept(str(tmp_path / "kept.jsonl"), np.ones(n, bool))


def test_the_copy_to_a_pipe_is_written_run_after_run(tmp_path):
    """An output that is not a file (``--output /dev/stdout`` into a pipe) has no places to copy
    the runs to: the rows go in order, every byte of them."""
    import threading

    rows = _file(tmp_path / "d.jsonl")
    src, n = _read(tmp_path / "d.jsonl")
    keep = np.arange(n) % 3 != 0
    r, w = os.pipe()
    got = []
    reader = threading.Thread(target=lambda: got.append(os.fdopen(r, "rb").read()))
    reader.start()
    with os.fdopen(w, "wb") as out:
        assert src._copy_kept(out, keep, src._spans, None) == int(keep.sum())
    reader.join()
    assert got[0] == b"".join(r for r, k in zip(rows, keep) if k)


@pytest.mark.parametrize("mode", ["ab", "wb after"])
def test_the_copy_to_a_file_that_holds_bytes_adds_to_them(tmp_path, mode):
    """``>> out.jsonl`` or a shell's earlier writes on ``/dev/stdout``: what the file holds stays
    before the kept rows."""
    rows = _file(tmp_path / "d.jsonl")
    src, n = _read(tmp_path / "d.jsonl")
    keep = np.arange(n) % 3 != 0
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"held\n")
    with open(path, "ab" if mode == "ab" else "r+b") as out:
        out.seek(0, os.SEEK_END)
        assert src._copy_kept(out, keep, src._spans, None) == int(keep.sum())
    assert path.read_bytes() == b"held\n" + b"".join(r for r, k in zip(rows, keep) if k)


@pytest.mark.parametrize("last_newline", [True, False])
def test_rows_selected_by_their_places_are_the_scans(tmp_path, last_newline):
    """Issue 48: after a whole first read, select reads only the wanted lines where they lie (the
    verification's rows, made again): the same texts as the scan of the file, CRLF line ends, blank
    lines and a last line without a newline included; a file changed since is refused."""
    path = tmp_path / "d.jsonl"
    _file(path, 300, last_newline)
    want = np.array([0, 1, 8, 9, 10, 13, 14, 150, 298, 299])
    scanned = [t for _, ts in JsonlSource(str(path), "text", "id").select(want, 4) for t in ts]
    src = JsonlSource(str(path), "text", "id")
    texts = [t for ts, _, _ in src.chunks(64) for t in ts]
    assert src._spans is not None  # the places known: select reads those lines, no scan
    src._blocks = lambda: pytest.fail("the file scanned again")
    got = list(src.select(want, 4))
    assert [r.tolist() for r, _ in got] == [[0, 1, 8, 9], [10, 13, 14, 150], [298, 299]]
    assert [t for _, ts in got for t in ts] == scanned == [texts[i] for i in want.tolist()]
    with open(path, "ab") as f:
        f.write(b'{"id": "x", "text": "more"}\n')
    with pytest.raises(DatasetError, match="changed while it was being deduplicated"):
        list(src.select(want, 4))


@pytest.mark.skipif(not K.AVAILABLE, reason="no copy_file_range in the C library")
def test_the_runs_are_copied_by_the_compiled_copy(tmp_path, monkeypatch, asked):
    """Into a regular file every run is copied by the compiled copy (no GIL between runs, so the
    duplicates table written beside runs meanwhile): no os.copy_file_range a run; the same bytes,
    every row passed over reported once."""
    rows = _file(tmp_path / "d.jsonl", n=3000)
    src, n = _read(tmp_path / "d.jsonl")
    monkeypatch.setattr(os, "copy_file_range", lambda *a: pytest.fail("a run copied by Python"))
    keep = np.arange(n) % 5 != 2
    steps = []
    out = tmp_path / "kept.jsonl"
    assert src.write_kept(str(out), keep, steps.append) == int(keep.sum())
    assert out.read_bytes() == b"".join(r for r, k in zip(rows, keep) if k)
    assert sum(steps) == n and len(steps) > 1  # reported after each call (Writeback.STEP: 97 bytes here)
    assert asked  # each call's bytes handed to the device
