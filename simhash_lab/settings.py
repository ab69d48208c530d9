"""One settings object for every dedup entry point: :class:`DedupSettings`.

:func:`~simhash_lab.dedup.dedup` (text files), :func:`~simhash_lab.dedup.dedup_texts` (a list of
str), :func:`~simhash_lab.dedup.dedup_table` (a JSONL, CSV or Parquet file, stdin, a DataFrame or
an Arrow table) and :func:`~simhash_lab.distributed.dedup_dataset` (partitions on Dask) take the
same options, described once, here (the model of datatrove's ``MinhashConfig``): pass a
``DedupSettings``, or its fields as keyword arguments, or both (the keywords override)::

    s = DedupSettings(jaccard=0.7, recall=0.99)
    dedup_texts(texts, s)
    dedup_texts(texts, jaccard=0.7)            # the same: DedupSettings.of(None, jaccard=0.7)
    dedup_texts(texts, unverified=True, k=3)   # the raw Hamming mode, asked for by name

Every field is checked when the object is made; an error names the field (a TypeError or a
ValueError), before anything is read.

>>> DedupSettings().jaccard, DedupSettings().recall, DedupSettings().unverified
(0.8, 0.99, False)
>>> DedupSettings.of(None, jaccard=0.5).jaccard
0.5
>>> DedupSettings(unverified=True)
Traceback (most recent call last):
...
ValueError: unverified (the raw Hamming mode) needs k: every pair within k bits stands, so give it (e.g. k=3)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ._validate import check_fraction, check_int, check_option
from .chinese import load_jieba
from .presets import ALL
from .simhasher import Simhasher

__all__ = ["CANDIDATES", "DedupSettings", "FEATURES", "KEEP_ORDERS", "LINKAGES", "PROGRESS", "UNITS"]

KEEP_ORDERS = ("first", "longest")
LINKAGES = ("complete", "star")
PROGRESS = ("never", "auto", "always")
#: how the candidate pairs are found: "auto" (bands when k is calibrated, the index when k is
#: given), "index" (every pair within k bits, SimhashIndex) or "bands" (MinHash bands of the
#: shingle sets, simhash_lab.candidates)
CANDIDATES = ("auto", "index", "bands")
#: what the shingles are made of: "auto" (word shingles; character n-grams over the runs of a
#: script written without spaces), "words", "chars", "jieba" (jieba's words, the `chinese` extra)
FEATURES = ("auto", "words", "chars", "jieba")
#: --lang values: the scripts without word spaces are shingled by characters ("zh": jieba's words
#: when jieba is installed); the others by words
LANGS = ("auto", "zh", "ja", "th", "lo", "km", "my", "ko", "en", "words")
#: what a row of the run is: a whole document, or each of its paragraphs or lines (simhash_lab.dedup.units)
UNITS = ("document", "paragraph", "line")
DEFAULT_MAX_ROW_BYTES = 64 << 20


def _bool(param: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{param} must be True or False, got {value!r}")
    return value


def _bands(value: Any) -> tuple[int, int]:
    """``(bands, rows)`` checked: two ints, 1-1024 bands of 1-64 rows."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise TypeError(f"bands must be a pair (bands, rows), e.g. (25, 8), got {value!r}")
    return check_int("bands[0] (bands)", value[0], 1, 1024), check_int("bands[1] (rows)", value[1], 1, 64)


@dataclass(frozen=True)
class DedupSettings:
    """What counts as a near-duplicate, which one is kept, and what the run may use.

    Attributes
    ----------
    jaccard : float
        Two documents are near-duplicates when the exact Jaccard similarity of their shingle sets
        is at least this (0 < jaccard <= 1; default 0.8). Every candidate pair is verified.
    unverified : bool
        The raw Hamming mode of the first versions, only by name: every pair within ``k`` bits of
        the default hasher (words, TF weights) stands, unverified (it over-matches boilerplate:
        precision 0.60 on licence files). Needs ``k``; ``jaccard`` is then not used.
    k : int, optional
        Largest Hamming distance of a candidate pair. Default: calibrated on a sample so that
        ``recall`` of the near-duplicate pairs are candidates.
    recall : float
        The recall the calibration of ``k`` aims at (default 0.99).
    sample : int
        Documents the calibration samples (default 1000), drawn with ``seed``.
    seed : int
    features : {"auto", "words", "chars", "jieba"}
        What the shingles (the features of the fingerprints and the sets verified) are made of.
        "auto" (the default): word ``shingle``-grams, and in a text holding a script written
        without word spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar, Tibetan) character
        ``char_ngram``-grams over each run of it (whitespace and punctuation dropped; digits go
        with the run they are in), the words around them still word shingles, one set
        (:func:`~simhash_lab.shingles.script_run_sets`); the summary says how many texts hold such
        runs. "words" or "chars": every document all so; "jieba": jieba's words (``pip install
        'simhash-lab[chinese]'``), ``shingle`` at a time.
    lang : str, optional
        A language for every document: "zh" (jieba's words when jieba is installed, else
        characters), "ja", "th", "lo", "km", "my" (characters), "ko", "en" or "words" (words);
        overrides ``features``.
    hasher : Simhasher or str, optional
        A hasher of your own (or a preset name): its features are the shingles, verified as sets.
    shingle : int
        Words per shingle (default 3).
    char_ngram : int
        Characters per shingle for text without word spaces (default 3).
    normalize : bool
        NFKC and format characters (U+200B zero-width space, U+00AD soft hyphen, U+FEFF...) dropped
        before shingling, so an invisible edit does not hide a copy (default True).
    exact : bool
        Group identical (normalised) texts first, in one pass: one representative of each goes on
        to the near-duplicate search, the others are dropped for it (default True; the decisions
        are those of the search over every row).
    keep : {"first", "longest"}
        The order documents are visited in to choose which to keep: input order, or most
        characters first (ties in input order); a priority (column or array) overrides it.
    linkage : {"complete", "star"}
        "complete" (the default): every two members of a cluster are a verified pair. "star":
        only each dropped document and its kept one.
    unit : {"document", "paragraph", "line"}
        What is deduplicated (:mod:`simhash_lab.dedup.units`): whole documents (the default), or
        each document's paragraphs (runs of lines between blank lines) or lines, every step the
        same on them: a paragraph that repeats an earlier one (the same normalised text, or
        Jaccard >= ``jaccard``) is removed from its document, the first copy kept; a document
        whose every paragraph went elsewhere, or that is left with fewer than ``min_kept_words``
        words, is dropped whole (unless it holds a kept copy: nothing is lost). The anchors:
        datatrove's sentence dedup and C4's (one copy of a repeated span kept).
    min_kept_words : int
        With ``unit`` a paragraph or a line: the fewest words a document that lost some of its
        units must have left to be kept (default 1; datatrove's sentence dedup uses 50). A
        document that lost nothing is kept whatever its length.
    candidates : {"auto", "index", "bands"}
        How the candidate pairs are found. "auto" (the default): "bands" when ``k`` is calibrated
        (not given), "index" when ``k`` is given or ``unverified`` (:attr:`candidates_method` says
        which). "index": every pair of fingerprints within
        ``k`` bits (:class:`~simhash_lab.index.SimhashIndex`). "bands": the pairs whose shingle sets
        agree on a MinHash band (:class:`~simhash_lab.candidates.BandKeys`), the bands chosen so
        that a pair at the ``jaccard`` threshold itself is found with probability ``recall`` (a
        pair above it more often); their cost follows the rows and the pairs, not k, so they are
        faster where the calibrated k is large (many tables). Either way the candidates are
        verified the same; the keys take 8 bytes a row per band (at most 32 bands as the plan
        chooses them, see ``bands``; not bounded by ``memory_budget``). Bands need k calibrated
        (it is still calibrated and reported, not used): with ``k`` given, or ``unverified``,
        "bands" is refused (a ValueError), never silently replaced by the index.
    bands : tuple of (int, int), optional
        ``(bands, rows)`` of the MinHash bands, pinned (1-1024 bands of 1-64 rows; refused with
        ``candidates="index"``, ``k`` or ``unverified``). Default: chosen by the plan step before
        the first read (:class:`~simhash_lab.dedup.steps.Plan`): on the input's first rows, for
        each number of rows the fewest bands that find a pair at ``jaccard`` with probability
        ``recall``, and of those the one whose band keys and candidate pairs, counted on those
        rows and reckoned for all of them, cost least (the result's ``settings["candidates"]``
        says what was counted).
    max_tables : int, optional
        The most tables the candidate index may build, 1 to 4096.
    memory_budget : int, optional
        Bytes the candidate index's tables may use (default a quarter of the machine's memory):
        those only, not the MinHash bands' keys (8 bytes a row per band), the candidate pairs or
        the shingle sets kept.
    max_row_bytes : int
        A row (a JSONL line, a CSV record, a Parquet text) larger than this is refused, naming it
        (default 64 MiB).
    unique_ids : bool
        Refuse a dataset whose ids (the id column's values, or the ids given) name two rows or
        more (a DatasetError after the read, before anything is written); default False: a
        :class:`~simhash_lab.dedup.results.DuplicateIdsWarning` says so and the run goes on (the
        duplicates table's ``dropped_row``/``kept_row`` columns tell such rows apart).
    progress : {"never", "auto", "always"}
        tqdm bars on stderr, one per step ("auto": when stderr is a terminal).
    """

    jaccard: float = 0.8
    unverified: bool = False
    k: int | None = None
    recall: float = 0.99
    sample: int = 1000
    seed: int = 0
    features: str = "auto"
    lang: str | None = None
    hasher: Any = None
    shingle: int = 3
    char_ngram: int = 3
    normalize: bool = True
    exact: bool = True
    keep: str = "first"
    linkage: str = "complete"
    unit: str = "document"
    min_kept_words: int = 1
    candidates: str = "auto"
    bands: tuple[int, int] | None = None
    max_tables: int | None = None
    memory_budget: int | None = None
    max_row_bytes: int = DEFAULT_MAX_ROW_BYTES
    unique_ids: bool = False
    progress: str = "never"

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if self.jaccard is None:
            raise ValueError(
                "jaccard must be a number in (0, 1]: for the raw Hamming mode give unverified=True and k"
            )
        set_(self, "jaccard", check_fraction("jaccard", self.jaccard))
        _bool("unverified", self.unverified)
        if self.k is not None:
            set_(self, "k", check_int("k", self.k, 0, 63))
        if self.unverified and self.k is None:
            raise ValueError(
                "unverified (the raw Hamming mode) needs k: every pair within k bits stands, so give it "
                "(e.g. k=3)"
            )
        set_(self, "recall", check_fraction("recall", self.recall))
        check_int("sample", self.sample, 1, 1 << 40)
        check_int("seed", self.seed, -(1 << 63), (1 << 64) - 1)
        check_option("features", self.features, FEATURES)
        if self.lang is not None:
            check_option("lang", self.lang, LANGS)
        check_int("shingle", self.shingle, 1, 64)
        check_int("char_ngram", self.char_ngram, 1, 7)
        _bool("normalize", self.normalize)
        _bool("exact", self.exact)
        check_option("keep", self.keep, KEEP_ORDERS)
        check_option("linkage", self.linkage, LINKAGES)
        check_option("unit", self.unit, UNITS)
        check_int("min_kept_words", self.min_kept_words, 0, 1 << 40)
        check_option("candidates", self.candidates, CANDIDATES)
        if self.candidates == "bands" and self.k is not None:
            raise ValueError(
                f"candidates='bands' finds pairs by their shingle sets, not within k bits: leave k "
                f"unset (calibrated), or give candidates='index' with k={self.k}"
            )
        if self.bands is not None:
            set_(self, "bands", _bands(self.bands))
            if self.candidates == "index" or self.k is not None or self.unverified:
                raise ValueError(
                    f"bands={self.bands} pins the MinHash bands, which find the candidates only with "
                    "candidates='bands' or 'auto' and k unset (calibrated): leave bands out, or k"
                )
        if self.max_tables is not None:
            check_int("max_tables", self.max_tables, 1, 4096)
        if self.memory_budget is not None:
            check_int("memory_budget", self.memory_budget, 0, 1 << 62)
        check_int("max_row_bytes", self.max_row_bytes, 1, 1 << 62)
        _bool("unique_ids", self.unique_ids)
        check_option("progress", self.progress, PROGRESS)
        h = self.hasher
        if h is not None and not isinstance(h, str):
            if not isinstance(h, Simhasher):
                raise TypeError(f"hasher must be a Simhasher or a preset name, got {type(h).__name__}")
        if isinstance(h, str):
            check_option("preset", h, sorted(ALL))
        if self.features == "jieba":
            load_jieba()  # an ImportError naming the extra, now rather than after reading

    @property
    def candidates_method(self) -> str:
        """``"bands"`` or ``"index"``: how these settings find candidates (``candidates="auto"``:
        bands when k is calibrated, the index when k is given).

        >>> DedupSettings().candidates_method, DedupSettings(k=3).candidates_method
        ('bands', 'index')
        """
        if self.candidates == "auto":
            return "index" if self.k is not None or self.unverified else "bands"
        return self.candidates

    @classmethod
    def fields(cls) -> tuple[str, ...]:
        """The names of the settings, in order.

        Returns
        -------
        tuple of str
        """
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def of(cls, settings: DedupSettings | None = None, **options: Any) -> DedupSettings:
        """``settings`` (default: the defaults) with ``options`` (field names) replacing fields.

        An option that is not a field is a TypeError naming it.

        Parameters
        ----------
        settings : DedupSettings, optional
        **options
            Fields of :class:`DedupSettings` by name.

        Returns
        -------
        DedupSettings
        """
        if settings is not None and not isinstance(settings, DedupSettings):
            raise TypeError(f"settings must be a DedupSettings, got {type(settings).__name__}")
        unknown = sorted(set(options) - set(cls.fields()))
        if unknown:
            raise TypeError(
                f"unknown dedup option(s) {', '.join(unknown)}; the options are the fields of "
                f"DedupSettings: {', '.join(cls.fields())}"
            )
        base = settings if settings is not None else cls()
        return dataclasses.replace(base, **options) if options else base

    def replace(self, **options: Any) -> DedupSettings:
        """These settings with ``options`` (field names) replacing fields: :meth:`of`.

        Parameters
        ----------
        **options
            Fields of :class:`DedupSettings` by name.

        Returns
        -------
        DedupSettings
        """
        return DedupSettings.of(self, **options)

    def to_json(self) -> dict:
        """The fields as JSON values (a hasher by its name).

        Returns
        -------
        dict
        """
        doc = dataclasses.asdict(self)
        h = self.hasher
        doc["hasher"] = None if h is None else (h if isinstance(h, str) else (h.name or repr(h)))
        return doc
