"""Margins (eq. 46) and margin statistics (the loss of eq. 48: test_loss.py)."""

import numpy as np
import pytest

from mddf.margin.margins import margin_statistics, margins


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


def test_margin_statistics():
    stats = margin_statistics(np.array([0.2, 0.4, 0.6]))
    assert stats["margin_mean"] == pytest.approx(0.4)
    assert stats["margin_std"] == pytest.approx(np.std([0.2, 0.4, 0.6]))
    assert stats["margin_ratio"] == pytest.approx(np.std([0.2, 0.4, 0.6]) / 0.4)
    assert margin_statistics(np.array([-0.5, 0.1]))["margin_ratio"] == np.inf
