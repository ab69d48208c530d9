"""The seccomp filter (simhash_lab.grading._seccomp) in the sandbox: threads are allowed, new processes
(fork, spawn) refused."""

from __future__ import annotations

import os
import sys


def test_the_seccomp_filter_allows_threads_and_refuses_processes(tmp_path):
    import subprocess

    from simhash_lab.grading import _sandbox, _seccomp

    prog = _seccomp.program()
    assert prog, "no seccomp rules for this machine"
    path = tmp_path / "filter.bpf"
    path.write_bytes(prog)
    fd = os.open(path, os.O_RDONLY)
    code = (
        "import os, subprocess, threading\n"
        "t = threading.Thread(target=print, args=('thread ok',)); t.start(); t.join()\n"
        "for what, f in (('fork', os.fork), ('spawn', lambda: subprocess.run(['true']))):\n"
        "    try:\n        f(); print(what, 'WORKED')\n"
        "    except OSError as e:\n        print(what, 'refused', e.errno)\n"
    )
    try:
        p = subprocess.run(
            [*_sandbox.bwrap_command(probe=True, seccomp_fd=fd), sys.executable, "-I", "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            pass_fds=(fd,),
        )
    finally:
        os.close(fd)
    assert p.stdout.split("\n")[:3] == ["thread ok", "fork refused 1", "spawn refused 1"], (
        p.stdout,
        p.stderr,
    )
