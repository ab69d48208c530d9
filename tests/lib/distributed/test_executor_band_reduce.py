"""The band reducer of ``distributed.dedup_dataset``: the map pieces' keys put together band by band
give the pairs ``candidates.bucket_pairs`` gives on the same keys sorted by band."""

import numpy as np
import pytest

pytest.importorskip("simhash_lab.distributed")
from simhash_lab.candidates import bucket_pairs  # noqa: E402
from simhash_lab.dedup.steps import CANDIDATES  # noqa: E402


def pieces(rng, n_pieces, bands, docbits, keyspace):
    """Map pieces as ``executor.band_map`` writes them: per piece, each band's count and its keys
    band after band (a hash drawn from a small space, so that keys meet; the row number in the
    low bits; a few rows without shingles: the top bit set)."""
    counts, keys = [], []
    for _ in range(n_pieces):
        c = rng.integers(0, 40, size=bands)
        c[rng.integers(bands)] = 0  # a band with no key in this piece
        k = (rng.integers(0, keyspace, size=int(c.sum())).astype(np.uint64) + np.uint64(1)) << np.uint64(
            docbits
        )
        k |= rng.integers(0, 1 << docbits, size=k.size).astype(np.uint64)
        k[rng.random(k.size) < 0.05] |= np.uint64(1 << 63)
        counts.append(c.astype(np.int64))
        keys.append(k)
    return counts, keys


@pytest.mark.parametrize("seed", range(6))
def test_the_pairs_are_bucket_pairs(seed):
    rng = np.random.default_rng(seed)
    bands, docbits = 7, 12
    counts, keys = pieces(rng, 1 + seed, bands, docbits, keyspace=5 + 10 * seed)
    band = np.concatenate([np.repeat(np.arange(bands, dtype=np.int16), c) for c in counts])
    want = bucket_pairs(band, np.concatenate(keys), docbits)
    got = CANDIDATES.band_reduce(counts, keys, docbits)
    assert want.size > 0 and got.dtype == np.uint64
    np.testing.assert_array_equal(got, want)


def test_no_keys_no_pairs():
    got = CANDIDATES.band_reduce([np.zeros(4, np.int64)], [np.empty(0, np.uint64)], 10)
    assert got.size == 0 and got.dtype == np.uint64
