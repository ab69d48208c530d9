"""Compiling (simhash_lab.kernels._jit): one compiled kernel for one thread and many, one
specialisation per kernel, and the switch that makes a compile visible. The warmup is tested in
tests/lib/test_warmup.py.

Each test that needs an empty cache runs in a new process with its own ``NUMBA_CACHE_DIR``
(the ``run_measured`` fixture), so it neither reads nor disturbs the shared one.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

DOCS = """
import sys
sys.path.insert(0, {bench!r})
from _corpus import documents
from simhash_lab import Simhasher
from simhash_lab.tokenize import char_ngrams
docs = documents(4000, 200)
h = {hasher}
""".format


def _setup(hasher: str) -> str:
    return DOCS(bench=str(ROOT / "benchmarks"), hasher=hasher)


PATHS = {"fused": "Simhasher()", "general": "Simhasher(tokenizer=char_ngrams(3))"}


def _assert_once_each(compiled: dict) -> None:
    twice = {k: v for k, v in compiled.items() if len(v) > 1}
    assert not twice, f"compiled more than once: {twice}"


@pytest.mark.parametrize("path", ["fused", "general"])
def test_one_compiled_kernel_runs_on_one_thread_and_on_every_thread(run_measured, tmp_path, path):
    """No parallel twin: the kernel a single text compiles is the one a batch runs in threads, on
    every thread, in the process that compiled it and in a later one that loads it."""
    cache = tmp_path / "cache"
    setup = _setup(PATHS[path])
    parallel = "h.fingerprints(docs, parallel=True)"
    cold = run_measured(setup, parallel, first="h.fingerprint(docs[0])", cache=cache)
    assert cold["threads"] == 2
    assert cold["busy"] >= 2, cold["ticks"]
    _assert_once_each(cold["compiled"])
    kernel = "fingerprints_str" if path == "fused" else "fingerprints"
    files = {p.name for p in cache.rglob("*.nbi") if p.name.startswith("fingerprint.")}
    assert any(f.startswith(f"fingerprint.{kernel}-") for f in files), files
    assert not any("parallel" in f or "serial" in f for f in files), files
    warm = run_measured(setup, parallel, cache=cache)  # a new process, loading what was cached
    assert warm["compiled"] == {} and warm["busy"] >= 2, warm
    serial = run_measured(setup, "h.fingerprints(docs, parallel=False)", cache=cache)
    assert serial["busy"] == 1, serial["ticks"]  # and a serial call stays in its thread


def test_every_kernel_compiles_once_whatever_the_settings(run_measured):
    """Tokenizer, hash, weights and width are runtime arguments: one compiled kernel serves all."""
    setup = _setup("Simhasher()") + (
        "from simhash_lab import presets\nfrom simhash_lab.tokenize import word_shingles, whitespace\n"
        "hs = [Simhasher(bits=b, tokenizer=t, hash=x, weights=w) for b in (4, 64)"
        " for t in (char_ngrams(3), word_shingles(2), whitespace())"
        " for x in ('xxh3', 'md5', 'siphash13-rust')"
        " for w in ('tf', 'binary', {'the': 2.0})] + [presets.LEONSIM, presets.SEED_RUST]\n"
    )
    call = "[g.fingerprints(docs[:3], parallel=False) for g in hs]; [g.trace(docs[0]) for g in hs[:3]]"
    res = run_measured(setup, call)
    assert res["compiled"], "nothing compiled: the cache was not empty"
    _assert_once_each(res["compiled"])


def _python(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )


def test_a_compile_can_be_made_visible_or_an_error(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path))
    code = "import numpy as np; from simhash_lab import hamming; print(hamming(np.arange(3, dtype='u8'), 1))"
    warn = _python(code, dict(env, SIMHASH_LAB_ON_COMPILE="warn"))
    assert warn.returncode == 0 and warn.stdout.split() == ["[1", "0", "2]"], warn.stderr
    assert "simhash_lab: compiling simhash_lab.kernels.hamming.hamming_scalar_kernel" in warn.stderr
    quiet = _python(code, dict(env, SIMHASH_LAB_ON_COMPILE="warn"))  # cached now: nothing to say
    assert quiet.returncode == 0 and "compiling" not in quiet.stderr
    code = "from simhash_lab import is_near; is_near(1, 2, 1)"
    err = _python(code, dict(env, SIMHASH_LAB_ON_COMPILE="error"))
    assert err.returncode == 1 and "RuntimeError: simhash_lab: compiling" in err.stderr
    assert "is_near_kernel" in err.stderr


PROBE_MODULE = """
from simhash_lab.kernels._jit import kernel


@kernel(inline=True)
def scaled(a, i, k):
    return a[i] * k


@kernel
def total(a, lo, hi):
    s = 0
    for i in range(lo, hi):
        s += a[i]
    return s


@kernel
def caller(a):
    n = a.shape[0]
    return total(a, 0, n) + total(a, 1, 2) + scaled(a, 0, 3) + scaled(a, n - 1, 5)


@kernel
def later(a):
    return scaled(a, 1, 7)
"""

PROBE_RUN = """
import json, sys
import numpy as np
import probe_kernels as P
from simhash_lab.kernels._jit import MISSES
a = np.arange(1, 6, dtype=np.int64)
if sys.argv[1] == "later":  # a new process: the helper from the cache, linked into a new kernel
    value = int(P.later(a))
    print(json.dumps({"value": value, "misses": [m for m, _ in MISSES],
                      "scaled_library": type(P.scaled.overloads[P.scaled.signatures[0]].library).__name__}))
    sys.exit()
value = int(P.caller(a))
llvm = P.caller.inspect_llvm(P.caller.signatures[0])
calls = [ln.strip() for ln in llvm.splitlines() if " call " in ln and ("scaled" in ln or "total" in ln)]
lib = P.scaled.overloads[P.scaled.signatures[0]].library
print(json.dumps({"value": value, "total": [str(s) for s in P.total.signatures],
                  "scaled": [str(s) for s in P.scaled.signatures], "calls": calls,
                  "scaled_library": type(lib).__name__,
                  "scaled_machine_code": lib._compiled_object is not None,
                  "scipy_linalg": "scipy.linalg" in sys.modules,
                  "from_python": int(P.scaled(a, 1, 2))}))
"""


def _probe_runs(tmp_path, script: str, runs: tuple[str, ...]) -> dict:
    """``script`` (printing a JSON line last) run with each of ``runs`` in a new process, the
    probe kernels' module beside it and a Numba cache of the test's own (the same cache for
    every run, in order): each run's JSON, by name."""
    import json

    (tmp_path / "probe_kernels.py").write_text(PROBE_MODULE)
    env = dict(
        os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}", NUMBA_CACHE_DIR=str(tmp_path / "cache")
    )
    env.pop("SIMHASH_LAB_ON_COMPILE", None)
    got = {}
    for which in runs:
        out = subprocess.run(
            [sys.executable, "-c", script, which], env=env, capture_output=True, text=True, timeout=600,
            cwd=tmp_path,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr[-3000:]
        got[which] = json.loads(out.stdout.strip().splitlines()[-1])
    return got


def test_a_constant_argument_compiles_no_second_specialisation_and_a_helper_is_inlined(tmp_path):
    """``total(a, 0, n)`` types its constant 0 as ``Literal[int](0)``: Numba alone would compile
    ``total`` once for it and once for ``total(a, 1, 2)``'s constants. Here both calls share one
    compiled ``total``, and the ``inline=True`` helper, compiled once and turned into no machine
    code of its own, leaves no call behind in its caller's optimised code (LLVM inlined it) yet
    still runs when Python calls it; a new process links it from the cache into a new kernel.
    Nor did compiling import ``scipy.linalg`` (Numba's BLAS check, ``_jit``)."""
    runs = _probe_runs(tmp_path, PROBE_RUN, ("first", "later"))
    res = runs["first"]
    assert res["value"] == 15 + 2 + 3 + 25
    assert res["total"] == ["(Array(int64, 1, 'C', False, aligned=True), int64, int64)"], res["total"]
    assert res["scaled"] == ["(Array(int64, 1, 'C', False, aligned=True), int64, int64)"], res["scaled"]
    assert not [c for c in res["calls"] if "scaled" in c], res["calls"]
    assert res["scaled_library"] == "_LinkOnlyLibrary" and not res["scaled_machine_code"], res
    assert not res["scipy_linalg"]
    assert res["from_python"] == 4
    later = runs["later"]
    assert later["value"] == 14
    assert later["misses"] == ["probe_kernels.later"], later["misses"]  # the helper was loaded
    assert later["scaled_library"] == "_LinkOnlyLibrary", later


def test_the_index_compiles_each_kernel_once(run_measured):
    """The index passes constant shifts and bounds to its sorting kernels (``_counting_sort(...,
    0, ...)``): one compiled specialisation each all the same."""
    res = run_measured(
        "from simhash_lab.index.warm import steps",
        "dict(steps())['index: build, query, pairs (one thread)']()",
    )
    assert res["compiled"], "nothing compiled: the cache was not empty"
    twice = {k: v for k, v in res["compiled"].items() if len(v) > 1}
    assert not twice, f"compiled more than once: {twice}"
    assert not [s for v in res["compiled"].values() for s in v if "Literal" in s], res["compiled"]


ORDINARY_RUN = """
import json, sys
import numpy as np
from simhash_lab.kernels import _jit
_jit._uses_env = lambda module: True  # as if the helper's code read its environment
import probe_kernels as P
a = np.arange(1, 6, dtype=np.int64)
value = int(P.caller(a) if sys.argv[1] == "first" else P.later(a))
lib = P.scaled.overloads[P.scaled.signatures[0]].library
link_only = getattr(lib, "link_only", False)  # loaded from the cache: Numba's own library class
print(json.dumps({"value": value, "misses": [m for m, _ in _jit.MISSES], "link_only": link_only}))
"""


def test_a_helper_that_reads_its_environment_is_finalised_the_ordinary_way(tmp_path):
    """The fallback of ``_LinkOnlyLibrary``: a helper whose code would read its Numba environment
    gets machine code, is cached as Numba caches any function, and a new process loads it from the
    cache and links it into a new kernel."""
    runs = _probe_runs(tmp_path, ORDINARY_RUN, ("first", "later"))
    assert runs["first"]["value"] == 15 + 2 + 3 + 25 and runs["first"]["link_only"] is False, runs
    assert runs["later"] == {"value": 14, "misses": ["probe_kernels.later"], "link_only": False}, runs


OTHER_HASHES = ("md5_pair", "_md5_block", "siphash13", "xxh64", "hash_span", "hash_batch")


def test_a_first_default_fingerprint_compiles_no_other_hash_and_another_hash_reuses_its_kernels(
    run_measured, tmp_path
):
    """The hashes other than XXH3 are compiled by the first call that asks for one (their kernels
    call them through ``vote.hash_batch``'s address): a first default ``fingerprints`` compiles
    none of them; a first MD5 one then compiles them and no fingerprint kernel again, and gives the
    fingerprints of the hash's definition."""
    cache = tmp_path / "cache"
    setup = _setup("Simhasher()") + "import hashlib\nfrom simhash_lab import presets\n"
    first = run_measured(setup, "h.fingerprints(docs[:200])", cache=cache)
    assert "simhash_lab.kernels.fingerprint.fingerprints_str" in first["compiled"], first["compiled"]
    pulled = [k for k in first["compiled"] if k.rsplit(".", 1)[1] in OTHER_HASHES]
    assert not pulled, f"a default fingerprint compiled the other hashes: {pulled}"
    md5 = run_measured(
        setup,
        "g = Simhasher(hash='md5'); fp = g.fingerprints(['rust is safe', 'safe rust'] * 40)\n"
        "ref = g.fingerprints([['rust', 'is', 'safe'], ['safe', 'rust']] * 40)\n"
        "assert fp.tolist() == ref.tolist() and len(set(fp.tolist())) == 2, fp\n"
        "votes = [sum(1 if int(hashlib.md5(w.encode()).hexdigest()[:16], 16) >> i & 1 else -1"
        " for w in ('rust', 'is', 'safe')) for i in range(64)]\n"
        "assert int(fp[0]) == sum(1 << i for i, v in enumerate(votes) if v > 0), hex(int(fp[0]))",
        cache=cache,
    )
    names = {k.rsplit(".", 1)[1] for k in md5["compiled"]}
    assert {"hash_batch", "md5_pair"} <= names, md5["compiled"]
    assert not names & {"fingerprints_str", "hash_vote_tokens", "lower_tokenize_str"}, md5["compiled"]
