"""How close the main job's wall time is to its work: ``mddf benchmark --data`` against the seconds its runs record.

The target (docs/benchmarks/runner-overhead.md): ``mddf benchmark --data`` on a 400-row table with the default
methods, ``--n-jobs 2`` and one worker or two, takes at most 1.5 times the sum of its runs' own recorded seconds
(warm-up and compilation, selection, final fit and prediction, the probabilities of the log-loss included), divided
by the workers, which run in parallel; a 5,000-row table is measured beside it. For each table (:func:`write_table`:
numeric and text columns, missing values, two classes) and worker count, the command runs in a fresh output folder,
timed as a whole process; the ratio is its wall seconds over the sum of its records'
:data:`~mddf.experiments.runbook.RUN_SECONDS` (divided by the workers). With ``--baseline-python``, the same command
also runs under another installation's interpreter (an earlier commit's, say), in turn with this one, ``--rounds``
times; the page gives both ratios.

Examples
--------
python -m benchmarks.runner_overhead --rounds 2 --out results/runner_overhead
python -m benchmarks.runner_overhead --baseline-python /path/to/old/.venv/bin/python --rounds 2
"""

from __future__ import annotations

import argparse
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

from mddf.experiments.provenance import provenance
from mddf.experiments.runbook import run_seconds
from mddf.experiments.tables import markdown_table, write_markdown

TABLES = {"rows-400": 400, "rows-5000": 5_000}
TARGET = 1.5


def write_table(path: Path, n_rows: int, seed: int = 0) -> Path:
    """A CSV of ``n_rows`` rows: five numeric columns (some missing), a text column, and a two-class label."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 5))
    colour = rng.choice(["red", "green", "blue"], n_rows)
    label = np.where(X[:, 0] + (colour == "red") + 0.5 * rng.normal(size=n_rows) > 0.5, "yes", "no")
    X[rng.random(X.shape) < 0.05] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)]).assign(colour=colour, label=label)
    frame.to_csv(path, index=False)
    return path


def recorded_seconds(results: Path) -> float:
    """The sum of the runs' own seconds (:func:`~mddf.experiments.runbook.run_seconds`): warm-up (compilation),
    selection and final fit, prediction of the labels and of the probabilities (for the log-loss)."""
    return sum(run_seconds(json.loads(line)) for line in results.read_text().splitlines())


def timed_run(python: str, table: Path, workers: int, out: Path) -> dict:
    """One ``mddf benchmark --data`` in a fresh output folder: its wall seconds and its runs' recorded seconds."""
    # the entry point of the `mddf` command: console_main, or main in an earlier commit's installation without it
    entry = "from mddf.experiments import cli; sys.exit(getattr(cli, 'console_main', cli.main)())"
    command = [python, "-c", f"import sys; {entry}"]
    command += ["benchmark", "--data", str(table), "--target", "label"]
    command += ["--n-jobs", "2", "--workers", str(workers), "--out", str(out), "--quiet"]
    start = time.perf_counter()
    # from outside the repository, so that each interpreter imports its own installation, not the working copy's
    subprocess.run(command, check=True, capture_output=True, cwd=out.parent)
    wall = time.perf_counter() - start
    work = recorded_seconds(out / "results.jsonl")
    return {"wall_s": wall, "recorded_s": work, "ratio": wall / (work / workers)}


def measure(options) -> list[dict]:
    runners = {"today": sys.executable}
    if options.baseline_python:
        runners["baseline"] = options.baseline_python
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tables = {name: write_table(Path(tmp) / f"{name}.csv", n) for name, n in TABLES.items()}
        for r in range(options.rounds):
            order = list(runners) if r % 2 == 0 else list(reversed(runners))  # in turn, the order rotated
            for name, table in tables.items():
                for workers in (1, 2):
                    for runner in order:
                        out = Path(tmp) / f"{runner}-{name}-{workers}-{r}"
                        result = timed_run(runners[runner], table, workers, out)
                        rows.append({"runner": runner, "table": name, "workers": workers, "round": r, **result})
                        if not options.quiet:
                            print(f"{runner} {name} workers={workers}: ratio {result['ratio']:.2f}", file=sys.stderr)
    return rows


def page(rows) -> list[str]:
    head = ["table", "workers", "runner", "wall s", "recorded s", "ratio (median)", f"within {TARGET}x"]
    out = []
    for key in sorted({(r["table"], r["workers"], r["runner"]) for r in rows}):
        mine = [r for r in rows if (r["table"], r["workers"], r["runner"]) == key]
        ratio = statistics.median(r["ratio"] for r in mine)
        wall = statistics.median(r["wall_s"] for r in mine)
        work = statistics.median(r["recorded_s"] for r in mine)
        out.append([*map(str, key), f"{wall:.1f}", f"{work:.1f}", f"{ratio:.2f}", "yes" if ratio <= TARGET else "no"])
    return markdown_table(head, out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--baseline-python", help="another installation's python, timed in turn with this one")
    parser.add_argument("--out", type=Path, default=Path("results/runner_overhead"))
    parser.add_argument("--quiet", action="store_true")
    options = parser.parse_args(argv)
    rows = measure(options)
    options.out.mkdir(parents=True, exist_ok=True)
    (options.out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    shown = " ".join(["python -m benchmarks.runner_overhead", *(sys.argv[1:] if argv is None else argv)])
    write_markdown("\n".join(page(rows)) + "\n", options.out / "runner_overhead.md", provenance(command=shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
