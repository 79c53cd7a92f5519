"""Layer probes: the verdict's arithmetic and what a cascade fitted with probes keeps."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_friedman1

import mddf.cascade.probing as probing
from mddf import CascadeForestRegressor, MDDFClassifier
from mddf.cascade.growth import CascadeGrowth
from mddf.cascade.probing import PROBE_Z, ProbeVerdict, judge_probe, probe_size
from mddf.utils._stopping import ACCURACY, NEGATIVE_MSE, EarlyStopping


# ---------------------------------------------------------------- the verdict
def test_probe_size_is_a_share_of_the_trees_below_all_of_them():
    assert probe_size(0.25, 100) == 25
    assert probe_size(0.01, 100) == probing.MIN_PROBE_TREES
    assert probe_size(0.9, 4) is None  # as many trees as the forests: nothing to save
    assert probe_size(None, 100) is None


def test_the_prediction_extrapolates_the_gain_from_half_the_trees():
    first = np.array([True] * 70 + [False] * 30)
    rows = np.array([True] * 74 + [False] * 26)  # 4 rows more right with m trees than with m / 2
    verdict = judge_probe(first, rows, ACCURACY, None, trees=25, n_estimators=100, needed=0.8)
    f = 0.75
    assert verdict.score == pytest.approx(0.74)
    assert verdict.predicted == pytest.approx(0.74 + f * 0.04)
    assert verdict.spread == pytest.approx(np.sqrt(f * (1 + f) * 4 / 100**2))
    assert verdict.upper == pytest.approx(verdict.predicted + PROBE_Z * verdict.spread)
    assert verdict.may_be_kept is (verdict.upper > 0.8)


def test_weights_count_in_the_scores_and_the_spread():
    first = np.array([True, False, False, True])
    rows = np.array([True, True, False, True])
    weight = np.array([1.0, 3.0, 1.0, 1.0])
    verdict = judge_probe(first, rows, ACCURACY, weight, trees=10, n_estimators=20, needed=1.0)
    assert verdict.score == pytest.approx(5 / 6)
    assert verdict.spread == pytest.approx(np.sqrt(0.5 * 1.5 * 9 / 36))


def test_a_layer_that_can_only_tie_is_not_kept():
    same = np.array([True, False, True])
    verdict = judge_probe(same, same, ACCURACY, None, trees=10, n_estimators=20, needed=2 / 3)
    assert verdict.spread == 0 and not verdict.may_be_kept
    assert verdict.record()["probe_needed"] == pytest.approx(2 / 3)


def test_regression_verdicts_read_squared_errors():
    first, rows = np.array([4.0, 1.0]), np.array([2.0, 1.0])
    verdict = judge_probe(first, rows, NEGATIVE_MSE, None, trees=10, n_estimators=20, needed=-1.0)
    assert verdict.score == pytest.approx(-1.5)
    assert verdict.predicted == pytest.approx(-1.5 + 0.5 * 1.0)
    assert isinstance(verdict, ProbeVerdict) and verdict.may_be_kept


def test_the_score_a_layer_must_exceed():
    stopping = EarlyStopping(2, min_error_reduction=0.1)
    assert stopping.lowest_winning_score() == -np.inf
    stopping.update(np.array([True] * 8 + [False] * 2))  # 0.8: the best
    # to improve, the error must fall below 0.2 * 0.9: accuracy above 0.82; to be kept, above 0.8
    assert stopping.lowest_winning_score() == pytest.approx(0.8)
    mse = EarlyStopping(2, measure=NEGATIVE_MSE, tol=0.5)
    mse.update(np.array([2.0, 2.0]))
    assert mse.lowest_winning_score() == pytest.approx(-2.0)


# ---------------------------------------------------------------- the cascades
@pytest.fixture(scope="module")
def noisy():
    return make_classification(400, 10, n_informative=4, n_classes=3, flip_y=0.15, random_state=0)


SMALL = dict(n_estimators=12, n_folds=2, max_layers=6, random_state=0)


def test_layers_that_may_be_kept_are_grown_in_full_and_the_fit_is_the_one_without_probes(noisy, monkeypatch):
    X, y = noisy
    at_once = MDDFClassifier(**SMALL).fit(X, y)
    monkeypatch.setattr(ProbeVerdict, "may_be_kept", True)  # every probe may be kept
    probed = MDDFClassifier(**SMALL, probe_trees=0.5).fit(X, y)
    assert np.array_equal(probed.predict_proba(X), at_once.predict_proba(X))
    assert [h["oof_accuracy"] for h in probed.train_history_] == [h["oof_accuracy"] for h in at_once.train_history_]
    assert "probe_trees" not in probed.train_history_[0]  # the first layer is always grown in full
    assert all(h["finished"] and h["probe_trees"] == 6 for h in probed.train_history_[1:])


def test_layers_that_may_not_be_kept_are_decided_on_their_probes(noisy, monkeypatch):
    X, y = noisy
    monkeypatch.setattr(ProbeVerdict, "may_be_kept", False)  # no probe may be kept
    probed = MDDFClassifier(**SMALL, probe_trees=0.5).fit(X, y)
    history = probed.train_history_
    assert len(history) == 3 and probed.n_layers_ == 1  # the first layer, then two probes and early stopping
    assert [h["finished"] for h in history[1:]] == [False, False]
    assert history[1]["model_bytes"] == 0
    one_layer = MDDFClassifier(**{**SMALL, "max_layers": 1}).fit(X, y)
    assert np.array_equal(probed.predict_proba(X), one_layer.predict_proba(X))
    assert "did not improve for 2 layers" in probed.stop_reason_


def test_a_later_probe_that_may_be_kept_finishes_the_layer_before_it(noisy, monkeypatch):
    X, y = noisy
    at_once = MDDFClassifier(**SMALL).fit(X, y)
    judge = CascadeGrowth.judge
    calls = []

    def first_probe_fails(self, layer):  # the first probe may not be kept, every later one may
        verdict = judge(self, layer)
        calls.append(layer.t)
        needed = np.inf if len(calls) == 1 else -np.inf
        return ProbeVerdict(verdict.trees, verdict.score, verdict.predicted, verdict.spread, needed)

    monkeypatch.setattr(CascadeGrowth, "judge", first_probe_fails)
    probed = MDDFClassifier(**SMALL, probe_trees=0.5).fit(X, y)
    assert calls[:3] == [2, 3, 3]  # layer 3 probed on layer 2's probe, then again on the finished layer 2
    assert np.array_equal(probed.predict_proba(X), at_once.predict_proba(X))
    assert probed.train_history_[1]["finished"]


def test_probes_keep_the_models_of_kept_layers_only(noisy, tmp_path):
    X, y = noisy
    probed = MDDFClassifier(**SMALL, probe_trees=0.5, model_dir=str(tmp_path)).fit(X, y)
    folders = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("layer-"))
    assert folders == [f"layer-{t:03d}" for t in range(1, probed.n_layers_ + 1)]
    assert probed.predict(X).shape == y.shape


def test_verbose_lines_say_which_layers_were_probed(noisy, capsys):
    X, y = noisy
    MDDFClassifier(**SMALL, probe_trees=0.5, verbose=1).fit(X, y)
    assert "(probe of 6 trees: " in capsys.readouterr().out


def test_fits_that_monitor_held_out_rows_are_not_probed(noisy):
    X, y = noisy
    model = MDDFClassifier(**SMALL, probe_trees=0.5, validation_fraction=0.25).fit(X, y)
    assert not any("probe_trees" in h for h in model.train_history_)


def test_the_regressor_probes_its_layers(monkeypatch):
    X, y = make_friedman1(300, noise=1.0, random_state=0)
    settings = dict(n_estimators=12, n_folds=2, max_layers=5, pair_features=None, random_state=0)
    at_once = CascadeForestRegressor(**settings).fit(X, y)
    monkeypatch.setattr(ProbeVerdict, "may_be_kept", True)
    probed = CascadeForestRegressor(**settings, probe_trees=0.5).fit(X, y)
    assert np.array_equal(probed.predict(X), at_once.predict(X))
    monkeypatch.setattr(ProbeVerdict, "may_be_kept", False)
    abandoned = CascadeForestRegressor(**settings, probe_trees=0.5).fit(X, y)
    history = abandoned.train_history_
    assert not history[-1]["finished"]
    # a probe that outscores every layer is grown in full before it is kept: the kept layers are all finished
    assert all(h.get("finished", True) for h in history[: abandoned.n_layers_])


def test_probe_trees_is_validated(noisy):
    X, y = noisy
    with pytest.raises(ValueError, match="probe_trees"):
        MDDFClassifier(probe_trees=1.5).fit(X, y)


def test_a_cascade_with_a_boosted_member_grown_on_from_its_probes_is_the_cascade_without(noisy, monkeypatch):
    X, y = noisy
    settings = {**SMALL, "forest_types": ("rf", "crf", "gbdt"), "max_layers": 3}
    at_once = MDDFClassifier(**settings).fit(X, y)
    monkeypatch.setattr(ProbeVerdict, "may_be_kept", True)
    probed = MDDFClassifier(**settings, probe_trees=0.5).fit(X, y)
    assert np.array_equal(probed.predict_proba(X), at_once.predict_proba(X))
