"""Animations for the course, built with matplotlib's ``FuncAnimation``.

Each builder creates its artists once, updates them frame by frame (``set_height``, ``set_data``,
``set_segments``, ``set_text``) and returns the animation. Show one in a notebook with
:func:`show`, which embeds it as JavaScript HTML (``to_jshtml``), so it plays in a static render
(GitHub, nbviewer, an HTML export) with no kernel, and which gives the player a stable id so a
re-run produces the same HTML.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from simhash_lab import Simhasher
>>> from simhash_lab.course import animate
>>> t = Simhasher(bits=4, hash={"rust": 3, "safe": 5, "fast": 7}).trace("rust safe fast")
>>> anim = animate.accumulators(t)
>>> anim._save_count  # empty, one frame per feature, then the final bits held
7
>>> html = animate.to_jshtml(anim, "toy")  # stable ids: the same HTML on every run
>>> "toy" not in html and html.count("data:image/png") == 7
True
"""

from __future__ import annotations

import base64
import hashlib
import io
import re

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.animation import FuncAnimation
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap
from matplotlib.patches import Wedge

from . import plot as P

__all__ = ["to_jshtml", "show", "accumulators", "hyperplane_sweep"]

_PALE_NEG = "#EDAA80"  # vermillion blended with white (opaque, so frames compress well)
_PALE_MUTED = "#CCCCCC"


def _quantize_png(b64: str, colors: int) -> str:
    """A base64 PNG re-encoded with an adaptive palette of ``colors`` (no dithering): line art
    keeps its look and the frame shrinks several times."""
    from PIL import Image

    img = Image.open(io.BytesIO(base64.b64decode(b64))).convert("RGB")
    pal = img.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    pal.save(out, format="PNG", optimize=True)
    return base64.b64encode(out.getvalue()).decode("ascii")


def to_jshtml(
    anim: FuncAnimation,
    name: str = "anim",
    *,
    default_mode: str = "once",
    close: bool = True,
    colors: int | None = 48,
) -> str:
    """``anim.to_jshtml()`` with its random element ids replaced by ids derived from ``name``.

    Give each animation in a notebook its own ``name``. The figure is closed afterwards (so the
    notebook does not also show its last frame), unless ``close=False``. Frames are re-encoded
    with a palette of ``colors`` colours to keep notebooks small (``None``: leave them as they are).
    """
    html = anim.to_jshtml(default_mode=default_mode)
    stable = hashlib.md5(name.encode("utf-8")).hexdigest()
    html = re.sub(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])", stable, html)
    if colors:
        # to_jshtml wraps each frame's base64 in backslash-newline continuations
        html = re.sub(
            r"(data:image/png;base64,)([A-Za-z0-9+/=\\\n]+)",
            lambda m: m.group(1) + _quantize_png(re.sub(r"[\\\n]", "", m.group(2)), colors),
            html,
        )
    if close:
        plt.close(anim._fig)
    return html


def show(anim: FuncAnimation, name: str = "anim", **kwargs):
    """The animation as an ``IPython.display.HTML`` object: the last line of a cell shows it."""
    from IPython.display import HTML

    return HTML(to_jshtml(anim, name, **kwargs))


def accumulators(
    trace, *, interval: int = 900, hold: int = 3, dpi: int = 72, figsize=(11, 6.4), max_label: int = 18
) -> FuncAnimation:
    """The congress of accumulators filling feature by feature (a :class:`~simhash_lab.Trace`).

    Frame 0 is ``V = 0``; frame j adds feature j's votes: its hash bits are shown on top (blue 1,
    white 0), every bar moves up by its weight where the bit is 1 and down where it is 0; the
    last ``hold`` frames light the fingerprint's bits (``V[i] > 0`` gives 1).
    """
    bits = trace.bits
    m = len(trace)
    votes = np.asarray(trace.votes, dtype=float)
    lim = max(1.0, float(np.abs(votes).max()) * 1.15)
    fig = plt.figure(figsize=figsize, dpi=dpi)
    gs = fig.add_gridspec(3, 1, height_ratios=[1, 5, 1], hspace=0.55)
    ax_h, ax_v, ax_f = (fig.add_subplot(g) for g in gs)

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
        P._bit_axis(ax, bits)
        ax.set_xlabel("")
        return im

    im_h = strip(ax_h, "hash bits")
    im_f = strip(ax_f, "fingerprint")
    ax_f.set_xlabel("bit index i (most significant on the left)")
    bars = ax_v.bar(np.arange(bits), np.zeros(bits), color=P.POS, width=0.8)
    ax_v.axhline(0, color="#333333", linewidth=1)
    ax_v.set_ylim(-lim, lim)
    P._bit_axis(ax_v, bits)
    ax_v.set_xlabel("")
    ax_v.set_ylabel("accumulator V[i]")
    title = fig.suptitle("", fontsize=17)
    status = ax_v.text(0.01, 0.97, "", transform=ax_v.transAxes, va="top", fontsize=13)
    order = np.arange(bits)[::-1]  # column c shows bit bits-1-c

    def row_of(x):
        return ((np.uint64(x) >> order.astype(np.uint64)) & np.uint64(1)).astype(float)

    def update(frame):
        j = min(frame, m)
        v = votes[j][order]
        for b, h in zip(bars, v):
            b.set_height(h)
            b.set_color(P.POS if h > 0 else P.NEG)
        if 1 <= frame <= m:
            f = trace.features[frame - 1]
            w = trace.weights[frame - 1]
            shown = f if len(f) <= max_label else f[: max_label - 1] + "…"
            title.set_text(f"feature {frame}/{m}: {shown!r}   weight {w:g}")
            im_h.set_data(2 * row_of(trace.hashes[frame - 1])[None, :])
            status.set_text(f"bit 1 → V[i] += {w:g}     bit 0 → V[i] −= {w:g}")
        else:
            im_h.set_data(np.zeros((1, bits)))
        if frame == 0:
            title.set_text(f"V = [0; {bits}]: every accumulator starts at zero")
            status.set_text("")
        # the fingerprint row: pale while voting, lit once every feature has voted
        sign = (v > 0).astype(float)
        if frame > m:
            im_f.set_data(2 * sign[None, :])
            title.set_text(
                f"fingerprint: bit i = 1 where V[i] > 0  →  0x{trace.fingerprint:0{(bits + 3) // 4}x}"
            )
            status.set_text(f"{int(sign.sum())} of {bits} bits are 1")
        else:
            im_f.set_data(sign[None, :])
        return [*bars, im_h, im_f, title, status]

    anim = FuncAnimation(fig, update, frames=m + 1 + hold, interval=interval, blit=False)
    return anim


def hyperplane_sweep(
    theta: float = np.pi / 3,
    *,
    n_random: int = 1000,
    sweep_frames: int = 24,
    random_frames: int = 40,
    seed: int = 0,
    dpi: int = 72,
    figsize=(12, 5.4),
    interval: int = 250,
    history_lines: int = 40,
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
    counts = np.unique(np.linspace(1, n_random, random_frames).round().astype(int))
    random_frames = counts.size

    fig, (ax, ax_r) = plt.subplots(1, 2, figsize=figsize, dpi=dpi, gridspec_kw={"width_ratios": [1, 1.35]})
    P.hyperplanes_2d(u, v, ax=ax)
    history = LineCollection([], linewidths=1.0)  # opaque pale colours: PNG frames stay small
    ax.add_collection(history)
    (cur,) = ax.plot([], [], color=P.OKABE_ITO["black"], linewidth=3.5)
    arc = Wedge((0, 0), 1.0, 0, 0, width=0.08, color=P.NEG, alpha=0.8)
    ax.add_patch(arc)
    label = ax.text(0, -1.38, "", ha="center", va="top", fontsize=12)
    ax.set_ylim(-1.75, 1.3)
    ax.set_title(f"θ = {np.degrees(theta):.0f}°")

    ax_r.axhline(
        theta / np.pi,
        color=P.OKABE_ITO["black"],
        linestyle="--",
        linewidth=1.5,
        label=f"θ/π = {theta / np.pi:.3f}",
    )
    (run_line,) = ax_r.plot([], [], color=P.NEG, label="fraction of random lines that separate")
    ax_r.set_xscale("log")
    ax_r.set_xlim(1, n_random)
    ax_r.set_ylim(0, 1)
    ax_r.set_xlabel("random lines drawn (log scale)")
    ax_r.set_ylabel("fraction separating u and v")
    ax_r.legend(loc="upper right")
    fig.tight_layout()
    a0 = np.degrees(0.35)

    def update(frame):
        if frame < sweep_frames:
            phi = np.pi * frame / (sweep_frames - 1)
            n = np.array([np.cos(phi + np.pi / 2), np.sin(phi + np.pi / 2)])
            seg = P._line(n)
            cur.set_data(seg[:, 0], seg[:, 1])
            s = P.separates(u, v, n)
            cur.set_color(P.NEG if s else P.OKABE_ITO["black"])
            arc.set_theta1(0)
            deg = np.degrees(phi)
            # the part of the sweep so far that lies inside the angle (u, v)
            inside_end = min(max(deg, a0), a0 + np.degrees(theta))
            arc.set_theta1(a0)
            arc.set_theta2(inside_end)
            label.set_text(
                f"line at {deg:.0f}° of 180°: {'SEPARATES' if s else 'same side'}\n"
                f"(it separates for {np.degrees(theta):.0f}° of the 180° turn)"
            )
        else:
            k = counts[frame - sweep_frames]
            first = max(0, k - history_lines)
            segs = [P._line(r) for r in normals[first:k]]
            history.set_segments(segs)
            history.set_colors([_PALE_NEG if s else _PALE_MUTED for s in sep[first:k]])
            seg = P._line(normals[k - 1])
            cur.set_data(seg[:, 0], seg[:, 1])
            cur.set_color(P.OKABE_ITO["black"])
            arc.set_theta2(a0)
            run_line.set_data(np.arange(1, k + 1), running[:k])
            label.set_text(
                f"{int(sep[:k].sum())} of {k} random lines separate u and v\n"
                f"fraction {running[k - 1]:.3f}  (θ/π = {theta / np.pi:.3f})"
            )
        return [cur, history, arc, label, run_line]

    return FuncAnimation(fig, update, frames=sweep_frames + random_frames, interval=interval, blit=False)
