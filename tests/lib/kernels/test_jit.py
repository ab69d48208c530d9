"""The kernel cache: where it lives, that any kernel source edit invalidates it, and that a
read-only copy (the grader's sandbox) is read and never written.

Each test works on a copy of the package in ``tmp_path`` (its own in-tree cache), in new processes
started without ``NUMBA_CACHE_DIR``, as a fresh install would run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import xxhash

ROOT = Path(__file__).resolve().parents[3]

# hash_spans lives in fingerprint.py and calls the XXH3 code of hashes.py: a small kernel whose
# freshness depends on another file than its own
PROBE = r"""
import json
from simhash_lab import Simhasher
from simhash_lab.kernels import _jit
h = Simhasher()._hash_features(["hello", "near-duplicate"])
print(json.dumps({"hashes": [int(x) for x in h], "misses": [m[0] for m in _jit.MISSES],
                  "cache": _jit.cache_dir()}))
"""


@pytest.fixture
def package(tmp_path) -> Path:
    """A copy of simhash_lab (sources only) under tmp_path/pkg; returns tmp_path/pkg."""
    dest = tmp_path / "pkg"
    shutil.copytree(ROOT / "simhash_lab", dest / "simhash_lab", ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _run(pkg: Path, code: str = PROBE, sandbox: bool = False, **env_extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "SIMHASH_LAB_ON_COMPILE")}
    env.update(PYTHONPATH=str(pkg), **env_extra)
    cmd = [sys.executable, "-c", code]
    if sandbox:
        home = pkg.parent / "home"
        home.mkdir(exist_ok=True)
        # the whole file system read-only but a private home, as in the grader's sandbox
        ro = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        cmd = [*ro, "--bind", str(home), str(home), "--setenv", "HOME", str(home), *cmd]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=pkg.parent)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _bwrap_works(tmp_path) -> bool:
    if not shutil.which("bwrap"):
        return False
    probe = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], capture_output=True
    )
    return probe.returncode == 0


def test_the_cache_lives_beside_the_kernels_and_is_reused(package):
    first = _run(package)
    assert first["hashes"] == [xxhash.xxh3_64_intdigest(w) for w in (b"hello", b"near-duplicate")]
    assert "simhash_lab.kernels.fingerprint.hash_spans" in first["misses"]
    assert Path(first["cache"]) == package / "simhash_lab" / "kernels" / "__pycache__"
    assert any(p.name.startswith("fingerprint.hash_spans-") for p in Path(first["cache"]).glob("*.nbi"))
    again = _run(package)
    assert again["misses"] == [] and again["hashes"] == first["hashes"]


def test_editing_any_kernel_source_recompiles_the_kernels_that_use_it(package, tmp_path):
    """Numba stamps a cached function with its own file only: an edit to hashes.py would leave
    fingerprint.py's cached hash_spans (which holds a copy of the hash code) stale."""
    first = _run(package)
    hashes = package / "simhash_lab" / "kernels" / "hashes.py"
    src = hashes.read_text()
    old = "_PMX2 = _U64(0x9FB21C651E98DF25)"  # XXH3's multiplier for 4 to 8 bytes ("hello": 5)
    assert old in src
    hashes.write_text(src.replace(old, "_PMX2 = _U64(0x9FB21C651E98DF27)"))
    edited = _run(package)
    assert "simhash_lab.kernels.fingerprint.hash_spans" in edited["misses"]
    assert edited["hashes"][0] != first["hashes"][0]  # the new code ran
    assert edited["hashes"][1] == first["hashes"][1]  # 14 bytes: another multiplier, same hash
    fresh = _run(package, NUMBA_CACHE_DIR=str(tmp_path / "fresh"))  # compiled from scratch
    assert fresh["hashes"] == edited["hashes"]
    assert _run(package)["misses"] == []  # and the edited version is cached in its turn


def test_a_read_only_cache_is_read_and_never_written(package, tmp_path):
    if not _bwrap_works(tmp_path):
        pytest.skip("bubblewrap cannot run here")
    first = _run(package)
    cache = Path(first["cache"])
    listing = sorted(p.name for p in cache.iterdir())
    inside = _run(package, sandbox=True)
    assert inside["misses"] == [] and inside["hashes"] == first["hashes"]
    assert Path(inside["cache"]) == cache
    for p in cache.glob("fingerprint.hash_spans-*"):  # a kernel missing from the read-only cache
        p.unlink()
    listing = sorted(p.name for p in cache.iterdir())
    missing = _run(package, sandbox=True)
    assert "simhash_lab.kernels.fingerprint.hash_spans" in missing["misses"]  # compiled in memory,
    assert missing["hashes"] == first["hashes"]  # right,
    assert sorted(p.name for p in cache.iterdir()) == listing  # and nothing written


def test_a_kernel_defined_outside_the_kernels_folder_is_stamped_with_its_own_file(package):
    """A module elsewhere in the package may compile with ``kernel`` too: its own edits count."""
    probe = package / "simhash_lab" / "index" / "probe_kernel.py"
    probe.write_text("from ..kernels._jit import kernel\n\n\n@kernel\ndef plus_one(x):\n    return x + 1\n")
    code = (
        "import json\nfrom simhash_lab.index.probe_kernel import plus_one\n"
        "from simhash_lab.kernels import _jit\n"
        "print(json.dumps({'v': plus_one(41), 'misses': [m[0] for m in _jit.MISSES]}))\n"
    )
    name = "simhash_lab.index.probe_kernel.plus_one"
    first = _run(package, code)
    assert first["v"] == 42 and first["misses"] == [name]
    assert _run(package, code)["misses"] == []
    probe.write_text(probe.read_text() + "\n# an edit\n")
    assert _run(package, code)["misses"] == [name]
