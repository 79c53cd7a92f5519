"""The experiment harness: the ``mddf`` command line and everything behind it.

The ``mddf`` command (:mod:`.cli`, its options :mod:`.options`) and the scripts that wrap it are thin front ends:

- the subcommands: :mod:`.benchmark` (with :mod:`.paper_tables`), :mod:`.small_sample`, :mod:`.feature_export`,
  :mod:`.layer_figures`, :mod:`.tsne_figure`, :mod:`.dataset_listing`; :mod:`.studies` (what they share) and
  :mod:`.exit_status`;
- planning and running: :mod:`.planning`, :mod:`.methods` and :mod:`.registry`, :mod:`.early_stopped`,
  :mod:`.suites`, :mod:`.protocols`, :mod:`.runner` (one run) and :mod:`.model_summary`, :mod:`.runbook` (the plan
  of many runs), :mod:`.executor` and :mod:`.worker_pool` (local worker processes), :mod:`.cluster` (Dask),
  :mod:`.outlock` (one runner per ``--out``), :mod:`.defaults`;
- results: :mod:`.store`, :mod:`.binding`, :mod:`.metrics`, :mod:`.comparison`, :mod:`.tables`, :mod:`.layers`,
  :mod:`.figures`, :mod:`.environment`, :mod:`.provenance`.

The studies of ``docs/benchmarks/`` live in the repository's ``benchmarks/`` folder, not in this package, which is
the repository's ``experiments/`` folder mapped to ``mddf.experiments``."""
