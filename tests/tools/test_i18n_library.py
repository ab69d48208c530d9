"""``tools/i18n_library.py``: every string the library marks for the course (``_``/``N_`` in
``simhash_lab/``) has a finished Spanish translation in ``simhash_lab/locale/es``, keeping its
``{...}`` fields, and the compiled ``.mo`` the runtime reads is the ``.po``; the check fails on a
marked string without Spanish, a fuzzy one, other fields, an f-string marker, a stale ``.mo``."""

from __future__ import annotations

from pathlib import Path

import pytest

polib = pytest.importorskip("polib")

ROOT = Path(__file__).resolve().parents[2]


def test_every_marked_library_string_has_its_spanish(i18n_library):
    found, _ = i18n_library.marked()
    assert len(found) > 200  # the checkers, the grader's report, the plots ... are marked
    assert i18n_library.problems("es") == []


def _package(tmp: Path, code: str) -> Path:
    pkg = tmp / "simhash_lab"
    pkg.mkdir()
    (pkg / "mod.py").write_text(code, encoding="utf-8")
    return pkg


def test_the_check_fails_on_each_kind_of_problem(i18n_library, tmp_path):
    pkg = _package(
        tmp_path,
        "from ._i18n import _, N_\n"
        "A = N_('kept')\n"
        "def f(n, name):\n"
        "    print(_('{n} bits').format(n=n), _(f'{name} edits'), _('brand new'), _('changed'))\n",
    )
    po = polib.POFile()
    po.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    po.append(polib.POEntry(msgid="kept", msgstr="conservado"))
    po.append(polib.POEntry(msgid="{n} bits", msgstr="{m} bits"))
    po.append(polib.POEntry(msgid="changed", msgstr="cambiado", flags=["fuzzy"]))
    path = i18n_library.po_path("es", pkg)
    path.parent.mkdir(parents=True)
    po.save(str(path))
    problems = "\n".join(i18n_library.problems("es", pkg))
    assert "mod.py:4: _(...) needs one string literal" in problems  # the f-string
    assert "not in the es catalogue: 'brand new'" in problems
    assert "fuzzy in es (its English changed): 'changed'" in problems
    assert "other {...} fields: '{n} bits'" in problems
    assert "simhash_lab.mo: not the compiled .po" in problems
    assert "'kept'" not in problems


def test_update_keeps_translations_and_flags_changed_english_fuzzy(i18n_library, tmp_path):
    pkg = _package(
        tmp_path, "from ._i18n import _\ndef f():\n    return _('one fingerprint'), _('two bits')\n"
    )
    i18n_library.update("es", pkg)
    po = polib.pofile(str(i18n_library.po_path("es", pkg)))
    po.find("one fingerprint").msgstr = "una huella"
    po.find("two bits").msgstr = "dos bits"
    po.save()
    (pkg / "mod.py").write_text(
        "from ._i18n import _\ndef f():\n    return _('one fingerprint'), _('two bits each')\n",
        encoding="utf-8",
    )
    i18n_library.update("es", pkg)
    po = polib.pofile(str(i18n_library.po_path("es", pkg)))
    assert po.find("one fingerprint").msgstr == "una huella"
    changed = po.find("two bits each")
    assert changed.msgstr == "dos bits" and "fuzzy" in changed.flags and changed.previous_msgid == "two bits"
    assert po.find("two bits") is None
    problems = i18n_library.problems("es", pkg)
    assert len(problems) == 1 and "fuzzy" in problems[0], problems
