"""Small-sample robustness (the mdDF paper's Figure 6): test accuracy versus training fraction.

The same as ``mddf small-sample``; what it does and writes is documented in :mod:`mddf.experiments.small_sample`.
"""

from __future__ import annotations

import sys

from mddf.experiments import cli
from mddf.experiments.small_sample import DEFAULT_FRACTIONS, DEFAULT_METHODS, plot, summarize  # noqa: F401


def build_parser():
    """The options of ``mddf small-sample`` (:mod:`mddf.experiments.cli`), under this script's name."""
    return cli.small_sample_parser("small_sample.py")


def main(argv=None, registry=None) -> int:
    """``mddf small-sample``; ``registry`` lets callers add or replace methods."""
    return cli.run_script("small-sample", __file__, argv, registry)


if __name__ == "__main__":
    sys.exit(cli.script_entry("small-sample", __file__))
