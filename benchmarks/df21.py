"""Same-run comparison of mdDF (k-fold and out-of-bag class vectors) with DF21 and a 400-tree random forest.

Methods, all with ``random_state`` = the seed and ``n_jobs`` = ``--n-jobs``: ``mdDF k-fold`` (``MDDFClassifier()``,
plus ``--params``), ``mdDF oob`` (``class_vectors="oob"``, plus ``--params``), ``RF400`` (the method registry's RF,
400 trees) and ``DF21``: deep-forest's ``CascadeForestClassifier`` with its defaults (plus ``--df21-params``), run
under the DF21 reference environment's interpreter (``bash benchmarks/setup_df21_env.sh`` creates it; found at
``--df21-python``, else ``$MDDF_DF21_PYTHON``, else ``.df21-venv/bin/python``) by ``benchmarks/df21_worker.py``,
which reads the same arrays from ``<out>/data/<dataset>.npz``. Without that environment DF21 is left out with a
message and the rest runs.

Datasets: letter, satimage, adult and yeast with their standard splits, as the loader's float32 features (adult's
categorical columns as ordinal codes, ``'?'`` a category of its own, so no value is NaN: DF21 takes only finite
input). Seeds 0, 1, 2 (yeast 0 to 4, its small test set moving more from seed to seed). ``--rounds`` interleaved
rounds fit every (dataset, seed, method) once each, the methods' order rotated by one from round to round; every
fit runs in a fresh process (DF21 in its own interpreter), so its time, peak memory and compiled code are its own.

``<out>/df21_comparison.md`` and ``.csv``: accuracy (mean ± standard error over seeds of each seed's mean over
rounds); fit and predict seconds and peak memory, medians over every (seed, round); layers kept per seed; and the
ratios to DF21 and RF400, computed pair by pair (the same dataset, seed and round) and summarised by their median.

Examples
--------
bash benchmarks/setup_df21_env.sh
python -m benchmarks.df21 --rounds 3
python -m benchmarks.df21 --datasets letter,adult --rounds 3 --out results/df21-letter-adult
python -m benchmarks.df21 --quick
"""

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np

from benchmarks.data import registry, split
from benchmarks.harness import Study, TrainTest, fit_and_score, load_data, not_run, say
from benchmarks.harness.report import number
from mddf.experiments.metrics import standard_error
from mddf.experiments.tables import markdown_table

ROOT = Path(__file__).resolve().parents[1]
#: Runs in DF21's own environment, which does not have mddf: a standalone script, not a module.
WORKER = ROOT / "benchmarks" / "df21_worker.py"
DATASETS = ("letter", "satimage", "adult", "yeast")
REFERENCES = ("DF21", "RF400")
QUICK_MDDF = {"n_estimators": 5, "max_layers": 2}
QUICK_DF21 = {"n_trees": 20, "max_layers": 2}


def df21_python(option=None) -> Path:
    """The DF21 environment's interpreter: ``option``, else ``$MDDF_DF21_PYTHON``, else ``.df21-venv/bin/python``."""
    return Path(option or os.environ.get("MDDF_DF21_PYTHON") or ROOT / ".df21-venv" / "bin" / "python")


def probe_df21(python: Path):
    """``(versions, "")`` when ``python`` runs the DF21 worker, else ``(None, why not)``."""
    if not python.exists():
        return None, f"no interpreter at {python}"
    try:
        done = subprocess.run([str(python), str(WORKER), "--probe"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{python} does not run: {exc}"
    if done.returncode != 0:
        return None, f"{python} cannot import deepforest: {(done.stderr.strip().splitlines() or ['(no message)'])[-1]}"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


def export_for_df21(data, path: Path) -> Path:
    """Write the arrays of ``data`` to ``path`` (.npz) for the DF21 worker; NaN is refused (DF21 rejects it)."""
    if path.exists():
        return path
    for what, X in (("training", data.X_train), ("test", data.X_test)):
        if not np.all(np.isfinite(X)):
            raise ValueError(f"the {what} features hold NaN or infinite values, which DF21 rejects")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(partial, X_train=data.X_train, y_train=data.y_train, X_test=data.X_test, y_test=data.y_test)
    partial.replace(path)
    return path


def fit_df21(ctx) -> dict:
    """Run the DF21 worker under the DF21 interpreter (a fresh process) and return its JSON."""
    o = ctx.options
    data = export_for_df21(load_data(ctx), o.out / "data" / f"{ctx.dataset.name}.npz")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        command = [
            str(o.python),
            str(WORKER),
            "--data",
            str(data),
            "--dataset",
            ctx.dataset.name,
            "--seed",
            str(ctx.seed),
        ]
        command += ["--n-jobs", str(o.n_jobs), "--params", json.dumps(o.df21), "--out", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"DF21 worker failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        result = json.loads(out.read_text())
    result["df21_versions"] = result.pop("versions", None)  # the DF21 environment's; "versions" are this process's
    return {k: v for k, v in result.items() if k not in ("dataset", "seed", "params")}


def mddf(**mode):
    def build(ctx):
        from mddf import MDDFClassifier

        params = {**(QUICK_MDDF if ctx.quick else {}), **mode, **ctx.options.mddf}
        return MDDFClassifier(n_jobs=ctx.n_jobs, random_state=ctx.seed, **params)

    return build


def fit(ctx, X, y, X_test, y_test):
    """DF21 in its own interpreter; the others fitted here (a fresh process), with their peak memory."""
    if ctx.method == "DF21":
        return fit_df21(ctx)
    record = fit_and_score(ctx, X, y, X_test, y_test)
    record["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return record


def describe(model, ctx, record):
    if not hasattr(model, "n_layers_"):
        return {}
    kept = model.train_history_[: model.n_layers_]
    return {
        "layers": int(model.n_layers_),
        "grown": len(model.train_history_),
        "model_mb": sum(h["model_bytes"] for h in kept) / 1e6,
    }


def summarise(records, datasets, methods) -> list:
    """One row per (dataset, method): the medians, the mean accuracy and the ratios to the references."""
    by_run = {(r["dataset"], r["method"], r["seed"], r["round"]): r for r in records}
    rows = []
    for dataset in datasets:
        for method in methods:
            runs = [r for r in records if r["dataset"] == dataset and r["method"] == method]
            if not runs:
                continue
            seeds = sorted({r["seed"] for r in runs})
            per_seed = [statistics.fmean(r["accuracy"] for r in runs if r["seed"] == s) for s in seeds]
            row = {
                "dataset": dataset,
                "method": method,
                "seeds": " ".join(map(str, seeds)),
                "rounds": len({r["round"] for r in runs}),
                "runs": len(runs),
                "accuracy": round(100 * statistics.fmean(per_seed), 3),
                "accuracy_se": round(100 * standard_error(per_seed), 3) if len(per_seed) > 1 else 0.0,
                "fit_s": round(statistics.median(r["fit_s"] for r in runs), 3),
                "predict_s": round(statistics.median(r["predict_s"] for r in runs), 3),
                "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in runs), 1),
                "layers": " ".join(
                    str(next(r.get("layers", "") for r in runs if r["seed"] == s)) for s in seeds
                ).strip(),
            }
            for reference in REFERENCES:
                for what in ("fit_s", "predict_s"):
                    ratios = [
                        r[what] / ref[what]
                        for r in runs
                        if (ref := by_run.get((dataset, reference, r["seed"], r["round"]))) and ref[what] > 0
                    ]
                    key = f"{what.removesuffix('_s')}_vs_{reference.lower()}"
                    row[key] = round(statistics.median(ratios), 3) if ratios and method != reference else ""
            rows.append(row)
    return rows


def table(results) -> str:
    """The comparison as Markdown tables (one per measure, then the ratios)."""
    rows = summarise(results.records, results.datasets, results.methods)
    by = {(r["dataset"], r["method"]): r for r in rows}
    lines = ["# mdDF against DF21 and RF400", "", note(results), ""]
    for title, key, fmt in (
        ("Test accuracy (%), mean ± standard error over seeds", "accuracy", "{:.2f} ± {:.2f}"),
        ("Fit seconds, median over seeds and rounds", "fit_s", "{:.2f}"),
        ("Predict seconds (test set), median over seeds and rounds", "predict_s", "{:.3f}"),
        ("Peak resident memory of the fit's process (MB), median", "peak_rss_mb", "{:.0f}"),
        ("Layers kept, per seed", "layers", "{}"),
    ):
        cells = [
            [
                d,
                *(
                    "" if (r := by.get((d, m))) is None else fmt.format(r[key], r["accuracy_se"])
                    for m in results.methods
                ),
            ]
            for d in results.datasets
        ]
        lines += [f"## {title}", "", *markdown_table(["dataset", *results.methods], cells), ""]
    ratios = ("fit_vs_df21", "predict_vs_df21", "fit_vs_rf400", "predict_vs_rf400")
    cells = [
        [r["dataset"], r["method"], *(number(r[k], 2, missing="") for k in ratios)]
        for r in rows
        if r["method"] not in REFERENCES
    ]
    lines += ["## Ratios, median over (seed, round) pairs fitted in the same round", ""]
    lines += markdown_table(
        ["dataset", "method", "fit / DF21", "predict / DF21", "fit / RF400", "predict / RF400"], cells
    )
    return "\n".join(lines) + not_run(results) + "\n"


def note(results) -> str:
    o, versions = results.options, results.options.df21_versions
    seeds = "; ".join(f"{d} {','.join(map(str, sorted({r['seed'] for r in results.of(d)})))}" for d in results.datasets)
    df21 = (
        f"deep-forest {versions.get('deep-forest')} under Python {versions.get('python')} (numpy {versions.get('numpy')}, "
        f"scikit-learn {versions.get('scikit-learn')}), parameters {json.dumps(o.df21) if o.df21 else 'defaults'}"
        if versions
        else "left out (no DF21 environment)"
    )
    return (
        f"Rounds: {o.rounds}, the methods' order rotated each round; every fit in a fresh process, n_jobs={o.n_jobs}. "
        f"Seeds: {seeds}. mdDF parameters: {json.dumps(o.mddf) if o.mddf else 'defaults'}; DF21: {df21}. Input: the "
        "loaders' float32 features, the same for every method (adult's categorical columns as ordinal codes, '?' its "
        "own category, no NaN)."
    )


def options(parser):
    parser.add_argument("--params", default="{}", help="JSON of MDDFClassifier parameters for both mdDF modes")
    parser.add_argument("--df21-params", default="{}", help="JSON of CascadeForestClassifier parameters")
    parser.add_argument("--df21-python", default=None, help="the DF21 environment's interpreter")
    parser.add_argument("--data-home", default=None, help="dataset files (default: $MDDF_DATA, else the cache)")


def check(options, parser):
    options.mddf = json.loads(options.params)
    options.df21 = {**(QUICK_DF21 if options.quick else {}), **json.loads(options.df21_params)}
    options.python = df21_python(options.df21_python)
    options.df21_versions = None
    if "DF21" in options.method_names:
        options.df21_versions, why = probe_df21(options.python)
        if options.df21_versions is None:
            options.method_names.remove("DF21")
            say(
                options,
                f"DF21 left out: no DF21 environment ({why}). Create it with 'bash benchmarks/setup_df21_env.sh' "
                "or point --df21-python / $MDDF_DF21_PYTHON at its interpreter; the other methods run.",
            )


STUDY = Study(
    "df21",
    __doc__,
    datasets=[replace(split(d), seeds=(0, 1, 2, 3, 4) if d == "yeast" else None) for d in (*DATASETS, "digits")],
    methods={
        "mdDF k-fold": mddf(),
        "mdDF oob": mddf(class_vectors="oob"),
        "DF21": None,
        "RF400": lambda ctx: registry("RF", n_trees=20 if ctx.quick else 400)(ctx),
    },
    protocol=TrainTest(seeds=(0, 1, 2), rounds=3),
    metrics=("accuracy",),
    default_datasets=DATASETS,
    quick={"datasets": ["digits"], "seeds": (0,), "rounds": 1},
    options=options,
    check=check,
    settings=lambda o: {"n_jobs": o.n_jobs, "params": o.mddf, "df21_params": o.df21},
    fit=fit,
    describe=describe,
    table=table,
    rows=lambda results: summarise(results.records, results.datasets, results.methods),
    report="df21_comparison",
    fresh_process=True,
)
main = STUDY.main

if __name__ == "__main__":
    sys.exit(main())
