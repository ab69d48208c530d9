"""The tokenizer kernels (simhash_lab.kernels.tokenize): the SWAR ranges of the fused path against the
ASCII map, byte by byte."""

import numpy as np

from simhash_lab.tokenize import whitespace, words


def test_ascii_ranges_classify_every_ascii_byte():
    """The SWAR ranges say "inside a token" for exactly the bytes the ASCII map keeps."""
    lanes = np.uint64(0x0101010101010101)
    for rule in (words, whitespace):
        for lowercase in (True, False):
            sel, want, amap, r = rule(lowercase).fused_tables
            for c in range(128):
                x = np.uint64(c | 32 if lowercase and 65 <= c <= 90 else c) * lanes
                with np.errstate(over="ignore"):
                    ins = np.uint64(0)
                    for k in range(4):
                        ins |= (x + r[2 * k]) & ~(x + r[2 * k + 1])
                    ins = (ins ^ r[8]) & np.uint64(0x8080808080808080)
                assert (ins == np.uint64(0x8080808080808080)) == (amap[c] >= 0), (rule, c)
                assert ins in (0, 0x8080808080808080)
