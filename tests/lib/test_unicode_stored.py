"""The Unicode tables kept between processes (simhash_lab._unicode.stored): a new process loads
what an earlier one built, the same tables; a damaged file is built again; a read-only cache
still works. Each process runs with its own NUMBA_CACHE_DIR (the kernels' cache folder)."""

import hashlib
import json
import os
import subprocess
import sys

SCRIPT = r"""
import hashlib, json, re, sys
import numpy as np
from simhash_lab import _unicode as U
table = U.char_table(U.WORD | U.PYSPACE).copy()
low = U.lower_table()
# the tables against Python itself on a sample of code points (every 61st, and all of ASCII)
for c in list(range(128)) + list(range(128, 0x110000, 61)):
    if 0xD800 <= c < 0xE000:
        continue
    ch = chr(c)
    assert bool(table[c] & U.WORD) == bool(re.fullmatch(r"\w", ch)), c
    assert bool(table[c] & U.PYSPACE) == ch.isspace(), c
    lo = ch.lower()
    if len(lo) == 1 and c not in (0x130, 0x3A3):
        assert low[c] == ord(lo), c
print(json.dumps({"table": hashlib.sha256(table.tobytes()).hexdigest(),
                  "lower": hashlib.sha256(low.tobytes()).hexdigest(), "dtype": str(low.dtype)}))
"""


def _run(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _stored_files(cache: str) -> list[str]:
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if f.startswith("unicode-"))


def test_a_new_process_loads_the_tables_an_earlier_one_built(tmp_path):
    cache = str(tmp_path / "cache")
    first = _run(cache)
    files = _stored_files(cache)
    assert len(files) == 3  # the two classes asked for and the lowercase table
    stamps = {f: os.stat(f).st_mtime_ns for f in files}
    second = _run(cache)  # loaded, not built: the files are not written again
    assert second == first and first["dtype"] == "uint32"
    assert {f: os.stat(f).st_mtime_ns for f in files} == stamps
    digest = hashlib.sha256(b"".join(open(f, "rb").read() for f in files)).hexdigest()
    for f in files:  # damaged files: built again, the same tables
        with open(f, "r+b") as fh:
            fh.truncate(20)
    assert _run(cache) == first
    assert hashlib.sha256(b"".join(open(f, "rb").read() for f in files)).hexdigest() == digest


def test_a_cache_that_cannot_be_written_still_gives_the_tables(tmp_path):
    """The cache folder under a plain file: no folder can be made there (for root too), so
    nothing is stored and every table is built in the process."""
    want = _run(str(tmp_path / "rw"))
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    cache = str(blocker / "cache")
    assert _run(cache) == want
    assert _stored_files(str(tmp_path / "a-file")) == [] and blocker.read_text() == "not a folder"
