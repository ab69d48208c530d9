"""``simhash-lab check`` on a Spanish exercise: the same checks as in English, its verdicts, hints and
closing note in Spanish (the notebook's metadata ``simhash_lab.lang``)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("nbformat")

ROOT = Path(__file__).resolve().parents[2]
ES = ROOT / "exercises" / "es"
NAME = "03_exercise_hamming_popcount.ipynb"
SOLVED = "03_solution_hamming_popcount.ipynb"
pytestmark = pytest.mark.skipif(not (ES / NAME).exists(), reason="no Spanish exercises built")


def test_a_solved_spanish_exercise_passes_and_says_so_in_spanish(cli):
    r = cli("check", str(ES / "solutions" / SOLVED))
    r.assert_no_traceback()
    assert r.code == 0, (r.text, r.err)
    assert "APROBADO: 4/4 respuestas aprobadas" in r.text, r.text
    assert "no una nota" in r.text and "simhash-lab grade" in r.text, r.text


def test_an_untouched_spanish_exercise_fails_with_spanish_hints(cli):
    r = cli("check", str(ES / NAME))
    r.assert_no_traceback()
    assert r.code == 1, r.text
    lines = {x.split(":")[0].strip(): x for x in r.text.splitlines() if x.strip().startswith("❌")}
    assert set(lines) == {f"❌ {k}" for k in ("hamming_by_hand", "xor_AB", "popcount_kernighan", "is_near")}
    assert all("aún no está escrita" in line for line in lines.values()), r.text
    assert "NO APROBADO: 0/4" in r.text and "not yet" not in r.text, r.text


def test_the_spanish_folder_gets_its_overview_in_spanish(cli):
    r = cli("check", str(ES))
    r.assert_no_traceback()
    assert r.code == 1, r.text
    rows = [line for line in r.text.splitlines() if line[:2].isdigit()]
    assert len(rows) == 6 and all("/" in row for row in rows), r.text
    assert "Tus ejercicios" in r.text and "0 de 6 completos" in r.text and "siguiente paso" in r.text
    assert "not yet" not in r.text and "no una nota" in r.text, r.text
