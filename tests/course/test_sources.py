"""The course's sources (``course/sources/``) against what the notebooks say of them: notebook 00
links every source, every quotation a notebook attributes to a source is in it, and every term of
notebook 07's glossary that is not marked as the usual term (not the sources') is the source's own."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "course" / "sources"
NOTEBOOKS = sorted((ROOT / "course" / "notebooks").glob("0[0-7]_*.py"))
FILES = {
    "the session": "000_session_60_simhash_es.txt",
    "001": "001_simhash_principles_zh.txt",
    "004": "004_simhash_google_dedup_zh.txt",
}
# Source 004 went through a converter that wrote pinyin after some characters: 數(shù), 轉(zhuǎn).
_PINYIN = re.compile(r"\((?=[a-zü]*[āáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜ])[a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+\)")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _normal(text: str) -> str:
    """What a quotation is compared on: no pinyin, no arrow accents (v⃗), case folded, one space."""
    text = _PINYIN.sub("", text).replace("\u20d7", "")
    text = unicodedata.normalize("NFC", text).casefold()
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {name: _normal((SOURCES / f).read_text(encoding="utf-8")) for name, f in FILES.items()}


def _contains(source: str, fragment: str) -> bool:
    fragment = _normal(fragment)
    if source.find(fragment) >= 0:
        return True
    # Chinese runs with the spaces the scrape left out or put in ("v⃗ 的第i个元素", "A xor B后")
    return bool(_CJK.search(fragment)) and source.replace(" ", "").find(fragment.replace(" ", "")) >= 0


def _markdown(path: Path) -> list[str]:
    return [c.source for c in jupytext.read(path).cells if c.cell_type == "markdown"]


def test_the_sources_are_shipped_and_named_in_00():
    text = "\n".join(_markdown(ROOT / "course" / "notebooks" / "00_start_here.py"))
    readme = (SOURCES / "README.md").read_text(encoding="utf-8")
    for f in FILES.values():
        assert (SOURCES / f).stat().st_size > 1000, f
        assert f"../course/sources/{f}" in text, f"00 does not link {f}"
        assert f"({f})" in readme, f"course/sources/README.md does not link {f}"
    for name in ("the session", "source 001", "source 004"):
        assert f"**{name}**" in text, f"00 does not say what {name} is"


# A blockquote ending with its attribution: "> *...* (the session)", "> ... (source 004: ...)"
_QUOTE = re.compile(r"((?:^> .*\n?)+)", re.M)
_ATTRIBUTION = re.compile(r"\((the session|source (\d{3}))[^)]*\)\s*$")


def _quotations():
    for path in NOTEBOOKS:
        for cell in _markdown(path):
            for block in _QUOTE.findall(cell):
                text = " ".join(line[2:] for line in block.splitlines())
                m = _ATTRIBUTION.search(text)
                if m:
                    yield path.stem[:2], m.group(2) or m.group(1), text[: m.start()]


def _fragments(quote: str):
    """The pieces of a quotation to find verbatim: elisions ("..."), sentence ends and math
    ($...$, written as LaTeX here where the source has plain text) split it; the emphasis around
    it and code marks are dropped."""
    quote = re.sub(r"\$[^$]*\$", " ... ", quote.strip().strip("*").replace("`", ""))
    for piece in re.split(r"\s*(?:\.\.\.|…|(?<=\.)\s)\s*", quote):  # elisions, sentences
        piece = piece.strip(" .,:;()")
        if len(piece) >= 4:
            yield piece


def test_quotations_are_the_sources_words(sources):
    quotes = list(_quotations())
    assert {src for _, src, _ in quotes} == set(FILES), "every source is quoted somewhere"
    wrong = [
        f"{nb}: {piece!r} is not in {src}"
        for nb, src, quote in quotes
        for piece in _fragments(quote)
        if not _contains(sources[src], piece)
    ]
    assert not wrong, "\n".join(wrong)


def _glossary() -> list[list[str]]:
    cells = _markdown(ROOT / "course" / "notebooks" / "07_review.py")
    text = next(c for c in cells if "## Glossary" in c)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| English")]
    return [[c.strip() for c in row.strip("|").split(" | ")] for row in rows]


def test_glossary_terms_are_the_sources_own_unless_marked(sources):
    rows = _glossary()
    assert len(rows) >= 25
    wrong = []
    for english, spanish, chinese, _ in rows:
        for term in spanish.split("; "):
            if "‡" not in term and not _contains(sources["the session"], term):
                wrong.append(f"{english}: {term!r} is not the session's (mark it ‡)")
        for term in chinese.split("; "):
            if "†" in term:
                continue
            m = re.fullmatch(r"(.+?) \((\d{3})\)", term)
            if not m:
                wrong.append(f"{english}: {term!r} names no source, (001) or (004), and no †")
            elif not _contains(sources[m.group(2)], m.group(1)):
                wrong.append(f"{english}: {m.group(1)!r} is not in source {m.group(2)} (mark it †)")
    assert not wrong, "\n".join(wrong)


def test_glossary_fixes_stay_fixed():
    """The terms issue 22 found wrong: a normal vector is 法向量 (随机向量 is 'random vector'),
    a near-duplicate is not 去重 ('de-duplication'), the memory heap is not 'montículo' (the data
    structure), and POPCNT is not 'conteo de población' (a census)."""
    rows = {r[0]: r for r in _glossary()}
    assert "法向量" in rows["normal vector"][2] and "随机向量" not in rows["normal vector"][2]
    assert "去重" not in rows["near-duplicate"][2] and "去重" in rows["de-duplication"][2]
    assert not any("montículo" in r[1] for r in rows.values())
    assert "población" not in rows["population count (POPCNT)"][1]


def test_glossary_fixes_of_issue_47_stay_fixed():
    """置换表 is a chess engine's transposition table, 寄存器内SIMD no one's term (SWAR is); banding
    had no Chinese and bucket no Spanish; de-duplication is removal, not detection; the notebooks'
    "firma", the session's "esperanza matemática" and "corrimiento y máscara" were missing."""
    rows = {r[0]: r for r in _glossary()}
    assert "置换表" not in rows["permuted tables"][2]
    assert "寄存器内SIMD" not in rows["SWAR (SIMD within a register)"][2]
    assert "行条" in rows["MinHash, banding"][2] and "cubeta" in rows["hash table, bucket"][1]
    assert "detección" not in rows["de-duplication"][1] and "deduplicación" in rows["de-duplication"][1]
    assert "firma" in rows["fingerprint, signature"][1]
    assert "汉明重量" in rows["population count (POPCNT)"][2]
    assert rows["expected value"][1] == "esperanza matemática"
    assert rows["shift and mask"][1] == "corrimiento y máscara"
    assert rows["random vector"][1].startswith("vector aleatorio")


# Math written with Unicode symbols instead of LaTeX: MathJax does not typeset it, and it reads
# differently from the same formula in the text around it.
_UNICODE_MATH = re.compile(r"[×−≤≥≠≈θπ⊕ᵢ⁰¹²³⁴⁵⁶⁷⁸⁹±∝⟹↦√∑∈]|\b[dp][12]\b|\bd_H\b|\bE\[")


def test_folded_questions_write_math_in_latex():
    wrong = []
    for path in NOTEBOOKS:
        for cell in _markdown(path):
            for summary in re.findall(r"<summary>(.*?)</summary>", cell, re.S):
                text = re.sub(r"\$[^$]*\$|<code>.*?</code>", "", summary, flags=re.S)
                if _UNICODE_MATH.search(text):
                    wrong.append(f"{path.stem}: {' '.join(summary.split())}")
    assert not wrong, "\n".join(wrong)
