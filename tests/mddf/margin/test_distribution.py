"""The sample distribution D_{t+1} (eq. 47)."""

import numpy as np
import pytest

from mddf.margin.distribution import sample_distribution
from mddf.margin.loss import MarginDistributionLoss, margin_distribution_loss

LOSS = MarginDistributionLoss(0.8, 0.05)


def test_distribution_is_the_normalised_loss():
    F = np.array([-0.5, 0.2, 0.8, 1.3])
    D = sample_distribution(F, LOSS)
    loss = margin_distribution_loss(F, 0.8, 0.05)
    assert D == pytest.approx(loss / loss.sum())
    assert D.sum() == pytest.approx(1.0)
    assert D[2] == 0.0  # a sample exactly at the margin mean gets no weight
    assert D[0] > D[1] > D[3]  # misclassified first, then small margins, large margins last


def test_distribution_falls_back_to_uniform_when_every_loss_is_zero():
    assert sample_distribution(np.full(4, 0.8), LOSS) == pytest.approx(np.full(4, 0.25))
