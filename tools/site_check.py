#!/usr/bin/env python
"""The course's static site in a real browser: every page of ``site/``, with the network cut off.

The site is served from 127.0.0.1 by a small HTTP server in this process; Chromium (Debian's, as in
``tools/browser_check.py``) opens each page with every request routed: a request for anything but
that server is recorded and refused. Each page must show:

- no request leaving localhost, no console error, no failed (>= 400) local request;
- math rendered: MathJax ran, every ``.math`` element holds a ``mjx-container``, no MathJax error,
  and no TeX left as text (``$...$``, ``\\(``) outside code;
- every stored figure of its notebook (as many output pictures as the notebook stores, each loaded),
  and every animated picture (APNG) it stores, each changing frame on screen within its first
  frames' delays;
- every folded answer (as many ``<details>`` as the notebook's markdown has; one unfolds on a click);
- a Mermaid diagram drawn wherever the page has one;
- navigation: previous / next, and on a course notebook the link to its exercise; on an exercise, a
  "download the notebook" link to the committed exercise, byte for byte, and none of the solution's
  answer lines in the page;
- a search box, and the language switch when the site has several languages;
- every internal link (and ``#anchor``) resolving;

and saves a screenshot of the page to ``artifacts/browser/site/`` (or ``--out``).

    python tools/site_check.py                    # every page of site/ (make site first)
    python tools/site_check.py notebooks/04_charikar_hyperplanes.html --site /tmp/site --out /tmp/shots

The browser suite runs the same checks: ``tests/browser/test_site.py`` (``make test-browser``).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import dataclasses
import functools
import html.parser
import http.server
import io
import json
import re
import struct
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "artifacts" / "browser" / "site"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
DATA_PNG = re.compile(r"data:image/png;base64,([A-Za-z0-9+/=]+)")
# TeX left as text: $...$ on one line, or \( \[ delimiters
RAW_TEX = re.compile(r"\$[^$\n]{1,200}\$|\\\(|\\\[")


def _tool(name: str):
    """A module of ``tools/`` (``build_site``, ``browser_check``)."""
    import importlib

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "tools"))


# -- what the source notebooks say each page must show ---------------------------------------------
def apng_delays(png: bytes) -> list[float] | None:
    """The frame delays (seconds) of an animated PNG, or None for a still PNG."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    pos, delays, animated = 8, [], False
    while pos + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + length]
        if kind == b"acTL":
            animated = True
        elif kind == b"fcTL" and len(body) >= 26:
            num, den = struct.unpack(">HH", body[20:24])
            delays.append(num / (den or 100))
        elif kind == b"IDAT" and not animated:
            return None
        pos += 12 + length
    return delays if animated else None


@dataclasses.dataclass
class Expect:
    """What one page must show, from its source notebook (nothing for index, search...)."""

    source: str = ""
    figures: int = 0  # output pictures
    animations: int = 0  # of which animated
    details: int = 0  # folded answers in the markdown
    math: bool = False  # the markdown has TeX
    exercise_page: str = ""  # a course notebook: its exercise's page (site-relative)
    download: str = ""  # an exercise: the committed file the download link must serve
    solution_lines: list = dataclasses.field(default_factory=list)  # must not appear
    mermaid: int = 0


def _chosen(data: dict) -> tuple[str, str]:
    """The MIME type the site renders of one output (myst-nb's HTML priority, widgets dropped)."""
    for mime in ("text/html", "image/svg+xml", "image/png", "image/jpeg"):
        if mime in data:
            v = data[mime]
            return mime, "".join(v) if isinstance(v, list) else v
    return "", ""


def expect_notebook(path: Path) -> Expect:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    e = Expect(source=str(path))
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            e.details += len(re.findall(r"<details\b", cell.source))
            e.math = e.math or bool(re.search(r"\$[^$]+\$", cell.source))
            e.mermaid += len(re.findall(r"^```mermaid\s*$", cell.source, re.M))
            continue
        for out in cell.get("outputs", []):
            mime, value = _chosen(out.get("data", {}))
            if mime == "text/html":
                e.figures += len(re.findall(r"<img\b", value))
                e.animations += sum(
                    apng_delays(base64.b64decode(m)) is not None for m in DATA_PNG.findall(value)
                )
            elif mime:
                e.figures += 1
                if mime == "image/png" and apng_delays(base64.b64decode(value)) is not None:
                    e.animations += 1
    return e


def _lines(path: Path, answers_only: bool) -> set[str]:
    """The stripped source lines of a notebook's cells (of its answer cells only, if asked)."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    lines = set()
    for cell in nb.cells:
        if not answers_only or cell.get("metadata", {}).get("simhash_lab", {}).get("role") == "answer":
            lines |= {ln.strip() for ln in cell.source.splitlines()}
    return lines


def expectations(root: Path, site: Path) -> dict[str, Expect]:
    """Every page of ``site`` (relative path) with what it must show."""
    sm = _tool("build_site")
    root = Path(root)
    out = {}
    for page in sorted(site.rglob("*.html")):
        out[page.relative_to(site).as_posix()] = Expect()
    for lang, spec in sm.LANGS.items():
        prefix = spec["prefix"] + "/" if spec["prefix"] else ""
        notebooks, exercises = sm.sources(root, lang)
        exercise_of = {sm.exercise_name(p): p for p in exercises}
        for path in notebooks:
            e = expect_notebook(path)
            if path.stem in exercise_of:
                e.exercise_page = f"{prefix}exercises/{exercise_of[path.stem].stem}.html"
            out[f"{prefix}notebooks/{path.stem}.html"] = e
        solved = exercises[0].parent / "solutions" if exercises else None  # exercises/es/solutions/
        solution_of = {sm.exercise_name(p): p for p in sorted(solved.glob("*.ipynb"))} if solved else {}
        for path in exercises:
            e = expect_notebook(path)
            e.download = str(path)
            solution = solution_of.get(sm.exercise_name(path))
            if solution is not None:
                # the solution's answer lines that the exercise does not have anywhere
                e.solution_lines = sorted(
                    ln
                    for ln in _lines(solution, True) - _lines(path, False)
                    if len(ln) >= 16 and not ln.startswith("#")
                )
            out[f"{prefix}exercises/{path.stem}.html"] = e
    return out


# -- the server -------------------------------------------------------------------------------------
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # no line per request
        pass


class SiteServer:
    """``site`` served on a free port of 127.0.0.1, in a thread of this process."""

    def __init__(self, site: Path):
        self.site = Path(site).resolve()
        self.httpd = None
        self.thread = None

    def start(self) -> SiteServer:
        handler = functools.partial(_QuietHandler, directory=str(self.site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


class _Ids(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("id", "name") and v:
                self.ids.add(v)


class LinkChecker:
    """Local URLs fetched once each: status and, for HTML, the ids a ``#fragment`` may name."""

    def __init__(self):
        self.cache = {}

    def fetch(self, url: str) -> tuple[int, bytes]:
        if url not in self.cache:
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    self.cache[url] = (r.status, r.read())
            except urllib.error.HTTPError as e:
                self.cache[url] = (e.code, b"")
            except OSError:
                self.cache[url] = (0, b"")
        return self.cache[url]

    @functools.cache  # noqa: B019  (one checker per run)
    def ids(self, url: str) -> frozenset:
        p = _Ids()
        p.feed(self.fetch(url)[1].decode("utf-8", "replace"))
        return frozenset(p.ids)

    def problem(self, href: str) -> str | None:
        url, frag = urllib.parse.urldefrag(href)
        status, _ = self.fetch(url)
        if status != 200:
            return f"link {href}: HTTP {status or 'unreachable'}"
        if frag and url.endswith(".html") and urllib.parse.unquote(frag) not in self.ids(url):
            return f"link {href}: no #{frag} in that page"
        return None


# -- one page ---------------------------------------------------------------------------------------
@dataclasses.dataclass
class PageResult:
    page: str
    screenshot: str = ""
    seconds: float = 0.0
    counts: dict = dataclasses.field(default_factory=dict)
    problems: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in self.counts.items())
        head = f"{'ok  ' if self.ok else 'FAIL'} {self.page}: {counts}, {self.seconds:.1f} s"
        lines = [f"{head} -> {self.screenshot}"]
        lines += [f"    note: {x}" for x in self.notes]
        lines += [f"    PROBLEM: {x}" for x in self.problems]
        return "\n".join(lines)


# Runs in the page once it has loaded (and MathJax and Mermaid have finished): what it shows.
_REPORT_JS = r"""
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
  const art = document.querySelector('article') || document.body;
  const skip = 'PRE,CODE,SCRIPT,STYLE,TEXTAREA,MJX-CONTAINER,MJX-ASSISTIVE-MML,SVG';
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement.closest(skip.split(',').map((t) => t.toLowerCase()).join(','))
      ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  let text = '';
  while (walker.nextNode()) text += walker.currentNode.nodeValue;
  const math = [...art.querySelectorAll('.math')];
  const imgs = [...art.querySelectorAll('.cell_output img, .output img')];
  return {
    mathjax: !!(window.MathJax && MathJax.startup && MathJax.startup.document),
    math: math.length,
    mathUnrendered: math.filter((m) => !m.querySelector('mjx-container'))
      .map((m) => m.textContent.slice(0, 60)),
    mjx: art.querySelectorAll('mjx-container').length,
    merror: [...art.querySelectorAll('mjx-merror')].map((m) => m.textContent.slice(0, 60)),
    text,
    code: [...art.querySelectorAll('pre')].map((p) => p.textContent).join('\n'),
    figures: imgs.map((i) => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
    brokenImages: [...document.images].filter((i) => !(i.complete && i.naturalWidth > 0))
      .map((i) => i.src.slice(0, 80)),
    details: art.querySelectorAll('details').length,
    mermaid: art.querySelectorAll('.mermaid').length,
    mermaidDrawn: art.querySelectorAll('.mermaid svg:not([aria-roledescription="error"])').length,
    links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
    prev: !!document.querySelector('a.prev-page'),
    next: !!document.querySelector('a.next-page'),
    downloads: [...art.querySelectorAll('a[download]')].map((a) => a.href),
    search: !!document.querySelector('input[name="q"]'),
    langLinks: [...document.querySelectorAll('.lang-switch a.lang-link')].map((a) => ({
      href: a.href, lang: a.hreflang, same: a.dataset.samePage})),
    html: document.documentElement.lang,
  };
}
"""


def _pixels_changed(before: bytes, after: bytes) -> float:
    from PIL import Image, ImageChops

    a = Image.open(io.BytesIO(before)).convert("RGB")
    b = Image.open(io.BytesIO(after)).convert("RGB")
    if a.size != b.size:
        return 1.0
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 16 else 0)
    return sum(diff.histogram()[255:]) / (a.size[0] * a.size[1])


def _image_bytes(src: str, links: LinkChecker) -> bytes:
    if src.startswith("data:"):
        m = DATA_PNG.match(src)
        return base64.b64decode(m.group(1)) if m else b""
    return links.fetch(src)[1]


def _check_animation(page, index: int, delays: list[float]) -> tuple[str, str | None]:
    """Screenshots of picture ``index`` until it changes, for up to its first two frames' delays
    plus two seconds: the browser plays it."""
    img = page.locator(".cell_output img, .output img").nth(index)
    img.scroll_into_view_if_needed()
    first = img.screenshot()
    limit = min(sum(delays[:2]) + 2.0, 20.0)
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        page.wait_for_timeout(200)
        changed = _pixels_changed(first, img.screenshot())
        if changed > 0.001:
            return f"picture {index}: changed frame after {time.monotonic() - t0:.1f} s ({changed:.1%})", None
    return "", f"animated picture {index} did not change frame in {limit:.1f} s (delays {delays[:3]})"


def _screenshot(page, path: Path, max_height: int = 16000) -> None:
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    page.screenshot(
        path=str(path),
        full_page=True,
        clip={"x": 0, "y": 0, "width": 1280, "height": min(height, max_height)},
    )


def shot_name(rel: str) -> str:
    """``notebooks/01_x.html`` -> ``notebooks-01_x.png``."""
    return rel.removesuffix(".html").replace("/", "-") + ".png"


def check_page(
    browser,
    server: SiteServer,
    rel: str,
    expect: Expect,
    out_dir: Path,
    links: LinkChecker | None = None,
    langs: int = 1,
) -> PageResult:
    """Open one page with the network cut off and check it (see the module's docstring)."""
    links = links or LinkChecker()
    res = PageResult(rel)
    t0 = time.monotonic()
    outside, console, bad_responses = [], [], []

    def route(r):
        url = r.request.url
        if url.startswith(server.url) or url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            outside.append(url)
            r.abort("blockedbyclient")

    context = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        context.route("**/*", route)
        page = context.new_page()
        page.on("console", lambda m: m.type == "error" and console.append(f"console error: {m.text}"))
        page.on("pageerror", lambda e: console.append(f"page error: {e}"))
        page.on("response", lambda r: r.status >= 400 and bad_responses.append(f"HTTP {r.status}: {r.url}"))
        page.goto(server.url + rel, wait_until="load")
        if page.locator(".mermaid").count():
            with contextlib.suppress(Exception):
                page.wait_for_selector(".mermaid svg", timeout=15000)
        rep = page.evaluate(_REPORT_JS)
        _judge(rep, expect, res, links, langs, server)
        # animated pictures: by their bytes (acTL), then on screen
        anims = 0
        for i, fig in enumerate(rep["figures"]):
            delays = apng_delays(_image_bytes(fig["src"], links))
            if delays is None:
                continue
            anims += 1
            note, problem = _check_animation(page, i, delays)
            (res.problems if problem else res.notes).append(problem or note)
        res.counts["animations"] = anims
        if anims != expect.animations:
            res.problems.append(
                f"{anims} animated pictures on the page, the notebook stores {expect.animations}"
            )
        # one folded answer unfolds
        if rep["details"]:
            d = page.locator("article details").first
            d.locator("summary").first.scroll_into_view_if_needed()
            d.locator("summary").first.click()
            page.wait_for_timeout(150)
            if not d.evaluate("el => el.open && el.getBoundingClientRect().height > 30"):
                res.problems.append("clicking the first folded answer's summary did not unfold it")
        page.evaluate("window.scrollTo(0, 0)")
        out_dir.mkdir(parents=True, exist_ok=True)
        shot = out_dir / shot_name(rel)
        _screenshot(page, shot)
        res.screenshot = str(shot)
    finally:
        context.close()
    res.problems += [f"request left localhost (refused): {u}" for u in outside]
    res.problems += console + bad_responses
    res.seconds = time.monotonic() - t0
    return res


def _judge(rep: dict, e: Expect, res: PageResult, links: LinkChecker, langs: int, server: SiteServer) -> None:
    p = res.problems
    res.counts.update(math=rep["mjx"], figures=len(rep["figures"]), details=rep["details"])
    # math
    if e.math and not rep["mathjax"]:
        p.append("the notebook has math but MathJax did not run")
    if e.math and not rep["mjx"]:
        p.append("the notebook has math but the page shows no MathJax element")
    p += [f"math not rendered: {t!r}" for t in rep["mathUnrendered"][:3]]
    p += [f"MathJax error: {t!r}" for t in rep["merror"][:3]]
    p += [f"TeX left as text: {m.group(0)!r}" for m in list(RAW_TEX.finditer(rep["text"]))[:3]]
    # figures
    if len(rep["figures"]) != e.figures:
        p.append(f"{len(rep['figures'])} output pictures on the page, the notebook stores {e.figures}")
    p += [f"picture not loaded: {s}" for s in rep["brokenImages"][:3]]
    if rep["details"] != e.details:
        p.append(f"{rep['details']} folded answers on the page, the notebook has {e.details}")
    if rep["mermaid"] != e.mermaid:
        p.append(f"{rep['mermaid']} Mermaid diagrams on the page, the notebook has {e.mermaid}")
    if rep["mermaidDrawn"] != rep["mermaid"]:
        p.append(f"{rep['mermaid'] - rep['mermaidDrawn']} Mermaid diagrams not drawn")
    # navigation
    if e.source:
        if not (rep["prev"] or rep["next"]):
            p.append("no previous / next link")
        if e.exercise_page and not any(
            urllib.parse.urldefrag(h)[0] == server.url + e.exercise_page for h in rep["links"]
        ):
            p.append(f"no link to its exercise {e.exercise_page}")
    if not rep["search"]:
        p.append("no search box")
    if langs > 1 and len(rep["langLinks"]) != langs - 1:
        p.append(f"language switch: {len(rep['langLinks'])} links for {langs} languages")
    # exercises: the download, and no solution
    if e.download:
        want = Path(e.download).read_bytes()
        got = [links.fetch(h)[1] for h in rep["downloads"]]
        if want not in got:
            p.append(f"no download link serving {Path(e.download).name} as committed ({rep['downloads']})")
        leaked = [ln for ln in e.solution_lines if ln in rep["code"] or ln in rep["text"]]
        p += [f"solution line on the exercise page: {ln!r}" for ln in leaked[:3]]
    # links
    local = sorted({h for h in rep["links"] if h.startswith(server.url)})
    res.counts["links"] = len(local)
    for h in local:
        problem = links.problem(h)
        if problem:
            p.append(problem)


# -- the whole site ---------------------------------------------------------------------------------
def pages(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in Path(site).rglob("*.html"))


def site_langs(site: Path) -> int:
    info = Path(site) / "_site.json"
    return len(json.loads(info.read_text())["langs"]) if info.exists() else 1


def run(site: Path, out_dir: Path, root: Path = ROOT, only: list[str] | None = None) -> list[PageResult]:
    from playwright.sync_api import sync_playwright

    browser_check = _tool("browser_check")
    want = expectations(root, site)
    links, langs, results = LinkChecker(), site_langs(site), []
    with SiteServer(site) as server, sync_playwright() as pw:
        browser = browser_check.launch_browser(pw)
        try:
            for rel in only or pages(site):
                r = check_page(browser, server, rel, want.get(rel, Expect()), out_dir, links, langs)
                print(r.summary(), flush=True)
                results.append(r)
        finally:
            browser.close()
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", help="pages relative to the site (default: every page)")
    ap.add_argument("--site", type=Path, default=ROOT / "site")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="screenshot folder")
    a = ap.parse_args(argv)
    if not (a.site / "index.html").exists():
        print(f"site_check: error: no {a.site / 'index.html'}: run make site", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    results = run(a.site, a.out, only=a.pages)
    bad = [r for r in results if not r.ok]
    took = time.monotonic() - t0
    print(f"{len(results) - len(bad)}/{len(results)} pages passed in {took:.0f} s; screenshots in {a.out}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
