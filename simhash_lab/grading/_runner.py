"""The program the sandbox runs: one notebook, its measured answers first, and what it exports.

``simhash_lab.grading._sandbox`` starts it as ``python -I /grade/runner.py`` inside bubblewrap and
talks to it over two pipes: the job arrives as one JSON line on stdin; messages go back as JSON
lines on the descriptor that was stdout when it started (stdout and stderr of the notebook's code go
to the log, stderr). Nothing it sends is trusted: once a student's cell has run, this process is
the student's, and so is every message after that. The grader reads the messages as untrusted data
and judges them in its own process.

One job, one notebook run (``job["mode"] == "notebook"``), in up to four phases, each started by
the grader:

1. **Read** (``job["read"]``: indices of the student's cells): each of those cells as plain Python
   (IPython's transformations of its magics and ``!`` lines, :func:`to_python`; nothing runs), one
   ``{"event": "python", "i": ..., "text": ...}`` each, ``text`` None when the cell took longer
   than ``cell_timeout`` or too much memory to read, or its text is longer than a message may
   carry (``max_text`` bytes of JSON). This comes before any code of the student's has run in this
   process.
2. **Measure** (``job["measure"]``): the grader, having read those texts, sends one line
   ``{"units": [...]}``, a unit for each answer whose method is checked: only the definitions the
   grader extracted for it (:mod:`simhash_lab.grading._code_checks`: its functions and what they
   use of the student's cells, past the static checks), written to a file of its own and run in a
   copy of the pristine setup cells' namespace; then its cases, counting lines in that file (and
   tracing its int variables, and what it reads of the structures it is handed):
   ``{"event": "unit", "key": ..., "phase": "start" | "end", "error": ...}`` around the
   definitions, ``{"event": "measuring", "key": ...}``, ``{"event": "measures", "key": ...,
   "results": ...}``, and ``{"event": "measured"}`` after the last unit. With ``fresh``
   (pure-Python methods), every call starts from the definitions alone: they run again, in a copy
   of the setup's namespace, before each call. No cell of the notebook has run yet: the process
   has run the runner, IPython's import, the pristine setup and the guarded definitions, nothing
   else, and the grader takes measures only from messages that reach it before it releases the
   first cell.
3. **Cells**: the assembled notebook's cells (setup and given cells from the pristine copy, the
   student's answer cells and their own cells; check cells are not sent) in an IPython shell,
   each under a time limit, reporting ``{"event": "cell", "i": ..., "phase": "start" | "end",
   ...}``; each cell runs only once the grader has released it (a ``{"go": i}`` line on stdin),
   whose clock times it.
4. **Exports**: after the last cell the grader sends the hidden cases for the answer functions
   (one more line), when it has seen that cell end: it decides, so no cell can have read them on a
   forged message; the runner exports each answer (``{"event": "export", "key": ..., "values" |
   "results": ...}``) and ends with ``{"event": "done"}``.

In phases 2 and 4 an answer whose call runs past its time makes no more calls (its later cases are
reported as not run): a hang costs that answer one call's time.

Before any of that it lowers its limits (address space, CPU seconds, processes, file size, core
dumps), which no code that runs later can raise again, and, when started as root (the sandbox's
root, without a user namespace), drops to the unprivileged uid the job names.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import threading
import time

_MAX_JOB = 64 << 20


class _Lines:
    """Lines of a descriptor, one at a time (what the grader sends: the job, each cell's release,
    the cases), however the pipe splits or joins them."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()

    def readline(self, limit: int = _MAX_JOB) -> bytes:
        while b"\n" not in self.buf:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                break
            self.buf += chunk
            if len(self.buf) > limit:
                raise SystemExit("runner: job too large")
        i = self.buf.find(b"\n")
        end = len(self.buf) if i < 0 else i + 1
        line = bytes(self.buf[:end])
        del self.buf[:end]
        return line


class _Channel:
    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, msg: dict) -> None:
        data = (json.dumps(msg, allow_nan=True, ensure_ascii=True) + "\n").encode("ascii")
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]


def _limit(kind: int, value: int | None) -> None:
    if value is None:
        return
    soft, hard = resource.getrlimit(kind)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(kind, (value, value))


def _drop(job: dict) -> None:
    uid = job.get("uid")
    if os.getuid() != 0 or uid is None:
        return
    gid = job.get("gid", uid)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.getuid() == 0 or os.geteuid() == 0:
        raise SystemExit("runner: could not drop root")


def _prepare(job: dict, lines: _Lines) -> tuple[_Channel, _Lines]:
    """Drop root, lower the limits, move the control pipes off stdin/stdout, make the folders."""
    _drop(job)
    lim = job.get("limits", {})
    _limit(resource.RLIMIT_AS, lim.get("memory"))
    _limit(resource.RLIMIT_CPU, lim.get("cpu"))
    _limit(resource.RLIMIT_NPROC, lim.get("nproc"))
    _limit(resource.RLIMIT_FSIZE, lim.get("fsize"))
    _limit(resource.RLIMIT_NOFILE, lim.get("nofile"))
    _limit(resource.RLIMIT_CORE, 0)
    ctl_out, ctl_in = os.dup(1), os.dup(0)  # not inherited by children (O_CLOEXEC)
    lines.fd = ctl_in
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    sys.stdout = os.fdopen(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)
    sys.stdin = open(os.devnull, encoding="utf-8")
    for var in ("HOME", "IPYTHONDIR", "MPLCONFIGDIR", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR"):
        if os.environ.get(var):
            os.makedirs(os.environ[var], exist_ok=True)
    os.makedirs(job["workdir"], exist_ok=True)
    os.chdir(job["workdir"])
    sys.dont_write_bytecode = True
    for p in reversed(job.get("pythonpath", [])):
        sys.path.insert(0, p)
    return _Channel(ctl_out), lines


class _CellTimeout(BaseException):
    """A cell ran past its time (BaseException: ``except Exception`` in the cell does not hide it)."""


def _alarm(seconds: float | None) -> None:
    signal.setitimer(signal.ITIMER_REAL, seconds or 0)


def _on_alarm(signum, frame):
    raise _CellTimeout()


def _error(e: BaseException | None) -> dict | None:
    if e is None:
        return None
    from simhash_lab.grading import _protocol

    if isinstance(e, _CellTimeout):
        return {"timeout": True}
    return {"type": _protocol.type_name(type(e)), "text": _protocol.exception_text(e)}


def _export_values(ns: dict, names: list[str]) -> dict:
    from simhash_lab.grading import _protocol

    out = {}
    for name in names:
        if name not in ns:
            out[name] = {"missing": True}
            continue
        try:
            out[name] = {"ok": _protocol.plain(ns[name])}
        except _protocol.NotPlain as e:
            out[name] = {"bad": str(e)}
    return out


def _use_variant(job: dict) -> None:
    from simhash_lab.grading import data

    if "shown" in job:  # the hidden variant for the data, the student's for what they work out by hand
        data.use_variant(job.get("variant"), shown=job.get("shown"))
    else:
        data.use_variant(job.get("variant"))


def to_python(source: str) -> str:
    """A cell's source as plain Python: IPython's magics and ``!`` lines turned into the calls
    IPython makes of them (a text transformation; nothing runs). A cell IPython cannot transform
    is returned as it is (the grader then finds it is not Python)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        return TransformerManager().transform_cell(source)
    except Exception:
        return source


def _read(job: dict, ch: _Channel) -> None:
    """Phase 1: the student's cells named by ``job["read"]`` as plain Python, each under the cell's
    time limit (IPython's transformations of a hostile cell can take minutes: ``'x?\n' * 16000``)."""
    cells = job["cells"]
    for i in job.get("read", ()):
        t0 = time.monotonic()
        try:
            _alarm(job.get("cell_timeout"))
            text = to_python(cells[i]["source"])
        except (_CellTimeout, MemoryError, RecursionError):
            text = None
        finally:
            _alarm(0)
        if text is not None and len(json.dumps(text)) > job.get("max_text", 1 << 20):
            text = None  # longer than a message may carry
        ch.send({"event": "python", "i": i, "text": text, "seconds": time.monotonic() - t0})


def _namespace(setup: dict, name: str) -> dict:
    """A copy of the setup's namespace as the globals of a module of its own, ``name``, in
    ``sys.modules`` (as a notebook's ``__main__`` is there: Numba finds an object-mode block's
    globals through it)."""
    import types

    module = types.ModuleType(name)
    module.__dict__.update(setup)
    module.__dict__["__name__"] = name
    sys.modules[name] = module
    return module.__dict__


def _measure(job: dict, units: list[dict], ch: _Channel) -> None:
    """Phase 2: each measured answer ("unit") on its own, before any cell of the notebook runs: its
    definitions in a copy of the pristine setup's namespace, in a file of its own (whose lines are
    counted), then its cases."""
    import builtins

    from simhash_lab.grading import _protocol

    ns: dict = {"__name__": "__main__", "__builtins__": builtins}
    for i, src in enumerate(job.get("setup", ()) if units else ()):
        exec(compile(src, f"<setup {i}>", "exec"), ns)
    setup = dict(ns)  # the setup's namespace, before any answer's code ran
    timeout = job.get("call_timeout")
    for u, unit in enumerate(units):
        key = unit["key"]
        name = f"answer_{u}"
        path = os.path.join(job["workdir"], f"{name}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(unit["code"])
        own = _namespace(setup, name)
        t0 = time.monotonic()
        ch.send({"event": "unit", "key": key, "phase": "start"})
        try:
            code = compile(unit["code"], path, "exec")
            _alarm(job.get("cell_timeout"))
            exec(code, own)
            err = None
        except BaseException as e:  # the definitions themselves failed (a bad decorator argument, say)
            err = _error(e)
        finally:
            _alarm(0)
        ch.send({"event": "unit", "key": key, "phase": "end", "error": err})
        ch.send({"event": "measuring", "key": key})
        results = fresh = None
        if err is None:
            fns = {n: own.get(n) for n in unit["names"]}
            if unit.get("fresh"):
                # every call starts from the definitions alone: a module-level value, a default or
                # anything else an earlier call wrote is gone (the setup's namespace is copied, the
                # code run again)

                def fresh(code=code, names=unit["names"], name=name) -> dict:
                    again = _namespace(setup, name)
                    exec(code, again)
                    return {n: again.get(n) for n in names}

            results = _protocol.run_cases(fns, unit["cases"], files=[path], timeout=timeout, fresh=fresh)
        ch.send({"event": "measures", "key": key, "results": results, "seconds": time.monotonic() - t0})
        sys.modules.pop(name, None)  # what the unit defined is not kept for what runs next
        del own, fresh
    ch.send({"event": "measured"})


def _run_notebook(job: dict, ch: _Channel, ctl_in: _Lines) -> None:
    from simhash_lab.grading import _protocol

    _use_variant(job)
    signal.signal(signal.SIGALRM, _on_alarm)
    # 1-2. before any cell of the notebook: its student cells read, its measured answers measured
    _read(job, ch)
    if job.get("measure"):
        line = ctl_in.readline()
        if not line.strip():
            raise SystemExit("runner: the grader stopped")
        units = json.loads(line).get("units", [])
        del line  # the measured answers' cases are not kept for the cells
        _measure(job, units, ch)
        del units

    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    cfg = Config()
    cfg.HistoryManager.enabled = False
    cfg.InteractiveShell.colors = "NoColor"
    cfg.InteractiveShell.xmode = "Plain"
    # one namespace per notebook of the job: a class run sends one notebook; a batch of trusted
    # notebooks (the grader's tests) sends several, each in a shell of its own
    shells: dict[int, InteractiveShell] = {}

    def shell_of(ns: int) -> InteractiveShell:
        if ns not in shells:
            shells[ns] = InteractiveShell.instance(config=cfg) if not shells else InteractiveShell(config=cfg)
        return shells[ns]

    cell_timeout = job.get("cell_timeout")
    for i, cell in enumerate(job["cells"]):
        # no hook an earlier cell installed sees what the grader sends next
        sys.settrace(None)
        sys.setprofile(None)
        threading.settrace(None)
        threading.setprofile(None)
        go = ctl_in.readline(1 << 10)  # the grader releases each cell: its clock, not ours
        if not go.strip():
            raise SystemExit("runner: the grader stopped")
        token = json.loads(go)["token"]
        del go
        shell = shell_of(cell.get("ns", 0))
        ch.send({"event": "cell", "i": i, "phase": "start"})
        t0 = time.monotonic()
        err = None
        try:
            _alarm(cell_timeout)
            result = shell.run_cell(cell["source"], store_history=False)
            _alarm(0)
            err = _error(result.error_before_exec or result.error_in_exec)
        except _CellTimeout:
            err = {"timeout": True}
        finally:
            _alarm(0)
        end = {"event": "cell", "i": i, "phase": "end", "error": err, "seconds": time.monotonic() - t0}
        ch.send({**end, "token": token})
        del token
    ch.send({"event": "ready"})
    line = ctl_in.readline()
    cases = json.loads(line) if line.strip() else {}
    for answer in job["exports"]:
        key = answer["key"]
        ns = shell_of(answer.get("ns", 0)).user_ns
        ch.send({"event": "exporting", "key": key})
        if answer["kind"] == "values":
            ch.send({"event": "export", "key": key, "values": _export_values(ns, answer["names"])})
            continue
        fns = {n: ns.get(n) for n in answer["names"]}
        results = _protocol.run_cases(fns, cases.get(key, []), timeout=job.get("call_timeout"))
        ch.send({"event": "export", "key": key, "results": results})
    ch.send({"event": "done"})


def main() -> int:
    lines = _Lines(0)
    job = json.loads(lines.readline())
    ch, ctl_in = _prepare(job, lines)
    ch.send({"event": "started", "uid": os.getuid()})
    if job["mode"] == "notebook":
        _run_notebook(job, ch, ctl_in)
    else:
        raise SystemExit(f"runner: unknown mode {job['mode']!r}")
    sys.stdout.flush()
    os._exit(0)  # no atexit hooks of the notebook's code


if __name__ == "__main__":
    sys.exit(main())
