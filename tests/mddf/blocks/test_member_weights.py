"""The members' weights fitted on their out-of-fold loss (mddf.blocks.member_weights): on the simplex, favouring the
better member, never a higher loss than the equal mean; class vectors judged after a temperature, not by their
confidence."""

from __future__ import annotations

import numpy as np
import pytest

from mddf.blocks.member_weights import fit_member_weights, layer_loss
from mddf.margin.calibration import fit_temperature


def _class_vectors(seed, n=400, n_classes=3):
    """A good member (0.7 on the true class), a member of random class vectors, and their half-and-half."""
    rng = np.random.RandomState(seed)
    y = rng.randint(0, n_classes, n)
    good = np.full((n, n_classes), 0.3 / (n_classes - 1))
    good[np.arange(n), y] = 0.7
    bad = rng.dirichlet(np.ones(n_classes), n)
    return np.stack([bad, good, 0.5 * (good + bad)], axis=1), y


@pytest.mark.parametrize("seed", [0, 1])
def test_class_vectors_weights_favour_the_better_member_and_lower_the_log_loss(seed):
    outputs, y = _class_vectors(seed)
    weights = fit_member_weights(outputs, y)
    assert weights.shape == (3,) and np.all(weights >= 0) and weights.sum() == pytest.approx(1.0)
    assert weights[1] > 0.9 and weights[0] < 0.05
    assert layer_loss(outputs, y, weights) < layer_loss(outputs, y) - 0.05
    tempered = [fit_temperature(np.average(outputs, axis=1, weights=w), y).log_loss_after for w in (weights, None)]
    assert tempered[0] < tempered[1]  # the cascade's own calibration agrees


def test_an_under_confident_but_more_accurate_member_outweighs_a_confident_less_accurate_one():
    """Member 0 gives its argmax 0.4 (right on 95% of the rows), member 1 gives 0.98 (right on 80%): the log-loss
    of the raw mixture would prefer member 1's confidence, the tempered one prefers member 0's ranking."""
    rng = np.random.RandomState(0)
    n, n_classes = 2000, 4
    y = rng.randint(0, n_classes, n)

    def member(accuracy, top):
        guess = np.where(rng.rand(n) < accuracy, y, (y + rng.randint(1, n_classes, n)) % n_classes)
        out = np.full((n, n_classes), (1 - top) / (n_classes - 1))
        out[np.arange(n), guess] = top
        return out

    outputs = np.stack([member(0.95, 0.4), member(0.8, 0.98)], axis=1)
    weights = fit_member_weights(outputs, y)
    assert weights[0] > weights[1]
    mixed = np.average(outputs, axis=1, weights=weights)
    assert np.mean(mixed.argmax(axis=1) == y) >= np.mean(outputs[:, 0].argmax(axis=1) == y) - 0.01


def test_predictions_weights_favour_the_better_member_and_lower_the_squared_error_at_any_scale():
    rng = np.random.RandomState(0)
    y = 1e6 * rng.randn(500)
    outputs = np.stack([y + 1e6 * rng.randn(500), y + 1e5 * rng.randn(500), np.zeros(500)], axis=1)
    weights = fit_member_weights(outputs, y)
    assert np.all(weights >= 0) and weights.sum() == pytest.approx(1.0)
    assert np.argmax(weights) == 1 and weights[1] > 0.9
    mse = [np.mean((np.average(outputs, axis=1, weights=w) - y) ** 2) for w in (weights, None)]
    assert mse[0] < 0.1 * mse[1]


def test_sample_weights_decide_which_member_wins():
    """Member 0 is right on the first half of the rows, member 1 on the second: the heavier half's member wins."""
    y = np.zeros(200)
    outputs = np.zeros((200, 2))
    outputs[:100, 1] = outputs[100:, 0] = 1.0  # each member wrong by 1 on the other's half
    weight = np.r_[np.full(100, 9.0), np.ones(100)]
    assert fit_member_weights(outputs, y, weight)[0] > 0.8
    assert fit_member_weights(outputs, y, weight[::-1])[1] > 0.8


def test_identical_members_one_member_and_a_perfect_mean_keep_the_equal_weights():
    outputs, y = _class_vectors(0)
    same = np.repeat(outputs[:, 1:2], 4, axis=1)
    # every mixture of identical members is the same: SLSQP may step a few ulps off the start (scipy 1.17), no more
    np.testing.assert_allclose(fit_member_weights(same, y), np.full(4, 0.25), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(fit_member_weights(outputs[:, :1], y), [1.0])
    exact = np.stack([np.arange(5.0), np.arange(5.0)], axis=1)
    np.testing.assert_array_equal(fit_member_weights(exact, np.arange(5.0)), [0.5, 0.5])


def test_a_row_no_member_gives_a_chance_does_not_break_the_fit():
    outputs, y = _class_vectors(0)
    outputs[0, :, y[0]] = 0.0  # every member's probability of row 0's class is 0
    weights = fit_member_weights(outputs, y)
    assert np.all(np.isfinite(weights)) and weights.sum() == pytest.approx(1.0) and weights[1] > 0.9
