"""Benchmark DeepBoost and its special cases against the DeepBoost paper (Cortes, Mohri and Syed 2014).

A front end: :mod:`mddf.experiments.bench.boosting` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.boosting import main

if __name__ == "__main__":
    sys.exit(main())
