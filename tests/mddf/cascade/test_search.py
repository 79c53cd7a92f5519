"""MDDFGridSearch: the paper's grids chosen on training data, with the first layer shared."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier

from mddf import MDDFClassifier, MDDFGridSearch
from mddf.blocks.classifier import ForestBlock
from mddf.cascade.search import PAPER_PARAM_GRID


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    rows = np.random.RandomState(0).permutation(len(y))[:600]
    return X[rows], y[rows]


def small_cascade(**params):
    # the paper's four forests: what the search shares does not depend on the members, and a boosted member (the
    # default's) costs its 100 rounds a fold whatever n_estimators says
    return MDDFClassifier(
        n_estimators=6, max_layers=4, n_folds=2, random_state=3, forest_types=("rf", "rf", "crf", "crf"), **params
    )


GRID = {"margin_mean": [0.7, 0.95], "margin_tradeoff": [0.01, 0.1], "max_depth_factor": [2, 16]}


def monitored_accuracy(cascade):
    key = "val_accuracy" if cascade.validation_fraction else "oof_accuracy"
    return cascade.train_history_[cascade.n_layers_ - 1][key]


def test_default_grid_is_the_papers_section_5_2_sets():
    assert PAPER_PARAM_GRID == {
        "margin_mean": (0.7, 0.75, 0.8, 0.85, 0.9, 0.95),
        "margin_tradeoff": (0.01, 0.05, 0.1),
        "max_depth_factor": (2, 4, 8, 16),
    }


@pytest.mark.parametrize(
    "extra, weighted",
    [({}, False), ({"validation_fraction": 0.3}, False), ({"weighting": "sample_weight"}, True)],
    ids=["out-of-fold", "validation", "sample-weight"],
)
@pytest.mark.slow
def test_every_candidate_equals_its_stand_alone_fit(digits, extra, weighted):
    X, y = digits
    weight = np.random.RandomState(1).randint(0, 3, len(y)).astype(float) if weighted else None
    base = small_cascade(**extra)
    search = MDDFGridSearch(estimator=base, param_grid=GRID, halving_layers=()).fit(X, y, sample_weight=weight)
    results = search.cv_results_
    for i, params in enumerate(results["params"]):
        alone = clone(base).set_params(**params).fit(X, y, sample_weight=weight)
        assert results["n_layers_grown"][i] == len(alone.train_history_)
        assert results["n_layers_kept"][i] == alone.n_layers_
        assert results["score"][i] == monitored_accuracy(alone)
        if i == search.best_index_:
            assert np.array_equal(search.predict_proba(X), alone.predict_proba(X))
            assert search.best_params_ == params
    assert search.best_score_ == max(results["score"])
    assert results["rank"][search.best_index_] == 1


def test_candidates_with_the_same_first_layer_share_it(digits, monkeypatch):
    X, y = digits
    fits = []
    original = ForestBlock.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.max_depth)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ForestBlock, "fit", counting_fit)
    search = MDDFGridSearch(estimator=small_cascade(), param_grid=GRID, halving_layers=()).fit(X, y)
    # two depth factors: layer 1 (depth 2 * factor) is fitted once per factor, not once per candidate
    assert fits.count(2 * 2) == 1 and fits.count(16 * 2) == 1
    assert len(fits) == search.n_layer_fits_ == 2 + sum(n - 1 for n in search.cv_results_["n_layers_grown"])


def test_a_grid_of_screening_targets_shares_the_first_layer_and_matches_stand_alone_fits(digits):
    X, y = digits
    base = small_cascade()
    grid = {"screening_accuracy": [None, 0.99]}
    search = MDDFGridSearch(estimator=base, param_grid=grid, halving_layers=()).fit(X, y)
    results = search.cv_results_
    assert search.n_layer_fits_ == 1 + sum(n - 1 for n in results["n_layers_grown"])
    for i, params in enumerate(results["params"]):
        alone = clone(base).set_params(**params).fit(X, y)
        assert results["n_layers_grown"][i] == len(alone.train_history_)
        assert results["score"][i] == monitored_accuracy(alone)
        if i == search.best_index_:
            assert np.array_equal(search.predict_proba(X), alone.predict_proba(X))


@pytest.mark.slow
def test_halving_keeps_the_best_candidates_of_each_depth_factor(digits):
    X, y = digits
    base = small_cascade(n_tolerant_layers=4)
    search = MDDFGridSearch(estimator=base, param_grid=GRID, halving_layers=(2,), halving_factor=2).fit(X, y)
    results = search.cv_results_
    # accuracy of every candidate's best prefix among its first two layers, grown alone
    at_two = [monitored_accuracy(clone(base).set_params(max_layers=2, **p).fit(X, y)) for p in results["params"]]
    for factor in GRID["max_depth_factor"]:
        group = [i for i, p in enumerate(results["params"]) if p["max_depth_factor"] == factor]
        kept = [i for i in group if results["pruned_at_layer"][i] == 0]
        pruned = [i for i in group if results["pruned_at_layer"][i] == 2]
        assert len(kept) == 2 and len(pruned) == 2
        assert min(at_two[i] for i in kept) >= max(at_two[i] for i in pruned)
        assert all(results["n_layers_grown"][i] == 2 for i in pruned)
        assert all(results["n_layers_grown"][i] > 2 for i in kept)
    assert results["pruned_at_layer"][search.best_index_] == 0
    assert search.n_layer_fits_ == 2 + sum(n - 1 for n in results["n_layers_grown"])


def test_a_predictor_is_fitted_once_for_the_selected_cascade_and_serves_its_predictions(digits, monkeypatch):
    X, y = digits
    fits = []
    original = RandomForestClassifier.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RandomForestClassifier, "fit", counting_fit)
    base = small_cascade(predictor=RandomForestClassifier(n_estimators=10, random_state=0))
    grid = {"margin_mean": [0.7, 0.9], "margin_tradeoff": [0.01, 0.1]}
    search = MDDFGridSearch(estimator=base, param_grid=grid).fit(X, y)
    assert len(fits) == 1 and fits[0] is search.best_estimator_.predictor_  # selection by the cascade alone
    alone = clone(base).set_params(**search.best_params_).fit(X, y)
    assert search.best_score_ == monitored_accuracy(alone)
    assert np.array_equal(search.predict_proba(X), alone.predict_proba(X))


@pytest.mark.slow
def test_the_selected_cascade_chooses_what_predicts_as_a_fit_alone_would(digits):
    X, y = digits
    # predictor_input="auto" reads the kept prefix's out-of-fold outputs, which the search's growth records too.
    base = small_cascade(predictor=RandomForestClassifier(n_estimators=10, random_state=0), predictor_input="auto")
    grid = {"margin_mean": [0.7, 0.9]}
    search = MDDFGridSearch(estimator=base, param_grid=grid).fit(X, y)
    best = search.best_estimator_
    alone = clone(base).set_params(**search.best_params_).fit(X, y)
    assert best.predictor_input_scores_ == alone.predictor_input_scores_
    assert (best.predictor_input_, best.predictor_weight_) == (alone.predictor_input_, alone.predictor_weight_)
    assert np.array_equal(search.predict_proba(X), alone.predict_proba(X))


def test_selected_cascade_serves_predictions_and_features(digits):
    X, y = digits
    search = MDDFGridSearch(estimator=small_cascade(), param_grid={"margin_mean": [0.7, 0.9]}).fit(X, y)
    best = search.best_estimator_
    assert search.n_layers_ == best.n_layers_
    assert np.array_equal(search.predict(X), best.predict(X))
    assert np.array_equal(search.transform(X, layer=1), best.transform(X, layer=1))
    staged = list(search.staged_predict_proba(X))
    assert len(staged) == best.n_layers_
    assert np.array_equal(staged[-1], list(best.staged_predict_proba(X))[-1])
    assert np.array_equal(search.predict_proba(X), best.predict_proba(X))
    oof = clone(search).fit_transform(X, y)
    assert np.array_equal(oof, best.oof_features_[-1])
    again = pickle.loads(pickle.dumps(search))
    assert np.array_equal(again.predict_proba(X), search.predict_proba(X))


@pytest.mark.parametrize(
    "search, message",
    [
        (
            MDDFGridSearch(estimator=small_cascade(), param_grid={"margin_mean": [0.8], "gamma": [1]}),
            "does not have: \\['gamma'\\]",
        ),
        (MDDFGridSearch(estimator=small_cascade(), param_grid={"margin_mean": []}), "at least one candidate value"),
        (
            MDDFGridSearch(estimator=RandomForestClassifier(), param_grid={"max_depth": [2]}),
            "must be an MDDFClassifier",
        ),
        (MDDFGridSearch(estimator=small_cascade(), param_grid={"margin_mean": [1.5]}), "margin_mean"),
    ],
    ids=["unknown-parameter", "empty-values", "not-mddf", "invalid-value"],
)
def test_bad_grids_are_named(digits, search, message):
    X, y = digits
    with pytest.raises((ValueError, TypeError), match=message):
        search.fit(X, y)


def test_candidates_that_share_a_first_layer_share_its_pair_search(monkeypatch):
    from sklearn.datasets import make_classification

    from mddf import MDDFClassifier, MDDFGridSearch, PairFeatures

    searches = []
    fit_task = PairFeatures.fit_task
    monkeypatch.setattr(PairFeatures, "fit_task", lambda self, *a, **k: searches.append(1) or fit_task(self, *a, **k))
    X, y = make_classification(120, 5, random_state=0)
    base = MDDFClassifier(n_estimators=3, max_layers=2, pair_features="auto", random_state=0)
    grid = {"margin_mean": [0.7, 0.8, 0.9], "max_depth_factor": [2, 16]}
    search = MDDFGridSearch(estimator=base, param_grid=grid, halving_layers=()).fit(X, y)
    assert len(searches) == 2  # one search a group (a depth factor), not one a candidate
    alone = MDDFClassifier(**{**base.get_params(), **search.best_params_}).fit(X, y)
    np.testing.assert_array_equal(search.predict_proba(X), alone.predict_proba(X))
