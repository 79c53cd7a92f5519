"""Publish the mdDF reproduction: Table 2 and Table 3 against the paper, cell by cell, from runner results.

A front end: :mod:`benchmarks.publish_results` (beside the studies, not installed: it writes ``docs/results``)
parses the options (``--help``), runs and writes the outputs.
"""

import sys
from pathlib import Path

# benchmarks/ is in the repository root; appended, so that an installed mddf comes before the checkout's folder
sys.path.append(str(Path(__file__).resolve().parents[1]))

from benchmarks.publish_results import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
