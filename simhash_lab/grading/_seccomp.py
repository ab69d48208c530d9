"""A seccomp filter for the grading sandbox: threads yes, new processes and namespaces no.

bubblewrap loads a classic BPF program from a file descriptor (``bwrap --seccomp FD``) just before
it runs the runner; the kernel then applies it to the runner and to every thread it starts, and no
code can remove it. This one

* refuses (``EPERM``) ``fork``, ``vfork`` and every ``clone`` that does not start a thread, so the
  notebook's code cannot start a process at all (no daemon, no shell, no fork that multiplies the
  per-process memory limit); ``clone3`` answers ``ENOSYS``, so that glibc falls back to ``clone``
  for its threads (whose flags a filter can read);
* refuses the calls that rearrange namespaces and mounts (``unshare``, ``setns``, ``mount``,
  ``umount2``, ``pivot_root``), ``ptrace``, the kernel keyring, ``bpf``, ``perf_event_open``,
  ``userfaultfd`` and ``io_uring``: nothing a notebook needs, and the usual surface of kernel bugs;
* kills the process on a system call of another ABI (x86's 32-bit ``int 0x80``, x32), which would
  otherwise number the calls differently and slip past the rules.

Built here, by hand (a few instructions; no libseccomp), for x86-64 and AArch64. On another machine
:func:`program` returns None and the sandbox runs without it (its other limits still hold).
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["program"]

# BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h)
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_ERRNO = 0x00050000
_CLONE_THREAD = 0x00010000
_X32_BIT = 0x40000000

_ARCHES = {
    # machine: (AUDIT_ARCH, clone, clone3, {name: nr} refused with EPERM)
    "x86_64": (
        0xC000003E,
        56,
        435,
        {
            "fork": 57,
            "vfork": 58,
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "ptrace": 101,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "process_vm_writev": 311,
        },
    ),
    "aarch64": (
        0xC00000B7,
        220,
        435,
        {
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "ptrace": 117,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "process_vm_writev": 271,
        },
    ),
}


def _assemble(code: list[tuple]) -> bytes:
    """Instructions ``(op, k)`` or ``(op, k, "label-if-true", "label-if-false")`` and ``"label"``
    strings, to the bytes of a ``struct sock_filter`` array (jumps resolved to offsets)."""
    where, n = {}, 0
    for item in code:
        if isinstance(item, str):
            where[item] = n
        else:
            n += 1
    out, i = bytearray(), 0
    for item in code:
        if isinstance(item, str):
            continue
        op, k, *jumps = item
        jt = jf = 0
        if jumps:
            jt, jf = (0 if j is None else where[j] - i - 1 for j in jumps)
            if not (0 <= jt < 256 and 0 <= jf < 256):  # pragma: no cover - the program is small
                raise ValueError("a BPF jump out of range")
        out += struct.pack("=HBBI", op, jt, jf, k)
        i += 1
    return bytes(out)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine (see the module docstring), or None if it has no rules here."""
    machine = machine or platform.machine()
    spec = _ARCHES.get({"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine))
    if spec is None:
        return None
    arch, clone, clone3, refused = spec
    code: list = [
        (_LD_W_ABS, 4),  # seccomp_data.arch
        (_JEQ_K, arch, None, "kill"),
        (_LD_W_ABS, 0),  # seccomp_data.nr
    ]
    if machine == "x86_64":
        code.append((_JGE_K, _X32_BIT, "kill", None))
    code.append((_JEQ_K, clone, "clone", None))
    code.append((_JEQ_K, clone3, "nosys", None))
    for nr in sorted(set(refused.values())):
        code.append((_JEQ_K, nr, "eperm", None))
    code += [
        (_RET_K, _ALLOW),
        "clone",
        (_LD_W_ABS, 16),  # the low 32 bits of args[0]: clone's flags (little-endian)
        (_JSET_K, _CLONE_THREAD, "allow", "eperm"),
        "allow",
        (_RET_K, _ALLOW),
        "eperm",
        (_RET_K, _ERRNO | errno.EPERM),
        "nosys",
        (_RET_K, _ERRNO | errno.ENOSYS),
        "kill",
        (_RET_K, _KILL_PROCESS),
    ]
    return _assemble(code)
