"""A block's members' outputs attributed to the columns of the block's input, averaged over their fold models.

A block gives new rows each member's output averaged over its fold models, so a member's attributions are the mean
of its fold models'. Each model is explained by its member's kind (:meth:`mddf.blocks.member.Member.attributions`):

- mddf's forests, by their trees (:mod:`mddf.forests.attribution`: exact TreeSHAP, or path contributions);
- an XGBoost member (``"gbdt"``, or an ``XGBClassifier`` / ``XGBRegressor`` instance), by XGBoost's own
  contributions to its margins (:func:`xgboost_attributions`: ``pred_contribs``, exact TreeSHAP;
  ``approx_contribs`` for the fast mode), taken through its link (:func:`contribution_attributions`): a
  regressor's margin is its prediction, a classifier's probabilities are the softmax of its margins
  (:func:`through_softmax`); a LightGBM member (:mod:`mddf.blocks.lgbm_member`) by LightGBM's, the same way;
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

from .._runtime.threads import Parallel, in_one_thread, one_blas_thread
from ..forests import PackedForest
from ..storage import StoredModel
from .member import member_class
from .members import EstimatorMember

#: The objectives of XGBoost members whose outputs are explained: a regressor's margin is its prediction, a
#: classifier's probabilities the softmax of its margins.
XGBOOST_OBJECTIVES = ("reg:squarederror", "binary:logistic", "multi:softprob")
#: The link of each of :data:`XGBOOST_OBJECTIVES` from its margins (:func:`contribution_attributions`).
XGBOOST_LINKS = dict(zip(XGBOOST_OBJECTIVES, ("identity", "logistic", "softmax")))


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


def fold_model_member(model):
    """The member kind (:mod:`mddf.blocks.member`) of a fitted estimator's :class:`~mddf.blocks.members.FoldModel`
    (the cascade's predictor): the registered kind that claims its estimator."""
    task = "regression" if model.n_classes is None else "classification"
    if model.estimator is None:  # fitted on rows of one class
        return EstimatorMember(None, task)
    return member_class(model.estimator)(model.estimator, task)


def check_explainable(model, where, *, role="member"):
    """Raise a ``ValueError`` naming the ``role`` (``"member"`` of a block, or the cascade's ``"predictor"``) at
    ``where`` unless the fold model ``model`` of an estimator can be explained (its kind's
    :meth:`~mddf.blocks.member.Member.check_explainable`); the message says how to fit one that can be."""
    fold_model_member(model).check_explainable(model, where, role)


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
    return contribution_attributions(contributions, margins, XGBOOST_LINKS[estimator.get_params().get("objective")])


def contribution_attributions(contributions, margins, link):
    """``(base, values)`` of a boosted model's output from its trees' contributions ``(n, k, d + 1)`` to its ``k``
    margins ``(n, k)`` (the bias last, the same for every row), through its ``link``: ``"identity"`` (a regressor's
    margin is its prediction), ``"logistic"`` (a binary classifier's probabilities ``softmax([0, margin])``) or
    ``"softmax"`` (a classifier's probabilities, the softmax of its margins); ``values`` ``(n, d, width)``."""
    values = np.moveaxis(contributions[:, :, :-1], 1, 2)  # (n, d, margins)
    bias = contributions[0, :, -1]  # the same for every row
    values = _to_margins(values, margins - bias)
    if link == "identity":
        return bias, values
    if link == "logistic":  # p_1 = softmax([0, margin])_1
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
    """``(base, values)`` of the fold model ``model`` of an estimator (the cascade's predictor) for its input ``X``,
    in ``width`` output columns: its kind's :meth:`~mddf.blocks.member.Member.attributions`."""
    return fold_model_member(model).attributions(model, X, codes, has_missing, fast, width)


def block_attributions(block, X, fast=False):
    """``(base, values)`` of a fitted block's members for its input ``X`` (float32, C-contiguous): ``base``
    ``(n_members, width)``, ``values`` ``(n, n_members, d, width)`` (``width`` a regression block's ``n_outputs``),
    each the mean over the member's fold models, as the block's prediction is, each model explained by its member
    (:meth:`~mddf.blocks.member.Member.attributions`). The models are explained in parallel threads (the block's
    ``n_jobs``) and summed in a fixed order: the same values for any ``n_jobs``."""
    members = block.members()
    flat = [(j, model) for j, models in enumerate(block.models_) for model in models]
    for j, model in flat:
        if not isinstance(model, StoredModel):
            members[j].check_explainable(model, f"forest_types[{j}]")
    width = flat[0][1].n_classes or block.n_outputs  # a regression block's targets
    n_members = len(block.models_)
    base = np.zeros((n_members, width))
    values = np.zeros((len(X), n_members, X.shape[1], width))
    for X_in, part, weights in _model_groups(block, X):
        results = _explained(block, members, X_in, part, fast, width)
        for (j, _), (model_base, model_values) in zip(part, results):  # fixed order: the same bits for any n_jobs
            base[j] += np.reshape(model_base, width)
            model_values = model_values.reshape(len(X), X_in.shape[1], width)
            values[:, j] += model_values if weights is None else np.einsum("nkw,kd->ndw", model_values, weights)
    for j, models in enumerate(block.models_):
        base[j] /= len(models)
        values[:, j] /= len(models)
    return base, values


def _model_groups(block, X):
    """``(input, [(member, model)], weights)`` of the block's models that read one input: every model reads ``X``
    (weights None); with target statistics, each fold's models read ``X`` with the fold's statistics appended, and
    ``weights`` gives a statistic's attribution to its column, half to each of a pair's
    (:meth:`~mddf.blocks.target_stats.StatisticsSpec.weights`)."""
    statistics = block.statistics_
    if not statistics:
        yield X, [(j, model) for j, models in enumerate(block.models_) for model in models], None
        return
    spec = block.target_statistics
    levels = spec.levels(X)
    for i, stats in enumerate(statistics):
        weights = spec.weights(X.shape[1], len(stats.prior))
        yield stats.appended_to(X, levels), [(j, models[i]) for j, models in enumerate(block.models_)], weights


def _explained(block, members, X, flat, fast, width):
    """Each ``(member, model)`` of ``flat`` explained on ``X``, in parallel threads, in the order of ``flat``."""
    has_missing = bool(np.isnan(X).any())
    binned = next((model for _, model in flat if issubclass(block.store.model_class(model), PackedForest)), None)
    codes = None if binned is None else binned.binner.transform(X)

    def task(j, model):
        if isinstance(model, StoredModel):  # loaded in the worker (memory-mapped), and let go
            model = members[j].load(model.record, model.store.path)
            members[j].check_explainable(model, f"forest_types[{j}]")
        return members[j].attributions(model, X, codes, has_missing, fast, width)

    with one_blas_thread():
        return Parallel(n_jobs=block.n_jobs, prefer="threads")(in_one_thread(task)(j, m) for j, m in flat)
