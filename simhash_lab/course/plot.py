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

from .._i18n import N_, _

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
    "set_alt",
    "alt_text",
    "figure_html",
    "show_with_alt",
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
    # notebook 05
    "query_scaling",
    "table_designs",
    "candidates_by_distance",
    "detection_by_angle",
    # notebook 06
    "PAIR_COLORS",
    "pair_distance_hist",
    "prf_curve",
    "k_threshold_figure",
    "method_bars",
    "minhash_scatter",
    "banding_curve",
    "f1_curves",
    "calibration_curve",
    "verification_hist",
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
    """Apply :func:`course_style` to ``plt.rcParams`` (call it once, at the top of a notebook), and
    in IPython show every figure as an image with its text alternative (:func:`show_with_alt`)."""
    plt.rcParams.update(course_style())
    show_with_alt()


# -- text alternatives -------------------------------------------------------------------------------


def set_alt(fig, text: str):
    """Give ``fig`` (a figure, or any of its axes) ``text`` as its text alternative, the words a
    screen reader says for the picture (:func:`alt_text`); returns the figure."""
    fig = getattr(fig, "figure", fig)
    fig._simhash_lab_alt = " ".join(str(text).split())
    return fig


def _visible_text(t) -> str:
    return " ".join(t.get_text().split()) if t is not None and t.get_visible() else ""


def alt_text(fig, limit: int = 400) -> str:
    """A short text alternative for ``fig``: the text given with :func:`set_alt`, else what the
    figure says of itself, in the language it was drawn in: its titles, each axes' labels and legend
    entries (``limit`` characters at most)."""
    fig = getattr(fig, "figure", fig)
    given = getattr(fig, "_simhash_lab_alt", None)
    if given:
        return given
    parts = []
    sup = _visible_text(getattr(fig, "_suptitle", None))
    if sup:
        parts.append(sup)
    for ax in fig.get_axes():
        if not ax.get_visible():
            continue
        here = [_visible_text(t) for t in (ax.title, ax._left_title, ax._right_title)]
        labels = [("x", ax.get_xlabel()), ("y", ax.get_ylabel())]
        if hasattr(ax, "get_zlabel"):
            labels.append(("z", ax.get_zlabel()))
        here += [f"{axis}: {' '.join(lab.split())}" for axis, lab in labels if lab.strip()]
        legend = ax.get_legend()
        if legend is not None:
            here.append("; ".join(_visible_text(t) for t in legend.get_texts()))
        parts += [p for p in here if p and p not in parts]
    for legend in fig.legends:
        parts.append("; ".join(_visible_text(t) for t in legend.get_texts()))
    text = ". ".join(p.rstrip(".") for p in parts if p) or _("a figure without a title or labels")
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def figure_html(fig, *, dpi: float | None = None, width: str | None = None) -> str:
    """``fig`` as an ``<img>`` with its PNG inline and :func:`alt_text` as its ``alt``, at its own
    size in pixels, never wider than the page (``width``: a CSS width instead, "100%" to fill it)."""
    import base64
    import html
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    style = f"width:{width};max-width:100%" if width else "max-width:100%"
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt_text(fig))}" style="{style}"/>'


def show_with_alt() -> bool:
    """In IPython, show every matplotlib figure (``plt.show()``, a figure as a cell's last line) as
    an ``<img>`` with its text alternative (:func:`figure_html`) instead of a bare PNG, which
    JupyterLab shows with no ``alt``; the PNG is inside the ``<img>``, not stored twice. False
    outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ip = get_ipython()
    if ip is None or not hasattr(ip, "display_formatter"):
        return False
    from matplotlib.figure import Figure

    # The inline backend loads with the first figure and then sets its formats (once): load it now
    plt.close(plt.figure())
    formatters = ip.display_formatter.formatters
    formatters["text/html"].for_type(Figure, lambda fig: figure_html(fig))
    for mime in ("image/png", "image/jpeg", "image/svg+xml", "application/pdf"):
        formatters[mime].pop(Figure, None)
    return True


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
    for r, (_unused, value) in enumerate(rows):
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
        ax.set_xlabel(_("bit index (most significant on the left)"))
    else:
        step = 8 if bits > 16 else 4
        cols = [c for c in range(bits) if (bits - 1 - c) % step == 0]
        ax.set_xticks([c + 0.46 for c in cols], [str(bits - 1 - c) for c in cols])
        ax.set_xlabel(_("bit index"))
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
    bit_axis(ax, bits, msb_left)
    ax.set_ylabel(_("accumulator V[i]"))
    if highlight_bits is not None:
        idx = np.arange(bits)[::-1] if msb_left else np.arange(bits)
        on = ((int(highlight_bits) >> idx) & 1).astype(bool)
        ax.scatter(x[on], np.full(on.sum(), lim * 0.92), marker="^", color=POS, s=40)
        ax.scatter(x[~on], np.full((~on).sum(), -lim * 0.92), marker="v", color=NEG, s=40)
    if title:
        ax.set_title(title)
    return ax


def bit_axis(ax, bits, msb_left=True):
    ax.set_xlim(-0.7, bits - 0.3)
    step = 1 if bits <= 16 else 8
    ticks = [c for c in range(bits) if (bits - 1 - c if msb_left else c) % step == 0]
    ax.set_xticks(ticks, [str(bits - 1 - c if msb_left else c) for c in ticks])
    ax.set_xlabel(_("bit index i") + (_(" (most significant on the left)") if msb_left else ""))


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
        ax.hist(
            f,
            bins=edges,
            color=c,
            alpha=0.55,
            label=_("{name} (mean {mean:.0%})").format(name=name, mean=f.mean()),
        )
        ax.hist(f, bins=edges, color=c, histtype="step", linewidth=2)
    ax.axvline(0.5, color="#333333", linestyle="--", linewidth=1.2)
    ax.text(0.505, ax.get_ylim()[1] * 0.95, _("50%: a coin flip"), va="top", fontsize=12)
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda x, _: f"{x:.0%}"))
    ax.set_xlabel(_("bits of the hash that changed"))
    ax.set_ylabel(_("number of edits"))
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
    xlabel: str = N_("distance d(x, y)"),
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
        ax.plot(distance, prob, color=POS, label=_("P(h(x) = h(y)) of this family"), zorder=3)
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
        _("close (d ≤ d1):\nmust have P ≥ p1 = {p1:.2f}").format(p1=p1),
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
        _("far (d ≥ d2): must have P ≤ p2 = {p2:.2f}").format(p2=p2),
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
    ax.set_xlabel(_(xlabel))
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
    unit: str = N_("ns per fingerprint pair"),
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
    ax.set_yticks(np.arange(len(names)), [_(n) for n in names])  # a method's name (compare) in the language
    if log:
        ax.set_xscale("log")
    for i, v in enumerate(vals):
        ax.text(
            v * (1.08 if log else 1.01), i, f"{v:,.0f}" if v >= 100 else f"{v:.3g}", va="center", fontsize=12
        )
    ax.set_xlim(right=vals.max() * (6 if log else 1.2))
    ax.set_xlabel(
        (_("{unit} (lower is better, log scale)") if log else _("{unit} (lower is better)")).format(
            unit=_(unit)
        )
    )
    if title:
        ax.set_title(title)
    return ax


def hyperplane_line(normal, r=1.25):
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
        segs.append(hyperplane_line(n))
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
        lines.append(f"r·{name} = {h:+.2f}: {_('above') if h >= 0 else _('below')}")
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
    ax.set_title(title or (_("this plane separates u and v") if sep else _("u and v on the same side")))
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
    label: str = N_("measured"),
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
    ax.plot(
        mids, means, "o-", color=color, label=_("{label}: mean ± 1 sd").format(label=_(label)), markersize=5
    )
    grid = np.linspace(0, 180, 181)
    ax.plot(
        grid,
        bits * grid / 180,
        "--",
        color=OKABE_ITO["black"],
        linewidth=1.5,
        label=_("theory: {bits}·θ/π").format(bits=bits),
    )
    if impossible_beyond is not None:
        ax.axvspan(impossible_beyond, 180, color=MUTED, alpha=0.15, linewidth=0)
        ax.text(
            (impossible_beyond + 180) / 2,
            bits * 0.06,
            _(
                "no pair can be here:\nvectors without negative\ncoordinates stay within "
                "{impossible_beyond:g}°"
            ).format(impossible_beyond=impossible_beyond),
            ha="center",
            fontsize=11,
            color="#555555",
        )
    ax.set_xlabel(_("angle θ between the vectors (degrees)"))
    ax.set_ylabel(_("Hamming distance (bits)"))
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
        ax.text(
            x0 + (hi_col - lo_col) / 2, 1.55, _("block {b}").format(b=m - 1 - b), ha="center", fontsize=13
        )
        ax.text(
            x0 + (hi_col - lo_col) / 2,
            -0.65,
            _("touched") if dirty else _("intact:\nexact match"),
            ha="center",
            va="top",
            fontsize=13,
            color=NEG if dirty else ACCENT,
            fontweight="normal" if dirty else "bold",
        )
    ax.set_xlim(-1, bits + m * gap)
    ax.set_ylim(-1.9, 2.2)  # room for a caption of two lines under each block
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_visible(False)
    flips = _("1 flipped bit") if len(flipped) == 1 else _("{n} flipped bits").format(n=len(flipped))
    ax.set_title(title or _("{flips}, {m} blocks of {v2} bits").format(flips=flips, m=m, v2=bits // m))
    return ax


def scaling(
    n, times: Mapping[str, np.ndarray], ax=None, *, unit: str = N_("seconds per query"), title: str = ""
):
    """Measured cost against n on log-log axes, one line per method, with an O(n) guide line."""
    ax = _ax(ax)
    n = np.asarray(n, dtype=float)
    markers = ["o", "s", "^", "D", "v"]
    colors = [NEG, POS, ACCENT, HIGHLIGHT, OKABE_ITO["purple"]]
    for (name, t), mk, c in zip(times.items(), markers, colors):
        ax.plot(n, t, marker=mk, color=c, label=name, markersize=7)
    first = np.asarray(next(iter(times.values())), dtype=float)
    ax.plot(n, first[0] * n / n[0], ":", color=MUTED, label=_("∝ n (linear)"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(_("fingerprints stored, n"))
    ax.set_ylabel(_(unit))
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
    ax.plot(th, p, color=MUTED, label=_("one bit agrees: $p = 1 - \\theta/\\pi$"))
    ax.plot(
        th,
        p**block_bits,
        color=POS,
        label=_("a block of {block_bits} bits agrees: $p^{{{block_bits}}}$").format(block_bits=block_bits),
    )
    ax.plot(
        th,
        cand,
        color=HIGHLIGHT,
        linewidth=3,
        label=_("candidate, some block of {blocks}: $1-(1-p^{{{block_bits}}})^{{{blocks}}}$").format(
            blocks=blocks, block_bits=block_bits
        ),
    )
    ax.plot(
        th,
        binom.cdf(k, bits, th / 180),
        color=NEAR,
        linestyle="--",
        linewidth=2.5,
        label=_("reported: $d_H \\leq {k}$ of {bits} bits").format(k=k, bits=bits),
    )
    ax.set_xlim(0, 90)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(_("angle θ between the documents (degrees)"))
    ax.set_ylabel(_("probability"))
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
        _unused, axes = plt.subplots(1, len(dist), figsize=(6.5 * len(dist), 4.6), sharey=True)
    axes = np.atleast_1d(axes)
    bins = np.arange(-0.5, max_bits + 0.5, 1)
    for ax, (name, (unrel, edited)) in zip(axes, dist.items()):
        unrel, edited = np.asarray(unrel, float), np.asarray(edited, float)
        ax.hist(
            edited,
            bins=bins,
            color=NEAR,
            alpha=0.75,
            label=_("edited copies (mean {v0:.1f})").format(v0=edited.mean()),
        )
        ax.hist(
            unrel,
            bins=bins,
            color=FAR,
            alpha=0.75,
            label=_("unrelated pairs (mean {v0:.1f})").format(v0=unrel.mean()),
        )
        ax.axvline(
            bits / 2,
            color=OKABE_ITO["black"],
            linestyle="--",
            linewidth=1.2,
            label=_("{v0}: two random numbers").format(v0=bits // 2),
        )
        ax.set_title(_("{name} weights").format(name=name))
        ax.set_xlabel(_("Hamming distance (bits of {bits})").format(bits=bits))
        ax.set_xlim(-0.5, max_bits)
        ax.legend(loc="upper right", fontsize=11)
    axes[0].set_ylabel(_("pairs of paragraphs"))
    return axes


# -- notebook 04: the θ stepper and the dense-vector trade-off -------------------------------------


def theta_frame(u, v, normals, dist, *, bits: int, degrees: float, axes=None):
    """One frame of notebook 04's θ stepper: u, v and a few random lines (left); the histogram of
    the Hamming distances ``dist`` of their ``bits``-bit signatures with the expected
    ``bits·θ/π`` and the measured mean (right), the legend placed away from the bars."""
    if axes is None:
        _unused, axes = plt.subplots(1, 2, figsize=(11, 4.4), gridspec_kw={"width_ratios": [1, 1.8]})
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
        label=_("$E[d_H] = {bits}\\theta/\\pi$ = {e:.2f}").format(bits=bits, e=e),
    )
    b.axvline(d.mean(), color=NEG, linewidth=2, label=_("measured mean = {v0:.2f}").format(v0=d.mean()))
    b.set_xlim(-1, bits + 1)
    b.set_ylim(0, None)
    b.set_xlabel(_("Hamming distance of {bits}-bit signatures").format(bits=bits))
    b.set_ylabel(_("count of {size} trials").format(size=d.size))
    # the bars sit around the mean: put the legend on the other half
    b.legend(loc="upper right" if d.mean() < bits / 2 else "upper left")
    return axes


def dense_tradeoff(result: Mapping[str, np.ndarray], axes=None):
    """Random hyperplanes on dense vectors (:func:`simhash_lab.course.experiments.dense_tradeoff`):
    recall against bits per table (left: one and several tables, measured and predicted, and the
    full Hamming ranking) and what a query costs (right: candidates per query, and how many buckets
    are in use, against the vectors stored), both against the bits of a signature."""
    if axes is None:
        _unused, axes = plt.subplots(1, 2, figsize=(14, 5))
    a, b = axes
    bits = np.asarray(result["bits"])
    colors = [POS, HIGHLIGHT, ACCENT, OKABE_ITO["purple"]]
    for r, (L, c) in enumerate(zip(result["tables"], colors)):
        tab = _("1 table") if L == 1 else _("{L} tables").format(L=L)
        a.plot(
            bits,
            result["bucket_recall"][r],
            "o",
            color=c,
            markersize=7,
            label=_("bucket, {tab}: measured").format(tab=tab),
        )
        a.plot(
            bits,
            result["bucket_recall_theory"][r],
            "-",
            color=c,
            linewidth=1.5,
            label=_("bucket, {tab}: ").format(tab=tab) + ("$p^b$" if L == 1 else f"$1-(1-p^b)^{{{L}}}$"),
        )
        b.plot(
            bits,
            result["candidates"][r],
            "o-",
            color=c,
            label=_("candidates per query, {tab}").format(tab=tab),
        )
    a.plot(
        bits,
        result["ranking_recall"],
        "s--",
        color=OKABE_ITO["black"],
        label=_("rank all by Hamming distance"),
    )
    a.set_xscale("log", base=2)
    a.set_xticks(bits, [str(x) for x in bits])
    a.set_ylim(0, 1.02)
    a.set_xlabel(_("bits per signature, b (log scale)"))
    a.set_ylabel(_("recall of the {int} true neighbours").format(int=int(result["k"])))
    a.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=10, frameon=False)
    a.set_title(_("more bits: sharper buckets, lower recall"))
    b.plot(bits, result["buckets"], "^:", color=MUTED, label=_("buckets in use (one table)"))
    b.axhline(
        float(result["n"]),
        color=OKABE_ITO["black"],
        linestyle="--",
        linewidth=1,
        label=_("vectors stored: {int:,}").format(int=int(result["n"])),
    )
    b.set_xscale("log", base=2)
    b.set_yscale("log")
    b.set_xticks(bits, [str(x) for x in bits])
    b.set_xlabel(_("bits per signature, b (log scale)"))
    b.set_ylabel(_("count (log scale)"))
    b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.17), ncol=2, fontsize=10, frameon=False)
    b.set_title(_("more bits: fewer candidates to check"))
    return axes


# --------------------------------------------------------------------------------------------
# Notebook 05: the block index
# --------------------------------------------------------------------------------------------


def query_scaling(
    n,
    times: Mapping[str, Sequence[float]],
    ax=None,
    *,
    scan: str | None = None,
    unit: str = N_("µs per query"),
    scale: float = 1e6,
    title: str = "",
):
    """Measured per-query time against the number of stored fingerprints, log-log.

    The guide line ``∝ n`` is the line of slope 1 (on log-log axes) closest to the ``scan`` series
    (default: the first series) from ten times the smallest n on, where a linear scan's fixed cost
    per call no longer matters; the legend gives each series' last value.

    Parameters
    ----------
    n : array_like of shape (m,)
    times : mapping name -> array_like of shape (m,), seconds
    scale : float
        Seconds are multiplied by this for the axis (1e6: microseconds).
    """
    ax = _ax(ax)
    n = np.asarray(n, dtype=float)
    markers = ["o", "s", "^", "D", "v"]
    colors = [NEG, POS, ACCENT, HIGHLIGHT, OKABE_ITO["purple"]]
    scan = next(iter(times)) if scan is None else scan
    for (name, t), mk, c in zip(times.items(), markers, colors):
        t = np.asarray(t, dtype=float) * scale
        last = f"{t[-1]:,.0f}" if t[-1] >= 100 else f"{t[-1]:.3g}"
        ax.plot(
            n,
            t,
            marker=mk,
            color=c,
            label=_("{name}: {last} at n = {n:,.0f}").format(name=name, last=last, n=n[-1]),
            markersize=7,
        )
    s = np.asarray(times[scan], dtype=float) * scale
    fit = n >= 10 * n[0] if n.size > 2 else np.ones(n.size, bool)  # past the fixed cost of a call
    c = float(np.exp(np.mean(np.log(s[fit] / n[fit]))))  # the best line of slope 1 on log-log axes
    ax.plot(
        n,
        c * n,
        ":",
        color=MUTED,
        label=_("∝ n (fitted to the scan from n = {v0:,.0f})").format(v0=n[fit][0]),
    )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(n[0] / 1.6, n[-1] * 1.6)
    ax.set_xlabel(_("fingerprints stored, n"))
    ax.set_ylabel(_(unit))
    ax.legend(loc="upper left", fontsize=12)
    if title:
        ax.set_title(title)
    return ax


def table_designs(designs, ax=None, *, title: str = ""):
    """Each table design as a point: tables (memory) against expected candidates per query (work).

    ``designs`` are :class:`~simhash_lab.TableDesign` objects (``design_tables(...)``). The
    frontier (for each number of tables, no design with as many tables or fewer has fewer
    candidates) is joined by a line, blue; a design off it (more tables *and* more candidates than
    a frontier design) is grey. Every point is labelled on one line, above and to the right of it
    or, where a grey point sits there, below and to the left (either way off a falling line):
    tables, bytes per fingerprint, expected candidates; designs with the same tables and
    candidates share one label.
    """
    ax = _ax(ax)
    pts: dict[tuple, list] = {}
    for d in designs:
        pts.setdefault((d.tables, float(d.expected_candidates)), []).append(d)
    keys = sorted(pts)
    frontier, best = [], float("inf")
    for t, c in keys:
        if c < best:
            frontier.append((t, c))
            best = c
    ax.plot([t for t, _ in frontier], [c for _, c in frontier], "-", color=POS, alpha=0.5, zorder=1)
    for t, c in keys:
        on = (t, c) in frontier
        ax.scatter([t], [c], s=70, color=POS if on else MUTED, zorder=2)
        d = pts[(t, c)][0]
        many = _(" ({n} designs)").format(n=len(pts[(t, c)])) if len(pts[(t, c)]) > 1 else ""
        head = _("linear scan") if t == 0 else _("{t} tables").format(t=t) + many
        cand = f"{c:,.0f}" if c >= 10 else f"{c:.2g}"
        # above and right of the point, unless a point off the frontier sits there: then below, left
        below = on and any(
            (t2, c2) not in frontier and t < t2 <= t + 25 and 1 <= c2 / c <= 5 for t2, c2 in keys
        )
        ax.annotate(
            _("{head} · {bytes} bytes a fingerprint · ≈ {cand}").format(
                head=head, bytes=d.bytes_per_fingerprint, cand=cand
            )
            + ("" if on else _(" (off the frontier)")),
            (t, c),
            textcoords="offset points",
            xytext=(-8, -6) if below else (8, 3),  # below a falling line: to the left
            ha="right" if below else "left",
            va="top" if below else "bottom",
            fontsize=11,
            color="#222222" if on else "#666666",
        )
    ax.set_yscale("log")
    ys = [c for _, c in keys]
    ax.set_ylim(min(ys) / 8, max(ys) * 30)
    ax.set_xlim(-2, max(t for t, _ in keys) * 1.6 + 2)
    from ..index.design import BYTES_PER_FINGERPRINT_BASE, BYTES_PER_FINGERPRINT_PER_TABLE

    ax.set_xlabel(
        _(
            "tables (each stores every fingerprint: {per} bytes a fingerprint, besides the {base} "
            "every index keeps)"
        ).format(per=BYTES_PER_FINGERPRINT_PER_TABLE, base=BYTES_PER_FINGERPRINT_BASE)
    )
    ax.set_ylabel(_("expected candidates per query"))
    if title:
        ax.set_title(title)
    return ax


def candidates_by_distance(
    d, exact, ax=None, *, measured=None, k: int = 3, bits: int = 64, blocks: int = 4, title: str = ""
):
    """The chance that a pair ``d`` bits apart becomes a candidate of a block index (``blocks`` blocks
    of ``bits / blocks`` bits), exact against the amplification formula with independent bits.

    Parameters
    ----------
    d : array_like of int
    exact : array_like
        The exact probability (:func:`simhash_lab.course.pigeonhole.candidate_probability`): bars.
    measured : array_like, optional
        Measured shares (dots).
    k : int
        Distances ``<= k`` are shaded: there the index must (and does) find every pair.

    The dashed line is ``1 - (1 - p**r)**blocks`` with ``p = 1 - d/bits`` and ``r = bits/blocks``:
    what the same index gives when every bit differs independently with probability ``d/bits``.
    """
    ax = _ax(ax)
    d = np.asarray(d)
    r = bits // blocks
    ax.axvspan(-0.5, k + 0.5, color=ACCENT, alpha=0.12)
    ax.text(
        k / 2, 1.05, _("d ≤ {k}: always").format(k=k), ha="center", va="bottom", color=ACCENT, fontsize=12
    )
    ax.bar(d, exact, width=0.7, color=POS, alpha=0.8, label=_("exact (pigeonhole, counted)"))
    p = 1 - d / bits
    ax.plot(
        d,
        1 - (1 - p**r) ** blocks,
        "--",
        color=OKABE_ITO["black"],
        label=f"$1 - (1 - p^{{{r}}})^{{{blocks}}}$, $p = 1 - d/{bits}$",
    )
    if measured is not None:
        ax.plot(d, measured, "o", color=HIGHLIGHT, markersize=7, label=_("measured"))
    ax.set_ylim(0, 1.15)
    ax.set_xticks(d[:: max(1, len(d) // 10)])
    ax.set_xlabel(_("Hamming distance d of the pair"))
    ax.set_ylabel(_("P(shares a {r}-bit block)").format(r=r))
    ax.legend(loc="upper right", fontsize=11)
    if title:
        ax.set_title(title)
    return ax


def detection_by_angle(
    ax=None,
    *,
    measured=None,
    k: int = 3,
    bits: int = 64,
    blocks: int = 4,
    max_degrees: float = 45,
    title: str = "",
):
    """Notebook 01's :func:`amplification` (candidate and reported, against the angle θ) up to
    ``max_degrees``, with measured rates on top: ``measured`` is a ``(degrees, candidate, reported)``
    triple, drawn as dots in the colours of the two curves."""
    ax = amplification(ax, block_bits=bits // blocks, blocks=blocks, bits=bits, k=k, title=title)
    if measured is not None:
        md, mc, mr = measured
        ax.plot(md, mc, "o", color=HIGHLIGHT, markersize=8, markeredgecolor="#333333", label=_("measured"))
        ax.plot(md, mr, "o", color=NEAR, markersize=8, markeredgecolor="#333333")
        ax.legend(loc="upper right", fontsize=11)
    ax.set_xlim(0, max_degrees)
    return ax


# --------------------------------------------------------------------------------------------
# Notebook 06: near-duplicates in practice
# --------------------------------------------------------------------------------------------

#: The colour of each kind of labelled pair in notebook 06: near-duplicates ``NEAR``, unrelated pairs
#: ``FAR``, as everywhere in the course; rewrites (the hard negatives) ``HIGHLIGHT``.
PAIR_COLORS = {"unrelated": FAR, "rewrite": HIGHLIGHT, "near-duplicate": NEAR}
#: Colours of the three scores, never those of the pairs: precision, recall, F1.
_SCORE_COLORS = ((0, N_("precision"), POS), (1, N_("recall"), NEG), (2, "F1", OKABE_ITO["black"]))
PAIR_LABELS = {
    "unrelated": N_("unrelated"),
    "rewrite": N_("rewrite of the same original"),
    "near-duplicate": N_("near-duplicate"),
}


def _integer_ticks(axis) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def pair_distance_hist(dist, kinds, ax=None, *, k: int | None = None, bits: int = 64, title: str = ""):
    """Histograms of the pairs' Hamming distances, one per kind of pair, each scaled to its own
    total (a share of its pairs), with each kind's mean marked and written.

    Parameters
    ----------
    dist : array_like of shape (m,), int
    kinds : array_like of shape (m,), str
        ``"unrelated"``, ``"rewrite"`` or ``"near-duplicate"`` per pair
        (:meth:`~simhash_lab.course.corpus.LabelledSet.pair_kinds`).
    k : int, optional
        Draw the threshold ``d <= k`` as a dashed line.
    """
    ax = _ax(ax)
    dist = np.asarray(dist)
    kinds = np.asarray(kinds)
    bins = np.arange(0, bits // 2 + 17) - 0.5
    top = 0.0
    for kind, color in PAIR_COLORS.items():
        sel = kinds == kind
        if not sel.any():
            continue
        h, _unused, _unused = ax.hist(
            dist[sel],
            bins=bins,
            density=True,
            alpha=0.7,
            color=color,
            label=_("{kind} ({n:,} pairs): mean {mean:.1f}").format(
                kind=_(PAIR_LABELS[kind]), n=sel.sum(), mean=dist[sel].mean()
            ),
        )
        top = max(top, h.max())
    for kind, color in PAIR_COLORS.items():
        sel = kinds == kind
        if sel.any():
            ax.axvline(dist[sel].mean(), color=color, lw=2.5, ymax=0.93)
    if k is not None:
        ax.axvline(k + 0.5, color=NEG, ls="--", label=f"k = {k}")
    ax.axvline(
        bits / 2,
        color="#333333",
        ls=":",
        lw=1.5,
        label=_("{v0} = {bits}/2 (orthogonal vectors)").format(v0=bits // 2, bits=bits),
    )
    ax.set_ylim(0, top * 1.45)
    ax.set_xlim(-0.5, bins[-1])
    _integer_ticks(ax.xaxis)
    ax.set_xlabel(_("Hamming distance between the two fingerprints ({bits} bits)").format(bits=bits))
    ax.set_ylabel(_("share of the pairs of that kind"))
    ax.legend(loc="upper right", fontsize=12)
    if title:
        ax.set_title(title)
    return ax


def prf_curve(ks, prf, ax=None, *, marks: Mapping[str, int] | None = None, title: str = ""):
    """Precision, recall and F1 (columns of ``prf``, :func:`~simhash_lab.course.compare.sweep`)
    against the threshold k, integer ticks; ``marks`` draws labelled vertical lines
    (``{"k = 3 (Google's)": 3}``)."""
    ax = _ax(ax)
    ks = np.asarray(ks)
    for col, name, color in _SCORE_COLORS:
        ax.plot(ks, prf[:, col], marker="o", color=color, label=_(name))
    styles = [(MUTED, ":"), (OKABE_ITO["sky"], "--"), (HIGHLIGHT, "-.")]
    for (name, x), (c, ls) in zip((marks or {}).items(), styles):
        ax.axvline(x, color=c, ls=ls, label=name)
    _integer_ticks(ax.xaxis)
    ax.set_xlabel(_("k: flag pairs with Hamming distance ≤ k"))
    ax.set_ylim(0, 1.02)
    ax.legend(loc="center right", fontsize=12)  # between recall near 1 and precision near 0
    if title:
        ax.set_title(title)
    return ax


def k_threshold_figure(dist, kinds, ks, prf, counts, *, d_max: int = 40, figsize=(11, 5.0)):
    """The figure of notebook 06's k stepper, drawn once, and a function that moves it to a threshold.

    Left: every pair by distance (log count, one bar colour per kind) with the flagged region
    ``d <= k`` shaded; right: precision, recall and F1 against k with the current k marked. Text is
    at least 12 points (the course style). ``update(k)`` moves only the shading, the line, the
    markers and the titles (artists made once, as an animation does), so a frame costs one render.

    Parameters
    ----------
    dist : array_like of shape (m,), int
    kinds : array_like of shape (m,), str
        Kinds of :data:`PAIR_COLORS`.
    ks : array_like of int
        The thresholds ``prf`` and ``counts`` have a row for.
    prf : array of shape (len(ks), 3)
        Precision, recall, F1 (:func:`~simhash_lab.course.compare.sweep`).
    counts : array_like of shape (len(ks), 3)
        ``(tp, fp, fn)`` per threshold (:func:`~simhash_lab.course.compare.threshold_counts`).

    Returns
    -------
    fig : matplotlib.figure.Figure
    update : callable ``k -> None``
        Shows threshold ``k`` (one of ``ks``); the figure starts at ``ks[0]``.
    """
    with plt.rc_context(course_style()):  # readable sizes whatever the caller's style
        return _k_threshold_figure(dist, kinds, ks, prf, counts, d_max, figsize)


def _k_threshold_figure(dist, kinds, ks, prf, counts, d_max, figsize):
    dist = np.asarray(dist)
    kinds = np.asarray(kinds)
    ks = np.asarray(ks)
    counts = np.asarray(counts)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=figsize, gridspec_kw={"width_ratios": [3, 2]})
    x = np.arange(d_max)
    for off, (kind, color) in zip((-0.3, 0.0, 0.3), PAIR_COLORS.items()):
        c = np.bincount(dist[kinds == kind], minlength=d_max)[:d_max]
        ax1.bar(x + off, c, width=0.3, color=color, label=_(PAIR_LABELS[kind]), log=True, bottom=0.8)
    span = ax1.add_patch(  # x in data units, y across the whole axes
        Rectangle((-0.5, 0), ks[0] + 1, 1, transform=ax1.get_xaxis_transform(), color=MUTED, alpha=0.2)
    )
    line = ax1.axvline(ks[0] + 0.5, color=NEG, ls="--")
    ax1.set_xlim(-0.5, d_max - 0.5)
    ax1.set_ylim(0.8, max(1.0, float(np.bincount(dist).max())) * 8)
    _integer_ticks(ax1.xaxis)
    ax1.set_xlabel(_("Hamming distance"))
    ax1.set_ylabel(_("pairs (log scale)"))
    marks = []
    for col, name, color in _SCORE_COLORS:
        ax2.plot(ks, prf[:, col], color=color, alpha=0.35)
        (m,) = ax2.plot([ks[0]], [prf[0, col]], marker="o", ms=10, color=color, label=_(name))
        marks.append(m)
    ax2.set_ylim(0, 1.05)
    _integer_ticks(ax2.xaxis)
    ax2.set_xlabel("k")
    h1, l1 = ax1.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    fig.legend(h1 + h2, l1 + l2, loc="lower center", ncol=6, fontsize=12, frameon=False)

    def update(k) -> None:
        row = int(np.flatnonzero(ks == k)[0])
        tp, fp, fn = (int(v) for v in counts[row])
        span.set_width(k + 1)
        line.set_xdata([k + 0.5, k + 0.5])
        for col, m in enumerate(marks):
            m.set_data([k], [prf[row, col]])
        missed = (_("{n} copy missed") if fn == 1 else _("{n} copies missed")).format(n=fn)
        ax1.set_title(
            _("k = {k}: {v1:,} flagged ({tp} copies, {fp:,} false alarms),\n{missed}").format(
                k=k, v1=tp + fp, tp=tp, fp=fp, missed=missed
            ),
            fontsize=14,
        )
        ax2.set_title(
            _("precision {v0:.2f} · recall {v1:.2f} · F1 {v2:.2f}").format(
                v0=prf[row, 0], v1=prf[row, 1], v2=prf[row, 2]
            ),
            fontsize=14,
        )

    update(ks[0])
    fig.tight_layout(rect=(0, 0.09, 1, 1))
    return fig, update


def method_bars(results, ax=None, *, title: str = ""):
    """Precision and recall of each method (:class:`~simhash_lab.course.compare.MethodResult`) as
    paired horizontal bars, the values written at their ends, the legend below the axes (never over
    a bar)."""
    ax = _ax(ax)
    names = [_(r.method) for r in results]
    y = np.arange(len(results))[::-1]
    for off, field, color in ((0.2, "precision", POS), (-0.2, "recall", NEG)):  # precision above
        vals = [getattr(r.scores, field) for r in results]
        ax.barh(y + off, vals, 0.4, color=color, label=_(field))
        for yy, v in zip(y + off, vals):
            ax.text(v + 0.01, yy, f"{v:.2f}", va="center", fontsize=11)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 1.12)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def minhash_scatter(exact, estimate, num_perm: int, ax=None, *, title: str = ""):
    """MinHash estimates against exact Jaccard similarities, with the band ``J ± 2 sqrt(J (1 - J) /
    num_perm)`` (two standard errors of a share of ``num_perm`` agreements)."""
    ax = _ax(ax)
    exact = np.asarray(exact, dtype=float)
    estimate = np.asarray(estimate, dtype=float)
    j = np.linspace(0, 1, 201)
    se = np.sqrt(j * (1 - j) / num_perm)
    ax.fill_between(j, j - 2 * se, j + 2 * se, color=ACCENT, alpha=0.2, label=_("J ± 2 standard errors"))
    ax.plot(j, j, color=ACCENT)
    ax.scatter(
        exact,
        estimate,
        s=9,
        alpha=0.35,
        color="#444444",
        linewidths=0,
        label=_("pairs ({n:,})").format(n=exact.size),
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel(_("exact Jaccard similarity of the shingle sets"))
    ax.set_ylabel(_("MinHash estimate ({num_perm} hashes)").format(num_perm=num_perm))
    ax.legend(loc="upper left", fontsize=12)
    if title:
        ax.set_title(title)
    return ax


def banding_curve(
    jaccard, candidate, b: int, r: int, ax=None, *, bins: int = 20, others=(), rug=None, title: str = ""
):
    """LSH banding measured against its S-curve ``1 - (1 - s^r)^b``: for pairs binned by exact
    Jaccard ``s``, the share that became candidates (dots, sized by how many pairs the bin holds),
    the theory line, and the threshold ``(1/b)^(1/r)``. ``others`` adds theory lines for other
    ``(b, r)`` (thin, grey); ``rug`` (a mapping kind -> Jaccard values, kinds of
    :data:`PAIR_COLORS`) marks where labelled pairs fall, as ticks under the curve."""
    ax = _ax(ax)
    if rug:
        for row, (kind, vals) in enumerate(rug.items()):
            y = -0.05 - 0.05 * row
            ax.plot(np.asarray(vals), np.full(len(vals), y), "|", color=PAIR_COLORS[kind], ms=12, alpha=0.6)
            ax.text(1.01, y, _(PAIR_LABELS[kind]), va="center", fontsize=11, color=PAIR_COLORS[kind])
    jaccard = np.asarray(jaccard, dtype=float)
    candidate = np.asarray(candidate, dtype=bool)
    s = np.linspace(0, 1, 201)
    for bb, rr in others:
        ax.plot(s, 1 - (1 - s**rr) ** bb, color=MUTED, lw=1.3)
        t = (1 / bb) ** (1 / rr)
        ax.text(t + 0.01, 0.5, f"b={bb}, r={rr}", color="#666666", fontsize=11, rotation=72, va="center")
    ax.plot(
        s,
        1 - (1 - s**r) ** b,
        color=POS,
        label=_("theory, b = {b}, r = {r}: ").format(b=b, r=r) + f"$1 - (1 - s^{{{r}}})^{{{b}}}$",
    )
    t = (1 / b) ** (1 / r)
    ax.axvline(t, color=POS, ls=":", label=_("threshold") + f" $(1/b)^{{1/r}}$ = {t:.3f}")
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(jaccard, edges) - 1, 0, bins - 1)
    n = np.bincount(which, minlength=bins)
    share = np.bincount(which, weights=candidate, minlength=bins) / np.maximum(n, 1)
    mids = (edges[:-1] + edges[1:]) / 2
    ok = n > 0
    ax.scatter(
        mids[ok],
        share[ok],
        s=np.clip(12 * np.log10(n[ok] + 1) ** 2, 15, 300),
        color=HIGHLIGHT,
        edgecolor="#333333",
        zorder=3,
        label=_("measured share of candidates (size: pairs in the bin)"),
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.07 - 0.05 * len(rug or {}), 1.05)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_xlabel(_("Jaccard similarity s of the pair's shingle sets"))
    ax.set_ylabel(_("P(candidate)"))
    ax.legend(loc="upper left", fontsize=11)
    if title:
        ax.set_title(title)
    return ax


def f1_curves(ks, curves: Mapping[str, np.ndarray], ax=None, *, title: str = ""):
    """F1 against k for several feature choices (``curves``: name -> :func:`sweep` result), each
    best k marked with a dot, the legend outside the axes on the right (it covers no line); colours
    and line styles are not those of the kinds of pairs."""
    ax = _ax(ax)
    ks = np.asarray(ks)
    # colours that mean nothing else on this page (no NEAR/FAR: those are kinds of pairs), and a
    # line style each, so the curves stay apart in greyscale too
    colors = [POS, NEG, HIGHLIGHT, OKABE_ITO["sky"], OKABE_ITO["black"], MUTED]
    styles = ["-", "--", "-.", ":", "-", "--"]
    for i, (name, c) in enumerate(curves.items()):
        (line,) = ax.plot(
            ks, c[:, 2], marker=".", label=name, color=colors[i % len(colors)], ls=styles[i % len(styles)]
        )
        i = int(np.argmax(c[:, 2]))
        ax.plot([ks[i]], [c[i, 2]], "o", ms=10, color=line.get_color())
    _integer_ticks(ax.xaxis)
    ax.set_xlabel("k")
    ax.set_ylabel("F1")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=12, frameon=False)
    if title:
        ax.set_title(title)
    return ax


def calibration_curve(cal, ax=None, *, title: str = ""):
    """How k was chosen for a Jaccard threshold: the share of the measured near-duplicate pairs
    within each distance (``cal.recall_by_k``), the recall asked for (``cal.target``) and the k
    chosen (``cal.k``), from a :class:`simhash_lab.dedup.Calibration` (any object with those
    attributes and ``threshold``, ``pairs``)."""
    ax = _ax(ax)
    r = np.asarray(cal.recall_by_k, dtype=float)
    ks = np.arange(r.size)
    ax.step(
        ks,
        r,
        where="mid",
        color=NEAR,
        label=_("pairs with Jaccard ≥ {threshold:g} within k ({pairs} measured)").format(
            threshold=cal.jaccard, pairs=cal.pairs
        ),
    )
    ax.axhline(
        cal.target, color=MUTED, ls=":", label=_("recall asked for: {target:g}").format(target=cal.target)
    )
    ax.axvline(
        cal.k,
        color=HIGHLIGHT,
        ls="--",
        label=_("k = {k}: recall {recall:.3f}").format(k=cal.k, recall=r[cal.k]),
    )
    _integer_ticks(ax.xaxis)
    ax.set_xlim(-0.5, ks[-1] + 0.5)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("k")
    ax.set_ylabel(_("share of the near-duplicate pairs"))
    ax.legend(loc="lower right", fontsize=11)
    if title:
        ax.set_title(title)
    return ax


def verification_hist(distance, similarity, threshold: float, ax=None, *, title: str = ""):
    """The candidate pairs by Hamming distance, stacked: those whose exact Jaccard similarity passes
    ``threshold`` (kept, ``NEAR``) and those verification rejects (``FAR``)."""
    ax = _ax(ax)
    distance = np.asarray(distance)
    ok = np.asarray(similarity, dtype=float) >= threshold
    top = int(distance.max()) if distance.size else 0
    bins = np.arange(-0.5, top + 1.5)
    ax.hist(
        [distance[ok], distance[~ok]],
        bins=bins,
        stacked=True,
        color=[NEAR, FAR],
        label=[
            _("verified: Jaccard ≥ {threshold:g} ({v1:,})").format(threshold=threshold, v1=ok.sum()),
            _("rejected ({n:,})").format(n=(~ok).sum()),
        ],
    )
    _integer_ticks(ax.xaxis)
    ax.set_xlabel(_("Hamming distance of the candidate pair"))
    ax.set_ylabel(_("candidate pairs"))
    ax.legend(loc="upper left", fontsize=11)
    if title:
        ax.set_title(title)
    return ax
