"""The kernels' scratch buffers are big enough: every bound derived in a comment, checked.

Numba does not check indices unless asked, so a buffer one entry short corrupts memory silently.
Here the kernels run with ``NUMBA_BOUNDSCHECK=1`` (in a subprocess with its own empty cache:
bounds-checked code must not land in the shared cache) on the inputs that reach each bound: a token
and a separator per two bytes, every unit of a string flipping in or out of a token, the characters
whose lowercase is longer in UTF-8 than they are (Ⱥ: 2 -> 3 bytes), lone surrogates (-> U+FFFD),
astral characters, and n-grams as long as the text. A buffer made one entry too short must fail
there, so the check can fail.
"""

from __future__ import annotations

import textwrap

import numpy as np

from simhash_lab._unicode import lower_table
from simhash_lab.kernels import tokenize as K
from simhash_lab.tokenize import words

SCRIPT = textwrap.dedent(
    r"""
    import numpy as np
    from simhash_lab import Simhasher, presets
    from simhash_lab.kernels import tokenize as K
    from simhash_lab.kernels.fingerprint import fingerprints
    from simhash_lab.kernels.strings import str_views
    from simhash_lab.tokenize import char_ngrams, whitespace, word_shingles, words

    def texts():
        out = []
        for n in range(0, 40):  # every length around the 8-unit blocks
            for unit in ("a ", " a", "é ", "Ⱥ ", "\U00010400 ", "\u0130 ", "\ud800 ", "a\u2019", "ab"):
                out.append((unit * n)[:n])
        out += ["a" * 1000, "a " * 1000, "Ⱥ" * 333, "ⱥȺ " * 100, "x", "", "\U00010400" * 9]
        return out

    ts = texts()
    ok_texts = [t for t in ts if "\ud800" not in t]
    for tok in (words(), words(False), whitespace(), whitespace(False)):  # the fused path
        h = Simhasher(tokenizer=tok)
        for t in ok_texts:
            h.fingerprint(t)
        for t in ts:
            try:
                h.fingerprint(t)
            except ValueError:  # a lone surrogate: refused after the kernel ran
                pass
    for h in (Simhasher(tokenizer=word_shingles(5)), Simhasher(tokenizer=char_ngrams(64)),
              Simhasher(tokenizer=char_ngrams(2, joiner="")), presets.LEONSIM, presets.SEED_RUST,
              Simhasher(weights="binary"), Simhasher(weights={"a": 2.0}), presets.SEED_PYTHON):
        h.fingerprints(ok_texts, parallel=False)  # the general path, lower_utf8 included
        for t in ok_texts[::7]:
            h.features(t)  # record_features
    # the check itself: pos one entry short must fail (8 flips in one block: "a b c d ...")
    p = words().pipeline
    text = "a b c d e f g h i"
    ptrs, lens, kinds = str_views([text])
    from simhash_lab.kernels.strings import unit_bytes
    tok_n, pos_n = K.str_scratch(lens[0], kinds[0])
    try:
        K.lower_tokenize_str(np.frombuffer(bytearray(text, "ascii"), np.uint8), lens[0], kinds[0], p,
                             np.empty(tok_n, np.uint8), np.empty(pos_n - 1, np.int64))
    except IndexError:
        print("short buffer caught")
    print("bounds ok")
    """
)


def test_scratch_bounds_hold_with_bounds_checks_on(run_bounds_checked):
    run_bounds_checked(SCRIPT)


def test_span_capacity_is_reached():
    """A one-byte token after every separator is the most tokens a text can have; the branch-free
    tokenizer writes one entry past the last token, which the capacity leaves room for."""
    p = words().pipeline
    for nbytes in range(0, 50):
        b = np.frombuffer(bytearray(("a " * nbytes)[:nbytes], "ascii"), dtype=np.uint8)
        cap = K.span_capacity(nbytes)
        starts = np.full(cap + 4, -7, dtype=np.int64)
        ends = np.full(cap + 4, -7, dtype=np.int64)
        ntok = K.tokenize_spans(b, 0, nbytes, p, starts, ends)
        assert ntok == (nbytes + 1) // 2
        assert (starts[cap:] == -7).all() and (ends[cap:] == -7).all()  # nothing written past cap
        assert ntok + 1 >= cap - 1  # tight: at most one spare entry


def test_lowering_grows_utf8_by_at_most_half():
    """``lower_utf8`` sizes its output 1.5x the input: lowercase only lengthens 2-byte characters,
    by one byte (Ⱥ U+023A -> ⱥ U+2C65), never 1-, 3- or 4-byte ones."""
    low = lower_table()
    cps = np.arange(0x110000)
    keep = (cps < 0xD800) | (cps >= 0xE000)

    def utf8_len(x):
        return np.where(x < 0x80, 1, np.where(x < 0x800, 2, np.where(x < 0x10000, 3, 4)))

    grow = (utf8_len(low) - utf8_len(cps))[keep]
    assert grow.max() == 1
    assert set(utf8_len(cps)[keep][grow == 1]) == {2}
