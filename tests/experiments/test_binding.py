"""Results bound to their data and settings: hashes, what resumes, what is moved aside."""

import json
from dataclasses import replace

import numpy as np

from mddf.datasets import load_dataset
from mddf.experiments.methods import default_registry
from mddf.experiments.registry import BuildContext
from mddf.experiments.runbook import Task, bound_records, unfinished
from mddf.experiments.store import (
    Binding,
    ResultStore,
    content_sha256,
    dataset_sha256,
    latest_bound,
    matches,
    method_settings,
    new_record,
    run_settings,
    set_aside_stale,
    settings_sha256,
)

CTX = BuildContext(seed=0, n_jobs=1, profile="quick", n_features=4, n_classes=3)


def test_a_datasets_hash_follows_its_content():
    iris = load_dataset("iris")
    assert dataset_sha256(iris) == dataset_sha256(load_dataset("iris"))
    changed = iris.X_train.copy()
    changed[0, 0] += 1
    assert dataset_sha256(replace(iris, X_train=changed)) != dataset_sha256(iris)
    relabelled = replace(iris, y_train=np.roll(iris.y_train, 1))
    assert dataset_sha256(relabelled) != dataset_sha256(iris)


def test_a_user_files_hash_is_its_sha256():
    iris = load_dataset("iris")
    assert dataset_sha256(replace(iris, extra={"user_data": {"sha256": "ab" * 32}})) == "ab" * 32


def test_the_settings_hash_follows_the_methods_parameters_not_its_seed_or_threads():
    registry = default_registry()
    rf = registry.get("RF-400")

    def sha(spec, ctx=CTX, **options):
        return settings_sha256(
            run_settings(
                **{"protocol": "practitioner", "task": "classification", "profile": "quick", "n_folds": 5, **options},
                method=method_settings(spec, ctx),
            )
        )

    assert sha(rf) == sha(rf, replace(CTX, seed=7, n_jobs=-1))
    assert sha(rf) != sha(rf, replace(CTX, profile="paper"))  # 400 trees instead of 40
    assert sha(rf) != sha(rf, n_folds=3)
    assert sha(rf) != sha(rf, reading={"target": "y", "drop": ["id"]})
    assert sha(rf) != sha(registry.get("HGB-es"))
    settings = method_settings(registry.get("XGBoost-es"), CTX)
    assert settings["estimator"]["class"] == "mddf.experiments.early_stopped.EarlyStopped"
    inner = settings["estimator"]["params"]["estimator"]
    assert inner["params"]["n_estimators"] == 10 and "random_state" not in inner["params"]


def record(key, dataset, method, data, settings, status="ok"):
    return {
        "key": key,
        "dataset": dataset,
        "method": method,
        "status": status,
        "data_sha256": data,
        "test_sha256": None,
        "settings_sha256": settings,
    }


def task(dataset, method, seed, data="d1", settings="s1"):
    return Task(dataset, method, seed, protocol="practitioner", binding=Binding(data, settings))


def test_records_of_other_data_or_settings_are_moved_aside_and_the_matching_ones_kept(tmp_path):
    store = ResultStore(tmp_path / "results.jsonl")
    old = [
        record(task("my", "RF", 0).key, "my", "RF", "d0", "s1"),  # the file before it was edited
        record(task("my", "RF", 1).key, "my", "RF", "d0", "s1"),
        record(task("other", "RF", 0).key, "other", "RF", "x", "s1"),  # another dataset: untouched
    ]
    for r in old:
        store.append(r)
    lines = []
    tasks = [task("my", "RF", 0), task("my", "RF", 1)]
    (tmp_path / "table.md").write_text("the table of the old records")
    aside = set_aside_stale(store, tasks, lines.append, made=["table.md", "figure.png"])
    assert aside.parent == tmp_path / "old" and sorted(p.name for p in aside.iterdir()) == ["results.jsonl", "table.md"]
    assert [json.loads(x) for x in (aside / "results.jsonl").read_text().splitlines()] == old
    assert (aside / "table.md").read_text() == "the table of the old records" and not (tmp_path / "table.md").exists()
    assert store.records() == old[2:]
    assert lines == [
        f"{store.path} held 2 result(s) of other data or settings (my: data sha256 d0, now d1); moved results.jsonl, "
        f"table.md to {aside}/ and kept the 1 record(s) that match"
    ]
    assert [t.key for t in tasks if t.key in {r["key"] for r in unfinished(tasks, store)}] == [t.key for t in tasks]


def test_a_folder_of_one_tables_results_sets_aside_those_of_another_table(tmp_path):
    store = ResultStore(tmp_path / "results.jsonl")
    other = record(task("eu", "RF", 0).key, "eu", "RF", "x", "s1")
    store.append(other)
    lines = []
    assert set_aside_stale(store, [task("my", "RF", 0)], lines.append) is None  # a suite's folder keeps it
    aside = set_aside_stale(store, [task("my", "RF", 0)], lines.append, alone=True)
    assert store.records() == [] and (aside / "results.jsonl").read_text().count("\n") == 1
    assert lines == [
        f"{store.path} held 1 result(s) of other data or settings (other tables: eu); moved results.jsonl to {aside}/ "
        "and kept the 0 record(s) that match"
    ]


def test_a_run_of_other_settings_is_stale_and_one_of_the_same_resumes(tmp_path):
    store = ResultStore(tmp_path / "results.jsonl")
    same, other = task("my", "RF", 0), task("my", "mdDF", 0)
    store.append(record(same.key, "my", "RF", "d1", "s1"))
    store.append(record(other.key, "my", "mdDF", "d1", "s0"))
    lines = []
    set_aside_stale(store, [same, other], lines.append)
    assert "other settings of mdDF" in lines[0]
    assert [r["key"] for r in bound_records([same, other], store)] == [same.key]
    assert set_aside_stale(store, [same, other], lines.append) is None and len(lines) == 1  # nothing stale now


def test_an_unbound_record_never_matches_a_bound_run():
    bound = Binding("d1", "s1")
    assert matches({"data_sha256": "d1", "test_sha256": None, "settings_sha256": "s1"}, bound)
    assert not matches({"key": "k", "status": "ok"}, bound)  # a record written before results were bound
    assert matches({"key": "k"}, None)


def test_the_content_hash_of_arrays_frames_and_labels_follows_their_values_not_their_objects():
    import pandas as pd

    def frame(colour="red", categories=("blue", "red")):
        return pd.DataFrame(
            {"colour": pd.Categorical([colour, "blue"], categories=list(categories)), "size": [1.0, np.nan]}
        )

    labels = np.array(["yes", "no"], dtype=object)
    assert content_sha256(frame(), labels) == content_sha256(frame(), np.array(["yes", "no"], dtype=object))
    assert content_sha256(frame(), labels) != content_sha256(frame("blue"), labels)
    assert content_sha256(frame(), labels) != content_sha256(frame(categories=("red", "blue")), labels)  # their codes
    assert content_sha256(frame(), labels) != content_sha256(frame(), labels[::-1].copy())
    assert content_sha256(frame(), None) != content_sha256(frame(), labels)
    assert content_sha256(frame().set_index(pd.Index([5, 6]))) != content_sha256(frame())  # the rows' labels
    assert content_sha256(pd.Series([1, 2], name="y")) != content_sha256(pd.Series([1, 2], name="z"))
    assert content_sha256(np.arange(4)) != content_sha256(np.arange(4).reshape(2, 2))


def test_what_resumes_is_each_keys_latest_record_of_its_data_and_settings():
    runs = {"a": Binding("d1", "s1"), "b": Binding("d1", "s1")}
    kept = record("a", "my", "RF", "d1", "s1")
    records = [
        kept,
        record("a", "my", "RF", "d1", "s0"),
        record("b", "my", "RF", "d0", "s1"),
        record("c", "o", "RF", "d1", "s1"),
    ]
    assert latest_bound(records, runs) == {"a": kept}  # a later record of other settings does not hide it
    assert latest_bound(records, {"c": None}) == {"c": records[-1]}  # an unbound run takes its latest record


def test_every_record_starts_with_the_same_fields_and_ends_with_its_stamp():
    record = new_record("k", "iris", "RF", 3, None, status="ok", binding=Binding("d", "s"), accuracy=0.9)
    assert list(record)[:11] == [
        "key", "dataset", "method", "seed", "fold", "status", "error", "data_sha256", "test_sha256", "settings_sha256",
        "accuracy",
    ]  # fmt: skip
    assert list(record)[-3:] == ["finished_at", "versions", "machine"] and record["error"] is None
    unbound = new_record("k", "iris", None, status="skipped", stamped=False, message="no files")
    assert unbound["data_sha256"] is None and "finished_at" not in unbound
    assert not matches(unbound, Binding("d", "s"))
