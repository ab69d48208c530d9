#!/usr/bin/env python
"""The course in a real browser: JupyterLab in headless Chromium, every notebook, every widget.

For each notebook this opens it in JupyterLab, runs *Restart Kernel and Run All*, waits until the
kernel is idle, and checks what a learner would see:

- no cell shows an error (an ``error`` output, or a traceback printed to stderr);
- every widget output is a live widget (``.jupyter-widgets`` in the DOM), not "Loading widget...",
  "Error displaying widget" or a text repr such as ``IntSlider(value=0)``;
- every ``to_jshtml`` animation shows its player (``.anim-buttons``) and its first frame;
- one interaction per interactive notebook: drag the first widget's slider (the frame under it
  must change, pixel for pixel) and press an animation's Play (its image must change);
- as opened, before the run, every stored stepper shows its fallback, and an animated picture
  that it says plays has loaded;

and saves one screenshot of the whole notebook to ``artifacts/browser/`` (or ``--out``), and for a
notebook with widgets one more as opened (``NAME-as-opened.png``).

The server is ``make lab``'s own (``tools/lab.py``: the repository's root served, its settings
override), on a copy of ``notebooks/`` and ``exercises/`` in a temporary folder (the rest of the
repository is linked in), with temporary user settings, config, runtime and workspace folders, autosave
off and windowing off (JupyterLab 4.2+ renders only on-screen cells otherwise), so nothing in the
repository is written. Chromium is Debian's ``/usr/bin/chromium`` (``$CHROMIUM`` overrides), started
headless, without sandbox and without background networking. Server, kernels and browser are
stopped at the end, whatever happens. What runs inside the page (reading JupyterLab's state,
waiting for the run to finish) is JavaScript in ``tools/browser_check.js``, loaded into every page.

    python tools/browser_check.py                      # every notebooks/*.ipynb and one solution
    python tools/browser_check.py notebooks/02_simhash_voting.ipynb --out /tmp/shots

The pytest suite ``tests/browser`` (``make test-browser``) uses the same code.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _load_lab():
    """``tools/lab.py``, the configuration of ``make lab``'s server (the suite starts the same one)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("simhash_lab_tools_lab", Path(__file__).with_name("lab.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LAB = _load_lab()
DEFAULT_OUT = ROOT / "artifacts" / "browser"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# As this machine needs them: no sandbox as root, no GPU, and none of Chromium's own network calls.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Text a widget shows when it did not render, and reprs of widgets shown as text instead.
WIDGET_FAILURE_TEXT = (
    "Loading widget",
    "Error displaying widget",
    "Error rendering widget",
    "model not found",
    "Failed to load model class",
)
WIDGET_REPR = re.compile(
    r"^\s*(Stepper: \d+ frames|[A-Z]\w*\((value|children|layout|options|description|index)=)"
)
# User settings: no windowing (render every cell), no autosave, no restart dialog. (No news comes
# from make lab's own settings override, tools/lab.py, which the suite's server reads too.)
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
    "@jupyterlab/apputils-extension/sessionDialogs": {"skipKernelRestartDialog": True},
    "@jupyterlab/extensionmanager-extension/plugin": {"enabled": False},
}


def discover(root: Path = ROOT) -> list[Path]:
    """Every course notebook (by glob, so new ones join) and the first exercise solution."""
    found = sorted((root / "notebooks").glob("*.ipynb"))
    solutions = sorted((root / "exercises" / "solutions").glob("*.ipynb"))
    return found + solutions[:1]


def untouched_exercises(root: Path = ROOT) -> list[Path]:
    """Every student exercise as shipped (Run All must show a ❌ per check and no error)."""
    return sorted((root / "exercises").glob("*.ipynb"))


def shot_name(path: Path, root: Path = ROOT) -> str:
    """``notebooks/02_x.ipynb`` -> ``02_x.png``; ``exercises/solutions/01_y.ipynb`` ->
    ``exercises-solutions-01_y.png``."""
    rel = path.resolve().relative_to(root)
    parts = rel.with_suffix(".png").parts
    return parts[-1] if parts[0] == "notebooks" else "-".join(parts)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _descendants(pid: int) -> list[int]:
    try:
        import psutil

        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except Exception:
        return []


def _kill(pids, sig) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


class LabServer:
    """``jupyter lab`` on 127.0.0.1 with a token, over a temporary copy of the course.

    Use as a context manager, or call :meth:`start` and :meth:`stop` (safe to call twice).
    """

    def __init__(self, root: Path = ROOT, python: str = sys.executable, startup_timeout: float = 180):
        self.root = Path(root).resolve()
        self.python = python
        self.startup_timeout = startup_timeout
        self.token = secrets.token_hex(24)
        self.port = None
        self.proc = None
        self.tmp = None
        self.log_path = None

    # -- the served tree and the settings -------------------------------------------------------
    def _prepare(self) -> Path:
        self.tmp = Path(tempfile.mkdtemp(prefix="simhash-lab-browser-"))
        served = self.tmp / "root"
        served.mkdir()
        ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
        for entry in sorted(self.root.iterdir()):
            if entry.name in (".git", ".venv"):
                continue
            if entry.name in ("notebooks", "exercises"):
                shutil.copytree(entry, served / entry.name, ignore=ignore)
            else:
                (served / entry.name).symlink_to(entry)
        settings = self.tmp / "settings"
        for plugin, values in SETTINGS.items():
            f = settings / f"{plugin}.jupyterlab-settings"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(json.dumps(values, indent=2))
        for d in ("config", "runtime", "workspaces"):
            (self.tmp / d).mkdir()
        return served

    def served_path(self, notebook: Path) -> str:
        """The notebook's path as the server sees it (a URL path, '/'-separated)."""
        return Path(notebook).resolve().relative_to(self.root).as_posix()

    def add_notebook(self, nb, rel: str) -> Path:
        """Write ``nb`` (an nbformat node) into the served tree at ``rel``; returns its path
        there, which :func:`check_notebook` accepts with ``rel=rel``."""
        import nbformat

        path = self.tmp / "root" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)
        return path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> LabServer:
        served = self._prepare()
        self.port = _free_port()
        env = dict(
            os.environ,
            JUPYTERLAB_SETTINGS_DIR=str(self.tmp / "settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(self.tmp / "workspaces"),
            JUPYTER_CONFIG_DIR=str(self.tmp / "config"),
            JUPYTER_RUNTIME_DIR=str(self.tmp / "runtime"),
            PYDEVD_DISABLE_FILE_VALIDATION="1",
        )
        # make lab's own command (tools/lab.py: the root served, the map opened, no news) and its
        # settings override, plus what a test server needs
        prefix = subprocess.run(
            [self.python, "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True, check=True
        ).stdout.strip()
        LAB.write_overrides(prefix)
        cmd = LAB.command(
            served,
            self.python,
            extra=[
                "--ip=127.0.0.1",
                f"--port={self.port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}",
                "--ServerApp.open_browser=False",
                "--no-browser",
                "--LabApp.expose_app_in_browser=True",
                "--LabApp.extension_manager=readonly",
                "--ServerApp.terminals_enabled=False",
                # a safety net: a server left behind ends itself
                "--ServerApp.shutdown_no_activity_timeout=3600",
            ],
        )
        self.log_path = self.tmp / "jupyter-lab.log"
        log = open(self.log_path, "wb")
        # A process group of its own, so stop() can end it with everything it started.
        self.proc = subprocess.Popen(
            cmd,
            cwd=served,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        deadline = time.monotonic() + self.startup_timeout
        while True:
            if self.proc.poll() is not None:
                err = RuntimeError(f"jupyter lab exited with {self.proc.returncode}:\n{self.log_tail()}")
                self.stop()
                raise err
            try:
                self.api("GET", "/api/status", timeout=5)
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.monotonic() > deadline:
                err = RuntimeError(
                    f"jupyter lab did not answer in {self.startup_timeout:.0f} s:\n{self.log_tail()}"
                )
                self.stop()
                raise err
            time.sleep(0.5)

    def api(self, method: str, path: str, timeout: float = 10):
        req = urllib.request.Request(
            self.url + path, method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except Exception:
            return ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            # Kernels run in sessions of their own: note them before the server goes.
            kids = _descendants(proc.pid)
            if proc.poll() is None:
                with contextlib.suppress(Exception):
                    self.api("POST", "/api/shutdown", timeout=5)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGTERM)
                    try:
                        proc.wait(timeout=5)
                    except subprocess.TimeoutExpired:
                        with contextlib.suppress(ProcessLookupError, PermissionError):
                            os.killpg(proc.pid, signal.SIGKILL)
                        proc.wait(timeout=5)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            _kill(kids, signal.SIGKILL)
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
            self.tmp = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def launch_browser(playwright, executable: str = CHROMIUM):
    """Debian's Chromium, headless, in a fresh profile (Playwright makes an empty one)."""
    if not Path(executable).exists():
        raise FileNotFoundError(f"{executable} is missing: apt-get install -y chromium")
    return playwright.chromium.launch(
        executable_path=executable, headless=True, chromium_sandbox=False, args=CHROMIUM_ARGS
    )


# In the page: the functions of browser_check.js, loaded into every page of a check.
JS_FILE = Path(__file__).with_suffix(".js")


def _js(name: str) -> str:
    """A page function that calls ``window.simhashLabCheck.<name>`` (see ``browser_check.js``)."""
    return f"(arg) => window.simhashLabCheck.{name}(arg)"


class _Phases:
    """Seconds per phase (open, run all, ...), kept in ``Result.phases``."""

    def __init__(self, res):
        self.res, self.t = res, time.monotonic()

    def __call__(self, name: str) -> None:
        now = time.monotonic()
        self.res.phases[name] = round(now - self.t, 1)
        self.t = now


@dataclasses.dataclass
class Result:
    notebook: str
    screenshot: str = ""
    seconds: float = 0.0
    cells: int = 0
    widgets: int = 0
    animations: int = 0
    phases: dict = dataclasses.field(default_factory=dict)
    interactions: list = dataclasses.field(default_factory=list)
    problems: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)
    checks: dict = dataclasses.field(default_factory=dict)  # an exercise's check cells: index -> output

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        head = (
            f"{'ok  ' if self.ok else 'FAIL'} {self.notebook}: {self.cells} code cells, "
            f"{self.widgets} widgets, {self.animations} animations, {self.seconds:.0f} s"
            f" -> {self.screenshot}"
        )
        lines = [head]
        if self.phases:
            lines.append("    seconds: " + ", ".join(f"{k} {v:g}" for k, v in self.phases.items()))
        lines += [f"    interaction: {x}" for x in self.interactions]
        lines += [f"    note: {x}" for x in self.notes]
        lines += [f"    PROBLEM: {x}" for x in self.problems]
        return "\n".join(lines)


def _stored_expectations(path: Path) -> dict:
    """Cells whose stored outputs hold a widget or an animation (those must show one again)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    want = {"widgets": set(), "animations": set(), "checks": []}
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        if c.get("metadata", {}).get("simhash_lab", {}).get("role") == "check":
            want["checks"].append(i)
        for o in c.get("outputs", []):
            data = o.get("data", {})
            if WIDGET_MIME in data:
                want["widgets"].add(i)
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if 'class="animation"' in html:
                want["animations"].add(i)
    return want


def _pixels_changed(before: bytes, after: bytes) -> float:
    """Fraction of pixels that differ between two PNG screenshots (1.0 when sizes differ)."""
    from PIL import Image, ImageChops

    a = Image.open(io.BytesIO(before)).convert("RGB")
    b = Image.open(io.BytesIO(after)).convert("RGB")
    if a.size != b.size:
        return 1.0
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 16 else 0)
    return sum(diff.histogram()[255:]) / (a.size[0] * a.size[1])


def _interact_widget(page, cell_index: int, out_index: int, at: float = 0.55) -> tuple[str, str | None]:
    """Click a widget's slider at fraction ``at`` of its track; the part of the output below the
    controls (the frame) must change. Returns (description, problem or None)."""
    out = page.locator(
        f'[data-bc-index="{cell_index}"] [data-bc-out="{out_index}"] .jp-OutputArea-output'
    ).first
    out.scroll_into_view_if_needed()
    out.evaluate("e => e.scrollIntoView({block: 'start'})")  # a frame as wide as the page is tall:
    page.wait_for_timeout(300)  # its top, under the slider, on screen
    track = out.locator(".widget-slider .noUi-target, .widget-slider .slider-container").first
    if track.count() == 0:
        return f"cell {cell_index}: widget has no slider", None
    ob, tb = out.bounding_box(), track.bounding_box()
    top = tb["y"] + tb["height"] + 4
    screen = page.viewport_size["height"]
    height = min(ob["y"] + ob["height"] - top, 700, screen - top)  # what is on screen of the frame
    if height < 10:
        return f"cell {cell_index}: no frame under the slider", f"cell {cell_index}: widget frame is empty"
    clip = {"x": ob["x"], "y": top, "width": ob["width"], "height": height}
    before = page.screenshot(clip=clip)
    page.mouse.click(tb["x"] + tb["width"] * at, tb["y"] + tb["height"] / 2)
    page.wait_for_timeout(800)
    # the frame may be taller or shorter now: compare the same clip
    after = page.screenshot(clip=clip)
    changed = _pixels_changed(before, after)
    desc = f"cell {cell_index}: clicked the slider at {at:.0%}: {changed:.1%} of the frame's pixels changed"
    return desc, (
        None
        if changed > 0.002
        else f"cell {cell_index}: moving the slider did not "
        f"change the widget's frame ({changed:.2%} of pixels)"
    )


def _interact_animation(page, cell_index: int) -> tuple[str, str | None]:
    """Press the animation's Play, let it run, pause: its image must change."""
    anim = page.locator(f'[data-bc-index="{cell_index}"] .animation').first
    anim.scroll_into_view_if_needed()
    img = anim.locator("img").first
    before = img.screenshot()
    anim.locator('.anim-buttons button[title="Play"]').first.click(timeout=10_000)
    page.wait_for_timeout(2500)
    pause = anim.locator('.anim-buttons button[title="Pause"]')
    if pause.count():
        pause.first.click(timeout=10_000)
    after = img.screenshot()
    changed = _pixels_changed(before, after)
    desc = f"cell {cell_index}: pressed Play for 2.5 s: {changed:.1%} of the animation's pixels changed"
    return desc, (
        None
        if changed > 0.002
        else f"cell {cell_index}: Play did not change the animation's image ({changed:.2%} of pixels)"
    )


def _wait_ready(page, rel: str, res: Result, timeout: float = 120) -> None:
    """Wait for the notebook's kernel to be idle; accept a dialog (kernel choice) if one shows."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(_js("ready"), rel):
        dialog = page.locator(".jp-Dialog")
        if dialog.count():
            res.notes.append(f"dialog on opening: {dialog.first.inner_text()[:120]!r}: accepted")
            with contextlib.suppress(Exception):
                dialog.locator(".jp-mod-accept").first.click(timeout=2000)
        if time.monotonic() > deadline:
            raise TimeoutError(f"the notebook's kernel was not idle within {timeout:.0f} s")
        page.wait_for_timeout(250)


def check_notebook(
    browser,
    server: LabServer,
    notebook: Path,
    out_dir: Path,
    run_timeout: float = 300,
    interact: bool = True,
    rel: str | None = None,
) -> Result:
    """Open, restart and run all, check, interact, screenshot one notebook.

    ``notebook`` is a file under the server's root (``rel``, its served path, is derived), or one
    added with :meth:`LabServer.add_notebook` (give ``rel``)."""
    t0 = time.monotonic()
    if rel is None:
        rel, name = server.served_path(notebook), shot_name(notebook, server.root)
    else:
        name = rel.replace("/", "-").removesuffix(".ipynb") + ".png"
    res = Result(notebook=rel)
    out_dir.mkdir(parents=True, exist_ok=True)
    res.screenshot = str(out_dir / name)
    phase = _Phases(res)
    want = _stored_expectations(notebook)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    context.add_init_script(path=str(JS_FILE))
    page = context.new_page()
    console = []
    page.on("pageerror", lambda e: console.append(f"page error: {e}"))
    try:
        page.goto(
            f"{server.url}/lab/tree/{rel}?reset&token={server.token}",
            wait_until="domcontentloaded",
            timeout=120_000,
        )
        _wait_ready(page, rel, res)
        page.evaluate(_js("layout"))
        phase("open")
        if want["widgets"]:
            page.wait_for_timeout(1500)
            before = page.evaluate(_js("storedWidgets"), sorted(want["widgets"]))
            for i, live, text, n_img, n_loaded in before:
                if not live:
                    res.notes.append(
                        f"cell {i}: as opened (before running), its stored widget "
                        f"is not live and shows its fallback ({n_loaded} of {n_img} pictures "
                        f"loaded): {text[:70]!r}"
                    )
                    # a stepper's fallback is an animated picture: it must be on screen
                    if "plays by itself" in text and n_loaded == 0:
                        res.problems.append(f"cell {i}: as opened, its animated picture does not show")
            _screenshot(page, res.screenshot.replace(".png", "-as-opened.png"))
            phase("as opened")
        page.evaluate(_js("run"))
        # a restart dialog would only appear if the setting were ignored: accept it
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        with contextlib.suppress(Exception):
            dialog.click(timeout=1500)
        page.wait_for_timeout(1000)
        page.wait_for_function(_js("done"), timeout=run_timeout * 1000, polling=500)
        phase("run all")
        with contextlib.suppress(Exception):
            page.wait_for_function(
                _js("widgetsSettled"), arg=list(WIDGET_FAILURE_TEXT), timeout=30_000, polling=250
            )
        rep = page.evaluate(_js("report"), list(WIDGET_FAILURE_TEXT))
        _judge(rep, want, res)
        by_index = {c["index"]: c for c in rep["cells"]}
        for i in want["checks"]:
            res.checks[i] = "".join(o["text"] for o in by_index.get(i, {}).get("outs", []))
        phase("checks")
        widget_cells = []
        if interact:
            widget_cells = [
                (c["index"], w["out"])
                for c in rep["cells"]
                for w in c["widgets"]
                if w["live"] and not w["failed"]
            ]
            anim_cells = [
                (c["index"],) for c in rep["cells"] for a in c["anims"] if a["buttons"] >= 5 and a["frame"]
            ]
            for kind, cells, fn in (
                ("widget", widget_cells, _interact_widget),
                ("animation", anim_cells, _interact_animation),
            ):
                if not cells:
                    continue
                try:
                    desc, problem = fn(page, *cells[0])
                except Exception as e:  # a missing button, a timeout: a failure of the notebook
                    desc, problem = f"{kind} in cell {cells[0][0]}", f"{kind} interaction failed: {e}"
                res.interactions.append(desc)
                if problem:
                    res.problems.append(problem)
            if res.interactions:
                phase("interact")
        _screenshot(page, res.screenshot)
        phase("screenshot")
        if interact and widget_cells:
            # jslink'ed widgets keep working without a kernel: shut it down, move the slider again
            page.evaluate(_js("shutdown"))
            page.wait_for_timeout(1000)
            try:
                desc, problem = _interact_widget(page, *widget_cells[0], at=0.9)
            except Exception as e:
                desc, problem = "", f"{type(e).__name__}: {str(e).splitlines()[0]}"
            res.notes.append(
                "without a kernel, "
                + (
                    f"the slider still steps: {desc}"
                    if problem is None
                    else f"the widget is stuck: {problem}"
                )
            )
            phase("no kernel")
    except Exception as e:
        res.problems.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
        with contextlib.suppress(Exception):
            _screenshot(page, res.screenshot)
    finally:
        res.notes += console[:5]
        with contextlib.suppress(Exception):
            page.evaluate(_js("shutdown"))
        context.close()
        res.seconds = time.monotonic() - t0
    return res


def _judge(rep: dict, want: dict, res: Result) -> None:
    cells = rep["cells"]
    res.cells = len(cells)
    if rep["nCellNodes"] != rep["nCells"]:
        res.problems.append(
            f"only {rep['nCellNodes']} of {rep['nCells']} cells are in the page "
            f"(windowing mode {rep['windowing']!r})"
        )
    by_index = {c["index"]: c for c in cells}
    for c in cells:
        where = f"cell {c['index']} (In [{c['count']}])"
        for o in c["outs"]:
            if o["type"] == "error":
                res.problems.append(f"{where}: {o['ename']}: {o['evalue']}")
            elif o["type"] == "stream" and o["name"] == "stderr":
                text = o["text"].strip()
                if "Traceback" in text or re.search(r"^\w*Error\b", text, re.M):
                    res.problems.append(f"{where}: traceback on stderr: {text[:300]}")
                elif text:
                    res.notes.append(f"{where}: stderr: {text[:200]}")
        n_widget_outs = sum(WIDGET_MIME in o["mimes"] for o in c["outs"])
        live = [w for w in c["widgets"] if w["live"] and not w["failed"] and w["height"] > 0]
        res.widgets += len(live)
        if len(live) < n_widget_outs:
            bad = [w for w in c["widgets"] if w not in live]
            res.problems.append(
                f"{where}: {n_widget_outs - len(live)} widget output(s) not live: "
                f"{[b['failed'] or b['text'][:80] for b in bad]}"
            )
        for r in c["rendered"]:
            if WIDGET_REPR.search(r["text"]) and r["mime"] != WIDGET_MIME:
                res.problems.append(f"{where}: widget shown as text: {r['text'][:80]!r}")
        n_anim_outs = sum(o["html_animation"] for o in c["outs"])
        good = [a for a in c["anims"] if a["buttons"] >= 5 and a["visible"] and a["frame"]]
        res.animations += len(good)
        if len(good) < max(n_anim_outs, len(c["anims"])):
            res.problems.append(f"{where}: animation without a working player: {c['anims']}")
    for i in sorted(want["widgets"]):
        if i in by_index and not by_index[i]["widgets"]:
            res.problems.append(f"cell {i}: its stored output is a widget, the browser shows none")
    for i in sorted(want["animations"]):
        if i in by_index and not by_index[i]["anims"]:
            res.problems.append(f"cell {i}: its stored output is an animation, the browser shows none")


#: A class's screen, and what its back row needs: every animation and stepper at least this share
#: of the screen's width, its smallest text at least this many pixels high.
CLASS_SCREEN = {"width": 1920, "height": 1080}
CLASS_MIN_WIDTH = 0.8
CLASS_MIN_TEXT_PX = 24.0


def _presentation(page) -> None:
    """JupyterLab as the README shows a class: Simple Interface, left sidebar closed, Presentation
    Mode."""
    for command in (
        "application:toggle-mode",
        "application:toggle-left-area",
        "application:toggle-presentation-mode",
    ):
        page.evaluate(f"() => window.jupyterapp.commands.execute({command!r})")
    shell = "window.jupyterapp.shell"
    page.wait_for_function(
        f"() => {shell}.presentationMode && {shell}.mode === 'single-document' && {shell}.leftCollapsed",
        timeout=30_000,
    )
    page.wait_for_timeout(1000)


_PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"


def stored_pictures(notebook: Path) -> list[dict]:
    """Every animated picture a stepper stores (its as-opened view), in file order: the cell, the
    start of its ``src`` (to find it in the page, where JupyterLab's sanitizer drops the
    ``data-`` attributes of an untrusted notebook), its own width in pixels and its smallest
    text in them (``data-width``, ``data-text-px``: :func:`simhash_lab.course.widgets.stepper`)."""
    import nbformat

    found = []
    for i, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        for out in cell.get("outputs", []):
            html = out.get("data", {}).get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            for tag in re.findall(r"<img\b[^>]*\bdata-text-px=[^>]*>", html):
                src = re.search(r'src="([^"]+)"', tag).group(1)
                found.append(
                    {
                        "cell": i,
                        "src": src[:400],
                        "natural": int(re.search(r'data-width="(\d+)"', tag).group(1)),
                        "text_px": float(re.search(r'data-text-px="([\d.]+)"', tag).group(1)),
                    }
                )
    return found


def _shown_width(page, locator) -> float:
    locator.scroll_into_view_if_needed(timeout=30_000)
    page.wait_for_timeout(200)
    box = locator.bounding_box()
    return box["width"] if box else 0.0


def presentation_check(
    browser, server: LabServer, notebook: Path, out_dir: Path, run_all: bool = False
) -> Result:
    """The notebook as a class sees it, on a 1920×1080 screen in Presentation Mode: every stored
    animation and stepper (as opened, an animated picture) fills at least
    :data:`CLASS_MIN_WIDTH` of the screen and shows its smallest text at least
    :data:`CLASS_MIN_TEXT_PX` high (its text size in its own pixels, from the stored notebook,
    scaled to its width on screen); with ``run_all``, after *Restart Kernel and Run All* the
    live players' frames (the same pictures) pass the same two tests. Screenshots of the screen,
    ``NAME-class.png`` and ``NAME-class-run.png``."""
    t0 = time.monotonic()
    rel = server.served_path(notebook)
    res = Result(notebook=rel)
    out_dir.mkdir(parents=True, exist_ok=True)
    res.screenshot = str(out_dir / shot_name(notebook, server.root).replace(".png", "-class.png"))
    stored = stored_pictures(notebook)
    context = browser.new_context(viewport=CLASS_SCREEN, device_scale_factor=1)
    context.add_init_script(path=str(JS_FILE))
    page = context.new_page()
    width = CLASS_SCREEN["width"]

    def judge(when: str, k: int, shown: float, pic: dict, natural: float) -> None:
        share = shown / width
        text = pic["text_px"] * shown / natural if natural else 0.0
        res.notes.append(
            f"{when}, picture {k + 1} (cell {pic['cell']}): {share:.0%} of the width, text {text:.0f} px"
        )
        if share < CLASS_MIN_WIDTH:
            res.problems.append(
                f"{when}, picture {k + 1} (cell {pic['cell']}) takes {share:.0%} of the width"
            )
        if text < CLASS_MIN_TEXT_PX:
            res.problems.append(f"{when}, picture {k + 1} (cell {pic['cell']}): smallest text {text:.1f} px")

    try:
        page.goto(f"{server.url}/lab/tree/{rel}?reset&token={server.token}", timeout=120_000)
        _wait_ready(page, rel, res)
        _presentation(page)
        res.animations = len(stored)
        for k, pic in enumerate(stored):
            img = page.locator(f'{_PANEL} img[src^="{pic["src"]}"]').first
            if img.count() == 0:
                res.problems.append(f"as opened, picture {k + 1} (cell {pic['cell']}) is not in the page")
                continue
            if not img.evaluate("i => i.complete && i.naturalWidth > 0 && (i.alt || '').length >= 10"):
                res.problems.append(
                    f"as opened, picture {k + 1} (cell {pic['cell']}) did not load, or has no alt"
                )
            judge("as opened", k, _shown_width(page, img), pic, pic["natural"])
        with contextlib.suppress(Exception):
            if stored:
                page.locator(f'{_PANEL} img[src^="{stored[0]["src"]}"]').first.scroll_into_view_if_needed()
            page.screenshot(path=res.screenshot)
        if run_all:
            page.evaluate(_js("run"))
            with contextlib.suppress(Exception):
                page.locator(".jp-Dialog .jp-mod-accept").click(timeout=1500)
            page.wait_for_timeout(1000)
            page.wait_for_function(_js("done"), timeout=300_000, polling=500)
            page.wait_for_timeout(1500)
            live = 0
            for k, pic in enumerate(stored):
                frames = page.locator(f'[data-bc-index="{pic["cell"]}"] img.widget-image')
                shown = [f for f in (frames.nth(n) for n in range(frames.count())) if f.is_visible()]
                if not shown:
                    res.problems.append(f"after Run All, cell {pic['cell']} shows no frame of its player")
                    continue
                live += 1
                natural = shown[0].evaluate("i => i.naturalWidth") or pic["natural"]
                judge("after Run All", k, _shown_width(page, shown[0]), pic, natural)
            res.widgets = live
            with contextlib.suppress(Exception):
                page.screenshot(path=res.screenshot.replace("-class.png", "-class-run.png"))
    except Exception as e:
        res.problems.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    finally:
        with contextlib.suppress(Exception):
            page.evaluate(_js("shutdown"))
        context.close()
        res.seconds = time.monotonic() - t0
    return res


def covered_links(browser, server: LabServer, notebook: Path) -> list[str]:
    """The links of the notebook's top line (its navigation) that something else covers where a
    click lands, the line's cell being the active one, as it is when the notebook opens."""
    rel = server.served_path(notebook)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    context.add_init_script(path=str(JS_FILE))
    page = context.new_page()
    try:
        page.goto(f"{server.url}/lab/tree/{rel}?reset&token={server.token}", timeout=120_000)
        _wait_ready(page, rel, Result(notebook=rel))
        page.evaluate(_js("layout"))
        page.evaluate(
            "() => { const p = window.jupyterapp.shell.currentWidget; p.content.activeCellIndex = 0; }"
        )
        page.wait_for_timeout(800)
        return page.evaluate(
            """() => {
              const cell = window.jupyterapp.shell.currentWidget.content.widgets[0].node;
              const out = [];
              for (const a of cell.querySelectorAll('.jp-RenderedMarkdown a')) {
                const r = a.getClientRects()[0];  // a link that wraps: its first line's box
                const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
                if (!hit || !(hit === a || a.contains(hit))) {
                  const what = hit ? hit.className || hit.tagName : 'nothing';
                  out.push(`${a.textContent.trim()}: under ${what}`);
                }
              }
              return out;
            }"""
        )
    finally:
        with contextlib.suppress(Exception):
            page.evaluate(_js("shutdown"))
        context.close()


def _screenshot(page, path: str, max_height: int = 16000) -> None:
    """The whole notebook: grow the viewport to the notebook's height, shoot, shrink back."""
    with contextlib.suppress(Exception):
        page.evaluate(_js("toTop"))
    height = 900
    with contextlib.suppress(Exception):
        height = int(page.evaluate(_js("scrollHeight"))) + 140
    size = {"width": 1280, "height": max(900, min(height, max_height))}
    page.set_viewport_size(size)
    page.wait_for_timeout(600)
    bottom = size["height"]
    with contextlib.suppress(Exception):
        bottom = min(bottom, max(600, int(page.evaluate(_js("lastCellBottom"))) + 40))
    page.screenshot(path=path, clip={"x": 0, "y": 0, "width": size["width"], "height": bottom})
    page.set_viewport_size({"width": 1280, "height": 900})


def run(notebooks, out_dir: Path = DEFAULT_OUT, interact: bool = True) -> list[Result]:
    from playwright.sync_api import sync_playwright

    results = []
    with LabServer() as server, sync_playwright() as p:
        browser = launch_browser(p)
        try:
            for nb in notebooks:
                r = check_notebook(browser, server, Path(nb), out_dir, interact=interact)
                print(r.summary(), flush=True)
                results.append(r)
        finally:
            browser.close()
    return results


def _terminate_cleanly() -> None:
    """SIGTERM (a CI timeout) raises KeyboardInterrupt, so servers and browsers are stopped."""

    def handler(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    with contextlib.suppress(ValueError):  # not in the main thread
        signal.signal(signal.SIGTERM, handler)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook, one solution")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="screenshot folder")
    ap.add_argument("--no-interact", action="store_true")
    a = ap.parse_args(argv)
    _terminate_cleanly()
    nbs = a.notebooks or discover()
    t0 = time.monotonic()
    print(f"screenshots go to {a.out} (cell numbers below are 0-based positions in the file)", flush=True)
    results = run(nbs, a.out, interact=not a.no_interact)
    bad = [r for r in results if not r.ok]
    print(
        f"{len(results) - len(bad)}/{len(results)} notebooks passed in "
        f"{time.monotonic() - t0:.0f} s; screenshots in {a.out}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
