"""The forest block (Algorithm 1): out-of-fold class vectors and fold-averaged prediction."""

import warnings

import numpy as np
import pytest

from mddf.blocks.classifier import ForestBlock
from mddf.forests import make_forest


def _noise(n=300, d=5, s=3, seed=0):
    # unique random points with random labels: a model that saw a row memorises
    # its label, a model that did not can only guess
    rng = np.random.RandomState(seed)
    return rng.rand(n, d).astype(np.float32), rng.randint(0, s, n)


TREE_METHODS = pytest.mark.parametrize("tree_method", ["hist", "exact"])


@TREE_METHODS
@pytest.mark.parametrize("class_vectors", ["kfold", "oob"])
def test_training_vectors_never_come_from_a_model_that_saw_the_row(class_vectors, tree_method):
    X, y = _noise()
    block = ForestBlock(("rf", "crf"), 30, None, 3, class_vectors, "resample", 1, tree_method)
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 3, np.random.RandomState(0))
    oof_true = oof.mean(axis=1)[np.arange(len(y)), y].mean()
    seen_true = block.predict_proba(X).mean(axis=1)[np.arange(len(y)), y].mean()
    # leaked vectors would put ~2/3 (k-fold) or ~1 on the true class; honest ones ~1/3
    assert oof_true < 0.42
    assert seen_true > 0.6


@TREE_METHODS
def test_kfold_vectors_are_the_held_out_fold_models_predictions(tree_method):
    X, y = _noise(n=120, s=2)
    rng = np.random.RandomState(1)
    block = ForestBlock(("rf",), 10, None, 3, "kfold", "resample", 1, tree_method)
    oof = block.fit(X, y, np.full(len(y), 1 / len(y)), 2, rng)
    # every row's vector equals the prediction of exactly one fold's model
    per_fold = np.stack([fold[0].predict_proba(X) for fold in block.forests_])
    matches = np.isclose(per_fold, oof[None, :, 0, :]).all(axis=2)
    assert np.all(matches.sum(axis=0) >= 1)
    # and new rows get the mean of the fold models
    assert block.predict_proba(X)[:, 0] == pytest.approx(per_fold.mean(axis=0))


@TREE_METHODS
def test_shapes_and_probabilities(tree_method):
    X, y = _noise(n=90, s=3)
    block = ForestBlock(("rf", "rf", "crf", "crf"), 5, 4, 3, "kfold", "sample_weight", 2, tree_method)
    D = np.random.RandomState(0).dirichlet(np.ones(len(y)))
    oof = block.fit(X, y, D, 3, np.random.RandomState(0))
    assert oof.shape == (90, 4, 3)
    assert oof.sum(axis=2) == pytest.approx(np.ones((90, 4)))
    assert len(block.forests_) == 3 and all(len(f) == 4 for f in block.forests_)
    assert block.predict_proba(X[:7]).shape == (7, 4, 3)
    assert block.nbytes > 0


def test_forest_kinds_and_depth_limit():
    rf = make_forest("rf", 3, 5, 0)
    crf = make_forest("crf", 3, None, 0)
    assert rf.max_features == "sqrt" and rf.max_depth == 5
    assert crf.max_features == 1 and not crf.bootstrap
    with pytest.raises(ValueError, match="unknown forest type 'gbdt'"):
        make_forest("gbdt", 3, None, 0)


@TREE_METHODS
def test_out_of_bag_membership_does_not_depend_on_label_dependent_weights(tree_method):
    # D_t is large for misclassified rows, so it depends on the labels. If the
    # bootstrap drew rows in proportion to D_t (scikit-learn's forests do since 1.8),
    # heavy rows would be out of bag for a handful of trees and light rows would be
    # predicted by trees built almost only from heavy rows: how peaked a row's
    # vector is would reveal its weight, hence its label (measured with
    # RandomForestClassifier(oob_score=True): mean max-probability 0.82 for heavy
    # rows against 0.99 for light ones). With a uniform bootstrap both are alike.
    X, y = _noise(n=600, s=3, seed=1)
    D = np.where(y == 1, 1000.0, 1.0)
    D /= D.sum()
    block = ForestBlock(("rf", "crf"), 40, None, 3, "oob", "sample_weight", 1, tree_method)
    peak = block.fit(X, y, D, 3, np.random.RandomState(0)).max(axis=2).mean(axis=1)
    heavy = y == 1
    assert abs(peak[heavy].mean() - peak[~heavy].mean()) < 0.1


@TREE_METHODS
def test_depth_limit_reaches_every_tree(tree_method):
    X, y = _noise(n=200, s=3)
    block = ForestBlock(("rf", "crf"), 6, 3, 3, "kfold", "resample", 1, tree_method)
    block.fit(X, y, np.full(len(y), 1 / len(y)), 3, np.random.RandomState(0))
    depths = np.concatenate([forest.depths for fold in block.forests_ for forest in fold])
    assert depths.max() == 3


def test_hist_trees_predict_like_exact_trees_on_data_with_few_distinct_values():
    # every feature has < 256 distinct values, so bins lose nothing; both builders see the
    # same rows (same seeds and draws), so their class vectors agree up to the forests' randomness
    rng = np.random.RandomState(0)
    X = rng.randint(0, 20, size=(600, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 19).astype(int) + (X[:, 2] > 12)
    D = np.full(len(y), 1 / len(y))
    accuracy = {}
    for method in ("hist", "exact"):
        block = ForestBlock(("rf", "crf"), 30, None, 3, "kfold", "resample", 1, method)
        oof = block.fit(X, y, D, 3, np.random.RandomState(0)).mean(axis=1)
        accuracy[method] = np.mean(oof.argmax(axis=1) == y)
    assert accuracy["hist"] > 0.9
    assert abs(accuracy["hist"] - accuracy["exact"]) < 0.03


@pytest.mark.parametrize(
    "weighting, tree_method, message",
    [("resample", "approx", "unknown tree_method 'approx'"), ("boost", "hist", "unknown weighting 'boost'")],
)
def test_unknown_options_are_named(weighting, tree_method, message):
    X, y = _noise(n=60, s=2)
    block = ForestBlock(("rf",), 2, None, 3, "kfold", weighting, 1, tree_method)
    with pytest.raises(ValueError, match=message):
        block.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0))


@TREE_METHODS
def test_resampling_draws_a_resample_per_tree_so_a_fold_forest_sees_all_its_rows(tree_method):
    # noise rows: a forest memorises the label of a row that some of its trees drew.
    # weighting="resample" gives every tree its own weighted resample of the fold's rows,
    # so the fold's forest has seen almost every row; "resample_fold" draws one
    # resample per fold, which leaves out about e^-1 of the rows for every tree.
    X, y = _noise(n=300, s=3, seed=2)
    D = np.random.RandomState(0).uniform(0.5, 1.5, len(y))
    D /= D.sum()
    unseen = {}
    for weighting in ("resample", "resample_fold"):
        block = ForestBlock(("crf",), 40, None, 3, "kfold", weighting, 1, tree_method)
        block.fit(X, y, D, 3, np.random.RandomState(0))
        proba = np.stack([fold[0].predict_proba(X) for fold in block.forests_])  # (folds, n, s)
        true = proba[:, np.arange(len(y)), y]
        # rows a fold model never saw get a guess, below 1/2 on their own label ~88% of the time
        unseen[weighting] = np.mean(true < 0.5)
    assert unseen["resample"] < 0.35  # the held-out third: 0.88 / 3 = 0.29
    assert unseen["resample_fold"] > 0.42  # and e^-1 of the other two thirds: 0.88 * (1 + 2 / e) / 3 = 0.51


@TREE_METHODS
@pytest.mark.parametrize("weighting", ["resample", "resample_fold", "sample_weight"])
def test_rows_without_weight_never_reach_the_forests(weighting, tree_method):
    X, y = _noise(n=240, s=3, seed=3)
    D = np.where(y == 2, 0.0, 1.0)
    D /= D.sum()
    block = ForestBlock(("rf", "crf"), 10, None, 3, "kfold", weighting, 1, tree_method)
    oof = block.fit(X, y, D, 3, np.random.RandomState(0))
    assert np.all(oof[:, :, 2] == 0)  # no tree ever saw class 2
    assert np.all(block.predict_proba(X)[:, :, 2] == 0)


def test_a_layer_reuses_the_codes_of_x_and_predicts_as_if_it_binned_every_column():
    from mddf.forests import BinnedInput, PrefixCodes

    rng = np.random.RandomState(3)
    x = rng.standard_normal((400, 4)).astype(np.float32)
    x[rng.rand(*x.shape) < 0.05] = np.nan
    y = (np.nan_to_num(x[:, 0]) > 0).astype(np.int64)
    passed = rng.rand(400, 2).astype(np.float32)
    X = np.hstack([x, passed])
    block = ForestBlock(("rf", "crf"), 8, None, 2, "kfold", "sample_weight", 1, "hist")
    block.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0), prefix=BinnedInput(x))
    fresh = np.hstack([x[:50] * 1.5, rng.rand(50, 2).astype(np.float32)])
    prefix = PrefixCodes(fresh[:, :4])
    first = block.predict_proba(fresh, prefix)
    assert np.array_equal(first, block.predict_proba(fresh))
    assert np.array_equal(block.predict_proba(fresh, prefix), first)  # the second layer asking reuses the codes

    other = ForestBlock(("rf",), 8, None, 2, "kfold", "sample_weight", 1, "hist")
    other.fit(X * 2, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0))  # edges of its own for x
    assert np.array_equal(other.predict_proba(fresh, prefix), other.predict_proba(fresh))


def test_the_longest_fits_are_dispatched_first_and_the_outputs_do_not_depend_on_the_order(monkeypatch):
    from sklearn.linear_model import LogisticRegression

    import mddf.blocks.base as block_base

    assert block_base.dispatch_rank("gbdt") == block_base.dispatch_rank(LogisticRegression())
    assert block_base.dispatch_rank("gbdt") < block_base.dispatch_rank("rf") < block_base.dispatch_rank("crf")
    X, y = _noise(n=120, s=2)
    D = np.full(len(y), 1 / len(y))
    dispatched = []

    class Recording(block_base.Parallel):
        def __call__(self, tasks):
            tasks = list(tasks)
            dispatched.append([task[0].__name__ for task in tasks])
            return super().__call__(tasks)

    monkeypatch.setattr(block_base, "Parallel", Recording)
    block = ForestBlock(("crf", "rf", "gbdt"), 6, None, 3, "kfold", "resample", 2)
    longest_first = block.fit(X, y, D, 2, np.random.RandomState(0))
    assert dispatched[0] == ["fit_fold_member"] * 3 + ["fit_forest"] * 6
    monkeypatch.setattr(block_base, "dispatch_rank", lambda kind: 0)  # the tasks in the folds' order
    in_order = ForestBlock(("crf", "rf", "gbdt"), 6, None, 3, "kfold", "resample", 2)
    assert np.array_equal(in_order.fit(X, y, D, 2, np.random.RandomState(0)), longest_first)
    assert dispatched[1][:3] == ["fit_forest", "fit_forest", "fit_fold_member"]
    assert np.array_equal(in_order.predict_proba(X), block.predict_proba(X))


class _RecordedFolds(ForestBlock):
    """A block that keeps the folds it drew."""

    def _folds(self, rng, y, trainable):
        self.drawn = list(super()._folds(rng, y, trainable))
        return iter(self.drawn)


@pytest.mark.parametrize(
    "class_vectors, weighting",
    [("kfold", "resample"), ("kfold", "sample_weight"), ("kfold", "resample_fold"), ("oob", "sample_weight")],
)
def test_a_fold_on_whose_training_rows_the_distribution_is_zero_fits_them_uniformly(class_vectors, weighting):
    X, y = _noise(n=90, s=2, seed=4)
    settings = (("rf", "gbdt"), 5, None, 3, class_vectors, weighting, 1, "hist")
    uniform = _RecordedFolds(*settings)
    uniform.fit(X, y, np.full(len(y), 1 / len(y)), 2, np.random.RandomState(0))
    # D_t on the first fold's held-out rows only: none on that fold's training rows (the folds are drawn alike)
    D = np.zeros(len(y))
    D[uniform.drawn[0].test] = 1 / len(uniform.drawn[0].test)
    block = _RecordedFolds(*settings)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division by a zero sum
        oof = block.fit(X, y, D, 2, np.random.RandomState(0))
    assert [f.test.tolist() for f in block.drawn] == [f.test.tolist() for f in uniform.drawn]
    assert np.all(np.isfinite(oof))
    assert np.allclose(oof.sum(axis=2), 1.0)
    held_out = uniform.drawn[0].test
    assert len(np.unique(oof[held_out, 0].argmax(axis=1))) == 2  # its models saw both classes
