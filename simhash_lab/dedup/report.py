"""The report of a dedup run (``--report report.html``, ``dedup_table(..., report=)``): one
self-contained page a person can look at.

It shows the counts of each step (rows read, featureless, exact copies, candidates, verified pairs,
dropped, clusters) with the seconds each step took, the histogram of cluster sizes, the histogram
of the verified similarities (and of the candidates' that failed), the calibration; then the
decisions that matter: the pairs nearest the threshold on both sides (dropped at ``jaccard`` to
``jaccard + 0.05``, kept apart at ``jaccard - 0.05`` to just below it, among the candidate pairs),
so that a reader can judge the threshold, and a few clusters chosen by what they tell (those with
a member least like its kept text first; the clusters of exact copies alone counted in one line).
Each pair is shown side by side, the words that differ highlighted (``difflib``: deleted words
struck through, inserted ones marked; a character of Chinese, Japanese or Thai is a word there).
The charts are plain HTML (no script, no image, nothing loaded from the network), so the page opens
anywhere, from a file. ``.md`` gives the same in Markdown (tables; ``~~deleted~~`` and
``**inserted**`` words), every id, text and name in it escaped as the HTML's are
(:func:`simhash_lab._escape.markdown_text`: one line, no link, image, raw HTML or heading can come
from the data).
"""

from __future__ import annotations

import difflib
import html
import os
from typing import Any

import numpy as np

from .._escape import markdown_text
from .._i18n import counted
from .._unicode import UNSPACED_SCRIPTS
from .._write import atomic_write
from ..datasets import DatasetError, Source
from .results import DedupResult
from .steps import VERIFY

__all__ = ["check_report_name", "render_report", "write_report"]

REPORT_FORMATS = (".html", ".htm", ".md")
EXAMPLES = 5  # clusters shown side by side, and pairs on each side of the threshold
NEAR = VERIFY.MARGIN  # how far from the threshold a pair is "near" it (similarities exact from there)
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
        (
            "read",
            f"{n:,} rows" if res.units is None else f"{len(res.units):,} {res.units.unit}s of {n:,} rows",
            sec("read"),
        ),  # fmt: skip
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
            f"({_opt(res, 'linkage')} linkage){res.documents_note()}",
            sec("cluster"),
        ),
        ("write", "", sec("write")),
    ]
    c = res.settings.get("candidates") or {} if isinstance(res.settings, dict) else {}
    if c.get("chosen_by") == "plan":  # the bands chosen before the read, from its first rows
        said = (
            f"{c['bands']} bands of {c['rows']} rows: {c['sample_pairs']:,} candidate pairs in the first "
            f"{c['sample']:,} rows, {c['expected_pairs']:,} expected of {c['rows_reckoned']:,}"
        )
        rows.insert(0, ("plan", said, sec("plan")))
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


def _tokens(text: str) -> tuple[list[str], list[bool]]:
    """The words of ``text`` for a word-level difference, and after which of them it had
    whitespace: each character of a script written without word spaces is a word of its own
    (its words are not spaced apart), the runs of other characters between spaces are the others."""
    global _TOKEN
    if _TOKEN is None:
        import regex

        uns = "".join(f"\\p{{Script={s}}}" for s in UNSPACED_SCRIPTS)
        _TOKEN = regex.compile(rf"[{uns}]|[^\s{uns}]+")
    text = text[:TEXT_CHARS]
    words, spaced = [], []
    for m in _TOKEN.finditer(text):
        words.append(m.group())
        spaced.append(m.end() < len(text) and text[m.end()].isspace())
        if len(words) >= MAX_WORDS:
            break
    return words, spaced


_TOKEN = None


def _joined(words: list[str], spaced: list[bool]) -> str:
    """Words joined as the text had them: a space after those that had whitespace after them."""
    return "".join(w + (" " if s else "") for w, s in zip(words, spaced)).rstrip()


def _diff(a: str, b: str, md: bool, context: int = CONTEXT) -> tuple[str, str]:
    """``a`` and ``b`` with the words that differ marked: deleted in ``a``, inserted in ``b``; long
    runs of equal words elided to ``context`` words each side (``…``). Words are :func:`_tokens`':
    a Chinese or Japanese character is one, so a text mixing scripts is compared word by word
    where it has words and character by character where it has none; the spaces shown are the
    texts' own (runs of whitespace as one space: a report shows words, not layout)."""
    (wa, sa), (wb, sb) = _tokens(a), _tokens(b)
    sm = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
    esc = markdown_text if md else html.escape
    out_a, out_b = [], []

    def put(out: list, words: list, spaced: list, mark: str | None) -> None:
        text = esc(_joined(words, spaced))
        if not text:
            return
        if mark is not None:
            text = f"{mark}{text}{mark}" if md else f"<{mark}>{text}</{mark}>"
        out.append(text + (" " if spaced[-1] else ""))

    ops = sm.get_opcodes()
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        if op == "equal":
            head = context if n > 0 else 0
            tail = context if n < len(ops) - 1 else 0
            if i2 - i1 > head + tail + 1:  # the run elided to its ends
                for out in (out_a, out_b):
                    if head:
                        put(out, wa[i1 : i1 + head], [*sa[i1 : i1 + head - 1], True], None)
                    out.append("… ")
                    if tail:
                        put(out, wa[i2 - tail : i2], sa[i2 - tail : i2], None)
            else:
                put(out_a, wa[i1:i2], sa[i1:i2], None)
                put(out_b, wb[j1:j2], sb[j1:j2], None)
            continue
        if i2 > i1:
            put(out_a, wa[i1:i2], sa[i1:i2], "~~" if md else "del")
        if j2 > j1:
            put(out_b, wb[j1:j2], sb[j1:j2], "**" if md else "ins")
    return "".join(out_a).rstrip(), "".join(out_b).rstrip()


def _informative(res: DedupResult) -> tuple[list[list[int]], list[list[int]]]:
    """The clusters worth a look, and those of exact copies alone. A cluster is worth a look when
    a member differs from the kept text (similarity below 1): these are ordered by their lowest
    similarity (the decision nearest the threshold first), then by size; a cluster of exact copies
    only (identical normalised texts) says nothing of the threshold."""
    d = res.duplicates
    low = dict(zip(d.dropped.tolist(), d.similarity.tolist()))
    looks, copies = [], []
    for g in res.groups:
        sims = [low.get(r, 1.0) for r in g[1:]]
        lowest = min((x for x in sims if x == x), default=1.0)
        (looks if lowest < 1.0 else copies).append((lowest, -len(g), g[0], g))
    looks.sort()
    copies.sort(key=lambda x: (x[1], x[2]))
    return [x[3] for x in looks], [x[3] for x in copies]


def _examples(res: DedupResult, source: Source) -> list[list[tuple]]:
    """A few clusters chosen by what they tell (:func:`_informative`): ``[(id, distance,
    similarity, text, members), ...]``, the kept one first, then the members least like it."""
    looks, _ = _informative(res)
    d = res.duplicates
    low = dict(zip(d.dropped.tolist(), d.similarity.tolist()))
    groups = []
    for g in looks[:EXAMPLES]:
        shown = sorted(g[1:], key=lambda r: (low.get(r, 1.0), r))[:MEMBERS]
        groups.append((g, [g[0], *shown]))
    rows = [r for _, shown in groups for r in shown]
    try:
        texts = _texts(source, rows)
    except (DatasetError, OSError):
        texts = {}
    out = []
    for g, shown in groups:
        members = res.group_members(shown)
        out.append(
            [(m[0], m[2], m[3], texts.get(r, "")[:TEXT_CHARS], len(g)) for r, m in zip(shown, members)]
        )
    return out


def _near(res: DedupResult) -> tuple[list[tuple], list[tuple]]:
    """The decisions nearest the threshold, on both sides: ``(dropped, kept)``, each a list of
    ``(row a, row b, similarity, distance)``, nearest first. Dropped: rows of the duplicates table
    at ``jaccard`` to ``jaccard + NEAR`` (not identical texts); kept: candidate pairs verified at
    ``jaccard - NEAR`` to just below it, so both stayed apart. Empty without a threshold."""
    j = res.jaccard
    if j is None:
        return [], []
    d = res.duplicates
    drop = [
        (k, r, s, dist)
        for r, k, s, dist in zip(
            d.dropped.tolist(), d.kept.tolist(), d.similarity.tolist(), d.distance.tolist()
        )
        if j <= s < min(j + NEAR, 1.0)
    ]
    drop.sort(key=lambda x: (x[2], x[1]))
    kept = [
        (a, b, s, dist)
        for (a, b, dist), s in zip(res.pairs.tolist(), res.similarity.tolist())
        if j - NEAR <= s < j
    ]
    kept.sort(key=lambda x: (-x[2], x[0], x[1]))
    return drop[:EXAMPLES], kept[:EXAMPLES]


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


def _decisions(res: DedupResult, source: Source) -> tuple[list, list, str, list]:
    """What the report shows of the decisions: the pairs nearest the threshold on both sides and
    the clusters chosen by what they tell, with their texts (read again from ``source``; empty
    when it can no longer be read), and one line on the clusters of exact copies alone."""
    drop, kept = _near(res)
    rows = sorted({r for x in drop + kept for r in x[:2]})
    try:
        texts = _texts(source, rows)
    except (DatasetError, OSError):
        texts = {}
    ids = res.row_ids  # the rows' ids (with units: each unit's document's)

    def pair(a: int, b: int, s: float, dist: int) -> tuple:
        return ids[a], ids[b], s, dist, texts.get(a, "")[:TEXT_CHARS], texts.get(b, "")[:TEXT_CHARS]

    near = []
    if res.jaccard is not None:
        j = res.jaccard
        near.append((
            f"Dropped at Jaccard {j:.2f} to {min(j + NEAR, 1.0):.2f} (near-duplicates by a little)",
            "dropped", [pair(*x) for x in drop],
        ))  # fmt: skip
        near.append((
            f"Kept apart at Jaccard {max(j - NEAR, 0.0):.2f} to just below {j:.2f} (not near enough, "
            "among the candidate pairs)",
            "kept apart", [pair(*x) for x in kept],
        ))  # fmt: skip
    _, copies = _informative(res)
    said = ""
    if copies:
        big = copies[0]
        said = (
            counted(len(copies), "1 cluster is", "{n} clusters are")
            + " exact copies alone (identical normalised text), not shown; the largest has "
            + f"{len(big)} members"
        )
    return near, _examples(res, source), said, [ids[copies[0][0]]] if copies else []


def render_report(res: DedupResult, source: Source, fmt: str = "html") -> str:
    """The report as text (``fmt``: "html" or "md").

    Beside the counts, the seconds and the histograms, the decisions that matter: the pairs
    nearest the threshold on both sides (dropped at ``jaccard`` to ``jaccard + 0.05``, kept apart
    at ``jaccard - 0.05`` to just below it), each with its word-level difference, so that a reader
    can judge the threshold; and the clusters chosen by what they tell (a member least like its
    kept text first), the clusters of exact copies alone counted in one line.

    Parameters
    ----------
    res : DedupResult
        The run's result.
    source : Source
        The rows it read (:func:`simhash_lab.datasets.open_dataset`): the texts shown are read
        from it again (left empty when it can no longer be read).
    fmt : str
        ``"html"``: one self-contained page; ``"md"``: Markdown.

    Returns
    -------
    str
        The page.
    """
    md = fmt == "md"
    sims = res.similarity[np.isfinite(res.similarity)] if res.similarity.size else np.empty(0)
    below = int(np.count_nonzero(sims < 0))  # Verify.BELOW: under jaccard - NEAR, not computed
    sims = sims[sims >= 0]
    edges = np.linspace(0.0, 1.0, 21)
    sim_rows = _histogram(np.clip(sims, 0, 1), edges) if sims.size else []
    sim_rows = [r for r in sim_rows if r[1]]
    if below and res.jaccard is not None:
        sim_rows.insert(0, (f"below {max(res.jaccard - NEAR, 0.0):.2f} (not computed exactly)", below))
    size_rows = _size_histogram(res)
    near, examples, copies_said, copies_kept = _decisions(res, source)
    cluster_note = (
        "Chosen by what they tell: the clusters with a member least like its kept text first (the "
        "decisions nearest the threshold), each with its least alike members."
    )
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
        if near:
            lines += ["", "## Decisions nearest the threshold", ""]
        for head, verb, pairs in near:
            lines += [f"### {head}", ""]
            if not pairs:
                lines += ["none", ""]
            for ia, ib, sim, dist, ta, tb in pairs:
                a, b = _diff(ta, tb, True)
                what = (
                    f"{esc(ib)} dropped for {esc(ia)}"
                    if verb == "dropped"
                    else f"{esc(ia)} and {esc(ib)} kept apart"
                )
                lines += [f"{what}: similarity {sim:.3f}, distance {dist}", "", f"> {a}", ">", f"> {b}", ""]
        lines += ["", "## Clusters side by side", "", cluster_note, ""]
        if copies_said:
            lines += [f"{copies_said} (kept: {esc(copies_kept[0])}).", ""]
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
    e = lambda x: html.escape(str(x))  # noqa: E731
    parts = [
        f"<!doctype html><html><head><meta charset=utf-8><title>{e(title)}</title>",
        f"<style>{_CSS}</style></head><body><h1>{e(title)}</h1>",
        f"<p>{e(res.summary())}</p>",
        "<h2>Steps</h2><table><tr><th>step</th><th>what</th><th>seconds</th></tr>",
    ]
    parts += [f"<tr><td>{e(a)}</td><td>{e(b)}</td><td class=n>{c}</td></tr>" for a, b, c in _counts(res)]
    parts.append("</table>")
    parts.append(_bars_html(size_rows, "Cluster sizes (members, kept one included)"))
    parts.append(
        _bars_html(
            sim_rows,
            "Jaccard similarity of the candidate pairs"
            + (f" (verified: >= {res.jaccard:g})" if res.jaccard is not None else ""),
        )
    )
    if near:
        parts.append("<h2>Decisions nearest the threshold</h2>")
    for head, verb, pairs in near:
        parts.append(f"<h3>{e(head)}</h3>")
        if not pairs:
            parts.append("<p>none</p>")
        for ia, ib, sim, dist, ta, tb in pairs:
            a, b = _diff(ta, tb, False)
            what = f"{e(ib)} dropped for {e(ia)}" if verb == "dropped" else f"{e(ia)} and {e(ib)} kept apart"
            left, right = ("kept", "dropped") if verb == "dropped" else (e(ia), e(ib))
            parts.append(
                f"<p class=meta>{what}: similarity {sim:.3f}, distance {dist}</p>"
                f"<table class=pair><tr><th>{left}</th><th>{right}</th></tr>"
                f"<tr><td>{a}</td><td>{b}</td></tr></table>"
            )
    parts.append(f"<h2>Clusters side by side</h2><p class=meta>{e(cluster_note)}</p>")
    if copies_said:
        parts.append(f"<p class=meta>{e(copies_said)} (kept: {e(copies_kept[0])}).</p>")
    if not examples:
        parts.append("<p>no cluster with a member unlike its kept text</p>")
    for ex in examples:
        kept = ex[0]
        parts.append(f"<h3>kept {e(kept[0])} <span class=meta>({kept[4]} members)</span></h3>")
        for m in ex[1:]:
            if m[3] == kept[3]:
                parts.append(f"<p class=meta>dropped {e(m[0])}: identical to the kept text</p>")
                continue
            a, b = _diff(kept[3], m[3], False)
            parts.append(
                f"<p class=meta>dropped {e(m[0])}: distance {m[1]}, similarity {m[2]:.3f}</p>"
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
