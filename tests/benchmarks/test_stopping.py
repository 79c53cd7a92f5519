"""The stopping study: the full-depth recording fit, the rules replayed on it (mddf's own early stopping as a live
fit runs it, DF21's relative-delta rule, the loss rule), resuming, and the tables with their provenance."""

import json

import numpy as np
import pytest
from provenance_files import read_csv_rows, read_provenance
from sklearn.datasets import make_classification
from study_helpers import read_records

from benchmarks import _internals, harness
from benchmarks import stopping as bench_stopping
from benchmarks.stopping import Layers, MddfRule, PatienceRule
from mddf import MDDFClassifier
from mddf.experiments.provenance import MARKDOWN_BEGIN

TINY = {"n_estimators": 5}
MAX_LAYERS = 6


@pytest.fixture(scope="module")
def noisy_split():
    """Three noisy classes, 500 training and 400 test rows: the out-of-fold accuracy wavers from layer to layer."""
    X, y = make_classification(
        n_samples=900, n_features=12, n_informative=6, n_classes=3, flip_y=0.1, class_sep=0.8, random_state=0
    )
    X = X.astype(np.float32)
    return X[:500], y[:500], X[500:], y[500:]


@pytest.fixture(scope="module")
def recorded(noisy_split):
    """The full-depth fit of seed 0, through JSON as results.jsonl stores it."""
    record = bench_stopping.record_fit(*noisy_split, 0, n_jobs=2, max_layers=MAX_LAYERS, params=TINY)
    return json.loads(json.dumps(record))


def test_full_depth_fit_keeps_every_layer_and_records_the_out_of_fold_correctness(noisy_split):
    X, y, _, _ = noisy_split
    model = _internals.FullDepthClassifier(random_state=0, n_jobs=2, max_layers=MAX_LAYERS, **TINY).fit(X, y)
    assert model.n_layers_ == len(model.train_history_) == MAX_LAYERS == len(model.monitored_rows_)
    assert model.stop_reason_ == f"reached max_layers={MAX_LAYERS}" and model.monitored_ == "out-of-fold"
    for features, rows, entry in zip(model.oof_features_, model.monitored_rows_, model.train_history_):
        assert entry["oof_accuracy"] == rows.mean()
        # the float32 features agree with the rows early stopping read, except where rounding made a tie at the top
        tied = (features == features.max(axis=1, keepdims=True)).sum(axis=1) > 1
        np.testing.assert_array_equal(rows[~tied], (features.argmax(axis=1) == y)[~tied])


@pytest.mark.parametrize(
    "rule",
    [
        MddfRule(),
        MddfRule(n_tolerant_layers=1),
        MddfRule(n_tolerant_layers=3),
        MddfRule(tol=0.01),
        MddfRule(n_tolerant_layers=3, min_gain_se=1.0),
        MddfRule(min_error_reduction=0.005),
        MddfRule(min_error_reduction=0.05),
    ],
    ids=lambda rule: rule.name,
)
def test_replay_of_an_mddf_rule_is_the_live_fit_with_its_parameters(rule, noisy_split, recorded):
    X, y, X_test, y_test = noisy_split
    grown, kept = rule.replay(Layers.from_record(recorded))
    live = MDDFClassifier(random_state=0, n_jobs=2, max_layers=MAX_LAYERS, **TINY, **rule.params).fit(X, y)
    assert (grown, kept) == (len(live.train_history_), live.n_layers_)
    assert bench_stopping.outcome(rule, Layers.from_record(recorded))["test_accuracy"] == live.score(X_test, y_test)
    assert [h["oof_accuracy"] for h in live.train_history_] == [h["oof_accuracy"] for h in recorded["layers"][:grown]]


def test_the_replayed_mddf_rules_differ_on_the_recorded_fit(recorded):
    layers = Layers.from_record(recorded)
    grown = {MddfRule(n_tolerant_layers=p).replay(layers)[0] for p in (1, 2, 3)}
    assert len(grown) > 1  # the fixture does not stop every rule at the same layer


def _layers(accuracy, loss=None):
    """Layers of the given out-of-fold accuracy and loss; test accuracy layer / 100; 1 s and 2 MB per layer."""
    n = len(accuracy)
    return Layers(
        accuracy=np.asarray(accuracy, dtype=float),
        loss=np.asarray(loss if loss is not None else np.linspace(1, 0.5, n), dtype=float),
        correct=[],
        test_accuracy=np.arange(1, n + 1) / 100,
        fit_seconds=np.ones(n),
        predict_seconds=np.arange(1, n + 1) / 10,
        model_bytes=np.full(n, 2e6),
    )


def test_df21_rule_relative_to_accuracy_counts_only_gains_of_the_relative_margin():
    # best 0.80; 0.803 < 0.80 * 1.005 does not improve, 0.805 does; then 0.806 and 0.808 do not
    layers = _layers([0.80, 0.803, 0.805, 0.806, 0.808, 0.90])
    assert PatienceRule("acc", 0.005, patience=2, keep="improved").replay(layers) == (5, 3)
    assert PatienceRule("acc", 0.005, patience=2, keep="max-acc").replay(layers) == (5, 5)
    assert PatienceRule("acc", 0.005, patience=1, keep="improved").replay(layers) == (2, 1)
    assert PatienceRule("acc", 0.0, patience=2).replay(layers) == (6, 6)  # DF21's >=: every rise improves


def test_df21_rule_relative_to_error_is_lenient_where_the_error_is_small():
    # errors 0.02, 0.0198, 0.0195: each fall exceeds half a percent of the error, not of the accuracy
    layers = _layers([0.98, 0.9802, 0.9805, 0.9805, 0.9805])
    assert PatienceRule("err", 0.005, patience=2).replay(layers) == (5, 3)
    assert PatienceRule("acc", 0.005, patience=2).replay(layers) == (3, 1)


def test_loss_rule_stops_when_the_loss_stops_falling_and_keeps_the_lowest_loss_or_the_best_accuracy():
    layers = _layers([0.70, 0.72, 0.75, 0.74, 0.73, 0.71], loss=[1.0, 0.9, 0.899, 0.85, 0.851, 0.845])
    # delta 0.01: 0.9 improves on 1.0; 0.899 does not; 0.85 does (< 0.9 * 0.99); 0.851 and 0.845 do not
    assert PatienceRule("loss", 0.01, patience=2, keep="min-loss").replay(layers) == (6, 6)
    assert PatienceRule("loss", 0.01, patience=2, keep="improved").replay(layers) == (6, 4)
    assert PatienceRule("loss", 0.01, patience=2, keep="max-acc").replay(layers) == (6, 3)
    assert PatienceRule("loss", 0.01, patience=1, keep="improved").replay(layers) == (3, 2)
    assert PatienceRule("loss", 0.01, patience=1, keep="min-loss").replay(layers) == (3, 3)


def test_outcome_reads_the_kept_prefix_and_sums_the_grown_layers():
    layers = _layers([0.80, 0.803, 0.805, 0.806, 0.808, 0.90])
    got = bench_stopping.outcome(PatienceRule("acc", 0.005, patience=2), layers)
    assert got == {"grown": 5, "kept": 3, "test_accuracy": 0.03, "fit_s": 5.0, "predict_s": 0.3, "model_mb": 6.0}


def test_summary_keeps_accuracy_within_one_standard_error_of_todays_mean():
    today = [0.90, 0.92, 0.94]  # mean 92, standard error 100 * 0.02 / sqrt(3) = 1.155 points
    runs = []
    for name, accuracies in (("plain", today), ("close", [0.91, 0.91, 0.92]), ("far", [0.89, 0.90, 0.91])):
        for seed, accuracy in enumerate(accuracies):
            runs.append({"rule": name, "dataset": "d", "seed": seed, "test_accuracy": accuracy})
            runs[-1].update(grown=4, kept=3, fit_s=1.0, predict_s=0.1, model_mb=1.0)

    class Named:
        def __init__(self, name):
            self.name, self.family = name, "test"

    rules = [bench_stopping.TODAY, Named("close"), Named("far")]
    summary = {r["rule"]: r for r in bench_stopping.summarise(runs, rules, ["d"])}
    assert summary["plain"]["today_se"] == pytest.approx(2 / 3**0.5, abs=1e-4)
    assert summary["close"]["keeps_accuracy"] is True  # 91.33 >= 92 - 1.155
    assert summary["far"]["keeps_accuracy"] is False  # 90.00 < 92 - 1.155
    assert summary["close"]["diff_vs_today"] == pytest.approx(-2 / 3, abs=1e-4)


def test_study_rules_start_with_the_plain_rule_and_hold_the_estimators_default_and_have_unique_names():
    rules = bench_stopping.study_rules()
    defaults = {k: v for k, v in MDDFClassifier().get_params().items() if k in rules[0].params}
    assert rules[0] is bench_stopping.TODAY and rules[0].params == dict(defaults, min_error_reduction=0.0)
    assert any(getattr(rule, "params", None) == defaults for rule in rules)  # today's default is compared
    assert len({rule.name for rule in rules}) == len(rules)


def test_quick_run_resumes_and_writes_the_tables_with_provenance(tmp_path, in_this_process):
    out = tmp_path / "stopping"
    argv = ["--quick", "--max-layers", "4", "--out", str(out)]
    assert bench_stopping.main(argv) == 0
    assert [(u.dataset, u.seed) for u in in_this_process] == [("digits", 0), ("digits", 1)]
    records = read_records(out)
    assert [(r["key"], r["status"], len(r["layers"])) for r in records] == [
        ("digits|full-depth|seed=0|round=0", "ok", 4),
        ("digits|full-depth|seed=1|round=0", "ok", 4),
    ]
    assert all("finished_at" in r and "versions" in r and r["config"]["max_layers"] == 4 for r in records)
    assert bench_stopping.main(argv) == 0  # a rerun finds both fits done: nothing fitted, nothing appended
    assert len(in_this_process) == 2 and len(read_records(out)) == 2
    rules = [rule.name for rule in bench_stopping.study_rules()]
    markdown = (out / "stopping.md").read_text()
    assert markdown.startswith(MARKDOWN_BEGIN) and "--quick" in read_provenance(markdown)["command"]
    assert all(f"| {name} |" in markdown for name in rules)
    verdicts = read_csv_rows(out / "stopping_verdicts.csv")
    assert [r["rule"] for r in verdicts] == rules and verdicts[0]["verdict"] == "keeps accuracy"
    assert {r["rule"] for r in read_csv_rows(out / "stopping.csv")} == set(rules)
    assert len(read_csv_rows(out / "stopping_runs.csv")) == 2 * len(rules)
    for name in ("stopping.csv", "stopping_verdicts.csv", "stopping_runs.csv"):
        assert "--quick" in read_provenance((out / name).read_text())["command"]


def test_a_failed_fit_is_recorded_reported_and_retried_on_request(tmp_path, monkeypatch):
    def failing(function, study, args, unit):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(harness.units, "in_fresh_process", failing)
    out = tmp_path / "stopping"
    argv = ["--quick", "--seeds", "0", "--max-layers", "2", "--out", str(out)]
    assert bench_stopping.main(argv) == 1
    assert "Failed fits (left out): 1" in (out / "stopping.md").read_text()
    monkeypatch.setattr(harness.units, "in_fresh_process", lambda function, *args: function(*args))
    assert bench_stopping.main([*argv, "--retry-failed"]) == 0
    assert [r["status"] for r in read_records(out)] == ["failed", "ok"]


def test_params_the_study_sets_itself_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench_stopping.main(["--quick", "--params", '{"min_gain_se": 1}', "--out", str(tmp_path)])
    assert exit_info.value.code == 2 and "every layer is grown" in capsys.readouterr().err
