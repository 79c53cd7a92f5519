"""The cost model's numbers, written by ``python -m benchmarks.cost_model`` (do not edit; how they were measured
and fitted: docs/benchmarks/estimate.md, the data: docs/benchmarks/cost-model.csv)."""

#: ``{(method, task): (a, b, c, d, median, largest)}``: a run's seconds (its fit and the prediction of its test fold,
#: two threads) on a table of ``rows`` rows (5-fold cross-validation), ``columns`` columns and ``outputs`` outputs
#: (classes less one, at least one) are ``exp(a + b log rows + c log columns + d log outputs)``; on the suite's
#: tables, each left out of the fit in turn, the measured seconds were within ``median`` times that on half of them,
#: ``largest`` at worst.
COEFFICIENTS = {
    ("mdDF", "classification"): (-5.3574, 0.934, -0.3296, 0.1968, 1.49, 2.75),
    ("mdDF", "regression"): (-7.3027, 1.0482, 0.3378, 0.0, 1.29, 1.79),
    ("Baseline", "classification"): (-9.115, 0.3869, 0.1689, 0.0684, 1.14, 1.99),
    ("Baseline", "regression"): (-6.9109, 0.048, 0.3199, 0.0, 1.13, 1.42),
    ("HGB-es", "classification"): (-4.3754, 0.3603, 0.0177, 0.6376, 1.65, 2.09),
    ("HGB-es", "regression"): (-6.3064, 1.0518, -1.4171, 0.0, 3.26, 33.93),
    ("LightGBM-es", "classification"): (-8.0129, 0.5112, 0.6584, 0.6811, 1.72, 2.42),
    ("LightGBM-es", "regression"): (-5.2007, 0.8206, -1.7055, 0.0, 3.71, 47.7),
    ("XGBoost-es", "classification"): (-8.1681, 0.4982, 0.5801, 0.7099, 1.74, 3.04),
    ("XGBoost-es", "regression"): (-7.1687, 0.9022, -1.2409, 0.0, 3.43, 48.21),
    ("CatBoost-es", "classification"): (-10.094, 1.0559, 0.2678, 1.2111, 2.66, 11.52),
    ("CatBoost-es", "regression"): (-7.5345, 0.7635, 0.3657, 0.0, 1.61, 3.43),
    ("RF-400", "classification"): (-3.8517, 0.4755, 0.1335, 0.1406, 1.13, 1.31),
    ("RF-400", "regression"): (-6.6183, 0.8756, 0.1557, 0.0, 1.16, 1.94),
    ("ExtraTrees-400", "classification"): (-4.1115, 0.4831, 0.1618, 0.1016, 1.11, 1.33),
    ("ExtraTrees-400", "regression"): (-7.0183, 0.8521, 0.2871, 0.0, 1.19, 1.76),
}

#: The suite's mean accuracy (classification) and R² (regression) of learners (docs/benchmarks/price.csv).
SUITE_SCORES = {
    "classification": {
        "CatBoost-es": 0.7626,
        "HGB-es": 0.7536,
        "LightGBM-es": 0.7572,
        "mdDF": 0.7604,
        "mdDF-oob-es": 0.7571,
    },
    "regression": {
        "CascadeForest": 0.65974,
        "CascadeForest-50": 0.65921,
        "CatBoost-es": 0.65905,
        "HGB-es": 0.65516,
        "LightGBM-es": 0.65317,
    },
}

#: ``{task: (design, its parameters, fit ratio, predict ratio, worst table's difference)}`` (docs/benchmarks/price.md).
CHEAPER_DESIGNS = {
    "classification": (
        "mdDF-oob-es",
        'forest_types=("rf", "rf", "crf", "crf", "gbdt_es"), class_vectors="oob"',
        0.47,
        0.49,
        -2.06,
    ),
    "regression": ("CascadeForest-50", "n_estimators=50", 0.56, 0.63, 0.0),
}
