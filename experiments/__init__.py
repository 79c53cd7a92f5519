"""The experiment harness: the ``mddf`` command line and everything behind it.

The ``mddf`` command (:mod:`.cli`) and the scripts that wrap it (``run_uci.py``, ``small_sample.py``,
``plot_layers.py``, ``plot_tsne.py``, ``export_features.py``) are thin front ends; the work lives here:

- the subcommands: :mod:`.benchmark` (``mddf benchmark``), :mod:`.small_sample` (Figure 6),
  :mod:`.feature_export`, :mod:`.layer_figures` (Figures 8 and 9), :mod:`.tsne_figure` (Figure 7) and
  :mod:`.dataset_listing`; :mod:`.exit_status` holds the exit statuses' one table;
- a user's table (``--data PATH --target COLUMN``): :mod:`mddf.datasets.user_data` reads it,
  :mod:`.studies` chooses the dataset and fits mdDF for the single-fit subcommands;
- planning and running: :mod:`.planning`, :mod:`.methods` (the method registry),
  :mod:`.early_stopped`, :mod:`.suites`, :mod:`.protocols` (the papers' and the practitioner's
  evaluation protocols), :mod:`.runner` (one run), :mod:`.runbook` (the plan of many runs and their
  resume), :mod:`.executor` and :mod:`.worker_pool` (many runs in reusable worker processes), :mod:`.cluster` (the
  same on Dask), :mod:`.outlock` (one runner per ``--out``), and
  :mod:`.defaults` (the names and default settings the parser shows, importing nothing);
- results: :mod:`.store` (the append-only JSON-lines file), :mod:`.binding` (the data and settings a
  record is bound to), :mod:`.metrics` (scores and significance), :mod:`.comparison` (the practitioner's
  table and figure), :mod:`.tables` (the papers' tables; their published numbers are
  :mod:`mddf.datasets.published`), :mod:`.layers` (per-layer measurements of a fitted mdDF),
  :mod:`.figures`, :mod:`.environment` and :mod:`.provenance` (what heads every result file).

The studies that chose the defaults and measured the speed (``docs/benchmarks/``) are not part of the
package: they live in the repository's ``benchmarks/`` folder. In the repository this package is the
top-level ``experiments/`` folder, which the build maps to ``mddf.experiments``.
"""
