"""The sandbox every graded notebook runs in: bubblewrap, limits, and a watchdog outside it.

What the sandbox is (one ``bwrap`` per run; see :func:`bwrap_command`):

* **Filesystem**: a fresh root with only what Python needs bound read-only: ``/usr`` (and the
  ``/lib``/``/bin`` links), a few files of ``/etc``, the interpreter's prefix and the directories on
  ``sys.path``, and the ``simhash_lab`` package itself (not the checkout around it: no solutions, no
  tests, no git). Inside the package, ``grading/`` is replaced by a read-only copy of only what the
  notebook may use: ``data.py`` and ``_protocol.py``, an empty ``__init__``, and a ``checks`` whose
  every checker does nothing (the real ones, with their references, stay out of reach). The
  only writable places are a private ``/tmp`` and ``/dev/shm``, both size-limited tmpfs that vanish
  with the sandbox; HOME, TMPDIR, IPYTHONDIR, MPLCONFIGDIR and JUPYTER_* point into ``/tmp``. So
  nothing in the package, the pristine notebooks, ``sitecustomize``/startup files or the teacher's
  ``--json`` can be written, or even seen when it is not needed.
* **Processes**: a seccomp filter (:mod:`simhash_lab.grading._seccomp`) lets the notebook start
  threads but no process at all, and refuses new namespaces, mounts, ``ptrace`` and a few more.
  Behind it, the own PID namespace: when the runner ends, every process in the sandbox dies with it
  (a ``setsid`` daemon too, were one started), and ``--die-with-parent`` ends it all when the
  grader kills bwrap. No network, own IPC and hostname, a new session (no terminal to inject into).
* **Identity**: started as root (as in CI), bwrap runs without a user namespace and the runner's
  first act is to drop to an unprivileged uid of its own (one per parallel slot, so the process
  limit counts only that sandbox) with no capabilities; started as a user, bwrap puts the sandbox in
  a new user namespace as uid 65534 and forbids nested ones.
* **Limits** (lowered by the runner before any notebook code, for every process of the sandbox,
  irreversibly): address space (``--memory``, default 2 GiB: Numba, NumPy and IPython run well in
  it), CPU seconds (the notebook's time limit), processes and threads, file size, no core dumps.
* **Time**, enforced from outside, on the grader's clock: the watchdog in :func:`run` gives each
  step of the run (a student's cell read as Python, a measured answer's definitions and its calls,
  a cell from the moment the grader released it, an answer's exports) its own time, and kills the
  sandbox when a step runs past it, or the whole run past the notebook's; a message from the
  sandbox can end a step early, never extend one, and the hidden cases go out when the grader
  decides (see :class:`_Watch`). The runner's own alarm stops an ordinary endless loop first,
  cooperatively.
* **Messages** are untrusted data: each line is size- and shape-limited before it is parsed, and
  what one run's messages may cost the grader is bounded (:class:`Limits`).

Where bwrap cannot run (not Linux, no bubblewrap, no namespaces), :func:`availability` says why in
one line; ``simhash-lab grade`` then refuses unless given ``--unsafe-no-sandbox``, which runs the
same runner as a plain subprocess with the same limits but none of the isolation.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import queue
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import _protocol, _seccomp

__all__ = ["Limits", "Run", "availability", "bwrap_command", "run", "SandboxUnavailable"]

_PKG = Path(__file__).resolve().parents[1]  # the simhash_lab package
_GRADING = _PKG / "grading"
RUNNER = "/grade/runner.py"
WORKDIR = "/tmp/work"
SANDBOX_UID_BASE = 2_000_000_000
_STUB_INIT = '"""simhash_lab.grading inside the grading sandbox: the data, nothing else."""\n'
_STUB_CHECKS = (
    '"""Inside the grading sandbox the checkers do nothing: the grader judges outside."""\n\n\n'
    "def __getattr__(name):\n"
    "    if name.startswith('__'):\n"
    "        raise AttributeError(name)\n"
    "    return lambda *args, **kwargs: None\n"
)


class SandboxUnavailable(RuntimeError):
    """bubblewrap cannot run here; ``str(e)`` is the one-line reason."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """Limits of one graded notebook (seconds, bytes)."""

    memory: int = 2 << 30
    cell_timeout: float = 30.0
    timeout: float = 240.0
    call_timeout: float = _protocol.CALL_TIMEOUT
    nproc: int = 64
    tmp_size: int = 256 << 20
    shm_size: int = 64 << 20
    fsize: int = 128 << 20
    nofile: int = 256
    grace: float = 5.0
    max_messages: int = 64 << 20  # bytes of messages, all of one run
    max_message: int = 8 << 20  # bytes of one message (one line)
    max_items: int = 200_000  # values in one message, before it is parsed
    max_run_items: int = 1_000_000  # values kept of one run (what its messages may cost here)
    max_depth: int = 64
    max_string: int = 1 << 20
    max_log: int = 200_000

    def answer_time(self, calls: int) -> float:
        """Seconds one answer's export or measured calls may take, from their start, before the watchdog
        ends the sandbox: a step's time (its definitions, a first compile), two calls' limit (the
        runner itself stops an answer at its first call past ``call_timeout``) and a quarter second
        a call; more only when a hang does not let the runner's alarm stop it (a compiled loop)."""
        return self.cell_timeout + self.grace + 2 * self.call_timeout + 0.25 * calls

    def for_runner(self, wall: float) -> dict:
        return {
            "memory": int(self.memory),
            "cpu": max(1, int(wall) + 1),
            "nproc": int(self.nproc),
            "fsize": int(self.fsize),
            "nofile": int(self.nofile),
        }


@dataclasses.dataclass
class Run:
    """What one sandbox run reported: its messages (untrusted data), how it ended, its log."""

    messages: list[dict]  # from the release of the first cell on: the cells and the exports
    returncode: int | None
    killed: str | None  # why the watchdog killed it: "read", "unit", "cell", "export", "notebook",
    #                     "output"; None if it did not
    where: tuple | None  # ("read", i), ("unit", key), ("cell", i), ("export", key), ("done", None):
    #                      what was running at the end
    log: str
    seconds: float
    overflow: str | None = None  # killed == "output": what was too much
    texts: dict = dataclasses.field(default_factory=dict)  # phase 1: cell index -> plain Python or None
    measured: list[dict] = dataclasses.field(default_factory=list)  # phase 2's messages, all before cell 0


# -- can bwrap run here? -------------------------------------------------------------------------------


def _bwrap() -> str | None:
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def _bwrap_version() -> tuple[int, ...]:
    try:
        out = subprocess.run([_bwrap(), "--version"], capture_output=True, text=True, timeout=10).stdout
        return tuple(int(p) for p in out.split()[-1].split("."))
    except Exception:
        return (0,)


@functools.lru_cache(maxsize=1)
def availability() -> str | None:
    """None when bubblewrap can sandbox a process here, else the one-line reason it cannot."""
    if not sys.platform.startswith("linux"):
        return f"the grader's sandbox (bubblewrap) needs Linux; this is {sys.platform}"
    if _bwrap() is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    with tempfile.TemporaryDirectory(prefix="simhash-lab-probe-") as tmp:
        prog = _seccomp.program()
        fd = _fd_of(tmp, "seccomp.bpf", prog) if prog else None
        cmd = [*bwrap_command(probe=True, seccomp_fd=fd), sys.executable, "-I", "-c", "print('ok')"]
        try:
            p = subprocess.run(
                cmd,
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                pass_fds=() if fd is None else (fd,),
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bubblewrap did not start: {e}"
        finally:
            if fd is not None:
                os.close(fd)
    if p.returncode != 0 or p.stdout.strip() != "ok":
        err = " ".join((p.stderr or "").split())[:200] or f"exit status {p.returncode}"
        return f"bubblewrap cannot create the sandbox here ({err}); are user namespaces disabled?"
    return None


# -- the command -------------------------------------------------------------------------------------


def _python_dirs() -> list[str]:
    """Directories the interpreter needs, read-only: its prefixes, and the ``sys.path`` entries that
    are installed packages (inside a prefix, or a ``site-packages``/``dist-packages``). Not the
    other entries: the current directory of ``python -m`` (a class folder, say) or a checkout on
    PYTHONPATH stay out of the sandbox; the simhash_lab package itself is bound alone."""
    prefixes = {os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)}
    prefixes.add(os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))))
    dirs = set(prefixes)
    for p in sys.path:
        if not p or not os.path.isdir(p):
            continue
        real = os.path.realpath(p)
        installed = os.path.basename(real) in ("site-packages", "dist-packages")
        if installed or any(real == q or real.startswith(q.rstrip("/") + "/") for q in prefixes):
            dirs.add(real)
    private = ("/tmp", "/dev", "/proc")
    return [
        d for d in _outermost(dirs) if not any(p == d or p.startswith(d.rstrip("/") + "/") for p in private)
    ]


def _outermost(paths) -> list[str]:
    out: list[str] = []
    for p in sorted(set(paths), key=lambda s: (s.count(os.sep), s)):
        if p in ("/", "") or any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            continue
        out.append(p)
    return out


_ETC = ("ld.so.cache", "ld.so.conf", "localtime", "nsswitch.conf", "passwd", "group", "fonts", "mime.types")
_SYSTEM = ("usr",)
_LINKS = ("lib", "lib32", "lib64", "libx32", "bin", "sbin")


def bwrap_command(
    *,
    probe: bool = False,
    root: bool | None = None,
    limits: Limits | None = None,
    data_fds: dict[str, int] | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The ``bwrap`` arguments of the sandbox (see the module docstring), up to the command.

    ``data_fds`` maps a path in the sandbox to an open file descriptor whose content becomes that
    (read-only) file; ``seccomp_fd`` is a descriptor of the filter of :mod:`._seccomp`; ``probe``
    gives a minimal sandbox to test that bwrap runs at all.
    """
    limits = limits or Limits()
    root = os.geteuid() == 0 if root is None else root
    args = [_bwrap() or "bwrap", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    args += ["--unshare-cgroup-try", "--die-with-parent", "--new-session", "--hostname", "grader"]
    if root:
        # no user namespace: the runner drops to an unprivileged uid itself (see the module docstring)
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"]
        if _bwrap_version() >= (0, 8):
            args += ["--disable-userns"]
    made: set[str] = set()
    binds: list[tuple[str, str]] = []

    def mkdirs(path: str) -> None:
        parts = Path(path).parent.parts[1:]
        cur = ""
        for part in parts:
            cur += "/" + part
            if cur in made or any(cur == b or cur.startswith(b + "/") for _, b in binds):
                continue
            made.add(cur)
            args.extend(["--perms", "0755", "--dir", cur])

    def ro(src: str, dest: str | None = None) -> None:
        dest = dest or src
        mkdirs(dest)
        args.extend(["--ro-bind", src, dest])
        binds.append((src, dest))

    # the private, writable places first: what is bound below may live under /tmp (a CI checkout)
    args += ["--dev", "/dev", "--proc", "/proc"]
    args += ["--perms", "1777", "--size", str(limits.tmp_size), "--tmpfs", "/tmp"]
    args += ["--perms", "1777", "--size", str(limits.shm_size), "--tmpfs", "/dev/shm"]
    made.update({"/tmp", "/dev"})
    for d in _SYSTEM:
        if os.path.isdir("/" + d):
            ro("/" + d)
    for d in _LINKS:
        p = "/" + d
        if os.path.islink(p):
            args.extend(["--symlink", os.readlink(p), p])
        elif os.path.isdir(p):
            ro(p)
    for name in _ETC:
        p = "/etc/" + name
        if os.path.exists(p):
            ro(os.path.realpath(p), p)
    for d in _python_dirs():
        if not any(d == b or d.startswith(b + "/") for _, b in binds):
            ro(d)
    cache = os.environ.get("NUMBA_CACHE_DIR")
    if cache and os.path.isdir(cache) and not probe:  # compiled kernels: read, never written
        real = os.path.realpath(cache)
        if not any(real == b or real.startswith(b + "/") for _, b in binds):
            ro(real, os.path.abspath(cache))
    if not probe:
        pkg = str(_PKG)
        if not any(pkg.startswith(b + "/") for _, b in binds):
            ro(pkg)
        grading = str(_GRADING)
        for _, d in list(binds):  # another simhash_lab on the path: its grader is out of reach too
            other = os.path.join(d, "simhash_lab", "grading")
            if os.path.isdir(other) and os.path.realpath(other) != grading:
                args.extend(["--tmpfs", other, "--remount-ro", other])
        args.extend(["--tmpfs", grading])
        for name in ("data.py", "_protocol.py"):
            args.extend(["--ro-bind", str(_GRADING / name), f"{grading}/{name}"])
        args.extend(["--ro-bind", str(_GRADING / "_runner.py"), RUNNER])
        args.extend(["--dir", f"{grading}/checks"])
        for dest, fd in (data_fds or {}).items():
            args.extend(["--perms", "0644", "--ro-bind-data", str(fd), dest])
        args.extend(["--remount-ro", grading])
    args += ["--remount-ro", "/"]
    args += ["--clearenv", "--chdir", "/tmp"]
    for k, v in _environment().items():
        args += ["--setenv", k, v]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    return args


def _fd_of(tmp: str, name: str, data: bytes) -> int:
    """A read-only descriptor of a new file ``tmp/name`` holding ``data`` (for bwrap's ``--*-data``
    and ``--seccomp`` options, which read their content from a descriptor)."""
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(data)
    return os.open(path, os.O_RDONLY)


def _environment() -> dict[str, str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": "/tmp/home",
        "USER": "student",
        "LOGNAME": "student",
        "TMPDIR": "/tmp",
        "IPYTHONDIR": "/tmp/ipython",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "MPLBACKEND": "Agg",
        "JUPYTER_CONFIG_DIR": "/tmp/jupyter/config",
        "JUPYTER_DATA_DIR": "/tmp/jupyter/data",
        "JUPYTER_RUNTIME_DIR": "/tmp/jupyter/runtime",
        "JUPYTER_PLATFORM_DIRS": "1",
        "XDG_CACHE_HOME": "/tmp/cache",
        "NUMBA_NUM_THREADS": str(max(1, min(2, os.cpu_count() or 1))),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for k in ("NUMBA_CACHE_DIR", "SIMHASH_LAB_ON_COMPILE"):
        if os.environ.get(k):
            env[k] = os.environ[k]
    return env


# -- one run -----------------------------------------------------------------------------------------


def _reader(stream, q: queue.Queue, limit: int, line_limit: int) -> None:
    """Lines of ``stream`` into ``q``, each at most ``line_limit`` bytes and ``limit`` in all: a
    longer line, or more, is ``("overflow", why)`` and the end (never held whole in memory)."""
    total = 0
    try:
        while True:
            line = stream.readline(line_limit + 1)
            if not line:
                return
            total += len(line)
            if len(line) > line_limit or (len(line) == line_limit + 1 and not line.endswith(b"\n")):
                q.put(("overflow", f"a message of more than {line_limit >> 20} MiB"))
                return
            if total > limit:
                q.put(("overflow", f"more than {limit >> 20} MiB of messages"))
                return
            q.put(("line", line))
    except (OSError, ValueError):
        pass
    finally:
        q.put(("eof", None))


def _writer(stream, outbox: queue.Queue) -> None:
    """Write what arrives in ``outbox`` to ``stream`` until None; stop at the first error."""
    try:
        while True:
            data = outbox.get()
            if data is None:
                break
            stream.write(data)
            stream.flush()
    except (OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except (OSError, ValueError):
            pass


def _log_reader(stream, out: list, limit: int) -> None:
    size = 0
    try:
        while True:
            chunk = stream.read(1 << 14)
            if not chunk:
                return
            if size < limit:
                out.append(chunk[: limit - size])
            size += len(chunk)
    except (OSError, ValueError):
        pass


def run(
    job: dict,
    *,
    limits: Limits,
    wall: float,
    cases: dict | None = None,
    measure: Callable[[dict[int, str | None]], list[dict]] | None = None,
    unsafe: bool = False,
    slot: int = 0,
) -> Run:
    """Run ``job`` in a fresh sandbox (see :mod:`simhash_lab.grading._runner`) and watch it.

    Parameters
    ----------
    job : dict
        The runner's job, without ``limits``, ``uid``, ``workdir`` (filled in here).
    limits : Limits
    wall : float
        Seconds the whole run may take.
    cases : dict, optional
        The hidden cases, sent when the grader has seen the last cell end (see :class:`_Watch`).
    measure : callable, optional
        ``measure(texts)`` -> the units of the measure phase (measured answers, with their hidden
        cases), called once the cells of ``job["read"]`` have been read (``texts``: cell index ->
        plain Python, or None for a cell that could not be read), before any cell is released.
        None: the run has no measure phase.
    unsafe : bool
        No bubblewrap: the runner as a plain subprocess (``--unsafe-no-sandbox``).
    slot : int
        Which parallel grading slot this is (root: each slot its own uid).
    """
    t0 = time.monotonic()
    root = os.geteuid() == 0
    job = dict(job, limits=limits.for_runner(wall), pythonpath=[str(_PKG.parent)])
    with tempfile.TemporaryDirectory(prefix="simhash-lab-grade-") as tmp:
        if unsafe:
            workdir = os.path.join(tmp, "work")
            cmd = [sys.executable, "-I", str(_GRADING / "_runner.py")]
            job["workdir"] = workdir
            env = {k: v.replace("/tmp", tmp) for k, v in _environment().items()}
            env["PATH"] = os.environ.get("PATH", env["PATH"])
            pass_fds: tuple[int, ...] = ()
            files = []
        else:
            job["workdir"] = WORKDIR
            if root:
                job["uid"] = SANDBOX_UID_BASE + (os.getpid() % 1_000_000) * 64 + slot % 64
            data_fds = {
                f"{_GRADING}/__init__.py": _fd_of(tmp, "init.py", _STUB_INIT.encode()),
                f"{_GRADING}/checks/__init__.py": _fd_of(tmp, "checks.py", _STUB_CHECKS.encode()),
            }
            files = list(data_fds.values())
            prog = _seccomp.program()
            seccomp_fd = _fd_of(tmp, "seccomp.bpf", prog) if prog else None
            if seccomp_fd is not None:
                files.append(seccomp_fd)
            cmd = [
                *bwrap_command(limits=limits, data_fds=data_fds, seccomp_fd=seccomp_fd),
                sys.executable,
                "-I",
                RUNNER,
            ]
            env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
            pass_fds = tuple(files)
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                cwd=tmp,
                pass_fds=pass_fds,
                start_new_session=True,
            )
        finally:
            for fd in files:
                os.close(fd)
        return _Watch(proc, job, cases, limits, wall, t0, measure).run()


class _Watch:
    """The grader's side of one run (``_Watch(...).run()``: feed the runner and watch it): the
    runner's phases as states, each step on its own deadline, set here, on the grader's clock.

    ``read``
        The student's cells named by ``job["read"]`` come back as plain Python, in order, each
        with a step's time (a cell's limit and the grace): ``python`` messages. No code of the
        student's has run yet.
    ``measure``
        With those texts, ``measure(texts)`` gives the units, sent as one line; each unit gets a
        step's time for its definitions (from its ``unit`` start) and then its calls' time
        (:meth:`Limits.answer_time`, from its ``measuring``), each once, in the units' order (a
        message can start the next step's time early, never give one more): a hang costs that
        answer only. The phase ends with ``measured``; every message of it is in ``Run.measured``,
        and none after it is: the grader releases the first cell only then, so what a cell sends
        reaches it afterwards and is never taken for a measure.
    ``cells``
        The grader releases the cells one at a time (``{"go": i, "token": T}`` on the runner's
        stdin, ``T`` fresh and random) and cell ``i``'s deadline starts when the grader released
        it; a message can end the running cell early (``{"event": "cell", "i": i, "phase": "end",
        "token": T}``: that very cell, with the token only the runner read), never extend it or any
        other.
    ``exports``
        The hidden cases go out when the grader has seen the last cell end, in the same step,
        never on a message's word (the runner's ``ready`` is not read); each answer then gets its
        own time, once, in the job's order, from its ``exporting`` message.
    ``done``
        The runner said it is done; it must exit within the grace.

    Every message is size- and shape-limited before it is parsed
    (:func:`simhash_lab.grading._protocol.loads_bounded`), and what one run's messages may cost here
    is bounded (``Limits.max_run_items``).

    What is left: the token is in the runner's memory, which the cell's code shares; code that digs
    it out of the runner's frame could still end its own cell early. It would gain time for its own
    notebook's exports, never a measure (all taken before the first cell was released) nor anything
    of another notebook.
    """

    def __init__(
        self,
        proc: subprocess.Popen,
        job: dict,
        cases: dict | None,
        limits: Limits,
        wall: float,
        t0: float,
        measure: Callable[[dict[int, str | None]], list[dict]] | None = None,
    ) -> None:
        self.proc, self.limits, self.cases, self.measure = proc, limits, cases or {}, measure
        self.job = dict(job, measure=measure is not None)
        self.to_read = [i for i in self.job.get("read", ()) if type(i) is int]
        self.n_cells = len(self.job.get("cells", ()))
        self.deadline = t0 + wall
        self.t0 = t0
        self.per_step = limits.cell_timeout + limits.grace
        self.state = "start"
        self.step_deadline = self.deadline
        self.where: tuple | None = None
        self.killed: str | None = None
        self.overflow: str | None = None
        self.messages: list[dict] = []
        self.measured: list[dict] = []
        self.texts: dict[int, str | None] = {}
        self.budget = limits.max_run_items
        self.grants: list[tuple[str, str, float]] = []  # (event, key, seconds): the steps to come, in order
        self.current = 0  # cells: the cell the grader released last
        self.token = ""  # the running cell's: its end message must carry it
        self.outbox: queue.Queue = queue.Queue()

    # -- sending -------------------------------------------------------------------------------------

    def send(self, obj: Any) -> None:
        self.outbox.put((json.dumps(obj) + "\n").encode())

    def step(self, seconds: float) -> None:
        self.step_deadline = min(self.deadline, time.monotonic() + seconds)

    def grant(self, event: str, key: Any) -> None:
        """The step ``(event, key)`` starts: its time, once, in order (the steps before it are over)."""
        for g, (e, k, seconds) in enumerate(self.grants):
            if (e, k) == (event, key):
                del self.grants[: g + 1]
                self.step(seconds)
                return

    # -- the states, in order ------------------------------------------------------------------------

    def start(self) -> None:
        self.send(self.job)
        if self.to_read:
            self.state, self.where = "read", ("read", self.to_read[0])
            self.step(self.per_step)
        else:
            self.start_measure()

    def start_measure(self) -> None:
        if self.measure is None:
            self.start_cells()
            return
        units = self.measure(dict(self.texts))
        self.grants = [
            step
            for u in units
            for step in (
                ("unit", u["key"], self.per_step),
                ("measuring", u["key"], self.limits.answer_time(_calls(u.get("cases", ())))),
            )
        ]
        self.state, self.where = "measure", ("unit", units[0]["key"] if units else None)
        self.send({"units": units})
        self.step(self.per_step)  # the setup's namespace, then the first unit's start

    def start_cells(self) -> None:
        if self.n_cells:
            self.state = "cells"
            self.release(0)
        else:
            self.start_exports()

    def release(self, i: int) -> None:
        self.where = ("cell", i)
        self.token = secrets.token_hex(16)
        self.send({"go": i, "token": self.token})
        self.step(self.per_step)

    def start_exports(self) -> None:
        """The grader's step: the last cell has ended (or there is none), the cases go out now."""
        self.state, self.where = "exports", ("export", None)
        self.grants = [
            ("exporting", e["key"], self.limits.answer_time(_calls(self.cases.get(e["key"], ()))))
            for e in self.job.get("exports", ())
        ]
        self.send(self.cases)
        self.outbox.put(None)
        self.step(self.per_step)  # until the first export

    # -- messages ------------------------------------------------------------------------------------

    def on_message(self, msg: dict) -> None:
        event = msg.get("event")
        if self.state == "read":
            if event == "python" and msg.get("i") == self.to_read[0]:
                text = msg.get("text")
                self.texts[self.to_read.pop(0)] = text if type(text) is str else None
                if self.to_read:
                    self.where = ("read", self.to_read[0])
                    self.step(self.per_step)
                else:
                    self.start_measure()
        elif self.state == "measure":
            self.measured.append(msg)
            key = msg.get("key")
            if event == "unit" and msg.get("phase") == "start" and isinstance(key, str):
                self.where = ("unit", key)
                self.grant("unit", key)
            elif event == "measuring" and isinstance(key, str):
                self.where = ("unit", key)
                self.grant("measuring", key)
            elif event == "measured":
                self.start_cells()
        elif self.state == "cells":
            self.messages.append(msg)
            if event == "cell" and msg.get("phase") == "end":
                running = type(msg.get("i")) is int and msg["i"] == self.current
                if not running or msg.get("token") != self.token:
                    return  # not the running cell's, or not the runner's: it ends nothing
                self.current += 1
                if self.current < self.n_cells:
                    self.release(self.current)
                else:
                    self.start_exports()
        elif self.state == "exports":
            self.messages.append(msg)
            if event == "exporting" and isinstance(msg.get("key"), str):
                self.where = ("export", msg["key"])
                self.grant("exporting", msg["key"])
            elif event == "done":
                self.state, self.where = "done", ("done", None)
        else:  # done, or before the job went out
            self.messages.append(msg)

    def on_timeout(self, now: float) -> None:
        self.killed = "notebook" if now >= self.deadline else (self.where[0] if self.where else "notebook")

    # -- the loop ------------------------------------------------------------------------------------

    def run(self) -> Run:
        from ._protocol import TooMany, loads_bounded

        proc, limits = self.proc, self.limits
        q: queue.Queue = queue.Queue()
        log: list[bytes] = []
        threads = [
            threading.Thread(
                target=_reader, args=(proc.stdout, q, limits.max_messages, limits.max_message), daemon=True
            ),
            threading.Thread(target=_log_reader, args=(proc.stderr, log, limits.max_log), daemon=True),
        ]
        for t in threads:
            t.start()
        # Writes go through a thread of their own: a sandbox that stops reading its stdin (its code
        # can) must not block the watchdog.
        writer = threading.Thread(target=_writer, args=(proc.stdin, self.outbox), daemon=True)
        writer.start()
        try:
            self.start()
            while True:
                now = time.monotonic()
                timeout = self.step_deadline - now
                if timeout <= 0:
                    self.on_timeout(now)
                    break
                try:
                    kind, line = q.get(timeout=timeout)
                except queue.Empty:
                    continue
                if kind == "eof":
                    break
                if kind == "overflow":
                    self.killed, self.overflow = "output", line
                    break
                try:
                    msg = loads_bounded(
                        line,
                        max_items=min(limits.max_items, self.budget),
                        max_depth=limits.max_depth,
                        max_string=limits.max_string,
                    )
                except TooMany:
                    if self.budget < limits.max_items:  # this run's messages have cost what they may
                        self.killed = "output"
                        self.overflow = f"more than {limits.max_run_items:,} values of messages"
                        break
                    continue
                except (ValueError, RecursionError):
                    continue
                if not isinstance(msg, dict):
                    continue
                self.budget -= line.count(b",") + 1
                self.on_message(msg)
            self.outbox.put(None)
            if self.killed is None:  # its output ended: it exits now, or it is made to
                try:
                    proc.wait(timeout=max(1.0, min(limits.grace, self.deadline - time.monotonic())))
                except subprocess.TimeoutExpired:
                    running = self.where[0] if self.where else None
                    self.killed = running if running in ("read", "unit", "cell", "export") else "notebook"
        finally:  # whatever happened here (a grader's bug in ``measure`` too), the sandbox ends
            self.outbox.put(None)
            if self.killed is not None or proc.poll() is None:
                proc.kill()
            proc.wait()
            for t in (*threads, writer):
                t.join(timeout=5)
            for s in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    s.close()
                except (OSError, ValueError):
                    pass
        text = b"".join(log).decode("utf-8", "replace")
        return Run(
            self.messages,
            proc.returncode,
            self.killed,
            self.where,
            text,
            time.monotonic() - self.t0,
            self.overflow,
            texts=self.texts,
            measured=self.measured,
        )


def _calls(cases: Any) -> int:
    """The calls of an answer's cases (each answer's time depends on them)."""
    return sum(len(c.get("calls", ())) for c in cases if isinstance(c, dict))
