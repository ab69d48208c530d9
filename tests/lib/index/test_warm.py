"""The index's warmup steps (simhash_lab.index.warm): in a new process they leave every kernel of
kernels.index compiled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def test_warmup_steps_compile_every_index_kernel():
    """In a new process, warm.steps() alone leaves every kernel of kernels.index compiled (or loaded
    from the cache)."""
    code = (
        "import json\n"
        "import simhash_lab.kernels.index as K\n"
        "from simhash_lab.index.warm import steps\n"
        "for _, fn in steps(): fn()\n"
        "ds = {n: getattr(K, n) for n in K.__all__ if hasattr(getattr(K, n), 'signatures')}\n"
        "print(json.dumps({n: len(d.signatures) for n, d in ds.items()}))\n"
    )
    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    compiled = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(compiled) >= 6  # build, query one, query many, plan pairs, pairs, unpack
    assert [n for n, count in compiled.items() if count == 0] == []
