"""gcForest = multi-grained scanning + the mddf cascade with the margin machinery off."""

import pickle

import numpy as np
import pytest
from estimator_checks_table import expected_failed_checks
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

from mddf import MDDFClassifier
from mddf.baselines import GCForestClassifier, MultiGrainedScanner
from mddf.baselines.gcforest import GCForestCascade, gcforest_cascade


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float32)
    return X[:360], y[:360], X[360:560], y[360:560]


def small(**params):
    defaults = dict(n_estimators=5, max_layers=4, random_state=0)
    return GCForestClassifier(**{**defaults, **params})


SCAN = dict(window_sizes=(4, 6), image_shape=(8, 8), scan_n_estimators=5)


@pytest.fixture(scope="module")
def cascade_only(digits):
    X, y, _, _ = digits
    # a seed with which this tiny cascade (5 trees a forest) keeps several levels;
    # the tests that need them assert it
    return small(random_state=4).fit(X, y)


@pytest.fixture(scope="module")
def scanned(digits):
    X, y, _, _ = digits
    return small(**SCAN).fit(X, y)


# -- the cascade ------------------------------------------------------------------------------


def test_cascade_equals_the_mddf_variant_without_margin_machinery(digits, cascade_only):
    X, y, X_test, _ = digits
    gc = cascade_only
    md = MDDFClassifier(
        margin_optimization=False,
        passed_features="per_forest",
        max_depth_factor=None,
        n_estimators=5,
        max_layers=4,
        min_gain_se=0.0,
        calibration=None,  # gcForest's probabilities are its mixture's
        forest_types=("rf", "rf", "crf", "crf"),  # and its forests gcForest's
        random_state=4,
    ).fit(X, y)
    np.testing.assert_array_equal(gc.predict_proba(X_test), md.predict_proba(X_test))
    assert gc.n_layers_ == md.n_layers_
    assert [r["oof_accuracy"] for r in gc.train_history_] == [r["oof_accuracy"] for r in md.train_history_]


def test_each_level_is_two_random_and_two_completely_random_fully_grown_forests(cascade_only):
    gc = cascade_only
    params = gc.cascade_.get_params()
    assert params["forest_types"] == ("rf", "rf", "crf", "crf")
    assert params["margin_optimization"] is False  # uniform D_t, alpha_t = 1, f_t = h_t
    assert params["max_depth_factor"] is None
    assert params["n_folds"] == 3
    assert params["min_gain_se"] == 0.0  # gcForest's own rule: any improvement counts
    assert all(r["max_depth"] is None and r["alpha"] == 1.0 for r in gc.train_history_)
    for block in gc.cascade_.layers_:
        assert len(block.forests_) == 3 and all(len(fold) == 4 for fold in block.forests_)


def test_levels_pass_each_forests_class_vector_and_predict_with_the_last_level(digits, cascade_only):
    _, _, X_test, _ = digits
    gc = cascade_only
    assert gc.n_layers_ >= 2
    n_classes = len(gc.classes_)
    passed = gc.transform(X_test, layer=gc.n_layers_ - 1)
    assert passed.shape == (len(X_test), 4 * n_classes)
    last = gc.cascade_.layers_[-1].predict_proba(np.hstack([X_test, passed]))  # (n, 4 forests, s)
    np.testing.assert_allclose(gc.predict_proba(X_test), last.mean(axis=1))


def test_growth_stops_after_n_tolerant_layers_without_improvement_and_keeps_the_best_prefix(digits):
    X, y, _, _ = digits
    gc = small(max_layers=8, n_tolerant_layers=1).fit(X, y)
    accuracies = [r["oof_accuracy"] for r in gc.train_history_]
    best = int(np.argmax(accuracies)) + 1
    assert gc.n_layers_ == best
    if len(accuracies) < 8:
        assert accuracies[-1] <= accuracies[-2]


def test_validation_fraction_is_monitored(digits):
    X, y, _, _ = digits
    gc = small(validation_fraction=0.25).fit(X, y)
    assert all("val_accuracy" in r for r in gc.train_history_)


def test_verbose_lines_name_gcforest_and_leave_out_the_layer_weights(digits, capsys):
    # the gcForest cascade has alpha_t = 1 and no mixture: its lines show levels, accuracies and time
    X, y, _, _ = digits
    gc = small(max_layers=2, verbose=1).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    levels = [line for line in lines if line.startswith("[gcForest] layer")]
    assert len(levels) == len(lines) - 1 == len(gc.train_history_)
    assert lines[-1].startswith(f"[gcForest] kept {gc.n_layers_} of {len(gc.train_history_)} layers: ")
    assert not any("alpha=" in line or "share=" in line or "[mdDF]" in line for line in lines)
    assert all("oof_acc=" in line and line.endswith("s") for line in levels)
    small(max_layers=1, verbose=1, **SCAN).fit(X[:60], y[:60])
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("[scanning]") for line in lines)
    assert any(line.startswith("[gcForest] layer") for line in lines)
    assert not any(line.startswith("[mdDF]") for line in lines)


def test_the_cascade_is_an_mddf_classifier_under_the_gcforest_name(digits, cascade_only):
    _, _, X_test, _ = digits
    cascade = cascade_only.cascade_
    assert isinstance(cascade, GCForestCascade) and isinstance(cascade, MDDFClassifier)
    assert isinstance(gcforest_cascade(), GCForestCascade)
    assert clone(cascade).get_params() == cascade.get_params()
    restored = pickle.loads(pickle.dumps(cascade))
    assert type(restored) is GCForestCascade
    np.testing.assert_array_equal(restored.predict_proba(X_test), cascade.predict_proba(X_test))


def test_staged_predictions_end_with_the_final_prediction(digits, scanned):
    _, _, X_test, _ = digits
    gc = scanned
    staged = list(gc.staged_predict_proba(X_test))
    assert len(staged) == gc.n_layers_
    np.testing.assert_array_equal(staged[-1], gc.predict_proba(X_test))
    np.testing.assert_array_equal(list(gc.staged_predict(X_test))[-1], gc.predict(X_test))


def test_feature_names_are_each_forests_class_vector_of_the_level(digits, cascade_only):
    X, y, _, _ = digits
    gc = cascade_only
    assert gc.n_layers_ >= 2  # precondition
    forests = ("rf0", "rf1", "crf2", "crf3")
    assert list(gc.get_feature_names_out(layer=2)) == [f"layer2_{m}_class_{c}" for m in forests for c in range(10)]
    assert list(gc.get_feature_names_out()) == list(gc.cascade_.get_feature_names_out())
    even = clone(gc).set_output(transform="pandas").fit(X[:200], y[:200] % 2 == 0)
    frame = even.transform(X[:5], layer=1)
    assert list(frame.columns) == [f"layer1_{m}_class_{c}" for m in forests for c in (False, True)]


# -- with multi-grained scanning --------------------------------------------------------------


def test_scanning_class_vectors_are_the_cascades_input(digits, scanned):
    X, y, X_test, _ = digits
    gc = scanned
    scanner = MultiGrainedScanner(window_sizes=(4, 6), image_shape=(8, 8), n_estimators=5, random_state=0)
    features = scanner.fit_transform(X, y)  # out-of-fold: what the cascade trains on
    cascade = gcforest_cascade(n_estimators=5, max_layers=4, random_state=0).fit(features, y)
    assert gc.cascade_.n_features_in_ == scanner.n_features_out_ == 2 * (25 + 9) * 10
    np.testing.assert_array_equal(gc.predict_proba(X_test), cascade.predict_proba(scanner.transform(X_test)))


def test_scanning_learns_digits(digits, scanned):
    _, _, X_test, y_test = digits
    # 360 training images and 5-tree forests: far above chance (0.1), not a benchmark
    assert scanned.score(X_test, y_test) > 0.7


def test_without_image_shape_rows_are_scanned_as_sequences(digits):
    X, y, X_test, _ = digits
    gc = small(window_sizes=(16,), scan_n_estimators=3, max_layers=1).fit(X, y)
    assert gc.scanner_.image_shape_ == (64,)
    assert gc.scanner_.n_features_out_ == 2 * (64 - 16 + 1) * 10
    assert gc.predict(X_test).shape == (len(X_test),)


@pytest.mark.slow
def test_random_state_makes_results_bit_identical(digits, scanned):
    X, y, X_test, _ = digits
    a = scanned.predict_proba(X_test)  # random_state=0
    b = small(**SCAN, random_state=0).fit(X, y).predict_proba(X_test)
    c = small(**SCAN, random_state=2).fit(X, y).predict_proba(X_test)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_pickle_round_trip(digits, scanned):
    _, _, X_test, _ = digits
    gc = scanned
    restored = pickle.loads(pickle.dumps(gc))
    np.testing.assert_array_equal(restored.predict_proba(X_test), gc.predict_proba(X_test))


# -- errors -----------------------------------------------------------------------------------


def test_image_shape_that_does_not_match_the_features_is_rejected(digits):
    X, y, _, _ = digits
    with pytest.raises(ValueError, match=r"image_shape \(7, 7\) holds 49 values but X has 64 features"):
        small(window_sizes=(3,), image_shape=(7, 7)).fit(X, y)
    with pytest.raises(ValueError, match=r"image_shape \(7, 7\) holds 49 values"):
        small(image_shape=(7, 7)).fit(X, y)  # checked even without scanning


def test_window_larger_than_the_image_is_rejected(digits):
    X, y, _, _ = digits
    with pytest.raises(ValueError, match="window size 9 does not fit"):
        small(window_sizes=(9,), image_shape=(8, 8)).fit(X, y)


def test_bad_input_is_rejected_with_a_clear_message(digits):
    X, y, _, _ = digits
    with pytest.raises(
        ValueError, match=r"y has only one class \(0.0\); GCForestClassifier needs samples of at least 2"
    ):
        small().fit(X[:20], np.zeros(20))
    with pytest.raises(ValueError, match=r"only one class \(3\); GCForestClassifier needs"):
        small(**SCAN).fit(X[:20], np.full(20, 3))  # before any scanning forest is fitted
    with pytest.raises(ValueError, match=r"only one class \('a'\); GCForestCascade needs"):
        gcforest_cascade(n_estimators=2).fit(X[:20], np.array(["a"] * 20, dtype=object))
    X_inf = X.copy()  # NaN is a missing value (tests/mddf/test_missing_values.py); inf is an error
    X_inf[3, 5] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        small().fit(X_inf, y)
    fitted = small(max_layers=1).fit(X, y)
    with pytest.raises(ValueError, match="64 features"):
        fitted.predict(X[:, :10])


# -- scikit-learn integration -----------------------------------------------------------------


def test_grid_search_over_scanning_settings(digits):
    X, y, _, _ = digits
    search = GridSearchCV(
        small(image_shape=(8, 8), scan_n_estimators=3, max_layers=1),
        {"window_sizes": [None, (4,)]},
        cv=2,
    ).fit(X[:200], y[:200])
    assert len(search.cv_results_["params"]) == 2
    assert clone(search.best_estimator_).get_params() == search.best_estimator_.get_params()


@pytest.mark.slow
# The scanning configuration exercises the whole estimator (scanner + cascade); window 1 on 1-D rows fits every input
# width the checks generate.
@parametrize_with_checks(
    [
        GCForestClassifier(
            window_sizes=(1,),
            scan_n_estimators=2,
            scan_n_folds=2,
            n_estimators=2,
            n_folds=2,
            max_layers=1,
            random_state=0,
        )
    ],
    expected_failed_checks=expected_failed_checks,  # docs/user_guide/scikit_learn.md lists them
    xfail_strict=True,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("tree_method", ["hist", "exact"])
def test_tree_method_reaches_the_cascade(digits, tree_method):
    X, y, X_test, y_test = digits
    gc = small(tree_method=tree_method, max_layers=2).fit(X, y)
    assert gc.cascade_.tree_method == tree_method
    forest = gc.cascade_.layers_[0].forests_[0][0]
    assert type(forest).__name__ == ("BinnedForest" if tree_method == "hist" else "CompactForest")
    assert gc.score(X_test, y_test) > 0.75
