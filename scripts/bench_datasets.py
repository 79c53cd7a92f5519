"""Load times of the benchmark datasets: first load (hash + parse + cache) and second load (cache).

A front end: :mod:`mddf.experiments.bench.datasets` parses the options (``--help``),
runs and writes the outputs.
"""

from mddf.experiments.bench.datasets import main

if __name__ == "__main__":
    main()
