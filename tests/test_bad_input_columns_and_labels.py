"""Bad input, as a specification: categorical columns that change between fit and predict (for the transformers that
append features too), and bad labels (NaN, one class, mixed types, continuous, overflowing targets), for each of the
six estimators."""

from __future__ import annotations

import numpy as np
import pytest
from bad_input import ALL, CLASSIFIERS, Cases, applied, assert_learned, data, frame_of, make, raises

CASES = Cases()
#: The estimators and the transformers that pass the categorical columns on (``PCAFeatures``, ``PairFeatures``).
CATEGORY_READERS = ALL + ("pca", "pairs")


# categorical columns


@CASES.add(CATEGORY_READERS, "error")
def category_codes_at_predict(name):
    # the transformers passed the codes on as if they were the column's values
    frame, y = frame_of(name, "category")
    model = make(name).fit(frame, y)
    codes = frame.assign(c=frame["c"].cat.codes)
    with raises(TypeError, "column 'c' was categorical at fit"):
        applied(model, codes)


@CASES.add(CATEGORY_READERS, "error")
def string_column_as_numbers_at_predict(name):
    frame, y = frame_of(name, "string")
    model = make(name).fit(frame, y)
    numbers = frame.assign(c=(frame["c"] == "red").astype(float))
    with raises(TypeError, "column 'c' was categorical at fit"):
        applied(model, numbers)
    with raises(TypeError, "column 2 was categorical at fit"):  # the same as an array of numbers
        applied(model, numbers.to_numpy(dtype=float))


@CASES.add(("pca", "pairs"), "error")
def numeric_column_as_strings_at_transform(name):
    # float64's conversion error named neither the column nor the estimator
    frame, y = frame_of(name, "category")
    model = make(name).fit(frame, y)
    with raises(TypeError, f"{type(model).__name__}: column 'a' was numeric at fit, but holds strings at transform"):
        model.transform(frame.assign(a=frame["a"].astype(str)))


@CASES.add(ALL, "error")
def numeric_category_codes_at_predict(name):
    frame, y = frame_of(name, "string")
    frame["c"] = np.where(frame["c"] == "red", 10, 20)
    model = make(name, categorical_features=["c"]).fit(frame, y)
    with raises(ValueError, "column 'c' was categorical at fit, with categories 10, 20, but none of its values"):
        model.predict(frame.assign(c=(frame["c"] == 20).astype(int)))


@CASES.add(ALL, "error")
def strings_and_numbers_mixed_at_predict(name):
    frame, y = frame_of(name, "string")
    model = make(name).fit(frame, y)
    mixed = frame.assign(c=[v if i % 2 else int(v == "red") for i, v in enumerate(frame["c"])])
    with raises(TypeError, "column 'c' was categorical at fit, with categories of strings ('blue', 'red'), but mixes"):
        model.predict(mixed)


@CASES.add(ALL, "error")
def strings_not_declared_categorical(name):
    frame, y = frame_of(name, "string")
    with raises(ValueError, "column(s) 'c' of X hold strings but are not categorical features"):
        make(name, categorical_features=None).fit(frame, y)


@CASES.add(ALL, "result")
def category_values_at_predict(name):
    frame, y = frame_of(name, "category")
    model = make(name).fit(frame, y)
    assert_learned(name, model, frame, y)


# labels


@CASES.add(ALL + ("pairs",), "error")
def nan_in_y(name):
    # PairFeatures said scikit-learn's "Input contains NaN", naming neither y nor the row
    X, y = data(name)
    y = y.astype(float)
    y[2] = np.nan
    with raises(ValueError, "Input y contains NaN"):
        make(name).fit(X, y)
    if name == "pairs":
        labels = np.where(y == 1, "yes", "no").astype(object)
        labels[2] = None
        with raises(ValueError, "PairFeatures: Input y contains NaN: 1 row(s) without a target (NaN or None), the"):
            make(name).fit(X, labels)


@CASES.add(CLASSIFIERS, "error")
def one_class(name):
    X, y = data(name)
    with pytest.raises(ValueError, match=r"(one|1) class\b.*\b0\b"):  # the messages differ, all name the label
        make(name).fit(X, np.zeros_like(y))


@CASES.add(CLASSIFIERS, "error")
def mixed_int_and_str_labels(name):
    X, y = data(name)
    labels = [1 if v else "one" for v in y]
    # as an object array (a pandas column), and as a list, which NumPy would turn into strings only
    for given in (np.array(labels, dtype=object), labels):
        with raises(ValueError, "Mix of label input types (string and number) in y: labels of types int, str"):
            make(name).fit(X, given)


@CASES.add(CLASSIFIERS, "error")
def none_among_string_labels(name):
    X, y = data(name)
    labels = np.where(y == 1, "yes", "no").astype(object)
    labels[5] = None
    with raises(ValueError, "y has 1 missing label(s) (None or NaN), the first at row 5"):
        make(name).fit(X, labels)


@CASES.add(CLASSIFIERS, "error")
def continuous_labels(name):
    X, y = data(name)
    with raises(ValueError, "Unknown label type: continuous: y holds 40 distinct numbers"):
        make(name).fit(X, X[:, 0])


@CASES.add(CLASSIFIERS, "error")
def two_float_labels_not_integers(name):
    # scikit-learn's "continuous" said neither that there are two values nor what to give instead
    X, y = data(name)
    labels = np.where(y == 1, 1.5, 0.5)
    for given in (labels, labels.tolist()):
        with raises(ValueError, "y holds 2 distinct numbers (0.5, 1.5), not all integers, where a classifier needs"):
            make(name).fit(X, given)


@CASES.add(CLASSIFIERS, "result")
def float_labels_that_are_integers(name):
    X, y = data(name)
    model = make(name).fit(X, y.astype(float))
    assert model.classes_.tolist() == [0.0, 1.0]
    assert_learned(name, model, X, y.astype(float))


@CASES.add(("regressor",), "error")
def string_targets(name):
    X, y = data(name)
    with raises(ValueError, "needs a numeric target y"):
        make(name).fit(X, np.where(y > 0, "up", "down"))


@CASES.add(("regressor",), "error")
def targets_whose_squares_overflow(name):
    X, y = data(name)
    with raises(ValueError, "overflow"):
        make(name).fit(X, y * 1e154)


@CASES.add(("regressor",), "error")
def targets_beyond_the_largest_float32(name):
    X, y = data(name)
    with raises(ValueError, "|y| reaches 1e+40, beyond 3.4e+38, the largest float32"):
        make(name).fit(X, y / np.abs(y).max() * 1e40)


@CASES.add(("regressor",), "result")
def targets_far_from_zero(name):
    # target="y" fitted y itself: on y + 1e12 its training R^2 fell to 0.3, without a word
    X, y = data(name)
    for offset in (1e8, 1e12):
        for target in ("residual", "y"):
            assert_learned(name, make(name, target=target).fit(X, y + offset), X, y + offset)


@CASES.add(("regressor",), "result")
def targets_below_1e_minus_8(name):
    X, y = data(name)
    assert_learned(name, make(name).fit(X, y * 1e-10), X, y * 1e-10)


@pytest.mark.parametrize("name, case_name", CASES.matrix, ids=[f"{n}-{c}" for n, c in CASES.matrix])
def test_bad_input(name, case_name):
    CASES[case_name].run(name)
