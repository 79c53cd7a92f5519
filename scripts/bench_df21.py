"""Same-run comparison of mdDF (k-fold and out-of-bag class vectors) with DF21 and a 400-tree random forest.

A front end: :mod:`mddf.experiments.bench.df21` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.df21 import main

if __name__ == "__main__":
    sys.exit(main())
