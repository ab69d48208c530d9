"""Where the compiled kernels and the tables they read are kept between processes: :func:`cache_dir`.

One folder for both, so that one setting moves them together: the Numba cache of
:mod:`simhash_lab.kernels._jit` and the character-class tables of :mod:`simhash_lab._unicode`.
It sits below both (it imports neither), so neither reaches up into the other for it.

>>> import os
>>> os.path.basename(cache_dir()) in ("__pycache__", "kernels") or "simhash_lab" in cache_dir()
True
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from numba.core import config
from numba.core.caching import _CacheLocator

__all__ = ["KERNELS", "cache_dir", "writable"]

#: the folder of the package's kernels (``simhash_lab/kernels``)
KERNELS = Path(__file__).resolve().parent / "kernels"


def writable(path: str) -> bool:
    """``path`` is a folder we can write to, or could be created (its nearest existing parent is).

    Parameters
    ----------
    path : str

    Returns
    -------
    bool
    """
    while not os.path.isdir(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return os.access(path, os.W_OK | os.X_OK)


@functools.cache
def cache_dir(source_folder: str | None = None) -> str:
    """The folder that holds the cached kernels of the modules in ``source_folder`` (default: the
    package's kernels, whose folder also keeps the character tables).

    ``NUMBA_CACHE_DIR`` (when set) wins, as for Numba's own cache; then ``__pycache__`` beside the
    sources, if it can be written or already exists (read-only: loaded, never written); then
    ``$XDG_CACHE_HOME/simhash_lab`` (default ``~/.cache``).

    Parameters
    ----------
    source_folder : str, optional
        A folder of modules that define kernels.

    Returns
    -------
    str
    """
    source_folder = source_folder or str(KERNELS)
    sub = _CacheLocator.get_suitable_cache_subpath(os.path.join(source_folder, "x.py"))
    if config.CACHE_DIR:
        return os.path.join(config.CACHE_DIR, sub)
    in_tree = os.path.join(source_folder, "__pycache__")
    if os.path.isdir(in_tree) or writable(in_tree):
        return in_tree
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "simhash_lab", sub)
