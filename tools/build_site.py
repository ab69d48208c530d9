#!/usr/bin/env python
"""Build the course's static site, ``site/``, from the committed, executed notebooks (``make site``).

Sphinx with myst-nb renders the notebooks as they are stored (nothing runs), with the Furo theme;
``site_src/`` holds the configuration, templates and style. For each language (:data:`LANGS`) whose
notebooks exist, this stages a Sphinx source folder under ``build/site/``:

- ``index.md``: the table of contents of the notebooks, each with its exercise under it (so
  *previous / next* walk 01, exercises 01, 02, ...), and the list of the exercises;
- ``notebooks/*.ipynb``, as committed, but the widgets' views and state dropped: the site shows
  each stepper's HTML fallback, the stored animated image, which plays by itself;
- ``exercises/*.ipynb`` (the learner's version, never ``exercises/solutions``), each with a
  "download the notebook" box; the untouched notebook is copied beside its page.

and builds it into ``site/`` (English) or ``site/<lang>/``. MathJax (with its font), Mermaid and
the fonts of Chinese and emoji come from the npm packages pinned in ``site_src/package.json``
(``npm ci --prefix site_src``, run by ``make site``) and are served from each language's
``_static/``: the site loads nothing from the network, and shows the sources' Chinese on a system
without a Chinese font. The theme's own words (*Next*, *On this page*, ...) come from
``site_src/locale`` on the pages of another language. Every page carries a
language switch when the course exists in another language. Sphinx runs with warnings as errors, so
a link to a page that does not exist fails the build. ``site/_site.json`` records the SHA-256 of
every source file, so the browser test (``tests/browser/test_site.py``) can tell a stale site.

    python tools/build_site.py                    # site/ from notebooks/ and exercises/ (+ es/ when present)
    python tools/build_site.py --out /tmp/site    # elsewhere
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import html
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_markdown_cell

ROOT = Path(__file__).resolve().parents[1]
CONF_DIR = ROOT / "site_src"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
INFO_FILE = "_site.json"

# Each language: where its notebooks and exercises are, where its pages go (below the site's root)
# and the few words this builder writes itself. The first is the site's root language.
LANGS = {
    "en": {
        "name": "English",
        "switch": "Language",  # the language switch's accessible name
        "notebooks": "notebooks",
        "exercises": "exercises",
        "prefix": "",
        "title": "simhash-lab: the course",
        "intro": (
            "Near-duplicate detection with Simhash and locality-sensitive hashing: the course's "
            "notebooks as they were run, with their figures, animations and folded answers. "
            "Nothing here needs a kernel; to run the code and do the exercises, install the "
            "course and open it in JupyterLab (`make lab`)."
        ),
        "course": "The course",
        "exercises_title": "Exercises",
        "download": "Download the notebook",
        "download_rest": (
            "to do these exercises in JupyterLab: its checks grade your answers as you go, and "
            "<code>simhash-lab grade</code> grades the whole notebook. This page shows the exercises only, "
            "never their solutions."
        ),
    },
    "es": {
        "name": "Español",
        "switch": "Idioma",
        "notebooks": "notebooks/es",
        "exercises": "exercises/es",
        "prefix": "es",
        "title": "simhash-lab: el curso",
        "intro": (
            "Detección de casi-duplicados con Simhash y Locality-Sensitive Hashing (LSH): los "
            "cuadernos del curso tal como se ejecutaron, con sus figuras, animaciones y respuestas "
            "plegadas. Nada de esto necesita un kernel; para ejecutar el código y hacer los "
            "ejercicios, instala el curso y ábrelo en JupyterLab (`make lab`)."
        ),
        "course": "El curso",
        "exercises_title": "Ejercicios",
        "download": "Descarga el cuaderno",
        "download_rest": (
            "para hacer estos ejercicios en JupyterLab: sus comprobaciones califican tus respuestas "
            "sobre la marcha y <code>simhash-lab grade</code> califica el cuaderno entero. Esta "
            "página muestra solo los ejercicios, nunca sus soluciones."
        ),
    },
}

# What the pages load of the npm packages (site_src/package.json), as (package, parts, folder in
# _static/): MathJax's combined component and what it loads on demand (TeX extensions, menu,
# accessibility, speech), its CHTML font where its loader.paths.fonts points ([mathjax]/fonts, see
# site_src/conf.py), and Mermaid's one-file build (source maps left out).
STATIC = (
    (
        "mathjax",
        ("tex-mml-chtml.js", "input", "output", "a11y", "ui", "sre", "adaptors", "LICENSE"),
        "mathjax",
    ),
    ("@mathjax/mathjax-newcm-font", ("chtml.js", "chtml"), "mathjax/fonts/mathjax-newcm-font"),
    ("@mermaid-js/tiny", ("dist/mermaid.tiny.js", "LICENSE"), "mermaid"),
    # fonts for what a reader's system may lack: the sources' Chinese (simplified, 001; traditional,
    # 004) and the emoji of the notebooks (✅ ❌ ✏️), in Fontsource's slices by unicode-range, of
    # which a page loads only those it shows; the regular weight, woff2 (the CSS's woff fallbacks
    # are dropped, see FONT_CSS)
    *(
        (f"@fontsource/{font}", ("400.css", "files/*-400-normal.woff2", "LICENSE"), f"fonts/{font}")
        for font in ("noto-sans-sc", "noto-sans-tc", "noto-color-emoji")
    ),
)
#: A Fontsource stylesheet's fallback to woff after woff2, dropped: every browser the site serves
#: reads woff2, and the woff files are not shipped.
FONT_CSS = re.compile(r", url\([^)]*\.woff\) format\('woff'\)")


class SiteError(Exception):
    """A problem the user can fix (missing tools, missing notebooks)."""


def sources(root: Path, lang: str) -> tuple[list[Path], list[Path]]:
    """The notebooks and exercises of one language, by glob (never ``exercises/solutions``)."""
    spec = LANGS[lang]
    notebooks = sorted((root / spec["notebooks"]).glob("*.ipynb"))
    exercises = sorted((root / spec["exercises"]).glob("*.ipynb"))
    return notebooks, exercises


def exercise_name(path: Path) -> str:
    """The exercise a learner's file is: its metadata's ``simhash_lab.exercise``, which is its course
    notebook's name (``exercises/02_exercise_simhash_voting.ipynb`` is ``02_simhash_voting``); the
    file's stem when it has none."""
    meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("simhash_lab")
    name = meta.get("exercise") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else path.stem


def _title(nb) -> str:
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def _site_view(nb):
    """The notebook as the site shows it: widget views and state dropped (each stepper keeps its
    HTML fallback, the stored animated image)."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data and WIDGET_MIME in data and len(data) > 1:
                del data[WIDGET_MIME]
    return nb


def _after_title(nb) -> int:
    """The index just after the cell holding the notebook's ``# title`` (0 when there is none)."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(r"^# ", cell.source, re.M):
            return i + 1
    return 0


_LINK = re.compile(r"\[([^\[\]]*)\]\(([^()\s#]+)(#[^()\s]*)?\)")


def _html_link(url: str, text: str) -> str:
    code = re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))
    return f'<a href="{html.escape(url)}">{code}</a>'


def _relink(nb, here: str, staged_here: str, links: dict) -> None:
    """Point the relative markdown links of a notebook at what the site serves. ``here`` is the
    notebook's path in the repository, ``staged_here`` in the staged source; ``links`` holds:

    - ``staged``: this language's notebooks, repository path -> staged path (the identity for
      English; ``notebooks/es/x.ipynb`` -> ``notebooks/x.ipynb`` for Spanish, so its link
      ``../../exercises/es/x.ipynb`` still resolves): Sphinx links their pages;
    - ``elsewhere``: another language's notebooks, repository path -> page below the site's root
      (``"."``: this language's folder there): a plain link to that page, which this language's
      Sphinx project does not hold;
    - ``root`` and ``extra``: any other file of the repository (the course's source texts) is
      copied to the same path below this language's folder of the site, and linked plainly.
    """
    page_dir = posixpath.dirname(staged_here) or "."

    def sub(m):
        text, link, frag = m.group(1), m.group(2), m.group(3) or ""
        if re.match(r"[a-z][a-z0-9+.-]*:", link) or link.startswith("/"):
            return m.group(0)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(here), link))
        if target in links["staged"]:
            return f"[{text}]({posixpath.relpath(links['staged'][target], page_dir)}{frag})"
        if target in links["elsewhere"]:
            page = posixpath.dirname(links["elsewhere"]["."] + staged_here) or "."
            return _html_link(posixpath.relpath(links["elsewhere"][target], page) + frag, text)
        source = links["root"] / target
        if not target.startswith("../") and source.is_file():
            (links["extra"] / target).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, links["extra"] / target)
            return _html_link(posixpath.relpath(target, page_dir) + frag, text)
        return m.group(0)

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = _LINK.sub(sub, cell.source)


def _write_if_changed(path: Path, text: str) -> None:
    """Keep the staged file (and its mtime) when unchanged, so Sphinx rebuilds only what changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def stage(root: Path, lang: str, work: Path) -> dict:
    """Write the Sphinx source folder of one language under ``work``; returns what the build
    needs (its pages, folders, titles)."""
    spec = LANGS[lang]
    notebooks, exercises = sources(root, lang)
    src, extra = work / lang / "src", work / lang / "extra"
    if src.exists():
        # a notebook removed since the last build must not stay staged
        keep = {f"notebooks/{p.name}" for p in notebooks} | {f"exercises/{p.name}" for p in exercises}
        for old in src.glob("*/*.ipynb"):
            if old.relative_to(src).as_posix() not in keep:
                old.unlink()
    shutil.rmtree(extra, ignore_errors=True)
    exercise_of = {exercise_name(p): p for p in exercises}  # a notebook's name -> its exercise's file
    rel = {p: p.relative_to(root).as_posix() for p in [*notebooks, *exercises]}
    staged_of = {rel[p]: f"notebooks/{p.name}" for p in notebooks}
    staged_of |= {rel[p]: f"exercises/{p.name}" for p in exercises}
    # the other languages' pages, by repository path; "." is this language's folder in the site
    elsewhere = {".": spec["prefix"] + "/" if spec["prefix"] else ""}
    for other, o in LANGS.items():
        o_notebooks, o_exercises = sources(root, other)
        if other != lang and o_notebooks:
            folder = o["prefix"] + "/" if o["prefix"] else ""
            for kind, group in (("notebooks", o_notebooks), ("exercises", o_exercises)):
                for p in group:
                    elsewhere[p.relative_to(root).as_posix()] = f"{folder}{kind}/{p.stem}.html"
    links = {"staged": staged_of, "elsewhere": elsewhere, "root": root, "extra": extra}
    pages, toc, titles = ["index"], [], {}
    for path in notebooks:
        nb = _site_view(nbformat.read(path, as_version=4))
        stem = path.stem
        _relink(nb, rel[path], staged_of[rel[path]], links)
        pages.append(f"notebooks/{stem}")
        toc.append(f"notebooks/{stem}")
        if stem in exercise_of:
            # the exercise under its notebook: in the sidebar, and next after it
            page = exercise_of[stem].stem
            nb.cells.append(
                new_markdown_cell(f"```{{toctree}}\n:hidden:\n\n../exercises/{page}\n```", metadata={})
            )
        _write_if_changed(src / "notebooks" / path.name, nbformat.writes(nb))
    for path in exercises:
        nb = _site_view(nbformat.read(path, as_version=4))
        titles[path] = _title(nb) or path.stem
        _relink(nb, rel[path], staged_of[rel[path]], links)
        pages.append(f"exercises/{path.stem}")
        box = (
            f'<p class="site-download"><a href="{path.name}" download>⬇ {spec["download"]}</a> '
            f"(<code>{path.name}</code>) {spec['download_rest']}</p>"
        )
        nb.cells.insert(_after_title(nb), new_markdown_cell(box, metadata={}))
        _write_if_changed(src / "exercises" / path.name, nbformat.writes(nb))
        (extra / "exercises").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, extra / "exercises" / path.name)
    orphans = sorted(set(exercise_of) - {p.stem for p in notebooks})
    lines = [f"# {spec['title']}", "", spec["intro"], "", "```{toctree}", f":caption: {spec['course']}"]
    lines += [":maxdepth: 2", ":titlesonly:", "", *toc]
    lines += [f"exercises/{exercise_of[n].stem}" for n in orphans]
    lines += ["```", ""]
    if exercises:  # in the toctree under their notebooks; listed here too
        lines += [f"## {spec['exercises_title']}", ""]
        lines += [f"- [{titles[p]}](exercises/{p.name})" for p in exercises]
        lines += [""]
    _write_if_changed(src / "index.md", "\n".join(lines))
    return {"lang": lang, "src": src, "extra": extra, "pages": pages}


def _npm_packages(conf_dir: Path) -> Path:
    """``site_src/node_modules``, checked to hold every package of ``site_src/package.json``."""
    mods = conf_dir / "node_modules"
    wanted = json.loads((conf_dir / "package.json").read_text(encoding="utf-8"))["dependencies"]
    missing = [name for name in wanted if not (mods / name / "package.json").exists()]
    if missing:
        where = conf_dir.relative_to(ROOT) if conf_dir.is_relative_to(ROOT) else conf_dir
        raise SiteError(
            f"{', '.join(missing)} not installed in {mods}: run `npm ci --prefix {where}` (make site does)"
        )
    return mods


def stage_static(conf_dir: Path, work: Path) -> Path:
    """``work/static``: what the pages load of the npm packages (:data:`STATIC`), copied again only
    when their versions change; returns the folder (Sphinx copies it into each ``_static/``)."""
    mods = _npm_packages(conf_dir)
    static = work / "static"
    stamp = static / ".versions"
    versions = {
        pkg: json.loads((mods / pkg / "package.json").read_text(encoding="utf-8"))["version"]
        for pkg in sorted({pkg for pkg, _, _ in STATIC})
    }
    want = json.dumps(versions, sort_keys=True)
    if stamp.exists() and stamp.read_text(encoding="utf-8") == want:
        return static
    shutil.rmtree(static, ignore_errors=True)
    no_maps = shutil.ignore_patterns("*.map")
    for pkg, parts, dest in STATIC:
        for part in parts:
            for src in sorted((mods / pkg).glob(part)) if "*" in part else [mods / pkg / part]:
                to = static / dest / src.relative_to(mods / pkg)
                if src.is_dir():
                    shutil.copytree(src, to, ignore=no_maps)
                elif src.suffix == ".css" and pkg.startswith("@fontsource/"):
                    to.parent.mkdir(parents=True, exist_ok=True)
                    to.write_text(FONT_CSS.sub("", src.read_text(encoding="utf-8")), encoding="utf-8")
                else:
                    to.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, to)
    stamp.write_text(want, encoding="utf-8")
    return static


def stage_locale(conf_dir: Path, work: Path) -> Path:
    """``work/locale``: the site's own catalogues (``site_src/locale``: the theme's words Sphinx's
    catalogue lacks), copied beside the build, where Sphinx compiles them, so that the source tree
    gets no compiled file."""
    locale = work / "locale"
    for po in sorted((conf_dir / "locale").rglob("*.po")):
        to = locale / po.relative_to(conf_dir / "locale")
        to.parent.mkdir(parents=True, exist_ok=True)
        if not to.exists() or to.read_bytes() != po.read_bytes():
            shutil.copyfile(po, to)
    return locale


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_digests(root: Path) -> dict[str, str]:
    """SHA-256 of every file the site is built from, by path relative to ``root``."""
    files = [p for lang in LANGS for group in sources(root, lang) for p in group]
    files += sorted(p for p in CONF_DIR.rglob("*") if p.is_file() and "node_modules" not in p.parts)
    files.append(Path(__file__).resolve())
    out = {}
    for p in files:
        p = p.resolve()
        key = p.relative_to(root).as_posix() if p.is_relative_to(root) else p.as_posix()
        out[key] = _digest(p)
    return out


def build(root: Path = ROOT, out: Path | None = None, work: Path | None = None, quiet: bool = True) -> Path:
    """Build the site of every language that has notebooks; returns the output folder."""
    root = Path(root).resolve()
    out = Path(out or root / "site").resolve()
    work = Path(work or root / "build" / "site").resolve()
    langs = [lang for lang in LANGS if sources(root, lang)[0]]
    if not langs or langs[0] != next(iter(LANGS)):
        raise SiteError(f"no notebooks in {root / LANGS['en']['notebooks']}")
    static = stage_static(CONF_DIR, work)
    staged = {lang: stage(root, lang, work) for lang in langs}
    if out.exists():
        shutil.rmtree(out)
    for lang in langs:
        spec = LANGS[lang]
        here = spec["prefix"]
        others = [
            {
                "lang": o,
                "name": LANGS[o]["name"],
                "prefix": os.path.relpath(LANGS[o]["prefix"] or ".", here or ".").replace(os.sep, "/"),
                "pages": staged[o]["pages"],
            }
            for o in langs
            if o != lang
        ]
        info = {
            "lang": lang,
            "name": spec["name"],
            "switch": spec["switch"],
            "title": spec["title"],
            "static": [str(static)],
            "extra": [str(staged[lang]["extra"])],
            "others": others,
            "locale": str(stage_locale(CONF_DIR, work)),
        }
        info_path = work / lang / "info.json"
        info_path.write_text(json.dumps(info, indent=1, ensure_ascii=False), encoding="utf-8")
        # Sphinx writes into the work folder (myst-nb puts its jupyter_execute/ beside the output
        # folder, and a kept output folder rebuilds only what changed); the pages are then copied
        html, dest = work / lang / "html", out / here if here else out
        pages_file = work / lang / "pages.json"
        pages = json.dumps(staged[lang]["pages"])
        if not pages_file.exists() or pages_file.read_text(encoding="utf-8") != pages:
            # a page gone since the last build must not stay in the output folder
            shutil.rmtree(html, ignore_errors=True)
            shutil.rmtree(work / lang / "doctrees", ignore_errors=True)
        cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-n"]
        cmd += ["-c", str(CONF_DIR), "-d", str(work / lang / "doctrees")]
        cmd += ["-q"] if quiet else []
        cmd += [str(staged[lang]["src"]), str(html)]
        env = dict(os.environ, SIMHASH_LAB_SITE=str(info_path))
        t = time.monotonic()
        proc = subprocess.run(cmd, env=env)
        if proc.returncode:
            raise SiteError(f"sphinx-build failed for {lang} (exit {proc.returncode}): {' '.join(cmd)}")
        pages_file.write_text(pages, encoding="utf-8")
        shutil.copytree(html, dest, dirs_exist_ok=True)
        n = len(staged[lang]["pages"])
        print(f"site: {lang}: {n} pages in {time.monotonic() - t:.0f} s -> {dest}")
    info = {"langs": langs, "sources": source_digests(root)}
    (out / INFO_FILE).write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="tools/build_site.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", type=Path, default=None, help="output folder (default: site/)")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)  # a copy, in tests
    ap.add_argument("--work", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("-v", "--verbose", action="store_true", help="Sphinx's full output")
    args = ap.parse_args(argv)
    t = time.monotonic()
    try:
        out = build(args.root, args.out, args.work, quiet=not args.verbose)
    except SiteError as e:
        print(f"tools/build_site.py: error: {e}", file=sys.stderr)
        return 2
    print(f"site: built in {time.monotonic() - t:.0f} s: open {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
