"""Members of a block beyond the paper's forests: "et", "gbdt" and estimator instances."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.impute import KNNImputer, SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

from mddf import MDDFClassifier
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.members import (
    MIN_STOPPING_ROWS,
    FoldModel,
    accepts_nan,
    check_forest_types,
    fit_member,
    stopping_rows,
)
from mddf.forests import make_forest, make_gbdt
from mddf.forests.boosting import EARLY_STOPPING_ROUNDS


def _noise(n=300, d=5, s=3, seed=0):
    # unique random points with random labels: a model that saw a row memorises
    # its label, a model that did not can only guess
    rng = np.random.RandomState(seed)
    return rng.rand(n, d).astype(np.float32), rng.randint(0, s, n)


def _uniform(n):
    return np.full(n, 1 / n)


class SeenSpy(ClassifierMixin, BaseEstimator):
    """Predicts, for every row, whether it was among its training rows: probability 1 for class 0 if so."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.seen_ = {row.tobytes() for row in np.asarray(X)}
        self.random_state_seen_ = self.random_state
        return self

    def predict_proba(self, X):
        seen = np.array([row.tobytes() in self.seen_ for row in np.asarray(X)], dtype=float)
        out = np.zeros((len(X), len(self.classes_)))
        out[:, 0] = seen
        out[:, 1] = 1 - seen
        return out


MEMORISING = {
    "et": "et",
    "gbdt": "gbdt",
    "instance": KNeighborsClassifier(n_neighbors=1),
}


# ---------------------------------------------------------------- out-of-fold class vectors
@pytest.mark.parametrize("tree_method", ["hist", "exact"])
@pytest.mark.parametrize("kind", list(MEMORISING))
def test_each_kind_gives_out_of_fold_vectors_of_the_right_shape(kind, tree_method):
    X, y = _noise()
    block = ForestBlock(("rf", MEMORISING[kind]), 20, None, 3, "kfold", "resample", 1, tree_method)
    oof = block.fit(X, y, _uniform(len(y)), 3, np.random.RandomState(0))
    assert oof.shape == (300, 2, 3)
    assert oof.sum(axis=2) == pytest.approx(np.ones((300, 2)))
    assert [len(models) for models in block.models_] == [3, 3]
    member_true = oof[np.arange(len(y)), 1, y].mean()
    seen_true = block.predict_proba(X)[np.arange(len(y)), 1, y].mean()
    # leaked vectors would put ~2/3 (k-fold) or ~1 on the true class; honest ones ~1/3
    assert member_true < 0.45
    assert seen_true > 0.5
    assert block.predict_proba(X[:4]).shape == (4, 2, 3)
    assert block.nbytes > 0


@pytest.mark.parametrize(
    "class_vectors, weighting",
    [("kfold", "resample"), ("kfold", "resample_fold"), ("kfold", "sample_weight"), ("oob", "resample")],
)
def test_no_row_gets_a_class_vector_from_a_member_that_was_trained_on_it(class_vectors, weighting):
    X, y = _noise(n=240, s=2, seed=1)
    D = np.random.RandomState(2).dirichlet(np.ones(len(y)))  # not uniform: D_t is resampled or weighted
    block = ForestBlock(("crf", SeenSpy()), 5, None, 3, class_vectors, weighting, 2, "hist")
    oof = block.fit(X, y, D, 2, np.random.RandomState(0))
    assert np.all(oof[:, 1, 0] == 0.0)  # the spy never saw a row it gives a vector to
    assert len(block.models_[1]) == 3  # cross-fitted on 3 folds, with "oob" too
    # and its fold models did see training rows: new rows get the mean of the fold models
    assert block.predict_proba(X)[:, 1, 0].mean() > 0.3


def test_out_of_bag_forests_beside_cross_fitted_members():
    X, y = _noise(n=150)
    block = ForestBlock(("rf", "et", "gbdt"), 8, None, 3, "oob", "resample", 1, "hist")
    oof = block.fit(X, y, _uniform(len(y)), 3, np.random.RandomState(0))
    assert oof.shape == (150, 3, 3)
    assert [len(models) for models in block.models_] == [1, 1, 3]
    with pytest.raises(AttributeError, match="models_"):
        _ = block.forests_


def test_forest_only_blocks_keep_their_fold_first_forests():
    X, y = _noise(n=90)
    block = ForestBlock(("rf", "et"), 4, None, 3, "kfold", "resample", 1, "hist")
    block.fit(X, y, _uniform(len(y)), 3, np.random.RandomState(0))
    assert len(block.forests_) == 3 and all(len(fold) == 2 for fold in block.forests_)
    assert block.forests_[1][0] is block.models_[0][1]


# ---------------------------------------------------------------- determinism and seeding
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"weighting": "sample_weight"},
        {"weighting": "resample_fold", "tree_method": "exact"},
        {"class_vectors": "oob", "predictor": "forest"},
    ],
)
@pytest.mark.slow
def test_cascade_results_do_not_depend_on_n_jobs(params):
    X, y = _noise(n=150, s=3, seed=3)
    members = ("rf", "et", "gbdt", ExtraTreeClassifier(max_depth=4))
    fits = [
        MDDFClassifier(n_estimators=4, forest_types=members, max_layers=2, n_jobs=n_jobs, random_state=0, **params).fit(
            X, y
        )
        for n_jobs in (1, 2)
    ]
    assert np.array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))
    assert np.array_equal(fits[0].oof_features_[-1], fits[1].oof_features_[-1])
    assert np.array_equal(fits[0].feature_importances_, fits[1].feature_importances_)


def test_an_instances_random_state_is_drawn_from_the_cascades():
    X, y = _noise(n=150, s=2, seed=4)

    def fit(member, random_state):
        return MDDFClassifier(n_estimators=3, forest_types=("rf", member), max_layers=1, random_state=random_state).fit(
            X, y
        )

    a = fit(ExtraTreeClassifier(random_state=1), 0)
    b = fit(ExtraTreeClassifier(random_state=2), 0)  # its own seed is replaced
    c = fit(ExtraTreeClassifier(random_state=1), 1)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert not np.array_equal(a.oof_features_[0], c.oof_features_[0])
    seeds = [m.estimator.random_state for m in a.layers_[0].models_[1]]
    assert len(set(seeds)) == 3 and 1 not in seeds  # one seed per fold model


def test_nested_random_states_are_seeded_too():
    model = fit_member(make_pipeline(StandardScaler(), DecisionTreeClassifier()), *_noise(n=60), 3, random_state=5)
    assert isinstance(model.estimator[-1].random_state, int)


# ---------------------------------------------------------------- parameters
def test_get_params_and_clone_keep_estimator_instances():
    member = LogisticRegression(C=0.5)
    clf = MDDFClassifier(forest_types=("rf", member), n_estimators=3, max_layers=1, random_state=0)
    assert clf.get_params()["forest_types"][1] is member
    copy = clone(clf)
    assert copy.forest_types[0] == "rf"
    assert copy.forest_types[1].get_params() == member.get_params()
    X, y = _noise(n=60, s=2)
    clf.fit(X, y)
    assert not hasattr(member, "coef_")  # the instance itself is never fitted
    assert clf.forest_types[1] is member


def test_check_forest_types_accepts_every_kind():
    member = KNeighborsClassifier()
    kinds = ["rf", "crf", "et", "gbdt", "gbdt_es", "gbdt_vector", member]
    assert check_forest_types(kinds) == tuple(kinds)


# ---------------------------------------------------------------- boosted members stopped early
def test_the_boosted_members_differ_only_in_early_stopping_and_vector_leaves():
    plain, early, vector = (make_gbdt(kind=kind).get_params() for kind in ("gbdt", "gbdt_es", "gbdt_vector"))
    assert plain["early_stopping_rounds"] is None and early["early_stopping_rounds"] == EARLY_STOPPING_ROUNDS
    assert vector["multi_strategy"] == "multi_output_tree" and early["multi_strategy"] is None
    changed = {k for k in plain if repr(plain[k]) != repr(vector[k])}  # repr: NaN (``missing``) equals itself
    assert changed == {"early_stopping_rounds", "multi_strategy"}
    # vector trees do not split categories: with a category column, a tree per class
    assert make_gbdt(kind="gbdt_vector", categorical=[True, False]).get_params()["multi_strategy"] is None
    assert make_gbdt(kind="gbdt_vector", task="regression").get_params()["multi_strategy"] is None
    with pytest.raises(ValueError, match="unknown boosted member 'gbdt_fast'"):
        make_gbdt(kind="gbdt_fast")


def test_a_member_stopped_early_holds_a_tenth_of_its_distinct_rows_out_of_its_fit():
    y = np.repeat([0, 1, 2], 100)
    fit_rows = np.repeat(np.arange(300), 2)  # every row twice, as a resample may draw it
    rows, stop = stopping_rows(np.random.RandomState(0), fit_rows, y, classification=True)
    assert len(stop) == 30 and len(np.unique(stop)) == 30
    assert not np.isin(rows, stop).any() and len(rows) == 2 * 270  # every copy of a held-out row is out
    assert set(np.unique(y[stop])) <= set(np.unique(y[rows]))
    few, none = stopping_rows(np.random.RandomState(0), np.arange(MIN_STOPPING_ROWS - 1), y, classification=True)
    assert len(none) == 0 and len(few) == MIN_STOPPING_ROWS - 1  # too few rows to spare: none held out


def test_a_class_the_fit_never_sees_is_not_stopped_on():
    y = np.array([0] * 99 + [1])
    rows = np.arange(100)
    for seed in range(20):
        fit, stop = stopping_rows(np.random.RandomState(seed), rows, y, classification=True)
        assert 99 not in stop or 99 in fit


@pytest.mark.parametrize("kind", ["gbdt_es", "gbdt_vector"])
def test_an_early_stopped_member_stops_on_held_out_rows_and_is_reproducible(kind):
    rng = np.random.RandomState(0)
    X = rng.rand(400, 5).astype(np.float32)
    y = (X[:, 0] > 0.5).astype(int) + (X[:, 1] > 0.5)  # three classes, learnt in a few rounds ...
    flipped = rng.rand(len(y)) < 0.15
    y[flipped] = rng.randint(0, 3, flipped.sum())  # ... and noise that later rounds would learn
    block = ForestBlock(("rf", kind), 5, None, 3, "kfold", "resample", 1, "hist")
    oof = block.fit(X, y, _uniform(len(y)), 3, np.random.RandomState(0))
    boosters = [model.estimator for model in block.models_[1]]
    assert all(b.best_iteration < make_gbdt().n_estimators - 1 for b in boosters)  # stopped before the 100th
    again = ForestBlock(("rf", kind), 5, None, 3, "kfold", "resample", 1, "hist")
    np.testing.assert_array_equal(again.fit(X, y, _uniform(len(y)), 3, np.random.RandomState(0)), oof)
    assert (oof[:, 1].argmax(axis=1) == y).mean() > 0.75


def test_an_early_stopped_member_of_few_rows_fits_every_round():
    X, y = _noise(n=60, s=2)
    block = ForestBlock(("rf", "gbdt_es"), 3, None, 3, "kfold", "resample", 1, "hist")
    block.fit(X, y, _uniform(len(y)), 2, np.random.RandomState(0))  # 40 distinct rows a fold: none to spare
    booster = block.models_[1][0].estimator
    assert booster.get_params()["early_stopping_rounds"] is None
    assert booster.get_booster().num_boosted_rounds() == make_gbdt().n_estimators


@pytest.mark.parametrize(
    "forest_types, error, match",
    [
        (("rf", "svm"), ValueError, r"forest_types\[1\]: unknown kind 'svm'"),
        ((), ValueError, "non-empty"),
        ("rf", ValueError, "tuple"),  # scikit-learn's parameter validation
        (("rf", LinearSVC()), TypeError, "LinearSVC has no predict_proba"),
        (("rf", KNeighborsClassifier), TypeError, "is a class; pass an instance"),
        (("rf", 3), TypeError, "no fit method"),
    ],
)
def test_unknown_kinds_and_estimators_without_predict_proba_are_rejected(forest_types, error, match):
    X, y = _noise(n=30, s=2)
    with pytest.raises(error, match=match):
        MDDFClassifier(forest_types=forest_types, n_estimators=2, max_layers=1).fit(X, y)


def test_make_forest_et():
    et = make_forest("et", 3, 5, 0)
    assert et.max_features == "sqrt" and not et.bootstrap and et.max_depth == 5
    with pytest.raises(ValueError, match="make_gbdt"):
        make_forest("gbdt", 3, None, 0)
    assert make_gbdt(7).get_params()["random_state"] == 7


# ---------------------------------------------------------------- D_t, classes, missing values
def test_a_member_without_sample_weight_gets_a_weighted_resample_with_a_warning():
    X, y = _noise(n=120, s=2)
    D = np.random.RandomState(0).dirichlet(np.ones(len(y)))
    block = ForestBlock(("rf", SeenSpy()), 3, None, 3, "kfold", "sample_weight", 1, "hist")
    block.fit(X, y, D, 2, np.random.RandomState(0))  # the spy takes sample_weight: no warning
    block = ForestBlock(("rf", KNeighborsClassifier()), 3, None, 3, "kfold", "sample_weight", 1, "hist")
    with pytest.warns(UserWarning, match="KNeighborsClassifier.fit takes no sample_weight"):
        block.fit(X, y, D, 2, np.random.RandomState(0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a uniform D_t reaches nobody: no warning
        block.fit(X, y, _uniform(len(y)), 2, np.random.RandomState(0))


def test_members_trained_on_a_subset_of_the_classes_fill_the_block_columns():
    X, y = _noise(n=90, s=4)
    keep = y != 1
    for template in ("gbdt", LogisticRegression()):
        model = fit_member(make_gbdt() if template == "gbdt" else template, X[keep], y[keep], 4, random_state=0)
        proba = model.predict_proba(X)
        assert proba.shape == (90, 4) and np.all(proba[:, 1] == 0)
        assert proba.sum(axis=1) == pytest.approx(np.ones(90))
    single = fit_member(LogisticRegression(), X[y == 2], y[y == 2], 4)
    assert isinstance(single, FoldModel) and single.estimator is None
    assert np.array_equal(single.predict_proba(X[:3]), np.tile([0.0, 0.0, 1.0, 0.0], (3, 1)))


def test_nan_reaches_members_that_take_it_and_names_those_that_do_not():
    X, y = _noise(n=120, s=2)
    X[::7, 2] = np.nan
    MDDFClassifier(forest_types=("rf", "gbdt"), n_estimators=3, max_layers=1, random_state=0).fit(X, y).predict(X)
    with pytest.raises(ValueError, match=r"forest_types\[1\]: LogisticRegression does not accept missing values"):
        MDDFClassifier(forest_types=("rf", LogisticRegression()), n_estimators=3, max_layers=1).fit(X, y)
    clean = np.nan_to_num(X)
    clf = MDDFClassifier(forest_types=("rf", LogisticRegression()), n_estimators=3, max_layers=1).fit(clean, y)
    with pytest.raises(ValueError, match="LogisticRegression does not accept missing values"):
        clf.predict(X)


def test_feature_importances_skip_members_without_them():
    X, y = _noise(n=120, s=2)
    mixed = ForestBlock(("rf", KNeighborsClassifier()), 5, None, 3, "kfold", "resample", 1, "hist")
    mixed.fit(X, y, _uniform(len(y)), 2, np.random.RandomState(0))
    forest_only = np.mean([forest.importances / forest.n_trees for forest in mixed.models_[0]], axis=0)
    assert mixed.importances_ == pytest.approx(forest_only)  # the KNN fold models are left out
    knn = ForestBlock((KNeighborsClassifier(),), 5, None, 3, "kfold", "resample", 1, "hist")
    knn.fit(X, y, _uniform(len(y)), 2, np.random.RandomState(0))
    assert np.array_equal(knn.importances_, np.zeros(5))
    gbdt = ForestBlock(("gbdt",), 5, None, 3, "kfold", "resample", 1, "hist")
    gbdt.fit(X, y, _uniform(len(y)), 2, np.random.RandomState(0))
    assert gbdt.importances_.sum() == pytest.approx(1.0)


def test_oob_with_cross_fitted_members_needs_n_folds_rows_per_class():
    X, y = _noise(n=40, s=2)
    y[:2], y[2:] = 1, 0
    MDDFClassifier(class_vectors="oob", forest_types=("rf", "rf", "crf", "crf"), n_estimators=3, max_layers=1).fit(X, y)
    with pytest.raises(ValueError, match="fewer than n_folds"):  # the default's boosted member is cross-fitted
        MDDFClassifier(class_vectors="oob", n_estimators=3, max_layers=1).fit(X, y)
    with pytest.raises(ValueError, match="fewer than n_folds"):
        MDDFClassifier(class_vectors="oob", forest_types=("rf", "gbdt"), n_estimators=3, max_layers=1).fit(X, y)


def test_a_cascade_with_members_pickles():
    X, y = _noise(n=90, s=2)
    clf = MDDFClassifier(
        n_estimators=3, forest_types=("et", "gbdt", LogisticRegression()), max_layers=2, random_state=0
    ).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    assert np.array_equal(again.predict_proba(X), clf.predict_proba(X))


@pytest.mark.parametrize(
    "estimator, expected",
    [
        (LogisticRegression(), False),
        (HistGradientBoostingClassifier(), True),
        (make_pipeline(SimpleImputer(), LogisticRegression()), True),
        (make_pipeline(KNNImputer(), StandardScaler(), LogisticRegression()), True),
        (make_pipeline(StandardScaler(), SimpleImputer(), LogisticRegression()), True),
        (make_pipeline(StandardScaler(), LogisticRegression()), False),  # the scaler passes NaN on
        (make_pipeline(StandardScaler(), HistGradientBoostingClassifier()), True),
        (make_pipeline(LogisticRegression()), False),
        (make_pipeline(make_pipeline(SimpleImputer()), LogisticRegression()), True),
    ],
)
def test_a_pipeline_takes_nan_when_its_steps_do_up_to_an_imputer(estimator, expected):
    # A Pipeline's own allow_nan tag is never set, even when its first step imputes.
    assert accepts_nan(estimator) is expected


def test_fold_model_names_the_member_whose_probabilities_are_unusable():
    X, y = _noise(n=60, s=2)
    model = fit_member(LogisticRegression(), X, y, 3, where="forest_types[2]")
    model.estimator.predict_proba = lambda X: np.ones((len(X), 3))
    with pytest.raises(
        ValueError, match=r"^forest_types\[2\] \(LogisticRegression\): .* shape \(60, 3\); expected \(60, 2\)"
    ):
        model.predict_proba(X)
    model.estimator.predict_proba = lambda X: np.full((len(X), 2), np.inf)
    with pytest.raises(ValueError, match=r"non-finite values \(NaN or infinity\) in 60 of 60 rows"):
        model.predict_proba(X)


def test_fold_model_names_the_member_whose_rows_are_not_probabilities_and_normalises_their_sums():
    X, y = _noise(n=60, s=2)
    model = fit_member(LogisticRegression(), X, y, 2, where="forest_types[2]")
    message = r"^forest_types\[2\] \(LogisticRegression\): predict_proba returned rows that are not probabilities"
    model.estimator.predict_proba = lambda X: np.tile([1.5, -0.5], (len(X), 1))
    with pytest.raises(ValueError, match=message + r".* in 60 of 60 rows \(row 0: sum 1, smallest value -0\.5\)"):
        model.predict_proba(X)
    model.estimator.predict_proba = lambda X: np.zeros((len(X), 2))
    with pytest.raises(ValueError, match=message):
        model.predict_proba(X)
    # rows summing to 7 were passed on, and predict_proba's rows then summed to 7: they are normalised
    model.estimator.predict_proba = lambda X: np.tile([3.5, 7.0], (len(X), 1))
    np.testing.assert_allclose(model.predict_proba(X), np.tile([1 / 3, 2 / 3], (len(X), 1)))
    # float32 rows (XGBoost's, summing to 1 within about 1e-7) are read as float64 and divided by their sums
    rows = np.tile(np.float32([1 / 3, 2 / 3]), (len(X), 1))
    model.estimator.predict_proba = lambda X: rows
    proba = model.predict_proba(X)
    assert proba.dtype == np.float64 and abs(float(rows[0].astype(np.float64).sum()) - 1.0) > 1e-12
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(proba, rows, rtol=1e-6)
    # float64 rows within 1e-12 of 1 are left as they are, to the bit
    rows = np.tile([0.3000000000000002, 0.7], (len(X), 1))
    assert rows[0].sum() != 1.0
    model.estimator.predict_proba = lambda X: rows
    np.testing.assert_array_equal(model.predict_proba(X), rows)


class NoClasses(ClassifierMixin, BaseEstimator):
    """A classifier that sets no ``classes_``."""

    def fit(self, X, y):
        self.n_ = len(np.unique(y))
        return self

    def predict_proba(self, X):
        return np.full((len(X), self.n_), 1.0 / self.n_)


class ScoresAsProba(NoClasses):
    """A classifier whose ``predict_proba`` gives scores, not probabilities."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return super().fit(X, y)

    def predict_proba(self, X):
        return np.full((len(X), self.n_), 3.5)


class LettersAsClasses(NoClasses):
    """A classifier whose ``classes_`` are not the labels it was fitted on."""

    def fit(self, X, y):
        self.classes_ = np.array(list("abcdefgh"[: len(np.unique(y))]))
        return super().fit(X, y)


@pytest.mark.parametrize("slot", ["member", "predictor"])
def test_a_member_or_predictor_without_classes_or_probabilities_is_named(slot):
    X, y = _noise(n=90, s=3)

    def cascade(estimator):
        if slot == "member":
            return MDDFClassifier(forest_types=("rf", estimator), n_estimators=4, max_layers=1, random_state=0)
        return MDDFClassifier(predictor=estimator, n_estimators=4, max_layers=1, random_state=0)

    where = r"forest_types\[1\]" if slot == "member" else "predictor"
    with pytest.raises(ValueError, match=rf"^{where} \(NoClasses\): has no classes_ after fit"):
        cascade(NoClasses()).fit(X, y)
    fitted = cascade(ScoresAsProba()).fit(X, y)  # rows of 3.5: normalised
    np.testing.assert_allclose(fitted.predict_proba(X).sum(axis=1), 1.0)
    message = r"\(LettersAsClasses\): classes_ is \['a', 'b', 'c'\] after a fit on the class indices \[0, 1, 2\]"
    with pytest.raises(ValueError, match=rf"^{where} {message}"):
        cascade(LettersAsClasses()).fit(X, y)
