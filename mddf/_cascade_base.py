"""What the classification and regression cascades share: growth, early stopping, outputs, storage, predictor.

A cascade grows layers (blocks of forests) one at a time, each trained on the
input ``x`` and what the previous layer passes on, until ``max_layers`` or early
stopping, and keeps the best prefix (:class:`CascadeBase`). The loop is
scikit-learn's boosting loop: set up, then per layer fit a block and add it,
then finish; :class:`mddf.MDDFClassifier` and :class:`mddf.CascadeForestRegressor`
say how a layer is fitted and added (margins and class-vector mixtures, or mean
predictions), what is monitored and what is predicted.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.base import is_classifier
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.parallel import Parallel
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ._layer_features import LayerFeaturesMixin
from ._members import check_accepts_nan, is_forest
from ._pair_step import fit_pair_features, pair_feature_names, pair_template, with_pairs
from ._stopping import EarlyStopping
from ._storage import MemoryStore, ModelStore, open_store, temporary_folders_removed_on_sigterm
from ._threads import in_one_thread, one_blas_thread, one_thread
from .forests import MAX_SUBSET_CATEGORIES, BinnedInput, PrefixCodes
from .forests.growing import MAX_SEED
from .utils import CATEGORICAL_FEATURES_CONSTRAINT, validate_tabular


@dataclass(eq=False)
class Growth:
    """The state of a growing cascade between layers.

    ``train`` and ``val`` hold what the layers pass on for the training rows
    (out-of-fold) and for the held-out rows (``validation_fraction``); their
    ``passed`` is None before the first layer. ``oof_features`` and
    ``oof_outputs`` hold, per grown layer, the training rows' out-of-fold
    ``passed`` and (only for the steps after growth that read it: a predictor
    with ``predictor_input="auto"``, calibration) the cascade's out-of-fold
    prediction after that layer.
    ``active`` and ``val_active`` are the training and held-out rows still in
    the cascade (confidence screening; None: every row), the only rows the next
    layer trains on and predicts.
    """

    forest_types: tuple
    rng: np.random.RandomState
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray | None
    X_val: np.ndarray | None
    y_val: np.ndarray | None
    weight_val: np.ndarray | None
    train: object
    val: object
    stopping: EarlyStopping
    store: MemoryStore | ModelStore
    binned_x: object = None  # x binned once for every layer whose input begins with it
    layers: list = field(default_factory=list)
    history: list = field(default_factory=list)
    oof_features: list = field(default_factory=list)
    oof_outputs: list = field(default_factory=list)
    active: np.ndarray | None = None
    val_active: np.ndarray | None = None

    def __post_init__(self):
        self.val_x = None if self.X_val is None else PrefixCodes(self.X_val)  # the held-out x, binned once


PREDICTOR_WEIGHTS = np.arange(21) / 20
"""The predictor's weights that ``predictor_input="auto"`` tries against the cascade's output."""


def _mix(cascade_output, predictor_output, w):
    """``(1 - w) * cascade_output + w * predictor_output``: exactly one of them at w = 0 or 1."""
    if w == 0.0:
        return cascade_output
    if w == 1.0:
        return predictor_output
    return (1.0 - w) * cascade_output + w * predictor_output


class CascadeBase(LayerFeaturesMixin, ABC):
    """The growth loop, early stopping, layer features, staged outputs, importances, predictor and ``model_dir``.

    A subclass says what the task is through the abstract hooks below (an instance of a subclass
    that lacks one cannot be made): what early stopping monitors (:attr:`_measure`), the name of
    the passed columns' importance (:attr:`_passed_importance_attr`), whether its forests grow
    binned trees (:attr:`_binned_trees`), how the data are checked and a layer is built, fitted,
    recorded and replayed, and what the final predictor is and outputs. The parameters below are
    common to both cascades (see :class:`mddf.MDDFClassifier` for what they mean).
    """

    # ------------------------------------------------------------------- hooks
    @property
    @abstractmethod
    def _measure(self):
        """The score early stopping monitors and its paired test (:data:`mddf._stopping.ACCURACY`, ...)."""

    @property
    @abstractmethod
    def _passed_importance_attr(self):
        """The name of the attribute that receives the passed columns' mean share of the importances."""

    @property
    @abstractmethod
    def _binned_trees(self):
        """Whether the layers' forests grow binned trees (:mod:`mddf.trees`), which bin ``x`` once for every layer."""

    @abstractmethod
    def _check_forest_types(self):
        """The validated ``forest_types``, as a tuple."""

    @abstractmethod
    def _training_data(self, X, y, sample_weight, rng):
        """Validate the data; return ``X, y, weight, X_val, y_val, weight_val`` (the held-out parts None
        without ``validation_fraction``)."""

    @abstractmethod
    def _new_growth(self, **state):
        """The :class:`Growth` (or a subclass) before the first layer, from the fields of ``state``."""

    @abstractmethod
    def _block(self, forest_types, t, store):
        """Layer t's untrained block, whose models go to ``store``."""

    @abstractmethod
    def _fit_block(self, block, growth, X, **binning):
        """Fit ``block`` on the layer input ``X``; return its out-of-fold outputs per member."""

    @abstractmethod
    def _add_layer(self, growth, t, block, per_member, start):
        """Add fitted layer t to ``growth`` (through :meth:`_keep_layer`); return whether growth stops."""

    @abstractmethod
    def _log_layer(self, record):
        """With ``verbose``, report a grown layer's record."""

    @abstractmethod
    def _replay(self, X):
        """Yield ``(passed, output)`` after each kept layer for validated rows ``X``."""

    @abstractmethod
    def _predictor_template(self, categorical=None):
        """The unfitted ``predictor`` (its ``categorical`` columns split into category subsets where it can)."""

    @abstractmethod
    def _fit_final(self, template, Z, y, weight, seed):
        """``(model, estimator)``: the predictor fitted on ``Z``, as the model that predicts and as ``predictor_``."""

    @abstractmethod
    def _predictor_output(self, model, Z):
        """The fitted predictor's output for the rows of ``Z`` (what the cascade outputs)."""

    @abstractmethod
    def _output_rows(self, output, y):
        """The per-row results of the monitored measure for ``output`` against ``y`` (what early stopping reads)."""

    @abstractmethod
    def _layer_feature_names(self, layer=None):
        """The names of the columns that kept layer ``layer`` (1-based, None: the last) passes on."""

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "forest_types": [tuple, list],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth_factor": [Interval(Integral, 1, None, closed="left"), None],
        "max_layers": [Interval(Integral, 1, None, closed="left")],
        "n_tolerant_layers": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "min_gain_se": [Interval(Real, 0, None, closed="left")],
        "min_error_reduction": [Interval(Real, 0, 1, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "categorical_splits": [StrOptions({"subset", "ordinal"})],
        "fold_trees": [StrOptions({"all", "share", "refit"})],
        "predictor_input": [StrOptions({"stacked", "auto"})],
        "pair_features": [None, StrOptions({"auto"}), HasMethods(["fit_task", "transform"])],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "model_dir": [None, str, os.PathLike],
    }

    def __setstate__(self, state):
        if "layers_" in state and state.get("_model_store") is None:  # fitted when in-memory models had no store
            state["_model_store"] = MemoryStore()
        super().__setstate__(state)

    # ---------------------------------------------------------------------- fit
    def _fit_in_store(self, X, y, sample_weight):
        """Grow the cascade; with ``model_dir="auto"`` a SIGTERM meanwhile removes its temporary folder."""
        with temporary_folders_removed_on_sigterm(self.model_dir):
            self._fit(X, y, sample_weight)
        return self

    def _fit(self, X, y, sample_weight=None):
        """One layer per pass, until ``max_layers`` or early stopping; keep the best prefix."""
        growth = self._begin_growth(X, y, sample_weight)
        for t in range(1, self.max_layers + 1):
            if self._add_layer(growth, *self._fit_layer(growth, t)):
                break
        self._end_growth(growth)
        return self

    def _begin_growth(self, X, y, sample_weight, rng=None):
        """Validate the data, claim the store and set up the state before the first layer.

        ``rng`` replaces the generator drawn from ``random_state`` (it is used as
        it is, not copied); :class:`~mddf._search.MDDFGridSearch` passes the
        generator of a shared first layer.
        """
        forest_types = self._check_forest_types()
        if isinstance(self.predictor, type):  # scikit-learn's HasMethods lets a class through
            name = self.predictor.__name__
            raise TypeError(f"predictor: {name} is a class; pass an instance, e.g. {name}()")
        if rng is None:
            rng = check_random_state(self.random_state)
        X, y, weight, X_val, y_val, weight_val = self._training_data(X, y, sample_weight, rng)
        X, X_val = self._fit_pair_features(X, y, weight, X_val, rng)
        previous = self.__dict__.get("_model_store")
        if previous is not None and previous.temporary:  # an "auto" folder goes with the fit that made it
            previous.destroy()
        self._model_store = open_store(self.model_dir)
        monitored_weight = weight if X_val is None else weight_val
        return self._new_growth(
            forest_types=forest_types,
            rng=rng,
            X=X,
            y=y,
            weight=weight,
            X_val=X_val,
            y_val=y_val,
            weight_val=weight_val,
            store=self._model_store,
            stopping=EarlyStopping(
                self.n_tolerant_layers,
                tol=self._stopping_tol(y if X_val is None else y_val, monitored_weight),
                min_gain_se=self.min_gain_se,
                min_error_reduction=self.min_error_reduction,
                monitored="out-of-fold" if X_val is None else "validation",
                sample_weight=monitored_weight,
                measure=self._measure,
            ),
        )

    def _fit_pair_features(self, X, y, weight, X_val, rng):
        """Run the ``pair_features`` search on the training rows (``pair_features_``); return ``X`` and the held-out
        ``X_val`` with the chosen features appended (as they are without a search)."""
        template = pair_template(self.pair_features, type(self).__name__)
        self.pair_features_ = self.pair_feature_names_ = None
        if template is None:
            return X, X_val
        search = fit_pair_features(
            template, X, y, weight, self.is_categorical_, rng, regression=not is_classifier(self), n_jobs=self.n_jobs
        )
        self.pair_features_ = search
        names = getattr(self, "feature_names_in_", None)
        names = np.asarray([f"x{j}" for j in range(self.n_features_in_)]) if names is None else names
        self.pair_feature_names_ = pair_feature_names(search, names)
        return with_pairs(search, X), None if X_val is None else with_pairs(search, X_val)

    def _stopping_tol(self, y, weight):
        """``tol`` on the scale of the monitored score of targets ``y``."""
        return self.tol

    def _split_validation(self, X, y, weight, rng, stratify):
        """Hold out ``validation_fraction`` of the rows (the weights follow their rows); return both parts.

        Returns ``X, X_val, y, y_val, weight, weight_val``; each part needs a positive weight.
        """
        X, X_val, y, y_val, *weights = train_test_split(
            X,
            y,
            *([] if weight is None else [weight]),  # the weights follow their rows; the split is as without
            test_size=self.validation_fraction,
            stratify=y if stratify else None,
            random_state=rng.randint(MAX_SEED),
        )
        X, X_val = np.ascontiguousarray(X), np.ascontiguousarray(X_val)
        weight, weight_val = weights or (None, None)
        if weight is not None:
            for part, w in (("training", weight), ("held-out", weight_val)):
                if not np.any(w > 0):
                    raise ValueError(
                        f"{type(self).__name__}: every {part} row of the validation_fraction split has "
                        "sample weight zero; give more rows a positive weight"
                    )
        return X, X_val, y, y_val, weight, weight_val

    def _layer_depth(self, t):
        """Depth limit of layer t's trees, ``max_depth_factor * (t + 1)`` (None: unbounded)."""
        return None if self.max_depth_factor is None else self.max_depth_factor * (t + 1)

    def _layer_input(self, X, passed, t):
        """Input of layer t (1-based): ``x``, then ``[x, passed]`` (float32, C-contiguous)."""
        if t == 1:
            return X
        return np.hstack([X, passed.astype(np.float32, copy=False)])

    def _fit_layer(self, growth, t):
        """Layer t's block, fitted, and its out-of-fold outputs per member.

        Returns ``(t, block, per_member, start)``, ``start`` the ``perf_counter`` at which the layer began.
        """
        start = time.perf_counter()
        block = self._block(growth.forest_types, t, growth.store)
        if growth.active is None:
            X = self._layer_input(growth.X, growth.train.passed, t)
        else:  # the rows still in the cascade (confidence screening)
            X = self._layer_input(growth.X[growth.active], growth.train.passed[growth.active], t)
        categorical = self._layer_categorical(X.shape[1], t)
        per_member = self._fit_block(block, growth, X, categorical=categorical, prefix=self._binned_x(growth, t))
        return t, block, per_member, start

    def _binned_x(self, growth, t):
        """``x`` binned once for every layer that begins with it; None when layer t's trees are not binned
        or train on part of the rows (confidence screening: binned on those rows)."""
        binned = self._binned_trees and any(map(is_forest, growth.forest_types))
        if not binned or not self._layer_holds_x(t) or growth.active is not None:
            return None
        if growth.binned_x is None:
            growth.binned_x = BinnedInput(growth.X)
        return growth.binned_x

    def _layer_holds_x(self, t):
        """Whether the input of layer t begins with the columns of ``x``."""
        return True

    def _layer_prefix(self, x_codes, t):
        """``x_codes`` (the :class:`PrefixCodes` of the rows' ``x``) if layer t's input begins with ``x``, else None."""
        return x_codes if self._layer_holds_x(t) else None

    def _layer_categorical(self, n_columns, t):
        """The columns of layer t's input that the block splits into category subsets; None: none.

        The categorical columns of ``x`` with ``categorical_splits="subset"``
        (the columns that the previous layers pass on are numbers), for the
        binned trees and the ``"gbdt"`` members.
        """
        if not self._layer_holds_x(t):
            return None
        return self._categorical_prefix(n_columns)

    def _categorical_prefix(self, n_columns):
        """Of ``n_columns`` that begin with ``x``, those to split into category subsets; None: none.

        With ``categorical_splits="subset"``, the categorical columns of ``x`` of at most
        :data:`MAX_SUBSET_CATEGORIES` categories (a column of more is split as codes).
        """
        if self.categorical_splits != "subset" or self.is_categorical_ is None:
            return None
        mask = np.zeros(n_columns, dtype=bool)
        mask[: len(self.is_categorical_)] = [
            c and len(cats) <= MAX_SUBSET_CATEGORIES for c, cats in zip(self.is_categorical_, self.categories_)
        ]
        return mask if mask.any() else None

    def _keep_layer(self, growth, block, record, start, monitored):
        """Record a grown layer; ``monitored`` are the per-row results early stopping reads. True: stop."""
        record["fit_seconds"] = time.perf_counter() - start
        growth.layers.append(block)
        growth.history.append(record)
        growth.oof_features.append(growth.train.passed.astype(np.float32))
        if self._reads_oof_outputs():
            growth.oof_outputs.append(np.array(growth.train.output, dtype=np.float64))
        self._log_layer(record)
        return growth.stopping.update(monitored)

    def _reads_oof_outputs(self):
        """Whether a step after growth reads the out-of-fold output after each layer (``predictor_input="auto"``)."""
        return self.predictor is not None and self.predictor_input == "auto"

    def _end_growth(self, growth):
        """Keep the best prefix and set the fitted attributes."""
        kept = growth.stopping.n_kept
        for block in growth.layers[kept:]:
            block.discard()  # the files of the layers grown beyond the kept prefix
        for block in growth.layers[:kept]:
            block.move_to(growth.store)  # a layer shared in a grid search joins the selected candidate's folder
        growth.store.check_claimed()
        self.layers_ = growth.layers[:kept]
        self._set_layer_weights(growth, kept)
        self.n_layers_ = kept
        self.train_history_ = growth.history
        self.oof_features_ = growth.oof_features[:kept]
        self.stop_reason_ = growth.stopping.reason or f"reached max_layers={self.max_layers}"
        self._set_importances(growth.X.shape[1])
        self._log_end()
        self._fit_predictor(growth)

    def _set_layer_weights(self, growth, kept):
        """Set the kept layers' weights in the prediction; every kept layer counts alike unless overridden."""

    def _log_end(self):
        """With ``verbose``, what to print once growth has stopped; nothing unless overridden."""

    # ---------------------------------------------------------------- predictor
    def _fit_predictor(self, growth):
        """Train ``predictor`` on ``[x, f_T]`` of the training rows (out-of-fold f_T); set ``predictor_``.

        With ``predictor_input="auto"``, first choose what predicts (:meth:`_choose_predictor_input`):
        the predictor on ``x`` alone, or the cascade's output and the predictor's on ``[x, f_T]``
        mixed with the weight that scored highest (none when the weight is 0).
        """
        self._predictor_model = self.predictor_ = None
        self.predictor_input_ = self.predictor_input_scores_ = self.predictor_weight_ = None
        if self.predictor is None:
            return
        seed = growth.rng.randint(MAX_SEED)
        X, y, weight = growth.X, growth.y, growth.weight
        auto = self.predictor_input == "auto"
        # the kept prefix's out-of-fold prediction, kept per layer only for "auto"
        cascade_output = growth.oof_outputs[self.n_layers_ - 1] if auto else None
        inputs = {"stacked": np.hstack([X, self.oof_features_[-1]])}
        if auto:
            inputs["raw"] = X
        templates = {name: self._predictor_template(self._categorical_prefix(Z.shape[1])) for name, Z in inputs.items()}
        if np.isnan(X).any():
            check_accepts_nan(templates["stacked"], "predictor")
        if weight is not None:
            keep = weight > 0
            inputs = {name: Z[keep] for name, Z in inputs.items()}
            y, weight = y[keep], weight[keep]
            if auto:
                cascade_output = cascade_output[keep]
            if np.ptp(weight) == 0:
                weight = None
            elif not has_fit_parameter(templates["stacked"], "sample_weight"):
                raise ValueError(
                    f"predictor: {type(templates['stacked']).__name__}.fit takes no sample_weight; fit without "
                    "sample_weight (or with equal weights), or use a predictor whose fit takes it"
                )
        chosen, self.predictor_weight_ = "stacked", 1.0
        if auto:
            chosen, self.predictor_weight_, self.predictor_input_scores_ = self._choose_predictor_input(
                templates, inputs, y, weight, growth.rng.randint(MAX_SEED), cascade_output
            )
        self.predictor_input_ = chosen
        if chosen == "cascade":
            return  # the cascade predicts; no predictor to train
        name = "raw" if chosen == "raw" else "stacked"
        with one_blas_thread():
            self._predictor_model, self.predictor_ = one_thread(
                self._fit_final, templates[name], inputs[name], y, weight, seed
            )

    def _choose_predictor_input(self, templates, inputs, y, weight, seed, cascade_output):
        """What predicts best: the predictor on ``x`` alone, or a mixture of the cascade's output and
        the predictor's on ``[x, f_T]``, ``(1 - w) * cascade + w * predictor``.

        The predictor is trained on each half of a 2-fold split of the training rows and
        predicts the other, once on ``[x, f_T]`` (out-of-fold f_T) and once on ``x`` alone,
        so that every row has a held-out output of both; the halves are stratified by class
        when every class has two rows. The cascade's output of a row is its out-of-fold one
        (``cascade_output``, the kept prefix's). Each candidate is scored by the monitored
        measure (accuracy, or the negative mean squared error) of its outputs over all rows:
        ``x`` alone, and the mixture for each ``w`` of :data:`PREDICTOR_WEIGHTS`, from 0 (the
        cascade alone) to 1 (the predictor on ``[x, f_T]`` alone). The weight is a last layer
        weight fitted on held-out rows, as the layers' alpha_t are fitted on the margins
        (Algorithm 2, line 6). The comparison leans towards the cascade: its out-of-fold
        models are trained on ``(n_folds - 1) / n_folds`` of the rows, the predictor's on
        half, and the kept prefix is the best of the grown ones. Ties go to the smallest
        weight, then to ``x`` alone.

        Returns
        -------
        chosen : {"cascade", "blend", "stacked", "raw"}
            ``"cascade"``: w = 0; ``"stacked"``: w = 1; ``"blend"``: 0 < w < 1; ``"raw"``: x alone.
        weight : float
            The predictor's weight w in the prediction (1.0 with ``"raw"``).
        scores : dict
            The held-out score of ``"cascade"`` (w = 0), ``"stacked"`` (w = 1), ``"blend"``
            (the chosen w, or the best one when ``"raw"`` wins) and ``"raw"``.
        """
        stratified = is_classifier(self) and np.unique(y, return_counts=True)[1].min() >= 2
        splitter = (StratifiedKFold if stratified else KFold)(n_splits=2, shuffle=True, random_state=seed)
        halves = list(splitter.split(inputs["stacked"], y))
        fits = [(name, fit_rows, held_out) for name in inputs for fit_rows, held_out in halves]
        with one_blas_thread():  # the candidates in parallel, each with one thread (mddf._threads)
            held_out_outputs = Parallel(n_jobs=self.n_jobs, prefer="threads")(
                in_one_thread(self._held_out_output)(templates[name], inputs[name], y, weight, fit_rows, held_out, seed)
                for name, fit_rows, held_out in fits
            )
        outputs = {}
        for (name, _, held_out), output in zip(fits, held_out_outputs):
            if name not in outputs:
                outputs[name] = np.empty((len(y), *output.shape[1:]))
            outputs[name][held_out] = output
        mixed = [
            self._measure.score(self._output_rows(_mix(cascade_output, outputs["stacked"], w), y), weight)
            for w in PREDICTOR_WEIGHTS
        ]
        best = int(np.argmax(mixed))  # the first of the highest: the smallest weight
        scores = {
            "cascade": mixed[0],
            "stacked": mixed[-1],
            "blend": mixed[best],
            "raw": self._measure.score(self._output_rows(outputs["raw"], y), weight),
        }
        if scores["raw"] > scores["blend"]:
            return "raw", 1.0, scores
        w = float(PREDICTOR_WEIGHTS[best])
        return ("cascade" if w == 0.0 else "stacked" if w == 1.0 else "blend"), w, scores

    def _held_out_output(self, template, Z, y, weight, fit_rows, held_out, seed):
        """The predictor fitted on the rows ``fit_rows`` of ``Z``: its output for the rows ``held_out``."""
        part_weight = None if weight is None else weight[fit_rows]
        model, _ = self._fit_final(template, Z[fit_rows], y[fit_rows], part_weight, seed)
        return self._predictor_output(model, Z[held_out])

    def _stacked_input(self, X):
        """Validate X and return ``([x, f_T(x)], output)``: what a model after the cascade reads, from one pass.

        ``output`` is the last kept layer's (the cascade's own prediction, as :meth:`_replay` yields it).
        """
        X = self._validated(X)
        for stage in self._replay(X):
            passed, output = stage  # f_T and the output after the last kept layer
        return np.hstack([X, passed.astype(np.float32)]), output

    def _predicted(self, X):
        """With a fitted ``predictor``: its output for X (class probabilities or values), mixed with
        the cascade's own as ``(1 - w) * cascade + w * predictor`` when ``predictor_weight_`` w < 1."""
        w = getattr(self, "predictor_weight_", 1.0)  # models stored before the weight existed: 1
        if getattr(self, "predictor_input_", None) == "raw":
            Z, cascade = self._validated(X), None
        else:
            Z, cascade = self._stacked_input(X)
        if np.isnan(Z[:, : self.n_features_in_]).any():
            check_accepts_nan(self.predictor_, "predictor")
        with one_blas_thread():
            output = one_thread(self._predictor_output, self._predictor_model, Z)
        return output if w == 1.0 else _mix(cascade, output, w)

    def _uses_predictor(self):
        return getattr(self, "_predictor_model", None) is not None

    # -------------------------------------------------------------- importances
    def _importance_split(self, t, importances, n_features):
        """Layer t's importances on the raw features, and their total on the passed columns (``[x, f_{t-1}]``)."""
        return importances[:n_features], importances[n_features:].sum()

    def _set_importances(self, n_columns):
        """``layer_importances_``, ``feature_importances_`` and the passed columns' mean share of the kept layers.

        ``n_columns`` is the width of ``x`` in the layers: ``n_features_in_``, plus the features ``pair_features``
        appended, whose mean shares go to ``pair_importances_`` and are credited half to each of their two
        columns in the other importances. The mean share of the passed columns goes to the attribute
        :attr:`_passed_importance_attr` names.
        """
        rows = np.zeros((len(self.layers_), n_columns + 1))
        for t, block in enumerate(self.layers_, start=1):
            raw, passed = self._importance_split(t, block.importances_, n_columns)
            total = np.sum(raw) + passed
            if total > 0:
                rows[t - 1, :n_columns] = raw / total
                rows[t - 1, n_columns] = passed / total
        n_features = self.n_features_in_
        self.pair_importances_ = None
        if self.pair_features_ is not None:
            appended = rows[:, n_features:n_columns]
            self.pair_importances_ = appended.mean(axis=0)
            for k, (a, b, _) in enumerate(self.pair_features_.pairs_):
                rows[:, a] += appended[:, k] / 2
                rows[:, b] += appended[:, k] / 2
            rows = np.delete(rows, np.s_[n_features:n_columns], axis=1)
        self.layer_importances_ = rows
        raw = rows[:, :n_features].mean(axis=0)
        self.feature_importances_ = raw / raw.sum() if raw.sum() > 0 else raw
        setattr(self, self._passed_importance_attr, float(rows[:, n_features].mean()))

    # ------------------------------------------------------------------ outputs
    def _prediction_layers(self):
        """The kept layers, each set to predict with the estimator's current ``n_jobs``: a ``set_params(n_jobs=...)``
        after fit applies to prediction, as for scikit-learn's forests (the results do not depend on it)."""
        for block in self.layers_:
            block.n_jobs = self.n_jobs
        return self.layers_

    def _staged(self, X):
        """Validate X now, then return a generator of (passed features, output) per kept layer."""
        return self._replay(self._validated(X))

    def _validated(self, X):
        """New rows checked against the fit: float32, C-ordered, NaN allowed, categories as their codes, and the
        features of ``pair_features`` appended."""
        check_is_fitted(self)
        X = validate_tabular(self, X, reset=False, dtype=np.float32, order="C", ensure_all_finite="allow-nan")
        return with_pairs(getattr(self, "pair_features_", None), X)  # models stored before pair_features: none

    def transform(self, X, layer=None):
        """Augmented features of a kept layer: what layer t passes on to layer t + 1 (beside ``x``).

        For the classifier, ``f_t(X) / sum_{l<=t} alpha_l`` (eq. 7): the common scale
        is divided out, so the result is a convex combination of the layers' class
        vectors (per forest with ``passed_features="per_forest"``), exactly what the
        next layer sees (forests ignore a common scale). For the regressor, each of
        the layer's forests' predictions ``h_t(X)``.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        layer : int or None
            1-based kept layer; None is the last one.

        Returns
        -------
        ndarray of float32, shape (n_samples, n_passed_columns)
            A DataFrame under ``set_output(transform="pandas")``, its columns
            named by :meth:`get_feature_names_out` for the same ``layer``.
        """
        check_is_fitted(self)
        layer = self._check_layer(layer)
        for t, (passed, _) in enumerate(self._staged(X), start=1):
            if t == layer:
                return passed.astype(np.float32)

    # ------------------------------------------------------------ stored models
    @property
    def model_dir_(self):
        check_is_fitted(self)
        return self._model_store.path

    def to_memory(self):
        """Load every stored model into memory and detach the model from its folder (``model_dir``).

        Afterwards the model is an in-memory model (``model_dir_`` is None): its
        pickle holds the trees and no longer needs the folder. An ``"auto"``
        folder is deleted; a folder given as ``model_dir`` is left as it is (delete
        it yourself when no other model or pickle refers to it). The memory held is
        then that of the in-memory mode.

        Returns
        -------
        self
        """
        check_is_fitted(self)
        store = self._model_store
        for block in self.layers_:
            block.to_memory()
        self._model_store = MemoryStore()
        if store.temporary:
            store.destroy()
        return self

    def relocate_model_dir(self, path):
        """Point a fitted model at its folder's new place, after the folder was moved or copied.

        Parameters
        ----------
        path : str or path-like
            The folder that now holds the files of this fit (its marker file
            names the fit; otherwise a ``ValueError`` or ``FileNotFoundError`` is
            raised and nothing changes).

        Returns
        -------
        self
        """
        check_is_fitted(self)
        self._model_store.relocate(path)
        return self
