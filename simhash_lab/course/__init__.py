"""What only the course uses (the ``course`` extra: matplotlib, ipywidgets): plots, animations,
widgets, the corpora and the method comparisons of the notebooks.

* :mod:`.plot`: figures (``ax=None`` draws on the current axes, returns the axes);
* :mod:`.animate`: matplotlib animations, stored as animated images and JS players;
* :mod:`.widgets`: ipywidgets players and steppers that show a first frame without a kernel;
* :mod:`.corpus`: the real and generated texts the notebooks measure on, and labelled pairs;
* :mod:`.methods`: the near-duplicate methods compared in notebook 06;
* :mod:`.pigeonhole`: notebook 05's story-sized block index, candidate probabilities, query timing.
"""
