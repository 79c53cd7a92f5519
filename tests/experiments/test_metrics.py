"""Metrics of one run and the significance of a comparison: what the practitioner's tables say is significant."""

import math

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import balanced_accuracy_score, log_loss, r2_score, roc_auc_score

from mddf.experiments.metrics import (
    CHECKED_ROWS,
    DEFAULT_METRIC,
    METRICS,
    PROBA_CLIP,
    classification_scores,
    compare,
    full_probabilities,
    metric_of,
    metrics_of,
    predict_once,
    regression_scores,
    several_target_scores,
    standard_error,
)


def test_classification_scores_agree_with_scikit_learn():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    proba = rng.dirichlet(np.ones(3), 200)
    pred = proba.argmax(1)
    scores = classification_scores(y, pred, proba)
    assert scores["accuracy"] == pytest.approx(np.mean(y == pred))
    assert scores["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(y, pred))
    assert scores["log_loss"] == pytest.approx(log_loss(y, proba, labels=[0, 1, 2]))


@pytest.mark.slow
def test_the_scores_are_those_of_their_formulas_bit_for_bit():
    # scikit-learn computes them; the values are those of the formulas earlier records were made with
    rng = np.random.default_rng(1)
    for case in range(300):
        k, n = int(rng.integers(2, 8)), int(rng.integers(1, 300))
        y, proba = rng.integers(0, k, n), rng.dirichlet(np.ones(k) * rng.choice([0.05, 1.0, 5.0]), n)
        if case % 3 == 0:
            proba[rng.random((n, k)) < 0.2] = 0.0  # classes a model never saw
        if case % 5 == 0:
            y[:] = y[0]  # a test fold of one class
        pred = proba.argmax(1)
        scores = classification_scores(y, pred, proba)
        clipped = np.clip(proba, PROBA_CLIP, 1.0)
        clipped /= clipped.sum(axis=1, keepdims=True)
        assert scores["accuracy"] == float(np.mean(y == pred))
        assert scores["log_loss"] == float(-np.mean(np.log(clipped[np.arange(n), y])))
        target, predicted = rng.normal(size=n), rng.normal(size=n)
        rmse = regression_scores(target, predicted)["rmse"]
        assert rmse == float(np.sqrt(np.mean((target - predicted) ** 2)))


def test_a_class_absent_from_training_gets_probability_zero_and_a_clipped_log_loss():
    # the model saw classes 0 and 2 only; the test rows hold a row of class 1
    proba = full_probabilities([[0.9, 0.1], [0.2, 0.8]], [0, 2], n_classes=3)
    assert proba.tolist() == [[0.9, 0.0, 0.1], [0.2, 0.0, 0.8]]
    scores = classification_scores([1, 2], [0, 2], proba)
    expected = (-math.log(PROBA_CLIP / (1 + PROBA_CLIP)) - math.log(0.8 / (1 + PROBA_CLIP))) / 2
    assert scores["log_loss"] == pytest.approx(expected)
    assert math.isfinite(scores["log_loss"]) and scores["log_loss"] < 20


def test_the_roc_auc_is_scikit_learns_of_the_second_class_or_one_against_the_others_when_every_class_is_tested():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 300)
    proba = rng.dirichlet(np.ones(3), 300)
    scores = classification_scores(y, proba.argmax(1), proba)
    assert scores["roc_auc"] == pytest.approx(roc_auc_score(y, proba, multi_class="ovr"))
    binary = proba[:, :2] / proba[:, :2].sum(axis=1, keepdims=True)
    yb = y % 2
    assert classification_scores(yb, binary.argmax(1), binary)["roc_auc"] == pytest.approx(
        roc_auc_score(yb, binary[:, 1])
    )
    prior = np.tile([0.94, 0.06], (len(yb), 1))  # the baseline: the class shares whatever the row
    assert classification_scores(yb, np.zeros_like(yb), prior)["roc_auc"] == 0.5
    assert "roc_auc" not in classification_scores(y[y > 0], proba[y > 0].argmax(1), proba[y > 0])  # class 0 untested


def test_without_probabilities_there_is_no_log_loss():
    assert set(classification_scores([0, 1], [0, 1])) == {"accuracy", "balanced_accuracy"}


def test_regression_scores():
    y, pred = np.array([1.0, 2.0, 4.0]), np.array([1.5, 2.0, 3.0])
    scores = regression_scores(y, pred)
    assert scores["r2"] == pytest.approx(r2_score(y, pred))
    assert scores["rmse"] == pytest.approx(np.sqrt(np.mean((y - pred) ** 2)))


def test_each_task_has_its_metrics_and_default():
    assert [m.name for m in metrics_of("classification")] == ["accuracy", "balanced_accuracy", "roc_auc", "log_loss"]
    assert [m.name for m in metrics_of("regression")] == ["r2", "rmse"]
    assert [m.name for m in metrics_of("multioutput", ["a", "b"])] == ["r2", "r2[a]", "r2[b]"]
    assert [m.name for m in metrics_of("multilabel")] == ["subset_accuracy", "hamming_loss", "f1_micro", "f1_macro"]
    assert DEFAULT_METRIC == {"classification": "accuracy", "regression": "r2", **SEVERAL_DEFAULTS}
    assert not METRICS["log_loss"].greater_is_better and not METRICS["rmse"].greater_is_better
    assert not METRICS["hamming_loss"].greater_is_better and metric_of("r2[a]").label == "R² a"


#: scikit-learn's score of each: R² averaged over the targets, and the subset accuracy.
SEVERAL_DEFAULTS = {"multioutput": "r2", "multilabel": "subset_accuracy"}


def test_several_targets_are_scored_each_and_together():
    Y, predicted = np.array([[1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]), np.array([[1.0, 0.5], [2.0, 0.5], [3.0, 0.5]])
    scores = several_target_scores("multioutput", Y, predicted, ["a", "b"])
    assert scores == pytest.approx({"r2": 0.5 * (1.0 - 0.125), "r2[a]": 1.0, "r2[b]": -0.125})
    labels, guessed = np.array([[1, 0], [0, 1], [1, 1]]), np.array([[1, 0], [0, 0], [1, 1]])
    scores = several_target_scores("multilabel", labels, guessed, ["x", "y"])
    assert scores == pytest.approx(
        {"subset_accuracy": 2 / 3, "hamming_loss": 1 / 6, "f1_micro": 6 / 7, "f1_macro": 5 / 6}
    )


def test_the_standard_error_carries_the_correction_for_overlapping_training_rows():
    values = [0.1, 0.3, 0.2, 0.4]
    plain = np.std(values, ddof=1) / 2
    assert standard_error(values) == pytest.approx(plain)
    # 5-fold CV: n_test / n_train = 1/4
    assert standard_error(values, 0.25) == pytest.approx(np.sqrt((1 / 4 + 1 / 4) * np.var(values, ddof=1)))
    assert math.isnan(standard_error([0.5]))


def folds(*values):
    return {i: v for i, v in enumerate(values)}


def test_a_winner_is_marked_only_when_every_paired_difference_exceeds_two_standard_errors():
    scores = {
        "A": folds(0.90, 0.91, 0.92, 0.93, 0.90),
        "B": folds(0.80, 0.80, 0.82, 0.83, 0.80),  # 0.1 behind in every fold: far apart
        "Baseline": folds(0.50, 0.50, 0.50, 0.50, 0.50),
    }
    rows = compare(scores)
    assert [r.method for r in rows] == ["A", "B", "Baseline"]
    a, b, base = rows
    assert a.best and a.winner and a.diff == 0 and math.isnan(a.diff_se)
    assert b.diff == pytest.approx(-0.102) and not b.tied
    assert b.diff_se == pytest.approx(standard_error([-0.1, -0.11, -0.1, -0.1, -0.1]))
    assert base.n == base.n_common == 5


def test_fewer_than_five_paired_scores_make_no_winner_however_far_apart():
    scores = {"A": folds(0.90, 0.91, 0.92, 0.93), "B": folds(0.50, 0.50, 0.51, 0.50)}
    a, b = compare(scores)
    assert a.best and not a.winner and not b.tied  # clearly apart, yet four paired folds are too few to mark
    close = compare({"A": folds(0.90, 0.80, 0.92, 0.85), "B": folds(0.88, 0.83, 0.90, 0.84)})
    assert not close[1].tied  # nor to mark within 2 standard errors


def test_no_winner_when_one_difference_is_within_two_standard_errors():
    scores = {
        "A": folds(0.90, 0.80, 0.92, 0.85, 0.88),
        "B": folds(0.88, 0.83, 0.90, 0.84, 0.87),  # mean 0.0060 behind, differences of both signs
        "Baseline": folds(0.50, 0.50, 0.50, 0.50, 0.50),
    }
    a, b, base = compare(scores)
    assert a.best and not a.winner
    assert b.tied and abs(b.diff) <= 2 * b.diff_se
    assert not base.tied


def test_the_difference_is_paired_over_the_common_folds():
    # B's folds vary a lot together with A's: paired, it is clearly behind
    a = folds(0.50, 0.70, 0.90, 0.60, 0.80)
    b = {k: v - 0.05 for k, v in a.items()}
    b[1] -= 0.001
    rows = compare({"A": a, "B": b})
    assert rows[0].winner and rows[1].diff == pytest.approx(-0.0502)
    # B missing a fold: the difference uses the four folds both have (too few for a winner)
    del b[3]
    rows = compare({"A": a, "B": b})
    assert rows[1].n_common == 4 and not rows[0].winner


def test_lower_is_better_metrics_rank_the_smallest_first():
    rows = compare(
        {"A": folds(0.3, 0.31, 0.32, 0.3, 0.31), "B": folds(0.6, 0.62, 0.61, 0.6, 0.6)}, greater_is_better=False
    )
    assert [r.method for r in rows] == ["A", "B"] and rows[0].winner
    assert rows[1].diff > 0  # B's loss is higher


def test_the_correction_can_take_a_winner_away():
    # differences 0, .04, 0, .04, .02: 2.2 plain standard errors, 1.5 corrected ones (5 folds: 1/4)
    a = folds(0.80, 0.84, 0.80, 0.84, 0.82)
    b = folds(0.80, 0.80, 0.80, 0.80, 0.80)
    assert compare({"A": a, "B": b})[0].winner
    assert not compare({"A": a, "B": b}, test_train_ratio=0.25)[0].winner


def test_one_fold_or_one_method_never_makes_a_winner():
    assert not compare({"A": folds(0.9), "B": folds(0.5)})[0].winner
    assert not compare({"A": folds(0.9, 0.8)})[0].winner
    assert compare({}) == []


class _Counting(LogisticRegression):
    """A classifier that counts the rows each prediction method is asked for; ``threshold`` set: its ``predict``
    says class 1 only above that probability, not at the most probable class."""

    def __init__(self, threshold=None):
        super().__init__()
        self.threshold = threshold

    def predict_proba(self, X):
        self.asked_proba = getattr(self, "asked_proba", 0) + len(X)
        return super().predict_proba(X)

    def predict(self, X):
        self.asked_labels = getattr(self, "asked_labels", 0) + len(X)
        if self.threshold is None:
            return super().predict(X)
        return self.classes_[(super().predict_proba(X)[:, 1] > self.threshold).astype(int)]


def _binary(n=500):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(n, 3))
    return X, (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)


def test_predict_once_reads_labels_and_probabilities_from_one_pass_and_checks_a_few_rows_against_predict():
    X, y = _binary()
    model = _Counting().fit(X, y)
    labels, proba = predict_once(model, X)
    assert model.asked_proba == len(X) and model.asked_labels == CHECKED_ROWS
    np.testing.assert_array_equal(labels, LogisticRegression().fit(X, y).predict(X))
    np.testing.assert_array_equal(proba, LogisticRegression().fit(X, y).predict_proba(X))


def test_predict_once_asks_for_the_labels_of_a_classifier_whose_predict_is_not_its_most_probable_class():
    X, y = _binary()
    model = _Counting(threshold=0.8).fit(X, y)
    labels, proba = predict_once(model, X)
    assert model.asked_labels == CHECKED_ROWS + len(X)
    np.testing.assert_array_equal(labels, (proba[:, 1] > 0.8).astype(int))


def test_predict_once_gives_a_regressors_predictions_and_no_probabilities():
    X, y = _binary()
    model = LinearRegression().fit(X, y)
    labels, proba = predict_once(model, X, probabilities=False)
    assert proba is None and np.array_equal(labels, model.predict(X))
    fitted = _Counting().fit(X, y)
    assert predict_once(fitted, X, probabilities=False)[1] is None and not hasattr(fitted, "asked_proba")
