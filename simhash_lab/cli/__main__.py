"""``python -m simhash_lab.cli``: the ``simhash-lab`` command."""

import sys

from . import main

sys.exit(main())
