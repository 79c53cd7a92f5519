"""Publish the mdDF reproduction: Table 2 and Table 3 against the paper, cell by cell, from runner results.

A front end: :mod:`mddf.experiments.publish_results` parses the options (``--help``),
runs and writes the outputs.
"""

import sys

from mddf.experiments.publish_results import main

if __name__ == "__main__":
    sys.exit(main())
