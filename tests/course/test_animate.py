"""The course's animations (simhash_lab.course.animate): the accumulator animation follows the trace,
its frames have no repeats, it is shown as a stepper; the hyperplane sweep runs and counts."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")

from simhash_lab import Simhasher  # noqa: E402
from simhash_lab.course import animate, widgets  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture
def toy_trace():
    return Simhasher(bits=4, hash={"rust": 0b0011, "safe": 0b0101, "fast": 0b0111}).trace("rust safe fast")


def test_accumulator_animation_frames_follow_the_trace(toy_trace):
    anim = animate.accumulators(toy_trace)
    bars = anim._fig.axes[1].containers[0]
    for frame, row in [(0, 0), (1, 1), (3, 3), (4, 3)]:
        anim._func(frame)
        assert [b.get_height() for b in bars] == list(toy_trace.votes[row][::-1])
    assert anim.frame_labels == ["start", "rust", "safe", "fast", "fingerprint"]
    assert len(anim.frame_durations) == 5 and anim.frame_durations[-1] > anim.frame_durations[0]
    plt.close(anim._fig)


def test_accumulator_animation_outlines_each_move_and_frames_flipped_bits(toy_trace):
    anim = animate.accumulators(toy_trace)
    moves = anim._fig.axes[1].containers[1]  # outlined boxes from the old height to the new
    flips = anim._fig.axes[2].containers[0]  # frames on the fingerprint row
    anim._func(2)  # "safe": V goes from [1, 1, -1, -1] to [2, 0, 0, -2] (bit 0 first)
    drawn = [(b.get_y(), b.get_y() + b.get_height()) for b in moves]  # bit 3 on the left
    assert drawn == [(-1, -2), (-1, 0), (1, 0), (1, 2)]
    # only bit 1 changed sign (1 -> 0): column 2 from the left
    assert [b.get_visible() for b in flips] == [False, False, True, False]
    anim._func(4)  # the fingerprint frame: no moves drawn
    assert not any(b.get_visible() for b in moves)
    plt.close(anim._fig)


def test_animation_frames_have_no_repeats(toy_trace):
    images = animate.frames(animate.accumulators(toy_trace, dpi=30))
    raw = [img.tobytes() for img in images]
    assert len(raw) == 5 and len(set(raw)) == 5


def test_show_turns_an_animation_into_a_stepper_and_closes_it(toy_trace):
    anim = animate.accumulators(toy_trace, dpi=30)
    w = animate.show(anim)
    assert isinstance(w, widgets.Stepper) and w.n_frames == 5
    assert not plt.fignum_exists(anim._fig.number)
    assert w.children[0].children[1].options == ("start", "rust", "safe", "fast", "fingerprint")
    again = animate.show(animate.accumulators(toy_trace, dpi=30))
    assert again.fallback_html == w.fallback_html  # the same bytes on every run: stored outputs stay true


def test_hyperplane_sweep_runs_and_counts():
    anim = animate.hyperplane_sweep(np.pi / 2, n_random=50, sweep_frames=4, random_frames=5, dpi=30)
    n = len(anim.frame_labels)
    for f in range(n):
        anim._func(f)
    run_line = anim._fig.axes[1].lines[1]
    y = run_line.get_ydata()
    assert len(y) == 50 and 0 <= y[-1] <= 1
    assert anim.frame_labels[0] == "line at 0°" and anim.frame_labels[-1] == "50 random"
    plt.close(anim._fig)
