"""The table of scikit-learn's checks each public estimator is expected to fail (tests/estimator_checks_table.py):
complete, read by every estimator's check test, and listed by the docs page; every other check passes."""

import inspect
import os
import subprocess
import sys

import pytest
from estimator_checks_table import EXPECTED_FAILURES, PAGE, ROOT, page_with_table
from sklearn.base import BaseEstimator

import mddf
import mddf.baselines


def public_estimators():
    """The names of the estimators mddf and mddf.baselines export."""
    found = set()
    for module in (mddf, mddf.baselines):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isclass(value) and issubclass(value, BaseEstimator):
                found.add(name)
    return found


def test_every_public_estimator_has_its_row():
    assert set(EXPECTED_FAILURES) == public_estimators()


@pytest.mark.parametrize("name", sorted(EXPECTED_FAILURES))
def test_each_estimators_check_test_reads_the_table_strictly(name):
    text = (ROOT / EXPECTED_FAILURES[name][1]).read_text()
    assert name in text and "parametrize_with_checks(" in text
    assert "expected_failed_checks=expected_failed_checks" in text and "xfail_strict=True" in text


def test_the_docs_page_lists_the_table_and_the_user_guide_links_it():
    text = PAGE.read_text()
    assert text == page_with_table(text), "the page's table is not the table: python tests/estimator_checks_table.py"
    index = (PAGE.parent / "index.md").read_text()
    assert "(scikit_learn.md)" in index and "\nscikit_learn\n" in index


#: One small instance of each public estimator, as the check tests build them.
SMALL = {
    "MDDFClassifier": "MDDFClassifier(n_estimators=5, max_layers=2, n_folds=2, random_state=0)",
    "MDDFGridSearch": (
        "MDDFGridSearch(estimator=MDDFClassifier(n_estimators=4, max_layers=2, n_folds=2, random_state=0), "
        "param_grid={'margin_mean': [0.7, 0.9]})"
    ),
    "CascadeForestRegressor": "CascadeForestRegressor(n_estimators=5, max_layers=2, n_folds=2, random_state=0)",
    "PairFeatures": "PairFeatures(cv=2, random_state=0)",
    "PCAFeatures": "PCAFeatures()",
    "GCForestClassifier": (
        "GCForestClassifier(window_sizes=(1,), scan_n_estimators=2, scan_n_folds=2, n_estimators=2, n_folds=2, "
        "max_layers=1, random_state=0)"
    ),
    "MultiGrainedScanner": "MultiGrainedScanner(window_sizes=(1,), n_estimators=3, n_folds=2, random_state=0)",
    "DeepBoostClassifier": "DeepBoostClassifier(n_iter=10, max_depth=2)",
    "AdaBoostClassifier": "AdaBoostClassifier(n_iter=10)",
    "QuadBoostClassifier": "QuadBoostClassifier(n_iter=20, random_state=0)",
}

ARRAY_API_SCRIPT = """
import sys
from sklearn.utils.estimator_checks import check_array_api_input
from mddf import *
from mddf.baselines import *
for source in sys.argv[1:]:
    estimator = eval(source)
    check_array_api_input(type(estimator).__name__, estimator, array_namespace="numpy", expect_only_array_outputs=False)
    print(type(estimator).__name__, flush=True)
"""


@pytest.mark.slow
def test_the_array_api_check_scikit_learn_skips_by_default_passes(tmp_path):
    # scikit-learn runs check_array_api_input only with SCIPY_ARRAY_API=1 set before SciPy is imported
    assert set(SMALL) == set(EXPECTED_FAILURES)
    env = dict(os.environ, SCIPY_ARRAY_API="1")
    done = subprocess.run(
        [sys.executable, "-c", ARRAY_API_SCRIPT, *SMALL.values()],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # nothing of the repository's folders on sys.path but the installed package
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == list(SMALL)
