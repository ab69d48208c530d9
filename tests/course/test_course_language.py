"""What the library draws for the course follows ``set_language``: the default titles, axis labels
and legends of :mod:`simhash_lab.course.plot`, the animations' frame texts and the steppers' notes
are Spanish after ``set_language("es")`` (the first cell of every Spanish notebook), English
otherwise; the numbers in them are the same."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from simhash_lab.course import animate, get_language, plot, set_language, widgets  # noqa: E402


@pytest.fixture(autouse=True)
def _english_after():
    yield
    set_language("en")
    plt.close("all")


def _texts(ax) -> list[str]:
    legend = ax.get_legend()
    return [ax.get_xlabel(), ax.get_ylabel(), *(t.get_text() for t in ax.texts)] + (
        [t.get_text() for t in legend.get_texts()] if legend else []
    )


def test_a_plot_draws_its_labels_in_the_set_language():
    flips = {"MD5": np.full(10, 0.5)}
    set_language("es")
    es = _texts(plot.avalanche_hist(flips, ax=plt.figure().gca()))
    set_language("en")
    en = _texts(plot.avalanche_hist(flips, ax=plt.figure().gca()))
    assert en == ["bits of the hash that changed", "number of edits", "50%: a coin flip", "MD5 (mean 50%)"]
    assert es == [
        "bits del hash que cambiaron",
        "número de ediciones",
        "50%: lanzar una moneda",
        "MD5 (media 50%)",
    ]


def test_an_animation_writes_its_frames_in_the_set_language():
    set_language("es")
    assert get_language() == "es"
    anim = animate.hyperplane_sweep(sweep_frames=3, random_frames=2, n_random=20)
    assert anim.frame_labels[0] == "recta a 0°" and anim.frame_labels[-1].endswith(" aleatorias")
    set_language("en")
    anim = animate.hyperplane_sweep(sweep_frames=3, random_frames=2, n_random=20)
    assert anim.frame_labels[0] == "line at 0°" and anim.frame_labels[-1].endswith(" random")


@pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")  # drawn frame by frame
def test_a_stepper_notes_in_the_set_language():
    frames = ["<p>a</p>", "<p>b</p>"]
    set_language("es")
    es = widgets.stepper(frames)
    set_language("en")
    en = widgets.stepper(frames)
    assert "Fotograma 1 de 2: ejecuta esta celda" in es.fallback_html and "run this" not in es.fallback_html
    assert "Frame 1 of 2: run this cell" in en.fallback_html
    assert es.children[0].children[0].description == "reproducir"
    assert es.children[0].children[1].description == "paso"


# -- every figure the course draws, in Spanish: no English label it knows --------------------------

import re  # noqa: E402
from types import SimpleNamespace  # noqa: E402

from matplotlib.text import Text  # noqa: E402

from simhash_lab import Simhasher  # noqa: E402


def _result(**kw):
    return SimpleNamespace(**kw)


_DENSE = {
    "bits": np.array([2, 4]),
    "tables": np.array([1, 4]),
    "bucket_recall": np.array([[0.8, 0.6], [1.0, 0.9]]),
    "bucket_recall_theory": np.array([[0.8, 0.6], [1.0, 0.9]]),
    "candidates": np.array([[100.0, 30.0], [300.0, 90.0]]),
    "buckets": np.array([4, 16]),
    "ranking_recall": np.array([0.1, 0.3]),
    "n": np.array(1000),
    "k": np.array(10),
}
_KINDS = np.array(["unrelated"] * 6 + ["rewrite"] * 3 + ["near-duplicate"] * 3)
_DIST = np.array([30, 28, 25, 31, 22, 27, 12, 14, 9, 1, 3, 0])
_PRF = np.array([[1.0, 0.3, 0.46], [1.0, 0.6, 0.75], [0.8, 0.9, 0.85]])
_SCORES = SimpleNamespace(precision=0.9, recall=0.8, f1=0.85)


def _designs():
    from simhash_lab import design_tables

    return design_tables(2**34, 3, max_tables=24)


#: Every figure of plot.py, drawn as the notebooks draw it (small data): name -> draw(figure).
FIGURES = {
    "bit_rows": lambda f: plot.bit_rows([("a", 0b1001), ("b", 0b1010)], 4, ax=f.gca(), highlight=3),
    "bit_rows_64": lambda f: plot.bit_rows([("fp", 2**64 - 1)], 64, ax=f.gca()),
    "accumulator_bars": lambda f: plot.accumulator_bars([3, 1, 1, -3], ax=f.gca(), highlight_bits=7),
    "bit_axis": lambda f: plot.bit_axis(f.gca(), 16),
    "avalanche_hist": lambda f: plot.avalanche_hist({"MD5": [0.5, 0.48]}, ax=f.gca()),
    "lsh_sensitivity": lambda f: plot.lsh_sensitivity(
        10, 60, 0.94, 0.67, np.linspace(0, 180, 5), np.linspace(1, 0, 5), ax=f.gca()
    ),
    "benchmark_bars": lambda f: plot.benchmark_bars({"MD5": 10.0, "SHA-256": 5.0}, ax=f.gca()),
    "hyperplanes_2d": lambda f: plot.hyperplanes_2d([1, 0], [0, 1], [[1, 1]], ax=f.gca()),
    "hyperplane_3d": lambda f: plot.hyperplane_3d(
        [1, 0, 0], [0, 1, 0], [1, -1, 0], ax=f.add_subplot(projection="3d")
    ),
    "hamming_vs_angle": lambda f: plot.hamming_vs_angle(
        np.linspace(0, np.pi / 2, 50), np.linspace(0, 32, 50), ax=f.gca(), impossible_beyond=90
    ),
    "pigeonhole": lambda f: plot.pigeonhole(64, 3, [5, 21, 37, 53], ax=f.gca()),
    "pigeonhole_one": lambda f: plot.pigeonhole(64, 3, [5], ax=f.gca()),
    "scaling": lambda f: plot.scaling([10, 100], {"MD5": [1, 10]}, ax=f.gca()),
    "amplification": lambda f: plot.amplification(ax=f.gca()),
    "distance_hists": lambda f: plot.distance_hists(
        {"TF": (np.array([20, 30]), np.array([1, 2]))}, axes=[f.gca()]
    ),
    "theta_frame": lambda f: plot.theta_frame(
        [1, 0], [0, 1], [[1, 1]], np.array([30, 32]), bits=64, degrees=90, axes=f.subplots(1, 2)
    ),
    "dense_tradeoff": lambda f: plot.dense_tradeoff(_DENSE, axes=f.subplots(1, 2)),
    "query_scaling": lambda f: plot.query_scaling([1e3, 1e4, 1e5], {"MD5": [1e-6, 1e-5, 1e-4]}, ax=f.gca()),
    "table_designs": lambda f: plot.table_designs(_designs(), ax=f.gca()),
    "candidates_by_distance": lambda f: plot.candidates_by_distance(
        np.arange(6), np.ones(6), measured=np.ones(6), ax=f.gca()
    ),
    "detection_by_angle": lambda f: plot.detection_by_angle(
        measured=(np.array([5, 10]), np.array([1.0, 0.9]), np.array([0.9, 0.5])), ax=f.gca()
    ),
    "pair_distance_hist": lambda f: plot.pair_distance_hist(_DIST, _KINDS, ax=f.gca(), k=3),
    "prf_curve": lambda f: plot.prf_curve(np.arange(3), _PRF, ax=f.gca(), marks={"k = 1": 1}),
    "method_bars": lambda f: plot.method_bars(
        [_result(method="MD5 of normalised text", scores=_SCORES)], ax=f.gca()
    ),
    "minhash_scatter": lambda f: plot.minhash_scatter([0.2, 0.8], [0.25, 0.75], 128, ax=f.gca()),
    "banding_curve": lambda f: plot.banding_curve(
        np.linspace(0, 1, 50),
        np.linspace(0, 1, 50) > 0.5,
        25,
        5,
        ax=f.gca(),
        others=[(9, 13)],
        rug={"near-duplicate": [0.9], "rewrite": [0.4]},
    ),
    "f1_curves": lambda f: plot.f1_curves(np.arange(3), {"TF": _PRF}, ax=f.gca()),
    "calibration_curve": lambda f: plot.calibration_curve(
        _result(recall_by_k=np.array([0.5, 0.9, 1.0]), target=0.99, k=2, jaccard=0.8, pairs=40),
        ax=f.gca(),
    ),
    "verification_hist": lambda f: plot.verification_hist(
        np.array([1, 2, 3]), np.array([0.9, 0.5, 0.85]), 0.8, ax=f.gca()
    ),
}
#: Names in plot.__all__ that draw no figure of their own.
NOT_FIGURES = {
    "course_style",
    "use_course_style",
    "bit_string",
    "set_alt",
    "alt_text",
    "figure_html",
    "show_with_alt",
    "hyperplane_line",
    "separates",
    "k_threshold_figure",  # the last: below
}


def _catalogue_words():
    """(English words, Spanish words) of the library's catalogue entries for the course's pictures:
    a word of an English label that no Spanish label uses is English the test knows."""
    import polib

    from simhash_lab._i18n import LOCALE_DIR

    english, spanish = set(), set()
    for e in polib.pofile(str(LOCALE_DIR / "es" / "LC_MESSAGES" / "simhash_lab.po")):
        if any(f.startswith("simhash_lab/course/") for f, _ in e.occurrences):
            english |= _words(e.msgid)
            spanish |= _words(e.msgstr)
    return english - spanish, spanish


#: Words of the test's own data (names a caller gives), not labels.
DATA_WORDS = {"sha", "rust", "safe", "fast"}


def _words(text: str) -> set[str]:
    text = re.sub(r"\{[^{}]*\}|\$[^$]*\$", " ", text)
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


def _figure_texts(fig) -> list[str]:
    fig.canvas.draw()
    return [
        " ".join(t.get_text().split()) for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
    ]


def _drawn(language: str) -> dict[str, list[str]]:
    """Every figure's texts (and the animations' and steppers' frames, labels and text
    alternatives) drawn in ``language``."""
    set_language(language)
    out = {}
    for name, draw in FIGURES.items():
        fig = plt.figure(figsize=(10, 5))
        draw(fig)
        out[name] = _figure_texts(fig) + [plot.alt_text(fig)]
        plt.close(fig)
    fig, show_k = plot.k_threshold_figure(_DIST, _KINDS, np.arange(3), _PRF, np.array([[1, 0, 2]] * 3))
    out["k_threshold_figure"] = []
    for k in range(3):
        show_k(k)
        out["k_threshold_figure"] += _figure_texts(fig)
    plt.close(fig)
    trace = Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7}).trace("rust safe fast")
    for name, anim in {
        "animate.accumulators": animate.accumulators(trace),
        "animate.hyperplane_sweep": animate.hyperplane_sweep(sweep_frames=3, random_frames=2, n_random=20),
    }.items():
        out[name] = [*anim.frame_labels, anim.alt]
        for i in range(len(anim.frame_labels)):
            anim._func(i)
            out[name] += _figure_texts(anim._fig)
        plt.close(anim._fig)
    player = widgets.stepper([plt.figure()] * 2, labels=["a", "b"])
    html = player.fallback_html
    alt = re.search(r'alt="([^"]*)"', html).group(1)
    out["widgets.stepper"] = [re.sub(r"<[^>]+>", " ", html), alt, player.children[0].children[1].description]
    return out


@pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")  # drawn frame by frame
def test_every_figure_is_drawn_in_spanish_without_an_english_label_it_knows():
    drawable = {n for n in plot.__all__ if callable(getattr(plot, n))} - NOT_FIGURES
    assert drawable <= set(FIGURES), f"add these figures to FIGURES: {sorted(drawable - set(FIGURES))}"
    english_only, spanish = _catalogue_words()
    assert {"fingerprint", "touched", "recall", "bucket"} <= english_only  # it knows what to look for
    es, en = _drawn("es"), _drawn("en")
    wrong = []
    for name, texts in es.items():
        for text in texts:
            left = _words(text) & english_only
            if left:
                wrong.append(f"{name}: {text[:90]!r} has English {sorted(left)}")
            elif text in en[name] and _words(text) - spanish - DATA_WORDS:  # drawn alike: marked?
                wrong.append(f"{name}: {text[:90]!r} is the same in English (not marked with _()?)")
    assert not wrong, "\n".join(wrong)
