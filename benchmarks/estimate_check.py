"""The estimate against the real time: real ``mddf benchmark`` sweeps, each with the estimate it said before its runs.

Each sweep (:data:`SWEEPS`) is one command run in a process of its own, from a new output folder, timed as a whole:
the practitioner protocol on tables of the real-data suites of different sizes (``--data``, the default methods),
one of 50,000 rows, a table whose tree code numba has not compiled yet (``NUMBA_CACHE_DIR`` a new empty folder:
the first use after an install), and the README's first command (``scripts/run_uci.py``: the papers' protocol on
scikit-learn's bundled datasets), with the cache as it is and cold. The estimate is the one the command computed
before its first run (:func:`mddf.experiments.cost_estimate.estimate`, which its line on stderr rounds, kept
exactly by a wrapper in the child process); the record holds it, its first-use compile seconds and the kinds it
counted cold, the line, the wall seconds, their ratio (wall over estimate), the runs and their recorded seconds,
the machine's load average before and after (``os.getloadavg``), and whether the sweep's tables are among those
the cost model was fitted on (``in_fit``). The target: every ratio within 2x either way (0.5 to 2).

The tables are read from the suites' folders (:mod:`benchmarks.realdata`: ``$MDDF_REALDATA``,
``$MDDF_REALDATA_BROAD``, ``$MDDF_REALDATA_MORE``); a sweep whose table is not there is skipped, with the reason.
A synthetic table of 50,000 rows (:func:`benchmarks.runner_overhead.table_frame`: numeric columns with missing
values, a text column, two classes) needs no suite. Measure on a quiet machine: a loaded one slows the runs, not the
estimate. ``--quick``: one sweep of 400 synthetic rows, two quick methods, the smoke test.

Each sweep's record is appended to ``results.jsonl`` in ``--out`` (default ``results/estimate_check``) as soon as it
ends; a rerun resumes from the records bound to the sweep's command, table and cost model (a refit runs them again),
and the page refuses a record whose ratio is not its wall time over its estimate. ``estimate_check.md`` (and
``.csv``): each sweep's estimate against its wall time, and the error, the median and the worst ratio.

Examples
--------
python -m benchmarks.estimate_check
python -m benchmarks.estimate_check --datasets glass,wvsimmig,readme --rounds 1
python -m benchmarks.estimate_check --quick
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

from benchmarks.harness import Data, Dataset, Study, TrainTest, not_run
from mddf.experiments.runbook import run_seconds
from mddf.experiments.tables import markdown_table

ROOT = Path(__file__).resolve().parents[1]
COST_MODEL = ROOT / "experiments" / "cost_model.json"
#: The ratio (wall over estimate) the estimate is to be within, either way.
TARGET = 2.0
#: The practitioner protocol's sweeps: ``{name: (table, suite, extra arguments, cold cache)}``; ``table`` a number:
#: a synthetic table of that many rows. The "more" suite's tables were not in the cost model's fit; the others were.
TABLE_SWEEPS = {
    "glass": ("glass", "more", (), False),
    "olive": ("olive", "realdata", (), False),
    "titanic-cold": ("titanic", "realdata", ("--folds", "2", "--seeds", "1"), True),
    "wage": ("wage", "broad", (), False),
    "flchain": ("flchain", "realdata", ("--seeds", "1"), False),
    "mlbleague": ("mlbleague", "more", ("--folds", "2", "--seeds", "1"), False),
    "wvsimmig": ("wvsimmig", "broad", ("--folds", "2", "--seeds", "1"), False),
    "movielens": ("movielens", "more", ("--folds", "2", "--seeds", "1"), False),
    "flightcarrier": ("flightcarrier", "broad", ("--folds", "2", "--seeds", "1"), False),
    "synthetic-50k": (50_000, None, ("--folds", "2", "--seeds", "1"), False),
    "quick": (400, None, ("--methods", "Baseline,HGB-es", "--folds", "2", "--seeds", "1"), False),
}
#: The README's first command, with numba's cache as it is, and cold.
README_SWEEPS = {"readme": False, "readme-cold": True}
#: What a record of a sweep holds, checked when the page reads it back.
FIELDS = ("estimate_s", "compile_s", "cold", "wall_s", "ratio", "command", "in_fit", "load_before", "load_after")
#: The child process: ``python -c CHILD OUT_JSON ARGV...`` runs the command (``mddf`` and its arguments, or a script
#: path and its arguments) and writes the first estimate it computed to ``OUT_JSON``.
CHILD = r"""
import json, runpy, sys
from mddf.experiments import cost_estimate
out, argv = sys.argv[1], sys.argv[2:]
first = []
estimate = cost_estimate.estimate

def kept(*args, **kwargs):
    found = estimate(*args, **kwargs)
    if not first:
        first.append(found)
        fields = {"estimate_s": found.seconds, "compile_s": found.compile, "cold": list(found.cold),
                  "runs": found.runs, "unmodelled": found.unmodelled, "workers": found.workers,
                  "by_method": {f"{m} ({g})": s for (m, g), s in found.by_method.items()}}
        open(out, "w").write(json.dumps(fields))
    return found

cost_estimate.estimate = kept
if argv[0] == "mddf":
    from mddf.experiments import cli
    sys.argv = argv
    sys.exit(cli.console_main())
sys.argv = argv
runpy.run_path(argv[0], run_name="__main__")
"""


def table_path(name: str, suite: str) -> tuple[Path, str, str]:
    """The file of a suite's table, its target column and its task (a ``RealDataError`` when the suite is absent)."""
    from benchmarks.realdata import folder_manifest, home

    folder = home(None, suite)
    entry = next(e for e in folder_manifest(folder) if e["name"] == name)
    return folder / entry["file"], entry["target"], entry["task"]


def sweep_command(name: str, out: Path, work: Path) -> tuple[list, str, bool, bool]:
    """``(command after the interpreter, the command as shown, cold cache, in the cost model's fit)`` of sweep
    ``name``, writing in ``out``; a synthetic table is written in ``work``."""
    if name in README_SWEEPS:
        cold = README_SWEEPS[name]
        shown = "NUMBA_CACHE_DIR=<empty> " * cold + "python scripts/run_uci.py"
        return [str(ROOT / "scripts" / "run_uci.py"), "--out", str(out)], shown, cold, True
    table, suite, extra, cold = TABLE_SWEEPS[name]
    if suite is None:
        from benchmarks.runner_overhead import write_table

        path, target = write_table(work / f"synthetic-{table}.csv", table), "label"
    else:
        path, target, _ = table_path(table, suite)
    shown = f"{'NUMBA_CACHE_DIR=<empty> ' * cold}mddf benchmark --data {path.name} --target {target} {' '.join(extra)}"
    command = ["mddf", "benchmark", "--data", str(path), "--target", target, *extra, "--out", str(out)]
    return command, shown.strip(), cold, suite not in (None, "more")


def run_sweep(name: str) -> dict:
    """Run sweep ``name`` in a fresh process and output folder (a new empty numba cache when it is cold): the
    record's fields."""
    work = Path(tempfile.mkdtemp(prefix="mddf-estimate-check-"))
    try:
        out, estimate_file = work / "out", work / "estimate.json"
        command, shown, cold, in_fit = sweep_command(name, out, work)
        env = {**os.environ, **({"NUMBA_CACHE_DIR": str(work / "numba-cache")} if cold else {})}
        load = os.getloadavg()
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(estimate_file), *command], env=env, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        if done.returncode != 0 or not estimate_file.is_file():
            raise RuntimeError(f"sweep {name} exited {done.returncode} (estimate said: "
                               f"{estimate_file.is_file()}):\n{done.stderr[-3000:]}")  # fmt: skip
        said = [line for line in done.stderr.splitlines() if line.startswith(("estimated time", "no estimate"))]
        found = json.loads(estimate_file.read_text())
        records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    runs = [r for r in records if r.get("method") and r.get("status") == "ok"]
    recorded = {}
    for r in runs:
        recorded[r["method"]] = recorded.get(r["method"], 0.0) + run_seconds(r)
    return {
        **found,
        "wall_s": wall,
        "ratio": wall / found["estimate_s"],
        "line": said[0] if said else None,
        "recorded_s": sum(recorded.values()),
        "recorded_by_method": recorded,
        "n_runs": len(runs),
        "cold_cache": cold,
        "in_fit": in_fit,
        "command": shown,
        "load_before": list(load),
        "load_after": list(os.getloadavg()),
    }


def fit(ctx, *rows) -> dict:
    result = run_sweep(ctx.dataset.name)
    if not ctx.options.quiet:
        print(f"{ctx.dataset.name}: {result['wall_s']:.0f} s against {result['estimate_s']:.0f} s", file=sys.stderr)
    return result


def missing_table(ctx, done) -> str | None:
    """Why sweep ``ctx.dataset`` cannot run here (its suite's folder absent), or None."""
    from benchmarks.realdata import RealDataError

    table, suite, *_ = TABLE_SWEEPS.get(ctx.dataset.name, (None, None))
    try:
        suite is None or table_path(table, suite)
    except RealDataError as exc:
        return str(exc)
    return None


def digest(ctx) -> str:
    """What a sweep's record is bound to: its definition, its table's file, and the cost model that estimated it."""
    name = ctx.dataset.name
    spec = TABLE_SWEEPS.get(name) or ("readme", README_SWEEPS[name])
    sha = hashlib.sha256(json.dumps([name, spec]).encode() + COST_MODEL.read_bytes())
    if name in TABLE_SWEEPS and spec[1] is not None:
        sha.update(table_path(spec[0], spec[1])[0].read_bytes())
    return sha.hexdigest()


def within(ratio: float) -> bool:
    """Whether a ratio of wall over estimate is within :data:`TARGET` either way."""
    return 1 / TARGET <= ratio <= TARGET


def checked(record: dict) -> dict:
    """``record`` when it holds :data:`FIELDS` and its ratio is its wall seconds over its estimate; else an error."""
    lacking = [f for f in FIELDS if f not in record]
    if lacking or not math.isclose(record["ratio"], record["wall_s"] / record["estimate_s"], rel_tol=1e-9):
        why = f"lacks {', '.join(lacking)}" if lacking else "its ratio is not its wall seconds over its estimate"
        raise SystemExit(f"the record of sweep {record.get('dataset')!r} {why}; run that sweep again")
    return record


def error(ratios) -> tuple[float, float]:
    """``(median, worst)`` of ratios of real over estimated time, the worst the farthest from 1 either way."""
    return statistics.median(ratios), max(ratios, key=lambda r: abs(math.log(r)))


def page(results) -> str:
    """Each sweep's estimate against its wall time, the ratio, the load; the error (median and worst ratio) and the
    share within the target."""
    head = ["sweep", "command", "in the fit", "cold kinds", "estimate s", "of it compile s", "wall s", "ratio",
            f"within {TARGET:g}x", "load before, after"]  # fmt: skip
    rows, ratios = [], []
    for r in (checked(r) for r in results.records if r.get("status") == "ok"):
        ratios.append(r["ratio"])
        cells = [r["dataset"], f"`{r['command']}`", "yes" if r["in_fit"] else "no", ", ".join(r["cold"]) or "-"]
        cells += [f"{r['estimate_s']:.0f}", f"{r['compile_s']:.0f}", f"{r['wall_s']:.0f}", f"{r['ratio']:.2f}"]
        cells += ["yes" if within(r["ratio"]) else "no", f"{r['load_before'][0]:.1f}, {r['load_after'][0]:.1f}"]
        rows.append(cells)
    summary = ""
    if ratios:
        median, worst = error(ratios)
        summary = (f"\nThe error (real over estimated time): median {median:.2f}, worst {worst:.2f}; "
                   f"{sum(map(within, ratios))} of {len(ratios)} sweeps within {TARGET:g}x.\n")  # fmt: skip
    return "\n".join(markdown_table(head, rows)) + "\n" + summary + not_run(results)


def _nothing(ctx):
    return Data(None, None)


SWEEPS = (*TABLE_SWEEPS, *README_SWEEPS)
STUDY = Study(
    "estimate_check",
    __doc__,
    datasets=[Dataset(name, _nothing, digest=digest) for name in SWEEPS],
    methods={"mddf benchmark": lambda ctx: None},
    protocol=TrainTest(seeds=(0,)),
    default_datasets=[name for name in SWEEPS if name != "quick"],
    quick={"datasets": ["quick"]},
    skip=missing_table,
    fit=fit,
    table=page,
    rows=lambda results: [{k: v for k, v in r.items() if k != "learner"} for r in results.records],
    report="estimate_check",
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
