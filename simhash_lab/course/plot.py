"""Static figures for the course: bits, votes, avalanches, hyperplanes, pigeonholes, benchmarks.

Every helper takes ``ax=None`` (then draws on ``plt.gca()``) and returns the axes it drew on, so
figures compose: ``fig, (a, b) = plt.subplots(1, 2); plot.bit_rows([...], 8, ax=a)``.

Colours are the Okabe-Ito palette (safe for the common colour-vision deficiencies, and it survives
a greyscale projector). One meaning per colour across the course:

* ``POS`` (blue): a +w vote, a bit that is 1, an untouched block, "same";
* ``NEG`` (vermillion): a -w vote, a flipped bit, "different";
* ``HIGHLIGHT`` (orange): the thing to look at now (the current token, the current hyperplane);
* ``MUTED`` (grey): context;
* ``NEAR`` (green, also ``ACCENT``) and ``FAR`` (purple): pairs of documents that are
  near-duplicates, and pairs that are unrelated (so histograms of pairs never reuse the colours
  of votes and bits).

Importing this module imports matplotlib; ``import simhash_lab`` does not.

>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from simhash_lab.course import plot
>>> ax = plot.bit_rows([("a", 0b1001), ("b", 0b1010)], bits=4)
>>> [t.get_text() for t in ax.get_yticklabels()]
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.patches import Rectangle, Wedge

__all__ = [
    "OKABE_ITO",
    "POS",
    "NEG",
    "HIGHLIGHT",
    "MUTED",
    "ACCENT",
    "NEAR",
    "FAR",
    "course_style",
    "use_course_style",
    "bit_string",
    "bit_rows",
    "accumulator_bars",
    "avalanche_hist",
    "lsh_sensitivity",
    "benchmark_bars",
    "hyperplanes_2d",
    "hyperplane_3d",
    "hamming_vs_angle",
    "pigeonhole",
    "scaling",
    # notebook 01
    "amplification",
    # notebook 02
    "distance_hists",
    # notebook 04
    "theta_frame",
    "dense_tradeoff",
]

OKABE_ITO = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
}
POS = OKABE_ITO["blue"]
NEG = OKABE_ITO["vermillion"]
HIGHLIGHT = OKABE_ITO["orange"]
ACCENT = OKABE_ITO["green"]
MUTED = "#999999"
NEAR = ACCENT
FAR = OKABE_ITO["purple"]
_CYCLE = [POS, NEG, ACCENT, HIGHLIGHT, OKABE_ITO["purple"], OKABE_ITO["sky"], OKABE_ITO["black"]]


def course_style() -> dict:
    """rcParams for the course: projector-readable sizes, Okabe-Ito colour cycle, light grid."""
    from cycler import cycler

    return {
        "figure.figsize": (9.0, 4.5),
        "figure.dpi": 100,
        "savefig.dpi": 100,
        "font.size": 14,
        "axes.titlesize": 16,
        "axes.labelsize": 14,
        "xtick.labelsize": 12,
        "ytick.labelsize": 12,
        "legend.fontsize": 12,
        "axes.prop_cycle": cycler(color=_CYCLE),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": False,
        "grid.alpha": 0.3,
        "lines.linewidth": 2.2,
        "animation.embed_limit": 40.0,
        "svg.hashsalt": "simhash-lab",
    }


def use_course_style() -> None:
    """Apply :func:`course_style` to ``plt.rcParams`` (call it once, at the top of a notebook)."""
    plt.rcParams.update(course_style())


def bit_string(x: int, bits: int, group: int = 0) -> str:
    """``x`` in binary, most significant bit first (as the session writes ``...0111``).

    >>> bit_string(0b0111, 4)
    '0111'
    >>> bit_string(0xF00F, 16, group=4)
    '1111 0000 0000 1111'
    """
    s = format(int(x), f"0{bits}b")
    if group:
        s = " ".join(s[i : i + group] for i in range(0, bits, group))
    return s


def _ax(ax):
    return plt.gca() if ax is None else ax


def bit_rows(
    rows: Sequence[tuple[str, int]],
    bits: int,
    ax=None,
    *,
    highlight: int = 0,
    show_digits: bool | None = None,
    index_labels: bool | None = None,
    title: str = "",
):
    """Draw fingerprints as rows of cells, most significant bit on the left.

    Parameters
    ----------
    rows : sequence of (label, int)
        One row per value; 1-bits are filled blue, 0-bits left white.
    bits : int
        Cells per row.
    highlight : int
        A mask: its 1-bit columns get a vermillion frame (the bits that differ, say).
    show_digits : bool, optional
        Write 0/1 in the cells (default: when ``bits <= 24``).
    index_labels : bool, optional
        Number the columns with bit indices (default: when ``bits <= 24``).
    """
    ax = _ax(ax)
    show_digits = bits <= 24 if show_digits is None else show_digits
    index_labels = bits <= 24 if index_labels is None else index_labels
    n = len(rows)
    for r, (_, value) in enumerate(rows):
        y = n - 1 - r
        for col in range(bits):
            bit = bits - 1 - col
            on = (int(value) >> bit) & 1
            ax.add_patch(
                Rectangle(
                    (col, y + 0.08),
                    0.92,
                    0.84,
                    facecolor=POS if on else "white",
                    edgecolor="#444444",
                    linewidth=0.8,
                )
            )
            if show_digits:
                ax.text(
                    col + 0.46,
                    y + 0.5,
                    str(on),
                    ha="center",
                    va="center",
                    color="white" if on else "#333333",
                    fontsize=13,
                    fontweight="bold",
                )
            if (int(highlight) >> bit) & 1:
                ax.add_patch(
                    Rectangle((col - 0.02, y + 0.04), 0.96, 0.92, fill=False, edgecolor=NEG, linewidth=3)
                )
    ax.set_xlim(-0.2, bits + 0.1)
    ax.set_ylim(-0.1, n + 0.1)
    ax.set_yticks([n - 1 - r + 0.5 for r in range(n)], [lab for lab, _ in rows])
    if index_labels:
        ax.set_xticks([c + 0.46 for c in range(bits)], [str(bits - 1 - c) for c in range(bits)])
        ax.set_xlabel("bit index (most significant on the left)")
    else:
        step = 8 if bits > 16 else 4
        cols = [c for c in range(bits) if (bits - 1 - c) % step == 0]
        ax.set_xticks([c + 0.46 for c in cols], [str(bits - 1 - c) for c in cols])
        ax.set_xlabel("bit index")
    ax.tick_params(length=0)
    for side in ("left", "bottom", "top", "right"):
        ax.spines[side].set_visible(False)
    ax.set_aspect("equal" if bits <= 24 else "auto")
    if title:
        ax.set_title(title)
    return ax


def accumulator_bars(
    votes, ax=None, *, highlight_bits: int | None = None, ylim=None, title: str = "", msb_left: bool = True
):
    """The accumulators ``V`` as bars: blue above zero (bit becomes 1), vermillion at or below.

    Parameters
    ----------
    votes : array_like, shape (bits,)
        ``V[i]`` for bit i (``Trace.votes[j]``).
    highlight_bits : int, optional
        The current token's hash: its 1-bits get a blue ▲ (vote +w) at the top, its 0-bits a
        vermillion ▼ (vote −w) at the bottom.
    msb_left : bool
        Draw bit ``bits-1`` on the left, as binary numbers are written.
    """
    ax = _ax(ax)
    v = np.asarray(votes, dtype=float)
    bits = v.size
    x = np.arange(bits)
    vals = v[::-1] if msb_left else v
    ax.bar(x, vals, color=np.where(vals > 0, POS, NEG), width=0.8)
    ax.axhline(0, color="#333333", linewidth=1)
    lim = ylim if ylim is not None else max(1.0, float(np.abs(v).max()) * 1.15)
    ax.set_ylim(-lim, lim)
    _bit_axis(ax, bits, msb_left)
    ax.set_ylabel("accumulator V[i]")
    if highlight_bits is not None:
        idx = np.arange(bits)[::-1] if msb_left else np.arange(bits)
        on = ((int(highlight_bits) >> idx) & 1).astype(bool)
        ax.scatter(x[on], np.full(on.sum(), lim * 0.92), marker="^", color=POS, s=40)
        ax.scatter(x[~on], np.full((~on).sum(), -lim * 0.92), marker="v", color=NEG, s=40)
    if title:
        ax.set_title(title)
    return ax


def _bit_axis(ax, bits, msb_left=True):
    ax.set_xlim(-0.7, bits - 0.3)
    step = 1 if bits <= 16 else 8
    ticks = [c for c in range(bits) if (bits - 1 - c if msb_left else c) % step == 0]
    ax.set_xticks(ticks, [str(bits - 1 - c if msb_left else c) for c in ticks])
    ax.set_xlabel("bit index i" + (" (most significant on the left)" if msb_left else ""))


def avalanche_hist(flips: Mapping[str, np.ndarray], ax=None, *, bins: int = 40, title: str = ""):
    """Histograms of the fraction of output bits that flipped, one per hash function.

    Parameters
    ----------
    flips : mapping name -> array of fractions in [0, 1]
        For each edit, ``hamming(h(a), h(b)) / bits``.
    """
    ax = _ax(ax)
    edges = np.linspace(0, 0.7, bins + 1)
    colors = [OKABE_ITO["purple"], NEG, POS, ACCENT, HIGHLIGHT]
    for (name, f), c in zip(flips.items(), colors):
        f = np.asarray(f, dtype=float)
        ax.hist(f, bins=edges, color=c, alpha=0.55, label=f"{name} (mean {f.mean():.0%})")
        ax.hist(f, bins=edges, color=c, histtype="step", linewidth=2)
    ax.axvline(0.5, color="#333333", linestyle="--", linewidth=1.2)
    ax.text(0.505, ax.get_ylim()[1] * 0.95, "50%: a coin flip", va="top", fontsize=12)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda x, _: f"{x:.0%}"))
    ax.set_xlabel("bits of the hash that changed")
    ax.set_ylabel("number of edits")
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, 0.85))
    if title:
        ax.set_title(title)
    return ax


def lsh_sensitivity(
    d1: float,
    d2: float,
    p1: float,
    p2: float,
    distance=None,
    prob=None,
    ax=None,
    *,
    xlabel: str = "distance d(x, y)",
    unit: str = "",
    title: str = "",
):
    """The (d1, d2, p1, p2)-sensitive definition drawn: collision probability against distance.

    ``distance``/``prob`` (arrays) draw a family's actual curve; the shaded boxes are what the
    definition demands: at distance <= d1 the curve must stay above p1 (green), at >= d2 below p2
    (purple). The axes carry numbers, with d1, d2, p1 and p2 marked by dotted guides and named on
    the axes; the box labels sit where the curve is not.
    """
    ax = _ax(ax)
    if distance is not None:
        ax.plot(distance, prob, color=POS, label="P(h(x) = h(y)) of this family", zorder=3)
    xmax = ax.get_xlim()[1] if distance is None else float(np.max(distance))
    ax.add_patch(Rectangle((0, p1), d1, 1 - p1, color=NEAR, alpha=0.18))
    ax.add_patch(Rectangle((d2, 0), xmax - d2, p2, color=FAR, alpha=0.18))
    ax.plot([0, d1], [p1, p1], color=NEAR, linewidth=2)
    ax.plot([d1, d1], [p1, 1], color=NEAR, linewidth=2)
    ax.plot([d2, xmax], [p2, p2], color=FAR, linewidth=2)
    ax.plot([d2, d2], [0, p2], color=FAR, linewidth=2)
    for x in (d1, d2):
        ax.axvline(x, color=MUTED, linestyle=":", linewidth=1, zorder=1)
    for y in (p1, p2):
        ax.axhline(y, color=MUTED, linestyle=":", linewidth=1, zorder=1)
    # labels in the empty corners: above the curve on the left is inside the green box's band
    ax.annotate(
        f"close (d ≤ d1):\nmust have P ≥ p1 = {p1:.2f}",
        xy=(d1 / 2, (1 + p1) / 2),
        xytext=(d1 + 0.03 * xmax, 0.3),
        color=NEAR,
        fontsize=12,
        fontweight="bold",
        va="center",
        arrowprops=dict(arrowstyle="->", color=NEAR),
    )
    ax.text(
        d2 + 0.02 * xmax,
        p2 + 0.1,
        f"far (d ≥ d2): must have P ≤ p2 = {p2:.2f}",
        color=FAR,
        fontsize=12,
        fontweight="bold",
        va="bottom",
    )
    sec = ax.secondary_xaxis("top")
    sec.set_xticks([d1, d2], [f"d1 = {d1:g}{unit}", f"d2 = {d2:g}{unit}"])
    sec.tick_params(length=0)
    secy = ax.secondary_yaxis("right")
    secy.set_yticks([p2, p1], [f"p2 = {p2:.2f}", f"p1 = {p1:.2f}"])
    secy.tick_params(length=0)
    ax.set_xlim(0, xmax)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("P(h(x) = h(y))")
    if distance is not None:
        ax.legend(loc="lower left")
    if title:
        ax.set_title(title, pad=28)
    return ax


def benchmark_bars(
    results: Mapping[str, float],
    ax=None,
    *,
    unit: str = "ns per fingerprint pair",
    log: bool = True,
    highlight: Sequence[str] = (),
    title: str = "",
):
    """Horizontal bars of a benchmark (lower is better), fastest at the bottom, values written."""
    ax = _ax(ax)
    items = sorted(results.items(), key=lambda kv: -kv[1])
    names = [k for k, _ in items]
    vals = np.array([v for _, v in items], dtype=float)
    colors = [HIGHLIGHT if n in highlight else POS for n in names]
    ax.barh(np.arange(len(names)), vals, color=colors)
    ax.set_yticks(np.arange(len(names)), names)
    if log:
        ax.set_xscale("log")
    for i, v in enumerate(vals):
        ax.text(
            v * (1.08 if log else 1.01), i, f"{v:,.0f}" if v >= 100 else f"{v:.3g}", va="center", fontsize=12
        )
    ax.set_xlim(right=vals.max() * (6 if log else 1.2))
    ax.set_xlabel(f"{unit} (lower is better{', log scale' if log else ''})")
    if title:
        ax.set_title(title)
    return ax


def _line(normal, r=1.25):
    """Endpoints of the line through the origin perpendicular to ``normal`` (2-D)."""
    n = np.asarray(normal, dtype=float)
    d = np.array([-n[1], n[0]]) / np.linalg.norm(n)
    return np.array([-r * d, r * d])


def separates(u, v, normal) -> bool:
    """True when the hyperplane with this normal puts u and v on different sides (sign rule >= 0)."""
    return (np.dot(u, normal) >= 0) != (np.dot(v, normal) >= 0)


def hyperplanes_2d(u, v, normals=(), ax=None, *, show_normals: bool = False, title: str = ""):
    """Two vectors, the angle between them, and hyperplanes (lines) through the origin.

    A line that separates u from v is drawn in vermillion, one that does not in grey.
    """
    ax = _ax(ax)
    u = np.asarray(u, float) / np.linalg.norm(u)
    v = np.asarray(v, float) / np.linalg.norm(v)
    ax.add_patch(plt.Circle((0, 0), 1, fill=False, color="#bbbbbb", linewidth=1))
    a1, a2 = np.degrees(np.arctan2(u[1], u[0])), np.degrees(np.arctan2(v[1], v[0]))
    lo, hi = (a1, a2) if (a2 - a1) % 360 <= 180 else (a2, a1)
    ax.add_patch(Wedge((0, 0), 0.35, lo, hi if hi >= lo else hi + 360, color=HIGHLIGHT, alpha=0.35))
    segs, cols = [], []
    for n in normals:
        segs.append(_line(n))
        cols.append(NEG if separates(u, v, n) else MUTED)
    if segs:
        ax.add_collection(LineCollection(segs, colors=cols, linewidths=1.5, alpha=0.8))
        if show_normals:
            for n in normals:
                n = np.asarray(n, float) / np.linalg.norm(n)
                ax.annotate(
                    "",
                    xy=0.6 * n,
                    xytext=(0, 0),
                    arrowprops=dict(arrowstyle="->", color=MUTED, linestyle=":"),
                )
    gap = np.degrees(np.arccos(np.clip(u @ v, -1, 1)))
    for vec in (u, v):
        ax.annotate(
            "",
            xy=vec,
            xytext=(0, 0),
            arrowprops=dict(arrowstyle="-|>", color=OKABE_ITO["black"], linewidth=2.5, mutation_scale=18),
        )
    if gap < 12:  # the arrows (nearly) coincide: one label for both
        ax.text(
            *(1.16 * u),
            "u = v" if gap < 0.5 else "u ≈ v",
            fontsize=16,
            fontweight="bold",
            ha="left",
            va="center",
        )
    else:
        for vec, name in ((u, "u"), (v, "v")):
            ax.text(*(1.14 * vec), name, fontsize=16, fontweight="bold", ha="center", va="center")
    ax.set_xlim(-1.3, 1.3)
    ax.set_ylim(-1.3, 1.3)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    if title:
        ax.set_title(title)
    return ax


def hyperplane_3d(u, v, normal, ax=None, *, view: tuple | None = None, title: str = ""):
    """Two 3-D vectors and one random plane through the origin (needs a 3-D axes; made if None).

    What decides the bit is the side of the plane each vector is on, the sign of ``r · x``: each
    tip gets a dashed drop line to the plane and its sign is written in the corner. The plane cuts
    the plane of u and v in a line through the origin (black): the 2-D picture of notebook 04,
    where the plane separates u and v exactly when that line passes between them (orange arc).
    ``view`` = (elevation, azimuth) in degrees; by default the camera is 30° above the plane,
    looking square to the middle direction of u and v, so both arrows show at length and the
    plane between or below them is seen from its edge.
    """
    if ax is None:
        ax = plt.gcf().add_subplot(projection="3d")
    u = np.asarray(u, float) / np.linalg.norm(u)
    v = np.asarray(v, float) / np.linalg.norm(v)
    n = np.asarray(normal, float) / np.linalg.norm(normal)
    e1 = np.cross(n, [1.0, 0, 0] if abs(n[0]) < 0.9 else [0, 1.0, 0])
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(n, e1)
    s, t = np.meshgrid(np.linspace(-1.1, 1.1, 2), np.linspace(-1.1, 1.1, 2))
    P = s[..., None] * e1 + t[..., None] * e2
    sep = separates(u, v, n)
    ax.plot_surface(P[..., 0], P[..., 1], P[..., 2], color=NEG if sep else MUTED, alpha=0.22, shade=False)
    # where the plane meets the plane of u and v: a line through the origin
    m = np.cross(n, np.cross(u, v))
    if np.linalg.norm(m) > 1e-9:
        m /= np.linalg.norm(m)
        ax.plot(*np.array([-1.1 * m, 1.1 * m]).T, color=OKABE_ITO["black"], linewidth=2)
    arc = np.array(
        [
            np.cos(a) * u + np.sin(a) * _unit(v - (v @ u) * u)
            for a in np.linspace(0, np.arccos(np.clip(u @ v, -1, 1)), 30)
        ]
    )
    ax.plot(*(0.35 * arc).T, color=HIGHLIGHT, linewidth=4)
    lines = []
    for vec, name, c in ((u, "u", POS), (v, "v", ACCENT)):
        ax.quiver(0, 0, 0, *vec, color=c, linewidth=3, arrow_length_ratio=0.12)
        ax.text(*(1.15 * vec), name, fontsize=16, fontweight="bold", color=c)
        h = float(vec @ n)
        foot = vec - h * n
        ax.plot(*np.array([vec, foot]).T, color=c, linestyle="--", linewidth=1.5)
        lines.append(f"r·{name} = {h:+.2f}: {'above' if h >= 0 else 'below'}")
    ax.quiver(0, 0, 0, *(0.7 * n), color=HIGHLIGHT, linewidth=2, arrow_length_ratio=0.15)
    ax.text(*(0.8 * n), "r", fontsize=15, color=HIGHLIGHT, fontweight="bold")
    ax.text2D(0.02, 0.02, "\n".join(lines), transform=ax.transAxes, fontsize=12, va="bottom")
    for setter in (ax.set_xlim, ax.set_ylim, ax.set_zlim):
        setter(-1, 1)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_zticks([])
    if view is None:
        bis = u + v - ((u + v) @ n) * n  # u and v's middle direction, along the plane
        d = _unit(np.cos(np.radians(30)) * _unit(np.cross(n, bis)) + np.sin(np.radians(30)) * n)
        view = (np.degrees(np.arcsin(d[2])), np.degrees(np.arctan2(d[1], d[0])))
    if view is not None:
        ax.view_init(elev=view[0], azim=view[1])
    ax.set_title(title or ("this plane separates u and v" if sep else "u and v on the same side"))
    return ax


def _unit(x):
    x = np.asarray(x, float)
    nx = np.linalg.norm(x)
    return x / nx if nx else x


def hamming_vs_angle(
    theta,
    dist,
    bits: int = 64,
    ax=None,
    *,
    bins: int = 18,
    label: str = "measured",
    color: str = POS,
    scatter: bool = True,
    impossible_beyond: float | None = None,
    title: str = "",
):
    """Measured Hamming distance against angle, with the theory line ``bits * theta / pi``.

    ``impossible_beyond`` (degrees) shades the angles the data cannot reach, with a note (for
    vectors with no negative coordinates, such as term counts, angles beyond 90°).

    Parameters
    ----------
    theta : array_like, radians
    dist : array_like
        Hamming distance of each pair's signatures.
    bins : int
        Angle bins for the mean and the ±1 standard deviation band.
    """
    ax = _ax(ax)
    th = np.degrees(np.asarray(theta, dtype=float))
    d = np.asarray(dist, dtype=float)
    if scatter:
        ax.scatter(th, d, s=8, alpha=0.25, color=color, linewidths=0)
    edges = np.linspace(0, max(th.max(), 1e-9), bins + 1)
    which = np.clip(np.digitize(th, edges) - 1, 0, bins - 1)
    mids, means, sds = [], [], []
    for b in range(bins):
        sel = which == b
        if sel.sum() >= 3:
            mids.append(th[sel].mean())
            means.append(d[sel].mean())
            sds.append(d[sel].std())
    mids, means, sds = map(np.asarray, (mids, means, sds))
    ax.fill_between(mids, means - sds, means + sds, color=color, alpha=0.2)
    ax.plot(mids, means, "o-", color=color, label=f"{label}: mean ± 1 sd", markersize=5)
    grid = np.linspace(0, 180, 181)
    ax.plot(
        grid, bits * grid / 180, "--", color=OKABE_ITO["black"], linewidth=1.5, label=f"theory: {bits}·θ/π"
    )
    if impossible_beyond is not None:
        ax.axvspan(impossible_beyond, 180, color=MUTED, alpha=0.15, linewidth=0)
        ax.text(
            (impossible_beyond + 180) / 2,
            bits * 0.06,
            f"no pair can be here:\nvectors without negative\ncoordinates stay within {impossible_beyond:g}°",
            ha="center",
            fontsize=11,
            color="#555555",
        )
    ax.set_xlabel("angle θ between the vectors (degrees)")
    ax.set_ylabel("Hamming distance (bits)")
    ax.set_xlim(0, 180 if impossible_beyond is not None else max(th.max() * 1.05, 10))
    ax.set_ylim(0, max(d.max(), bits * th.max() / 180) * 1.1 + 1)
    ax.legend(loc="upper left")
    if title:
        ax.set_title(title)
    return ax


def pigeonhole(
    bits: int = 64,
    k: int = 3,
    flipped: Sequence[int] = (),
    ax=None,
    *,
    blocks: int | None = None,
    title: str = "",
):
    """The pigeonhole argument: ``bits`` cells cut into ``blocks`` (default k + 1) blocks, the flipped
    bits marked, and the blocks with no flip framed in green ("exact match in this table").

    ``flipped`` holds bit indices (0 = least significant, drawn on the right).
    """
    ax = _ax(ax)
    m = k + 1 if blocks is None else blocks
    edges = np.linspace(0, bits, m + 1).round().astype(int)
    gap = 1.0
    flipped = set(int(f) for f in flipped)
    for b in range(m):
        lo_col, hi_col = edges[b], edges[b + 1]
        x0 = lo_col + b * gap
        dirty = any((bits - 1 - c) in flipped for c in range(lo_col, hi_col))
        for c in range(lo_col, hi_col):
            bit = bits - 1 - c
            ax.add_patch(
                Rectangle(
                    (c + b * gap, 0),
                    0.9,
                    1,
                    facecolor=NEG if bit in flipped else "#eeeeee",
                    edgecolor="#aaaaaa",
                    linewidth=0.5,
                )
            )
        ax.add_patch(
            Rectangle(
                (x0 - 0.3, -0.25),
                hi_col - lo_col + 0.5,
                1.5,
                fill=False,
                edgecolor=NEG if dirty else ACCENT,
                linewidth=3 if not dirty else 1.5,
                linestyle="-" if not dirty else ":",
            )
        )
        ax.text(x0 + (hi_col - lo_col) / 2, 1.55, f"block {m - 1 - b}", ha="center", fontsize=13)
        ax.text(
            x0 + (hi_col - lo_col) / 2,
            -0.65,
            "touched" if dirty else "intact: exact match",
            ha="center",
            va="top",
            fontsize=13,
            color=NEG if dirty else ACCENT,
            fontweight="normal" if dirty else "bold",
        )
    ax.set_xlim(-1, bits + m * gap)
    ax.set_ylim(-1.4, 2.2)
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    ax.set_title(title or f"{len(flipped)} flipped bit(s), {m} blocks of {bits // m} bits")
    return ax


def scaling(n, times: Mapping[str, np.ndarray], ax=None, *, unit: str = "seconds per query", title: str = ""):
    """Measured cost against n on log-log axes, one line per method, with an O(n) guide line."""
    ax = _ax(ax)
    n = np.asarray(n, dtype=float)
    markers = ["o", "s", "^", "D", "v"]
    colors = [NEG, POS, ACCENT, HIGHLIGHT, OKABE_ITO["purple"]]
    for (name, t), mk, c in zip(times.items(), markers, colors):
        ax.plot(n, t, marker=mk, color=c, label=name, markersize=7)
    first = np.asarray(next(iter(times.values())), dtype=float)
    ax.plot(n, first[0] * n / n[0], ":", color=MUTED, label="∝ n (linear)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("fingerprints stored, n")
    ax.set_ylabel(unit)
    ax.legend(loc="upper left")
    if title:
        ax.set_title(title)
    return ax


# -- notebook 01: amplification -----------------------------------------------------------------


def amplification(
    ax=None, *, block_bits: int = 16, blocks: int = 4, bits: int = 64, k: int = 3, title: str = ""
):
    """How the block index turns one bit's weak (1 − θ/π) into a sharp step, against the angle θ.

    Four curves, for two documents at angle θ whose ``bits``-bit fingerprints have independent
    bits that each agree with probability ``p = 1 − θ/π`` (notebook 04):

    * one bit agrees: ``p``;
    * a block of ``block_bits`` bits agrees whole (AND): ``p^r``;
    * some block of ``blocks`` agrees (OR), so the pair becomes a *candidate*: ``1 − (1 − p^r)^b``;
    * the pair is *reported* (its fingerprints within ``k`` bits): ``P(Binomial(bits, θ/π) ≤ k)``.

    The candidate curve lies above the reported one everywhere: every pair within k bits is a
    candidate, for certain (notebook 05's pigeonhole), and the check ``popcount ≤ k`` then drops
    the candidates that are further apart.
    """
    from scipy.stats import binom

    ax = _ax(ax)
    th = np.linspace(0, 180, 361)
    p = 1 - th / 180
    cand = 1 - (1 - p**block_bits) ** blocks
    ax.plot(th, p, color=MUTED, label="one bit agrees: $p = 1 - \\theta/\\pi$")
    ax.plot(th, p**block_bits, color=POS, label=f"a block of {block_bits} bits agrees: $p^{{{block_bits}}}$")
    ax.plot(
        th,
        cand,
        color=HIGHLIGHT,
        linewidth=3,
        label=f"candidate, some block of {blocks}: $1-(1-p^{{{block_bits}}})^{{{blocks}}}$",
    )
    ax.plot(
        th,
        binom.cdf(k, bits, th / 180),
        color=NEAR,
        linestyle="--",
        linewidth=2.5,
        label=f"reported: $d_H \\leq {k}$ of {bits} bits",
    )
    ax.set_xlim(0, 90)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("angle θ between the documents (degrees)")
    ax.set_ylabel("probability")
    ax.legend(loc="upper right")
    if title:
        ax.set_title(title)
    return ax


# -- notebook 02: weights ------------------------------------------------------------------------


def distance_hists(dist: Mapping[str, tuple], axes=None, *, bits: int = 64, max_bits: int = 48):
    """One histogram per weighting of the Hamming distances of edited copies (``NEAR``, green) and
    unrelated pairs (``FAR``, purple), each with its mean, and the ``bits / 2`` of two random numbers.

    Parameters
    ----------
    dist : mapping name -> (unrelated, edited)
        Arrays of distances, as :func:`simhash_lab.course.experiments.weighting_distances` gives.
    axes : sequence of axes, optional
        One per entry (default: a new row of subplots sharing the y axis).
    """
    if axes is None:
        _, axes = plt.subplots(1, len(dist), figsize=(6.5 * len(dist), 4.6), sharey=True)
    axes = np.atleast_1d(axes)
    bins = np.arange(-0.5, max_bits + 0.5, 1)
    for ax, (name, (unrel, edited)) in zip(axes, dist.items()):
        unrel, edited = np.asarray(unrel, float), np.asarray(edited, float)
        ax.hist(edited, bins=bins, color=NEAR, alpha=0.75, label=f"edited copies (mean {edited.mean():.1f})")
        ax.hist(unrel, bins=bins, color=FAR, alpha=0.75, label=f"unrelated pairs (mean {unrel.mean():.1f})")
        ax.axvline(
            bits / 2,
            color=OKABE_ITO["black"],
            linestyle="--",
            linewidth=1.2,
            label=f"{bits // 2}: two random numbers",
        )
        ax.set_title(f"{name} weights")
        ax.set_xlabel(f"Hamming distance (bits of {bits})")
        ax.set_xlim(-0.5, max_bits)
        ax.legend(loc="upper right", fontsize=11)
    axes[0].set_ylabel("pairs of paragraphs")
    return axes


# -- notebook 04: the θ stepper and the dense-vector trade-off -------------------------------------


def theta_frame(u, v, normals, dist, *, bits: int, degrees: float, axes=None):
    """One frame of notebook 04's θ stepper: u, v and a few random lines (left); the histogram of
    the Hamming distances ``dist`` of their ``bits``-bit signatures with the expected
    ``bits·θ/π`` and the measured mean (right), the legend placed away from the bars."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [1, 1.8]})
    a, b = axes
    hyperplanes_2d(u, v, normals, ax=a, title=f"θ = {degrees:g}°")
    d = np.asarray(dist)
    b.hist(d, bins=np.arange(-0.5, bits + 1.5, 1), color=POS, alpha=0.75)
    e = bits * np.radians(degrees) / np.pi
    b.axvline(
        e,
        color=OKABE_ITO["black"],
        linestyle="--",
        linewidth=2,
        label=f"$E[d_H] = {bits}\\theta/\\pi$ = {e:.2f}",
    )
    b.axvline(d.mean(), color=NEG, linewidth=2, label=f"measured mean = {d.mean():.2f}")
    b.set_xlim(-1, bits + 1)
    b.set_ylim(0, None)
    b.set_xlabel(f"Hamming distance of {bits}-bit signatures")
    b.set_ylabel(f"count of {d.size} trials")
    # the bars sit around the mean: put the legend on the other half
    b.legend(loc="upper right" if d.mean() < bits / 2 else "upper left")
    return axes


def dense_tradeoff(result: Mapping[str, np.ndarray], axes=None):
    """Random hyperplanes on dense vectors (:func:`simhash_lab.course.experiments.dense_tradeoff`):
    recall against bits per table (left: one and several tables, measured and predicted, and the
    full Hamming ranking) and what a query costs (right: candidates per query, and how many buckets
    are in use, against the vectors stored), both against the bits of a signature."""
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(14, 5))
    a, b = axes
    bits = np.asarray(result["bits"])
    colors = [POS, HIGHLIGHT, ACCENT, OKABE_ITO["purple"]]
    for r, (L, c) in enumerate(zip(result["tables"], colors)):
        tab = "1 table" if L == 1 else f"{L} tables"
        a.plot(bits, result["bucket_recall"][r], "o", color=c, markersize=7, label=f"bucket, {tab}: measured")
        a.plot(
            bits,
            result["bucket_recall_theory"][r],
            "-",
            color=c,
            linewidth=1.5,
            label=f"bucket, {tab}: " + ("$p^b$" if L == 1 else f"$1-(1-p^b)^{{{L}}}$"),
        )
        b.plot(bits, result["candidates"][r], "o-", color=c, label=f"candidates per query, {tab}")
    a.plot(
        bits, result["ranking_recall"], "s--", color=OKABE_ITO["black"], label="rank all by Hamming distance"
    )
    a.set_xscale("log", base=2)
    a.set_xticks(bits, [str(x) for x in bits])
    a.set_ylim(0, 1.02)
    a.set_xlabel("bits per signature, b (log scale)")
    a.set_ylabel(f"recall of the {int(result['k'])} true neighbours")
    a.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=10, frameon=False)
    a.set_title("more bits: sharper buckets, lower recall")
    b.plot(bits, result["buckets"], "^:", color=MUTED, label="buckets in use (one table)")
    b.axhline(
        float(result["n"]),
        color=OKABE_ITO["black"],
        linestyle="--",
        linewidth=1,
        label=f"vectors stored: {int(result['n']):,}",
    )
    b.set_xscale("log", base=2)
    b.set_yscale("log")
    b.set_xticks(bits, [str(x) for x in bits])
    b.set_xlabel("bits per signature, b (log scale)")
    b.set_ylabel("count (log scale)")
    b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=10, frameon=False)
    b.set_title("more bits: fewer candidates to check")
    return axes
