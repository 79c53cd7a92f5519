"""Boosted trees beside the grown forests: the ``"gbdt"`` member of a block and the boosting predictors.

A block's ``forest_types`` may list ``"gbdt"`` (or LightGBM's ``"lgbm"``, :func:`make_lgbm`), gradient-boosted
trees that the block fits whole, per fold, beside the forests it grows tree by tree; a
cascade's ``predictor`` may be ``"xgboost"`` or ``"hgb"``. Both are estimators
of other libraries with the fixed settings below, splitting the columns the
block splits into category subsets into category subsets too:
:func:`make_gbdt` (XGBoost, :data:`GBDT_PARAMS`) and :func:`make_hgb`
(scikit-learn's HistGradientBoosting with its defaults).
"""

from __future__ import annotations

import numpy as np

from .kinds import TASKS

#: Settings of the ``"gbdt"`` member: XGBoost's own defaults (100 rounds, learning rate 0.3, depth 6,
#: histogram trees), written out so that they do not move with XGBoost's version, and one thread, as
#: the block parallelises over its members and folds (and one thread keeps XGBoost's sums in a fixed order).
GBDT_PARAMS = dict(n_estimators=100, learning_rate=0.3, max_depth=6, tree_method="hist", n_jobs=1)
#: The boosted members by name: ``"gbdt"`` (:data:`GBDT_PARAMS`), ``"gbdt_es"`` (its rounds stopped early on rows
#: held out of each fold model's training rows, :data:`EARLY_STOPPING_ROUNDS`) and ``"gbdt_vector"`` (stopped
#: early, and one tree a round for all classes: vector leaves).
GBDT_KINDS = ("gbdt", "gbdt_es", "gbdt_vector")
#: Rounds without a better held-out loss after which an early-stopped member stops (at most ``n_estimators``).
EARLY_STOPPING_ROUNDS = 10


def make_gbdt(random_state=None, task="classification", categorical=None, kind="gbdt"):
    """The boosted member ``kind`` of :data:`GBDT_KINDS`: ``XGBClassifier`` (or ``XGBRegressor``)
    ``(**GBDT_PARAMS, random_state=random_state)``, for ``"gbdt_es"`` with ``early_stopping_rounds`` (the block
    holds out a tenth of each fold model's rows to stop on) and for ``"gbdt_vector"`` also
    ``multi_strategy="multi_output_tree"`` (one tree a round whose leaves hold every class's value, where
    ``"gbdt"`` grows one tree a round per class; not for categorical columns, which XGBoost's vector trees do
    not split: with one, it grows a tree per class).

    Boosting fits each tree to the errors of the previous ones, so on data where
    a few strong interactions matter it reaches a lower bias than the block's
    averaged forests, at the cost of sequential rounds. The block's depth
    limit (``max_depth_factor``) and ``n_estimators`` do not apply to it; for
    other settings pass an ``XGBClassifier`` or ``XGBRegressor`` instance of your own.

    Parameters
    ----------
    random_state : int or None
    task : {"classification", "regression"}
        ``"regression"`` gives ``XGBRegressor`` (squared error) with the same settings.
    categorical : array-like of bool (d,) or None
        Columns of the input that hold category codes (0 .. k-1, NaN for a missing
        or unseen category) to split into subsets of categories: they are given
        to XGBoost as categorical (``enable_categorical=True`` and
        ``feature_types``, ``"c"`` for these columns and ``"q"`` for the others),
        as its own categorical support splits them. None, or no True entry: every
        column is a number, and the model is the one without this parameter.
    kind : {"gbdt", "gbdt_es", "gbdt_vector"}, default="gbdt"
        The boosted member (:data:`GBDT_KINDS`); see :ref:`the user guide <members-and-predictor>`.
    """
    _check_task(task)
    if kind not in GBDT_KINDS:
        raise ValueError(f"unknown boosted member {kind!r}; expected one of {GBDT_KINDS}")
    params = dict(GBDT_PARAMS, random_state=random_state, **_categorical_params(categorical))
    if kind != "gbdt":
        params["early_stopping_rounds"] = EARLY_STOPPING_ROUNDS
    if kind == "gbdt_vector" and task == "classification" and "enable_categorical" not in params:
        params["multi_strategy"] = "multi_output_tree"
    if task == "regression":
        from xgboost import XGBRegressor

        return XGBRegressor(**params)
    from xgboost import XGBClassifier

    return XGBClassifier(**params)


#: Settings of the ``"lgbm"`` member: LightGBM's own defaults (100 rounds, learning rate 0.1, 31 leaves, no depth
#: limit, 20 rows a leaf, 255 bins, no row or column subsampling, no penalty; its categorical splits' settings),
#: written out so that they do not move with LightGBM's version; one thread, as the block parallelises over its
#: members and folds; ``deterministic`` and ``force_row_wise``, so that a seed gives the same model bit for bit
#: (LightGBM otherwise picks row- or column-wise histograms by timing both); silent.
LGBM_PARAMS = dict(
    n_estimators=100,
    learning_rate=0.1,
    num_leaves=31,
    max_depth=-1,
    min_child_samples=20,
    min_child_weight=1e-3,
    min_split_gain=0.0,
    reg_alpha=0.0,
    reg_lambda=0.0,
    max_bin=255,
    subsample=1.0,
    colsample_bytree=1.0,
    max_cat_to_onehot=4,
    max_cat_threshold=32,
    cat_smooth=10.0,
    cat_l2=10.0,
    min_data_per_group=100,
    n_jobs=1,
    deterministic=True,
    force_row_wise=True,
    verbose=-1,
)
#: What the classification members change of :data:`LGBM_PARAMS`: XGBoost's bounds on a leaf's Newton step
#: ``sum(g) / (sum(h) + reg_lambda)``. A softmax row's Hessian is ``p (1 - p)``, about a rare class's prior, so with
#: LightGBM's ``min_child_weight=1e-3`` and ``reg_lambda=0`` a leaf of 20 rows of a rare class passes the bound and
#: its step diverges (see :ref:`the members <members-and-predictor>`); a leaf now needs a Hessian sum of 1 and its step
#: is penalised by 1. Squared error's Hessians are 1 a row, so the
#: regressor's members keep :data:`LGBM_PARAMS` (their 20 rows a leaf already bound the step), bit for bit.
LGBM_CLASSIFIER_PARAMS = dict(min_child_weight=1.0, reg_lambda=1.0)
#: The round cap of an early-stopped classification member (``"lgbm_es"``): high enough that the held-out loss, not
#: the cap, stops it. The regressor's keeps :data:`LGBM_PARAMS`' 100 rounds.
LGBM_ES_CLASSIFIER_ROUNDS = 1000
#: The LightGBM members by name: ``"lgbm"`` (:data:`LGBM_PARAMS`) and ``"lgbm_es"`` (its rounds stopped early on
#: rows held out of each fold model's training rows, :data:`EARLY_STOPPING_ROUNDS`, as ``"gbdt_es"``).
LGBM_KINDS = ("lgbm", "lgbm_es")
INSTALL = "pip install lightgbm (a dependency of mddf: reinstall mddf to restore it)"


def require_lightgbm(where):
    """Import lightgbm, or raise an ``ImportError`` naming ``where`` and how to install it."""
    try:
        import lightgbm
    except ImportError as error:
        raise ImportError(f"{where}: this member needs lightgbm, which is not installed ({error}); {INSTALL}") from None
    return lightgbm


def lgbm_params(task="classification", kind="lgbm"):
    """The settings of the LightGBM member ``kind`` for ``task``: :data:`LGBM_PARAMS`, for classification with
    :data:`LGBM_CLASSIFIER_PARAMS`, and for ``"lgbm_es"`` with ``early_stopping_round`` (and, for classification,
    :data:`LGBM_ES_CLASSIFIER_ROUNDS` rounds at most)."""
    _check_task(task)
    if kind not in LGBM_KINDS:
        raise ValueError(f"unknown LightGBM member {kind!r}; expected one of {LGBM_KINDS}")
    params = dict(LGBM_PARAMS)
    if task == "classification":
        params.update(LGBM_CLASSIFIER_PARAMS)
    if kind == "lgbm_es":
        params["early_stopping_round"] = EARLY_STOPPING_ROUNDS
        if task == "classification":
            params["n_estimators"] = LGBM_ES_CLASSIFIER_ROUNDS
    return params


def make_lgbm(random_state=None, task="classification", kind="lgbm"):
    """The LightGBM member ``kind`` of :data:`LGBM_KINDS`: ``LGBMClassifier`` (or ``LGBMRegressor``, squared error)
    with the settings of :func:`lgbm_params` and ``random_state``; ``"lgbm_es"`` stops early (the block holds out a
    tenth of each fold model's rows to stop on). The block gives it the category columns at fit. An ``ImportError``
    saying how to install lightgbm when it is missing."""
    params = dict(lgbm_params(task, kind), random_state=random_state)
    lightgbm = require_lightgbm(repr(kind))
    model = lightgbm.LGBMRegressor if task == "regression" else lightgbm.LGBMClassifier
    return model(**params)


#: Settings of the ``"catboost_es"`` member: CatBoost's own defaults where they do not depend on the data (depth 6
#: symmetric trees, ``l2_leaf_reg=3``; the learning rate is CatBoost's choice from the rows and rounds) but a fifth of
#: its 1000 rounds, as a member is fitted k times a layer (see :ref:`the members <members-and-predictor>`); one thread,
#: as the block parallelises over its members and folds (and one thread gives the same model for a seed), silent and
#: writing no files; stopped early (:data:`EARLY_STOPPING_ROUNDS`) on rows held out of each fold model's training rows,
#: as ``"gbdt_es"`` and ``"lgbm_es"``.
CATBOOST_PARAMS = dict(iterations=200, depth=6, l2_leaf_reg=3.0, thread_count=1, verbose=0, allow_writing_files=False)
#: The CatBoost members by name.
CATBOOST_KINDS = ("catboost_es",)
CATBOOST_INSTALL = "pip install catboost (or pip install 'mddf[bench]')"


def require_catboost(where):
    """Import catboost, or raise an ``ImportError`` naming ``where`` and how to install it."""
    try:
        import catboost
    except ImportError as error:
        raise ImportError(
            f"{where}: this member needs catboost, which is not installed ({error}); {CATBOOST_INSTALL}"
        ) from None
    return catboost


def make_catboost(random_state=None, task="classification", kind="catboost_es"):
    """The CatBoost member ``kind`` of :data:`CATBOOST_KINDS`: ``CatBoostClassifier`` (or ``CatBoostRegressor``, RMSE)
    ``(**CATBOOST_PARAMS, random_seed=random_state, early_stopping_rounds=EARLY_STOPPING_ROUNDS)``. The block gives it
    the category columns at fit (its ``cat_features``). An ``ImportError`` saying how to install catboost when it is
    missing."""
    _check_task(task)
    if kind not in CATBOOST_KINDS:
        raise ValueError(f"unknown CatBoost member {kind!r}; expected one of {CATBOOST_KINDS}")
    catboost = require_catboost(repr(kind))
    model = catboost.CatBoostRegressor if task == "regression" else catboost.CatBoostClassifier
    return model(**CATBOOST_PARAMS, random_seed=random_state, early_stopping_rounds=EARLY_STOPPING_ROUNDS)


def make_hgb(random_state=None, task="classification", categorical=None):
    """scikit-learn's ``HistGradientBoostingClassifier`` (or ``...Regressor``) with its defaults.

    The ``predictor="hgb"`` of the cascades. Its defaults include ``early_stopping="auto"``: on large
    inputs it stops on a held-out share of the rows (``validation_fraction``), drawn from ``random_state``.

    Parameters
    ----------
    random_state : int or None
    task : {"classification", "regression"}
    categorical : array-like of bool (d,) or None
        Columns of the input that hold category codes (0 .. k-1 with k at most 255, NaN for a missing or
        unseen category), given as its ``categorical_features`` so that it splits them into subsets of
        categories. None, or no True entry: every column is a number (its default ``"from_dtype"``,
        which finds no category in a numeric array), as in :func:`make_gbdt`.
    """
    _check_task(task)
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    model = HistGradientBoostingRegressor if task == "regression" else HistGradientBoostingClassifier
    mask = _category_mask(categorical)
    categorical_features = "from_dtype" if mask is None else mask
    return model(categorical_features=categorical_features, random_state=random_state)


def _category_mask(categorical):
    """``categorical`` as an array of bool, or None when it marks no column (None or no True entry)."""
    if categorical is None or not np.any(categorical):
        return None
    return np.asarray(categorical, bool)


def _categorical_params(categorical):
    """XGBoost's parameters for the category columns marked in ``categorical``; none without one."""
    mask = _category_mask(categorical)
    if mask is None:
        return {}
    return {"enable_categorical": True, "feature_types": ["c" if c else "q" for c in mask]}


def _check_task(task):
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; expected one of {TASKS}")
