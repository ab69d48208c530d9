"""The library's summaries and tables that the notebooks print follow :func:`set_language`: Spanish
after ``set_language("es")``, and in English byte for byte what they were before they were marked
(the English expectations below are the old f-strings, and the English notebooks' stored outputs)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from simhash_lab import dedup_texts, design_tables, manku_example_3_1
from simhash_lab._i18n import language, set_language
from simhash_lab.calibration import Calibration

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus(course):
    return course("corpus")


@pytest.fixture(scope="module")
def compare(course):
    return course("compare")


@pytest.fixture(autouse=True)
def _english_after():
    yield
    set_language("en")


def _stdout(notebook: str) -> str:
    nb = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))
    return "".join(
        "".join(o["text"])
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "stream"
    )


def _calibration(method: str) -> Calibration:
    return Calibration(
        k=14,
        jaccard=0.8,
        target=0.99,
        recall=0.99712,
        method=method,
        sample=216,
        pairs=3287,
        k_max=22,
        recall_by_k=np.zeros(23),
        distances=np.zeros(0, np.int64),
        similarities=np.zeros(0),
    )


def _old_calibration_summary(c: Calibration) -> str:
    """``Calibration.summary`` as it was written before its strings were marked."""
    if c.method == "theory":
        return (
            f"k = {c.k}: expected recall {c.recall:.3f} (target {c.target:g}) from Charikar's "
            f"bound at Jaccard {c.jaccard:g} (no pair could be measured: the sampled documents "
            "are shorter than 8 words)"
        )
    how = (
        f"{c.pairs} near-duplicate pairs (Jaccard >= {c.jaccard:g}) of a sample of {c.sample} documents"
        if c.method == "sample"
        else f"{c.pairs} pairs made at Jaccard ~ {c.jaccard:g} "
        f"from {c.sample} sampled documents (the sample held too few real ones)"
    )
    return (
        f"k = {c.k}: expected recall {c.recall:.3f} (target {c.target:g}), measured on {how}; "
        f"distances searched up to {c.k_max}"
    )


@pytest.mark.parametrize("method", ["sample", "synthetic", "theory"])
def test_calibration_summary_in_both_languages(method):
    c = _calibration(method)
    assert c.summary() == _old_calibration_summary(c)
    set_language("es")
    es = c.summary()
    assert es.startswith("k = 14: recall esperado 0.997 (objetivo 0.99)")
    assert "expected" not in es and "measured" not in es
    set_language("en")
    assert c.summary() == _old_calibration_summary(c)


@pytest.fixture(scope="module")
def lab(corpus):
    return corpus.labelled_set(corpus.python_docs()[:40], seed=0)


@pytest.mark.parametrize("options", [{"k": 6}, {"k": 6, "unverified": True}, {"recall": 0.99}])
def test_dedup_summary_in_both_languages(lab, options):
    res = dedup_texts(list(lab.docs), **options)
    c = res.settings.get("candidates") or {}
    found_by = (
        f"by MinHash bands ({c['bands']} of {c['rows']} rows; calibrated k = {res.k})"
        if c.get("method") == "minhash bands"
        else f"within k = {res.k}"
    )
    mode = (
        f"verified at Jaccard >= {res.jaccard:g} ({res.verified} of {res.pairs.shape[0]} candidate pairs)"
        if res.jaccard is not None
        else f"{res.pairs.shape[0]} pairs, unverified (the raw Hamming mode)"
    )
    groups = len(set(res.duplicates.kept.tolist()))
    old = (
        f"{len(res.ids)} rows, {len(res.duplicates)} dropped in {groups} group(s) "
        f"({res.exact} exact copies) {found_by}, {mode}; {res.featureless.size} featureless"
    )
    assert len(res.duplicates) > 0
    assert res.summary() == old
    with language("es"):
        es = res.summary()
        assert res.found_by in es
    assert es.startswith(f"{len(res.ids)} filas, {len(res.duplicates)} descartadas (grupos: {groups}; ")
    assert ("verificados con Jaccard" in es) == (res.jaccard is not None)
    assert "dropped" not in es and "featureless" not in es and "within" not in es and " by " not in es
    assert res.summary() == old


def test_edit_operations_in_both_languages(corpus):
    en = dict(corpus.EDIT_OPERATIONS)
    stored = _stdout("06_near_duplicates.ipynb")
    for op, what in en.items():
        assert f"{op:12s} {what}\n" in stored  # what the English notebook printed before
    set_language("es")
    es = dict(corpus.EDIT_OPERATIONS)
    assert list(es) == list(en)  # the names are data: the same in every language
    assert all(es[op] and es[op] != en[op] for op in en)
    assert es["delete"] == "una palabra borrada"
    assert "Source: Python documentation." in es["boilerplate"]  # the inserted line itself stays
    assert (
        corpus.edit("one two three four five", "delete", random.Random(0)).count(" ") == 3
    )  # ops still work
    with pytest.raises(ValueError, match="op"):
        corpus.edit("one two", "nope", random.Random(0))


def test_design_names_in_both_languages():
    stored = _stdout("05_block_index.ipynb")
    en = [d.name for d in manku_example_3_1()]
    layouts = [d.layout for d in manku_example_3_1()]
    assert all(name in stored for name in en)  # the English notebook's Manku table
    assert en[-1] == "4 tables: pigeonhole 4 blocks (16,16,16,16 bits), keep 1"
    scan = next(d.name for d in design_tables(1000, 3, max_tables=64) if d.tables == 0)
    assert scan == "linear scan (no tables)"
    set_language("es")
    es = [d.name for d in manku_example_3_1()]
    assert es[-1] == "4 tablas: Palomar, 4 bloques (16,16,16,16 bits), exactos: 1"
    assert all("tablas" in name and "tables" not in name and "keep" not in name for name in es)
    assert [d.layout for d in manku_example_3_1()] == layouts  # only the names change


def test_compare_table_in_both_languages(compare):
    rows = [
        compare.MethodResult(
            "Simhash + SimhashIndex", "64 bits, k=6", compare.Scores(0.9, 0.9, 0.9, 9, 1, 1), 0.01, 10
        ),
        compare.MethodResult(
            "MinHash + LSH banding", "128 perm", compare.Scores(1.0, 0.5, 0.6, 5, 0, 5), 0.2, 5
        ),
        compare.MethodResult(
            "MD5 of normalised text", "exact", compare.Scores(1.0, 0.0, 0.0, 0, 0, 10), 0.1, 0
        ),
    ]
    old_head = f"{'method':<30} {'setting':<30} {'precision':>9} {'recall':>6} {'F1':>6} {'pairs':>7}"
    en = compare.format_table(rows).splitlines()
    assert en[0] == old_head + f"  {'time (ms)':>9}"
    assert compare.format_table(rows, times=False).splitlines()[0] == old_head
    assert [line[:30].rstrip() for line in en[2:]] == [r.method for r in rows]
    set_language("es")
    es = compare.format_table(rows).splitlines()
    spanish = ["método", "configuración", "precisión", "exhaustividad", "F1", "pares", "tiempo", "ms"]
    assert es[0].split() == spanish
    assert {len(line) for line in es} == {len(es[0])}  # the Spanish headers fit the columns
    assert [line[:30].rstrip() for line in es[2:]] == [
        "Simhash + SimhashIndex",
        "MinHash + LSH por bandas",
        "MD5 del texto normalizado",
    ]
    assert rows[1].method == "MinHash + LSH banding"  # the result keeps its (English) key


def test_method_plots_name_the_methods_in_the_language(course, compare):
    plot = course("plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [
        compare.MethodResult("MinHash + LSH banding", "", compare.Scores(1.0, 0.5, 0.6, 5, 0, 5), 0.2, 5),
        compare.MethodResult("MD5 of normalised text", "", compare.Scores(1.0, 0.0, 0.0, 0, 0, 10), 0.1, 0),
    ]
    times = {r.method: r.seconds * 1e3 for r in rows}

    def labels():
        fig, (a1, a2) = plt.subplots(1, 2)
        plot.method_bars(rows, ax=a1)
        plot.benchmark_bars(times, ax=a2, highlight=["MD5 of normalised text"])
        out = (
            [t.get_text() for t in a1.get_yticklabels()],
            [t.get_text() for t in a1.get_legend().get_texts()],
            sorted(t.get_text() for t in a2.get_yticklabels()),
        )
        plt.close(fig)
        return out

    en = labels()
    assert en == (
        ["MinHash + LSH banding", "MD5 of normalised text"],
        ["precision", "recall"],
        ["MD5 of normalised text", "MinHash + LSH banding"],
    )
    set_language("es")
    assert labels() == (
        ["MinHash + LSH por bandas", "MD5 del texto normalizado"],
        ["precisión", "exhaustividad"],
        ["MD5 del texto normalizado", "MinHash + LSH por bandas"],
    )


def test_dask_dedup_reports_the_calibration_in_the_callers_language():
    """``dedup_dataset``'s last task runs on a worker, which starts in English: it is handed the
    caller's language (issue 27: notebook 08 prints the dict)."""
    pytest.importorskip("dask")
    from simhash_lab.distributed import executor as D

    cal = _calibration("sample")
    out = D.finish({}, 5, np.array([0, 7]), 14, cal, 0, "es")  # this process is in English
    assert out["calibration"] == _with_language("es", cal.summary)
    assert D.finish({}, 5, np.array([0, 7]), 14, cal)["calibration"] == _old_calibration_summary(cal)
    assert D.finish({}, 5, np.array([0, 7]), 14, None, 0, "es")["calibration"] is None


def _with_language(lang, fn):
    with language(lang):
        return fn()


def test_plot_labels_of_the_figures_in_the_language(course):
    plot = course("plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def texts():
        fig, axes = plt.subplots(1, 4)
        plot.accumulator_bars(np.array([1, -2, 0, 3]), ax=axes[0])
        plot.amplification(ax=axes[1])
        d = np.arange(8)
        plot.candidates_by_distance(d, np.ones(8), ax=axes[2], measured=np.ones(8))
        plot.banding_curve(np.linspace(0, 1, 50), np.linspace(0, 1, 50) > 0.5, 5, 4, ax=axes[3])
        out = [axes[0].get_ylabel(), axes[1].get_ylabel(), axes[3].get_ylabel()]
        out.append("measured" in [t.get_text() for t in axes[2].get_legend().get_texts()])
        out.append("medido" in [t.get_text() for t in axes[2].get_legend().get_texts()])
        plt.close(fig)
        return out

    assert texts() == ["accumulator V[i]", "probability", "P(candidate)", True, False]
    set_language("es")
    assert texts() == ["acumulador V[i]", "probabilidad", "P(candidato)", False, True]
