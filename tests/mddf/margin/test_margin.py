"""Margins (eq. 46), the margin-distribution loss (eq. 48) and margin statistics."""

import numpy as np
import pytest

from mddf.margin.margins import (
    margin_distribution_loss,
    margin_distribution_loss_gradient,
    margin_statistics,
    margins,
)


def test_margin_matches_the_papers_example():
    # Section 4.1: scores [0.2, 0.3, 0.5], true class 3 -> 0.5 - 0.3 = 0.2
    assert margins(np.array([[0.2, 0.3, 0.5]]), np.array([2])) == pytest.approx([0.2])


def test_margin_is_negative_for_a_misclassified_sample_and_bounded():
    scores = np.array([[0.7, 0.2, 0.1], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    m = margins(scores, np.array([1, 1, 1]))
    assert m == pytest.approx([0.2 - 0.7, 1.0, -1.0])
    rng = np.random.RandomState(0)
    p = rng.dirichlet(np.ones(5), size=200)
    m = margins(p, rng.randint(0, 5, 200))
    assert np.all((m >= -1) & (m <= 1))


def test_loss_branches_by_hand():
    g, mu = 0.8, 0.05
    # below the mean: (z - g)^2 / g^2
    assert margin_distribution_loss(0.4, g, mu) == pytest.approx((0.4 - 0.8) ** 2 / 0.64)
    # above the mean: mu (z - g)^2 / (1 - g)^2
    assert margin_distribution_loss(0.9, g, mu) == pytest.approx(0.05 * 0.01 / 0.04)
    assert margin_distribution_loss(g, g, mu) == 0.0
    # a misclassified margin costs more than a correct one the same distance away
    assert margin_distribution_loss(g - 0.1, g, mu) > margin_distribution_loss(g + 0.1, g, mu)


def test_gradient_matches_finite_differences():
    z = np.linspace(-1.5, 2.0, 71)
    eps = 1e-6
    for g, mu in [(0.7, 0.01), (0.9, 0.1), (0.75, 0.05)]:
        numeric = (margin_distribution_loss(z + eps, g, mu) - margin_distribution_loss(z - eps, g, mu)) / (2 * eps)
        assert margin_distribution_loss_gradient(z, g, mu) == pytest.approx(numeric, abs=1e-5)


def test_margin_statistics():
    stats = margin_statistics(np.array([0.2, 0.4, 0.6]))
    assert stats["margin_mean"] == pytest.approx(0.4)
    assert stats["margin_std"] == pytest.approx(np.std([0.2, 0.4, 0.6]))
    assert stats["margin_ratio"] == pytest.approx(np.std([0.2, 0.4, 0.6]) / 0.4)
    assert margin_statistics(np.array([-0.5, 0.1]))["margin_ratio"] == np.inf
