"""The sweep executor: how the workers' OpenMP threads wait, and which records may set a run's tree budget."""

import os
import subprocess
import sys

import pytest

from mddf.experiments import executor
from mddf.experiments.executor import RunBook, Task, worker_environment
from mddf.experiments.store import ResultStore

PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}


def test_other_work_on_the_cores_a_run_needs_gets_passive_waiting():
    assert worker_environment(threads=2, busy_cores=1.0, cores=2) == PASSIVE
    assert worker_environment(threads=2, busy_cores=4.0, cores=2) == PASSIVE
    assert worker_environment(threads=None, busy_cores=1.0, cores=8) == PASSIVE  # every core wanted
    assert worker_environment(threads=-1, busy_cores=1.0, cores=8) == PASSIVE


def test_runs_at_the_same_time_that_need_more_cores_than_there_are_get_passive_waiting():
    assert worker_environment(threads=2, workers=2, busy_cores=0.0, cores=2) == PASSIVE
    assert worker_environment(threads=None, workers=2, busy_cores=0.0, cores=4) == PASSIVE
    assert worker_environment(threads=1, workers=2, busy_cores=0.0, cores=2) == {}


def test_free_cores_for_every_thread_keep_openmps_own_waiting():
    assert worker_environment(threads=2, busy_cores=0.05, cores=2) == {}
    assert worker_environment(threads=2, busy_cores=5.0, cores=8) == {}  # six cores free for two threads
    assert worker_environment(threads=1, busy_cores=1.2, cores=2) == {}


@pytest.mark.parametrize("busy, expected", [(3.9, PASSIVE), (0.0, {})])
def test_the_machine_is_measured_when_not_told(monkeypatch, busy, expected):
    monkeypatch.setattr(executor, "_busy_cores", lambda: busy)
    assert worker_environment(threads=2, cores=2) == expected


def test_busy_cores_is_a_measurement_of_this_machine():
    busy = executor._busy_cores(interval=0.05)
    assert busy is not None and busy >= 0.0


def test_busy_cores_counts_only_the_cores_this_process_may_use(monkeypatch):
    # cpu0 (usable) half busy over the interval, cpu1 (not usable) fully busy
    samples = iter(
        [
            "cpu  300 0 0 100 0 0 0 0 0 0\ncpu0 100 0 0 100 0 0 0 0 0 0\ncpu1 200 0 0 0 0 0 0 0 0 0\n",
            "cpu  600 0 0 150 0 0 0 0 0 0\ncpu0 150 0 0 150 0 0 0 0 0 0\ncpu1 450 0 0 0 0 0 0 0 0 0\n",
        ]
    )

    class FakeStat:
        def __init__(self, path):
            assert str(path) == "/proc/stat"

        def read_text(self):
            return next(samples)

    monkeypatch.setattr(executor, "Path", FakeStat)
    monkeypatch.setattr(executor.time, "sleep", lambda seconds: None)
    monkeypatch.setattr(executor.time, "process_time", lambda: 0.0)  # this process did nothing meanwhile
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert executor._busy_cores() == 0.5


def test_busy_cores_leave_out_this_processs_own_work(monkeypatch):
    # both cores busy over the interval, one of them with this process (its imports, reading the table)
    samples = iter(["cpu0 100 0 0 100 0\ncpu1 100 0 0 100 0\n", "cpu0 200 0 0 100 0\ncpu1 200 0 0 100 0\n"])
    clocks = {"process_time": iter([10.0, 10.5]), "perf_counter": iter([3.0, 3.5])}

    class FakeStat:
        def __init__(self, path):
            pass

        def read_text(self):
            return next(samples)

    monkeypatch.setattr(executor, "Path", FakeStat)
    monkeypatch.setattr(executor.time, "sleep", lambda seconds: None)
    for name, values in clocks.items():
        monkeypatch.setattr(executor.time, name, lambda values=values: next(values))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert executor._busy_cores() == 1.0


def test_more_threads_than_cores_need_no_measurement(monkeypatch):
    def measured():
        raise AssertionError("the machine was measured")

    monkeypatch.setattr(executor, "_busy_cores", measured)
    assert worker_environment(threads=2, workers=2, cores=2) == PASSIVE


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _started_pids():
    warm = executor._warm_start
    warm.thread.join()
    return [w.process.pid for w in warm.pool.idle]


def test_workers_started_early_that_no_sweep_adopts_are_stopped_when_the_block_ends():
    with executor.warm_workers(workers=1, n_jobs=1):
        (pid,) = _started_pids()
        assert not _gone(pid)
    assert _gone(pid)


def test_workers_started_early_for_other_settings_are_not_adopted():
    with executor.warm_workers(workers=1, n_jobs=1):
        (pid,) = _started_pids()
        assert executor._adopt_warm_workers(workers=2, n_jobs=1) is None
        assert _gone(pid)


@pytest.mark.slow
def test_a_sweep_runs_on_the_workers_started_early(tmp_path):
    from mddf.experiments.executor import execute, plan
    from mddf.experiments.methods import default_registry
    from mddf.experiments.store import ResultStore

    registry = default_registry()
    tasks = plan(["iris"], registry.select(["RF"]), [0, 1], n_classes={"iris": 3}, profile="quick")
    store = ResultStore(tmp_path / "results.jsonl")
    with executor.warm_workers(workers=1, n_jobs=1):
        started = _started_pids()
        execute(tasks, store, isolation="process", n_jobs=1, registry=registry, progress=False)
    records = store.records()
    assert [r["status"] for r in records] == ["ok", "ok"]
    assert {r["worker_pid"] for r in records} == set(started)


def test_an_mddf_run_of_other_data_sets_no_tree_budget(tmp_path):
    from mddf.experiments.binding import Binding
    from mddf.experiments.executor import RunBook, Task
    from mddf.experiments.store import ResultStore

    store = ResultStore(tmp_path / "results.jsonl")
    rf = Task("my", "RF", 0, tree_budget=True, binding=Binding("new", "s"))
    store.append({"key": rf.budget_key, "method": "mdDF", "status": "ok", "n_layers": 5, "data_sha256": "old"})
    assert "trees_k" not in RunBook([rf], store, progress=False).kwargs_for(rf)
    store.append({"key": rf.budget_key, "method": "mdDF", "status": "ok", "n_layers": 5, "data_sha256": "new"})
    assert RunBook([rf], store, progress=False).kwargs_for(rf)["trees_k"] == 5


@pytest.mark.parametrize("workers, cores, expected", [(1, 2, 2), (2, 2, 1), (2, 8, 4), (3, 2, 1)])
def test_runs_at_the_same_time_share_the_cores_unless_n_jobs_is_given(monkeypatch, workers, cores, expected):
    from mddf.experiments import cluster

    seen = {}
    monkeypatch.setattr(executor, "_core_count", lambda usable: cores)
    monkeypatch.setattr(cluster, "execute", lambda tasks, store, **options: seen.update(options))
    cluster.run_all([], None, workers=workers)
    assert seen["n_jobs"] == expected
    cluster.run_all([], None, workers=workers, n_jobs=-1)
    assert seen["n_jobs"] == -1


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_run_holds_the_openmp_pools_of_its_estimator_to_n_jobs(monkeypatch, n_jobs):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from threadpoolctl import threadpool_info

    from mddf.experiments.runner import run_one

    seen, fit = [], HistGradientBoostingClassifier.fit

    def recording_fit(self, X, y, **kwargs):
        seen.append({pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "openmp"})
        return fit(self, X, y, **kwargs)

    monkeypatch.setattr(HistGradientBoostingClassifier, "fit", recording_fit)
    record = run_one("iris", "HGB-es", 0, profile="quick", protocol="practitioner", n_jobs=n_jobs)
    assert record["status"] == "ok", record.get("error")
    assert seen and all(threads == {n_jobs} for threads in seen)


def test_an_idle_worker_told_to_end_exits_with_status_zero():
    import multiprocessing

    pool = executor._Pool(multiprocessing.get_context("spawn"), {})
    pool.prestart(1)
    (worker,) = pool.idle
    worker.conn.send(None)
    worker.process.join(timeout=executor.WORKER_EXIT_TIMEOUT)
    assert worker.process.exitcode == 0  # not killed after the timeout, nor failed on its way out
    pool.close()


FRESH_RUNNER = """
import os, sys
from mddf.experiments import executor

LOADED = ("mddf.experiments.runner", "mddf.forests", "xgboost")
REPORT = f"import os, sys; print(os.environ.get('OMP_WAIT_POLICY'), all(m in sys.modules for m in {LOADED!r}))"
for environment, workers in [({}, 1), ({"OMP_WAIT_POLICY": "PASSIVE"}, 2), ({}, 2)]:
    context = executor.worker_context(environment, workers)
    print(context.get_start_method(), end=" ", flush=True)
    worker = context.Process(target=exec, args=(REPORT,))
    worker.start()
    worker.join()
import sklearn  # sets its OpenMP variables, as the runner's own imports do while the server starts

print(executor.worker_context({"OMP_WAIT_POLICY": "PASSIVE"}, 2).get_start_method(), os.environ["KMP_INIT_AT_FORK"])
os.environ["MDDF_CHANGED"] = "1"
print(executor.worker_context({"OMP_WAIT_POLICY": "PASSIVE"}, 2).get_start_method())
print("runner environment:", os.environ.get("OMP_WAIT_POLICY"))
"""


@pytest.mark.skipif(
    "forkserver" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork server on this platform"
)
def test_several_workers_are_forks_of_a_server_that_imported_the_runs_code_in_their_environment():
    # in a fresh interpreter: this one's fork server, if any, was started by other tests
    unset = ("OMP_WAIT_POLICY", *executor._SET_BY_IMPORTS)
    environment = {k: v for k, v in os.environ.items() if k not in unset}
    done = subprocess.run(
        [sys.executable, "-c", FRESH_RUNNER], capture_output=True, text=True, timeout=120, env=environment
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "spawn None False",  # one worker: spawned, nothing imported
        "forkserver PASSIVE True",  # two: forked from the server, which set the OpenMP setting, then imported the
        # runs' code and the libraries of the methods
        "spawn None False",  # another environment than the server's
        "forkserver FALSE",  # variables the runs' imports set, in the server as in the runner, change nothing
        "spawn",  # the runner's environment changed since the server started
        "runner environment: None",  # the runner's own environment is left as it was
    ]


SERVER_ENDING = """
import os, signal
from multiprocessing import forkserver
from mddf.experiments import executor, exit_status

executor.worker_context({}, 2)
pid = forkserver._forkserver._forkserver_pid
print(executor._end_fork_server in exit_status._at_quick_exit, end=" ")
executor._end_fork_server()
_, status = os.waitpid(pid, 0)
print(os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
"""


@pytest.mark.skipif(
    "forkserver" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork server on this platform"
)
def test_a_command_ending_at_once_ends_the_fork_server_it_started_instead_of_leaving_it_to_its_teardown():
    done = subprocess.run([sys.executable, "-c", SERVER_ENDING], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True"]  # registered with exit_now; ends the server with SIGTERM


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
    mddf = Task("d", executor.BUDGET_METHOD, 0, fold=0)
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
