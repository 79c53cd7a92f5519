"""The missing-value benchmark: mdDF with native NaN against imputation and other learners that take NaN.

Cases (:data:`CASES`): letter and satimage with 10% and 30% of the values removed completely at random
(:func:`~.protocols.missing.mask_completely_at_random`, training and test rows alike, the mask seeded by
the run's seed), adult with its own missing values kept as NaN (``load_dataset("adult", missing="nan")``),
and each dataset complete, the reference for accuracy and fit time. Methods (:data:`METHODS`): mdDF on
the data as it is (NaN routed by its trees), median imputation then mdDF (``SimpleImputer`` fitted on
the training rows; for adult's ordinal-coded categories the median is a category), a 400-tree random
forest (scikit-learn's native NaN support), HistGradientBoosting and LightGBM (when installed).

Every fit runs in a fresh spawned process, so one fit's memory and compiled code do not carry over.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bench.fitting import timed_fit
from .bench.loading import train_test_arrays
from .environment import run_in_fresh_process as _in_fresh_process

#: Fractions of values removed completely at random.
MCAR_FRACTIONS = (0.1, 0.3)


@dataclass(frozen=True)
class Case:
    """One data condition: a dataset, and how its missing values come about."""

    dataset: str
    missing: str  # "complete", "mcar" or "own"
    fraction: float = 0.0

    @property
    def name(self) -> str:
        if self.missing == "mcar":
            return f"{self.dataset} MCAR {self.fraction:.0%}"
        return f"{self.dataset} {'own NaN' if self.missing == 'own' else 'complete'}"


CASES = (
    *(Case(d, "complete") for d in ("letter", "satimage", "adult")),
    *(Case(d, "mcar", f) for d in ("letter", "satimage") for f in MCAR_FRACTIONS),
    Case("adult", "own"),
)

#: Method names, in table order.
METHODS = ("mdDF", "SimpleImputer+mdDF", "RF400", "HistGradientBoosting", "LightGBM")


def build(method: str, seed: int, n_jobs: int, mddf_params: dict | None = None):
    """A fresh estimator for ``method``."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline

    from mddf import MDDFClassifier

    if method == "mdDF":
        return MDDFClassifier(random_state=seed, n_jobs=n_jobs, **(mddf_params or {}))
    if method == "SimpleImputer+mdDF":
        return make_pipeline(
            SimpleImputer(strategy="median"), MDDFClassifier(random_state=seed, n_jobs=n_jobs, **(mddf_params or {}))
        )
    if method == "RF400":
        return RandomForestClassifier(n_estimators=400, random_state=seed, n_jobs=n_jobs)
    if method == "HistGradientBoosting":
        return HistGradientBoostingClassifier(random_state=seed)
    if method == "LightGBM":
        from lightgbm import LGBMClassifier

        return LGBMClassifier(random_state=seed, n_jobs=n_jobs, verbose=-1)
    raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def load_case(case: Case, seed: int):
    """``X_train, y_train, X_test, y_test`` of ``case`` for ``seed``."""
    from .protocols.missing import mask_completely_at_random

    options = {"missing": "nan" if case.missing == "own" else "category"} if case.dataset == "adult" else {}
    X_train, y_train, X_test, y_test = train_test_arrays(case.dataset, **options)
    if case.missing == "mcar":
        X_train = mask_completely_at_random(X_train, case.fraction, random_state=seed)
        X_test = mask_completely_at_random(X_test, case.fraction, random_state=seed + 10_000)
    return X_train, y_train, X_test, y_test


def _fit_and_score(case: Case, method: str, seed: int, n_jobs: int, mddf_params: dict | None) -> dict:
    import numpy as np

    X_train, y_train, X_test, y_test = load_case(case, seed)
    model = build(method, seed, n_jobs, mddf_params)
    predicted, fit_s, predict_s = timed_fit(model, X_train, y_train, X_test)
    accuracy = float(np.mean(predicted == y_test))
    record = {
        "case": case.name,
        "dataset": case.dataset,
        "missing": case.missing,
        "fraction": case.fraction,
        "method": method,
        "seed": seed,
        "accuracy": accuracy,
        "fit_s": fit_s,
        "predict_s": predict_s,
        "missing_share_train": float(np.isnan(X_train).mean()),
    }
    cascade = model[-1] if hasattr(model, "steps") else model
    if hasattr(cascade, "n_layers_"):
        record["layers"] = int(cascade.n_layers_)
        record["grown"] = len(cascade.train_history_)
        record["fit_s_per_layer"] = fit_s / record["grown"]
    return record


def run_in_fresh_process(case: Case, method: str, seed: int, n_jobs: int, mddf_params: dict | None = None) -> dict:
    """:func:`_fit_and_score` in a spawned process of its own."""
    return _in_fresh_process(_fit_and_score, case, method, seed, n_jobs, mddf_params)
