"""simhash-lab: Simhash and locality-sensitive hashing, fast and exact, with a course around it.

>>> from simhash_lab import Simhasher, hamming
>>> h = Simhasher()
>>> hamming(h.fingerprint("simhash finds near duplicates"), h.fingerprint("simhash finds near-duplicates"))
0
"""

from . import presets
from .geometry import expected_hamming, hyperplane_signatures
from .hamming import hamming, is_near, popcount
from .index import SimhashIndex, TableDesign, design_tables, manku_example_3_1
from .simhasher import Simhasher, Trace
from .tokenize import Tokenizer

__all__ = [
    "SimhashIndex",
    "Simhasher",
    "TableDesign",
    "Tokenizer",
    "Trace",
    "design_tables",
    "expected_hamming",
    "hamming",
    "hyperplane_signatures",
    "is_near",
    "manku_example_3_1",
    "popcount",
    "presets",
]
__version__ = "0.1.0"
