"""What the classification and regression cascade estimators share: their common parameters, the fit loop that
drives the growth engine, and the fitted model's outputs, storage and predictor.

A cascade estimator validates its data (setting what it learns of the columns and labels), then grows layers
(blocks of forests) through :class:`mddf.cascade.growth.CascadeGrowth` with the policy of its task
(:meth:`CascadeBase._policy`: :class:`mddf.cascade.margin_policy.MarginPolicy` or
:class:`mddf.cascade.residual_policy.ResidualPolicy`): :func:`begin_growth`, one layer per pass until ``max_layers``
or early stopping, then the engine's result, a :class:`mddf.cascade.fitted.FittedCascade`, which
:func:`set_fitted` holds as ``fitted_cascade_`` and reads scikit-learn's fitted attributes from: the only place
where they are written. Prediction, ``transform``, the staged methods and ``explain()`` are replays of the fitted
cascade (:mod:`mddf.cascade.replay`); no policy takes part.
"""

from __future__ import annotations

import os
from numbers import Integral, Real

from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from ..blocks.member_weights import MEMBER_WEIGHTS
from ..storage import MemoryStore, temporary_folders_removed_on_sigterm
from ..utils import CATEGORICAL_FEATURES_CONSTRAINT, N_JOBS_CONSTRAINT, SaveMixin
from .background import PATH_DEPENDENT, kept_rows
from .explanation import CHUNK_ROWS, explain_rows, explanation
from .fitted import FittedCascade
from .growth import CascadeGrowth
from .layer_features import LayerFeaturesMixin
from .replay import LayerFeatures, Visits
from .selection import FINAL_MIXTURES
from .versions import upgraded_estimator_state


class CascadeBase(SaveMixin, LayerFeaturesMixin):
    """The fit loop, layer features, staged outputs, predictor and ``model_dir`` of both cascades.

    A subclass gives its task's policy (:meth:`_policy`) and the names of its passed columns
    (:meth:`_layer_feature_names`); the parameters below are common to both (see :class:`mddf.MDDFClassifier`).
    """

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "forest_types": [tuple, list],
        "first_layer_members": [tuple, list],
        "monotonic_cst": [None, "array-like", dict],
        "n_folds": [Interval(Integral, 2, None, closed="left")],
        "max_depth_factor": [Interval(Integral, 1, None, closed="left"), None],
        "max_layers": [Interval(Integral, 1, None, closed="left")],
        "n_tolerant_layers": [Interval(Integral, 1, None, closed="left")],
        "probe_trees": [Interval(Real, 0, 1, closed="neither"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
        "min_gain_se": [Interval(Real, 0, None, closed="left")],
        "min_error_reduction": [Interval(Real, 0, 1, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "categorical_features": CATEGORICAL_FEATURES_CONSTRAINT,
        "categorical_splits": [StrOptions({"subset", "ordinal"})],
        "fold_trees": [StrOptions({"all", "share", "refit"})],
        "later_layer_trees": [
            None,
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
        ],
        "member_weights": [StrOptions(set(MEMBER_WEIGHTS))],
        "predictor_input": [StrOptions({"stacked", "auto"})],
        "pair_features": [None, StrOptions({"auto", "all_operations"}), HasMethods(["fit_task", "transform"])],
        "target_statistics": [None, StrOptions({"columns", "pairs"})],
        "final_mixture": [StrOptions(set(FINAL_MIXTURES))],
        "n_jobs": N_JOBS_CONSTRAINT,
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "model_dir": [None, str, os.PathLike],
        "background_rows": [Interval(Integral, 0, None, closed="left")],
    }

    def _policy(self, columns=None):
        """The policy of the cascade's task (see the module), on ``columns``
        (:class:`~mddf.cascade.seam.Columns`; None: those of the fit)."""
        raise NotImplementedError

    def _params(self):
        """The parameters, as ``get_params(deep=False)`` gives them (a model unpickled from an earlier version has
        them all: :mod:`mddf.cascade.versions`)."""
        return self.get_params(deep=False)

    def _validate_training_data(self, X, y, sample_weight):
        """Validate a fit's data, set what it tells of the columns (and labels), and return ``X`` (float32), ``y`` as
        the task reads it and the weights (None: equal)."""
        raise NotImplementedError

    @property
    def _model_store(self):
        """The store of the fitted models (``model_dir``): the fitted cascade's."""
        return self.fitted_cascade_.store

    @_model_store.setter
    def _model_store(self, store):
        self.fitted_cascade_.store = store

    def __getstate__(self):
        """The parameters, what validation learned of the columns and ``fitted_cascade_``: scikit-learn's fitted
        attributes are read from it again when the pickle is loaded (:func:`set_fitted`)."""
        state = dict(super().__getstate__())  # a copy: object's is the instance's own dict
        fitted = state.get("fitted_cascade_")
        if fitted is not None:
            for name in fitted.attributes():
                state.pop(name, None)
        return state

    def __setstate__(self, state):
        """The state of a pickle, upgraded by the version policy (:mod:`mddf.cascade.versions`), then scikit-learn's
        fitted attributes set from the fitted cascade."""
        super().__setstate__(state)
        classification, name = hasattr(self, "predict_proba"), type(self).__name__
        state = upgraded_estimator_state(self.__dict__, classification, name, FittedCascade.of)
        if "fitted_cascade_" in state:
            set_fitted(self, state["fitted_cascade_"])

    # ---------------------------------------------------------------------- fit
    def _fit_in_store(self, X, y, sample_weight):
        """Grow the cascade: one layer per pass, until ``max_layers`` or early stopping; keep the best prefix. With
        ``model_dir="auto"`` a SIGTERM meanwhile removes its temporary folder."""
        with temporary_folders_removed_on_sigterm(self.model_dir):
            growth = begin_growth(self, X, y, sample_weight)
            for t in range(1, self.max_layers + 1):
                if growth.grow(t):
                    break
            set_fitted(self, growth.finish())
        return self

    # ------------------------------------------------------------------ outputs
    def _validated(self, X):
        """New rows checked against the fit by the fitted cascade (:meth:`mddf.cascade.fitted.FittedCascade.validated`:
        float32, C-ordered, NaN allowed, categories as their codes; the features of ``pair_features`` are appended by
        the replay)."""
        check_is_fitted(self)
        return self.fitted_cascade_.validated(X)

    def _replayed(self, X, visitor):
        """Validate ``X`` (checking fitted-ness first), then the fitted cascade's replay of it with ``visitor``
        (:mod:`mddf.cascade.replay`), with the estimator's current ``n_jobs``: a ``set_params(n_jobs=...)`` after fit
        applies to prediction, as for scikit-learn's forests (the results do not depend on it)."""
        X = self._validated(X)
        return self.fitted_cascade_.replay(X, visitor, self.n_jobs)

    def _staged(self, X):
        """``(passed features, output)`` after each kept layer, for the rows ``X``."""
        return [(visit.passed.value, visit.output.value) for visit in self._replayed(X, Visits())]

    def explain(self, X, *, background=None, fast=False, chunk_rows=CHUNK_ROWS, progress=None):
        """Each row's prediction attributed to the input columns: values that add up to ``predict_proba(X)`` (the
        classifier's, per class) or ``predict(X)`` (the regressor's, per target) from a base value, by default the
        model's mean prediction over a background.

        Each member's trees are explained by exact TreeSHAP on their own input (XGBoost members by XGBoost's own
        contributions); a member's attribution to a column passed on by the layer before is shared among the input
        columns in proportion to their attributions of that column, and the layers are mixed as the prediction
        mixes them, calibration and ``predictor`` included, so that on every row ``base_values + values.sum(axis=1)``
        is the prediction, within rounding. An appended pair feature's attribution goes half to each of its two
        columns, a target statistic's (``target_statistics``) to its column, or half to each of a pair's. See
        :ref:`the user guide <explain>` for the rules and how they differ from shap's explainers.

        Parameters
        ----------
        X : array-like or DataFrame (n_samples, n_features_in_)
            Checked as :meth:`predict` checks it (an unseen category is a missing value).
        background : None, array-like or DataFrame, or "tree_path_dependent", default=None
            None: the training rows kept at fit (``background_``); rows: those. The base is the mean prediction
            over them (shap's ``expected_value`` with ``feature_perturbation="interventional"``), and each column's
            attributions are centred: their mean over the background is 0. ``"tree_path_dependent"``: the base
            composed from the trees' expectations over their training rows, and the attributions uncentred.
        fast : bool, default=False
            False: exact TreeSHAP for the trees. True: their path contributions (Saabas), at about a prediction's
            cost; they add up the same way but credit the splits near a tree's root more than their share.
        chunk_rows : int, default=1024
            Rows explained at a time: the memory grows with them.
        progress : bool or None, default=None
            A progress bar on stderr; None shows one when there is more than one chunk.

        Returns
        -------
        shap.Explanation, or without shap (the ``explain`` extra) an object of the same fields
            ``values`` ``(n_samples, n_features_in_)``, for the classifier ``(n_samples, n_features_in_,
            n_classes)``, for a regressor of several targets ``(n_samples, n_features_in_, n_outputs)``;
            ``base_values`` ``(n_samples,)``, or per class or target; ``data`` (the rows as the model reads them,
            categories as codes), ``display_data`` (a DataFrame's values), ``feature_names``, ``output_names`` (the
            classes; a regressor's ``output<k>``, None for one target). A ``ValueError`` names a member that cannot be
            explained exactly (a classifier or regressor instance other than XGBoost's, the predictor ``"hgb"``), a
            model fitted before its trees kept their nodes' training weight, or a model that kept no background.
        """
        check_is_fitted(self)
        if isinstance(getattr(self, "classes_", None), list):
            raise ValueError(f"{type(self).__name__}: explain() does not support a model fitted on multi-label y yet")
        if not isinstance(chunk_rows, Integral) or chunk_rows < 1:
            raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
        validated, fitted = self._validated(X), self.fitted_cascade_
        rows = self._background(background, lambda: explain_rows(fitted, validated[:1], None, True, n_jobs=self.n_jobs))
        found = explain_rows(fitted, validated, X, bool(fast), int(chunk_rows), progress, rows, self.n_jobs)
        return explanation(self._shown(found))

    def _background(self, background, probe):
        """The validated rows of ``explain()``'s ``background``, or None for the path-dependent
        base. Without kept rows, ``probe()`` (one row explained) first raises what would stop any explanation."""
        if isinstance(background, str):
            if background != PATH_DEPENDENT:
                raise ValueError(f"background={background!r}: give rows, None or {PATH_DEPENDENT!r}")
            return None
        if background is None:
            kept = self.fitted_cascade_.background
            if kept is None:
                probe()  # a model that cannot be explained at all says that first
                raise ValueError(
                    "this model keeps no training rows as a background (background_rows=0, or fitted before mddf "
                    f"kept them): pass explain(X, background=some training rows), or background={PATH_DEPENDENT!r}"
                )
            return kept
        try:
            return self._validated(background)
        except ValueError as error:
            raise ValueError(f"background: {error}") from error

    def transform(self, X, layer=None):
        """Augmented features of a kept layer: what layer t passes on to layer t + 1 (beside ``x``).

        For the classifier, ``f_t(X) / sum_{l<=t} alpha_l`` (eq. 7): the common scale is divided out, so the result
        is a convex combination of the layers' class vectors (per forest with ``passed_features="per_forest"``),
        exactly what the next layer sees. For the regressor, each of the layer's forests' predictions ``h_t(X)``.

        Parameters
        ----------
        X : array-like (n_samples, n_features)
        layer : int or None
            1-based kept layer; None is the last one.

        Returns
        -------
        ndarray of float32, shape (n_samples, n_passed_columns)
            A DataFrame under ``set_output(transform="pandas")``, its columns named by
            :meth:`get_feature_names_out` for the same ``layer``.
        """
        check_is_fitted(self)
        layer = self._check_layer(layer)
        return self._shown_features(self._replayed(X, LayerFeatures(layer)))

    # -------------------------------------------- what the fit learned, as shown
    def _fitted_attributes(self, fitted):
        """scikit-learn's fitted attributes of the fitted cascade ``fitted`` as the estimator shows them (the
        regressor's with ``target="y"``: its offset added back)."""
        return fitted.attributes()

    def _shown_features(self, features):
        """A kept layer's features (float32 ``(n, n_passed_columns)``) as the estimator shows them."""
        return features

    def _shown(self, found):
        """``explain()``'s :class:`~mddf.cascade.explanation.Attributions` as the estimator shows them."""
        return found

    # ------------------------------------------------------------ stored models
    @property
    def model_dir_(self):
        check_is_fitted(self)
        return self._model_store.path

    def to_memory(self):
        """Load every stored model into memory and detach the model from its folder (``model_dir``).

        Afterwards the model is an in-memory model (``model_dir_`` is None): its pickle holds the trees and no
        longer needs the folder. An ``"auto"`` folder is deleted; a folder given as ``model_dir`` is left as it is
        (delete it yourself when no other model or pickle refers to it).

        Returns
        -------
        self
        """
        check_is_fitted(self)
        store = self._model_store
        store.check_marker()
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
            The folder that now holds the files of this fit (its marker file names the fit; otherwise a
            ``ValueError`` or ``FileNotFoundError`` is raised and nothing changes).

        Returns
        -------
        self
        """
        check_is_fitted(self)
        self._model_store.relocate(path)
        return self


def begin_growth(cascade, X, y, sample_weight=None, rng=None, pair_search=None):
    """The growth engine of a fit of ``cascade`` before its first layer: the data validated by the estimator (which
    sets what it learns of them), then :meth:`CascadeGrowth.begin` with the task's policy (``rng`` and
    ``pair_search`` as there)."""
    X, y, weight = cascade._validate_training_data(X, y, sample_weight)
    previous = getattr(cascade.__dict__.get("fitted_cascade_"), "store", None)
    background = kept_rows(X, y, cascade.background_rows, cascade.random_state)  # before any draw of random_state
    policy = cascade._policy()
    return CascadeGrowth.begin(policy, X, y, weight, rng, pair_search, previous_store=previous, background=background)


def check_predictor_instance(predictor):
    """A ``TypeError`` for a ``predictor`` given as a class (scikit-learn's ``HasMethods`` lets a class through)."""
    if isinstance(predictor, type):
        name = predictor.__name__
        raise TypeError(f"predictor: {name} is a class; pass an instance, e.g. {name}()")


def set_fitted(cascade, fitted):
    """Hold the :class:`~mddf.cascade.fitted.FittedCascade` the growth engine returned (:meth:`CascadeGrowth.finish`)
    as ``cascade.fitted_cascade_`` and set scikit-learn's fitted attributes from it: the one place where they are
    written."""
    cascade.fitted_cascade_ = fitted
    for name, value in cascade._fitted_attributes(fitted).items():
        setattr(cascade, name, value)
    return cascade
