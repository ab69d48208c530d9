"""Mixed scripts and paragraph units against an exact truth computed here, in plain Python
(issue 46): what ``features="auto"`` and ``unit="paragraph"`` decide, measured on corpora nobody here
wrote.

    .venv/bin/python benchmarks/bench_dedup_mixed.py                  # both parts
    .venv/bin/python benchmarks/bench_dedup_mixed.py --part mixed     # scripts mixed in a text
    .venv/bin/python benchmarks/bench_dedup_mixed.py --part mixed --against /tmp/base/python
    .venv/bin/python benchmarks/bench_dedup_mixed.py --dask           # and dedup_dataset, 2 workers

**Mixed scripts**: the translated messages of this machine's programs (the gettext catalogues under
``/usr/share/locale``: Simplified and Traditional Chinese, Japanese, Korean, Thai, with their English
originals), which hold Latin words, option names, digits and format codes inside CJK and Thai
text, one to three consecutive messages a document; near-copies made by known edits (a character
replaced, an English word put into a CJK text, a word replaced, punctuation dropped). The truth:
the definition of :func:`simhash_lab.shingles.script_run_sets` written again from its words with
the ``regex`` package's script properties, each shingle a str (no hash), the exact Jaccard of
every pair that shares one (pairs that share none are at 0), the threshold 0.8. Reported: the
precision and recall of the verified pairs, the largest difference between our similarity and the
truth's on every verified pair, the decisions against a tree before the change (``--against``:
which rows' decisions differ, by kind of text), and with ``--dask`` the keep mask of
``dedup_dataset`` (two workers) against ``dedup_table``'s.

**Paragraphs** (``--part paragraphs``): pages made of a shared header and footer (three
paragraphs each, the same on every page of a site) around a body of one to four paragraphs of
their own (Python's reference documentation, ``pydoc_data.topics``), some bodies copied onto a
second page, some with a word edited; ``unit="paragraph"`` must keep every distinct body (each page
keeps its own paragraphs) while removing every repeat of a shared paragraph, and whole-document
dedup is shown beside it. The truth: paragraphs split and normalised in plain Python, a paragraph
dropped when an earlier one (in input order) has the same normalised text or Jaccard >= 0.8 of
its word 3-shingles (exact, every pair), a page dropped whole when what is left has fewer than
``min_kept_words`` words.

The CPU (``/proc/cpuinfo``) and the load are printed beside the figures.
"""

from __future__ import annotations

import argparse
import collections
import gettext
import glob
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

import regex

from simhash_lab import dedup_texts
from simhash_lab.dedup.steps import Verify

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _corpus import python_doc_paragraphs  # noqa: E402
from _truth import UNS, normalise, true_pairs, truth_set, unit_truth  # noqa: E402  (the truth, written here)

T = 0.8
LOCALES = {"zh_CN": 1400, "zh_TW": 500, "ja": 900, "ko": 400, "th": 300}


def machine() -> str:
    model = flags = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "?":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags") and flags == "?":
                    have = set(line.split(":", 1)[1].split())
                    flags = " ".join(x for x in ("avx2", "avx512f", "avx512bw") if x in have) or "no avx2"
    except OSError:
        pass
    load = os.getloadavg()[0]
    return f"{model} ({flags}), {os.cpu_count()} CPUs, Python {platform.python_version()}, load {load:.1f}"


# -- the mixed corpus ---------------------------------------------------------------------------


def catalogue_texts(locale: str, want: int, rng: random.Random) -> tuple[list, list]:
    """Documents of one locale's translated messages (one to three consecutive ones, at least 40
    characters), and as many of their English originals."""
    msgs, english = [], []
    for path in sorted(glob.glob(f"/usr/share/locale/{locale}/LC_MESSAGES/*.mo")):
        try:
            with open(path, "rb") as f:
                cat = gettext.GNUTranslations(f)._catalog
        except (OSError, Exception):  # noqa: BLE001 - a catalogue Python cannot read is left out
            continue
        items = [(k, v) for k, v in cat.items() if isinstance(k, str) and k and isinstance(v, str) and v]
        for a in range(0, len(items) - 3, 3):
            group = items[a : a + rng.randint(1, 3)]
            text = "\n".join(v for _, v in group)
            if len(text) >= 40:
                msgs.append(text)
                english.append("\n".join(k for k, _ in group))
    rng.shuffle(pairs := list(zip(msgs, english)))
    pairs = pairs[:want]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def edit(text: str, rng: random.Random) -> tuple[str, str]:
    """A near-copy by one known edit, and its name."""
    cjk = [i for i, ch in enumerate(text) if UNS.match(ch)]
    words = [m for m in regex.finditer(r"[A-Za-z]{3,}", text)]
    ops = ["replace a character", "insert an English word", "drop punctuation", "append a word"]
    if words:
        ops.append("replace a Latin word")
    op = rng.choice(ops)
    if op == "replace a character" and cjk:
        i = rng.choice(cjk)
        return text[:i] + chr(0x4E00 + rng.randrange(20000)) + text[i + 1 :], op
    if op == "insert an English word" and cjk:
        i = rng.choice(cjk)
        return text[:i] + rng.choice(["Linux", "file", "OK", "Python ", " GNU "]) + text[i:], op
    if op == "replace a Latin word" and words:
        m = rng.choice(words)
        return text[: m.start()] + rng.choice(["stdin", "socket", "Debian"]) + text[m.end() :], op
    if op == "drop punctuation":
        return regex.sub(r"[\p{P}]", "", text, count=1), op
    return text + rng.choice([" OK", " 完成", " done."]), "append a word"


def mixed_corpus(seed: int = 0) -> tuple[list, list]:
    rng = random.Random(seed)
    texts, kinds = [], []
    for loc, want in LOCALES.items():
        t, e = catalogue_texts(loc, want, rng)
        texts += t
        kinds += [loc] * len(t)
        take = e[: want // 4]
        texts += take
        kinds += ["en"] * len(take)
    n = len(texts)
    for i in rng.sample(range(n), n // 4):
        t, op = edit(texts[i], rng)
        texts.append(t)
        kinds.append(kinds[i] + ": " + op)
    return texts, kinds


def verified_set(res) -> tuple[set, dict]:
    """Every near-duplicate pair the run verified (exact copies' too), and each candidate pair's
    similarity."""
    got = {(int(a), int(b)) for a, b, _ in res.verified_pairs().tolist()}
    sim = {(a, b): s for (a, b, _), s in zip(res.pairs.tolist(), res.similarity.tolist())}
    return got, sim


def part_mixed(args) -> None:
    texts, kinds = mixed_corpus()
    print(f"mixed corpus: {len(texts)} documents ({collections.Counter(k.split(':')[0] for k in kinds)})")
    t0 = time.perf_counter()
    sets = [truth_set(t) for t in texts]
    truth = true_pairs(sets)
    print(
        f"truth (plain Python, str shingles): {len(truth)} pairs at Jaccard >= {T} "
        f"({time.perf_counter() - t0:.1f} s)"
    )
    res = dedup_texts(texts)
    got, sim = verified_set(res)
    tp = len(got & set(truth))
    print(
        f"ours, features='auto': {len(got)} verified pairs, precision {tp / max(len(got), 1):.4f}, recall "
        f"{tp / max(len(truth), 1):.4f}; {res.by_chars} rows with runs of an unspaced script"
    )
    diffs, below = [], 0
    for (a, b), s in sim.items():
        u = len(sets[a] | sets[b])
        true = len(sets[a] & sets[b]) / u if u else 0.0
        if s < 0:  # not computed exactly: below jaccard - MARGIN (dedup.steps.Verify.floor)
            below += 1
            if true >= T - Verify.MARGIN:
                diffs.append(float("inf"))  # a pair the run should have measured
            continue
        diffs.append(abs(s - true))
    print(
        f"  our similarity against the truth's on every candidate pair measured exactly ({len(diffs)}; "
        f"{below} below {T - Verify.MARGIN:.2f} not measured): largest difference {max(diffs, default=0):.2e}"
    )
    missed = [(a, b) for (a, b) in truth if (a, b) not in got]
    for a, b in missed[:5]:
        print(f"  missed ({truth[(a, b)]:.3f}): {kinds[a]} / {kinds[b]}")
    by = collections.Counter()
    for _, b in got & set(truth):
        by[kinds[b].split(":")[0]] += 1
    print(f"  true pairs found, by the second row's language: {dict(by)}")
    old_rule = dedup_texts(texts, features="words")
    og, _ = verified_set(old_rule)
    print(f"  beside: words only (no runs): recall {len(og & set(truth)) / max(len(truth), 1):.4f}")
    if args.against:
        compare_against(args.against, texts, kinds, res, truth)
    if args.dask:
        dask_agrees(texts, res, {})


def compare_against(python: str, texts: list, kinds: list, res, truth: dict) -> None:
    """The same texts through another tree's interpreter: whose decisions differ, by kind."""
    with tempfile.TemporaryDirectory() as d:
        data = os.path.join(d, "texts.json")
        with open(data, "w", encoding="utf-8") as f:
            json.dump(texts, f)
        code = (
            "import json, sys; from simhash_lab import dedup_texts; "
            f"r = dedup_texts(json.load(open({data!r}, encoding='utf-8'))); "
            "print(json.dumps([r.keep.tolist(), r.verified_pairs().tolist()]))"
        )
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd="/", check=True)
    before, pairs = json.loads(out.stdout)
    after = res.keep.tolist()
    old = {(a, b) for a, b, _ in pairs}
    print(
        f"  against {python}: its verified pairs find {len(old & set(truth)) / max(len(truth), 1):.4f} "
        "of the true ones"
    )
    differ = collections.Counter()
    total = collections.Counter()
    for k, b, a in zip(kinds, before, after):
        kind = k.split(":")[0]
        total[kind] += 1
        differ[kind] += b != a
    latin = regex.compile(r"[^\W\d_]")
    pure = [
        i for i, t in enumerate(texts)
        if any(UNS.match(ch) for ch in t)
        and not any(latin.match(ch) and not UNS.match(ch) for ch in normalise(t))
    ]  # fmt: skip
    pure_diff = sum(before[i] != after[i] for i in pure)
    en = [i for i, k in enumerate(kinds) if k.startswith("en")]
    en_diff = sum(before[i] != after[i] for i in en)
    print(
        f"  against {python}: decisions that differ by kind: "
        + ", ".join(f"{k} {differ[k]}/{total[k]}" for k in total)
    )
    print(
        f"    texts of an unspaced script and no other letters: {pure_diff} of {len(pure)} differ; "
        f"English: {en_diff} of {len(en)}"
    )


def dask_agrees(texts: list, res, options: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from simhash_lab import distributed as D

    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "in"))
        step = (len(texts) + 3) // 4
        for p in range(4):
            rows = texts[p * step : (p + 1) * step]
            pq.write_table(pa.table({"text": rows}), os.path.join(d, "in", f"p{p}.parquet"))
        cluster, client = D.local_cluster(2)
        try:
            D.dedup_dataset(os.path.join(d, "in"), os.path.join(d, "out"), **options)
        finally:
            client.close()
            cluster.close()
        dropped = (
            pq.read_table(os.path.join(d, "out", "duplicates.parquet")).column("dropped_row").to_pylist()
        )
    same = sorted(dropped) == sorted(res.duplicates.dropped.tolist())
    print(
        f"  dedup_dataset (2 workers, 4 parts) drops the same rows as dedup_texts: {same} "
        f"({len(dropped)} dropped)"
    )


HEADERS = [
    [
        "Example News",
        "Home | World | Business | Sport | Weather | Contact",
        "Breaking: read our latest stories",
    ],
    ["The Garden Journal", "Plants | Tools | Seasons | Shop | About us", "Sign in to save your favourites"],
]
FOOTERS = [
    ["Copyright 2024 Example News Ltd. All rights reserved.", "Follow us on Mastodon and RSS for updates.",
     "Privacy policy | Terms of use | Cookie settings"],
    ["The Garden Journal is published by Green Leaf Media.", "Newsletter: one email a week, no spam.",
     "Privacy | Terms | Accessibility"],
]  # fmt: skip


def boilerplate_corpus(pages: int = 450, seed: int = 1) -> tuple[list, list]:
    """Pages of two sites: a site's header (3 paragraphs) and footer (3) around a body of 1 to 4
    paragraphs of Python's reference documentation of its own; some bodies copied onto another
    page (the same article twice), some with one word edited (a near-copy of a paragraph). Returns
    the pages and each page's body (its paragraphs)."""
    rng = random.Random(seed)
    paras = sorted(set(python_doc_paragraphs(min_words=12)))  # 1258 distinct: the corpus holds ~1100
    rng.shuffle(paras)
    pages_out, bodies = [], []
    at = 0
    for _ in range(pages):
        site = rng.randrange(2)
        r = rng.random()
        if bodies and r < 0.08:
            body = list(rng.choice(bodies))  # the same article on a second page
        elif bodies and r < 0.16:
            body = list(rng.choice(bodies))
            i = rng.randrange(len(body))
            w = body[i].split()
            w[rng.randrange(len(w))] = "edited"
            body[i] = " ".join(w)
        else:
            k = rng.randint(1, 4)
            body = paras[at : at + k]
            at += k
        bodies.append(body)
        parts = HEADERS[site] + body + FOOTERS[site]
        pages_out.append("\n\n".join(parts) + "\n")
    return pages_out, bodies


def part_paragraphs(args) -> None:
    texts, bodies = boilerplate_corpus()
    print(
        f"boilerplate corpus: {len(texts)} pages of 2 sites, header and footer 3 paragraphs each, bodies "
        "of 1 to 4 paragraphs of pydoc_data.topics (8 % copied, 8 % with a word edited)"
    )
    t0 = time.perf_counter()
    want = unit_truth(texts, "paragraph")
    secs = time.perf_counter() - t0
    print(
        f"truth (plain Python): {len(want['units'])} paragraphs, {len(want['pairs'])} pairs at Jaccard "
        f">= {T} or the same text, {len(want['dropped'])} dropped ({secs:.1f} s)"
    )
    res = dedup_texts(texts, unit="paragraph")
    print(" ", res.summary())
    got = {(int(a), int(b)) for a, b, _ in res.verified_pairs().tolist()}
    truth = set(want["pairs"])
    tp = len(got & truth)
    print(
        f"  pairs of paragraphs: precision {tp / max(len(got), 1):.4f}, recall {tp / max(len(truth), 1):.4f}"
    )
    dropped = {int(r): int(k) for r, k in zip(res.duplicates.dropped.tolist(), res.duplicates.kept.tolist())}
    same = dropped == want["dropped"]
    print(f"  paragraphs dropped, each for the same kept one, as the truth's: {same} ({len(dropped)})")
    print(f"  pages dropped whole: {sorted(res.whole.tolist()) == sorted(want['whole'])} "
          f"({len(res.whole)}, truth {len(want['whole'])})")  # fmt: skip
    kept = res.kept_texts(texts)
    kept_paras = collections.Counter(p.strip() for t in kept for p in t.split("\n\n") if p.strip())
    distinct = {p.strip() for b in bodies for p in b}
    lost = [p for p in distinct if kept_paras[p] == 0]
    sets = {q: truth_set(q) for q in kept_paras}
    near = [p for p in lost if any(len(truth_set(p) & b) >= T * len(truth_set(p) | b) for b in sets.values())]
    lost = [p for p in lost if p not in near]  # a near-copy of a kept paragraph is dropped by definition
    shared = [p for parts in HEADERS + FOOTERS for p in parts]
    print(f"  every distinct body paragraph kept: {not lost} ({len(distinct)} distinct, {len(near)} of them "
          f"near-copies (Jaccard >= {T}) of a kept one, {len(lost)} lost); "
          f"each shared paragraph kept once: {all(kept_paras[p] == 1 for p in shared)} "
          f"(copies of them left: {sum(kept_paras[p] for p in shared) - len(shared)})")  # fmt: skip
    whole = dedup_texts(texts)
    lost_whole = sum(1 for i, k in enumerate(whole.keep.tolist()) if not k and bodies[i] not in
                     [bodies[j] for j in range(i) if whole.keep[j]])  # fmt: skip
    print(f"  beside, whole documents: {len(whole.duplicates)} pages dropped, of which {lost_whole} had a "
          "body no kept page has (dropped for their header and footer)")  # fmt: skip
    if args.dask:
        dask_agrees(texts, res, {"unit": "paragraph"})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=["mixed", "paragraphs", "both"], default="both")
    ap.add_argument("--against", metavar="PYTHON", help="another tree's interpreter: whose decisions differ")
    ap.add_argument("--dask", action="store_true", help="also dedup_dataset on 2 workers")
    args = ap.parse_args()
    print(machine())
    if args.part in ("mixed", "both"):
        part_mixed(args)
    if args.part in ("paragraphs", "both"):
        part_paragraphs(args)


if __name__ == "__main__":
    sys.exit(main())
