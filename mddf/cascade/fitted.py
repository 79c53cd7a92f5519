"""What a fit produces: the fitted cascade, one object that predicts, transforms and explains by replaying its
kept layers.

The growth engine returns a :class:`FittedCascade` (:meth:`mddf.cascade.growth.CascadeGrowth.finish`) and the
estimator holds it as ``fitted_cascade_``; scikit-learn's fitted attributes (``layers_``, ``alphas_``,
``oof_features_``, ...) are set from it in one place (:func:`mddf.cascade.base.set_fitted`,
:meth:`FittedCascade.attributes`). It holds its kept layers, its task's head (:mod:`.heads`) and its steps after the
layers (:mod:`.steps`); ``predict``, ``predict_proba``, ``transform``, the staged methods and ``explain`` are one
replay of it (:meth:`FittedCascade.replay`) with different visitors (:mod:`.replay`), asked for values or for values
with their attributions; no policy takes part and nothing branches on the task but the head. Pickles of it are
checked, and those of earlier layouts upgraded, by the version policy (:mod:`.versions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from ..storage import MemoryStore
from ..utils import decoded_rows, validate_tabular
from .heads import ClassVectorHead, PredictionHead
from .pair_step import with_pairs
from .replay import LayerRoute
from .seam import Columns
from .steps import CalibrationStep, PredictorStep, SelectionStep
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
        The columns of the fit's ``X`` (number, names, categorical columns, categories, their encoder).
    route : LayerRoute
        What each layer reads (``input_features``).
    layers : list of blocks
        The kept layers (best prefix), fitted.
    store : MemoryStore or ModelStore
        Where the layers' models are (``model_dir``).
    head : ClassVectorHead or PredictionHead
        The task: how the layers' members' outputs become the cascade's (:mod:`.heads`).
    selection, predictor, calibration : SelectionStep, PredictorStep, CalibrationStep or None
        The steps after the layers, in that order (:mod:`.steps`); None: none.
    pair_features : PairFeatures or None
        The fitted pair search, whose features are appended to ``x``.
    background : ndarray or None
        The training rows kept as ``explain()``'s background, as the model reads them.
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
    head: object
    selection: SelectionStep | None = None
    predictor: PredictorStep | None = None
    calibration: CalibrationStep | None = None
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
        a, store = attributes, attributes.get("_model_store")
        if classes is None:
            head = PredictionHead(residual, name)
        else:
            shares, thresholds = a.get("layer_shares_"), a.get("screening_thresholds_")
            head = ClassVectorHead(classes, shares, a.get("alphas_"), thresholds, passed_features)
        return cls(
            name,
            columns,
            route,
            a["layers_"],
            MemoryStore() if store is None else store,
            head,
            **steps_of(a, head, columns),
            pair_features=a.get("pair_features_"),
            background=a.get("background_"),
            record={name: a[name] for name in RECORDED if name in a},
            mddf_version=version or running_version(),
        )

    def __setstate__(self, state):
        self.__dict__.update(checked_layout(state, {1: from_layout_1}))

    # -------------------------------------------------------------------- what the estimator shows
    @property
    def classification(self):
        return self.head.classification

    @property
    def classes(self):
        return self.head.classes

    @property
    def steps(self):
        """The steps after the layers, in order (those fitted)."""
        return [step for step in (self.selection, self.predictor, self.calibration) if step is not None]

    @property
    def selection_weights(self):
        return None if self.selection is None else self.selection.weights

    def attributes(self):
        """scikit-learn's fitted attributes of the estimator (name -> value), read from this object."""
        out = {
            "layers_": self.layers,
            "n_layers_": len(self.layers),
            "background_": None if self.background is None else self.kept_rows(),
            "calibration_": None,
            "predictor_": None,
            "predictor_input_": None,
            "predictor_weight_": None,
            "selection_weights_": None,
            "pair_features_": self.pair_features,
            **self.head.attributes(),
            **self.record,
        }
        for step in self.steps:
            out.update(step.attributes())
        return out

    def kept_rows(self):
        """The rows kept as ``explain()``'s background as the fit's ``X`` gave them (``background_``: a DataFrame of
        its columns, categories as categories, when it had names), so that they can be given back to ``predict`` or
        ``explain``."""
        c = self.columns
        return decoded_rows(self.background, c.names, c.is_categorical, c.categories)

    def output_shape(self):
        """The shape of one row's output (its classes, or its targets: ``()`` for one)."""
        return self.head.output_shape(self.layers)

    def output_names(self):
        """The names of a row's outputs: the classes, or ``output<k>`` for several targets (None for one)."""
        return self.head.output_names(self.layers)

    # -------------------------------------------------------------------- the rows
    def validated(self, X):
        """New rows checked against the fit's columns (their number and names, the categories by the encoder it
        holds): float32, C-ordered, NaN allowed, categories as their codes (an unseen one missing), as the
        estimator's ``predict`` checks them; its messages name the estimator (``name``)."""
        return validate_tabular(fitted_columns(self.columns, self.name), X, **ROWS)

    # -------------------------------------------------------------------- the replay
    def replay(self, X, visitor, n_jobs=None):
        """Send validated rows ``X`` (their ``x``, float32, categories as codes) through the kept layers, the features
        of ``pair_features`` appended, and hand each layer's :class:`~mddf.cascade.replay.LayerVisit` to
        ``visitor`` (:class:`~mddf.cascade.replay.Visitor`), with the attributions its ``explaining`` asks for;
        returns ``visitor.end(self, rows, last visit)``. ``n_jobs``: the layers' workers (the results do not depend
        on it). With ``model_dir``, the folder's marker is checked first (:class:`mddf.ModelFileError` when it is
        missing or names another fit)."""
        X = self.rows(X)
        last = None
        if visitor.reads_layers(self):
            self.store.check_marker()
            for block in self.layers:
                block.n_jobs = n_jobs
            for visit in self.visits(X, visitor.explaining):
                last = visit
                if visitor.layer(visit):
                    break
        return visitor.end(self, X, last)

    def rows(self, X):
        """Validated rows ``X`` as the layers read them: the features of ``pair_features`` appended."""
        return with_pairs(self.pair_features, X)

    def visits(self, X, explaining=None):
        """The :class:`~mddf.cascade.replay.LayerVisit` of each kept layer for rows ``X`` (pairs appended), with the
        selected mixture so far (``selected``) when there is a selection step."""
        visits = self.head.visits(self.route, self.layers, X, explaining)
        return visits if self.selection is None else self.selection.visits(visits)

    @property
    def predictor_reads_x_only(self):
        """Whether the ``predictor`` predicts from ``x`` alone (``predictor_input_="raw"``)."""
        return self.predictor is not None and self.predictor.reads_x_only

    def calibrated(self, output):
        """The cascade's ``output`` (a :class:`~mddf.margin.carried.Carried`) through the calibration step (as it is
        without one)."""
        return output if self.calibration is None else self.calibration.apply(output)

    def final_output(self, X, last, explaining=None):
        """What predicts for rows ``X`` (pairs appended) given the last kept layer's visit ``last`` (None when the
        ``predictor`` reads ``x`` alone): the head's output through the steps after the layers, a
        :class:`~mddf.margin.carried.Carried` (with the attributions ``explaining`` asks for)."""
        output = None if last is None else last.output
        for step in self.steps:
            output = step.apply(output, X, last, explaining)
        return output


#: How new rows are checked: float32, C-ordered, NaN allowed (:func:`mddf.utils.validate_tabular`).
ROWS = dict(reset=False, dtype=np.float32, order="C", ensure_all_finite="allow-nan")


class FittedColumns(BaseEstimator):
    """What the validation of new rows reads of a fit's columns (:func:`fitted_columns`): ``n_features_in_``,
    ``feature_names_in_`` (with names), ``is_categorical_``, ``categories_`` and the category encoder."""


#: The subclass of :class:`FittedColumns` named as each estimator (scikit-learn's messages name the class).
_NAMED_COLUMNS = {}


def fitted_columns(columns, name):
    """``columns`` (:class:`~mddf.cascade.seam.Columns`) as validation reads a fitted estimator's, its class named
    ``name`` (the estimator's) so that the messages of a wrong number of columns or of their names name it."""
    if name not in _NAMED_COLUMNS:
        _NAMED_COLUMNS[name] = type(name, (FittedColumns,), {"__module__": __name__})
    view = _NAMED_COLUMNS[name]()
    view.n_features_in_ = columns.n_features
    if columns.names is not None:
        view.feature_names_in_ = columns.names
    view.is_categorical_, view.categories_, view._category_encoder = (
        columns.is_categorical,
        columns.categories,
        columns.encoder,
    )
    return view


def steps_of(attributes, head, columns):
    """The steps after the layers of scikit-learn's fitted ``attributes`` (see :meth:`FittedCascade.of`)."""
    a = attributes
    steps = {}
    if a.get("selection_weights_") is not None:
        steps["selection"] = SelectionStep(a["selection_weights_"])
    if a.get("predictor_input_") is not None:
        weight = a.get("predictor_weight_")
        steps["predictor"] = PredictorStep(
            a.get("_predictor_model"),
            a.get("predictor_"),
            a["predictor_input_"],
            1.0 if weight is None else weight,
            head.link,
            columns.n_features,
        )
    if a.get("calibration_") is not None:
        steps["calibration"] = CalibrationStep(a["calibration_"])
    return steps


#: The fields of a fitted cascade of layout 1 that its head and steps took over.
LAYOUT_1_FIELDS = (
    "classes",
    "shares",
    "alphas",
    "thresholds",
    "passed_features",
    "residual",
    "selection_weights",
    "calibration",
    "predictor_model",
    "predictor",
    "predictor_input",
    "predictor_weight",
)


def from_layout_1(state):
    """A fitted cascade's state of layout 1 (its head's and steps' fields, :data:`LAYOUT_1_FIELDS`, on the cascade
    itself) in this layout."""
    state = dict(state)
    classes = state.pop("classes")
    shares, alphas, thresholds = state.pop("shares"), state.pop("alphas"), state.pop("thresholds")
    passed_features, residual = state.pop("passed_features"), state.pop("residual")
    if classes is None:
        head = PredictionHead(residual, state["name"])
    else:
        head = ClassVectorHead(classes, shares, alphas, thresholds, passed_features)
    attributes = {
        "selection_weights_": state.pop("selection_weights"),
        "calibration_": state.pop("calibration"),
        "_predictor_model": state.pop("predictor_model"),
        "predictor_": state.pop("predictor"),
        "predictor_input_": state.pop("predictor_input"),
        "predictor_weight_": state.pop("predictor_weight"),
    }
    steps = steps_of(attributes, head, state["columns"])
    return {**state, "head": head, "selection": None, "predictor": None, "calibration": None, **steps, "layout": LAYOUT}
