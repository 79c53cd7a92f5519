"""The experiment harness: everything behind the benchmark and figure scripts in ``scripts/``.

The scripts (``run_uci.py``, ``small_sample.py``, ``plot_layers.py``, ``plot_tsne.py``,
``export_features.py``) are thin command-line front ends; everything they share lives here:

- :mod:`.methods`     the method registry (lazy imports, validation grids, tree budgets)
- :mod:`.suites`      the dataset suites and their evaluation protocols
- :mod:`.protocols`   the papers' evaluation protocols (DeepBoost and QuadBoost protocols, folds,
                      sub-samples, the rows of one run)
- :mod:`.runner`      :func:`~.runner.run_one`, the execution of one (dataset, method, seed) run
- :mod:`.executor`    dependency-aware dispatch of many runs, one fresh process each
- :mod:`.cluster`     the same dispatch on a Dask cluster (``--scheduler``; optional ``dask`` extra)
- :mod:`.store`       the append-only JSON-lines results file (resume, crash safety)
- :mod:`.tables`      Table 2/3-style Markdown and CSV tables with the published numbers
- :mod:`.paper_results` the numbers published in the mdDF and DeepBoost papers
- :mod:`.layers`      per-layer margins, accuracies and feature statistics of a fitted mdDF
- :mod:`.figures`     matplotlib (Agg) helpers writing PNG + PDF + CSV
- :mod:`.environment` package versions, machine description, memory measurement, fresh-process fits
- :mod:`.provenance`  the command, commit, machine and date that head every result file
- :mod:`.missing_study` the missing-value benchmark's cases and methods (``bench_missing.py``)

It is installed with the package (``pip install mddf``; ``pip install "mddf[dask]"`` for a Dask
worker), so the scripts and a cluster's workers import it as ``mddf.experiments`` without any
``PYTHONPATH``. In the repository it lives in the top-level ``experiments/`` folder, which the
build maps to ``mddf.experiments`` (as ``baselines/`` to ``mddf.baselines`` and ``datasets/`` to
``mddf.datasets``).
"""
