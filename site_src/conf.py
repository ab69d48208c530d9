"""Sphinx configuration of the course's static site (``make site``; see ``tools/build_site.py``).

``tools/build_site.py`` stages the executed notebooks and exercises of one language into a source folder
and runs Sphinx with this folder as its configuration directory. What differs between languages
comes from the JSON file named by ``SIMHASH_LAB_SITE`` (written by ``tools/build_site.py``): the
language, the project title and the pages that exist in the other languages (for the switch).
"""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

_info = json.loads(Path(os.environ["SIMHASH_LAB_SITE"]).read_text(encoding="utf-8"))

project = _info["title"]
language = _info["lang"]
html_title = _info["title"]
copyright = "the simhash-lab authors (MIT)"
extensions = ["myst_nb", "sphinxcontrib.mermaid"]
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static", *_info["static"]]
# the fonts of the sources' Chinese and of the emoji, from _static (tools/build_site.py: STATIC);
# site.css puts them at the end of the theme's font stacks, for what the reader's system lacks
html_css_files = [
    "fonts/noto-sans-sc/400.css",
    "fonts/noto-sans-tc/400.css",
    "fonts/noto-color-emoji/400.css",
    "site.css",
]
# a search result's snippet shows each formula as text, not its TeX source
html_js_files = ["search-text.js"]
# the theme's words in this language where Sphinx's catalogue lacks them (site_src/locale, staged
# and compiled by tools/build_site.py)
locale_dirs = [_info["locale"]] if _info.get("locale") else []
html_extra_path = _info["extra"]
html_theme = "furo"
html_theme_options = {"top_of_page_buttons": []}
html_copy_source = False  # the exercises are offered as notebooks; the rest needs no source link
html_show_sourcelink = False
html_last_updated_fmt = None
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "lang-switch.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}

# The notebooks are committed executed: render what they store, run nothing.
nb_execution_mode = "off"
# The stored animations are widgets with an animated image as their HTML fallback: the site shows
# the fallback (tools/build_site.py drops the widget views and state, so no widget script is wanted).
nb_ipywidgets_js = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
suppress_warnings = ["myst.header"]
# ```mermaid fences are diagrams (as JupyterLab draws them), drawn in the page by Mermaid from
# _static: its one-file build (a classic script, added to the pages with a diagram by _mermaid
# below), which _static/mermaid-module.mjs hands to sphinxcontrib-mermaid as the module it imports
myst_fence_as_directive = ["mermaid"]
mermaid_use_local = "mermaid-module.mjs"
MERMAID_SCRIPT = "mermaid/dist/mermaid.tiny.js"

# MathJax from _static (copied from the npm package by tools/build_site.py), never from a CDN. As in
# JupyterLab, $...$ in raw HTML (the <summary> of a folded answer) is math too.
mathjax_path = "mathjax/tex-mml-chtml.js"
myst_update_mathjax = False
mathjax4_config = {
    "loader": {"paths": {"fonts": "[mathjax]/fonts"}},
    "tex": {
        "inlineMath": {"[+]": [["$", "$"]]},
        "processEscapes": True,
    },
    "options": {"ignoreHtmlClass": "tex2jax_ignore|mathjax_ignore"},
}


def _lang_switch(app, pagename, templatename, context, doctree):
    """``lang_links``: for each other language that has this page (or else its home page), the
    relative URL and the language's name; the current language's name."""
    here = posixpath.dirname(pagename)
    links = []
    for other in _info["others"]:
        # every language has its own search and index pages: a switch there stays on them
        same = pagename in other["pages"] or pagename in ("search", "genindex")
        target = pagename if same else "index"
        path = posixpath.join(other["prefix"], target + ".html")
        links.append(
            {
                "lang": other["lang"],
                "name": other["name"],
                "url": posixpath.relpath(path, here or "."),
                "same_page": target == pagename,
            }
        )
    context["lang_links"] = links
    context["lang_name"] = _info["name"]
    context["lang_switch_label"] = _info.get("switch", "Language")


def _mermaid(app, pagename, templatename, context, doctree):
    """Mermaid's script on the pages where sphinxcontrib-mermaid imports it: those with a diagram,
    and those without a doctree (search, index)."""
    from sphinxcontrib.mermaid import mermaid

    if doctree is None or doctree.next_node(mermaid) is not None:
        app.add_js_file(MERMAID_SCRIPT)


def setup(app):
    # MathJax on every page: a <summary> may hold the only math of a page, and Sphinx cannot see it
    app.set_html_assets_policy("always")
    app.connect("html-page-context", _lang_switch)
    app.connect("html-page-context", _mermaid)
