"""Animations for the course, built with matplotlib's ``FuncAnimation`` and shown as steppers.

Each builder creates its artists once, updates them frame by frame (``set_height``, ``set_data``,
``set_segments``, ``set_text``) and returns the animation, with two attributes the player reads:
``frame_labels`` (what the slider shows for each frame) and ``frame_durations`` (milliseconds per
frame in the animated image). Show one with :func:`show`: its frames become a
:class:`~simhash_lab.course.widgets.Stepper`, the course's one player, which plays as an animated
image in a notebook just opened (JupyterLab does not run stored JavaScript or widgets until the
notebook is trusted or run) and becomes Play + slider once its cell has run.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from simhash_lab import Simhasher
>>> from simhash_lab.course import animate
>>> t = Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7}).trace("rust safe fast")
>>> anim = animate.accumulators(t)
>>> anim.frame_labels  # empty, one frame per feature, then the fingerprint
['start', 'rust', 'safe', 'fast', 'fingerprint']
>>> player = animate.show(anim)
>>> player.n_frames, player.animation_png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
(5, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import AbstractMovieWriter, FuncAnimation
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.patches import Wedge

from .._i18n import N_, _
from . import plot as P
from .widgets import Stepper, stepper

__all__ = ["frames", "show", "accumulators", "hyperplane_sweep"]

_PALE_NEG = "#EDAA80"  # vermillion blended with white (opaque, so frames compress well)
_PALE_MUTED = "#CCCCCC"


class _Frames(AbstractMovieWriter):
    """A matplotlib movie writer that keeps each frame as an RGB PIL image instead of writing a file."""

    def setup(self, fig, outfile, dpi=None):
        super().setup(fig, outfile, dpi=dpi)
        self.images = []

    def grab_frame(self, **savefig_kwargs):
        import io

        from PIL import Image

        from .widgets import PNG_DESCRIPTION, PNG_TEXT_PX, smallest_text_px

        buf = io.BytesIO()
        self.fig.savefig(buf, format="rgba", dpi=self.dpi, facecolor="white")
        img = Image.frombuffer("RGBA", self.frame_size, buf.getbuffer(), "raw", "RGBA", 0, 1).convert("RGB")
        img.info[PNG_TEXT_PX] = f"{smallest_text_px(self.fig, self.dpi):g}"
        img.info[PNG_DESCRIPTION] = P.alt_text(self.fig)
        self.images.append(img)

    def finish(self):
        pass


def frames(anim: FuncAnimation, *, dpi: float | None = None, close: bool = True) -> list:
    """Every frame of ``anim`` as an RGB PIL image (drawn by matplotlib's own ``Animation.save``),
    at ``dpi`` (default: the figure's own, which the builders here set), with a line of progress
    while they are drawn (:class:`~simhash_lab.course.widgets.Progress`).

    The figure is closed afterwards (so the notebook does not also show its last frame), unless
    ``close=False``."""
    from .widgets import Progress

    writer = _Frames()
    with Progress(_("drawing the frames")) as bar:
        anim.save(
            "frames",
            writer=writer,
            dpi=anim._fig.dpi if dpi is None else dpi,
            progress_callback=lambda i, n: (setattr(bar, "total", n), bar.update(i)),
        )
    if close:
        plt.close(anim._fig)
    return writer.images


def show(
    anim: FuncAnimation,
    *,
    labels: Sequence[str] | None = None,
    durations: Sequence[int] | None = None,
    description: str = N_("frame"),
    dpi: float | None = None,
) -> Stepper:
    """The animation as a :class:`~simhash_lab.course.widgets.Stepper`: the last line of a cell
    shows it (an animated image as opened, Play and a slider after a run).

    ``labels`` and ``durations`` default to the animation's ``frame_labels`` and
    ``frame_durations`` (set by the builders here), then to 1, 2, 3, ... and its interval; its text
    alternative is the animation's ``alt`` (set by the builders here), else what its first frame
    says of itself."""
    images = frames(anim, dpi=dpi)
    labels = labels if labels is not None else getattr(anim, "frame_labels", None)
    durations = durations if durations is not None else getattr(anim, "frame_durations", None)
    return stepper(
        images,
        labels=labels,
        durations=durations,
        interval=int(anim._interval),
        description=description,
        alt=getattr(anim, "alt", None),
    )


def accumulators(
    trace,
    *,
    interval: int = 1000,
    dpi: int = 72,
    figsize=None,
    max_label: int = 18,
    values: bool | None = None,
) -> FuncAnimation:
    """The congress of accumulators filling feature by feature (a :class:`~simhash_lab.Trace`).

    Frame 0 is ``V = 0``; frame j adds feature j's votes: its hash bits are shown on top (blue 1,
    white 0), every bar moves up by its weight where the bit is 1 and down where it is 0, and the
    move is outlined in orange (the part of the bar added, or the empty box of the part taken
    away). Bars whose sign changed in this step (their fingerprint bit flipped) get an orange
    frame in the fingerprint row. The last frame lights the fingerprint's bits (``V[i] > 0`` gives
    1). ``values`` writes each ``V[i]`` on its bar (default: when ``bits <= 16``).
    """
    bits = trace.bits
    m = len(trace)
    votes = np.asarray(trace.votes, dtype=float)
    values = bits <= 16 if values is None else values
    figsize = figsize or ((11, 6.4) if bits > 16 else (8.5, 6.2))
    lim = max(1.0, float(np.abs(votes).max()) * (1.3 if values else 1.15))
    fig = plt.figure(figsize=figsize, dpi=dpi)
    gs = fig.add_gridspec(3, 1, height_ratios=[1, 5, 1], hspace=0.8)  # room for a two-line status
    ax_h, ax_v, ax_f = (fig.add_subplot(g) for g in gs)
    x = np.arange(bits)

    def strip(ax, label):
        im = ax.imshow(
            np.zeros((1, bits)),
            cmap=ListedColormap(["white", "#b9d7ea", P.POS]),
            vmin=0,
            vmax=2,
            aspect="auto",
            extent=(-0.5, bits - 0.5, 0, 1),
        )
        for c in range(bits + 1):
            ax.axvline(c - 0.5, color="#666666", linewidth=0.6)
        ax.set_yticks([0.5], [label])
        ax.tick_params(length=0)
        P.bit_axis(ax, bits)
        ax.set_xlabel("")
        return im

    im_h = strip(ax_h, _("hash bits"))
    im_f = strip(ax_f, _("fingerprint"))
    ax_f.set_xlabel(_("bit index i (most significant on the left)"))
    bars = ax_v.bar(x, np.zeros(bits), color=P.POS, width=0.8)
    moves = ax_v.bar(x, np.zeros(bits), width=0.8, facecolor="none", edgecolor=P.HIGHLIGHT, linewidth=2.2)
    flips = ax_f.bar(
        x, np.ones(bits), bottom=0, width=0.96, facecolor="none", edgecolor=P.HIGHLIGHT, linewidth=3
    )
    labels_v = [ax_v.text(i, 0, "", ha="center", fontsize=13, fontweight="bold") for i in x] if values else []
    ax_v.axhline(0, color="#333333", linewidth=1)
    ax_v.set_ylim(-lim, lim)
    P.bit_axis(ax_v, bits)
    ax_v.set_xlabel("")
    ax_v.set_ylabel(_("accumulator V[i]"))
    title = fig.suptitle("", fontsize=17)
    status = ax_v.set_title("", fontsize=13, loc="left")  # above the bars, never over them
    order = np.arange(bits)[::-1]  # column c shows bit bits-1-c

    def row_of(h):
        return ((np.uint64(h) >> order.astype(np.uint64)) & np.uint64(1)).astype(float)

    def update(frame):
        j = min(frame, m)
        v = votes[j][order]
        before = votes[max(j - 1, 0)][order]
        voting = 1 <= frame <= m
        for b, h in zip(bars, v):
            b.set_height(h)
            b.set_color(P.POS if h > 0 else P.NEG)
        for b, lo, hi in zip(moves, before, v):
            b.set_y(lo)
            b.set_height(hi - lo if voting else 0)
            b.set_visible(voting)
        flipped = (v > 0) != (before > 0)
        for b, f in zip(flips, flipped):
            b.set_visible(bool(voting and f))
        for t, h in zip(labels_v, v):
            t.set_text(f"{h:+g}" if h else "0")
            t.set_y(h + (0.04 if h >= 0 else -0.04) * lim)
            t.set_va("bottom" if h >= 0 else "top")
        sign = (v > 0).astype(float)
        if voting:
            f = trace.features[frame - 1]
            w = trace.weights[frame - 1]
            shown = f if len(f) <= max_label else f[: max_label - 1] + "…"
            title.set_text(
                _("feature {frame}/{m}: {shown!r}, weight {w:g}").format(frame=frame, m=m, shown=shown, w=w)
            )
            im_h.set_data(2 * row_of(trace.hashes[frame - 1])[None, :])
            n_flip = int(flipped.sum())
            status.set_text(
                _("hash bit i = 1: V[i] += {w:g}; = 0: V[i] −= {w:g} (orange box: the move)\n{flips}").format(
                    w=w,
                    flips=(
                        _("{n} fingerprint bit flipped (orange frame)")
                        if n_flip == 1
                        else _("{n} fingerprint bits flipped (orange frame)")
                    ).format(n=n_flip),
                )
            )
            im_f.set_data(sign[None, :])  # pale: the fingerprint so far
        elif frame == 0:
            title.set_text(_("V = [0; {bits}]: every accumulator starts at zero").format(bits=bits))
            status.set_text("")
            im_h.set_data(np.zeros((1, bits)))
            im_f.set_data(np.zeros((1, bits)))
        else:
            im_h.set_data(np.zeros((1, bits)))
            im_f.set_data(2 * sign[None, :])  # lit: every feature has voted
            fp = f"{trace.fingerprint:#0{(bits + 3) // 4 + 2}x}"
            title.set_text(_("fingerprint: bit i = 1 where V[i] > 0  →  {fp}").format(fp=fp))
            status.set_text(_("{ones} of {bits} bits are 1").format(ones=int(sign.sum()), bits=bits))
        return [*bars, *moves, *flips, *labels_v, im_h, im_f, title, status]

    anim = FuncAnimation(fig, update, frames=m + 2, interval=interval, blit=False)
    anim.frame_labels = [_("start"), *[str(f) for f in trace.features], _("fingerprint")]
    anim.frame_durations = [interval] * (m + 1) + [3 * interval]
    anim.alt = _(
        "The {bits} accumulators V[i] as bars, filling as each of the {m} terms votes: its hash bits "
        "on top, +w where a bit is 1 and -w where it is 0; at the end the fingerprint, bit i = 1 "
        "where V[i] > 0: {fp}"
    ).format(bits=bits, m=m, fp=f"{trace.fingerprint:#0{(bits + 3) // 4 + 2}x}")
    return anim


def hyperplane_sweep(
    theta: float = np.pi / 3,
    *,
    n_random: int = 1000,
    sweep_frames: int = 13,
    random_frames: int = 12,
    seed: int = 0,
    dpi: int = 72,
    figsize=(11.5, 5.0),
    interval: int = 450,
    history_lines: int = 20,
) -> FuncAnimation:
    """Charikar's lemma animated: a random line through the origin separates u and v with P = θ/π.

    Part 1 (``sweep_frames``): one line turns through 180°; it is vermillion exactly while it
    lies inside the angle between u and v, which is θ out of π. Part 2 (``random_frames``): lines
    at uniformly random angles (``seed``), ``n_random`` in all; the separating ones are counted
    and the running fraction (right) converges to θ/π; the last ``history_lines`` stay drawn.
    """
    rng = np.random.default_rng(seed)
    phis = rng.uniform(0, np.pi, n_random)  # direction of each random line
    normals = np.stack([np.cos(phis + np.pi / 2), np.sin(phis + np.pi / 2)], axis=1)
    u = np.array([np.cos(0.35), np.sin(0.35)])
    v = np.array([np.cos(0.35 + theta), np.sin(0.35 + theta)])
    sep = np.array([P.separates(u, v, r) for r in normals])
    running = np.cumsum(sep) / np.arange(1, n_random + 1)
    counts = np.unique(np.geomspace(1, n_random, random_frames).round().astype(int))
    random_frames = counts.size

    fig, (ax, ax_r) = plt.subplots(1, 2, figsize=figsize, dpi=dpi, gridspec_kw={"width_ratios": [1, 1.35]})
    P.hyperplanes_2d(u, v, ax=ax)
    history = LineCollection([], linewidths=1.0)  # opaque pale colours: PNG frames stay small
    ax.add_collection(history)
    (cur,) = ax.plot([], [], color=P.OKABE_ITO["black"], linewidth=3.5)
    arc = Wedge((0, 0), 1.0, 0, 0, width=0.08, color=P.NEG, alpha=0.8)
    ax.add_patch(arc)
    label = ax.text(0, -1.38, "", ha="center", va="top", fontsize=13)
    ax.set_ylim(-1.75, 1.3)
    ax.set_title(f"θ = {np.degrees(theta):.0f}°")

    ax_r.axhline(
        theta / np.pi,
        color=P.OKABE_ITO["black"],
        linestyle="--",
        linewidth=1.5,
        label=f"θ/π = {theta / np.pi:.3f}",
    )
    (run_line,) = ax_r.plot([], [], color=P.NEG, label=_("fraction of random lines that separate"))
    ax_r.set_xscale("log")
    ax_r.set_xlim(1, n_random)
    ax_r.set_ylim(0, 1)
    ax_r.set_xlabel(_("random lines drawn (log scale)"))
    ax_r.set_ylabel(_("fraction separating u and v"))
    ax_r.legend(loc="upper right")
    fig.tight_layout()
    a0 = np.degrees(0.35)

    def update(frame):
        if frame < sweep_frames:
            phi = np.pi * frame / (sweep_frames - 1)
            n = np.array([np.cos(phi + np.pi / 2), np.sin(phi + np.pi / 2)])
            seg = P.hyperplane_line(n)
            cur.set_data(seg[:, 0], seg[:, 1])
            s = P.separates(u, v, n)
            cur.set_color(P.NEG if s else P.OKABE_ITO["black"])
            deg = np.degrees(phi)
            # the part of the sweep so far that lies inside the angle (u, v)
            inside_end = min(max(deg, a0), a0 + np.degrees(theta))
            arc.set_theta1(a0)
            arc.set_theta2(inside_end)
            label.set_text(
                _(
                    "line at {deg:.0f}° of 180°: {side}\n(it separates for {theta:.0f}° of the 180° turn)"
                ).format(deg=deg, side=_("SEPARATES") if s else _("same side"), theta=np.degrees(theta))
            )
        else:
            k = counts[frame - sweep_frames]
            first = max(0, k - history_lines)
            history.set_segments([P.hyperplane_line(r) for r in normals[first:k]])
            history.set_colors([_PALE_NEG if s else _PALE_MUTED for s in sep[first:k]])
            seg = P.hyperplane_line(normals[k - 1])
            cur.set_data(seg[:, 0], seg[:, 1])
            cur.set_color(P.OKABE_ITO["black"])
            arc.set_theta2(a0)
            run_line.set_data(np.arange(1, k + 1), running[:k])
            label.set_text(
                _(
                    "{sep} of {k} random lines separate u and v\nfraction {frac:.3f}  (θ/π = {ratio:.3f})"
                ).format(sep=int(sep[:k].sum()), k=k, frac=running[k - 1], ratio=theta / np.pi)
            )
        return [cur, history, arc, label, run_line]

    anim = FuncAnimation(fig, update, frames=sweep_frames + random_frames, interval=interval, blit=False)
    sweep_deg = [180 * f / (sweep_frames - 1) for f in range(sweep_frames)]
    anim.frame_labels = [_("line at {d:.0f}°").format(d=d) for d in sweep_deg] + [
        _("{k} random").format(k=k) for k in counts
    ]
    anim.frame_durations = [interval] * (sweep_frames + random_frames - 1) + [4 * interval]
    anim.alt = _(
        "Two vectors u and v at {theta:.0f}° on a circle. First one line through the origin turns "
        "through 180° and separates them while it lies inside their angle; then {n} random lines, "
        "and the running fraction of those that separate u and v approaches θ/π = {ratio:.3f} "
        "(measured: {frac:.3f})"
    ).format(theta=np.degrees(theta), n=n_random, ratio=theta / np.pi, frac=running[-1])
    return anim
