"""Benchmark gcForest (cascade forest, with and without multi-grained scanning).

A front end: :mod:`mddf.experiments.bench.gcforest` parses the options (``--help``),
runs and writes the outputs.
"""

from mddf.experiments.bench.gcforest import main

if __name__ == "__main__":
    main()
