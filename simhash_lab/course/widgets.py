"""Steppers: the one way the course shows frames, as opened and after a run.

Every animation and every stepper of the course is a :class:`Stepper`, made by :func:`stepper` from
a list of frames (matplotlib figures or PNG images; :func:`simhash_lab.course.animate.show` makes
one from an animation). What a learner sees depends on where the notebook is shown:

* **As opened** (JupyterLab does not trust a notebook it has just opened, so stored widgets and
  JavaScript do not run; GitHub and other static renderers are the same): an *animated image* of
  all the frames (APNG, which every current browser plays), stored in the output, plays by itself,
  with a line under it that says so.
* **After its cell has run**: a live widget, a Play button and a slider over the same frames, linked
  in the browser with ``jslink``, so it keeps working when the kernel stops.

The frames share one palette, which keeps the stored notebook small: every colour that fills an
area (even a 2×2 one: a marker, a legend patch, a thin bar) keeps its exact value, and only the
anti-aliased edges are approximated. Frames given as HTML strings also work, but cannot be turned
into an animated image: as opened those steppers show their first frame and say how to see the
others.

>>> from simhash_lab.course import widgets
>>> w = widgets.stepper(["<b>one</b>", "<b>two</b>"], labels=["1", "2"])
>>> w
Stepper: 2 frames (press ▶ or drag the slider)
>>> "Frame 1 of 2" in w.fallback_html
True
"""

from __future__ import annotations

import base64
import html as _html
import io
from collections.abc import Callable, Sequence

import ipywidgets as W
import numpy as np

from .._i18n import N_, _

__all__ = [
    "Stepper",
    "stepper",
    "Progress",
    "progress",
    "figure_png",
    "smallest_text_px",
    "animated_png",
    "theta_slider",
]


class Stepper(W.VBox):
    """A VBox of [Play, slider] over a Stack of frames; as opened, an animated image.

    Make one with :func:`stepper`. Besides the widget it offers :attr:`fallback_html` (the animated
    image of its frames and one line saying what it is), which front ends that show no live widget
    display instead: JupyterLab on a notebook it has just opened, GitHub, nbviewer.

    Attributes
    ----------
    fallback_html : str
        What a front end without live widgets shows.
    animation_png : bytes or None
        The animated PNG of the frames (None for HTML frames).
    """

    fallback_html: str = ""
    animation_png: bytes | None = None

    def __repr__(self) -> str:
        return _("Stepper: {n_frames} frames (press ▶ or drag the slider)").format(n_frames=self.n_frames)

    @property
    def n_frames(self) -> int:
        """Number of frames."""
        return len(self.children[1].children) if len(self.children) > 1 else 0

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if self.fallback_html:
            data["text/html"] = self.fallback_html
        return data


# -- progress of a slow cell ---------------------------------------------------------------------------


#: What a closed :class:`Progress` leaves on its line: a zero-width space, so that the carriage
#: return before it (Jupyter rewrites a line from a ``\r`` followed by a character) erases the line.
PROGRESS_MARK = "\u200b"


def _live(stream) -> bool:
    """Whether ``stream`` is read as it is written: a notebook's (an IPython kernel's) or a
    terminal."""
    if type(stream).__module__.startswith("ipykernel"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Progress:
    """One line of progress, ``what: 3 of 13 (2.1 s)``, rewritten in place on ``file`` (default:
    stdout, when a notebook or a terminal reads it) and erased by :meth:`close`: see
    :func:`progress`, the usual way to use it.

    ``update(i)`` says item ``i`` (from 0) has started, ``step(label)`` that a named step has;
    ``every``: seconds between two rewrites by ``update`` at most. A context manager (closed on
    leaving the block, however it is left)."""

    def __init__(self, what: str, total: int | None = None, *, file=None, every: float = 0.25) -> None:
        import sys
        import time

        self.what, self.total, self.every = what, total, every
        if file is None and _live(sys.stdout):
            file = sys.stdout
        self.file = file  # None: nothing to show (a script's output, a test's capture)
        self._shown, self._widest, self._last, self._t0 = "", 0, -1.0, time.perf_counter()

    def _write(self, text: str) -> None:
        """Rewrite the line as ``text``: padded with spaces over a longer line before it, as
        JupyterLab overwrites a line from a carriage return character by character (a terminal's
        way) where nbclient and nbval drop it whole."""
        if self.file is None:
            return
        self._widest = max(self._widest, len(text))
        self.file.write("\r" + text.ljust(len(self._shown)))
        self.file.flush()
        self._shown = text

    def update(self, i: int) -> None:
        import time

        now = time.perf_counter()
        if self._last < 0 or now - self._last >= self.every or (self.total and i + 1 == self.total):
            of = "" if self.total is None else _(" of {total}").format(total=self.total)
            self._write(f"{self.what}: {i + 1}{of} ({now - self._t0:.1f} s)")
            self._last = now

    def step(self, label: str) -> None:
        """Say that the step ``label`` has started (for a cell of a few slow calls, not a loop)."""
        import time

        self._write(f"{self.what}: {label} ({time.perf_counter() - self._t0:.1f} s)")

    def close(self) -> None:
        """Erase the line: blank it (JupyterLab), then leave only :data:`PROGRESS_MARK`, the last
        thing after a carriage return, which is all a stored output keeps."""
        if self._shown and self.file is not None:
            self.file.write("\r" + " " * self._widest + "\r" + PROGRESS_MARK)
            self.file.flush()
            self._shown = ""

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def progress(items, what: str, *, total: int | None = None, file=None, every: float = 0.25):
    r"""Iterate over ``items``, writing ``what: 3 of 13 (2.1 s)`` on one line of ``file`` (stdout)
    while the cell runs, and erasing it when the loop ends, ends early or fails.

    A notebook shows the line live (JupyterLab rewrites a line from each carriage return), and the
    stored output keeps nothing of it but an invisible character: Jupyter's own stream coalescing
    (nbclient's, nbval's) drops a line's text up to a ``\r`` followed by more text, so the run's
    timings never reach a checked output. ``what`` is written as given (translate it where it is
    written).

    >>> import io, re
    >>> out = io.StringIO()
    >>> list(progress(range(3), "frames", file=out))
    [0, 1, 2]
    >>> re.sub(r"^.*\r(?=[^\n])", "", out.getvalue(), flags=re.M)  # what a notebook keeps
    '\u200b'
    """
    total = len(items) if total is None and hasattr(items, "__len__") else total
    with Progress(what, total, file=file, every=every) as bar:
        for i, item in enumerate(items):
            bar.update(i)
            yield item


# -- frames as images -----------------------------------------------------------------------------


#: PNG text keys (tEXt/iTXt chunks) :func:`figure_png` writes and :func:`stepper` reads: the
#: figure's text alternative ("Description" is the PNG standard's own keyword) and the height of
#: its smallest text in the image's pixels (which the browser suite scales to the shown size).
PNG_DESCRIPTION = "Description"
PNG_TEXT_PX = "simhash-lab smallest text px"


def smallest_text_px(fig, dpi: float) -> float:
    """The font size of the smallest visible, non-empty text of ``fig`` (titles, labels, tick
    labels, legends, annotations), in pixels of an image saved at ``dpi`` (0 if it has none)."""
    from matplotlib.text import Text

    fig.canvas.draw()  # tick labels exist once drawn
    sizes = [
        t.get_fontsize()
        for t in fig.findobj(Text)
        if t.get_visible() and t.get_text().strip() and t.get_alpha() != 0 and _shown(t)
    ]
    return round(min(sizes) * dpi / 72, 2) if sizes else 0.0


def _shown(t) -> bool:
    """Whether a text artist is drawn: it, and the axes it belongs to, are visible."""
    return t.get_visible() and (t.axes is None or t.axes.get_visible())


def figure_png(fig, *, dpi: int = 72, close: bool = True) -> bytes:
    """A matplotlib figure as PNG bytes (``bbox_inches="tight"``), carrying its text alternative
    (:func:`simhash_lab.course.plot.alt_text`) and the size of its smallest text
    (:func:`smallest_text_px`) as PNG text chunks, which :func:`stepper` reads; the figure is
    closed afterwards (so the notebook does not also show it) unless ``close=False``."""
    import matplotlib.pyplot as plt

    from .plot import alt_text

    meta = {
        "Software": None,
        PNG_DESCRIPTION: alt_text(fig),
        PNG_TEXT_PX: f"{smallest_text_px(fig, dpi):g}",
    }
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata=meta)
    if close:
        plt.close(fig)
    return buf.getvalue()


def _as_image(frame, dpi: int):
    """One frame (a matplotlib figure, PNG/JPEG bytes or a PIL image) as an RGB PIL image; what it
    says of itself (:data:`PNG_DESCRIPTION`, :data:`PNG_TEXT_PX`) stays in its ``info``."""
    from PIL import Image

    if isinstance(frame, Image.Image):
        img = frame
    elif isinstance(frame, (bytes, bytearray, memoryview)):
        img = Image.open(io.BytesIO(bytes(frame)))
    elif hasattr(frame, "savefig"):
        img = Image.open(io.BytesIO(figure_png(frame, dpi=dpi)))
    else:
        raise TypeError(
            f"frames must be matplotlib figures, PNG bytes or PIL images (or all HTML strings), "
            f"got {type(frame).__name__}"
        )
    info = {k: img.info[k] for k in (PNG_DESCRIPTION, PNG_TEXT_PX) if k in img.info}
    if img.mode in ("RGBA", "LA", "P"):
        img = img.convert("RGBA")
        white = Image.new("RGBA", img.size, "white")
        img = Image.alpha_composite(white, img)
    img = img.convert("RGB")
    img.info.update(info)
    return img


def _same_size(images: list) -> list:
    """Pad every image on white to the largest width and height (top left kept in place), so the
    frames line up and the player does not jump."""
    from PIL import Image

    w = max(i.width for i in images)
    h = max(i.height for i in images)
    out = []
    for img in images:
        if img.size != (w, h):
            canvas = Image.new("RGB", (w, h), "white")
            canvas.paste(img, (0, 0))
            img = canvas
        out.append(img)
    return out


def _codes(rgb: np.ndarray) -> np.ndarray:
    """(h, w, 3) uint8 RGB as (h, w) int64 codes 0xRRGGBB."""
    rgb = rgb.astype(np.int64)
    return (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]


def _filled(code: np.ndarray) -> np.ndarray:
    """The colour codes that fill at least one 2×2 block of ``code`` ((h, w) int64): areas, lines of
    two pixels or more and text strokes, not the one-pixel blends that anti-aliasing puts on edges."""
    top = code[:-1, :-1]
    same = (top == code[1:, :-1]) & (top == code[:-1, 1:]) & (top == code[1:, 1:])
    return np.unique(top[same])


def _shared_palette(images: list, colors: int) -> list:
    """Every image mapped, without dithering, onto one palette made from all of them (an animated
    PNG has one palette for all its frames).

    Every colour that fills a 2×2 block anywhere in any frame (backgrounds, bars, markers, legend
    patches, text: whatever covers an area, however small) gets its own exact palette entry; the
    other colours (anti-aliased edges) share the rest of the ``colors`` entries, by a median cut
    over their pixels, or keep their own exact entries when they fit. When the filled colours alone
    need more than ``colors`` entries the palette grows to hold them (up to 256, 16 of them kept for
    the edges; beyond that the 224 that cover most area are kept exactly). So no small area loses
    its colour, and frames with few colours come out exact.
    """
    from PIL import Image

    codes = [_codes(np.asarray(img)) for img in images]
    every, count = np.unique(np.concatenate([c.ravel() for c in codes]), return_counts=True)
    filled = np.unique(np.concatenate([_filled(c) for c in codes]))
    room = 256 if filled.size == every.size else 240  # at least 16 entries for the edges
    if filled.size > room:  # a photograph or a colour map: keep the colours of the largest areas
        area = count[np.searchsorted(every, filled)]
        filled = np.sort(filled[np.argsort(-area, kind="stable")[:224]])
    rest = every[~np.isin(every, filled)]
    slots = min(256, max(int(colors), filled.size + 16 if rest.size else filled.size)) - filled.size
    if rest.size <= slots:
        pal = np.concatenate([filled, rest])
    else:
        # a median cut over the pixels of the other colours (at most ~4 Mpixels, sampled evenly)
        pix = np.repeat(rest, count[np.searchsorted(every, rest)])
        pix = pix[:: max(1, int(np.ceil(pix.size / 4e6)))]
        width = 1024
        pix = np.resize(pix, -(-pix.size // width) * width).reshape(-1, width)  # pad by repeating
        rgb = np.stack([pix >> 16, (pix >> 8) & 255, pix & 255], axis=-1).astype(np.uint8)
        quant = Image.fromarray(rgb, mode="RGB").quantize(
            colors=slots, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE
        )
        cut = np.array(quant.getpalette()[: 3 * slots], dtype=np.int64).reshape(-1, 3)
        pal = np.concatenate([filled, (cut[:, 0] << 16) | (cut[:, 1] << 8) | cut[:, 2]])
    pal_rgb = np.stack([pal >> 16, (pal >> 8) & 255, pal & 255], axis=1)
    flat = [int(c) for c in pal_rgb.ravel()]
    out = []
    for code in codes:
        # the nearest palette colour of each distinct colour (Pillow's own mapping is coarser);
        # a filled colour is its own nearest
        uniq, inv = np.unique(code.ravel(), return_inverse=True)
        u = np.stack([uniq >> 16, (uniq >> 8) & 255, uniq & 255], axis=1)
        nearest = ((u[:, None, :] - pal_rgb[None, :, :]) ** 2).sum(axis=2).argmin(axis=1)
        p = Image.fromarray(nearest[inv].reshape(code.shape).astype(np.uint8), mode="P")
        p.putpalette(flat)
        out.append(p)
    return out


def _png(img) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def animated_png(frames: Sequence, durations: Sequence[int], *, loop: int = 0) -> bytes:
    """An animated PNG (APNG) of palette images of one size, frame j shown ``durations[j]`` ms.

    Each frame after the first stores only the rectangle that changed (Pillow's encoder), so an
    animation whose frames differ in a few places stays small."""
    buf = io.BytesIO()
    frames[0].save(
        buf,
        format="PNG",
        save_all=True,
        append_images=list(frames[1:]),
        duration=[int(d) for d in durations],
        loop=loop,
        optimize=True,
    )
    return buf.getvalue()


def _img_tag(png: bytes, alt: str, width: int, text_px: float | None = None) -> str:
    """The animated picture as opened: as wide as the page (in class, the width of the screen:
    frames are drawn large enough for that), ``alt`` its text alternative; ``width`` its own
    pixels, ``text_px`` its smallest text in them (``data-`` attributes the browser suite reads)."""
    data = base64.b64encode(png).decode("ascii")
    px = "" if text_px is None else f' data-text-px="{text_px:g}"'
    return (
        f'<img src="data:image/png;base64,{data}" alt="{_html.escape(alt)}" '
        f'data-width="{width}"{px} style="width:100%"/>'
    )


_UNSEEN = "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap"
_NOTE = '<div style="color:#555;font-size:90%;margin-top:4px">{}</div>'


# -- the stepper ----------------------------------------------------------------------------------


def stepper(
    frames: Sequence,
    *,
    labels: Sequence[str] | None = None,
    description: str = N_("step"),
    interval: int = 900,
    durations: Sequence[int] | None = None,
    dpi: int = 72,
    colors: int = 64,
    alt: str | None = None,
) -> Stepper:
    """Frames with a player: an animated image as opened, Play and a slider after a run, both as
    wide as the page.

    Parameters
    ----------
    frames : sequence of matplotlib figures, PNG bytes or PIL images (or of HTML strings)
        The frames in order. Figures are saved at ``dpi`` and closed, so make them in the cell that
        calls this (the notebook then shows only the stepper); for many frames, append
        ``figure_png(fig)`` instead, which closes each figure as you go. HTML strings give a
        stepper whose as-opened view is its first frame (HTML cannot become an animated image).
    labels : sequence of str, optional
        What the slider shows for each frame (default: 1, 2, 3, ...); repeated labels get their
        position in front.
    description : str
        The slider's name.
    interval : int
        Milliseconds per frame, for Play and for the animated image.
    durations : sequence of int, optional
        Milliseconds each frame stays in the animated image (default: ``interval``, and three times
        that for the last frame, so the result is seen before the loop starts again).
    dpi : int
        Resolution at which figures are saved.
    colors : int
        Size of the shared palette of image frames (2..256). Colours that fill an area always get an
        exact entry (the palette grows to hold them); the rest of the entries go to the anti-aliased
        edges, so fewer colours give a smaller image with rougher edges, never a lost colour.
    alt : str, optional
        The picture's text alternative (default: what its first frame says of itself,
        :func:`simhash_lab.course.plot.alt_text`); the frames' labels follow it.

    Returns
    -------
    Stepper
        Show it as the last line of a cell.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("frames must not be empty")
    n = len(frames)
    labels = [str(i + 1) for i in range(n)] if labels is None else [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(f"labels must have one entry per frame ({n}), got {len(labels)}")
    if len(set(labels)) != n:
        labels = [f"{i + 1}: {lab}" for i, lab in enumerate(labels)]
    if durations is None:
        durations = [interval] * (n - 1) + [3 * interval]
    durations = [int(d) for d in durations]
    if len(durations) != n or min(durations) <= 0:
        raise ValueError(f"durations must be {n} positive milliseconds, got {durations}")
    if not 2 <= int(colors) <= 256:
        raise ValueError(f"colors must be between 2 and 256, got {colors}")

    html_frames = [isinstance(f, str) for f in frames]
    if all(html_frames):
        views = [W.HTML(f) for f in frames]
        fallback = (
            "<div>"
            + frames[0]
            + _NOTE.format(_("Frame 1 of {n}: run this cell to play them all (▶ or the slider).").format(n=n))
            + "</div>"
        )
        anim = None
    elif any(html_frames):
        raise TypeError("frames must be all images (figures, PNG bytes, PIL images) or all HTML strings")
    else:
        rgb = [_as_image(f, dpi) for f in progress(frames, _("preparing the frames"))]
        sizes = [float(i.info[PNG_TEXT_PX]) for i in rgb if float(i.info.get(PNG_TEXT_PX, 0) or 0) > 0]
        text_px = min(sizes) if sizes else None
        alt = alt or rgb[0].info.get(PNG_DESCRIPTION) or ""
        images = _shared_palette(_same_size(rgb), int(colors))
        pngs = [_png(i) for i in images]
        width = images[0].width
        fit = W.Layout(width="100%")  # one layout model shared by every frame: as wide as the page
        views = [W.Image(value=p, format="png", layout=fit) for p in pngs]
        anim = animated_png(images, durations) if n > 1 else pngs[0]
        what = (
            _(
                "An animated picture of {n} frames: it plays by itself. Run this cell for ▶ and "
                "a slider to stop on any frame."
            ).format(n=n)
            if n > 1
            else _("Run this cell to get the widget.")
        )
        alt = (alt.rstrip(". ") + ". " if alt else "") + _("{n} frames: ").format(n=n) + ", ".join(labels)
        fallback = f"<div>{_img_tag(anim, alt, width, text_px)}{_NOTE.format(what)}</div>"

    stack = W.Stack(views, selected_index=0)
    play = W.Play(
        value=0, min=0, max=n - 1, step=1, interval=interval, description=_("play"), show_repeat=False
    )
    slider = W.SelectionSlider(
        options=labels,
        index=0,
        description=_(description),
        continuous_update=True,
        layout=W.Layout(width="min(640px, 90%)"),
        style={"description_width": "initial"},
    )
    W.jslink((play, "value"), (slider, "index"))
    W.jslink((slider, "index"), (stack, "selected_index"))
    children = [W.HBox([play, slider]), stack]
    if alt:  # the live player's text alternative: read by a screen reader, not shown
        children.append(W.HTML(value=f'<span style="{_UNSEEN}">{_html.escape(alt)}</span>'))
    out = Stepper(children)
    out.fallback_html = fallback
    out.animation_png = anim
    return out


# -- the theta slider of notebook 04 -----------------------------------------------------------------


def theta_slider(
    degrees: Sequence[float] = (0, 5, 10, 15, 20, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180),
    *,
    bits: int = 64,
    trials: int = 2000,
    seed: int = 0,
    dpi: int = 72,
    draw: Callable | None = None,
) -> Stepper:
    """A θ stepper: for each angle, two unit vectors and a dozen random lines (left), and the
    Hamming distances of their ``bits``-bit signatures over ``trials`` independent sets of Gaussian
    hyperplanes (right) against ``E[d_H] = bits·θ/π``. All frames are computed here (seeded).

    ``draw(fig, degrees)``, if given, adds to each frame before it is saved."""
    import matplotlib.pyplot as plt

    from . import plot as P

    rng = np.random.default_rng(seed)
    frames = []
    for deg in progress(degrees, _("drawing the frames")):
        th = np.radians(deg)
        u = np.array([1.0, 0.0])
        v = np.array([np.cos(th), np.sin(th)])
        R = rng.standard_normal((trials, bits, 2))
        d = ((R @ u >= 0) != (R @ v >= 0)).sum(axis=1)
        fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [1, 1.8]})
        P.theta_frame(u, v, R[0, :12], d, bits=bits, degrees=deg, axes=(a, b))
        if draw is not None:
            draw(fig, deg)
        fig.tight_layout()
        frames.append(figure_png(fig, dpi=dpi))  # closed as we go: no pile of open figures
    alt = _(
        "For each angle θ: two unit vectors u and v and a dozen random lines through the origin "
        "(left), and the histogram of the Hamming distances of {bits}-bit signatures over {trials} "
        "sets of random hyperplanes, against E[d_H] = {bits}·θ/π (right)"
    ).format(bits=bits, trials=trials)
    return stepper(frames, labels=[f"{g:g}°" for g in degrees], description="θ", interval=800, alt=alt)
