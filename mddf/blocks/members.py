"""The member kind of any scikit-learn estimator (:class:`EstimatorMember`) and its fold models (:class:`FoldModel`).

A block's ``forest_types`` may hold an estimator instance: for classification one with ``fit`` and
``predict_proba`` (a scikit-learn classifier, a ``Pipeline`` ending in one), for regression a regressor with
``fit`` and ``predict``; cloned for every fold model, its ``random_state`` parameters drawn from the block's seeds,
and never fitted itself. It is fitted whole, one model a fold, by the same code for both tasks; so are the boosted
members, which extend this kind: XGBoost's (:mod:`mddf.blocks.boosted_member`) and LightGBM's
(:mod:`mddf.blocks.lgbm_member`), instances of either included.

A classification member is trained on the class indices ``0 .. k - 1`` of the
classes present among its training rows (so that XGBoost, which wants
contiguous labels, accepts a resample that missed a class) and its
probabilities are put back in the block's class columns; a training set of a
single class gives that class probability 1 without fitting anything. A
regression member is trained on the targets and its output is its prediction,
one column. The two tasks differ only there: what the member predicts
(``predict_proba`` or ``predict``) and how many columns its output has.
"""

from __future__ import annotations

import pickle
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.impute._base import _BaseImputer
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from ..forests import CompactForest
from ..forests.sampling import Bootstrap
from ..storage import filled_in
from .member import Capabilities, FitTask, Member, register_member

# the cascade imports these two from here (explicit re-exports)
from .member import check_forest_types as check_forest_types
from .member import is_forest as is_forest

#: The share of a fold model's distinct training rows that a member stopped early (an XGBoost estimator with
#: ``early_stopping_rounds``, as ``"gbdt_es"`` and ``"gbdt_vector"``) holds out of its fit to stop on.
STOPPING_FRACTION = 0.1
#: Fewer distinct training rows than this: such a member fits them all and every round (none to spare).
MIN_STOPPING_ROWS = 50

_MAX_SEED = np.iinfo(np.int32).max
#: How far a member's probability may fall below 0, or a row of its probabilities sum away from 1 (else an error):
#: outputs round.
PROBABILITY_TOLERANCE = 1e-4
#: How far a row of a member's probabilities, read as float64, may sum away from 1 before it is divided by its sum:
#: XGBoost's float32 probabilities sum to 1 within about 1e-7, what the cascade's mixtures and ``predict_proba``
#: would inherit.
SUM_TOLERANCE = 1e-12


def _nan_handling(estimator):
    """How ``estimator`` treats NaN in its input: ``"rejects"``, ``"passes"`` (on) or ``"removes"`` (imputes).

    An estimator rejects NaN unless its scikit-learn tag ``allow_nan`` is set; scikit-learn's imputers
    remove it. A ``Pipeline`` is read step by step, as its ``allow_nan`` tag is never set: it takes NaN
    when every step up to the first that removes NaN (or every step) allows it, so that
    ``make_pipeline(SimpleImputer(), LogisticRegression())`` takes NaN but
    ``make_pipeline(StandardScaler(), LogisticRegression())`` does not (the scaler passes NaN on).
    """
    if isinstance(estimator, Pipeline):
        for _, step in estimator.steps:
            if step is None or (isinstance(step, str) and step == "passthrough"):
                continue
            handling = _nan_handling(step)
            if handling != "passes":
                return handling
        return "passes"
    if isinstance(estimator, _BaseImputer):
        return "removes"
    return "passes" if get_tags(estimator).input_tags.allow_nan else "rejects"


def accepts_nan(estimator):
    """Whether ``estimator`` takes input with NaN (by its tags; a ``Pipeline`` by its steps')."""
    return _nan_handling(estimator) != "rejects"


def check_accepts_nan(estimator, where):
    """Raise a ``ValueError`` naming ``estimator`` (at ``where``) unless it takes NaN (:func:`accepts_nan`)."""
    if not accepts_nan(estimator):
        raise ValueError(
            f"{where}: {type(estimator).__name__} does not accept missing values (NaN), which its input holds; "
            "impute them first (e.g. make_pipeline(SimpleImputer(), estimator)), or use an estimator that "
            "handles them (the block's forests, 'gbdt', XGBClassifier, HistGradientBoostingClassifier)"
        )


def takes_sample_weight(template):
    """Whether the member's ``fit`` has a ``sample_weight`` parameter."""
    return has_fit_parameter(template, "sample_weight")


def warn_resampled(template, position, weights="the sample distribution D_t"):
    """Warn that a member without ``sample_weight`` gets its row ``weights`` as a weighted resample instead."""
    warnings.warn(
        f"forest_types[{position}]: {type(template).__name__}.fit takes no sample_weight; it receives "
        f"{weights} as a weighted resample of its training rows instead",
        UserWarning,
        stacklevel=3,
    )


class FoldModel:
    """One fitted non-forest member of a block (one fold, or the whole block's rows).

    Parameters
    ----------
    estimator : fitted estimator or None
        A classifier trained on ``searchsorted(classes, y)`` (None when its rows
        held a single class), or a regressor trained on y.
    classes : ndarray of int or None
        Block class columns present among its training rows; None for a regressor.
    n_classes : int or None
        Columns of the probabilities returned; None for a regressor.
    where : str or None
        The member's place, for error messages (``"forest_types[1]"``, ``"predictor"``).
    importance_scale : float
        Factor of the estimator's ``feature_importances_`` in :attr:`importances`.
    """

    def __init__(self, estimator, classes, n_classes, where=None, importance_scale=1.0):
        self.estimator = estimator
        self.classes = classes
        self.n_classes = None if n_classes is None else int(n_classes)
        self.where = where
        self.importance_scale = importance_scale

    def __setstate__(self, state):
        self.__dict__.update(filled_in("fold model", state))  # what one of an earlier version lacks

    #: Targets of a regressor: 1, or K for one fitted on a 2-D ``y`` (set on such a model only).
    n_outputs = 1

    def predict(self, X, **params):
        """A regressor's predicted values ``(n,)`` (``(n, K)`` for ``n_outputs`` K > 1); a ``ValueError`` naming the
        member unless one finite value a row and target. ``params`` go to the estimator's ``predict`` (e.g.
        XGBoost's ``iteration_range``)."""
        expected = (X.shape[0],) if self.n_outputs == 1 else (X.shape[0], self.n_outputs)
        return self._checked(self.estimator.predict(X, **params), expected, "predict")

    def output(self, X, **params):
        """What the member passes on: :meth:`predict_proba` of a classifier, :meth:`predict` of a regressor."""
        return self.predict(X, **params) if self.n_classes is None else self.predict_proba(X, **params)

    def predict_proba(self, X, **params):
        """Class probabilities in the block's ``n_classes`` columns (0 for the classes it never saw).

        Raises a ``ValueError`` naming the member when its own ``predict_proba`` does not return one
        finite column per class it was trained on, or a value below 0 (beyond
        :data:`PROBABILITY_TOLERANCE`) or a row without a positive value. The probabilities are read as
        float64, and rows that do not sum to 1 within :data:`SUM_TOLERANCE` (XGBoost's float32 ones) are
        divided by their sum.
        """
        out = np.zeros((X.shape[0], self.n_classes))
        if self.estimator is None:
            out[:, self.classes[0]] = 1.0
            return out
        columns = self.classes[np.asarray(self.estimator.classes_, dtype=np.intp)]
        proba = self.estimator.predict_proba(X, **params)
        out[:, columns] = self._checked(proba, (X.shape[0], len(columns)), "predict_proba")
        return out

    def _checked(self, output, expected, method):
        """The member's output of ``method``, or a ValueError that names it and what is wrong with it."""
        name = f"{self.where or 'member'} ({type(self.estimator).__name__})"
        what = "class probabilities" if method == "predict_proba" else "predicted values"
        output = np.asarray(output)
        if output.shape != expected:
            per = (
                "one column per class of its training rows (in the order of its classes_)"
                if method == "predict_proba"
                else "one value per row"
            )
            raise ValueError(f"{name}: {method} returned shape {output.shape}; expected {expected}, {per}")
        finite = np.isfinite(output)
        if not finite.all():
            bad = int((~finite.reshape(len(output), -1).all(axis=1)).sum())
            raise ValueError(
                f"{name}: {method} returned non-finite values (NaN or infinity) in {bad} of {expected[0]} "
                f"rows; it must give finite {what}"
            )
        if method == "predict_proba" and len(output):
            output = output.astype(np.float64, copy=False)
            sums = output.sum(axis=1)
            smallest = output.min(axis=1)
            bad = (smallest < -PROBABILITY_TOLERANCE) | (sums <= 0.0)
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(
                    f"{name}: predict_proba returned rows that are not probabilities (a negative value, or no "
                    f"positive one) in {int(bad.sum())} of {expected[0]} rows (row {i}: sum {sums[i]:.6g}, smallest "
                    f"value {smallest[i]:.6g}); it must give class probabilities, non-negative and summing to 1"
                )
            off = np.abs(sums - 1.0) > SUM_TOLERANCE
            if off.any():  # float32 rows, and rows that do not sum to 1 (GaussianNB's on float32 input can sum to 2)
                output = output.copy()
                output[off] /= sums[off, None]
        return output

    @property
    def importances(self):
        """The estimator's ``feature_importances_`` times ``importance_scale``, or None when it has none (or 2-D)."""
        if self.estimator is None:
            return None
        try:
            values = self.estimator.feature_importances_
        except (AttributeError, ValueError, NotImplementedError):
            return None
        values = np.asarray(values, dtype=np.float64)
        if values.ndim != 1:
            return None
        return values if self.importance_scale == 1.0 else values * self.importance_scale

    @property
    def nbytes(self):
        """Size of the pickled estimator, in bytes (its memory, approximately)."""
        return len(pickle.dumps(self.estimator, protocol=pickle.HIGHEST_PROTOCOL))


def _check_classes(estimator, n_classes, where):
    """Raise a ``ValueError`` naming the member unless its ``classes_`` are the class indices it was fitted on.

    A member is trained on the indices ``0 .. n_classes - 1`` of the classes of its rows; its
    ``classes_`` say which class each column of its ``predict_proba`` is.
    """
    name = f"{where or 'member'} ({type(estimator).__name__})"
    try:
        found = estimator.classes_
    except AttributeError:
        raise ValueError(
            f"{name}: has no classes_ after fit; it must set classes_, the classes of its "
            "predict_proba columns in order, as scikit-learn's classifiers do"
        ) from None
    expected = np.arange(n_classes)
    if np.shape(found) != expected.shape or not np.array_equal(np.asarray(found, dtype=object), expected):
        raise ValueError(
            f"{name}: classes_ is {np.asarray(found).tolist()!r} after a fit on the class indices "
            f"{expected.tolist()}; it must list the classes of its predict_proba columns in order"
        )


def seeded_clone(template, random_state=None):
    """A clone of ``template`` whose every ``random_state`` parameter is drawn from ``random_state`` (an int).

    Nested ones (of a ``Pipeline``'s steps) are included, each with its own draw, so that the
    block's or the cascade's seeds alone decide the fit; None leaves them as they are.
    """
    estimator = clone(template)
    if random_state is not None:
        rng = np.random.RandomState(random_state)
        names = sorted(k for k in estimator.get_params(deep=True) if k.split("__")[-1] == "random_state")
        if names:
            estimator.set_params(**{name: int(rng.randint(_MAX_SEED)) for name in names})
    return estimator


@dataclass
class PreparedMember:
    """A member's seeded clone and the rows it fits on, as :func:`fit_member` fits it: :meth:`prepare`, then
    :meth:`fit` (more than once for a fit in stages, :class:`mddf.blocks.staged_boosting.StagedBoosting`), then
    :meth:`model`.

    Attributes
    ----------
    estimator : estimator or None
        None for a classification fit on rows of one class (its model predicts that class).
    X, y : arrays
        The rows and the targets it fits (class positions among ``classes`` for a classifier).
    fit_params : dict
        ``sample_weight``, when given.
    classes : ndarray or None
        The class indices of its rows (classification).
    n_classes : int or None
    where : str or None
    importance_scale : float
    """

    estimator: object
    X: object
    y: object
    fit_params: dict
    classes: object
    n_classes: object
    where: object
    importance_scale: float = 1.0

    @classmethod
    def prepare(cls, template, X, y, n_classes, sample_weight=None, random_state=None, where=None):
        """Clone and seed ``template`` for ``X, y`` (the parameters are :func:`fit_member`'s)."""
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        if n_classes is None and y.ndim == 2:  # several targets: the mean of their variances
            mean = np.average(y, axis=0, weights=sample_weight)
            scale = float(np.mean(np.average((y - mean) ** 2, axis=0, weights=sample_weight)))
            return cls(seeded_clone(template, random_state), X, y, fit_params, None, None, where, scale)
        if n_classes is None:
            mean = np.average(y, weights=sample_weight)
            scale = float(np.average((y - mean) ** 2, weights=sample_weight))
            return cls(seeded_clone(template, random_state), X, y, fit_params, None, None, where, scale)
        classes = np.unique(y)
        if len(classes) == 1:
            return cls(None, X, y, fit_params, classes, n_classes, where)
        y = np.searchsorted(classes, y)
        return cls(seeded_clone(template, random_state), X, y, fit_params, classes, n_classes, where)

    def fit(self, **extra):
        """Fit the estimator on the rows (``extra``: more keyword arguments of its ``fit``); return self."""
        if self.estimator is not None:
            self.estimator.fit(self.X, self.y, **self.fit_params, **extra)
        return self

    def fit_stopping_on(self, X, y, weight=None):
        """Fit an estimator with ``early_stopping_rounds`` (XGBoost's), stopping on the held-out rows ``X, y`` (their
        weights ``weight``); without held-out rows, every round. Return self."""
        if self.estimator is None:
            return self
        if not len(y):
            self.estimator.set_params(early_stopping_rounds=None)
            return self.fit()
        if self.classes is not None:
            y = np.searchsorted(self.classes, y)
        extra = {"eval_set": [(X, y)], "verbose": False}
        if weight is not None:
            extra["sample_weight_eval_set"] = [weight]
        return self.fit(**extra)

    def model(self):
        """The fitted :class:`FoldModel` (a classifier's ``classes_`` checked)."""
        if self.n_classes is not None and self.estimator is not None:
            _check_classes(self.estimator, len(self.classes), self.where)
        model = FoldModel(self.estimator, self.classes, self.n_classes, self.where, self.importance_scale)
        if self.n_classes is None and np.ndim(self.y) == 2:
            model.n_outputs = self.y.shape[1]
        return model


def fit_member(template, X, y, n_classes, sample_weight=None, random_state=None, where=None):
    """Clone ``template``, seed it, fit it on ``X, y`` and return a :class:`FoldModel`.

    With ``n_classes`` (classification) ``y`` holds class indices; with None
    (regression) it holds the targets, and the model's ``importance_scale`` is
    the (weighted) variance of ``y``, which is what the importances of a fully
    grown regression tree sum to, so that a regressor's normalised
    ``feature_importances_`` count as much as a forest's variance decreases.
    ``random_state`` (an int) seeds every ``random_state`` parameter of the
    clone (:func:`seeded_clone`). ``where`` names the member in the errors of
    :meth:`FoldModel.predict_proba` and :meth:`FoldModel.predict`.
    """
    return PreparedMember.prepare(template, X, y, n_classes, sample_weight, random_state, where).fit().model()


def fold_member_rows(seed, fit_rows, draws, stopping=None):
    """The estimator's seed and the rows a fold member trains on (with ``draws``, its resample), drawn from
    ``seed`` in that order; with ``stopping``, ``(y, classification)`` of a member that stops early, also the
    rows it stops on, drawn next (:func:`stopping_rows`): ``(seed, rows, stop_rows)``."""
    rng = np.random.RandomState(seed)
    estimator_seed = rng.randint(_MAX_SEED)
    if draws is not None:
        fit_rows = draws.draw(rng, len(fit_rows))
    if stopping is None:
        return estimator_seed, fit_rows
    return (estimator_seed, *stopping_rows(rng, fit_rows, *stopping))


def stopping_rows(rng, fit_rows, y, classification):
    """``(rows, stop_rows)``: :data:`STOPPING_FRACTION` of the distinct rows of ``fit_rows`` drawn by ``rng`` to
    stop on, and the rest of ``fit_rows`` (every copy of a drawn row left out), to fit. A classification member
    stops only on rows of classes it fits; none with fewer than :data:`MIN_STOPPING_ROWS` distinct rows."""
    distinct = np.unique(fit_rows)
    if len(distinct) < MIN_STOPPING_ROWS:
        return fit_rows, distinct[:0]
    stop = np.sort(rng.choice(distinct, max(1, round(STOPPING_FRACTION * len(distinct))), replace=False))
    rows = fit_rows[~np.isin(fit_rows, stop)]
    if classification:  # only classes the fit sees
        stop = stop[np.isin(y[stop], y[rows])]
    return rows, stop


def no_output(n_classes):
    """The output of a fit that holds no row out (the refit on every training row)."""
    return np.zeros((0,) if n_classes is None else (0, n_classes))


def fit_fold_member(template, seed, X, y, fit_rows, predict_rows, weight, draws, n_classes, where=None):
    """Fit one non-forest member on ``fit_rows`` and predict ``predict_rows`` (runs in a worker).

    Parameters
    ----------
    template : unfitted estimator
        Cloned here; its ``random_state`` (if any) is drawn from ``seed``.
    seed : int
        Seeds the estimator and, with ``draws``, the resample.
    fit_rows : ndarray of int
        Training rows (repeated rows counted as many times).
    weight : ndarray (n,) or None
        D_t as sample weights, taken at ``fit_rows``.
    draws : Bootstrap over the fold's training rows, or None
        With it the member trains on one weighted resample of ``len(fit_rows)``
        rows, sorted, instead of ``fit_rows``.
    n_classes : int or None
        Classes of a classification block; None for regression.
    where : str or None
        The member's place in ``forest_types``, for error messages.

    Returns
    -------
    (FoldModel, ndarray of float64): the model and its :meth:`FoldModel.output` for
    ``predict_rows``, ``(len(predict_rows), n_classes)`` or, for regression, ``(len(predict_rows),)``.
    """
    estimator_seed, fit_rows = fold_member_rows(seed, fit_rows, draws)
    part_weight = None if weight is None else weight[fit_rows]
    model = fit_member(template, X[fit_rows], y[fit_rows], n_classes, part_weight, estimator_seed, where)
    if not len(predict_rows):  # the refit on every training row holds none out
        return model, no_output(n_classes)
    return model, model.output(X[predict_rows])


def _is_sklearn_forest(estimator):
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestClassifier

    return isinstance(estimator, (RandomForestClassifier, ExtraTreesClassifier))


@register_member
class EstimatorMember(Member):
    """Any scikit-learn estimator instance of ``forest_types`` (see the module): cloned, seeded and fitted whole
    on each fold's rows into a :class:`FoldModel`, pickled in a block's store.

    A member whose ``fit`` takes no ``sample_weight`` gets, where sample weights are called for, a weighted resample
    of the fold's training rows instead, with a ``UserWarning`` once a fit. Its attributions: none for a fold model
    of one class, its trees' for a scikit-learn random forest (compacted as the block's exact forests); any other
    estimator cannot be explained exactly, and :meth:`check_explainable` names it.
    """

    @classmethod
    def claims(cls, estimator):
        """Every estimator instance (the kind registered first: the others claim theirs before it)."""
        return True

    def check(self, where):
        """A classification member needs ``predict_proba``; a regression member ``predict``, and no classifier."""
        kind = self.kind
        if self.task == "regression":
            if is_classifier(kind) or not hasattr(kind, "predict"):
                raise TypeError(
                    f"{where}: {type(kind).__name__} is not a regressor; a member of a regression block must predict "
                    "values with fit and predict (e.g. a scikit-learn regressor or XGBRegressor)"
                )
        elif not hasattr(kind, "predict_proba"):
            raise TypeError(
                f"{where}: {type(kind).__name__} has no predict_proba; a block member must give class "
                "probabilities (e.g. SVC(probability=True), or wrap it in CalibratedClassifierCV)"
            )

    def capabilities(self):
        """NaN when its tags (a ``Pipeline``'s steps) accept it, several targets when its tags declare them, exact
        attributions for a scikit-learn random forest."""
        several = self.task == "regression" and get_tags(self.kind).target_tags.multi_output
        return Capabilities(
            missing_values=accepts_nan(self.kind), several_targets=several, attributions=_is_sklearn_forest(self.kind)
        )

    def check_takes_nan(self, where):
        check_accepts_nan(self.kind, where)

    def template(self, layer):
        """The unfitted estimator each fold model clones: the instance, with the settings it was given."""
        return self.kind

    def fit_task(self, fold, layer, position):
        """The fold model of :func:`fit_fold_member` on ``fold``, seeded with ``fold.seeds[position]``."""
        template = self.template(layer)
        weight, draws = (None if layer.weights_equal else fold.weight), fold.draws
        if weight is not None and not takes_sample_weight(template):
            if position not in layer.warned:
                warn_resampled(template, position, layer.weights_name)
                layer.warned.add(position)
            weight, draws = None, Bootstrap(fold.train, layer.resample_weight[fold.train])
        args = (template, fold.seeds[position], layer.X, layer.y, fold.fit_rows, fold.test, weight, draws)
        return self._fold_fit(template, args + (layer.n_classes, f"forest_types[{position}]"))

    def _fold_fit(self, template, args):
        """The :class:`FitTask` of :func:`fit_fold_member` with ``args``; a kind that fits otherwise overrides it."""
        return FitTask(fit_fold_member, args)

    def predict(self, model, X, codes, has_missing):
        return model.output(X)

    def check_explainable(self, model, where, role="member"):
        estimator = model.estimator
        if estimator is None or _is_sklearn_forest(estimator):
            return
        if role == "predictor":
            instead = "fit with predictor='xgboost', 'forest' or None to explain the model"
        else:
            instead = "fit without this member (or as 'gbdt') to explain the model"
        raise ValueError(
            f"{where} ({type(estimator).__name__}): explain() attributes exactly the outputs of mddf's forests, "
            f"scikit-learn's random forests and XGBoost models only, and this {role} is none of them; {instead}"
        )

    def attributions(self, model, X, codes, has_missing, fast, width):
        """In the block's ``width`` columns: a fold model of one class predicts it whatever the row (no
        attribution); any other's attributions are :meth:`own_attributions` put in its classes' columns."""
        values = np.zeros((len(X), X.shape[1], width))
        base = np.zeros(width)
        if model.estimator is None:  # fitted on rows of one class: it predicts that class
            base[model.classes[0]] = 1.0
            return base, values
        own_base, own_values = self.own_attributions(model.estimator, X, fast)
        if model.n_classes is None:
            return own_base, own_values
        columns = model.classes[np.asarray(model.estimator.classes_, dtype=np.intp)]
        base[columns] = own_base
        values[:, :, columns] = own_values
        return base, values

    def own_attributions(self, estimator, X, fast):
        """``(base, values)`` of a fitted estimator's own output (its classes' columns): a scikit-learn forest's
        trees, compacted as the block's exact forests (the predictor ``"forest"``)."""
        return CompactForest(estimator, len(estimator.classes_)).attributions(X, fast)

    def importances(self, model, n_features):
        """The fold model's :attr:`FoldModel.importances`, when it has one a column."""
        importances = model.importances
        return importances if importances is not None and importances.shape == (n_features,) else None
