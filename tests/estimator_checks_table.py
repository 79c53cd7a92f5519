"""scikit-learn's estimator checks that a public estimator of mddf is expected to fail, and why: the one table.

The check tests of every public estimator read it (:func:`expected_failed_checks`, strict: a listed check that passes
fails the test), and ``docs/user_guide/scikit_learn.md`` lists it (:func:`markdown_table`; ``tests/test_estimator_
checks_table.py`` checks the page against it). Run this file to write the table into the page again::

    python tests/estimator_checks_table.py
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: The docs page that lists the table, between these two lines.
PAGE = ROOT / "docs" / "user_guide" / "scikit_learn.md"
BEGIN = "<!-- the table of tests/estimator_checks_table.py (python tests/estimator_checks_table.py writes it) -->"
END = "<!-- end of the table -->"


@dataclass(frozen=True, eq=False)
class Expected:
    """A check an estimator is expected to fail: its name, why, and (``when``) the settings it fails with (None:
    all), ``applies`` deciding it for an instance."""

    check: str
    reason: str
    when: str | None = None
    applies: Callable = lambda estimator: True


OUT_OF_FOLD = Expected(
    "check_transformer_general",
    "`fit_transform` returns out-of-fold features (each row's from models that never saw it, so that a model "
    "trained on them sees no leaked label); `transform` of the same rows uses the models that saw them, so the two "
    "differ by design",
)
OUT_OF_FOLD_DATA = Expected(
    "check_transformer_data_not_an_array", "compares `fit_transform` with `transform`, as the check above does"
)
WEIGHTS_AS_ROWS = Expected(
    "check_sample_weight_equivalence_on_dense_data",
    "integer weights act as repeated rows only in expectation: the folds are drawn over rows (a weighted row sits in "
    "one fold, its copies spread over several) and the forests' resamples are random, so a weighted and a repeated "
    "fit differ; the deterministic parts are checked exactly (`tests/mddf/cascade/test_cascade_sample_weight.py`, "
    "`tests/mddf/trees/test_regression_trees.py`) and the fits statistically",
)
#: The cross-fitted transformers: the cascades, the grid search and the scanning of gcForest.
CROSS_FITTED = (OUT_OF_FOLD, OUT_OF_FOLD_DATA, WEIGHTS_AS_ROWS)

ONE_COLUMN_Y = Expected(
    "check_supervised_y_2d",
    "a `y` of shape (n, 1) is refused with a one-line error naming `y.ravel()`: a 2-D `y` is several targets, and a "
    "single column of them is taken for a mistake (bad input, refused in one line), where scikit-learn's regressors "
    "fit it as one target",
)

#: Public estimator -> (the checks it is expected to fail, the test file that runs scikit-learn's checks on it).
EXPECTED_FAILURES = {
    "MDDFClassifier": (CROSS_FITTED, "tests/mddf/test_estimator_checks.py"),
    "MDDFGridSearch": (CROSS_FITTED, "tests/mddf/test_estimator_checks.py"),
    "CascadeForestRegressor": ((*CROSS_FITTED, ONE_COLUMN_Y), "tests/mddf/cascade/test_cascade_regressor_checks.py"),
    "PairFeatures": ((), "tests/mddf/features/test_pairs.py"),
    "PCAFeatures": ((), "tests/mddf/features/test_rotation.py"),
    "GCForestClassifier": (CROSS_FITTED, "tests/baselines/test_gcforest.py"),
    "MultiGrainedScanner": (CROSS_FITTED, "tests/baselines/test_scanning.py"),
    "DeepBoostClassifier": ((), "tests/baselines/test_deepboost.py"),
    "AdaBoostClassifier": ((), "tests/baselines/test_adaboost.py"),
    "QuadBoostClassifier": (
        (
            Expected(
                "check_sample_weight_equivalence_on_dense_data",
                "on scikit-learn's 15-row data two stumps decrease the objective exactly alike for the repeated rows; "
                "the argmax then decides by the float32 rounding of H^T r, which depends on the rows' order and "
                "repetition, so the weighted and the repeated fit may pick different stumps "
                "(`test_integer_weights_are_repeated_rows` checks the equivalence on data without exact ties)",
                when="with a `regularization`",
                applies=lambda estimator: estimator.regularization is not None,
            ),
        ),
        "tests/baselines/test_quadboost.py",
    ),
}


def expected_failed_checks(estimator):
    """``{check: reason}`` of the checks ``estimator`` (an instance) is expected to fail, for scikit-learn's
    ``parametrize_with_checks(expected_failed_checks=...)``."""
    expected, _ = EXPECTED_FAILURES[type(estimator).__name__]
    return {item.check: item.reason for item in expected if item.applies(estimator)}


def markdown_table():
    """The table as the docs page lists it: one row per expected failure and the estimators that fail it, then the
    estimators that fail none."""
    rows = ["| check | estimators | why it fails |", "|---|---|---|"]
    failures = {}  # Expected -> the estimators expected to fail it, in the table's order
    for name, (expected, _) in EXPECTED_FAILURES.items():
        for item in expected:
            failures.setdefault(item, []).append(f"`{name}`" + (f" ({item.when})" if item.when else ""))
    rows += [f"| `{item.check}` | {', '.join(names)} | {item.reason} |" for item, names in failures.items()]
    none = [f"`{name}`" for name, (expected, _) in EXPECTED_FAILURES.items() if not expected]
    rows += ["", f"Expected to fail no check: {', '.join(none)}."]
    return "\n".join(rows)


def page_with_table(text):
    """``text`` (the docs page) with the table between :data:`BEGIN` and :data:`END` written again."""
    before, rest = text.split(BEGIN + "\n", 1)
    _, after = rest.split(END, 1)
    return f"{before}{BEGIN}\n{markdown_table()}\n{END}{after}"


if __name__ == "__main__":
    PAGE.write_text(page_with_table(PAGE.read_text()))
    print(f"wrote the table into {PAGE}")
