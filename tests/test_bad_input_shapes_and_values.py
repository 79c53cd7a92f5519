"""Bad input, as a specification: the shapes and sizes of X and y, and the values of X (infinity, overflow, NaN,
complex numbers, odd columns), for each of the six estimators (the matrix's pieces: bad_input.py)."""

from __future__ import annotations

import datetime

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from bad_input import ALL, ALL_READERS, Cases, applied, assert_learned, data, frame_of, make, raises
from sklearn.exceptions import NotFittedError

CASES = Cases()


# shapes and sizes


@CASES.add(ALL, "error")
def x_one_dimensional(name):
    X, y = data(name)
    with raises(ValueError, "Expected 2D array, got 1D array instead"):
        make(name).fit(X[:, 0], y)


@CASES.add(ALL, "error")
def x_and_y_lengths_differ(name):
    X, y = data(name)
    with raises(ValueError, "inconsistent numbers of samples"):
        make(name).fit(X, y[:-1])


@CASES.add(ALL, "error")
def no_rows(name):
    X, y = data(name)
    with raises(ValueError, "0 sample(s)"):
        make(name).fit(X[:0], y[:0])


@CASES.add(ALL, "error")
def no_rows_in_a_frame_with_a_category_column(name):
    # the categories' encoder refused the empty column first, naming neither the estimator nor X's shape
    frame, y = frame_of(name, "category")
    named = f"0 sample(s) (shape=(0, 4)) while a minimum of 1 is required by {type(make(name)).__name__}"
    with raises(ValueError, named):
        make(name).fit(frame.iloc[:0], y[:0])
    model = make(name).fit(frame, y)
    with raises(ValueError, named):
        model.predict(frame.iloc[:0])


@CASES.add(ALL, "error")
def no_columns(name):
    X, y = data(name)
    with raises(ValueError, "0 feature(s)"):
        make(name).fit(X[:, :0], y)


@CASES.add(("regressor",), "error")
def y_without_columns(name):
    # scikit-learn's check of y called it "0 feature(s)"
    X, y = data(name)
    with raises(ValueError, "CascadeForestRegressor: y has shape (40, 0), a 2-D y with no column: no target to fit"):
        make(name).fit(X, y[:, None][:, :0])


@CASES.add(ALL, "error")
def wrong_n_features_at_predict(name):
    X, y = data(name)
    model = make(name).fit(X, y)
    with raises(ValueError, f"X has 3 features, but {type(model).__name__} is expecting 4 features"):
        model.predict(X[:, :3])


@CASES.add(ALL, "error")
def sparse_x(name):
    X, y = data(name)
    with raises(TypeError, "Sparse data was passed for X, but dense data is required"):
        make(name).fit(sp.csr_matrix(X), y)


@CASES.add(("mddf", "gcforest"), "error")
def a_class_with_fewer_rows_than_folds(name):
    X, y = data(name)
    y = np.zeros_like(y)
    y[0] = 1
    with raises(ValueError, "class 1 has 1 training samples, fewer than n_folds=2"):
        make(name).fit(X, y)


@CASES.add(("regressor",), "error")
def fewer_rows_than_folds(name):
    X, y = data(name)
    with raises(ValueError, "got n_samples=1, fewer than n_folds=2"):
        make(name).fit(X[:1], y[:1])


@CASES.add(ALL, "error")
def predict_before_fit(name):
    X, _ = data(name)
    with raises(NotFittedError, "is not fitted yet"):
        make(name).predict(X)


# values of X


@CASES.add(ALL, "error")
def infinity_at_fit(name):
    X, y = data(name)
    X[3, 1] = np.inf
    with raises(ValueError, "Input X contains infinity"):
        make(name).fit(X, y)


@CASES.add(ALL, "error")
def infinity_at_predict(name):
    X, y = data(name)
    model = make(name).fit(X, y)
    X[3, 1] = -np.inf
    with raises(ValueError, "Input X contains infinity"):
        model.predict(X)


@CASES.add(ALL, "error")
def values_too_large_for_the_model(name):
    # float32 for the trees and stumps; QuadBoost, in float64, overflows normalising them
    X, y = data(name)
    X[:, 1] *= 1e300
    with raises(ValueError, "too large for"), np.errstate(over="ignore", invalid="ignore"):  # numpy's cast
        make(name).fit(X, y)


@CASES.add(ALL, "error")
def complex_x(name):
    X, y = data(name)
    with raises(ValueError, "Complex data not supported"):
        make(name).fit(X + 1j, y)


@CASES.add(ALL, "result")
def nan_in_x(name):
    X, y = data(name)
    X[::5, 1] = np.nan
    model = make(name).fit(X, y)
    assert_learned(name, model, X, y)


@CASES.add(ALL, "error")
def datetime_column(name):
    frame = frame_of(name, "category")[0].assign(c=pd.date_range("2020-01-01", periods=40))
    with pytest.raises(TypeError, match=r"column\(s\) 'c' \(datetime64\[\w+\]\) of X hold dates, times or durations"):
        make(name).fit(frame, data(name)[1])


def refused_at_fit_and_at_predict(name, X_times, fragment):
    """``X_times``, of the shape of :func:`data`'s X, is refused by a TypeError holding ``fragment`` at fit, and at
    prediction by a model fitted on numbers: neither reads its dates, times or durations as numbers."""
    X, y = data(name)
    with raises(TypeError, fragment):
        make(name).fit(X_times, y)
    model = make(name).fit(X, y)
    with raises(TypeError, fragment):
        applied(model, X_times)


@CASES.add(ALL_READERS, "error")
def datetime64_array(name):
    X = data(name)[0]
    days = (np.arange(X.size).reshape(X.shape) + 18000).astype("datetime64[D]")
    refused_at_fit_and_at_predict(name, days, "column(s) 0 (datetime64[D]), 1 (datetime64[D]), 2 (datetime64[D]), 3")


@CASES.add(ALL_READERS, "error")
def timedelta64_array(name):
    X = data(name)[0]
    seconds = np.arange(X.size).reshape(X.shape).astype("timedelta64[s]")
    refused_at_fit_and_at_predict(name, seconds, "column(s) 0 (timedelta64[s]), 1 (timedelta64[s]), 2")


@CASES.add(ALL_READERS, "error")
def object_array_holding_dates(name):
    X = data(name)[0]
    start = datetime.datetime(2020, 1, 1)
    for kind, when in [
        ("date", lambda i: start.date() + datetime.timedelta(days=i)),
        ("datetime", lambda i: start + datetime.timedelta(hours=i)),
        ("Timestamp", lambda i: pd.Timestamp(start) + pd.Timedelta(days=i)),
    ]:
        dates = X.astype(object)
        dates[:, 2] = [when(i) for i in range(len(X))]
        refused_at_fit_and_at_predict(name, dates, f"column(s) 2 (objects of type {kind}) of X hold dates, times or")


@CASES.add(ALL, "error")
def duplicate_column_names(name):
    X, y = data(name)
    with raises(ValueError, "X has duplicate column names: 'a' (2 times)"):
        make(name).fit(pd.DataFrame(X, columns=["a", "b", "a", "d"]), y)


@CASES.add(ALL, "error")
def list_valued_column(name):
    X, y = data(name)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).assign(e=[[1.0, 2.0]] * len(X))
    with raises(TypeError, "column(s) 'e' of X hold lists, tuples, sets, dicts or arrays"):
        make(name).fit(frame, y)


@CASES.add(("mddf", "regressor", "gcforest"), "error")
def values_that_underflow_float32(name):
    X, y = data(name)
    X[:, 1] *= 1e-47  # nonzero, but 0 as float32, in which these estimators compute
    with raises(ValueError, "column(s) 1 of X hold nonzero values too small for float32"):
        make(name).fit(X, y)


@CASES.add(("mddf", "regressor", "gcforest"), "result")
def values_in_float32s_subnormal_range(name):
    X, y = data(name)
    model = make(name).fit(X * 1e-40, y)  # below float32's smallest normal number: their order kept, as subnormals
    assert_learned(name, model, X * 1e-40, y)


@CASES.add(("mddf", "regressor", "gcforest"), "error")
def n_jobs_zero_or_absurd(name):
    X, y = data(name)
    for n_jobs in (0, 10**9):
        with raises(ValueError, "The 'n_jobs' parameter of"):
            make(name).set_params(n_jobs=n_jobs).fit(X, y)


@CASES.add(("mddf", "regressor", "gcforest"), "error")
def validation_fraction_that_leaves_no_training_or_held_out_row(name):
    X, y = data(name, n=12)
    with raises(ValueError, ": the validation_fraction=0.95 hold-out of 12 rows: With n_samples=12"):
        make(name, validation_fraction=0.95).fit(X, y)
    if name != "regressor":  # one held-out row cannot hold both classes
        with raises(ValueError, "the validation_fraction=0.05 hold-out of 12 rows: The test_size = 1 should be"):
            make(name, validation_fraction=0.05).fit(X, y)


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
