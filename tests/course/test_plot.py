"""Tests for the course's drawing helpers, simhash_lab.course.plot (the animations are tested in
test_animate.py, the widgets in test_widgets.py)."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

from simhash_lab.course import plot  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_import_simhash_lab_does_not_import_matplotlib():
    code = "import sys, simhash_lab; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_palette_is_okabe_ito_hex():
    assert len(plot.OKABE_ITO) == 8
    assert all(len(c) == 7 and c.startswith("#") for c in plot.OKABE_ITO.values())
    assert plot.POS == "#0072B2" and plot.NEG == "#D55E00"


def test_course_style_is_projector_sized():
    style = plot.course_style()
    assert style["font.size"] >= 14 and style["axes.titlesize"] >= 16


@pytest.mark.parametrize(
    "x,bits,group,expected",
    [
        (0b0111, 4, 0, "0111"),
        (0, 6, 0, "000000"),
        (2**64 - 1, 64, 16, " ".join(["1" * 16] * 4)),
        (0b110001, 6, 3, "110 001"),
    ],
)
def test_bit_string(x, bits, group, expected):
    assert plot.bit_string(x, bits, group) == expected


# every helper: ax=None draws on plt.gca(), an explicit ax is used and returned
HELPERS = {
    "bit_rows": lambda ax: plot.bit_rows([("a", 0b1001), ("b", 0b1010)], 4, ax=ax, highlight=0b0011),
    "bit_rows_64": lambda ax: plot.bit_rows([("fp", 2**64 - 1), ("zero", 0)], 64, ax=ax),
    "accumulator_bars": lambda ax: plot.accumulator_bars([3, 1, 1, -3], ax=ax, highlight_bits=0b0111),
    "accumulator_zero": lambda ax: plot.accumulator_bars(np.zeros(64), ax=ax),
    "avalanche_hist": lambda ax: plot.avalanche_hist({"md5": [0.5, 0.48], "simhash": [0.0, 0.03]}, ax=ax),
    "lsh_sensitivity": lambda ax: plot.lsh_sensitivity(
        10, 60, 0.94, 0.67, np.linspace(0, 180, 5), np.linspace(1, 0, 5), ax=ax
    ),
    "benchmark_bars": lambda ax: plot.benchmark_bars(
        {"slow": 1000.0, "fast": 0.5}, ax=ax, highlight=["fast"]
    ),
    "hyperplanes_2d": lambda ax: plot.hyperplanes_2d([1, 0], [0, 1], [[1, 1], [1, -1]], ax=ax),
    "hamming_vs_angle": lambda ax: plot.hamming_vs_angle(
        np.linspace(0, np.pi, 50), np.linspace(0, 64, 50), ax=ax
    ),
    "pigeonhole": lambda ax: plot.pigeonhole(64, 3, [0, 20, 40], ax=ax),
    "pigeonhole_none": lambda ax: plot.pigeonhole(64, 3, [], ax=ax),
    "scaling": lambda ax: plot.scaling([10, 100, 1000], {"scan": [1, 10, 100], "index": [1, 1.5, 2]}, ax=ax),
    "amplification": lambda ax: plot.amplification(ax=ax),
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_helper_returns_the_axes_it_drew_on(name):
    fig, ax = plt.subplots()
    assert HELPERS[name](ax) is ax
    assert ax.has_data() or ax.patches or ax.texts
    fig2 = plt.figure()
    got = HELPERS[name](None)
    assert got is plt.gca() and got.figure is fig2


def test_bit_rows_marks_ones_and_highlights():
    ax = plot.bit_rows([("x", 0b1010)], 4, highlight=0b0001)
    filled = [
        p for p in ax.patches if p.get_fill() and p.get_facecolor()[:3] == matplotlib.colors.to_rgb(plot.POS)
    ]
    assert len(filled) == 2
    frames = [p for p in ax.patches if not p.get_fill()]
    assert len(frames) == 1


def test_accumulator_bars_colour_by_sign_msb_left():
    ax = plot.accumulator_bars([3, 1, 1, -3])  # V[0..3]
    heights = [b.get_height() for b in ax.patches]
    assert heights == [-3, 1, 1, 3]  # bit 3 drawn first (left)
    assert matplotlib.colors.to_hex(ax.patches[0].get_facecolor()) == plot.NEG.lower()


def test_separates_matches_the_sign_rule():
    assert plot.separates([1, 0], [0, 1], [1, -1])
    assert not plot.separates([1, 0], [1, 0.1], [0, 1])


def test_hyperplane_3d_makes_a_3d_axes():
    ax = plot.hyperplane_3d([1, 0, 0], [0, 1, 0], [1, -1, 0])
    assert ax.name == "3d"


# -- the helpers of notebooks 01, 02 and 04 -------------------------------------------------------


def test_lsh_sensitivity_has_numbers_on_its_axes():
    ax = plot.lsh_sensitivity(10, 60, 0.94, 0.67, np.linspace(0, 180, 5), np.linspace(1, 0, 5), unit="°")
    plt.gcf().canvas.draw()
    assert {"0", "60", "120", "180"} <= {t.get_text() for t in ax.get_xticklabels()}
    assert {"0.0", "0.5", "1.0"} & {t.get_text() for t in ax.get_yticklabels()}
    named = [t.get_text() for a in ax.child_axes for t in (*a.get_xticklabels(), *a.get_yticklabels())]
    assert {"d1 = 10°", "d2 = 60°", "p1 = 0.94", "p2 = 0.67"} <= set(named)


def test_hyperplanes_2d_labels_coinciding_vectors_once():
    ax = plot.hyperplanes_2d([1, 0], [1, 0])
    texts = [t.get_text() for t in ax.texts if t.get_text()]  # the arrows are empty annotations
    assert texts == ["u = v"]
    ax2 = plot.hyperplanes_2d([1, 0], [0, 1], ax=plt.figure().gca())
    assert sorted(t.get_text() for t in ax2.texts if t.get_text()) == ["u", "v"]


def test_hyperplane_3d_writes_which_side_each_vector_is_on():
    ax = plot.hyperplane_3d([1, 0, 0.2], [1, 0, -0.2], [0, 0, 1])
    corner = ax.texts[-1].get_text()
    assert "r·u = +0.20: above" in corner and "r·v = -0.20: below" in corner
    assert ax.get_title() == "this plane separates u and v"


def test_hamming_vs_angle_shades_what_cannot_happen():
    ax = plot.hamming_vs_angle(np.linspace(0, np.pi / 2, 60), np.linspace(0, 32, 60), impossible_beyond=90)
    assert ax.get_xlim() == (0, 180)
    assert any("no pair can be here" in t.get_text() for t in ax.texts)


def test_amplification_candidates_never_below_reported():
    ax = plot.amplification()
    curves = {line.get_label().split(":")[0]: line.get_ydata() for line in ax.lines}
    cand = curves["candidate, some block of 4"]
    rep = curves["reported"]
    assert np.all(cand >= rep - 1e-12) and cand[0] == 1 and rep[-1] < 1e-6


def test_distance_hists_use_the_pair_colours():
    rng = np.random.default_rng(0)
    axes = plot.distance_hists({"TF": (rng.integers(20, 30, 50), rng.integers(0, 8, 50))})
    colours = {matplotlib.colors.to_hex(p.get_facecolor()[:3]) for p in axes[0].patches}
    assert {plot.NEAR.lower(), plot.FAR.lower()} <= colours
    assert plot.POS.lower() not in colours and plot.NEG.lower() not in colours


@pytest.mark.parametrize("dist,side", [(np.full(20, 5), "upper right"), (np.full(20, 60), "upper left")])
def test_theta_frame_keeps_the_legend_off_the_bars(dist, side):
    _, b = plot.theta_frame([1, 0], [0, 1], [[1, 1]], dist, bits=64, degrees=90)
    assert b.get_legend()._loc == matplotlib.legend.Legend.codes[side]


def test_dense_tradeoff_plot_draws_both_panels():
    res = {
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
    a, b = plot.dense_tradeoff(res)
    assert len(a.lines) == 5 and b.get_yscale() == "log"


# -- text alternatives ---------------------------------------------------------------------------------


def test_a_figure_says_what_it_shows_in_its_text_alternative():
    fig, (a, b) = plt.subplots(1, 2)
    plot.avalanche_hist({"MD5": [0.5, 0.48]}, ax=a, title="One small edit")
    b.set_title('a "quoted" title')
    alt = plot.alt_text(fig)
    assert alt.startswith("One small edit. x: bits of the hash that changed. y: number of edits.")
    assert "MD5 (mean 49%)" in alt and 'a "quoted" title' in alt
    html = plot.figure_html(fig)
    assert html.startswith('<img src="data:image/png;base64,') and 'alt="One small edit.' in html
    assert "&quot;quoted&quot;" in html  # escaped inside the attribute
    plot.set_alt(a, "  two   histograms ")
    assert plot.alt_text(fig) == "two histograms"
    assert plot.alt_text(plt.figure()) == "a figure without a title or labels"
    long = plt.figure()
    long.gca().set_title("x" * 1000)
    assert len(plot.alt_text(long)) == 400


def test_outside_ipython_figures_are_left_to_matplotlib():
    assert plot.show_with_alt() is False
