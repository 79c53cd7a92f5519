"""The experiment harness: the ``mddf`` command line (:mod:`.cli`) and everything behind it. The studies of
``docs/benchmarks/`` are in the repository's ``benchmarks/`` folder, beside this package."""
