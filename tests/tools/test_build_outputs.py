"""What a reader meets in the built course notebooks (``notebooks/``, ``notebooks/es/``), in every
language: markdown that renders as written (no formula swallowing a quotation's ``>``, no folded
answer read as a list starting at 20), every Chinese quotation followed by its sense, and every
figure and animation with a text alternative (JupyterLab shows a bare ``image/png`` output without
one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted(
    (ROOT / "notebooks").glob("*/[0-9][0-9]_*.ipynb")
)
_CJK = re.compile(r"[\u3400-\u9fff]")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _markdown(path: Path) -> list[tuple[int, str]]:
    return [(i, "".join(c["source"])) for i, c in enumerate(_cells(path)) if c["cell_type"] == "markdown"]


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_found_the_notebooks_of_every_language():
    assert len(NOTEBOOKS) >= 18 and any("/es/" in _name(p) for p in NOTEBOOKS)


def _inline_math(text: str) -> list[str]:
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    return re.findall(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$(?!\$)", text, flags=re.S)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_no_formula_runs_into_a_quotations_next_line(path):
    """``$...$`` across two lines of a blockquote takes the second line's ``>`` into the formula
    (issue 47: "θ = π/2 ⟹ > d_H = 64 × 1/2 = 32 bits")."""
    wrong = [
        f"cell {i}: ${m[:60]}$"
        for i, text in _markdown(path)
        for m in _inline_math(text)
        if re.search(r"\n\s*>", m)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_no_paragraph_starts_a_numbered_list_it_does_not_mean(path):
    """A paragraph that opens with "20. ..." is a list starting at 20 in Markdown (issue 47: notebook
    05's folded answer 3); a list that means it starts at 1, or goes on from the paragraph above."""
    wrong = []
    for i, text in _markdown(path):
        paragraphs = re.split(r"\n\s*\n", text)
        for before, para in zip(["", *paragraphs], paragraphs):
            m = re.match(r"\s*(\d+)\. ", para)
            if m and int(m.group(1)) != 1 and not re.search(rf"(?m)^\s*{int(m.group(1)) - 1}\. ", before):
                wrong.append(f"cell {i}: {para[:70]!r}")
    assert not wrong, "\n".join(wrong)


_QUOTE = re.compile(r"((?:^> .*\n?)+)", re.M)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_every_chinese_quotation_is_followed_by_its_sense(path):
    """Notebook 00 promises that a Chinese quotation is followed by its sense in the reader's
    language: in its attribution, ``(source 001: "...")``, or in the next paragraph, which opens
    with it in quotation marks."""
    wrong = []
    for i, text in _markdown(path):
        for m in _QUOTE.finditer(text):
            block = m.group(1)
            if not _CJK.search(block):
                continue
            after = text[m.end() :].lstrip()
            glossed = re.search(r"\((?:source|fuente) \d{3}: [\"“«].+[\"”»]\)\s*$", block.strip())
            if not glossed and not after.startswith(('"', "“", "«")):
                wrong.append(f"cell {i}: {block.strip()[:60]!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_name)
def test_every_figure_and_animation_has_a_text_alternative(path):
    """Every picture an output shows is an ``<img>`` with a non-empty ``alt`` (a static figure,
    ``plot.figure_html``; an animation or stepper as opened, ``widgets.stepper``), never a bare
    ``image/png`` output, which JupyterLab shows without one."""
    wrong, pictures = [], 0
    for i, cell in enumerate(_cells(path)):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "image/png" in data and "text/html" not in data:
                wrong.append(f"cell {i}: a bare image/png output")
            for tag in re.findall(r"<img\b[^>]*>", "".join(data.get("text/html", ""))):
                pictures += 1
                alt = re.search(r'\balt="([^"]*)"', tag)
                if not alt or len(alt.group(1).strip()) < 10:
                    wrong.append(f"cell {i}: <img> without a text alternative: {tag[:40]}...")
    assert not wrong, "\n".join(wrong)
    if any(c["cell_type"] == "code" and "plt.show()" in "".join(c["source"]) for c in _cells(path)):
        assert pictures, "a notebook that draws shows no picture"
