"""The configuration of :class:`mddf.MDDFClassifier` that the mdDF paper describes, by name.

``MDDFClassifier(**PAPER_CONFIG)`` is the paper's mdDF (Lv, Yang and Zhou, Algorithms 1-2 with the settings of
Section 5.2), whatever the estimator's defaults: every parameter that shapes the model is written out, so a change
of a default never changes it. It is the configuration the reproductions of the paper's tables run
(``scripts/run_uci.py``, ``--protocol paper``) and with which ``docs/results/`` was made; its choices where the paper
is silent are the ones those tables were made with: ``min_error_reduction=0`` (gcForest's rule, any improvement of
the out-of-fold accuracy counts, as the paper does not say how mdDF stops), ``cumulative_margin="normalized"``,
``max_depth_factor=16`` (the largest of the paper's grid) and ``categorical_splits="ordinal"`` (category codes split
at thresholds: the paper has no category subsets). Nothing beyond the paper: no pair features, no calibration, no
predictor, no boosted member, no ensemble selection (``final_mixture="cascade"``: the layers' mixture of eq. 9).
"""

from __future__ import annotations

from types import MappingProxyType

#: The paper's mdDF: ``MDDFClassifier(**PAPER_CONFIG, random_state=0)``. A read-only mapping of parameter names
#: to values; ``n_jobs``, ``random_state``, ``verbose``, ``model_dir``, ``categorical_features`` (which columns
#: of the input are categories) and ``background_rows`` (training rows kept for ``explain``, which the paper's model
#: does not read) are left to the caller.
PAPER_CONFIG = MappingProxyType(
    {
        "n_estimators": 100,
        "forest_types": ("rf", "rf", "crf", "crf"),
        "predictor": None,
        "predictor_input": "stacked",
        "pair_features": None,
        "target_statistics": None,
        "monotonic_cst": None,
        "final_mixture": "cascade",
        "calibration": None,
        "n_folds": 3,
        "fold_trees": "all",
        "later_layer_trees": None,
        "first_layer_members": (),
        "member_weights": "equal",
        "class_vectors": "kfold",
        "screening_accuracy": None,
        "max_depth_factor": 16,
        "max_layers": 20,
        "n_tolerant_layers": 2,
        "probe_trees": None,
        "tol": 0.0,
        "min_error_reduction": 0.0,
        "min_gain_se": 0.0,
        "validation_fraction": None,
        "input_features": "preconc",
        "passed_features": "mean",
        "margin_optimization": True,
        "cumulative_margin": "normalized",
        "margin_mean": 0.8,
        "margin_tradeoff": 0.05,
        "alpha_solver": "sgd",
        "weighting": "resample",
        "tree_method": "hist",
        "categorical_splits": "ordinal",
    }
)
