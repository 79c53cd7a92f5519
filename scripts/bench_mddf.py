"""Benchmark mdDF against a 400-tree random forest on the papers' datasets.

A front end: :mod:`mddf.experiments.bench.mddf_fit` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.mddf_fit import main

if __name__ == "__main__":
    sys.exit(0 if main() else 1)
