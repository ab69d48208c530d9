"""The course's static site (``make site``) in headless Chromium, with the network cut off.

Every page of ``site/`` is opened from a local HTTP server with every other request refused and
recorded, and checked by ``tools/site_check.py`` (no request leaving localhost, no console error,
math rendered, every stored figure shown, every animated picture changing frame, the folded
answers, navigation, the exercises' downloads and no solution, every internal link resolving);
screenshots go to ``artifacts/browser/site/``. ``SIMHASH_LAB_SITE_DIR`` checks another build.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_site  # noqa: E402
import site_check  # noqa: E402

sys.path.remove(str(ROOT / "tools"))

SITE = Path(os.environ.get("SIMHASH_LAB_SITE_DIR", ROOT / "site")).resolve()
PAGES = site_check.pages(SITE) if (SITE / "index.html").exists() else []


@pytest.fixture(scope="module")
def server():
    with site_check.SiteServer(SITE) as s:
        yield s


@pytest.fixture(scope="module")
def links():
    return site_check.LinkChecker()


@pytest.fixture(scope="module")
def want():
    return site_check.expectations(ROOT, SITE)


@pytest.fixture(scope="module")
def shots(out_dir):
    return out_dir / "site"


def test_the_site_is_built_from_the_committed_notebooks():
    assert (SITE / "index.html").is_file(), f"no {SITE / 'index.html'}: run make site"
    info = json.loads((SITE / build_site.INFO_FILE).read_text(encoding="utf-8"))
    now = build_site.source_digests(ROOT)
    stale = sorted(k for k in now.keys() | info["sources"].keys() if now.get(k) != info["sources"].get(k))
    assert not stale, f"site/ is older than {stale[:5]}: run make site"


def test_every_notebook_and_exercise_has_its_page_and_no_solution_is_there():
    for lang, spec in build_site.LANGS.items():
        prefix = SITE / spec["prefix"]
        notebooks, exercises = build_site.sources(ROOT, lang)
        for p in notebooks:
            assert (prefix / "notebooks" / f"{p.stem}.html").is_file(), p
        for p in exercises:
            assert (prefix / "exercises" / f"{p.stem}.html").is_file(), p
            assert (prefix / "exercises" / p.name).read_bytes() == p.read_bytes(), p
    assert build_site.sources(ROOT, "en")[1], "no exercises found"
    assert not [p for p in SITE.rglob("*") if "solutions" in p.name or "solution" in p.parts]


@pytest.mark.parametrize("rel", PAGES)
def test_page(rel, browser, server, want, links, shots, record):
    result = site_check.check_page(
        browser, server, rel, want.get(rel, site_check.Expect()), shots, links, site_check.site_langs(SITE)
    )
    record(result)
    print(result.summary())
    assert Path(result.screenshot).is_file()
    assert result.ok, result.summary()


def test_the_search_box_finds_a_notebook(browser, server, shots):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server.url + "index.html")
        page.fill('input[name="q"]', "hyperplane")
        page.press('input[name="q"]', "Enter")
        page.wait_for_selector("#search-results li a", timeout=30000)
        hits = page.eval_on_selector_all("#search-results li a", "els => els.map(a => a.href)")
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "search-hyperplane.png"))
    finally:
        page.close()
    assert any("notebooks/04_charikar_hyperplanes.html" in h for h in hits), hits


def _frozen_apng() -> bytes:
    """Two frames that differ in one pixel: animated by its bytes, still on screen."""
    from PIL import Image

    a = Image.new("P", (200, 100), 0)
    a.putpalette([255, 255, 255, 0, 0, 0] + [0] * 762)
    b = a.copy()
    b.putpixel((5, 5), 1)
    from simhash_lab.course.widgets import animated_png

    return animated_png([a, b], [100, 100])


def test_the_checker_sees_failures(browser, tmp_path):
    """A page that loads a script from the network, logs an error, leaves TeX as text, shows a
    frozen animation, misses a figure, a folded answer and its download, shows a solution's line
    and links nowhere must fail, each for its own reason (so a green run means something)."""
    site = tmp_path / "site"
    site.mkdir()
    apng = base64.b64encode(_frozen_apng()).decode()
    (site / "index.html").write_text(
        '<!doctype html><html lang="en"><head>'
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js"></script></head>'
        "<body><article><p>Left as text: $x^2$.</p>"
        f'<div class="cell_output"><img src="data:image/png;base64,{apng}"></div>'
        '<div class="cell_output"><img src="missing.png"></div>'
        '<a href="missing.html">a</a> <a href="index.html#nowhere">b</a>'
        "<pre>answer = sorted(votes)[len(votes) // 2]</pre>"
        '<script>console.error("boom")</script></article></body></html>',
        encoding="utf-8",
    )
    (tmp_path / "x.ipynb").write_text("{}", encoding="utf-8")
    expect = site_check.Expect(
        source="x.ipynb",
        figures=3,
        animations=1,
        details=1,
        math=True,
        download=str(tmp_path / "x.ipynb"),
        solution_lines=["answer = sorted(votes)[len(votes) // 2]"],
    )
    with site_check.SiteServer(site) as server:
        result = site_check.check_page(browser, server, "index.html", expect, tmp_path)
    print(result.summary())
    problems = "\n".join(result.problems)
    assert not result.ok
    for needle in (
        "request left localhost (refused): https://cdn.jsdelivr.net/",
        "console error: boom",
        "MathJax did not run",
        "TeX left as text: '$x^2$'",
        "animated picture 0 did not change frame",
        "2 output pictures on the page, the notebook stores 3",
        "picture not loaded",
        "0 folded answers on the page, the notebook has 1",
        "missing.html: HTTP 404",
        "no #nowhere in that page",
        "no previous / next link",
        "no search box",
        "no download link serving x.ipynb",
        "solution line on the exercise page: 'answer = sorted(votes)[len(votes) // 2]'",
    ):
        assert needle in problems, needle
    assert Path(result.screenshot).is_file()


def _notebook(path: Path, *cells: str, exercise: str | None = None) -> None:
    """A small notebook of markdown cells (the text of each) at ``path``; ``exercise``: the exercise
    its metadata names (a learner's file, as the build writes it)."""
    import nbformat
    from nbformat.v4 import new_markdown_cell, new_notebook

    path.parent.mkdir(parents=True, exist_ok=True)
    nb = new_notebook(cells=[new_markdown_cell(c) for c in cells])
    if exercise is not None:
        nb.metadata["simhash_lab"] = {"exercise": exercise}
    nbformat.write(nb, path)


def test_the_language_switch(browser, tmp_path):
    """With a second language, every page links to the same page in the other language when it
    exists there, and to that language's home page when not; Spanish links between notebooks and
    exercises (``../../exercises/es/...``), and to an English notebook, resolve on the site."""
    root = tmp_path / "repo"
    _notebook(root / "notebooks/00_start_here.ipynb", "# 00 · Start\n\n[One](01_lsh_vs_crypto.ipynb), $x$")
    _notebook(
        root / "notebooks/01_lsh_vs_crypto.ipynb",
        "# 01 · One\n\n[Exercise](../exercises/01_exercise_lsh_vs_crypto.ipynb)",
    )
    one = "01_lsh_vs_crypto"  # the exercise, by its metadata: its file is named for its tab
    _notebook(root / "exercises/01_exercise_lsh_vs_crypto.ipynb", "# Exercises 01 · One", exercise=one)
    _notebook(
        root / "notebooks/es/01_lsh_vs_crypto.ipynb",
        "# 01 · Uno\n\n[Ejercicio](../../exercises/es/01_exercise_lsh_vs_crypto.ipynb), $y$, "
        "[in English](../01_lsh_vs_crypto.ipynb#one)",
    )
    _notebook(root / "exercises/es/01_exercise_lsh_vs_crypto.ipynb", "# Ejercicios 01 · Uno", exercise=one)
    site = build_site.build(root, tmp_path / "site", tmp_path / "work")
    assert json.loads((site / build_site.INFO_FILE).read_text())["langs"] == ["en", "es"]
    want = site_check.expectations(root, site)
    switch = {}
    with site_check.SiteServer(site) as server:
        for rel in site_check.pages(site):
            result = site_check.check_page(browser, server, rel, want[rel], tmp_path / "shots", langs=2)
            assert result.ok, result.summary()
        for rel in (
            "notebooks/00_start_here.html",
            "notebooks/01_lsh_vs_crypto.html",
            "es/notebooks/01_lsh_vs_crypto.html",
        ):
            page = browser.new_page()
            page.goto(server.url + rel)
            switch[rel] = page.eval_on_selector(
                ".lang-switch a.lang-link", "a => [a.href, a.hreflang, a.dataset.samePage]"
            )
            page.close()
        base = server.url
    assert switch["notebooks/01_lsh_vs_crypto.html"] == [
        base + "es/notebooks/01_lsh_vs_crypto.html",
        "es",
        "yes",
    ]
    assert switch["notebooks/00_start_here.html"] == [base + "es/index.html", "es", "no"]
    assert switch["es/notebooks/01_lsh_vs_crypto.html"] == [
        base + "notebooks/01_lsh_vs_crypto.html",
        "en",
        "yes",
    ]
    es = (site / "es/notebooks/01_lsh_vs_crypto.html").read_text(encoding="utf-8")
    assert 'href="../exercises/01_exercise_lsh_vs_crypto.html"' in es
    assert 'href="../../notebooks/01_lsh_vs_crypto.html#one"' in es  # to the English page
    assert 'lang="es"' in es


def test_the_spanish_search_box_finds_a_spanish_notebook(browser, server, shots):
    """The Spanish pages have their own search index (and Furo's words in Spanish): a Spanish term
    finds the Spanish notebook."""
    if "es" not in json.loads((SITE / build_site.INFO_FILE).read_text(encoding="utf-8"))["langs"]:
        pytest.skip("no Spanish pages in this site")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server.url + "es/index.html")
        assert page.get_attribute('input[name="q"]', "placeholder") == "Búsqueda"
        assert page.get_attribute("nav.lang-switch", "aria-label") == "Idioma"
        page.fill('input[name="q"]', "hiperplano")
        page.press('input[name="q"]', "Enter")
        page.wait_for_selector("#search-results li a", timeout=30000)
        hits = page.eval_on_selector_all("#search-results li a", "els => els.map(a => a.href)")
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "es-search-hiperplano.png"))
    finally:
        page.close()
    assert any("es/notebooks/04_charikar_hyperplanes.html" in h for h in hits), hits
    assert not any("/es/" not in h for h in hits), hits


def _spanish(server):
    if "es" not in json.loads((SITE / build_site.INFO_FILE).read_text(encoding="utf-8"))["langs"]:
        pytest.skip("no Spanish pages in this site")


#: The theme's own words, and what a Spanish page shows instead.
THEME_WORDS = {
    "Next": "Siguiente",
    "Previous": "Anterior",
    "On this page": "En esta página",
    "Back to top": "Volver arriba",
    "Made with": "Hecho con",
}


def test_a_spanish_page_shows_the_themes_words_in_spanish(browser, server):
    _spanish(server)
    page = browser.new_page(viewport={"width": 1600, "height": 900})
    try:
        page.goto(server.url + "es/notebooks/02_simhash_voting.html")
        text = page.evaluate("() => document.body.textContent")
    finally:
        page.close()
    for english, spanish in THEME_WORDS.items():
        assert spanish in text, spanish
        assert english not in text, english


def test_the_language_switch_stays_on_the_search_and_index_pages(browser, server):
    _spanish(server)
    page = browser.new_page()
    try:
        got = {}
        for rel in ("search.html", "es/search.html", "genindex.html", "es/genindex.html"):
            page.goto(server.url + rel)
            got[rel] = page.eval_on_selector(".lang-switch a.lang-link", "a => a.href")
    finally:
        page.close()
    base = server.url
    assert got == {
        "search.html": base + "es/search.html",
        "es/search.html": base + "search.html",
        "genindex.html": base + "es/genindex.html",
        "es/genindex.html": base + "genindex.html",
    }


@pytest.mark.parametrize("rel, query", [("index.html", "Binomial"), ("es/index.html", "Binomial")])
def test_search_snippets_show_formulas_as_text(browser, server, shots, rel, query):
    """A snippet is read from its page, where a formula is TeX (\\(\\theta/\\pi\\), $...$):
    it shows the formula as text (θ/π)."""
    if rel.startswith("es/"):
        _spanish(server)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server.url + rel)
        page.fill('input[name="q"]', query)
        page.press('input[name="q"]', "Enter")
        page.wait_for_selector("#search-results li p.context", timeout=30000)
        page.wait_for_timeout(1500)
        snippets = page.eval_on_selector_all(
            "#search-results li p.context", "ps => ps.map(p => p.textContent)"
        )
        page.screenshot(path=str(shots / f"search-snippets-{rel.replace('/', '-')}.png"))
    finally:
        page.close()
    assert snippets
    raw = [s for s in snippets if "\\" in s or "$" in s]
    assert not raw, raw
    assert any("θ" in s or "π" in s for s in snippets), snippets


def test_the_sources_chinese_and_the_emoji_are_drawn_in_the_sites_own_fonts(browser, server):
    """The site ships its Chinese and emoji fonts (in _static, as MathJax): a page with the sources'
    Chinese and with ✏️ loads their slices, so a system without such fonts shows no boxes."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    try:
        page.goto(server.url + "notebooks/02_simhash_voting.html")
        page.evaluate("() => document.fonts.ready")
        page.wait_for_timeout(1000)
        for _ in range(6):  # scroll the page through, so that every text is laid out
            page.mouse.wheel(0, 4000)
            page.wait_for_timeout(300)
        page.evaluate("() => document.fonts.ready")
        loaded = page.evaluate(
            "() => [...document.fonts].filter(f => f.status === 'loaded')"
            ".map(f => f.family.replace(/\"/g, ''))"
        )
        urls = page.evaluate("() => performance.getEntriesByType('resource').map(e => e.name)")
    finally:
        page.close()
    assert {"Noto Sans SC", "Noto Color Emoji"} <= set(loaded), sorted(set(loaded))
    assert all(u.startswith(server.url) for u in urls if ".woff" in u)
