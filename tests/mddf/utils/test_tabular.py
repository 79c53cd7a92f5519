"""The shared tabular validation: which columns are categorical, their ordinal codes, and its errors."""

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator

from mddf.utils import validate_tabular

pd = pytest.importorskip("pandas")


class Recorder(BaseEstimator):
    """The smallest estimator validate_tabular works on."""

    def __init__(self, categorical_features="from_dtype"):
        self.categorical_features = categorical_features


def frame():
    return pd.DataFrame(
        {
            "num": [1.5, 2.0, 3.0, 4.0, 5.0, 6.0],
            # declared order c < b < a; "z" is declared but never seen
            "grade": pd.Categorical(["b", "a", "b", None, "c", "a"], categories=["c", "b", "a", "z"], ordered=True),
            "city": ["x", "y", None, "x", "y", "x"],
            "count": pd.Series([1, 2, 3, 4, 5, 6], dtype=object),  # object of numbers: stays numeric
        }
    )


def fit_encode(X, categorical_features="from_dtype", **params):
    est = Recorder(categorical_features)
    params.setdefault("ensure_all_finite", False)  # missing values are NaN codes
    return est, validate_tabular(est, X, reset=True, dtype=np.float64, **params)


def test_codes_keep_column_order_and_category_order():
    est, Xt = fit_encode(frame())
    nan = np.nan
    expected = np.array(
        [
            [1.5, 1, 0, 1],
            [2.0, 2, 1, 2],
            [3.0, 1, nan, 3],
            [4.0, nan, 0, 4],
            [5.0, 0, 1, 5],
            [6.0, 2, 0, 6],
        ]
    )
    np.testing.assert_array_equal(Xt, expected)
    np.testing.assert_array_equal(est.is_categorical_, [False, True, True, False])
    assert est.categories_[0] is None and est.categories_[3] is None
    assert est.categories_[1].tolist() == ["c", "b", "a"]  # the dtype's order, unseen "z" left out
    assert est.categories_[2].tolist() == ["x", "y"]  # sorted
    assert est.feature_names_in_.tolist() == ["num", "grade", "city", "count"]
    assert est.n_features_in_ == 4


def test_unseen_categories_and_missing_values_become_nan():
    est, _ = fit_encode(frame())
    new = pd.DataFrame(
        {
            "num": [0.5, 0.5, 0.5],
            "grade": pd.Categorical(["z", "a", None]),  # declared but unseen, seen, missing
            "city": ["w", "y", None],
            "count": [7, 8, 9],
        }
    )
    Xt = validate_tabular(est, new, reset=False, dtype=np.float32, ensure_all_finite=False)
    assert Xt.dtype == np.float32
    np.testing.assert_array_equal(Xt[:, 1], [np.nan, 2, np.nan])
    np.testing.assert_array_equal(Xt[:, 2], [np.nan, 1, np.nan])
    np.testing.assert_array_equal(Xt[:, [0, 3]], [[0.5, 7], [0.5, 8], [0.5, 9]])


def test_nan_codes_are_rejected_without_missing_value_support():
    est, _ = fit_encode(frame().dropna())
    unseen = frame().iloc[:1].assign(city="never seen")
    with pytest.raises(ValueError, match="Input X contains NaN"):
        validate_tabular(est, unseen, reset=False, dtype=np.float32)


def test_numeric_categories_are_sorted_and_plain_values_encode():
    X = pd.DataFrame({"k": pd.Categorical([3, 1, 2, 1], categories=[3, 2, 1])})
    est, Xt = fit_encode(X)
    assert est.categories_[0].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(Xt[:, 0], [2, 0, 1, 0])
    # at prediction a plain integer column is matched against the categories too
    np.testing.assert_array_equal(
        validate_tabular(est, pd.DataFrame({"k": [2, 4]}), reset=False, dtype=np.float64, ensure_all_finite=False)[
            :, 0
        ],
        [1, np.nan],
    )


def test_values_of_the_other_type_at_prediction_are_a_type_error():
    # the integer codes of string categories would match no category and become NaN, silently
    est, _ = fit_encode(frame())
    codes = frame().assign(grade=frame()["grade"].cat.codes)
    with pytest.raises(TypeError, match=r"column 'grade' was categorical at fit, with categories of strings"):
        validate_tabular(est, codes, reset=False, dtype=np.float64, ensure_all_finite=False)
    with pytest.raises(TypeError, match=r"column 'city' .* holds numbers at prediction \(float64\)"):
        validate_tabular(est, frame().assign(city=1.0), reset=False, dtype=np.float64, ensure_all_finite=False)
    numeric = pd.DataFrame({"k": pd.Categorical([3, 1, 2, 1])})
    est, _ = fit_encode(numeric)
    with pytest.raises(TypeError, match=r"column 'k' was categorical at fit, with categories of numbers \(1, 2, 3\)"):
        validate_tabular(est, numeric.astype(str), reset=False, dtype=np.float64, ensure_all_finite=False)
    X = np.array([["a", 1.0], ["b", 2.0], ["a", 4.0]], dtype=object)
    est, _ = fit_encode(X, [0])
    with pytest.raises(TypeError, match=r"column 0 was categorical at fit, with categories of strings \('a', 'b'\)"):
        validate_tabular(est, np.array([[0.0, 5.0]]), reset=False, dtype=np.float64, ensure_all_finite=False)


def test_codes_of_numeric_categories_at_prediction_are_a_value_error():
    # categories 10, 20, 30 given as their codes 0, 1, 2 matched no category: every value became missing
    X = pd.DataFrame({"k": [10, 20, 30, 20], "x": [1.0, 2.0, 3.0, 4.0]})
    est, _ = fit_encode(X, ["k"])
    message = r"column 'k' was categorical at fit, with categories 10, 20, 30, but none of its values at prediction "
    message += r"\(0, 1, 2\) is one of them, and all are in 0 \.\. 2"
    with pytest.raises(ValueError, match=message):
        validate_tabular(est, X.assign(k=[0, 1, 2, 1]), reset=False, dtype=np.float64, ensure_all_finite=False)
    numeric = np.array([[10.0, 1.0], [20.0, 2.0], [30.0, 3.0]])
    est, _ = fit_encode(numeric, [0])
    with pytest.raises(ValueError, match=r"column 0 was categorical at fit, with categories 10\.0, 20\.0, 30\.0"):
        validate_tabular(est, np.array([[2.0, 5.0]]), reset=False, dtype=np.float64, ensure_all_finite=False)
    # values beyond the codes' range, or one that matches a category, are unseen categories: missing values
    for unseen, codes in (([40, 0], [np.nan, np.nan]), ([20, 0], [1, np.nan]), ([5, 7], [np.nan, np.nan])):
        Xt = validate_tabular(est, np.array([[unseen[0], 1.0], [unseen[1], 1.0]]), reset=False, dtype=np.float64,
                              ensure_all_finite=False)  # fmt: skip
        np.testing.assert_array_equal(Xt[:, 0], codes)


@pytest.mark.parametrize("fitted_as", ["int", "object", "category", "Int64", "float32"])
@pytest.mark.parametrize("given_as", ["int", "float", "object", "category", "numpy", "numpy float32"])
def test_numeric_categories_map_the_same_values_whatever_their_dtype(fitted_as, given_as):
    # the encoder fitted on a DataFrame's objects failed on an array of numbers (numpy's isnan on objects)
    values = np.array([10, 20, 30, 20, 10])
    columns = {
        "int": lambda: values,
        "float": lambda: values.astype(float),
        "float32": lambda: values.astype(np.float32),
        "object": lambda: pd.Series(values, dtype=object),
        "category": lambda: pd.Categorical(values),
        "Int64": lambda: pd.array(values, dtype="Int64"),
    }
    est, Xt = fit_encode(pd.DataFrame({"k": columns[fitted_as](), "x": 1.0}), ["k"])
    np.testing.assert_array_equal(Xt[:, 0], [0, 1, 2, 1, 0])
    if given_as.startswith("numpy"):
        new = np.column_stack([values, np.ones(5)]).astype(np.float32 if given_as.endswith("float32") else float)
    else:
        new = pd.DataFrame({"k": columns[given_as](), "x": 1.0})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # an array where names were fitted
        Xt = validate_tabular(est, new, reset=False, dtype=np.float64, ensure_all_finite=False)
    np.testing.assert_array_equal(Xt[:, 0], [0, 1, 2, 1, 0])


def test_strings_and_numbers_mixed_in_a_column_at_prediction_are_a_type_error():
    # the numbers among string categories (or the strings among numeric ones) became missing values
    est, _ = fit_encode(frame())
    mixed = frame().assign(city=pd.Series(["x", 1, "y", 0, None, "x"], dtype=object))
    message = r"column 'city' was categorical at fit, with categories of strings \('x', 'y'\), but mixes strings and "
    with pytest.raises(TypeError, match=message + r"numbers at prediction \(types int, str\)"):
        validate_tabular(est, mixed, reset=False, dtype=np.float64, ensure_all_finite=False)
    numeric = pd.DataFrame({"k": pd.Categorical([3, 1, 2, 1])})
    est, _ = fit_encode(numeric)
    with pytest.raises(TypeError, match=r"column 'k' .* categories of numbers \(1, 2, 3\), but mixes strings and"):
        validate_tabular(est, pd.DataFrame({"k": pd.Series([1, "2"], dtype=object)}), reset=False,
                         dtype=np.float64, ensure_all_finite=False)  # fmt: skip
    X = np.array([["a", 1.0], ["b", 2.0]], dtype=object)
    est, _ = fit_encode(X, [0])
    with pytest.raises(TypeError, match=r"column 0 was categorical at fit.*mixes strings and numbers"):
        validate_tabular(est, np.array([["a", 1.0], [0, 2.0]], dtype=object), reset=False, dtype=np.float64,
                         ensure_all_finite=False)  # fmt: skip
    # at fit, as for a DataFrame column, an array's column of both is named
    with pytest.raises(ValueError, match=r"categorical column 0 mixes values of types \['int', 'str'\]"):
        fit_encode(np.array([["a", 1.0], [0, 2.0]], dtype=object), [0])


def test_numeric_input_is_untouched():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(20, 3)).astype(np.float64)
    est, Xt = fit_encode(X)
    assert est.is_categorical_ is None and est.categories_ is None
    np.testing.assert_array_equal(Xt, X)
    # a numeric DataFrame is not categorical under "from_dtype" either
    est, Xt = fit_encode(pd.DataFrame(X, columns=["a", "b", "c"]))
    assert est.is_categorical_ is None
    np.testing.assert_array_equal(Xt, X)


def test_numpy_input_with_declared_columns():
    X = np.array([["a", 1.0], ["b", 2.0], [None, 3.0], ["a", 4.0]], dtype=object)
    for spec in ([0], [True, False]):
        est, Xt = fit_encode(X, spec)
        np.testing.assert_array_equal(Xt, [[0, 1], [1, 2], [np.nan, 3], [0, 4]])
        assert est.categories_[0].tolist() == ["a", "b"] and est.categories_[1] is None
        assert not hasattr(est, "feature_names_in_")
    Xt = validate_tabular(
        est, np.array([["c", 5.0]], dtype=object), reset=False, dtype=np.float64, ensure_all_finite=False
    )
    np.testing.assert_array_equal(Xt, [[np.nan, 5.0]])


def test_declared_by_name_or_index():
    X = frame()
    by_name, Xn = fit_encode(X, ["grade", "city"])
    by_index, Xi = fit_encode(X, [1, 2])
    np.testing.assert_array_equal(by_name.is_categorical_, by_index.is_categorical_)
    np.testing.assert_array_equal(Xn, Xi)


@pytest.mark.parametrize(
    "spec, message",
    [
        (["grade", "city", "nope"], r"names \['nope'\] are not columns of X"),
        ([1, 2, 7], r"index\(es\) \[7\] out of range: X has 4 features"),
        ([-1, 1, 2], r"index\(es\) \[-1\] out of range"),
        ([True, True], r"boolean mask must have one entry per feature \(4\), got 2"),
        (None, r"column\(s\) 'grade', 'city' of X hold strings but are not categorical"),
        ([1], r"column\(s\) 'city' of X hold strings but are not categorical.*declare them in categorical_features"),
        ([1.5], "categorical_features must be"),
    ],
)
def test_errors_on_the_declaration(spec, message):
    with pytest.raises(ValueError, match=message):
        fit_encode(frame(), spec)


def test_names_need_a_dataframe():
    with pytest.raises(ValueError, match="names .* needs X as a pandas DataFrame"):
        fit_encode(np.zeros((3, 2)), ["a"])


def test_mixed_types_in_a_string_column_are_named():
    X = pd.DataFrame({"mixed": pd.Series(["a", 1, "b"], dtype=object)})
    with pytest.raises(ValueError, match="column 'mixed' mixes values of types"):
        fit_encode(X)


@pytest.mark.parametrize(
    "column, dtype",
    [
        (lambda n: pd.date_range("2020-01-01", periods=n), r"datetime64\[\w+\]"),
        (lambda n: pd.date_range("2020-01-01", periods=n, tz="UTC"), r"datetime64\[\w+, UTC\]"),
        (lambda n: pd.to_timedelta(np.arange(n), unit="D"), r"timedelta64\[\w+\]"),
        (lambda n: pd.period_range("2020-01", periods=n, freq="M"), r"period\[M\]"),
        (lambda n: pd.Series(pd.date_range("2020-01-01", periods=n)).astype(object), "objects of type Timestamp"),
    ],
    ids=["datetime", "datetime-tz", "timedelta", "period", "timestamps-as-objects"],
)
def test_dates_times_and_durations_are_a_type_error_naming_the_column(column, dtype):
    # numpy's DTypePromotionError (or float()'s TypeError) named no column; objects were taken as categories
    X = frame().assign(when=column(6))
    message = rf"column\(s\) 'when' \({dtype}\) of X hold dates, times or durations.* convert them to numbers"
    with pytest.raises(TypeError, match=message):
        fit_encode(X)
    est, _ = fit_encode(frame().assign(when=np.arange(6.0)))
    with pytest.raises(TypeError, match=message):  # and at prediction
        validate_tabular(est, X, reset=False, dtype=np.float64, ensure_all_finite=False)
    # a category column of dates is categorical, its dates the categories
    est, Xt = fit_encode(frame().assign(when=pd.Categorical(column(6))))
    assert est.is_categorical_[-1] and len(est.categories_[-1]) == 6


def test_arrays_of_dates_times_and_durations_are_refused_as_the_frames_columns_are():
    # numpy's datetime64 and timedelta64 arrays were taken as numbers (days, seconds since 1970), silently
    days = np.arange(12).reshape(6, 2).astype("datetime64[D]")
    with pytest.raises(TypeError, match=r"^column\(s\) 0 \(datetime64\[D\]\), 1 \(datetime64\[D\]\) of X hold dates"):
        fit_encode(days)
    wide = np.zeros((3, 7), dtype="timedelta64[s]")
    with pytest.raises(TypeError, match=r"column\(s\) 0 \(timedelta64\[s\]\), .*, 4 \(timedelta64\[s\]\), \.\.\. of"):
        fit_encode(wide)
    # an object array: a column is refused if any value is a date, a time or a duration, named by its position
    import datetime

    X = np.array([[1.0, datetime.time(12, 30)], [2.0, 3.0], [3.0, pd.Timedelta(days=1)]], dtype=object)
    with pytest.raises(TypeError, match=r"^column\(s\) 1 \(objects of type Timedelta, time\) of X hold dates"):
        fit_encode(X)
    # pandas' NaT (a missing date) among numbers: float() refused it naming no column
    with pytest.raises(TypeError, match=r"^column\(s\) 0 \(objects of type NaTType\) of X hold dates"):
        fit_encode(np.array([[1.0, 2.0], [pd.NaT, 3.0], [4.0, 5.0]], dtype=object))


def test_duplicate_column_names_are_a_value_error_naming_them():
    # narwhals' DuplicateError came from deep inside scikit-learn's validation
    X = pd.DataFrame(np.zeros((4, 5)), columns=["a", "b", "a", "c", "a"])
    with pytest.raises(ValueError, match=r"^X has duplicate column names: 'a' \(3 times\); give each column"):
        fit_encode(X)
    est, _ = fit_encode(X.set_axis(["a", "b", "d", "c", "e"], axis=1))
    with pytest.raises(ValueError, match=r"^X has duplicate column names: 'a' \(3 times\)"):
        validate_tabular(est, X, reset=False, dtype=np.float64)


def test_feature_name_mismatches():
    est, _ = fit_encode(frame())
    new = frame()
    with pytest.raises(ValueError, match="feature names should match"):
        validate_tabular(est, new[["grade", "num", "city", "count"]], reset=False, dtype=np.float64)
    with pytest.raises(ValueError, match="X has 3 features"):
        validate_tabular(est, new.iloc[:, :3], reset=False, dtype=np.float64)
    # an array where names were fitted: scikit-learn's warning, once (not also from the encoder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        validate_tabular(est, new.to_numpy(), reset=False, dtype=np.float64, ensure_all_finite=False)
    messages = [str(w.message) for w in caught]
    assert messages == ["X does not have valid feature names, but Recorder was fitted with feature names"]
