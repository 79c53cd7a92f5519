"""The experiment harness: the ``mddf`` command line (:mod:`.cli`) and everything behind it, its scripts' thin front
ends: the subcommands (:mod:`.benchmark`, :mod:`.small_sample`, :mod:`.feature_export`, :mod:`.layer_figures`,
:mod:`.tsne_figure`, :mod:`.dataset_listing`), one run (:mod:`.runner`) and many (:mod:`.runbook`, :mod:`.executor`,
:mod:`.worker_pool`, :mod:`.cluster`), the compared methods (:mod:`.methods`), the papers' and the practitioner's
protocols (:mod:`.protocols`), and the results (:mod:`.store`, :mod:`.binding`, :mod:`.metrics`, :mod:`.comparison`,
:mod:`.tables`, :mod:`.provenance`). The studies of ``docs/benchmarks/`` are in the
repository's ``benchmarks/`` folder, beside this package (the repository's ``experiments/``)."""
