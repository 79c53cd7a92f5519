"""Beyond the paper : mdDF with other block members and a predictor against strong tabular learners.

A front end: :mod:`mddf.experiments.bench.extensions` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.extensions import main

if __name__ == "__main__":
    sys.exit(main())
