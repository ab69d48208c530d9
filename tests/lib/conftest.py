"""Fixtures for the library tests that read hostile files."""

import resource

import pytest


def _vm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmSize in /proc/self/status")


@pytest.fixture
def memory_cap():
    """Cap this process's address space at what it uses now plus 1 GiB for the test's duration, so
    that code which reads a /dev/zero link or inflates a zip bomb fails with MemoryError instead
    of taking the machine's memory (other work runs on it). Restored afterwards."""
    try:
        vm = _vm_bytes()
    except (OSError, RuntimeError):
        pytest.skip("needs /proc/self/status")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + (1 << 30)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield cap
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
