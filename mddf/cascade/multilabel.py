"""Multi-label classification: one binary margin policy per label inside one cascade (MLDF, Yang et al. 2020).

A layer is :class:`LabelBlocks`: one :class:`~mddf.blocks.classifier.ForestBlock` per label, every one fitted on the
same layer input ``[x, f_{t-1}]`` with that label's 0/1 column as its target (its k folds stratified on that label)
and on the same distribution D_t. The layer's class vector is the labels' binary class vectors side by side,
``h_t = [h_t^1, ..., h_t^L]`` (n, 2L): what the next layer reads and what joins the mixture, so that every label's
out-of-fold outputs reach every label's next block (MLDF's "passing each label's outputs on").

The margin rule is one rule shared by the labels (:func:`label_margins`): a row's margin is the mean of its
per-label binary margins (eq. 46 for two classes), ``gamma_t(x_i) = (1/L) sum_l (h_t^{l, y_il} - h_t^{l, 1 -
y_il})``, so that one weight alpha_t (eq. 48) and one distribution D_{t+1} (eq. 47) serve every label, and the
mixture ``f_t / sum alpha`` is a convex combination of every label's class vectors alike. Early stopping monitors the
Hamming accuracy: the (row, label) cells the mixture predicts right (McNemar's test, with ``min_gain_se``, over
those cells). Calibration is per label (:class:`LabelwiseCalibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.preprocessing import LabelEncoder

from ..margin.calibration import fit_temperature
from ..utils import check_sample_weight, check_weighted_classes, validate_tabular, weighted_accuracy
from .margin_policy import MarginPolicy
from .seam import LayerOutcome
from .steps import CalibrationStep

#: The parameters a multi-label fit refuses, and the value it needs of each (see :func:`check_multilabel_params`).
UNSUPPORTED = {
    "predictor": None,
    "class_vectors": "kfold",
    "screening_accuracy": None,
    "pair_features": None,
    "probe_trees": None,
    "validation_fraction": None,
    "final_mixture": "cascade",
    "member_weights": "equal",
}


def check_multilabel_params(params, name):
    """Raise a one-line ``ValueError`` naming the first parameter (of :data:`UNSUPPORTED`) that a multi-label fit
    does not support yet."""
    check_unsupported(params, name, UNSUPPORTED, "multi-label y (a 2-D indicator)")


def check_unsupported(params, name, unsupported, what):
    """Raise a one-line ``ValueError`` naming the first parameter of ``unsupported`` ({name: the value needed})
    whose value in ``params`` differs: ``what`` (e.g. "multi-label y") is not supported with it yet."""
    for key, needed in unsupported.items():
        if params[key] != needed:
            raise ValueError(f"{name}: {what} is not supported with {key}={params[key]!r} yet; set {key}={needed!r}")


def validate_multilabel(estimator, X, y, sample_weight):
    """:class:`mddf.MDDFClassifier`'s validation of its data for a 2-D indicator ``y``: ``estimator.classes_`` set, one
    array per label; returns ``X``, ``y`` as (n, n_labels) column indices and the weights; the settings not supported
    yet and a constant label refused."""
    name = type(estimator).__name__
    check_multilabel_params(estimator.get_params(deep=False), name)
    X, y = validate_tabular(
        estimator, X, y, reset=True, dtype=np.float32, order="C", ensure_all_finite="allow-nan", multi_output=True
    )
    weight = None if sample_weight is None else check_sample_weight(sample_weight, X, estimator_name=name)
    encoders = [LabelEncoder().fit(column) for column in y.T]
    for label, encoder in enumerate(encoders):
        if len(encoder.classes_) < 2:
            raise ValueError(
                f"{name}: label {label} of y is constant ({encoder.classes_.tolist()[0]!r} in every row); "
                "drop that column, as nothing can be learnt of it"
            )
    estimator.classes_ = [encoder.classes_ for encoder in encoders]
    y = np.column_stack([encoder.transform(column) for encoder, column in zip(encoders, y.T)])
    for label, classes in enumerate(estimator.classes_):
        check_weighted_classes(y[:, label], weight, classes, estimator_name=f"{name} (label {label})")
    return X, y, weight


def is_multi_column(y):
    """Whether ``y`` as given is 2-D with more than one column (read through ``__array__`` when it has no shape)."""
    shape = getattr(y, "shape", None)
    if shape is None:
        try:
            shape = np.asarray(y).shape
        except ValueError:  # ragged: validation reports it
            return False
    return len(shape) == 2 and shape[1] > 1


def split_labels(output, n_labels):
    """The per-label blocks ``[output[:, 2l:2l+2] for l]`` of a multi-label output ``(n, 2L)``."""
    return [output[:, 2 * label : 2 * label + 2] for label in range(n_labels)]


def label_margins(h, Y):
    """Per row, the mean over labels of the binary margins of class vectors ``h`` ``(n, 2L)`` for indicator ``Y``
    ``(n, L)`` (0/1): ``(1/L) sum_l (h^{l, y_l} - h^{l, 1 - y_l})``, in [-1, 1]."""
    pairs = np.asarray(h, dtype=np.float64).reshape(len(Y), -1, 2)
    true = np.take_along_axis(pairs, Y[:, :, None], axis=2)[:, :, 0]
    return (2.0 * true - pairs.sum(axis=2)).mean(axis=1)


def cells_right(proba, Y):
    """Whether each (row, label) cell of the mixture ``proba`` ``(n, 2L)`` is predicted right, flattened row-major
    ``(n * L,)``."""
    pairs = np.asarray(proba).reshape(len(Y), -1, 2)
    return (pairs.argmax(axis=2) == Y).ravel()


class LabelBlocks:
    """One cascade layer of a multi-label fit: one :class:`~mddf.blocks.classifier.ForestBlock` per label (``blocks``),
    fitted on the same input; its outputs are the labels' class vectors side by side, ``(n, n_members, 2L)``."""

    #: The members' equal mean (member_weights="loss" is refused with multi-label y; a class attribute, so that a
    #: layer pickled before it has it too).
    member_weights_ = None

    def __init__(self, blocks):
        self.blocks = list(blocks)
        self.probe_ = None  # layer probes are not used with multi-label y

    def fit(self, X, Y, distribution, n_classes, rng, trainable=None, categorical=None, prefix=None):
        """Fit each label's block on ``Y[:, l]`` in turn (seeds drawn from ``rng`` in label order); their out-of-fold
        class vectors side by side ``(n, n_members, 2L)``."""
        outputs = [
            block.fit(X, Y[:, label], distribution, 2, rng, trainable, categorical=categorical, prefix=prefix)
            for label, block in enumerate(self.blocks)
        ]
        self.importances_ = np.mean([block.importances_ for block in self.blocks], axis=0)
        return np.concatenate(outputs, axis=2)

    def predict_proba(self, X, prefix=None):
        """Each member's class vectors of every label for new rows, ``(n, n_members, 2L)``."""
        return np.concatenate([block.predict_proba(X, prefix) for block in self.blocks], axis=2)

    @property
    def n_jobs(self):
        return self.blocks[0].n_jobs

    @n_jobs.setter
    def n_jobs(self, value):
        for block in self.blocks:
            block.n_jobs = value

    @property
    def forest_types(self):
        return self.blocks[0].forest_types

    @property
    def max_depth(self):
        return self.blocks[0].max_depth

    @property
    def nbytes(self):
        return sum(block.nbytes for block in self.blocks)

    def discard(self):
        """Remove every label's stored models (a layer beyond the kept prefix)."""
        for block in self.blocks:
            block.discard()

    def move_to(self, store):
        """Move every label's stored models to ``store``."""
        for block in self.blocks:
            block.move_to(store)

    def to_memory(self):
        """Load every label's stored models into memory."""
        for block in self.blocks:
            block.to_memory()


@dataclass(frozen=True)
class LabelwiseCalibration:
    """The calibration of a multi-label output: per label, a :class:`~mddf.margin.calibration.TemperatureCalibration`
    of its two class shares, or None where it did not lower that label's out-of-fold log-loss."""

    labels: tuple

    def apply(self, proba):
        """The calibrated ``(n, 2L)`` output; each label's argmax unchanged."""
        parts = split_labels(np.asarray(proba, dtype=np.float64), len(self.labels))
        return np.hstack([p if cal is None else cal.apply(p) for p, cal in zip(parts, self.labels)])


class MultiLabelPolicy(MarginPolicy):
    """The policy of a multi-label fit (see the module): ``classes`` is the list of each label's two classes."""

    def check_rows(self, rows):
        """Every label needs ``n_folds`` training rows of each of its two values (its stratified folds)."""
        counts = np.stack([rows.y.shape[0] - rows.y.sum(axis=0), rows.y.sum(axis=0)])
        label = int(np.argmin(counts.min(axis=0)))
        if counts[:, label].min() < self.params.n_folds:
            value = int(np.argmin(counts[:, label]))
            raise ValueError(
                f"label {label} has {counts[value, label]} training samples of value {value}, fewer than "
                f"n_folds={self.params.n_folds}; every label needs n_folds samples of each value for its "
                "stratified folds (lower n_folds or drop the label)"
            )

    def block(self, t, store, probe_trees=None):
        """Layer t's :class:`LabelBlocks`: one block per label, its models under ``layer-<t>-label-<l>``."""
        blocks = [super(MultiLabelPolicy, self).block(t, store) for _ in self.classes]
        for label, block in enumerate(blocks):
            block.name = f"layer-{t:03d}-label-{label:03d}"
        return LabelBlocks(blocks)

    def early_stopping(self, rows):
        """Hamming accuracy: the monitored results are the (row, label) cells, each with its row's weight."""
        stopping = super().early_stopping(rows)
        if stopping.sample_weight is not None:
            stopping.sample_weight = np.repeat(stopping.sample_weight, rows.y.shape[1])
        return stopping

    def add_layer(self, state, layer):
        """Lines 5-8 of Algorithm 2 with the shared margin (:func:`label_margins`); the monitored results are the
        training cells the mixture predicts right (:func:`cells_right`)."""
        cumulative = state.task.cumulative
        h = layer.outputs.mean(axis=1)
        gamma = label_margins(h, state.y)  # line 5, eq. 46 per label, averaged
        alpha, share = cumulative.solve_weight(gamma, state.rng)  # line 6, eq. 48
        cumulative.add_layer(gamma, alpha, share)
        state.train.add_layer(layer.outputs, share)  # line 7: f_t (eq. 7)
        cumulative.reweight()  # line 8: D_{t+1} (eq. 47)
        correct = cells_right(state.train.proba, state.y)
        weight = None if task_weight(state) is None else np.repeat(task_weight(state), state.y.shape[1])
        record = {
            "layer": layer.t,
            "alpha": float(cumulative.alphas[-1]),
            "share": float(cumulative.shares[-1]),
            "oof_accuracy": weighted_accuracy(correct, weight),
            "layer_oof_accuracy": weighted_accuracy(cells_right(h, state.y), weight),
            **cumulative.statistics(),
            "loss": cumulative.loss(),
            "max_depth": layer.block.max_depth,
            "model_bytes": layer.block.nbytes,
        }
        return LayerOutcome(record, correct, None)

    def calibration_step(self, state, kept, predictor, output=None):
        """With ``calibration``, a :class:`LabelwiseCalibration` of the kept prefix's out-of-fold mixture (None when
        no label's log-loss is lowered); ``predictor`` and ``output`` are None (neither a predictor nor
        ``final_mixture="selection"``)."""
        if self.params.calibration is None:
            return None
        parts = split_labels(state.oof_outputs[kept - 1], len(self.classes))
        labels = []
        for label, proba in enumerate(parts):
            fitted = fit_temperature(proba, state.y[:, label], state.weight)
            labels.append(fitted if fitted.log_loss_after < fitted.log_loss_before else None)
        return None if all(c is None for c in labels) else CalibrationStep(LabelwiseCalibration(tuple(labels)))


def task_weight(state):
    """The training rows' weights as the margins read them (None: equal)."""
    return state.task.row_weight
