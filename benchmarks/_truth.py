"""The exact truths of issue 46's measurements, written in plain Python from the definitions' words
(no hash, no NumPy, nothing of ``simhash_lab``): each shingle a str, each Jaccard from two Python
sets. ``bench_dedup_mixed.py`` and ``tests/lib/dedup/test_units.py`` read this one file.

* :func:`truth_set`: the shingles of ``features="auto"`` (``simhash_lab.shingles.script_run_sets``):
  character 3-grams over the runs of an unspaced script, word 3-shingles over the other words;
* :func:`true_pairs`: every pair at a threshold or above, by exact Jaccard;
* :func:`paragraphs`, :func:`unit_truth`: paragraph (and line) units and what ``unit="paragraph"``
  must remove.
"""

from __future__ import annotations

import collections
import itertools
import unicodedata

import regex

UNSPACED = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer", "Myanmar", "Tibetan")
UNS = regex.compile("[" + "".join(f"\\p{{Script={s}}}" for s in UNSPACED) + "]")
_NEUTRAL = regex.compile(r"[\p{Script=Common}\p{Script=Inherited}]")
_CF = regex.compile(r"\p{Cf}+")


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", _CF.sub("", text)) if not text.isascii() else text


def is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def runs_and_words(text: str) -> tuple[list, list]:
    """The runs of an unspaced script in ``text`` (each a list of its characters, lowercased) and
    its other words (lowercased), by the definition of ``simhash_lab.shingles.script_run_sets``:
    a character of no script (Common, Inherited) takes the script of the nearest word character
    before it that has one, else after it, else another script's."""
    text = normalise(text)
    places = [(i, ch) for i, ch in enumerate(text) if is_word(ch)]
    kind = ["u" if UNS.match(ch) else ("n" if _NEUTRAL.match(ch) else "o") for _, ch in places]
    own = list(kind)
    for i, k in enumerate(own):
        if k == "n":
            before = next((own[j] for j in range(i - 1, -1, -1) if own[j] != "n"), None)
            after = next((own[j] for j in range(i + 1, len(own)) if own[j] != "n"), None)
            kind[i] = before or after or "o"
    runs, words = [], []
    run, word, last_pos = [], [], -2
    for (pos, ch), k in zip(places, kind):
        if k == "u":
            run.append(ch.lower())
            if word:
                words.append("".join(word))
                word = []
        else:
            if run:
                runs.append(run)
                run = []
            if word and pos != last_pos + 1:
                words.append("".join(word))
                word = []
            word.append(ch)
        last_pos = pos
    if run:
        runs.append(run)
    if word:
        words.append("".join(word))
    return runs, [w.lower() for w in words]


def truth_set(text: str, n_words: int = 3, n_chars: int = 3) -> set:
    """The shingles of ``features="auto"`` as str: character ``n_chars``-grams of each run (a run
    shorter: one shingle of it), word ``n_words``-shingles of the other words joined by a space (fewer:
    one shingle of them all)."""
    runs, words = runs_and_words(text)
    out = set()
    for r in runs:
        out |= {("c", "".join(r[i : i + n_chars])) for i in range(max(len(r) - n_chars + 1, 1))}
    if words:
        out |= {("w", " ".join(words[i : i + n_words])) for i in range(max(len(words) - n_words + 1, 1))}
    return out


def word_count(text: str) -> int:
    """Words as ``unit=``'s ``min_kept_words`` counts them: each character of a run, each other word."""
    runs, words = runs_and_words(text)
    return sum(map(len, runs)) + len(words)


def true_pairs(sets: list, threshold: float = 0.8) -> dict:
    """``{(i, j): J}`` for every pair at ``threshold`` or above: an inverted index of the shingles
    gives every pair that shares one, each pair's exact Jaccard from its two sets."""
    index = collections.defaultdict(list)
    for i, s in enumerate(sets):
        for x in s:
            index[x].append(i)
    cand = set()
    for docs in index.values():
        if 1 < len(docs) < 2000:
            cand.update(itertools.combinations(docs, 2))
        elif len(docs) >= 2000:  # a very common shingle: its pairs are reached through others
            continue
    out = {}
    for i, j in cand:
        a, b = sets[i], sets[j]
        u = len(a | b)
        jac = len(a & b) / u if u else 0.0
        if jac >= threshold:
            out[(i, j)] = jac
    return out


# -- units: paragraphs and lines ----------------------------------------------------------------


def paragraphs(text: str, unit: str = "paragraph") -> list[str]:
    """The units of ``text``, each without the whitespace around it: a paragraph is a run of lines
    that are not blank (whitespace only), a line a line that is not blank."""
    lines = text.split("\n")
    if unit == "line":
        return [ln.strip() for ln in lines if ln.strip()]
    out, cur = [], []
    for ln in lines:
        if ln.strip():
            cur.append(ln)
        elif cur:
            out.append("\n".join(cur).strip())
            cur = []
    if cur:
        out.append("\n".join(cur).strip())
    return out


def greedy_complete(n: int, near: dict) -> dict:
    """``{dropped: kept}`` of the greedy keep/drop pass in input order with complete linkage: a
    unit not dropped yet is kept and drops each later neighbour not decided yet that is also a
    neighbour of every unit dropped for it so far (``near``: ``{i: set of neighbours}``)."""
    state, kept_for = [0] * n, {}
    for u in range(n):
        if state[u]:
            continue
        state[u] = 1
        members = []
        for v in sorted(near.get(u, ())):
            if state[v] or not all(v in near.get(m, ()) for m in members):
                continue
            state[v] = 2
            kept_for[v] = u
            members.append(v)
    return kept_for


def unit_truth(texts: list, unit: str = "paragraph", threshold: float = 0.8, min_kept_words: int = 1) -> dict:
    """What ``unit=`` must decide, from the definitions' words: every unit of every text; the
    pairs of units at ``threshold`` or above (exact Jaccard of their shingles, or the same
    normalised text); the greedy pass's drops; each text's fate (dropped whole when it lost units
    and has fewer than ``min_kept_words`` words left, unless it holds a unit another was dropped
    for) and the units it keeps."""
    units, doc_of = [], []
    for d, t in enumerate(texts):
        for p in paragraphs(t, unit):
            units.append(p)
            doc_of.append(d)
    sets = [truth_set(p) for p in units]
    norm = [normalise(p) for p in units]
    near = collections.defaultdict(set)
    pairs = true_pairs(sets, threshold)
    by_text = collections.defaultdict(list)
    for i, t in enumerate(norm):
        by_text[t].append(i)
    for same in by_text.values():
        for i, j in itertools.combinations(same, 2):
            pairs[(i, j)] = 1.0
    for i, j in pairs:
        near[i].add(j)
        near[j].add(i)
    dropped = greedy_complete(len(units), near)

    lost = collections.Counter(doc_of[u] for u in dropped)
    holds = {doc_of[k] for k in dropped.values()}
    left = collections.Counter()
    for u, p in enumerate(units):
        if u not in dropped:
            left[doc_of[u]] += word_count(p)
    whole = {d for d in range(len(texts)) if lost[d] and left[d] < min_kept_words and d not in holds}
    return {"units": units, "doc_of": doc_of, "pairs": pairs, "dropped": dropped, "whole": whole}
