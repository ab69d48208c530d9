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


def truth_set(text: str, n_words: int = 3, n_chars: int = 3) -> set:
    """The shingles of ``features="auto"`` (``script_run_sets``, or word shingles for a text
    without an unspaced script), as str, from the definition's words."""
    text = normalise(text)
    places = [(i, ch) for i, ch in enumerate(text) if is_word(ch)]
    kind = []
    for _, ch in places:
        kind.append("u" if UNS.match(ch) else ("n" if _NEUTRAL.match(ch) else "o"))
    own = list(kind)  # no script: the nearest word character before that has one, else after, else other
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
    out = set()
    for r in runs:
        out |= {("c", "".join(r[i : i + n_chars])) for i in range(max(len(r) - n_chars + 1, 1))}
    words = [w.lower() for w in words]
    if words:
        out |= {("w", " ".join(words[i : i + n_words])) for i in range(max(len(words) - n_words + 1, 1))}
    return out


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
