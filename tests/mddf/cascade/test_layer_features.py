"""Names of the layer features: ``get_feature_names_out`` and ``set_output(transform="pandas")``."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import (
    check_global_output_transform_pandas,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
)

from mddf import CascadeForestRegressor, MDDFClassifier, MDDFGridSearch
from mddf.baselines import GCForestClassifier
from mddf.cascade.layer_features import checked_layer

SMALL = dict(n_estimators=4, n_folds=2, random_state=2)
CLASSES = ["setosa", "versicolor", "virginica"]


@pytest.fixture(scope="module")
def data():
    """A three-class DataFrame with string labels on which the small cascades keep three layers."""
    X, y = make_classification(n_samples=300, n_features=10, n_informative=5, n_classes=3, random_state=0)
    X = pd.DataFrame(X, columns=[f"x{i}" for i in range(10)], index=np.arange(1000, 1300))
    return X, pd.Series(np.array(CLASSES)[y], index=X.index, name="species")


@pytest.fixture(scope="module")
def per_forest(data):
    X, y = data
    return MDDFClassifier(
        **SMALL, max_layers=3, n_tolerant_layers=3, forest_types=("rf", "crf"), passed_features="per_forest"
    ).fit(X, y)


def test_mean_class_vector_columns_are_named_by_layer_and_class(data):
    X, y = data
    clf = MDDFClassifier(**SMALL, max_layers=3, n_tolerant_layers=3, forest_types=("rf", "crf")).fit(X, y)
    assert clf.n_layers_ == 3  # precondition
    last = clf.n_layers_
    assert list(clf.get_feature_names_out()) == [f"layer3_class_{c}" for c in CLASSES]
    assert list(clf.get_feature_names_out(layer=1)) == [f"layer1_class_{c}" for c in CLASSES]
    assert clf.get_feature_names_out().dtype == object
    for t in range(1, last + 1):
        assert len(clf.get_feature_names_out(layer=t)) == clf.transform(X, layer=t).shape[1]
    with pytest.raises(ValueError, match="layer must be an integer"):
        clf.get_feature_names_out(layer=last + 1)


def test_per_forest_columns_are_named_by_member_then_class(per_forest, data):
    X, _ = data
    assert per_forest.n_layers_ == 3  # precondition
    names = list(per_forest.get_feature_names_out(layer=2))
    assert names == [f"layer2_{member}_class_{c}" for member in ("rf0", "crf1") for c in CLASSES]
    # the column order is transform's: member 0's class vector first
    proba = per_forest.layers_[0].predict_proba(X.to_numpy(np.float32))  # (n, members, classes)
    first = per_forest.transform(X, layer=1)
    assert np.allclose(first[:, 3:6], proba[:, 1, :])


def test_estimator_members_are_named_by_their_class(data):
    X, y = data
    clf = MDDFClassifier(
        **SMALL, max_layers=1, forest_types=("rf", LogisticRegression(max_iter=300)), passed_features="per_forest"
    ).fit(X, y)
    assert list(clf.get_feature_names_out())[3:] == [f"layer1_logisticregression1_class_{c}" for c in CLASSES]


def test_set_output_pandas_names_the_layer_asked_for(per_forest, data):
    X, y = data
    clf = per_forest
    default = clf.transform(X, layer=1)
    clf.set_output(transform="pandas")
    try:
        frame = clf.transform(X, layer=1)
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns) == list(clf.get_feature_names_out(layer=1))
        assert frame.index.equals(X.index)
        assert np.array_equal(frame.to_numpy(), default)
        last = clf.transform(X)
        assert list(last.columns) == list(clf.get_feature_names_out())
    finally:
        clf.set_output(transform="default")
    assert isinstance(clf.transform(X), np.ndarray)


def test_fit_transform_under_set_output_gives_the_named_out_of_fold_features(data):
    X, y = data
    clf = MDDFClassifier(**SMALL, max_layers=2).set_output(transform="pandas")
    frame = clf.fit_transform(X, y, layer=1)
    assert list(frame.columns) == list(clf.get_feature_names_out(layer=1))
    assert np.array_equal(frame.to_numpy(), clf.oof_features_[0])
    # with validation_fraction the out-of-fold rows are the training part only: no index to carry over
    held = MDDFClassifier(**SMALL, max_layers=2, validation_fraction=0.3).set_output(transform="pandas")
    frame = held.fit_transform(X, y)
    assert len(frame) == len(held.oof_features_[-1]) < len(X)
    assert list(frame.columns) == list(held.get_feature_names_out())


def test_a_pipeline_with_set_output_pandas_passes_named_layer_features_on(data):
    X, y = data
    pipe = make_pipeline(MDDFClassifier(**SMALL, max_layers=2), LogisticRegression(max_iter=500))
    pipe.set_output(transform="pandas").fit(X, y)
    names = list(pipe[0].get_feature_names_out())
    assert names[0].startswith(f"layer{pipe[0].n_layers_}_class_")
    assert list(pipe[-1].feature_names_in_) == names  # the downstream model trained on the named columns
    features = pipe[:-1].transform(X)
    assert isinstance(features, pd.DataFrame) and list(features.columns) == names
    assert list(pipe[:-1].get_feature_names_out()) == names
    assert pipe.score(X, y) > 0.5  # three classes: better than chance


def test_input_features_are_checked_and_fitting_comes_first(data):
    X, y = data
    clf = MDDFClassifier(**SMALL, max_layers=1)
    with pytest.raises(NotFittedError):
        clf.get_feature_names_out()
    clf.fit(X, y)
    assert list(clf.get_feature_names_out(list(X.columns))) == list(clf.get_feature_names_out())
    with pytest.raises(ValueError, match="input_features"):
        clf.get_feature_names_out([f"z{i}" for i in range(10)])


def test_regressor_columns_are_each_forests_prediction():
    X, y = make_regression(n_samples=120, n_features=5, noise=1.0, random_state=0)
    reg = CascadeForestRegressor(**SMALL, max_layers=2, n_tolerant_layers=2, forest_types=("rf", "crf", "et"))
    reg.set_output(transform="pandas").fit(X, y)
    names = [f"layer1_{m}_prediction" for m in ("rf0", "crf1", "et2")]
    frame = reg.transform(X, layer=1)
    assert list(frame.columns) == list(reg.get_feature_names_out(layer=1)) == names
    assert np.array_equal(reg.fit_transform(X, y, layer=1).to_numpy(), reg.oof_features_[0])


def test_grid_search_names_are_the_selected_cascades(data):
    X, y = data
    search = MDDFGridSearch(
        estimator=MDDFClassifier(**SMALL, max_layers=2), param_grid={"margin_mean": [0.7, 0.9]}
    ).fit(X, y)
    for layer in (None, 1):
        expected = list(search.best_estimator_.get_feature_names_out(layer=layer))
        assert list(search.get_feature_names_out(layer=layer)) == expected
    frame = search.set_output(transform="pandas").transform(X, layer=1)
    assert list(frame.columns) == list(search.best_estimator_.get_feature_names_out(layer=1))


# scikit-learn runs these for its own transformers only (not in parametrize_with_checks' list)
@pytest.mark.parametrize(
    "check",
    [
        check_transformer_get_feature_names_out,
        check_transformer_get_feature_names_out_pandas,
        check_set_output_transform,
        check_set_output_transform_pandas,
        check_global_output_transform_pandas,
    ],
    ids=lambda check: check.__name__,
)
@pytest.mark.parametrize(
    "estimator",
    [
        MDDFClassifier(**SMALL, max_layers=2),
        MDDFClassifier(**SMALL, max_layers=2, passed_features="per_forest"),
        CascadeForestRegressor(**SMALL, max_layers=2),
        MDDFGridSearch(estimator=MDDFClassifier(**SMALL, max_layers=2), param_grid={"margin_mean": [0.7, 0.9]}),
        GCForestClassifier(n_estimators=2, n_folds=2, max_layers=2, random_state=0),
    ],
    ids=["mean", "per_forest", "regressor", "search", "gcforest"],
)
# the set_output checks fit on a DataFrame and transform an array, and the other way round, on purpose
@pytest.mark.filterwarnings("ignore:X (does not have valid|has) feature names:UserWarning")
@pytest.mark.slow
def test_scikit_learn_feature_names_and_set_output_checks(estimator, check):
    check(type(estimator).__name__, estimator)


@pytest.mark.parametrize("layer, n_layers, expected", [(None, 3, 3), (1, 3, 1), (np.int64(3), 3, 3)])
def test_a_layer_is_a_kept_layer_counted_from_1_and_none_is_the_last(layer, n_layers, expected):
    assert checked_layer(layer, n_layers) == expected and type(checked_layer(layer, n_layers)) is int


@pytest.mark.parametrize("layer", [0, 4, 1.0, "1"])
def test_a_layer_outside_the_kept_ones_is_refused_by_name(layer):
    with pytest.raises(ValueError, match=r"layer must be an integer in \[1, 3\] \(the kept layers\), got "):
        checked_layer(layer, 3)
