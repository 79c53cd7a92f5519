"""``final_mixture="selection"``: the final mixture chosen by ensemble selection over every kept layer's members.

Ensemble selection (Caruana, Niculescu-Mizil, Crew and Ksikes, "Ensemble selection from libraries of models", ICML
2004; AutoGluon's weighted ensemble) is a greedy forward selection, with replacement, from a library of models'
held-out outputs: each round adds the model that most lowers the loss of the running average of those selected.
Here the library is every kept layer's members, each with its out-of-fold output of the training rows (the class
vectors, or the predictions of y, that k-fold cross-fitting gives them), and also each layer's output (its members'
mean, or their ``member_weights``' mixture) and the cascade's own (its mixture of the layers), which are mixtures of
the same members. After
:data:`SELECTION_ROUNDS` rounds the first round of lowest loss ends the selection (AutoGluon's rule), so the
selected mixture's out-of-fold loss is never above the best of the library's. The classifier's loss is its error
rate, ties broken by its mean log-loss (zeros clipped to float64's eps, as scikit-learn's ``log_loss``): the
accuracy that early stopping monitors first; the regressor's is the mean squared error (with several targets, its
uniform mean over them); both weighted by ``sample_weight``; ties go to the first in the library's order.

The result is one weight a member, ``selection_weights_`` ``(n_layers_, n_members)``: non-negative, summing to 1,
each the share of the rounds that selected it (a mean or the cascade's output spreads its rounds over its members);
a layer of fewer members than the first (``first_layer_members``) has 0 in the columns beyond its own.
New rows get ``sum_{t, j} w_tj h_tj(x)`` (:class:`mddf.cascade.steps.SelectionStep`), and the classifier's
temperature calibration is fitted on this mixture's out-of-fold output, after it
(:meth:`mddf.cascade.margin_policy.MarginPolicy.calibration_step`).
No draw of ``random_state`` is made, so the layers are those of ``final_mixture="cascade"``.

``final_mixture="auto"`` (the regressor's default) is ``"selection"`` unless a ``predictor`` or ``screening_accuracy``
is set, which make the prediction otherwise; then it is ``"cascade"`` (:func:`final_mixture_of`).
"""

from __future__ import annotations

import numpy as np

from ..margin.carried import Carried, plus, weighted_sum
from ..margin.state import share_weights
from ..utils import squared_errors

#: The rounds of ensemble selection (AutoGluon's default ``ensemble_size``).
SELECTION_ROUNDS = 25
#: The final mixtures: the cascade's own output (eq. 9; the regressor's last layer's mean), ensemble selection, or
#: ``"auto"``, the selection where it can be combined (:func:`final_mixture_of`).
FINAL_MIXTURES = ("cascade", "selection", "auto")
#: The parameters that make the prediction otherwise, which ``"selection"`` cannot be combined with.
OTHER_OUTPUTS = ("predictor", "screening_accuracy")


def final_mixture_of(params):
    """The final mixture that ``params`` (an estimator's ``get_params``) ask for: their ``final_mixture``, where
    ``"auto"`` reads ``"selection"`` unless one of :data:`OTHER_OUTPUTS` is set, and ``"cascade"`` if one is."""
    if params["final_mixture"] != "auto":
        return params["final_mixture"]
    return "cascade" if any(params.get(name) is not None for name in OTHER_OUTPUTS) else "selection"


def check_final_mixture(params, name):
    """A one-line ``ValueError`` when ``final_mixture="selection"`` meets a parameter it cannot be combined with: a
    ``predictor`` (which makes the prediction instead) or ``screening_accuracy`` (a screened row has no output of the
    later layers' members); ``"auto"`` never does."""
    if params["final_mixture"] != "selection":
        return
    for parameter in OTHER_OUTPUTS:
        if params.get(parameter) is not None:
            raise ValueError(
                f"{name}: final_mixture='selection' cannot be combined with {parameter}; set {parameter}=None or "
                "final_mixture='cascade'"
            )


def mixture_weights(shares, n_layers):
    """Each layer's weight in the cascade's output: ``beta_t prod_{l>t} (1 - beta_l)`` from the classifier's layer
    shares ``shares`` (``(1 - beta_t) mix_{t-1} + beta_t h_t``), or, without shares (the regressor), the last
    layer's alone."""
    if shares is not None:
        return share_weights(np.asarray(shares, dtype=np.float64))
    weights = np.zeros(n_layers)
    weights[-1] = 1.0
    return weights


def member_weights_of(layers, counts):
    """Each kept layer's members' weights in its output ``(n_layers, max(counts))``, layer t's ``counts[t]`` of them
    first (0 beyond): the block's ``member_weights_`` (``member_weights="loss"``), or their equal mean."""
    weights = np.zeros((len(layers), max(counts)))
    for t, (block, m) in enumerate(zip(layers, counts)):
        weights[t, :m] = np.full(m, 1.0 / m) if block.member_weights_ is None else block.member_weights_
    return weights


def library(member_weights, layer_weights, counts):
    """The library as weights over the ``(layer, member)`` grid, one row an entry ``(K, n_layers * n_members)``:
    every member alone (of layer t, its ``counts[t]``), each layer's output (its members mixed by ``member_weights``,
    ``(n_layers, n_members)``), then the cascade's output (``layer_weights``, each layer's weight in it)."""
    n_layers, n_members = member_weights.shape
    layer_outputs = np.zeros((n_layers, n_layers * n_members))
    for t, w in enumerate(member_weights):
        layer_outputs[t, t * n_members : (t + 1) * n_members] = w
    cascade = (np.asarray(layer_weights, dtype=np.float64)[:, None] * member_weights).ravel()
    present = (np.arange(n_members)[None, :] < np.asarray(counts)[:, None]).ravel()
    return np.vstack([np.eye(n_layers * n_members)[present], layer_outputs, cascade[None]])


def library_outputs(members, member_weights, layer_weights):
    """Each entry's output (the order of :func:`library`) from the kept layers' ``members`` (each ``(n, m, k)`` class
    vectors or ``(n, m)`` predictions): the members', each layer's, the cascade's."""
    layers = [np.average(layer, axis=1, weights=w[: layer.shape[1]]) for layer, w in zip(members, member_weights)]
    cascade = sum(w * output for w, output in zip(layer_weights, layers))
    return [layer[:, j] for layer in members for j in range(layer.shape[1])] + layers + [cascade]


def greedy_selection(outputs, loss, rounds=SELECTION_ROUNDS):
    """Ensemble selection over the entries' ``outputs`` (a list, each entry's output of every row): ``rounds``
    rounds, each adding (with replacement) the entry whose addition gives the running average the lowest ``loss``
    (a function of an average returning a tuple, compared in order; ties: the first entry), then the selection cut
    after the first round of lowest loss. Returns the selected entries' indices, in order, and the loss after each
    kept round."""
    total = np.zeros_like(outputs[0])
    chosen, losses = [], []
    for r in range(1, rounds + 1):
        candidates = [loss((total + output) / r) for output in outputs]
        best = min(range(len(outputs)), key=candidates.__getitem__)  # the first of the lowest
        chosen.append(best)
        losses.append(candidates[best])
        total = total + outputs[best]
    end = min(range(len(losses)), key=losses.__getitem__) + 1
    return chosen[:end], losses[:end]


def selection_loss(y, weight, classification):
    """The loss of an average output of every row: the classifier's ``(error, log-loss)`` (its error rate first, its
    log-loss breaking ties), the regressor's ``(squared error,)`` (with several targets, a row's mean over them, as
    scikit-learn's ``mean_squared_error`` averages them uniformly); weighted means over the rows."""
    if not classification:
        return lambda averaged: (float(np.average(squared_errors(y, averaged), weights=weight)),)
    eps, rows = np.finfo(np.float64).eps, np.arange(len(y))

    def loss(averaged):
        error = np.average(averaged.argmax(axis=1) != y, weights=weight)
        return float(error), -float(np.average(np.log(np.clip(averaged[rows, y], eps, 1.0)), weights=weight))

    return loss


def mixed(member_outputs, weights):
    """``sum_{t, j} w_tj h_tj``: the members' outputs of each layer (``(n, m, k)`` or ``(n, m)``) mixed by their
    weights ``(n_layers, m)``, layer by layer as :meth:`mddf.cascade.steps.SelectionStep.visits` adds them."""
    total = None
    for members, w in zip(member_outputs, weights):
        total = plus(total, weighted_sum(Carried(members), w[: members.shape[1]]))
    return total.value


def fit_selection(final_mixture, classification, state, kept, shares):
    """The ``final_mixture`` step after growth: ``{"selection_weights_": ...}`` (None with ``"cascade"``) and the
    selected mixture's out-of-fold output of the training rows (None with ``"cascade"``). ``classification``: the
    classifier's loss or the regressor's (:func:`selection_loss`); ``shares``: the kept layers' shares (the
    classifier's; None for the regressor)."""
    if final_mixture != "selection":
        return {"selection_weights_": None}, None
    members, layer_weights = state.oof_members[:kept], mixture_weights(shares, kept)
    counts = [layer.shape[1] for layer in members]
    member_weights = member_weights_of(state.layers[:kept], counts)
    entries = library(member_weights, layer_weights, counts)
    loss = selection_loss(state.y, state.weight, classification)
    chosen, _ = greedy_selection(library_outputs(members, member_weights, layer_weights), loss)
    weights = entries[chosen].sum(axis=0).reshape(kept, -1) / len(chosen)
    return {"selection_weights_": weights}, mixed(members, weights)
