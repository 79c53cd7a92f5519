"""What a model after the cascade gains from its class vectors, by CV on the training rows.

A front end: :mod:`mddf.experiments.bench.predictor_inputs` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.bench.predictor_inputs import main

if __name__ == "__main__":
    sys.exit(main())
