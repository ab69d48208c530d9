"""The Numba kernels: compiled code only, no user-facing validation.

* :mod:`.bits`: the popcount primitive (LLVM ``ctpop``: one ``popcnt``), ``cttz``, SWAR constants;
* :mod:`.hamming`: Hamming distance over scalars, arrays and pairs; the early-exit ``is_near``;
* :mod:`.hashes`: XXH3-64, XXH64, MD5 and SipHash-1-3 over byte spans;
* :mod:`.strings`: ``str`` code units read in place, UTF-8 decode/encode, lowercasing;
* :mod:`.tokenize`: token spans, features (tokens, shingles, character n-grams);
* :mod:`.vote`: the accumulators and the fingerprint they fold into;
* :mod:`.fingerprint`: the two whole pipelines (fused from ``str``, general from UTF-8), per batch;
* :mod:`.index`: the block index's build, query, pairs and merge kernels;
* :mod:`.verify`: shingle sets as sorted hashes, exact Jaccard by merging, the keep/drop pass.

Decorator policy:

* serial kernels: ``@njit(cache=True, nogil=True)``;
* parallel kernels: ``@njit(cache=True, nogil=True, parallel=True)``, written with ``prange`` over
  independent rows that each write their own ``out[i]``; where a serial twin is needed, the body is
  written once and compiled twice;
* kernels never raise user-facing errors: the Python layer (``simhash_lab.*``) validates first.
"""
