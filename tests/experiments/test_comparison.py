"""The practitioner's table and figure: mean ± SE, paired difference to the best, the winner only where significant."""

import pytest
from provenance_files import read_csv_rows

from mddf.experiments.comparison import comparison_of, plot, to_csv, to_markdown, verdict
from mddf.experiments.metrics import WINNER_RULE


def runs(method, accuracies, **extra):
    return [
        {
            "dataset": "my",
            "method": method,
            "seed": i // 2,
            "fold": i % 2,
            "status": "ok",
            "accuracy": a,
            "balanced_accuracy": a - 0.05,
            "log_loss": 1 - a,
            "train_seconds": 2.0,
            "selection_seconds": 1.0 if method == "MLP" else 0.0,
            "total_seconds": 3.0 if method == "MLP" else 2.0,
            "compile_seconds": 5.0 if method == "mdDF" else None,
            "predict_seconds": 0.2,
            "predict_proba_seconds": 0.05,
            **extra,
        }
        for i, a in enumerate(accuracies)
    ]


RECORDS = (
    runs("mdDF", [0.90, 0.92, 0.91, 0.93, 0.90, 0.93])
    + runs("MLP", [0.80, 0.82, 0.81, 0.82, 0.80, 0.82])
    + runs("Baseline", [0.60, 0.60, 0.60, 0.60, 0.60, 0.60])
    + [{"dataset": "my", "method": "Broken", "seed": 0, "fold": 0, "status": "error"}]
)
METHODS = ["mdDF", "MLP", "Baseline", "Broken"]


def test_the_table_marks_a_significant_winner_and_keeps_the_baseline_row():
    comparison = comparison_of(RECORDS, "my", METHODS, "accuracy", "classification")
    assert comparison.winner == "mdDF" and comparison.n_runs == 6
    md = to_markdown([comparison], {"my": "my.csv: accuracy (%), practitioner protocol"})
    lines = md.splitlines()
    assert lines[0] == "### my.csv: accuracy (%), practitioner protocol"
    header = lines[2]
    assert header == (
        "| Method | accuracy (%) | Δ to best | balanced accuracy (%) | log-loss "
        "| seconds (selection + fit) | predict s | compile s |"
    )
    rows = {line.split(" | ")[0].lstrip("| "): line for line in lines if line.startswith("| ") and "---" not in line}
    assert rows["**mdDF** ★"].startswith("| **mdDF** ★ | **91.50** ± ")
    assert "| best |" in rows["**mdDF** ★"] and rows["**mdDF** ★"].endswith("| 2.00 | 0.250 | 5.00 |")
    assert "| −10.33 ± " in rows["MLP"] and rows["MLP"].endswith("| 3.00 (1.00 + 2.00) | 0.250 | - |")
    assert rows["Baseline"].startswith("| Baseline | 60.00 ± 0.00 | −31.50 ± ")
    assert rows["Broken"] == "| Broken | failed on 1 of 1 folds: an error | - | - | - | - | - | - |"
    assert "my: mdDF is best on accuracy, by more than 2 standard errors over every other method." in md
    assert "Left out of the comparison, as they failed on some fold: Broken." in md
    assert WINNER_RULE in md


def test_without_a_significant_lead_there_is_no_winner_and_the_ties_are_named():
    records = runs("A", [0.90, 0.80, 0.92, 0.85, 0.88, 0.85]) + runs("B", [0.88, 0.83, 0.90, 0.84, 0.86, 0.85])
    comparison = comparison_of(records, "my", ["A", "B"], "accuracy", "classification")
    assert comparison.winner is None
    md = to_markdown([comparison], {"my": "t"})
    assert "| A | 86.67 ± " in md and "| B ≈ | 86.00 ± " in md and "★" not in md.split("\n- ")[0]
    assert "my: no winner on accuracy: A has the best mean, but B is within 2 standard errors of it." in md


def test_a_method_that_failed_on_one_fold_is_left_out_with_its_error_and_few_scores_mark_nothing():
    records = runs("A", [0.90, 0.92, 0.91, 0.93, 0.90, 0.93]) + runs("B", [0.60] * 6)
    records[-1] = dict(records[-1], status="error", error="MemoryError: too big\ntraceback ...")
    comparison = comparison_of(records, "my", ["A", "B"], "accuracy", "classification")
    assert [c.method for c in comparison.ranking] == ["A"] and comparison.missing == {
        "B": "failed on 1 of 6 folds: MemoryError: too big"
    }
    md = to_markdown([comparison], {"my": "t"})
    assert "| B | failed on 1 of 6 folds: MemoryError: too big |" in md and "★" not in md.split("\n- ")[0]
    assert "Left out of the comparison, as they failed on some fold: B." in md
    few = runs("A", [0.90, 0.92, 0.91, 0.93]) + runs("B", [0.60, 0.61, 0.60, 0.60])
    comparison = comparison_of(few, "my", ["A", "B"], "accuracy", "classification")
    assert comparison.winner is None
    assert "too few scores for a significance statement (4 paired folds, fewer than 5)" in verdict(comparison)


def test_a_lower_is_better_ranking_metric_orders_by_it():
    comparison = comparison_of(RECORDS, "my", METHODS, "log_loss", "classification")
    assert [c.method for c in comparison.ranking] == ["mdDF", "MLP", "Baseline"]
    assert comparison.ranking[1].diff > 0


def test_adapted_runs_are_counted_in_the_footer():
    records = runs("mdDF", [0.9, 0.9], adapted=["n_folds=2"], adapted_because="class 'x' has 2 training row(s)")
    records += runs("Baseline", [0.5, 0.5])
    comparison = comparison_of(records, "my", ["mdDF", "Baseline"], "accuracy", "classification")
    md = to_markdown([comparison], {"my": "t"})
    assert "my, mdDF: adapted to a small class in 2 of 2 folds (n_folds=2: class 'x' has 2 training row(s))." in md


def test_the_csv_holds_every_metric_with_its_standard_error(tmp_path):
    comparison = comparison_of(RECORDS, "my", METHODS, "accuracy", "classification")
    (tmp_path / "t.csv").write_text(to_csv([comparison]))
    rows = {r["method"]: r for r in read_csv_rows(tmp_path / "t.csv")}
    assert float(rows["mdDF"]["accuracy"]) == pytest.approx(0.915) and rows["mdDF"]["winner"] == "1"
    assert float(rows["MLP"]["diff to best"]) == pytest.approx(-0.10333, abs=1e-5)
    assert rows["MLP"]["within 2 se of best"] == "0" and float(rows["MLP"]["selection seconds"]) == 1.0
    assert rows["Broken"]["accuracy"] == "error" and rows["Broken"]["n"] == "0"


def test_the_figure_has_a_panel_per_dataset():
    other = [dict(r, dataset="other") for r in RECORDS]
    comparisons = [
        comparison_of(RECORDS + other, name, METHODS, "accuracy", "classification") for name in ("my", "other")
    ]
    fig = plot(comparisons, "practitioner protocol")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in visible] == ["my (★ mdDF)", "other (★ mdDF)"]
    assert [t.get_text() for t in visible[0].get_yticklabels()] == ["mdDF", "MLP", "Baseline"]


def scored(method, metric, values, **extra):
    return [dict(r, **{metric: v}, **extra) for r, v in zip(runs(method, [0.9] * len(values)), values)]


def test_a_line_says_when_no_method_beats_the_baseline_or_the_best_has_a_worse_log_loss_than_it():
    # a table where nothing predicts the rare class: every ROC AUC near the baseline's 0.5
    records = scored("Baseline", "roc_auc", [0.5] * 6, log_loss=0.23)
    records += scored("A", "roc_auc", [0.56, 0.47, 0.55, 0.49, 0.53, 0.52], log_loss=0.31)
    records += scored("B", "roc_auc", [0.45, 0.52, 0.50, 0.47, 0.51, 0.49], log_loss=0.25)
    comparison = comparison_of(records, "my", ["A", "B", "Baseline"], "roc_auc", "classification")
    assert [c.method for c in comparison.ranking] == ["A", "Baseline", "B"] and comparison.ahead_of_baseline == []
    text = verdict(comparison)
    assert " No method beats Baseline by more than 2 standard errors on ROC AUC." in text
    assert (
        " A, ranked best on ROC AUC, has a worse log-loss than Baseline (0.3100 against 0.2300): its probabilities are "
        "less reliable than the class shares (calibrate them before reading them as such)." in text
    )
    # a method clearly ahead, with better probabilities: neither line
    records += scored("C", "roc_auc", [0.81, 0.80, 0.84, 0.79, 0.82, 0.83], log_loss=0.18)
    comparison = comparison_of(records, "my", ["A", "B", "C", "Baseline"], "roc_auc", "classification")
    assert comparison.ahead_of_baseline == ["C"]
    assert "beats Baseline" not in verdict(comparison) and "worse log-loss" not in verdict(comparison)
    # too few paired scores to say
    few = comparison_of(records[:4] + records[6:10], "my", ["A", "Baseline"], "roc_auc", "classification")
    assert few.ahead_of_baseline is None and "beats Baseline" not in verdict(few)


def test_the_table_shows_the_roc_auc_only_when_the_runs_have_one():
    with_auc = comparison_of(scored("A", "roc_auc", [0.7] * 6), "my", ["A"], "accuracy", "classification")
    assert "| ROC AUC |" in to_markdown([with_auc], {"my": "t"})
    without = comparison_of(runs("A", [0.9] * 6), "my", ["A"], "accuracy", "classification")
    assert "ROC AUC" not in to_markdown([without], {"my": "t"})


def colours(ax):
    return {line.get_color() for line in ax.get_lines()}


def test_the_figure_colours_nothing_behind_with_fewer_than_five_paired_scores_as_its_table_says():
    few = runs("A", [0.90, 0.92, 0.91, 0.93]) + runs("B", [0.60, 0.61, 0.60, 0.60])
    comparison = comparison_of(few, "my", ["A", "B"], "accuracy", "classification")
    (ax,) = [ax for ax in plot([comparison]).axes if ax.get_visible()]
    assert "#8c8c8c" not in colours(ax) and "black" in colours(ax) and ax.get_title() == "my (too few scores)"
    enough = comparison_of(RECORDS, "my", METHODS, "accuracy", "classification")
    (ax,) = [ax for ax in plot([enough]).axes if ax.get_visible()]
    assert "#8c8c8c" in colours(ax) and "black" not in colours(ax)


def line_colours(ax):
    """``{method: colour}`` of the figure's points, from top to bottom as the y ticks name them."""
    methods = [t.get_text() for t in ax.get_yticklabels()]
    return {methods[round(line.get_ydata()[0])]: line.get_color() for line in ax.get_lines() if line.get_marker()}


def test_methods_tied_with_the_best_to_the_shown_digits_are_drawn_alike_and_said_to_tie():
    # three methods of the same scores: one was drawn blue and two black, and "A has the best mean" was said of A
    few = (
        runs("A", [0.90, 0.92, 0.91, 0.93]) + runs("B", [0.90, 0.92, 0.91, 0.93]) + runs("C", [0.93, 0.91, 0.92, 0.90])
    )
    few += runs("D", [0.60, 0.61, 0.60, 0.60])
    comparison = comparison_of(few, "my", ["A", "B", "C", "D"], "accuracy", "classification")
    assert verdict(comparison) == (
        "my: A, B and C tie for the best mean (91.50) on accuracy; too few scores for a significance statement "
        "(4 paired folds, fewer than 5)."
    )
    (ax,) = [ax for ax in plot([comparison]).axes if ax.get_visible()]
    assert line_colours(ax) == {"A": "#1f77b4", "B": "#1f77b4", "C": "#1f77b4", "D": "black"}
    assert ax.get_title() == "my (tie: A, B and C; too few scores)"
    md = to_markdown([comparison], {"my": "t"})
    assert [line.split(" | ")[2] for line in md.splitlines() if line.startswith(("| A", "| B", "| C"))] == [
        "best (tie)"
    ] * 3
    # with enough folds: the tie, and a method within two standard errors of it
    enough = runs("A", [0.90, 0.80, 0.92, 0.85, 0.88, 0.85]) + runs("B", [0.90, 0.80, 0.92, 0.85, 0.88, 0.85])
    enough += runs("C", [0.88, 0.83, 0.90, 0.84, 0.86, 0.85])
    comparison = comparison_of(enough, "my", ["A", "B", "C"], "accuracy", "classification")
    assert verdict(comparison) == (
        "my: no winner on accuracy: A and B tie for the best mean (86.67), but C is within 2 standard errors of them."
    )
    (ax,) = [ax for ax in plot([comparison]).axes if ax.get_visible()]
    assert set(line_colours(ax).values()) == {"#1f77b4"}
    # a single best keeps its words
    alone = comparison_of(enough, "my", ["A", "C"], "accuracy", "classification")
    assert "A has the best mean, but C is within 2 standard errors of it." in verdict(alone)


def test_the_baselines_r2_of_zero_does_not_flatten_the_axis_it_sits_at_its_edge_with_its_value():
    records = [dict(r, r2=r["accuracy"]) for r in runs("A", [0.90, 0.92, 0.91, 0.93, 0.90, 0.93])]
    records += [dict(r, r2=r["accuracy"]) for r in runs("B", [0.88, 0.90, 0.89, 0.90, 0.88, 0.91])]
    records += [dict(r, r2=-0.003) for r in runs("Baseline", [0.0] * 6)]
    comparison = comparison_of(records, "my", ["A", "B", "Baseline"], "r2", "regression")
    (ax,) = [ax for ax in plot([comparison]).axes if ax.get_visible()]
    low, high = ax.get_xlim()
    means = [c.mean for c in comparison.ranking if c.method != "Baseline"]
    assert 0.8 < low < min(means) and max(means) < high < 1  # the learners' span, not from 0
    assert [t.get_text() for t in ax.texts] == ["-0.003"]
