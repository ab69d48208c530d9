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


def lowercase_word_documents(n: int, words_per_doc: int = 200) -> list[str]:
    """``n`` documents of ``words_per_doc`` lowercased ``\\w+`` words of the same paragraphs, one
    space between (no case, no punctuation: the tokenizer's easiest input)."""
    words = re.findall(r"\w+", " ".join(python_doc_paragraphs()).lower())
    return _cut(words, n, words_per_doc)


def long_token_documents(n: int, tokens_per_doc: int = 200, least: int = 17) -> list[str]:
    """``n`` documents of ``tokens_per_doc`` tokens of at least ``least`` bytes: consecutive
    ``\\w+`` words of the same paragraphs (case kept) joined by ``_`` (a word character) until the
    token is that long, one space between tokens (identifiers, URLs' words, German compounds)."""
    toks, cur = [], ""
    for w in re.findall(r"\w+", " ".join(python_doc_paragraphs())):
        cur = f"{cur}_{w}" if cur else w
        if len(cur.encode()) >= least:
            toks.append(cur)
            cur = ""
    return _cut(toks, n, tokens_per_doc)


def _cut(items: list[str], n: int, per: int) -> list[str]:
    """``n`` documents of ``per`` consecutive items (cycled)."""
    out, at = [], 0
    for _ in range(n):
        out.append(" ".join(items[(at + i) % len(items)] for i in range(per)))
        at += per
    return out


def _file_docstrings(path: str) -> list[str]:
    """The prose of one Python file: its docstrings (module, classes, functions, in the file's
    order), then its blocks of consecutive ``#`` comment lines (each block one text, the ``#``
    removed); [] when it does not parse."""
    import ast
    import warnings

    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, UnicodeDecodeError, ValueError, OSError, RecursionError, MemoryError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node)
            if doc:
                out.append(doc)
    block: list[str] = []
    for line in source.splitlines() + [""]:
        text = line.strip()
        if text.startswith("#") and not text.startswith("#!"):
            block.append(text.lstrip("#").strip())
        elif block:
            out.append("\n".join(block))
            block = []
    return out


def docstring_rows(n: int | None = None, least_words: int = 60, roots: list[str] | None = None) -> list[str]:
    """Real prose at scale, written by thousands of people: the docstrings and comment blocks of
    every Python file of the standard library and of the installed packages (``site-packages``,
    Debian's ``dist-packages``), files in sorted path order, their paragraphs of 20 words or more
    (whitespace collapsed) joined, within one file, into rows of at least ``least_words`` words.
    Its near-duplicates are the natural ones: vendored copies of a package inside another,
    parameters described alike across functions, licence headers, docstrings copied between
    versions of an API. Which packages are installed decides the corpus (``make bench`` installs
    the ``bench`` extra): say so beside its figures. The first ``n`` rows (None: all)."""
    import os
    import sys
    import sysconfig
    from concurrent.futures import ProcessPoolExecutor

    if roots is None:
        packages = sorted({p for p in sys.path if p.endswith("site-packages")})
        debian = [p for p in ["/usr/lib/python3/dist-packages"] if os.path.isdir(p)]
        roots = [sysconfig.get_paths()["stdlib"], *packages, *debian]
    files = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    rows: list[str] = []
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for docs in pool.map(_file_docstrings, files, chunksize=64):
            cur: list[str] = []
            for doc in docs:
                for p in re.split(r"\n\s*\n", doc):
                    words = p.split()
                    if len(words) < 20:
                        continue
                    cur.extend(words)
                    if len(cur) >= least_words:
                        rows.append(" ".join(cur))
                        cur = []
            if n is not None and len(rows) >= n:
                break
    return rows if n is None else rows[:n]


def docstring_texts(data_dir: str, n: int | None = None) -> list[str]:
    """``_corpus.docstring_rows`` (the first ``n``; None: all), made once and kept in ``data_dir``
    (their making parses every installed Python file: about two minutes)."""
    import json
    import os

    path = os.path.join(data_dir, "docs-docstrings-all.jsonl")
    if not os.path.exists(path):
        os.makedirs(data_dir, exist_ok=True)
        with open(path + ".part", "w", encoding="utf-8") as f:
            for i, t in enumerate(docstring_rows()):
                f.write(json.dumps({"id": f"doc{i}", "text": t}) + "\n")
        os.replace(path + ".part", path)
    with open(path, encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    return texts if n is None else texts[:n]
