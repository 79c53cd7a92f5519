"""The real-data study's figures: the critical-difference bars and the time-score frontier."""

from benchmarks import realdata_figures as figures
from benchmarks import realdata_statistics as statistics_


def test_the_critical_difference_bars_join_the_learners_no_more_than_cd_apart():
    ranks = {"a": 1.0, "b": 1.5, "c": 2.4, "d": 3.9}
    assert statistics_.cliques(ranks, 1.5) == [["a", "b", "c"], ["c", "d"]]
    assert statistics_.cliques(ranks, 0.1) == []
    fig = figures.cd_figure(ranks, 1.5, "toy")
    assert len(fig.axes[0].texts) >= 4
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_the_frontier_keeps_the_learners_no_other_beats_on_both_time_and_score():
    points = [("slow-best", 10.0, 0.9), ("fast-good", 1.0, 0.8), ("dominated", 5.0, 0.7), ("tie-slower", 2.0, 0.8)]
    assert [p[0] for p in figures.frontier(points)] == ["fast-good", "slow-best"]
    losses = [("a", 1.0, 0.5), ("b", 2.0, 0.4), ("c", 3.0, 0.6)]  # log-loss: lower is better
    assert [p[0] for p in figures.frontier(losses, higher=False)] == ["a", "b"]
