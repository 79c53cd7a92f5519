"""Regression: CascadeForestRegressor against RF400, ExtraTrees400, HistGradientBoosting and LightGBM.

A front end: :mod:`mddf.experiments.bench.regression` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.regression import main

if __name__ == "__main__":
    sys.exit(main())
