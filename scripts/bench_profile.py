"""Where an mdDF fit's time goes, phase by phase (binning, tree growth, out-of-fold prediction, ...).

A front end: :mod:`mddf.experiments.bench.profile` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.profile import main

if __name__ == "__main__":
    sys.exit(main())
