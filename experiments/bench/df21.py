"""Same-run comparison of mdDF (k-fold and out-of-bag class vectors) with DF21 and a 400-tree random forest.

Methods, all with ``random_state`` = the seed and ``n_jobs`` = ``--n-jobs``:

- ``mdDF k-fold``: ``MDDFClassifier()`` (the default, k-fold class vectors), plus ``--params``;
- ``mdDF oob``: ``MDDFClassifier(class_vectors="oob")``, plus ``--params``;
- ``DF21``: deep-forest's ``CascadeForestClassifier`` with its defaults (plus ``--df21-params``), run under
  the DF21 reference environment's interpreter (``bash scripts/setup_df21_env.sh`` creates it; found at
  ``--df21-python``, else ``$MDDF_DF21_PYTHON``, else ``.df21-venv/bin/python``) by
  ``scripts/df21_worker.py``. Without that environment DF21 is skipped with a message and the rest runs;
- ``RF400``: scikit-learn's ``RandomForestClassifier(n_estimators=400)``.

Datasets: letter, satimage, adult and yeast with their standard splits (``mddf.datasets.load_dataset``,
files from ``--data-home``, else ``$MDDF_DATA``, else the cache). Every method gets the same arrays: the
loader's float32 features, adult's categorical columns as ordinal codes into the sorted values of the
training file with the missing value '?' a category of its own (code 0), so no value is NaN (DF21 accepts
only finite input). DF21 reads them from ``<out>/data/<dataset>.npz``, written by this script.

Seeds: 0, 1, 2 (yeast 0 to 4, its small test set moving more from seed to seed), or ``--seeds`` for all.
``--rounds`` interleaved rounds: each round fits every (dataset, seed, method) once, the methods' order
rotated by one from round to round so that no method always runs first or last. Every fit runs in a fresh
process (DF21 in its own interpreter), so its time, peak resident memory (``ru_maxrss``) and compiled code
are its own; a fit's time includes loading mdDF's compiled tree code from numba's cache.

Reported, per (dataset, method): accuracy, the mean over seeds (of each seed's mean over rounds); fit and
predict seconds and peak memory, medians over every (seed, round) run; layers kept per seed. Ratios to DF21
and to RF400 are computed per round, pair by pair (the same dataset, seed and round), and summarised by their
median. The issue's targets (issue #17) are checked in the table: k-fold fit at most 1.5 times DF21's and
predict at most DF21's with accuracy not below the target floor by more than one standard error (the standard
deviation of the per-seed accuracies over the square root of the number of seeds; with one seed, not below
the floor at all); out-of-bag fit at most half DF21's.

Files in ``--out``: ``results.jsonl`` (one record per fit, appended as it finishes; a rerun skips the
finished (dataset, method, seed, round) runs of the same configuration, and failed ones unless
``--retry-failed``), ``df21_comparison.md`` and ``df21_comparison.csv`` (provenance first:
``mddf.experiments.provenance``).

Examples
--------
bash scripts/setup_df21_env.sh
python scripts/bench_df21.py --rounds 3
python scripts/bench_df21.py --datasets letter,adult --rounds 3 --out results/df21-letter-adult
python scripts/bench_df21.py --params '{"max_layers": 10}' --out results/df21-max10
python scripts/bench_df21.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from mddf.experiments.bench.fitting import timed_fit
from mddf.experiments.bench.loading import train_test_arrays
from mddf.experiments.environment import REPO_ROOT
from mddf.experiments.store import ResultStore
from mddf.experiments.tables import markdown_table, number, standard_error, write_rows

#: Runs in DF21's own environment, which does not have mddf: a standalone script, not a module.
WORKER = REPO_ROOT / "scripts" / "df21_worker.py"

DATASETS = ("letter", "satimage", "adult", "yeast")
METHODS = ("mdDF k-fold", "mdDF oob", "DF21", "RF400")
#: ``--methods`` names of the methods.
METHOD_IDS = {"kfold": "mdDF k-fold", "oob": "mdDF oob", "df21": "DF21", "rf400": "RF400"}
MDDF_METHODS = {"mdDF k-fold": {}, "mdDF oob": {"class_vectors": "oob"}}
REFERENCES = ("DF21", "RF400")
DEFAULT_SEEDS = {"yeast": (0, 1, 2, 3, 4)}
DEFAULT_SEEDS_OTHER = (0, 1, 2)

QUICK_DATASET = "digits"
QUICK_MDDF = {"n_estimators": 5, "max_layers": 2}
QUICK_DF21 = {"n_trees": 20, "max_layers": 2}
QUICK_TREES = 20

#: Issue #17's target ratios to DF21 (fit, predict; None: no target), per mdDF method.
TARGET_RATIOS = {"mdDF k-fold": (1.5, 1.0), "mdDF oob": (0.5, None)}
#: Issue #17's target accuracy floors (%) of the default k-fold mode, means over the default seeds.
TARGET_ACCURACY = {"mdDF k-fold": {"letter": 97.12, "satimage": 91.75, "adult": 86.14, "yeast": 62.38}}


# ------------------------------------------------------------------------------------ DF21 environment
def df21_python(option: str | None = None) -> Path:
    """The DF21 environment's interpreter: ``option``, else ``$MDDF_DF21_PYTHON``, else ``.df21-venv/bin/python``."""
    return Path(option or os.environ.get("MDDF_DF21_PYTHON") or REPO_ROOT / ".df21-venv" / "bin" / "python")


def probe_df21(python: Path) -> tuple[dict | None, str]:
    """``(versions, "")`` when ``python`` runs the DF21 worker, else ``(None, why not)``."""
    if not python.exists():
        return None, f"no interpreter at {python}"
    try:
        done = subprocess.run(
            [str(python), str(WORKER), "--probe"], capture_output=True, text=True, timeout=120, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{python} does not run: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        return None, f"{python} cannot import deepforest: {last}"
    return json.loads(done.stdout.strip().splitlines()[-1]), ""


# ------------------------------------------------------------------------------------ data
def export_for_df21(dataset: str, path: Path, data_home=None) -> Path:
    """Write ``dataset``'s arrays to ``path`` (.npz) for the DF21 worker; NaN is refused (DF21 rejects it)."""
    import numpy as np

    if path.exists():
        return path
    X_train, y_train, X_test, y_test = train_test_arrays(dataset, data_home=data_home)
    for name, X in (("training", X_train), ("test", X_test)):
        if not np.all(np.isfinite(X)):
            raise ValueError(f"{dataset}: the {name} features hold NaN or infinite values, which DF21 rejects")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npz")
    np.savez(partial, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
    partial.replace(path)
    return path


# ------------------------------------------------------------------------------------ one fit
def fit_once(dataset, method, seed, n_jobs, params, data_home=None, quick=False) -> dict:
    """Fit mdDF or RF400 once and score it (the function a fresh process runs)."""
    import resource

    import numpy as np

    X_train, y_train, X_test, y_test = train_test_arrays(dataset, data_home=data_home)
    if method == "RF400":
        from sklearn.ensemble import RandomForestClassifier

        model = RandomForestClassifier(n_estimators=QUICK_TREES if quick else 400, n_jobs=n_jobs, random_state=seed)
    else:
        from mddf import MDDFClassifier

        model = MDDFClassifier(n_jobs=n_jobs, random_state=seed, **{**MDDF_METHODS[method], **params})
    predicted, fit_s, predict_s = timed_fit(model, X_train, y_train, X_test)
    record = {
        "accuracy": float(np.mean(predicted == y_test)),
        "fit_s": fit_s,
        "predict_s": predict_s,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "n_train": int(len(y_train)),
    }
    if method != "RF400":
        record["layers"] = int(model.n_layers_)
        record["grown"] = len(model.train_history_)
        record["model_mb"] = sum(h["model_bytes"] for h in model.train_history_[: model.n_layers_]) / 1e6
    return record


def fit_df21(python: Path, data: Path, dataset, seed, n_jobs, params) -> dict:
    """Run the DF21 worker under ``python`` (a fresh process) and return its JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "result.json"
        command = [str(python), str(WORKER), "--data", str(data), "--dataset", dataset, "--seed", str(seed)]
        command += ["--n-jobs", str(n_jobs), "--params", json.dumps(params), "--out", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"DF21 worker failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        result = json.loads(out.read_text())
    # the DF21 environment's versions; "versions" of the record are this process's (provenance.record_stamp)
    result["df21_versions"] = result.pop("versions", None)
    return {k: v for k, v in result.items() if k not in ("dataset", "seed", "params")}


# ------------------------------------------------------------------------------------ summaries
def rotated(methods, round_index: int) -> list:
    """``methods`` rotated left by ``round_index`` (round 0 keeps their order)."""
    shift = round_index % len(methods) if methods else 0
    return list(methods[shift:]) + list(methods[:shift])


def summarise(records, datasets, methods) -> list[dict]:
    """One row per (dataset, method) with the medians, the mean accuracy and the ratios to the references."""
    ok = [r for r in records if r.get("status", "ok") == "ok"]
    by_run = {(r["dataset"], r["method"], r["seed"], r["round"]): r for r in ok}
    rows = []
    for dataset in datasets:
        for method in methods:
            runs = [r for r in ok if r["dataset"] == dataset and r["method"] == method]
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
                # one seed has no spread: its accuracy must reach the floor itself
                "accuracy_se": round(100 * standard_error(per_seed), 3) if len(per_seed) > 1 else 0.0,
                "fit_s": round(statistics.median(r["fit_s"] for r in runs), 3),
                "predict_s": round(statistics.median(r["predict_s"] for r in runs), 3),
                "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in runs), 1),
                "layers": " ".join(
                    str(next(r.get("layers", "") for r in runs if r["seed"] == s)) for s in seeds
                ).strip(),
            }
            for reference in REFERENCES:
                tag = reference.lower()
                for what in ("fit_s", "predict_s"):
                    ratios = [
                        r[what] / ref[what]
                        for r in runs
                        if (ref := by_run.get((dataset, reference, r["seed"], r["round"]))) and ref[what] > 0
                    ]
                    key = f"{what.removesuffix('_s')}_vs_{tag}"
                    row[key] = round(statistics.median(ratios), 3) if ratios and method != reference else ""
            row["targets"] = targets_met(row)
            rows.append(row)
    return rows


def targets_met(row) -> str:
    """``"met"``, ``"missed: ..."`` or ``""`` (no target for this method or dataset, or no DF21 to compare with)."""
    method = row["method"]
    if method not in TARGET_RATIOS or row["dataset"] not in DATASETS or row.get("fit_vs_df21") in ("", None):
        return ""
    missed = []
    fit_bound, predict_bound = TARGET_RATIOS[method]
    if row["fit_vs_df21"] > fit_bound:
        missed.append(f"fit {row['fit_vs_df21']:.2f} > {fit_bound}")
    if predict_bound is not None and row["predict_vs_df21"] > predict_bound:
        missed.append(f"predict {row['predict_vs_df21']:.2f} > {predict_bound}")
    floor = TARGET_ACCURACY.get(method, {}).get(row["dataset"])
    # the floors are the figures, rounded to two decimals: compare at that precision
    se = row.get("accuracy_se", 0.0)
    if floor is not None and round(row["accuracy"] + se, 2) < floor:
        missed.append(f"accuracy {row['accuracy']:.2f} (standard error {se:.2f}) < {floor}")
    return "missed: " + "; ".join(missed) if missed else "met"


def _cell(fmt: str, row, key: str) -> str:
    if row is None:
        return ""
    return fmt.format(row[key], row.get("accuracy_se", 0.0)) if key == "accuracy" else fmt.format(row[key])


def markdown(rows, methods, note: str) -> str:
    """The comparison as Markdown tables (one per measure, then the ratios)."""
    by = {(r["dataset"], r["method"]): r for r in rows}
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    lines = ["# mdDF against DF21 and RF400", "", note, ""]
    for title, key, fmt in (
        ("Test accuracy (%), mean ± standard error over seeds", "accuracy", "{:.2f} ± {:.2f}"),
        ("Fit seconds, median over seeds and rounds", "fit_s", "{:.2f}"),
        ("Predict seconds (test set), median over seeds and rounds", "predict_s", "{:.3f}"),
        ("Peak resident memory of the fit's process (MB), median", "peak_rss_mb", "{:.0f}"),
        ("Layers kept, per seed", "layers", "{}"),
    ):
        cells = [[d, *(_cell(fmt, by.get((d, m)), key) for m in methods)] for d in datasets]
        lines += [f"## {title}", "", *markdown_table(["dataset", *methods], cells), ""]
    ratios = ("fit_vs_df21", "predict_vs_df21", "fit_vs_rf400", "predict_vs_rf400")
    cells = [
        [row["dataset"], row["method"], *(number(row[k], 2, missing="") for k in ratios), row["targets"]]
        for row in rows
        if row["method"] not in REFERENCES
    ]
    header = ["dataset", "method", "fit / DF21", "predict / DF21", "fit / RF400", "predict / RF400", "targets"]
    lines += ["## Ratios, median over (seed, round) pairs fitted in the same round", ""]
    lines += markdown_table(header, cells)
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ main
def _config(args, params, df21_params) -> dict:
    return {"quick": bool(args.quick), "n_jobs": args.n_jobs, "params": params, "df21_params": df21_params}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--datasets", default=None, help="comma-separated (default: " + ",".join(DATASETS) + ")")
    parser.add_argument("--seeds", default=None, help="comma-separated seeds for every dataset (default: see above)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 3; --quick 1)")
    parser.add_argument(
        "--methods", default=",".join(METHOD_IDS), help="comma-separated subset of " + ", ".join(METHOD_IDS)
    )
    parser.add_argument("--n-jobs", type=int, default=2, help="threads/processes of every method")
    parser.add_argument("--params", default="{}", help="JSON of MDDFClassifier parameters for both mdDF modes")
    parser.add_argument("--df21-params", default="{}", help="JSON of CascadeForestClassifier parameters")
    parser.add_argument("--df21-python", default=None, help="the DF21 environment's interpreter")
    parser.add_argument("--data-home", default=None, help="dataset files (default: $MDDF_DATA, else the cache)")
    parser.add_argument("--out", default="results/df21", type=Path, help="output folder")
    parser.add_argument("--retry-failed", action="store_true", help="rerun the fits recorded as failed")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke test: {QUICK_DATASET} (bundled), seed 0, one round, tiny models",
    )
    args = parser.parse_args(argv)
    methods = []
    for name in (m.strip().lower() for m in args.methods.split(",") if m.strip()):
        if name not in METHOD_IDS:
            parser.error(f"unknown method {name!r}; known: {', '.join(METHOD_IDS)}")
        methods.append(METHOD_IDS[name])
    params, df21_params = json.loads(args.params), json.loads(args.df21_params)
    if args.quick:
        datasets = args.datasets.split(",") if args.datasets else [QUICK_DATASET]
        params, df21_params = {**QUICK_MDDF, **params}, {**QUICK_DF21, **df21_params}
    else:
        datasets = args.datasets.split(",") if args.datasets else list(DATASETS)
    rounds = args.rounds if args.rounds is not None else (1 if args.quick else 3)
    if args.seeds:
        seeds = {d: [int(s) for s in args.seeds.split(",")] for d in datasets}
    elif args.quick:
        seeds = {d: [0] for d in datasets}
    else:
        seeds = {d: list(DEFAULT_SEEDS.get(d, DEFAULT_SEEDS_OTHER)) for d in datasets}

    python = df21_python(args.df21_python)
    df21_versions = None
    if "DF21" in methods:
        df21_versions, why = probe_df21(python)
        if df21_versions is None:
            methods.remove("DF21")
            print(
                f"DF21 skipped: no DF21 environment ({why}). Create it with 'bash scripts/setup_df21_env.sh' "
                "or point --df21-python / $MDDF_DF21_PYTHON at its interpreter; the other methods run.",
                file=sys.stderr,
                flush=True,
            )
        else:
            print(f"DF21 environment: {python} ({json.dumps(df21_versions)})", file=sys.stderr, flush=True)

    from mddf.experiments.environment import run_in_fresh_process
    from mddf.experiments.provenance import provenance, record_stamp, script_path, with_markdown_header

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    store = ResultStore(out / "results.jsonl")
    config = _config(args, params, df21_params)
    records = [r for r in store.records() if r.get("config") == config]
    done = {
        (r["dataset"], r["method"], r["seed"], r["round"])
        for r in records
        if r.get("status", "ok") == "ok" or not args.retry_failed
    }
    for round_index in range(rounds):
        for dataset in datasets:
            for seed in seeds[dataset]:
                for method in rotated(methods, round_index):
                    key = (dataset, method, seed, round_index)
                    if key in done:
                        continue
                    record = {"dataset": dataset, "method": method, "seed": seed, "round": round_index}
                    try:
                        if method == "DF21":
                            data = export_for_df21(dataset, out / "data" / f"{dataset}.npz", args.data_home)
                            record.update(fit_df21(python, data, dataset, seed, args.n_jobs, df21_params))
                        else:
                            task = (dataset, method, seed, args.n_jobs, params, args.data_home, args.quick)
                            record.update(run_in_fresh_process(fit_once, *task))
                        record["status"] = "ok"
                    except Exception as exc:  # noqa: BLE001  (recorded, and the sweep goes on)
                        record.update(status="failed", error=f"{type(exc).__name__}: {exc}"[-2000:])
                    record.update(config=config, **record_stamp())
                    records = [r for r in records if (r["dataset"], r["method"], r["seed"], r["round"]) != key]
                    records.append(record)
                    store.append(record)
                    if record["status"] == "ok":
                        message = (
                            f"accuracy {100 * record['accuracy']:.2f}  fit {record['fit_s']:.1f}s  "
                            f"predict {record['predict_s']:.2f}s  peak {record['peak_rss_mb']:.0f} MB"
                        )
                    else:
                        message = "FAILED: " + record["error"].splitlines()[0]
                    print(f"round {round_index} {dataset} seed {seed} {method}: {message}", file=sys.stderr, flush=True)

    wanted = {(d, s) for d in datasets for s in seeds[d]}
    kept = [r for r in records if (r["dataset"], r["seed"]) in wanted and r["round"] < rounds]
    failed = [r for r in kept if r.get("status") == "failed"]
    shown = [m for m in METHODS if m in methods]
    rows = summarise(kept, datasets, shown)
    note = (
        f"Rounds: {rounds}, the methods' order rotated each round; every fit in a fresh process, "
        f"n_jobs={args.n_jobs}. Seeds: " + "; ".join(f"{d} {','.join(map(str, seeds[d]))}" for d in datasets) + ". "
        "mdDF parameters: "
        + (json.dumps(params) if params else "defaults")
        + "; DF21: "
        + (
            f"deep-forest {df21_versions.get('deep-forest')} under Python {df21_versions.get('python')} "
            f"(numpy {df21_versions.get('numpy')}, scikit-learn {df21_versions.get('scikit-learn')}), parameters "
            + (json.dumps(df21_params) if df21_params else "defaults")
            if df21_versions
            else "skipped (no DF21 environment)"
        )
        + ". Input: the loaders' float32 features, the same for every method"
        + (
            " (adult's categorical columns as ordinal codes, '?' its own category, no NaN)."
            if "adult" in datasets
            else "."
        )
        + (f" Failed fits (left out): {len(failed)}, see results.jsonl." if failed else "")
    )
    prov = provenance(script_path("bench_df21.py"), sys.argv[1:] if argv is None else argv)
    (out / "df21_comparison.md").write_text(with_markdown_header(markdown(rows, shown, note), prov))
    if rows:
        write_rows(rows, out / "df21_comparison.csv", prov)
    print(markdown(rows, shown, note))
    return 1 if failed else 0
