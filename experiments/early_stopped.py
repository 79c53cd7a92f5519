"""Boosting with early stopping on a validation part of the training rows, through each library's own early stopping
(:class:`EarlyStopped`); the model is not refitted on the held-out rows."""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import BaseEstimator, clone, is_classifier
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .protocols import holdout

LIBRARIES = ("sklearn", "xgboost", "lightgbm", "catboost")
#: The most categories HistGradientBoosting takes in a column (its bins); a column of more is given as its codes.
MAX_HGB_CATEGORIES = 255


def _library(estimator) -> str:
    root = type(estimator).__module__.split(".")[0]
    if root not in LIBRARIES or (root == "sklearn" and "HistGradientBoosting" not in type(estimator).__name__):
        raise TypeError(
            "EarlyStopped wraps scikit-learn's HistGradientBoosting, XGBoost, LightGBM or CatBoost models, "
            f"not {type(estimator).__name__}"
        )
    return root


class EarlyStopped(BaseEstimator):
    """A boosting model stopped early on a held-out part of its training rows.

    Parameters
    ----------
    estimator : estimator
        A HistGradientBoosting, XGBoost, LightGBM or CatBoost classifier or regressor, cloned at ``fit``.
    validation_fraction : float, default=0.1
        Share of the training rows held out to monitor the loss.
    patience : int, default=20
        Rounds without improvement of the validation loss before the fit stops.
    categorical_features : array of bool, optional
        Columns holding category codes (declared to LightGBM and CatBoost).
    random_state : int, optional
        Seeds the hold-out split.

    Attributes
    ----------
    estimator_ : estimator
    classes_ : ndarray
    n_rounds_ : int or None
        Boosting rounds the model predicts with; None when no validation row was left and the cap decided.
    n_validation_ : int"""

    def __init__(
        self, estimator, *, validation_fraction=0.1, patience=20, categorical_features=None, random_state=None
    ):
        self.estimator = estimator
        self.validation_fraction = validation_fraction
        self.patience = patience
        self.categorical_features = categorical_features
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator.__sklearn_tags__()
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.input_tags.allow_nan = True
        return tags

    def fit(self, X, y):
        """Hold out the validation rows, then fit the wrapped model with early stopping on them."""
        X = np.asarray(X)
        y = np.asarray(y)
        library = _library(self.estimator)
        classify = is_classifier(self.estimator)
        held = dict(test_size=self.validation_fraction, random_state=self.random_state)
        fit_rows, val_rows = holdout(np.arange(len(y)), stratify=y if classify else None, **held)
        y_fit, y_val = y[fit_rows], y[val_rows]
        if classify:
            self.classes_ = np.unique(y_fit)
            keep = np.isin(y_val, self.classes_)
            val_rows, y_val = val_rows[keep], y_val[keep]
            y_fit = np.searchsorted(self.classes_, y_fit)
            y_val = np.searchsorted(self.classes_, y_val)
        X_fit, X_val = X[fit_rows], X[val_rows]
        if classify and len(self.classes_) == 1:  # one class to learn: it is the prediction (CatBoost refuses it)
            self.estimator_, self.n_rounds_, self.n_validation_ = None, 0, int(len(val_rows))
            return self
        model = clone(self.estimator)
        if len(val_rows) == 0:  # no held-out row of a class the model sees: the cap decides
            fit_params = {"cat_features": self._declared(X.shape[1]).tolist() or None} if library == "catboost" else {}
            model.fit(self._input(X_fit), y_fit, **fit_params)
            self.n_rounds_ = None
        elif library == "sklearn":
            model.set_params(early_stopping=True, n_iter_no_change=self.patience, **self._hgb_categories(model, X))
            model.fit(X_fit, y_fit, X_val=X_val, y_val=y_val)
            self.n_rounds_ = int(model.n_iter_)
        elif library == "xgboost":
            model.set_params(early_stopping_rounds=self.patience)
            model.fit(X_fit, y_fit, eval_set=[(X_val, y_val)], verbose=False)
            self.n_rounds_ = int(model.best_iteration) + 1
        elif library == "catboost":
            model.set_params(early_stopping_rounds=self.patience, use_best_model=True)
            declared = self._declared(X.shape[1]).tolist() or None
            model.fit(self._input(X_fit), y_fit, cat_features=declared, eval_set=(self._input(X_val), y_val))
            self.n_rounds_ = int(model.get_best_iteration()) + 1
        else:
            import lightgbm

            declared = self._declared(X.shape[1]).tolist()
            # lightgbm 4.7 takes the validation rows as eval_X / eval_y; earlier releases as eval_set
            held_out = {"eval_set": [(X_val, y_val)]}
            if "eval_X" in inspect.signature(model.fit).parameters:
                held_out = {"eval_X": (X_val,), "eval_y": (y_val,)}
            stop = [lightgbm.early_stopping(self.patience, verbose=False)]
            model.fit(X_fit, y_fit, callbacks=stop, categorical_feature=declared or "auto", **held_out)
            self.n_rounds_ = int(model.best_iteration_ or model.n_estimators)
        self.estimator_ = model
        self.n_validation_ = int(len(val_rows))
        return self

    def _hgb_categories(self, model, X) -> dict:
        """HistGradientBoosting's ``categorical_features`` less the columns of too many categories, else ``{}``."""
        self.categories_as_codes_ = []
        declared = model.get_params().get("categorical_features")
        if declared is None or isinstance(declared, str):
            return {}
        mask = np.asarray(declared, dtype=bool).copy()
        for j in np.flatnonzero(mask):
            codes = X[:, j].astype(np.float64)
            if np.nanmax(codes, initial=-1) + 1 > MAX_HGB_CATEGORIES:
                mask[j] = False
                self.categories_as_codes_.append(int(j))
        return {"categorical_features": mask} if self.categories_as_codes_ else {}

    def _declared(self, n_columns):
        mask = np.zeros(n_columns, bool) if self.categorical_features is None else self.categorical_features
        return np.flatnonzero(np.asarray(mask, dtype=bool))

    def _input(self, X):
        """``X`` as the wrapped model reads it (CatBoost: a DataFrame whose declared categorical columns are text)."""
        X = np.asarray(X)
        if _library(self.estimator) != "catboost":
            return X
        import pandas as pd

        frame = pd.DataFrame(X)
        for j in self._declared(X.shape[1]):
            codes = frame[j].to_numpy(dtype=np.float64)
            frame[j] = np.where(np.isnan(codes), "NA", np.nan_to_num(codes).astype(np.int64).astype(str))
        return frame

    def predict(self, X):
        """The wrapped model's prediction (labels of ``classes_`` for a classifier)."""
        check_is_fitted(self, "n_validation_")
        if self.estimator_ is None:  # trained on one class
            return np.full(len(X), self.classes_[0])
        if hasattr(self, "classes_"):
            if _library(self.estimator) == "catboost":  # its labels come back as a column of its own dtype
                return self.classes_[self.estimator_.predict_proba(self._input(X)).argmax(axis=1)]
            return self.classes_[np.asarray(self.estimator_.predict(self._input(X)), dtype=np.int64)]
        return self.estimator_.predict(self._input(X))

    @available_if(lambda self: hasattr(self.estimator, "predict_proba"))
    def predict_proba(self, X):
        """Class probabilities, one column per label of ``classes_``."""
        check_is_fitted(self, "n_validation_")
        if self.estimator_ is None:  # trained on one class
            return np.ones((len(X), 1))
        return self.estimator_.predict_proba(self._input(X))
