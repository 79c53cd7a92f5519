"""Weighted resampling by D_t and the forests' bootstrap (Walker's alias method)."""

import numpy as np
import pytest

from mddf.forests.sampling import Bootstrap, alias_table, weighted_resample


def test_resampling_follows_the_distribution_and_skips_zero_weight_rows():
    rng = np.random.RandomState(0)
    D = np.array([0.0, 0.1, 0.2, 0.7, 0.0])
    idx = np.array([0, 1, 2, 3])
    draws = np.concatenate([weighted_resample(idx, D, rng) for _ in range(2000)])
    assert 0 not in draws and 4 not in draws
    freq = np.bincount(draws, minlength=5)[1:4] / len(draws)
    assert freq == pytest.approx([0.1, 0.2, 0.7], abs=0.01)
    one = weighted_resample(idx, D, rng)
    assert len(one) == len(idx) and np.all(np.diff(one) >= 0)


@pytest.mark.parametrize("seed", range(5))
def test_alias_table_encodes_the_distribution_exactly(seed):
    # index i is drawn with probability (accept[i] + sum of (1 - accept[j]) over the j aliased to i) / n
    p = np.random.RandomState(seed).exponential(size=200) ** 3
    accept, alias = alias_table(p)
    assert np.all((accept >= 0) & (accept <= 1))
    implied = (accept + np.bincount(alias, weights=1 - accept, minlength=len(p))) / len(p)
    assert implied == pytest.approx(p / p.sum(), rel=1e-9, abs=1e-15)


def test_weighted_bootstrap_draws_follow_the_distribution_and_skip_zero_weight_rows():
    rng = np.random.RandomState(0)
    rows = np.array([10, 11, 12, 13, 14])
    draws = Bootstrap(rows, [0.0, 0.1, 0.2, 0.7, 0.0])
    sample = np.concatenate([draws.draw(rng, 5) for _ in range(4000)])
    assert set(np.unique(sample)) == {11, 12, 13}
    assert np.bincount(sample - 10, minlength=5)[1:4] / len(sample) == pytest.approx([0.1, 0.2, 0.7], abs=0.01)
    assert draws.draw(rng, 3).shape == (3,)


def test_uniform_bootstrap_draws_every_row_equally_often():
    rng = np.random.RandomState(1)
    rows = np.array([3, 5, 8, 9])
    sample = np.concatenate([Bootstrap(rows).draw(rng, 4) for _ in range(5000)])
    assert set(np.unique(sample)) == set(rows)
    assert np.bincount(sample, minlength=10)[rows] / len(sample) == pytest.approx([0.25] * 4, abs=0.01)


@pytest.mark.parametrize("p", [None, [0.0, 0.1, 0.2, 0.7, 0.0]])
def test_bootstrap_counts_are_the_counted_draws_of_the_same_random_state(p):
    draws = Bootstrap(np.array([1, 2, 4, 6, 7]), p)
    drawn = draws.draw(np.random.RandomState(3), 50)
    counts = draws.counts(np.random.RandomState(3), 9, 50)
    assert counts.dtype == np.float64 and counts.shape == (9,)
    assert np.array_equal(counts, np.bincount(drawn, minlength=9))
    assert len(drawn) == 50 and np.all(np.diff(drawn) >= 0)  # sorted


def test_bootstrap_rejects_a_distribution_without_weight_on_its_rows():
    with pytest.raises(ValueError, match="no weight on the rows"):
        Bootstrap(np.arange(3), np.zeros(3))
    with pytest.raises(ValueError, match="same shape"):
        Bootstrap(np.arange(3), np.ones(4))
    with pytest.raises(ValueError, match="no rows"):
        Bootstrap(np.arange(0))
