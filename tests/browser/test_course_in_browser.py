"""Every course notebook (found by glob), one exercise solution and every untouched exercise, in
English and in Spanish (``notebooks/es/``, ``exercises/es/``), run in JupyterLab in Chromium, on
``make lab``'s own server configuration (``tools/lab.py``).

Each test opens the notebook, restarts the kernel and runs all cells, waits for an idle kernel, and
fails on an error output, a widget that is not live, an animation without its player, or an
interaction (slider, Play) that changes nothing on screen; an untouched exercise must run to its
end and show a ❌ in every check cell. The server's root is the repository's, so the navigation
links between a notebook and its exercise resolve, and no news toast covers a screenshot. See
``tools/browser_check.py``.
"""

from __future__ import annotations

import posixpath
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import browser_check  # noqa: E402

sys.path.remove(str(ROOT / "tools"))

#: The languages besides English: each has the same files in a LANG/ folder beside the English ones
LANGS = ("es",)


def _in_lang(lang: str) -> tuple[list[Path], list[Path]]:
    """The notebooks and the untouched exercises of ``lang``, found as the English ones are."""
    found = sorted((ROOT / "notebooks" / lang).glob("*.ipynb"))
    solutions = sorted((ROOT / "exercises" / lang / "solutions").glob("*.ipynb"))
    return found + solutions[:1], sorted((ROOT / "exercises" / lang).glob("*.ipynb"))


NOTEBOOKS = browser_check.discover(ROOT) + [p for lang in LANGS for p in _in_lang(lang)[0]]
EXERCISES = browser_check.untouched_exercises(ROOT) + [p for lang in LANGS for p in _in_lang(lang)[1]]


#: The path of the notebook JupyterLab shows (null while the app is still loading, not an error)
CURRENT_PATH = (
    "() => { const a = window.jupyterapp; const w = a && a.shell.currentWidget; "
    "return w && w.context && w.context.path; }"
)


def _lang(path: Path) -> str:
    """The language of a course file: the folder under notebooks/ or exercises/ that names one."""
    parts = path.resolve().relative_to(ROOT).parts
    return parts[1] if len(parts) > 2 and parts[1] in LANGS else "en"


def _shots(out_dir: Path, path: Path) -> Path:
    """Screenshots of another language go to a folder of their own (the file names are the same)."""
    lang = _lang(path)
    return out_dir if lang == "en" else out_dir / lang


def _i18n():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import i18n
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return i18n


def test_every_page_function_is_in_the_script(bc):
    """Each ``_js("name")`` the checker calls is defined in ``browser_check.js``."""
    called = set(re.findall(r'_js\("(\w+)"\)', Path(bc.__file__).read_text(encoding="utf-8")))
    defined = set(re.findall(r"^ {4}(?:async )?(\w+)\(", bc.JS_FILE.read_text(encoding="utf-8"), re.M))
    assert called and called <= defined, called - defined


def test_found_the_course():
    assert any(p.parent.name == "notebooks" for p in NOTEBOOKS), "no notebooks/*.ipynb found"
    assert any(p.parent.name == "solutions" for p in NOTEBOOKS), "no exercise solution found"
    for lang in LANGS:  # every language as complete as the English
        english = [p for p in NOTEBOOKS + EXERCISES if _lang(p) == "en"]
        assert len([p for p in NOTEBOOKS + EXERCISES if _lang(p) == lang]) == len(english), lang


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS])
def test_notebook_in_jupyterlab(notebook, bc, lab, browser, out_dir, record):
    result = bc.check_notebook(browser, lab, notebook, _shots(out_dir, notebook))
    record(result)
    print(result.summary())
    assert Path(result.screenshot).is_file(), f"no screenshot at {result.screenshot}"
    assert result.ok, result.summary()


def test_the_checker_sees_failures(bc, lab, browser, tmp_path):
    """A notebook with a dead widget, a widget shown as text, a stopped animation player and an
    error must fail, each for its own reason (so a green run means something)."""
    from nbformat.v4 import new_code_cell, new_notebook

    dead_widget = (
        "from IPython.display import display\n"
        "display({'application/vnd.jupyter.widget-view+json': {'model_id': 'nope', "
        "'version_major': 2, 'version_minor': 0}, 'text/plain': 'IntSlider(value=0)'}, "
        "raw=True)"
    )
    as_text = "print('IntSlider(value=3, max=10)')"
    no_player = 'from IPython.display import HTML\nHTML(\'<div class="animation"><img id="x"></div>\')'
    nb = new_notebook(
        cells=[
            new_code_cell(dead_widget),
            new_code_cell(as_text),
            new_code_cell(no_player),
            new_code_cell("1 / 0"),
            new_code_cell("print('never runs')"),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = lab.add_notebook(nb, "selftest/broken.ipynb")
    result = bc.check_notebook(browser, lab, path, tmp_path, rel="selftest/broken.ipynb")
    print(result.summary())
    problems = "\n".join(result.problems)
    assert not result.ok
    assert "ZeroDivisionError" in problems
    assert "not live" in problems and "model not found" in problems.lower()
    assert "widget shown as text" in problems and "IntSlider(value=3" in problems
    assert "animation without a working player" in problems
    assert Path(result.screenshot).is_file()


def _navigation_links(path: Path) -> list[str]:
    import nbformat

    nb = nbformat.read(path, as_version=4)
    nav = [c.source for c in nb.cells if "navigation" in c.metadata.get("tags", [])]
    return re.findall(r"\]\(([^)]+\.ipynb)\)", nav[0]) if nav else []


def test_the_server_serves_the_repository_and_every_navigation_link_resolves(lab):
    """make lab's root: exercises/ is listed beside notebooks/, every link of every navigation line
    names a notebook the server has, and the settings override that silences the news is read."""
    listing = lab.api("GET", "/api/contents/exercises?content=1")
    assert {p.name for p in EXERCISES} <= {c["name"] for c in listing["content"]}
    files = sorted({*ROOT.glob("notebooks/**/*.ipynb"), *ROOT.glob("exercises/**/*.ipynb")})
    checked = 0
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        links = _navigation_links(path)
        assert links, f"{rel}: no navigation line"
        for link in links:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), link))
            got = lab.api("GET", f"/api/contents/{target}?content=0")  # 404 raises
            assert got["type"] == "notebook", (rel, link)
            checked += 1
    assert checked >= 3 * len(files) - 6
    notification = lab.api("GET", "/lab/api/settings/@jupyterlab/apputils-extension:notification")
    default = notification["schema"]["properties"]["fetchNews"]["default"]  # the override's value
    assert default == "false" and notification["settings"].get("fetchNews") is None, default


#: What a learner reads in each of JupyterLab's document tabs: its label, and the part of it the
#: tab shows (a long name is cut with an ellipsis), measured with the label's own font.
TAB_LABELS = """() => Array.from(
  document.querySelectorAll('.lm-DockPanel-tabBar .lm-TabBar-tab')).map(tab => {
  const label = tab.querySelector('.lm-TabBar-tabLabel');
  const text = label.textContent;
  const ctx = document.createElement('canvas').getContext('2d');
  const style = getComputedStyle(label);
  ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  let n = text.length;
  if (label.scrollWidth > label.clientWidth) {
    const ellipsis = ctx.measureText('…').width;
    while (n > 0 && ctx.measureText(text.slice(0, n)).width + ellipsis > label.clientWidth) n--;
  }
  return {text: text, shown: text.slice(0, n)};
})"""


@pytest.mark.parametrize("lang", ("en", *LANGS))
def test_the_exercise_link_opens_the_exercise_and_back(lang, bc, lab, browser, out_dir):
    """Clicking the top line's "Exercise" in notebook 03 opens exercises/03 in JupyterLab; its
    "Course notebook" link opens notebook 03 again, in each language (the links' words and
    folders are the language's). No news toast shows meanwhile. With both open, what each tab shows
    of its file's name tells the exercise from the notebook (issue 47: two tabs called
    ``03_hamming_popcount.ipynb``), the solution's too."""
    i18n = _i18n()
    words = [i18n.message(w, None if lang == "en" else lang) for w in ("Exercise", "Course notebook")]
    folder = "" if lang == "en" else f"{lang}/"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(path=str(bc.JS_FILE))
    page = context.new_page()
    current = CURRENT_PATH
    try:
        start = f"notebooks/{folder}03_hamming_popcount.ipynb"
        exercise = f"exercises/{folder}03_exercise_hamming_popcount.ipynb"
        page.goto(f"{lab.url}/lab/tree/{start}?reset&token={lab.token}", timeout=120_000)
        page.wait_for_function(f"() => ({current})() === {start!r}", timeout=120_000)
        for text, want in zip(words, (exercise, start)):
            shown = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedMarkdown a"
            link = page.locator(shown, has_text=text).first
            link.dispatch_event("click")  # a click on the link itself (the cell toolbar overlaps it)
            page.wait_for_function(f"() => ({current})() === {want!r}", timeout=60_000)
        solution = f"exercises/{folder}solutions/03_solution_hamming_popcount.ipynb"
        page.evaluate(f"() => window.jupyterapp.commands.execute('docmanager:open', {{path: {solution!r}}})")
        page.wait_for_function(f"() => ({current})() === {solution!r}", timeout=60_000)
        page.wait_for_timeout(3000)
        toasts = page.locator(".Toastify__toast").all_inner_texts()
        tabs = {t["text"]: t["shown"] for t in page.evaluate(TAB_LABELS)}
        page.screenshot(path=str(out_dir / f"navigation-exercise-and-back-{lang}.png"))
        assert not toasts, toasts
        names = [posixpath.basename(p) for p in (start, exercise, solution)]
        assert set(names) <= set(tabs), tabs
        shown = [tabs[n] for n in names]
        assert len(set(shown)) == 3 and "exercise" in shown[1] and "solution" in shown[2], tabs
    finally:
        context.close()


@pytest.mark.parametrize("notebook", EXERCISES, ids=[p.relative_to(ROOT).as_posix() for p in EXERCISES])
def test_run_all_on_an_untouched_exercise_shows_a_cross_per_check(
    notebook, bc, lab, browser, out_dir, record
):
    from simhash_lab._i18n import translate

    result = bc.check_notebook(browser, lab, notebook, _shots(out_dir, notebook))
    record(result)
    print(result.summary())
    assert result.ok, result.summary()  # no error output: Run All went to the end
    assert result.checks, "no check cell found"
    hint = translate("   hint:     {hint}", _lang(notebook)).split("{hint}")[0].strip()  # "hint:", "pista:"
    for i, text in result.checks.items():
        assert text.startswith("❌") and hint in text and "Traceback" not in text, (i, text)


#: The notebooks with stored animations or steppers, each checked on a class's screen (02 also
#: after Run All, and in Spanish: the same pictures with the other language's labels).
CLASS = ["02_simhash_voting", "04_charikar_hyperplanes", "05_block_index", "06_near_duplicates"]


@pytest.mark.parametrize(
    "name, lang", [(n, "en") for n in CLASS] + [("02_simhash_voting", "es")], ids=lambda x: x
)
def test_every_animation_fills_a_class_screen_and_reads_from_the_back(name, lang, bc, lab, browser, out_dir):
    """The classroom view the README documents, on a 1920×1080 screen: JupyterLab's Simple
    Interface, the left sidebar closed, Presentation Mode. Every stored animation and stepper (an
    animated picture as the notebook opens) is at least 80 % of the screen's width and its
    smallest text at least 24 px high; after Run All (02) the live player's frames fill the
    width too."""
    path = ROOT / "notebooks" / ("" if lang == "en" else lang) / f"{name}.ipynb"
    result = bc.presentation_check(browser, lab, path, _shots(out_dir, path), run_all=name.startswith("02"))
    print(result.summary())
    assert result.animations >= 1, result.summary()
    assert result.ok, result.summary()


@pytest.mark.parametrize("name", ["01_lsh_vs_crypto", "05_block_index"])
def test_nothing_covers_the_links_at_the_top_of_a_notebook(name, bc, lab, browser):
    """With the first cell active, as a notebook opens, a click on any link of its top line lands
    on the link (the cell toolbar used to sit over "Exercise": a click hit "Move this cell down")."""
    assert bc.covered_links(browser, lab, ROOT / "notebooks" / f"{name}.ipynb") == []


def test_make_labs_address_opens_the_map_with_the_course_in_the_file_browser(bc, lab, browser, out_dir):
    """The address `make lab` prints (its server's default URL) opens notebooks/00 itself, with the
    file browser in notebooks/, not the Launcher at the repository's root."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{lab.url}/?token={lab.token}", timeout=120_000)
        start = "notebooks/00_start_here.ipynb"
        page.wait_for_function(f"() => ({CURRENT_PATH})() === {start!r}", timeout=120_000)
        page.wait_for_timeout(1500)
        listed = page.locator(".jp-DirListing-itemText").all_inner_texts()
        browser_path = page.evaluate(
            "() => { const f = window.jupyterapp.shell.widgets('left'); for (const w of f) { "
            "if (w.model && w.model.path !== undefined) return w.model.path; } return null; }"
        )
        page.screenshot(path=str(out_dir / "make-lab-opens.png"))
        assert browser_path == "notebooks", browser_path
        assert "00_start_here.ipynb" in listed and "site_src" not in listed, listed
    finally:
        context.close()
