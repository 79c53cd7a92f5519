"""Every fold model's trees against the share that fold_trees="share" keeps, on the same fits.

A front end: :mod:`mddf.experiments.bench.fold_trees` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.fold_trees import main

if __name__ == "__main__":
    sys.exit(main())
