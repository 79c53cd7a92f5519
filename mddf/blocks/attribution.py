"""A block's members' outputs attributed to the columns of the block's input, averaged over their fold models.

A block gives new rows each member's output averaged over its fold models, so a member's attributions are the mean
of its fold models'. Each model is explained by what it is:

- mddf's forests, by their trees (:mod:`mddf.forests.attribution`: exact TreeSHAP, or path contributions);
- an XGBoost member (``"gbdt"``, or an ``XGBClassifier`` / ``XGBRegressor`` instance), by XGBoost's own
  contributions to its margins (``pred_contribs``, exact TreeSHAP; ``approx_contribs`` for the fast mode), taken
  through its link: a regressor's margin is its prediction, a classifier's probabilities are the softmax of its
  margins (:func:`through_softmax`);
- a fold model fitted on a single class predicts it whatever the row: nothing to attribute;
- any other estimator cannot be explained exactly: :func:`check_explainable` names it.

Every attribution here comes with its base value, the same for every row, from which it adds up to the output.

Attributions are carried through a map of already attributed values by two rules that keep their sum exactly: a
sum of values sums their attributions, and an increasing map of one value (a logarithm, an exponential) scales
its input's attributions by the ratio of the changes of its output and input, ``(g(u) - g(u0)) / (u - u0)``, the
derivative where the input did not move (DeepLIFT's rescale rule, :func:`rescaled`). The softmax is taken as
such steps (:func:`through_softmax`): ``q_c = exp(z_c - log S)`` with ``S = sum_k exp(z_k)``, so each
exponential, the sum, its logarithm, the difference and the last exponential in turn; every ratio is then
bounded (none divides by a vanishing sum), so the result does not lose its digits to cancellation.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.parallel import Parallel

from .._runtime.threads import in_one_thread, one_blas_thread
from ..forests import CompactForest, PackedForest
from ..storage import StoredModel
from .members import FoldModel

#: The objectives of XGBoost members whose outputs are explained: a regressor's margin is its prediction, a
#: classifier's probabilities the softmax of its margins.
XGBOOST_OBJECTIVES = ("reg:squarederror", "binary:logistic", "multi:softprob")


#: Below this share of the sum of their absolute values, the attributions of a value are taken to cancel: the
#: change of the value, a difference of nearly equal numbers, is then rounding more than signal.
CANCELLED = 1e-8


def rescaled(values, change, derivative):
    """The attributions of ``g(u)`` for an increasing ``g`` applied to each column of ``u`` (DeepLIFT's rescale).

    ``values`` ``(n, d, k)`` are the attributions of ``u`` ``(n, k)``; ``change`` ``(n, k)`` is ``g(u) - g(u0)``;
    ``derivative`` ``(n, k)`` is ``g'(u)``, the ratio where the attributions of a column cancel (their sum below
    :data:`CANCELLED` times the sum of their absolute values: ``u`` has not moved). Elsewhere the result sums over
    its ``d`` axis to ``change``.
    """
    moved = values.sum(axis=1)
    secant = np.abs(moved) > CANCELLED * np.abs(values).sum(axis=1)
    ratio = np.where(secant, change / np.where(secant, moved, 1.0), derivative)
    return values * ratio[:, None, :]


def through_softmax(logits, base_logits, values):
    """``(base, attributions)`` of ``softmax(logits)`` from the attributions ``values`` ``(n, d, k)`` of the logits
    ``(n, k)`` about ``base_logits`` ``(k,)``, or each row's ``(n, k)`` (see the module): the base is the softmax of
    the base logits (``(k,)`` or ``(n, k)`` as they are), and each row's attributions of column c sum to its ``q_c``
    less the base's."""
    logits = np.asarray(logits, dtype=np.float64)
    given = np.asarray(base_logits, dtype=np.float64)
    base_logits = np.broadcast_to(given, logits.shape)
    shift = np.maximum(logits.max(axis=1), base_logits.max(axis=1))[:, None]  # the rule does not depend on it
    z, z0 = logits - shift, base_logits - shift
    w, w0 = np.exp(z), np.exp(z0)
    s, s0 = w.sum(axis=1, keepdims=True), w0.sum(axis=1, keepdims=True)  # one of them is at least 1
    sum_values = rescaled(values, w - w0, w).sum(axis=2, keepdims=True)  # exp, then the sum
    log_s, log_s0 = np.log(s), np.log(s0)
    log_values = values - rescaled(sum_values, log_s - log_s0, 1.0 / s)  # log q = z - log S
    log_q, log_q0 = z - log_s, z0 - log_s0
    q, q0 = np.exp(log_q), np.exp(log_q0)
    out = rescaled(log_values, q - q0, q)  # q = exp(log q)
    return (q0[0] if given.ndim == 1 else q0), out


def check_explainable(model, where, *, role="member"):
    """Raise a ``ValueError`` naming the ``role`` (``"member"`` of a block, or the cascade's ``"predictor"``) at
    ``where`` unless its fold model ``model`` can be explained; the message says how to fit one that can be."""
    if isinstance(model, (PackedForest, CompactForest)):
        return
    estimator = model.estimator if isinstance(model, FoldModel) else model
    if estimator is None:
        return
    if _is_sklearn_forest(estimator):
        return
    named = f"{where} ({type(estimator).__name__})"
    if role == "predictor":
        instead = "fit with predictor='xgboost', 'forest' or None to explain the model"
    else:
        instead = "fit without this member (or as 'gbdt') to explain the model"
    if not _is_xgboost(estimator):
        raise ValueError(
            f"{named}: explain() attributes exactly the outputs of mddf's forests, scikit-learn's random forests and "
            f"XGBoost models only, and this {role} is none of them; {instead}"
        )
    if estimator.get_params().get("multi_strategy") == "multi_output_tree":
        raise ValueError(
            f"{named}: XGBoost computes no contributions for trees whose leaves hold every class's value "
            + (
                "(multi_strategy='multi_output_tree'); " + instead
                if role == "predictor"
                else "(multi_strategy='multi_output_tree', the member 'gbdt_vector'): use 'gbdt', 'gbdt_es'"
            )
        )
    objective = estimator.get_params().get("objective")
    if objective not in XGBOOST_OBJECTIVES:
        raise ValueError(f"{named}: explain() explains XGBoost's objectives {XGBOOST_OBJECTIVES}, not {objective!r}")


def _is_sklearn_forest(estimator):
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    return isinstance(estimator, (RandomForestClassifier, ExtraTreesClassifier))


def _is_xgboost(estimator):
    try:
        from xgboost import XGBModel
    except ImportError:  # pragma: no cover - xgboost is a dependency
        return False
    return isinstance(estimator, XGBModel)


def xgboost_attributions(estimator, X, fast=False):
    """``(base, values)`` of a fitted ``XGBClassifier`` (its ``predict_proba``) or ``XGBRegressor`` (its
    ``predict``) for float rows ``X``: ``base`` ``(k,)``, ``values`` ``(n, d, k)`` (``k`` 1 for a regressor)."""
    import xgboost

    booster = estimator.get_booster()
    data = xgboost.DMatrix(X, missing=np.nan, feature_types=booster.feature_types, enable_categorical=True)
    try:
        rounds = (0, estimator.best_iteration + 1)  # as its predictions read it after early stopping
    except AttributeError:
        rounds = (0, 0)
    contributions = booster.predict(data, pred_contribs=True, approx_contribs=fast, iteration_range=rounds)
    contributions = np.asarray(contributions, dtype=np.float64)
    margins = np.asarray(booster.predict(data, output_margin=True, iteration_range=rounds), dtype=np.float64)
    if contributions.ndim == 2:  # one margin: a regressor's prediction, or a binary classifier's log-odds
        contributions, margins = contributions[:, None, :], margins.reshape(-1, 1)
    values = np.moveaxis(contributions[:, :, :-1], 1, 2)  # (n, d, margins)
    bias = contributions[0, :, -1]  # the same for every row
    values = _to_margins(values, margins - bias)
    objective = estimator.get_params().get("objective")
    if objective == "reg:squarederror":
        return bias, values
    if objective == "binary:logistic":  # p_1 = softmax([0, margin])_1
        values = np.concatenate([np.zeros_like(values), values], axis=2)
        bias = np.array([0.0, bias[0]])
    logits = bias + values.sum(axis=1)
    return through_softmax(logits, bias, values)


def _to_margins(values, change):
    """``values`` ``(n, d, k)`` with the difference of their sums from ``change`` ``(n, k)`` spread over each row's
    in proportion to their absolute values: XGBoost sums its contributions in float32, and they miss its margins
    by its rounding."""
    gross = np.abs(values).sum(axis=1, keepdims=True)
    missing = (change - values.sum(axis=1))[:, None, :]
    return values + missing * np.abs(values) / np.where(gross > 0, gross, 1.0)


def model_attributions(model, X, codes, has_missing, fast, width):
    """``(base, values)`` of one fold model of a block for its input ``X`` (float) or ``codes`` (binned, for a
    binned forest), in the block's ``width`` output columns."""
    if isinstance(model, PackedForest):
        return model.attributions(codes, has_missing, fast)
    if isinstance(model, CompactForest):
        return model.attributions(X, fast)
    values = np.zeros((len(X), X.shape[1], width))
    base = np.zeros(width)
    if model.estimator is None:  # fitted on rows of one class: it predicts that class
        base[model.classes[0]] = 1.0
        return base, values
    if _is_sklearn_forest(model.estimator):  # the predictor "forest": its trees compacted, as a block's exact ones
        compact = CompactForest(model.estimator, len(model.estimator.classes_))
        own_base, own_values = compact.attributions(X, fast)
    else:
        own_base, own_values = xgboost_attributions(model.estimator, X, fast)
    if model.n_classes is None:
        return own_base, own_values
    columns = model.classes[np.asarray(model.estimator.classes_, dtype=np.intp)]
    base[columns] = own_base
    values[:, :, columns] = own_values
    return base, values


def block_attributions(block, X, fast=False):
    """``(base, values)`` of a fitted block's members for its input ``X`` (float32, C-contiguous): ``base``
    ``(n_members, width)``, ``values`` ``(n, n_members, d, width)`` (``width`` 1 for a regression block), each the
    mean over the member's fold models, as the block's prediction is. The models are explained in parallel
    threads (the block's ``n_jobs``) and summed in a fixed order: the same values for any ``n_jobs``."""
    flat = [(j, model) for j, models in enumerate(block.models_) for model in models]
    for j, model in flat:
        if not isinstance(model, StoredModel):
            check_explainable(model, f"forest_types[{j}]")
    width = _width(flat[0][1])
    has_missing = bool(np.isnan(X).any())
    binned = next((model for _, model in flat if issubclass(block.store.model_class(model), PackedForest)), None)
    codes = None if binned is None else binned.binner.transform(X)

    def task(j, model):
        if isinstance(model, StoredModel):  # loaded in the worker (memory-mapped), and let go
            model = model.load()
            check_explainable(model, f"forest_types[{j}]")
        return model_attributions(model, X, codes, has_missing, fast, width)

    with one_blas_thread():
        results = Parallel(n_jobs=block.n_jobs, prefer="threads")(in_one_thread(task)(j, m) for j, m in flat)
    n_members = len(block.models_)
    base = np.zeros((n_members, width))
    values = np.zeros((len(X), n_members, X.shape[1], width))
    for (j, _), (model_base, model_values) in zip(flat, results):  # fixed order: the same bits for any n_jobs
        base[j] += np.reshape(model_base, width)
        values[:, j] += model_values.reshape(len(X), X.shape[1], width)
    for j, models in enumerate(block.models_):
        base[j] /= len(models)
        values[:, j] /= len(models)
    return base, values


def _width(model):
    """The output columns of a block's model (1 for a regression member)."""
    return model.n_classes or 1
