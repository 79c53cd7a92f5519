"""The tree kernels (growing, routing) against a baseline revision's, on the same trees, interleaved.

A front end: :mod:`mddf.experiments.bench.tree_kernels` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.tree_kernels import main

if __name__ == "__main__":
    sys.exit(main())
