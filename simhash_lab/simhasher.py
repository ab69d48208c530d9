"""`Simhasher`: Charikar's Simhash, configurable and fast.

>>> from simhash_lab import Simhasher, hamming
>>> h = Simhasher()
>>> a = h.fingerprint("the quick brown fox jumps over the lazy dog")
>>> b = h.fingerprint("the quick brown fox jumped over the lazy dog")
>>> hamming(a, b) < hamming(a, h.fingerprint("an entirely different sentence about cooking"))
True
"""

from __future__ import annotations

import functools
import itertools
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._threads import run_items
from ._unicode import lower_table, needs_python_lower
from ._validate import as_text, check_int, check_option, check_weight, check_weights, plain_weights, utf8
from .kernels import fingerprint as F
from .kernels import hashes as H
from .kernels.strings import lower_utf8, str_views
from .kernels.tokenize import FEAT_TOKENS, FLAG_PYTHON_LOWER, FLAG_SURROGATE, TOK_RUST
from .kernels.vote import WEIGHT_BINARY, WEIGHT_TF, fold_weighted, hash_batch_address, overflow_scale
from .tokenize import Tokenizer, words

__all__ = ["Simhasher", "Trace"]

HASHES = {
    "xxh3": H.HASH_XXH3,
    "xxh64": H.HASH_XXH64,
    "md5": H.HASH_MD5_FIRST8,
    "md5-last8": H.HASH_MD5_LAST8,
    "siphash13-rust": H.HASH_SIP13_RUST_STR,
}

Features = str | Sequence[str] | Mapping[str, float] | Sequence[tuple]

_NO_WEIGHTS = np.empty(0, dtype=np.float64)
_EXPECTED = "a str, a list of str tokens, a dict token -> weight or a list of (token, weight) pairs"


@dataclass
class Trace:
    """How a fingerprint came about, feature by feature (what the course animates).

    Attributes
    ----------
    features : list of str
        Distinct features in order of first appearance.
    weights : ndarray, shape (m,), float64
        Each feature's vote weight (its count under TF weighting).
    hashes : ndarray, shape (m,), uint64
        Each feature's hash, masked to ``bits`` (the bits that vote).
    votes : ndarray, shape (m + 1, bits), float64
        The accumulators ``V`` before any feature (row 0) and after each feature.
    fingerprint : int
        Bit i is set when ``votes[-1, i] > 0``.
    bits : int
    scale : float
        ``weights`` and ``votes`` are the true ones times ``scale``: 1.0, or the power of two that
        keeps float64 sums of huge weights finite (the fingerprint is the same at any scale).
    """

    features: list
    weights: np.ndarray
    hashes: np.ndarray
    votes: np.ndarray
    fingerprint: int
    bits: int
    scale: float = 1.0

    def __len__(self) -> int:
        return len(self.features)


class Simhasher:
    """Charikar's Simhash: features vote on each of ``bits`` bits; the majority sets the bit.

    Parameters
    ----------
    bits : int, default 64
        Fingerprint width, 1..64. Bit i of the fingerprint is voted by bit i of each feature's
        hash, so only the low ``bits`` bits of the hashes count; features are still told apart
        (repeats, weights) by the whole feature.
    tokenizer : Tokenizer or callable, default ``words()``
        A built-in :mod:`simhash_lab.tokenize` rule (runs in Numba), or any callable
        ``text -> iterable of str`` (runs in Python).
    hash : str, mapping or callable, default "xxh3"
        "xxh3" (XXH3-64: fast on short tokens, full avalanche), "xxh64", "md5" (first 8 bytes,
        the seed's Python), "md5-last8"
        (the `simhash` package), "siphash13-rust" (Rust's ``DefaultHasher`` on a ``&str``), a
        mapping ``feature -> int`` or a callable ``feature -> int`` (the course's made-up hashes).
    weights : "tf", "binary" or mapping, default "tf"
        "tf": every occurrence votes once (weight = count); "binary": every distinct feature votes
        once; a mapping ``feature -> weight`` (IDF, say): every occurrence votes its weight, and
        features missing from it vote ``default_weight``.
    default_weight : float, default 1.0
    name : str, optional

    Notes
    -----
    ``V[i] = sum over features f of (+w_f if bit i of hash(f) is 1 else -w_f)``; bit i of the
    fingerprint is 1 when ``V[i] > 0`` (a tie is 0). An empty text has no features and gives 0.
    Integer weights (counts) are summed exactly. With fractional weights the sums are float64, so
    an accumulator that is exactly 0 in real arithmetic may round to either side of 0. Weights
    may be any finite float64: when their sums could overflow they are all divided by one power
    of two first (exact; the fingerprint does not change, ``Trace.scale`` says it happened).
    """

    def __init__(
        self,
        bits: int = 64,
        tokenizer: Tokenizer | Callable | None = None,
        hash: str | Mapping[str, int] | Callable[[str], int] = "xxh3",
        weights: str | Mapping[str, float] = "tf",
        default_weight: float = 1.0,
        name: str | None = None,
    ) -> None:
        self.bits = check_int("bits", bits, 1, 64)
        self.mask = (1 << self.bits) - 1
        if tokenizer is None:
            tokenizer = words()
        if not (isinstance(tokenizer, Tokenizer) or callable(tokenizer)):
            raise TypeError(f"tokenizer must be a Tokenizer or a callable, got {tokenizer!r}")
        self.tokenizer = tokenizer
        if isinstance(hash, str):
            self._hash_kind = HASHES[check_option("hash", hash, HASHES)]
            self._hash_fn = None
        elif isinstance(hash, Mapping) or callable(hash):
            self._hash_kind = -1
            self._hash_fn = hash
        else:
            raise TypeError(f"hash must be one of {list(HASHES)}, a mapping or a callable, got {hash!r}")
        self.hash = hash
        self.default_weight = check_weight("default_weight", default_weight)
        if isinstance(weights, str):
            check_option("weights", weights, ["tf", "binary"])
            self._wkeys = np.empty(0, dtype=np.uint64)
            self._wvals = np.empty(0, dtype=np.float64)
            self._wmap = None
        elif isinstance(weights, Mapping):
            self._wmap = {}
            for k, v in weights.items():
                if not isinstance(k, str):
                    raise TypeError(f"weights keys must be str features, got {k!r}")
                self._wmap[k] = check_weight(f"weights[{k!r}]", v)
            keys = self._hash_features(list(self._wmap), "weights")
            order = np.argsort(keys, kind="stable")
            self._wkeys = np.ascontiguousarray(keys[order])
            self._wvals = np.array(list(self._wmap.values()), dtype=np.float64)[order]
        else:
            raise TypeError(f"weights must be 'tf', 'binary' or a mapping, got {weights!r}")
        self.weights = weights
        self.name = name

    # ------------------------------------------------------------------------------ helpers
    @property
    def _weighting(self) -> int:
        return WEIGHT_BINARY if self.weights == "binary" else WEIGHT_TF

    @functools.cached_property
    def _pipeline(self) -> F.Pipeline:
        """This Simhasher as the kernels read it (built tokenizer tables included), on first use."""
        tok = self.tokenizer if isinstance(self.tokenizer, Tokenizer) else words()  # token lists only
        return tok.pipeline._replace(
            hash_kind=int(self._hash_kind),
            weighting=self._weighting,
            wkeys=self._wkeys,
            wvals=self._wvals,
            wdefault=float(self.default_weight),
            bits=int(self.bits),
        )

    def _fused_path(self) -> bool:
        """True when ``fingerprints_str_*`` compute the fingerprint straight from the strings."""
        tok = self.tokenizer
        return (
            tok.features == FEAT_TOKENS
            and tok.kind != TOK_RUST
            and self._weighting == WEIGHT_TF
            and self._wkeys.shape[0] == 0
        )

    def _hash_features(self, feats: Sequence[str], param: str = "features") -> np.ndarray:
        """The full 64-bit hashes (uint64) of feature strings (a custom hash: its low 64 bits);
        ``param`` names where the features came from in errors."""
        if self._hash_kind >= 0:
            enc = [utf8(f, f"{param}: feature {j}") for j, f in enumerate(feats)]
            offsets = np.zeros(len(enc) + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=len(enc)), out=offsets[1:])
            buf = np.frombuffer(bytearray().join(enc) or bytearray(1), dtype=np.uint8)  # writable
            return F.hash_spans(buf, offsets, self._hash_kind)
        out = np.empty(len(feats), dtype=np.uint64)
        fn = self._hash_fn
        for i, f in enumerate(feats):
            if isinstance(fn, Mapping):
                if f not in fn:
                    raise ValueError(f"hash: the mapping has no entry for the feature {f!r} of {param}")
                h = fn[f]
            else:
                try:
                    h = fn(f)
                except Exception as e:
                    e.add_note(f"(raised by the hash callable on the feature {f!r} of {param})")
                    raise
            if isinstance(h, bool) or not isinstance(h, numbers.Integral):
                raise TypeError(f"hash must give ints; gave {h!r} for the feature {f!r} of {param}")
            if h < 0:
                raise ValueError(f"hash must give non-negative ints; gave {h} for {f!r} of {param}")
            out[i] = int(h) & 0xFFFFFFFFFFFFFFFF
        return out

    def _text_features(self, text: str, param: str = "text") -> list[str]:
        tok = self.tokenizer
        if isinstance(tok, Tokenizer):
            return tok(text)
        try:
            feats = tok(text)
        except Exception as e:
            e.add_note(f"(raised by the tokenizer on {param})")
            raise
        if isinstance(feats, (str, bytes)) or not isinstance(feats, Iterable):
            raise TypeError(
                f"tokenizer must return an iterable of str features, returned {type(feats).__name__} "
                f"for {param}"
            )
        feats = list(feats)
        for j, f in enumerate(feats):
            if not isinstance(f, str):
                raise TypeError(
                    f"tokenizer must return str features, returned {f!r} (feature {j} of {param})"
                )
        return feats

    def _weighted(self, x: Any, param: str) -> tuple[list[str], np.ndarray, float]:
        """(distinct features in first-appearance order, their weights, scale) for any accepted
        input: the weights are the true ones times ``scale``, a power of two that is 1.0 unless
        their sums could overflow float64 (``kernels.vote.overflow_scale``)."""
        kind, feats, given = _split_input(x, param)
        if kind == "text":
            feats = self._text_features(feats, param)
        if given is None:
            if self.weights == "binary":
                occ = np.ones(len(feats), dtype=np.float64)
            elif self._wmap is None:
                occ = np.ones(len(feats), dtype=np.float64)
            else:
                get, dw = self._wmap.get, self.default_weight
                occ = np.fromiter((get(f, dw) for f in feats), dtype=np.float64, count=len(feats))
        else:
            occ = given
        scale = float(overflow_scale(occ, occ.shape[0])) if occ.size else 1.0
        agg: dict[str, float] = {}
        if given is None and self.weights == "binary":
            agg = dict.fromkeys(feats, 1.0)
        else:
            for f, w in zip(feats, (occ * scale).tolist()):
                agg[f] = agg.get(f, 0.0) + w
        return list(agg), np.fromiter(agg.values(), dtype=np.float64, count=len(agg)), scale

    # ------------------------------------------------------------------------------ public
    def fingerprint(self, x: Features) -> int:
        """The fingerprint of one text or feature collection, an int in [0, 2**bits).

        ``x`` may be a str (tokenized; UTF-8 bytes are decoded first), a list of tokens (weight 1
        each, repeats add up), a dict ``token -> weight`` or a list of ``(token, weight)`` pairs
        (given weights are used as is, repeats add up). Finite weights of any size are accepted.

        Parameters
        ----------
        x : str, bytes, list of str, dict or list of (str, float)
            A text, or its features with their weights.

        Returns
        -------
        int
            The fingerprint, ``0 <= fp < 2**bits``.
        """
        return int(self._batch([x], lambda i: "x", False)[0])

    def fingerprints(self, texts: Iterable[Features], parallel: bool | None = None) -> np.ndarray:
        """Fingerprints of many texts: uint64 array of shape (n,), equal item by item to
        :meth:`fingerprint`. Runs the whole pipeline in Numba, in parallel across documents:
        texts, token lists, dicts and pairs alike (with a built-in hash).

        ``parallel=None`` uses all of Numba's threads for batches of 64 documents or more.

        Parameters
        ----------
        texts : iterable of str, bytes, list, dict or list of pairs
            What :meth:`fingerprint` takes, one item per document.
        parallel : bool, optional
            Threads across documents (default: for batches of 64 or more).

        Returns
        -------
        ndarray of shape (n,), uint64
        """
        if texts is None or isinstance(texts, (str, bytes, bytearray, memoryview)):
            raise TypeError(
                "texts must be an iterable of texts or feature collections, got "
                f"{type(texts).__name__} (for one text use fingerprint())"
            )
        if not isinstance(texts, Iterable):
            raise TypeError(f"texts must be an iterable of texts, got {type(texts).__name__}")
        if parallel is not None and not isinstance(parallel, (bool, np.bool_)):
            raise TypeError(f"parallel must be True, False or None, got {parallel!r}")
        items = list(texts)  # our own references: the kernels read the strings without the GIL
        par = bool(parallel or (parallel is None and len(items) >= 64))
        return self._batch(items, lambda i: f"texts[{i}]", par)

    def _batch(self, items: list, param: Callable[[int], str], par: bool) -> np.ndarray:
        """Fingerprints of ``items`` (replaced in place by what the kernels read); ``param(i)``
        names item i in errors."""
        n = len(items)
        out = np.empty(n, dtype=np.uint64)
        if self._hash_kind < 0:  # a custom hash: Python hashes, then one vote kernel per item
            for i, x in enumerate(items):
                feats, w, _ = self._weighted(x, param(i))
                out[i] = self._fold(self._hash_features(feats, param(i)), w)
            return out
        if all(type(t) is str for t in items):
            texts, tokens, given, dicts = list(range(n)), [], [], []
        else:
            texts, tokens, given, dicts = [], [], [], []
            for i, x in enumerate(items):
                if type(x) is list or type(x) is tuple:  # tokens, checked by the join (_tokens)
                    tokens.append(i)
                    continue
                if type(x) is dict:  # keys checked by the join, weights all at once
                    dicts.append(i)
                    continue
                kind, feats, w = _split_input(x, param(i))
                items[i] = (feats, w) if kind == "given" else feats
                (texts if kind == "text" else tokens if kind == "tokens" else given).append(i)
        if texts and not isinstance(self.tokenizer, Tokenizer):  # a Python tokenizer: its tokens
            for i in texts:
                items[i] = self._text_features(items[i], param(i))
            tokens, texts = sorted(tokens + texts), []
        if texts:
            strs = items if len(texts) == n else [items[i] for i in texts]
            fps = out if len(texts) == n else np.empty(len(texts), dtype=np.uint64)
            self._texts(strs, fps, par, lambda k: param(texts[k]))
            if fps is not out:
                out[texts] = fps
        if tokens:
            docs = [items[i] for i in tokens]
            try:
                out[tokens] = self._tokens(docs, None, par, lambda k: param(tokens[k]))
            except TypeError:  # not all str: pairs, or an error to name
                checked = []
                for i in tokens:
                    kind, feats, w = _split_input(items[i], param(i))
                    items[i] = (feats, w) if kind == "given" else feats
                    (checked if kind == "tokens" else given).append(i)
                tokens = checked
                given.sort()
                if tokens:
                    out[tokens] = self._tokens(
                        [items[i] for i in tokens], None, par, lambda k: param(tokens[k])
                    )
        if dicts:
            keys = [list(items[i]) for i in dicts]
            ws = plain_weights(list(itertools.chain.from_iterable(items[i].values() for i in dicts)))
            try:
                if ws is None:
                    raise TypeError  # a weight to check one by one
                out[dicts] = self._tokens(keys, ws, par, lambda k: param(dicts[k]))
            except TypeError:  # a key or a weight to name
                for i in dicts:
                    _, feats, w = _split_input(items[i], param(i))
                    items[i] = (feats, w)
                given = sorted(given + dicts)
        if given:
            feats = [items[i][0] for i in given]
            ws = np.concatenate([items[i][1] for i in given])
            out[given] = self._tokens(feats, ws, par, lambda k: param(given[k]))
        return out

    def _texts(self, items: list, out: np.ndarray, par: bool, param: Callable[[int], str]) -> None:
        """Fingerprints of exact ``str`` texts into ``out``: fused or general path."""
        if self._fused_path():
            self._fused(items, out, par, param)
            return
        buf, offsets = utf8_batch(items, self.tokenizer.lowercase, param)
        pipeline = self._pipeline
        run_items(
            len(items),
            lambda lo, hi: F.fingerprints(buf, offsets[lo : hi + 1], pipeline, out[lo:hi]),
            par,
        )

    def _fused(self, items: list, out: np.ndarray, parallel: bool, param: Callable[[int], str]) -> None:
        """Word or whitespace tokens, TF weights: straight from the strings' code units."""
        pipeline = self._pipeline
        hash_fn = hash_batch_address(pipeline.hash_kind)

        def run(strs: list, fps: np.ndarray) -> np.ndarray:
            flags = np.zeros(len(strs), dtype=np.int64)
            ptrs, lens, kinds = str_views(strs)

            def docs(lo: int, hi: int) -> None:
                F.fingerprints_str(
                    ptrs[lo:hi], lens[lo:hi], kinds[lo:hi], pipeline, hash_fn, fps[lo:hi], flags[lo:hi]
                )

            run_items(len(strs), docs, parallel, align=F.CHUNK)
            return flags

        flags = run(items, out)
        if not flags.any():
            return
        for i in np.flatnonzero(flags & FLAG_SURROGATE):
            utf8(items[i], param(int(i)))  # raises: a lone surrogate has no UTF-8 form
        redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
        sub = np.empty(len(redo), dtype=np.uint64)
        run([items[i].lower() for i in redo], sub)  # İ and Σ: their lowercase depends on context
        out[redo] = sub

    def _tokens(
        self, docs: list, ws: np.ndarray | None, parallel: bool, param: Callable[[int], str]
    ) -> np.ndarray:
        """Fingerprints of token lists (each a list of str, or a dict's keys with ``ws``, one
        given weight per token, in order): all tokens joined into one str, read in place.

        The tokens are joined by NUL, and the kernel finds where each starts, when no token holds
        a NUL (the str's count of NULs says so); otherwise they are joined as they are and their
        lengths are taken one by one. ``"".join`` raises TypeError on any token that is not a str
        (the caller then says which)."""
        ntok = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
        doff = np.zeros(len(docs) + 1, dtype=np.int64)
        np.cumsum(ntok, out=doff[1:])
        total = int(doff[-1])
        joined = "\x00".join(itertools.chain.from_iterable(docs))
        gap = 1
        ptrs, lens, kinds = str_views([joined])
        if total > 0 and joined.count("\x00") == total - 1:
            toff = F.separator_starts(ptrs[0], lens[0], kinds[0], total, 0)
        else:  # a token holds a NUL, or none at all: the lengths one by one
            joined = "".join(itertools.chain.from_iterable(docs))
            ptrs, lens, kinds = str_views([joined])
            toff = np.zeros(total + 1, dtype=np.int64)
            lengths = map(len, itertools.chain.from_iterable(docs))
            np.cumsum(np.fromiter(lengths, dtype=np.int64, count=total), out=toff[1:])
            gap = 0
        out = np.empty(len(docs), dtype=np.uint64)
        flags = np.zeros(len(docs), dtype=np.int64)
        weights = _NO_WEIGHTS if ws is None else ws
        pipeline, ptr, kind = self._pipeline, ptrs[0], kinds[0]
        hash_fn = hash_batch_address(pipeline.hash_kind)

        def run(lo: int, hi: int) -> None:
            F.token_fingerprints(
                ptr, kind, toff, gap, doff[lo : hi + 1], weights, pipeline, hash_fn, out[lo:hi], flags[lo:hi]
            )

        run_items(len(docs), run, parallel, align=F.CHUNK)
        for d in np.flatnonzero(flags):
            for j, t in enumerate(docs[d]):
                utf8(t, f"{param(int(d))}, token {j}")  # raises: a lone surrogate has no UTF-8 form
        return out

    def _fold(self, hs: np.ndarray, w: np.ndarray) -> int:
        return int(fold_weighted(hs, w, self.bits))

    def trace(self, x: Features) -> Trace:
        """Feature-by-feature votes: what :meth:`fingerprint` does, step by step.

        Parameters
        ----------
        x : str, bytes, list, dict or list of pairs
            What :meth:`fingerprint` takes.

        Returns
        -------
        Trace
            Each feature, its weight, its hash and its votes, and the accumulators.
        """
        feats, w, scale = self._weighted(x, "x")
        hs = self._hash_features(feats, "x")
        bitsets = ((hs[:, None] >> np.arange(self.bits, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        steps = np.where(bitsets, w[:, None], -w[:, None])
        votes = np.vstack([np.zeros((1, self.bits)), np.cumsum(steps, axis=0)])
        fp = self._fold(hs, w)
        return Trace(feats, w, hs & np.uint64(self.mask), votes, fp, self.bits, scale)

    def accumulators(self, x: Features) -> np.ndarray:
        """The accumulators ``V`` (float64, shape (bits,)): bit i is set when ``V[i] > 0``.
        (Times ``trace(x).scale``, 1.0 unless the true sums overflow float64.)

        Parameters
        ----------
        x : str, bytes, list, dict or list of pairs
            What :meth:`fingerprint` takes.

        Returns
        -------
        ndarray of shape (bits,), float64
        """
        return self.trace(x).votes[-1]

    def features(self, text: str) -> list[str]:
        """The features ``text`` is cut into (repeats kept, in order).

        Parameters
        ----------
        text : str

        Returns
        -------
        list of str
        """
        return self._text_features(as_text(text, "text"))

    def __repr__(self) -> str:
        if self.name:
            return f"<Simhasher {self.name}>"
        tok = getattr(self.tokenizer, "name", getattr(self.tokenizer, "__name__", "custom"))
        hash_name = self.hash if isinstance(self.hash, str) else "custom"
        wname = self.weights if isinstance(self.weights, str) else "mapping"
        return f"Simhasher(bits={self.bits}, tokenizer={tok}, hash={hash_name}, weights={wname})"


def _split_input(x: Any, param: str) -> tuple[str, Any, np.ndarray | None]:
    """What an input is: ("text", str, None), ("tokens", list of str, None) or ("given", list of
    str, float64 weights (one per token)); anything else is a TypeError/ValueError naming ``param``.

    A str subclass (``np.str_``) becomes an exact str and UTF-8 bytes are decoded, once, so that
    every text takes the same path. Token collections are checked by C-speed passes (``map``,
    ``set``) and only looked at item by item to say what is wrong."""
    if type(x) is str:
        return "text", x, None
    if isinstance(x, str):
        return "text", str.__str__(x), None
    if isinstance(x, (bytes, bytearray, memoryview)):
        return "text", as_text(x, param), None
    if x is None:
        raise TypeError(f"{param} must be {_EXPECTED}, got None")
    if isinstance(x, Mapping):
        keys = list(x.keys())
        if not set(map(type, keys)) <= {str}:
            for k in keys:
                if not isinstance(k, str):
                    raise TypeError(f"{param} keys must be str tokens, got {k!r}")
            keys = [str.__str__(k) for k in keys]
        return "given", keys, check_weights(list(x.values()), keys, param)
    if not isinstance(x, Iterable):
        raise TypeError(f"{param} must be {_EXPECTED}, got {type(x).__name__}")
    items = x if isinstance(x, list) else list(x)
    types = set(map(type, items))
    if types <= {str}:
        return "tokens", items, None
    if all(isinstance(t, str) for t in items):
        return "tokens", [str.__str__(t) for t in items], None
    if types <= {tuple} and set(map(len, items)) <= {2}:
        toks, ws = (list(c) for c in zip(*items)) if items else ([], [])
        if not set(map(type, toks)) <= {str} and all(isinstance(t, str) for t in toks):
            toks = [str.__str__(t) for t in toks]  # np.str_ & co
        if set(map(type, toks)) <= {str}:
            return "given", toks, check_weights(ws, toks, param)
    for j, t in enumerate(items):
        if not (isinstance(t, str) or (isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str))):
            raise TypeError(f"{param} must be all str tokens or all (str, weight) pairs; item {j} is {t!r}")
    raise TypeError(f"{param} must be all str tokens or all (str, weight) pairs, not a mix of both")


def _texts_param(i: int) -> str:
    return f"texts[{i}]"


def utf8_batch(
    items: Sequence[str], lowercase: bool, param: Callable[[int], str] = _texts_param
) -> tuple[np.ndarray, np.ndarray]:
    """One uint8 buffer with every text's UTF-8 bytes, and the int64 offsets (n + 1,).

    Lowercasing (``str.lower()``, character by character) runs in Numba over the buffer; only texts
    with a context-dependent lowercase (see ``needs_python_lower``) are lowered by Python first.
    """
    n = len(items)
    try:
        if lowercase:  # Numba lowers below; Python only where context matters (rare)
            enc = [(t.lower() if needs_python_lower(t) else t).encode() for t in items]
        else:
            enc = [t.encode() for t in items]
    except UnicodeEncodeError:
        for i, t in enumerate(items):
            utf8(t, param(i))
        raise
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=n), out=offsets[1:])
    joined = bytearray().join(enc)
    buf = np.frombuffer(joined, dtype=np.uint8) if joined else np.zeros(1, dtype=np.uint8)
    if lowercase:
        buf, offsets = lower_utf8(buf, offsets, lower_table())
    return buf, offsets
