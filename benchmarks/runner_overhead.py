"""How close the main job's wall time is to its work: ``mddf benchmark --data`` against the seconds its runs record.

The target (docs/benchmarks/runner-overhead.md): ``mddf benchmark --data`` on a 400-row table with the default
methods, ``--n-jobs 2`` and one worker or two, takes at most 1.5 times the sum of its runs' own recorded seconds
(warm-up and compilation, selection, final fit and prediction, the probabilities of the log-loss included), divided
by the workers, which run in parallel; a 5,000-row table is measured beside it. For each table (:func:`write_table`:
numeric and text columns, missing values, two classes), runner and worker count (the methods ``today/1``,
``today/2``), the command runs in a fresh output folder, timed as a whole process; the ratio is its wall seconds over
the sum of its records' :data:`~mddf.experiments.runbook.RUN_SECONDS` (divided by the workers). With
``--baseline-python``, the same command also runs under another installation's interpreter (an earlier commit's,
say: the methods ``baseline/1``, ``baseline/2``), in turn with this one, ``--rounds`` times, the order rotated each
round; the page gives both ratios (medians over the rounds).

``--small-runs [ROUNDS]`` measures the small runs' case instead (:func:`small_runs_report`): ``mddf benchmark --data``
timed as a whole process with :data:`SMALL_RUNS` runs of :data:`SPIN_SECONDS` each (an estimator that keeps one core
busy that long in its fit), one worker, whose wall time is to be at most 1.5 times the runs' own seconds; and the
same runs through :func:`~mddf.experiments.executor.execute`, whose seconds per run beyond the runs' own, once the
worker is up, are to be at most :data:`RUN_OVERHEAD_TARGET`.

Examples
--------
python -m benchmarks.runner_overhead --small-runs
python -m benchmarks.runner_overhead --rounds 2
python -m benchmarks.runner_overhead --baseline-python /path/to/old/.venv/bin/python --rounds 3
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
import pandas as pd
from sklearn.dummy import DummyClassifier

from benchmarks.harness import Data, Dataset, Study, TrainTest, not_run
from mddf.experiments.executor import execute
from mddf.experiments.registry import MethodSpec, Registry
from mddf.experiments.runbook import plan, run_seconds
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"rows-400": 400, "rows-5000": 5_000}
TARGET = 1.5
WORKERS = (1, 2)
#: The small-runs case: this many runs of :data:`SPIN_SECONDS` each; at most :data:`RUN_OVERHEAD_TARGET` seconds a run
#: beyond them once the worker is up.
SMALL_RUNS, SPIN_SECONDS, RUN_OVERHEAD_TARGET = 35, 0.25, 0.05


class SpinClassifier(DummyClassifier):
    """The majority class, after keeping one core busy for ``seconds`` in ``fit``: a run of a known length."""

    def __init__(self, seconds=SPIN_SECONDS):
        super().__init__(strategy="prior")
        self.seconds = seconds

    def fit(self, X, y, sample_weight=None):
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            pass
        return super().fit(X, y, sample_weight)


def spin_registry() -> Registry:
    """The one method of the small-runs case, ``Spin`` (:class:`SpinClassifier`)."""
    return Registry([MethodSpec("Spin", build_spin, ("sklearn.dummy", "DummyClassifier"))])


def build_spin(ctx, **params):
    """The :class:`SpinClassifier` of a run (the registry's builder)."""
    return SpinClassifier()


def spin_benchmark(argv) -> int:
    """``mddf benchmark`` with ``argv`` and the methods of :func:`spin_registry`: the command the small-runs case
    times, in a process of its own."""
    from mddf.experiments.cli import run_command

    return run_command("benchmark", argv, registry=spin_registry())


def small_runs_command(n_runs: int = SMALL_RUNS, python: str = sys.executable) -> dict:
    """``mddf benchmark --data`` (a 150-row table, ``--protocol paper``: its split, no baseline) with ``Spin`` and
    ``n_runs`` seeds, one worker, in a fresh process of ``python`` (whose installation of mddf runs it): its wall
    seconds, the runs' own seconds and their ratio."""
    with tempfile.TemporaryDirectory() as tmp:
        table, out = write_table(Path(tmp) / "spin.csv", 150), Path(tmp) / "out"
        argv = ["--data", str(table), "--target", "label", "--protocol", "paper", "--methods", "Spin"]
        argv += ["--seeds", str(n_runs), "--n-jobs", "1", "--workers", "1", "--out", str(out), "--quiet"]
        code = (
            "import sys; from benchmarks.runner_overhead import spin_benchmark; sys.exit(spin_benchmark(sys.argv[1:]))"
        )
        start = time.perf_counter()
        subprocess.run([python, "-c", code, *argv], check=True, capture_output=True, cwd=ROOT)
        wall = time.perf_counter() - start
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    if len(records) != n_runs or any(r["status"] != "ok" for r in records):
        raise RuntimeError(f"the small runs failed: {[r.get('error') for r in records if r['status'] != 'ok'][:1]}")
    work = sum(run_seconds(r) for r in records)
    return {"command_wall_s": wall, "command_recorded_s": work, "command_ratio": wall / work}


def small_runs_executor(n_runs: int = SMALL_RUNS, dataset: str = "iris") -> dict:
    """``n_runs`` runs of :class:`SpinClassifier` on ``dataset``'s split (seeds 0 ..) through
    :func:`~mddf.experiments.executor.execute` in one worker process, in a temporary store: the seconds until the
    first record came back (the worker's start, the machine's measurement and the first run) and the seconds per run
    beyond the runs' own after it."""
    registry = spin_registry()
    tasks = plan([dataset], list(registry), range(n_runs), n_classes={dataset: 3})
    arrivals = []
    with tempfile.TemporaryDirectory() as tmp:
        store = ResultStore(Path(tmp) / "results.jsonl")
        start = time.perf_counter()
        log = lambda text: arrivals.append(time.perf_counter()) if "Spin" in text else None  # noqa: E731
        execute(tasks, store, workers=1, n_jobs=1, registry=registry, log=log)
        records = store.records()
    work = [run_seconds(r) for r in records]
    per_run = (arrivals[-1] - arrivals[0] - sum(work[1:])) / (n_runs - 1)
    return {"first_s": arrivals[0] - start, "overhead_per_run_s": per_run}


def small_runs_report(rounds: int = 3) -> str:
    """The small-runs case ``rounds`` times (:func:`small_runs_command`, :func:`small_runs_executor`): a Markdown
    table of each round and the medians."""
    results = [{**small_runs_command(), **small_runs_executor()} for _ in range(rounds)]
    results.append({k: statistics.median(r[k] for r in results) for k in results[0]})
    head = ["round", "command wall s", "runs' own s", "ratio", "executor: first record s", "overhead per run ms"]
    keys = ("command_wall_s", "command_recorded_s", "command_ratio", "first_s")
    rows = [
        [
            str(i + 1) if i < rounds else "median",
            *(f"{r[k]:.2f}" for k in keys),
            f"{1000 * r['overhead_per_run_s']:.0f}",
        ]
        for i, r in enumerate(results)
    ]
    return "\n".join(markdown_table(head, rows)) + "\n"


def table_frame(n_rows: int, seed: int = 0) -> pd.DataFrame:
    """``n_rows`` rows: five numeric columns (some missing), a text column, and a two-class label."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 5))
    colour = rng.choice(["red", "green", "blue"], n_rows)
    label = np.where(X[:, 0] + (colour == "red") + 0.5 * rng.normal(size=n_rows) > 0.5, "yes", "no")
    X[rng.random(X.shape) < 0.05] = np.nan
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]).assign(colour=colour, label=label)


def write_table(path: Path, n_rows: int, seed: int = 0) -> Path:
    """:func:`table_frame` as a CSV file at ``path``."""
    table_frame(n_rows, seed).to_csv(path, index=False)
    return path


def recorded_seconds(results: Path) -> float:
    """The sum of the runs' own seconds (:func:`~mddf.experiments.runbook.run_seconds`) in a results file."""
    return sum(run_seconds(json.loads(line)) for line in results.read_text().splitlines())


def timed_run(python: str, table: Path, workers: int, out: Path, n_jobs: int = 2) -> dict:
    """One ``mddf benchmark --data`` in a fresh output folder: its wall seconds and its runs' recorded seconds."""
    # the entry point of the `mddf` command: console_main, or main in an earlier commit's installation without it
    entry = "from mddf.experiments import cli; sys.exit(getattr(cli, 'console_main', cli.main)())"
    command = [python, "-c", f"import sys; {entry}"]
    command += ["benchmark", "--data", str(table), "--target", "label"]
    command += ["--n-jobs", str(n_jobs), "--workers", str(workers), "--out", str(out), "--quiet"]
    start = time.perf_counter()
    # from outside the repository, so that each interpreter imports its own installation, not the working copy's
    subprocess.run(command, check=True, capture_output=True, cwd=out.parent)
    wall = time.perf_counter() - start
    work = recorded_seconds(out / "results.jsonl")
    return {"wall_s": wall, "recorded_s": work, "ratio": wall / (work / workers)}


def methods(options) -> dict:
    """``{runner/workers: its interpreter}``: this installation's, and the baseline's when given."""
    runners = {"today": sys.executable, "baseline": options.baseline_python}
    return {f"{name}/{w}": python for name, python in runners.items() if python for w in WORKERS}


def fit(ctx, frame, *rest) -> dict:
    """Time the command of the unit's runner and workers on its table, in a temporary folder."""
    runner, workers = ctx.method.split("/")
    with tempfile.TemporaryDirectory() as tmp:
        table = write_table(Path(tmp) / f"{ctx.dataset.name}.csv", len(frame))
        result = timed_run(methods(ctx.options)[ctx.method], table, int(workers), Path(tmp) / "out", ctx.n_jobs)
    if not ctx.options.quiet:
        print(f"{ctx.method} {ctx.dataset.name}: ratio {result['ratio']:.2f}", file=sys.stderr)
    return result


def page(results) -> str:
    """The medians over the rounds of every table, worker count and runner, against :data:`TARGET`."""
    head = ["table", "workers", "runner", "wall s", "recorded s", "ratio (median)", f"within {TARGET}x"]
    rows = []
    for dataset in results.datasets:
        for method in sorted(results.methods, key=lambda m: (m.split("/")[1], m.split("/")[0])):
            mine = results.of(dataset, method)
            if not mine:
                continue
            ratio, wall, work = (statistics.median(r[k] for r in mine) for k in ("ratio", "wall_s", "recorded_s"))
            runner, workers = method.split("/")
            rows.append(
                [
                    dataset,
                    workers,
                    runner,
                    f"{wall:.1f}",
                    f"{work:.1f}",
                    f"{ratio:.2f}",
                    "yes" if ratio <= TARGET else "no",
                ]
            )
    return "\n".join(markdown_table(head, rows)) + "\n" + not_run(results)


STUDY = Study(
    "runner_overhead",
    __doc__,
    datasets=[Dataset(name, lambda ctx, n=n: Data(table_frame(n), None)) for name, n in TABLES.items()],
    methods=methods,
    protocol=TrainTest(rounds=2),
    quick={"datasets": ["rows-400"], "methods": ["today/1"], "rounds": 1},
    options=lambda parser: parser.add_argument(
        "--baseline-python", help="another installation's python, timed in turn with this one"
    ),
    settings=lambda options: {"baseline_python": options.baseline_python},
    fit=fit,
    table=page,
    rows=lambda results: results.records,
    report="runner_overhead",
)


def main(argv=None):
    """The study (:data:`STUDY`), or with ``--small-runs [ROUNDS]`` the small-runs case, printed."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--small-runs"]:
        print(small_runs_report(int(argv[1]) if len(argv) > 1 else 3))
        return 0
    return STUDY.main(argv)


if __name__ == "__main__":
    sys.exit(main())
