"""scikit-learn's estimator checks on a small CascadeForestRegressor."""

import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import CascadeForestRegressor


@parametrize_with_checks(
    [
        CascadeForestRegressor(n_estimators=5, max_layers=2, n_folds=2, random_state=0),
        # layer probes: layers after the first grow four of their eight trees first; ensemble selection predicts
        CascadeForestRegressor(
            n_estimators=8, max_layers=3, n_folds=2, probe_trees=0.5, final_mixture="selection", random_state=0
        ),
        CascadeForestRegressor(
            n_estimators=5,
            max_layers=2,
            n_folds=2,
            predictor="forest",
            min_gain_se=1.0,
            model_dir="auto",
            pair_features="auto",
            random_state=0,
        ),
        CascadeForestRegressor(
            n_estimators=5,
            max_layers=2,
            n_folds=2,
            forest_types=("rf", DecisionTreeRegressor(max_depth=3)),  # a member other than a forest
            target="residual",
            predictor="hgb",
            random_state=0,
        ),
    ],
    expected_failed_checks=expected_failed_checks,  # docs/user_guide/scikit_learn.md lists them
    xfail_strict=True,
)
@pytest.mark.slow
def test_sklearn_compatible(estimator, check):
    check(estimator)
