"""The warmup (simhash_lab.warmup): every step runs, a second run compiles nothing, and afterwards a new
process fingerprints, traces, queries and dedups with compiles forbidden."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, cwd=ROOT
    )


def test_warmup_runs_every_step_and_a_second_run_compiles_nothing(tmp_path):
    """``simhash-lab warmup`` (in this checkout's cache, as ``make test`` runs it): afterwards a new
    process fingerprints, traces, queries and reads JSONL by the scanner with compiles forbidden."""
    from simhash_lab import warmup

    out = io.StringIO()
    warmup.run(progress=True, file=out)  # the first may compile, if the cache is cold
    out = io.StringIO()
    compiled, seconds = warmup.run(progress=True, file=out)
    assert compiled == 0, out.getvalue()
    text = out.getvalue()
    for name, _ in warmup.steps():
        assert name in text
    assert "simhash-lab warmup: 0 kernels compiled" in text
    env = dict(os.environ, PYTHONPATH=str(ROOT), SIMHASH_LAB_ON_COMPILE="error")  # the same cache
    code = (
        "import numpy as np\n"
        "from simhash_lab import Simhasher, SimhashIndex, hamming, is_near, presets\n"
        "from simhash_lab.tokenize import char_ngrams, word_shingles\n"
        "docs = ['rust safe fast', 'hello world'] * 40\n"
        "for h in (Simhasher(), presets.LEONSIM, presets.SEED_PYTHON, presets.SEED_RUST,\n"
        "          Simhasher(bits=6, tokenizer=word_shingles(2), weights='binary')):\n"
        "    h.fingerprint(docs[0]); h.fingerprints(docs); h.trace(docs[0]); h.features(docs[1])\n"
        "Simhasher(bits=4, hash={'rust': 3, 'safe': 5, 'fast': 7}).trace('rust safe fast')\n"
        "fps = Simhasher().fingerprints(docs)\n"
        "ix = SimhashIndex(k=3); ix.add_many(fps); ix.query(int(fps[0])); ix.pairs()\n"
        "hamming(fps, fps[0]); is_near(1, 3, 1)\n"
        "from simhash_lab.dedup import dedup_texts\n"
        "dedup_texts([d + ' ' + str(i % 7) for i, d in enumerate(docs)] * 4, candidates='bands')\n"
        "from simhash_lab.datasets import JsonlSource\n"
        "JsonlSource._SCAN_MIN = 0  # the scanner whatever the size, as the reader calls it\n"
        f"src = JsonlSource({str(tmp_path / 'd.jsonl')!r}, 'text', 'id', 'p')\n"
        "assert src._scan_names() is not None\n"
        "assert [len(t) for t, _, _ in src.chunks(8)] == [3]\n"
        "print('no compile')\n"
    )
    (tmp_path / "d.jsonl").write_text('{"id": 1, "text": "a b", "p": 2}\n' * 3)
    res = _python(code, env)
    assert res.returncode == 0 and res.stdout.strip() == "no compile", res.stderr[-3000:]
