"""Binning: bin edges, equal-frequency bins, and bins that route as float thresholds."""

import numpy as np
import pytest

from mddf.trees import FeatureBinner


def test_few_distinct_values_get_one_bin_each_and_unseen_values_go_to_the_nearer_side():
    X = np.array([[0.0], [1.0], [1.0], [5.0], [2.0]], dtype=np.float32)
    binner = FeatureBinner().fit(X)
    assert binner.transform(X).ravel().tolist() == [0, 1, 1, 3, 2]
    # thresholds are midpoints, as scikit-learn's are
    assert binner.edges_[0].tolist() == [0.5, 1.5, 3.5]
    assert binner.transform(np.array([[0.4], [0.6], [3.4], [3.6], [99.0]], dtype=np.float32)).ravel().tolist() == [
        0,
        1,
        2,
        3,
        3,
    ]


def test_many_distinct_values_get_equal_frequency_bins():
    x = np.random.RandomState(0).standard_normal((10_000, 1)).astype(np.float32)
    codes = FeatureBinner().fit_transform(x).ravel()
    counts = np.bincount(codes)
    assert len(counts) == 256
    assert counts.min() > 0.8 * len(x) / 256 and counts.max() < 1.2 * len(x) / 256


def test_bin_split_and_float_threshold_route_every_value_alike():
    rng = np.random.RandomState(1)
    X = np.column_stack([rng.standard_normal(3000), rng.randint(0, 7, 3000), rng.exponential(size=3000)])
    X = X.astype(np.float32)
    binner = FeatureBinner().fit(X)
    fresh = np.vstack([X, rng.standard_normal((500, 3)).astype(np.float32) * 3])
    codes = binner.transform(fresh)
    for j, edges in enumerate(binner.edges_):
        for b in range(len(edges)):
            assert np.array_equal(codes[:, j] <= b, fresh[:, j] <= edges[b])


def test_adjacent_float32_values_stay_in_different_bins():
    lo = np.float32(1.0)
    hi = np.nextafter(lo, np.float32(2))
    X = np.array([[lo], [hi], [lo], [hi]], dtype=np.float32)
    binner = FeatureBinner().fit(X)
    assert binner.transform(X).ravel().tolist() == [0, 1, 0, 1]


def test_max_bins_is_bounded():
    with pytest.raises(ValueError, match="max_bins"):
        FeatureBinner(max_bins=300)


@pytest.mark.parametrize("max_bins", [2, 17, 256])
def test_codes_are_the_number_of_edges_strictly_below_each_value(max_bins):
    # the compiled search must agree with numpy's searchsorted (side="left") everywhere: on the edges
    # themselves, between them, at +-inf and -0.0, for features of 1 to 255 edges; NaN gets its own code
    rng = np.random.RandomState(2)
    X = np.column_stack(
        [rng.standard_normal(4000), rng.randint(0, 3, 4000), rng.exponential(size=4000), rng.randint(0, 300, 4000)]
    ).astype(np.float32)
    X[rng.rand(*X.shape) < 0.02] = np.nan
    binner = FeatureBinner(max_bins=max_bins).fit(X)
    edges = np.concatenate(binner.edges_)
    probes = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf)])
    probes = np.concatenate([probes, [np.inf, -np.inf, 0.0, -0.0, np.nan]]).astype(np.float32)
    fresh = np.vstack([X, np.tile(probes[:, None], (1, X.shape[1])), rng.standard_normal((500, 4)) * 50])
    fresh = fresh.astype(np.float32)
    codes = binner.transform(fresh)
    for j, column_edges in enumerate(binner.edges_):
        expected = np.searchsorted(column_edges, fresh[:, j], side="left")
        expected[np.isnan(fresh[:, j])] = binner.missing_bins_[j]
        assert np.array_equal(codes[:, j], expected)


def test_transform_names_a_column_count_that_differs_from_the_fit():
    binner = FeatureBinner().fit(np.zeros((5, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="3 features"):
        binner.transform(np.zeros((5, 4), dtype=np.float32))
