"""Bad input, as a specification: what each of the six estimators does with it.

Every row of the matrix is an estimator and a case. A case either expects an error, of an exact type
and with a message fragment that names the problem (the column, the member, the label types, the
cause of an overflow), or expects a correct result and checks it. No case may end in a silent wrong
result or in an error that does not name its cause.

The data are tiny and the models small, so that the whole matrix runs in seconds once numba has
compiled its code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline

from mddf import CascadeForestRegressor, MDDFClassifier, PairFeatures
from mddf.baselines import AdaBoostClassifier, DeepBoostClassifier, GCForestClassifier, QuadBoostClassifier

# ------------------------------------------------------------------------------------------ estimators

ESTIMATORS = {
    "mddf": lambda **kw: MDDFClassifier(n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw),
    "regressor": lambda **kw: CascadeForestRegressor(
        n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw
    ),
    "gcforest": lambda **kw: GCForestClassifier(
        n_estimators=4, max_layers=2, n_folds=2, n_jobs=1, random_state=0, **kw
    ),
    "deepboost": lambda **kw: DeepBoostClassifier(n_iter=10, max_depth=2, random_state=0, **kw),
    "adaboost": lambda **kw: AdaBoostClassifier(n_iter=10, max_depth=2, random_state=0, **kw),
    "quadboost": lambda **kw: QuadBoostClassifier(n_iter=20, random_state=0, **kw),
}
ALL = tuple(ESTIMATORS)
CLASSIFIERS = tuple(name for name in ALL if name != "regressor")
BOOSTERS = ("deepboost", "adaboost", "quadboost")


def make(name, **params):
    return ESTIMATORS[name](**params)


def data(name, n=40, d=4, seed=0):
    """A learnable problem: class labels for a classifier, real targets for the regressor."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, d))
    signal = X[:, 0] + 0.5 * X[:, 1]
    return X, (signal if name == "regressor" else (signal > 0).astype(int))


def raises(exc, fragment):
    """``pytest.raises`` for ``exc`` whose message holds ``fragment`` literally."""
    return pytest.raises(exc, match=re.escape(fragment))


def assert_learned(name, model, X, y):
    """A correct result: the fitted model predicts its (learnable) training data well."""
    score = model.score(X, y)
    assert score >= (0.5 if name == "regressor" else 0.8), f"{name}: training score {score:.3f}"


# --------------------------------------------------------------------------- members of forest_types


class NaNProba(ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities are NaN."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), np.nan)


class WideProba(ClassifierMixin, BaseEstimator):
    """A classifier whose probabilities have one column too many."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_) + 1), 1.0 / (len(self.classes_) + 1))


class ProbaSumsTo7(NaNProba):
    """A classifier whose probability rows sum to 7."""

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), 3.5)


class NoClasses(ClassifierMixin, BaseEstimator):
    """A classifier without ``classes_``."""

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return np.full((len(X), 2), 0.5)


def imputing_logistic():
    return make_pipeline(SimpleImputer(), LogisticRegression())


# -------------------------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One bad input: ``run(name)`` fits and predicts estimator ``name`` and checks the outcome.

    ``expects`` is ``"error"`` (a named error) or ``"result"`` (a correct result).
    """

    run: Callable[[str], None]
    estimators: tuple
    expects: str


CASES: dict[str, Case] = {}


def case(estimators, expects):
    def register(run):
        CASES[run.__name__] = Case(run, tuple(estimators), expects)
        return run

    return register


# shapes and sizes


@case(ALL, "error")
def x_one_dimensional(name):
    X, y = data(name)
    with raises(ValueError, "Expected 2D array, got 1D array instead"):
        make(name).fit(X[:, 0], y)


@case(ALL, "error")
def x_and_y_lengths_differ(name):
    X, y = data(name)
    with raises(ValueError, "inconsistent numbers of samples"):
        make(name).fit(X, y[:-1])


@case(ALL, "error")
def no_rows(name):
    X, y = data(name)
    with raises(ValueError, "0 sample(s)"):
        make(name).fit(X[:0], y[:0])


@case(ALL, "error")
def no_columns(name):
    X, y = data(name)
    with raises(ValueError, "0 feature(s)"):
        make(name).fit(X[:, :0], y)


@case(ALL, "error")
def wrong_n_features_at_predict(name):
    X, y = data(name)
    model = make(name).fit(X, y)
    with raises(ValueError, f"X has 3 features, but {type(model).__name__} is expecting 4 features"):
        model.predict(X[:, :3])


@case(ALL, "error")
def sparse_x(name):
    X, y = data(name)
    with raises(TypeError, "Sparse data was passed for X, but dense data is required"):
        make(name).fit(sp.csr_matrix(X), y)


@case(("mddf", "gcforest"), "error")
def a_class_with_fewer_rows_than_folds(name):
    X, y = data(name)
    y = np.zeros_like(y)
    y[0] = 1
    with raises(ValueError, "class 1 has 1 training samples, fewer than n_folds=2"):
        make(name).fit(X, y)


@case(("regressor",), "error")
def fewer_rows_than_folds(name):
    X, y = data(name)
    with raises(ValueError, "got n_samples=1, fewer than n_folds=2"):
        make(name).fit(X[:1], y[:1])


@case(ALL, "error")
def predict_before_fit(name):
    X, _ = data(name)
    with raises(NotFittedError, "is not fitted yet"):
        make(name).predict(X)


# values of X


@case(ALL, "error")
def infinity_at_fit(name):
    X, y = data(name)
    X[3, 1] = np.inf
    with raises(ValueError, "Input X contains infinity"):
        make(name).fit(X, y)


@case(ALL, "error")
def infinity_at_predict(name):
    X, y = data(name)
    model = make(name).fit(X, y)
    X[3, 1] = -np.inf
    with raises(ValueError, "Input X contains infinity"):
        model.predict(X)


@case(ALL, "error")
def values_too_large_for_the_model(name):
    # float32 for the trees and stumps; QuadBoost, in float64, overflows normalising them
    X, y = data(name)
    X[:, 1] *= 1e300
    with raises(ValueError, "too large for"), np.errstate(over="ignore", invalid="ignore"):  # numpy's cast
        make(name).fit(X, y)


@case(ALL, "error")
def complex_x(name):
    X, y = data(name)
    with raises(ValueError, "Complex data not supported"):
        make(name).fit(X + 1j, y)


@case(ALL, "result")
def nan_in_x(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name).fit(X, y)
    assert_learned(name, model, X, y)


@case(ALL, "error")
def datetime_column(name):
    frame = _frame(name, "category")[0].assign(c=pd.date_range("2020-01-01", periods=40))
    with pytest.raises(TypeError, match=r"column\(s\) 'c' \(datetime64\[\w+\]\) of X hold dates, times or durations"):
        make(name).fit(frame, data(name)[1])


@case(ALL, "error")
def duplicate_column_names(name):
    X, y = data(name)
    with raises(ValueError, "X has duplicate column names: 'a' (2 times)"):
        make(name).fit(pd.DataFrame(X, columns=["a", "b", "a", "d"]), y)


@case(ALL, "error")
def list_valued_column(name):
    X, y = data(name)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(e=[[1.0, 2.0]] * len(X))
    with raises(TypeError, "column(s) 'e' of X hold lists, tuples, sets, dicts or arrays"):
        make(name).fit(frame, y)


@case(("mddf", "regressor", "gcforest"), "error")
def values_that_underflow_float32(name):
    X, y = data(name)
    X[:, 1] *= 1e-47  # nonzero, but 0 as float32, in which these estimators compute
    with raises(ValueError, "column(s) 1 of X hold nonzero values too small for float32"):
        make(name).fit(X, y)


@case(("mddf", "regressor", "gcforest"), "result")
def values_in_float32s_subnormal_range(name):
    X, y = data(name)
    model = make(name).fit(X * 1e-40, y)  # below float32's smallest normal number: their order kept, as subnormals
    assert_learned(name, model, X * 1e-40, y)


@case(("mddf", "regressor", "gcforest"), "error")
def n_jobs_zero_or_absurd(name):
    X, y = data(name)
    for n_jobs in (0, 10**9):
        with raises(ValueError, "The 'n_jobs' parameter of"):
            make(name).set_params(n_jobs=n_jobs).fit(X, y)


# categorical columns


def _frame(name, kind):
    X, y = data(name)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    colours = np.where(X[:, 2] > 0, "red", "blue")
    frame["c"] = pd.Categorical(colours) if kind == "category" else pd.Series(colours, dtype=object)
    return frame, y


@case(ALL, "error")
def category_codes_at_predict(name):
    frame, y = _frame(name, "category")
    model = make(name).fit(frame, y)
    codes = frame.assign(c=frame["c"].cat.codes)
    with raises(TypeError, "column 'c' was categorical at fit"):
        model.predict(codes)


@case(ALL, "error")
def string_column_as_numbers_at_predict(name):
    frame, y = _frame(name, "string")
    model = make(name).fit(frame, y)
    numbers = frame.assign(c=(frame["c"] == "red").astype(float))
    with raises(TypeError, "column 'c' was categorical at fit"):
        model.predict(numbers)


@case(ALL, "error")
def numeric_category_codes_at_predict(name):
    frame, y = _frame(name, "string")
    frame["c"] = np.where(frame["c"] == "red", 10, 20)
    model = make(name, categorical_features=["c"]).fit(frame, y)
    with raises(ValueError, "column 'c' was categorical at fit, with categories 10, 20, but none of its values"):
        model.predict(frame.assign(c=(frame["c"] == 20).astype(int)))


@case(ALL, "error")
def strings_and_numbers_mixed_at_predict(name):
    frame, y = _frame(name, "string")
    model = make(name).fit(frame, y)
    mixed = frame.assign(c=[v if i % 2 else int(v == "red") for i, v in enumerate(frame["c"])])
    with raises(TypeError, "column 'c' was categorical at fit, with categories of strings ('blue', 'red'), but mixes"):
        model.predict(mixed)


@case(ALL, "error")
def strings_not_declared_categorical(name):
    frame, y = _frame(name, "string")
    with raises(ValueError, "column(s) 'c' of X hold strings but are not categorical features"):
        make(name, categorical_features=None).fit(frame, y)


@case(ALL, "result")
def category_values_at_predict(name):
    frame, y = _frame(name, "category")
    model = make(name).fit(frame, y)
    assert_learned(name, model, frame, y)


# labels


@case(ALL, "error")
def nan_in_y(name):
    X, y = data(name)
    y = y.astype(float)
    y[2] = np.nan
    with raises(ValueError, "Input y contains NaN"):
        make(name).fit(X, y)


@case(CLASSIFIERS, "error")
def one_class(name):
    X, y = data(name)
    with pytest.raises(ValueError, match=r"(one|1) class\b.*\b0\b"):  # the messages differ, all name the label
        make(name).fit(X, np.zeros_like(y))


@case(CLASSIFIERS, "error")
def mixed_int_and_str_labels(name):
    X, y = data(name)
    labels = [1 if v else "one" for v in y]
    # as an object array (a pandas column), and as a list, which NumPy would turn into strings only
    for given in (np.array(labels, dtype=object), labels):
        with raises(ValueError, "Mix of label input types (string and number) in y: labels of types int, str"):
            make(name).fit(X, given)


@case(CLASSIFIERS, "error")
def none_among_string_labels(name):
    X, y = data(name)
    labels = np.where(y == 1, "yes", "no").astype(object)
    labels[5] = None
    with raises(ValueError, "y has 1 missing label(s) (None or NaN), the first at row 5"):
        make(name).fit(X, labels)


@case(CLASSIFIERS, "error")
def continuous_labels(name):
    X, y = data(name)
    with raises(ValueError, "Unknown label type"):
        make(name).fit(X, X[:, 0])


@case(("regressor",), "error")
def string_targets(name):
    X, y = data(name)
    with raises(ValueError, "needs a numeric target y"):
        make(name).fit(X, np.where(y > 0, "up", "down"))


@case(("regressor",), "error")
def targets_whose_squares_overflow(name):
    X, y = data(name)
    with raises(ValueError, "overflow"):
        make(name).fit(X, y * 1e154)


@case(("regressor",), "error")
def targets_beyond_the_largest_float32(name):
    X, y = data(name)
    with raises(ValueError, "|y| reaches 1e+40, beyond 3.4e+38, the largest float32"):
        make(name).fit(X, y / np.abs(y).max() * 1e40)


@case(("regressor",), "result")
def targets_below_1e_minus_8(name):
    X, y = data(name)
    assert_learned(name, make(name).fit(X, y * 1e-10), X, y * 1e-10)


# sample weights


@case(ALL, "error")
def negative_weight(name):
    X, y = data(name)
    weight = np.ones(len(y))
    weight[0] = -1.0
    with raises(ValueError, "Negative values in data passed to `sample_weight`"):
        make(name).fit(X, y, sample_weight=weight)


@case(ALL, "error")
def nan_weight(name):
    X, y = data(name)
    weight = np.ones(len(y))
    weight[0] = np.nan
    with raises(ValueError, "sample_weight must be finite"):
        make(name).fit(X, y, sample_weight=weight)


@case(ALL, "error")
def weights_of_wrong_length(name):
    X, y = data(name)
    with raises(ValueError, "sample_weight.shape =="):
        make(name).fit(X, y, sample_weight=np.ones(len(y) - 1))


@case(ALL, "error")
def all_weights_zero(name):
    X, y = data(name)
    with raises(ValueError, "Sample weights must contain at least one non-zero number"):
        make(name).fit(X, y, sample_weight=np.zeros(len(y)))


def _scaled_weights_predict_alike(name, scale):
    """Weights are relative: multiplying them all by ``scale`` gives the model of the weights themselves.

    The boosters quantise the weights by their ratios, so they give the same predictions. The forests
    get the same model up to the rounding of the scaled weights, which can flip a weighted draw or a
    near tie between splits; their predictions must agree on nearly every row.
    """
    X, y = data(name)
    weight = np.random.RandomState(1).randint(1, 4, size=len(y)).astype(float)
    reference = make(name).fit(X, y, sample_weight=weight).predict(X)
    scaled = make(name).fit(X, y, sample_weight=weight * scale)
    assert_learned(name, scaled, X, y)
    if name in BOOSTERS:
        np.testing.assert_array_equal(scaled.predict(X), reference)
    elif name == "regressor":
        assert r2_score(reference, scaled.predict(X)) >= 0.9
    else:
        assert np.mean(scaled.predict(X) == reference) >= 0.9


@case(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e17(name):
    _scaled_weights_predict_alike(name, 1e17)


@case(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e20(name):
    _scaled_weights_predict_alike(name, 1e20)


@case(tuple(n for n in ALL if n != "deepboost"), "result")
def weights_times_1e_minus_20(name):
    _scaled_weights_predict_alike(name, 1e-20)


@case(("deepboost",), "result")
def huge_weights_with_complexity_penalty(name):
    # With lam > 0 the total weight is the m of the complexity penalty: multiplying the weights by 1e17
    # or 1e20 is the fit on that many repeated rows, whose penalty vanishes; the model must stay sound.
    X, y = data(name)
    for scale in (1e17, 1e20):
        assert_learned(name, make(name).fit(X, y, sample_weight=np.full(len(y), scale)), X, y)


@case(("deepboost",), "error")
def tiny_weights_with_complexity_penalty(name):
    X, y = data(name)
    with raises(ValueError, "the total sample weight is the m of eqs. 7-9 and must be at least 1"):
        make(name).fit(X, y, sample_weight=np.full(len(y), 1e-20))


@case(CLASSIFIERS, "error")
def weights_zero_out_a_class(name):
    X, y = data(name)
    with raises(ValueError, "every sample of class 0 has sample_weight 0, so no model can learn it"):
        make(name).fit(X, y, sample_weight=(y == 1).astype(float))


@case(CLASSIFIERS, "error")
def weights_zero_out_one_class_of_three(name):
    # two classes keep a positive weight, but the third would be a class of classes_ that nothing learned
    X, y = data(name, n=60)
    y = np.array(["low", "mid", "high"])[np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])]
    with raises(ValueError, "every sample of class 'high' has sample_weight 0"):
        make(name).fit(X, y, sample_weight=(y != "high").astype(float))


@case(("mddf", "regressor", "gcforest"), "result")
def uniformly_scaled_weights_fit_as_unit_weights(name):
    # the cascades rescale the weights to a mean near 1 before any use: equal weights of any scale are unit weights, bit
    # for bit, layer probes included (eight trees a forest: the layers after the first are probed)
    X, y = data(name, n=60)
    params = dict(n_estimators=8, max_layers=3, **({} if name == "gcforest" else {"probe_trees": 0.25}))
    predict = "predict" if name == "regressor" else "predict_proba"
    reference = getattr(make(name).set_params(**params).fit(X, y, sample_weight=np.ones(len(y))), predict)(X)
    for scale in (1e300, 1e-300):
        scaled = make(name).set_params(**params).fit(X, y, sample_weight=np.full(len(y), scale))
        np.testing.assert_array_equal(getattr(scaled, predict)(X), reference)


@case(("mddf", "regressor", "gcforest"), "result")
def weights_times_1e300(name):
    _scaled_weights_predict_alike(name, 1e300)


@case(("mddf", "regressor", "gcforest"), "result")
def weights_times_1e_minus_300(name):
    _scaled_weights_predict_alike(name, 1e-300)


# the pair search of pair_features (mdDF and the regressor)


@case(("mddf", "regressor"), "error")
def pair_features_with_bad_parameters(name):
    # checked at the cascade's fit, before any work, by mddf's message naming pair_features (scikit-learn skips
    # the nested check inside the cascade's own)
    X, y = data(name)
    for params, problem in (
        (dict(max_features=-3), "The 'max_features' parameter of PairFeatures must be an int in the range [1, inf)"),
        (dict(max_features=0), "The 'max_features' parameter of PairFeatures must be an int in the range [1, inf)"),
        (dict(cv=1), "The 'cv' parameter of PairFeatures must be an int in the range [2, inf). Got 1"),
        (dict(operations=("ratio",)), "operations must be some of ['log_ratio', 'product', 'difference']"),
    ):
        search = PairFeatures(**params)
        with raises(ValueError, f"{type(make(name)).__name__}: pair_features={search!r}: {problem}"):
            make(name, pair_features=search).fit(X, y)


# members of forest_types and the predictor (mdDF)


@case(("mddf",), "error")
def member_returns_nan(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (NaNProba): predict_proba returned non-finite values"):
        make(name, forest_types=("rf", NaNProba())).fit(X, y)


@case(("mddf",), "error")
def member_returns_wrong_width(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (WideProba): predict_proba returned shape (20, 3); expected (20, 2)"):
        make(name, forest_types=("rf", WideProba())).fit(X, y)


@case(("mddf",), "result")
def member_returns_rows_not_summing_to_1(name):
    X, y = data(name)
    for params in (dict(forest_types=("rf", ProbaSumsTo7())), dict(predictor=ProbaSumsTo7())):
        model = make(name, **params).fit(X, y)
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


@case(("mddf",), "result")
def float32_probabilities_of_xgboost_sum_to_1(name):
    # XGBoost's probabilities are float32 (rows summing to 1 within about 1e-7): read as float64 and renormalised,
    # as the predictor and as a member of the layers, with and without calibration
    X, y = data(name, n=60)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    for params in (
        dict(predictor="xgboost"),
        dict(predictor="xgboost", predictor_input="auto"),
        dict(forest_types=("rf", "gbdt"), calibration=None),
        dict(forest_types=("rf", "gbdt")),
    ):
        model = make(name, **params).fit(X, y)
        for proba in (model.predict_proba(X), *model.staged_predict_proba(X)):
            assert proba.dtype == np.float64
            np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@case(("mddf",), "error")
def member_without_classes(name):
    X, y = data(name)
    with raises(ValueError, "forest_types[1] (NoClasses): has no classes_ after fit"):
        make(name, forest_types=("rf", NoClasses())).fit(X, y)
    with raises(ValueError, "predictor (NoClasses): has no classes_ after fit"):
        make(name, predictor=NoClasses()).fit(X, y)


@case(("mddf",), "error")
def member_without_nan_support_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    with raises(ValueError, "forest_types[1]: LogisticRegression does not accept missing values (NaN)"):
        make(name, forest_types=("rf", LogisticRegression())).fit(X, y)


@case(("mddf",), "result")
def imputing_pipeline_member_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name, forest_types=("rf", imputing_logistic())).fit(X, y)
    assert_learned(name, model, X, y)


@case(("mddf",), "result")
def imputing_pipeline_predictor_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name, predictor=imputing_logistic()).fit(X, y)
    assert_learned(name, model, X, y)


@case(("mddf",), "error")
def predictor_returns_nan(name):
    X, y = data(name)
    with raises(ValueError, "predictor (NaNProba): predict_proba returned non-finite values"):
        make(name, predictor=NaNProba()).fit(X, y)


@case(("mddf",), "error")
def predictor_without_nan_support_on_nan(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    with raises(ValueError, "predictor: LogisticRegression does not accept missing values (NaN)"):
        make(name, predictor=LogisticRegression()).fit(X, y)


# ----------------------------------------------------------------------------------------- the matrix

MATRIX = [(name, case_name) for case_name, c in CASES.items() for name in c.estimators]


@pytest.mark.parametrize("name, case_name", MATRIX, ids=[f"{n}-{c}" for n, c in MATRIX])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
