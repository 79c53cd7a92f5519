"""What a cascade's task adds to the growth engine (:class:`mddf.cascade.growth.CascadeGrowth`): the policy contract and
the parts both tasks share.

A policy is built on a cascade estimator and reads its parameters; the engine calls it for everything that
depends on the task: validating the data (:meth:`TaskPolicy.training_rows`), a layer's block and its fit
(:meth:`TaskPolicy.block`, :meth:`TaskPolicy.fit_block`), what an added layer passes on and what early stopping
monitors (:meth:`TaskPolicy.add_layer`), the fitted attributes of the kept layers and of the steps after growth
(:meth:`TaskPolicy.kept_attributes`, :meth:`TaskPolicy.after_growth`), and at prediction the outputs of the kept
layers (:meth:`TaskPolicy.replay`). :class:`mddf.cascade.margin_policy.MarginPolicy` (classification: class vectors,
margins and layer weights, Algorithm 2) and :class:`mddf.cascade.residual_policy.ResidualPolicy` (regression: each
member's prediction, residual targets) are the two.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import train_test_split

from ..forests.growing import MAX_SEED


class TaskPolicy:
    """The parts of a policy both tasks share; a task overrides the rest (see the module).

    Parameters
    ----------
    cascade : estimator
        The cascade whose parameters the policy reads (and whose fitted attributes it reads at prediction).
    """

    #: Whether the task is classification (the predictor's halves are stratified by class).
    classification = False
    #: The name of the attribute that receives the passed columns' mean share of the importances.
    passed_importance_attr = "passed_importance_"

    def __init__(self, cascade):
        self.cascade = cascade

    # -------------------------------------------------------------- the layers' input
    @property
    def forest_types(self):
        return tuple(self.cascade.forest_types)

    @property
    def binned_trees(self):
        """Whether the forests grow binned trees (:mod:`mddf.trees`), which bin ``x`` once for every layer."""
        return True

    def layer_input(self, X, passed, t):
        """Input of layer t (1-based): ``x``, then ``[x, passed]`` (float32, C-contiguous)."""
        if t == 1:
            return X
        return np.hstack([X, passed.astype(np.float32, copy=False)])

    def layer_holds_x(self, t):
        """Whether the input of layer t begins with the columns of ``x``."""
        return True

    def layer_prefix(self, x_codes, t):
        """``x_codes`` (the rows' :class:`~mddf.forests.PrefixCodes`) if layer t's input begins with ``x``; else
        None."""
        return x_codes if self.layer_holds_x(t) else None

    def layer_depth(self, t):
        """Depth limit of layer t's trees, ``max_depth_factor * (t + 1)`` (None: unbounded)."""
        factor = self.cascade.max_depth_factor
        return None if factor is None else factor * (t + 1)

    def importance_split(self, t, importances, n_columns):
        """Layer t's importances on the columns of ``x``, and their total on the passed columns."""
        return importances[:n_columns], importances[n_columns:].sum()

    # -------------------------------------------------------------- data and stopping
    def stopping_tol(self, y, weight):
        """``tol`` on the scale of the monitored score of targets ``y``."""
        return self.cascade.tol

    def split_validation(self, X, y, weight, rng, stratify):
        """Hold out ``validation_fraction`` of the rows (the weights follow their rows); each part needs a positive
        weight. Returns ``X, X_val, y, y_val, weight, weight_val``."""
        X, X_val, y, y_val, *weights = train_test_split(
            X,
            y,
            *([] if weight is None else [weight]),  # the weights follow their rows; the split is as without
            test_size=self.cascade.validation_fraction,
            stratify=y if stratify else None,
            random_state=rng.randint(MAX_SEED),
        )
        X, X_val = np.ascontiguousarray(X), np.ascontiguousarray(X_val)
        weight, weight_val = weights or (None, None)
        if weight is not None:
            for part, w in (("training", weight), ("held-out", weight_val)):
                if not np.any(w > 0):
                    raise ValueError(
                        f"{type(self.cascade).__name__}: every {part} row of the validation_fraction split has "
                        "sample weight zero; give more rows a positive weight"
                    )
        return X, X_val, y, y_val, weight, weight_val

    # -------------------------------------------------------------- after growth
    def reads_oof_outputs(self):
        """Whether a step after growth reads the out-of-fold output after each layer (``predictor_input="auto"``)."""
        return self.cascade.predictor is not None and self.cascade.predictor_input == "auto"

    def kept_attributes(self, state, kept):
        """The task's fitted attributes of the kept prefix (e.g. the layer weights)."""
        return {}

    def after_growth(self, state, kept):
        """The fitted attributes of the task's own steps after growth and the predictor (e.g. a calibration)."""
        return {}

    def log_end(self):
        """With ``verbose``, what to print once growth has stopped; nothing unless overridden."""


def probe_note(record):
    """What a verbose layer line says of a probed layer (``train_history_``'s ``probe_*`` keys): its probe's trees
    and whether it was grown on from them; nothing for a layer grown in full at once."""
    if "probe_trees" not in record:
        return ""
    finished = "grown in full" if record["finished"] else "decided on the probe"
    return f"  (probe of {record['probe_trees']} trees: {finished})"
