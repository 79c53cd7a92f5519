"""The price rule's study: the designs are today's defaults plus one change each, and the rule reads the records
as written (docs/benchmarks/price.md)."""

import math

import pytest

from benchmarks import price


def _records(design_scores, default_scores, fit=(1.0, 2.0), predict=(1.0, 2.0), task="classification", table="t1"):
    """Records of one table: per fold the design's and today's default's score, fit and predict seconds."""
    design, default = ("mdDF-es", "mdDF") if task == "classification" else ("CascadeForest-50", "CascadeForest")
    metric = "accuracy" if task == "classification" else "r2"
    out = []
    for fold, (a, b) in enumerate(zip(design_scores, default_scores)):
        for method, score, f, p in ((design, a, fit[0], predict[0]), (default, b, fit[1], predict[1])):
            record = {"dataset": table, "method": method, "repeat": 0, "fold": fold, metric: score, "task": task}
            record.update(fit_s=f, predict_s=p, log_loss=0.3)
            out.append(record)
    return out


def test_every_design_is_todays_default_with_its_own_change():
    for name, params in (price.CLASSIFIERS | price.REGRESSORS).items():
        task = price.task_of(name)
        full = price.parameters(name)
        assert {k: v for k, v in full.items() if price.TODAY[task].get(k) != v} == params
    assert price.parameters("mdDF") == price.TODAY["classification"]


def test_a_design_half_as_dear_and_as_accurate_meets_the_rule():
    records = _records([0.90, 0.91, 0.92], [0.90, 0.91, 0.92], fit=(1.0, 2.0))
    verdict = price.judge(records, "classification", "mdDF-es", ["t1"])
    assert verdict["fit"] == 0.5 and verdict["predict"] == 0.5 and verdict["meets"]


def test_each_condition_fails_on_its_own():
    dear = price.judge(
        _records([0.9] * 3, [0.9] * 3, fit=(1.6, 2.0), predict=(1.2, 2.0)), "classification", "mdDF-es", ["t1"]
    )
    assert not dear["a"] and dear["b"] and not dear["meets"]  # 0.8x and 0.6x: neither at most 0.5
    worse = price.judge(_records([0.890, 0.889, 0.891], [0.900] * 3), "classification", "mdDF-es", ["t1"])
    assert not worse["b"] and not worse["d"]  # a point lower, beyond two SE on the table
    slightly = price.judge(_records([0.8995] * 3, [0.9] * 3), "classification", "mdDF-es", ["t1"])
    assert slightly["b"] and slightly["d"]  # 0.05 points: within 0.1, and within 0.5 on the table
    r2 = price.judge(
        _records([0.700, 0.699, 0.701], [0.703] * 3, task="regression"), "regression", "CascadeForest-50", ["t1"]
    )
    assert not r2["b"] and r2["d"]  # 0.003 R² lower on the suite; on the table within 0.005


def test_the_verdicts_put_the_designs_that_meet_the_rule_first_cheapest_first():
    class Results:
        def __init__(self, records):
            self.records = records

        def of(self, method=None):
            return [r for r in self.records if r["method"] == method]

    records = _records([0.9] * 3, [0.9] * 3, fit=(1.0, 2.0))
    cheaper = [dict(r, method="mdDF-oob-es") for r in _records([0.9] * 3, [0.9] * 3, fit=(0.5, 2.0))]
    dear = [dict(r, method="mdDF-vector") for r in _records([0.9] * 3, [0.9] * 3, fit=(3.0, 2.0), predict=(3.0, 2.0))]
    designs = [r for r in cheaper[::2] + dear[::2]]  # their own rows: the design's of each fold, not the default's
    found = price.verdicts(Results(records + designs), "classification")
    assert [v["design"] for v in found] == ["mdDF-oob-es", "mdDF-es", "mdDF-vector"]
    assert [v["meets"] for v in found] == [True, True, False]
    assert math.isclose(found[0]["fit"], 0.25)


@pytest.mark.parametrize("name", ["mdDF-vector", "CascadeForest-50-share"])
def test_each_design_binds_its_records_to_its_full_parameters(name):
    assert price.learner_settings(name) != price.learner_settings(price.DEFAULTS[price.task_of(name)])
    assert price.learner_settings("HGB-es") is None


def test_the_rf_report_gives_each_design_its_median_ratio_to_the_forest_of_the_same_round_and_its_peak():
    class Results:
        methods = ("mdDF", "RF-400")

        def __init__(self, records):
            self.records = records

        def of(self, dataset=None, method=None):
            return [r for r in self.records if r["dataset"] == dataset and method in (None, r["method"])]

    records = []
    for rnd, (fit, rf_fit) in enumerate(((8.0, 2.0), (9.0, 1.0), (30.0, 3.0))):  # ratios 4, 9 and 10: median 9
        for method, f, peak in (("mdDF", fit, 900.0 + rnd), ("RF-400", rf_fit, 300.0)):
            records.append(
                {"dataset": "letter", "method": method, "round": rnd, "fit_s": f, "predict_s": f / 10}
                | {"accuracy": 0.96, "peak_rss_mb": peak}
            )
    table = price.rf_report(Results(records))
    row = next(line for line in table.splitlines() if line.startswith("| letter | mdDF"))
    assert row.split(" | ")[2:] == ["96.00", "9.00x", "4.8x", "9.00x", "1.3x", "901", "300 |"]
    assert "adult" not in table  # no records: no row


def test_a_unit_against_the_forest_records_the_peak_memory_of_its_fit_and_prediction():
    class Context:
        def build(self):
            from sklearn.dummy import DummyClassifier

            return DummyClassifier()

        study = type("S", (), {"metrics_for": lambda self, dataset: ("accuracy",), "describe": None})()
        dataset = "letter"

    X, y = [[0.0], [1.0], [2.0]], [0, 1, 1]
    record = price.fit_with_peak_memory(Context(), X, y, X, y)
    assert record["peak_rss_mb"] > 10 and record["accuracy"] == pytest.approx(2 / 3)
