"""The fused first read (``kernels.fused.words_pass`` through ``Shingler.first_pass`` and
``first_read``) against the separate kernels it replaces on the default path, bit for bit:
fingerprints (``fold_sets`` of ``sets``), set sizes, band keys (``BandKeys.make``), digests
(``text_digests``) and the sets when kept."""

from __future__ import annotations

import numpy as np
import pytest

from simhash_lab.candidates import BandKeys
from simhash_lab.dedup.run import Run
from simhash_lab.dedup.steps import first_read, text_digests
from simhash_lab.kernels import verify as V
from simhash_lab.kernels.strings import str_views
from simhash_lab.kernels.tokenize import FLAG_PYTHON_LOWER
from simhash_lab.settings import DedupSettings
from simhash_lab.shingles import FusedScratch, Shingler, _merge_csr, _rows_csr
from simhash_lab.simhasher import utf8_batch

VARIED = [
    "The quick brown fox jumps over the lazy dog, again and again.",
    "Hello, world! (Punctuation: everywhere; really...) -- yes?",
    "supercalifragilisticexpialidocious " * 3 + "antidisestablishmentarianism pneumonoultramicroscopic",
    "one",
    "",
    "   \t\n  ",
    "!!! ??? ...",
    "emoji 😀 between words 😀 and 🎉 at the end 🎉",
    "El niño comió paella en el año pasado; ¿qué más? Señor Núñez, ¡olé!",
    "İstanbul ΣΟΦΙΑ and other words that Python lowers",  # FLAG_PYTHON_LOWER: redone through UTF-8
    "a b a b a b a b a b a b",  # repeated shingles: distinct ones counted once
    "x" * 3000 + " tail words here",  # one long token, then a longer scratch
    "mixed ÀÉÎ 中文 text with кириллица",
]


def corpus(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    words = [w for t in VARIED for w in t.split()] + ["lorem", "ipsum", "dolor", "sit", "amet"]
    out = list(VARIED)
    for _ in range(n - len(VARIED)):
        k = int(rng.integers(0, 200))
        out.append(" ".join(words[int(i)] for i in rng.integers(0, len(words), k)))
    rng.shuffle(out)
    return out


def reference(sh: Shingler, keys: BandKeys, texts: list[str]) -> tuple:
    """What the first read made before the fused pass, by the separate kernels: the sets by
    ``verify.shingle_hashes_str`` (sorted, compacted; a row Python lowers through the UTF-8
    path), the fingerprints by ``fold_sets``, the keys by ``BandKeys.make`` (``band_keys``), the
    digests by ``text_digests`` (``str_digests``)."""
    texts = [str.__str__(t) for t in texts]
    tok = sh.tokenizer
    nd = len(texts)
    ptrs, lens, kinds = str_views(texts)
    slots = np.zeros(nd + 1, np.int64)
    np.cumsum((lens + 1) // 2 + 1, out=slots[1:])
    scratch = np.empty(slots[-1], np.uint64)
    counts, flags, at = np.zeros(nd, np.int64), np.zeros(nd, np.int64), np.zeros(nd, np.int64)
    V.shingle_hashes_str(ptrs, lens, kinds, tok.pipeline, tok.n, slots, scratch, counts, flags, at)
    ind = V.compact_sets(scratch, at, counts)
    dat = scratch[: ind[-1]]
    redo = np.flatnonzero(flags & FLAG_PYTHON_LOWER)
    if redo.size:
        keep = np.flatnonzero((flags & FLAG_PYTHON_LOWER) == 0)
        ri, rd = sh._sets(*utf8_batch([texts[i] for i in redo], True))
        ind, dat = _merge_csr(nd, [(keep, *_rows_csr(ind, dat, keep)), (redo, ri, rd)])
    fps = np.empty(nd, np.uint64)
    V.fold_sets(ind, dat, 64, fps)
    return fps, np.diff(ind), keys.make(ind, dat), text_digests(texts), ind, dat


@pytest.mark.parametrize("n, chunks", [(13, [13]), (700, [1, 63, 64, 65, 300, 207])])
def test_first_pass_equals_the_separate_kernels(n: int, chunks: list[int]) -> None:
    texts = corpus(n)
    assert sum(chunks) == n
    sh, keys = Shingler(3), BandKeys(0.8, 0.99)
    fps, sizes, k, dig, ind, dat = reference(sh, keys, texts)
    assert (sizes == 0).any() and ((sizes > 100).any() or n < 100)  # featureless rows, long ones
    assert np.array_equal(sh.fingerprints_and_sets(texts)[0], fps)  # the public calls: fused too
    assert all(np.array_equal(a, b) for a, b in zip(sh.sets(texts), (ind, dat)))
    lo = 0
    for c in chunks:  # chunks of mixed sizes, one scratch reused (and grown) across them
        part = texts[lo : lo + c]
        for by_sort in (False, True):
            fp = sh.first_pass(part, keys, digests=True, by_sort=by_sort)
            assert np.array_equal(fp.fps, fps[lo : lo + c])
            assert np.array_equal(fp.sizes, sizes[lo : lo + c])
            assert np.array_equal(fp.keys, k[:, lo : lo + c])
            assert np.array_equal(fp.digests, dig[lo : lo + c])
            assert fp.indptr is None and fp.data is None
        kept = sh.first_pass(part, keys, sets=True)
        assert np.array_equal(kept.indptr, ind[lo : lo + c + 1] - ind[lo])
        assert np.array_equal(kept.data, dat[ind[lo] : ind[lo + c]])
        lo += c
    assert FusedScratch.mine().units >= 3000
    long = ["word " * (FusedScratch.KEEP_UNITS // 5 + 10) + "end"]  # scratch of its own, not kept
    before = FusedScratch.mine().units
    fps_long = sh.first_pass(long, keys).fps
    assert FusedScratch.mine().units == before and np.array_equal(fps_long, reference(sh, keys, long)[0])


def test_first_pass_options_and_refusals() -> None:
    sh = Shingler(2)
    fp = sh.first_pass(["a b c", "a b"])
    assert fp.keys is None and fp.digests is None
    assert fp.sizes.tolist() == [2, 1]
    empty = sh.first_pass([], BandKeys(0.8, 0.99), True, True)
    assert empty.fps.shape == (0,) and empty.keys.shape[1] == 0 and empty.indptr.tolist() == [0]
    with pytest.raises(ValueError):
        sh.first_pass(["fine", "bad \ud800 surrogate"])


class Sub(str):
    pass


def test_str_subclasses_and_other_shingle_sizes() -> None:
    texts = [Sub(t) for t in VARIED]
    for n in (1, 5):
        sh, keys = Shingler(n), BandKeys(0.7, 0.95)
        fps, sizes, k, dig, _, _ = reference(sh, keys, list(texts))
        fp = sh.first_pass(texts, keys, digests=True)
        assert np.array_equal(fp.fps, fps) and np.array_equal(fp.sizes, sizes)
        assert np.array_equal(fp.keys, k) and np.array_equal(fp.digests, dig)


@pytest.mark.parametrize("budget", [0, 1 << 30])
def test_first_read_fused_chunk_is_the_unfused_one(budget: int) -> None:
    """``first_read`` on the default path (fused) and with the fused pass refused (the three
    steps apart) make the same chunk: one process (no sets kept) and a Dask task (sets kept); for
    texts with word spaces only, for a chunk where a few are of a script without them ("auto":
    those by script runs, the others still by the pass) and for such texts alone."""
    from simhash_lab.dedup import steps
    from simhash_lab.dedup.run import Clock

    spaced = [t for t in corpus(300, seed=1) if "中" not in t]
    mixed = corpus(300, seed=2) + ["中文 text", "日本語のテキストです", "ภาษาไทย words", "", "İ 中"]
    unspaced = ["中文", "日本語のテキストです", "中文 and words"]
    run = Run(DedupSettings(jaccard=0.8, candidates="bands"), sets_budget=budget)
    for texts in (spaced, mixed, unspaced):
        orig = steps.Fingerprint.fused
        try:
            steps.Fingerprint.fused = lambda self, *a: (None, None)
            apart = first_read(run, texts, 0, "test", Clock("never"))
        finally:
            steps.Fingerprint.fused = orig
        fused = first_read(run, texts, 0, "test", Clock("never"))
        for name in ("fps", "chars", "featureless", "digests", "keys", "sizes"):
            a, b = getattr(fused, name), getattr(apart, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
        if budget or texts is unspaced:  # sets kept, or made (no pass for unspaced texts alone)
            assert np.array_equal(fused.indptr, apart.indptr) and np.array_equal(fused.data, apart.data)
        else:
            assert fused.indptr is None and fused.data is None  # the fused pass made it: no sets
        assert fused.chars.any() == (texts is not spaced)
