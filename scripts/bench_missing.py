"""Missing values: mdDF with native NaN against imputation + mdDF, RF400, HistGradientBoosting and LightGBM.

A front end: :mod:`mddf.experiments.bench.missing` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.missing import main

if __name__ == "__main__":
    sys.exit(main())
