"""t-SNE of mdDF's layer features (the mdDF paper's Figure 7).

The same as ``mddf plot-tsne``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.tsne_figure`.
"""

import sys

from mddf.experiments import cli

if __name__ == "__main__":
    sys.exit(cli.script_entry("plot-tsne", __file__))
