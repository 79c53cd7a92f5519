"""The plan of a sweep and its book: which run starts next, and which records may set a run's tree budget."""

from mddf.experiments.runbook import BUDGET_METHOD, RunBook, Task
from mddf.experiments.store import Binding, ResultStore


def test_an_mddf_run_of_other_data_sets_no_tree_budget(tmp_path):
    store = ResultStore(tmp_path / "results.jsonl")
    rf = Task("my", "RF", 0, tree_budget=True, binding=Binding("new", "s"))
    store.append({"key": rf.budget_key, "method": "mdDF", "status": "ok", "n_layers": 5, "data_sha256": "old"})
    assert "trees_k" not in RunBook([rf], store, progress=False).kwargs_for(rf)
    store.append({"key": rf.budget_key, "method": "mdDF", "status": "ok", "n_layers": 5, "data_sha256": "new"})
    assert RunBook([rf], store, progress=False).kwargs_for(rf)["trees_k"] == 5


def test_each_fold_runs_its_slowest_methods_first_once_timed_so_that_the_workers_end_together(tmp_path):
    fold = {f: [Task("d", m, 0, fold=f) for m in ("quick", "slow", "middling")] for f in (0, 1)}
    book = RunBook([*fold[0], *fold[1]], ResultStore(tmp_path / "results.jsonl"), progress=False)
    assert book.next_ready() == fold[0][0]  # nothing timed yet: plan order
    for task, seconds in zip(fold[0], (0.1, 2.0, 0.5)):
        book.start(task)
        book.finish(task, {"key": task.key, "status": "ok", "total_seconds": seconds - 0.1, "predict_seconds": 0.1})
    order = []
    while (task := book.next_ready()) is not None:
        book.start(task)
        order.append(task.method)
    assert order == ["slow", "middling", "quick"]


def test_a_later_fold_waits_for_the_first_ones_runs_whatever_their_seconds(tmp_path):
    tasks = [Task("d", "quick", 0, fold=0), Task("d", "slow", 0, fold=1)]
    book = RunBook(tasks, ResultStore(tmp_path / "results.jsonl"), progress=False)
    book.seconds = {"quick": [0.1], "slow": [5.0]}
    assert book.next_ready() == tasks[0]


def test_a_run_with_a_tree_budget_waits_until_its_mddf_run_has_finished(tmp_path):
    rf = Task("d", "RF", 0, fold=0, tree_budget=True)
    mddf = Task("d", BUDGET_METHOD, 0, fold=0)
    assert rf.budget_key == mddf.key
    book = RunBook([rf, mddf], ResultStore(tmp_path / "results.jsonl"), progress=False)
    assert book.next_ready() == mddf  # the RF run waits, pending
    book.start(mddf)
    assert book.next_ready() is None  # and waits while mdDF runs
    book.finish(mddf, {"key": mddf.key, "status": "ok", "n_layers": 3})
    assert book.next_ready() == rf
    assert book.kwargs_for(rf)["trees_k"] == 3
    alone = RunBook([rf], ResultStore(tmp_path / "other.jsonl"), progress=False)
    assert alone.next_ready() == rf  # an mdDF run outside the plan sets no wait


def test_after_a_resume_the_bar_and_its_estimate_count_the_runs_left(tmp_path, monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the bar is drawn on a terminal only
    tasks = [Task("d", "RF", seed) for seed in range(5)]
    store = ResultStore(tmp_path / "results.jsonl")
    for task in tasks[:2]:
        store.append({"key": task.key, "method": "RF", "status": "ok"})
    said = []
    book = RunBook(tasks, store, log=said.append)
    assert said == [f"resuming: 2 of 5 runs already finished in {store.path}"]
    assert book.bar.total == 3 and book.bar.n == 0  # tqdm's remaining time is (total - n) / its rate
    book.close()
