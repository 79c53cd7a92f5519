"""GCForestClassifier with missing values (NaN), with and without scanning, and its feature importances."""

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris, make_classification
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

from mddf.baselines import GCForestClassifier, MultiGrainedScanner


def with_nan(X, fraction, seed):
    X = np.array(X, dtype=np.float64)
    X[np.random.RandomState(seed).rand(*X.shape) < fraction] = np.nan
    return X


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.slow
def test_iris_with_20_percent_nan(tree_method):
    X, y = load_iris(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(with_nan(X, 0.2, 0), y, test_size=0.4, stratify=y, random_state=0)
    model = GCForestClassifier(n_estimators=15, max_layers=3, tree_method=tree_method, random_state=0)
    model.fit(Xtr, ytr)
    assert model.score(Xte, yte) > 0.8
    assert all(np.isfinite(model.transform(Xte, layer=t)).all() for t in range(1, model.n_layers_ + 1))


def test_scanning_with_nan():
    X, y = load_digits(return_X_y=True)
    X = with_nan(X[:400], 0.1, 1)
    y = y[:400]
    scan = dict(window_sizes=(4,), image_shape=(8, 8), scan_n_estimators=5)
    model = GCForestClassifier(n_estimators=8, max_layers=2, random_state=0, **scan).fit(X[:300], y[:300])
    assert np.isfinite(model.scanner_.transform(X[300:])).all()  # class vectors, never NaN
    assert model.score(X[300:], y[300:]) > 0.7
    assert model.feature_importances_.shape == (model.scanner_.n_features_out_,)  # over the scanned features
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="infinity"):
        MultiGrainedScanner(window_sizes=(4,), image_shape=(8, 8), n_estimators=2).fit(
            np.where(np.isnan(X), np.inf, X), y
        )


def test_infinity_is_rejected():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[5, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        GCForestClassifier(n_estimators=5, max_layers=1).fit(X, y)


def test_feature_importances_over_the_raw_features_and_permutation_importance():
    X, y = make_classification(
        500, 10, n_informative=3, n_redundant=0, n_classes=2, shuffle=False, class_sep=1.2, random_state=0
    )
    order = np.random.RandomState(0).permutation(len(y))  # shuffle=False sorts the rows by class too
    X, y = with_nan(X[order], 0.1, 2), y[order]
    model = GCForestClassifier(n_estimators=15, max_layers=3, random_state=0).fit(X[:350], y[:350])
    importances = model.feature_importances_
    assert importances.shape == (10,) and (importances >= 0).all() and importances.sum() == pytest.approx(1.0)
    assert importances[:3].min() > importances[3:].max()
    assert model.layer_importances_.shape == (model.n_layers_, 11)
    assert model.class_vector_importance_ == model.cascade_.class_vector_importance_
    result = permutation_importance(model, X[350:], y[350:], n_repeats=3, random_state=0)
    assert result.importances_mean[:3].mean() > result.importances_mean[3:].mean()
