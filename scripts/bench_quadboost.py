"""Benchmark the four QuadBoost variants with the paper's protocol, against scikit-learn's AdaBoost on stumps.

A front end: :mod:`mddf.experiments.bench.quadboost` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.quadboost import main

if __name__ == "__main__":
    sys.exit(main())
