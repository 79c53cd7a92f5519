"""Sample distribution D_{t+1} (eq. 47) and weighted resampling."""

import numpy as np
import pytest

from mddf.margin import margin_distribution_loss
from mddf.weights import sample_distribution, weighted_resample


def test_distribution_is_the_normalised_loss():
    F = np.array([-0.5, 0.2, 0.8, 1.3])
    D = sample_distribution(F, 0.8, 0.05)
    loss = margin_distribution_loss(F, 0.8, 0.05)
    assert D == pytest.approx(loss / loss.sum())
    assert D.sum() == pytest.approx(1.0)
    assert D[2] == 0.0  # a sample exactly at the margin mean gets no weight
    assert D[0] > D[1] > D[3]  # misclassified first, then small margins, large margins last


def test_distribution_falls_back_to_uniform_when_every_loss_is_zero():
    assert sample_distribution(np.full(4, 0.8), 0.8, 0.05) == pytest.approx(np.full(4, 0.25))


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
