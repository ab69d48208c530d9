"""ipywidgets for the course that keep working without a kernel.

Every widget here is a *stepper*: all its frames are computed up front (HTML, or figures embedded as
PNG), put in an ``ipywidgets.Stack``, and a ``Play`` button and a slider drive it through
``jslink``, which runs in the browser. So a saved notebook (with widget state, as
``tools/build.py`` stores it) shows the first frame and still steps through the others in
a static render, and a learner never sees a blank widget.

>>> from simhash_lab.course import widgets
>>> w = widgets.stepper(["<b>one</b>", "<b>two</b>"], labels=["1", "2"])
>>> w
Stepper: 2 frames (press ▶ or drag the slider)
"""

from __future__ import annotations

import base64
import html as _html
import io
from collections.abc import Callable, Sequence

import ipywidgets as W
import numpy as np

__all__ = ["Stepper", "stepper", "figure_html", "accumulator_frames", "accumulator_stepper", "theta_slider"]


class Stepper(W.VBox):
    """A VBox of [Play, slider] over a Stack of frames, with a short text repr.

    Besides the widget it offers its first frame as HTML: a front end that shows no live widget
    (JupyterLab on a notebook it has just opened and does not trust yet, GitHub, nbviewer) shows
    that frame and a line saying how to play the rest, not a blank space or a bare repr.
    """

    def __repr__(self) -> str:
        return f"Stepper: {self._n_frames()} frames (press ▶ or drag the slider)"

    def _n_frames(self) -> int:
        return len(self.children[1].children) if len(self.children) > 1 else 0

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        if self._n_frames():
            first = self.children[1].children[0].value
            data["text/html"] = (
                f'<div>{first}<div style="color:#555;font-size:90%;margin-top:4px">Frame 1 of '
                f"{self._n_frames()}: run this cell to play them all (▶ or the slider).</div></div>"
            )
        return data


def stepper(
    frames: Sequence[str],
    *,
    labels: Sequence[str] | None = None,
    description: str = "step",
    interval: int = 900,
) -> Stepper:
    """A Play button and a slider stepping through ``frames`` (HTML strings), linked in the browser.

    Parameters
    ----------
    frames : sequence of str
        HTML of each frame (use :func:`figure_html` for a matplotlib figure).
    labels : sequence of str, optional
        What the slider shows for each frame (default: 0, 1, 2, ...).
    interval : int
        Milliseconds per frame when playing.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("frames must not be empty")
    labels = [str(i) for i in range(len(frames))] if labels is None else [str(x) for x in labels]
    if len(labels) != len(frames):
        raise ValueError(f"labels must have one entry per frame ({len(frames)}), got {len(labels)}")
    if len(set(labels)) != len(labels):
        labels = [f"{i}: {lab}" for i, lab in enumerate(labels)]
    stack = W.Stack([W.HTML(f) for f in frames], selected_index=0)
    play = W.Play(
        value=0, min=0, max=len(frames) - 1, step=1, interval=interval, description="play", show_repeat=False
    )
    slider = W.SelectionSlider(
        options=labels,
        index=0,
        description=description,
        continuous_update=True,
        layout=W.Layout(width="min(640px, 90%)"),
        style={"description_width": "initial"},
    )
    W.jslink((play, "value"), (slider, "index"))
    W.jslink((slider, "index"), (stack, "selected_index"))
    return Stepper([W.HBox([play, slider]), stack])


def figure_html(fig, *, dpi: int = 72, close: bool = True, colors: int | None = 48) -> str:
    """A matplotlib figure as an ``<img>`` tag with the PNG inline (for :func:`stepper` frames),
    re-encoded with a palette of ``colors`` colours to keep the saved widget state small."""
    import matplotlib.pyplot as plt

    from .animate import _quantize_png

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    if close:
        plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    if colors:
        data = _quantize_png(data, colors)
    return f'<img src="data:image/png;base64,{data}" style="max-width:100%"/>'


_POS, _NEG = "#0072B2", "#D55E00"


def _cell(value: float, lim: float, bit: int | None) -> str:
    a = 0.15 + 0.85 * min(1.0, abs(value) / lim) if value != 0 else 0.0
    rgb = (0, 114, 178) if value > 0 else (213, 94, 0)
    bg = f"rgba({rgb[0]},{rgb[1]},{rgb[2]},{a:.2f})"
    fg = "white" if a > 0.55 else "black"
    mark = (
        ""
        if bit is None
        else (f'<div style="font-size:9px;color:{_POS if bit else _NEG}">{"▲" if bit else "▼"}</div>')
    )
    return (
        f'<td style="background:{bg};color:{fg};text-align:center;min-width:34px;'
        f'padding:2px 1px;border:1px solid #ccc;font-family:monospace">{mark}{value:g}</td>'
    )


def accumulator_frames(trace, *, per_row: int = 16) -> tuple[list[str], list[str]]:
    """HTML frames (and slider labels) of a :class:`~simhash_lab.Trace`: the accumulator table
    after each feature, with the current feature's hash bits marked (▲ +w, ▼ −w)."""
    bits = trace.bits
    votes = np.asarray(trace.votes, dtype=float)
    lim = max(1.0, float(np.abs(votes).max()))
    per_row = min(per_row, bits)
    frames, labels = [], []
    for j in range(len(trace) + 2):
        step = min(j, len(trace))
        v = votes[step]
        h = int(trace.hashes[j - 1]) if 1 <= j <= len(trace) else None
        if j == 0:
            head = f"Start: V = [0; {bits}]"
            labels.append("start")
        elif j <= len(trace):
            f = trace.features[j - 1]
            head = (
                f"Feature {j}/{len(trace)}: <b>{_html.escape(repr(f))}</b>, weight "
                f"{trace.weights[j - 1]:g}, hash bits <code>{format(h, f'0{bits}b')}</code>"
            )
            labels.append(f)
        else:
            fp = trace.fingerprint
            head = f"Fingerprint (bit i = 1 where V[i] &gt; 0): <code>{format(fp, f'0{bits}b')}</code> = {fp}"
            labels.append("fingerprint")
        rows = []
        for start in range(bits - 1, -1, -per_row):
            idx = list(range(start, max(start - per_row, -1), -1))
            hdr = "".join(f'<th style="font-size:10px;color:#666;font-weight:normal">{i}</th>' for i in idx)
            cells = "".join(_cell(v[i], lim, None if h is None else (h >> i) & 1) for i in idx)
            rows.append(f"<tr><th></th>{hdr}</tr><tr><th style='font-size:11px'>V</th>{cells}</tr>")
            if j == len(trace) + 1:
                fb = "".join(
                    f'<td style="text-align:center;font-family:monospace;font-weight:bold;'
                    f"background:{_POS if v[i] > 0 else 'white'};color:"
                    f'{"white" if v[i] > 0 else "black"};border:1px solid #ccc">'
                    f"{int(v[i] > 0)}</td>"
                    for i in idx
                )
                rows.append(f"<tr><th style='font-size:11px'>bit</th>{fb}</tr>")
        frames.append(
            f'<div style="font-size:14px;margin:4px 0">{head}</div>'
            f'<table style="border-collapse:collapse">{"".join(rows)}</table>'
        )
    return frames, labels


def accumulator_stepper(trace, *, interval: int = 1200) -> Stepper:
    """Step through a trace's votes feature by feature (see :func:`accumulator_frames`)."""
    frames, labels = accumulator_frames(trace)
    return stepper(frames, labels=labels, description="after", interval=interval)


def theta_slider(
    degrees: Sequence[float] = (0, 5, 10, 15, 20, 30, 45, 60, 75, 90, 105, 120, 135, 150, 165, 180),
    *,
    bits: int = 64,
    trials: int = 2000,
    seed: int = 0,
    dpi: int = 72,
    draw: Callable | None = None,
) -> Stepper:
    """A θ slider: for each angle, two unit vectors and the Hamming distances of their
    ``bits``-bit signatures over ``trials`` independent sets of Gaussian hyperplanes, against
    ``E[d_H] = bits·θ/π``. All frames are computed here (seeded), so the slider needs no kernel."""
    import matplotlib.pyplot as plt

    from . import plot as P

    rng = np.random.default_rng(seed)
    frames = []
    for deg in degrees:
        th = np.radians(deg)
        u = np.array([1.0, 0.0])
        v = np.array([np.cos(th), np.sin(th)])
        R = rng.standard_normal((trials, bits, 2))
        d = ((R @ u >= 0) != (R @ v >= 0)).sum(axis=1)
        fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2), gridspec_kw={"width_ratios": [1, 1.8]})
        P.hyperplanes_2d(u, v, R[0, :12], ax=a, title=f"θ = {deg:g}°")
        b.hist(d, bins=np.arange(-0.5, bits + 1.5, 1), color=P.POS, alpha=0.75)
        e = bits * th / np.pi
        b.axvline(
            e, color=P.OKABE_ITO["black"], linestyle="--", linewidth=2, label=f"E[d_H] = {bits}·θ/π = {e:.2f}"
        )
        b.axvline(d.mean(), color=P.NEG, linewidth=2, label=f"measured mean = {d.mean():.2f}")
        b.set_xlim(-1, bits + 1)
        b.set_xlabel(f"Hamming distance of {bits}-bit signatures")
        b.set_ylabel(f"count of {trials} trials")
        b.legend(loc="upper right")
        if draw is not None:
            draw(fig, deg)
        fig.tight_layout()
        frames.append(figure_html(fig, dpi=dpi))
    return stepper(frames, labels=[f"{g:g}°" for g in degrees], description="θ", interval=700)
