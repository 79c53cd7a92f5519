"""check_sample_weight: the weight checks every estimator shares."""

import numpy as np
import pytest

from mddf.utils import check_sample_weight

X = np.zeros((3, 2))


def test_none_means_unit_weights_and_scalars_broadcast():
    np.testing.assert_array_equal(check_sample_weight(None, X, estimator_name="E"), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(check_sample_weight(2, X, estimator_name="E"), [2.0, 2.0, 2.0])


def test_zero_weights_are_allowed_next_to_positive_ones():
    w = check_sample_weight([1, 0, 3], X, estimator_name="E")
    assert w.dtype == np.float64
    np.testing.assert_array_equal(w, [1.0, 0.0, 3.0])


@pytest.mark.parametrize(
    "weights, message",
    [
        ([0, 0, 0], "non-zero|no positive entry"),
        ([1, -1, 1], "Negative"),
        ([1, np.nan, 1], "E: sample_weight must be finite"),
        ([1, np.inf, 1], "E: sample_weight must be finite"),
        ([1, 2], r"shape"),
    ],
)
def test_bad_weights_are_named(weights, message):
    with pytest.raises(ValueError, match=message):
        check_sample_weight(weights, X, estimator_name="E")
