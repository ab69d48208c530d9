"""Real prose available offline: the topics of Python's own reference documentation."""

from __future__ import annotations

import re


def python_doc_paragraphs(min_words: int = 20) -> list[str]:
    """Paragraphs of ``pydoc_data.topics`` (shipped with CPython) with at least ``min_words`` words."""
    from pydoc_data.topics import topics

    paras = []
    for key in sorted(topics):
        for p in re.split(r"\n\s*\n", topics[key]):
            p = " ".join(p.split())
            if len(p.split()) >= min_words:
                paras.append(p)
    return paras


def documents(n: int, words_per_doc: int = 200) -> list[str]:
    """``n`` documents of about ``words_per_doc`` words, cut from consecutive paragraphs (cycled)."""
    paras = python_doc_paragraphs()
    docs, cur, i = [], [], 0
    while len(docs) < n:
        cur.extend(paras[i % len(paras)].split())
        i += 1
        if len(cur) >= words_per_doc:
            docs.append(" ".join(cur[:words_per_doc]))
            cur = cur[words_per_doc:]
    return docs


def varied_documents(n: int, lo: int = 60, hi: int = 140, seed: int = 0) -> list[str]:
    """``n`` documents of ``lo`` to ``hi`` words (seeded, uniform), cut from the consecutive words
    of the paragraphs (cycled, each cycle starting a little further on): real prose whose rows
    share runs of words, and whose sizes differ, as real rows' do. The paragraphs hold 54k words:
    past a few thousand rows every run of words is in many rows (100k rows of 30-300 words: 65
    candidate pairs a row), far more overlap than real data (issue 48's 1M rows: 4.6 a row)."""
    import numpy as np

    words = " ".join(python_doc_paragraphs()).split()
    rng = np.random.default_rng(seed)
    out, at = [], 0
    for m in rng.integers(lo, hi + 1, size=n).tolist():
        if at + m > len(words):
            at = (at + m) % 997  # the next cycle starts elsewhere: shifted cuts, not the same rows
        out.append(" ".join(words[at : at + m]))
        at += m
    return out
