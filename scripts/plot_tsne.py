"""t-SNE of mdDF's layer features (the mdDF paper's Figure 7).

The same as ``mddf plot-tsne``: a front end of :mod:`mddf.experiments.cli`, which parses the options
(``--help``); what it does and writes is documented in :mod:`mddf.experiments.tsne_figure`.
"""

from mddf.experiments import cli
from mddf.experiments.exit_status import exit_now

if __name__ == "__main__":
    exit_now(cli.script_entry("plot-tsne", __file__))
