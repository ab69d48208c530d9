"""The Unicode tables (simhash_lab._unicode): lowering never grows a code unit past the UTF-8 scratch
the kernels size for it."""

import numpy as np


def test_lowered_utf8_fits_the_scratch_bound():
    """The kernel sizes its UTF-8 scratch as min(kind + 1, 4) bytes per code unit."""
    from simhash_lab._unicode import lower_table

    low = lower_table()
    size = np.where(low < 0x80, 1, np.where(low < 0x800, 2, np.where(low < 0x10000, 3, 4)))
    assert size[:256].max() <= 2 and size[:0x10000].max() <= 3
