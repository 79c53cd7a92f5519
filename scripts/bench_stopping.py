"""Stopping rules of the cascade compared offline: one full-depth fit per (dataset, seed), every rule replayed.

A front end: :mod:`mddf.experiments.bench.stopping` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.stopping import main

if __name__ == "__main__":
    sys.exit(main())
