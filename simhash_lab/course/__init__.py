"""What only the course uses (the ``course`` extra: matplotlib, ipywidgets): plots, animations,
widgets, the corpora, the experiments and the method comparisons of the notebooks.

* :mod:`.plot`: figures (``ax=None`` draws on the current axes, returns the axes);
* :mod:`.animate`: matplotlib animations, shown as steppers;
* :mod:`.widgets`: :class:`~.widgets.Stepper`, the course's one player: an animated image as a
  notebook opens, Play and a slider once its cell has run;
* :mod:`.experiments`: the measured experiments of notebooks 00 to 04;
* :mod:`.internals`: the library's compiled vote loop and the machine code of a Hamming distance,
  public for the notebooks;
* :mod:`.corpus`: the real and generated texts the notebooks measure on, and labelled pairs;
* :mod:`.compare`: the near-duplicate methods compared in notebook 06;
* :mod:`.pigeonhole`: notebook 05's story-sized block index, candidate probabilities, query timing.
"""

import importlib.util as _util


def _missing(name: str) -> bool:
    try:
        return _util.find_spec(name) is None
    except ImportError:
        return True


_MISSING = [m for m in ("matplotlib", "ipywidgets", "PIL") if _missing(m)]
if _MISSING:  # say which extra, rather than a bare ModuleNotFoundError from deep in a plot
    raise ImportError(
        f"simhash_lab.course needs the course extra ({', '.join(_MISSING)} missing): "
        "pip install 'simhash-lab[course]'"
    )
