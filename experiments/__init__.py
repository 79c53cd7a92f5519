"""The experiment harness: the ``mddf`` command line and everything behind it.

The ``mddf`` command (:mod:`.cli`: ``mddf benchmark``, ``small-sample``, ``export-features``,
``plot-layers``, ``plot-tsne``, ``datasets``) and the scripts that wrap it (``run_uci.py``,
``small_sample.py``, ``plot_layers.py``, ``plot_tsne.py``, ``export_features.py``) are thin
command-line front ends; everything they do lives here:

- :mod:`.cli`         the argument parsing of every subcommand
- :mod:`.exit_status` the exit statuses' one table, from which ``--help`` and the docs are made
- :mod:`.benchmark`   the benchmark runner's plan and tables (``mddf benchmark``)
- :mod:`.small_sample` the small-sample study (``mddf small-sample``, the paper's Figure 6)
- :mod:`.feature_export` mdDF's per-layer features to a ``.npz`` (``mddf export-features``)
- :mod:`.layer_figures` accuracy and margins per layer (``mddf plot-layers``, Figures 8 and 9)
- :mod:`.tsne_figure` t-SNE of the layer features (``mddf plot-tsne``, Figure 7)
- :mod:`.dataset_listing` the built-in datasets and whether their files are here (``mddf datasets``)
- :mod:`.user_data`   a user's CSV / Parquet file (``--data PATH --target COLUMN``) as a dataset, its task
- :mod:`.table_files` reading that file: separator, compression, Parquet, a header naming a column twice
- :mod:`.outlock`     one runner per ``--out`` folder
- :mod:`.studies`     the dataset choice (built-in or ``--data``) and mdDF fit the subcommands share
- :mod:`.planning`    what the runners decide before running: folds, bindings, fractions a method cannot run

- :mod:`.methods`     the method registry (lazy imports, validation grids, tree budgets, the papers' and
                      the practitioner's methods)
- :mod:`.early_stopped` boosting stopped early on held-out training rows (the practitioner's boosting)
- :mod:`.suites`      the dataset suites and their evaluation protocols
- :mod:`.protocols`   the evaluation protocols (the DeepBoost and QuadBoost papers', the practitioner's
                      repeated stratified k-fold, sub-samples, the rows of one run)
- :mod:`.runner`      :func:`~.runner.run_one`, the execution of one (dataset, method, seed) run
- :mod:`.executor`    dependency-aware dispatch of many runs, one fresh process each
- :mod:`.cluster`     the same dispatch on a Dask cluster (``--scheduler``; optional ``dask`` extra)
- :mod:`.store`       the append-only JSON-lines results file (resume, crash safety)
- :mod:`.binding`     the data and settings hashes a record is bound to; results of others moved aside
- :mod:`.metrics`     the metrics of one run and the significance of a comparison (paired differences,
                      standard errors, the winner rule)
- :mod:`.comparison`  the practitioner's table, CSV and figure
- :mod:`.tables`      Table 2/3-style Markdown and CSV tables with the published numbers, and the plain
                      Markdown and CSV tables and cell formats the tables and studies write
- :mod:`.paper_results` the numbers published in the mdDF and DeepBoost papers (the tables' paper columns)
- :mod:`.layers`      per-layer margins, accuracies and feature statistics of a fitted mdDF
- :mod:`.figures`     matplotlib (Agg) helpers writing PNG + PDF
- :mod:`.environment` package versions, machine description, memory measurement
- :mod:`.provenance`  the command, commit, machine and date that head every result file

The studies that chose the defaults and measured the speed (``docs/benchmarks/``), and the publisher of
``docs/results/``, are not part of the package: they live in the repository's ``benchmarks/`` folder.

It is installed with the package (``pip install mddf``; ``pip install "mddf[dask]"`` for a Dask
worker), so the scripts and a cluster's workers import it as ``mddf.experiments`` without any
``PYTHONPATH``. In the repository it lives in the top-level ``experiments/`` folder, which the
build maps to ``mddf.experiments`` (as ``baselines/`` to ``mddf.baselines`` and ``datasets/`` to
``mddf.datasets``).
"""
