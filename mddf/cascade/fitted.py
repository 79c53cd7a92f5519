"""What a fit produces: the fitted cascade, one object that predicts, transforms and explains by replaying its
kept layers.

The growth engine returns a :class:`FittedCascade` (:meth:`mddf.cascade.growth.CascadeGrowth.finish`) and the
estimator holds it as ``fitted_cascade_``; scikit-learn's fitted attributes (``layers_``, ``alphas_``,
``oof_features_``, ...) are set from it in one place (:func:`mddf.cascade.base.set_fitted`,
:meth:`FittedCascade.attributes`). ``predict``, ``predict_proba``, ``transform``, the staged methods and
``explain`` are one replay of it (:meth:`FittedCascade.replay`) with different visitors (:mod:`.replay`); no policy
takes part. Pickles of it are checked by the version policy (:mod:`.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._runtime.threads import one_blas_thread, one_thread
from ..blocks.members import check_accepts_nan
from ..storage import MemoryStore
from ..utils import decoded_rows
from .final_predictor import mix
from .pair_step import with_pairs
from .replay import LayerRoute, class_vector_visits, prediction_visits
from .seam import Columns
from .selection import selected_visits
from .versions import LAYOUT, checked_layout, running_version

#: The fitted attributes that a fitted cascade's ``record`` holds, as the estimator shows them.
RECORDED = (
    "train_history_",
    "oof_features_",
    "stop_reason_",
    "layer_importances_",
    "feature_importances_",
    "class_vector_importance_",
    "augmented_feature_importance_",
    "pair_feature_names_",
    "pair_importances_",
    "predictor_input_scores_",
)


@dataclass(eq=False)
class FittedCascade:
    """A fitted cascade: everything its predictions, transforms and explanations read.

    Attributes
    ----------
    name : str
        The estimator's class name, for messages.
    columns : Columns
        The columns of the fit's ``X`` (number, names, categorical columns, categories).
    route : LayerRoute
        What each layer reads (``input_features``).
    layers : list of blocks
        The kept layers (best prefix), fitted.
    store : MemoryStore or ModelStore
        Where the layers' models are (``model_dir``).
    classes : ndarray or None
        The classifier's labels; None for the regressor.
    shares, alphas, thresholds : ndarray or None
        The classifier's layer shares beta_t, weights alpha_t and screening thresholds (None without screening).
    passed_features : str
        The classifier's ``passed_features``.
    residual : bool
        The regressor's members fit what the previous layers left (``target="residual"``).
    calibration : TemperatureCalibration or None
    predictor_model, predictor : object or None
        The fitted ``predictor`` as the model that predicts, and as the estimator ``predictor_``.
    predictor_input : str or None
        What predicts (``"stacked"``, ``"blend"``, ``"raw"``, ``"cascade"``); None without a ``predictor``.
    predictor_weight : float
        The predictor's weight w in ``(1 - w) * cascade + w * predictor``.
    selection_weights : ndarray ``(n_layers, n_members)`` or None
        With ``final_mixture="selection"``, each member's weight in the output (:mod:`.selection`); None: the
        cascade's own output.
    pair_features : PairFeatures or None
        The fitted pair search, whose features are appended to ``x``.
    background : ndarray or None
        The training rows kept as ``explain()``'s background.
    record : dict
        What the fit recorded and the estimator shows unchanged: ``train_history_``, ``oof_features_``,
        ``stop_reason_``, the importances, ``pair_feature_names_``, ``pair_importances_``,
        ``predictor_input_scores_`` (name -> value).
    mddf_version : str
        The version of mddf that fitted it.
    layout : int
        Its layout (:data:`LAYOUT`).
    """

    name: str
    columns: Columns
    route: LayerRoute
    layers: list
    store: object
    classes: np.ndarray | None = None
    shares: np.ndarray | None = None
    alphas: np.ndarray | None = None
    thresholds: np.ndarray | None = None
    passed_features: str = "mean"
    residual: bool = False
    calibration: object = None
    predictor_model: object = None
    predictor: object = None
    predictor_input: str | None = None
    predictor_weight: float = 1.0
    selection_weights: np.ndarray | None = None
    pair_features: object = None
    background: np.ndarray | None = None
    record: dict = field(default_factory=dict)
    mddf_version: str = field(default_factory=running_version)
    layout: int = LAYOUT

    @classmethod
    def of(
        cls, attributes, *, name, columns, route, classes=None, passed_features="mean", residual=False, version=None
    ):
        """The fitted cascade of scikit-learn's fitted ``attributes`` (name -> value, as :meth:`attributes` gives
        them, and ``_model_store`` and ``_predictor_model``) and what the task replays (see the class); ``version``:
        of mddf that fitted it (None: the running one). An attribute absent is none (the predictor's weight: 1;
        the store: in memory)."""
        a, store, weight = attributes, attributes.get("_model_store"), attributes.get("predictor_weight_")
        return cls(
            name,
            columns,
            route,
            a["layers_"],
            MemoryStore() if store is None else store,
            classes=classes,
            shares=a.get("layer_shares_"),
            alphas=a.get("alphas_"),
            thresholds=a.get("screening_thresholds_"),
            passed_features=passed_features,
            residual=residual,
            calibration=a.get("calibration_"),
            predictor_model=a.get("_predictor_model"),
            predictor=a.get("predictor_"),
            predictor_input=a.get("predictor_input_"),
            predictor_weight=1.0 if weight is None else weight,
            selection_weights=a.get("selection_weights_"),
            pair_features=a.get("pair_features_"),
            background=a.get("background_"),
            record={name: a[name] for name in RECORDED if name in a},
            mddf_version=version or running_version(),
        )

    def __setstate__(self, state):
        self.__dict__.update(checked_layout(state))

    # -------------------------------------------------------------------- what the estimator shows
    @property
    def classification(self):
        return self.classes is not None

    def attributes(self):
        """scikit-learn's fitted attributes of the estimator (name -> value), read from this object."""
        out = {
            "layers_": self.layers,
            "n_layers_": len(self.layers),
            "background_": None if self.background is None else self.kept_rows(),
            "calibration_": self.calibration,
            "predictor_": self.predictor,
            "predictor_input_": self.predictor_input,
            "predictor_weight_": self.predictor_weight if self.predictor_input is not None else None,
            "selection_weights_": self.selection_weights,
            "pair_features_": self.pair_features,
            **self.record,
        }
        if self.classification:
            out.update(classes_=self.classes, alphas_=self.alphas, layer_shares_=self.shares)
            out["screening_thresholds_"] = self.thresholds
        return out

    def kept_rows(self):
        """The rows kept as ``explain()``'s background as the fit's ``X`` gave them (``background_``: a DataFrame of
        its columns, categories as categories, when it had names), so that they can be given back to ``predict`` or
        ``explain``."""
        c = self.columns
        return decoded_rows(self.background, c.names, c.is_categorical, c.categories)

    # -------------------------------------------------------------------- the replay
    def replay(self, X, visitor, n_jobs=None):
        """Send validated rows ``X`` (their ``x``, float32, categories as codes) through the kept layers, the features
        of ``pair_features`` appended, and hand each layer's :class:`~mddf.cascade.replay.LayerVisit` to
        ``visitor`` (:class:`~mddf.cascade.replay.Visitor`); returns ``visitor.end(self, rows, last visit)``.
        ``n_jobs``: the layers' workers (the results do not depend on it). With ``model_dir``, the folder's marker
        is checked first (:class:`mddf.ModelFileError` when it is missing or names another fit)."""
        X = self.rows(X)
        last = None
        if visitor.reads_layers(self):
            self.store.check_marker()
            for block in self.layers:
                block.n_jobs = n_jobs
            for visit in self.visits(X):
                last = visit
                if visitor.layer(visit):
                    break
        return visitor.end(self, X, last)

    def rows(self, X):
        """Validated rows ``X`` as the layers read them: the features of ``pair_features`` appended."""
        return with_pairs(self.pair_features, X)

    def visits(self, X):
        """The :class:`~mddf.cascade.replay.LayerVisit` of each kept layer for rows ``X`` (pairs appended), with the
        selected mixture so far (``selected``) when there are ``selection_weights``."""
        if self.classification:
            visits = class_vector_visits(self.route, self.passed_features, self.layers, self.shares, self.thresholds, X)
        else:
            visits = prediction_visits(self.route, self.layers, self.residual, self.name, X)
        return visits if self.selection_weights is None else selected_visits(visits, self.selection_weights)

    @property
    def predictor_reads_x_only(self):
        """Whether the ``predictor`` predicts from ``x`` alone (``predictor_input_="raw"``)."""
        return self.predictor_model is not None and self.predictor_input == "raw"

    def calibrated(self, output):
        """The cascade's ``output`` through ``calibration`` (as it is without one)."""
        return output if self.calibration is None else self.calibration.apply(output)

    def predictor_rows(self, X, passed):
        """The ``predictor``'s input for rows ``X`` (pairs appended): ``[x, passed]``, or ``x`` alone with
        ``predictor_input_="raw"`` (``passed``, the last kept layer's, is then not read)."""
        Z = X if self.predictor_input == "raw" else np.hstack([X, passed.astype(np.float32)])
        return np.ascontiguousarray(Z, dtype=np.float32)

    def final_output(self, X, last):
        """What predicts for rows ``X`` (pairs appended) given the last kept layer's visit ``last``: the
        ``predictor``'s output, mixed as ``(1 - w) * cascade + w * predictor`` when its weight w < 1, or the
        selected mixture of the members (``selection_weights``), or the cascade's last output, calibrated."""
        if self.selection_weights is not None:
            return self.calibrated(last.selected)
        if self.predictor_model is None:
            return self.calibrated(last.output)
        Z = self.predictor_rows(X, None if last is None else last.passed)
        if np.isnan(Z[:, : self.columns.n_features]).any():
            check_accepts_nan(self.predictor, "predictor")
        with one_blas_thread():
            output = one_thread(self.predictor_output, Z)
        return output if self.predictor_weight == 1.0 else mix(last.output, output, self.predictor_weight)

    def predictor_output(self, Z):
        """The fitted ``predictor``'s class probabilities (the classifier) or predictions (float64) for ``Z``."""
        if self.classification:
            return self.predictor_model.predict_proba(Z)
        return np.asarray(self.predictor_model.predict(Z), dtype=np.float64)
