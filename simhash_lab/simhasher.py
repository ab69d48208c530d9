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
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._unicode import lower_table, needs_python_lower
from ._validate import as_text, check_int, check_option, check_weight, utf8
from .kernels import fingerprint as F
from .kernels import hashes as H
from .kernels.strings import lower_utf8, str_views
from .kernels.tokenize import FEAT_TOKENS, FLAG_PYTHON_LOWER, FLAG_SURROGATE, TOK_RUST
from .kernels.vote import WEIGHT_BINARY, WEIGHT_TF, fold_weighted
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
    """

    features: list
    weights: np.ndarray
    hashes: np.ndarray
    votes: np.ndarray
    fingerprint: int
    bits: int

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
    an accumulator that is exactly 0 in real arithmetic may round to either side of 0.
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
            keys = self._hash_features(list(self._wmap))
            order = np.argsort(keys, kind="stable")
            self._wkeys = np.ascontiguousarray(keys[order])
            self._wvals = np.array(list(self._wmap.values()), dtype=np.float64)[order]
        else:
            raise TypeError(f"weights must be 'tf', 'binary' or a mapping, got {weights!r}")
        self.weights = weights
        self.name = name

    # ------------------------------------------------------------------------------ helpers
    @property
    def _fast(self) -> bool:
        """True when the whole pipeline runs in Numba (built-in tokenizer and hash)."""
        return isinstance(self.tokenizer, Tokenizer) and self._hash_kind >= 0

    @property
    def _weighting(self) -> int:
        return WEIGHT_BINARY if self.weights == "binary" else WEIGHT_TF

    @functools.cached_property
    def _pipeline(self) -> F.Pipeline:
        """This Simhasher as the kernels read it (built tokenizer tables included), on first use."""
        return self.tokenizer.pipeline._replace(
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

    def _hash_features(self, feats: Sequence[str]) -> np.ndarray:
        """The full 64-bit hashes (uint64) of feature strings (a custom hash: its low 64 bits)."""
        if self._hash_kind >= 0:
            enc = [utf8(f, "features") for f in feats]
            offsets = np.zeros(len(enc) + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=len(enc)), out=offsets[1:])
            buf = np.frombuffer(bytearray().join(enc) or bytearray(1), dtype=np.uint8)  # writable
            return F.hash_spans(buf, offsets, self._hash_kind)
        out = np.empty(len(feats), dtype=np.uint64)
        fn = self._hash_fn
        for i, f in enumerate(feats):
            try:
                h = fn[f] if isinstance(fn, Mapping) else fn(f)
            except KeyError:
                raise ValueError(f"hash mapping has no entry for the feature {f!r}") from None
            if isinstance(h, bool) or not isinstance(h, numbers.Integral) or h < 0:
                raise ValueError(f"hash must give non-negative ints; gave {h!r} for {f!r}")
            out[i] = int(h) & 0xFFFFFFFFFFFFFFFF
        return out

    def _text_features(self, text: str) -> list[str]:
        tok = self.tokenizer
        if isinstance(tok, Tokenizer):
            return tok(text)
        feats = list(tok(text))
        for f in feats:
            if not isinstance(f, str):
                raise TypeError(f"tokenizer must return str features, returned {f!r}")
        return feats

    def _weighted(self, x: Any, param: str) -> tuple[list[str], np.ndarray]:
        """(distinct features in first-appearance order, their weights) for any accepted input."""
        if isinstance(x, (str, bytes, bytearray, memoryview)):
            feats = self._text_features(as_text(x, param))
            given = None
        elif x is None:
            raise TypeError(
                f"{param} must be a str, a list of tokens, a dict token -> weight or "
                "(token, weight) pairs, got None"
            )
        elif isinstance(x, Mapping):
            feats, given = list(x.keys()), list(x.values())
        elif isinstance(x, Iterable):
            items = list(x)
            if all(isinstance(t, str) for t in items):
                feats, given = items, None
            elif all(isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str) for t in items):
                feats = [t[0] for t in items]
                given = [t[1] for t in items]
            else:
                raise TypeError(f"{param} must be all str tokens or all (str, weight) pairs")
        else:
            raise TypeError(f"{param} must be a str or features, got {type(x).__name__}")
        agg: dict[str, float] = {}
        if given is None:
            for f in feats:
                if self.weights == "binary":
                    agg[f] = 1.0
                else:
                    w = 1.0 if self._wmap is None else self._wmap.get(f, self.default_weight)
                    agg[f] = agg.get(f, 0.0) + w
        else:
            for f, w in zip(feats, given):
                if not isinstance(f, str):
                    raise TypeError(f"{param} keys must be str, got {f!r}")
                agg[f] = agg.get(f, 0.0) + check_weight(f"weight of {f!r} in {param}", w)
        return list(agg), np.fromiter(agg.values(), dtype=np.float64, count=len(agg))

    # ------------------------------------------------------------------------------ public
    def fingerprint(self, x: Features) -> int:
        """The fingerprint of one text or feature collection, an int in [0, 2**bits).

        ``x`` may be a str (tokenized), a list of tokens (weight 1 each, repeats add up), a dict
        ``token -> weight`` or a list of ``(token, weight)`` pairs (given weights are used as is).
        """
        if self._fast and isinstance(x, str):
            try:
                return int(self.fingerprints([str.__str__(x)])[0])
            except ValueError:
                utf8(x, "x")  # the same error, naming this parameter
                raise
        feats, w = self._weighted(x, "x")
        return self._fold(self._hash_features(feats), w)

    def _fold(self, hs: np.ndarray, w: np.ndarray) -> int:
        return int(fold_weighted(hs, w, self.bits))

    def fingerprints(self, texts: Iterable[Features], parallel: bool | None = None) -> np.ndarray:
        """Fingerprints of many texts: uint64 array of shape (n,), equal item by item to
        :meth:`fingerprint`. Runs the whole pipeline in Numba, in parallel across documents.

        ``parallel=None`` uses all of Numba's threads for batches of 64 documents or more.
        """
        if texts is None or isinstance(texts, (str, bytes)):
            raise TypeError("texts must be an iterable of texts (for one text use fingerprint())")
        items = list(texts)  # our own references: the kernels read the strings without the GIL
        n = len(items)
        out = np.empty(n, dtype=np.uint64)
        if self._fast and not all(type(t) is str for t in items):
            items = [str.__str__(t) if isinstance(t, str) else t for t in items]  # np.str_ & co
        if not self._fast or not all(type(t) is str for t in items):
            for i, t in enumerate(items):
                out[i] = self.fingerprint(t) if self._fast and type(t) is str else self._slow(t, i)
            return out
        par = bool(parallel or (parallel is None and n >= 64))
        if self._fused_path():
            self._fused(items, out, par)
            return out
        buf, offsets = _utf8_batch(items, self.tokenizer.lowercase)
        kernel = F.fingerprints_parallel if par else F.fingerprints_serial
        kernel(buf, offsets, self._pipeline, out)
        return out

    def _fused(self, items: list, out: np.ndarray, parallel: bool) -> None:
        """Word or whitespace tokens, TF weights: straight from the strings' code units."""
        kernel = F.fingerprints_str_parallel if parallel else F.fingerprints_str_serial
        pipeline = self._pipeline

        def run(strs: list, fps: np.ndarray) -> np.ndarray:
            flags = np.zeros(len(strs), dtype=np.int64)
            kernel(*str_views(strs), pipeline, fps, flags)
            return flags

        flags = run(items, out)
        if not flags.any():
            return
        for i in np.flatnonzero(flags & FLAG_SURROGATE):
            utf8(items[i], f"texts[{i}]")  # raises: a lone surrogate has no UTF-8 form
        redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
        sub = np.empty(len(redo), dtype=np.uint64)
        run([items[i].lower() for i in redo], sub)  # İ and Σ: their lowercase depends on context
        out[redo] = sub

    def _slow(self, t: Any, i: int) -> int:
        feats, w = self._weighted(t, f"texts[{i}]")
        return self._fold(self._hash_features(feats), w)

    def trace(self, x: Features) -> Trace:
        """Feature-by-feature votes: what :meth:`fingerprint` does, step by step."""
        feats, w = self._weighted(x, "x")
        hs = self._hash_features(feats)
        bitsets = ((hs[:, None] >> np.arange(self.bits, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        steps = np.where(bitsets, w[:, None], -w[:, None])
        votes = np.vstack([np.zeros((1, self.bits)), np.cumsum(steps, axis=0)])
        fp = self._fold(hs, w)
        return Trace(feats, w, hs & np.uint64(self.mask), votes, fp, self.bits)

    def accumulators(self, x: Features) -> np.ndarray:
        """The accumulators ``V`` (float64, shape (bits,)): bit i is set when ``V[i] > 0``."""
        return self.trace(x).votes[-1]

    def features(self, text: str) -> list[str]:
        """The features ``text`` is cut into (repeats kept, in order)."""
        return self._text_features(as_text(text, "text"))

    def __repr__(self) -> str:
        if self.name:
            return f"<Simhasher {self.name}>"
        tok = getattr(self.tokenizer, "name", getattr(self.tokenizer, "__name__", "custom"))
        hash_name = self.hash if isinstance(self.hash, str) else "custom"
        wname = self.weights if isinstance(self.weights, str) else "mapping"
        return f"Simhasher(bits={self.bits}, tokenizer={tok}, hash={hash_name}, weights={wname})"


def _utf8_batch(items: Sequence[str], lowercase: bool) -> tuple[np.ndarray, np.ndarray]:
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
            utf8(t, f"texts[{i}]")
        raise
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, enc), dtype=np.int64, count=n), out=offsets[1:])
    joined = bytearray().join(enc)
    buf = np.frombuffer(joined, dtype=np.uint8) if joined else np.zeros(1, dtype=np.uint8)
    if lowercase:
        buf, offsets = lower_utf8(buf, offsets, lower_table())
    return buf, offsets
