"""Scores of one run (:func:`run_scores`), and which of several methods is significantly best (:func:`compare`)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

PROBA_CLIP = 1e-15  #: Probabilities are clipped to [PROBA_CLIP, 1] (then each row renormalised) before the log-loss.

SIGNIFICANCE_SE = 2.0  #: How many standard errors a difference must exceed to count.


@dataclass(frozen=True)
class Metric:
    """A score of one run."""

    name: str  #: the key in run records and the value of ``--metric``
    label: str  #: its name in tables and figures
    tasks: tuple  #: the tasks it scores (``"classification"``, ``"regression"``, several targets' tasks)
    greater_is_better: bool
    scale: float = 1.0  #: tables and figures show ``scale * value`` (100: a percentage)
    needs_proba: bool = False  #: computed from ``predict_proba`` (absent for a method without it)

    @property
    def shown(self) -> str:
        """The label with its unit: ``"accuracy (%)"``."""
        return f"{self.label} (%)" if self.scale == 100 else self.label


_CLASSIFICATION, _MULTILABEL = ("classification",), ("multilabel",)
#: The metrics, in table order (several numeric targets: R² averaged over them, each one's too: :func:`metric_of`).
METRICS = {
    m.name: m
    for m in (
        Metric("accuracy", "accuracy", _CLASSIFICATION, True, 100.0),
        Metric("balanced_accuracy", "balanced accuracy", _CLASSIFICATION, True, 100.0),
        Metric("roc_auc", "ROC AUC", _CLASSIFICATION, True, 1.0, needs_proba=True),
        Metric("log_loss", "log-loss", _CLASSIFICATION, False, 1.0, needs_proba=True),
        Metric("r2", "R²", ("regression", "multioutput"), True),
        Metric("rmse", "RMSE", ("regression",), False),
        Metric("subset_accuracy", "subset accuracy", _MULTILABEL, True, 100.0),
        Metric("hamming_loss", "Hamming loss", _MULTILABEL, False),
        Metric("f1_micro", "micro F1", _MULTILABEL, True),
        Metric("f1_macro", "macro F1", _MULTILABEL, True),
    )
}
#: The metrics one target's runs are bound to record (:func:`~.store.run_settings`).
ONE_TARGET_METRICS = [name for name, m in METRICS.items() if {"classification", "regression"} & set(m.tasks)]


def metric_of(name: str) -> Metric:
    """The metric ``name``: one of :data:`METRICS`, or ``r2[<target>]``, the R² of one of several targets."""
    if name.startswith("r2[") and name.endswith("]"):
        return Metric(name, f"R² {name[3:-1]}", ("multioutput",), True)
    return METRICS[name]


#: Rows on which :func:`predict_once` checks that a classifier's ``predict`` is its most probable class.
CHECKED_ROWS = 64


def predict_once(estimator, X, probabilities=True):
    """``(labels, probabilities)`` of ``X`` from one ``predict_proba`` (``predict``'s labels where it disagrees on
    :data:`CHECKED_ROWS` rows); ``(predict(X), None)`` without ``probabilities`` or 2-D probabilities."""
    if not probabilities or not hasattr(estimator, "predict_proba"):
        return estimator.predict(X), None
    proba = estimator.predict_proba(X)
    if isinstance(proba, list) or np.ndim(proba) != 2:
        return estimator.predict(X), None
    labels = np.asarray(estimator.classes_)[np.argmax(proba, axis=1)]
    head = X.iloc[:CHECKED_ROWS] if hasattr(X, "iloc") else X[:CHECKED_ROWS]
    if not np.array_equal(np.asarray(estimator.predict(head)), labels[:CHECKED_ROWS]):
        labels = np.asarray(estimator.predict(X))
    return labels, proba


#: The metric that ranks when ``--metric`` is not given: scikit-learn's default ``score`` of each task.
DEFAULT_METRIC = dict(classification="accuracy", regression="r2", multioutput="r2", multilabel="subset_accuracy")

MIN_PAIRED_SCORES = 5  #: Paired scores (folds both methods have) below which no difference is called significant.

WINNER_RULE = (
    "Winner (★): the best mean, marked only when its paired difference to every other method exceeds "
    f"2 standard errors over at least {MIN_PAIRED_SCORES} paired folds; ≈: within 2 standard errors of the best. "
    "Standard errors over the folds, sqrt((1/n + n_test/n_train) · var) with var the sample variance of the n "
    "per-fold scores or paired differences (Nadeau and Bengio's correction for overlapping training rows)."
)


def metrics_of(task: str, targets=()) -> list[Metric]:
    """The metrics of ``task``, in table order (of several ``targets``: each target's R² last)."""
    own = [metric_of(f"r2[{name}]") for name in targets] if task == "multioutput" else []
    return [m for m in METRICS.values() if task in m.tasks] + own


def full_probabilities(proba, model_classes, n_classes: int) -> np.ndarray:
    """``proba``'s columns (of the class codes ``model_classes``) placed among ``n_classes`` classes, absent ones 0."""
    proba = np.asarray(proba, dtype=np.float64)
    model_classes = np.asarray(model_classes, dtype=np.int64)
    if proba.ndim != 2 or proba.shape[1] != len(model_classes):
        raise ValueError(f"probabilities of shape {proba.shape} for {len(model_classes)} classes")
    full = np.zeros((proba.shape[0], n_classes))
    full[:, model_classes] = proba
    return full


def classification_scores(y_true, y_pred, proba=None) -> dict:
    """``accuracy``, ``balanced_accuracy`` and, given ``proba`` (column j: class code j), ``log_loss`` over every class
    and, when the test rows hold every class, ``roc_auc`` (one-vs-rest for more than two)."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, roc_auc_score
    from sklearn.metrics import log_loss as sklearn_log_loss

    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true": the mean recall is still defined
        balanced = float(balanced_accuracy_score(y_true, y_pred))
    scores = {"accuracy": float(accuracy_score(y_true, y_pred)), "balanced_accuracy": balanced}
    if proba is not None:
        proba = np.clip(np.asarray(proba, dtype=np.float64), PROBA_CLIP, 1.0)
        proba /= proba.sum(axis=1, keepdims=True)
        scores["log_loss"] = float(sklearn_log_loss(y_true, proba, labels=np.arange(proba.shape[1])))
        if len(np.unique(y_true)) == proba.shape[1]:
            binary = proba.shape[1] == 2
            scores["roc_auc"] = float(roc_auc_score(y_true, proba[:, 1] if binary else proba, multi_class="ovr"))
    return scores


def regression_scores(y_true, y_pred) -> dict:
    """``r2`` and ``rmse``."""
    from sklearn.metrics import r2_score, root_mean_squared_error

    y_true, y_pred = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    return {"r2": float(r2_score(y_true, y_pred)), "rmse": float(root_mean_squared_error(y_true, y_pred))}


def several_target_scores(task: str, y_true, y_pred, targets) -> dict:
    """A multi-output regression's ``r2`` (averaged over the ``targets``) and each target's ``r2[<target>]``; a
    multi-label classification's ``subset_accuracy``, ``hamming_loss``, ``f1_micro`` and ``f1_macro``."""
    from sklearn.metrics import accuracy_score, f1_score, hamming_loss, r2_score

    if task == "multioutput":
        each = r2_score(y_true, y_pred, multioutput="raw_values")
        return {"r2": float(np.mean(each)), **{f"r2[{name}]": float(r2) for name, r2 in zip(targets, each)}}
    y_pred = np.asarray(y_pred).astype(np.int64)
    scores = {"subset_accuracy": accuracy_score(y_true, y_pred), "hamming_loss": hamming_loss(y_true, y_pred)}
    for kind in ("micro", "macro"):
        scores[f"f1_{kind}"] = f1_score(y_true, y_pred, average=kind, zero_division=0)
    return {name: float(value) for name, value in scores.items()}


def run_scores(task: str, y_true, y_pred, proba=None, targets=()) -> dict:
    """Every metric of ``task`` for one run (``targets``: several targets' names)."""
    if task == "regression":
        return regression_scores(y_true, y_pred)
    if task == "classification":
        return classification_scores(y_true, y_pred, proba)
    return several_target_scores(task, y_true, y_pred, targets)


def standard_error(values, test_train_ratio: float = 0.0) -> float:
    """``sqrt((1/n + test_train_ratio) * var(values))``, var with ddof=1; NaN for fewer than two values."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return float("nan")
    return float(np.sqrt((1.0 / len(values) + test_train_ratio) * np.var(values, ddof=1)))


@dataclass(frozen=True)
class Comparison:
    """One method against the best, on one dataset and metric."""

    method: str
    n: int  #: folds the method has a score on
    mean: float  #: its mean score
    se: float  #: the standard error of that mean (NaN for fewer than two folds)
    diff: float  #: mean paired difference to the best (``score - best``, 0 for the best) over the common folds
    diff_se: float  #: its standard error (NaN for the best, or fewer than two common folds)
    n_common: int  #: folds both this method and the best have
    best: bool  #: the best mean
    tied: bool  #: not the best, and ``|diff| <= 2 * diff_se`` over :data:`MIN_PAIRED_SCORES` common folds or more
    winner: bool  #: the best, and every other method's difference exceeds two standard errors over 5+ paired folds


def compare(scores: dict, greater_is_better: bool = True, test_train_ratio: float = 0.0) -> list[Comparison]:
    """Each method's :class:`Comparison` to the best, best first, of ``scores`` ``{method: {fold: score}}`` (a fold: the
    same rows for every method); ``test_train_ratio``: ``n_test / n_train`` of a fold (Nadeau and Bengio's)."""
    scores = {m: dict(v) for m, v in scores.items() if v}
    if not scores:
        return []
    sign = 1.0 if greater_is_better else -1.0
    means = {m: float(np.mean(list(v.values()))) for m, v in scores.items()}
    order = sorted(scores, key=lambda m: (-sign * means[m], m))
    best = order[0]
    rows = []
    for method in order:
        values = scores[method]
        diff, diff_se, n_common = paired_difference(values, scores[best], test_train_ratio)
        rows.append([method, len(values), means[method], standard_error(list(values.values()), test_train_ratio)])
        rows[-1] += [0.0, float("nan"), n_common] if method == best else [diff, diff_se, n_common]
    out = []
    others_apart = all(apart(*r[4:7]) for r in rows[1:])
    for row in rows:
        is_best = row[0] == best
        tied = not is_best and row[6] >= MIN_PAIRED_SCORES and not apart(*row[4:7])
        out.append(Comparison(*row, best=is_best, tied=tied, winner=is_best and len(rows) > 1 and others_apart))
    return out


def paired_difference(scores: dict, other: dict, test_train_ratio: float = 0.0) -> tuple[float, float, int]:
    """The mean of ``scores[fold] - other[fold]`` over the folds both have, its standard error, and their number."""
    d = np.array([scores[f] - other[f] for f in scores if f in other])
    return (float(d.mean()) if len(d) else float("nan")), standard_error(d, test_train_ratio), len(d)


def apart(diff: float, diff_se: float, n: int) -> bool:
    """Whether a paired difference exceeds :data:`SIGNIFICANCE_SE` standard errors over ``n`` folds, enough of them."""
    return n >= MIN_PAIRED_SCORES and not math.isnan(diff_se) and abs(diff) > SIGNIFICANCE_SE * diff_se
