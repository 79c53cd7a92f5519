"""The experiment harness: the ``mddf`` command line (:mod:`.cli`) and everything behind it (the subcommands, one run
and many, the compared methods, the papers' protocols, the results). The studies of ``docs/benchmarks/`` are in the
repository's ``benchmarks/`` folder, beside this package."""
