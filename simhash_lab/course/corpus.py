"""Offline corpora for near-duplicate experiments, and a labelled set built by documented edits.

Three sources, all available without a network:

* :func:`python_docs`: Python's reference documentation as CPython ships it (``pydoc_data.topics``,
  the text behind ``help("assert")``), cut into documents at paragraph boundaries;
* :func:`license_files`: the license files installed packages ship in their ``*.dist-info``
  folders, found with :mod:`importlib.metadata`, each with its package's own license metadata
  (``License-Expression``, ``License`` and the ``License ::`` classifiers) reduced to a family
  (``"MIT"``, ``"BSD"``, ``"Apache"``, ``"other"``) as ground truth;
* :func:`labelled_set`: near-duplicates made from real documents by the edit operations in
  :data:`EDIT_OPERATIONS`, with the label of every pair known by construction.

Randomness comes from :class:`random.Random` with an explicit ``seed`` (its integer stream is stable
across Python versions), so a set is the same on every machine with the same documents. The
documents themselves are not pinned: ``pydoc_data`` changes with the Python release and the license
files with what is installed.

>>> docs = python_docs()
>>> len(docs) > 200 and all(80 <= len(d.text.split()) for d in docs)
True
>>> s = labelled_set(docs[:40], seed=0)
>>> s.truth().shape[1], s.kind[:3]
(2, ['original', 'original', 'original'])
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .._i18n import N_, _
from .._validate import check_int

__all__ = [
    "Doc",
    "LicenseFile",
    "LabelledSet",
    "EDIT_OPERATIONS",
    "python_docs",
    "license_files",
    "license_family",
    "labelled_set",
    "edit",
    "edits",
    "word_diff",
    "crawl_partition",
    "write_crawl_partition",
]


@dataclass(frozen=True)
class Doc:
    """One document: a name that says where it came from, and its text."""

    name: str
    text: str


# --------------------------------------------------------------------------------------------
# Python's documentation
# --------------------------------------------------------------------------------------------

_PARA = re.compile(r"\n\s*\n")


def python_docs(min_words: int = 80, max_words: int = 250) -> list[Doc]:
    """Python's reference documentation (``pydoc_data.topics``) cut into documents.

    Each topic is split at blank lines and consecutive paragraphs are joined until a document has
    at least ``min_words`` words; a paragraph that would take it past ``max_words`` starts the next
    one. A topic's tail shorter than ``min_words`` joins its last document (or is dropped when the
    topic is that short). Topics are visited in sorted order, so the result is deterministic.

    Returns
    -------
    list of Doc
        Named ``"topic#i"`` (``"assert#0"``, ...).
    """
    min_words = check_int("min_words", min_words, 1, 100_000)
    max_words = check_int("max_words", max_words, min_words, 1_000_000)
    from pydoc_data.topics import topics

    out: list[Doc] = []
    for key in sorted(topics):
        chunks: list[list[str]] = []
        cur: list[str] = []
        n = 0
        for para in _PARA.split(topics[key]):
            w = len(para.split())
            if w == 0:
                continue
            if cur and n >= min_words and n + w > max_words:
                chunks.append(cur)
                cur, n = [], 0
            cur.append(para.strip("\n"))
            n += w
        if cur:
            if n >= min_words or not chunks:
                chunks.append(cur)
            else:
                chunks[-1].extend(cur)
        for i, c in enumerate(chunks):
            text = "\n\n".join(c)
            if len(text.split()) >= min_words:
                out.append(Doc(f"{key}#{i}", text))
    return out


# --------------------------------------------------------------------------------------------
# License files of installed packages
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LicenseFile:
    """A license file shipped in a package's ``*.dist-info`` folder.

    Attributes
    ----------
    package : str
        The distribution's name as its metadata spells it.
    path : str
        The file's path relative to site-packages (``"six-1.17.0.dist-info/LICENSE"``).
    text : str
    family : str
        The package's license family from its own metadata: ``"MIT"``, ``"BSD"``, ``"Apache"``,
        ``"other"`` (a single other license), ``"mixed"`` (an SPDX ``AND``/``OR``/``WITH``
        expression or conflicting fields) or ``"unknown"`` (no usable metadata).
    n_files : int
        How many license files the package ships. A package with several often bundles the
        licenses of code it vendors, so its metadata family only describes one of them.
    """

    package: str
    path: str
    text: str
    family: str
    n_files: int

    @property
    def name(self) -> str:
        return f"{self.package}:{self.path.split('/', 1)[-1]}"


_LICENSE_NAME = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE|AUTHORS)", re.IGNORECASE)
_SPDX = {
    "MIT": "MIT",
    "Apache-2.0": "Apache",
    "BSD-2-Clause": "BSD",
    "BSD-3-Clause": "BSD",
    "0BSD": "other",
    "BSD-3-Clause-Clear": "BSD",
}
_CLASSIFIERS = {"MIT License": "MIT", "BSD License": "BSD", "Apache Software License": "Apache"}


def _family_of_words(s: str) -> str | None:
    """A family from free text such as "MIT License", "BSD 3-Clause", "Apache 2.0"."""
    first = s.strip().splitlines()[0] if s.strip() else ""
    found = {
        fam
        for fam, pat in (("MIT", r"\bMIT\b"), ("BSD", r"\bBSD\b"), ("Apache", r"\bApache\b"))
        if re.search(pat, first, re.IGNORECASE)
    }
    if len(found) == 1:
        return found.pop()
    if len(found) > 1:
        return "mixed"
    return None


def license_family(metadata) -> str:
    """A package's license family from its metadata (an ``importlib.metadata`` message).

    Sources, most specific first: the SPDX ``License-Expression`` (PEP 639), the ``License ::``
    trove classifiers, the first line of the free-text ``License`` field. Where two sources name
    different families the answer is ``"mixed"``.

    Returns
    -------
    str
        ``"MIT"``, ``"BSD"``, ``"Apache"``, ``"other"``, ``"mixed"`` or ``"unknown"``.
    """
    found: list[str] = []
    expr = (metadata.get("License-Expression") or "").strip()
    if expr:
        if re.search(r"\b(AND|OR|WITH)\b", expr):
            return "mixed"
        found.append(_SPDX.get(expr, "other"))
    cls = {
        c.rsplit("::", 1)[-1].strip()
        for c in (metadata.get_all("Classifier") or [])
        if c.startswith("License ::") and c.count("::") >= 2
    }
    fams = {_CLASSIFIERS.get(c, "other") for c in cls}
    if len(fams) > 1:
        return "mixed"
    found.extend(fams)
    if not found:
        fam = _family_of_words(metadata.get("License") or "")
        if fam:
            found.append(fam)
    if not found:
        return "unknown"
    return found[0] if len(set(found)) == 1 else "mixed"


def license_files(min_words: int = 20) -> list[LicenseFile]:
    """The license files of every installed distribution (``*.dist-info/LICENSE*``, ``COPYING*``,
    ``NOTICE*``, ``AUTHORS*``, also under ``licenses/``), read as UTF-8.

    A distribution installed twice (an editable install and its metadata copy) counts once; files
    that are not UTF-8 or have fewer than ``min_words`` words are left out. Sorted by package name
    (case-insensitive), then path, so the order is deterministic for a given environment.
    """
    import importlib.metadata as md

    min_words = check_int("min_words", min_words, 0, 1_000_000)
    seen: set[str] = set()
    out: list[LicenseFile] = []
    for dist in md.distributions():
        name = dist.metadata.get("Name") or ""
        key = re.sub(r"[-_.]+", "-", name).lower()
        if not name or key in seen:
            continue
        seen.add(key)
        files = [f for f in (dist.files or []) if ".dist-info" in f.parts[0] and _LICENSE_NAME.match(f.name)]
        texts = []
        for f in files:
            try:
                text = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if text is not None and len(text.split()) >= min_words:
                texts.append((str(f.as_posix()), text))
        fam = license_family(dist.metadata)
        for path, text in texts:
            out.append(LicenseFile(name, path, text, fam, len(texts)))
    out.sort(key=lambda lf: (lf.package.lower(), lf.path))
    return out


# --------------------------------------------------------------------------------------------
# A labelled near-duplicate set
# --------------------------------------------------------------------------------------------


class _Translated(Mapping):
    """A read-only table whose values (marked ``N_``) are shown in the current language."""

    def __init__(self, table: dict[str, str]) -> None:
        self._table = table

    def __getitem__(self, key: str) -> str:
        return _(self._table[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return repr(dict(self))


#: The edit operations a variant is made with, and what each does (in the current language).
EDIT_OPERATIONS: Mapping[str, str] = _Translated(
    {
        "typo": N_("one letter of a word replaced, deleted, doubled or swapped with its neighbour"),
        "delete": N_("one word removed"),
        "insert": N_("one word from elsewhere in the corpus inserted"),
        "replace": N_("one word replaced by a word from elsewhere in the corpus"),
        "case": N_("one word's first letter switched to the other case"),
        "swap": N_("two adjacent sentences exchanged"),
        "reflow": N_("line breaks re-wrapped at another width (no word changes)"),
        "boilerplate": N_("a header or footer line added ('Source: Python documentation.' and the like)"),
        "truncate": N_("the last sentence removed (when it holds at most a third of the words)"),
    }
)
_WORD_OPS = ("typo", "delete", "insert", "replace", "case")
_STRUCT_OPS = ("swap", "reflow", "boilerplate", "truncate")
_BOILERPLATE = (
    "Source: Python documentation.",
    "This page was copied from the Python reference manual.",
    "Copyright Python Software Foundation. All rights reserved.",
    "See the online documentation for the latest version.",
    "Mirror of docs.python.org, retrieved for offline reading.",
)
_SENT = re.compile(r"(?<=[.!?:])\s+")


def _split_words(text: str) -> tuple[list[str], list[str]]:
    """``text`` as ``words`` and ``seps``: ``seps[i]`` is the whitespace before ``words[i]`` and
    ``seps[-1]`` the trailing whitespace, so ``text == "".join(s + w for s, w in zip(seps, words)) +
    seps[-1]``."""
    parts = re.split(r"(\S+)", text)
    return parts[1::2], parts[0::2]


def _join_words(words: list[str], seps: list[str]) -> str:
    return "".join(s + w for s, w in zip(seps, words)) + seps[-1]


def _word_op(words: list[str], seps: list[str], op: str, rng: random.Random, vocab: Sequence[str]) -> None:
    """Apply one word operation to ``words``/``seps`` in place."""
    if not words:
        return
    i = rng.randrange(len(words))
    w = words[i]
    if op == "typo":
        letters = [j for j, c in enumerate(w) if c.isalpha()]
        if not letters:
            return
        j = letters[rng.randrange(len(letters))]
        how = rng.randrange(4)
        if how == 0:
            w = w[:j] + rng.choice("abcdefghijklmnopqrstuvwxyz") + w[j + 1 :]
        elif how == 1 and len(w) > 1:
            w = w[:j] + w[j + 1 :]
        elif how == 2:
            w = w[:j] + w[j] + w[j:]
        elif j + 1 < len(w):
            w = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
        else:
            w = w[:j] + rng.choice("aeiou") + w[j + 1 :]
        words[i] = w
    elif op == "delete":
        del words[i]
        if i == 0:  # keep the leading whitespace, drop the separator after the word
            del seps[1]
        else:
            del seps[i]
    elif op == "insert":
        words.insert(i, vocab[rng.randrange(len(vocab))])
        seps.insert(i + 1, " ")
    elif op == "replace":
        words[i] = vocab[rng.randrange(len(vocab))]
    else:  # case
        words[i] = (w[0].lower() if w[0].isupper() else w[0].upper()) + w[1:]


def edit(text: str, op: str, rng: random.Random, vocab: Sequence[str] = ("the",)) -> str:
    """``text`` after one edit operation ``op`` (a key of :data:`EDIT_OPERATIONS`).

    Word operations keep the whitespace around the words they touch; ``vocab`` is where inserted
    and replacing words come from. An operation that cannot apply (no second sentence to swap, say)
    returns ``text`` unchanged.
    """
    return edits(text, [op], rng, vocab)


def edits(text: str, ops: Sequence[str], rng: random.Random, vocab: Sequence[str] = ("the",)) -> str:
    """``text`` after the operations ``ops``, in order (see :func:`edit`)."""
    for op in ops:
        if op not in EDIT_OPERATIONS:
            raise ValueError(
                f"The value for `op` must be one of {list(EDIT_OPERATIONS)}, but {op!r} was passed."
            )
    i = 0
    while i < len(ops):
        if ops[i] in _WORD_OPS:  # a run of word operations: split once
            words, seps = _split_words(text)
            while i < len(ops) and ops[i] in _WORD_OPS:
                _word_op(words, seps, ops[i], rng, vocab)
                i += 1
            text = _join_words(words, seps)
        else:
            text = _structural(text, ops[i], rng)
            i += 1
    return text


def _structural(text: str, op: str, rng: random.Random) -> str:
    if op == "reflow":
        width = rng.randrange(50, 100)
        lines, cur = [], ""
        for para in _PARA.split(text):
            words = para.split()
            for w in words:
                if cur and len(cur) + 1 + len(w) > width:
                    lines.append(cur)
                    cur = w
                else:
                    cur = f"{cur} {w}" if cur else w
            lines.append(cur)
            lines.append("")
            cur = ""
        return "\n".join(lines).rstrip("\n")
    if op == "boilerplate":
        line = _BOILERPLATE[rng.randrange(len(_BOILERPLATE))]
        return f"{line}\n\n{text}" if rng.random() < 0.5 else f"{text}\n\n{line}"
    parts = _SENT.split(text.strip())
    if len(parts) < 2:
        return text
    if op == "truncate":
        if 3 * len(parts[-1].split()) > len(text.split()):
            return text  # the last "sentence" is most of the text (a table, a grammar): not a light edit
        return " ".join(parts[:-1])
    i = rng.randrange(len(parts) - 1)  # swap
    parts[i], parts[i + 1] = parts[i + 1], parts[i]
    return " ".join(parts)


@dataclass
class LabelledSet:
    """Documents with known near-duplicate pairs.

    Attributes
    ----------
    docs : list of str
    names : list of str
        ``"assert#0"`` for an original, ``"assert#0~near2"`` or ``"assert#0~rewrite"`` for a variant.
    source : ndarray, shape (n,), int64
        The index (into ``docs``) of the original each document was made from (itself for an
        original).
    kind : list of str
        ``"original"``, ``"near"`` (a light edit: a near-duplicate) or ``"rewrite"`` (a heavy
        edit of the same original: a hard negative).
    edits : list of tuple of str
        The operations applied to make each document, in order (empty for an original).
    edit_rate : ndarray, shape (n,), float64
        Word-level operations applied per word of the original.

    Notes
    -----
    Two documents are near-duplicates when both are the same original or light edits of it; a
    rewrite is a near-duplicate of nothing.
    """

    docs: list
    names: list
    source: np.ndarray
    kind: list
    edits: list
    edit_rate: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def __len__(self) -> int:
        return len(self.docs)

    def truth(self) -> np.ndarray:
        """The near-duplicate pairs: int64 array of shape (m, 2), rows ``(i, j)`` with ``i < j``,
        sorted."""
        dup = np.array([k != "rewrite" for k in self.kind], dtype=bool)
        ids = np.flatnonzero(dup)
        src = self.source[ids]
        order = np.lexsort((ids, src))
        ids, src = ids[order], src[order]
        rows = []
        cuts = np.flatnonzero(np.diff(src)) + 1
        for g in np.split(ids, cuts):
            if g.size > 1:
                a, b = np.triu_indices(g.size, 1)
                rows.append(np.stack([g[a], g[b]], axis=1))
        if not rows:
            return np.empty((0, 2), np.int64)
        out = np.concatenate(rows).astype(np.int64)
        return out[np.lexsort((out[:, 1], out[:, 0]))]

    def pair_kinds(self, pairs) -> np.ndarray:
        """What each pair ``(i, j)`` is: ``"near-duplicate"`` (a pair of :meth:`truth`),
        ``"rewrite"`` (same original, one of them a rewrite) or ``"unrelated"``.

        Parameters
        ----------
        pairs : array_like of shape (m, 2) or (m, 3), int
            Any order within a row; a third column (a distance) is ignored.

        Returns
        -------
        array of shape (m,), str
        """
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, np.shape(pairs)[-1] if np.size(pairs) else 2)
        if p.shape[0] and (p[:, :2].min() < 0 or p[:, :2].max() >= len(self)):
            raise ValueError(f"pairs must hold document indices 0..{len(self) - 1}")
        i, j = p[:, 0], p[:, 1]
        t = self.truth()
        n = np.int64(len(self))
        key = np.minimum(i, j) * n + np.maximum(i, j)
        dup = np.isin(key, t[:, 0] * n + t[:, 1])
        same = self.source[i] == self.source[j]
        out = np.full(p.shape[0], "unrelated", dtype="<U14")
        out[same & ~dup] = "rewrite"
        out[dup] = "near-duplicate"
        return out

    def summary(self) -> str:
        n_near = sum(k == "near" for k in self.kind)
        n_rw = sum(k == "rewrite" for k in self.kind)
        n_orig = len(self) - n_near - n_rw
        n = len(self)
        return _(
            "{n} documents ({originals} originals, {near} near-duplicates, {rewrites} rewrites); "
            "{pairs:,} pairs, {true:,} of them near-duplicates"
        ).format(
            n=n, originals=n_orig, near=n_near, rewrites=n_rw, pairs=n * (n - 1) // 2, true=len(self.truth())
        )


def _drop_similar(docs: Sequence[Doc], max_jaccard: float) -> list[Doc]:
    """Keep each document unless its word 3-shingle Jaccard with an earlier kept one is above
    ``max_jaccard`` (Python's docs repeat some passages between topics)."""
    from .compare import jaccard_all_pairs

    pairs, sim = jaccard_all_pairs([d.text for d in docs], n=3, jaccard=max_jaccard)
    drop: set[int] = set()
    for (i, j), s in zip(pairs.tolist(), sim.tolist()):
        if s > max_jaccard and i not in drop:
            drop.add(j)
    return [d for i, d in enumerate(docs) if i not in drop]


def labelled_set(
    docs: Sequence[Doc] | None = None,
    *,
    near: Sequence[int] = (0, 0, 1, 1, 2, 3),
    rewrite_p: float = 0.2,
    near_rate: tuple[float, float] = (0.01, 0.08),
    rewrite_rate: tuple[float, float] = (0.3, 0.5),
    structural_p: float = 0.5,
    max_jaccard: float = 0.2,
    seed: int = 0,
) -> LabelledSet:
    """A labelled near-duplicate set made from real documents by documented edits.

    Every original (after dropping originals too similar to an earlier one, so that the labels
    hold) gets ``rng.choice(near)`` near-duplicates and, with probability ``rewrite_p``, one
    rewrite. A near-duplicate takes ``round(r * words)`` word operations (``typo``, ``delete``,
    ``insert``, ``replace``, ``case``, chosen uniformly) with ``r`` uniform in ``near_rate``, and
    with probability ``structural_p`` one structural operation (``swap``, ``reflow``,
    ``boilerplate``, ``truncate``). A rewrite takes ``r`` uniform in ``rewrite_rate`` of
    ``delete``/``insert``/``replace`` and one ``swap``. See :data:`EDIT_OPERATIONS`.

    Parameters
    ----------
    docs : sequence of Doc, optional
        The originals (default :func:`python_docs`).
    seed : int
        Seeds a :class:`random.Random`; the same docs and seed give the same set.

    Returns
    -------
    LabelledSet
        Originals first, then variants in the order they were made (each after its original's
        earlier variants).
    """
    docs = python_docs() if docs is None else list(docs)
    if not docs:
        raise ValueError("docs must not be empty")
    for param, (lo, hi) in (("near_rate", near_rate), ("rewrite_rate", rewrite_rate)):
        if not 0 <= lo <= hi <= 1:
            raise ValueError(f"{param} must be (lo, hi) with 0 <= lo <= hi <= 1, got {(lo, hi)!r}")
    originals = _drop_similar(docs, max_jaccard)
    rng = random.Random(seed)
    vocab = sorted({w for d in originals for w in d.text.split() if w.isalpha()})
    texts = [d.text for d in originals]
    names = [d.name for d in originals]
    source = list(range(len(originals)))
    kind = ["original"] * len(originals)
    log: list[tuple] = [()] * len(originals)
    rates = [0.0] * len(originals)
    for i, d in enumerate(originals):
        n_words = len(d.text.split())
        for v in range(rng.choice(list(near))):
            r = rng.uniform(*near_rate)
            ops = [rng.choice(_WORD_OPS) for _ in range(max(1, round(r * n_words)))]
            if rng.random() < structural_p:
                ops.insert(rng.randrange(len(ops) + 1), rng.choice(_STRUCT_OPS))
            texts.append(edits(d.text, ops, rng, vocab))
            names.append(f"{d.name}~near{v}")
            source.append(i)
            kind.append("near")
            log.append(tuple(ops))
            rates.append(sum(op in _WORD_OPS for op in ops) / n_words)
        if rng.random() < rewrite_p:
            r = rng.uniform(*rewrite_rate)
            ops = [rng.choice(("delete", "insert", "replace")) for _ in range(round(r * n_words))]
            ops.append("swap")
            texts.append(edits(d.text, ops, rng, vocab))
            names.append(f"{d.name}~rewrite")
            source.append(i)
            kind.append("rewrite")
            log.append(tuple(ops))
            rates.append((len(ops) - 1) / n_words)
    return LabelledSet(texts, names, np.array(source, np.int64), kind, log, np.array(rates))


def word_diff(a: str, b: str, context: int = 3) -> str:
    """The word-level differences from ``a`` to ``b``, git's ``--word-diff`` style: ``[-old-]``
    and ``{+new+}``, with ``context`` words around each change and `` … `` between changes.

    >>> word_diff("the quick brown fox jumps", "the quick red fox jumps", context=1)
    'quick [-brown-]{+red+} fox'
    """
    import difflib

    wa, wb = a.split(), b.split()
    out = []
    for group in difflib.SequenceMatcher(None, wa, wb, autojunk=False).get_grouped_opcodes(context):
        parts = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                parts.append(" ".join(wa[i1:i2]))
                continue
            if i2 > i1:
                parts.append("[-" + " ".join(wa[i1:i2]) + "-]")
            if j2 > j1:
                parts.append("{+" + " ".join(wb[j1:j2]) + "+}")
        out.append(" ".join(p for p in parts if p))
    return " … ".join(out).replace("-] {+", "-]{+")


# --------------------------------------------------------------------------------------------
# A generated crawl, one partition at a time (notebook 08)
# --------------------------------------------------------------------------------------------


def _short_paragraphs() -> list[str]:
    global _PARAGRAPHS
    if _PARAGRAPHS is None:
        _PARAGRAPHS = [p for d in python_docs() for p in d.text.split("\n\n") if 10 < len(p.split()) <= 60]
    return _PARAGRAPHS


_PARAGRAPHS: list[str] | None = None


def crawl_partition(seed: int, n: int = 10_000) -> list[str]:
    """One partition of a generated crawl: ``n`` documents of 4 to 6 short paragraphs (11 to 60 words)
    of Python's docs, drawn at random; every tenth document is a copy of an earlier one of the same
    partition with one word replaced by "simhash" (a planted near-duplicate).

    Every partition draws from the same pool of paragraphs, so partitions also share accidental
    near-duplicates, as a real crawl does. The same ``seed`` gives the same documents.

    >>> a = crawl_partition(1, n=20)
    >>> len(a), a == crawl_partition(1, n=20), sum("simhash" in d.split() for d in a) >= 2
    (20, True, True)
    """
    seed = check_int("seed", seed, 0, 1 << 62)
    n = check_int("n", n, 1, 10**8)
    paras = _short_paragraphs()
    rng = random.Random(seed)
    out: list[str] = []
    for i in range(n):
        if i % 10 == 9:
            words = out[rng.randrange(i)].split()
            words[rng.randrange(len(words))] = "simhash"
            out.append(" ".join(words))
        else:
            out.append("\n\n".join(rng.sample(paras, rng.randint(4, 6))))
    return out


def write_crawl_partition(seed: int, folder: str, n: int = 10_000) -> str:
    """:func:`crawl_partition` ``seed`` written as ``folder/part-SEED.parquet`` (columns ``id``, a
    string ``"SEED-i"``, and ``text``), as a crawler's worker would store its shard; returns the path.
    Needs pyarrow (the ``datasets`` extra)."""
    import os

    import pyarrow as pa
    import pyarrow.parquet as pq

    texts = crawl_partition(seed, n)
    path = os.path.join(folder, f"part-{int(seed):05d}.parquet")
    pq.write_table(pa.table({"id": [f"{seed}-{i}" for i in range(len(texts))], "text": texts}), path)
    return path
