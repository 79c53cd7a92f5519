"""scikit-learn's estimator checks on small configurations; the checks expected to fail are those of
tests/estimator_checks_table.py."""

import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import MDDFClassifier, MDDFGridSearch


@parametrize_with_checks(
    [
        MDDFClassifier(n_estimators=5, max_layers=2, n_folds=2, random_state=0),
        # layer probes (in a model folder): layers after the first grow four of their eight trees first
        MDDFClassifier(n_estimators=8, max_layers=3, n_folds=2, probe_trees=0.5, model_dir="auto", random_state=0),
        # the extensions beyond the paper: an extremely-randomised forest and a predictor on top; pair features and
        # calibrated probabilities
        MDDFClassifier(
            n_estimators=5, max_layers=2, n_folds=2, forest_types=("rf", "et"), predictor="forest", random_state=0
        ),
        MDDFClassifier(
            n_estimators=5,
            max_layers=2,
            n_folds=2,
            pair_features="auto",
            calibration="temperature",
            final_mixture="selection",  # ensemble selection's mixture of the members
            random_state=0,
        ),
        MDDFGridSearch(
            estimator=MDDFClassifier(n_estimators=4, max_layers=2, n_folds=2, random_state=0),
            param_grid={"margin_mean": [0.7, 0.9]},
        ),
        # the bounded-memory mode: fitted models in a temporary folder of the model's own
        MDDFClassifier(n_estimators=5, max_layers=2, n_folds=2, class_vectors="oob", model_dir="auto", random_state=0),
        # confidence screening: confident rows leave the cascade at fit and at prediction
        MDDFClassifier(n_estimators=5, max_layers=3, n_folds=2, screening_accuracy=0.9, random_state=0),
    ],
    expected_failed_checks=expected_failed_checks,  # docs/user_guide/scikit_learn.md lists them
    xfail_strict=True,
)
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    check(estimator)
