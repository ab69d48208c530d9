"""``simhash-lab grade`` on the Spanish exercises (``exercises/es/``): the same checks and points as
the English ones, on the Spanish pristine copy (``pristine/es/``), with Spanish verdicts, hints and
report table; the JSON keys stay the same."""

from __future__ import annotations

import pytest

from simhash_lab.grading.checks import EXERCISES

NAME = "03_hamming_popcount"
WRONG = {"xor_AB": "xor_AB = 0b101111"}  # A | B, a known mistake with its own hint


@pytest.fixture(scope="module")
def spanish_run(kit, sandbox_ok, tmp_path_factory):
    if not kit.exercise(NAME, "es").exists():
        pytest.skip("no Spanish exercises built (tools/build.py)")
    tmp = tmp_path_factory.mktemp("es")
    solved = tmp / "solved" / f"{NAME}.ipynb"
    solved.parent.mkdir()
    solved.write_bytes(kit.solution(NAME, "es").read_bytes())
    stub = tmp / "stub" / f"{NAME}.ipynb"
    stub.parent.mkdir()
    stub.write_bytes(kit.exercise(NAME, "es").read_bytes())
    sources = {k: kit.solution_source(NAME, k) for k in ("hamming_by_hand", "popcount_kernighan", "is_near")}
    wrong = kit.with_answers(kit.exercise(NAME, "es"), {**sources, **WRONG}, tmp / "wrong" / f"{NAME}.ipynb")
    wrong_en = kit.with_answers(kit.exercise(NAME), {**sources, **WRONG}, tmp / "en" / f"{NAME}.ipynb")
    spanish = kit.grade_cli([str(solved), str(stub), str(wrong), "--jobs", "3"], tmp)
    english = kit.grade_cli([str(wrong_en)], tmp)
    return spanish, english


def _rows(doc):
    return {r["path"].split("/")[-2]: r for r in doc}


def test_a_solved_spanish_exercise_passes_with_the_english_checks(spanish_run):
    (rc, out, err, doc), (_, _, _, doc_en) = spanish_run
    rows = _rows(doc)
    assert rows["solved"]["status"] == "passed", rows["solved"]
    names = [c["name"] for c in rows["solved"]["checks"]]
    assert names == [c["name"] for c in doc_en[0]["checks"]] == [a.key for a in EXERCISES[NAME].answers]
    assert [c["credit"] for c in rows["solved"]["checks"]] == [1.0] * len(names)
    assert set(rows["solved"]) == set(doc_en[0])  # the same JSON keys in both languages


def test_a_spanish_stub_and_a_wrong_answer_fail_with_spanish_hints(spanish_run):
    (rc, out, err, doc), (_, out_en, _, doc_en) = spanish_run
    rows = _rows(doc)
    assert rc == 1, err
    stub = {c["name"]: c for c in rows["stub"]["checks"]}
    assert not any(c["passed"] for c in stub.values())
    assert "aún no está escrita" in stub["hamming_by_hand"]["hint"], stub
    assert "aún no está escrita" in stub["popcount_kernighan"]["hint"], stub
    wrong = {c["name"]: c for c in rows["wrong"]["checks"]}
    assert [n for n, c in wrong.items() if not c["passed"]] == ["xor_AB"]
    assert wrong["xor_AB"]["hint"].startswith("Eso es A | B (OR)"), wrong
    english = {c["name"]: c for c in doc_en[0]["checks"]}
    assert english["xor_AB"]["hint"].startswith("That is A | B (OR)"), english
    assert [c["passed"] for c in english.values()] == [c["passed"] for c in wrong.values()]
    assert rows["wrong"]["checks_passed"] == doc_en[0]["checks_passed"] == 3


def test_the_report_table_is_spanish_for_spanish_notebooks(spanish_run):
    (rc, out, err, doc), (_, out_en, _, _) = spanish_run
    header = out.splitlines()[0].split()
    assert header[:4] == ["archivo", "ejercicio", "resultado", "comprobaciones"], out
    assert "1 de 3 cuadernos aprobados" in out and "NO APROBADO" in out, out
    assert "FAILED: 3/4 answers passed" in out_en and "That is A | B" in out_en, out_en


@pytest.fixture(scope="module")
def every_spanish_exercise(kit, sandbox_ok, tmp_path_factory):
    names = [n for n in kit.NAMES if kit.exercise(n, "es").exists() and kit.solution(n, "es").exists()]
    if names != kit.NAMES:
        pytest.skip(f"not every Spanish exercise is built (tools/build.py --exercises --lang es): {names}")
    tmp = tmp_path_factory.mktemp("es_all")
    for kind, path in (("solved", kit.solution), ("stub", kit.exercise)):
        (tmp / kind).mkdir()
        for n in names:
            (tmp / kind / f"{n}.ipynb").write_bytes(path(n, "es").read_bytes())
    return names, kit.grade_cli([str(tmp / "solved"), str(tmp / "stub"), "--jobs", "4"], tmp)


def test_every_spanish_solution_passes_and_every_stub_fails_on_the_same_checks(every_spanish_exercise):
    names, (rc, out, err, doc) = every_spanish_exercise
    by = {(r["path"].split("/")[-2], r["exercise"]): r for r in doc}
    for n in names:
        solved, stub = by[("solved", n)], by[("stub", n)]
        keys = [a.key for a in EXERCISES[n].answers]
        assert solved["status"] == "passed", solved
        assert [c["name"] for c in solved["checks"]] == [c["name"] for c in stub["checks"]] == keys
        assert stub["status"] == "failed" and stub["checks_passed"] == 0, stub
    assert f"{len(names)} de {2 * len(names)} cuadernos aprobados" in out, out
