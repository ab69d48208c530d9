"""The report of a dedup run (``--report report.html``, ``dedup_table(..., report=)``): one
self-contained page a person can look at.

It shows the counts of each step (rows read, featureless, exact copies, candidates, verified pairs,
dropped, clusters) with the seconds each step took, the histogram of cluster sizes, the histogram
of the verified similarities (and of the candidates' that failed), the calibration, and a few
clusters side by side: the kept text beside each dropped one, the words that differ highlighted
(``difflib``: deleted words struck through, inserted ones marked). The charts are plain HTML (no
script, no image, nothing loaded from the network), so the page opens anywhere, from a file.
``.md`` gives the same in Markdown (tables; ``~~deleted~~`` and ``**inserted**`` words), every id,
text and name in it escaped as the HTML's are (:func:`simhash_lab._escape.markdown_text`: one line,
no link, image, raw HTML or heading can come from the data).
"""

from __future__ import annotations

import difflib
import html
import os
from typing import Any

import numpy as np

from .._escape import markdown_text
from .._write import atomic_write
from ..datasets import DatasetError, Source
from .results import DedupResult

__all__ = ["check_report_name", "render_report", "write_report"]

REPORT_FORMATS = (".html", ".htm", ".md")
EXAMPLES = 5  # clusters shown side by side
MEMBERS = 3  # dropped members shown per cluster
TEXT_CHARS = 200_000  # characters of each text compared
MAX_WORDS = 20_000  # words (or characters) of each text compared
CONTEXT = 12  # equal words shown on each side of a difference


def check_report_name(path: str | os.PathLike[str]) -> str:
    """``"html"`` or ``"md"`` from the name; any other ending is refused (before any work).

    Parameters
    ----------
    path : str or os.PathLike
        The report's file name: ``.html``, ``.htm`` or ``.md``, in any case.

    Returns
    -------
    str
        ``"md"`` for ``.md``, else ``"html"``.

    Raises
    ------
    DatasetError
        Any other ending.
    """
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in REPORT_FORMATS:
        raise DatasetError(
            f"{os.fspath(path)}: the report is written as HTML or Markdown: name it .html or .md"
        )
    return "md" if ext == ".md" else "html"


def _counts(res: DedupResult) -> list[tuple[str, str, str]]:
    t = res.timings
    n = len(res.ids)
    sec = lambda *names: f"{sum(t.get(x, 0.0) for x in names):.2f}"  # noqa: E731
    cand = int(res.pairs.shape[0])
    rows = [
        ("read", f"{n:,} rows", sec("read")),
        (
            "normalise",
            "NFKC, format characters dropped" if _opt(res, "normalize") else "off",
            sec("normalise"),
        ),
        ("exact groups", f"{res.exact:,} exact copies in {res.exact_groups:,} groups", sec("exact groups")),
        (
            "fingerprint",
            f"{n - res.featureless.size:,} fingerprinted, {res.featureless.size:,} featureless"
            + (f", {res.by_chars:,} shingled by characters" if res.by_chars else ""),
            sec("fingerprint"),
        ),
        (
            "calibrate",
            res.calibration.summary() if res.calibration is not None else f"k = {res.k} (given)",
            sec("calibrate"),
        ),
        ("candidates", f"{cand:,} pairs {res.found_by}", sec("candidates")),
        (
            "verify",
            f"{res.verified:,} of {cand:,} at Jaccard >= {res.jaccard:g}"
            if res.jaccard is not None
            else "unverified (the raw Hamming mode)",
            sec("verify"),
        ),
        (
            "cluster",
            f"{len(res.duplicates):,} dropped in {len(res.groups):,} clusters "
            f"({_opt(res, 'linkage')} linkage)",
            sec("cluster"),
        ),
        ("write", "", sec("write")),
    ]
    return rows


def _opt(res: DedupResult, name: str) -> Any:
    return getattr(res.options, name, None) if res.options is not None else None


def _histogram(values: np.ndarray, edges: np.ndarray) -> list[tuple[str, int]]:
    counts, _ = np.histogram(values, bins=edges)
    return [(f"{edges[i]:.2f}-{edges[i + 1]:.2f}", int(c)) for i, c in enumerate(counts)]


def _size_histogram(res: DedupResult) -> list[tuple[str, int]]:
    sizes = np.array([len(g) for g in res.groups], np.int64)
    if sizes.size == 0:
        return []
    out = []
    for lo, hi in ((2, 2), (3, 3), (4, 5), (6, 10), (11, 100), (101, 1000), (1001, None)):
        c = int(((sizes >= lo) & (sizes <= (hi if hi is not None else sizes.max()))).sum())
        if c:
            out.append((str(lo) if lo == hi else f"{lo}-{hi}" if hi else f"{lo}+", c))
    return out


def _texts(source: Source, rows: list[int]) -> dict[int, str]:
    if not rows:
        return {}
    want = np.unique(np.array(rows, np.int64))
    got = {}
    for r, texts in source.select(want, 1024):
        got.update(zip(r.tolist(), texts))
    return got


def _diff(a: str, b: str, md: bool, context: int = CONTEXT) -> tuple[str, str]:
    """``a`` and ``b`` with the words that differ marked: deleted in ``a``, inserted in ``b``; long
    runs of equal words elided to ``context`` words each side (``…``)."""
    wa, wb = a.split()[:MAX_WORDS], b.split()[:MAX_WORDS]
    if len(wa) < 2 and len(wb) < 2:  # text without word spaces: by characters
        wa, wb = list(a)[:MAX_WORDS], list(b)[:MAX_WORDS]
        sep = ""
    else:
        sep = " "
    sm = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
    out_a, out_b = [], []
    esc = markdown_text if md else html.escape
    ops = sm.get_opcodes()
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        if op == "equal":
            run = wa[i1:i2]
            head = run[:context] if n > 0 else []
            tail = run[-context:] if n < len(ops) - 1 else []
            if len(run) > len(head) + len(tail) + 1:
                x = sep.join(filter(None, [esc(sep.join(head)), "…", esc(sep.join(tail))]))
            else:
                x = esc(sep.join(run))
            out_a.append(x)
            out_b.append(x)
            continue
        x, y = esc(sep.join(wa[i1:i2])), esc(sep.join(wb[j1:j2]))
        if x:
            out_a.append(f"~~{x}~~" if md else f"<del>{x}</del>")
        if y:
            out_b.append(f"**{y}**" if md else f"<ins>{y}</ins>")
    return sep.join(out_a), sep.join(out_b)


def _examples(res: DedupResult, source: Source) -> list[list[tuple]]:
    """A few clusters, the largest first: ``[(id, distance, similarity, text), ...]``, kept first."""
    groups = sorted(res.groups, key=lambda g: (-len(g), g[0]))[:EXAMPLES]
    rows = [r for g in groups for r in g[: MEMBERS + 1]]
    try:
        texts = _texts(source, rows)
    except (DatasetError, OSError):
        texts = {}
    out = []
    for g in groups:
        members = res.group_members(g[: MEMBERS + 1])
        out.append([(m[0], m[2], m[3], texts.get(r, "")[:TEXT_CHARS], len(g)) for r, m in zip(g, members)])
    return out


def _bars_html(rows: list[tuple[str, int]], title: str) -> str:
    if not rows:
        return f"<h2>{html.escape(title)}</h2><p>none</p>"
    top = max(c for _, c in rows) or 1
    body = "".join(
        f"<tr><td>{html.escape(label)}</td><td class=n>{c:,}</td>"
        f"<td><div class=bar style='width:{max(1, round(300 * c / top))}px'></div></td></tr>"
        for label, c in rows
    )
    return f"<h2>{html.escape(title)}</h2><table class=hist>{body}</table>"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;max-width:80em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;
vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}.bar{background:#4a7ebb;height:1em}
table.hist td{border:none}
.pair td{width:50%;white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:90%}
del{background:#f8c9c9;text-decoration:line-through}ins{background:#c9f0c9;text-decoration:none}
.meta{color:#555;font-size:90%}
"""


def render_report(res: DedupResult, source: Source, fmt: str = "html") -> str:
    """The report as text (``fmt``: "html" or "md").

    Parameters
    ----------
    res : DedupResult
        The run's result.
    source : Source
        The rows it read (:func:`simhash_lab.datasets.open_dataset`): the clusters shown side by
        side are read from it again (left empty when it can no longer be read).
    fmt : str
        ``"html"``: one self-contained page; ``"md"``: Markdown.

    Returns
    -------
    str
        The page.
    """
    md = fmt == "md"
    sims = res.similarity[np.isfinite(res.similarity)] if res.similarity.size else np.empty(0)
    edges = np.linspace(0.0, 1.0, 21)
    sim_rows = _histogram(np.clip(sims, 0, 1), edges) if sims.size else []
    sim_rows = [r for r in sim_rows if r[1]]
    size_rows = _size_histogram(res)
    examples = _examples(res, source)
    title = f"simhash-lab dedup: {source.name}"
    if md:
        # what others control (the source's name, every id and text) through markdown_text, as
        # the HTML escapes it: one line, no link, image, raw HTML or heading can come from it
        esc = markdown_text
        lines = [f"# simhash-lab dedup: {esc(source.name)}", "", res.summary(), ""]
        lines += ["| step | what | seconds |", "|---|---|---|"]
        lines += [f"| {a} | {b} | {c} |" for a, b, c in _counts(res)]
        for head, rows in (("Cluster sizes", size_rows), ("Similarity of the candidate pairs", sim_rows)):
            lines += ["", f"## {head}", "", "| bin | count |", "|---|---|"]
            lines += [f"| {a} | {b} |" for a, b in rows] or ["| none | 0 |"]
        lines += ["", "## Clusters side by side", ""]
        for ex in examples:
            kept = ex[0]
            lines.append(f"### kept {esc(kept[0])} ({kept[4]} members)")
            for m in ex[1:]:
                if m[3] == kept[3]:
                    lines += ["", f"dropped {esc(m[0])}: identical to the kept text"]
                    continue
                a, b = _diff(kept[3], m[3], True)
                lines += [
                    "",
                    f"dropped {esc(m[0])}: distance {m[1]}, similarity {m[2]:.3f}",
                    "",
                    f"> {a}",
                    ">",
                    f"> {b}",
                ]
            lines.append("")
        return "\n".join(lines) + "\n"
    parts = [
        f"<!doctype html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>",
        f"<p>{html.escape(res.summary())}</p>",
        "<h2>Steps</h2><table><tr><th>step</th><th>what</th><th>seconds</th></tr>",
    ]
    parts += [
        f"<tr><td>{html.escape(a)}</td><td>{html.escape(b)}</td><td class=n>{c}</td></tr>"
        for a, b, c in _counts(res)
    ]
    parts.append("</table>")
    parts.append(_bars_html(size_rows, "Cluster sizes (members, kept one included)"))
    parts.append(
        _bars_html(
            sim_rows,
            "Jaccard similarity of the candidate pairs"
            + (f" (verified: >= {res.jaccard:g})" if res.jaccard is not None else ""),
        )
    )
    parts.append("<h2>Clusters side by side</h2>")
    if not examples:
        parts.append("<p>no cluster</p>")
    for ex in examples:
        kept = ex[0]
        parts.append(f"<h3>kept {html.escape(str(kept[0]))} <span class=meta>({kept[4]} members)</span></h3>")
        for m in ex[1:]:
            if m[3] == kept[3]:
                parts.append(
                    f"<p class=meta>dropped {html.escape(str(m[0]))}: identical to the kept text</p>"
                )
                continue
            a, b = _diff(kept[3], m[3], False)
            parts.append(
                f"<p class=meta>dropped {html.escape(str(m[0]))}: distance {m[1]}, similarity {m[2]:.3f}</p>"
                "<table class=pair><tr><th>kept</th><th>dropped</th></tr>"
                f"<tr><td>{a}</td><td>{b}</td></tr></table>"
            )
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(path: str | os.PathLike[str], res: DedupResult, source: Source) -> None:
    """Write the report of ``res`` (a :class:`~simhash_lab.dedup.DedupResult`) read from
    ``source`` to ``path`` (``.html`` or ``.md``).

    Parameters
    ----------
    path : str or os.PathLike
        The report's file (its ending gives the format, :func:`check_report_name`), written by
        :func:`simhash_lab._write.atomic_output`.
    res : DedupResult
        The run's result.
    source : Source
        The rows it read, as for :func:`render_report`.

    Raises
    ------
    DatasetError
        The name ends in neither ``.html``/``.htm`` nor ``.md``.
    simhash_lab._write.OutputError
        The file cannot be written.
    """
    text = render_report(res, source, check_report_name(path))
    atomic_write(os.fspath(path), "w", lambda f: f.write(text), encoding="utf-8")
