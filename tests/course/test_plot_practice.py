"""Tests for the figures of notebooks 05 and 06 in simhash_lab.course.plot: every helper draws on the
axes it is given (or the current one) and returns it; labels, frontiers, legends and stepper frames
show what the notebooks say they show."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from simhash_lab import design_tables  # noqa: E402
from simhash_lab.course import compare, plot  # noqa: E402
from simhash_lab.course.compare import MethodResult, Scores  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


_rng = np.random.default_rng(0)
_DIST = np.concatenate([_rng.integers(0, 6, 50), _rng.integers(5, 15, 20), _rng.integers(10, 40, 500)])
_KINDS = np.array(["near-duplicate"] * 50 + ["rewrite"] * 20 + ["unrelated"] * 500)
_KS = np.arange(0, 21)
_PRF = np.clip(np.stack([1 - _KS / 25, _KS / 20, 0.5 + 0 * _KS], axis=1), 0, 1)
_RESULTS = [
    MethodResult("Simhash + SimhashIndex", "k=6", Scores(0.9, 0.93, 0.91, 1, 0, 0), 0.002, 10),
    MethodResult("MD5 of normalised text", "exact", Scores(1.0, 0.0, 0.0, 0, 0, 1), 0.02, 1),
]

_CAL = SimpleNamespace(recall_by_k=np.linspace(0.2, 1, 11), target=0.95, k=7, threshold=0.8, pairs=120)

HELPERS = {
    "query_scaling": lambda ax: plot.query_scaling(
        [10, 100, 1000], {"linear scan": [1e-6, 1e-5, 1e-4], "index": [1e-6, 1e-6, 1.1e-6]}, ax=ax
    ),
    "table_designs": lambda ax: plot.table_designs(design_tables(2**34, 3, max_tables=64), ax=ax),
    "candidates_by_distance": lambda ax: plot.candidates_by_distance(
        np.arange(8), np.linspace(1, 0.3, 8), ax=ax, measured=np.linspace(1, 0.3, 8)
    ),
    "detection_by_angle": lambda ax: plot.detection_by_angle(ax=ax, measured=([5], [0.9], [0.8])),
    "pair_distance_hist": lambda ax: plot.pair_distance_hist(_DIST, _KINDS, ax=ax, k=3),
    "prf_curve": lambda ax: plot.prf_curve(_KS, _PRF, ax=ax, marks={"k = 3": 3}),
    "method_bars": lambda ax: plot.method_bars(_RESULTS, ax=ax),
    "minhash_scatter": lambda ax: plot.minhash_scatter([0.1, 0.5, 0.9], [0.12, 0.48, 0.91], 128, ax=ax),
    "banding_curve": lambda ax: plot.banding_curve(
        np.linspace(0, 1, 200),
        np.linspace(0, 1, 200) > 0.5,
        25,
        5,
        ax=ax,
        others=[(9, 13)],
        rug={"near-duplicate": [0.8, 0.9]},
    ),
    "calibration_curve": lambda ax: plot.calibration_curve(_CAL, ax=ax),
    "verification_hist": lambda ax: plot.verification_hist([0, 1, 1, 4], [0.9, 0.85, 0.2, 0.81], 0.8, ax=ax),
    "f1_curves": lambda ax: plot.f1_curves(_KS, {"a": _PRF, "b": _PRF[::-1]}, ax=ax),
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helper_returns_the_axes_it_drew_on(name):
    fig, ax = plt.subplots()
    assert HELPERS[name](ax) is ax
    assert ax.has_data() or ax.patches or ax.texts
    fig2 = plt.figure()
    got = HELPERS[name](None)
    assert got is plt.gca() and got.figure is fig2


def test_table_designs_labels_every_point_and_greys_the_dominated():
    designs = design_tables(2**34, 3, max_tables=64)
    ax = plot.table_designs(designs)
    texts = [t.get_text() for t in ax.texts]
    distinct = {(d.tables, d.expected_candidates) for d in designs}
    assert len(texts) == len(distinct)  # one label per point
    off = [t for t in texts if "off the frontier" in t]
    dominated = {
        (d.tables, d.expected_candidates)
        for d in designs
        if any(e.tables <= d.tables and e.expected_candidates < d.expected_candidates for e in designs)
    }
    assert len(off) == len(dominated) >= 1


def test_detection_by_angle_draws_amplification_and_the_measured_rates():
    from scipy.stats import binom

    ax = plot.detection_by_angle(k=3, max_degrees=30, measured=([5, 10], [0.98, 0.87], [0.9, 0.52]))
    by = {ln.get_label(): ln for ln in ax.lines}
    cand = next(ln for name, ln in by.items() if name.startswith("candidate"))
    rep = next(ln for name, ln in by.items() if name.startswith("reported"))
    q = cand.get_xdata() / 180
    assert np.allclose(cand.get_ydata(), 1 - (1 - (1 - q) ** 16) ** 4)
    assert np.allclose(rep.get_ydata(), binom.cdf(3, 64, q))
    assert np.all(cand.get_ydata() >= rep.get_ydata() - 1e-12)  # every reported pair is a candidate
    dots = [ln for ln in ax.lines if ln.get_marker() == "o"]
    assert [ln.get_color() for ln in dots] == [cand.get_color(), rep.get_color()]  # dots match their curves
    assert ax.get_xlim() == (0, 30)


def test_query_scaling_guide_is_the_slope_one_fit_past_the_fixed_cost():
    ax = plot.query_scaling(
        [10, 100, 1000, 10000], {"scan": [3e-6, 1e-5, 1e-4, 1e-3], "index": [1e-6, 1e-6, 1e-6, 1e-6]}
    )
    guide = [ln for ln in ax.lines if ln.get_linestyle() == ":"][0]
    assert np.allclose(guide.get_ydata(), [1.0, 10.0, 100.0, 1000.0])  # µs; the first point (3) is left out
    assert "from n = 100" in guide.get_label()


def test_pair_distance_hist_writes_each_kinds_mean():
    ax = plot.pair_distance_hist(_DIST, _KINDS)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    for kind in ("near-duplicate", "unrelated"):
        mean = _DIST[_KINDS == kind].mean()
        assert any(f"mean {mean:.1f}" in lab for lab in labels)
    ticks = ax.get_xticks()
    assert np.allclose(ticks, np.round(ticks))  # whole distances only


def test_k_threshold_figure_moves_one_threshold_and_stays_readable():
    counts = compare.threshold_counts(_DIST, _KINDS == "near-duplicate", _KS)
    fig, update = plot.k_threshold_figure(_DIST, _KINDS, _KS, _PRF, counts)
    ax1, ax2 = fig.axes
    n_artists = len(ax1.patches) + len(ax2.lines)
    update(7)
    tp, fp, fn = counts[7]
    assert ax1.get_title().startswith(f"k = 7: {tp + fp:,} flagged ({tp} copies")
    assert f"{fn} cop" in ax1.get_title()
    assert len(ax1.patches) + len(ax2.lines) == n_artists  # moved, not redrawn
    marker = [ln for ln in ax2.lines if ln.get_marker() == "o"][0]
    assert marker.get_xdata()[0] == 7
    for ax in (ax1, ax2):
        ticks = ax.get_xticks()
        assert np.allclose(ticks, np.round(ticks))  # no k = 2.5
    fig.canvas.draw()
    sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text) if t.get_text() and t.get_visible()]
    assert min(sizes) >= 12  # readable on a projector at the frame's 80 dpi


def test_method_bars_legend_sits_below_the_bars():
    fig, ax = plt.subplots()
    plot.method_bars(_RESULTS, ax=ax)
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.y1 <= ax.get_window_extent().y0  # outside the axes: it covers no bar


def test_verification_hist_stacks_verified_over_rejected():
    ax = plot.verification_hist([0, 1, 1, 4], [0.9, 0.85, 0.2, 0.81], 0.8)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["verified: Jaccard ≥ 0.8 (3)", "rejected (1)"]
    heights = [p.get_height() for p in ax.patches]
    assert sum(heights) == 4


def test_calibration_curve_marks_the_chosen_k():
    ax = plot.calibration_curve(_CAL)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(lab.startswith("k = 7: recall 0.760") for lab in labels)
