"""The compared methods: their builders (each imports its estimator), grids and registry (:func:`default_registry`)."""

from __future__ import annotations

import importlib
import inspect
import itertools
from functools import partial

import numpy as np

from .registry import SEVERAL_TARGETS, BuildContext, MethodSpec, Registry, learner_task

FALLBACK_TREES_K = 1

# Profiles: "paper" is the papers' configuration; "quick" shrinks everything for smoke tests.
PROFILES = ("paper", "quick")

_QUICK_CASCADE = dict(n_estimators=10, max_layers=3)
_PAPER_TREES_PER_LAYER = 4 * 100
_QUICK_TREES_PER_LAYER = 4 * _QUICK_CASCADE["n_estimators"]

MLP_ARCHITECTURES = ((1024, 512), (16, 8, 8), (70, 50), (50, 30), (30, 20))


def _construct(cls, ctx: BuildContext, **params):
    """Instantiate ``cls`` with ``params`` plus ``random_state``/``n_jobs`` when it accepts them."""
    accepted = inspect.signature(cls).parameters
    if "random_state" in accepted:
        params.setdefault("random_state", ctx.seed)
    if "n_jobs" in accepted:
        params.setdefault("n_jobs", ctx.n_jobs)
    return cls(**params)


def _import(module: str, attribute: str):
    return getattr(importlib.import_module(module), attribute)


def _cascade_params(ctx: BuildContext) -> dict:
    return dict(_QUICK_CASCADE) if ctx.profile == "quick" else {}


def declared_categories(categorical_mask) -> dict:
    """``{"categorical_features": mask}`` for a dataset with categorical columns (X holds their codes); else {}."""
    mask = np.asarray(categorical_mask, dtype=bool)
    return {"categorical_features": mask} if mask.any() else {}


def build_mddf(ctx: BuildContext, **params):
    """mdDF, categorical columns declared: :data:`mddf.PAPER_CONFIG` under the paper's protocol, the estimator's
    defaults under the practitioner's; ``CascadeForestRegressor``'s defaults for a regression."""
    base = {}
    if ctx.task == "classification" and ctx.protocol == "paper":
        from mddf import PAPER_CONFIG

        base = dict(PAPER_CONFIG)  # the profile's sizes (quick: fewer trees and layers) go on top of it
    params = {**base, **_cascade_params(ctx), **declared_categories(ctx.categorical_mask), **params}
    kind = "CascadeForestRegressor" if _regression(ctx) else "MDDFClassifier"
    return _construct(_import("mddf", kind), ctx, **params)


def tiny(builder, ctx: BuildContext, **params):
    """``builder``'s model with 2 trees per forest and one layer: the warm-up fit of its kind."""
    return builder(ctx, **{"n_estimators": 2, "max_layers": 1, **params})


def tiny_boosting(builder, ctx: BuildContext, **params):
    """``builder``'s boosting model with 2 rounds: the warm-up fit of its kind."""
    return builder(ctx, **{"n_iter": 2, **params})


def adapt_to_small_classes(estimator, min_class_rows: int | None) -> list[str]:
    """Lower every (nested) parameter ending in ``n_folds`` to ``min_class_rows``, or with a single row set
    ``class_vectors="oob"`` and keep only the forests; None changes nothing. Returns ``["name=value", ...]``."""
    if min_class_rows is None or not hasattr(estimator, "get_params"):
        return []
    from mddf.forests import FOREST_KINDS  # the members with out-of-bag class vectors; the others are cross-fitted

    params = estimator.get_params(deep=True)
    changes = {}
    for name, value in params.items():
        if not name.endswith("n_folds") or not isinstance(value, (int, np.integer)) or value <= min_class_rows:
            continue
        if min_class_rows >= 2:
            changes[name] = int(min_class_rows)
            continue
        vectors = name[: -len("n_folds")] + "class_vectors"
        if vectors in params:
            changes[vectors] = "oob"
        members = name[: -len("n_folds")] + "forest_types"
        forests = tuple(m for m in params.get(members) or () if isinstance(m, str) and m in FOREST_KINDS)
        if forests and forests != tuple(params[members]):
            changes[members] = forests
    if changes:
        estimator.set_params(**changes)
    return [f"{name}={value!r}" for name, value in changes.items()]


QUICK_SEARCH_GRID = {"margin_mean": (0.7, 0.9), "max_depth_factor": (2, 16)}


def build_mddf_tuned(ctx: BuildContext, **params):
    """mdDF tuned on the training rows by :class:`mddf.MDDFGridSearch` (the quick profile: a 4-point grid)."""
    from mddf import MDDFGridSearch

    grid = QUICK_SEARCH_GRID if ctx.profile == "quick" else None
    return MDDFGridSearch(estimator=build_mddf(ctx, **params), param_grid=grid)


def build_mddf_pca_hgb(ctx: BuildContext, **params):
    """:class:`mddf.PCAFeatures`, then mdDF with ``predictor="hgb"``, categorical columns declared to both."""
    from sklearn.pipeline import make_pipeline

    positions = np.flatnonzero(np.asarray(ctx.categorical_mask, dtype=bool))
    declared = {"categorical_features": positions} if positions.size else {}
    rotation = _import("mddf", "PCAFeatures")(**declared)
    return make_pipeline(rotation, build_mddf(ctx, **{"predictor": "hgb", **declared, **params}))


def build_mddf_hgb_auto(ctx: BuildContext, **params):
    """mdDF with a HistGradientBoosting predictor, its input chosen at fit (``predictor_input="auto"``)."""
    return build_mddf(ctx, **{"predictor": "hgb", "predictor_input": "auto", **params})


def build_mddf_plain_stop(ctx: BuildContext, **params):
    """mdDF stopping on any improvement (``min_error_reduction=0``: gcForest's rule, the paper's configuration's)."""
    return build_mddf(ctx, min_error_reduction=0.0, **params)


def build_mddf_same_forests(ctx: BuildContext, **params):
    """mdDF_SF (Table 3): four random forests per layer instead of 2 RF + 2 CRF."""
    return build_mddf(ctx, forest_types=("rf",) * 4, **params)


def build_mddf_stacking(ctx: BuildContext, **params):
    """mdDF_ST (Table 3): each layer sees only the previous layer's augmented feature."""
    return build_mddf(ctx, input_features="stacking", **params)


def build_mddf_no_preconc(ctx: BuildContext, **params):
    """mdDF_NP (Table 3): each layer sees only the raw input features."""
    return build_mddf(ctx, input_features="raw", **params)


def build_gcforest(ctx: BuildContext, **params):
    """gcForest's cascade with the same forests as mdDF (the mdDF paper's Table 2 comparison)."""
    return _construct(_import("mddf.baselines", "GCForestClassifier"), ctx, **{**_cascade_params(ctx), **params})


# Scanning windows per image shape (the gcForest paper's figure 4), other shapes those fractions of the smallest side.
SCANNING = {(8, 8): dict(window_sizes=(3, 4, 5)), (28, 28): dict(window_sizes=(7, 10, 13), stride=2)}
SCANNING_FRACTIONS = dict(window_sizes=(0.25, 0.36, 0.46))


def build_gcforest_scanning(ctx: BuildContext, **params):
    """gcForest with multi-grained scanning in front of the cascade (image datasets only)."""
    if ctx.image_shape is None:
        raise ValueError("gcForest-MGS needs an image dataset (no image_shape known for this one)")
    scanning = SCANNING.get(tuple(ctx.image_shape[:2]), SCANNING_FRACTIONS)
    params = {**scanning, "image_shape": tuple(ctx.image_shape), **params}
    if ctx.profile == "quick":
        params.setdefault("scan_n_estimators", 5)
    return build_gcforest(ctx, **params)


def trees_per_layer(profile: str) -> int:
    """Trees in one mdDF layer under ``profile`` (400 in the paper)."""
    return _QUICK_TREES_PER_LAYER if profile == "quick" else _PAPER_TREES_PER_LAYER


def build_random_forest(ctx: BuildContext, **params):
    """Random forest with the run's tree budget (400 x k trees)."""
    from sklearn.ensemble import RandomForestClassifier

    params.setdefault("n_estimators", ctx.n_trees or trees_per_layer(ctx.profile) * FALLBACK_TREES_K)
    return _construct(RandomForestClassifier, ctx, **params)


def build_xgboost(ctx: BuildContext, **params):
    """XGBoost with the run's tree budget (400 x k boosting rounds), histogram trees."""
    from xgboost import XGBClassifier

    params.setdefault("n_estimators", ctx.n_trees or trees_per_layer(ctx.profile) * FALLBACK_TREES_K)
    params.setdefault("tree_method", "hist")
    # XGBoost takes None (not -1) for "all cores".
    n_jobs = None if ctx.n_jobs is None or ctx.n_jobs < 0 else ctx.n_jobs
    return XGBClassifier(random_state=ctx.seed, n_jobs=n_jobs, **params)


def build_mlp(ctx: BuildContext, hidden_layer_sizes=(70, 50), **params):
    """Standardise (one-hot categoricals), then an MLP trained with adam."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    mask = np.asarray(ctx.categorical_mask, dtype=bool) if len(ctx.categorical_mask) else np.zeros(ctx.n_features, bool)
    numeric = make_pipeline(SimpleImputer(strategy="median", keep_empty_features=True), StandardScaler())
    transformers = [("numeric", numeric, np.flatnonzero(~mask))]
    if mask.any():
        imputer = SimpleImputer(strategy="most_frequent", keep_empty_features=True)
        categorical = make_pipeline(imputer, OneHotEncoder(handle_unknown="ignore", sparse_output=False))
        transformers.append(("categorical", categorical, np.flatnonzero(mask)))
    mlp_params = dict(hidden_layer_sizes=tuple(hidden_layer_sizes), activation="relu", solver="adam", alpha=0.0)
    mlp_params.update(max_iter=50 if ctx.profile == "quick" else 200, random_state=ctx.seed)
    mlp_params.update(params)
    return make_pipeline(ColumnTransformer(transformers), MLPClassifier(**mlp_params))


def mlp_grid(ctx: BuildContext) -> list:
    """The paper's five architectures (Section 5.2)."""
    archs = MLP_ARCHITECTURES[2:4] if ctx.profile == "quick" else MLP_ARCHITECTURES
    return [{"hidden_layer_sizes": a} for a in archs]


def _boosting(name: str, ctx: BuildContext, **params):
    """The boosting baseline ``name`` of :mod:`mddf.baselines`, 100 rounds by default (the quick profile: 10)."""
    params.setdefault("n_iter", 10 if ctx.profile == "quick" else 100)
    return _construct(_import("mddf.baselines", name), ctx, **params)


def build_deepboost(ctx: BuildContext, **params):
    """DeepBoost with the exponential loss and trees (the DeepBoost paper's Table 2)."""
    return _boosting("DeepBoostClassifier", ctx, **{"loss": "exponential", **params})


def build_deepboost_logistic(ctx: BuildContext, **params):
    """DeepBoost with the logistic loss (the DeepBoost paper's Table 3)."""
    return build_deepboost(ctx, **{"loss": "logistic", **params})


def deepboost_grid(ctx: BuildContext) -> list:
    """K in 1..6, beta and lambda in {1e-3, ..., 1e-7} (DeepBoost paper, Section 4)."""
    if ctx.profile == "quick":
        depths, betas, lams = (1, 2), (1e-3,), (1e-3,)
    else:
        depths, betas, lams = range(1, 7), [10.0**-i for i in range(3, 8)], [10.0**-i for i in range(3, 8)]
    return [{"max_depth": k, "beta": b, "lam": lam} for k, b, lam in itertools.product(depths, betas, lams)]


def build_adaboost(ctx: BuildContext, **params):
    """AdaBoost with depth-K trees (the DeepBoost paper's Table 2 baseline)."""
    return _boosting("AdaBoostClassifier", ctx, **params)


def adaboost_grid(ctx: BuildContext) -> list:
    """Tree depth K in 1..6 (DeepBoost paper, Section 4)."""
    depths = (1, 2) if ctx.profile == "quick" else range(1, 7)
    return [{"max_depth": k} for k in depths]


def build_quadboost(ctx: BuildContext, **params):
    """QuadBoost (Roy, Marchand and Laviolette)."""
    return _boosting("QuadBoostClassifier", ctx, **params)


def quadboost_grid(ctx: BuildContext) -> list:
    """Each variant's parameter on the QuadBoost paper's ranges (Section 4), 5/4/4 log-spaced values."""
    if ctx.profile == "quick":
        return [{"regularization": "l1", "lam": 0.01}, {"regularization": "l2", "lam": 1.0}]
    grid = [{"regularization": "l1", "lam": float(v)} for v in np.logspace(-4, 0, 5)]
    grid += [{"regularization": "l2", "lam": float(v)} for v in np.logspace(0, 3, 4)]
    grid += [{"regularization": "linf", "alpha_max": float(v)} for v in np.logspace(-4, -1, 4)]
    return grid + [{"regularization": None}]


# Today's peers (opt-in): LightGBM, HistGradientBoosting, ExtraTrees

QUICK_PEER_ROUNDS = 10


def build_lightgbm(ctx: BuildContext, **params):
    """LightGBM's ``LGBMClassifier`` with its defaults (silenced; 10 rounds with the quick profile)."""
    from lightgbm import LGBMClassifier

    params.setdefault("verbose", -1)
    if ctx.profile == "quick":
        params.setdefault("n_estimators", QUICK_PEER_ROUNDS)
    return _construct(LGBMClassifier, ctx, **params)


def build_hist_gradient_boosting(ctx: BuildContext, **params):
    """scikit-learn's ``HistGradientBoostingClassifier`` with its defaults, categorical columns declared."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    params = {**declared_categories(ctx.categorical_mask), **params}
    if ctx.profile == "quick":
        params.setdefault("max_iter", QUICK_PEER_ROUNDS)
    return _construct(HistGradientBoostingClassifier, ctx, **params)


def build_extra_trees(ctx: BuildContext, **params):
    """Extremely randomized trees with the run's tree budget (400 x k trees, as RF)."""
    from sklearn.ensemble import ExtraTreesClassifier

    params.setdefault("n_estimators", ctx.n_trees or trees_per_layer(ctx.profile) * FALLBACK_TREES_K)
    return _construct(ExtraTreesClassifier, ctx, **params)


# The practitioner's protocol: a baseline, early-stopped boosting, a random forest

ROUNDS_CAP = 1000  #: Rounds at most of the early-stopped boosting models (the quick profile: QUICK_PEER_ROUNDS).
PATIENCE = 20  #: Rounds without improvement of the validation loss before an early-stopped model stops.
ES_VALIDATION_FRACTION = 0.1  #: Share of the training rows an early-stopped model monitors its loss on.
#: Trees of the practitioner's random forest: the trees of one mdDF layer.
PRACTITIONER_RF_TREES = _PAPER_TREES_PER_LAYER


def _regression(ctx: BuildContext) -> bool:
    return learner_task(ctx.task) == "regression"


def _rounds(ctx: BuildContext) -> int:
    return QUICK_PEER_ROUNDS if ctx.profile == "quick" else ROUNDS_CAP


def _early_stopped(ctx: BuildContext, model):
    from .early_stopped import EarlyStopped

    declared = np.asarray(ctx.categorical_mask, dtype=bool) if len(ctx.categorical_mask) else None
    stopping = dict(validation_fraction=ES_VALIDATION_FRACTION, patience=PATIENCE, random_state=ctx.seed)
    model = EarlyStopped(model, categorical_features=declared, **stopping)
    if ctx.task in SEVERAL_TARGETS:  # one early-stopped model per target
        from sklearn.multioutput import MultiOutputClassifier, MultiOutputRegressor

        return (MultiOutputRegressor if _regression(ctx) else MultiOutputClassifier)(model)
    return model


def build_baseline(ctx: BuildContext, **params):
    """The majority class with the training rows' class shares as probabilities, or the mean for regression."""
    from sklearn.dummy import DummyClassifier, DummyRegressor

    if _regression(ctx):
        return DummyRegressor(**{"strategy": "mean", **params})
    return DummyClassifier(**{"strategy": "prior", **params})


def build_hgb_early_stopping(ctx: BuildContext, **params):
    """HistGradientBoosting with its defaults, up to 1000 rounds, stopped early; categorical columns declared."""
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    cls = HistGradientBoostingRegressor if _regression(ctx) else HistGradientBoostingClassifier
    params = {"max_iter": _rounds(ctx), **declared_categories(ctx.categorical_mask), **params}
    return _early_stopped(ctx, _construct(cls, ctx, **params))


def build_lightgbm_early_stopping(ctx: BuildContext, **params):
    """LightGBM with its defaults, up to 1000 rounds, stopped early; categorical columns declared."""
    from lightgbm import LGBMClassifier, LGBMRegressor

    cls = LGBMRegressor if _regression(ctx) else LGBMClassifier
    params = {"n_estimators": _rounds(ctx), "verbose": -1, **params}
    return _early_stopped(ctx, _construct(cls, ctx, **params))


def build_xgboost_early_stopping(ctx: BuildContext, **params):
    """XGBoost with its defaults (histogram trees), up to 1000 rounds, stopped early; categorical columns declared."""
    from xgboost import XGBClassifier, XGBRegressor

    cls = XGBRegressor if _regression(ctx) else XGBClassifier
    params = {"n_estimators": _rounds(ctx), "tree_method": "hist", **params}
    mask = np.asarray(ctx.categorical_mask, dtype=bool)
    if mask.any():
        params.setdefault("enable_categorical", True)
        params.setdefault("feature_types", ["c" if c else "q" for c in mask])
    n_jobs = None if ctx.n_jobs is None or ctx.n_jobs < 0 else ctx.n_jobs
    return _early_stopped(ctx, cls(random_state=ctx.seed, n_jobs=n_jobs, **params))


def build_catboost_early_stopping(ctx: BuildContext, **params):
    """CatBoost with its defaults, up to 1000 rounds, stopped early; categorical columns declared (as text)."""
    from catboost import CatBoostClassifier, CatBoostRegressor

    cls = CatBoostRegressor if _regression(ctx) else CatBoostClassifier
    params = {"iterations": _rounds(ctx), **params}
    threads = -1 if ctx.n_jobs is None or ctx.n_jobs < 0 else ctx.n_jobs
    model = cls(random_seed=ctx.seed, thread_count=threads, verbose=0, allow_writing_files=False, **params)
    return _early_stopped(ctx, model)


def build_practitioner_forest(ctx: BuildContext, **params):
    """scikit-learn's random forest with 400 trees (10 with the quick profile), otherwise its defaults."""
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

    cls = RandomForestRegressor if _regression(ctx) else RandomForestClassifier
    trees = _QUICK_TREES_PER_LAYER if ctx.profile == "quick" else PRACTITIONER_RF_TREES
    return _construct(cls, ctx, **{"n_estimators": trees, **params})


def default_registry() -> Registry:
    """Every method: the mdDF and DeepBoost papers' Tables 2-3, today's peers and the practitioner protocol's."""
    return Registry(_METHODS)


_CASCADE_WARM_UP = partial(tiny, build_mddf)
_BOTH_TASKS = {"tasks": ("classification", "regression", *SEVERAL_TARGETS)}  # mdDF and the practitioner's
_PRACTITIONER = {"default": False, "practitioner": True, **_BOTH_TASKS}
_ES = "defaults, early stopping on 10% of the training rows"
# Registry order: mdDF first, as the methods with a tree budget wait for its layers.
# fmt: off
_METHODS = (
    MethodSpec("mdDF", build_mddf, ("mddf", "MDDFClassifier"),
               "margin-distribution deep forest (the paper's configuration, PAPER_CONFIG, under the paper's protocol; "
               "MDDFClassifier's defaults under the practitioner's; CascadeForestRegressor's for regression)",
               aliases=("mddf",), practitioner=True, warm_up=_CASCADE_WARM_UP, **_BOTH_TASKS),
    MethodSpec("gcForest", build_gcforest, ("mddf.baselines", "GCForestClassifier"),
               "gcForest cascade, same forests as mdDF", aliases=("gcf",), warm_up=partial(tiny, build_gcforest)),
    MethodSpec("RF", build_random_forest, ("sklearn.ensemble", "RandomForestClassifier"),
               "random forest, 400 x k trees (k = mdDF layers)",
               tree_budget=True, aliases=("random_forest", "randomforest", "r.f.")),
    MethodSpec("XGBoost", build_xgboost, ("xgboost", "XGBClassifier"),
               "XGBoost, 400 x k boosting rounds (k = mdDF layers)", tree_budget=True, aliases=("xgb",)),
    MethodSpec("MLP", build_mlp, ("sklearn.neural_network", "MLPClassifier"),
               "MLP (adam), architecture chosen on validation rows", grid=mlp_grid),
    MethodSpec("mdDF-tuned", build_mddf_tuned, ("mddf", "MDDFGridSearch"),
               "mdDF, gamma/mu/depth factor chosen on out-of-fold accuracy (Section 5.2 grids)",
               default=False, aliases=("mddf_tuned", "mddf-search"), warm_up=_CASCADE_WARM_UP),
    MethodSpec("mdDF-pca-hgb", build_mddf_pca_hgb, ("mddf", "PCAFeatures"),
               "PCAFeatures, then mdDF with a HistGradientBoosting predictor (the mixed-data benchmark's CV choice)",
               default=False, aliases=("mddf_pca_hgb",), warm_up=_CASCADE_WARM_UP),
    MethodSpec("mdDF-hgb-auto", build_mddf_hgb_auto, ("mddf", "MDDFClassifier"),
               "mdDF with a HistGradientBoosting predictor on x, or mixed with the cascade's output, chosen at fit",
               default=False, aliases=("mddf_hgb_auto",), warm_up=_CASCADE_WARM_UP),
    MethodSpec("DeepBoost", build_deepboost, ("mddf.baselines", "DeepBoostClassifier"),
               "DeepBoost, exponential loss, trees (binary)",
               grid=deepboost_grid, binary_only=True, warm_up=partial(tiny_boosting, build_deepboost)),
    MethodSpec("AdaBoost", build_adaboost, ("mddf.baselines", "AdaBoostClassifier"),
               "AdaBoost with depth-K trees (binary)",
               grid=adaboost_grid, binary_only=True, warm_up=partial(tiny_boosting, build_adaboost)),
    MethodSpec("QuadBoost", build_quadboost, ("mddf.baselines", "QuadBoostClassifier"),
               "QuadBoost (binary)", grid=quadboost_grid, binary_only=True),
    MethodSpec("DeepBoost-log", build_deepboost_logistic, ("mddf.baselines", "DeepBoostClassifier"),
               "DeepBoost, logistic loss, trees (binary; DeepBoost paper Table 3)", grid=deepboost_grid,
               binary_only=True, default=False, warm_up=partial(tiny_boosting, build_deepboost_logistic)),
    MethodSpec("gcForest-MGS", build_gcforest_scanning, ("mddf.baselines", "GCForestClassifier"),
               "gcForest with multi-grained scanning (image datasets)",
               default=False, image_only=True, aliases=("gcforest_mgs",),
               warm_up=partial(tiny, build_gcforest_scanning, scan_n_estimators=2),
               min_class_rows=2),  # its scanning's class vectors are cross-fitted on at least 2 folds
    MethodSpec("mdDF_SF", build_mddf_same_forests, ("mddf", "MDDFClassifier"),
               "mdDF with four random forests per layer (Table 3)",
               default=False, ablation=True, warm_up=_CASCADE_WARM_UP),
    MethodSpec("mdDF_ST", build_mddf_stacking, ("mddf", "MDDFClassifier"),
               "mdDF passing only the augmented feature (stacking, Table 3)",
               default=False, ablation=True, warm_up=_CASCADE_WARM_UP),
    MethodSpec("mdDF_NP", build_mddf_no_preconc, ("mddf", "MDDFClassifier"),
               "mdDF without preconc: raw input only (Table 3)",
               default=False, ablation=True, warm_up=_CASCADE_WARM_UP),
    MethodSpec("mdDF-plain-stop", build_mddf_plain_stop, ("mddf", "MDDFClassifier"),
               "mdDF stopping on any improvement (gcForest's rule, as PAPER_CONFIG does)",
               default=False, warm_up=_CASCADE_WARM_UP),
    # Today's peers (--peers), after mdDF, whose layers set ExtraTrees' budget.
    MethodSpec("LightGBM", build_lightgbm, ("lightgbm", "LGBMClassifier"),
               "LightGBM, library defaults",
               default=False, peer=True, aliases=("lgbm", "lgb")),
    MethodSpec("HGB", build_hist_gradient_boosting, ("sklearn.ensemble", "HistGradientBoostingClassifier"),
               "scikit-learn HistGradientBoosting, defaults, categorical columns declared",
               default=False, peer=True, aliases=("histgradientboosting", "hist_gradient_boosting")),
    MethodSpec("ExtraTrees", build_extra_trees, ("sklearn.ensemble", "ExtraTreesClassifier"),
               "extremely randomized trees, 400 x k trees like RF (k = mdDF layers)",
               tree_budget=True, default=False, peer=True, aliases=("extra_trees", "et")),
    # The practitioner's protocol (--protocol practitioner, the default for --data).
    MethodSpec("Baseline", build_baseline, ("sklearn.dummy", "DummyClassifier"),
               "the majority class (class shares as probabilities), or the mean for regression",
               aliases=("majority", "dummy", "mean"), **_PRACTITIONER),
    MethodSpec("HGB-es", build_hgb_early_stopping, ("sklearn.ensemble", "HistGradientBoostingClassifier"),
               f"scikit-learn HistGradientBoosting, {_ES}", aliases=("hgb_es",), **_PRACTITIONER),
    MethodSpec("LightGBM-es", build_lightgbm_early_stopping, ("lightgbm", "LGBMClassifier"),
               f"LightGBM, {_ES}", aliases=("lightgbm_es", "lgbm-es"),
               regressor="LGBMRegressor", **_PRACTITIONER),
    MethodSpec("XGBoost-es", build_xgboost_early_stopping, ("xgboost", "XGBClassifier"),
               f"XGBoost, {_ES}", aliases=("xgboost_es", "xgb-es"), **_PRACTITIONER),
    MethodSpec("CatBoost-es", build_catboost_early_stopping, ("catboost", "CatBoostClassifier"),
               f"CatBoost, {_ES} (optional: the 'bench' extra)", aliases=("catboost_es", "catboost"),
               regressor="CatBoostRegressor", extra="bench", **_PRACTITIONER),
    MethodSpec("RF-400", build_practitioner_forest, ("sklearn.ensemble", "RandomForestClassifier"),
               "scikit-learn random forest, 400 trees", aliases=("rf400",), **_PRACTITIONER),
)
# fmt: on
