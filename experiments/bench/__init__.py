"""The benchmarks behind ``docs/benchmarks/`` and ``docs/results/``, one module each.

Each module's ``main`` is what its script runs (``scripts/bench_<name>.py`` is a front end):

=================  ==============================  ==================================================
module             script                          measures
=================  ==============================  ==================================================
:mod:`.boosting`   ``scripts/bench_boosting.py``   DeepBoost and AdaBoost against the DeepBoost paper
:mod:`.datasets`   ``scripts/bench_datasets.py``   the datasets' load times
:mod:`.df21`       ``scripts/bench_df21.py``       mdDF against DF21 and RF400
:mod:`.extensions` ``scripts/bench_extensions.py`` mdDF variants against tabular learners
:mod:`.gcforest`   ``scripts/bench_gcforest.py``   gcForest with and without scanning
:mod:`.mddf_fit`   ``scripts/bench_mddf.py``       mdDF against RF400 on the papers' datasets
:mod:`.missing`    ``scripts/bench_missing.py``    mdDF on missing values against imputation
:mod:`.quadboost`  ``scripts/bench_quadboost.py``  the QuadBoost variants against AdaBoost
:mod:`.regression` ``scripts/bench_regression.py`` the cascade regressor against tabular learners
:mod:`.scale`      ``scripts/bench_scale.py``      mdDF's growth with rows on synthetic data
:mod:`.stopping`   ``scripts/bench_stopping.py``   stopping rules replayed on full-depth fits
=================  ==============================  ==================================================

What they share: :mod:`.loading` loads a dataset as the benchmarks use it (quietly; its training and
test arrays), :mod:`.fitting` times a fit and its prediction. They record their fits with
:class:`~mddf.experiments.store.ResultStore` and write their tables with :mod:`mddf.experiments.tables`.
"""
