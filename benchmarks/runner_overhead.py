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

Examples
--------
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

from benchmarks.harness import Data, Dataset, Study, TrainTest, not_run
from mddf.experiments.runbook import run_seconds
from mddf.experiments.tables import markdown_table

TABLES = {"rows-400": 400, "rows-5000": 5_000}
TARGET = 1.5
WORKERS = (1, 2)


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
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
