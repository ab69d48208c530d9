"""The course's one player, simhash_lab.course.widgets.Stepper: an animated image as opened, a live
Play + slider after a run, and stored notebooks whose every stepper plays as opened."""

import base64
import io
import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from simhash_lab.course import widgets  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _figure(k: int, size=(3, 2)):
    fig, ax = plt.subplots(figsize=size)
    ax.bar(range(4), [k, 4 - k, 1, 2], color=["#0072B2", "#D55E00", "#009E73", "#E69F00"])
    ax.set_title(f"frame {k}")
    return fig


def _apng_frames(png: bytes) -> list:
    """Every frame of an animated PNG as RGB arrays (read in order: Pillow composes each frame on
    the previous one)."""
    im = Image.open(io.BytesIO(png))
    out = []
    for j in range(getattr(im, "n_frames", 1)):
        im.seek(j)
        out.append(np.asarray(im.convert("RGB")))
    return out


def _fallback_png(html: str) -> bytes:
    found = re.findall(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)
    assert len(found) == 1, html[:200]
    return base64.b64decode(found[0])


def test_image_frames_make_an_animated_image_and_a_live_player():
    w = widgets.stepper([_figure(k) for k in range(4)], labels=["a", "b", "c", "d"], interval=500)
    assert w.n_frames == 4 and not plt.get_fignums()  # the figures were closed
    (play, slider), stack = w.children[0].children, w.children[1]
    assert play.max == 3 and play.interval == 500 and slider.options == ("a", "b", "c", "d")
    # the animated image stored for "as opened" holds exactly the live player's frames
    shown = _apng_frames(_fallback_png(w.fallback_html))
    live = [np.asarray(Image.open(io.BytesIO(v.value)).convert("RGB")) for v in stack.children]
    assert len(shown) == 4 and all((a == b).all() for a, b in zip(shown, live))
    assert len({a.tobytes() for a in shown}) == 4
    im = Image.open(io.BytesIO(w.animation_png))
    durations = []
    for j in range(im.n_frames):
        im.seek(j)
        durations.append(im.info["duration"])
    assert durations == [500, 500, 500, 1500]  # the last frame stays longer before the loop


def test_the_fallback_says_what_is_true():
    images = widgets.stepper([_figure(0), _figure(1)])
    assert "plays by itself" in images.fallback_html and "Run this cell" in images.fallback_html
    assert "without a kernel" not in images.fallback_html
    html = widgets.stepper(["<b>a</b>", "<b>b</b>", "<b>c</b>"])
    assert html.fallback_html.startswith("<div><b>a</b>") and "Frame 1 of 3" in html.fallback_html
    assert html.animation_png is None
    bundle = images._repr_mimebundle_()
    assert WIDGET_MIME in bundle and bundle["text/html"] == images.fallback_html
    assert bundle["text/plain"].startswith("Stepper: 2 frames")


def test_the_same_frames_give_the_same_bytes():
    a = widgets.stepper([_figure(0), _figure(1)]).fallback_html
    b = widgets.stepper([_figure(0), _figure(1)]).fallback_html
    assert a == b


def test_frames_of_different_sizes_are_padded_and_white_stays_white():
    w = widgets.stepper([_figure(0, (3, 2)), _figure(1, (4, 3))])
    sizes = {Image.open(io.BytesIO(v.value)).size for v in w.children[1].children}
    assert len(sizes) == 1
    first = np.asarray(Image.open(io.BytesIO(w.children[1].children[0].value)).convert("RGB"))
    assert tuple(first[0, 0]) == (255, 255, 255) and tuple(first[-1, -1]) == (255, 255, 255)


def _gradient_frames(n: int = 3, *, square=None, at: int = 1) -> list:
    """``n`` frames of a blue-to-vermillion gradient (300 columns, each its own colour, like the
    anti-aliased edges of a plot) on white; frame ``at`` also has a 6x6 square of colour ``square``."""
    out = []
    x = np.arange(300)
    for j in range(n):
        a = np.full((200, 300, 3), 255, np.uint8)
        a[20:180, :, 0] = (x * 255 // 299)[None, :]
        a[20:180, :, 1] = 100
        a[20:180, :, 2] = (255 - x * 255 // 299)[None, :]
        if square is not None and j == at:
            a[5:11, 5:11] = square
        out.append(Image.fromarray(a))
    return out


def test_a_small_area_keeps_its_colour():
    """A median cut over all pixels gave this 36-pixel square the colour of the gradient around
    (129, 100, 126): the k stepper of notebook 06 lost its blue markers that way at 64 colours."""
    pink = (200, 100, 200)
    w = widgets.stepper(_gradient_frames(3, square=pink), colors=64)
    shown = _apng_frames(w.animation_png)
    live = [np.asarray(Image.open(io.BytesIO(v.value)).convert("RGB")) for v in w.children[1].children]
    for frames in (shown, live):
        assert (frames[1][5:11, 5:11] == pink).all(), frames[1][8, 8]
        assert (frames[0][5:11, 5:11] == 255).all() and (frames[2][5:11, 5:11] == 255).all()


def test_frames_with_few_colours_come_out_exact():
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 4, size=(40, 60, 1)).astype(np.uint8) * 60 + np.uint8(k) for k in range(3)]
    frames = [np.repeat(f, 3, axis=2) for f in frames]  # 12 distinct greys in all, one pixel each
    w = widgets.stepper([Image.fromarray(f) for f in frames], colors=16)
    assert all((a == b).all() for a, b in zip(_apng_frames(w.animation_png), frames))


def test_more_filled_colours_than_a_palette_holds_keeps_the_largest_areas():
    """300 colours each filling a 10x10 tile, one of them a 40x40 area: the palette holds 256, and
    the large area keeps its colour exactly."""
    a = np.zeros((200, 150, 3), np.uint8)
    tiles = [(i, j) for i in range(20) for j in range(15)]
    for n, (i, j) in enumerate(tiles):
        a[10 * i : 10 * i + 10, 10 * j : 10 * j + 10] = (n % 256, (n * 7) % 256, n // 256 * 128 + 10)
    a[:40, :40] = (250, 20, 200)
    w = widgets.stepper([Image.fromarray(a), Image.fromarray(a[::-1].copy())], colors=64)
    first, second = _apng_frames(w.animation_png)
    assert (first[:40, :40] == (250, 20, 200)).all() and (second[-40:, :40] == (250, 20, 200)).all()
    assert len(np.unique(first.reshape(-1, 3), axis=0)) <= 256


def test_png_bytes_and_pil_images_are_frames_too():
    png = widgets.figure_png(_figure(0))
    w = widgets.stepper([png, Image.open(io.BytesIO(png)), Image.new("RGBA", (10, 10), (0, 0, 0, 0))])
    assert w.n_frames == 3
    last = np.asarray(Image.open(io.BytesIO(w.children[1].children[2].value)).convert("RGB"))
    assert (last[:10, :10] == 255).all()  # a transparent frame is drawn on white


@pytest.mark.parametrize(
    "frames,kwargs,error,words",
    [
        ([], {}, ValueError, "frames must not be empty"),
        (["a", "b"], {"labels": ["only one"]}, ValueError, "labels must have one entry per frame (2)"),
        (["a", "b"], {"durations": [100]}, ValueError, "durations must be 2 positive"),
        (["a", "b"], {"durations": [100, 0]}, ValueError, "durations must be 2 positive"),
        ([b"x", "<b>a</b>"], {}, TypeError, "all images"),
        ([3, 4], {}, TypeError, "frames must be matplotlib figures"),
        (["a"], {"colors": 1}, ValueError, "colors must be between 2 and 256, got 1"),
    ],
)
def test_stepper_rejects_bad_input(frames, kwargs, error, words):
    with pytest.raises(error) as e:
        widgets.stepper(frames, **kwargs)
    assert words in str(e.value)


def test_stepper_links_play_slider_and_stack():
    w = widgets.stepper(["<b>a</b>", "<b>b</b>", "<b>c</b>"], labels=["x", "y", "x"])
    (play, slider), stack = w.children[0].children, w.children[1]
    assert len(stack.children) == 3 and play.max == 2
    assert slider.options == ("1: x", "2: y", "3: x")  # duplicate labels made unique
    assert repr(w).startswith("Stepper: 3 frames")


# -- the stored notebooks: every stepper plays as opened ----------------------------------------------


def _stepper_outputs():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            for out in cell.get("outputs", []):
                data = out.get("data", {})
                if WIDGET_MIME in data:
                    html = data.get("text/html", "")
                    yield f"{path.name} cell {i}", "".join(html) if isinstance(html, list) else html


STORED = list(_stepper_outputs())


def test_the_course_has_steppers():
    assert len(STORED) >= 4


@pytest.mark.parametrize("where,html", STORED, ids=[w for w, _ in STORED])
def test_every_stored_stepper_shows_something_true_as_opened(where, html):
    """JupyterLab shows a notebook it has just opened without its widgets: the stored text/html is
    what a learner sees. An image stepper must store an animated image of a few hundred KB at most;
    an HTML stepper its first frame, saying that the others need a run."""
    assert html, f"{where}: no text/html fallback beside the widget"
    if "plays by itself" in html:
        png = _fallback_png(html)
        frames = _apng_frames(png)
        assert len(frames) > 1, f"{where}: claims to play but has one frame"
        assert len(png) <= 400 * 1024, f"{where}: animated image of {len(png) // 1024} KB"
    else:
        assert "Frame 1 of" in html and "run this cell" in html.lower(), f"{where}: {html[-300:]}"


def test_no_stored_output_is_a_player_that_needs_javascript():
    """matplotlib's to_jshtml player shows a broken image and dead buttons in an untrusted notebook."""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert 'class="anim-buttons"' not in path.read_text(encoding="utf-8"), path.name


def test_theta_slider_has_a_frame_per_angle():
    w = widgets.theta_slider(degrees=(0, 90), trials=50, dpi=20)
    assert w.n_frames == 2
    assert w.children[1].children[0].format == "png" and w.animation_png is not None


# -- a line of progress: live in JupyterLab, gone from the stored output ---------------------------


def _jupyterlab(chunks: list[str]) -> str:
    """What JupyterLab shows of a stream written in ``chunks``: its own rule (the output area's
    ``processText``), a terminal's: characters overwrite at a cursor, ``\\r`` sends it to the line's
    start, ``\\b`` deletes the character before it, ``\\n`` ends the text."""
    text, cursor = "", 0
    for chunk in chunks:
        for ch in chunk:
            if ch == "\r":
                while cursor > 0 and text[cursor - 1] != "\n":
                    cursor -= 1
            elif ch == "\b":
                if cursor > 0 and text[cursor - 1] != "\n":
                    text, cursor = text[: cursor - 1] + text[cursor:], cursor - 1
            elif ch == "\n":
                text += "\n"
                cursor = len(text)
            else:
                text = text[:cursor] + ch + text[cursor + 1 :]
                cursor += 1
    return text


def _stored(text: str) -> str:
    """What nbclient and nbval keep of a cell's stream: a line's text up to a ``\\r`` followed by
    more text is dropped (their ``coalesce_streams``)."""
    return re.sub(r"^.*\r(?=[^\n])", "", text, flags=re.M)


class _Chunks(io.StringIO):
    def __init__(self):
        super().__init__()
        self.chunks = []

    def write(self, s):
        self.chunks.append(s)
        return super().write(s)


def test_a_line_of_progress_shows_while_it_runs_and_leaves_nothing_visible():
    out = _Chunks()
    with widgets.Progress("drawing the frames", total=12, file=out, every=0) as bar:
        for i in range(12):
            bar.update(i)
        bar.step("a much longer label than any of the counts before it")
    out.write("done\n")
    with widgets.Progress("then", total=2, file=out, every=0) as bar:
        bar.update(0)
    live, stored = _jupyterlab(out.chunks), _stored(out.getvalue())
    assert "drawing the frames: 12 of 12" in _jupyterlab(out.chunks[:12])  # shown as it goes
    assert live.strip(" \u200b\n") == "done" and "drawing" not in live and "then" not in live
    assert stored == "\u200bdone\n\u200b"  # the stored output: the same every run, nothing shown
    assert widgets.PROGRESS_MARK == "\u200b"


def test_a_stepper_of_figures_carries_their_text_alternative_and_text_size():
    figs = []
    for k in range(2):
        fig, ax = plt.subplots(figsize=(4, 2))
        ax.set_title(f"frame {k}")
        figs.append(fig)
    player = widgets.stepper(figs, labels=["a", "b"], dpi=72)
    html = player.fallback_html
    alt = re.search(r'alt="([^"]*)"', html).group(1)
    assert alt == "frame 0. 2 frames: a, b"  # the first frame's words, then the frames
    assert 'style="width:100%"' in html  # as wide as the page (a class's screen)
    smallest = min(widgets.smallest_text_px(f, 72) for f in figs)
    assert float(re.search(r'data-text-px="([\d.]+)"', html).group(1)) == smallest > 0
    unseen = player.children[-1]
    assert "frame 0. 2 frames: a, b" in unseen.value and "clip:rect(0,0,0,0)" in unseen.value


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")  # the words, not their glyphs
def test_figure_png_writes_its_words_and_its_smallest_text_into_the_png():
    fig, ax = plt.subplots()
    ax.set_title("θ = 60°, 海量")
    ax.set_xlabel("small", fontsize=8)
    img = Image.open(io.BytesIO(widgets.figure_png(fig, dpi=90)))
    assert img.info[widgets.PNG_DESCRIPTION].startswith("θ = 60°, 海量")
    assert float(img.info[widgets.PNG_TEXT_PX]) == pytest.approx(8 * 90 / 72)
