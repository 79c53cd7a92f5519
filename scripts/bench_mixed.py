"""Mixed data: mdDF configurations with categorical subset splits against gradient boosting, and one chosen by CV.

A front end: :mod:`mddf.experiments.bench.mixed` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.mixed import main

if __name__ == "__main__":
    sys.exit(main())
