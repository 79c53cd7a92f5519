"""The regressor's policy: each member's prediction passed on, residual targets (Zhou and Feng's cascade forest for
regression, DF21's ``CascadeForestRegressor``).

For each layer the engine (:class:`mddf.cascade.growth.CascadeGrowth`) fits, the members are trained on the target or,
with ``target="residual"``, on what the previous layers left of it, out of fold; :meth:`ResidualPolicy.add_layer`
passes on each member's prediction of y, ``h_t`` (a residual member's output plus the previous prediction), and
early stopping monitors the squared error of their mean.
"""

from __future__ import annotations

import numpy as np
from sklearn.ensemble import RandomForestRegressor
from sklearn.metrics import r2_score

from ..blocks.members import check_forest_types
from ..blocks.regressor import RegressionForestBlock
from ..forests import make_gbdt, make_hgb
from ..utils import NEGATIVE_MSE, squared_errors
from .heads import PredictionHead, Predictions
from .policy import TaskPolicy, probe_note
from .prediction_mean import PredictionMean
from .seam import LayerOutcome


def weighted_variance(y, weight):
    """The weighted variance of y; of a 2-D y (several targets), the mean of its columns' variances."""
    if y.ndim == 2:
        mean = np.average(y, axis=0, weights=weight)
        return float(np.mean(np.average((y - mean) ** 2, axis=0, weights=weight)))
    mean = np.average(y, weights=weight)
    return np.average((y - mean) ** 2, weights=weight)


class ResidualPolicy(TaskPolicy):
    """The regressor's policy (see the module)."""

    measure = NEGATIVE_MSE
    passed_importance_attr = "augmented_feature_importance_"

    def __init__(self, params, columns=None, *, name="CascadeForestRegressor", log_name="CascadeForestRegressor"):
        super().__init__(params, columns, name=name, log_name=log_name)

    # -------------------------------------------------------------- the layers
    def check_forest_types(self):
        return check_forest_types(self.params.forest_types, "regression")

    def layer_depth(self, t):
        """Depth limit of layer t's trees: the smaller of ``max_depth`` and ``max_depth_factor * (t + 1)``."""
        c = self.params
        limits = [c.max_depth] if c.max_depth is not None else []
        if c.max_depth_factor is not None:
            limits.append(c.max_depth_factor * (t + 1))
        return min(limits) if limits else None

    def block(self, t, store, probe_trees=None):
        """Layer t's untrained block; its forests go to the ``store``, under ``layer-<t>``."""
        c = self.params
        block = RegressionForestBlock(
            self.layer_members(t),
            self.spec.layer_trees(t),
            self.layer_depth(t),
            c.max_features,
            c.n_folds,
            c.n_jobs,
            store=store,
            name=f"layer-{t:03d}",
            fold_trees=c.fold_trees,
            probe_trees=probe_trees,
            target_statistics=self.statistics_spec(t),
        )
        block.monotone = self.layer_constraints()
        block.categories = self.layer_categories(t)
        return block

    # -------------------------------------------------------------- the data
    def stopping_tol(self, y, weight):
        """``tol`` times the weighted variance of the monitored targets: a gain in R^2 of more than ``tol``."""
        return self.params.tol * weighted_variance(y, weight)

    def new_state(self, rows):
        residual = self.params.target == "residual"
        return PredictionMean(residual, self.name), PredictionMean(residual, self.name), None

    def _with_pair_features(self, rows, rng, search):
        """No ``pair_features`` search for several targets (a 2-D y): its probes read one target."""
        return rows if rows.y.ndim == 2 else super()._with_pair_features(rows, rng, search)

    # -------------------------------------------------------------- one layer
    def fit_block(self, state, block, X, binning):
        y = state.y
        if self.params.target == "residual":
            y = y - state.train.prediction  # what the previous layers left, out-of-fold
        return block.fit(X, y, state.weight, state.rng, **binning)

    def add_layer(self, state, layer):
        """Record layer t's out-of-fold MSE (and held-out MSE) and pass its predictions on; the monitored rows are the
        squared errors of the training (or held-out) rows."""
        y, weight = state.y, state.weight
        oof = state.train.passed_on(layer.outputs).value
        weights = self.weigh_members(layer.block, oof, y, weight)
        prediction = np.average(oof, axis=1, weights=weights)
        errors = squared_errors(y, prediction)
        record = {
            "layer": layer.t,
            "oof_mse": float(np.average(errors, weights=weight)),
            "oof_r2": float(r2_score(y, prediction, sample_weight=weight)),
            "forest_oof_mse": [
                float(np.average(squared_errors(y, oof[:, j]), weights=weight)) for j in range(oof.shape[1])
            ],
            "max_depth": layer.block.max_depth,
            "model_bytes": layer.block.nbytes,
        }
        state.train.add_layer(oof, weights)
        if state.X_val is not None:  # the held-out rows go through the layer and are the ones monitored
            X_val = self.layer_input(state.X_val, state.val.passed, layer.t)
            output = layer.block.predict(X_val, self.layer_prefix(state.val_x, layer.t))
            state.val.add_layer(state.val.passed_on(output), weights)
            prediction = state.val.prediction
            errors = squared_errors(state.y_val, prediction)
            record["val_mse"] = float(np.average(errors, weights=state.weight_val))
            record["val_r2"] = float(r2_score(state.y_val, prediction, sample_weight=state.weight_val))
        return LayerOutcome(record, errors, members=self.kept_members(oof))

    # -------------------------------------------------------------- the predictor
    def predictor_template(self, n_columns):
        """The unfitted ``predictor``: XGBoost or HistGradientBoosting (both splitting the categorical columns of
        ``x`` into category subsets), a random forest or the instance given."""
        c = self.params
        categorical = self.categorical_prefix(n_columns)
        if c.predictor == "xgboost":
            return make_gbdt(task="regression", categorical=categorical)
        if c.predictor == "hgb":
            return make_hgb(task="regression", categorical=categorical)
        if c.predictor == "forest":
            return RandomForestRegressor(n_estimators=4 * c.n_estimators, max_features=c.max_features, n_jobs=c.n_jobs)
        return c.predictor

    link = Predictions()  # how its predictor is fitted, read and scored (:mod:`mddf.cascade.heads`)

    def head(self, fitted):
        """The regressor's head (:class:`mddf.cascade.heads.PredictionHead`)."""
        return PredictionHead(self.params.target == "residual", self.name)

    # -------------------------------------------------------------- verbose
    def log_layer(self, record):
        if not self.params.verbose:
            return
        val = ""
        if "val_mse" in record:
            val = f"  val_mse={record['val_mse']:.6g}  val_r2={record['val_r2']:.4f}"
        print(
            f"[{self.log_name}] layer {record['layer']:2d}  oof_mse={record['oof_mse']:.6g}  "
            f"oof_r2={record['oof_r2']:.4f}{val}  {record['fit_seconds']:.1f}s{probe_note(record)}",
            flush=True,
        )
