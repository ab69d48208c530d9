"""The checkers in the learner's kernel speak the notebook's language: ``set_language("es")`` (the
first code cell of every Spanish notebook) makes every ✅ line, ❌ block and hint Spanish; the
grader's threads each keep their own language."""

from __future__ import annotations

import threading

import pytest

from simhash_lab import _i18n
from simhash_lab.grading import checks


@pytest.fixture(autouse=True)
def _english_after():
    yield
    _i18n.set_language("en")


def test_a_spanish_kernel_prints_spanish_verdicts(capsys):
    _i18n.set_language("es")
    checks.xor_AB(0b101111)
    checks.hamming_by_hand(..., 2)
    out = capsys.readouterr().out
    assert out.startswith("❌ xor_AB: todavía no\n   obtenido: 0b101111\n   pista:    Eso es A | B (OR)"), out
    assert "❌ hamming a mano: todavía no" in out and "`d_AB` aún no está escrita" in out, out
    _i18n.set_language("en")
    checks.xor_AB(0b101111)
    assert "hint:     That is A | B (OR)" in capsys.readouterr().out


def test_every_pass_line_has_its_spanish():
    for name in checks.CHECKS:
        en, es = checks.pass_line(name, "en"), checks.pass_line(name, "es")
        assert es.startswith("✅ ") and es.endswith("\n") and es != en, (name, es)
    assert checks.pass_line("xor_AB", "es") == "✅ A ^ B = 0b001101: un 1 justo donde A y B difieren.\n"


def test_each_thread_judges_in_its_own_language():
    got = {}

    def judge(lang):
        with _i18n.language(lang):
            v = checks.CHECKS["xor_AB"].feedback(0b101111)
            got[lang] = v.hint

    threads = [threading.Thread(target=judge, args=(lang,)) for lang in ("es", "en")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got["es"].startswith("Eso es A | B") and got["en"].startswith("That is A | B"), got
    assert _i18n.get_language() == "en"
