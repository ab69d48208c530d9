"""Tests for the course's drawing helpers: simhash_lab.course.plot, .animate and .widgets."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

from simhash_lab import Simhasher  # noqa: E402
from simhash_lab.course import animate, plot, widgets  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def toy_trace():
    return Simhasher(bits=4, hash={"rust": 0b0011, "safe": 0b0101, "fast": 0b0111}).trace("rust safe fast")


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


def test_accumulator_animation_frames_follow_the_trace(toy_trace):
    anim = animate.accumulators(toy_trace, hold=2)
    bars = [a for a in anim._fig.axes[1].patches]
    for frame, row in [(0, 0), (1, 1), (3, 3), (5, 3)]:
        anim._func(frame)
        assert [b.get_height() for b in bars] == list(toy_trace.votes[row][::-1])
    plt.close(anim._fig)


def test_to_jshtml_is_stable_and_closes_the_figure(toy_trace):
    a1 = animate.accumulators(toy_trace, dpi=30)
    a2 = animate.accumulators(toy_trace, dpi=30)
    h1, h2 = animate.to_jshtml(a1, "x"), animate.to_jshtml(a2, "x")
    assert h1 == h2
    assert not plt.fignum_exists(a1._fig.number)
    assert animate.to_jshtml(animate.accumulators(toy_trace, dpi=30), "y") != h1


def test_hyperplane_sweep_runs_and_counts():
    anim = animate.hyperplane_sweep(np.pi / 2, n_random=50, sweep_frames=4, random_frames=5, dpi=30)
    for f in range(9):
        anim._func(f)
    run_line = anim._fig.axes[1].lines[1]
    y = run_line.get_ydata()
    assert len(y) == 50 and 0 <= y[-1] <= 1
    plt.close(anim._fig)


def test_stepper_links_play_slider_and_stack():
    w = widgets.stepper(["<b>a</b>", "<b>b</b>", "<b>c</b>"], labels=["x", "y", "x"])
    (play, slider), stack = w.children[0].children, w.children[1]
    assert len(stack.children) == 3 and play.max == 2
    assert slider.options == ("0: x", "1: y", "2: x")  # duplicate labels made unique
    assert repr(w).startswith("Stepper: 3 frames")
    bundle = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # live where widgets run
    assert bundle["text/html"].startswith("<div><b>a</b>") and "Frame 1 of 3" in bundle["text/html"]


@pytest.mark.parametrize("bad", [[], ["a", "b"]])
def test_stepper_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        widgets.stepper(bad or [], labels=["only one"] if bad else None)


def test_accumulator_frames_show_each_step(toy_trace):
    frames, labels = widgets.accumulator_frames(toy_trace)
    assert labels == ["start", "rust", "safe", "fast", "fingerprint"]
    assert "0111" in frames[-1] and "safe" in frames[2] and "rust" not in frames[2]


def test_theta_slider_has_a_frame_per_angle():
    w = widgets.theta_slider(degrees=(0, 90), trials=50, dpi=20)
    assert len(w.children[1].children) == 2
    assert "data:image/png;base64," in w.children[1].children[0].value
