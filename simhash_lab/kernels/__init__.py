"""The Numba kernels: compiled code only, no user-facing validation.

* :mod:`.bits`: the popcount primitive (LLVM ``ctpop``: one ``popcnt``), ``cttz``, SWAR constants;
* :mod:`.hamming`: Hamming distance over scalars, arrays and pairs; the early-exit ``is_near``;
* :mod:`.hashes`: XXH3-64, XXH64, MD5 and SipHash-1-3 over byte spans;
* :mod:`.strings`: ``str`` code units read in place, UTF-8 decode/encode, lowercasing;
* :mod:`.tokenize`: token spans, features (tokens, shingles, character n-grams);
* :mod:`.vote`: the accumulators and the fingerprint they fold into;
* :mod:`.fingerprint`: the two whole pipelines (fused from ``str``, general from UTF-8), per batch;
* :mod:`.index`: the block index's build, query, pairs and merge kernels;
* :mod:`.verify`: shingle sets as sorted hashes, exact Jaccard by merging, the keep/drop pass;
* :mod:`.candidates`: MinHash band keys of the shingle sets, and the pairs that share a band;
* :mod:`.fused`: the dedup's first read on word shingles in one pass a text (digest, shingles,
  distinct ones, vote, band keys, set size);
* :mod:`.dedup_steps`: the exact groups' digests and representatives, the calibration's scan;
* :mod:`.sort`: in-place sorts of uint64 keys (insertion, heap, radix for hashes).
* :mod:`.files`: runs of a file's bytes copied into another by ``copy_file_range``, many a call
  and without the GIL (the kept rows of ``dedup --output``).

Decorator policy (``_jit``):

* serial kernels: ``@kernel`` (``njit(nogil=True)`` with the package's cache: fresh while every
  kernel source is unchanged, readable from a read-only folder, each compile visible on demand);
* no ``prange``: a kernel over independent items (documents, pairs, chunks, tables) takes a range
  of them and writes only their outputs; ``simhash_lab._threads`` runs ranges in threads, so one
  compiled kernel serves one thread and many (a ``prange`` kernel compiles twice over);
* ``@kernel(inline=True)`` for the helpers and the bodies a leaf kernel is made of: each is
  compiled once and LLVM inlines it into every caller before Numba prunes reference counts, so
  a kernel called per feature (a hash) calls nothing that takes its array (loads are intrinsics,
  ``hashes.read64``) and Numba prunes the reference counting of that array; a kernel that
  passes an array on to a call it does not inline counts it up and down on every call
  (measured: 20 ns per hash);
* ``@kernel(python=False)`` for a kernel only other kernels call (the hashes by size, the sorts,
  the index's inner steps): no CPython wrapper and no machine code of its own, its optimised
  module linked into each caller as any kernel's is (a call from Python, in the tests, compiles
  a second entry);
* one compiled specialisation per kernel: options are runtime values (one ``Pipeline`` named
  tuple), buffers passed to kernels are writable C arrays, and a constant argument at a call
  site compiles as its plain type (``_jit.KernelDispatcher``);
* kernels never raise user-facing errors: the Python layer (``simhash_lab.*``) validates first.

``simhash-lab warmup`` (``simhash_lab.warmup``) compiles them all once, at setup.
"""
