"""The member protocol (mddf/blocks/member.py): every kind of member is one class behind the methods the block calls.

Every registered kind is a Member whose fit on a fold, prediction, attributions and storage are what the block uses;
a kind written and registered in this test alone fits a cascade end to end (and is unknown once unregistered); the
attributions of every kind go through its Member.
"""

import numpy as np
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression
from xgboost import XGBClassifier

from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.blocks.attribution import block_attributions, model_attributions
from mddf.blocks.boosted_member import BoostedMember
from mddf.blocks.catboost_member import CatBoostMember
from mddf.blocks.classifier import ForestBlock
from mddf.blocks.forest_member import ForestMember
from mddf.blocks.lgbm_member import LightGBMMember
from mddf.blocks.member import (
    Capabilities,
    FitTask,
    Member,
    as_member,
    layer_constraints,
    member_class,
    member_names,
    register_member,
    unregister_member,
)
from mddf.blocks.members import EstimatorMember, fit_member
from mddf.blocks.regressor import RegressionForestBlock
from mddf.forests import make_gbdt
from mddf.storage import ModelStore, StoredModel

BUILT_IN = ("rf", "crf", "et", "gbdt", "gbdt_es", "gbdt_vector", "lgbm", "lgbm_es", "catboost_es")
#: The methods a kind must write: the base class has no default for them.
REQUIRED = ("fit_task", "predict", "attributions")


def _data(n=160, d=5, seed=0, missing=0.05):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d).astype(np.float32)
    X[rng.rand(n, d) < missing] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 1).astype(np.int64) + (np.nan_to_num(X[:, 2]) > 0.8)
    return X, y, np.nan_to_num(X[:, 0]) * 3 + np.nan_to_num(X[:, 3]) + 0.1 * rng.rand(n)


def _classification_block(kinds, missing=0.05, **settings):
    X, y, _ = _data(missing=missing)
    block = ForestBlock(kinds, 6, None, 3, settings.pop("class_vectors", "kfold"), "resample", 1, **settings)
    distribution = np.random.RandomState(1).rand(len(y))
    oof = block.fit(X, y, distribution / distribution.sum(), 3, np.random.RandomState(0))
    return block, X, oof


# ---------------------------------------------------------------- every registered kind satisfies the protocol
def test_the_built_in_kinds_are_registered_by_name_and_estimator_instances_go_to_the_kind_that_claims_them():
    assert member_names() == BUILT_IN
    assert {member_class(name) for name in BUILT_IN} == {ForestMember, BoostedMember, LightGBMMember, CatBoostMember}
    assert member_class(XGBClassifier()) is BoostedMember
    assert member_class(LogisticRegression()) is EstimatorMember
    with pytest.raises(ValueError, match=r"forest_types\[2\]: unknown kind 'catboost'; expected one of"):
        as_member("catboost", position=2)
    with pytest.raises(TypeError, match="is a class; pass an instance"):
        as_member(LogisticRegression)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_registered_kind_is_a_member_that_writes_the_methods_without_a_default(name):
    cls = member_class(name)
    assert issubclass(cls, Member) and name in cls.names and not cls.__abstractmethods__
    for method in REQUIRED:
        assert getattr(cls, method) is not getattr(Member, method), f"{cls.__name__} does not write {method}"
    member = as_member(name, "regression")
    assert isinstance(member.dispatch_rank, int) and member.forest == (name in ("rf", "crf", "et"))


@pytest.mark.parametrize(
    "kind",
    [
        "rf",
        "crf",
        "et",
        "gbdt",
        "gbdt_es",
        "lgbm",
        "lgbm_es",
        "catboost_es",
        RandomForestClassifier(n_estimators=4),
        LogisticRegression(),
    ],
)
def test_a_block_predicts_and_weighs_importances_through_its_members_only(kind):
    """The block's prediction is the mean of its member's ``predict`` over the fold models, its importances the mean
    of the member's ``importances``; the fold models' attributions add up to what the member predicts."""
    block, X, oof = _classification_block((kind,), missing=0.0 if isinstance(kind, LogisticRegression) else 0.05)
    member = block.members()[0]
    codes = block.models_[0][0].binner.transform(X) if member.forest else None
    outputs = [member.predict(model, X, codes, True) for model in block.models_[0]]
    assert oof.shape == (len(X), 1, 3) and np.allclose(oof.sum(axis=2), 1)
    assert np.array_equal(block.predict_proba(X)[:, 0], sum(outputs) / len(outputs))
    importances = [member.importances(model, X.shape[1]) for model in block.models_[0]]
    expected = np.mean(importances, axis=0) if importances[0] is not None else np.zeros(X.shape[1])
    assert np.array_equal(block.importances_, expected)
    if isinstance(kind, LogisticRegression):
        with pytest.raises(ValueError, match=r"forest_types\[0\] \(LogisticRegression\)"):
            member.check_explainable(block.models_[0][0], "forest_types[0]")
        return
    for model, output in zip(block.models_[0], outputs):
        base, values = member.attributions(model, X, codes, True, False, 3)
        assert np.abs(base + values.sum(axis=1) - output).max() < 1e-6


def test_a_member_writes_its_fold_models_to_a_store_and_reads_them_back(tmp_path):
    X, y, target = _data(missing=0.0)  # LinearRegression takes no NaN
    store = ModelStore.claim(str(tmp_path / "models"))
    block = RegressionForestBlock(("rf", "gbdt", LinearRegression()), 4, None, 1.0, 2, 1, store=store, name="l1")
    block.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    in_memory = RegressionForestBlock(("rf", "gbdt", LinearRegression()), 4, None, 1.0, 2, 1)
    in_memory.fit(X, target, np.ones(len(y)), np.random.RandomState(0))
    for member, handles, models in zip(block.members(), block.models_, in_memory.models_):
        for handle, model in zip(handles, models):
            assert isinstance(handle, StoredModel)
            loaded = member.load(handle.record, store.path)
            assert type(loaded) is type(model)
    assert np.array_equal(block.predict(X), in_memory.predict(X))


def test_a_kind_that_leaves_out_a_method_of_the_protocol_is_refused_at_registration():
    class NoPredict(Member):
        names = ("half",)

        def fit_task(self, fold, layer, position):
            return FitTask(fit_prior, ())

        def attributions(self, model, X, codes, has_missing, fast, width):
            return np.zeros(width), np.zeros((len(X), X.shape[1], width))

    with pytest.raises(TypeError, match="NoPredict does not define predict of the member protocol"):
        register_member(NoPredict)
    assert "half" not in member_names()


# ------------------------------------------------------------------ a kind registered in this test alone
class Prior:
    """The fitted model of :class:`PriorMember`: the class shares (or the mean target) of its training rows."""

    def __init__(self, output):
        self.output = output
        self.n_classes = None if output.ndim == 0 else len(output)

    @property
    def nbytes(self):
        return self.output.nbytes

    @property
    def importances(self):
        return None


def fit_prior(y, rows, weight, predict_rows, n_classes):
    """The fit of :class:`PriorMember` on ``rows``, and its output of ``predict_rows``."""
    w = None if weight is None else weight[rows]
    if n_classes is None:
        model = Prior(np.asarray(np.average(y[rows], weights=w)))
        return model, np.full(len(predict_rows), float(model.output))
    shares = np.bincount(y[rows], weights=w, minlength=n_classes).astype(np.float64)
    model = Prior(shares / shares.sum())
    return model, np.tile(model.output, (len(predict_rows), 1))


class PriorMember(Member):
    """A kind of member written here alone: whatever the row, the class shares (or the mean) of its training rows."""

    names = ("prior",)

    def capabilities(self):
        """The same output for every row: it can be neither more nor less monotone, and it has nothing to
        attribute."""
        return Capabilities(monotone=True, attributions=True)

    def fit_task(self, fold, layer, position):
        return FitTask(fit_prior, (layer.y, fold.fit_rows, fold.weight, fold.test, layer.n_classes))

    def predict(self, model, X, codes, has_missing):
        if model.n_classes is None:
            return np.full(len(X), float(model.output))
        return np.tile(model.output, (len(X), 1))

    def attributions(self, model, X, codes, has_missing, fast, width):
        """Its output is the same for every row: all base, nothing to attribute."""
        return np.reshape(model.output, width), np.zeros((len(X), X.shape[1], width))


@pytest.fixture
def prior_kind():
    register_member(PriorMember)
    yield PriorMember
    unregister_member(PriorMember)


def test_a_kind_registered_in_a_test_fits_predicts_and_explains_a_cascade(prior_kind):
    X, y, _ = _data(n=240)
    params = dict(n_estimators=6, max_layers=2, n_tolerant_layers=2, min_error_reduction=0.0, random_state=0, n_jobs=1)
    clf = MDDFClassifier(forest_types=("rf", "prior"), **params).fit(X, y)
    layer = clf.layers_[0]
    assert [type(model) for model in layer.models_[1]] == [Prior] * len(layer.models_[1])
    shares = np.bincount(y) / len(y)
    assert all(np.abs(model.output - shares).max() < 0.1 for model in layer.models_[1])  # a fold's class shares
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 3) and np.allclose(proba.sum(axis=1), 1)
    explanation = clf.explain(X[:20])
    found = explanation.base_values + explanation.values.sum(axis=1)
    assert np.abs(found - proba[:20]).max() < 1e-6
    unregister_member(PriorMember)
    with pytest.raises(ValueError, match="unknown kind 'prior'"):
        MDDFClassifier(forest_types=("rf", "prior"), **params).fit(X, y)


def test_a_kind_registered_in_a_test_serves_the_regressor_and_a_model_dir(prior_kind, tmp_path):
    X, _, target = _data(n=200)
    params = dict(n_estimators=6, max_layers=2, random_state=0, n_jobs=1)
    in_memory = CascadeForestRegressor(forest_types=("rf", "prior"), **params).fit(X, target)
    stored = CascadeForestRegressor(forest_types=("rf", "prior"), model_dir=str(tmp_path / "m"), **params)
    stored.fit(X, target)
    assert isinstance(stored.layers_[0].models_[1][0], StoredModel)
    assert np.array_equal(stored.predict(X), in_memory.predict(X))
    explanation = in_memory.explain(X[:10])
    assert np.abs(explanation.base_values + explanation.values.sum(axis=1) - in_memory.predict(X[:10])).max() < 1e-6


# ------------------------------------------------------------ the attributions of each kind go through its Member
def test_the_attributions_of_every_kind_go_through_its_member(monkeypatch, prior_kind):
    calls = []
    for cls in (ForestMember, BoostedMember, EstimatorMember, PriorMember):
        original = cls.attributions

        def spy(self, model, *args, original=original, cls=cls):
            calls.append((cls, self.kind, id(model)))
            return original(self, model, *args)

        monkeypatch.setattr(cls, "attributions", spy)
    kinds = ("rf", "gbdt", RandomForestClassifier(n_estimators=4), "prior")
    block, X, _ = _classification_block(kinds)
    base, values = block_attributions(block, X)
    expected = [
        (type(m), kind, id(model)) for m, kind, models in zip(block.members(), kinds, block.models_) for model in models
    ]
    assert sorted(calls, key=str) == sorted(expected, key=str)
    assert np.abs(base[None] + values.sum(axis=2) - block.predict_proba(X)).max() < 1e-6
    calls.clear()
    predictor = fit_member(make_gbdt(random_state=0), X, _data()[1], 3, where="predictor")  # the cascade's predictor
    model_attributions(predictor, X, None, True, False, 3)
    assert calls == [(BoostedMember, predictor.estimator, id(predictor))]


def test_a_kind_declares_what_it_can_do_and_the_cascades_checks_read_the_declaration(prior_kind):
    X, _, target = _data(n=120)
    params = dict(n_estimators=4, max_layers=1, random_state=0, n_jobs=1)
    monotone = CascadeForestRegressor(forest_types=("rf", "prior"), monotonic_cst=[1, 0, 0, 0, 0], **params)
    assert monotone.fit(X, target).predict(X).shape == (len(X),)  # declared monotone: accepted by the check

    class Undeclared(PriorMember):
        names = ("prior_undeclared",)

        def capabilities(self):
            return Capabilities()

    register_member(Undeclared)
    try:
        with pytest.raises(
            ValueError,
            match=r"monotonic_cst is honoured by the members \(.*'prior'\) only, not "
            "'prior_undeclared'",
        ):
            monotone.set_params(forest_types=("rf", "prior_undeclared")).fit(X, target)
        with pytest.raises(ValueError, match=r"forest_types\[1\] \('prior_undeclared'\) does not fit several targets"):
            CascadeForestRegressor(forest_types=("rf", "prior_undeclared"), **params).fit(X, np.c_[target, target])
    finally:
        unregister_member(Undeclared)


@pytest.mark.parametrize(
    "kind, declared",
    [
        ("rf", dict(categories=True, several_targets=True, monotone=True, attributions=True)),
        ("gbdt", dict(categories=True, several_targets=True, monotone=True, attributions=True)),
        ("gbdt_es", dict(categories=True, several_targets=True, monotone=True, attributions=True, early_stopping=True)),
        ("gbdt_vector", dict(categories=True, several_targets=True, early_stopping=True)),
        ("lgbm_es", dict(categories=True, several_targets=True, monotone=True, attributions=True, early_stopping=True)),
        ("catboost_es", dict(categories=True, several_targets=True, attributions=True, early_stopping=True)),
        (LogisticRegression(), dict(missing_values=False)),
        (RandomForestClassifier(), dict(missing_values=True, attributions=True)),
    ],
)
def test_the_built_in_kinds_declare_their_capabilities(kind, declared):
    assert as_member(kind).capabilities() == Capabilities(**declared)


def test_layer_constraints_append_the_pattern_of_the_passed_outputs():
    assert layer_constraints(None, 7, (1,)) is None
    assert layer_constraints(np.array([1, 0, -1]), 5, (1,)) == (1, 0, -1, 1, 1)
    assert layer_constraints(np.array([1, 0, -1]), 7, (-1, 1)) == (1, 0, -1, -1, 1, -1, 1)
    with pytest.raises(ValueError, match="does not begin with the 3 constrained"):
        layer_constraints(np.array([1, 0, -1]), 4, (-1, 1))
