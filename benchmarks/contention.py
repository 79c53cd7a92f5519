"""Nested threads: how much a cascade with a HistGradientBoosting predictor slows beside busy processes.

A cascade fitted with ``n_jobs=k`` should never run more than ``k`` busy threads, counting the OpenMP pools of
its members and predictor (:mod:`mddf._runtime.threads`). Where it ran more, the OpenMP barriers of
HistGradientBoosting waited for threads the system had descheduled, and beside other work such a fit slowed far
more than the plain cascade. This study fits both on one synthetic table, each fit in a fresh process (numba's
cache warm, a small warm-up fit first), on a quiet machine and beside ``--busy`` processes that spin on the
cores, and reports each configuration's *slowdown* (busy over quiet wall seconds, medians over the rounds) and
the slowdown of the predictor configuration over the plain cascade's (the target: at most 1.5).

The table (``--rows`` rows, default 5,000): 16 numeric columns (``make_classification``, 3 classes) and 2
category columns (pandas ``category``, 12 and 30 levels, one of them informative). Configurations
(:data:`CONFIGURATIONS`): ``plain``, the default ``MDDFClassifier(n_jobs=2)``, and ``hgb-auto``,
``MDDFClassifier(predictor="hgb", predictor_input="auto", n_jobs=2)``. ``--baseline DIR`` adds both fitted by
the mddf of another checkout (``plain@base``, ``hgb-auto@base``), in the same rounds: the same measure before
and after a change, in one run. Rounds alternate the conditions and rotate the configurations.

``--runner W`` measures the same through the benchmark runner: each fit is the command ``mddf benchmark --data
<the table as a CSV> --target y --methods <mdDF or mdDF-hgb-auto> --folds W --workers W --seeds 1`` (W runs at
once, each in a worker process whose thread pools the runner limits), timed as a whole, its wall seconds the
measure.

``<out>/contention.md``: wall seconds per configuration and condition, the slowdowns and their ratio.

Examples
--------
python -m benchmarks.contention --rounds 3
python -m benchmarks.contention --rounds 3 --baseline ../mddf-before
python -m benchmarks.contention --rounds 3 --runner 2 --out results/contention-runner
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.harness import Data, Dataset, Study, TrainTest
from mddf.experiments.tables import markdown_table

ROOT = Path(__file__).resolve().parents[1]
#: name -> MDDFClassifier parameters (besides ``n_jobs`` and ``random_state``).
CONFIGURATIONS = {"plain": {}, "hgb-auto": {"predictor": "hgb", "predictor_input": "auto"}}
CONDITIONS = ("quiet", "busy")
#: ``--quick``: the table's rows (a smoke test of the machinery, not a measure).
QUICK_ROWS = 400
#: The largest slowdown of ``hgb-auto`` over ``plain``'s that meets the target.
TARGET = 1.5

#: The table, built the same way in every process: ``frame`` and ``y`` of ``rows`` rows.
TABLE = r"""
import numpy as np, pandas as pd
from sklearn.datasets import make_classification
X, y = make_classification(rows, 16, n_informative=8, n_classes=3, random_state=0)
rng = np.random.default_rng(0)
frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(16)])
frame["city"] = pd.Categorical(rng.integers(0, 12, rows).astype(str))
levels = (y * 10 + rng.integers(0, 10, rows)) % 30  # informative: the class up to noise
frame["product"] = pd.Categorical(np.where(rng.random(rows) < 0.7, levels, rng.integers(0, 30, rows)).astype(str))
"""
#: What each fit's process runs: ``python -c CHILD ROWS N_JOBS PARAMS_JSON``; prints its seconds as JSON.
CHILD = (
    r"""
import json, sys, time
rows, n_jobs, params = int(sys.argv[1]), int(sys.argv[2]), json.loads(sys.argv[3])
"""
    + TABLE
    + r"""
from mddf import MDDFClassifier
MDDFClassifier(n_estimators=4, max_layers=2, n_jobs=n_jobs, random_state=0, **params).fit(frame[:300], y[:300])
start, cpu = time.perf_counter(), time.process_time()
model = MDDFClassifier(n_jobs=n_jobs, random_state=0, **params).fit(frame, y)
print(json.dumps({"wall": time.perf_counter() - start, "cpu": time.process_time() - cpu, "layers": model.n_layers_}))
"""
)
#: ``python -c WRITE_CSV ROWS PATH``: the table as a CSV file with its target ``y``, for ``--runner``.
WRITE_CSV = (
    r"""
import sys
rows, path = int(sys.argv[1]), sys.argv[2]
"""
    + TABLE
    + r"""
for column in ("city", "product"):  # labels a CSV reader keeps as text, so the runner sees category columns
    frame[column] = "c" + frame[column].astype(str)
frame.assign(y=y).to_csv(path, index=False)
"""
)
#: ``--runner``: the benchmark runner's method of each configuration.
RUNNER_METHODS = {"plain": "mdDF", "hgb-auto": "mdDF-hgb-auto"}
#: ``--runner``: what the runner runs, ``--workers`` runs at a time (one per fold of one seed).
RUNNER_ARGS = ("--seeds", "1", "--quiet")
#: A process that keeps one core busy.
SPIN = "while True: pass"


def _environment(source):
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")])}


def fit_once(source, rows, n_jobs, params):
    """Fit one configuration in a fresh process whose mddf is the checkout ``source``; its seconds."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(rows), str(n_jobs), json.dumps(params)],
        cwd=source, env=_environment(source), capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the fit in {source} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def runner_once(source, rows, workers, method):
    """Run ``mddf benchmark --workers`` on the table (a CSV) with one method of the runner, from the checkout
    ``source``, into a new output folder; the command's wall seconds and each run's own seconds (selection and fit)."""
    with tempfile.TemporaryDirectory(prefix="mddf-contention-") as folder:
        csv, out = Path(folder) / "table.csv", Path(folder) / "out"
        subprocess.run([sys.executable, "-c", WRITE_CSV, str(rows), str(csv)], check=True)
        command = [sys.executable, "-c", "from mddf.experiments.cli import main; raise SystemExit(main())"]
        command += ["benchmark", "--data", str(csv), "--target", "y", "--methods", method]
        command += ["--folds", str(workers), "--workers", str(workers), *RUNNER_ARGS, "--out", str(out)]
        start = time.perf_counter()
        done = subprocess.run(command, cwd=source, env=_environment(source), capture_output=True, text=True)
        wall = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"mddf benchmark in {source} failed:\n{done.stderr[-3000:]}")
        runs = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    mine = [r for r in runs if r.get("method") == method]
    if len(mine) != workers or any(r.get("status") != "ok" for r in mine):
        raise RuntimeError(f"mddf benchmark recorded {len(mine)} runs of {method}, not {workers} ok: {mine}")
    return {"wall": wall, "runs_s": sum(r["total_seconds"] for r in mine)}


def spinning(n):
    """Start ``n`` processes that spin on the cores; the caller stops them."""
    return [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(n)]


def rows(options):
    """The table's rows: ``--rows``, or :data:`QUICK_ROWS` with ``--quick``."""
    return QUICK_ROWS if options.quick else options.rows


def fit(ctx, X, y, X_test, y_test) -> dict:
    name, _, base = ctx.method.partition("@")
    source = Path(ctx.options.baseline).resolve() if base else ROOT
    busy = spinning(ctx.options.busy if ctx.dataset.name == "busy" else 0)
    try:
        time.sleep(0.5 if busy else 0)  # the spinners running before the fit starts
        if ctx.options.runner:
            record = runner_once(source, rows(ctx.options), ctx.options.runner, RUNNER_METHODS[name])
        else:
            record = fit_once(source, rows(ctx.options), ctx.options.n_jobs, CONFIGURATIONS[name])
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return {**record, "source": str(source), "load_average": os.getloadavg()[0]}


#: What a record's seconds are: the fit's (or the runner's command's) wall seconds; with ``--runner``, also the sum
#: of the seconds the runner gives the method's runs (selection and fit: no start-up, reading or compiling).
MEASURES = {"wall": "the wall seconds", "runs_s": "the runs' own seconds (summed over the runs)"}


def summary(records, measure="wall"):
    """``{method: {condition: median of measure}}`` over the rounds."""
    out = {}
    for method in dict.fromkeys(r["method"] for r in records):
        out[method] = {
            condition: statistics.median(
                r[measure] for r in records if r["method"] == method and r["dataset"] == condition
            )
            for condition in CONDITIONS
            if any(r["method"] == method and r["dataset"] == condition for r in records)
        }
    return out


def measure_section(records, measure) -> list:
    """One measure's table (per configuration: quiet, busy, slowdown) and the verdict on the slowdowns' ratio."""
    seconds = summary(records, measure)
    slowdown = {m: w["busy"] / w["quiet"] for m, w in seconds.items() if set(w) == set(CONDITIONS)}
    lines = [
        f"Median over the rounds of {MEASURES[measure]}:",
        "",
        *markdown_table(
            ["configuration", "quiet (s)", "busy (s)", "slowdown (busy / quiet)"],
            [
                [
                    m,
                    f"{w.get('quiet', float('nan')):.2f}",
                    f"{w.get('busy', float('nan')):.2f}",
                    f"{slowdown[m]:.2f}" if m in slowdown else "-",
                ]
                for m, w in seconds.items()
            ],  # fmt: skip
        ),
        "",
    ]
    for suffix in ("", "@base"):
        plain, hgb = slowdown.get("plain" + suffix), slowdown.get("hgb-auto" + suffix)
        if plain and hgb:
            ratio = hgb / plain
            which = "the baseline checkout" if suffix else "this checkout"
            verdict = "met" if ratio <= TARGET else "not met"
            lines.append(
                f"- {which}: hgb-auto slows {ratio:.2f} times as much as the plain cascade (target <= {TARGET}: "
                f"{verdict})."
            )
    return lines + [""]


def table(results) -> str:
    args = results.options
    runner = getattr(args, "runner", None)
    how = (
        f"through 'mddf benchmark --workers {runner}' ({runner} folds, a run each)"
        if runner
        else f"n_jobs={args.n_jobs}"
    )
    lines = [
        f"A {rows(args)}-row synthetic table with 2 category columns, {how}; quiet, and beside {args.busy} spinning "
        "processes.",
        "",
    ]
    for measure in MEASURES:
        if results.records and all(measure in r for r in results.records):
            lines += measure_section(results.records, measure)
    return "\n".join(lines).rstrip() + "\n"


def options(parser):
    parser.add_argument("--rows", type=int, default=5000, help="rows of the table (default: 5000)")
    parser.add_argument("--busy", type=int, default=4, help="spinning processes beside the busy fits (default: 4)")
    parser.add_argument("--baseline", help="another checkout whose mddf is fitted too (plain@base, hgb-auto@base)")
    parser.add_argument(
        "--runner",
        type=int,
        metavar="WORKERS",
        help="fit through 'mddf benchmark --workers WORKERS' (one run per fold, WORKERS folds) instead",
    )


def methods(args):
    names = list(CONFIGURATIONS) + ([f"{name}@base" for name in CONFIGURATIONS] if args.baseline else [])
    return {name: (lambda ctx: None) for name in names}


def _nothing(ctx):
    return Data(None, None, None, None)


STUDY = Study(
    "contention",
    __doc__,
    datasets=[Dataset(condition, _nothing) for condition in CONDITIONS],
    methods=methods,
    protocol=TrainTest(seeds=(0,)),
    quick={"datasets": ["quiet"], "methods": ["plain"]},
    options=options,
    settings=lambda options: {
        "rows": rows(options),
        "busy": options.busy,
        "baseline": options.baseline,
        "runner": options.runner,
    },
    fit=fit,
    table=table,
    report="contention",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
