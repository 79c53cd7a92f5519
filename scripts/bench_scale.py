"""Growth curve of mdDF on synthetic data: fit and predict time, peak memory and model size against rows.

A front end: :mod:`mddf.experiments.bench.scale` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.scale import main

if __name__ == "__main__":
    sys.exit(main())
