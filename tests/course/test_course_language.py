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
